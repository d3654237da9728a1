//! The `big-decimal` logical type on `bytes`: a payload holding the unscaled integer as Avro
//! `bytes` (two's-complement, big-endian) followed by the scale as an Avro `int`.

use super::Decimal;
use crate::decode::Decoder;
use crate::encode::Encoder;
use crate::error::{Error, Result};

/// The decimal a payload holds; `None` when the bytes are not exactly one payload with a
/// scale of zero or more.
pub(crate) fn parse(b: &[u8]) -> Option<Decimal> {
    let mut d = Decoder::from_slice(b);
    let unscaled = d.read_bytes().ok()?.to_vec();
    let scale = d.read_int().ok()?;
    if !d.rest().is_empty() || scale < 0 {
        return None;
    }
    Some(Decimal::new(unscaled, scale as u32))
}

/// The payload of `d`.
///
/// # Errors
/// When the scale does not fit in an `int`.
pub(crate) fn payload(d: &Decimal) -> Result<Vec<u8>> {
    let scale = i32::try_from(d.scale())
        .map_err(|_| Error::data(format!("big-decimal scale {} exceeds an int", d.scale())))?;
    let mut payload = Vec::with_capacity(d.unscaled().len() + 10);
    let mut enc = Encoder::new(&mut payload);
    enc.write_bytes(d.unscaled())?;
    enc.write_int(scale)?;
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_roundtrip_and_reject_junk() {
        let d = Decimal::from_i128(-12345, 7);
        let p = payload(&d).unwrap();
        assert_eq!(p, [0x04, 0xcf, 0xc7, 0x0e]);
        assert_eq!(parse(&p), Some(d));
        assert_eq!(parse(&[0x02, 0x07, 0x01]), None, "negative scale");
        assert_eq!(parse(&[0x02, 0x07, 0x00, 0x00]), None, "bytes left over");
        assert_eq!(parse(&[0x04, 0x07]), None, "truncated");
        assert!(payload(&Decimal::new(vec![1], u32::MAX)).is_err());
    }
}
