//! Reflect tests (batch `-reflect`, WORKLOADS.md section 6.6): Java's reflect datum writer and
//! reader over plain objects; serde derive structs and `Vec`s of primitives here.

use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::adapters::avrokit::codec as ak_codec;
use crate::adapters::avrokit::serde as ak_serde;
use crate::adapters::limit;
use crate::adapters::peers::{self, apache, saf};
use crate::adapters::workload::ReaderLife;
use crate::data::basic::floats;
use crate::data::record::rec_data;
use crate::data::reflect::*;
use crate::harness::{Ctx, Impl, Library, Spec, Test};
use crate::reference::{self, RefDatum};
use crate::rng::JavaRandom;

/// The reflect tests, in registration order.
pub fn specs() -> Vec<Spec> {
    let s = |flag, name, build| Spec::new(flag, name, "-reflect", true, build);
    vec![
        s("-REFr", "ReflectRecord", reflect_record_test),
        s("-REFbr", "ReflectBigRecord", reflect_big_record_test),
        s("-REFf", "ReflectFloat", reflect_float_test),
        s("-REFd", "ReflectDouble", reflect_double_test),
        s("-REFia", "ReflectIntArray", reflect_int_array_test),
        s("-REFla", "ReflectLongArray", reflect_long_array_test),
        s("-REFda", "ReflectDoubleArray", reflect_double_array_test),
        s("-REFfa", "ReflectFloatArray", reflect_float_array_test),
        s(
            "-REFnf",
            "ReflectNestedFloatArray",
            reflect_nested_float_array_test,
        ),
        s(
            "-REFno",
            "ReflectNestedObjectArray",
            reflect_nested_object_array_test,
        ),
        s(
            "-REFnlf",
            "ReflectNestedLargeFloatArray",
            reflect_nested_large_test,
        ),
        s(
            "-REFnlfb",
            "ReflectNestedLargeFloatArrayBlocked",
            reflect_nested_large_blocked_test,
        ),
    ]
}

/// A reflect test over `data`: avrokit and the peers run their serde paths.
fn reflect<T>(ctx: &Ctx, name: &'static str, schema: &str, data: Vec<T>) -> Test
where
    T: RefDatum + Serialize + DeserializeOwned + ak_codec::Codec + Default + 'static,
{
    let bytes = reference::encode_all(&data);
    let n = data.len();
    let data = Rc::new(data);
    let test = Test::new(name, n, bytes)
        .with(ak_serde::row::<T, T>(schema, Some(data.clone()), n))
        .with(ak_codec::row::<T, T>(schema, Some(data.clone()), n))
        .with(ak_codec::reused_row::<T>(schema, n));
    if ctx.compare {
        test.with_all(peers::serde_pair::<T, T>(schema, Some(data), n))
    } else {
        test
    }
}

fn reflect_record_test(ctx: &Ctx) -> Test {
    let data = rec_data(ctx.count / 12)
        .into_iter()
        .map(ReflectRec::from_rec)
        .collect();
    reflect(ctx, "ReflectRecord", REC_SCHEMA, data)
}

fn reflect_big_record_test(ctx: &Ctx) -> Test {
    let data = big_rec_data(ctx.count / 20);
    let limit_data = Rc::new(data.clone());
    let test = reflect(ctx, "ReflectBigRecord", BIG_RECORD_SCHEMA, data);
    limit::with_datum_limit(test, limit_data)
}

/// ReflectFloat: one datum, a float array of COUNT floats (count = 1 entry per cycle).
fn reflect_float_test(ctx: &Ctx) -> Test {
    let data = vec![floats(&mut JavaRandom::perf(), ctx.count)];
    reflect(ctx, "ReflectFloat", FLOAT_ARRAY, data)
}

/// ReflectDouble: one datum, a double array of COUNT doubles.
fn reflect_double_test(ctx: &Ctx) -> Test {
    let mut r = JavaRandom::perf();
    let data: Vec<Vec<f64>> = vec![(0..ctx.count).map(|_| r.next_double()).collect()];
    reflect(ctx, "ReflectDouble", DOUBLE_ARRAY, data)
}

fn reflect_int_array_test(ctx: &Ctx) -> Test {
    let data = small_arrays(ctx.count / 12, JavaRandom::next_int);
    reflect(ctx, "ReflectIntArray", INT_ARRAY, data)
}

fn reflect_long_array_test(ctx: &Ctx) -> Test {
    let data = small_arrays(ctx.count / 24, JavaRandom::next_long);
    reflect(ctx, "ReflectLongArray", LONG_ARRAY, data)
}

fn reflect_double_array_test(ctx: &Ctx) -> Test {
    let data = small_arrays(ctx.count / 20, JavaRandom::next_double);
    reflect(ctx, "ReflectDoubleArray", DOUBLE_ARRAY, data)
}

fn reflect_float_array_test(ctx: &Ctx) -> Test {
    let data = small_arrays(ctx.count / 10, JavaRandom::next_float);
    reflect(ctx, "ReflectFloatArray", FLOAT_ARRAY, data)
}

fn reflect_nested_float_array_test(ctx: &Ctx) -> Test {
    let data = float_foos(ctx.count / 10, small_array_size);
    reflect(ctx, "ReflectNestedFloatArray", FLOAT_FOO, data)
}

fn reflect_nested_object_array_test(ctx: &Ctx) -> Test {
    reflect(
        ctx,
        "ReflectNestedObjectArray",
        FOO,
        foo_data(ctx.count / 50),
    )
}

fn reflect_nested_large_test(ctx: &Ctx) -> Test {
    let data = float_foos(ctx.count / 60, large_array_size);
    reflect(ctx, "ReflectNestedLargeFloatArray", FLOAT_FOO, data)
}

/// As ReflectNestedLargeFloatArray, written by Java's blocking encoder (254-byte blocks). Every
/// library reads Java's blocked bytes; each writes its own block layout, so only a library that
/// reproduces Java's blocking rule gets the reference SHA-256 on the write row: avrokit does,
/// through `BlockingSink::java_compatible`.
fn reflect_nested_large_blocked_test(ctx: &Ctx) -> Test {
    let data = float_foos(ctx.count / 60, large_array_size);
    let bytes = reference::encode(|out| {
        data.iter()
            .for_each(|f| reference::put_blocked_float_array(out, &f.float_bar, BLOCK_BYTES))
    });
    let n = data.len();
    let data = Rc::new(data);
    let mut test = Test::new("ReflectNestedLargeFloatArrayBlocked", n, bytes)
        .with(ak_serde::blocked_row::<FloatFoo, FloatFoo>(
            FLOAT_FOO,
            data.clone(),
            n,
            BLOCK_BYTES,
        ))
        .with(ak_codec::blocked_row::<FloatFoo, FloatFoo>(
            FLOAT_FOO,
            data.clone(),
            n,
            BLOCK_BYTES,
        ));
    if ctx.compare {
        test = test
            .with(
                Impl::new(Library::ApacheAvro, "serde (blocks >= 254 B)")
                    .write(apache::serde_write(
                        FLOAT_FOO,
                        data.clone(),
                        Some(BLOCK_BYTES),
                    ))
                    .read(apache::serde_read::<FloatFoo>(
                        FLOAT_FOO,
                        n,
                        ReaderLife::PerCycle,
                    )),
            )
            .with(
                Impl::new(Library::SerdeAvroFast, "serde (one block)")
                    .write(saf::write(FLOAT_FOO, data))
                    .read(saf::read::<FloatFoo>(FLOAT_FOO, n)),
            );
    }
    test
}
