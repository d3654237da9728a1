//! Values of logical types that need more than a number.

use std::fmt;

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

    /// The bytes sign-extended (or trimmed of sign bytes) to exactly `size` bytes, for a `fixed`.
    /// `None` when the number does not fit.
    pub(crate) fn to_fixed(&self, size: usize) -> Option<Vec<u8>> {
        let b = &self.unscaled;
        let neg = b.first().is_some_and(|x| x & 0x80 != 0);
        let fill = if neg { 0xff } else { 0 };
        if b.len() <= size {
            let mut out = vec![fill; size - b.len()];
            out.extend_from_slice(b);
            return Some(out);
        }
        let extra = b.len() - size;
        if b[..extra].iter().any(|&x| x != fill) || (size > 0 && (b[extra] & 0x80 != 0) != neg) {
            return None;
        }
        Some(b[extra..].to_vec())
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

/// An Avro `duration`: months, days and milliseconds, each an unsigned 32-bit count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Duration {
    /// Months.
    pub months: u32,
    /// Days.
    pub days: u32,
    /// Milliseconds.
    pub millis: u32,
}

impl Duration {
    /// The 12-byte encoding: three little-endian u32s.
    pub fn to_bytes(&self) -> [u8; 12] {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&self.months.to_le_bytes());
        b[4..8].copy_from_slice(&self.days.to_le_bytes());
        b[8..].copy_from_slice(&self.millis.to_le_bytes());
        b
    }

    /// From the 12-byte encoding.
    pub fn from_bytes(b: &[u8; 12]) -> Duration {
        let u = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Duration {
            months: u(0),
            days: u(4),
            millis: u(8),
        }
    }
}

/// Parses the 8-4-4-4-12 hex form of a UUID (either case).
pub(crate) fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    // Every other position is a hex digit (a '-' elsewhere is not, so it cannot shift the
    // digit pairs past the end: found by fuzzing).
    let mut digits = b
        .iter()
        .enumerate()
        .filter(|&(i, _)| !matches!(i, 8 | 13 | 18 | 23))
        .map(|(_, &c)| (c as char).to_digit(16));
    let mut out = [0u8; 16];
    for o in &mut out {
        let hi = digits.next()??;
        let lo = digits.next()??;
        *o = (hi * 16 + lo) as u8;
    }
    Some(out)
}

/// The 8-4-4-4-12 lower-case hex form of a UUID.
pub(crate) fn format_uuid(u: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
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

    #[test]
    fn decimal_to_fixed_sign_extends_and_checks_fit() {
        let d = Decimal::from_i128(-2, 0);
        assert_eq!(d.to_fixed(4), Some(vec![0xff, 0xff, 0xff, 0xfe]));
        let big = Decimal::from_i128(70000, 0);
        assert_eq!(big.to_fixed(2), None);
        let padded = Decimal::new(vec![0, 0, 0x05], 0);
        assert_eq!(padded.to_fixed(1), Some(vec![0x05]));
    }

    #[test]
    fn uuid_text_roundtrips() {
        let s = "123e4567-e89b-12d3-a456-426614174000";
        let u = parse_uuid(s).unwrap();
        assert_eq!(format_uuid(&u), s);
        assert!(parse_uuid("123e4567e89b12d3a456426614174000").is_none());
        assert!(parse_uuid("123e4567-e89b-12d3-a456-42661417400g").is_none());
    }

    #[test]
    fn duration_bytes() {
        let d = Duration {
            months: 1,
            days: 2,
            millis: 3,
        };
        assert_eq!(Duration::from_bytes(&d.to_bytes()), d);
    }
}
