//! Generated codecs: Rust types written and read straight through the [`Encoder`] and
//! [`Decoder`], as Java's `SpecificRecord` and prost's messages are.
//!
//! [`AvroEncode`] and [`AvroDecode`] are implemented for the standard types (below) and by
//! `#[derive(AvroSchema)]` (the `derive` feature) for structs and enums: the derive writes the
//! reads and writes of the type's own schema field by field, in schema order, with nothing
//! looked up, matched by name or dispatched per field. A type's codec reads and writes exactly
//! what [`AvroSchema::schema`] describes, the bytes the serde front end and the [`Value`]
//! encoder write for it.
//!
//! - Writing: [`to_datum_vec`], [`to_datum_sink`], or `value.encode(&mut encoder)`.
//! - Reading data of the type's own schema: [`from_datum_slice`] (zero-copy: `&str`, `&[u8]`
//!   and `Cow` fields borrow from the input), [`from_datum_reader`], `T::decode(&mut decoder)`,
//!   and `value.decode_into(&mut decoder)`, which overwrites a value in place and reuses the
//!   capacity of its strings, vectors and maps (Java's `read(reuse, decoder)`, prost's
//!   `merge`).
//! - Reading data written with another schema: a [`CodecPlan`] compiled once from the writer
//!   schema decides, once, how the generated code reads it: straight through when the writer
//!   schema has the type's Parsing Canonical Form, else through a resolution plan compiled then
//!   (promotions, defaults, reordered and skipped fields, enum symbols and union branches
//!   remapped), which drives the same per-field code: each record walks the writer's fields in
//!   the plan's order and reads each with its field type's code, as Java's `SpecificRecord`
//!   reads through a `ResolvingDecoder`. [`CodecPlan::decode_into`] reads over a reused value
//!   on both paths: a resolved record overwrites each field in place, defaults included, so
//!   reading old files into reused records allocates no more than reading current ones. Only a
//!   type without a generated codec goes through the serde front end. The container reader and
//!   writer take codec types through it
//!   ([`Reader::codec_iter`](crate::container::Reader::codec_iter),
//!   [`Reader::next_codec_into`](crate::container::Reader::next_codec_into),
//!   [`Writer::append_codec`](crate::container::Writer::append_codec)).
//!
//! # Examples
//! ```
//! # #[cfg(feature = "derive")] {
//! use avrokit::codec::{from_datum_slice, to_datum_vec};
//! use avrokit::AvroSchema;
//!
//! #[derive(AvroSchema, Debug, PartialEq)]
//! struct Reading<'a> { sensor: &'a str, values: Vec<f32>, note: Option<String> }
//!
//! let r = Reading { sensor: "t1", values: vec![0.5, 1.5], note: None };
//! let bytes = to_datum_vec(&r)?;
//! let back: Reading = from_datum_slice(&bytes)?; // `sensor` borrows `bytes`
//! assert_eq!(back, r);
//! # }
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # How Rust types map to Avro
//! As [`AvroSchema`]'s table says: `bool`; `i8`, `i16`, `i32`, `u8`, `u16` as `int` and `i64`,
//! `u32` as `long` (reads check the range); `f32`, `f64`; `String`, `&str`, `Cow<str>`, `char`
//! as `string`; `()` as `null`; `Option<T>` as `["null", T]`; `Vec<T>`, `[T]`, `VecDeque<T>`
//! as `array`; `HashMap`/`BTreeMap<String, V>` as `map`; `[u8; N]` as a `fixed` of N bytes;
//! `Box<T>` as `T`. The derive writes `Vec<u8>`, `&[u8]`, `Cow<[u8]>` and
//! `#[serde(with = "serde_bytes")]` fields as `bytes` (see [`__private`]).
//!
//! # Performance
//! - Records are their fields' calls in order; an enum is a jump table on its index.
//! - Arrays of `f32`, `f64` and `bool` move in bulk: written as little-endian runs through
//!   [`Sink::write_items`](crate::io::Sink) (one copy into a `Vec<u8>`), read as one checked
//!   take of the block's bytes per block (AVRO-1277). Arrays of `i32`/`i64` reserve once per
//!   block and read the varints in a tight loop.
//! - Borrowed fields cost no copy from a slice; `decode_into` reuses allocations.
//! - Through a resolution, a record costs one step of the plan per writer field (a match on
//!   the reader position), and reader-only fields are read from their defaults, encoded once
//!   per plan; arrays of `f32`/`f64`/`bool` whose items are not promoted still move in bulk.
//!
//! # Error handling and limits
//! Decoding goes through the [`Decoder`]'s checked reads and its collection-block skeleton:
//! every length and count is checked against the bytes left and [`Limits`](crate::Limits)
//! before anything is reserved, and nesting (arrays, maps, `Box`) is bounded by
//! [`Limits::max_depth`](crate::Limits). A bad union or enum index, invalid UTF-8 or an
//! out-of-range integer is an [`ErrorKind::Data`](crate::ErrorKind) error with its offset and
//! the path of the field (`Rec.items[3].name`), never a panic.
//!
//! # Limitations
//! - The derive writes no working codec for a type with a field of a date/time or uuid type,
//!   a set, `serde_bytes::ByteBuf`, a map with non-`String` keys, a `decimal` field (writers
//!   must check its precision), an `#[avro(schema = "...")]` that reorders a union the field's
//!   type encodes itself, or `#[avro(no_codec)]` (for a field type that implements
//!   [`AvroSchema`] by hand but no codec). Its impls still exist, so types containing it
//!   compile, but their calls return an [`ErrorKind::Schema`](crate::ErrorKind) error saying
//!   why, and `HAS_CODEC` is false: a [`CodecPlan`] then reads through serde. A type holding
//!   such a type directly or in an `Option` inherits the flag; behind a `Vec`, `Box` or map
//!   (where a recursive type's own flag would depend on itself) it does not, and its calls
//!   fail with that error when they reach the field.
//! - Writing checks nothing against a schema: the type is its schema. `u64` values beyond
//!   `i64::MAX` are an error.
//! - A reader-only field (one the writer lacks) of a borrowed type (`&str`, `&[u8]`) cannot
//!   take its default, which does not live in the input: reading such data is an error that
//!   says so. Owned and `Cow` fields take it.

