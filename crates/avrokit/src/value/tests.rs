//! Reading into a reused value (`read_value_into`, `read_value_resolved_into`) must give exactly
//! what reading a new value gives, whatever the value being overwritten held, and fail the same
//! way (kind, offset, path) on every truncated input.

use super::{
    read_value, read_value_into, read_value_resolved, read_value_resolved_into, to_datum_vec, Value,
};
use super::{Decimal, Duration};
use crate::decode::Decoder;
use crate::error::Error;
use crate::resolution::ResolvedPlan;
use crate::schema::Schema;

fn schema(json: &str) -> Schema {
    Schema::parse_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

fn u(i: u32, v: Value) -> Value {
    Value::Union(i, Box::new(v))
}

fn s(x: &str) -> Value {
    Value::String(x.to_owned())
}

/// Values of every shape, to be overwritten.
fn junk() -> Vec<Value> {
    vec![
        Value::Null,
        Value::Int(5),
        Value::Double(1.5),
        s("a long string that will be overwritten"),
        Value::Bytes(vec![1, 2, 3]),
        Value::Fixed(vec![9; 4]),
        Value::Enum(3),
        Value::Array(vec![Value::Int(1), s("x"), Value::Null]),
        Value::Map(vec![("k".into(), Value::Long(1)), ("j".into(), s("v"))]),
        Value::Record(vec![]),
        Value::Record(vec![Value::Null; 40]),
        Value::Record(vec![s("x"), Value::Int(1)]),
        u(1, Value::Record(vec![Value::Int(1)])),
        Value::Decimal(Decimal::from_i128(-5, 2)),
        Value::Uuid([7; 16]),
    ]
}

fn same(a: &Value, b: &Value) -> bool {
    // Through Debug, so that NaN equals NaN.
    format!("{a:?}") == format!("{b:?}")
}

fn same_error(a: &Error, b: &Error) -> bool {
    a.kind() == b.kind()
        && a.offset() == b.offset()
        && a.path() == b.path()
        && a.message() == b.message()
}

/// Reads the datums of `bytes` one after another: into a chained reused value, and into each
/// junk value; every result must be the fresh read's. Also for every truncation of the input.
fn check_stream<F, G>(bytes: &[u8], n: usize, fresh: F, into: G)
where
    F: Fn(&mut Decoder<'_>) -> crate::Result<Value>,
    G: Fn(&mut Decoder<'_>, &mut Value) -> crate::Result<()>,
{
    for cut in 0..=bytes.len() {
        let input = &bytes[..cut];
        let mut expected = Vec::new();
        let mut dec = Decoder::from_slice(input);
        for _ in 0..n {
            let r = fresh(&mut dec);
            let stop = r.is_err();
            expected.push(r);
            if stop {
                break;
            }
        }
        // One reused value across the stream, and each junk value per datum.
        let mut chained = Value::Null;
        let mut dec = Decoder::from_slice(input);
        let mut starts: Vec<Value> = junk();
        let mut decs: Vec<Decoder<'_>> =
            starts.iter().map(|_| Decoder::from_slice(input)).collect();
        for (i, want) in expected.iter().enumerate() {
            let got = into(&mut dec, &mut chained);
            match (want, &got) {
                (Ok(w), Ok(())) => assert!(same(w, &chained), "datum {i}: {chained:?} != {w:?}"),
                (Err(w), Err(g)) => assert!(same_error(w, g), "datum {i}: {g:?} != {w:?}"),
                _ => panic!("datum {i} of {cut} bytes: fresh {want:?}, into {got:?}"),
            }
            for (start, d) in starts.iter_mut().zip(decs.iter_mut()) {
                let before = format!("{start:?}");
                let got = into(d, start);
                match (want, &got) {
                    (Ok(w), Ok(())) => assert!(same(w, start), "over {before}: {start:?} != {w:?}"),
                    (Err(w), Err(g)) => assert!(same_error(w, g), "over {before}: {g} != {w}"),
                    _ => panic!("over {before}: fresh {want:?}, into {got:?}"),
                }
            }
        }
    }
}

fn check_plain(schema_json: &str, values: &[Value]) {
    let sc = schema(schema_json);
    let mut bytes = Vec::new();
    for v in values {
        bytes.extend(to_datum_vec(v, &sc).unwrap_or_else(|e| panic!("{v:?}: {e}")));
    }
    check_stream(
        &bytes,
        values.len(),
        |d| read_value(d, &sc),
        |d, out| read_value_into(d, &sc, out),
    );
    // And the values read are the values written.
    let mut dec = Decoder::from_slice(&bytes);
    let mut v = Value::Null;
    for want in values {
        read_value_into(&mut dec, &sc, &mut v).expect("reads");
        assert!(same(&v, want), "{v:?} != {want:?}");
    }
}

fn check_resolved(writer: &str, reader: &str, values: &[Value]) {
    let w = schema(writer);
    let plan = ResolvedPlan::compile(&w, &schema(reader)).expect("compiles");
    let mut bytes = Vec::new();
    for v in values {
        bytes.extend(to_datum_vec(v, &w).unwrap_or_else(|e| panic!("{v:?}: {e}")));
    }
    check_stream(
        &bytes,
        values.len(),
        |d| read_value_resolved(d, &plan),
        |d, out| read_value_resolved_into(d, &plan, out),
    );
}

const ALL: &str = r#"{"type":"record","name":"All","fields":[
    {"name":"n","type":"null"},
    {"name":"b","type":"boolean"},
    {"name":"i","type":"int"},
    {"name":"l","type":"long"},
    {"name":"f","type":"float"},
    {"name":"d","type":"double"},
    {"name":"by","type":"bytes"},
    {"name":"s","type":"string"},
    {"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
    {"name":"ai","type":{"type":"array","items":"int"}},
    {"name":"ms","type":{"type":"map","values":"string"}},
    {"name":"un","type":["null","string","long"]},
    {"name":"r","type":{"type":"record","name":"In","fields":[
        {"name":"x","type":"double"},{"name":"y","type":["null","In"]}]}},
    {"name":"ar","type":{"type":"array","items":"In"}},
    {"name":"mu","type":{"type":"map","values":["null","In"]}},
    {"name":"date","type":{"type":"int","logicalType":"date"}},
    {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
    {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
    {"name":"decf","type":{"type":"fixed","name":"D8","size":8,"logicalType":"decimal",
        "precision":9,"scale":2}},
    {"name":"uuid","type":{"type":"string","logicalType":"uuid"}},
    {"name":"dur","type":{"type":"fixed","name":"Du","size":12,"logicalType":"duration"}},
    {"name":"aa","type":{"type":"array","items":{"type":"array","items":"string"}}}
]}"#;

fn inner(x: f64, next: Option<Value>) -> Value {
    Value::Record(vec![
        Value::Double(x),
        match next {
            None => u(0, Value::Null),
            Some(v) => u(1, v),
        },
    ])
}

fn all(k: i32) -> Value {
    let n = k as usize;
    Value::Record(vec![
        Value::Null,
        Value::Boolean(k % 2 == 0),
        Value::Int(k * 1000 - 7),
        Value::Long(-(k as i64) << 40),
        Value::Float(k as f32 / 3.0),
        Value::Double(if k == 2 { f64::NAN } else { k as f64 * 0.1 }),
        Value::Bytes(vec![k as u8; n * 3]),
        s(&"é".repeat(n * 2)),
        Value::Fixed(vec![k as u8; 4]),
        Value::Enum((k % 3) as u32),
        Value::Array((0..n * 2).map(|i| Value::Int(i as i32)).collect()),
        Value::Map(
            (0..(3 - n.min(3)))
                .map(|i| (format!("k{i}"), s(&"v".repeat(i + n))))
                .collect(),
        ),
        match k % 3 {
            0 => u(0, Value::Null),
            1 => u(1, s("one")),
            _ => u(2, Value::Long(k as i64)),
        },
        inner(k as f64, (k % 2 == 1).then(|| inner(-1.0, None))),
        Value::Array((0..n).map(|i| inner(i as f64, None)).collect()),
        Value::Map(
            (0..n)
                .map(|i| {
                    let v = if i % 2 == 0 {
                        u(0, Value::Null)
                    } else {
                        u(1, inner(2.0, None))
                    };
                    (format!("m{i}"), v)
                })
                .collect(),
        ),
        Value::Date(k * 100),
        Value::TimestampMicros(k as i64 * 1_000_000),
        Value::Decimal(Decimal::from_i128(k as i128 * 12345 - 99, 2)),
        Value::Decimal(Decimal::new(vec![0, 0, 0, 0, 0, 0, 1, k as u8], 2)),
        Value::Uuid([k as u8; 16]),
        Value::Duration(Duration {
            months: k as u32,
            days: 2,
            millis: 3,
        }),
        Value::Array(
            (0..n)
                .map(|i| Value::Array((0..(n - i)).map(|j| s(&"z".repeat(j))).collect()))
                .collect(),
        ),
    ])
}

#[test]
fn value_is_four_words() {
    assert_eq!(std::mem::size_of::<Value>(), 32);
}

#[test]
fn into_equals_fresh_for_every_type() {
    check_plain(ALL, &[all(3), all(0), all(2), all(1), all(4), all(0)]);
}

#[test]
fn into_equals_fresh_for_recursive_and_top_level_shapes() {
    let list = r#"{"type":"record","name":"L","fields":[
        {"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}"#;
    let node = |v, next: Option<Value>| {
        Value::Record(vec![
            Value::Int(v),
            match next {
                None => u(0, Value::Null),
                Some(n) => u(1, n),
            },
        ])
    };
    let l3 = node(1, Some(node(2, Some(node(3, None)))));
    check_plain(list, &[l3.clone(), node(9, None), l3]);
    check_plain(
        r#"["null","int",{"type":"array","items":"long"},{"type":"map","values":"string"}]"#,
        &[
            u(2, Value::Array(vec![Value::Long(1), Value::Long(2)])),
            u(0, Value::Null),
            u(3, Value::Map(vec![("a".into(), s("b"))])),
            u(1, Value::Int(4)),
            u(2, Value::Array(vec![])),
        ],
    );
    check_plain(
        r#"{"type":"map","values":{"type":"array","items":"string"}}"#,
        &[
            Value::Map(vec![("a".into(), Value::Array(vec![s("x"), s("y")]))]),
            Value::Map(vec![]),
            Value::Map(vec![
                ("a".into(), Value::Array(vec![])),
                ("b".into(), Value::Array(vec![s("z")])),
            ]),
        ],
    );
    check_plain(r#""string""#, &[s("abc"), s(""), s("de")]);
}

#[test]
fn resolved_into_equals_fresh() {
    let writer = r#"{"type":"record","name":"R","fields":[
        {"name":"a","type":"int"},
        {"name":"gone","type":{"type":"array","items":"string"}},
        {"name":"b","type":"long"},
        {"name":"c","type":["null","int"]},
        {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
        {"name":"arr","type":{"type":"array","items":{"type":"record","name":"P","fields":[
            {"name":"p","type":"int"},{"name":"q","type":"string"}]}}},
        {"name":"m","type":{"type":"map","values":"float"}},
        {"name":"plain","type":"string"},
        {"name":"w","type":"int"}]}"#;
    let reader = r#"{"type":"record","name":"R","fields":[
        {"name":"plain","type":"string"},
        {"name":"d1","type":"string","default":"undefined"},
        {"name":"b","type":"double"},
        {"name":"a","type":"long"},
        {"name":"e","type":{"type":"enum","name":"E","symbols":["Z","Y","X"]}},
        {"name":"c","type":["null","long","string"]},
        {"name":"arr","type":{"type":"array","items":{"type":"record","name":"P","fields":[
            {"name":"q","type":"string"},{"name":"p","type":"double"},
            {"name":"r","type":{"type":"array","items":"int"},"default":[1,2]}]}}},
        {"name":"m","type":{"type":"map","values":"double"}},
        {"name":"d2","type":["null","string"],"default":null},
        {"name":"w","type":["string","int"]}]}"#;
    let v = |k: i32| {
        let n = k as usize;
        Value::Record(vec![
            Value::Int(k),
            Value::Array((0..n).map(|i| s(&"g".repeat(i))).collect()),
            Value::Long(k as i64 * 3),
            if k % 2 == 0 {
                u(0, Value::Null)
            } else {
                u(1, Value::Int(k))
            },
            Value::Enum((k % 2) as u32),
            Value::Array(
                (0..n)
                    .map(|i| Value::Record(vec![Value::Int(i as i32), s(&"q".repeat(i))]))
                    .collect(),
            ),
            Value::Map(
                (0..(3 - n.min(3)))
                    .map(|i| (format!("k{i}"), Value::Float(i as f32)))
                    .collect(),
            ),
            s(&"p".repeat(n)),
            Value::Int(-k),
        ])
    };
    check_resolved(writer, reader, &[v(3), v(0), v(2), v(1), v(3)]);
    // A writer union read as a reader non-union, and a reader union around a writer record.
    check_resolved(
        r#"["int","long"]"#,
        r#""double""#,
        &[
            u(0, Value::Int(1)),
            u(1, Value::Long(2)),
            u(0, Value::Int(3)),
        ],
    );
    check_resolved(
        r#"{"type":"record","name":"Q","fields":[{"name":"x","type":"int"}]}"#,
        r#"["null",{"type":"record","name":"Q","fields":[{"name":"x","type":"long"},
            {"name":"y","type":"string","default":"dflt"}]}]"#,
        &[
            Value::Record(vec![Value::Int(1)]),
            Value::Record(vec![Value::Int(2)]),
        ],
    );
    // Identity plans read with the reader's schema.
    check_resolved(ALL, ALL, &[all(2), all(1), all(3)]);
}

