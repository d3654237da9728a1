//! The data of the basic tests (WORKLOADS.md section 6.1): the primitive streams' generators,
//! the Array and Map data, and the two resolution tests' records and schemas.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_bytes::ByteBuf;

use crate::reference::{self, RefDatum, RefDecoder};
use crate::rng::JavaRandom;

/// The Int stream's schema.
pub const INT: &str = r#""int""#;
/// The SmallLong and Long streams' schema.
pub const LONG: &str = r#""long""#;
/// The Float stream's schema.
pub const FLOAT: &str = r#""float""#;
/// The Double stream's schema.
pub const DOUBLE: &str = r#""double""#;
/// The Boolean stream's schema.
pub const BOOLEAN: &str = r#""boolean""#;
/// The Bytes stream's schema.
pub const BYTES: &str = r#""bytes""#;
/// The String stream's schema.
pub const STRING: &str = r#""string""#;

/// Vals record shared by the Array and Map schemas.
pub const VALS: &str = r#"{"type":"record","name":"Vals","fields":[
    {"name":"f1","type":"float"},{"name":"f2","type":"float"},
    {"name":"f3","type":"float"},{"name":"f4","type":"float"}]}"#;

/// The Array test's schema: an array of `Foo`, each an array of `Vals`.
pub fn array_schema() -> String {
    format!(
        r#"{{"type":"array","items":{{"type":"record","name":"Foo","fields":[
        {{"name":"bar","type":{{"type":"array","items":{VALS}}}}}]}}}}"#
    )
}

/// The Map test's schema: a map of `Vals`.
pub fn map_schema() -> String {
    format!(r#"{{"type":"map","values":{VALS}}}"#)
}

/// ExtendedEnum's writer schema.
pub const EXTENDED_ENUM_WRITER: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f","type":{"type":"enum","name":"E","symbols":["A","B"]}}]}"#;
/// ExtendedEnum's reader schema: three more symbols.
pub const EXTENDED_ENUM_READER: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f","type":{"type":"enum","name":"E","symbols":["A","B","C","D","E"]}}]}"#;
/// UnchangedUnion's schema (writer and reader).
pub const UNCHANGED_UNION: &str =
    r#"{"type":"record","name":"R","fields":[{"name":"f","type":["null","int"]}]}"#;

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

/// Bytes data: length nextInt(70), then nextBytes.
pub fn bytes_data(count: usize) -> Vec<ByteBuf> {
    let mut r = JavaRandom::perf();
    (0..count)
        .map(|_| {
            let mut b = vec![0u8; r.next_int_bounded(70) as usize];
            r.next_bytes(&mut b);
            ByteBuf::from(b)
        })
        .collect()
}

/// `count` successive nextDouble().
pub fn double_data(count: usize) -> Vec<f64> {
    let mut r = JavaRandom::perf();
    (0..count).map(|_| r.next_double()).collect()
}

/// `count` successive nextBoolean().
pub fn boolean_data(count: usize) -> Vec<bool> {
    let mut r = JavaRandom::perf();
    (0..count).map(|_| r.next_boolean()).collect()
}

/// String data: `count` randomString.
pub fn string_data(count: usize) -> Vec<String> {
    let mut r = JavaRandom::perf();
    (0..count).map(|_| random_string(&mut r)).collect()
}

// ---------------------------------------------------------------------------------------------
// Array and Map: raw nested structures over COUNT floats

/// A `Vals` record: four floats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
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
}

/// The Array test's `Foo` record (also ReflectNestedObjectArray's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
pub struct Foo {
    /// bar
    pub bar: Vec<Vals>,
}

impl RefDatum for Vals {
    fn put(&self, out: &mut Vec<u8>) {
        [self.f1, self.f2, self.f3, self.f4]
            .iter()
            .for_each(|&x| reference::put_float(out, x));
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let f = dec.float().to_bits() ^ dec.float().to_bits();
        u64::from(f ^ dec.float().to_bits() ^ dec.float().to_bits())
    }
}

impl RefDatum for Foo {
    fn put(&self, out: &mut Vec<u8>) {
        self.bar.put(out)
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        Vec::<Vals>::get(dec)
    }
}

/// The Array test's bytes: one `Foo` holding COUNT / 4 `Vals` of the floats.
pub fn array_bytes(data: &[f32]) -> Vec<u8> {
    let groups = data.len() / 4;
    reference::encode(|out| {
        reference::put_array_start(out, 1);
        reference::put_array_start(out, groups);
        for f in data.chunks_exact(4).flatten() {
            reference::put_float(out, *f);
        }
        reference::put_array_end(out);
        reference::put_array_end(out);
    })
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

/// The Map test's bytes: COUNT / 4 entries "foo" -> `Vals` of the floats.
pub fn map_bytes(data: &[f32]) -> Vec<u8> {
    let groups = data.len() / 4;
    reference::encode(|out| {
        reference::put_array_start(out, groups);
        for c in data.chunks_exact(4) {
            reference::put_string(out, "foo");
            c.iter().for_each(|&f| reference::put_float(out, f));
        }
        reference::put_array_end(out);
    })
}

// ---------------------------------------------------------------------------------------------
// Resolution tests (read only)

/// ExtendedEnum's reader-side enum `E` (the writer has only A and B).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
#[serde(rename = "E")]
pub enum Symbol {
    /// A
    #[default]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
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

/// ExtendedEnum's bytes: one enum index per record.
pub fn extended_enum_bytes(tags: &[u32]) -> Vec<u8> {
    reference::encode(|out| tags.iter().for_each(|&t| reference::put_int(out, t as i32)))
}

/// UnchangedUnion's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
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

/// UnchangedUnion's bytes: the branch, then the int if not null.
pub fn unchanged_union_bytes(data: &[Option<i32>]) -> Vec<u8> {
    reference::encode(|out| {
        for v in data {
            match v {
                None => reference::put_int(out, 0),
                Some(v) => {
                    reference::put_int(out, 1);
                    reference::put_int(out, *v);
                }
            }
        }
    })
}
