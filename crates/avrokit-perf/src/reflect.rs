//! Reflect tests (batch `-reflect`, WORKLOADS.md section 6.6): Java's reflect datum writer and
//! reader over plain objects; serde derive structs and `Vec`s of primitives here.

use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::basic::{floats, Foo, Vals};
use crate::harness::{Ctx, Impl, Library, Spec, Test};
use crate::limit::{self, RefDecoder};
use crate::peers::{self, apache_serde_read, apache_serde_write, saf_read, saf_write};
use crate::record::{rec_data, Rec};
use crate::rng::JavaRandom;
use crate::typed;

const REC_SCHEMA: &str = r#"{"type":"record","name":"Rec","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"}]}"#;

const BIG_RECORD_SCHEMA: &str = r#"{"type":"record","name":"Rec1","fields":[
    {"name":"d1","type":"double"},{"name":"d11","type":"double"},
    {"name":"f2","type":"float"},{"name":"f22","type":"float"},
    {"name":"f3","type":"int"},{"name":"f33","type":"int"},
    {"name":"f4","type":"long"},{"name":"f44","type":"long"},
    {"name":"f5","type":"int"},{"name":"f55","type":"int"},
    {"name":"f6","type":"int"},{"name":"f66","type":"int"}]}"#;

const FLOAT_ARRAY: &str = r#"{"type":"array","items":"float"}"#;
const DOUBLE_ARRAY: &str = r#"{"type":"array","items":"double"}"#;
const INT_ARRAY: &str = r#"{"type":"array","items":"int"}"#;
const LONG_ARRAY: &str = r#"{"type":"array","items":"long"}"#;

const FLOAT_FOO: &str = r#"{"type":"record","name":"FloatFoo","fields":[
    {"name":"floatBar","type":{"type":"array","items":"float"}}]}"#;

const FOO: &str = r#"{"type":"record","name":"Foo","fields":[{"name":"bar","type":{"type":"array",
    "items":{"type":"record","name":"Vals","fields":[{"name":"f1","type":"float"},
    {"name":"f2","type":"float"},{"name":"f3","type":"float"},{"name":"f4","type":"float"}]}}}]}"#;

/// Java's BlockingBinaryEncoder buffer size in the Blocked test.
const BLOCK_BYTES: usize = 254;

/// The reflect tests, in registration order.
pub fn specs() -> Vec<Spec> {
    let s = |flag, name, build| Spec {
        flag,
        name,
        batch: "-reflect",
        has_write: true,
        build,
    };
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

/// smallArraySize: nextInt(15) + 1.
fn small_array_size(r: &mut JavaRandom) -> usize {
    r.next_int_bounded(15) as usize + 1
}

/// largeArraySize: nextInt(97) + 16.
fn large_array_size(r: &mut JavaRandom) -> usize {
    r.next_int_bounded(97) as usize + 16
}

/// A reflect test: `data` is the datums, `put` their reference encoding. avrokit and the peers
/// run their serde paths.
fn reflect<T>(
    ctx: &Ctx,
    name: &'static str,
    schema: &str,
    data: Vec<T>,
    put: impl Fn(&T, &mut Vec<u8>),
) -> Test
where
    T: Serialize + DeserializeOwned + 'static,
{
    let bytes = limit::encode(|out| data.iter().for_each(|d| put(d, out)));
    let n = data.len();
    let data = Rc::new(data);
    let test =
        Test::new(name, n, bytes).with(typed::avrokit_serde::<T, T>(schema, Some(data.clone()), n));
    if ctx.compare {
        test.with_all(peers::serde_pair::<T, T>(schema, Some(data), n))
    } else {
        test
    }
}

/// ReflectRecord's class `Rec`: the Rec fields under the record name `Rec` (a separate type only
/// because apache-avro's deserializer checks the record name).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Rec")]
pub struct ReflectRec {
    /// f1
    pub f1: f64,
    /// f2
    pub f2: f64,
    /// f3
    pub f3: f64,
    /// f4
    pub f4: i32,
    /// f5
    pub f5: i32,
    /// f6
    pub f6: i32,
}

impl ReflectRec {
    fn from_rec(r: Rec) -> Self {
        ReflectRec {
            f1: r.f1,
            f2: r.f2,
            f3: r.f3,
            f4: r.f4,
            f5: r.f5,
            f6: r.f6,
        }
    }

    /// Same bytes as Rec's.
    fn put(&self, out: &mut Vec<u8>) {
        let r = Rec {
            f1: self.f1,
            f2: self.f2,
            f3: self.f3,
            f4: self.f4,
            f5: self.f5,
            f6: self.f6,
        };
        r.put(out)
    }
}

fn reflect_record_test(ctx: &Ctx) -> Test {
    let data = rec_data(ctx.count / 12)
        .into_iter()
        .map(ReflectRec::from_rec)
        .collect();
    reflect(ctx, "ReflectRecord", REC_SCHEMA, data, ReflectRec::put)
}

/// ReflectBigRecord's class `Rec1`; the byte and short fields are Avro ints.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Rec1")]
pub struct BigRec {
    /// d1
    pub d1: f64,
    /// d11
    pub d11: f64,
    /// f2
    pub f2: f32,
    /// f22
    pub f22: f32,
    /// f3
    pub f3: i32,
    /// f33
    pub f33: i32,
    /// f4
    pub f4: i64,
    /// f44
    pub f44: i64,
    /// f5 (a Java byte)
    pub f5: i8,
    /// f55 (a Java byte)
    pub f55: i8,
    /// f6 (a Java short)
    pub f6: i16,
    /// f66 (a Java short)
    pub f66: i16,
}

impl BigRec {
    /// Field order draws: 2 doubles, 2 floats, 2 ints, 2 longs, 2 ints as bytes, 2 as shorts.
    pub fn random(r: &mut JavaRandom) -> BigRec {
        BigRec {
            d1: r.next_double(),
            d11: r.next_double(),
            f2: r.next_float(),
            f22: r.next_float(),
            f3: r.next_int(),
            f33: r.next_int(),
            f4: r.next_long(),
            f44: r.next_long(),
            f5: r.next_int() as i8,
            f55: r.next_int() as i8,
            f6: r.next_int() as i16,
            f66: r.next_int() as i16,
        }
    }

    /// Reference encoding.
    pub fn put(&self, out: &mut Vec<u8>) {
        limit::put_double(out, self.d1);
        limit::put_double(out, self.d11);
        limit::put_float(out, self.f2);
        limit::put_float(out, self.f22);
        limit::put_int(out, self.f3);
        limit::put_int(out, self.f33);
        limit::put_long(out, self.f4);
        limit::put_long(out, self.f44);
        for v in [
            self.f5.into(),
            self.f55.into(),
            self.f6.into(),
            self.f66.into(),
        ] {
            limit::put_int(out, v);
        }
    }

    /// Reference decoding, folded to one number.
    pub fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let mut acc = dec.double().to_bits() ^ dec.double().to_bits();
        acc ^= u64::from(dec.float().to_bits() ^ dec.float().to_bits());
        acc ^= (dec.int() ^ dec.int()) as u64;
        acc ^= (dec.long() ^ dec.long()) as u64;
        acc ^ (dec.int() ^ dec.int() ^ dec.int() ^ dec.int()) as u64
    }
}

