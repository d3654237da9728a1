//! serde reads with a reader schema different from the writer's: promotions, reordered,
//! skipped and defaulted fields, enum and union remaps.

use std::collections::HashMap;

use avrokit::serde::{from_datum_slice, to_datum_vec, DePlan, Deserializer, SerPlan};
use avrokit::{Decoder, ErrorKind, Schema};
use serde::{Deserialize, Serialize};

fn write<T: Serialize>(schema: &str, v: &T) -> (Schema, Vec<u8>) {
    let schema = Schema::parse_str(schema).unwrap();
    let bytes = to_datum_vec(v, &SerPlan::compile(&schema).unwrap()).unwrap();
    (schema, bytes)
}

#[derive(Serialize)]
struct V1<'a> {
    id: i32,
    score: f32,
    legacy: &'a str,
    blob: Vec<u8>,
    color: &'a str,
    n: i32,
}

const V1: &str = r#"{"type":"record","name":"User","fields":[
    {"name":"id","type":"int"},
    {"name":"score","type":"float"},
    {"name":"legacy","type":"string"},
    {"name":"blob","type":{"type":"array","items":"int"}},
    {"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE"]}},
    {"name":"n","type":"int"}]}"#;

#[derive(Deserialize, Debug, PartialEq)]
#[serde(rename_all = "UPPERCASE")]
enum Color {
    Blue,
    Red,
    Other,
}

#[derive(Deserialize, Debug, PartialEq)]
struct V2 {
    email: Option<String>,
    n: Option<i64>,
    score: f64,
    id: i64,
    color: Color,
    tags: Vec<String>,
    limits: HashMap<String, i32>,
}

const V2: &str = r#"{"type":"record","name":"User","fields":[
    {"name":"email","type":["null","string"],"default":null},
    {"name":"n","type":["null","long"],"default":null},
    {"name":"score","type":"double"},
    {"name":"id","type":"long"},
    {"name":"color","type":{"type":"enum","name":"Color","symbols":["BLUE","RED","OTHER"],
        "default":"OTHER"}},
    {"name":"tags","type":{"type":"array","items":"string"},"default":["a","b"]},
    {"name":"limits","type":{"type":"map","values":"int"},"default":{"x":1}}]}"#;

#[test]
fn evolved_reader_schema() {
    let v1 = V1 {
        id: 7,
        score: 0.5,
        legacy: "old",
        blob: vec![1, 2, 3],
        color: "GREEN",
        n: -3,
    };
    let (w, bytes) = write(V1, &v1);
    let r = Schema::parse_str(V2).unwrap();
    let plan = DePlan::resolving(&w, &r).unwrap();
    let got: V2 = from_datum_slice(&bytes, &plan).unwrap();
    assert_eq!(
        got,
        V2 {
            email: None,
            n: Some(-3),
            score: 0.5,
            id: 7,
            // GREEN is not in the reader's enum: its default.
            color: Color::Other,
            tags: vec!["a".into(), "b".into()],
            limits: [("x".to_owned(), 1)].into_iter().collect(),
        }
    );
    let v1 = V1 {
        color: "BLUE",
        ..v1
    };
    let (_, bytes) = write(V1, &v1);
    let got: V2 = from_datum_slice(&bytes, &plan).unwrap();
    assert_eq!(got.color, Color::Blue);
    // Through a reader too.
    let got: V2 = Deserializer::new(Decoder::from_reader_with_capacity(1, &bytes[..]), &plan)
        .deserialize()
        .unwrap();
    assert_eq!(got.color, Color::Blue);
}

