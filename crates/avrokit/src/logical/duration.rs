//! The `duration` logical type on `fixed(12)`.

/// The size of a `duration`'s fixed.
pub(crate) const SIZE: usize = 12;

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

    /// From a fixed's bytes: `None` unless there are exactly 12.
    pub(crate) fn from_slice(b: &[u8]) -> Option<Duration> {
        <&[u8; 12]>::try_from(b).ok().map(Duration::from_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_bytes() {
        let d = Duration {
            months: 1,
            days: 2,
            millis: 3,
        };
        assert_eq!(Duration::from_bytes(&d.to_bytes()), d);
        assert_eq!(Duration::from_slice(&d.to_bytes()), Some(d));
        assert_eq!(Duration::from_slice(&[0; 11]), None);
        assert_eq!(Duration::from_slice(&[0; 13]), None);
    }
}
