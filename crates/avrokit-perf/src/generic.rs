//! Generic tests (batches `-generic` and `-generic-onetime`, WORKLOADS.md sections 6.3 and 6.4):
//! records through avrokit's generic [`Value`], one datum at a time, 20833 per cycle. The tests
//! of plain records (Generic, GenericStrings, GenericNested_) also have an avrokit `serde` row,
//! the like-for-like match of the peers' serde rows. Every Value test has two avrokit rows: a
//! new Value per datum (`Value`, `Value (resolved)`: the catalog's `read(null, decoder)`), and
//! one Value reused for every datum (`Value (reused)`, `Value (resolved, reused)`:
//! `read_value_into` / `read_value_resolved_into`, Java's `read(reuse, decoder)`).

use std::hint::black_box;
use std::rc::Rc;

use avrokit::resolution::ResolvedPlan;
use avrokit::value::{read_value_into, read_value_resolved, read_value_resolved_into};
use avrokit::{Decoder, Encoder, Schema, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::basic::random_string;
use crate::harness::{reader, writer, Ctx, Impl, Library, ReadFn, Side, Spec, Test, WriteFn};
use crate::limit::{self, check_consumed};
use crate::peers::{self, arecord, AValue, ReaderLife};
use crate::record::{
    rec_bytes, rec_data, Rec, RecOutOfOrder, RecPromoted, RecWithDefault, RECORD_SCHEMA,
    RECORD_SCHEMA_WITH_DEFAULT, RECORD_SCHEMA_WITH_OUT_OF_ORDER, RECORD_SCHEMA_WITH_PROMOTION,
};
use crate::rng::JavaRandom;
use crate::typed;

/// GENERIC_STRINGS.
pub const GENERIC_STRINGS: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"string"},{"name":"f2","type":"string"},{"name":"f3","type":"string"}]}"#;

