//! The generated codecs reading data of another writer schema through a `CodecPlan`: the
//! generated code (not serde) reads it, and what it reads equals what the resolving `Value`
//! reader and the resolving serde path read from the same bytes, for every rule of the
//! specification's schema resolution: promotions, reordered, skipped and defaulted fields, enum
//! symbols and union branches remapped, nesting through arrays, maps, options and boxes.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use avrokit::codec::{self, AvroDecodeOwned, CodecPlan};
use avrokit::container::{Reader, WriterBuilder};
use avrokit::resolution::ResolvedPlan;
use avrokit::serde::DePlan;
use avrokit::value::from_datum_slice_resolved;
use avrokit::{AvroEncode, AvroSchema, Decoder, ErrorKind, Schema, Value};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Reads `bytes`, written with `writer`, as a `T` through the generated code, and checks it
/// against the `Value` and serde resolving readers and every truncation of the input.
#[track_caller]
fn resolve<T>(writer: &Schema, bytes: &[u8]) -> T
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + PartialEq + Debug,
{
    let plan = CodecPlan::<T>::reading(writer).unwrap();
    assert!(plan.is_generated(), "the generated code reads");
    assert!(!plan.is_exact(), "the writer schema is not the type's");
    let mut dec = Decoder::from_slice(bytes);
    let v: T = plan.decode(&mut dec).unwrap();
    assert!(dec.rest().is_empty(), "every byte read");

    // What the Value reader makes of the same bytes, in the reader's shape, encodes as the
    // generated code's value does.
    let reader = T::schema();
    let value =
        from_datum_slice_resolved(bytes, &ResolvedPlan::compile(writer, &reader).unwrap()).unwrap();
    assert_eq!(
        codec::to_datum_vec(&v).unwrap(),
        avrokit::to_datum_vec(&value, &reader).unwrap(),
        "the generated code and the Value reader disagree: {v:?} / {value:?}"
    );
    // And serde's resolving path reads the same value.
    let serde_v: T =
        avrokit::serde::from_datum_slice(bytes, &DePlan::resolving(writer, &reader).unwrap())
            .unwrap();
    assert_eq!(serde_v, v, "serde's resolving path reads another value");

    // The reused-value path, and readers that copy.
    let mut into: T = plan.decode(&mut Decoder::from_slice(bytes)).unwrap();
    plan.decode_into(&mut into, &mut Decoder::from_slice(bytes))
        .unwrap();
    assert_eq!(into, v);
    let copied: T = plan
        .decode(&mut Decoder::from_reader_with_capacity(1, bytes))
        .unwrap();
    assert_eq!(copied, v);

    for n in 0..bytes.len() {
        let mut dec = Decoder::from_slice(&bytes[..n]);
        if let Ok(x) = plan.decode(&mut dec) {
            panic!("a prefix of {n} bytes read as {x:?}");
        }
    }
    v
}

fn schema(json: &str) -> Schema {
    Schema::parse_str(json).unwrap()
}

