//! serde front end: round trips for every shape, byte equality with the `Value` encoding, every
//! source, every truncation.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use avrokit::io::BlockingSink;
use avrokit::serde::{
    from_datum_reader, from_datum_slice, to_datum_vec, DePlan, Deserializer, SerPlan, Serializer,
};
use avrokit::{Decoder, ErrorKind, Schema, Value};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Writes `v` with serde, checks the bytes against the `Value` encoding of `expect`, reads it
/// back through a slice, small-buffer readers and a blocked encoding, and checks that every
/// strict prefix fails with an EOF error.
#[track_caller]
fn check<T>(schema: &str, v: &T, expect: &Value)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let schema = Schema::parse_str(schema).unwrap();
    let ser = SerPlan::compile(&schema).unwrap();
    let de = DePlan::compile(&schema).unwrap();
    let bytes = to_datum_vec(v, &ser).unwrap();
    let reference = avrokit::to_datum_vec(expect, &schema).unwrap();
    assert_eq!(
        bytes, reference,
        "serde and Value encodings differ for {v:?}"
    );

    let back: T = from_datum_slice(&bytes, &de).unwrap();
    assert_eq!(&back, v);
    for cap in [1, 2, 5, 11] {
        let dec = Decoder::from_reader_with_capacity(cap, &bytes[..]);
        let back: T = Deserializer::new(dec, &de).deserialize().unwrap();
        assert_eq!(&back, v, "reader with capacity {cap}");
    }
    let back: T = from_datum_reader(&bytes[..], &de).unwrap();
    assert_eq!(&back, v);

    // Blocked arrays and maps: other bytes, same value.
    for block in [1, 16] {
        let mut ser_b = Serializer::new(BlockingSink::new(Vec::new(), block), &ser);
        ser_b.serialize(v).unwrap();
        let blocked = ser_b.into_inner().into_inner();
        let back: T = from_datum_slice(&blocked, &de).unwrap();
        assert_eq!(&back, v, "blocked with block size {block}");
    }

    for n in 0..bytes.len() {
        let r: Result<T, _> = from_datum_slice(&bytes[..n], &de);
        let e = r.expect_err("a strict prefix must fail");
        assert!(e.is_eof(), "prefix {n} of {bytes:?}: {e}");
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Prims {
    b: bool,
    i: i32,
    l: i64,
    f: f32,
    d: f64,
    s: String,
}

const PRIMS: &str = r#"{"type":"record","name":"Prims","fields":[
    {"name":"b","type":"boolean"},{"name":"i","type":"int"},{"name":"l","type":"long"},
    {"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string"}]}"#;

fn prims() -> (Prims, Value) {
    (
        Prims {
            b: true,
            i: -123456,
            l: i64::MIN,
            f: 1.5,
            d: -2.25e300,
            s: "héllo".into(),
        },
        Value::Record(vec![
            Value::Boolean(true),
            Value::Int(-123456),
            Value::Long(i64::MIN),
            Value::Float(1.5),
            Value::Double(-2.25e300),
            Value::String("héllo".into()),
        ]),
    )
}

#[test]
fn record_of_primitives() {
    let (p, v) = prims();
    check(PRIMS, &p, &v);
}

