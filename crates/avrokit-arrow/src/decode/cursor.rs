//! A position in a slice of Avro binary data, with the fast paths the column decoders use.

use crate::error::{Error, ErrorKind, Result};

/// Reads Avro's binary encoding from a slice. Every read checks what is left; errors carry the
/// offset from the start of the slice.
///
/// It holds the bytes not read yet as a slice of their own (and the whole, for offsets), so
/// that "are `n` bytes left" is one compare of its length: a position into the whole took a
/// subtraction with its own overflow check first, at every value (callgrind, AVRO-3451 Big
/// record: see the commit).
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    rest: &'a [u8],
}

/// The 7-bit groups of up to 8 varint bytes (little-endian in `x`), packed into 56 bits.
#[inline(always)]
fn gather(x: u64) -> u64 {
    let x = x & 0x7f7f_7f7f_7f7f_7f7f;
    let x = (x & 0x007f_007f_007f_007f) | ((x >> 1) & 0x3f80_3f80_3f80_3f80);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x >> 2) & 0x0fff_c000_0fff_c000);
    (x & 0x0000_0000_0fff_ffff) | ((x >> 4) & 0x00ff_ffff_f000_0000)
}

#[inline(always)]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[cold]
#[inline(never)]
fn eof_at(len: usize) -> Error {
    Error::at(ErrorKind::Eof, "unexpected end of data", len as u64)
}

#[cold]
#[inline(never)]
fn data_error(pos: usize, message: String) -> Error {
    Error::at(ErrorKind::Data, message, pos as u64)
}

/// A varint read a byte at a time from `rest`, which starts at `pos` of data `len` bytes long:
/// its value and length. Near the end of the data, and for the cursor's callers, by value.
#[inline(never)]
fn varint_slow(rest: &[u8], max_bytes: usize, pos: usize, len: usize) -> Result<(u64, usize)> {
    let mut v = 0u64;
    for i in 0..max_bytes {
        let Some(&b) = rest.get(i) else {
            return Err(eof_at(len));
        };
        if i == 9 && b > 1 {
            return Err(data_error(pos, "varint overflows 64 bits".into()));
        }
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b < 0x80 {
            return Ok((v, i + 1));
        }
    }
    Err(data_error(
        pos,
        format!("varint longer than {max_bytes} bytes"),
    ))
}

/// [`Cursor::skip_null_or_len`] the general way: what is left after the value.
#[inline(never)]
fn null_or_len_slow<'a>(data: &'a [u8], rest: &'a [u8], null: u8) -> Result<&'a [u8]> {
    let mut c = Cursor { data, rest };
    match c.long()? {
        i if i == i64::from(null) => {}
        i if i == i64::from(1 - null) => c.skip_len()?,
        i => {
            c.rest = rest;
            return Err(c.error(format!("union index {i} out of range (2 branches)")));
        }
    }
    Ok(c.rest)
}

impl<'a> Cursor<'a> {
    #[inline]
    pub(crate) fn new(data: &'a [u8]) -> Cursor<'a> {
        Cursor { data, rest: data }
    }

    /// Moves to where `other`, a copy of this cursor, is: only the position changes.
    #[inline(always)]
    pub(crate) fn sync(&mut self, other: &Cursor<'a>) {
        self.rest = other.rest;
    }

    #[inline(always)]
    pub(crate) fn pos(&self) -> usize {
        self.data.len() - self.rest.len()
    }

    /// Goes back to `pos`, a position this cursor has been at.
    #[inline(always)]
    pub(crate) fn set_pos(&mut self, pos: usize) {
        self.rest = self.data.get(pos..).unwrap_or_default();
    }

    #[inline(always)]
    pub(crate) fn remaining(&self) -> usize {
        self.rest.len()
    }

    #[inline(always)]
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    // The error constructors take numbers, not the cursor: a cursor whose address reaches no
    // call stays in registers in the loops that copy it (see `program::skip_any`).
    #[inline(always)]
    pub(crate) fn eof(&self) -> Error {
        eof_at(self.data.len())
    }

    #[inline(always)]
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        data_error(self.pos(), message.into())
    }

