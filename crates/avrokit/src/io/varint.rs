//! Zigzag and LEB128 varints, as the Avro binary encoding uses for `int` and `long`.

/// Zigzag-encodes a 64-bit signed value.
#[inline(always)]
pub(crate) fn zigzag64(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// Zigzag-encodes a 32-bit signed value (same bytes as [`zigzag64`] for the same number).
#[inline(always)]
pub(crate) fn zigzag32(n: i32) -> u64 {
    (((n << 1) ^ (n >> 31)) as u32) as u64
}

/// Reverses the zigzag encoding.
#[inline(always)]
pub(crate) fn unzigzag64(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

/// Writes `v` as a varint into `buf`, returning the number of bytes used (1..=10).
#[inline(always)]
pub(crate) fn encode(mut v: u64, buf: &mut [u8; 10]) -> usize {
    let mut i = 0;
    while v >= 0x80 {
        buf[i] = (v as u8) | 0x80;
        v >>= 7;
        i += 1;
    }
    buf[i] = v as u8;
    i + 1
}

/// The result of decoding a varint from a byte slice.
pub(crate) enum Decoded {
    /// The value and the bytes it took.
    Ok(u64, usize),
    /// The slice ended inside the varint.
    Eof,
    /// More than 10 bytes, or a 10th byte with more than the 64th bit.
    Overflow,
}

/// Decodes a varint from a slice holding at least 10 bytes: no per-byte bounds checks.
#[inline(always)]
pub(crate) fn decode_10(b: &[u8; 10]) -> Decoded {
    let mut result: u64 = 0;
    let mut i = 0;
    while i < 9 {
        let byte = b[i];
        result |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Decoded::Ok(result, i + 1);
        }
        i += 1;
    }
    let last = b[9];
    if last > 1 {
        return Decoded::Overflow;
    }
    Decoded::Ok(result | (u64::from(last) << 63), 10)
}

/// Decodes a varint from any slice (the careful path near the end of input).
#[inline(never)]
pub(crate) fn decode_slow(b: &[u8]) -> Decoded {
    let mut result: u64 = 0;
    for (i, &byte) in b.iter().enumerate().take(10) {
        if i == 9 && byte > 1 {
            return Decoded::Overflow;
        }
        result |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Decoded::Ok(result, i + 1);
        }
    }
    if b.len() >= 10 {
        Decoded::Overflow
    } else {
        Decoded::Eof
    }
}

/// Decodes a varint from any slice, taking the fast path when 10 bytes are available.
#[inline(always)]
pub(crate) fn decode(b: &[u8]) -> Decoded {
    match b.first_chunk::<10>() {
        Some(chunk) => decode_10(chunk),
        None => decode_slow(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(v: i64) {
        let mut buf = [0u8; 10];
        let n = encode(zigzag64(v), &mut buf);
        match decode_slow(&buf[..n]) {
            Decoded::Ok(u, used) => {
                assert_eq!(used, n);
                assert_eq!(unzigzag64(u), v);
            }
            _ => panic!("failed for {v}"),
        }
        let mut padded = [0u8; 10];
        padded[..n].copy_from_slice(&buf[..n]);
        match decode_10(&padded) {
            Decoded::Ok(u, used) => {
                assert_eq!(used, n);
                assert_eq!(unzigzag64(u), v);
            }
            _ => panic!("failed for {v}"),
        }
    }

    #[test]
    fn zigzag_matches_the_spec_table() {
        // The specification's table: 0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3, 2 -> 4, -64 -> 7f, 64 -> 80 01
        for (n, z) in [(0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4), (-64, 0x7f), (64, 0x80)] {
            assert_eq!(zigzag64(n), z);
            assert_eq!(zigzag32(n as i32), z);
        }
        assert_eq!(zigzag32(i32::MIN), u32::MAX as u64);
        assert_eq!(zigzag64(i64::MIN), u64::MAX);
    }

    #[test]
    fn roundtrips_edges() {
        for v in [0, 1, -1, 63, -64, 64, -65, i32::MAX as i64, i32::MIN as i64, i64::MAX, i64::MIN] {
            roundtrip(v);
        }
    }

    #[test]
    fn rejects_overlong_and_truncated() {
        assert!(matches!(decode_slow(&[0x80; 11]), Decoded::Overflow));
        assert!(matches!(decode_10(&[0xff; 10]), Decoded::Overflow));
        let mut ten = [0xff; 10];
        ten[9] = 0x02;
        assert!(matches!(decode_10(&ten), Decoded::Overflow));
        assert!(matches!(decode_slow(&ten), Decoded::Overflow));
        assert!(matches!(decode_slow(&[0x80, 0x80]), Decoded::Eof));
        assert!(matches!(decode_slow(&[]), Decoded::Eof));
    }
}
