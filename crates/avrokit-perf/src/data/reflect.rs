//! The data of the reflect tests (WORKLOADS.md section 6.6): Java's reflect datum writer and
//! reader over plain objects; serde derive structs and `Vec`s of primitives here.

use serde::{Deserialize, Serialize};

use crate::data::basic::{floats, Foo, Vals};
use crate::data::record::Rec;
use crate::reference::{self, RefDatum, RefDecoder};
use crate::rng::JavaRandom;

/// ReflectRecord's schema: RECORD_SCHEMA named `Rec`.
pub const REC_SCHEMA: &str = r#"{"type":"record","name":"Rec","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"}]}"#;

/// ReflectBigRecord's schema.
pub const BIG_RECORD_SCHEMA: &str = r#"{"type":"record","name":"Rec1","fields":[
    {"name":"d1","type":"double"},{"name":"d11","type":"double"},
    {"name":"f2","type":"float"},{"name":"f22","type":"float"},
    {"name":"f3","type":"int"},{"name":"f33","type":"int"},
    {"name":"f4","type":"long"},{"name":"f44","type":"long"},
    {"name":"f5","type":"int"},{"name":"f55","type":"int"},
    {"name":"f6","type":"int"},{"name":"f66","type":"int"}]}"#;

/// ReflectFloat's and ReflectFloatArray's schema.
pub const FLOAT_ARRAY: &str = r#"{"type":"array","items":"float"}"#;
/// ReflectDouble's and ReflectDoubleArray's schema.
pub const DOUBLE_ARRAY: &str = r#"{"type":"array","items":"double"}"#;
/// ReflectIntArray's schema.
pub const INT_ARRAY: &str = r#"{"type":"array","items":"int"}"#;
/// ReflectLongArray's schema.
pub const LONG_ARRAY: &str = r#"{"type":"array","items":"long"}"#;

/// The nested float array tests' schema.
pub const FLOAT_FOO: &str = r#"{"type":"record","name":"FloatFoo","fields":[
    {"name":"floatBar","type":{"type":"array","items":"float"}}]}"#;

/// ReflectNestedObjectArray's schema.
pub const FOO: &str = r#"{"type":"record","name":"Foo","fields":[{"name":"bar","type":{"type":"array",
    "items":{"type":"record","name":"Vals","fields":[{"name":"f1","type":"float"},
    {"name":"f2","type":"float"},{"name":"f3","type":"float"},{"name":"f4","type":"float"}]}}}]}"#;

/// Java's BlockingBinaryEncoder buffer size in the Blocked test.
pub const BLOCK_BYTES: usize = 254;

/// smallArraySize: nextInt(15) + 1.
pub fn small_array_size(r: &mut JavaRandom) -> usize {
    r.next_int_bounded(15) as usize + 1
}

/// largeArraySize: nextInt(97) + 16.
pub fn large_array_size(r: &mut JavaRandom) -> usize {
    r.next_int_bounded(97) as usize + 16
}

/// ReflectRecord's class `Rec`: the Rec fields under the record name `Rec` (a separate type only
/// because apache-avro's deserializer checks the record name).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
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
    /// The Rec fields under ReflectRecord's record name.
    pub fn from_rec(r: Rec) -> Self {
        ReflectRec {
            f1: r.f1,
            f2: r.f2,
            f3: r.f3,
            f4: r.f4,
            f5: r.f5,
            f6: r.f6,
        }
    }
}

impl RefDatum for ReflectRec {
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
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        Rec::get(dec)
    }
}

/// ReflectBigRecord's class `Rec1`; the byte and short fields are Avro ints.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
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
}

impl RefDatum for BigRec {
    fn put(&self, out: &mut Vec<u8>) {
        reference::put_double(out, self.d1);
        reference::put_double(out, self.d11);
        reference::put_float(out, self.f2);
        reference::put_float(out, self.f22);
        reference::put_int(out, self.f3);
        reference::put_int(out, self.f33);
        reference::put_long(out, self.f4);
        reference::put_long(out, self.f44);
        for v in [
            self.f5.into(),
            self.f55.into(),
            self.f6.into(),
            self.f66.into(),
        ] {
            reference::put_int(out, v);
        }
    }

    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let mut acc = dec.double().to_bits() ^ dec.double().to_bits();
        acc ^= u64::from(dec.float().to_bits() ^ dec.float().to_bits());
        acc ^= (dec.int() ^ dec.int()) as u64;
        acc ^= (dec.long() ^ dec.long()) as u64;
        acc ^ (dec.int() ^ dec.int() ^ dec.int() ^ dec.int()) as u64
    }
}

/// Datums of `smallArraySize` items each, drawn by `item`.
pub fn small_arrays<T>(count: usize, mut item: impl FnMut(&mut JavaRandom) -> T) -> Vec<Vec<T>> {
    let mut r = JavaRandom::perf();
    (0..count)
        .map(|_| {
            let n = small_array_size(&mut r);
            (0..n).map(|_| item(&mut r)).collect()
        })
        .collect()
}

/// FloatFoo: a record holding one float array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
pub struct FloatFoo {
    /// floatBar
    #[serde(rename = "floatBar")]
    pub float_bar: Vec<f32>,
}

impl RefDatum for FloatFoo {
    fn put(&self, out: &mut Vec<u8>) {
        self.float_bar.put(out)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        Vec::<f32>::get(dec)
    }
}

/// `count` FloatFoos of `size` floats each.
pub fn float_foos(count: usize, size: fn(&mut JavaRandom) -> usize) -> Vec<FloatFoo> {
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

/// ReflectNestedObjectArray's data: `count` Foos of smallArraySize `Vals`.
pub fn foo_data(count: usize) -> Vec<Foo> {
    let mut r = JavaRandom::perf();
    (0..count)
        .map(|_| {
            let n = small_array_size(&mut r);
            Foo {
                bar: (0..n)
                    .map(|_| Vals::from_chunk(&floats(&mut r, 4)))
                    .collect(),
            }
        })
        .collect()
}

/// BigRecord's data: `count` records.
pub fn big_rec_data(count: usize) -> Vec<BigRec> {
    let mut r = JavaRandom::perf();
    (0..count).map(|_| BigRec::random(&mut r)).collect()
}
