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

/// Spreads `v` (below 2^56) into varint bytes held in a little-endian word, and the number of
/// those bytes (1..=8): the 7-bit groups are moved apart with three shift-and-mask steps and the
/// continuation bits set on every byte but the last, without a branch per byte.
#[inline(always)]
pub(crate) fn spread(v: u64) -> (u64, usize) {
    debug_assert!(v < 1 << 56);
    let len = (64 - (v | 1).leading_zeros()).div_ceil(7) as usize;
    // Continuation bits on the first len - 1 bytes.
    let cont = 0x8080_8080_8080_8080u64 & ((1u64 << (8 * (len - 1))) - 1);
    (spread_groups(v) | cont, len)
}

/// The 7-bit groups of the low 56 bits of `v`, one per byte, without continuation bits.
#[inline(always)]
fn spread_groups(v: u64) -> u64 {
    let x = (v & 0x0000_0000_0fff_ffff) | ((v & 0x00ff_ffff_f000_0000) << 4);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x0fff_c000_0fff_c000) << 2);
    (x & 0x007f_007f_007f_007f) | ((x & 0x3f80_3f80_3f80_3f80) << 1)
}

/// The varint of `v` at or above 2^56 (9 or 10 bytes: full-range longs, hashes, random ids)
/// as 10 bytes and the length to keep: the first 8 bytes from [`spread`]'s word, the 9th and
/// 10th from the top 8 bits, without a loop.
#[inline(always)]
pub(crate) fn spread_wide(v: u64) -> ([u8; 10], usize) {
    debug_assert!(v >= 1 << 56);
    let word = spread_groups(v) | 0x8080_8080_8080_8080;
    let top = (v >> 56) as u8;
    let mut out = [0u8; 10];
    out[..8].copy_from_slice(&word.to_le_bytes());
    if top < 0x80 {
        out[8] = top;
        (out, 9)
    } else {
        out[8] = top | 0x80;
        out[9] = 1;
        (out, 10)
    }
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
///
/// A branch-free variant (load 8 bytes as a word, find the end from the high bits, pack the
/// 7-bit groups with shifts and masks) executes fewer mispredicted branches under callgrind but
/// ran 25-45% slower on IntRead and RecordRead in avrokit-perf on this machine (its long
/// dependency chain loses to a well-predicted byte loop for the 1-4 byte varints of real data),
/// and only ~15% faster on LongRead, so the byte loop stays.
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

/// Decodes a varint from a slice holding at least 10 bytes without a branch per byte: the first
/// 8 bytes are loaded as one word, the varint's end is the lowest byte without a continuation
/// bit, and the 7-bit groups are packed with three shift-and-mask steps; a 9th and 10th byte
/// (full-range longs) are added on.
///
/// Only the bulk loops over an array's `int`s and `long`s use it: there the values are often
/// several bytes long (ids, timestamps, hashes, random data), where it ran 8% (5-byte ints) to
/// 15% (10-byte longs) faster than [`decode_10`] in a loop over arrays. Single values keep
/// [`decode_10`] (see its note).
#[inline(always)]
pub(crate) fn decode_10_word(b: &[u8; 10]) -> Decoded {
    let (word, tail) = b.split_first_chunk::<8>().expect("10 bytes hold 8");
    let w = u64::from_le_bytes(*word);
    let stops = !w & 0x8080_8080_8080_8080;
    // The bits up to the last byte's high bit (all 8 bytes when none ends the varint).
    let keep = if stops == 0 {
        u64::MAX
    } else {
        stops ^ (stops - 1)
    };
    let x = w & keep & 0x7f7f_7f7f_7f7f_7f7f;
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    let x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4);
    if stops != 0 {
        return Decoded::Ok(x, (stops.trailing_zeros() as usize + 1) / 8);
    }
    let (b8, b9) = (tail[0], tail[1]);
    if b8 < 0x80 {
        return Decoded::Ok(x | (u64::from(b8) << 56), 9);
    }
    if b9 > 1 {
        return Decoded::Overflow;
    }
    Decoded::Ok(x | (u64::from(b8 & 0x7f) << 56) | (u64::from(b9) << 63), 10)
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
        assert_eq!(outcome(decode_10_word(&padded)), Some((zigzag64(v), n)));
    }

    /// A `Decoded` as something comparable: `None` for overflow (EOF cannot happen with 10 bytes).
    fn outcome(d: Decoded) -> Option<(u64, usize)> {
        match d {
            Decoded::Ok(v, n) => Some((v, n)),
            Decoded::Overflow => None,
            Decoded::Eof => panic!("10 bytes cannot end early"),
        }
    }

    #[test]
    fn word_decode_matches_the_byte_loop_on_any_bytes() {
        // Bytes with the continuation bit set more often than not, so that every length from 1
        // to 10 and every overflowing 10th byte comes up, with garbage after the varint.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            let mut b = [0u8; 10];
            for byte in &mut b {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *byte = (x >> 24) as u8 | if x & 7 != 0 { 0x80 } else { 0 };
            }
            assert_eq!(
                outcome(decode_10_word(&b)),
                outcome(decode_10(&b)),
                "{b:02x?}"
            );
        }
        for len in 1..=10 {
            let mut b = [0xffu8; 10];
            b[len - 1] = 0x01;
            assert_eq!(
                outcome(decode_10_word(&b)),
                outcome(decode_10(&b)),
                "{b:02x?}"
            );
        }
    }

    #[test]
    fn zigzag_matches_the_spec_table() {
        // The specification's table: 0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3, 2 -> 4, -64 -> 7f, 64 -> 80 01
        for (n, z) in [
            (0, 0),
            (-1, 1),
            (1, 2),
            (-2, 3),
            (2, 4),
            (-64, 0x7f),
            (64, 0x80),
        ] {
            assert_eq!(zigzag64(n), z);
            assert_eq!(zigzag32(n as i32), z);
        }
        assert_eq!(zigzag32(i32::MIN), u32::MAX as u64);
        assert_eq!(zigzag64(i64::MIN), u64::MAX);
    }

    #[test]
    fn roundtrips_edges() {
        for v in [
            0,
            1,
            -1,
            63,
            -64,
            64,
            -65,
            i32::MAX as i64,
            i32::MIN as i64,
            i64::MAX,
            i64::MIN,
        ] {
            roundtrip(v);
        }
    }

    #[test]
    fn spread_wide_matches_the_byte_loop() {
        let mut cases = vec![1u64 << 56, (1 << 63) - 1, 1 << 63, u64::MAX, 0x81 << 56];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(x | 1 << 56);
        }
        for v in cases {
            let mut buf = [0u8; 10];
            let n = encode(v, &mut buf);
            let (wide, len) = spread_wide(v);
            assert_eq!(&wide[..len], &buf[..n], "{v:#x}");
        }
    }

    #[test]
    fn spread_matches_the_byte_loop() {
        let mut v = 1u64;
        let mut cases = vec![0u64, 1, 0x7f, 0x80, 0x3fff, 0x4000, (1 << 56) - 1];
        while v < 1 << 56 {
            cases.extend([v - 1, v, v + 1, v.wrapping_mul(0x9e37_79b9) % (1 << 56)]);
            v <<= 1;
        }
        for v in cases {
            let mut buf = [0u8; 10];
            let n = encode(v, &mut buf);
            let (word, len) = spread(v);
            assert_eq!(len, n, "{v:#x}");
            assert_eq!(&word.to_le_bytes()[..len], &buf[..n], "{v:#x}");
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