fn bytes(v: &Value, s: &Schema) -> Vec<u8> {
    avrokit::to_datum_vec(v, s).unwrap()
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Promoted {
    a: i64,
    b: f32,
    c: f64,
    d: f64,
    #[serde(with = "serde_bytes")]
    e: Vec<u8>,
    f: String,
    g: f64,
    h: Vec<f64>,
    i: Vec<f32>,
    j: Vec<i64>,
}

#[test]
fn promotions() {
    let w = schema(
        r#"{"type":"record","name":"Promoted","fields":[
        {"name":"a","type":"int"},{"name":"b","type":"int"},{"name":"c","type":"long"},
        {"name":"d","type":"float"},{"name":"e","type":"string"},{"name":"f","type":"bytes"},
        {"name":"g","type":"int"},{"name":"h","type":{"type":"array","items":"float"}},
        {"name":"i","type":{"type":"array","items":"float"}},
        {"name":"j","type":{"type":"array","items":"int"}}]}"#,
    );
    let data = bytes(
        &Value::Record(vec![
            Value::Int(-7),
            Value::Int(16_777_217),
            Value::Long(i64::MAX),
            Value::Float(1.5),
            Value::String("text".into()),
            Value::Bytes(b"utf8".to_vec()),
            Value::Int(i32::MIN),
            Value::Array(vec![Value::Float(0.25), Value::Float(-3.0)]),
            Value::Array((0..70).map(|i| Value::Float(i as f32)).collect()),
            Value::Array(vec![Value::Int(1), Value::Int(-1 << 20)]),
        ]),
        &w,
    );
    let v: Promoted = resolve(&w, &data);
    assert_eq!(v.a, -7);
    assert_eq!(v.b, 16_777_216.0, "int to float rounds to nearest");
    assert_eq!(v.c, i64::MAX as f64);
    assert_eq!(v.e, b"text");
    assert_eq!(v.f, "utf8");
    assert_eq!(v.h, vec![0.25, -3.0]);
    assert_eq!(v.i.len(), 70, "a plain float array moves in bulk");
    assert_eq!(v.j, vec![1, -1 << 20]);

    // Bytes that are not UTF-8, read as a string: that datum fails, with where.
    let bad = bytes(
        &Value::Record(vec![
            Value::Int(0),
            Value::Int(0),
            Value::Long(0),
            Value::Float(0.0),
            Value::String(String::new()),
            Value::Bytes(vec![0xff, 0xfe]),
            Value::Int(0),
            Value::Array(vec![]),
            Value::Array(vec![]),
            Value::Array(vec![]),
        ]),
        &w,
    );
    let e = CodecPlan::<Promoted>::reading(&w)
        .unwrap()
        .decode(&mut Decoder::from_slice(&bad))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    assert!(e.to_string().contains('f'), "the field is named: {e}");
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum Suit {
    Hearts,
    Spades,
    Clubs,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
struct Inner {
    name: String,
    score: f64,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Evolved {
    y: i32,
    x: String,
    #[serde(default = "undefined")]
    #[avro(default = r#""undefined""#)]
    added_s: String,
    #[serde(default)]
    #[avro(default = "[1, 2]")]
    added_arr: Vec<i32>,
    #[serde(default)]
    #[avro(default = r#"{"name":"n","score":0.5}"#)]
    added_rec: Inner,
    #[serde(default)]
    #[avro(default = "null")]
    added_opt: Option<i64>,
    #[serde(default = "clubs")]
    #[avro(default = r#""Clubs""#)]
    added_enum: Suit,
    #[serde(default)]
    #[avro(default = r#"{"k":[1.5]}"#)]
    added_map: BTreeMap<String, Vec<f64>>,
    #[serde(default)]
    #[avro(default = r#""\u0001\u00ff""#)]
    added_bytes: Vec<u8>,
    #[serde(skip)]
    cache: u32,
}

fn undefined() -> String {
    "undefined".into()
}

fn clubs() -> Suit {
    Suit::Clubs
}

#[test]
fn reordered_skipped_and_defaulted_fields() {
    let w = schema(EVOLVED_WRITER);
    let old = Value::Record(vec![
        Value::Array(vec![Value::String("t1".into()), Value::String("t2".into())]),
        Value::Map(vec![(
            "k".into(),
            Value::Array(vec![Value::Long(5), Value::Long(-5)]),
        )]),
        Value::Union(1, Box::new(Value::String("s".into()))),
        Value::Fixed(vec![1, 2, 3, 4]),
    ]);
    let data = bytes(
        &Value::Record(vec![
            Value::String("hello".into()),
            old.clone(),
            Value::Int(42),
            Value::Double(2.5),
            Value::Union(1, Box::new(Value::Map(vec![("o".into(), old)]))),
        ]),
        &w,
    );
    let v: Evolved = resolve(&w, &data);
    assert_eq!(v, evolved(42, "hello"));
}

/// An `Evolved` read from a writer that has only `y` and `x`: every added field at its
/// default.
fn evolved(y: i32, x: &str) -> Evolved {
    Evolved {
        y,
        x: x.into(),
        added_s: "undefined".into(),
        added_arr: vec![1, 2],
        added_rec: Inner {
            name: "n".into(),
            score: 0.5,
        },
        added_opt: None,
        added_enum: Suit::Clubs,
        added_map: BTreeMap::from([("k".to_owned(), vec![1.5])]),
        added_bytes: vec![1, 255],
        cache: 0,
    }
}

/// The commonest evolution: the writer's fields are the reader's first ones, in order (one
/// promoted), and the fields added after them take their defaults. The generated code reads
/// such a record straight; every kind of default must come out as through the steps.
#[test]
fn fields_added_at_the_end_take_their_defaults() {
    let w = schema(
        r#"{"type":"record","name":"Evolved","fields":[
        {"name":"y","type":"int"},{"name":"x","type":"string"}]}"#,
    );
    let mut data = Vec::new();
    for (y, x) in [(7, "a"), (-1, ""), (1 << 20, "zz")] {
        data.extend(bytes(
            &Value::Record(vec![Value::Int(y), Value::String(x.into())]),
            &w,
        ));
    }
    let plan = CodecPlan::<Evolved>::reading(&w).unwrap();
    let mut dec = Decoder::from_slice(&data);
    for (y, x) in [(7, "a"), (-1, ""), (1 << 20, "zz")] {
        assert_eq!(plan.decode(&mut dec).unwrap(), evolved(y, x));
    }
    assert!(dec.rest().is_empty());
    let one = bytes(
        &Value::Record(vec![Value::Int(3), Value::String("b".into())]),
        &w,
    );
    assert_eq!(resolve::<Evolved>(&w, &one), evolved(3, "b"));

    // A promoted field among the first ones, and a default in the middle (not straight: the
    // steps place it) read alike.
    #[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
    struct Grown {
        a: i64,
        #[serde(default)]
        #[avro(default = "5")]
        mid: i32,
        b: String,
        #[serde(default)]
        #[avro(default = r#""end""#)]
        end: String,
    }
    let w = schema(
        r#"{"type":"record","name":"Grown","fields":[
        {"name":"a","type":"int"},{"name":"mid","type":"int"},{"name":"b","type":"string"}]}"#,
    );
    let data = bytes(
        &Value::Record(vec![
            Value::Int(-9),
            Value::Int(4),
            Value::String("q".into()),
        ]),
        &w,
    );
    let g: Grown = resolve(&w, &data);
    assert_eq!(
        (g.a, g.mid, g.b.as_str(), g.end.as_str()),
        (-9, 4, "q", "end")
    );
    let w = schema(
        r#"{"type":"record","name":"Grown","fields":[
        {"name":"a","type":"int"},{"name":"b","type":"string"}]}"#,
    );
    let data = bytes(
        &Value::Record(vec![Value::Int(2), Value::String("r".into())]),
        &w,
    );
    let g: Grown = resolve(&w, &data);
    assert_eq!(
        (g.a, g.mid, g.b.as_str(), g.end.as_str()),
        (2, 5, "r", "end")
    );
}

