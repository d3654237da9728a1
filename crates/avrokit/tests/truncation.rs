//! Every strict prefix of a valid datum is an end-of-input error (STYLE rule 14): never a
//! value, never another kind of error, and the error's offset lies within the input. Checked
//! through every source, for `read_value` and for `skip_value`, for the plain encoding and the
//! blocked one.

mod common;

use avrokit::value::{Decimal, Duration};
use avrokit::{Schema, Value};
use common::gen::arb_case;
use common::{decode_all, each_sink, each_source, schema, skip_all};
use proptest::prelude::*;

/// Checks every strict prefix of `bytes` (a datum of `schema`).
#[track_caller]
fn every_prefix_is_eof(bytes: &[u8], schema: &Schema, what: &str) {
    for cut in 0..bytes.len() {
        let prefix = &bytes[..cut];
        for d in decode_all(prefix, schema) {
            match d.result {
                Ok(v) => panic!(
                    "{what}: {}: a value from {cut} of {} bytes ({}): {v:?}",
                    d.src,
                    bytes.len(),
                    hex::encode(bytes)
                ),
                Err(e) => {
                    assert!(
                        e.is_eof(),
                        "{what}: {}: {cut} of {} bytes ({}): not Eof: {e:?}",
                        d.src,
                        bytes.len(),
                        hex::encode(bytes)
                    );
                    let off = e
                        .offset()
                        .unwrap_or_else(|| panic!("{what}: no offset: {e:?}"));
                    assert!(
                        off <= cut as u64,
                        "{what}: {}: offset {off} > {cut}: {e:?}",
                        d.src
                    );
                }
            }
        }
        for d in skip_all(prefix, schema) {
            match d.result {
                Ok(()) => panic!(
                    "{what}: {}: skip_value succeeded on {cut} of {} bytes ({})",
                    d.src,
                    bytes.len(),
                    hex::encode(bytes)
                ),
                Err(e) => {
                    assert!(
                        e.is_eof(),
                        "{what}: {}: skip of {cut} bytes: not Eof: {e:?}",
                        d.src
                    );
                    let off = e
                        .offset()
                        .unwrap_or_else(|| panic!("{what}: no offset: {e:?}"));
                    assert!(
                        off <= cut as u64,
                        "{what}: {}: offset {off} > {cut}: {e:?}",
                        d.src
                    );
                }
            }
        }
    }
}

/// Checks every prefix of every encoding (plain and blocked) of `value`.
#[track_caller]
fn check(value: &Value, schema: &Schema, what: &str) {
    let mut seen = Vec::new();
    for (snk, bytes) in each_sink!(|enc| avrokit::value::write_value(enc, value, schema)) {
        let bytes = bytes.unwrap_or_else(|e| panic!("{what}: {snk}: {e}"));
        if !seen.contains(&bytes) {
            every_prefix_is_eof(&bytes, schema, &format!("{what} ({snk})"));
            seen.push(bytes);
        }
    }
}

const EVERYTHING: &str = r#"{
  "type": "record", "name": "Everything", "namespace": "t",
  "fields": [
    {"name": "n", "type": "null"},
    {"name": "b", "type": "boolean"},
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "by", "type": "bytes"},
    {"name": "s", "type": "string"},
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}},
    {"name": "fx", "type": {"type": "fixed", "name": "F", "size": 3}},
    {"name": "a", "type": {"type": "array", "items": "string"}},
    {"name": "m", "type": {"type": "map", "values": ["null", "long"]}},
    {"name": "u", "type": ["null", "string", "E", {"type": "record", "name": "Inner",
        "fields": [{"name": "x", "type": "F"}, {"name": "y", "type": {"type": "array", "items": "E"}}]}]},
    {"name": "inner", "type": "Inner"},
    {"name": "date", "type": {"type": "int", "logicalType": "date"}},
    {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "tu", "type": {"type": "long", "logicalType": "time-micros"}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
    {"name": "lts", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
    {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 3}},
    {"name": "decf", "type": {"type": "fixed", "name": "D8", "size": 8, "logicalType": "decimal", "precision": 18, "scale": 2}},
    {"name": "big", "type": {"type": "bytes", "logicalType": "big-decimal"}},
    {"name": "uuid", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "uuidf", "type": {"type": "fixed", "name": "U", "size": 16, "logicalType": "uuid"}},
    {"name": "dur", "type": {"type": "fixed", "name": "Dur", "size": 12, "logicalType": "duration"}}
  ]
}"#;

