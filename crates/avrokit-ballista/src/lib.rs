//! avrokit's Avro tables on a [Ballista](https://datafusion.apache.org/ballista/) 55 cluster:
//! the same SQL as on one machine with avrokit-datafusion, planned by Ballista's scheduler and
//! run on its executors.
//!
//! Ballista sends a query's logical plan from the client to the scheduler, and each stage's
//! physical plan from the scheduler to the executors, through its extension codecs. This
//! crate's codecs carry avrokit's part of them:
//! - [`AvroLogicalCodec`]: an Avro table ([`AvroTable`]) as its locations, partition columns
//!   and [`AvroOptions`](avrokit_datafusion::AvroOptions); the scheduler lists the files and
//!   plans the scan, splits of large files included.
//! - [`AvroPhysicalCodec`]: a scan of Avro files as DataFusion's file-scan config (each file
//!   with its byte range, the projection, the limit) and the same options; a write
//!   (`INSERT INTO` an Avro table) as DataFusion's file-sink config and the options.
//!
//! Everything else they hand to Ballista's own codecs. What is not carried yet (`COPY`, a
//! Ballista 55 bug with sorted dictionary groups) is in the crate's README.
//!
//! - [`register_avro`]: an Avro table that can travel (plain DataFusion listing tables of
//!   avrokit's format cannot: DataFusion encodes those itself and knows only its own formats).
//! - [`remote_session`]: a client session of a cluster, with the codecs.
//! - [`with_avro_codecs`] / [`avro_codec`]: the codecs, for clients, schedulers and executors
//!   set up by other means.
//! - [`Cluster`]: a scheduler and executors in this process on 127.0.0.1.
//!
//! # Examples
//! ```no_run
//! # async fn f() -> datafusion::error::Result<()> {
//! use datafusion::prelude::SessionConfig;
//! let cluster = avrokit_ballista::Cluster::start(2, 2).await?;
//! let ctx = cluster.session(SessionConfig::new()).await?;
//! avrokit_ballista::register_avro(&ctx, "events", "data/events/").await?;
//! ctx.sql("SELECT kind, count(*) FROM events GROUP BY kind").await?.show().await?;
//! # Ok(()) }
//! ```

#![deny(missing_docs)]
#![deny(unsafe_code)]

mod cluster;
mod codec;
mod table;

pub use cluster::{avro_codec, remote_session, with_avro_codecs, Cluster, TaskRun};
pub use codec::{AvroLogicalCodec, AvroPhysicalCodec};
pub use table::{register_avro, register_avro_with, AvroTable, AvroTableFactory};
