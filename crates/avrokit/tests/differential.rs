//! Byte-for-byte comparison with the `apache-avro` crate (STYLE rule 23): random schemas and
//! values are written by both libraries and must give identical bytes; our decoder reads their
//! bytes back to our value, and their decoder reads ours back to theirs.
//!
//! How our `Value`s map to theirs, and what apache-avro cannot express:
//! - records carry field names (`Vec<(String, Value)>`), enums carry the symbol next to the
//!   index, fixed values carry their size: all taken from the generated schema model;
//! - maps are `HashMap`s, written in the map's iteration order, so our entries are put in that
//!   same order before we write (keys are unique in generated maps);
//! - `decimal` values are `apache_avro::Decimal` built from the same two's-complement bytes;
//!   apache-avro cannot write an empty byte string for a decimal (it sign-extends to the
//!   original length and zero needs one byte), so generated decimals have at least one byte;
//! - `big-decimal` values are `bigdecimal::BigDecimal` (converted with the `bigdecimal`
//!   feature's `From<&Decimal>`), which apache-avro writes with the minimal two's-complement
//!   bytes, so generated ones are minimal (`Decimal::from_i128`);
//! - `uuid` values are `uuid::Uuid` (their string form is the same lower-case 8-4-4-4-12), and
//!   `duration` values are `apache_avro::Duration`.

mod common;

use std::collections::HashMap;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::types::Value as A;
use apache_avro::writer::datum::GenericDatumWriter;
use apache_avro::{Days, Millis, Months};
use avrokit::Value;
use common::gen::{arb_case, DefKind, FixedLogical, Model, T};
use common::{assert_same, decode_ok, schema};
use proptest::prelude::*;

/// Converts our value of type `t` to apache-avro's.
fn to_apache(m: &Model, t: &T, v: &Value) -> A {
    match (t, v) {
        (_, Value::Null) => A::Null,
        (_, Value::Boolean(b)) => A::Boolean(*b),
        (_, Value::Int(x)) => A::Int(*x),
        (_, Value::Long(x)) => A::Long(*x),
        (_, Value::Float(x)) => A::Float(*x),
        (_, Value::Double(x)) => A::Double(*x),
        (_, Value::Bytes(b)) => A::Bytes(b.clone()),
        (_, Value::String(s)) => A::String(s.clone()),
        (_, Value::Date(x)) => A::Date(*x),
        (_, Value::TimeMillis(x)) => A::TimeMillis(*x),
        (_, Value::TimeMicros(x)) => A::TimeMicros(*x),
        (_, Value::TimestampMillis(x)) => A::TimestampMillis(*x),
        (_, Value::TimestampMicros(x)) => A::TimestampMicros(*x),
        (_, Value::TimestampNanos(x)) => A::TimestampNanos(*x),
        (_, Value::LocalTimestampMillis(x)) => A::LocalTimestampMillis(*x),
        (_, Value::LocalTimestampMicros(x)) => A::LocalTimestampMicros(*x),
        (_, Value::LocalTimestampNanos(x)) => A::LocalTimestampNanos(*x),
        (_, Value::Decimal(d)) => A::Decimal(apache_avro::Decimal::from(d.unscaled().to_vec())),
        // Through the `bigdecimal` feature's conversion (exact, at any size).
        (_, Value::BigDecimal(d)) => A::BigDecimal(bigdecimal::BigDecimal::from(d)),
        (_, Value::Uuid(u)) => A::Uuid(apache_avro::Uuid::from_bytes(*u)),
        (_, Value::Duration(d)) => A::Duration(apache_avro::Duration::new(
            Months::new(d.months),
            Days::new(d.days),
            Millis::new(d.millis),
        )),
        (T::Array(t), Value::Array(items)) => {
            A::Array(items.iter().map(|v| to_apache(m, t, v)).collect())
        }
        (T::Map(t), Value::Map(entries)) => A::Map(
            entries
                .iter()
                .map(|(k, v)| (k.clone(), to_apache(m, t, v)))
                .collect::<HashMap<_, _>>(),
        ),
        (T::Union(ts), Value::Union(i, v)) => {
            A::Union(*i, Box::new(to_apache(m, &ts[*i as usize], v)))
        }
        (T::Named(i), v) => match (&m.defs[*i].kind, v) {
            (DefKind::Record { fields, .. }, Value::Record(values)) => A::Record(
                fields
                    .iter()
                    .zip(values)
                    .map(|((name, t), v)| (name.clone(), to_apache(m, t, v)))
                    .collect(),
            ),
            (DefKind::Enum(symbols), Value::Enum(k)) => A::Enum(*k, symbols[*k as usize].clone()),
            (DefKind::Fixed { size, .. }, Value::Fixed(b)) => A::Fixed(*size, b.clone()),
            (kind, v) => panic!("no conversion of {v:?} for {kind:?}"),
        },
        (t, v) => panic!("no conversion of {v:?} for {t:?}"),
    }
}

