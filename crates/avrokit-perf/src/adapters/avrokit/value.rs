//! avrokit's generic `Value` front end (`avrokit::value`), one datum at a time. Every Value
//! test has two rows: a new Value per datum (`Value`, `Value (resolved)`: the catalog's
//! `read(null, decoder)`), and one Value reused for every datum (`Value (reused)`,
//! `Value (resolved, reused)`: `read_value_into` / `read_value_resolved_into`, Java's
//! `read(reuse, decoder)`).

use std::hint::black_box;
use std::rc::Rc;

use avrokit::value::{read_value_into, read_value_resolved, read_value_resolved_into};
use avrokit::{Decoder, Encoder, Value};

use super::schema::{parse, plan};
use crate::harness::{check_consumed, reader, writer, Impl, Library, ReadFn, Side, Test, WriteFn};

/// Writes `values` one datum at a time. Java creates its generic writer inside the timed cycle;
/// avrokit's Value writer is a function over the parsed schema, so there is nothing to build.
fn write(schema: &str, values: Rc<Vec<Value>>) -> Side<WriteFn> {
    let schema = match parse(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    writer(move |out| {
        let mut enc = Encoder::new(out);
        for v in values.iter() {
            avrokit::value::write_value(&mut enc, v, &schema)?;
        }
        enc.flush()?;
        Ok(())
    })
}

/// Reads `n` datums, each into a new Value (as Java's `read(null, decoder)`).
fn read(schema: &str, n: usize) -> Side<ReadFn> {
    let schema = match parse(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut dec = Decoder::from_slice(input);
        for _ in 0..n {
            black_box(avrokit::value::read_value(&mut dec, &schema)?);
        }
        check_consumed(dec.rest().len())
    })
}

/// Reads `n` datums, each into the same Value (`read_value_into`, which reuses the record's
/// allocations: Java's `read(reuse, decoder)`; the catalog's Generic tests pass `null`).
fn read_reused(schema: &str, n: usize) -> Side<ReadFn> {
    let schema = match parse(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    let mut v = Value::Null;
    reader(move |input| {
        let mut dec = Decoder::from_slice(input);
        for _ in 0..n {
            read_value_into(&mut dec, &schema, &mut v)?;
            black_box(&v);
        }
        check_consumed(dec.rest().len())
    })
}

/// Reads `n` datums written with `writer` as Values of the `reader` schema, each a new Value.
fn resolved_read(writer: &str, reader_schema: &str, n: usize) -> Side<ReadFn> {
    let plan = match plan(writer, reader_schema) {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut dec = Decoder::from_slice(input);
        for _ in 0..n {
            black_box(read_value_resolved(&mut dec, &plan)?);
        }
        check_consumed(dec.rest().len())
    })
}

/// Reads `n` datums written with `writer` as Values of the `reader` schema, each into the same
/// Value (`read_value_resolved_into`, reusing its allocations).
fn resolved_read_reused(writer: &str, reader_schema: &str, n: usize) -> Side<ReadFn> {
    let plan = match plan(writer, reader_schema) {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e),
    };
    let mut v = Value::Null;
    reader(move |input| {
        let mut dec = Decoder::from_slice(input);
        for _ in 0..n {
            read_value_resolved_into(&mut dec, &plan, &mut v)?;
            black_box(&v);
        }
        check_consumed(dec.rest().len())
    })
}

/// The Value row (a new Value per datum, as the catalog's `read(null, decoder)`) and the
/// reused-Value row.
pub fn rows(test: Test, schema: &str, values: Option<Rc<Vec<Value>>>, n: usize) -> Test {
    test.with(new_value_row(schema, values, n))
        .with(Impl::new(Library::Avrokit, "Value (reused)").read(read_reused(schema, n)))
}

/// The resolved Value rows: a new Value per datum, and one reused Value.
pub fn resolved_rows(test: Test, writer: &str, reader_schema: &str, n: usize) -> Test {
    test.with(
        Impl::new(Library::Avrokit, "Value (resolved)").read(resolved_read(
            writer,
            reader_schema,
            n,
        )),
    )
    .with(
        Impl::new(Library::Avrokit, "Value (resolved, reused)").read(resolved_read_reused(
            writer,
            reader_schema,
            n,
        )),
    )
}

fn new_value_row(schema: &str, values: Option<Rc<Vec<Value>>>, n: usize) -> Impl {
    let imp = Impl::new(Library::Avrokit, "Value").read(read(schema, n));
    match values {
        Some(values) => imp.write(write(schema, values)),
        None => imp,
    }
}