#[test]
fn enum_symbols_are_remapped_and_missing_ones_fail_or_take_the_default() {
    let w = schema(
        r#"{"type":"record","name":"Hand","fields":[
        {"name":"s","type":{"type":"enum","name":"Suit","symbols":["Diamonds","Clubs","Hearts"]}}]}"#,
    );
    #[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
    struct Hand {
        s: Suit,
    }
    let clubs = bytes(&Value::Record(vec![Value::Enum(1)]), &w);
    assert_eq!(resolve::<Hand>(&w, &clubs).s, Suit::Clubs);
    let hearts = bytes(&Value::Record(vec![Value::Enum(2)]), &w);
    assert_eq!(resolve::<Hand>(&w, &hearts).s, Suit::Hearts);
    // Diamonds: not in the reader's enum, which has no default.
    let diamonds = bytes(&Value::Record(vec![Value::Enum(0)]), &w);
    let e = CodecPlan::<Hand>::reading(&w)
        .unwrap()
        .decode(&mut Decoder::from_slice(&diamonds))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Resolution, "{e}");
    assert!(e.to_string().contains("Diamonds"), "{e}");

    // With a reader default, the missing symbol takes it.
    #[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
    #[avro(name = "Suit", enum_default = "Joker")]
    enum SuitJ {
        Hearts,
        Clubs,
        Joker,
    }
    #[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "Hand")]
    struct HandJ {
        s: SuitJ,
    }
    assert_eq!(resolve::<HandJ>(&w, &diamonds).s, SuitJ::Joker);
    assert_eq!(resolve::<HandJ>(&w, &clubs).s, SuitJ::Clubs);
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Count(i64),
    Label(String),
    Point { x: f64, y: f64 },
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Unions {
    wrapped: Option<i64>,
    narrowed: Option<i64>,
    reordered: Shape,
    bare: f64,
    #[avro(schema = r#"["long","null"]"#)]
    null_second: Option<i64>,
    shapes: Vec<Shape>,
}

