//! A port of `java.util.Random` (WORKLOADS.md section 2).
//!
//! Java's class documentation fixes these algorithms so that one seed gives one sequence on every
//! JVM; every Perf test draws its data from a fresh generator seeded with [`PERF_SEED`], so a
//! bit-exact port is what lets us generate exactly the bytes Java measured.

/// The seed every Perf test uses (19781210).
pub const PERF_SEED: i64 = 19_781_210;

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const INCREMENT: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

/// `java.util.Random`: a 48-bit linear congruential generator.
#[derive(Debug, Clone)]
pub struct JavaRandom {
    state: u64,
    calls: u64,
}

impl JavaRandom {
    /// A generator seeded like `new java.util.Random(seed)`.
    pub fn new(seed: i64) -> Self {
        JavaRandom {
            state: (seed as u64 ^ MULTIPLIER) & MASK,
            calls: 0,
        }
    }

    /// A fresh generator with the Perf seed, as every test's data generation starts with.
    pub fn perf() -> Self {
        Self::new(PERF_SEED)
    }

    /// How many times the core step `next(bits)` has run; the catalog states some of these
    /// counts, which checks the rejection loop of [`JavaRandom::next_int_bounded`].
    #[cfg(test)]
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// Java's protected `next(bits)`: the top `bits` bits of the new 48-bit state, as a signed
    /// 32-bit value (negative only when `bits == 32`).
    fn next(&mut self, bits: u32) -> i32 {
        self.calls += 1;
        self.state = self.state.wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT) & MASK;
        // For bits == 32 the shifted value fills 32 bits and Java reinterprets it as signed.
        (self.state >> (48 - bits)) as u32 as i32
    }

    /// `nextInt()`: a full-range signed 32-bit value.
    pub fn next_int(&mut self) -> i32 {
        self.next(32)
    }

    /// `nextInt(bound)`: uniform in `0..bound`, with Java's rejection loop (which consumes extra
    /// draws for about 2% of values when bound is large).
    ///
    /// # Panics
    /// If `bound <= 0`, as Java throws.
    pub fn next_int_bounded(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive");
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            // Power of two: the top bits of r.
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            // Java evaluates `u - r + m < 0` in wrapping 32-bit arithmetic: an overflow means
            // u fell in the incomplete last bucket, and the draw is rejected.
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextLong()`: two 32-bit draws, the low half added sign-extended.
    pub fn next_long(&mut self) -> i64 {
        let hi = i64::from(self.next(32));
        let lo = i64::from(self.next(32));
        (hi << 32).wrapping_add(lo)
    }

    /// `nextBoolean()`.
    pub fn next_boolean(&mut self) -> bool {
        self.next(1) != 0
    }

    /// `nextFloat()`: `k / 2^24`, exact in binary32.
    pub fn next_float(&mut self) -> f32 {
        self.next(24) as f32 / (1u32 << 24) as f32
    }

    /// `nextDouble()`: 53 random bits (26-bit draw first) times `2^-53`, exact in binary64.
    pub fn next_double(&mut self) -> f64 {
        let hi = i64::from(self.next(26));
        let lo = i64::from(self.next(27));
        ((hi << 27) + lo) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `nextBytes(buf)`: one `nextInt()` per 4 bytes, low byte first; no draw for an empty buffer.
    pub fn next_bytes(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(4) {
            let mut v = self.next_int();
            for b in chunk {
                *b = v as u8;
                v >>= 8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_int_vectors() {
        let mut r = JavaRandom::perf();
        let got: Vec<i32> = (0..4).map(|_| r.next_int()).collect();
        assert_eq!(got, [142801734, 798992108, 418115061, -1631593743]);
    }

    #[test]
    fn next_long_vectors() {
        let mut r = JavaRandom::perf();
        assert_eq!(r.next_long(), 613328778141083372);
        assert_eq!(r.next_long(), 1795790511328451313);
    }

    #[test]
    fn next_double_vectors() {
        let mut r = JavaRandom::perf();
        let a = r.next_double();
        assert_eq!(a, 0.03324862101718551);
        // hex 0x1.105f697cfd37p-5
        assert_eq!(a.to_bits(), 0x3FA1_05F6_97CF_D370);
        assert_eq!(r.next_double(), 0.09734999567441605);
    }

    #[test]
    fn next_float_vectors() {
        let mut r = JavaRandom::perf();
        let a = r.next_float();
        assert_eq!(a, 0.033248603);
        assert_eq!(a.to_le_bytes(), [0xb0, 0x2f, 0x08, 0x3d]);
        assert_eq!(r.next_float(), 0.18602979);
    }

    #[test]
    fn next_boolean_vectors() {
        let mut r = JavaRandom::perf();
        let got: Vec<bool> = (0..8).map(|_| r.next_boolean()).collect();
        assert_eq!(got, [false, false, false, true, false, true, false, false]);
    }

    #[test]
    fn next_bytes_vectors() {
        let mut r = JavaRandom::perf();
        let mut buf = [0u8; 6];
        r.next_bytes(&mut buf);
        assert_eq!(buf, [0x46, 0xfb, 0x82, 0x08, 0xec, 0xa6]);
        assert_eq!(buf.map(|b| b as i8), [70, -5, -126, 8, -20, -90]);
        assert_eq!(r.calls(), 2);
        r.next_bytes(&mut []);
        assert_eq!(r.calls(), 2, "an empty buffer draws nothing");
    }

    #[test]
    fn int_data_vectors() {
        // Section 2.5: the Int data set's first 8 values and its draw count (1375 rejections).
        let ints = crate::data::basic::int_data(250_000);
        assert_eq!(
            ints[..8],
            [17, 1054, 57530, 131686776, 10, 1417, 35945, 50592307]
        );
        let mut r = JavaRandom::perf();
        for _ in 0..250_000 / 4 {
            r.next_int_bounded(50);
            r.next_int_bounded(5000);
            r.next_int_bounded(500000);
            r.next_int_bounded(150000000);
        }
        assert_eq!(r.calls(), 251_375);
    }

    #[test]
    fn long_data_vectors() {
        let longs = crate::data::basic::long_data(250_000);
        assert_eq!(longs[..4], [10, 1424098, 2691538889, 94086254780763]);
    }

    #[test]
    fn string_data_draw_count() {
        let mut r = JavaRandom::perf();
        let strings: Vec<String> = (0..50_000)
            .map(|_| crate::data::basic::random_string(&mut r))
            .collect();
        assert_eq!(r.calls(), 1_776_636);
        assert!(strings[0].starts_with("efbkruh"));
    }

    #[test]
    fn power_of_two_bound() {
        // nextInt(2) and nextInt(16) take the top bits of one draw.
        let mut a = JavaRandom::perf();
        let mut b = JavaRandom::perf();
        let top = a.next(31);
        assert_eq!(b.next_int_bounded(16), top >> 27);
    }
}
