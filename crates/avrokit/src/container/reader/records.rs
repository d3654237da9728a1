//! Decoding one whole block at a time: [`BlockDecoding`], shared by [`RawBlock::decode`]
//! and the async reader, which both take a block's payload as a unit.
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
        let mut c = Current {
            in_input: false,
            pos: 0,
            end: data.len(),
            left: h.count,
            record: 0,
            header: *h,
        };
        while c.left > 0 {
            let mut dec = Decoder::from_slice(&data[c.pos..]).with_limits(limits);
            let v = f(&mut dec).map_err(|e| record_error(e, &c, in_file))?;
            c.pos += dec.offset() as usize;
            c.left -= 1;
            c.record += 1;
            if c.left == 0 && c.pos != c.end {
                // As the Reader: the last record is not returned when the block's bytes do not
                // end with it.
                return Err(records_end_early(h, c.pos, c.end));
            }
            out.push(v);
        }
        Ok(())
    }
}