#[test]
fn union_branches_are_remapped() {
    let w = schema(
        r#"{"type":"record","name":"Unions","fields":[
        {"name":"wrapped","type":"int"},
        {"name":"narrowed","type":["null","int","string"]},
        {"name":"reordered","type":[
            {"type":"record","name":"Point","fields":[{"name":"y","type":"double"},{"name":"x","type":"float"}]},
            "string","int"]},
        {"name":"bare","type":["long","float"]},
        {"name":"null_second","type":["null","int"]},
        {"name":"shapes","type":{"type":"array","items":["string","Point","long"]}}]}"#,
    );
    let point = |x: f32, y: f64| Value::Record(vec![Value::Double(y), Value::Float(x)]);
    let mk = |narrowed: Value, reordered: Value, bare: Value, null_second: Value| {
        Value::Record(vec![
            Value::Int(9),
            narrowed,
            reordered,
            bare,
            null_second,
            Value::Array(vec![
                Value::Union(1, Box::new(point(1.0, 2.0))),
                Value::Union(0, Box::new(Value::String("l".into()))),
                Value::Union(2, Box::new(Value::Long(3))),
            ]),
        ])
    };
    let a = bytes(
        &mk(
            Value::Union(1, Box::new(Value::Int(-4))),
            Value::Union(0, Box::new(point(0.5, 8.0))),
            Value::Union(0, Box::new(Value::Long(1 << 40))),
            Value::Union(1, Box::new(Value::Int(6))),
        ),
        &w,
    );
    let v: Unions = resolve(&w, &a);
    assert_eq!(
        v,
        Unions {
            wrapped: Some(9),
            narrowed: Some(-4),
            reordered: Shape::Point { x: 0.5, y: 8.0 },
            bare: (1u64 << 40) as f64,
            null_second: Some(6),
            shapes: vec![
                Shape::Point { x: 1.0, y: 2.0 },
                Shape::Label("l".into()),
                Shape::Count(3)
            ],
        }
    );
    let b = bytes(
        &mk(
            Value::Union(0, Box::new(Value::Null)),
            Value::Union(2, Box::new(Value::Int(5))),
            Value::Union(1, Box::new(Value::Float(0.25))),
            Value::Union(0, Box::new(Value::Null)),
        ),
        &w,
    );
    let v: Unions = resolve(&w, &b);
    assert_eq!(
        (v.narrowed, v.reordered, v.bare, v.null_second),
        (None, Shape::Count(5), 0.25, None)
    );
    // A writer branch the reader's union cannot hold fails only the datum that uses it.
    let c = bytes(
        &mk(
            Value::Union(2, Box::new(Value::String("no".into()))),
            Value::Union(1, Box::new(Value::String("s".into()))),
            Value::Union(1, Box::new(Value::Float(0.0))),
            Value::Union(0, Box::new(Value::Null)),
        ),
        &w,
    );
    let e = CodecPlan::<Unions>::reading(&w)
        .unwrap()
        .decode(&mut Decoder::from_slice(&c))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Resolution, "{e}");
    assert!(e.to_string().contains("narrowed"), "{e}");
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Node {
    value: i64,
    #[serde(default)]
    #[avro(default = r#""-""#)]
    label: String,
    next: Option<Box<Node>>,
    children: Vec<Node>,
    index: HashMap<String, Node>,
}

#[test]
fn recursive_types_and_collections_of_records() {
    let w = schema(
        r#"{"type":"record","name":"Node","fields":[
        {"name":"value","type":"int"},
        {"name":"index","type":{"type":"map","values":"Node"}},
        {"name":"children","type":{"type":"array","items":"Node"}},
        {"name":"next","type":["null","Node"]}]}"#,
    );
    let leaf = |v: i32| {
        Value::Record(vec![
            Value::Int(v),
            Value::Map(vec![]),
            Value::Array(vec![]),
            Value::Union(0, Box::new(Value::Null)),
        ])
    };
    let tree = Value::Record(vec![
        Value::Int(1),
        Value::Map(vec![("a".into(), leaf(2))]),
        Value::Array(vec![leaf(3), leaf(4)]),
        Value::Union(1, Box::new(leaf(5))),
    ]);
    let v: Node = resolve(&w, &bytes(&tree, &w));
    assert_eq!(v.value, 1);
    assert_eq!(v.label, "-");
    assert_eq!(v.next.as_ref().unwrap().value, 5);
    assert_eq!(v.children[1].value, 4);
    assert_eq!(v.index["a"].label, "-");
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Millis(i64);

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "Wrapper")]
struct WrapperV2 {
    at: Millis,
    id: [u8; 4],
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    maybe_blob: Option<Vec<u8>>,
    blobs: Vec<Vec<u8>>,
}

