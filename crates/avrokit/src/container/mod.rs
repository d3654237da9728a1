//! Avro object container files: a header (magic, metadata with the schema and codec, a sync
//! marker) followed by blocks of records, each compressed by the codec and ended by the marker.
//!
//! - [`Writer`] / [`WriterBuilder`]: encode records into blocks, compress them, write them;
//!   append to an existing file; copy raw blocks between files (`concat`).
//!   [`WriterTemplate`]: a header prepared once for many files.
//! - [`Reader`] / [`ReaderBuilder`]: read the header, iterate records as [`Value`]s (or through
//!   any decoder with [`Reader::next_with`]), iterate raw blocks, read one byte range of a file
//!   (Hadoop/Spark splits). [`SchemaCache`]: header schemas parsed once for many files.
//! - [`Codec`]: `null`, `deflate`, `snappy`, `zstandard`, `bzip2`, `xz`, each but `null` behind
//!   the cargo feature of the same name.
//! - [`framing`]: the sans-IO header and block parsers that the reader is built on, for
//!   callers with their own I/O (async streams, network buffers); [`SplitSeeker`]: a split's
//!   first block found sans-IO, for readers that fetch byte ranges.
//! - With the `tokio` feature, `AsyncReader` and `AsyncWriter`: the same over tokio's
//!   `AsyncRead` / `AsyncWrite`, records as a `futures::Stream` (what runs where is on
//!   `AsyncReader`).
//!
//! # Examples
//! ```
//! use avrokit::container::{Codec, Reader, WriterBuilder};
//! use avrokit::{Schema, Value};
//!
//! let schema = Schema::parse_str(r#"{"type":"record","name":"Event","fields":[
//!     {"name":"id","type":"long"},{"name":"tag","type":["null","string"]}]}"#)?;
//! let mut writer = WriterBuilder::new(&schema)
//!     .with_codec(Codec::Snappy)
//!     .with_metadata("origin", "doc example")
//!     .build(Vec::new())?;
//! for id in 0..100 {
//!     writer.append(&Value::Record(vec![
//!         Value::Long(id),
//!         Value::Union(1, Box::new(Value::String(format!("e{id}")))),
//!     ]))?;
//! }
//! let file = writer.into_inner()?;
//!
//! let reader = Reader::from_slice(&file)?;
//! assert_eq!(reader.metadata_value("origin"), Some(&b"doc example"[..]));
//! let mut n = 0;
//! for record in reader {
//!     let record = record?;
//!     assert_eq!(record.field(&schema, "id"), Some(&Value::Long(n)));
//!     n += 1;
//! }
//! assert_eq!(n, 100);
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # Error handling
//! A corrupt file gives an [`Error`](crate::Error) naming the block and its byte offset, never a
//! panic: bad magic, truncated header or block ([`ErrorKind::Eof`](crate::ErrorKind::Eof)), a
//! sync marker that does not match, negative counts or sizes, unknown codecs
//! ([`ErrorKind::Container`](crate::ErrorKind::Container)), corrupt compressed data or a snappy
//! checksum mismatch ([`ErrorKind::Codec`](crate::ErrorKind::Codec)), and blocks whose records
//! do not use exactly the block's bytes ([`ErrorKind::Data`](crate::ErrorKind::Data)).
//!
//! # Limits
//! The reader's [`Limits::max_alloc`](crate::Limits::max_alloc) bounds every header entry, every
//! block's stored size (checked before anything is allocated for it) and every block's
//! decompressed size (decompression stops there: a decompression bomb is an
//! [`ErrorKind::Limit`](crate::ErrorKind::Limit) error). A block's object count is checked
//! against its bytes (every record takes at least the schema's minimum encoded size); records
//! that encode to no bytes at all are capped at `max_alloc` per block.
//!
//! # Performance
//! Records are decoded from the block in place: over a slice with the `null` codec, straight
//! from the input; otherwise from one decompression buffer reused for every block. The writer
//! encodes into one reused block buffer and hands the sink one whole block per `write_all`.
//!
//! Many small files: a file's fixed costs are its header's schema, rendered as JSON by the
//! writer and parsed back by the reader, which for a file of a few records cost more than the
//! records. [`WriterBuilder::template`] renders the header once for any number of files, and a
//! reader given a [`SchemaCache`] ([`ReaderBuilder::with_schema_cache`]) parses each distinct
//! header schema text once. A writer's buffer starts small and grows with its block; a stream
//! reader's input buffer starts at 8 KiB and grows to its capacity only while reads fill it.

pub mod framing;

mod codec;
#[cfg(feature = "tokio")]
mod nonblocking;
mod reader;
mod split_seek;
#[cfg(test)]
mod tests;
mod typed;
mod write_pool;
mod writer;

pub use codec::{Codec, Compressor};
pub use framing::{BlockHeader, Header};
#[cfg(feature = "tokio")]
pub use nonblocking::{AsyncReader, AsyncWriter, DEFAULT_OFFLOAD_THRESHOLD};
pub use reader::{
    Block, BlockRecords, BlockRecordsInto, DatumReader, ParBatches, ParBlocks, ParRecords,
    RawBlock, Reader, ReaderBuilder, SchemaCache,
};
pub use split_seek::{SeekStep, SplitSeeker};
pub use writer::{Writer, WriterBuilder, WriterTemplate};

use crate::Schema;
#[cfg(doc)]
use crate::Value;

/// Remembers a schema of another arena found equal to a file's, so that checking a plan's
/// schema against the file costs a pointer compare per datum, and the canonical forms are
/// compared once per schema (readers' `next_serde`, writers' `append_serde`).
#[derive(Default)]
pub(crate) struct SchemaMatch {
    matched: Option<Schema>,
}

impl SchemaMatch {
    /// True when `schema` is `file`: the same node of the same arena, or an equal Parsing
    /// Canonical Form (computed on the first sight of that schema only).
    #[inline]
    pub(crate) fn is(&mut self, file: &Schema, schema: &Schema) -> bool {
        let same = |a: &Schema, b: &Schema| a.same_arena(b) && a.root_id() == b.root_id();
        same(schema, file) || self.matched.as_ref().is_some_and(|m| same(schema, m)) || {
            self.slow(file, schema)
        }
    }

    #[cold]
    fn slow(&mut self, file: &Schema, schema: &Schema) -> bool {
        let equal = schema.canonical_form() == file.canonical_form();
        if equal {
            self.matched = Some(schema.clone());
        }
        equal
    }
}
