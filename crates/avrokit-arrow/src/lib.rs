//! # avrokit-arrow: Avro straight into Arrow RecordBatches, and back
//!
//! - [`ReaderBuilder`] / [`Reader`]: container files to RecordBatches, with a reader schema
//!   (schema resolution comes from avrokit's plans), projection by column path, a batch size,
//!   blocks decoded on several threads, one byte-range split; [`DatumDecoder`] for bare datums
//!   and single-object or Confluent messages.
//! - The column decoders are compiled once per (writer, reader) pair and write into Arrow
//!   buffers directly: no `Value`, no allocation per row.
//! - The type mapping follows arrow-avro's (see the README's table).
//!
//! Bad input gives an [`Error`] with the block, record, byte offset and column path: never a
//! panic. Lengths and counts are checked against the bytes left and [`avrokit::Limits`].
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod decode;
mod encode;
mod error;
mod mapping;
mod projection;
mod reader;

pub use decode::VALUE_COLUMN;
pub use encode::{avro_schema_for, derive_avro_schema, BatchEncoder, Writer, ROOT_RECORD_NAME};
pub use error::{Error, ErrorKind, Result};
pub use mapping::{AVRO_SCHEMA_KEY, UTC};
pub use reader::{DatumDecoder, Reader, ReaderBuilder, DEFAULT_BATCH_SIZE};
