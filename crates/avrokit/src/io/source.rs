//! Where decoders read from.

use std::io::Read;
use std::ops::Deref;

use super::varint::{self, Decoded};
use crate::error::{Error, ErrorKind, Result};

/// Bytes handed out by a [`Source`]: borrowed from the input for the life of the input (`'b`),
/// or copied into a caller-owned scratch buffer and valid until the next read (`'c`).
#[derive(Debug)]
pub enum Reference<'b, 'c, T: ?Sized> {
    /// Borrowed from the input itself (slice sources): can outlive the decoder.
    Borrowed(&'b T),
    /// Copied into scratch space (reader sources).
    Copied(&'c T),
}

impl<T: ?Sized> Deref for Reference<'_, '_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        match *self {
            Reference::Borrowed(b) => b,
            Reference::Copied(c) => c,
        }
    }
}

mod private {
    pub trait Sealed {}
}

/// A byte source for a [`Decoder`](crate::Decoder). Sealed: use [`SliceSource`] (zero-copy) or
/// [`ReaderSource`] (any `io::Read`). The methods are implementation details.
pub trait Source<'de>: private::Sealed {
    /// Bytes consumed so far, for error offsets.
    #[doc(hidden)]
    fn offset(&self) -> u64;
    /// One raw (not yet zigzag-decoded) varint.
    #[doc(hidden)]
    fn read_varint(&mut self) -> Result<u64>;
    /// `n` raw varints in a row, each handed to `each` with the offset it starts at; stops at
    /// the first error, from the input or from `each`. Slices override it with a loop that
    /// keeps the position in a register (arrays of `int` and `long`).
    #[doc(hidden)]
    #[inline(always)]
    fn read_varints(&mut self, n: u64, mut each: impl FnMut(u64, u64) -> Result<()>) -> Result<()> {
        for _ in 0..n {
            let at = self.offset();
            let v = self.read_varint()?;
            each(v, at)?;
        }
        Ok(())
    }
    /// One byte.
    #[doc(hidden)]
    fn read_byte(&mut self) -> Result<u8>;
    /// Exactly `N` bytes.
    #[doc(hidden)]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]>;
    /// Exactly `n` bytes, borrowed where possible, else copied into `scratch`. The caller has
    /// checked `n` against its limits; a source grows `scratch` only as bytes actually arrive.
    #[doc(hidden)]
    fn take<'s>(
        &'s mut self,
        n: usize,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's, [u8]>>;
    /// Skips exactly `n` bytes.
    #[doc(hidden)]
    fn skip(&mut self, n: u64) -> Result<()>;
    /// The number of bytes left, when the source knows it (slices do, readers do not).
    #[doc(hidden)]
    fn remaining(&self) -> Option<u64>;
    /// True when no byte is left (may read to find out).
    #[doc(hidden)]
    fn at_end(&mut self) -> Result<bool>;
}

/// A borrowed byte slice: strings and bytes are handed out without copying.
#[derive(Debug, Clone)]
pub struct SliceSource<'de> {
    data: &'de [u8],
    pos: usize,
}

impl<'de> SliceSource<'de> {
    /// A source over `data`.
    #[inline]
    pub fn new(data: &'de [u8]) -> SliceSource<'de> {
        SliceSource { data, pos: 0 }
    }

    /// The bytes not consumed yet.
    #[inline]
    pub fn rest(&self) -> &'de [u8] {
        &self.data[self.pos..]
    }

    /// Bytes consumed so far.
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }

    #[cold]
    #[inline(never)]
    fn varint_error(&self, d: Decoded) -> Error {
        match d {
            Decoded::Overflow => Error::at(
                ErrorKind::Data,
                "varint longer than 64 bits",
                self.pos as u64,
            ),
            _ => Error::eof(self.data.len() as u64),
        }
    }
}

impl private::Sealed for SliceSource<'_> {}

