//! Decoding blocks taken as a unit: [`BlockDecoding`] (decompression and the count check),
//! shared by [`RawBlock::decode`] and the async reader, and [`Cursor`], the step that reads
//! one record of a loaded block and checks it (the async reader reads its records one by one
//! with it, as they are asked for; `BlockDecoding::decode` reads a whole block with it).
//!
//! The checks and error contexts are the [`Reader`](super::Reader)'s own (`checks.rs`): the
//! same count check before decoding, a fresh decoder per record (so the per-datum budgets are
//! the same), the same "records end early" check after the last one, and the same file
//! offsets in errors. A block read this way yields the records a `Reader` yields, then the
//! error it gives.
//!
//! [`RawBlock::decode`]: super::RawBlock::decode

use super::checks::{block_error, check_count, record_error, records_end_early};
use super::Current;
use crate::container::codec::{Codec, Decompressor};
use crate::container::framing::BlockHeader;
use crate::decode::Decoder;
use crate::error::Result;
use crate::io::Limits;

/// What decoding blocks of one file needs: its codec's decompressor, a reused buffer for
/// decompressed bytes, the schema's smallest record size (for the count check) and the limits.
///
/// Owns everything, and is `Send`: a caller may move it to another thread with a block's
/// payload, decode there, and take it back.
pub(crate) struct BlockDecoding {
    codec: Codec,
    decompressor: Decompressor,
    data: Vec<u8>,
    min_record_size: u64,
    limits: Limits,
}

impl BlockDecoding {
    /// # Errors
    /// A codec that is not enabled.
    pub(crate) fn new(codec: Codec, min_record_size: u64, limits: Limits) -> Result<Self> {
        Ok(BlockDecoding {
            codec,
            decompressor: Decompressor::new(codec)?,
            data: Vec::new(),
            min_record_size,
            limits,
        })
    }

    /// The limits in force.
    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    /// True when the blocks are stored uncompressed, so offsets in them are file offsets.
    pub(crate) fn in_file(&self) -> bool {
        self.codec == Codec::Null
    }

    /// The bytes of the block last [`load`](Self::load)ed from `payload`: `payload` itself for
    /// the `null` codec, else the decompression buffer.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    #[inline]
    pub(crate) fn bytes<'s>(&'s self, payload: &'s [u8]) -> &'s [u8] {
        if self.codec == Codec::Null {
            payload
        } else {
            &self.data
        }
    }

    /// Decompresses block `h`'s `payload` (into the reused buffer; a `null` block is used in
    /// place) and checks its count against the bytes.
    pub(crate) fn load<'s>(&'s mut self, h: &BlockHeader, payload: &'s [u8]) -> Result<&'s [u8]> {
        let data: &[u8] = if self.codec == Codec::Null {
            payload
        } else {
            self.decompressor
                .decompress(payload, &mut self.data, self.limits.max_alloc)
                .map_err(|e| block_error(e, h))?;
            &self.data
        };
        check_count(h, data.len() as u64, self.min_record_size, &self.limits)?;
        Ok(data)
    }

    /// Decompresses block `h`'s `payload`, checks its count, and decodes its records with
    /// `f` into `out` (appended). Stops at the first error and returns it: the records before
    /// it are in `out`, exactly those a [`Reader`](super::Reader) returns before that error.
    pub(crate) fn decode<T>(
        &mut self,
        h: &BlockHeader,
        payload: &[u8],
        out: &mut Vec<T>,
        mut f: impl for<'de> FnMut(&mut Decoder<'de>) -> Result<T>,
    ) -> Result<()> {
        let (limits, in_file) = (self.limits, self.in_file());
        let data = self.load(h, payload)?;
        out.reserve(h.count.min(4096) as usize);
        let mut c = Cursor::new(h, data.len());
        while c.remaining() > 0 {
            out.push(c.read(data, limits, in_file, &mut f)?);
        }
        Ok(())
    }
}

/// The largest block whose freshly written bytes [`Cursor::in_cache`] takes to be in cache:
/// well within a core's L2 on the machines this is built for (the default blocks are 64 KiB).
const IN_CACHE: usize = 256 * 1024;

/// Where the next record of a loaded block is, and how many are left.
///
/// [`read`](Self::read) is the record step of the [`Reader`](super::Reader): a fresh decoder
/// per record over the block's bytes (so the per-datum budgets are the same), errors named
/// with the block and the record, and the "records end early" check after the last one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor(Current);

impl Cursor {
    /// At the first of block `h`'s records, which are `len` bytes (decompressed).
    pub(crate) fn new(h: &BlockHeader, len: usize) -> Cursor {
        Cursor(Current {
            in_input: false,
            pos: 0,
            end: len,
            left: h.count,
            record: 0,
            header: *h,
            ahead: 0,
        })
    }

    /// As [`new`](Self::new), for bytes that were just written (copied out of the input or
    /// decompressed) and so are still in cache when the block is small enough: then
    /// [`read`](Self::read) does not ask for lines ahead ([`read_ahead`](crate::io::read_ahead)),
    /// which would only cost time. The async reader's null-codec records were 3% slower with it.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn in_cache(h: &BlockHeader, len: usize) -> Cursor {
        let mut c = Cursor::new(h, len);
        if len <= IN_CACHE {
            c.0.ahead = usize::MAX;
        }
        c
    }

    /// No records (before the first block).
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) fn empty(h: &BlockHeader) -> Cursor {
        Cursor::new(&BlockHeader { count: 0, ..*h }, 0)
    }

    /// Records not read yet.
    #[inline]
    pub(crate) fn remaining(&self) -> u64 {
        self.0.left
    }

    /// The offset of the next record in the block's bytes.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.0.pos
    }

    /// Reads the next record (there must be one: `remaining() > 0`) from `data`, the block's
    /// (decompressed) bytes, with `f`, which must read exactly one record. After an error no
    /// records remain.
    ///
    /// # Errors
    /// `f`'s error, named with the block and record (a file offset when `in_file`), or, after
    /// the last record, records that do not end where the block's bytes end. As the `Reader`,
    /// the last record is not returned then.
    #[inline]
    pub(crate) fn read<'de, T>(
        &mut self,
        data: &'de [u8],
        limits: Limits,
        in_file: bool,
        f: impl FnOnce(&mut Decoder<'de>) -> Result<T>,
    ) -> Result<T> {
        crate::io::read_ahead(&data[..self.0.end], self.0.pos, &mut self.0.ahead);
        // Only the two offsets are copied out: copying the whole `Current` here, right after
        // the last record's stores to it, made the CPU wait for those stores (a 16-byte load
        // over 8-byte stores cannot be forwarded), about a third of this function's samples.
        // The error paths read `self.0`, which is still the state before this record.
        let (pos, end) = (self.0.pos, self.0.end);
        let mut dec = Decoder::from_slice(&data[pos..end]).with_limits(limits);
        let v = match f(&mut dec) {
            Ok(v) => v,
            Err(e) => {
                let e = record_error(e, &self.0, in_file);
                self.0.left = 0;
                return Err(e);
            }
        };
        self.0.pos += dec.offset() as usize;
        self.0.left -= 1;
        self.0.record += 1;
        if self.0.left == 0 && self.0.pos != self.0.end {
            return Err(records_end_early(&self.0.header, self.0.pos, self.0.end));
        }
        Ok(v)
    }
}
