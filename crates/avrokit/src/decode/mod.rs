//! The binary decoder: one call per value, like Java's `BinaryDecoder`.
//!
//! A [`Decoder`] reads Avro's binary encoding from a [`Source`]: a borrowed slice
//! ([`Decoder::from_slice`], strings and bytes handed out without copying) or any `io::Read`
//! ([`Decoder::from_reader`], buffered).
//!
//! # Examples
//! ```
//! use avrokit::Decoder;
//! let data = [0x01, 0x06, b'f', b'o', b'o', 0x04, 0x02, 0x04, 0x00];
//! let mut dec = Decoder::from_slice(&data);
//! assert_eq!(dec.read_long()?, -1);
//! let s: &str = dec.read_str_borrowed()?; // borrows `data`, not the decoder
//! let mut items = Vec::new();
//! let mut n = dec.read_array_start()?;
//! while n > 0 {
//!     for _ in 0..n {
//!         items.push(dec.read_int()?);
//!     }
//!     n = dec.array_next()?;
//! }
//! assert_eq!((s, items), ("foo", vec![1, 2]));
//! assert!(dec.is_empty()?);
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # Error handling
//! Every error carries the byte offset where it was found. A length or count is checked against
//! the bytes left and the decoder's [`Limits`] before anything is allocated, so hostile input
//! fails fast with little memory. Input that ends early is always an
//! [`ErrorKind::Eof`] error, never a value.

mod blocks;
mod skip;
mod utf8;

pub(crate) use blocks::{Blocks, ItemCost, RESERVE_MAX};

pub(crate) use skip::{fixed_size, zero_size_values};

use std::io::Read;
use std::marker::PhantomData;

use crate::error::{Error, ErrorKind, Result};
use crate::io::varint::unzigzag64;
use crate::io::{Limits, ReaderSource, Reference, SliceSource, Source};

/// Reads Avro binary data from a [`Source`].
pub struct Decoder<'de, S: Source<'de> = SliceSource<'de>> {
    src: S,
    scratch: Vec<u8>,
    limits: Limits,
    depth: usize,
    /// Memory admitted for values that take no input bytes, in the current top-level value
    /// (reset when nesting starts again from depth 0).
    zero_size_mem: u64,
    _input: PhantomData<&'de [u8]>,
}

impl<'de> Decoder<'de, SliceSource<'de>> {
    /// A decoder over a byte slice: strings and bytes can be borrowed from it.
    #[inline]
    pub fn from_slice(data: &'de [u8]) -> Self {
        Decoder::new(SliceSource::new(data))
    }

    /// The bytes not consumed yet.
    #[inline]
    pub fn rest(&self) -> &'de [u8] {
        self.src.rest()
    }

    /// Checks that the whole slice was read: a datum decoded from a slice must fill it.
    ///
    /// # Errors
    /// [`ErrorKind::Data`] naming the bytes left over.
    #[inline]
    pub(crate) fn expect_end(&self) -> Result<()> {
        let rest = self.src.rest();
        if rest.is_empty() {
            return Ok(());
        }
        Err(Error::at(
            ErrorKind::Data,
            format!("{} bytes left over after the datum", rest.len()),
            self.src.offset(),
        ))
    }

    /// Reads a `string` borrowed from the input slice (no copy), valid for as long as the input.
    ///
    /// # Errors
    /// As [`Decoder::read_str`].
    #[inline]
    pub fn read_str_borrowed(&mut self) -> Result<&'de str> {
        match self.read_str_ref()? {
            Reference::Borrowed(s) => Ok(s),
            Reference::Copied(_) => unreachable!("slice sources always borrow"),
        }
    }

    /// Reads `bytes` borrowed from the input slice (no copy).
    ///
    /// # Errors
    /// As [`Decoder::read_bytes`].
    #[inline]
    pub fn read_bytes_borrowed(&mut self) -> Result<&'de [u8]> {
        match self.read_bytes_ref()? {
            Reference::Borrowed(s) => Ok(s),
            Reference::Copied(_) => unreachable!("slice sources always borrow"),
        }
    }
}