impl<'de> Source<'de> for SliceSource<'de> {
    #[inline(always)]
    fn offset(&self) -> u64 {
        self.pos as u64
    }

    #[inline(always)]
    fn read_varint(&mut self) -> Result<u64> {
        let rest = &self.data[self.pos..];
        // One-byte varints (small ints, lengths, counts, branch indexes) are the common case.
        if let Some(&b) = rest.first() {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        match varint::decode(rest) {
            Decoded::Ok(v, n) => {
                self.pos += n;
                Ok(v)
            }
            d => Err(self.varint_error(d)),
        }
    }

    #[inline(always)]
    fn read_varints(&mut self, n: u64, mut each: impl FnMut(u64, u64) -> Result<()>) -> Result<()> {
        let data = self.data;
        let mut pos = self.pos;
        for _ in 0..n {
            let (v, len) = match data.get(pos..).and_then(<[u8]>::first_chunk::<10>) {
                Some(chunk) => match varint::decode_10_word(chunk) {
                    Decoded::Ok(v, len) => (v, len),
                    d => {
                        self.pos = pos;
                        return Err(self.varint_error(d));
                    }
                },
                // Within 10 bytes of the end: the careful path, then the position again.
                None => {
                    self.pos = pos;
                    let v = self.read_varint()?;
                    (v, self.pos - pos)
                }
            };
            if let Err(e) = each(v, pos as u64) {
                self.pos = pos;
                return Err(e);
            }
            pos += len;
        }
        self.pos = pos;
        Ok(())
    }

    #[inline(always)]
    fn read_byte(&mut self) -> Result<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(Error::eof(self.pos as u64)),
        }
    }

    #[inline(always)]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.data[self.pos..].first_chunk::<N>() {
            Some(a) => {
                self.pos += N;
                Ok(*a)
            }
            None => Err(Error::eof(self.data.len() as u64)),
        }
    }

    #[inline(always)]
    fn take<'s>(
        &'s mut self,
        n: usize,
        _scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's, [u8]>> {
        let data: &'de [u8] = self.data;
        match data.get(self.pos..self.pos.wrapping_add(n)) {
            Some(s) if self.pos.checked_add(n).is_some() => {
                self.pos += n;
                Ok(Reference::Borrowed(s))
            }
            _ => Err(Error::eof(self.data.len() as u64)),
        }
    }

    #[inline]
    fn skip(&mut self, n: u64) -> Result<()> {
        let left = (self.data.len() - self.pos) as u64;
        if n > left {
            self.pos = self.data.len();
            return Err(Error::eof(self.data.len() as u64));
        }
        self.pos += n as usize;
        Ok(())
    }

    #[inline(always)]
    fn remaining(&self) -> Option<u64> {
        Some((self.data.len() - self.pos) as u64)
    }

    #[inline]
    fn at_end(&mut self) -> Result<bool> {
        Ok(self.pos >= self.data.len())
    }
}

/// A byte slice that lends nothing for the input's lifetime: strings and bytes are handed out as
/// [`Reference::Copied`] (valid until the next read), so a decoder over it reads values of any
/// input lifetime `'de` (owned values; a borrowed field is an error). The generated codecs read reader-only fields' defaults, encoded
/// once per plan, through it.
#[derive(Debug, Clone)]
pub struct CopySource<'a> {
    inner: SliceSource<'a>,
}

