//! The `decimal` logical type (and the value `big-decimal` shares): an unscaled
//! two's-complement big-endian integer and a scale, with the rules every front end applies
//! when writing one: at most `precision` digits, and sign extension to the size of a `fixed`.

use std::fmt;

use crate::error::{Error, Result};

/// A decimal number: `unscaled × 10^-scale`, with the unscaled integer as two's-complement
/// big-endian bytes (the Avro encoding), so any precision fits.
///
/// # Examples
/// ```
/// use avrokit::value::Decimal;
/// let d = Decimal::from_i128(-12345, 2);
/// assert_eq!(d.to_string(), "-123.45");
/// assert_eq!(d.to_i128(), Some(-12345));
/// assert_eq!(d.unscaled(), &[0xcf, 0xc7]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Decimal {
    // A boxed slice, not a `Vec`: 8 bytes less keeps every `Value` at 32 bytes instead of 40.
    unscaled: Box<[u8]>,
    scale: u32,
}

impl Decimal {
    /// A decimal from its unscaled two's-complement big-endian bytes and its scale.
    pub fn new(unscaled: Vec<u8>, scale: u32) -> Decimal {
        Decimal {
            unscaled: unscaled.into_boxed_slice(),
            scale,
        }
    }

    /// A decimal from an unscaled integer, in the fewest bytes.
    pub fn from_i128(unscaled: i128, scale: u32) -> Decimal {
        let bytes = unscaled.to_be_bytes();
        let mut start = 0;
        // Drop leading bytes that only repeat the sign of the next one.
        while start < 15 {
            let b = bytes[start];
            let next_neg = bytes[start + 1] & 0x80 != 0;
            if (b == 0 && !next_neg) || (b == 0xff && next_neg) {
                start += 1;
            } else {
                break;
            }
        }
        Decimal {
            unscaled: bytes[start..].into(),
            scale,
        }
    }

    /// The unscaled integer's two's-complement big-endian bytes.
    pub fn unscaled(&self) -> &[u8] {
        &self.unscaled
    }

    /// The scale: digits after the decimal point.
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// The unscaled integer, if it fits in an `i128`.
    pub fn to_i128(&self) -> Option<i128> {
        let b = &self.unscaled;
        if b.is_empty() {
            return Some(0);
        }
        let neg = b[0] & 0x80 != 0;
        // Leading sign bytes beyond 16 are fine as long as they are only sign.
        let extra = b.len().saturating_sub(16);
        let fill = if neg { 0xff } else { 0 };
        if b[..extra].iter().any(|&x| x != fill) {
            return None;
        }
        let tail = &b[extra..];
        if extra > 0 && (tail[0] & 0x80 != 0) != neg {
            return None;
        }
        let mut buf = [fill; 16];
        buf[16 - tail.len()..].copy_from_slice(tail);
        Some(i128::from_be_bytes(buf))
    }
}

impl fmt::Display for Decimal {
    /// Exact decimal text for numbers that fit in an `i128`; otherwise the unscaled bytes in hex
    /// with the scale.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(n) = self.to_i128() else {
            write!(f, "0x")?;
            for b in self.unscaled.iter() {
                write!(f, "{b:02x}")?;
            }
            return write!(f, "e-{}", self.scale);
        };
        let digits = n.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let sign = if n < 0 { "-" } else { "" };
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            write!(f, "{sign}{int}.{frac}")
        } else {
            write!(f, "{sign}0.{}{digits}", "0".repeat(scale - digits.len()))
        }
    }
}

/// `b` without the leading bytes that only repeat the sign of the next one; zero is empty.
pub(crate) fn significant(b: &[u8]) -> &[u8] {
    let neg = b.first().is_some_and(|x| x & 0x80 != 0);
    let fill = if neg { 0xff } else { 0 };
    let mut start = 0;
    while start + 1 < b.len() && b[start] == fill && (b[start + 1] & 0x80 != 0) == neg {
        start += 1;
    }
    match &b[start..] {
        [0] => &[],
        sig => sig,
    }
}