/// Puts our map entries in the order apache-avro will write them (its `HashMap`'s order).
fn reorder_like(ours: &mut Value, theirs: &A) {
    match (ours, theirs) {
        (Value::Map(entries), A::Map(map)) => {
            let mut old = std::mem::take(entries);
            for (k, a) in map {
                let at = old.iter().position(|(key, _)| key == k).expect("same keys");
                let (key, mut v) = old.swap_remove(at);
                reorder_like(&mut v, a);
                entries.push((key, v));
            }
        }
        (Value::Array(xs), A::Array(ys)) => {
            for (x, y) in xs.iter_mut().zip(ys) {
                reorder_like(x, y);
            }
        }
        (Value::Record(xs), A::Record(ys)) => {
            for (x, (_, y)) in xs.iter_mut().zip(ys) {
                reorder_like(x, y);
            }
        }
        (Value::Union(_, x), A::Union(_, y)) => reorder_like(x, y),
        _ => {}
    }
}

fn has_nan(v: &Value) -> bool {
    match v {
        Value::Float(x) => x.is_nan(),
        Value::Double(x) => x.is_nan(),
        Value::Array(xs) | Value::Record(xs) => xs.iter().any(has_nan),
        Value::Map(es) => es.iter().any(|(_, v)| has_nan(v)),
        Value::Union(_, v) => has_nan(v),
        _ => false,
    }
}

/// Both libraries write `value`; the bytes must be identical and each library must read the
/// other's bytes back.
fn compare(model: &Model, mut value: Value) {
    let json = model.json_string();
    let ours_schema = schema(&json);
    let theirs_schema = apache_avro::Schema::parse_str(&json)
        .unwrap_or_else(|e| panic!("apache-avro rejects {json}: {e}"));
    let theirs = to_apache(model, &model.root, &value);
    reorder_like(&mut value, &theirs);

    let writer = GenericDatumWriter::builder(&theirs_schema)
        .build()
        .expect("writer");
    let mut their_bytes = Vec::new();
    writer
        .write_value_ref(&mut their_bytes, &theirs)
        .unwrap_or_else(|e| panic!("apache-avro cannot write {theirs:?} as {json}: {e}"));
    let our_bytes = avrokit::to_datum_vec(&value, &ours_schema).expect("we write");
    assert_eq!(
        hex::encode(&our_bytes),
        hex::encode(&their_bytes),
        "bytes differ for {value:?} as {json}"
    );

    // Our decoder reads their bytes to our value.
    assert_same(
        &decode_ok(&their_bytes, &ours_schema),
        &value,
        "reading apache-avro's bytes",
    );

    // Their decoder reads our bytes to their value (NaN never equals itself there).
    if !has_nan(&value) {
        let reader = GenericDatumReader::builder(&theirs_schema)
            .build()
            .expect("reader");
        let back = reader.read_value(&mut &our_bytes[..]).unwrap_or_else(|e| {
            panic!(
                "apache-avro cannot read our {} as {json}: {e}",
                hex::encode(&our_bytes)
            )
        });
        assert_eq!(back, theirs, "apache-avro reading our bytes of {json}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, max_shrink_iters: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn same_bytes_as_apache_avro((model, value) in arb_case()) {
        compare(&model, value);
    }
}

#[test]
fn spec_examples_match_apache_avro() {
    use common::gen::{Def, NameForm, Prim};
    let record = Model {
        defs: vec![Def {
            name: "test".into(),
            namespace: String::new(),
            form: NameForm::Inherit,
            doc: None,
            kind: DefKind::Record {
                fields: vec![
                    ("a".into(), T::Prim(Prim::Long)),
                    ("b".into(), T::Prim(Prim::String)),
                ],
                list: false,
            },
        }],
        root: T::Named(0),
    };
    compare(
        &record,
        Value::Record(vec![Value::Long(27), Value::String("foo".into())]),
    );
    let array = Model {
        defs: vec![],
        root: T::Array(Box::new(T::Prim(Prim::Long))),
    };
    compare(&array, Value::Array(vec![Value::Long(3), Value::Long(27)]));
    let union = Model {
        defs: vec![],
        root: T::Union(vec![T::Prim(Prim::Null), T::Prim(Prim::String)]),
    };
    compare(&union, Value::Union(1, Box::new(Value::String("a".into()))));
    let uuid = Model {
        defs: vec![Def {
            name: "U".into(),
            namespace: "n".into(),
            form: NameForm::Namespace("n"),
            doc: None,
            kind: DefKind::Fixed {
                size: 16,
                logical: Some(FixedLogical::Uuid),
            },
        }],
        root: T::Named(0),
    };
    compare(&uuid, Value::Uuid(*b"0123456789abcdef"));
}
