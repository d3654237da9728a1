//! avrokit's generated codecs (`avrokit::codec`, from `#[derive(AvroSchema)]`) as rows of the
//! typed tests: the same derived structs and `Vec`s the serde rows use, written with
//! `AvroEncode::encode` and read with `AvroDecode::decode`, one datum at a time, as Java's
//! SpecificRecord datum writer and reader do. A row is only built when the type's own schema
//! has the test schema's Parsing Canonical Form (checked once, at init): the code the derive
//! generates is for that schema.

use std::hint::black_box;
use std::rc::Rc;

use avrokit::codec::{AvroDecodeOwned, CodecPlan};
use avrokit::io::{BlockingSink, Sink};
use avrokit::{AvroEncode, AvroSchema, Decoder, Encoder};
use serde::de::DeserializeOwned;

use super::schema::parse;
use crate::adapters::workload::ReaderLife;
use crate::harness::{check_consumed, reader, writer, Impl, Library, ReadFn, Side, WriteFn};

/// What a type needs for the codec rows: its schema and both halves of its codec.
pub trait Codec: AvroSchema + AvroEncode + AvroDecodeOwned {}

impl<T: AvroSchema + AvroEncode + AvroDecodeOwned> Codec for T {}

/// Checks that `T`'s derived schema is the test's.
fn same_schema<T: AvroSchema>(schema: &str) -> Result<(), String> {
    let test = parse(schema)?.canonical_form();
    let own = T::schema().canonical_form();
    if test == own {
        Ok(())
    } else {
        Err(format!("the type's schema {own} is not the test's {test}"))
    }
}

/// Writes every item through an `Encoder` over the cycle's buffer; with `java_blocks`, over
/// a [`BlockingSink::java_compatible`] of that buffer size.
fn codec_write<T: AvroEncode + 'static>(
    items: Rc<Vec<T>>,
    java_blocks: Option<usize>,
) -> Side<WriteFn> {
    fn run<T: AvroEncode, S: Sink>(sink: S, items: &[T]) -> avrokit::Result<()> {
        let mut enc = Encoder::new(sink);
        for item in items {
            item.encode(&mut enc)?;
        }
        enc.flush()
    }
    writer(move |out| {
        match java_blocks {
            None => run(out, &items)?,
            Some(size) => run(BlockingSink::java_compatible(out, size), &items)?,
        }
        Ok(())
    })
}

/// Reads `n` datums, each a new `R`, and checks the input is consumed exactly.
fn codec_read<R: AvroDecodeOwned + 'static>(n: usize) -> Side<ReadFn> {
    reader(move |input| {
        let mut dec = Decoder::from_slice(input);
        for _ in 0..n {
            black_box(R::decode(&mut dec)?);
        }
        check_consumed(dec.rest().len())
    })
}

/// Reads `n` datums, each a new `R`, with a new `Decoder` over the rest of the input for every
/// datum when `life` says so (the one-time tests), and checks the input is consumed exactly.
fn codec_read_onetime<R: AvroDecodeOwned + 'static>(n: usize, life: ReaderLife) -> Side<ReadFn> {
    if life == ReaderLife::PerCycle {
        return codec_read::<R>(n);
    }
    reader(move |input| {
        let mut rest = input;
        for _ in 0..n {
            let mut dec = Decoder::from_slice(rest);
            black_box(R::decode(&mut dec)?);
            rest = dec.rest();
        }
        check_consumed(rest.len())
    })
}

/// A read-only `codec` row of a one-time test: a decoder per cycle or per datum.
pub fn onetime_row<R>(schema: &str, n: usize, life: ReaderLife) -> Impl
where
    R: AvroSchema + AvroDecodeOwned + 'static,
{
    let imp = Impl::new(Library::Avrokit, "codec");
    match same_schema::<R>(schema) {
        Ok(()) => imp.read(codec_read_onetime::<R>(n, life)),
        Err(e) => imp.not_applicable(e),
    }
}

/// Reads `n` datums over one `R`, reusing its strings and vectors (`decode_into`).
fn codec_read_reused<R: AvroDecodeOwned + Default + 'static>(n: usize) -> Side<ReadFn> {
    reader(move |input| {
        let mut dec = Decoder::from_slice(input);
        let mut r = R::default();
        for _ in 0..n {
            r.decode_into(&mut dec)?;
            black_box(&r);
        }
        check_consumed(dec.rest().len())
    })
}