/// Checks that the unscaled integer `b` has at most `precision` digits (Java's
/// `DecimalConversion` refuses more when writing), and returns its [`significant`] bytes.
///
/// # Errors
/// When it has more digits than the schema allows.
pub(crate) fn check_precision(b: &[u8], precision: u32) -> Result<&[u8]> {
    let sig = significant(b);
    let neg = sig.first().is_some_and(|x| x & 0x80 != 0);
    let fits = if sig.len() <= 16 {
        let mut buf = [if neg { 0xff } else { 0 }; 16];
        buf[16 - sig.len()..].copy_from_slice(sig);
        let v = i128::from_be_bytes(buf).unsigned_abs();
        precision >= 39 || v < 10u128.pow(precision)
    } else {
        magnitude_digits(sig, neg) <= precision as usize
    };
    if !fits {
        return Err(Error::data(format!(
            "the decimal's unscaled value has more than the {precision} digits of its schema"
        )));
    }
    Ok(sig)
}

/// The number of decimal digits of the magnitude of a big two's-complement integer.
fn magnitude_digits(sig: &[u8], neg: bool) -> usize {
    // Magnitude as big-endian base-2^32 limbs.
    let mut bytes = sig.to_vec();
    if neg {
        for x in bytes.iter_mut() {
            *x = !*x;
        }
        for x in bytes.iter_mut().rev() {
            let (v, carry) = x.overflowing_add(1);
            *x = v;
            if !carry {
                break;
            }
        }
    }
    let pad = (4 - bytes.len() % 4) % 4;
    let mut limbs: Vec<u32> = std::iter::repeat_n(0u8, pad)
        .chain(bytes)
        .collect::<Vec<u8>>()
        .chunks(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut n = 0;
    while limbs.iter().any(|&l| l != 0) {
        let mut rem = 0u64;
        for l in limbs.iter_mut() {
            let cur = (rem << 32) | u64::from(*l);
            *l = (cur / 10) as u32;
            rem = cur % 10;
        }
        n += 1;
    }
    n
}

/// A decimal's bytes sized for a `fixed`: on the stack up to 64 bytes.
pub(crate) enum FixedBytes {
    Stack([u8; 64], usize),
    Heap(Vec<u8>),
}

impl FixedBytes {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            FixedBytes::Stack(b, n) => &b[..*n],
            FixedBytes::Heap(v) => v,
        }
    }
}

/// The unscaled integer `b` sign-extended (or trimmed of sign bytes) to exactly `size` bytes,
/// for a `fixed`; `None` when it does not fit.
pub(crate) fn fit(b: &[u8], size: usize) -> Option<FixedBytes> {
    let sig = significant(b);
    if sig.len() > size {
        return None;
    }
    let fill = if sig.first().is_some_and(|x| x & 0x80 != 0) {
        0xff
    } else {
        0
    };
    let pad = size - sig.len();
    if size <= 64 {
        let mut out = [0u8; 64];
        out[..pad].fill(fill);
        out[pad..size].copy_from_slice(sig);
        Some(FixedBytes::Stack(out, size))
    } else {
        let mut out = vec![fill; pad];
        out.extend_from_slice(sig);
        Some(FixedBytes::Heap(out))
    }
}

/// Checks that the decimal `b` may be written to a node of `precision` and, for a `fixed`, of
/// `size` bytes, and returns the bytes to write: `b` itself for `bytes`, the sized bytes for a
/// `fixed`. Every front end writes decimals through this.
///
/// # Errors
/// Too many digits for the precision, or too many bytes for the fixed.
pub(crate) fn to_write(
    b: &[u8],
    precision: Option<u32>,
    size: Option<usize>,
) -> Result<Written<'_>> {
    if let Some(p) = precision {
        check_precision(b, p)?;
    }
    match size {
        None => Ok(Written::Bytes(b)),
        Some(size) => match fit(b, size) {
            Some(f) => Ok(Written::Fixed(f)),
            None => Err(Error::data(format!(
                "the decimal's unscaled value does not fit in a fixed of {size} bytes"
            ))),
        },
    }
}