mod impls;
mod items;
mod plan;
mod resolve;

#[doc(hidden)]
pub mod __private;

pub use plan::CodecPlan;
#[doc(hidden)]
pub use resolve::{RecordSteps, Resolver};

use std::io::Read;

use crate::decode::Decoder;
use crate::encode::Encoder;
use crate::error::Result;
use crate::io::{Sink, Source};

#[cfg(doc)]
use crate::serde::AvroSchema;
#[cfg(doc)]
use crate::value::Value;

/// A type that writes itself in Avro's binary encoding, with the schema of its
/// [`AvroSchema`].
///
/// Implemented for the standard types and by `#[derive(AvroSchema)]`; see the
/// [module docs](self).
pub trait AvroEncode {
    /// Writes `self` to `enc`.
    ///
    /// # Errors
    /// When the sink fails, or when the value cannot be written (a skipped enum variant).
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()>;

    /// Writes `self` as a branch of a union of which its own union's branches are the
    /// branches from `shift` on (`Option<T>` of a `T` whose schema is a union: `["null", ...T's
    /// branches]`). For a type whose schema is not a union: the index `shift`, then the value.
    /// Not public API.
    ///
    /// # Errors
    /// As [`AvroEncode::encode`].
    #[doc(hidden)]
    #[inline]
    fn encode_branch<S: Sink>(&self, enc: &mut Encoder<S>, shift: u32) -> Result<()> {
        enc.write_union_index(shift)?;
        self.encode(enc)
    }

    /// Writes the items of an array of `Self` (each after [`Encoder::start_item`]). Overridden
    /// for the types whose arrays move in bulk. Not public API.
    ///
    /// # Errors
    /// As [`AvroEncode::encode`].
    #[doc(hidden)]
    #[inline]
    fn encode_items<S: Sink>(items: &[Self], enc: &mut Encoder<S>) -> Result<()>
    where
        Self: Sized,
    {
        for item in items {
            enc.start_item()?;
            item.encode(enc)?;
        }
        Ok(())
    }
}