#[test]
fn newtypes_fixed_and_bytes() {
    let w = schema(
        r#"{"type":"record","name":"Wrapper","fields":[
        {"name":"at","type":"int"},
        {"name":"id","type":{"type":"fixed","name":"Wrapper_id","size":4}},
        {"name":"blob","type":"string"},
        {"name":"maybe_blob","type":"bytes"},
        {"name":"blobs","type":{"type":"array","items":"string"}}]}"#,
    );
    let data = bytes(
        &Value::Record(vec![
            Value::Int(77),
            Value::Fixed(vec![9, 8, 7, 6]),
            Value::String("b".into()),
            Value::Bytes(vec![0, 1]),
            Value::Array(vec![Value::String("x".into())]),
        ]),
        &w,
    );
    let v: WrapperV2 = resolve(&w, &data);
    assert_eq!(
        v,
        WrapperV2 {
            at: Millis(77),
            id: [9, 8, 7, 6],
            blob: b"b".to_vec(),
            maybe_blob: Some(vec![0, 1]),
            blobs: vec![b"x".to_vec()],
        }
    );
}

#[test]
fn a_borrowed_field_cannot_take_a_default_but_borrows_what_is_read() {
    #[derive(AvroSchema, Deserialize, Debug, PartialEq)]
    #[serde(rename = "R")]
    struct R<'a> {
        s: &'a str,
        #[serde(default)]
        #[avro(default = r#""d""#)]
        t: &'a str,
    }
    let w = schema(r#"{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}"#);
    let data = bytes(&Value::Record(vec![Value::String("abc".into())]), &w);
    let plan = CodecPlan::<R<'static>>::reading(&w).unwrap();
    assert!(plan.is_generated());
    let e = CodecPlan::<R<'_>>::reading(&w)
        .unwrap()
        .decode(&mut Decoder::from_slice(&data))
        .unwrap_err();
    assert!(e.to_string().contains("borrowed"), "{e}");

    let w2 = schema(
        r#"{"type":"record","name":"R","fields":[
        {"name":"t","type":"string"},{"name":"x","type":"long"},{"name":"s","type":"bytes"}]}"#,
    );
    let data = bytes(
        &Value::Record(vec![
            Value::String("tt".into()),
            Value::Long(1),
            Value::Bytes(b"ss".to_vec()),
        ]),
        &w2,
    );
    let r: R = CodecPlan::<R<'_>>::reading(&w2)
        .unwrap()
        .decode(&mut Decoder::from_slice(&data))
        .unwrap();
    assert_eq!(r, R { s: "ss", t: "tt" });
    let at = data.as_ptr() as usize;
    assert!(
        (at..at + data.len()).contains(&(r.s.as_ptr() as usize)),
        "borrowed"
    );
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "Event")]
struct EventV1 {
    id: i32,
    name: String,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Event {
    id: i64,
    #[serde(default)]
    #[avro(default = "7")]
    extra: i32,
    name: String,
}

#[test]
fn container_files_of_an_older_schema_read_through_the_generated_code() {
    let old: Vec<EventV1> = (0..300)
        .map(|i| EventV1 {
            id: i,
            name: format!("e{i}"),
        })
        .collect();
    let mut w = WriterBuilder::new(&EventV1::schema())
        .build(Vec::new())
        .unwrap();
    let plan = CodecPlan::<EventV1>::reading(w.schema()).unwrap();
    for e in &old {
        w.append_codec(e, &plan).unwrap();
    }
    let file = w.into_inner().unwrap();
    let mut r = Reader::from_slice(&file).unwrap();
    assert!(r.codec_plan::<Event>().unwrap().is_generated());
    let read: Vec<Event> = r.codec_iter().unwrap().map(Result::unwrap).collect();
    let want: Vec<Event> = old
        .iter()
        .map(|e| Event {
            id: i64::from(e.id),
            extra: 7,
            name: e.name.clone(),
        })
        .collect();
    assert_eq!(read, want);
    // On two threads, in file order.
    let mut r = Reader::from_slice(&file).unwrap();
    let par: Vec<Event> = r.par_codec_iter(2).unwrap().map(Result::unwrap).collect();
    assert_eq!(par, want);
}

#[test]
fn hostile_input_through_a_resolution_gives_errors() {
    let w = schema(
        r#"{"type":"record","name":"Node","fields":[
        {"name":"value","type":"int"},
        {"name":"index","type":{"type":"map","values":"Node"}},
        {"name":"children","type":{"type":"array","items":"Node"}},
        {"name":"next","type":["null","Node"]}]}"#,
    );
    let plan = CodecPlan::<Node>::reading(&w).unwrap();
    // A huge array count, a bad union index, deep recursion through `next`.
    for data in [
        vec![0x02, 0x00, 0xfe, 0xff, 0xff, 0xff, 0x0f],
        vec![0x02, 0x00, 0x00, 0x08],
    ] {
        assert!(plan.decode(&mut Decoder::from_slice(&data)).is_err());
    }
    let mut deep = Vec::new();
    for _ in 0..100_000 {
        deep.extend([0x02, 0x00, 0x00, 0x02]);
    }
    let e = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || plan.decode(&mut Decoder::from_slice(&deep)).unwrap_err())
        .unwrap()
        .join()
        .unwrap();
    assert!(
        e.to_string().contains("depth") || e.to_string().contains("deep"),
        "{e}"
    );
}

