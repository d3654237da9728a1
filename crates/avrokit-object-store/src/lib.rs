//! Avro object container files in object stores (S3, GCS, Azure, HTTP, local files, memory),
//! through the [`object_store`] crate (0.13, the release DataFusion 55 builds on, so a store
//! registered with a DataFusion session is the same type here).
//!
//! # Architecture
//! Nothing here parses Avro: the core's sans-IO parts do, over bytes fetched with ranged GETs.
//! - [`ObjectReaderBuilder::open`] HEADs the object (size, ETag) and GETs its header, parsed
//!   once by the core's `HeaderDecoder`, into an [`AvroObject`].
//! - [`AvroObject::reader`] and [`AvroObject::split_reader`] return the core's
//!   [`AsyncReader`](avrokit::container::AsyncReader) (`next`, `into_stream`,
//!   `into_serde_stream`) over a [`RangeReader`]: an `AsyncRead` of GETs whose bodies are
//!   streamed into the decoder as they arrive, a bounded number of bytes ahead of it (one GET
//!   for a whole file or split, by default). A split's first block is found by
//!   the core's sans-IO `SplitSeeker` with a few GETs around its start, so N workers reading
//!   [`AvroObject::splits`]`(N)` see every record exactly once.
//! - [`ObjectReaderBuilder::open_reader`] reads a whole file with a HEAD and one streamed
//!   GET, its header parsed from the same stream.
//! - [`ObjectWriter`] runs the core's blocking `Writer` into a multipart upload: the object
//!   appears whole at `finish`, and a failure aborts the upload.
//! - [`blocking`]: `Read + Seek` and `Write` adapters for synchronous code (the CLI), and with
//!   the `arrow` feature, avrokit-arrow's RecordBatches from remote files and splits
//!   (`AvroObject::batches`, `AvroObject::blocking_batches`).
//!
//! # Example
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use avrokit::container::WriterBuilder;
//! use avrokit::{Schema, Value};
//! use avrokit_object_store::{ObjectReaderBuilder, ObjectWriter, UploadOptions};
//! use futures::TryStreamExt;
//! use object_store::{memory::InMemory, path::Path, ObjectStore};
//!
//! let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new()); // or AmazonS3Builder::from_env()...
//! let path = Path::from("events.avro");
//! let schema = Schema::parse_str(r#""string""#)?;
//! let mut w = ObjectWriter::create(store.clone(), &path, WriterBuilder::new(&schema), UploadOptions::new()).await?;
//! w.append(&Value::String("hello".into())).await?;
//! w.finish().await?;
//!
//! let file = ObjectReaderBuilder::new().open(store, &path).await?;
//! let records: Vec<Value> = file.reader().await?.into_stream().try_collect().await?;
//! assert_eq!(records, [Value::String("hello".into())]);
//! # Ok(())
//! # }
//! ```
//!
//! # Memory, time and errors
//! - A reader holds at most `(read_ahead + 1) × buffer size` of fetched bytes (default 8 MiB
//!   when one GET covers the read, at most 3 × 8 MiB otherwise) plus the block being decoded
//!   (bounded by the core's `Limits`); a writer about `(max_concurrency + 1) × part size`
//!   (default 5 × 8 MiB).
//! - Every request has a timeout (default 30 s, [`ObjectReaderBuilder::with_timeout`],
//!   [`UploadOptions::with_timeout`]) around the store's own retries, and so does each piece
//!   of a streamed body while the reader waits for it, so a store that stops answering is an
//!   [`ErrorKind::Timeout`] error, never a hang. A body that breaks after some bytes came is
//!   asked for again from where it broke (pinned to the same version).
//! - A GET that returns fewer bytes than asked, or an object that changed since it was opened
//!   (reads are pinned to its ETag), is an error; a file cut short reads as the core reads
//!   one: the records of its whole blocks, then an `Eof` error with the offset. Errors name
//!   the object and the byte range or offset.
//!
//! # Features
//! - `aws`, `gcp`, `azure`, `http` (default): object_store's stores of those names.
//! - `arrow`: RecordBatches through avrokit-arrow.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod blocking;
#[cfg(feature = "arrow")]
mod columnar;
mod error;
mod read;
mod source;
mod store_url;
mod upload;
mod write;

pub use error::{Error, ErrorKind, Result};
pub use object_store;
pub use read::{
    split_ranges, AvroObject, ObjectReaderBuilder, DEFAULT_BUFFER_SIZE, DEFAULT_CHUNK_SIZE,
    DEFAULT_READ_AHEAD, DEFAULT_TIMEOUT,
};
pub use source::RangeReader;
pub use store_url::{is_url, store_from_url};
pub use upload::{UploadOptions, DEFAULT_MAX_CONCURRENCY, DEFAULT_PART_SIZE};
pub use write::ObjectWriter;