impl<'a> CopySource<'a> {
    /// A source over `data`.
    #[inline]
    pub fn new(data: &'a [u8]) -> CopySource<'a> {
        CopySource {
            inner: SliceSource::new(data),
        }
    }
}

impl private::Sealed for CopySource<'_> {}

impl<'de> Source<'de> for CopySource<'_> {
    #[inline]
    fn offset(&self) -> u64 {
        self.inner.offset()
    }
    #[inline]
    fn read_varint(&mut self) -> Result<u64> {
        self.inner.read_varint()
    }
    #[inline]
    fn read_varints(&mut self, n: u64, each: impl FnMut(u64, u64) -> Result<()>) -> Result<()> {
        self.inner.read_varints(n, each)
    }
    #[inline]
    fn read_byte(&mut self) -> Result<u8> {
        self.inner.read_byte()
    }
    #[inline]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.inner.read_array()
    }
    #[inline]
    fn take<'s>(
        &'s mut self,
        n: usize,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's, [u8]>> {
        // Handed out as `Copied`, valid while this source is borrowed: a slice of the source's
        // own bytes (no copy into `scratch` is needed for that), never one of the input's `'de`.
        let _ = scratch;
        let data: &'s [u8] = self.inner.data;
        let Some(bytes) = data.get(self.inner.pos..).and_then(|rest| rest.get(..n)) else {
            return Err(Error::eof(self.inner.data.len() as u64));
        };
        self.inner.pos += n;
        Ok(Reference::Copied(bytes))
    }
    #[inline]
    fn skip(&mut self, n: u64) -> Result<()> {
        self.inner.skip(n)
    }
    #[inline]
    fn remaining(&self) -> Option<u64> {
        self.inner.remaining()
    }
    #[inline]
    fn at_end(&mut self) -> Result<bool> {
        self.inner.at_end()
    }
}

/// Any `io::Read`, through a buffer of its own (64 KiB by default).
///
/// Strings and bytes are copied into the decoder's scratch buffer, so they cannot outlive the
/// next read. Do not wrap the reader in a `BufReader`: this source buffers already. When you are
/// done, [`ReaderSource::into_parts`] gives back the bytes it read ahead but did not consume,
/// and the reader, so that you can go on reading the stream yourself.
pub struct ReaderSource<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// Bytes consumed before `buf[0]`.
    base: u64,
    /// What `buf` may grow to: it doubles each time a read fills all of it.
    capacity: usize,
}

impl<R: Read> ReaderSource<R> {
    /// Default buffer size: 64 KiB.
    pub const DEFAULT_CAPACITY: usize = 64 * 1024;

    /// A source over `inner` with a 64 KiB buffer.
    pub fn new(inner: R) -> ReaderSource<R> {
        ReaderSource::with_capacity(Self::DEFAULT_CAPACITY, inner)
    }

    /// A source over `inner` with a buffer of `capacity` bytes (at least 1).
    pub fn with_capacity(capacity: usize, inner: R) -> ReaderSource<R> {
        ReaderSource::with_growing_capacity(capacity, capacity, inner)
    }

    /// A source whose buffer starts at `first` bytes and doubles up to `capacity` each time a
    /// read fills all of it: small input costs no large buffer.
    pub(crate) fn with_growing_capacity(first: usize, capacity: usize, inner: R) -> Self {
        let capacity = capacity.max(1);
        ReaderSource {
            inner,
            buf: vec![0; first.clamp(1, capacity)].into_boxed_slice(),
            pos: 0,
            end: 0,
            base: 0,
            capacity,
        }
    }

    /// The bytes buffered, reading more when none is left: empty at the end of the input.
    ///
    /// # Errors
    /// When the reader fails.
    #[inline]
    pub(crate) fn fill_buf(&mut self) -> Result<&[u8]> {
        if self.pos >= self.end && !self.fill()? {
            return Ok(&[]);
        }
        Ok(&self.buf[self.pos..self.end])
    }