fn everything_value() -> Value {
    let inner = Value::Record(vec![
        Value::Fixed(vec![1, 2, 3]),
        Value::Array(vec![Value::Enum(2), Value::Enum(0)]),
    ]);
    Value::Record(vec![
        Value::Null,
        Value::Boolean(true),
        Value::Int(-300_000),
        Value::Long(i64::MIN),
        Value::Float(f32::NAN),
        Value::Double(-0.0),
        Value::Bytes(vec![0, 0xff, 0x80]),
        Value::String("€uro ünïcödé".into()),
        Value::Enum(1),
        Value::Fixed(vec![0xaa, 0xbb, 0xcc]),
        Value::Array(vec![
            Value::String("a".into()),
            Value::String(String::new()),
            Value::String("ccc".into()),
        ]),
        Value::Map(vec![
            ("k".into(), Value::Union(1, Box::new(Value::Long(1 << 40)))),
            ("".into(), Value::Union(0, Box::new(Value::Null))),
        ]),
        Value::Union(3, Box::new(inner.clone())),
        inner,
        Value::Date(-1),
        Value::TimeMillis(86_399_999),
        Value::TimeMicros(1),
        Value::TimestampNanos(i64::MAX),
        Value::LocalTimestampMillis(1_700_000_000_000),
        Value::Decimal(Decimal::from_i128(-1_234_567, 3)),
        Value::Decimal(Decimal::new(vec![0, 0, 0, 0, 0, 0, 0x30, 0x39], 2)),
        Value::BigDecimal(Decimal::from_i128(123_456_789_012_345, 7)),
        Value::Uuid(*b"0123456789abcdef"),
        Value::Uuid([0xff; 16]),
        Value::Duration(Duration {
            months: 1,
            days: 2,
            millis: u32::MAX,
        }),
    ])
}

#[test]
fn every_prefix_of_a_record_of_every_type() {
    let s = schema(EVERYTHING);
    check(&everything_value(), &s, "Everything");
}

#[test]
fn every_prefix_of_a_recursive_list() {
    let s = schema(
        r#"{"type":"record","name":"L","fields":[
            {"name":"v","type":"long"},{"name":"next","type":["null","L"]}]}"#,
    );
    let mut v = Value::Record(vec![
        Value::Long(-1),
        Value::Union(0, Box::new(Value::Null)),
    ]);
    for i in 0..5 {
        v = Value::Record(vec![Value::Long(i << 20), Value::Union(1, Box::new(v))]);
    }
    check(&v, &s, "list");
}

#[test]
fn every_prefix_of_nested_collections() {
    let s = schema(
        r#"{"type":"array","items":{"type":"map","values":{"type":"array","items":["null","double","string"]}}}"#,
    );
    let item = |k: &str| {
        Value::Map(vec![
            (
                k.into(),
                Value::Array(vec![
                    Value::Union(1, Box::new(Value::Double(1.5))),
                    Value::Union(2, Box::new(Value::String("zz".into()))),
                    Value::Union(0, Box::new(Value::Null)),
                ]),
            ),
            ("empty".into(), Value::Array(vec![])),
        ])
    };
    let v = Value::Array(vec![item("a"), Value::Map(vec![]), item("bb")]);
    check(&v, &s, "nested collections");
}

#[test]
fn every_prefix_of_zero_size_items() {
    // Items that take no bytes: only the counts and the terminator can be cut.
    let s = schema(r#"{"type":"array","items":"null"}"#);
    check(&Value::Array(vec![Value::Null; 300]), &s, "array of null");
    let s = schema(r#"{"type":"array","items":{"type":"record","name":"Empty","fields":[]}}"#);
    check(
        &Value::Array(vec![Value::Record(vec![]); 70]),
        &s,
        "array of empty records",
    );
    let s = schema(r#"{"type":"map","values":"null"}"#);
    let v = Value::Map((0..20).map(|i| (i.to_string(), Value::Null)).collect());
    check(&v, &s, "map of null");
}

#[test]
fn every_prefix_of_primitives_at_decoder_level() {
    let mut data = Vec::new();
    let mut enc = avrokit::Encoder::new(&mut data);
    enc.write_long(i64::MIN).unwrap();
    enc.write_int(i32::MAX).unwrap();
    enc.write_double(1.0).unwrap();
    enc.write_float(2.0).unwrap();
    enc.write_string("日本語").unwrap();
    enc.write_bytes(&[0; 20]).unwrap();
    enc.write_fixed(&[7; 5]).unwrap();
    enc.write_boolean(true).unwrap();
    for cut in 0..data.len() {
        for (src, r) in each_source!(&data[..cut], |dec| {
            (|| {
                dec.read_long()?;
                dec.read_int()?;
                dec.read_double()?;
                dec.read_float()?;
                dec.read_str()?;
                dec.read_bytes()?;
                dec.read_fixed(5)?;
                dec.read_boolean()
            })()
        }) {
            let e = r.expect_err("a strict prefix cannot decode");
            assert!(e.is_eof(), "{src}: cut {cut}: {e:?}");
            assert!(e.offset().unwrap() <= cut as u64, "{src}: cut {cut}: {e:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_prefix_of_random_datums((model, value) in arb_case()) {
        let s = schema(&model.json_string());
        let bytes = avrokit::to_datum_vec(&value, &s).unwrap();
        every_prefix_is_eof(&bytes, &s, &model.json_string());
    }
}