/// NESTED_RECORD_SCHEMA.
pub const NESTED_RECORD_SCHEMA: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":{"type":"record","name":"D","fields":[{"name":"dbl","type":"double"}]}},
    {"name":"f2","type":"D"},{"name":"f3","type":"D"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"}]}"#;

/// The generic and generic-onetime tests, in registration order.
pub fn specs() -> Vec<Spec> {
    let s = |flag, name, batch, has_write, build| Spec {
        flag,
        name,
        batch,
        has_write,
        build,
    };
    let g = "-generic";
    let o = "-generic-onetime";
    vec![
        s("-G", "Generic", g, true, generic_test),
        s("-Gs", "GenericStrings", g, true, generic_strings_test),
        s("-Gn", "GenericNested_", g, true, generic_nested_test),
        s(
            "-Gf",
            "GenericNestedFake_",
            g,
            true,
            generic_nested_fake_test,
        ),
        s(
            "-Gd",
            "GenericWithDefault_",
            g,
            false,
            generic_with_default_test,
        ),
        s(
            "-Go",
            "GenericWithOutOfOrder_",
            g,
            false,
            generic_with_out_of_order_test,
        ),
        s(
            "-Gp",
            "GenericWithPromotion_",
            g,
            false,
            generic_with_promotion_test,
        ),
        s(
            "-Gotd",
            "GenericOneTimeDecoderUse_",
            o,
            false,
            onetime_decoder_test,
        ),
        s(
            "-Gotr",
            "GenericOneTimeReaderUse_",
            o,
            false,
            onetime_reader_test,
        ),
        s("-Got", "GenericOneTimeUse_", o, false, onetime_use_test),
    ]
}

// ---------------------------------------------------------------------------------------------
// avrokit's generic Value front end, behind two functions so an API change lands in one place.

fn parse(schema: &str) -> Result<Schema, String> {
    Schema::parse_str(schema).map_err(|e| format!("avrokit rejects the schema: {e}"))
}

/// Writes `values` one datum at a time. Java creates its generic writer inside the timed cycle;
/// avrokit's Value writer is a function over the parsed schema, so there is nothing to build.
fn avrokit_value_write(schema: &str, values: Rc<Vec<Value>>) -> Side<WriteFn> {
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
fn avrokit_value_read(schema: &str, n: usize) -> Side<ReadFn> {
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
fn avrokit_value_read_reused(schema: &str, n: usize) -> Side<ReadFn> {
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

/// Compiles a writer/reader resolution plan (once, at init: Java's resolver is built outside
/// the timed region at HEAD, and cached per schema pair inside its datum readers).
pub fn plan(writer: &str, reader: &str) -> Result<ResolvedPlan, String> {
    ResolvedPlan::compile(&parse(writer)?, &parse(reader)?)
        .map_err(|e| format!("avrokit cannot resolve the schemas: {e}"))
}

/// Reads `n` datums written with `writer` as Values of the `reader` schema, each a new Value.
pub fn avrokit_resolved_read(writer: &str, reader_schema: &str, n: usize) -> Side<ReadFn> {
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
pub fn avrokit_resolved_read_reused(writer: &str, reader_schema: &str, n: usize) -> Side<ReadFn> {
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
fn avrokit_value_rows(test: Test, schema: &str, values: Option<Rc<Vec<Value>>>, n: usize) -> Test {
    test.with(avrokit_value(schema, values, n)).with(
        Impl::new(Library::Avrokit, "Value (reused)").read(avrokit_value_read_reused(schema, n)),
    )
}

/// The resolved Value rows: a new Value per datum, and one reused Value.
pub fn avrokit_resolved_rows(test: Test, writer: &str, reader_schema: &str, n: usize) -> Test {
    test.with(
        Impl::new(Library::Avrokit, "Value (resolved)").read(avrokit_resolved_read(
            writer,
            reader_schema,
            n,
        )),
    )
    .with(
        Impl::new(Library::Avrokit, "Value (resolved, reused)").read(avrokit_resolved_read_reused(
            writer,
            reader_schema,
            n,
        )),
    )
}

fn avrokit_value(schema: &str, values: Option<Rc<Vec<Value>>>, n: usize) -> Impl {
    let imp = Impl::new(Library::Avrokit, "Value").read(avrokit_value_read(schema, n));
    match values {
        Some(values) => imp.write(avrokit_value_write(schema, values)),
        None => imp,
    }
}

// ---------------------------------------------------------------------------------------------
// Data

/// A Rec as avrokit's generic record (fields by position).
pub fn rec_value(r: &Rec) -> Value {
    Value::Record(vec![
        Value::Double(r.f1),
        Value::Double(r.f2),
        Value::Double(r.f3),
        Value::Int(r.f4),
        Value::Int(r.f5),
        Value::Int(r.f6),
    ])
}

/// GenericStrings' record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "R")]
pub struct Strings3 {
    /// f1
    pub f1: String,
    /// f2
    pub f2: String,
    /// f3
    pub f3: String,
}

/// GenericStrings data: three randomString per record.
pub fn strings_data(count: usize) -> Vec<Strings3> {
    let mut r = JavaRandom::perf();
    (0..count)
        .map(|_| Strings3 {
            f1: random_string(&mut r),
            f2: random_string(&mut r),
            f3: random_string(&mut r),
        })
        .collect()
}

/// NESTED_RECORD_SCHEMA's `D`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct D {
    /// dbl
    pub dbl: f64,
}

/// NESTED_RECORD_SCHEMA's record: the Rec draws with the doubles wrapped in `D`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "R")]
pub struct Nested {
    /// f1
    pub f1: D,
    /// f2
    pub f2: D,
    /// f3
    pub f3: D,
    /// f4
    pub f4: i32,
    /// f5
    pub f5: i32,
    /// f6
    pub f6: i32,
}

impl From<&Rec> for Nested {
    fn from(r: &Rec) -> Self {
        Nested {
            f1: D { dbl: r.f1 },
            f2: D { dbl: r.f2 },
            f3: D { dbl: r.f3 },
            f4: r.f4,
            f5: r.f5,
            f6: r.f6,
        }
    }
}

fn d_value(x: f64) -> Value {
    Value::Record(vec![Value::Double(x)])
}

fn nested_value(r: &Rec) -> Value {
    Value::Record(vec![
        d_value(r.f1),
        d_value(r.f2),
        d_value(r.f3),
        Value::Int(r.f4),
        Value::Int(r.f5),
        Value::Int(r.f6),
    ])
}

fn nested_avalue(n: &Nested) -> AValue {
    let d = |x: D| arecord([("dbl", AValue::Double(x.dbl))]);
    arecord([
        ("f1", d(n.f1)),
        ("f2", d(n.f2)),
        ("f3", d(n.f3)),
        ("f4", AValue::Int(n.f4)),
        ("f5", AValue::Int(n.f5)),
        ("f6", AValue::Int(n.f6)),
    ])
}

// ---------------------------------------------------------------------------------------------
// Tests

fn generic_test(ctx: &Ctx) -> Test {
    let data = rec_data(ctx.count / 12);
    let n = data.len();
    let values = Rc::new(data.iter().map(rec_value).collect());
    let mut test = avrokit_value_rows(
        Test::new("Generic", n, rec_bytes(&data)),
        RECORD_SCHEMA,
        Some(values),
        n,
    );
    let data = Rc::new(data);
    test = test.with(typed::avrokit_serde::<Rec, Rec>(
        RECORD_SCHEMA,
        Some(data.clone()),
        n,
    ));
    let d = data.clone();
    test = limit::with_limit(
        test,
        move |out| d.iter().for_each(|r| r.put(out)),
        move |dec| (0..n).fold(0, |acc, _| acc ^ Rec::get(dec)),
    );
    if ctx.compare {
        test = test.with_all(peers::all_peers::<Rec, Rec>(
            RECORD_SCHEMA,
            data,
            Rec::value,
        ));
    }
    test
}

fn generic_strings_test(ctx: &Ctx) -> Test {
    let data = strings_data(ctx.count / 12);
    let n = data.len();
    let bytes = limit::encode(|out| {
        for s in &data {
            limit::put_string(out, &s.f1);
            limit::put_string(out, &s.f2);
            limit::put_string(out, &s.f3);
        }
    });
    let values = data
        .iter()
        .map(|s| {
            Value::Record(vec![
                Value::String(s.f1.clone()),
                Value::String(s.f2.clone()),
                Value::String(s.f3.clone()),
            ])
        })
        .collect();
    let mut test = avrokit_value_rows(
        Test::new("GenericStrings", n, bytes),
        GENERIC_STRINGS,
        Some(Rc::new(values)),
        n,
    );
    let data = Rc::new(data);
    test = test.with(typed::avrokit_serde::<Strings3, Strings3>(
        GENERIC_STRINGS,
        Some(data.clone()),
        n,
    ));
    if ctx.compare {
        test = test.with_all(peers::all_peers::<Strings3, Strings3>(
            GENERIC_STRINGS,
            data,
            |s| {
                arecord([
                    ("f1", AValue::String(s.f1.clone())),
                    ("f2", AValue::String(s.f2.clone())),
                    ("f3", AValue::String(s.f3.clone())),
                ])
            },
        ));
    }
    test
}

fn generic_nested_test(ctx: &Ctx) -> Test {
    let data = rec_data(ctx.count / 12);
    let n = data.len();
    let values = Rc::new(data.iter().map(nested_value).collect());
    let mut test = avrokit_value_rows(
        Test::new("GenericNested_", n, rec_bytes(&data)),
        NESTED_RECORD_SCHEMA,
        Some(values),
        n,
    );
    let nested: Rc<Vec<Nested>> = Rc::new(data.iter().map(Nested::from).collect());
    test = test.with(typed::avrokit_serde::<Nested, Nested>(
        NESTED_RECORD_SCHEMA,
        Some(nested.clone()),
        n,
    ));
    if ctx.compare {
        test = test.with_all(peers::all_peers::<Nested, Nested>(
            NESTED_RECORD_SCHEMA,
            nested,
            nested_avalue,
        ));
    }
    test
}

/// GenericNestedFake_: the nested generic records, written and rebuilt by hand with raw
/// Encoder/Decoder calls (Java's measure of generic object handling without a datum writer).
fn generic_nested_fake_test(ctx: &Ctx) -> Test {
    let data = rec_data(ctx.count / 12);
    let n = data.len();
    let values: Rc<Vec<Value>> = Rc::new(data.iter().map(nested_value).collect());
    let avrokit = Impl::new(Library::Avrokit, "Encoder + Value")
        .write(writer(move |out| {
            let mut enc = Encoder::new(out);
            for v in values.iter() {
                let Value::Record(fields) = v else {
                    return Err("not a record".into());
                };
                for f in &fields[..3] {
                    match f {
                        Value::Record(d) => match d[..] {
                            [Value::Double(x)] => enc.write_double(x)?,
                            _ => return Err("not a D record".into()),
                        },
                        _ => return Err("not a D record".into()),
                    }
                }
                for f in &fields[3..] {
                    match f {
                        Value::Int(i) => enc.write_int(*i)?,
                        _ => return Err("not an int".into()),
                    }
                }
            }
            enc.flush()?;
            Ok(())
        }))
        .read(reader(move |input| {
            let mut dec = Decoder::from_slice(input);
            for _ in 0..n {
                let r = Value::Record(vec![
                    d_value(dec.read_double()?),
                    d_value(dec.read_double()?),
                    d_value(dec.read_double()?),
                    Value::Int(dec.read_int()?),
                    Value::Int(dec.read_int()?),
                    Value::Int(dec.read_int()?),
                ]);
                black_box(r);
            }
            check_consumed(dec.rest().len())
        }));
    let mut test = Test::new("GenericNestedFake_", n, rec_bytes(&data)).with(avrokit);
    if ctx.compare {
        for library in [Library::ApacheAvro, Library::SerdeAvroFast] {
            test = test.with(
                Impl::new(library, "-")
                    .not_applicable("no public raw per-primitive encoder/decoder"),
            );
        }
    }
    test
}

/// GenericWith*_: the Generic data read with a reader schema.
fn generic_resolving<R: DeserializeOwned + 'static>(
    ctx: &Ctx,
    name: &'static str,
    reader_schema: &str,
) -> Test {
    let data = rec_data(ctx.count / 12);
    let n = data.len();
    // Java's datum reader (writer -> reader schema) is created once, with the test object.
    let mut test = avrokit_resolved_rows(
        Test::new(name, n, rec_bytes(&data)),
        RECORD_SCHEMA,
        reader_schema,
        n,
    );
    if ctx.compare {
        let mut peers = peers::read_peers::<R>(RECORD_SCHEMA, reader_schema, n);
        if reader_schema == RECORD_SCHEMA_WITH_PROMOTION {
            peers = peers::without_apache_serde(peers, peers::NO_SERDE_PROMOTION);
        }
        test = test.with_all(peers);
    }
    test
}

fn generic_with_default_test(ctx: &Ctx) -> Test {
    generic_resolving::<RecWithDefault>(ctx, "GenericWithDefault_", RECORD_SCHEMA_WITH_DEFAULT)
}

fn generic_with_out_of_order_test(ctx: &Ctx) -> Test {
    generic_resolving::<RecOutOfOrder>(
        ctx,
        "GenericWithOutOfOrder_",
        RECORD_SCHEMA_WITH_OUT_OF_ORDER,
    )
}

fn generic_with_promotion_test(ctx: &Ctx) -> Test {
    generic_resolving::<RecPromoted>(ctx, "GenericWithPromotion_", RECORD_SCHEMA_WITH_PROMOTION)
}

/// The one-time tests: the Generic data, read only, with a reader per cycle or per datum.
fn onetime(ctx: &Ctx, name: &'static str, life: ReaderLife) -> Test {
    let data = rec_data(ctx.count / 12);
    let n = data.len();
    // avrokit's Value reader has no object to construct (the schema is the reader), so a new
    // reader per datum costs it nothing: these rows equal GenericRead for avrokit.
    let mut test = avrokit_value_rows(Test::new(name, n, rec_bytes(&data)), RECORD_SCHEMA, None, n);
    if ctx.compare {
        test = test
            .with(
                Impl::new(Library::ApacheAvro, "Value").read(peers::apache_value_read(
                    RECORD_SCHEMA,
                    None,
                    n,
                    life,
                )),
            )
            .with(
                Impl::new(Library::ApacheAvro, "serde").read(peers::apache_serde_read::<Rec>(
                    RECORD_SCHEMA,
                    n,
                    life,
                )),
            )
            .with(
                Impl::new(Library::SerdeAvroFast, "serde").read(peers::saf_read_with::<Rec>(
                    RECORD_SCHEMA,
                    n,
                    life,
                )),
            );
    }
    test
}

fn onetime_decoder_test(ctx: &Ctx) -> Test {
    onetime(ctx, "GenericOneTimeDecoderUse_", ReaderLife::PerCycle)
}

fn onetime_reader_test(ctx: &Ctx) -> Test {
    onetime(ctx, "GenericOneTimeReaderUse_", ReaderLife::PerDatum)
}

fn onetime_use_test(ctx: &Ctx) -> Test {
    onetime(ctx, "GenericOneTimeUse_", ReaderLife::PerDatum)
}
