//! The reference encoder and decoder: plain Rust written straight from the Avro specification
//! (WORKLOADS.md section 3): zigzag varints, little-endian floats, length-prefixed bytes,
//! single-block arrays.
//!
//! It has two jobs:
//! 1. it produces every test's canonical byte buffer, which the unit tests check against the
//!    catalog's bytes/cycle and SHA-256, and which every library's output is compared with;
//! 2. as tight bare loops with no error handling and no abstraction, it is the speed limit a
//!    library can approach: the `bare-varint` rows of [`crate::adapters::limit`].
//!
//! The decoder trusts its input (it indexes and panics on malformed data): it only ever reads
//! buffers the reference encoder wrote. This module depends on nothing else in the crate.

/// Zigzag-maps a 32-bit int so small magnitudes get small codes.
#[inline(always)]
pub fn zigzag32(n: i32) -> u32 {
    ((n << 1) ^ (n >> 31)) as u32
}

/// Zigzag-maps a 64-bit long.
#[inline(always)]
pub fn zigzag64(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// Appends an unsigned LEB128 varint.
#[inline(always)]
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    // Byte by byte: for the 1-4 byte varints of these data sets this beats building the bytes
    // in a scratch array and appending them with one (variable-length) copy.
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends an Avro `int`.
#[inline(always)]
pub fn put_int(out: &mut Vec<u8>, v: i32) {
    put_varint(out, u64::from(zigzag32(v)));
}

/// Appends an Avro `long`.
#[inline(always)]
pub fn put_long(out: &mut Vec<u8>, v: i64) {
    put_varint(out, zigzag64(v));
}

/// Appends an Avro `float` (4 bytes little-endian).
#[inline(always)]
pub fn put_float(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends an Avro `double` (8 bytes little-endian).
#[inline(always)]
pub fn put_double(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends an Avro `boolean`.
#[inline(always)]
pub fn put_boolean(out: &mut Vec<u8>, v: bool) {
    out.push(u8::from(v));
}

/// Appends Avro `bytes`: a long length, then the bytes.
#[inline(always)]
pub fn put_bytes(out: &mut Vec<u8>, v: &[u8]) {
    put_long(out, v.len() as i64);
    out.extend_from_slice(v);
}

/// Appends an Avro `string`: a long length, then the UTF-8 bytes.
#[inline(always)]
pub fn put_string(out: &mut Vec<u8>, v: &str) {
    put_bytes(out, v.as_bytes());
}

/// Starts a single-block array or map of `len` items, as Java's buffered and direct encoders do:
/// the count only when it is not zero (the terminator comes from [`put_array_end`]).
#[inline(always)]
pub fn put_array_start(out: &mut Vec<u8>, len: usize) {
    if len > 0 {
        put_long(out, len as i64);
    }
}

/// Ends an array or map: the zero-count block.
#[inline(always)]
pub fn put_array_end(out: &mut Vec<u8>) {
    out.push(0);
}

/// Writes a float array the way Java's `BlockingBinaryEncoder` does with a `block_bytes` buffer
/// (WORKLOADS.md sections 3 and 6.6).
///
/// Items are buffered until the next one would not fit; the buffered items then go out as a
/// sized block (negative count, byte length, bytes), the item that did not fit goes out alone as
/// an "overflow" block with count +1 and no byte length, and buffering restarts after it.
pub fn put_blocked_float_array(out: &mut Vec<u8>, items: &[f32], block_bytes: usize) {
    let per_block = block_bytes / 4;
    let mut rest = items;
    while rest.len() > per_block {
        let (block, tail) = rest.split_at(per_block);
        put_sized_float_block(out, block);
        // The item that overflowed the buffer: a plain one-item block.
        put_long(out, 1);
        put_float(out, tail[0]);
        rest = &tail[1..];
    }
    if !rest.is_empty() {
        put_sized_float_block(out, rest);
    }
    put_array_end(out);
}

fn put_sized_float_block(out: &mut Vec<u8>, block: &[f32]) {
    put_long(out, -(block.len() as i64));
    put_long(out, 4 * block.len() as i64);
    for &f in block {
        put_float(out, f);
    }
}

/// Reads what the reference encoder wrote. Panics on malformed or truncated input.
#[derive(Debug)]
pub struct RefDecoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> RefDecoder<'a> {
    /// A decoder at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        RefDecoder { buf, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// An unsigned LEB128 varint.
    #[inline(always)]
    pub fn varint(&mut self) -> u64 {
        // With 10 bytes in hand (all but the buffer's tail) the loop indexes a fixed-size array,
        // so there is no bounds check per byte.
        if let Some(chunk) = self.buf[self.pos..].first_chunk::<10>() {
            let mut v = 0u64;
            for (i, &b) in chunk.iter().enumerate() {
                v |= u64::from(b & 0x7f) << (7 * i);
                if b < 0x80 {
                    self.pos += i + 1;
                    return v;
                }
            }
            panic!("varint longer than 10 bytes");
        }
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = self.buf[self.pos];
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
    }

    /// An Avro `int`.
    #[inline(always)]
    pub fn int(&mut self) -> i32 {
        let v = self.varint() as u32;
        (v >> 1) as i32 ^ -((v & 1) as i32)
    }

    /// An Avro `long`.
    #[inline(always)]
    pub fn long(&mut self) -> i64 {
        let v = self.varint();
        (v >> 1) as i64 ^ -((v & 1) as i64)
    }

    #[inline(always)]
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let b: [u8; N] = self.buf[self.pos..self.pos + N].try_into().unwrap();
        self.pos += N;
        b
    }

    /// An Avro `float`.
    #[inline(always)]
    pub fn float(&mut self) -> f32 {
        f32::from_le_bytes(self.take())
    }

    /// An Avro `double`.
    #[inline(always)]
    pub fn double(&mut self) -> f64 {
        f64::from_le_bytes(self.take())
    }

    /// An Avro `boolean`.
    #[inline(always)]
    pub fn boolean(&mut self) -> bool {
        self.take::<1>()[0] != 0
    }

    /// Avro `bytes`, borrowed from the input.
    #[inline(always)]
    pub fn bytes(&mut self) -> &'a [u8] {
        let len = self.long() as usize;
        let b = &self.buf[self.pos..self.pos + len];
        self.pos += len;
        b
    }

    /// An Avro `string`, borrowed from the input (UTF-8 checked).
    #[inline(always)]
    pub fn string(&mut self) -> &'a str {
        std::str::from_utf8(self.bytes()).expect("reference data is UTF-8")
    }

    /// The item count of the next array or map block (0 at the end). A negative count is
    /// followed by the block's byte size, which is skipped.
    #[inline(always)]
    pub fn block_count(&mut self) -> u64 {
        let n = self.long();
        if n < 0 {
            self.long();
            n.unsigned_abs()
        } else {
            n as u64
        }
    }
}