/// Reads `data` (arbitrary bytes) as a datum of `writer` into a `T` and into a `Value` of
/// `T`'s schema: both readers must accept it (with the same value and the same bytes consumed)
/// or both reject it.
fn agree<T>(writer: &Schema, data: &[u8])
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + Debug,
{
    let reader = T::schema();
    let plan = CodecPlan::<T>::reading(writer).unwrap();
    let mut cdec = Decoder::from_slice(data);
    let codec = plan.decode(&mut cdec);
    let rplan = ResolvedPlan::compile(writer, &reader).unwrap();
    let mut vdec = Decoder::from_slice(data);
    let value = avrokit::value::read_value_resolved(&mut vdec, &rplan);
    match (codec, value) {
        (Ok(c), Ok(v)) => {
            assert_eq!(
                codec::to_datum_vec(&c).unwrap(),
                avrokit::to_datum_vec(&v, &reader).unwrap(),
                "{c:?} / {v:?}"
            );
            assert_eq!(
                cdec.rest().len(),
                vdec.rest().len(),
                "bytes consumed differ"
            );
        }
        (Err(_), Err(_)) => {}
        (c, v) => panic!("the readers disagree on {data:?}: codec {c:?}, Value {v:?}"),
    }
}

/// When `first` reads as a `T`, reading `second` over that value (the reused-record path)
/// accepts, reads and consumes what reading it as a new `T` does.
fn agree_over<T>(writer: &Schema, first: &[u8], second: &[u8])
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + Debug,
{
    let plan = CodecPlan::<T>::reading(writer).unwrap();
    let Ok(mut reused) = plan.decode(&mut Decoder::from_slice(first)) else {
        return;
    };
    let mut fresh_dec = Decoder::from_slice(second);
    let fresh = plan.decode(&mut fresh_dec);
    let mut into_dec = Decoder::from_slice(second);
    let into = plan.decode_into(&mut reused, &mut into_dec);
    match (fresh, into) {
        (Ok(f), Ok(())) => {
            assert_eq!(
                codec::to_datum_vec(&reused).unwrap(),
                codec::to_datum_vec(&f).unwrap(),
                "{second:?} read over a reused value: {reused:?}, as a new one: {f:?}"
            );
            assert_eq!(fresh_dec.rest().len(), into_dec.rest().len());
        }
        (Err(_), Err(_)) => {}
        (f, i) => panic!("{second:?}: as a new value {f:?}, over a reused one {i:?}"),
    }
}