/// A type that reads itself from Avro's binary encoding of its own schema, borrowing from input
/// that lives for `'de` where it can (like serde's `Deserialize<'de>`).
///
/// Implemented for the standard types and by `#[derive(AvroSchema)]`; see the
/// [module docs](self).
pub trait AvroDecode<'de>: Sized {
    /// True when every value of the type encodes to no bytes (`()`, records of such fields):
    /// collections of them are bounded by the decoder's budget for such items instead of by
    /// the bytes left. Not public API.
    #[doc(hidden)]
    const ZERO_SIZE: bool = false;

    /// False for a derived type whose codec only reports that it has none (a field of a type
    /// without a codec, `#[avro(no_codec)]`): a [`CodecPlan`] then reads through serde. Not
    /// public API.
    #[doc(hidden)]
    const HAS_CODEC: bool = true;

    /// True when the type's codec also reads data of another writer schema, through
    /// [`AvroDecode::decode_resolved`] (every implementation here and every derived type with a
    /// codec): a [`CodecPlan`] then resolves through the generated code instead of serde. Not
    /// public API.
    #[doc(hidden)]
    const RESOLVES: bool = false;

    /// For a type whose schema is a union (a derived enum with data): its number of branches;
    /// 0 for any other type. `Option<T>` of such a type is the union `["null", ...]` of all of
    /// them. Not public API.
    #[doc(hidden)]
    const BRANCHES: u32 = 0;

    /// For a union type ([`BRANCHES`](AvroDecode::BRANCHES) > 0): reads the value of branch
    /// `index`, whose index (read at `at`) is already consumed. Not public API.
    ///
    /// # Errors
    /// As [`AvroDecode::decode`], and an index beyond the branches.
    #[doc(hidden)]
    #[inline]
    fn decode_branch<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        index: u32,
        at: u64,
    ) -> Result<Self> {
        let _ = (index, at);
        Self::decode(dec)
    }

    /// As [`decode_branch`](AvroDecode::decode_branch), for data of another writer schema:
    /// reader branch `index`, read by op `op` of `rs`. Not public API.
    ///
    /// # Errors
    /// As [`AvroDecode::decode_resolved`].
    #[doc(hidden)]
    #[inline]
    fn decode_resolved_branch<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        index: u32,
        op: u32,
    ) -> Result<Self> {
        let _ = index;
        Self::decode_resolved(dec, rs, op)
    }

    /// Reads one value.
    ///
    /// # Errors
    /// End of input, data that is not valid for the schema, a limit exceeded, or a borrowed
    /// field read from a source that cannot lend (a reader).
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Self>;

    /// Reads one value written with another schema, as op `op` of the resolution `rs` says
    /// (promotions, skipped and defaulted fields, remapped symbols and branches). Not public
    /// API: the generated code and [`CodecPlan`] call it.
    ///
    /// # Errors
    /// As [`AvroDecode::decode`], and [`ErrorKind::Resolution`](crate::ErrorKind) for a datum
    /// the type cannot hold (a writer symbol or branch it lacks).
    #[doc(hidden)]
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<Self> {
        let _ = (dec, rs, op);
        Err(resolve::no_resolving(std::any::type_name::<Self>()))
    }

    /// Reads the items of an array written with another schema (items op `item`), appending to
    /// `out` (empty). Overridden for bulk types. Not public API.
    ///
    /// # Errors
    /// As [`AvroDecode::decode_resolved`], with the index of the failing item.
    #[doc(hidden)]
    #[inline]
    fn decode_items_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        item: u32,
        zero_size_mem: Option<usize>,
        out: &mut Vec<Self>,
    ) -> Result<()> {
        dec.read_array(
            || zero_size_mem,
            out,
            |d| Self::decode_resolved(d, rs, item),
        )
    }

    /// As [`decode_resolved`](AvroDecode::decode_resolved), over `self`, reusing its
    /// allocations where it can (strings, vectors, nested records). Not public API: the
    /// generated code and [`CodecPlan::decode_into`] call it.
    ///
    /// # Errors
    /// As [`AvroDecode::decode_resolved`]; `self` then holds a valid value, partly overwritten.
    #[doc(hidden)]
    #[inline]
    fn decode_resolved_into<S: Source<'de>>(
        &mut self,
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<()> {
        *self = Self::decode_resolved(dec, rs, op)?;
        Ok(())
    }

    /// As [`decode_items_resolved`](AvroDecode::decode_items_resolved), over the items of
    /// `out`, reusing them. Overridden for bulk types. Not public API.
    ///
    /// # Errors
    /// As [`AvroDecode::decode_items_resolved`].
    #[doc(hidden)]
    #[inline]
    fn decode_items_resolved_into<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        item: u32,
        zero_size_mem: Option<usize>,
        out: &mut Vec<Self>,
    ) -> Result<()> {
        dec.read_array_into(
            || zero_size_mem,
            out,
            |d, v| v.decode_resolved_into(d, rs, item),
            |d| Self::decode_resolved(d, rs, item),
        )
    }

    /// Reads one value over `self`, reusing its allocations where it can.
    ///
    /// # Errors
    /// As [`AvroDecode::decode`]; `self` then holds a valid value, partly overwritten.
    #[inline]
    fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        *self = Self::decode(dec)?;
        Ok(())
    }

    /// Reads an array of `Self`, appending to `out` (empty). Overridden for bulk types. Not
    /// public API.
    ///
    /// # Errors
    /// As [`AvroDecode::decode`], with the index of the failing item.
    #[doc(hidden)]
    #[inline]
    fn decode_items<S: Source<'de>>(dec: &mut Decoder<'de, S>, out: &mut Vec<Self>) -> Result<()> {
        dec.read_array(items::zero_size_mem::<Self>, out, Self::decode)
    }

    /// Reads an array of `Self` over the items of `out`, reusing them. Not public API.
    ///
    /// # Errors
    /// As [`AvroDecode::decode_items`].
    #[doc(hidden)]
    #[inline]
    fn decode_items_into<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        out: &mut Vec<Self>,
    ) -> Result<()> {
        dec.read_array_into(
            items::zero_size_mem::<Self>,
            out,
            |d, v| v.decode_into(d),
            Self::decode,
        )
    }
}

