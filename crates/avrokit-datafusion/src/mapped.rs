//! Local files read in place: the file mapped into memory and avrokit-arrow's reader over the
//! map, so that blocks are decoded where the page cache holds them.
//!
//! Read through `read(2)`, every byte of a scan is first copied by the kernel into the
//! reader's block buffer. On a projected scan (the SQL bench's filter + group by on the mixed
//! record, three columns of twelve) that copy was 12% of the CPU time (perf); the map has no
//! copy. The cost is the mapping's usual caveat, documented on
//! [`AvroOptions::with_mmap`](crate::AvroOptions::with_mmap): a file truncated by another
//! process while it is scanned may stop the process with `SIGBUS` instead of an error.
#![allow(unsafe_code)]

use std::fs::File;
use std::ops::Range;

use avrokit_arrow::{Reader, ReaderBuilder};
use datafusion::arrow::record_batch::RecordBatch;
use memmap2::Mmap;

self_cell::self_cell!(
    /// A mapped file and the reader that borrows from it.
    struct MappedReader {
        owner: Mmap,
        #[not_covariant]
        dependent: SliceReader,
    }
);

type SliceReader<'a> = Reader<'a, &'a [u8]>;

/// Batches of a local file (or of its byte range `range`, by the sync-marker rule), decoded
/// from a map of the file.
pub(crate) struct MappedBatches {
    cell: MappedReader,
}

impl MappedBatches {
    /// Maps `file` and starts a reader over it.
    ///
    /// # Errors
    /// A file that cannot be mapped, a bad header, or a range the reader cannot seek to.
    pub(crate) fn open(
        file: &File,
        builder: ReaderBuilder,
        range: Option<Range<u64>>,
    ) -> avrokit_arrow::Result<MappedBatches> {
        // SAFETY: `Mmap::map` is unsafe because the map's bytes change if another process
        // writes the file, which Rust's `&[u8]` assumes never happens. The map is only read,
        // as untrusted input: every length and count in it is checked before use, so bytes
        // changed under the reader give wrong values or a decoding error. A file truncated
        // under the map can raise SIGBUS: `AvroOptions::with_mmap` documents it, and
        // `with_mmap(false)` reads through `read(2)` instead.
        let map = unsafe { Mmap::map(file) }?;
        let cell = MappedReader::try_new(map, |map| {
            let mut reader = builder.build_slice(&map[..])?;
            if let Some(r) = &range {
                reader.seek_split(r.start, r.end)?;
            }
            Ok::<_, avrokit_arrow::Error>(reader)
        })?;
        Ok(MappedBatches { cell })
    }

    /// The Arrow schema of the batches.
    pub(crate) fn schema(&self) -> datafusion::arrow::datatypes::SchemaRef {
        self.cell.with_dependent(|_, reader| reader.schema())
    }
}

impl Iterator for MappedBatches {
    type Item = avrokit_arrow::Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.cell.with_dependent_mut(|_, reader| reader.next())
    }
}