/// A record read through a resolution over a reused value: every field is replaced, whether
/// the writer reordered it, promoted it, or left it to its default, and the strings, vectors,
/// options, maps and nested records of the old value leave no trace.
#[test]
fn reading_over_a_reused_record_replaces_every_field() {
    #[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Reused {
        id: i64,
        name: String,
        tags: Vec<String>,
        note: Option<String>,
        attrs: BTreeMap<String, String>,
        inner: Inner,
        blob: Vec<u8>,
        #[serde(default)]
        #[avro(default = r#""d""#)]
        added: String,
    }
    let w = schema(
        r#"{"type":"record","name":"Reused","fields":[
        {"name":"inner","type":{"type":"record","name":"Inner","fields":[
            {"name":"score","type":"float"},{"name":"name","type":"string"}]}},
        {"name":"skipped","type":"string"},
        {"name":"blob","type":"bytes"},
        {"name":"note","type":["null","string"]},
        {"name":"tags","type":{"type":"array","items":"string"}},
        {"name":"attrs","type":{"type":"map","values":"string"}},
        {"name":"name","type":"string"},
        {"name":"id","type":"int"}]}"#,
    );
    let datum = |n: usize| {
        let s = |t: &str| Value::String(t.repeat(n + 1));
        bytes(
            &Value::Record(vec![
                Value::Record(vec![Value::Float(n as f32 + 0.5), s("in")]),
                s("gone"),
                Value::Bytes(vec![n as u8; 3 * n]),
                if n % 2 == 0 {
                    Value::Union(1, Box::new(s("note")))
                } else {
                    Value::Union(0, Box::new(Value::Null))
                },
                Value::Array((0..n).map(|i| s(&format!("t{i}"))).collect()),
                Value::Map((0..n).map(|i| (format!("k{i}"), s("v"))).collect()),
                s("name"),
                Value::Int(n as i32 * 1000 - 1),
            ]),
            &w,
        )
    };
    let data: Vec<Vec<u8>> = [3, 0, 1, 4].iter().map(|&n| datum(n)).collect();
    let plan = CodecPlan::<Reused>::reading(&w).unwrap();
    let fresh: Vec<Reused> = data.iter().map(|d| resolve(&w, d)).collect();
    assert_eq!(fresh[0].added, "d");
    for (i, from) in fresh.iter().enumerate() {
        for (j, bytes) in data.iter().enumerate() {
            let mut v = from.clone();
            v.added = "stale".into();
            plan.decode_into(&mut v, &mut Decoder::from_slice(bytes))
                .unwrap();
            assert_eq!(v, fresh[j], "datum {j} read over datum {i}");
        }
    }
    // Cut short, the read fails (and what the value holds is still a value).
    for n in 0..data[0].len() {
        let mut v = fresh[3].clone();
        assert!(plan
            .decode_into(&mut v, &mut Decoder::from_slice(&data[0][..n]))
            .is_err());
    }

    // Every field from a default: the steps' path and the straight one (writer fields first).
    let stale = Evolved {
        y: -7,
        x: "stale".into(),
        added_s: "stale".into(),
        added_arr: vec![9; 5],
        added_rec: Inner {
            name: "stale".into(),
            score: 9.0,
        },
        added_opt: Some(3),
        added_enum: Suit::Spades,
        added_map: BTreeMap::from([("stale".to_owned(), vec![])]),
        added_bytes: vec![7; 9],
        cache: 77,
    };
    let w = schema(EVOLVED_WRITER);
    let old = Value::Record(vec![
        Value::Array(vec![]),
        Value::Map(vec![]),
        Value::Union(0, Box::new(Value::Null)),
        Value::Fixed(vec![0; 4]),
    ]);
    let data = bytes(
        &Value::Record(vec![
            Value::String("hello".into()),
            old,
            Value::Int(42),
            Value::Double(2.5),
            Value::Union(0, Box::new(Value::Null)),
        ]),
        &w,
    );
    let mut v = stale.clone();
    CodecPlan::<Evolved>::reading(&w)
        .unwrap()
        .decode_into(&mut v, &mut Decoder::from_slice(&data))
        .unwrap();
    assert_eq!(v, evolved(42, "hello"));
    let w = schema(
        r#"{"type":"record","name":"Evolved","fields":[
        {"name":"y","type":"int"},{"name":"x","type":"string"}]}"#,
    );
    let data = bytes(
        &Value::Record(vec![Value::Int(3), Value::String("b".into())]),
        &w,
    );
    let mut v = stale;
    CodecPlan::<Evolved>::reading(&w)
        .unwrap()
        .decode_into(&mut v, &mut Decoder::from_slice(&data))
        .unwrap();
    assert_eq!(v, evolved(3, "b"));
}

const UNIONS_WRITER: &str = r#"{"type":"record","name":"Unions","fields":[
    {"name":"wrapped","type":"int"},
    {"name":"narrowed","type":["null","int","string"]},
    {"name":"reordered","type":[
        {"type":"record","name":"Point","fields":[{"name":"y","type":"double"},{"name":"x","type":"float"}]},
        "string","int"]},
    {"name":"bare","type":["long","float"]},
    {"name":"null_second","type":["null","int"]},
    {"name":"shapes","type":{"type":"array","items":["string","Point","long"]}}]}"#;

const EVOLVED_WRITER: &str = r#"{"type":"record","name":"Evolved","fields":[
    {"name":"x","type":"string"},
    {"name":"gone","type":{"type":"record","name":"Old","fields":[
        {"name":"tags","type":{"type":"array","items":"string"}},
        {"name":"m","type":{"type":"map","values":{"type":"array","items":"long"}}},
        {"name":"u","type":["null","string","double"]},
        {"name":"f","type":{"type":"fixed","name":"F4","size":4}}]}},
    {"name":"y","type":"int"},
    {"name":"gone2","type":"double"},
    {"name":"gone3","type":["null",{"type":"map","values":"Old"}]}]}"#;

