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

#[cfg(test)]
mod tests {
    use std::io::Write;

    use avrokit::container::WriterBuilder;
    use avrokit::{Schema, Value};
    use avrokit_arrow::ReaderBuilder;

    use super::MappedBatches;

    /// The map reads what a slice of the same bytes reads, whole and by split; an empty file
    /// and a cut one are errors, not panics.
    #[test]
    fn mapped_files_read_as_their_bytes() {
        let schema = Schema::parse_str(r#""long""#).unwrap();
        let mut w = WriterBuilder::new(&schema)
            .with_block_records(10)
            .build(Vec::new())
            .unwrap();
        for i in 0..1000 {
            w.append(&Value::Long(i)).unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let dir = std::env::temp_dir().join(format!("avrokit-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("longs.avro");
        std::fs::File::create(&path)
            .unwrap()
            .write_all(&bytes)
            .unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let rows = |range: Option<std::ops::Range<u64>>| -> usize {
            MappedBatches::open(&file, ReaderBuilder::new(), range)
                .unwrap()
                .map(|b| b.unwrap().num_rows())
                .sum()
        };
        let from_slice: usize = ReaderBuilder::new()
            .build_slice(&bytes)
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .sum();
        assert_eq!(rows(None), 1000);
        assert_eq!(from_slice, 1000);
        let half = bytes.len() as u64 / 2;
        assert_eq!(
            rows(Some(0..half)) + rows(Some(half..bytes.len() as u64)),
            1000
        );

        let empty = dir.join("empty.avro");
        std::fs::File::create(&empty).unwrap();
        assert!(MappedBatches::open(
            &std::fs::File::open(&empty).unwrap(),
            ReaderBuilder::new(),
            None
        )
        .is_err());

        let cut = dir.join("cut.avro");
        std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
        let cut = std::fs::File::open(&cut).unwrap();
        let last = MappedBatches::open(&cut, ReaderBuilder::new(), None)
            .unwrap()
            .last()
            .unwrap();
        assert!(last.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
