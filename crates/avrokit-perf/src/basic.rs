//! Basic tests (batch `-basic`, WORKLOADS.md section 6.1): streams of primitives through the
//! low-level `Encoder`/`Decoder`, one call per value, plus Array, Map and the two resolution
//! tests ExtendedEnum and UnchangedUnion (generic Values read through a resolution plan, as
//! Java reads them with a generic datum reader over a resolving decoder).

use std::hint::black_box;
use std::rc::Rc;

use avrokit::{Decoder, Encoder};
use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_bytes::ByteBuf;

use crate::generic;
use crate::harness::{reader, writer, Ctx, Impl, Library, Spec, Test};
use crate::limit::{self, check_consumed, RefDecoder};
use crate::peers::{self, arecord, AValue};
use crate::rng::JavaRandom;

/// Vals record shared by the Array and Map schemas.
const VALS: &str = r#"{"type":"record","name":"Vals","fields":[
    {"name":"f1","type":"float"},{"name":"f2","type":"float"},
    {"name":"f3","type":"float"},{"name":"f4","type":"float"}]}"#;

fn array_schema() -> String {
    format!(
        r#"{{"type":"array","items":{{"type":"record","name":"Foo","fields":[
        {{"name":"bar","type":{{"type":"array","items":{VALS}}}}}]}}}}"#
    )
}