const NODE_WRITER: &str = r#"{"type":"record","name":"Node","fields":[
    {"name":"value","type":"int"},
    {"name":"index","type":{"type":"map","values":"Node"}},
    {"name":"children","type":{"type":"array","items":"Node"}},
    {"name":"next","type":["null","Node"]}]}"#;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// On arbitrary bytes, the generated code through a resolution and the resolving `Value`
    /// reader accept and reject alike, and read alike what they accept.
    #[test]
    fn arbitrary_bytes_read_alike_or_fail_alike(
        data in prop::collection::vec(any::<u8>(), 0..96),
        small in prop::collection::vec(0u8..8, 0..48),
    ) {
        for bytes in [&data, &small] {
            agree::<Unions>(&schema(UNIONS_WRITER), bytes);
            agree::<Evolved>(&schema(EVOLVED_WRITER), bytes);
            agree::<Node>(&schema(NODE_WRITER), bytes);
        }
        for (first, second) in [(&data, &small), (&small, &data)] {
            agree_over::<Unions>(&schema(UNIONS_WRITER), first, second);
            agree_over::<Evolved>(&schema(EVOLVED_WRITER), first, second);
            agree_over::<Node>(&schema(NODE_WRITER), first, second);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random data of the evolved writer schema reads alike through the generated code, the
    /// Value reader and serde; random bytes never panic.
    #[test]
    fn random_data_reads_alike(
        ints in prop::collection::vec(any::<i32>(), 0..20),
        text in ".{0,12}",
        floats in prop::collection::vec(-1e6f32..1e6, 0..80),
        branch in 0u32..3,
        junk in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let w = schema(
            r#"{"type":"record","name":"Promoted","fields":[
            {"name":"a","type":"int"},{"name":"b","type":"int"},{"name":"c","type":"long"},
            {"name":"d","type":"float"},{"name":"e","type":"string"},{"name":"f","type":"bytes"},
            {"name":"g","type":"int"},{"name":"h","type":{"type":"array","items":"float"}},
            {"name":"i","type":{"type":"array","items":"float"}},
            {"name":"j","type":{"type":"array","items":"int"}}]}"#,
        );
        let first = ints.first().copied().unwrap_or(0);
        let data = bytes(
            &Value::Record(vec![
                Value::Int(first),
                Value::Int(first.wrapping_mul(3)),
                Value::Long(i64::from(first) << 20),
                Value::Float(floats.first().copied().unwrap_or(0.0)),
                Value::String(text.clone()),
                Value::Bytes(text.clone().into_bytes()),
                Value::Int(-first),
                Value::Array(floats.iter().map(|f| Value::Float(*f)).collect()),
                Value::Array(floats.iter().rev().map(|f| Value::Float(*f)).collect()),
                Value::Array(ints.iter().map(|i| Value::Int(*i)).collect()),
            ]),
            &w,
        );
        resolve::<Promoted>(&w, &data);
        let plan = CodecPlan::<Promoted>::reading(&w).unwrap();
        let _ = plan.decode(&mut Decoder::from_slice(&junk));

        let u = schema(
            r#"{"type":"record","name":"Unions","fields":[
            {"name":"wrapped","type":"int"},
            {"name":"narrowed","type":["null","int","string"]},
            {"name":"reordered","type":[
                {"type":"record","name":"Point","fields":[{"name":"y","type":"double"},{"name":"x","type":"float"}]},
                "string","int"]},
            {"name":"bare","type":["long","float"]},
            {"name":"null_second","type":["null","int"]},
            {"name":"shapes","type":{"type":"array","items":["string","Point","long"]}}]}"#,
        );
        let reordered = match branch {
            0 => Value::Union(0, Box::new(Value::Record(vec![Value::Double(1.0), Value::Float(2.0)]))),
            1 => Value::Union(1, Box::new(Value::String(text.clone()))),
            _ => Value::Union(2, Box::new(Value::Int(first))),
        };
        let data = bytes(
            &Value::Record(vec![
                Value::Int(first),
                Value::Union(branch.min(1), Box::new(if branch == 0 { Value::Null } else { Value::Int(first) })),
                reordered,
                Value::Union(0, Box::new(Value::Long(i64::from(first)))),
                Value::Union(1, Box::new(Value::Int(-first))),
                Value::Array(ints.iter().map(|i| Value::Union(2, Box::new(Value::Long(i64::from(*i))))).collect()),
            ]),
            &u,
        );
        resolve::<Unions>(&u, &data);
        let plan = CodecPlan::<Unions>::reading(&u).unwrap();
        let _ = plan.decode(&mut Decoder::from_slice(&junk));
    }
}