    /// A zigzag varint `long`.
    #[inline(always)]
    pub(crate) fn long(&mut self) -> Result<i64> {
        self.varint().map(unzigzag)
    }

    /// A zigzag varint `int` (at most 5 bytes, within 32 bits).
    #[inline(always)]
    pub(crate) fn int(&mut self) -> Result<i32> {
        let at = self.rest;
        let v = self.varint()?;
        if v > u32::MAX as u64 {
            self.rest = at;
            return Err(self.error("int varint out of 32-bit range"));
        }
        Ok(unzigzag(v) as i32)
    }

    /// A varint. With 10 bytes left: one or two bytes are a compare each; longer ones are found
    /// from the high bits of one 8-byte word and their 7-bit groups gathered with three
    /// shift-and-mask steps, without a branch per byte (a byte loop takes eight instructions a
    /// byte, and the -container record's random longs are 9-10 bytes). The word path alone
    /// was slower on 1-2 byte varints (a micro-benchmark of varint chains on this machine:
    /// 10.9 against the byte loop's 7.3 ns a varint; with the two short cases first, 6.6; on a
    /// -container-like mix, 6.3 against 6.6). Near the end of the data, the careful loop.
    #[inline(always)]
    fn varint(&mut self) -> Result<u64> {
        let Some(b) = self.rest.first_chunk::<10>() else {
            return self.varint_slow(10);
        };
        if b[0] < 0x80 {
            self.rest = &self.rest[1..];
            return Ok(b[0] as u64);
        }
        if b[1] < 0x80 {
            self.rest = &self.rest[2..];
            return Ok((b[0] & 0x7f) as u64 | (b[1] as u64) << 7);
        }
        let word = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let stops = !word & 0x8080_8080_8080_8080;
        let (v, n) = if stops != 0 {
            // The last byte's stop bit is bit 8k+7: keep the bytes up to it.
            let last = stops.trailing_zeros();
            (
                gather(word & (u64::MAX >> (63 - last))),
                (last / 8 + 1) as usize,
            )
        } else {
            // Nine or ten bytes, without a branch on which: random longs are either about
            // equally often, and the branch mispredicted on every other one (callgrind
            // --branch-sim, -container record: 2.2 of its 13 mispredictions a record).
            let low = gather(word);
            let ten = b[8] >> 7;
            let tenth = b[9] & ten.wrapping_neg();
            if tenth > 1 {
                return Err(self.error("varint overflows 64 bits"));
            }
            (
                low | ((b[8] & 0x7f) as u64) << 56 | (tenth as u64) << 63,
                9 + ten as usize,
            )
        };
        self.rest = &self.rest[n..];
        Ok(v)
    }

    #[inline(always)]
    fn varint_slow(&mut self, max_bytes: usize) -> Result<u64> {
        let (v, n) = varint_slow(self.rest, max_bytes, self.pos(), self.data.len())?;
        self.rest = &self.rest[n..];
        Ok(v)
    }

    #[inline(always)]
    pub(crate) fn boolean(&mut self) -> Result<bool> {
        match self.rest.split_first() {
            Some((&0, tail)) => {
                self.rest = tail;
                Ok(false)
            }
            Some((&1, tail)) => {
                self.rest = tail;
                Ok(true)
            }
            Some((b, _)) => Err(self.error(format!("invalid boolean byte {b:#04x}"))),
            None => Err(self.eof()),
        }
    }