#[test]
fn primitives_alone() {
    check(r#""int""#, &7i32, &Value::Int(7));
    check(r#""long""#, &-1i64, &Value::Long(-1));
    check(r#""long""#, &u32::MAX, &Value::Long(u32::MAX as i64));
    check(r#""int""#, &200u8, &Value::Int(200));
    check(r#""float""#, &f32::MAX, &Value::Float(f32::MAX));
    check(r#""double""#, &0.1f64, &Value::Double(0.1));
    check(r#""boolean""#, &false, &Value::Boolean(false));
    check(r#""string""#, &String::new(), &Value::String(String::new()));
    check(r#""string""#, &'é', &Value::String("é".into()));
    check(r#""null""#, &(), &Value::Null);
}

#[test]
fn promotions_when_writing() {
    let s = SerPlan::compile(&Schema::parse_str(r#""long""#).unwrap()).unwrap();
    assert_eq!(to_datum_vec(&3i32, &s).unwrap(), [6]);
    let s = SerPlan::compile(&Schema::parse_str(r#""double""#).unwrap()).unwrap();
    assert_eq!(to_datum_vec(&1.5f32, &s).unwrap(), 1.5f64.to_le_bytes());
    assert_eq!(to_datum_vec(&2i64, &s).unwrap(), 2f64.to_le_bytes());
    let s = SerPlan::compile(&Schema::parse_str(r#""int""#).unwrap()).unwrap();
    assert_eq!(to_datum_vec(&5i64, &s).unwrap(), [10]);
    let e = to_datum_vec(&(1i64 << 40), &s).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert!(e.message().contains("out of range"), "{e}");
    assert!(to_datum_vec(&u64::MAX, &s).is_err());
}

#[test]
fn options_and_unions() {
    let schema = r#"["null","string"]"#;
    check(
        schema,
        &Some("x".to_owned()),
        &Value::Union(1, Box::new(Value::String("x".into()))),
    );
    check(
        schema,
        &None::<String>,
        &Value::Union(0, Box::new(Value::Null)),
    );
    // `null` second.
    let schema = r#"["long","null"]"#;
    check(
        schema,
        &Some(9i64),
        &Value::Union(0, Box::new(Value::Long(9))),
    );
    check(
        schema,
        &None::<i64>,
        &Value::Union(1, Box::new(Value::Null)),
    );
    // An i32 picks `int` over `long`, an i64 `long`, an f32 `float`.
    let schema = r#"["null","int","long","float","double","string","bytes","boolean"]"#;
    let plan = SerPlan::compile(&Schema::parse_str(schema).unwrap()).unwrap();
    assert_eq!(to_datum_vec(&Some(1i32), &plan).unwrap(), [2, 2]);
    assert_eq!(to_datum_vec(&Some(1i64), &plan).unwrap(), [4, 2]);
    assert_eq!(to_datum_vec(&Some(1f32), &plan).unwrap()[0], 6);
    assert_eq!(to_datum_vec(&Some(1f64), &plan).unwrap()[0], 8);
    assert_eq!(to_datum_vec(&Some("a"), &plan).unwrap(), [10, 2, b'a']);
    assert_eq!(
        to_datum_vec(&Some(serde_bytes::Bytes::new(b"a")), &plan).unwrap(),
        [12, 2, b'a']
    );
    assert_eq!(to_datum_vec(&Some(true), &plan).unwrap(), [14, 1]);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Shape {
    Circle { r: f64 },
    Square(Square),
    Empty,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Square {
    side: i32,
}

const SHAPES: &str = r#"[
    {"type":"record","name":"Circle","fields":[{"name":"r","type":"double"}]},
    {"type":"record","name":"Square","fields":[{"name":"side","type":"int"}]},
    {"type":"record","name":"Empty","fields":[]}]"#;

#[test]
fn data_enums_as_unions_of_records() {
    check(
        SHAPES,
        &Shape::Circle { r: 2.0 },
        &Value::Union(0, Box::new(Value::Record(vec![Value::Double(2.0)]))),
    );
    check(
        SHAPES,
        &Shape::Square(Square { side: 3 }),
        &Value::Union(1, Box::new(Value::Record(vec![Value::Int(3)]))),
    );
    check(
        SHAPES,
        &Shape::Empty,
        &Value::Union(2, Box::new(Value::Record(vec![]))),
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Scalar {
    Null,
    Long(i64),
    Text(String),
}

#[test]
fn enums_over_primitive_unions() {
    // Variants by branch type name (ignoring case), else by position.
    let schema = r#"["null","long","string"]"#;
    check(
        schema,
        &Scalar::Null,
        &Value::Union(0, Box::new(Value::Null)),
    );
    check(
        schema,
        &Scalar::Long(-4),
        &Value::Union(1, Box::new(Value::Long(-4))),
    );
    check(
        schema,
        &Scalar::Text("t".into()),
        &Value::Union(2, Box::new(Value::String("t".into()))),
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum Suit {
    Spades,
    Hearts,
    Diamonds,
    Clubs,
}

#[test]
fn unit_enums_as_avro_enums() {
    let schema = r#"{"type":"enum","name":"Suit","symbols":["SPADES_NOT","Hearts","Clubs","Spades","Diamonds"]}"#;
    check(schema, &Suit::Spades, &Value::Enum(3));
    check(schema, &Suit::Clubs, &Value::Enum(2));
    check(schema, &Suit::Hearts, &Value::Enum(1));
    // In a union with null, by symbol.
    let schema =
        r#"["null",{"type":"enum","name":"S","symbols":["Spades","Hearts","Diamonds","Clubs"]}]"#;
    check(
        schema,
        &Some(Suit::Diamonds),
        &Value::Union(1, Box::new(Value::Enum(2))),
    );
    check(
        schema,
        &None::<Suit>,
        &Value::Union(0, Box::new(Value::Null)),
    );
    // A symbol the schema lacks.
    let plan = SerPlan::compile(
        &Schema::parse_str(r#"{"type":"enum","name":"S","symbols":["Spades"]}"#).unwrap(),
    )
    .unwrap();
    let e = to_datum_vec(&Suit::Clubs, &plan).unwrap_err();
    assert!(e.message().contains("not a symbol"), "{e}");
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Collections {
    floats: Vec<f32>,
    doubles: Vec<f64>,
    ints: Vec<i32>,
    longs: Vec<i64>,
    flags: Vec<bool>,
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    plain_bytes: Vec<u8>,
    fixed: [u8; 4],
    names: BTreeMap<String, i64>,
    nested: Vec<Vec<String>>,
}

const COLLECTIONS: &str = r#"{"type":"record","name":"C","fields":[
    {"name":"floats","type":{"type":"array","items":"float"}},
    {"name":"doubles","type":{"type":"array","items":"double"}},
    {"name":"ints","type":{"type":"array","items":"int"}},
    {"name":"longs","type":{"type":"array","items":"long"}},
    {"name":"flags","type":{"type":"array","items":"boolean"}},
    {"name":"blob","type":"bytes"},
    {"name":"plain_bytes","type":"bytes"},
    {"name":"fixed","type":{"type":"fixed","name":"F4","size":4}},
    {"name":"names","type":{"type":"map","values":"long"}},
    {"name":"nested","type":{"type":"array","items":{"type":"array","items":"string"}}}]}"#;

#[test]
fn collections_and_bulk_paths() {
    let c = Collections {
        floats: vec![1.0, -0.5, f32::MIN_POSITIVE],
        doubles: vec![3.25; 5],
        ints: vec![0, 1, -1, i32::MAX, i32::MIN],
        longs: (0..100).map(|i| i * 1_000_000_007).collect(),
        flags: vec![true, false, true],
        blob: b"\x00\xffabc".to_vec(),
        plain_bytes: vec![7, 8, 9],
        fixed: [1, 2, 3, 4],
        names: [("a".to_owned(), 1), ("b".to_owned(), -1)]
            .into_iter()
            .collect(),
        nested: vec![vec![], vec!["x".into(), "yz".into()]],
    };
    let v = Value::Record(vec![
        Value::Array(c.floats.iter().map(|&f| Value::Float(f)).collect()),
        Value::Array(c.doubles.iter().map(|&f| Value::Double(f)).collect()),
        Value::Array(c.ints.iter().map(|&f| Value::Int(f)).collect()),
        Value::Array(c.longs.iter().map(|&f| Value::Long(f)).collect()),
        Value::Array(c.flags.iter().map(|&f| Value::Boolean(f)).collect()),
        Value::Bytes(c.blob.clone()),
        Value::Bytes(c.plain_bytes.clone()),
        Value::Fixed(c.fixed.to_vec()),
        Value::Map(
            c.names
                .iter()
                .map(|(k, &v)| (k.clone(), Value::Long(v)))
                .collect(),
        ),
        Value::Array(
            c.nested
                .iter()
                .map(|v| Value::Array(v.iter().map(|s| Value::String(s.clone())).collect()))
                .collect(),
        ),
    ]);
    check(COLLECTIONS, &c, &v);
}

#[test]
fn big_float_vector() {
    let floats: Vec<f32> = (0..250_000).map(|i| i as f32 * 0.25).collect();
    let schema = Schema::parse_str(r#"{"type":"array","items":"float"}"#).unwrap();
    let bytes = to_datum_vec(&floats, &SerPlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(bytes.len(), 4 * 250_000 + 3 + 1);
    let back: Vec<f32> = from_datum_slice(&bytes, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(back, floats);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Vals {
    f1: f32,
    f2: f32,
    f3: f32,
    f4: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct WithVals {
    vals: Vec<Vals>,
}

#[test]
fn records_in_arrays() {
    let schema = r#"{"type":"record","name":"W","fields":[{"name":"vals","type":{"type":"array",
        "items":{"type":"record","name":"Vals","fields":[{"name":"f1","type":"float"},
        {"name":"f2","type":"float"},{"name":"f3","type":"float"},{"name":"f4","type":"float"}]}}}]}"#;
    let w = WithVals {
        vals: (0..10)
            .map(|i| Vals {
                f1: i as f32,
                f2: 1.0,
                f3: 2.0,
                f4: -(i as f32),
            })
            .collect(),
    };
    let v = Value::Record(vec![Value::Array(
        w.vals
            .iter()
            .map(|x| {
                Value::Record(vec![
                    Value::Float(x.f1),
                    Value::Float(x.f2),
                    Value::Float(x.f3),
                    Value::Float(x.f4),
                ])
            })
            .collect(),
    )]);
    check(schema, &w, &v);
}

/// The same fields as `PRIMS`, declared in another order.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct PrimsShuffled {
    s: String,
    d: f64,
    b: bool,
    l: i64,
    i: i32,
    f: f32,
}

#[test]
fn rust_field_order_need_not_match() {
    let (p, v) = prims();
    let shuffled = PrimsShuffled {
        s: p.s.clone(),
        d: p.d,
        b: p.b,
        l: p.l,
        i: p.i,
        f: p.f,
    };
    check(PRIMS, &shuffled, &v);
    // Many values through one serializer: the reordering buffers are reused.
    let schema = Schema::parse_str(PRIMS).unwrap();
    let plan = SerPlan::compile(&schema).unwrap();
    let mut ser = Serializer::new(Vec::new(), &plan);
    for _ in 0..3 {
        ser.serialize(&shuffled).unwrap();
    }
    let one = avrokit::to_datum_vec(&v, &schema).unwrap();
    assert_eq!(ser.into_inner(), [one.clone(), one.clone(), one].concat());
}

#[test]
fn missing_fields_take_defaults_and_extra_fields_fail() {
    #[derive(Serialize)]
    struct Partial {
        id: i32,
    }
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[{"name":"id","type":"int"},
        {"name":"tag","type":["null","string"],"default":null},
        {"name":"n","type":"long","default":42}]}"#,
    )
    .unwrap();
    let plan = SerPlan::compile(&schema).unwrap();
    assert_eq!(to_datum_vec(&Partial { id: 1 }, &plan).unwrap(), [2, 0, 84]);

    let strict =
        Schema::parse_str(r#"{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}"#)
            .unwrap();
    let plan = SerPlan::compile(&strict).unwrap();
    let e = to_datum_vec(&Partial { id: 1 }, &plan).unwrap_err();
    assert!(e.message().contains("no field \"id\""), "{e}");
    #[derive(Serialize)]
    struct Empty {}
    let e = to_datum_vec(&Empty {}, &plan).unwrap_err();
    assert!(e.message().contains("missing"), "{e}");
}

#[test]
fn errors_carry_paths() {
    #[derive(Serialize)]
    struct Item {
        price: f64,
    }
    #[derive(Serialize)]
    struct Order {
        items: Vec<Item>,
    }
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"Order","fields":[{"name":"items","type":{"type":"array",
        "items":{"type":"record","name":"Item","fields":[{"name":"price","type":"int"}]}}}]}"#,
    )
    .unwrap();
    let plan = SerPlan::compile(&schema).unwrap();
    let order = Order {
        items: vec![Item { price: 1.0 }, Item { price: 2.0 }],
    };
    let e = to_datum_vec(&order, &plan).unwrap_err();
    assert_eq!(e.path(), "Order.items[0].price");
    assert!(e.message().contains("expected int"), "{e}");

    // Reading: a bad boolean byte deep inside.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct B {
        flags: Vec<bool>,
    }
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"B","fields":[{"name":"flags","type":{"type":"array","items":"boolean"}}]}"#,
    )
    .unwrap();
    let de = DePlan::compile(&schema).unwrap();
    let e = from_datum_slice::<B>(&[4, 1, 7, 0], &de).unwrap_err();
    assert_eq!(e.path(), "B.flags[1]");
    assert_eq!(e.offset(), Some(2));
}

#[test]
fn maps_of_any_key_order_and_unknown_length() {
    let schema = Schema::parse_str(r#"{"type":"map","values":"string"}"#).unwrap();
    let plan = SerPlan::compile(&schema).unwrap();
    let mut m = HashMap::new();
    m.insert("k".to_owned(), "v".to_owned());
    let bytes = to_datum_vec(&m, &plan).unwrap();
    assert_eq!(bytes, [2, 2, b'k', 2, b'v', 0]);
    let back: HashMap<String, String> =
        from_datum_slice(&bytes, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(back, m);

    // A sequence without a length hint is buffered and written as one block.
    struct Unsized(Vec<i64>);
    impl Serialize for Unsized {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().filter(|_| true))
        }
    }
    let schema = Schema::parse_str(r#"{"type":"array","items":"long"}"#).unwrap();
    let plan = SerPlan::compile(&schema).unwrap();
    assert_eq!(
        to_datum_vec(&Unsized(vec![1, 2]), &plan).unwrap(),
        [4, 2, 4, 0]
    );
    assert_eq!(to_datum_vec(&Unsized(vec![]), &plan).unwrap(), [0]);
}

#[test]
fn borrowed_strings_and_bytes() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Borrowing<'a> {
        name: &'a str,
        #[serde(borrow)]
        cow: Cow<'a, str>,
        #[serde(with = "serde_bytes")]
        raw: &'a [u8],
    }
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"B","fields":[{"name":"name","type":"string"},
        {"name":"cow","type":"string"},{"name":"raw","type":"bytes"}]}"#,
    )
    .unwrap();
    let b = Borrowing {
        name: "alpha",
        cow: Cow::Borrowed("beta"),
        raw: b"gamma",
    };
    let bytes = to_datum_vec(&b, &SerPlan::compile(&schema).unwrap()).unwrap();
    let de = DePlan::compile(&schema).unwrap();
    let back: Borrowing<'_> = from_datum_slice(&bytes, &de).unwrap();
    assert_eq!(back, b);
    assert!(
        matches!(back.cow, Cow::Borrowed(_)),
        "Cow must borrow from a slice"
    );
    // The strings point into `bytes`.
    let range = bytes.as_ptr_range();
    assert!(range.contains(&back.name.as_ptr()));
    assert!(range.contains(&back.raw.as_ptr()));
}

/// Compiles only if the `&str` borrows from the input slice rather than from the deserializer:
/// the plan and the deserializer are dropped before the string is used.
fn borrowed_outlives_deserializer(bytes: &[u8]) -> &str {
    let plan = DePlan::compile(&Schema::parse_str(r#""string""#).unwrap()).unwrap();
    let mut de = Deserializer::from_slice(bytes, &plan);
    let s: &str = de.deserialize().unwrap();
    drop(de);
    drop(plan);
    s
}

#[test]
fn borrow_is_checked_by_lifetimes() {
    let bytes = vec![6, b'a', b'b', b'c'];
    assert_eq!(borrowed_outlives_deserializer(&bytes), "abc");
}

#[test]
fn a_reader_cannot_borrow() {
    let plan = DePlan::compile(&Schema::parse_str(r#""string""#).unwrap()).unwrap();
    let r: Result<String, _> = from_datum_reader(&[2, b'a'][..], &plan);
    assert_eq!(r.unwrap(), "a");
    // `&str` from a reader is an error (serde asks for a borrowed string), not a panic.
    let mut de = Deserializer::from_reader(&[2, b'a'][..], &plan);
    assert!(de.deserialize::<&str>().is_err());
}

#[test]
fn recursive_types() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Node {
        value: i64,
        next: Option<Box<Node>>,
    }
    let schema = r#"{"type":"record","name":"Node","fields":[{"name":"value","type":"long"},
        {"name":"next","type":["null","Node"]}]}"#;
    let list = Node {
        value: 1,
        next: Some(Box::new(Node {
            value: 2,
            next: None,
        })),
    };
    let v = Value::Record(vec![
        Value::Long(1),
        Value::Union(
            1,
            Box::new(Value::Record(vec![
                Value::Long(2),
                Value::Union(0, Box::new(Value::Null)),
            ])),
        ),
    ]);
    check(schema, &list, &v);
}

#[test]
fn tuples_newtypes_and_units() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Meters(f64);
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Pair(i32, String);
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct T {
        m: Meters,
        p: Pair,
        t: (i64, bool),
        u: (),
    }
    let schema = r#"{"type":"record","name":"T","fields":[{"name":"m","type":"double"},
        {"name":"p","type":{"type":"record","name":"Pair","fields":[{"name":"a","type":"int"},
            {"name":"b","type":"string"}]}},
        {"name":"t","type":{"type":"record","name":"Tup","fields":[{"name":"x","type":"long"},
            {"name":"y","type":"boolean"}]}},
        {"name":"u","type":"null"}]}"#;
    let t = T {
        m: Meters(1.5),
        p: Pair(3, "p".into()),
        t: (-1, true),
        u: (),
    };
    let v = Value::Record(vec![
        Value::Double(1.5),
        Value::Record(vec![Value::Int(3), Value::String("p".into())]),
        Value::Record(vec![Value::Long(-1), Value::Boolean(true)]),
        Value::Null,
    ]);
    check(schema, &t, &v);
}

#[test]
fn hostile_input_never_panics() {
    let schema = Schema::parse_str(COLLECTIONS).unwrap();
    let de = DePlan::compile(&schema).unwrap();
    // A huge array count with nothing behind it, a negative length, garbage.
    for bytes in [
        &[0xfe, 0xff, 0xff, 0xff, 0x0f][..],
        &[0x01][..],
        &[0xff; 32][..],
        &[
            0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ][..],
    ] {
        let r: Result<Collections, _> = from_datum_slice(bytes, &de);
        assert!(r.is_err());
    }
    // Depth limits apply to serde reads too.
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"N","fields":[{"name":"next","type":["null","N"]}]}"#,
    )
    .unwrap();
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct N {
        next: Option<Box<N>>,
    }
    let mut deep = vec![2u8; 5000];
    deep.push(0);
    let e = from_datum_slice::<N>(&deep, &DePlan::compile(&schema).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
}

/// One plan, many struct types: field keys are matched by the constant's address once seen,
/// which must never match a different name (one sharing a prefix included), nor stop a
/// reordered, renamed or missing field from being found by name.
#[test]
fn struct_keys_are_matched_exactly_across_types() {
    #[derive(Serialize)]
    struct InOrder {
        abc: i32,
        ab: i32,
    }
    #[derive(Serialize)]
    struct Reordered {
        ab: i32,
        abc: i32,
    }
    #[derive(Serialize)]
    struct Prefix {
        ab: i32,
        abc: i32,
        #[serde(rename = "abc")]
        again: i32,
    }
    #[derive(Serialize)]
    struct Missing {
        abc: i32,
    }
    #[derive(Serialize)]
    struct Unknown {
        abc: i32,
        abd: i32,
    }
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[
            {"name":"abc","type":"int"},{"name":"ab","type":"int"}]}"#,
    )
    .unwrap();
    let plan = SerPlan::compile(&schema).unwrap();
    let expect = |abc: i32, ab: i32| {
        avrokit::to_datum_vec(
            &Value::Record(vec![Value::Int(abc), Value::Int(ab)]),
            &schema,
        )
        .unwrap()
    };
    for _ in 0..3 {
        assert_eq!(
            to_datum_vec(&InOrder { abc: 1, ab: 2 }, &plan).unwrap(),
            expect(1, 2)
        );
        assert_eq!(
            to_datum_vec(&Reordered { ab: 3, abc: 4 }, &plan).unwrap(),
            expect(4, 3)
        );
        let e = to_datum_vec(
            &Prefix {
                ab: 5,
                abc: 6,
                again: 7,
            },
            &plan,
        )
        .unwrap_err();
        assert!(e.to_string().contains("written twice"), "{e}");
        let e = to_datum_vec(&Missing { abc: 8 }, &plan).unwrap_err();
        assert!(e.to_string().contains("\"ab\""), "{e}");
        let e = to_datum_vec(&Unknown { abc: 9, abd: 10 }, &plan).unwrap_err();
        assert!(e.to_string().contains("abd"), "{e}");
    }
}

/// The serializer gives structs, maps and announced arrays fast paths of their own; the other
/// places each can go must still write what the `Value` encoding writes.
#[test]
fn structs_maps_and_sequences_go_everywhere_the_schema_lets_them() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Ab {
        a: i64,
        b: i64,
    }
    let value_bytes = |schema: &str, v: &Value| {
        avrokit::to_datum_vec(v, &Schema::parse_str(schema).unwrap()).unwrap()
    };
    let serde_bytes = |schema: &str, v: &dyn erased::Ser| {
        let plan = SerPlan::compile(&Schema::parse_str(schema).unwrap()).unwrap();
        v.to_vec(&plan)
    };
    let ab = Ab { a: 1, b: -2 };

    // A struct into an Avro map: a key per field.
    let map = r#"{"type":"map","values":"long"}"#;
    let entries = Value::Map(vec![
        ("a".into(), Value::Long(1)),
        ("b".into(), Value::Long(-2)),
    ]);
    assert_eq!(serde_bytes(map, &ab), value_bytes(map, &entries));

    // A map into a record: keys name the fields, in any order.
    let rec = r#"{"type":"record","name":"Ab","fields":[{"name":"a","type":"long"},
        {"name":"b","type":"long"}]}"#;
    let fields = Value::Record(vec![Value::Long(1), Value::Long(-2)]);
    let by_key: BTreeMap<&str, i64> = [("b", -2), ("a", 1)].into_iter().collect();
    assert_eq!(serde_bytes(rec, &by_key), value_bytes(rec, &fields));

    // A struct, a map and a sequence as a union's branch.
    let in_union = r#"["null",{"type":"record","name":"Ab","fields":[
        {"name":"a","type":"long"},{"name":"b","type":"long"}]}]"#;
    assert_eq!(
        serde_bytes(in_union, &Some(&ab)),
        value_bytes(in_union, &Value::Union(1, Box::new(fields.clone())))
    );
    let map_union = r#"["null",{"type":"map","values":"long"}]"#;
    let one: BTreeMap<&str, i64> = [("k", 3)].into_iter().collect();
    assert_eq!(
        serde_bytes(map_union, &Some(&one)),
        value_bytes(
            map_union,
            &Value::Union(1, Box::new(Value::Map(vec![("k".into(), Value::Long(3))])))
        )
    );
    let seq_union = r#"["null",{"type":"array","items":"int"}]"#;
    assert_eq!(
        serde_bytes(seq_union, &Some(vec![4i32, 5])),
        value_bytes(
            seq_union,
            &Value::Union(
                1,
                Box::new(Value::Array(vec![Value::Int(4), Value::Int(5)]))
            )
        )
    );

    // A sequence of `u8`s into bytes and into a fixed.
    let raw = vec![7u8, 8, 9];
    assert_eq!(
        serde_bytes(r#""bytes""#, &raw),
        value_bytes(r#""bytes""#, &Value::Bytes(raw.clone()))
    );
    let fixed = r#"{"type":"fixed","name":"F","size":3}"#;
    assert_eq!(
        serde_bytes(fixed, &raw),
        value_bytes(fixed, &Value::Fixed(raw.clone()))
    );

    // Text into an enum symbol, a union's string branch, and bytes.
    let suit = r#"{"type":"enum","name":"S","symbols":["A","B"]}"#;
    assert_eq!(serde_bytes(suit, &"B"), value_bytes(suit, &Value::Enum(1)));
    let text_union = r#"["null","string"]"#;
    assert_eq!(
        serde_bytes(text_union, &"x"),
        value_bytes(
            text_union,
            &Value::Union(1, Box::new(Value::String("x".into())))
        )
    );
    assert_eq!(
        serde_bytes(r#""bytes""#, &"hi"),
        value_bytes(r#""bytes""#, &Value::Bytes(b"hi".to_vec()))
    );

    // And the mismatches are errors, not bytes.
    let plan = SerPlan::compile(&Schema::parse_str(r#""long""#).unwrap()).unwrap();
    assert!(to_datum_vec(&ab, &plan).is_err());
    assert!(to_datum_vec(&by_key, &plan).is_err());
    assert!(to_datum_vec(&vec![1i32], &plan).is_err());
    assert!(to_datum_vec(&"x", &plan).is_err());
}

/// `to_datum_vec` over trait objects, so one closure can take values of several types.
mod erased {
    pub trait Ser {
        fn to_vec(&self, plan: &avrokit::serde::SerPlan) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Ser for T {
        fn to_vec(&self, plan: &avrokit::serde::SerPlan) -> Vec<u8> {
            avrokit::serde::to_datum_vec(self, plan).unwrap()
        }
    }
}