/// Encodes with the reference encoder into a fresh exact-size buffer.
pub fn encode(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    write(&mut out);
    out.shrink_to_fit();
    out
}

/// Encodes every item with the reference encoder into a fresh exact-size buffer: the datum
/// stream of a test (WORKLOADS.md section 1).
pub fn encode_all<T: RefDatum>(items: &[T]) -> Vec<u8> {
    encode(|out| items.iter().for_each(|v| v.put(out)))
}

/// A datum the reference encoder writes and the reference decoder reads back: every data set's
/// item type implements it beside its definition (in `data`).
pub trait RefDatum {
    /// Appends the datum's encoding.
    fn put(&self, out: &mut Vec<u8>);
    /// Reads one datum, folded to a number derived from every value it decodes, so that a bare
    /// loop over it is not optimised away.
    fn get(dec: &mut RefDecoder<'_>) -> u64;
}

impl RefDatum for i32 {
    fn put(&self, out: &mut Vec<u8>) {
        put_int(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.int() as u64
    }
}

impl RefDatum for i64 {
    fn put(&self, out: &mut Vec<u8>) {
        put_long(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.long() as u64
    }
}

impl RefDatum for f32 {
    fn put(&self, out: &mut Vec<u8>) {
        put_float(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        u64::from(dec.float().to_bits())
    }
}

impl RefDatum for f64 {
    fn put(&self, out: &mut Vec<u8>) {
        put_double(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.double().to_bits()
    }
}

impl RefDatum for bool {
    fn put(&self, out: &mut Vec<u8>) {
        put_boolean(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        u64::from(dec.boolean())
    }
}

impl RefDatum for serde_bytes::ByteBuf {
    fn put(&self, out: &mut Vec<u8>) {
        put_bytes(out, self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.bytes().len() as u64
    }
}

impl RefDatum for String {
    fn put(&self, out: &mut Vec<u8>) {
        put_string(out, self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.string().len() as u64
    }
}

/// A single-block array, as Java's encoders write one (the Reflect tests' `Vec`s).
impl<T: RefDatum> RefDatum for Vec<T> {
    fn put(&self, out: &mut Vec<u8>) {
        put_array_start(out, self.len());
        self.iter().for_each(|v| v.put(out));
        put_array_end(out);
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let mut acc = 0;
        let mut n = dec.block_count();
        while n > 0 {
            for _ in 0..n {
                acc ^= T::get(dec);
            }
            n = dec.block_count();
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        let mut out = Vec::new();
        put_int(&mut out, 0);
        put_int(&mut out, -1);
        put_int(&mut out, 1);
        put_int(&mut out, 62500 / 2);
        put_long(&mut out, i64::MIN);
        put_int(&mut out, i32::MIN);
        let mut dec = RefDecoder::new(&out);
        assert_eq!(dec.int(), 0);
        assert_eq!(dec.int(), -1);
        assert_eq!(dec.int(), 1);
        assert_eq!(dec.int(), 31250);
        assert_eq!(dec.long(), i64::MIN);
        assert_eq!(dec.int(), i32::MIN);
        assert_eq!(dec.remaining(), 0);
        assert_eq!(out[..3], [0x00, 0x01, 0x02]);
        let mut c = Vec::new();
        put_long(&mut c, 62500);
        assert_eq!(c, [0xc8, 0xd0, 0x07]);
    }

    #[test]
    fn blocked_sizes_follow_the_catalog() {
        // WORKLOADS.md 6.6: 4n + 4 (n <= 63), 4n + 5 (n = 64), 4n + 7 (65..=79), 4n + 8 (80..=112).
        for n in 16..=112usize {
            let mut out = Vec::new();
            put_blocked_float_array(&mut out, &vec![0.5; n], 254);
            let extra = match n {
                0..=63 => 4,
                64 => 5,
                65..=79 => 7,
                _ => 8,
            };
            assert_eq!(out.len(), 4 * n + extra, "n = {n}");
            let mut dec = RefDecoder::new(&out);
            let mut seen = 0;
            loop {
                let k = dec.block_count();
                if k == 0 {
                    break;
                }
                for _ in 0..k {
                    assert_eq!(dec.float(), 0.5);
                }
                seen += k;
            }
            assert_eq!(seen, n as u64);
            assert_eq!(dec.remaining(), 0);
        }
        let mut out = Vec::new();
        put_blocked_float_array(&mut out, &[1.0; 64], 254);
        assert_eq!(out[..3], [0x7d, 0xf8, 0x03]);
        assert_eq!(out[255], 0x02);
    }
}
