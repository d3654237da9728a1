//! A file's row count from its block headers, for the statistics.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use avrokit::container::framing::{BlockDecoder, BlockEvent, Header, SYNC_SIZE};
use avrokit::Limits;

/// A file's row count, and whether it is certain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowCount {
    pub rows: u64,
    /// True when every block's count was checked against its payload: each object takes at
    /// least the schema's smallest datum size, which uncompressed blocks can be held to.
    /// Compressed blocks cannot be without decompressing them, so their counts are only
    /// what the headers claim.
    pub exact: bool,
}

/// The rows of the container file `file` (of `len` bytes, with `header`), summed over its
/// block headers: per block, a read of its count and size and one of its sync marker; the
/// payload in between is neither read nor decompressed.
///
/// `min_size` is the smallest encoded size of a datum of the file's schema, and
/// `compressed` whether the blocks are. `None` when the framing does not hold together (a bad
/// sync marker, a size past the end, a truncated block, an uncompressed block claiming more
/// objects than its bytes can hold): the scan then reads the file and reports where it is
/// broken, so a broken file never answers `count(*)` from its statistics.
pub(crate) fn count_rows(
    file: &mut File,
    len: u64,
    header: &Header,
    min_size: u64,
    compressed: bool,
    limits: Limits,
) -> Option<RowCount> {
    let sync = header.sync_marker();
    let mut at = header.len();
    let mut rows = 0u64;
    // A block's count and size are two varints of at most 10 bytes each.
    let mut buf = [0u8; 20];
    let mut marker = [0u8; SYNC_SIZE];
    while at < len {
        let want = (len - at).min(buf.len() as u64) as usize;
        file.seek(SeekFrom::Start(at)).ok()?;
        file.read_exact(&mut buf[..want]).ok()?;
        let mut dec = BlockDecoder::at(sync, at, limits);
        let (_, event) = dec.decode(&buf[..want]).ok()?;
        let BlockEvent::Start(h) = event else {
            return None;
        };
        let sync_at = h.data_offset.checked_add(h.size)?;
        let next = sync_at.checked_add(SYNC_SIZE as u64)?;
        if next > len {
            return None;
        }
        file.seek(SeekFrom::Start(sync_at)).ok()?;
        file.read_exact(&mut marker).ok()?;
        if marker != sync {
            return None;
        }
        // As the reader holds them: objects must fit the bytes, and objects of no bytes are
        // bounded by the allocation limit.
        let too_many = if min_size == 0 {
            h.count > limits.max_alloc as u64
        } else {
            h.count.checked_mul(min_size)? > h.size
        };
        if !compressed && too_many {
            return None;
        }
        rows = rows.checked_add(h.count)?;
        at = next;
    }
    Some(RowCount {
        rows,
        exact: !compressed,
    })
}