    #[inline(always)]
    pub(crate) fn fixed<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.rest.split_first_chunk::<N>() {
            Some((v, tail)) => {
                self.rest = tail;
                Ok(*v)
            }
            None => Err(self.eof()),
        }
    }

    #[inline(always)]
    pub(crate) fn float(&mut self) -> Result<f32> {
        self.fixed::<4>().map(f32::from_le_bytes)
    }

    #[inline(always)]
    pub(crate) fn double(&mut self) -> Result<f64> {
        self.fixed::<8>().map(f64::from_le_bytes)
    }

    /// `n` raw bytes.
    #[inline(always)]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n <= self.rest.len() {
            let (s, tail) = self.rest.split_at(n);
            self.rest = tail;
            Ok(s)
        } else {
            Err(self.eof())
        }
    }

    /// Length-prefixed bytes (`bytes`, `string`).
    #[inline(always)]
    pub(crate) fn bytes(&mut self) -> Result<&'a [u8]> {
        let at = self.rest;
        let n = self.long()?;
        if n < 0 {
            self.rest = at;
            return Err(self.error(format!("negative length {n}")));
        }
        if n as u64 > self.rest.len() as u64 {
            let left = self.rest.len();
            self.rest = at;
            return Err(Error::at(
                ErrorKind::Eof,
                format!("length {n} exceeds the {left} bytes left"),
                self.pos() as u64,
            ));
        }
        self.take(n as usize)
    }

    /// Appends length-prefixed bytes (`bytes`, `string`) to `out`. A value of at most 16 bytes
    /// with 16 bytes of data left from its start is copied as one 16-byte block and `out` cut
    /// back: a fixed-size copy compiles to two moves, where a copy of varying length calls
    /// `memcpy` (-container record: 19% less time per batch; a 32-byte step as well measured
    /// no better). A 64-byte block, which would take every string of the -container record
    /// without a branch on its length, made the AVRO-3451 Big record (eight short strings)
    /// 10-20% slower.
    #[inline(always)]
    pub(crate) fn bytes_into(&mut self, out: &mut Vec<u8>) -> Result<()> {
        let at = self.rest;
        let n = self.long()?;
        // A length in 0..=16 (a negative one is above 16 as u64) with 16 bytes from here.
        if n as u64 <= 16 {
            if let Some(chunk) = self.rest.first_chunk::<16>() {
                let end = out.len() + n as usize;
                out.extend_from_slice(chunk);
                out.truncate(end);
                self.rest = &self.rest[n as usize..];
                return Ok(());
            }
        }
        self.rest = at;
        let b = self.bytes()?;
        out.extend_from_slice(b);
        Ok(())
    }

    /// Skips length-prefixed bytes (`bytes`, `string`), with the checks of [`Cursor::bytes`].
    #[inline(always)]
    pub(crate) fn skip_len(&mut self) -> Result<()> {
        let at = self.rest;
        let n = self.long()?;
        if n >= 0 && n as u64 <= self.rest.len() as u64 {
            self.rest = &self.rest[n as usize..];
            return Ok(());
        }
        self.rest = at;
        self.bytes().map(drop)
    }

    /// Skips `n` bytes.
    #[inline(always)]
    pub(crate) fn skip(&mut self, n: u64) -> Result<()> {
        if n <= self.rest.len() as u64 {
            self.rest = &self.rest[n as usize..];
            Ok(())
        } else {
            Err(self.eof())
        }
    }

    /// Moves forward by `n` bytes consumed by another decoder.
    #[inline]
    pub(crate) fn advance(&mut self, n: usize) {
        self.rest = self.rest.get(n..).unwrap_or_default();
    }

    /// Skips a varint without decoding it. With 16 bytes left, the end is found from the high
    /// bits of one 16-byte word, without a branch on the length: varint lengths vary from value
    /// to value, and a byte loop mispredicts on them (perf: the loop's branch was the hottest
    /// instruction of a projected scan); so did an 8-byte word's branch to bytes 9 and 10,
    /// which random longs take half the time.
    #[inline(always)]
    pub(crate) fn skip_varint(&mut self) -> Result<()> {
        if let Some(b) = self.rest.first_chunk::<16>() {
            // The high bits of the first ten bytes: a clear one ends the varint.
            const HIGH: u128 = 0x8080_8080_8080_8080_8080;
            let ends = !u128::from_le_bytes(*b) & HIGH;
            if ends == 0 {
                return Err(self.error("varint longer than 10 bytes"));
            }
            self.rest = &self.rest[(ends.trailing_zeros() / 8) as usize + 1..];
            return Ok(());
        }
        self.varint_slow(10).map(drop)
    }

    /// Skips a union of null (branch `null`, 0 or 1) and a string or bytes. With a length
    /// under 64 (one varint byte) and room for it, which branch the value holds changes only
    /// how far to move, not which code runs: null and text values alternate unpredictably in
    /// real data, and a branch on them mispredicted about every other record (perf, the
    /// `-container` record's `["null","string"]` field). Anything else takes the general way.
    #[inline(always)]
    pub(crate) fn skip_null_or_len(&mut self, null: u8) -> Result<()> {
        if let Some(&[tag, len, ..]) = self.rest.first_chunk::<65>() {
            let (null_tag, text_tag) = (2 * null, 2 - 2 * null);
            // A zigzag length byte that is even and under 0x80: 0 to 63.
            let text = (tag == text_tag) & (len & 0x81 == 0);
            if (tag == null_tag) | text {
                let n = 1 + usize::from(text) * (1 + usize::from(len >> 1));
                self.rest = &self.rest[n..];
                return Ok(());
            }
        }
        // By value: a cursor passed to a call would no longer stay in registers.
        self.rest = null_or_len_slow(self.data, self.rest, null)?;
        Ok(())
    }

    /// An array or map block header: the item count (0 at the end), and the byte size that
    /// follows a negative count.
    #[inline(always)]
    pub(crate) fn block(&mut self) -> Result<(u64, Option<u64>)> {
        let at = self.rest;
        let n = self.long()?;
        if n >= 0 {
            return Ok((n as u64, None));
        }
        if n == i64::MIN {
            self.rest = at;
            return Err(self.error("block count out of range"));
        }
        let size = self.long()?;
        if size < 0 {
            self.rest = at;
            return Err(self.error(format!("negative block size {size}")));
        }
        Ok((n.unsigned_abs(), Some(size as u64)))
    }
}