#[test]
fn promotions() {
    let (w, bytes) = write(r#""int""#, &5i32);
    for (reader, want) in [
        (r#""long""#, 5.0),
        (r#""float""#, 5.0),
        (r#""double""#, 5.0),
    ] {
        let plan = DePlan::resolving(&w, &Schema::parse_str(reader).unwrap()).unwrap();
        let got: f64 = from_datum_slice(&bytes, &plan).unwrap();
        assert_eq!(got, want);
    }
    let (w, bytes) = write(r#""string""#, &"bytes?");
    let plan = DePlan::resolving(&w, &Schema::parse_str(r#""bytes""#).unwrap()).unwrap();
    let got: serde_bytes::ByteBuf = from_datum_slice(&bytes, &plan).unwrap();
    assert_eq!(&got[..], b"bytes?");
}

#[test]
fn writer_union_to_reader_plain_and_back() {
    // Writer ["null","int"], reader "long": works until a null arrives.
    let (w, bytes) = write(r#"["null","int"]"#, &Some(4i32));
    let r = Schema::parse_str(r#""long""#).unwrap();
    let plan = DePlan::resolving(&w, &r).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_datum_slice::<i64>(&bytes, &plan).unwrap(), 4);
    let (_, null) = write(r#"["null","int"]"#, &None::<i32>);
    let e = from_datum_slice::<i64>(&null, &plan).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Resolution);

    // Writer "int", reader ["null","long"]: Some.
    let (w, bytes) = write(r#""int""#, &4i32);
    let r = Schema::parse_str(r#"["null","long"]"#).unwrap();
    let plan = DePlan::resolving(&w, &r).unwrap();
    assert_eq!(
        from_datum_slice::<Option<i64>>(&bytes, &plan).unwrap(),
        Some(4)
    );
}

#[test]
fn union_branches_remapped() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum E {
        Int(i32),
        Text(String),
    }
    #[derive(Deserialize, Debug, PartialEq)]
    enum F {
        Text(String),
        Long(i64),
    }
    let (w, bytes) = write(r#"["int","string"]"#, &E::Text("t".into()));
    let r = Schema::parse_str(r#"["string","long"]"#).unwrap();
    let plan = DePlan::resolving(&w, &r).unwrap();
    assert_eq!(
        from_datum_slice::<F>(&bytes, &plan).unwrap(),
        F::Text("t".into())
    );
    let (_, bytes) = write(r#"["int","string"]"#, &E::Int(3));
    assert_eq!(from_datum_slice::<F>(&bytes, &plan).unwrap(), F::Long(3));
}

#[test]
fn nested_record_default() {
    #[derive(Serialize)]
    struct Old {
        a: i32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Inner {
        x: i32,
        y: String,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct New {
        a: i32,
        inner: Inner,
        maybe: Option<Inner>,
    }
    let (w, bytes) = write(
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#,
        &Old { a: 1 },
    );
    let r = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"},
        {"name":"inner","type":{"type":"record","name":"I","fields":[{"name":"x","type":"int"},
            {"name":"y","type":"string"}]},"default":{"x":2,"y":"why"}},
        {"name":"maybe","type":["null","I"],"default":null}]}"#,
    )
    .unwrap();
    let plan = DePlan::resolving(&w, &r).unwrap();
    let got: New = from_datum_slice(&bytes, &plan).unwrap();
    assert_eq!(
        got,
        New {
            a: 1,
            inner: Inner {
                x: 2,
                y: "why".into()
            },
            maybe: None
        }
    );
}

#[test]
fn incompatible_pairs_fail_at_compile() {
    let w = Schema::parse_str(r#""string""#).unwrap();
    let r = Schema::parse_str(r#""int""#).unwrap();
    assert_eq!(
        DePlan::resolving(&w, &r).unwrap_err().kind(),
        ErrorKind::Resolution
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct RecA {
    a: i32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct RecB {
    b: String,
}

/// Variants named unlike the records: read by position.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Either {
    First(RecA),
    Second(RecB),
}

const REC_A: &str = r#"{"type":"record","name":"RecA","fields":[{"name":"a","type":"int"}]}"#;
const REC_B: &str = r#"{"type":"record","name":"RecB","fields":[{"name":"b","type":"string"}]}"#;

#[test]
fn option_of_an_enum_over_a_union_with_null_skips_the_null_branch() {
    let ab = format!(r#"["null",{REC_A},{REC_B}]"#);
    let ba = format!(r#"["null",{REC_B},{REC_A}]"#);
    let values = [
        None,
        Some(Either::First(RecA { a: -7 })),
        Some(Either::Second(RecB { b: "x".into() })),
    ];
    // Without a reader schema.
    let schema = Schema::parse_str(&ab).unwrap();
    let plan = DePlan::compile(&schema).unwrap();
    for (i, v) in values.iter().enumerate() {
        let (_, bytes) = write(&ab, v);
        assert_eq!(bytes[0], 2 * i as u8, "branch {i} written for {v:?}");
        assert_eq!(
            &from_datum_slice::<Option<Either>>(&bytes, &plan).unwrap(),
            v
        );
    }
    // With a reader schema: written in the other order, read in the Rust enum's.
    let reader = Schema::parse_str(&ab).unwrap();
    for v in &values {
        let (writer, bytes) = write(&ba, v);
        let plan = DePlan::resolving(&writer, &reader).unwrap();
        assert_eq!(
            &from_datum_slice::<Option<Either>>(&bytes, &plan).unwrap(),
            v
        );
    }
    // `null` first and the record branches renamed in the reader (aliases): still by position.
    let renamed = r#"["null",
        {"type":"record","name":"X","aliases":["RecA"],"fields":[{"name":"a","type":"int"}]},
        {"type":"record","name":"Y","aliases":["RecB"],"fields":[{"name":"b","type":"string"}]}]"#;
    let reader = Schema::parse_str(renamed).unwrap();
    for v in &values {
        let (writer, bytes) = write(&ab, v);
        let plan = DePlan::resolving(&writer, &reader).unwrap();
        assert_eq!(
            &from_datum_slice::<Option<Either>>(&bytes, &plan).unwrap(),
            v
        );
    }
}

#[test]
fn an_enum_with_a_variant_for_null_keeps_positions() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    enum Three {
        Nothing,
        First(RecA),
        Second(RecB),
    }
    let ab = format!(r#"["null",{REC_A},{REC_B}]"#);
    let plan = DePlan::compile(&Schema::parse_str(&ab).unwrap()).unwrap();
    for (bytes, v) in [
        (vec![0], Three::Nothing),
        (vec![2, 3], Three::First(RecA { a: -2 })),
        (vec![4, 2, b'y'], Three::Second(RecB { b: "y".into() })),
    ] {
        assert_eq!(from_datum_slice::<Three>(&bytes, &plan).unwrap(), v);
    }
}

#[test]
fn optional_byte_arrays_and_bytes_as_sequences() {
    let fixed = r#"["null",{"type":"fixed","name":"F","size":4}]"#;
    let (schema, bytes) = write(fixed, &Some([1u8, 2, 3, 4]));
    assert_eq!(bytes, [2, 1, 2, 3, 4]);
    let plan = DePlan::compile(&schema).unwrap();
    assert_eq!(
        from_datum_slice::<Option<[u8; 4]>>(&bytes, &plan).unwrap(),
        Some([1, 2, 3, 4])
    );
    let (schema, bytes) = write(r#"["null","bytes"]"#, &Some(vec![9u8, 8]));
    assert_eq!(bytes, [2, 4, 9, 8]);
    let plan = DePlan::compile(&schema).unwrap();
    assert_eq!(
        from_datum_slice::<Option<Vec<u8>>>(&bytes, &plan).unwrap(),
        Some(vec![9, 8])
    );
    // Through a reader union around a writer non-union.
    let writer = Schema::parse_str(r#"{"type":"fixed","name":"F","size":4}"#).unwrap();
    let reader = Schema::parse_str(fixed).unwrap();
    let plan = DePlan::resolving(&writer, &reader).unwrap();
    assert_eq!(
        from_datum_slice::<Option<[u8; 4]>>(&[5, 6, 7, 8], &plan).unwrap(),
        Some([5, 6, 7, 8])
    );
}

/// A struct whose fields are the record's in order is read as a sequence; every other struct
/// by field name. Both give the same values, whichever plan a type meets first, and however
/// the plans and types alternate.
#[test]
fn structs_read_in_order_or_by_name_alike() {
    const SCHEMA: &str = r#"{"type":"record","name":"P","fields":[
        {"name":"a","type":"int"},
        {"name":"b","type":"string"},
        {"name":"inner","type":["null",{"type":"record","name":"Q","fields":[
            {"name":"x","type":"long"},{"name":"y","type":"double"}]}]}]}"#;
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct Q {
        x: i64,
        y: f64,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
    struct InOrder {
        a: i32,
        b: String,
        inner: Option<Q>,
    }
    // The same fields in another order: matched by name.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Shuffled {
        inner: Option<QShuffled>,
        b: String,
        a: i32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename = "Q")]
    struct QShuffled {
        y: f64,
        x: i64,
    }
    // A field the schema does not have, skipped by serde, and a renamed one.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Renamed {
        a: i32,
        #[serde(skip)]
        extra: u8,
        #[serde(rename = "b")]
        name: String,
        inner: Option<Q>,
    }
    let v = InOrder {
        a: -7,
        b: "hello".into(),
        inner: Some(Q {
            x: 1 << 40,
            y: 0.25,
        }),
    };
    let (schema, bytes) = write(SCHEMA, &v);
    let plan = DePlan::compile(&schema).unwrap();
    for _ in 0..3 {
        let back: InOrder = from_datum_slice(&bytes, &plan).unwrap();
        assert_eq!(back, v);
        let s: Shuffled = from_datum_slice(&bytes, &plan).unwrap();
        assert_eq!((s.a, s.b.as_str()), (v.a, "hello"));
        assert_eq!(
            s.inner,
            Some(QShuffled {
                y: 0.25,
                x: 1 << 40
            })
        );
        let r: Renamed = from_datum_slice(&bytes, &plan).unwrap();
        assert_eq!(
            (r.a, r.extra, r.name.as_str(), r.inner),
            (-7, 0, "hello", v.inner.clone())
        );
    }

    // A reader with a defaulted field at the end (values still in order) and one that moves a
    // field (the writer's order differs): both read, in order or by name.
    let evolved = Schema::parse_str(
        r#"{"type":"record","name":"P","fields":[
        {"name":"a","type":"long"},
        {"name":"b","type":"string"},
        {"name":"inner","type":["null",{"type":"record","name":"Q","fields":[
            {"name":"x","type":"long"},{"name":"y","type":"double"}]}]},
        {"name":"c","type":"string","default":"dflt"}]}"#,
    )
    .unwrap();
    #[derive(Deserialize, Debug, PartialEq)]
    struct Evolved {
        a: i64,
        b: String,
        inner: Option<Q>,
        c: String,
    }
    let plan = DePlan::resolving(&schema, &evolved).unwrap();
    let e: Evolved = from_datum_slice(&bytes, &plan).unwrap();
    assert_eq!((e.a, e.c.as_str(), e.inner), (-7, "dflt", v.inner.clone()));
    let moved = Schema::parse_str(
        r#"{"type":"record","name":"P","fields":[
        {"name":"b","type":"string"},
        {"name":"a","type":"int"},
        {"name":"inner","type":["null",{"type":"record","name":"Q","fields":[
            {"name":"x","type":"long"},{"name":"y","type":"double"}]}]}]}"#,
    )
    .unwrap();
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename = "P")]
    struct Moved {
        b: String,
        a: i32,
        inner: Option<Q>,
    }
    let plan = DePlan::resolving(&schema, &moved).unwrap();
    let m: Moved = from_datum_slice(&bytes, &plan).unwrap();
    assert_eq!((m.a, m.b.as_str()), (-7, "hello"));
    // The in-order struct through the moved plan: matched by name, not by position.
    let back: InOrder = from_datum_slice(&bytes, &plan).unwrap();
    assert_eq!(back, v);

    // Errors still name the field.
    let mut bad = bytes.clone();
    bad[1] = 0x7f; // b's length: past the end
    let plan = DePlan::compile(&schema).unwrap();
    let e = from_datum_slice::<InOrder>(&bad, &plan).unwrap_err();
    assert_eq!(e.path(), "P.b", "{e}");
    bad = bytes.clone();
    bad.truncate(bytes.len() - 3); // inside inner.y
    let e = from_datum_slice::<InOrder>(&bad, &plan).unwrap_err();
    assert!(e.is_eof() && e.path().ends_with('y'), "{e}");
}
