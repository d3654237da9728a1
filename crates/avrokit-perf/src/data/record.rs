//! The data of the record tests (WORKLOADS.md section 6.2), also the Generic and ReflectRecord
//! data: six-field records, the writer schema and the three reader schemas with their
//! reader-shaped types.

use serde::{Deserialize, Serialize};

use crate::reference::{self, RefDatum, RefDecoder};
use crate::rng::JavaRandom;

/// RECORD_SCHEMA (name `R`).
pub const RECORD_SCHEMA: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"}]}"#;

/// RECORD_SCHEMA_WITH_DEFAULT (reader schema).
pub const RECORD_SCHEMA_WITH_DEFAULT: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"},
    {"name":"f7","type":"string","default":"undefined"},
    {"name":"f8","type":"string","default":"undefined"}]}"#;

/// RECORD_SCHEMA_WITH_OUT_OF_ORDER (reader schema).
pub const RECORD_SCHEMA_WITH_OUT_OF_ORDER: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f3","type":"double"},{"name":"f5","type":"int"},
    {"name":"f2","type":"double"},{"name":"f4","type":"int"},{"name":"f6","type":"int"}]}"#;

/// RECORD_SCHEMA_WITH_PROMOTION (reader schema).
pub const RECORD_SCHEMA_WITH_PROMOTION: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"long"},{"name":"f5","type":"long"},{"name":"f6","type":"long"}]}"#;

/// A record of RECORD_SCHEMA's shape: also the data of Generic and ReflectRecord. Serde names
/// it `R` because apache-avro's deserializer insists on the schema's record name.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
#[serde(rename = "R")]
pub struct Rec {
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

impl Rec {
    /// Rec(r): three nextDouble() then three nextInt().
    pub fn random(r: &mut JavaRandom) -> Rec {
        Rec {
            f1: r.next_double(),
            f2: r.next_double(),
            f3: r.next_double(),
            f4: r.next_int(),
            f5: r.next_int(),
            f6: r.next_int(),
        }
    }
}

impl RefDatum for Rec {
    fn put(&self, out: &mut Vec<u8>) {
        reference::put_double(out, self.f1);
        reference::put_double(out, self.f2);
        reference::put_double(out, self.f3);
        reference::put_int(out, self.f4);
        reference::put_int(out, self.f5);
        reference::put_int(out, self.f6);
    }

    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let d = dec.double().to_bits() ^ dec.double().to_bits() ^ dec.double().to_bits();
        d ^ (dec.int() ^ dec.int() ^ dec.int()) as u64
    }
}

/// `count` x Rec(r) from a fresh generator.
pub fn rec_data(count: usize) -> Vec<Rec> {
    let mut r = JavaRandom::perf();
    (0..count).map(|_| Rec::random(&mut r)).collect()
}

/// The reference bytes of a Rec stream.
pub fn rec_bytes(data: &[Rec]) -> Vec<u8> {
    reference::encode_all(data)
}

/// RecordWithDefault's reader shape: f7 and f8 take their default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
#[serde(rename = "R")]
pub struct RecWithDefault {
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
    /// f7, default "undefined"
    #[serde(default = "undefined")]
    #[avro(default = r#""undefined""#)]
    pub f7: String,
    /// f8, default "undefined"
    #[serde(default = "undefined")]
    #[avro(default = r#""undefined""#)]
    pub f8: String,
}

fn undefined() -> String {
    "undefined".to_owned()
}

/// RecordWithOutOfOrder's reader shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
#[serde(rename = "R")]
pub struct RecOutOfOrder {
    /// f1
    pub f1: f64,
    /// f3
    pub f3: f64,
    /// f5
    pub f5: i32,
    /// f2
    pub f2: f64,
    /// f4
    pub f4: i32,
    /// f6
    pub f6: i32,
}

/// RecordWithPromotion's reader shape: the ints become longs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
#[serde(rename = "R")]
pub struct RecPromoted {
    /// f1
    pub f1: f64,
    /// f2
    pub f2: f64,
    /// f3
    pub f3: f64,
    /// f4
    pub f4: i64,
    /// f5
    pub f5: i64,
    /// f6
    pub f6: i64,
}