impl<R: Read> Decoder<'static, ReaderSource<R>> {
    /// A decoder over any `io::Read`, with its own 64 KiB buffer (do not add a `BufReader`).
    /// Strings and bytes are copied; use [`Decoder::into_parts`] to get the reader back with
    /// the bytes read ahead.
    pub fn from_reader(reader: R) -> Self {
        Decoder::new(ReaderSource::new(reader))
    }

    /// As [`Decoder::from_reader`] with a buffer of `capacity` bytes.
    pub fn from_reader_with_capacity(capacity: usize, reader: R) -> Self {
        Decoder::new(ReaderSource::with_capacity(capacity, reader))
    }

    /// Takes the decoder apart: the bytes it read ahead but did not consume, and the reader.
    /// Reading those bytes, then the reader, continues the stream exactly where decoding stopped.
    pub fn into_parts(self) -> (Vec<u8>, R) {
        self.src.into_parts()
    }
}

impl<'de, S: Source<'de>> Decoder<'de, S> {
    /// A decoder over any source, with default [`Limits`].
    #[inline]
    pub fn new(src: S) -> Self {
        Decoder {
            src,
            scratch: Vec::new(),
            limits: Limits::default(),
            depth: 0,
            zero_size_mem: 0,
            _input: PhantomData,
        }
    }

    /// Sets the limits.
    #[inline]
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits in force.
    #[inline]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The source.
    #[inline]
    pub fn source(&self) -> &S {
        &self.src
    }

    /// Returns the source.
    #[inline]
    pub fn into_source(self) -> S {
        self.src
    }

    /// Bytes consumed so far.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.src.offset()
    }

    /// The number of bytes left, when the source knows it.
    #[inline]
    pub fn remaining(&self) -> Option<u64> {
        self.src.remaining()
    }

    /// True when the input has no byte left (a reader source may read to find out).
    ///
    /// # Errors
    /// When the reader fails.
    #[inline]
    pub fn is_empty(&mut self) -> Result<bool> {
        self.src.at_end()
    }

    /// Reads nothing: `null` has an empty encoding.
    ///
    /// # Errors
    /// Never.
    #[inline(always)]
    pub fn read_null(&mut self) -> Result<()> {
        Ok(())
    }

    /// Reads a boolean (one byte, 0 or 1).
    ///
    /// # Errors
    /// End of input, or a byte other than 0 and 1.
    #[inline(always)]
    pub fn read_boolean(&mut self) -> Result<bool> {
        match self.src.read_byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(self.bad("boolean byte is neither 0 nor 1", 1)),
        }
    }

    /// Reads an `int` (a zigzag varint that must fit in 32 bits).
    ///
    /// # Errors
    /// End of input, or a varint out of range.
    #[inline(always)]
    pub fn read_int(&mut self) -> Result<i32> {
        let start = self.src.offset();
        let raw = self.src.read_varint()?;
        if raw > u64::from(u32::MAX) {
            return Err(int_too_wide(start));
        }
        Ok(unzigzag64(raw) as i32)
    }

    /// Reads `n` `int`s in a row (the items of an array block), handing each to `each` with
    /// the offset it starts at: one loop over the source, not a call per item.
    #[inline(always)]
    pub(crate) fn read_ints(
        &mut self,
        n: u64,
        mut each: impl FnMut(i32, u64) -> Result<()>,
    ) -> Result<()> {
        self.src.read_varints(n, |raw, at| {
            if raw > u64::from(u32::MAX) {
                return Err(int_too_wide(at));
            }
            each(unzigzag64(raw) as i32, at)
        })
    }

    /// Reads `n` `long`s in a row, as [`Decoder::read_ints`].
    #[inline(always)]
    pub(crate) fn read_longs(
        &mut self,
        n: u64,
        mut each: impl FnMut(i64, u64) -> Result<()>,
    ) -> Result<()> {
        self.src
            .read_varints(n, |raw, at| each(unzigzag64(raw), at))
    }

    /// Reads a `long`.
    ///
    /// # Errors
    /// End of input, or a varint longer than 64 bits.
    #[inline(always)]
    pub fn read_long(&mut self) -> Result<i64> {
        Ok(unzigzag64(self.src.read_varint()?))
    }

    /// Reads a `float` (4 little-endian bytes).
    ///
    /// # Errors
    /// End of input.
    #[inline(always)]
    pub fn read_float(&mut self) -> Result<f32> {
        Ok(f32::from_le_bytes(self.src.read_array::<4>()?))
    }

    /// Reads a `double` (8 little-endian bytes).
    ///
    /// # Errors
    /// End of input.
    #[inline(always)]
    pub fn read_double(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.src.read_array::<8>()?))
    }

    /// Reads a length prefix and checks it against the input left and the limits.
    #[inline(always)]
    fn read_len(&mut self) -> Result<usize> {
        let start = self.src.offset();
        let len = self.read_long()?;
        if len < 0 || len as u64 > self.limits.max_alloc as u64 {
            return Err(self.bad_len(len, start));
        }
        if let Some(left) = self.src.remaining() {
            if len as u64 > left {
                return Err(self.bad_len(len, start));
            }
        }
        Ok(len as usize)
    }

    #[cold]
    #[inline(never)]
    fn bad_len(&self, len: i64, start: u64) -> Error {
        if len < 0 {
            return Error::at(ErrorKind::Data, format!("negative length {len}"), start);
        }
        if len as u64 > self.limits.max_alloc as u64 {
            return Error::at(
                ErrorKind::Limit,
                format!(
                    "length {len} exceeds the allocation limit of {} bytes",
                    self.limits.max_alloc
                ),
                start,
            );
        }
        Error::at(
            ErrorKind::Eof,
            format!(
                "length {len} exceeds the {} bytes left",
                self.src.remaining().unwrap_or(0)
            ),
            start,
        )
    }

    #[cold]
    #[inline(never)]
    fn bad(&self, message: &'static str, back: u64) -> Error {
        Error::at(
            ErrorKind::Data,
            message,
            self.src.offset().saturating_sub(back),
        )
    }

    /// Reads `bytes`, borrowed from the input or copied into the decoder's scratch buffer.
    ///
    /// # Errors
    /// End of input, a negative length, or a length over the limit.
    #[inline(always)]
    pub fn read_bytes_ref(&mut self) -> Result<Reference<'de, '_, [u8]>> {
        let len = self.read_len()?;
        self.src.take(len, &mut self.scratch)
    }

    /// Reads `bytes`, valid until the next read.
    ///
    /// # Errors
    /// As [`Decoder::read_bytes_ref`].
    #[inline(always)]
    pub fn read_bytes(&mut self) -> Result<&[u8]> {
        let len = self.read_len()?;
        Ok(match self.src.take(len, &mut self.scratch)? {
            Reference::Borrowed(b) => b,
            Reference::Copied(c) => c,
        })
    }

    /// Reads `bytes` into `out`, replacing its contents (reusing its allocation).
    ///
    /// # Errors
    /// As [`Decoder::read_bytes_ref`].
    #[inline]
    pub fn read_bytes_into(&mut self, out: &mut Vec<u8>) -> Result<()> {
        let b = self.read_bytes_ref()?;
        out.clear();
        out.extend_from_slice(&b);
        Ok(())
    }

    /// Reads a `string`, borrowed from the input or copied into scratch, after checking it is
    /// valid UTF-8.
    ///
    /// # Errors
    /// As [`Decoder::read_bytes_ref`], and invalid UTF-8.
    #[inline(always)]
    pub fn read_str_ref(&mut self) -> Result<Reference<'de, '_, str>> {
        let start = self.src.offset();
        let len = self.read_len()?;
        match self.src.take(len, &mut self.scratch)? {
            Reference::Borrowed(b) => match utf8::validate(b) {
                Some(s) => Ok(Reference::Borrowed(s)),
                None => Err(invalid_utf8(start)),
            },
            Reference::Copied(b) => match utf8::validate(b) {
                Some(s) => Ok(Reference::Copied(s)),
                None => Err(invalid_utf8(start)),
            },
        }
    }

    /// Reads a `string`, valid until the next read.
    ///
    /// # Errors
    /// As [`Decoder::read_str_ref`].
    #[inline(always)]
    pub fn read_str(&mut self) -> Result<&str> {
        Ok(match self.read_str_ref()? {
            Reference::Borrowed(s) => s,
            Reference::Copied(s) => s,
        })
    }

    /// Reads a `string` into a new `String`.
    ///
    /// # Errors
    /// As [`Decoder::read_str_ref`].
    #[inline]
    pub fn read_string(&mut self) -> Result<String> {
        Ok(self.read_str()?.to_owned())
    }

    /// Reads a `string` into `out`, replacing its contents (reusing its allocation).
    ///
    /// # Errors
    /// As [`Decoder::read_str_ref`].
    #[inline]
    pub fn read_string_into(&mut self, out: &mut String) -> Result<()> {
        let s = self.read_str_ref()?;
        out.clear();
        out.push_str(&s);
        Ok(())
    }

    /// Reads a `fixed` of `size` bytes, borrowed or copied into scratch.
    ///
    /// # Errors
    /// End of input, or a size over the limit.
    #[inline]
    pub fn read_fixed_ref(&mut self, size: usize) -> Result<Reference<'de, '_, [u8]>> {
        if size > self.limits.max_alloc {
            return Err(Error::at(
                ErrorKind::Limit,
                "fixed size exceeds the allocation limit",
                self.src.offset(),
            ));
        }
        self.src.take(size, &mut self.scratch)
    }

    /// Reads a `fixed` of `size` bytes, valid until the next read.
    ///
    /// # Errors
    /// As [`Decoder::read_fixed_ref`].
    #[inline]
    pub fn read_fixed(&mut self, size: usize) -> Result<&[u8]> {
        Ok(match self.read_fixed_ref(size)? {
            Reference::Borrowed(b) => b,
            Reference::Copied(c) => c,
        })
    }

    /// Reads an enum symbol index (not checked against a schema: the caller knows the symbols).
    ///
    /// # Errors
    /// End of input, or an index that is negative or beyond 32 bits.
    #[inline(always)]
    pub fn read_enum(&mut self) -> Result<u32> {
        self.read_index("enum index out of range")
    }

    /// Reads a union branch index (not checked against a schema).
    ///
    /// # Errors
    /// End of input, or an index that is negative or beyond 32 bits.
    #[inline(always)]
    pub fn read_union_index(&mut self) -> Result<u32> {
        self.read_index("union index out of range")
    }

    #[inline(always)]
    fn read_index(&mut self, what: &'static str) -> Result<u32> {
        let start = self.src.offset();
        let v = self.read_long()?;
        if v < 0 || v > i64::from(u32::MAX) {
            return Err(Error::at(ErrorKind::Data, what, start));
        }
        Ok(v as u32)
    }

    /// Reads the header of an array or map block: the item count, and the block's byte size when
    /// the writer gave one (a negative count on the wire). A count of 0 ends the collection.
    ///
    /// # Errors
    /// End of input, or a count or size that is not valid.
    #[inline(always)]
    pub fn read_block_header(&mut self) -> Result<(u64, Option<u64>)> {
        let start = self.src.offset();
        let n = self.read_long()?;
        if n >= 0 {
            return Ok((n as u64, None));
        }
        self.read_block_size(n, start)
    }

    /// The rest of a block header whose count `n`, read at `start`, is negative: the block's
    /// byte size. Out of line, so that the common path (no size, as most writers write) is
    /// inlined into every collection's loop: a call per header was 6% of a borrowed read of
    /// the `-container` record, and inlining it made that read 7% faster.
    #[inline(never)]
    fn read_block_size(&mut self, n: i64, start: u64) -> Result<(u64, Option<u64>)> {
        if n == i64::MIN {
            return Err(Error::at(
                ErrorKind::Data,
                "block count out of range",
                start,
            ));
        }
        let size_at = self.src.offset();
        let size = self.read_long()?;
        if size < 0 {
            return Err(Error::at(ErrorKind::Data, "negative block size", size_at));
        }
        // The size is not checked against the bytes left: it only serves skipping (which fails
        // at the end of input anyway), and readers of the items ignore it, as Java's do. A
        // reader source cannot know the bytes left, so checking here would make slices and
        // readers disagree on the same bytes (found by fuzzing).
        Ok((n.unsigned_abs(), Some(size as u64)))
    }

    /// Reads the first block count of an array (0 for an empty array).
    ///
    /// # Errors
    /// As [`Decoder::read_block_header`].
    #[inline]
    pub fn read_array_start(&mut self) -> Result<u64> {
        Ok(self.read_block_header()?.0)
    }

    /// Reads the next block count of an array (0 at its end).
    ///
    /// # Errors
    /// As [`Decoder::read_block_header`].
    #[inline]
    pub fn array_next(&mut self) -> Result<u64> {
        Ok(self.read_block_header()?.0)
    }

    /// Reads the first block count of a map (0 for an empty map).
    ///
    /// # Errors
    /// As [`Decoder::read_block_header`].
    #[inline]
    pub fn read_map_start(&mut self) -> Result<u64> {
        Ok(self.read_block_header()?.0)
    }

    /// Reads the next block count of a map (0 at its end).
    ///
    /// # Errors
    /// As [`Decoder::read_block_header`].
    #[inline]
    pub fn map_next(&mut self) -> Result<u64> {
        Ok(self.read_block_header()?.0)
    }

    /// Skips `n` bytes.
    ///
    /// # Errors
    /// End of input.
    #[inline]
    pub fn skip_raw(&mut self, n: u64) -> Result<()> {
        self.src.skip(n)
    }

    /// Skips a `bytes` or `string` value.
    ///
    /// # Errors
    /// End of input or a bad length.
    #[inline]
    pub fn skip_bytes(&mut self) -> Result<()> {
        let start = self.src.offset();
        let len = self.read_long()?;
        if len < 0 {
            return Err(self.bad_len(len, start));
        }
        self.src.skip(len as u64)
    }

    /// Enters one level of nesting; fails past [`Limits::max_depth`]. Pair with
    /// [`Decoder::leave`].
    ///
    /// # Errors
    /// [`ErrorKind::Limit`] when too deep.
    #[inline(always)]
    pub fn enter(&mut self) -> Result<()> {
        if self.depth == 0 {
            self.zero_size_mem = 0;
        }
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            self.depth -= 1;
            return Err(self.too_deep());
        }
        Ok(())
    }

    /// Leaves one level of nesting.
    #[inline(always)]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> Error {
        Error::at(
            ErrorKind::Limit,
            format!("data nested deeper than {} levels", self.limits.max_depth),
            self.src.offset(),
        )
    }

    /// Checks that a collection of `count` items more, each taking at least `min_item_bytes`
    /// on the wire and `item_mem` bytes in memory, can exist: it must fit in the bytes left and in
    /// the allocation limit. Call before reserving space for a block.
    ///
    /// # Errors
    /// [`ErrorKind::Eof`] when the input cannot hold that many items, [`ErrorKind::Limit`] when
    /// they would exceed the allocation limit.
    #[inline]
    pub fn check_items(&self, count: u64, min_item_bytes: u64, item_mem: usize) -> Result<()> {
        if min_item_bytes > 0 {
            if let Some(left) = self.src.remaining() {
                if count.saturating_mul(min_item_bytes) > left {
                    return Err(self.too_many(count, false));
                }
            }
        }
        if count.saturating_mul(item_mem.max(1) as u64) > self.limits.max_alloc as u64 {
            return Err(self.too_many(count, true));
        }
        Ok(())
    }

    /// Checks `count` more collection items that take no bytes on the wire (null, empty
    /// records) and `item_mem` bytes each in memory. Such items cost no input, so a few bytes
    /// could otherwise claim `max_alloc` of them in every one of many nested collections: all
    /// of them in one top-level value (from the outermost [`Decoder::enter`]) share one
    /// `max_alloc` budget.
    ///
    /// # Errors
    /// [`ErrorKind::Limit`] when the budget is exceeded.
    #[inline]
    pub fn check_zero_size_items(&mut self, count: u64, item_mem: usize) -> Result<()> {
        let total = count
            .saturating_mul(item_mem.max(1) as u64)
            .saturating_add(self.zero_size_mem);
        if total > self.limits.max_alloc as u64 {
            return Err(self.too_many(count, true));
        }
        self.zero_size_mem = total;
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_many(&self, count: u64, limit: bool) -> Error {
        if limit {
            Error::at(
                ErrorKind::Limit,
                format!(
                    "{count} items exceed the allocation limit of {} bytes",
                    self.limits.max_alloc
                ),
                self.src.offset(),
            )
        } else {
            Error::at(
                ErrorKind::Eof,
                format!(
                    "{count} items cannot fit in the {} bytes left",
                    self.src.remaining().unwrap_or(0)
                ),
                self.src.offset(),
            )
        }
    }
}

#[cold]
#[inline(never)]
fn invalid_utf8(at: u64) -> Error {
    Error::at(ErrorKind::Data, "string is not valid UTF-8", at)
}

#[cold]
#[inline(never)]
fn int_too_wide(at: u64) -> Error {
    Error::at(ErrorKind::Data, "int varint does not fit in 32 bits", at)
}
