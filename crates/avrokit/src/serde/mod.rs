//! serde straight to and from Avro binary, through plans compiled once.
//!
//! - Writing: compile a [`SerPlan`] from the schema once, then [`to_datum_vec`],
//!   [`to_datum_sink`], [`to_datum_writer`], or a reusable [`Serializer`] for many values. No
//!   [`Value`](crate::Value) is built on the way.
//! - Reading: compile a [`DePlan`] once (from one schema, or a writer × reader pair: schema
//!   resolution is included), then [`from_datum_slice`] (zero-copy: `&str`, `&[u8]` and
//!   `Cow<str>` borrow from the input), [`from_datum_reader`], or a reusable
//!   [`Deserializer`].
//! - [`AvroSchema`]: a type's schema, implemented for the standard types and by
//!   `#[derive(AvroSchema)]` (the `derive` feature).
//!
//! # Examples
//! ```
//! use avrokit::serde::{DePlan, SerPlan};
//! use avrokit::Schema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Reading<'a> { sensor: &'a str, values: Vec<f32>, note: Option<String> }
//!
//! let schema = Schema::parse_str(r#"{"type":"record","name":"Reading","fields":[
//!     {"name":"sensor","type":"string"},
//!     {"name":"values","type":{"type":"array","items":"float"}},
//!     {"name":"note","type":["null","string"],"default":null}]}"#)?;
//! let (ser, de) = (SerPlan::compile(&schema)?, DePlan::compile(&schema)?);
//!
//! let r = Reading { sensor: "t1", values: vec![0.5, 1.5], note: None };
//! let bytes = avrokit::serde::to_datum_vec(&r, &ser)?;
//! let back: Reading = avrokit::serde::from_datum_slice(&bytes, &de)?; // `sensor` borrows `bytes`
//! assert_eq!(back, r);
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # How Rust values map to Avro
//!
//! | Rust (serde data model) | Avro, when writing | Avro, when reading |
//! |---|---|---|
//! | `bool` | `boolean` | `boolean` |
//! | `i8`, `i16`, `i32`, `u8`, `u16` | `int`; also `long`, `float`, `double` | `int`, `long` (range-checked) |
//! | `i64`, `u32`, `u64` | `long`; `int` if the value fits; `float`, `double` | `long`, `int` |
//! | `f32`, `f64` | `float`, `double` (an `f64` written as `float` is rounded) | `float`, `double` |
//! | `char`, `&str`, `String` | `string`, `bytes`, `enum` (by symbol) | `string`, `enum` (the symbol) |
//! | `&[u8]` via `serde_bytes`, `ByteBuf` | `bytes`, `fixed` (of the same size), `string` (UTF-8) | `bytes`, `fixed`, `string` |
//! | `Vec<u8>`, `[u8; N]` (sequences of `u8`) | `bytes`, `fixed` (N = size), `array` of `int` | `bytes`, `fixed`, `array` |
//! | `Option<T>` | a union: `None` takes the `null` branch, `Some(v)` the branch `v`'s kind takes | a union with `null`, or `T`'s type |
//! | `()`, unit struct | `null` (or a record without fields) | `null` |
//! | newtype struct `struct M(T)` | as `T` | as `T` |
//! | struct | `record`, fields matched **by name** (any order; the Rust and Avro names of the struct need not match); `map` | `record`, `map` |
//! | tuple, tuple struct | `record` fields by position; `array`; `fixed` | `record` by position, `array` |
//! | `Vec<T>`, slices, sets | `array` | `array` |
//! | `HashMap`/`BTreeMap` with string (or integer) keys | `map`; `record` (keys name fields) | `map`, `record` |
//! | enum, unit variant | `enum` (symbol = variant name); in a union: the branch of that name, else an `enum` branch with that symbol | `enum`; a union branch named like the variant |
//! | enum, newtype variant `V(T)` | a union: the branch named `V`, else the branch `T`'s kind takes | the union branch named `V`, else by position |
//! | enum, struct or tuple variant `V {..}` | a union: the record branch named `V` | the union branch named `V`, else by position |
//! | `Option<Enum>` | a union with `null`: `None` is `null`, `Some(v)` as `v` | `null` is `None`; other branches by name, else by position among the non-`null` branches |
//! | dates and times (chrono, time), `uuid::Uuid` | their logical types: see below | see below |
//!
//! A union branch is chosen from tables built when the plan is compiled, never by trying to
//! encode: by the kind of the Rust value (`null` for `None`, the first of `int`, `long`,
//! `float`, `double` for an `i32`...), for a struct by the record branch of the struct's name,
//! else the only record branch, else the only one with as many fields; for an enum variant by
//! the branch of the variant's name (a named type's name, or a type name such as `long`,
//! ignoring ASCII case). Reading picks the Rust variant by the branch's name, else by its
//! position among the variants, so `enum E { A(i32), B(String) }` reads `["int","string"]`.
//!
//! # Logical types
//! A schema node with a logical type accepts, besides its underlying type (an `i64` for a
//! `timestamp-micros`, bytes for a `decimal`), the form common Rust types serialize to, and
//! hands that form back to the types that ask for it. So `uuid::Uuid`, chrono's and time's types
//! read and write the bytes Java does, with no attribute on the field:
//!
//! ```
//! # #[cfg(all(feature = "derive", feature = "uuid", feature = "chrono"))] {
//! use avrokit::serde::{from_datum_slice, to_datum_vec, DePlan, SerPlan};
//! use avrokit::{AvroSchema, Value};
//! use chrono::{DateTime, NaiveDate, Utc};
//!
//! #[derive(serde::Serialize, serde::Deserialize, AvroSchema, Debug, PartialEq)]
//! struct Event { id: uuid::Uuid, at: DateTime<Utc>, day: NaiveDate }
//!
//! let schema = Event::schema(); // uuid string, timestamp-micros long, date int
//! let e = Event {
//!     id: uuid::Uuid::nil(),
//!     at: DateTime::from_timestamp_micros(1_700_000_000_000_001).unwrap(),
//!     day: NaiveDate::from_ymd_opt(2024, 5, 1).unwrap(),
//! };
//! let bytes = to_datum_vec(&e, &SerPlan::compile(&schema)?)?;
//! assert_eq!(bytes, avrokit::to_datum_vec(&Value::Record(vec![
//!     Value::Uuid([0; 16]),
//!     Value::TimestampMicros(1_700_000_000_000_001),
//!     Value::Date(19_844),
//! ]), &schema)?);
//! assert_eq!(from_datum_slice::<Event>(&bytes, &DePlan::compile(&schema)?)?, e);
//! # }
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! | logical type | writes from | reads as |
//! |---|---|---|
//! | `date` | integer (days); text `2024-05-01` (chrono's `NaiveDate`); `(year, ordinal)` (time's `Date`) | integer, or the text / tuple when the type asks for a string / tuple |
//! | `time-millis`, `time-micros` | integer; text `12:30:00.25` (`NaiveTime`); `(h, m, s, ns)` (time's `Time`) | likewise |
//! | `timestamp-*` | integer; RFC 3339 text (`DateTime<Tz>`, converted to UTC; text without an offset is UTC); time's `OffsetDateTime` and `PrimitiveDateTime` tuples | integer; text ending in `Z`; tuples |
//! | `local-timestamp-*` | integer; text without offset (`NaiveDateTime`; an offset is ignored: the wall-clock time counts); tuples | integer; text; tuples |
//! | `uuid` on `string` | text (written as is); 16 bytes (`Uuid`, formatted as lower-case text) | text; 16 bytes when the type asks for bytes |
//! | `uuid` on `fixed(16)` | 16 bytes; text (parsed) | 16 bytes; text when the type asks for a string |
//! | `decimal` on `bytes` or `fixed` | the unscaled integer as two's-complement big-endian bytes (`serde_bytes`, `Vec<u8>`, `[u8; N]`), checked to have at most `precision` digits and sign-extended to the fixed's size; decimal text (`-123.45`, `1.5e3`: what `rust_decimal::Decimal` and `bigdecimal::BigDecimal` serialize to), rescaled to the schema's scale exactly, then checked likewise | those bytes (a fixed's, sign-extended) when the type asks for bytes or a sequence; otherwise (`deserialize_any`, `deserialize_str`: `rust_decimal`, `bigdecimal`, `String`) the exact text, with the schema's scale (`-123.45`; past 96 bits of unscaled value or a scale of 28, what `rust_decimal` holds, the exponent form `12345E-30`, which `bigdecimal` reads and `rust_decimal` refuses rather than rounds) |
//! | `big-decimal` on `bytes` | its payload as bytes; decimal text, written with the scale it has (`1.50` has scale 2) | the payload when the type asks for bytes; otherwise the exact text |
//!
//! Finer instants are rounded down to the schema's unit (as Java does), so a chrono value with
//! nanoseconds written as `timestamp-micros` reads back truncated. Decimals are never rounded:
//! a value with more digits after the point than the schema's scale (other than zeros), or
//! more digits in all than its precision, is an [`ErrorKind::Data`](crate::ErrorKind) error, as
//! is a `rust_decimal::Decimal` read from a decimal beyond its 96 bits. `duration` is written
//! as its underlying `fixed(12)`.
//! Which conversions a node takes is decided when the plan is compiled: a node without a
//! logical type pays nothing for them.
//!
//! # Performance
//! - **Record fields in order** (a Rust struct declaring its fields in the schema's order, the
//!   usual case and what `#[derive(AvroSchema)]` produces) cost one string comparison per
//!   field and are written straight to the sink.
//! - **Fields out of order** are found by binary search in a sorted name table built with the
//!   plan; a field that comes before its turn is encoded into a buffer from a pool the
//!   [`Serializer`] keeps (so it allocates only while warming up) and copied to the output when
//!   the fields before it are written: one extra copy of the early fields' bytes. A field the
//!   Rust value lacks is written from the schema's default, encoded once at plan time.
//! - **Arrays of `f32`, `f64`, `bool`**: the output is reserved once for the whole array, then
//!   each item is a bounds-free append. `bytes` (`serde_bytes`) are one length and one copy.
//! - **Reading** interprets the [`ResolvedPlan`](crate::ResolvedPlan)'s ops directly: records
//!   are handed to serde in writer order with the reader's field names (serde matches fields
//!   by name, so reordering costs nothing), writer-only fields are skipped (fixed-size ones in
//!   one jump), reader-only fields come from defaults converted once at plan time.
//!
//! # Error handling
//! Errors have the path of the value (`Order.items[3].price`) and, when reading, the byte
//! offset. A value that does not fit the schema is an [`ErrorKind::Data`](crate::ErrorKind)
//! error, never a panic.
//!
//! # Limitations
//! - Rust enums with data need an Avro union; serde's internally, adjacently tagged and
//!   untagged enums are written as what they serialize to (maps), which a record can take.
//! - `i128`/`u128` are not supported.
//! - Date and time text is what chrono writes (RFC 3339 with `T`, years beyond 9999 with a
//!   sign); other formats (RFC 2822, ISO week dates) are rejected.
//! - Arrays and maps of unknown length (iterators without an exact size) are buffered and
//!   written as one block.

mod de;
mod logical;
mod schema_of;
mod ser;

pub(crate) use de::deserialize_from;
pub use de::{from_datum_reader, from_datum_slice, DePlan, Deserializer};
pub use schema_of::AvroSchema;
pub use ser::{to_datum_sink, to_datum_vec, to_datum_writer, SerPlan, Serializer};

/// Support for code generated by `#[derive(AvroSchema)]`. Not public API: it may change in any
/// release.
#[doc(hidden)]
pub mod __private {
    pub use super::schema_of::{
        array_json, default_json, fixed_json, json_text, logical_default, map_json, optional_json,
        overlay_json, schema_from_json, serde_logical_default, to_json, with_logical, Names,
    };
    pub use serde_json::{json, Map, Value as Json};
}
