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
        r#"{"name":"demo.sensors.Reading","type":"record","fields":[{"name":"sensor","type":"string"},{"name":"at","type":"long"},{"name":"values","type":{"type":"array","items":"float"}},{"name":"note","type":["null","string"]},{"name":"blob","type":"bytes"},{"name":"id","type":{"name":"demo.sensors.Reading_id","type":"fixed","size":4}},{"name":"attrs","type":{"type":"map","values":"int"}},{"name":"raw","type":"bytes"}]}"#
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

// Two `[u8; 16]` fields, a named fixed shared by two fields, and nested types in other
// namespaces using fixed types of the same size.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[avro(namespace = "a")]
struct Keys {
    k1: [u8; 16],
    k2: [u8; 16],
    #[avro(fixed_name = "Md5")]
    h1: [u8; 16],
    #[avro(fixed_name = "Md5")]
    h2: Option<[u8; 16]>,
    inner: InnerB,
    more: Vec<[u8; 16]>,
    again: InnerB,
    user: UserFixed16,
    point: Point,
    other: OtherNs,
    hash: Hash,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[avro(namespace = "b")]
struct InnerB {
    k: [u8; 16],
    #[avro(fixed_name = "Md5")]
    h: [u8; 16],
}

// A record that takes the name the `[u8; 16]` impl gives a fixed.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[avro(name = "fixed_16")]
struct UserFixed16 {
    x: i32,
}

// Uses `Point` (no namespace of its own) again, from another namespace.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[avro(namespace = "c")]
struct OtherNs {
    p: Point,
}

// A newtype of `[u8; N]` is a fixed named after it.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[avro(namespace = "h")]
struct Hash([u8; 8]);

const KEYS: &str = r#"{"type":"record","name":"Keys","namespace":"a","fields":[
    {"name":"k1","type":{"type":"fixed","name":"Keys_k1","size":16}},
    {"name":"k2","type":{"type":"fixed","name":"Keys_k2","size":16}},
    {"name":"h1","type":{"type":"fixed","name":"Md5","size":16}},
    {"name":"h2","type":["null","a.Md5"]},
    {"name":"inner","type":{"type":"record","name":"InnerB","namespace":"b","fields":[
        {"name":"k","type":{"type":"fixed","name":"InnerB_k","size":16}},
        {"name":"h","type":{"type":"fixed","name":"Md5","size":16}}]}},
    {"name":"more","type":{"type":"array","items":{"type":"fixed","name":"Keys_more","size":16}}},
    {"name":"again","type":"b.InnerB"},
    {"name":"user","type":{"type":"record","name":"fixed_16","fields":[
        {"name":"x","type":"int"}]}},
    {"name":"point","type":{"type":"record","name":"Point","fields":[
        {"name":"x","type":"double"},{"name":"y","type":"double"}]}},
    {"name":"other","type":{"type":"record","name":"OtherNs","namespace":"c","fields":[
        {"name":"p","type":"a.Point"}]}},
    {"name":"hash","type":{"type":"fixed","name":"Hash","namespace":"h","size":8}}]}"#;

#[test]
fn fixed_types_are_named_after_their_field_and_defined_once() {
    let s = Keys::schema();
    let expected = Schema::parse_str(KEYS).unwrap();
    assert_eq!(s.canonical_form(), expected.canonical_form());
    assert_eq!(json(&s), json(&expected));
    let j = json(&s);
    assert_eq!(j["fields"][3]["type"], serde_json::json!(["null", "Md5"]));
    assert_eq!(j["fields"][6]["type"], "b.InnerB");

    let inner = |n: u8| InnerB {
        k: [n; 16],
        h: [n + 1; 16],
    };
    let k = Keys {
        k1: [1; 16],
        k2: [2; 16],
        h1: [3; 16],
        h2: Some([4; 16]),
        inner: inner(5),
        more: vec![[7; 16], [8; 16]],
        again: inner(9),
        user: UserFixed16 { x: -1 },
        point: Point { x: 0.5, y: 1.5 },
        other: OtherNs {
            p: Point { x: 2.0, y: 3.0 },
        },
        hash: Hash([0xab; 8]),
    };
    let bytes = round_trip(&k);
    let f = |n: u8| Value::Fixed(vec![n; 16]);
    let rec_inner = |n: u8| Value::Record(vec![f(n), f(n + 1)]);
    let point = |x, y| Value::Record(vec![Value::Double(x), Value::Double(y)]);
    let v = Value::Record(vec![
        f(1),
        f(2),
        f(3),
        Value::Union(1, Box::new(f(4))),
        rec_inner(5),
        Value::Array(vec![f(7), f(8)]),
        rec_inner(9),
        Value::Record(vec![Value::Int(-1)]),
        point(0.5, 1.5),
        Value::Record(vec![point(2.0, 3.0)]),
        Value::Fixed(vec![0xab; 8]),
    ]);
    assert_eq!(bytes, avrokit::to_datum_vec(&v, &s).unwrap());
}

#[derive(AvroSchema)]
#[allow(dead_code)]
struct Clash {
    #[avro(fixed_name = "Digest")]
    a: [u8; 16],
    #[avro(fixed_name = "Digest")]
    b: [u8; 32],
}

#[test]
#[should_panic(expected = "two types are named Digest")]
fn one_fixed_name_for_two_sizes_panics() {
    let _ = Clash::schema();
}

mod other {
    #[derive(avrokit::AvroSchema)]
    #[allow(dead_code)]
    pub struct Point {
        pub z: i32,
    }
}

#[derive(AvroSchema)]
#[allow(dead_code)]
struct TwoPoints {
    a: Point,
    b: other::Point,
}

#[test]
#[should_panic(expected = "two types are named Point")]
fn two_rust_types_with_one_avro_name_panic() {
    let _ = TwoPoints::schema();
}

#[test]
fn the_standard_fixed_impl_is_namespaced() {
    // `[u8; N]` outside a derived field is `fixed_N` in the enclosing namespace: a second use
    // in another namespace is another type, a use in the same one a reference.
    #[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
    #[avro(namespace = "x")]
    struct G {
        a: Wrapper<[u8; 2]>,
        b: Wrapper2,
    }
    #[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
    #[avro(namespace = "y")]
    struct Wrapper2 {
        c: Wrapper<[u8; 2]>,
    }
    let s = G::schema();
    assert_eq!(
        s.canonical_form(),
        r#"{"name":"x.G","type":"record","fields":[{"name":"a","type":{"name":"x.Wrapper","type":"record","fields":[{"name":"inner","type":{"name":"x.fixed_2","type":"fixed","size":2}}]}},{"name":"b","type":{"name":"y.Wrapper2","type":"record","fields":[{"name":"c","type":"x.Wrapper"}]}}]}"#
    );
    // `Wrapper` is defined in namespace x; its second use refers to it by fullname.
    assert_eq!(
        json(&s)["fields"][1]["type"]["fields"][0]["type"],
        "x.Wrapper"
    );
    round_trip(&G {
        a: Wrapper { inner: [1, 2] },
        b: Wrapper2 {
            c: Wrapper { inner: [3, 4] },
        },
    });
}