fn map_schema() -> String {
    format!(r#"{{"type":"map","values":{VALS}}}"#)
}

const EXTENDED_ENUM_WRITER: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f","type":{"type":"enum","name":"E","symbols":["A","B"]}}]}"#;
const EXTENDED_ENUM_READER: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f","type":{"type":"enum","name":"E","symbols":["A","B","C","D","E"]}}]}"#;
const UNCHANGED_UNION: &str =
    r#"{"type":"record","name":"R","fields":[{"name":"f","type":["null","int"]}]}"#;

/// The basic tests, in registration order.
pub fn specs() -> Vec<Spec> {
    let s = |flag, name, has_write, build| Spec {
        flag,
        name,
        batch: "-basic",
        has_write,
        build,
    };
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

// ---------------------------------------------------------------------------------------------
// Data generators (each starts a fresh generator, as every Java test does)

/// Int data: groups of nextInt(50), nextInt(5000), nextInt(500000), nextInt(150000000).
pub fn int_data(count: usize) -> Vec<i32> {
    let mut r = JavaRandom::perf();
    let mut v = Vec::with_capacity(count);
    for _ in 0..count / 4 {
        v.push(r.next_int_bounded(50));
        v.push(r.next_int_bounded(5000));
        v.push(r.next_int_bounded(500_000));
        v.push(r.next_int_bounded(150_000_000));
    }
    v
}

/// Long data: groups of nextLong() rem 0x7F, 0x1FFFFF, 0x3FFFFFFFF, 0x1FFFFFFFFFFFF (truncated
/// remainder, so about half negative); then the last 16 replaced by plain nextLong() values.
pub fn long_data(count: usize) -> Vec<i64> {
    let mut r = JavaRandom::perf();
    let mut v = Vec::with_capacity(count);
    for _ in 0..count / 4 {
        v.push(r.next_long() % 0x7F);
        v.push(r.next_long() % 0x1F_FFFF);
        v.push(r.next_long() % 0x3_FFFF_FFFF);
        v.push(r.next_long() % 0x1_FFFF_FFFF_FFFF);
    }
    let tail = v.len().saturating_sub(16);
    for x in &mut v[tail..] {
        *x = r.next_long();
    }
    v
}

/// `n` successive nextFloat().
pub fn floats(r: &mut JavaRandom, n: usize) -> Vec<f32> {
    (0..n).map(|_| r.next_float()).collect()
}

/// randomString: length nextInt(70), letters 'a' + nextInt(25).
pub fn random_string(r: &mut JavaRandom) -> String {
    let len = r.next_int_bounded(70) as usize;
    (0..len)
        .map(|_| char::from(b'a' + r.next_int_bounded(25) as u8))
        .collect()
}

fn bytes_data(count: usize) -> Vec<ByteBuf> {
    let mut r = JavaRandom::perf();
    (0..count)
        .map(|_| {
            let mut b = vec![0u8; r.next_int_bounded(70) as usize];
            r.next_bytes(&mut b);
            ByteBuf::from(b)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Primitive streams: Int, SmallLong, Long, Float, Double, Boolean, Bytes, String

/// A value type of the primitive stream tests, and how each library writes and reads one.
trait Primitive: Serialize + DeserializeOwned + 'static {
    /// The test's schema.
    const SCHEMA: &'static str;
    /// Reference encoder.
    fn put(&self, out: &mut Vec<u8>);
    /// Reference decoder; returns something derived from the value so it is not optimised out.
    fn get(dec: &mut RefDecoder<'_>) -> u64;
    /// avrokit: one Encoder call.
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()>;
    /// avrokit: one Decoder call; `scratch` is the reused holder of the Bytes test.
    fn read(dec: &mut Decoder<'_>, scratch: &mut Vec<u8>) -> avrokit::Result<()>;
    /// The apache-avro value.
    fn value(&self) -> AValue;
}

impl Primitive for i32 {
    const SCHEMA: &'static str = r#""int""#;
    fn put(&self, out: &mut Vec<u8>) {
        limit::put_int(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.int() as u64
    }
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_int(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        black_box(dec.read_int()?);
        Ok(())
    }
    fn value(&self) -> AValue {
        AValue::Int(*self)
    }
}

impl Primitive for i64 {
    const SCHEMA: &'static str = r#""long""#;
    fn put(&self, out: &mut Vec<u8>) {
        limit::put_long(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.long() as u64
    }
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_long(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        black_box(dec.read_long()?);
        Ok(())
    }
    fn value(&self) -> AValue {
        AValue::Long(*self)
    }
}

impl Primitive for f32 {
    const SCHEMA: &'static str = r#""float""#;
    fn put(&self, out: &mut Vec<u8>) {
        limit::put_float(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        u64::from(dec.float().to_bits())
    }
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_float(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        // Java throws FloatRead's results away and the JIT deletes much of the work; we keep
        // every value alive so the row measures decoding.
        black_box(dec.read_float()?);
        Ok(())
    }
    fn value(&self) -> AValue {
        AValue::Float(*self)
    }
}

impl Primitive for f64 {
    const SCHEMA: &'static str = r#""double""#;
    fn put(&self, out: &mut Vec<u8>) {
        limit::put_double(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.double().to_bits()
    }
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_double(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        black_box(dec.read_double()?);
        Ok(())
    }
    fn value(&self) -> AValue {
        AValue::Double(*self)
    }
}

impl Primitive for bool {
    const SCHEMA: &'static str = r#""boolean""#;
    fn put(&self, out: &mut Vec<u8>) {
        limit::put_boolean(out, *self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        u64::from(dec.boolean())
    }
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_boolean(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        black_box(dec.read_boolean()?);
        Ok(())
    }
    fn value(&self) -> AValue {
        AValue::Boolean(*self)
    }
}

impl Primitive for ByteBuf {
    const SCHEMA: &'static str = r#""bytes""#;
    fn put(&self, out: &mut Vec<u8>) {
        limit::put_bytes(out, self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.bytes().len() as u64
    }
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_bytes(self)
    }
    fn read(dec: &mut Decoder<'_>, scratch: &mut Vec<u8>) -> avrokit::Result<()> {
        // Java copies each value into one reused buffer; so do we (borrowing would skip the copy).
        dec.read_bytes_into(scratch)?;
        black_box(&scratch);
        Ok(())
    }
    fn value(&self) -> AValue {
        AValue::Bytes(self.to_vec())
    }
}

impl Primitive for String {
    const SCHEMA: &'static str = r#""string""#;
    fn put(&self, out: &mut Vec<u8>) {
        limit::put_string(out, self)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.string().len() as u64
    }
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_string(self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        // Java decodes into a reused Utf8 and then makes a java.lang.String: one validated
        // decode and one allocation per value, as here.
        black_box(dec.read_string()?);
        Ok(())
    }
    fn value(&self) -> AValue {
        AValue::String(self.clone())
    }
}

/// A stream of `data.len()` primitives.
fn stream<T: Primitive>(ctx: &Ctx, name: &'static str, data: Vec<T>, limit: bool) -> Test {
    let data = Rc::new(data);
    let n = data.len();
    let bytes = limit::encode(|out| data.iter().for_each(|v| v.put(out)));
    let avrokit = Impl::new(Library::Avrokit, "Encoder")
        .write(writer({
            let data = data.clone();
            move |out| {
                let mut enc = Encoder::new(out);
                for v in data.iter() {
                    v.write(&mut enc)?;
                }
                enc.flush()?;
                Ok(())
            }
        }))
        .read(reader(move |input| {
            let mut dec = Decoder::from_slice(input);
            let mut scratch = Vec::with_capacity(70);
            for _ in 0..n {
                T::read(&mut dec, &mut scratch)?;
            }
            check_consumed(dec.rest().len())
        }));
    let mut test = Test::new(name, n, bytes).with(avrokit);
    if limit {
        let d = data.clone();
        test = limit::with_limit(
            test,
            move |out| d.iter().for_each(|v| v.put(out)),
            move |dec| (0..n).fold(0u64, |acc, _| acc ^ T::get(dec)),
        );
    }
    if ctx.compare {
        test = test.with_all(peers::all_peers::<T, T>(T::SCHEMA, data, T::value));
    }
    test
}

fn int_test(ctx: &Ctx) -> Test {
    stream(ctx, "Int", int_data(ctx.count), true)
}

fn small_long_test(ctx: &Ctx) -> Test {
    let data = int_data(ctx.count).into_iter().map(i64::from).collect();
    stream(ctx, "SmallLong", data, false)
}

fn long_test(ctx: &Ctx) -> Test {
    stream(ctx, "Long", long_data(ctx.count), false)
}

fn float_test(ctx: &Ctx) -> Test {
    stream(
        ctx,
        "Float",
        floats(&mut JavaRandom::perf(), ctx.count),
        false,
    )
}

fn double_test(ctx: &Ctx) -> Test {
    let mut r = JavaRandom::perf();
    let data = (0..ctx.count).map(|_| r.next_double()).collect();
    stream(ctx, "Double", data, false)
}

fn boolean_test(ctx: &Ctx) -> Test {
    let mut r = JavaRandom::perf();
    let data = (0..ctx.count).map(|_| r.next_boolean()).collect();
    stream(ctx, "Boolean", data, false)
}

fn bytes_test(ctx: &Ctx) -> Test {
    stream(ctx, "Bytes", bytes_data(ctx.count / 5), false)
}

fn string_test(ctx: &Ctx) -> Test {
    let mut r = JavaRandom::perf();
    let data = (0..ctx.count / 5).map(|_| random_string(&mut r)).collect();
    stream(ctx, "String", data, false)
}

// ---------------------------------------------------------------------------------------------
// Array and Map: raw nested structures over COUNT floats

/// A `Vals` record: four floats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Vals {
    /// f1
    pub f1: f32,
    /// f2
    pub f2: f32,
    /// f3
    pub f3: f32,
    /// f4
    pub f4: f32,
}

impl Vals {
    /// Four consecutive floats.
    pub fn from_chunk(c: &[f32]) -> Self {
        Vals {
            f1: c[0],
            f2: c[1],
            f3: c[2],
            f4: c[3],
        }
    }

    /// The apache-avro record value.
    pub fn value(&self) -> AValue {
        arecord([
            ("f1", AValue::Float(self.f1)),
            ("f2", AValue::Float(self.f2)),
            ("f3", AValue::Float(self.f3)),
            ("f4", AValue::Float(self.f4)),
        ])
    }
}

/// The Array test's `Foo` record (also ReflectNestedObjectArray's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Foo {
    /// bar
    pub bar: Vec<Vals>,
}

fn array_test(ctx: &Ctx) -> Test {
    let data = Rc::new(floats(&mut JavaRandom::perf(), ctx.count));
    let groups = data.len() / 4;
    let bytes = limit::encode(|out| {
        limit::put_array_start(out, 1);
        limit::put_array_start(out, groups);
        for f in data.chunks_exact(4).flatten() {
            limit::put_float(out, *f);
        }
        limit::put_array_end(out);
        limit::put_array_end(out);
    });
    let avrokit = Impl::new(Library::Avrokit, "Encoder")
        .write(writer({
            let data = data.clone();
            move |out| {
                let mut enc = Encoder::new(out);
                enc.write_array_start(1)?;
                enc.start_item()?;
                enc.write_array_start(groups)?;
                for c in data.chunks_exact(4) {
                    enc.start_item()?;
                    for &f in c {
                        enc.write_float(f)?;
                    }
                }
                enc.write_array_end()?;
                enc.write_array_end()?;
                enc.flush()?;
                Ok(())
            }
        }))
        .read(reader(|input| {
            let mut dec = Decoder::from_slice(input);
            // As Java: the outer array is known to hold one item, read its inner array block by
            // block, then the outer array's end.
            dec.read_array_start()?;
            let mut n = dec.read_array_start()?;
            while n > 0 {
                for _ in 0..n {
                    for _ in 0..4 {
                        black_box(dec.read_float()?);
                    }
                }
                n = dec.array_next()?;
            }
            dec.array_next()?;
            check_consumed(dec.rest().len())
        }));
    let mut test = Test::new("Array", data.len(), bytes).with(avrokit);
    if ctx.compare {
        let datum = Foo {
            bar: data.chunks_exact(4).map(Vals::from_chunk).collect(),
        };
        let value = AValue::Array(vec![arecord([(
            "bar",
            AValue::Array(datum.bar.iter().map(Vals::value).collect()),
        )])]);
        let schema = array_schema();
        test = test.with(peers::apache_value(&schema, None, Some(vec![value]), 1));
        test = test.with_all(peers::serde_pair::<Vec<Foo>, Vec<Foo>>(
            &schema,
            Some(Rc::new(vec![vec![datum]])),
            1,
        ));
    }
    test
}

/// The Map test's datum: 62500 entries that all have the key "foo". A Rust map would keep one,
/// so this is a list of pairs with a hand-written serde map implementation.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatedKeyMap(pub Vec<(String, Vals)>);

impl Serialize for RepeatedKeyMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for RepeatedKeyMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RepeatedKeyMap;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<RepeatedKeyMap, A::Error> {
                let mut entries = Vec::with_capacity(m.size_hint().unwrap_or(0));
                while let Some(e) = m.next_entry()? {
                    entries.push(e);
                }
                Ok(RepeatedKeyMap(entries))
            }
        }
        d.deserialize_map(V)
    }
}

fn map_test(ctx: &Ctx) -> Test {
    let data = Rc::new(floats(&mut JavaRandom::perf(), ctx.count));
    let groups = data.len() / 4;
    let bytes = limit::encode(|out| {
        limit::put_array_start(out, groups);
        for c in data.chunks_exact(4) {
            limit::put_string(out, "foo");
            c.iter().for_each(|&f| limit::put_float(out, f));
        }
        limit::put_array_end(out);
    });
    let avrokit = Impl::new(Library::Avrokit, "Encoder")
        .write(writer({
            let data = data.clone();
            move |out| {
                let mut enc = Encoder::new(out);
                enc.write_map_start(groups)?;
                for c in data.chunks_exact(4) {
                    enc.start_item()?;
                    enc.write_string("foo")?;
                    for &f in c {
                        enc.write_float(f)?;
                    }
                }
                enc.write_map_end()?;
                enc.flush()?;
                Ok(())
            }
        }))
        .read(reader(|input| {
            let mut dec = Decoder::from_slice(input);
            // Java reads each key into one reused Utf8 holder.
            let mut key = String::new();
            let mut n = dec.read_map_start()?;
            while n > 0 {
                for _ in 0..n {
                    dec.read_string_into(&mut key)?;
                    black_box(&key);
                    for _ in 0..4 {
                        black_box(dec.read_float()?);
                    }
                }
                n = dec.map_next()?;
            }
            check_consumed(dec.rest().len())
        }));
    let mut test = Test::new("Map", data.len(), bytes).with(avrokit);
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

// ---------------------------------------------------------------------------------------------
// Resolution tests (read only)

/// ExtendedEnum's reader-side enum `E` (the writer has only A and B).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "E")]
pub enum Symbol {
    /// A
    A,
    /// B
    B,
    /// C
    C,
    /// D
    D,
    /// E
    E,
}

/// ExtendedEnum's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "R")]
pub struct EnumRecord {
    /// f
    pub f: Symbol,
}

/// The ExtendedEnum data: per record, symbol index nextInt(2).
pub fn extended_enum_data(count: usize) -> Vec<u32> {
    let mut r = JavaRandom::perf();
    (0..count).map(|_| r.next_int_bounded(2) as u32).collect()
}

fn extended_enum_test(ctx: &Ctx) -> Test {
    let tags = extended_enum_data(ctx.count);
    let bytes = limit::encode(|out| tags.iter().for_each(|&t| limit::put_int(out, t as i32)));
    let n = tags.len();
    let mut test = generic::avrokit_resolved_rows(
        Test::new("ExtendedEnum", n, bytes),
        EXTENDED_ENUM_WRITER,
        EXTENDED_ENUM_READER,
        n,
    );
    if ctx.compare {
        test = test.with_all(peers::read_peers::<EnumRecord>(
            EXTENDED_ENUM_WRITER,
            EXTENDED_ENUM_READER,
            n,
        ));
    }
    test
}

/// UnchangedUnion's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "R")]
pub struct UnionRecord {
    /// f
    pub f: Option<i32>,
}

/// The UnchangedUnion data: val = nextInt(1000000); the int if below 750000, else null.
pub fn unchanged_union_data(count: usize) -> Vec<Option<i32>> {
    let mut r = JavaRandom::perf();
    (0..count)
        .map(|_| {
            let v = r.next_int_bounded(1_000_000);
            (v < 750_000).then_some(v)
        })
        .collect()
}

fn unchanged_union_test(ctx: &Ctx) -> Test {
    let data = unchanged_union_data(ctx.count);
    let bytes = limit::encode(|out| {
        for v in &data {
            match v {
                None => limit::put_int(out, 0),
                Some(v) => {
                    limit::put_int(out, 1);
                    limit::put_int(out, *v);
                }
            }
        }
    });
    let n = data.len();
    let mut test = generic::avrokit_resolved_rows(
        Test::new("UnchangedUnion", n, bytes),
        UNCHANGED_UNION,
        UNCHANGED_UNION,
        n,
    );
    if ctx.compare {
        test = test.with_all(peers::read_peers::<UnionRecord>(
            UNCHANGED_UNION,
            UNCHANGED_UNION,
            n,
        ));
    }
    test
}