#[cfg(test)]
mod tests {
    use super::Cursor;

    fn encode(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    /// Every length from 1 to 10 bytes, at the edges of each, read by the word path (10 bytes
    /// left) and by the careful loop (the varint at the end of the data) alike.
    #[test]
    fn varints_of_every_length_read_as_written() {
        let mut values = vec![0u64, 1, u64::MAX, u64::MAX - 1, 1 << 63];
        for bits in 1..64 {
            values.extend([(1u64 << bits) - 1, 1u64 << bits, (1u64 << bits) + 1]);
        }
        values.extend((0..1000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        for &v in &values {
            let mut bytes = Vec::new();
            encode(v, &mut bytes);
            let n = bytes.len();
            let mut padded = bytes.clone();
            padded.extend([0xff; 12]);
            let mut c = Cursor::new(&padded);
            assert_eq!(c.varint().unwrap(), v, "{v:#x}");
            assert_eq!(c.pos(), n);
            let mut c = Cursor::new(&bytes);
            assert_eq!(c.varint().unwrap(), v, "{v:#x}, at the end");
            assert_eq!(c.pos(), n);
        }
    }

    /// A skip lands where a read does, for every length, by the 16-byte word and near the end.
    #[test]
    fn skipped_varints_end_where_read_ones_do() {
        for bits in 0..64 {
            for v in [1u64 << bits, (1u64 << bits) - 1] {
                let mut bytes = Vec::new();
                encode(v, &mut bytes);
                for pad in [0, 5, 16] {
                    let mut data = bytes.clone();
                    data.extend(std::iter::repeat_n(0xff, pad));
                    let mut c = Cursor::new(&data);
                    c.skip_varint().unwrap();
                    assert_eq!(c.pos(), bytes.len(), "{v:#x}, {pad} bytes after");
                }
            }
        }
        for pad in [0, 16] {
            let mut long = vec![0x80u8; 10];
            long.extend(std::iter::repeat_n(0, pad));
            let e = Cursor::new(&long).skip_varint().unwrap_err();
            assert!(e.to_string().contains("varint"), "{e}");
        }
        assert!(Cursor::new(&[0x80, 0x80]).skip_varint().is_err());
    }

    /// A tenth byte above 1, and more than ten bytes, are errors on both paths; a varint cut
    /// short is the end of the data.
    #[test]
    fn bad_varints_are_errors() {
        let mut over = vec![0xffu8; 9];
        over.push(0x02);
        let mut padded = over.clone();
        padded.extend([0; 8]);
        assert!(Cursor::new(&over).varint().is_err());
        assert!(Cursor::new(&padded).varint().is_err());
        let long = [0x80u8; 11];
        assert!(Cursor::new(&long).varint().is_err());
        assert!(Cursor::new(&[0x80, 0x80]).varint().is_err());
    }
}