fn reflect_big_record_test(ctx: &Ctx) -> Test {
    let mut r = JavaRandom::perf();
    let data: Vec<BigRec> = (0..ctx.count / 20)
        .map(|_| BigRec::random(&mut r))
        .collect();
    let n = data.len();
    let limit_data = Rc::new(data.clone());
    let mut test = reflect(
        ctx,
        "ReflectBigRecord",
        BIG_RECORD_SCHEMA,
        data,
        BigRec::put,
    );
    test = limit::with_limit(
        test,
        move |out| limit_data.iter().for_each(|b| b.put(out)),
        move |dec| (0..n).fold(0, |acc, _| acc ^ BigRec::get(dec)),
    );
    test
}

fn put_float_array(a: &[f32], out: &mut Vec<u8>) {
    limit::put_array_start(out, a.len());
    a.iter().for_each(|&f| limit::put_float(out, f));
    limit::put_array_end(out);
}

fn put_double_array(a: &[f64], out: &mut Vec<u8>) {
    limit::put_array_start(out, a.len());
    a.iter().for_each(|&f| limit::put_double(out, f));
    limit::put_array_end(out);
}

fn put_int_array(a: &[i32], out: &mut Vec<u8>) {
    limit::put_array_start(out, a.len());
    a.iter().for_each(|&v| limit::put_int(out, v));
    limit::put_array_end(out);
}

fn put_long_array(a: &[i64], out: &mut Vec<u8>) {
    limit::put_array_start(out, a.len());
    a.iter().for_each(|&v| limit::put_long(out, v));
    limit::put_array_end(out);
}

/// ReflectFloat: one datum, a float array of COUNT floats (count = 1 entry per cycle).
fn reflect_float_test(ctx: &Ctx) -> Test {
    let data = vec![floats(&mut JavaRandom::perf(), ctx.count)];
    reflect(ctx, "ReflectFloat", FLOAT_ARRAY, data, |a, out| {
        put_float_array(a, out)
    })
}

/// ReflectDouble: one datum, a double array of COUNT doubles.
fn reflect_double_test(ctx: &Ctx) -> Test {
    let mut r = JavaRandom::perf();
    let data: Vec<Vec<f64>> = vec![(0..ctx.count).map(|_| r.next_double()).collect()];
    reflect(ctx, "ReflectDouble", DOUBLE_ARRAY, data, |a, out| {
        put_double_array(a, out)
    })
}

/// Datums of `smallArraySize` items each, drawn by `item`.
fn small_arrays<T>(count: usize, mut item: impl FnMut(&mut JavaRandom) -> T) -> Vec<Vec<T>> {
    let mut r = JavaRandom::perf();
    (0..count)
        .map(|_| {
            let n = small_array_size(&mut r);
            (0..n).map(|_| item(&mut r)).collect()
        })
        .collect()
}

