//! The data of the generic tests (WORKLOADS.md sections 6.3 and 6.4) beyond the record tests'
//! `Rec`: GenericStrings' three-string records and GenericNested_'s records of records.

use serde::{Deserialize, Serialize};

use crate::data::basic::random_string;
use crate::data::record::Rec;
use crate::reference::{self, RefDatum, RefDecoder};
use crate::rng::JavaRandom;

/// GENERIC_STRINGS.
pub const GENERIC_STRINGS: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"string"},{"name":"f2","type":"string"},{"name":"f3","type":"string"}]}"#;

/// NESTED_RECORD_SCHEMA.
pub const NESTED_RECORD_SCHEMA: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":{"type":"record","name":"D","fields":[{"name":"dbl","type":"double"}]}},
    {"name":"f2","type":"D"},{"name":"f3","type":"D"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"}]}"#;

/// GenericStrings' record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
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

impl RefDatum for Strings3 {
    fn put(&self, out: &mut Vec<u8>) {
        reference::put_string(out, &self.f1);
        reference::put_string(out, &self.f2);
        reference::put_string(out, &self.f3);
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        (dec.string().len() ^ dec.string().len() ^ dec.string().len()) as u64
    }
}

/// NESTED_RECORD_SCHEMA's `D`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
pub struct D {
    /// dbl
    pub dbl: f64,
}

/// NESTED_RECORD_SCHEMA's record: the Rec draws with the doubles wrapped in `D`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
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