/// What [`to_write`] says to write.
pub(crate) enum Written<'a> {
    Bytes(&'a [u8]),
    Fixed(FixedBytes),
}

impl Written<'_> {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Written::Bytes(b) => b,
            Written::Fixed(f) => f.as_slice(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_bytes_are_minimal_and_roundtrip() {
        for (n, bytes) in [
            (0i128, vec![0u8]),
            (127, vec![0x7f]),
            (128, vec![0x00, 0x80]),
            (-1, vec![0xff]),
            (-128, vec![0x80]),
            (-129, vec![0xff, 0x7f]),
        ] {
            let d = Decimal::from_i128(n, 0);
            assert_eq!(d.unscaled(), &bytes[..], "{n}");
            assert_eq!(d.to_i128(), Some(n));
        }
        assert_eq!(Decimal::from_i128(i128::MIN, 0).to_i128(), Some(i128::MIN));
        assert_eq!(Decimal::from_i128(i128::MAX, 0).to_i128(), Some(i128::MAX));
    }

    #[test]
    fn decimal_text() {
        assert_eq!(Decimal::from_i128(5, 3).to_string(), "0.005");
        assert_eq!(Decimal::from_i128(-5, 1).to_string(), "-0.5");
        assert_eq!(Decimal::from_i128(1234, 0).to_string(), "1234");
    }

    fn fitted(b: &[u8], size: usize) -> Option<Vec<u8>> {
        fit(b, size).map(|f| f.as_slice().to_vec())
    }

    #[test]
    fn fit_sign_extends_and_checks_size() {
        assert_eq!(fitted(&[0xfe], 4), Some(vec![0xff, 0xff, 0xff, 0xfe]));
        assert_eq!(fitted(&[0x01, 0x11, 0x70], 2), None); // 70000
        assert_eq!(fitted(&[0, 0, 0x05], 1), Some(vec![0x05]));
        assert_eq!(fitted(&[0xff, 0x80], 1), Some(vec![0x80]));
        assert_eq!(fitted(&[0x00, 0x80], 1), None, "128 needs two bytes");
        assert_eq!(fitted(&[], 2), Some(vec![0, 0]));
        assert_eq!(fitted(&[0], 0), Some(vec![]));
        assert_eq!(fitted(&[0xff], 0), None, "-1 is not zero");
        assert_eq!(fitted(&[0x80], 3), Some(vec![0xff, 0xff, 0x80]));
        let big = fitted(&[0x80], 100).unwrap();
        assert_eq!(big.len(), 100);
        assert!(big[..99].iter().all(|&b| b == 0xff) && big[99] == 0x80);
    }

    #[test]
    fn precision() {
        assert_eq!(check_precision(&[0x00, 0x00, 0x7f], 3).unwrap(), &[0x7f]);
        assert_eq!(check_precision(&[0xff, 0x80], 3).unwrap(), &[0x80]);
        assert!(check_precision(&[0x03, 0xe8], 3).is_err()); // 1000
        assert!(check_precision(&[0x03, 0xe7], 3).is_ok()); // 999
        assert!(check_precision(&[0xfc, 0x19], 3).is_ok()); // -999
        assert!(check_precision(&[0xfc, 0x18], 3).is_err()); // -1000
        assert!(check_precision(&[], 1).is_ok());
        let mut big = vec![0x01];
        big.extend([0u8; 20]); // 2^160: 49 digits
        assert!(check_precision(&big, 49).is_ok());
        assert!(check_precision(&big, 48).is_err());
        assert!(to_write(&[0x03, 0xe8], Some(3), None).is_err());
        assert!(to_write(&[0x03, 0xe8], Some(4), Some(1)).is_err());
        assert_eq!(
            to_write(&[0x03, 0xe8], Some(4), Some(3))
                .unwrap()
                .as_slice(),
            &[0, 0x03, 0xe8]
        );
    }
}
