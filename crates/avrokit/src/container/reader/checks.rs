//! The checks of a block against its bytes, and the context (block, record, offset) that
//! errors inside a block are given.

use super::Current;
use crate::container::framing::BlockHeader;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;

/// Checks a block's object count against its (decompressed) size.
pub(super) fn check_count(
    h: &BlockHeader,
    len: u64,
    min_record_size: u64,
    limits: &Limits,
) -> Result<()> {
    // Every record takes at least `min_record_size` bytes; records that take none (null,
    // empty records) are bounded by max_alloc so that a lying count cannot spin forever.
    let max_records = len
        .checked_div(min_record_size)
        .unwrap_or(limits.max_alloc as u64);
    if h.count > max_records {
        return Err(Error::at(
            ErrorKind::Container,
            format!(
                "block {} (at byte {}) claims {} objects, but its {len} bytes of data can hold at most {max_records}",
                h.index, h.offset, h.count
            ),
            h.offset,
        ));
    }
    if h.count == 0 && len > 0 {
        return Err(Error::at(
            ErrorKind::Data,
            format!(
                "block {} (at byte {}) holds no objects but has {len} bytes of data",
                h.index, h.offset
            ),
            h.offset,
        ));
    }
    Ok(())
}

/// An error of a whole block (its decompression), named with the block. Its kind, path and
/// cause are kept; without an offset of its own it is at the block's start.
#[cold]
pub(super) fn block_error(e: Error, h: &BlockHeader) -> Error {
    e.in_context(format_args!("block {} (at byte {})", h.index, h.offset))
        .or_offset(h.offset)
}

/// An error inside a record of the current block, named with the block and the record. Its
/// kind, path and cause are kept; its offset, within the bytes the record was decoded from,
/// becomes a file offset when the block is stored uncompressed, and is named in the message
/// (the error then at the block's start) when it is not.
#[cold]
pub(super) fn record_error(e: Error, c: &Current, in_file: bool) -> Error {
    let h = &c.header;
    let e = if e.is_eof() {
        // The block is complete: running out inside it is corruption, not a truncated file.
        e.recast(ErrorKind::Data, "the block's data ends inside the record")
    } else {
        e
    };
    match e.offset() {
        // Offsets inside the block map to file offsets when the block is stored uncompressed.
        Some(o) if in_file => e
            .in_context(format_args!(
                "block {} (at byte {}), record {}",
                h.index, h.offset, c.record
            ))
            .at_offset(h.data_offset + (c.pos as u64 - data_start(c)) + o),
        Some(o) => e
            .in_context(format_args!(
                "block {} (at byte {}), record {} (byte {} of the decompressed block)",
                h.index,
                h.offset,
                c.record,
                c.pos as u64 + o
            ))
            .at_offset(h.offset),
        None => e
            .in_context(format_args!(
                "block {} (at byte {}), record {}",
                h.index, h.offset, c.record
            ))
            .at_offset(h.offset),
    }
}

/// The position of the block's first byte in the buffer `c.pos` indexes.
pub(super) fn data_start(c: &Current) -> u64 {
    if c.in_input {
        c.header.data_offset
    } else {
        0
    }
}

/// The records of block `h` ended at byte `end` of its `len` bytes of (decompressed) data.
#[cold]
pub(super) fn records_end_early(h: &BlockHeader, end: usize, len: usize) -> Error {
    Error::at(
        ErrorKind::Data,
        format!(
            "block {} (at byte {}): its {} records end at byte {end} of its {len} bytes of data",
            h.index, h.offset, h.count
        ),
        h.offset,
    )
}
