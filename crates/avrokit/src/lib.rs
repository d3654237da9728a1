//! # avrokit: Apache Avro for Rust
//!
//! Data flows through the crate in this order:
//!
//! ```text
//!  schema JSON --parse--> Schema (arena of nodes, NodeId references)
//!  Source (slice | io::Read) --> Decoder --> Value
//!  Value --> Encoder --> Sink (Vec<u8> | buffered io::Write | direct io::Write)
//! ```
//!
//! - [`schema`]: parse, write back, canonical form, fingerprints; protocols ([`Protocol`]).
//! - [`Encoder`] / [`Decoder`]: the binary encoding, one call per value, like Java's
//!   `BinaryEncoder`/`BinaryDecoder`. Every front end is built on them.
//! - [`Value`]: generic values, encoded and decoded with a schema.
//! - [`serde`]: Rust types straight to and from the binary encoding through plans
//!   compiled once ([`serde::SerPlan`], [`serde::DePlan`]), zero-copy from slices, schema
//!   resolution included; [`AvroSchema`] (and `#[derive(AvroSchema)]`) for a type's schema.
//! - [`codec`]: generated codecs ([`AvroEncode`], [`AvroDecode`], emitted by
//!   `#[derive(AvroSchema)]` too): a type's fields written and read in schema order with no
//!   serde visitor, arrays of primitives in bulk, borrowing from slices.
//! - [`container`]: object container files ([`container::Reader`], [`container::Writer`]):
//!   codecs, appending, block copying, split reading; [`Value`]s or serde types.
//! - [`single_object`]: single-object encoding (`C3 01` + schema fingerprint + datum) and the
//!   Confluent schema-registry framing, for messages (Kafka, queues) of one datum each.
//!
//! # Example
//! ```
//! use avrokit::{Schema, Value};
//! let schema = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
//!     {"name":"x","type":"long"},{"name":"tag","type":["null","string"]}]}"#)?;
//! let value = Value::Record(vec![
//!     Value::Long(-3),
//!     Value::Union(1, Box::new(Value::String("hi".into()))),
//! ]);
//! let bytes = avrokit::to_datum_vec(&value, &schema)?;
//! assert_eq!(bytes, [0x05, 0x02, 0x04, b'h', b'i']);
//! assert_eq!(avrokit::from_datum_slice(&bytes, &schema)?, value);
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # Safety and limits
//! Decoding never trusts a length or count read from the data: it is checked against the bytes
//! left and against [`Limits`] before anything is allocated, and nesting depth is bounded.
//! Bad input gives an [`Error`] with its byte offset, never a panic.
//!
//! # Cargo features
//! All on by default; each enables one container file codec (`null` is always there). A file
//! whose codec is disabled fails to open with a clear error.
//! - `deflate`: libdeflate (whole-block compression and decompression, C, built from source).
//! - `snappy`: snap (pure Rust), with crc32fast for the block checksums.
//! - `zstandard`: the zstd C library, compiled from source (needs a C compiler).
//! - `bzip2`: libbz2-rs-sys (pure Rust).
//! - `xz`: liblzma, compiled from source and linked statically (needs a C compiler).
//!
//! Off by default:
//! - `derive`: `#[derive(AvroSchema)]` (the `avrokit-derive` proc-macro crate: syn, quote).
//! - `uuid`, `chrono`, `time`: `AvroSchema` for `uuid::Uuid` and the date and time types of
//!   chrono and time (their serde forms need no feature: see the `serde` module).
//! - `rust_decimal`, `bigdecimal`: `AvroSchema` for `rust_decimal::Decimal` and
//!   `bigdecimal::BigDecimal`, and conversions between them and [`value::Decimal`] (their
//!   serde form, decimal text, needs no feature).
//! - `tokio`: `container::AsyncReader` and `container::AsyncWriter` over tokio's `AsyncRead` /
//!   `AsyncWrite`, records as a `futures::Stream` (tokio with `io-util` and `rt`, futures).
#![deny(missing_docs)]
#![deny(unsafe_code)]

pub mod codec;
pub mod container;
pub mod decode;
pub mod encode;
mod error;
pub mod io;
pub mod json;
mod logical;
pub mod resolution;
pub mod schema;
pub mod serde;
pub mod single_object;
pub mod value;

#[doc(hidden)]
pub use crate::codec::__private as __codec;
#[doc(inline)]
pub use crate::codec::{AvroDecode, AvroEncode};
#[doc(inline)]
pub use crate::decode::Decoder;
#[doc(inline)]
pub use crate::encode::Encoder;
#[doc(inline)]
pub use crate::error::{Error, ErrorKind, Result};
#[doc(inline)]
pub use crate::io::Limits;
#[doc(inline)]
pub use crate::resolution::{check_compatibility, ResolvedPlan, ResolvingDecoder};
#[doc(inline)]
pub use crate::schema::{Protocol, Schema};
#[doc(hidden)]
pub use crate::serde::__private;
#[doc(inline)]
pub use crate::serde::AvroSchema;
#[doc(inline)]
pub use crate::value::{from_datum_slice, to_datum_vec, Value};
/// `#[derive(AvroSchema)]`: the schema of a struct or enum (the `derive` feature).
#[cfg(feature = "derive")]
pub use avrokit_derive::AvroSchema;

/// The README's Rust examples, run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