/// A bad item in the middle of an array or map: the error names it, and the items built in
/// place before it do not leak into a later read (the fresh and reused reads agree).
#[test]
fn a_bad_item_is_named_by_its_index_or_key() {
    let sc = schema(
        r#"{"type":"record","name":"R","fields":[
            {"name":"a","type":{"type":"array","items":{"type":"enum","name":"E","symbols":["X","Y"]}}},
            {"name":"m","type":{"type":"map","values":["null",{"type":"record","name":"P","fields":[
                {"name":"e","type":"E"}]}]}}]}"#,
    );
    // a: [X, Y, symbol 5]; then the same with a good array and a map whose "k1" is bad.
    let bad_array = [0x06, 0x00, 0x02, 0x0a, 0x00];
    let mut dec = Decoder::from_slice(&bad_array);
    let e = read_value(&mut dec, &sc).expect_err("symbol 5 of 2");
    assert_eq!(e.path(), "R.a[2]", "{e}");
    let mut v = Value::Null;
    let e2 = read_value_into(&mut Decoder::from_slice(&bad_array), &sc, &mut v).unwrap_err();
    assert!(same_error(&e, &e2), "{e} != {e2}");

    let bad_map = [
        0x02, 0x02, 0x00, // a: [Y]
        0x04, 0x04, b'k', b'0', 0x02, 0x00, // "k0": P{X}
        0x04, b'k', b'1', 0x02, 0x0c, 0x00, // "k1": P{symbol 6}
    ];
    let e = read_value(&mut Decoder::from_slice(&bad_map), &sc).expect_err("symbol 6 of 2");
    assert!(e.path().starts_with("R.m"), "{e}");
    assert!(e.path().contains("k1"), "{e}");
    assert!(!e.path().contains("k0"), "{e}");
    let e2 = read_value_into(&mut Decoder::from_slice(&bad_map), &sc, &mut v).unwrap_err();
    assert!(same_error(&e, &e2), "{e} != {e2}");
}