/// avrokit's `codec` row: writes `items` as `T` (if given), reads `n` datums as `R`.
pub fn row<T, R>(schema: &str, items: Option<Rc<Vec<T>>>, n: usize) -> Impl
where
    T: AvroSchema + AvroEncode + 'static,
    R: AvroSchema + AvroDecodeOwned + 'static,
{
    let imp = Impl::new(Library::Avrokit, "codec");
    if let Err(e) = same_schema::<T>(schema).and_then(|()| same_schema::<R>(schema)) {
        return imp.not_applicable(e);
    }
    let imp = imp.read(codec_read::<R>(n));
    match items {
        Some(items) => imp.write(codec_write(items, None)),
        None => imp,
    }
}

/// A read-only `codec (reused)` row: one `R` overwritten by every datum, as Java's
/// `read(reuse, decoder)`.
pub fn reused_row<R>(schema: &str, n: usize) -> Impl
where
    R: AvroSchema + AvroDecodeOwned + Default + 'static,
{
    let imp = Impl::new(Library::Avrokit, "codec (reused)");
    match same_schema::<R>(schema) {
        Ok(()) => imp.read(codec_read_reused::<R>(n)),
        Err(e) => imp.not_applicable(e),
    }
}

/// The codec plan of a resolution test: compiled once from the writer schema, for `R`, whose
/// own schema must be the test's reader schema, and which must have generated code.
fn resolved_plan<R>(writer: &str, reader_schema: &str) -> Result<CodecPlan<R>, String>
where
    R: AvroSchema + AvroDecodeOwned + 'static,
{
    same_schema::<R>(reader_schema)?;
    match parse(writer).and_then(|w| CodecPlan::<R>::reading(&w).map_err(|e| e.to_string())) {
        Ok(p) if p.is_generated() => Ok(p),
        Ok(_) => Err("the type has no generated codec".into()),
        Err(e) => Err(e),
    }
}

/// A read-only `codec` row of a resolution test: `n` datums written with `writer`, each read
/// as a new `R` through a [`CodecPlan`] compiled once from the writer schema (the generated
/// code, through the plan's resolution when the schemas differ). `R`'s own schema must be the
/// test's reader schema.
pub fn resolved_row<R>(writer: &str, reader_schema: &str, n: usize) -> Impl
where
    R: AvroSchema + AvroDecodeOwned + DeserializeOwned + 'static,
{
    let imp = Impl::new(Library::Avrokit, "codec");
    let plan = match resolved_plan::<R>(writer, reader_schema) {
        Ok(p) => p,
        Err(e) => return imp.not_applicable(e),
    };
    imp.read(reader(move |input| {
        let mut dec = Decoder::from_slice(input);
        for _ in 0..n {
            black_box(plan.decode(&mut dec)?);
        }
        check_consumed(dec.rest().len())
    }))
}

/// As [`resolved_row`], over one `R` that every datum overwrites (`CodecPlan::decode_into`,
/// as Java's `read(reuse, decoder)`).
pub fn resolved_reused_row<R>(writer: &str, reader_schema: &str, n: usize) -> Impl
where
    R: AvroSchema + AvroDecodeOwned + DeserializeOwned + Default + 'static,
{
    let imp = Impl::new(Library::Avrokit, "codec (reused)");
    let plan = match resolved_plan::<R>(writer, reader_schema) {
        Ok(p) => p,
        Err(e) => return imp.not_applicable(e),
    };
    imp.read(reader(move |input| {
        let mut dec = Decoder::from_slice(input);
        let mut r = R::default();
        for _ in 0..n {
            plan.decode_into(&mut r, &mut dec)?;
            black_box(&r);
        }
        check_consumed(dec.rest().len())
    }))
}

/// As [`row`], writing through [`BlockingSink::java_compatible`] with Java's `buffer_size`.
pub fn blocked_row<T, R>(schema: &str, items: Rc<Vec<T>>, n: usize, buffer_size: usize) -> Impl
where
    T: AvroSchema + AvroEncode + 'static,
    R: AvroSchema + AvroDecodeOwned + 'static,
{
    let imp = Impl::new(Library::Avrokit, "codec (Java blocks)");
    if let Err(e) = same_schema::<T>(schema).and_then(|()| same_schema::<R>(schema)) {
        return imp.not_applicable(e);
    }
    imp.read(codec_read::<R>(n))
        .write(codec_write(items, Some(buffer_size)))
}