fn reflect_int_array_test(ctx: &Ctx) -> Test {
    let data = small_arrays(ctx.count / 12, JavaRandom::next_int);
    reflect(ctx, "ReflectIntArray", INT_ARRAY, data, |a, out| {
        put_int_array(a, out)
    })
}

fn reflect_long_array_test(ctx: &Ctx) -> Test {
    let data = small_arrays(ctx.count / 24, JavaRandom::next_long);
    reflect(ctx, "ReflectLongArray", LONG_ARRAY, data, |a, out| {
        put_long_array(a, out)
    })
}

fn reflect_double_array_test(ctx: &Ctx) -> Test {
    let data = small_arrays(ctx.count / 20, JavaRandom::next_double);
    reflect(ctx, "ReflectDoubleArray", DOUBLE_ARRAY, data, |a, out| {
        put_double_array(a, out)
    })
}

fn reflect_float_array_test(ctx: &Ctx) -> Test {
    let data = small_arrays(ctx.count / 10, JavaRandom::next_float);
    reflect(ctx, "ReflectFloatArray", FLOAT_ARRAY, data, |a, out| {
        put_float_array(a, out)
    })
}

/// FloatFoo: a record holding one float array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FloatFoo {
    /// floatBar
    #[serde(rename = "floatBar")]
    pub float_bar: Vec<f32>,
}

fn put_float_foo(f: &FloatFoo, out: &mut Vec<u8>) {
    put_float_array(&f.float_bar, out)
}

fn float_foos(count: usize, size: fn(&mut JavaRandom) -> usize) -> Vec<FloatFoo> {
    let mut r = JavaRandom::perf();
    (0..count)
        .map(|_| {
            let n = size(&mut r);
            FloatFoo {
                float_bar: floats(&mut r, n),
            }
        })
        .collect()
}

fn reflect_nested_float_array_test(ctx: &Ctx) -> Test {
    let data = float_foos(ctx.count / 10, small_array_size);
    reflect(
        ctx,
        "ReflectNestedFloatArray",
        FLOAT_FOO,
        data,
        put_float_foo,
    )
}

fn put_foo(f: &Foo, out: &mut Vec<u8>) {
    limit::put_array_start(out, f.bar.len());
    for v in &f.bar {
        [v.f1, v.f2, v.f3, v.f4]
            .iter()
            .for_each(|&x| limit::put_float(out, x));
    }
    limit::put_array_end(out);
}

fn reflect_nested_object_array_test(ctx: &Ctx) -> Test {
    let mut r = JavaRandom::perf();
    let data = (0..ctx.count / 50)
        .map(|_| {
            let n = small_array_size(&mut r);
            Foo {
                bar: (0..n)
                    .map(|_| Vals::from_chunk(&floats(&mut r, 4)))
                    .collect(),
            }
        })
        .collect();
    reflect(ctx, "ReflectNestedObjectArray", FOO, data, put_foo)
}

fn reflect_nested_large_test(ctx: &Ctx) -> Test {
    let data = float_foos(ctx.count / 60, large_array_size);
    reflect(
        ctx,
        "ReflectNestedLargeFloatArray",
        FLOAT_FOO,
        data,
        put_float_foo,
    )
}

/// As ReflectNestedLargeFloatArray, written by Java's blocking encoder (254-byte blocks). Every
/// library reads Java's blocked bytes; each writes its own block layout, so only a library that
/// reproduces Java's blocking rule gets the reference SHA-256 on the write row: avrokit does,
/// through `BlockingSink::java_compatible`.
fn reflect_nested_large_blocked_test(ctx: &Ctx) -> Test {
    let data = float_foos(ctx.count / 60, large_array_size);
    let bytes = limit::encode(|out| {
        data.iter()
            .for_each(|f| limit::put_blocked_float_array(out, &f.float_bar, BLOCK_BYTES))
    });
    let n = data.len();
    let data = Rc::new(data);
    let mut test = Test::new("ReflectNestedLargeFloatArrayBlocked", n, bytes).with(
        typed::avrokit_serde_blocked::<FloatFoo, FloatFoo>(FLOAT_FOO, data.clone(), n, BLOCK_BYTES),
    );
    if ctx.compare {
        test = test
            .with(
                Impl::new(Library::ApacheAvro, "serde (blocks >= 254 B)")
                    .write(apache_serde_write(
                        FLOAT_FOO,
                        data.clone(),
                        Some(BLOCK_BYTES),
                    ))
                    .read(apache_serde_read::<FloatFoo>(
                        FLOAT_FOO,
                        n,
                        peers::ReaderLife::PerCycle,
                    )),
            )
            .with(
                Impl::new(Library::SerdeAvroFast, "serde (one block)")
                    .write(saf_write(FLOAT_FOO, data))
                    .read(saf_read::<FloatFoo>(FLOAT_FOO, n)),
            );
    }
    test
}