    /// Marks `n` bytes of [`fill_buf`](Self::fill_buf) as consumed.
    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.end - self.pos);
        self.pos = (self.pos + n).min(self.end);
    }

    /// The inner reader, to seek it: call [`restart_at`](Self::restart_at) after moving it.
    pub(crate) fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// Drops the buffered bytes: the inner reader was moved to stream offset `offset`, where
    /// the source goes on.
    pub(crate) fn restart_at(&mut self, offset: u64) {
        self.pos = 0;
        self.end = 0;
        self.base = offset;
    }

    /// The bytes read ahead from the reader but not consumed, and the reader itself.
    pub fn into_parts(self) -> (Vec<u8>, R) {
        (self.buf[self.pos..self.end].to_vec(), self.inner)
    }

    /// The bytes buffered but not consumed yet.
    pub fn buffered(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// A reference to the inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Refills the buffer when it is empty; false at end of input.
    #[cold]
    #[inline(never)]
    fn fill(&mut self) -> Result<bool> {
        debug_assert!(self.pos >= self.end);
        self.base += self.end as u64;
        if self.end == self.buf.len() && self.buf.len() < self.capacity {
            // The last read filled the buffer: the input is not small, read more at a time.
            let len = self.buf.len().saturating_mul(2).min(self.capacity);
            self.buf = vec![0; len].into_boxed_slice();
        }
        self.pos = 0;
        self.end = 0;
        loop {
            match self.inner.read(&mut self.buf) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(e).or_offset(self.base)),
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn read_varint_slow(&mut self) -> Result<u64> {
        let start = self.offset();
        let mut result: u64 = 0;
        for i in 0..10 {
            let byte = self.read_byte()?;
            if i == 9 && byte > 1 {
                return Err(Error::at(
                    ErrorKind::Data,
                    "varint longer than 64 bits",
                    start,
                ));
            }
            result |= u64::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                return Ok(result);
            }
        }
        Err(Error::at(
            ErrorKind::Data,
            "varint longer than 64 bits",
            start,
        ))
    }

    #[cold]
    #[inline(never)]
    fn read_exact_slow(&mut self, out: &mut [u8]) -> Result<()> {
        let mut done = 0;
        while done < out.len() {
            if self.pos >= self.end && !self.fill()? {
                return Err(Error::eof(self.offset()));
            }
            let n = (self.end - self.pos).min(out.len() - done);
            out[done..done + n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            done += n;
        }
        Ok(())
    }
}

impl<R> private::Sealed for ReaderSource<R> {}

impl<'de, R: Read> Source<'de> for ReaderSource<R> {
    #[inline(always)]
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    #[inline]
    fn read_varint(&mut self) -> Result<u64> {
        if let Some(chunk) = self.buf[self.pos..self.end].first_chunk::<10>() {
            match varint::decode_10(chunk) {
                Decoded::Ok(v, n) => {
                    self.pos += n;
                    return Ok(v);
                }
                _ => {
                    return Err(Error::at(
                        ErrorKind::Data,
                        "varint longer than 64 bits",
                        self.offset(),
                    ))
                }
            }
        }
        self.read_varint_slow()
    }

    #[inline]
    fn read_byte(&mut self) -> Result<u8> {
        if self.pos >= self.end && !self.fill()? {
            return Err(Error::eof(self.offset()));
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        Ok(b)
    }

    #[inline]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        if let Some(a) = self.buf[self.pos..self.end].first_chunk::<N>() {
            let a = *a;
            self.pos += N;
            return Ok(a);
        }
        let mut a = [0u8; N];
        self.read_exact_slow(&mut a)?;
        Ok(a)
    }

    fn take<'s>(
        &'s mut self,
        n: usize,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's, [u8]>> {
        scratch.clear();
        if self.end - self.pos >= n {
            scratch.extend_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            return Ok(Reference::Copied(scratch));
        }
        // Grow only as bytes arrive: a length prefix that lies costs what the input really holds.
        while scratch.len() < n {
            if self.pos >= self.end && !self.fill()? {
                return Err(Error::eof(self.offset()));
            }
            let k = (self.end - self.pos).min(n - scratch.len());
            scratch.extend_from_slice(&self.buf[self.pos..self.pos + k]);
            self.pos += k;
        }
        Ok(Reference::Copied(scratch))
    }

    fn skip(&mut self, mut n: u64) -> Result<()> {
        loop {
            let avail = (self.end - self.pos) as u64;
            if n <= avail {
                self.pos += n as usize;
                return Ok(());
            }
            n -= avail;
            self.pos = self.end;
            if !self.fill()? {
                return Err(Error::eof(self.offset()));
            }
        }
    }

    #[inline]
    fn remaining(&self) -> Option<u64> {
        None
    }

    fn at_end(&mut self) -> Result<bool> {
        if self.pos < self.end {
            return Ok(false);
        }
        Ok(!self.fill()?)
    }
}
