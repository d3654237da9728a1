/// Bounds a decoder enforces on untrusted input.
///
/// Every length and count read from data is checked against the bytes left (when the source
/// knows them) and against `max_alloc` before anything is allocated; nesting deeper than
/// `max_depth` is an error rather than a stack overflow.
///
/// # Examples
/// ```
/// use avrokit::{Decoder, Limits};
/// let limits = Limits::default().with_max_alloc(1 << 20).with_max_depth(64);
/// let dec = Decoder::from_slice(b"").with_limits(limits);
/// assert_eq!(dec.limits().max_alloc, 1 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest single allocation decoding may make for a string, bytes, fixed or a
    /// collection's items, in bytes. Default 512 MiB.
    pub max_alloc: usize,
    /// The deepest nesting of records, arrays, maps and unions a datum may have. Default 512.
    pub max_depth: usize,
}

impl Limits {
    /// Default maximum allocation: 512 MiB.
    pub const DEFAULT_MAX_ALLOC: usize = 512 * 1024 * 1024;
    /// Default maximum nesting depth.
    pub const DEFAULT_MAX_DEPTH: usize = 512;

    /// Sets `max_alloc`.
    #[must_use]
    pub fn with_max_alloc(mut self, bytes: usize) -> Limits {
        self.max_alloc = bytes;
        self
    }

    /// Sets `max_depth`.
    #[must_use]
    pub fn with_max_depth(mut self, depth: usize) -> Limits {
        self.max_depth = depth;
        self
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_alloc: Limits::DEFAULT_MAX_ALLOC,
            max_depth: Limits::DEFAULT_MAX_DEPTH,
        }
    }
}
