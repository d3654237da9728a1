//! Avro tables for [DataFusion](https://datafusion.apache.org/) 55, read and written by
//! avrokit: SQL over Avro container files on local disks and in object stores.
//!
//! - [`AvroFormat`]: DataFusion's `FileFormat` for Avro, on avrokit-arrow's columnar decoder.
//!   Files with different writer schemas are read as one reader schema (schema resolution);
//!   a large file is split into byte ranges by the sync-marker rule, so it spreads over every
//!   target partition; only the projected columns are decoded; the statistics carry row
//!   counts from the block headers; `COPY` and `INSERT INTO` write with any codec.
//! - [`register_avro`]: a table from a file, directory, glob or object-store URL, in one call.
//! - [`avro_session`] / [`register_format`]: `CREATE EXTERNAL TABLE ... STORED AS AVRO` and
//!   `COPY ... STORED AS AVRO` routed to avrokit; `s3://`, `gs://`, `az://` and `http(s)://`
//!   stores made from the environment.
//!
//! The crate's README maps Avro types to Arrow types (avrokit-arrow's mapping) and says what
//! differs from DataFusion's built-in Avro format.
//!
//! # Examples
//! ```no_run
//! # async fn f() -> datafusion::error::Result<()> {
//! let ctx = avrokit_datafusion::avro_session(Default::default())?;
//! avrokit_datafusion::register_avro(&ctx, "events", "data/events/").await?;
//! let df = ctx.sql("SELECT kind, count(*) AS n FROM events GROUP BY kind").await?;
//! df.show().await?;
//! ctx.sql("COPY (SELECT * FROM events WHERE n > 3) TO 'big.avro' STORED AS AVRO OPTIONS ('codec' 'zstd')")
//!     .await?
//!     .collect()
//!     .await?;
//! # Ok(()) }
//! ```

#![deny(unsafe_code)]

mod error;
mod format;
mod mapped;
mod options;
mod schema;
mod session;
mod sink;
mod source;
mod stats;

pub use error::FileError;
pub use format::{AvroFormat, AvroFormatFactory, AVRO_EXTENSION};
pub use options::AvroOptions;
pub use session::{
    avro_listing_table, avro_session, register_avro, register_avro_with, register_format,
    UrlStoreRegistry,
};
pub use sink::AvroSink;
pub use source::AvroSource;
