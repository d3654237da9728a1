//! Basic tests (batch `-basic`, WORKLOADS.md section 6.1): streams of primitives through the
//! low-level `Encoder`/`Decoder`, one call per value, plus Array, Map and the two resolution
//! tests ExtendedEnum and UnchangedUnion (generic Values read through a resolution plan, as
//! Java reads them with a generic datum reader over a resolving decoder).

use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use avrokit::codec::AvroDecodeOwned;
use avrokit::AvroSchema;

use crate::adapters::avrokit::{codec, encoder, value};
use crate::adapters::limit;
use crate::adapters::peers::{self, apache, values::ToApache};
use crate::data::basic::*;
use crate::harness::{Ctx, Impl, Library, Spec, Test};
use crate::reference::{self, RefDatum};
use crate::rng::JavaRandom;

/// The basic tests, in registration order.
pub fn specs() -> Vec<Spec> {
    let s = |flag, name, has_write, build| Spec::new(flag, name, "-basic", has_write, build);
    vec![
        s("-i", "Int", true, int_test),
        s("-ls", "SmallLong", true, small_long_test),
        s("-l", "Long", true, long_test),
        s("-f", "Float", true, float_test),
        s("-d", "Double", true, double_test),
        s("-b", "Boolean", true, boolean_test),
        s("-by", "Bytes", true, bytes_test),
        s("-s", "String", true, string_test),
        s("-a", "Array", true, array_test),
        s("-m", "Map", true, map_test),
        s("-ee", "ExtendedEnum", false, extended_enum_test),
        s("-uu", "UnchangedUnion", false, unchanged_union_test),
    ]
}

/// A stream of `data.len()` primitives of `schema`; `limit` adds the limit rows.
fn stream<T>(ctx: &Ctx, name: &'static str, schema: &str, data: Vec<T>, limit: bool) -> Test
where
    T: RefDatum + encoder::EncoderDatum + ToApache + Serialize + DeserializeOwned,
{
    let data = Rc::new(data);
    let n = data.len();
    let bytes = reference::encode_all(&data);
    let mut test = Test::new(name, n, bytes).with(encoder::stream_row(data.clone()));
    if limit {
        test = limit::with_datum_limit(test, data.clone());
    }
    if ctx.compare {
        test = test.with_all(peers::all_peers::<T, T>(schema, data));
    }
    test
}

fn int_test(ctx: &Ctx) -> Test {
    stream(ctx, "Int", INT, int_data(ctx.count), true)
}

fn small_long_test(ctx: &Ctx) -> Test {
    let data = int_data(ctx.count).into_iter().map(i64::from).collect();
    stream(ctx, "SmallLong", LONG, data, false)
}

fn long_test(ctx: &Ctx) -> Test {
    stream(ctx, "Long", LONG, long_data(ctx.count), false)
}

fn float_test(ctx: &Ctx) -> Test {
    let data = floats(&mut JavaRandom::perf(), ctx.count);
    stream(ctx, "Float", FLOAT, data, false)
}

fn double_test(ctx: &Ctx) -> Test {
    stream(ctx, "Double", DOUBLE, double_data(ctx.count), false)
}

fn boolean_test(ctx: &Ctx) -> Test {
    stream(ctx, "Boolean", BOOLEAN, boolean_data(ctx.count), false)
}

fn bytes_test(ctx: &Ctx) -> Test {
    stream(ctx, "Bytes", BYTES, bytes_data(ctx.count / 5), false)
}

fn string_test(ctx: &Ctx) -> Test {
    stream(ctx, "String", STRING, string_data(ctx.count / 5), false)
}

fn array_test(ctx: &Ctx) -> Test {
    let data = Rc::new(floats(&mut JavaRandom::perf(), ctx.count));
    let bytes = array_bytes(&data);
    let mut test = Test::new("Array", data.len(), bytes).with(encoder::array_row(data.clone()));
    if ctx.compare {
        let datum = Foo {
            bar: data.chunks_exact(4).map(Vals::from_chunk).collect(),
        };
        let value = peers::values::AValue::Array(vec![peers::values::arecord([(
            "bar",
            peers::values::AValue::Array(datum.bar.iter().map(ToApache::to_apache).collect()),
        )])]);
        let schema = array_schema();
        test = test.with(apache::value_row(&schema, None, Some(vec![value]), 1));
        test = test.with_all(peers::serde_pair::<Vec<Foo>, Vec<Foo>>(
            &schema,
            Some(Rc::new(vec![vec![datum]])),
            1,
        ));
    }
    test
}

fn map_test(ctx: &Ctx) -> Test {
    let data = Rc::new(floats(&mut JavaRandom::perf(), ctx.count));
    let bytes = map_bytes(&data);
    let mut test = Test::new("Map", data.len(), bytes).with(encoder::map_row(data.clone()));
    if ctx.compare {
        let map = RepeatedKeyMap(
            data.chunks_exact(4)
                .map(|c| ("foo".to_owned(), Vals::from_chunk(c)))
                .collect(),
        );
        test = test.with(Impl::new(Library::ApacheAvro, "Value").not_applicable(
            "its Map value is a HashMap: the 62500 entries share one key and would collapse",
        ));
        test = test.with_all(peers::serde_pair::<RepeatedKeyMap, RepeatedKeyMap>(
            &map_schema(),
            Some(Rc::new(vec![map])),
            1,
        ));
    }
    test
}

/// A read-only resolution test of `n` datums: avrokit's resolved Value rows, and the peers
/// reading into the reader-shaped `R`.
fn resolution<R: DeserializeOwned + AvroSchema + AvroDecodeOwned + Default + 'static>(
    ctx: &Ctx,
    test: Test,
    writer: &str,
    reader: &str,
) -> Test {
    let n = test.count;
    let test = value::resolved_rows(test, writer, reader, n)
        .with(codec::resolved_row::<R>(writer, reader, n))
        .with(codec::resolved_reused_row::<R>(writer, reader, n));
    if ctx.compare {
        test.with_all(peers::read_peers::<R>(writer, reader, n))
    } else {
        test
    }
}

fn extended_enum_test(ctx: &Ctx) -> Test {
    let tags = extended_enum_data(ctx.count);
    let test = Test::new("ExtendedEnum", tags.len(), extended_enum_bytes(&tags));
    resolution::<EnumRecord>(ctx, test, EXTENDED_ENUM_WRITER, EXTENDED_ENUM_READER)
}

fn unchanged_union_test(ctx: &Ctx) -> Test {
    let data = unchanged_union_data(ctx.count);
    let test = Test::new("UnchangedUnion", data.len(), unchanged_union_bytes(&data));
    resolution::<UnionRecord>(ctx, test, UNCHANGED_UNION, UNCHANGED_UNION)
}
