//! `#[derive(AvroSchema)]`: the schemas of every supported shape, and serde round trips through
//! them (byte-equal to the `Value` encoding).

use std::collections::HashMap;
use std::fmt::Debug;

use avrokit::serde::{from_datum_slice, to_datum_vec, DePlan, SerPlan};
use avrokit::{AvroSchema, Schema, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[track_caller]
fn round_trip<T>(v: &T) -> Vec<u8>
where
    T: AvroSchema + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let schema = T::schema();
    let bytes = to_datum_vec(v, &SerPlan::compile(&schema).unwrap()).unwrap();
    let back: T = from_datum_slice(&bytes, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(&back, v);
    bytes
}

fn json(s: &Schema) -> serde_json::Value {
    s.to_json()
}

/// A reading.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[avro(namespace = "demo.sensors")]
struct Reading {
    /// Which sensor.
    sensor: String,
    #[avro(logical_type = "timestamp-millis")]
    at: i64,
    values: Vec<f32>,
    note: Option<String>,
    blob: Vec<u8>,
    id: [u8; 4],
    attrs: HashMap<String, i32>,
    #[serde(with = "serde_bytes")]
    raw: Vec<u8>,
}

#[test]
fn struct_schema() {
    let s = Reading::schema();
    assert_eq!(
        s.canonical_form(),
        r#"{"name":"demo.sensors.Reading","type":"record","fields":[{"name":"sensor","type":"string"},{"name":"at","type":"long"},{"name":"values","type":{"type":"array","items":"float"}},{"name":"note","type":["null","string"]},{"name":"blob","type":"bytes"},{"name":"id","type":{"name":"demo.sensors.fixed_4","type":"fixed","size":4}},{"name":"attrs","type":{"type":"map","values":"int"}},{"name":"raw","type":"bytes"}]}"#
    );
    let j = json(&s);
    assert_eq!(j["doc"], "A reading.");
    assert_eq!(j["fields"][0]["doc"], "Which sensor.");
    assert_eq!(j["fields"][1]["type"]["logicalType"], "timestamp-millis");
    let r = Reading {
        sensor: "t".into(),
        at: 1_700_000_000_000,
        values: vec![1.0, 2.0],
        note: Some("n".into()),
        blob: vec![1, 2],
        id: [9, 8, 7, 6],
        attrs: [("k".to_owned(), 5)].into_iter().collect(),
        raw: vec![0xff],
    };
    let bytes = round_trip(&r);
    let v = Value::Record(vec![
        Value::String("t".into()),
        Value::Long(1_700_000_000_000),
        Value::Array(vec![Value::Float(1.0), Value::Float(2.0)]),
        Value::Union(1, Box::new(Value::String("n".into()))),
        Value::Bytes(vec![1, 2]),
        Value::Fixed(vec![9, 8, 7, 6]),
        Value::Map(vec![("k".into(), Value::Int(5))]),
        Value::Bytes(vec![0xff]),
    ]);
    assert_eq!(bytes, avrokit::to_datum_vec(&v, &s).unwrap());
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Suit {
    Spades,
    BigHearts,
    #[serde(other)]
    Unknown,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
enum Shape {
    Nothing,
    Circle { center: Point, r: f64 },
    At(Point),
    Count(i64),
}

#[test]
fn enums() {
    assert_eq!(
        Suit::schema().canonical_form(),
        r#"{"name":"Suit","type":"enum","symbols":["SPADES","BIG_HEARTS","UNKNOWN"]}"#
    );
    assert_eq!(json(&Suit::schema())["default"], "UNKNOWN");
    round_trip(&Suit::BigHearts);
    round_trip(&Some(Suit::Spades));

    assert_eq!(
        Shape::schema().canonical_form(),
        r#"[{"name":"Nothing","type":"record","fields":[]},{"name":"Circle","type":"record","fields":[{"name":"center","type":{"name":"Point","type":"record","fields":[{"name":"x","type":"double"},{"name":"y","type":"double"}]}},{"name":"r","type":"double"}]},"Point","long"]"#
    );
    for s in [
        Shape::Nothing,
        Shape::Circle {
            center: Point { x: 1.0, y: 2.0 },
            r: 3.0,
        },
        Shape::At(Point { x: -1.0, y: 0.0 }),
        Shape::Count(7),
    ] {
        round_trip(&s);
    }
}

/// Recursive, generic, renamed, with defaults and skips.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "LinkedList", rename_all = "camelCase")]
struct List {
    item_value: i64,
    next_node: Option<Box<List>>,
    #[serde(skip)]
    cached: u32,
    #[serde(default)]
    count: i32,
    #[serde(rename = "label", default = "default_label")]
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<String>,
    #[avro(default = r#""fallback""#)]
    explicit: String,
}

fn default_label() -> String {
    "none".into()
}

#[test]
fn recursion_renames_defaults_and_skips() {
    let s = List::schema();
    let j = json(&s);
    assert_eq!(j["name"], "LinkedList");
    let names: Vec<_> = j["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].clone())
        .collect();
    assert_eq!(
        names,
        [
            "itemValue",
            "nextNode",
            "count",
            "label",
            "extra",
            "explicit"
        ]
    );
    assert_eq!(
        j["fields"][1]["type"],
        serde_json::json!(["null", "LinkedList"])
    );
    assert_eq!(j["fields"][2]["default"], 0);
    assert_eq!(j["fields"][3]["default"], "none");
    assert_eq!(j["fields"][4]["default"], serde_json::Value::Null);
    assert_eq!(j["fields"][5]["default"], "fallback");
    let l = List {
        item_value: 1,
        next_node: Some(Box::new(List {
            item_value: 2,
            next_node: None,
            cached: 0,
            count: 0,
            name: "b".into(),
            extra: None,
            explicit: String::new(),
        })),
        cached: 0,
        count: 3,
        name: "a".into(),
        extra: Some("e".into()),
        explicit: "x".into(),
    };
    round_trip(&l);
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Twice {
    a: Point,
    b: Point,
    c: Option<Point>,
    d: Vec<[u8; 2]>,
    e: [u8; 2],
}

#[test]
fn named_types_used_twice_are_referenced() {
    let j = json(&Twice::schema());
    assert_eq!(j["fields"][1]["type"], "Point");
    assert_eq!(j["fields"][2]["type"], serde_json::json!(["null", "Point"]));
    round_trip(&Twice {
        a: Point { x: 1.0, y: 1.0 },
        b: Point { x: 2.0, y: 2.0 },
        c: None,
        d: vec![[1, 2]],
        e: [3, 4],
    });
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Wrapper<T> {
    inner: T,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Meters(f64);

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Money {
    #[avro(logical_type = "decimal", precision = 10, scale = 2)]
    #[serde(with = "serde_bytes")]
    amount: Vec<u8>,
    #[avro(logical_type = "date")]
    day: Option<i32>,
}

#[test]
fn generics_newtypes_logical_types() {
    assert_eq!(
        <Wrapper<i64>>::schema().canonical_form(),
        r#"{"name":"Wrapper","type":"record","fields":[{"name":"inner","type":"long"}]}"#
    );
    assert_eq!(Meters::schema().canonical_form(), r#""double""#);
    round_trip(&Wrapper { inner: Meters(2.5) });
    let j = json(&Money::schema());
    assert_eq!(j["fields"][0]["type"]["logicalType"], "decimal");
    assert_eq!(j["fields"][0]["type"]["precision"], 10);
    assert_eq!(j["fields"][0]["type"]["scale"], 2);
    assert_eq!(j["fields"][1]["type"][1]["logicalType"], "date");
    round_trip(&Money {
        amount: vec![0x01, 0x00],
        day: Some(19000),
    });
}