/// A type that decodes without borrowing from the input (`for<'de> AvroDecode<'de>`), like
/// serde's `DeserializeOwned`.
pub trait AvroDecodeOwned: for<'de> AvroDecode<'de> {}

impl<T: for<'de> AvroDecode<'de>> AvroDecodeOwned for T {}

/// Encodes `value` into a new `Vec<u8>`.
///
/// # Errors
/// As [`AvroEncode::encode`].
#[inline]
pub fn to_datum_vec<T: AvroEncode + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    value.encode(&mut Encoder::new(&mut out))?;
    Ok(out)
}

/// Encodes `value` into `sink` (a `Vec<u8>` is appended to).
///
/// # Errors
/// As [`AvroEncode::encode`].
#[inline]
pub fn to_datum_sink<T: AvroEncode + ?Sized, S: Sink>(value: &T, sink: S) -> Result<()> {
    value.encode(&mut Encoder::new(sink))
}

/// Decodes one `T` from `data`, which it must fill exactly; `&str`, `&[u8]` and `Cow` fields
/// borrow from it.
///
/// # Errors
/// As [`AvroDecode::decode`], and bytes left over after the datum.
#[inline]
pub fn from_datum_slice<'de, T: AvroDecode<'de>>(data: &'de [u8]) -> Result<T> {
    let mut dec = Decoder::from_slice(data);
    let v = decode_top(&mut dec)?;
    dec.expect_end()?;
    Ok(v)
}

/// Decodes one `T` from `reader` (buffered by the decoder; strings and bytes are copied).
///
/// # Errors
/// As [`AvroDecode::decode`], and a borrowed field (`&str`), which a reader cannot lend.
pub fn from_datum_reader<T: AvroDecodeOwned, R: Read>(reader: R) -> Result<T> {
    decode_top(&mut Decoder::from_reader(reader))
}

/// Decodes one top-level datum: one nesting level, so the whole value shares one budget for
/// items that take no bytes.
#[inline]
pub(crate) fn decode_top<'de, T: AvroDecode<'de>, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
) -> Result<T> {
    dec.enter()?;
    let v = T::decode(dec)?;
    dec.leave();
    Ok(v)
}
