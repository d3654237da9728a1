//! The `Value` front end: error paths on write and read, union branch selection, logical
//! types, promotions, and whole-datum helpers.

mod common;

use avrokit::value::{read_value, Decimal, Duration};
use avrokit::{ErrorKind, Schema, Value};
use common::{assert_same, decode_all, decode_ok, encode_all, roundtrip, schema, unhex};

const ORDER: &str = r#"{
  "type": "record", "name": "Order", "namespace": "shop",
  "fields": [
    {"name": "id", "type": "long"},
    {"name": "items", "type": {"type": "array", "items": {
      "type": "record", "name": "Item",
      "fields": [{"name": "name", "type": "string"}, {"name": "price", "type": "double"}]}}},
    {"name": "tags", "type": {"type": "map", "values": "int"}},
    {"name": "customer", "type": ["null", {"type": "record", "name": "Customer",
      "fields": [{"name": "name", "type": "string"}]}]}
  ]
}"#;

fn item(name: &str, price: f64) -> Value {
    Value::Record(vec![Value::String(name.into()), Value::Double(price)])
}

fn order(items: Vec<Value>, tags: Vec<(&str, Value)>, customer: Value) -> Value {
    Value::Record(vec![
        Value::Long(7),
        Value::Array(items),
        Value::Map(tags.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()),
        customer,
    ])
}

fn no_customer() -> Value {
    Value::Union(0, Box::new(Value::Null))
}

/// Writing `value` fails the same way through every sink; returns the path.
#[track_caller]
fn write_error(value: &Value, schema: &Schema, kind: ErrorKind) -> String {
    let mut path = None;
    for (snk, r) in encode_all(value, schema) {
        let e = r.expect_err("a mismatched value cannot be written");
        assert_eq!(e.kind(), kind, "{snk}: {e}");
        match &path {
            None => path = Some(e.path()),
            Some(p) => assert_eq!(&e.path(), p, "{snk}: the same path from every sink"),
        }
        assert!(
            e.to_string().contains(&e.path()),
            "the message shows the path: {e}"
        );
    }
    path.expect("one sink at least")
}

#[test]
fn write_errors_name_the_path() {
    let s = schema(ORDER);
    let good = order(
        vec![
            item("a", 1.0),
            item("b", 2.0),
            item("c", 3.0),
            item("d", 4.0),
        ],
        vec![("x", Value::Int(1))],
        Value::Union(
            1,
            Box::new(Value::Record(vec![Value::String("Ann".into())])),
        ),
    );
    roundtrip(&good, &s);

    let mut bad = good.clone();
    let Value::Record(fields) = &mut bad else {
        unreachable!()
    };
    let Value::Array(items) = &mut fields[1] else {
        unreachable!()
    };
    items[3] = Value::Record(vec![
        Value::String("d".into()),
        Value::String("4.00".into()),
    ]);
    assert_eq!(
        write_error(&bad, &s, ErrorKind::Data),
        "Order.items[3].price"
    );

    let bad = order(
        vec![],
        vec![("a", Value::Int(1)), ("b", Value::Null)],
        no_customer(),
    );
    assert_eq!(write_error(&bad, &s, ErrorKind::Data), r#"Order.tags["b"]"#);

    let bad = order(
        vec![],
        vec![],
        Value::Union(1, Box::new(Value::Record(vec![Value::Int(1)]))),
    );
    assert_eq!(
        write_error(&bad, &s, ErrorKind::Data),
        "Order.customer.name"
    );

    let bad = order(
        vec![item("a", 1.0), Value::Record(vec![])],
        vec![],
        no_customer(),
    );
    assert_eq!(write_error(&bad, &s, ErrorKind::Data), "Order.items[1]");

    let bad = order(vec![], vec![], Value::Union(2, Box::new(Value::Null)));
    assert_eq!(write_error(&bad, &s, ErrorKind::Data), "Order.customer");

    let bad = Value::Record(vec![Value::String("7".into()), Value::Array(vec![])]);
    assert_eq!(write_error(&bad, &s, ErrorKind::Data), "Order");

    // Unnamed roots have no leading name.
    let longs = schema(r#"{"type":"array","items":"long"}"#);
    let bad = Value::Array(vec![Value::Long(1), Value::Boolean(true)]);
    assert_eq!(write_error(&bad, &longs, ErrorKind::Data), "[1]");
    assert_eq!(write_error(&Value::Null, &longs, ErrorKind::Data), "");
}

#[test]
fn read_errors_name_the_path_and_offset() {
    let s = schema(ORDER);
    let v = order(
        vec![item("a", 1.0), item("b", 2.0), item("c", 3.0)],
        vec![("k", Value::Int(5))],
        no_customer(),
    );
    let bytes = avrokit::to_datum_vec(&v, &s).unwrap();
    // id 7 (0e), 3 items (06), "a" (02 61), 1.0 (8 bytes), "b", 2.0, "c", 3.0, end, map...
    let item_len = 2 + 8;
    let price_of_b = 2 + item_len + 2;

    // Cut inside the second item's price: Eof at Order.items[1].price.
    for d in decode_all(&bytes[..price_of_b + 3], &s) {
        let e = d.result.unwrap_err();
        assert!(e.is_eof(), "{}: {e}", d.src);
        assert_eq!(e.path(), "Order.items[1].price", "{}", d.src);
        assert_eq!(e.offset(), Some(price_of_b as u64 + 3), "{}: {e}", d.src);
    }

    // Invalid UTF-8 in the third item's name: Data at Order.items[2].name, at its length.
    let name_of_c = 2 + 2 * item_len;
    let mut bad = bytes.clone();
    bad[name_of_c + 1] = 0xff;
    for d in decode_all(&bad, &s) {
        let e = d.result.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Data, "{}: {e}", d.src);
        assert_eq!(e.path(), "Order.items[2].name", "{}", d.src);
        assert_eq!(e.offset(), Some(name_of_c as u64), "{}: {e}", d.src);
    }

    // A map value that does not fit an int: Data at Order.tags["k"].
    let tags = 2 + 3 * item_len + 1;
    let mut bad = bytes[..tags].to_vec();
    bad.extend(unhex("02 02 6b 80 80 80 80 10 00 00"));
    for d in decode_all(&bad, &s) {
        let e = d.result.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Data, "{}: {e}", d.src);
        assert_eq!(e.path(), r#"Order.tags["k"]"#, "{}", d.src);
        assert_eq!(e.offset(), Some(tags as u64 + 3), "{}: {e}", d.src);
    }

    // A union index out of range: Data at Order.customer.
    let mut bad = bytes.clone();
    *bad.last_mut().unwrap() = 0x04;
    for d in decode_all(&bad, &s) {
        let e = d.result.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Data, "{}: {e}", d.src);
        assert_eq!(e.path(), "Order.customer", "{}", d.src);
        assert_eq!(e.offset(), Some(bytes.len() as u64 - 1), "{}: {e}", d.src);
    }
}

#[test]
fn a_bare_value_picks_its_union_branch() {
    let s = schema(r#"["null","string","long"]"#);
    let cases = [
        (Value::Null, "00", 0),
        (Value::String("a".into()), "02 02 61", 1),
        (Value::Long(5), "04 0a", 2),
    ];
    for (bare, hex, branch) in cases {
        let bytes = common::encode_ok(&bare, &s);
        assert_eq!(bytes, unhex(hex), "{bare:?}");
        assert_same(
            &decode_ok(&bytes, &s),
            &Value::Union(branch, Box::new(bare)),
            hex,
        );
    }
    // Only a branch of the value's own kind is chosen: an int is not promoted to a long.
    let s = schema(r#"["null","long"]"#);
    for (_, r) in encode_all(&Value::Int(5), &s) {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::Data);
    }

    // Records by their number of fields, fixed by their size, enums and logical types by kind.
    let s = schema(
        r#"[{"type":"record","name":"One","fields":[{"name":"a","type":"int"}]},
            {"type":"record","name":"Two","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]},
            {"type":"fixed","name":"F2","size":2},
            {"type":"fixed","name":"F4","size":4},
            {"type":"enum","name":"E","symbols":["X","Y"]},
            {"type":"int","logicalType":"date"},
            {"type":"string","logicalType":"uuid"},
            {"type":"bytes","logicalType":"decimal","precision":9,"scale":2},
            {"type":"long","logicalType":"timestamp-micros"}]"#,
    );
    let cases = [
        (Value::Record(vec![Value::Int(1)]), 0),
        (Value::Record(vec![Value::Int(1), Value::Int(2)]), 1),
        (Value::Fixed(vec![1, 2]), 2),
        (Value::Fixed(vec![1, 2, 3, 4]), 3),
        (Value::Enum(1), 4),
        (Value::Date(19_000), 5),
        (Value::Uuid([7; 16]), 6),
        (Value::Decimal(Decimal::from_i128(-5, 2)), 7),
        (Value::TimestampMicros(-1), 8),
    ];
    for (bare, branch) in cases {
        let bytes = common::encode_ok(&bare, &s);
        assert_eq!(bytes[0], branch as u8 * 2, "{bare:?}");
        assert_same(
            &decode_ok(&bytes, &s),
            &Value::Union(branch, Box::new(bare.clone())),
            "branch",
        );
    }
    // No branch of the kind (a plain string or long would go to the uuid or timestamp branch).
    for bare in [
        Value::Fixed(vec![1, 2, 3]),
        Value::Boolean(true),
        Value::Double(1.0),
    ] {
        for (_, r) in encode_all(&bare, &s) {
            assert_eq!(r.unwrap_err().kind(), ErrorKind::Data, "{bare:?}");
        }
    }
}

#[test]
fn decimals_on_bytes_and_fixed() {
    let s = schema(r#"{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}"#);
    let d = Value::Decimal(Decimal::from_i128(-12345, 2));
    assert_eq!(roundtrip(&d, &s), unhex("04 cf c7"));
    // Plain bytes can be written where a decimal is; they read back as a decimal.
    let bytes = common::encode_ok(&Value::Bytes(vec![0x01, 0x00]), &s);
    assert_eq!(
        decode_ok(&bytes, &s),
        Value::Decimal(Decimal::new(vec![1, 0], 2))
    );
    // The scale is the schema's: another one is an error.
    for (_, r) in encode_all(&Value::Decimal(Decimal::from_i128(1, 3)), &s) {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::Data);
    }

    let s = schema(
        r#"{"type":"fixed","name":"D","size":4,"logicalType":"decimal","precision":9,"scale":2}"#,
    );
    // Sign-extended to the fixed's size on write; the value is the same number.
    let bytes = common::encode_ok(&Value::Decimal(Decimal::from_i128(-2, 2)), &s);
    assert_eq!(bytes, unhex("ff ff ff fe"));
    let Value::Decimal(back) = decode_ok(&bytes, &s) else {
        panic!("a decimal")
    };
    assert_eq!((back.to_i128(), back.scale()), (Some(-2), 2));
    roundtrip(&Value::Decimal(Decimal::new(vec![0, 0, 0x30, 0x39], 2)), &s);
    // Redundant sign bytes are trimmed; a number that needs more bytes (or digits) is an error.
    let padded = Value::Decimal(Decimal::new(
        vec![0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0, 0],
        2,
    ));
    assert_eq!(common::encode_ok(&padded, &s), unhex("ff 80 00 00"));
    for (_, r) in encode_all(&Value::Decimal(Decimal::from_i128(-(1 << 31), 2)), &s) {
        assert!(r.unwrap_err().to_string().contains("9 digits"));
    }
    for (_, r) in encode_all(&Value::Decimal(Decimal::from_i128(1 << 40, 2)), &s) {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::Data);
    }

    let s = schema(r#"{"type":"bytes","logicalType":"big-decimal"}"#);
    let big = Value::BigDecimal(Decimal::from_i128(12345, 3));
    // The payload is bytes(unscaled) then int(scale), itself written as bytes.
    assert_eq!(roundtrip(&big, &s), unhex("08 04 30 39 06"));
    let widest = Value::BigDecimal(Decimal::new(vec![1], i32::MAX as u32));
    roundtrip(&widest, &s);
    // A scale that does not fit the int on the wire is an error, not a wrapped negative scale.
    let too_wide = Value::BigDecimal(Decimal::new(vec![1], 1 << 31));
    for (snk, r) in encode_all(&too_wide, &s) {
        assert_eq!(r.unwrap_err().kind(), ErrorKind::Data, "{snk}");
    }
}

#[test]
fn uuids_on_string_and_fixed() {
    let text = "123e4567-e89b-12d3-a456-426614174000";
    let raw: [u8; 16] = hex::decode(text.replace('-', ""))
        .unwrap()
        .try_into()
        .unwrap();
    let s = schema(r#"{"type":"string","logicalType":"uuid"}"#);
    let mut expected = vec![72];
    expected.extend_from_slice(text.as_bytes());
    assert_eq!(roundtrip(&Value::Uuid(raw), &s), expected);
    // Upper case reads as the same UUID; text that is not a UUID stays a string.
    let upper = avrokit::to_datum_vec(&Value::String(text.to_uppercase()), &s).unwrap();
    assert_eq!(decode_ok(&upper, &s), Value::Uuid(raw));
    let other = avrokit::to_datum_vec(&Value::String("not-a-uuid".into()), &s).unwrap();
    assert_eq!(decode_ok(&other, &s), Value::String("not-a-uuid".into()));

    let s = schema(r#"{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}"#);
    assert_eq!(roundtrip(&Value::Uuid(raw), &s), raw);
}

#[test]
fn durations_dates_times_and_timestamps() {
    let s = schema(r#"{"type":"fixed","name":"Dur","size":12,"logicalType":"duration"}"#);
    let d = Value::Duration(Duration {
        months: 1,
        days: 2,
        millis: 3,
    });
    assert_eq!(roundtrip(&d, &s), unhex("01000000 02000000 03000000"));
    let max = Value::Duration(Duration {
        months: u32::MAX,
        days: 0,
        millis: 1 << 31,
    });
    roundtrip(&max, &s);

    let ints = [
        ("date", Value::Date(-719_162)),
        ("time-millis", Value::TimeMillis(86_399_999)),
    ];
    for (logical, v) in ints {
        let s = schema(&format!(r#"{{"type":"int","logicalType":"{logical}"}}"#));
        roundtrip(&v, &s);
        // The underlying int is accepted too, and reads back as the logical value.
        let bytes = common::encode_ok(&Value::Int(9), &s);
        assert_eq!(bytes, [18]);
        assert_eq!(decode_ok(&bytes, &s).kind_name(), logical);
    }
    let longs = [
        ("time-micros", Value::TimeMicros(86_399_999_999)),
        ("timestamp-millis", Value::TimestampMillis(-1)),
        ("timestamp-micros", Value::TimestampMicros(i64::MIN)),
        ("timestamp-nanos", Value::TimestampNanos(i64::MAX)),
        (
            "local-timestamp-millis",
            Value::LocalTimestampMillis(1_700_000_000_000),
        ),
        ("local-timestamp-micros", Value::LocalTimestampMicros(0)),
        ("local-timestamp-nanos", Value::LocalTimestampNanos(-5)),
    ];
    for (logical, v) in longs {
        let s = schema(&format!(r#"{{"type":"long","logicalType":"{logical}"}}"#));
        roundtrip(&v, &s);
        let bytes = common::encode_ok(&Value::Long(9), &s);
        assert_eq!(bytes, [18]);
        assert_eq!(decode_ok(&bytes, &s).kind_name(), logical);
    }
    // An unknown or misplaced logical type is ignored: the underlying type is read.
    let s = schema(r#"{"type":"int","logicalType":"timestamp-millis"}"#);
    assert_eq!(decode_ok(&[4], &s), Value::Int(2));
    let s = schema(r#"{"type":"long","logicalType":"no-such-type"}"#);
    assert_eq!(decode_ok(&[4], &s), Value::Long(2));
}

#[test]
fn promotions_on_write() {
    let cases = [
        (r#""long""#, Value::Int(-3), Value::Long(-3)),
        (r#""float""#, Value::Int(3), Value::Float(3.0)),
        (
            r#""float""#,
            Value::Long(1 << 40),
            Value::Float((1u64 << 40) as f32),
        ),
        (r#""double""#, Value::Int(-3), Value::Double(-3.0)),
        (
            r#""double""#,
            Value::Long(1 << 53),
            Value::Double((1u64 << 53) as f64),
        ),
        (
            r#""double""#,
            Value::Float(0.1),
            Value::Double(f64::from(0.1f32)),
        ),
    ];
    for (json, written, read) in cases {
        let s = schema(json);
        let bytes = common::encode_ok(&written, &s);
        assert_same(&decode_ok(&bytes, &s), &read, json);
    }
    // No narrowing.
    for (json, v) in [
        (r#""int""#, Value::Long(1)),
        (r#""float""#, Value::Double(1.0)),
    ] {
        for (_, r) in encode_all(&v, &schema(json)) {
            assert_eq!(r.unwrap_err().kind(), ErrorKind::Data, "{json}");
        }
    }
}

#[test]
fn enums_by_index_or_symbol() {
    let s = schema(r#"{"type":"enum","name":"E","symbols":["A","B","C"]}"#);
    assert_eq!(common::encode_ok(&Value::String("C".into()), &s), [4]);
    assert_eq!(decode_ok(&[4], &s), Value::Enum(2));
    for v in [Value::String("D".into()), Value::Enum(3)] {
        for (_, r) in encode_all(&v, &s) {
            assert_eq!(r.unwrap_err().kind(), ErrorKind::Data, "{v:?}");
        }
    }
}

#[test]
fn fixed_values_must_have_the_fixed_size() {
    let s = schema(r#"{"type":"fixed","name":"F","size":3}"#);
    for v in [
        Value::Fixed(vec![1, 2]),
        Value::Fixed(vec![1, 2, 3, 4]),
        Value::Bytes(vec![1, 2, 3]),
    ] {
        for (_, r) in encode_all(&v, &s) {
            assert_eq!(r.unwrap_err().kind(), ErrorKind::Data, "{v:?}");
        }
    }
}

#[test]
fn whole_datum_helpers() {
    let s = schema(r#"{"type":"record","name":"P","fields":[{"name":"x","type":"long"}]}"#);
    let v = Value::Record(vec![Value::Long(-3)]);
    let bytes = avrokit::to_datum_vec(&v, &s).unwrap();
    assert_eq!(bytes, [5]);
    assert_eq!(avrokit::from_datum_slice(&bytes, &s).unwrap(), v);

    // Trailing bytes are rejected, at the offset where the datum ended.
    let e = avrokit::from_datum_slice(&[5, 0], &s).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    assert_eq!(e.offset(), Some(1));
    let e = avrokit::from_datum_slice(&[5, 1, 2, 3], &s).unwrap_err();
    assert_eq!(e.offset(), Some(1), "{e}");
    // A short datum is an Eof error, as everywhere.
    assert!(avrokit::from_datum_slice(&[], &s).unwrap_err().is_eof());
    assert!(avrokit::from_datum_slice(&[0x80], &s).unwrap_err().is_eof());

    assert_eq!(
        avrokit::value::from_datum_reader(&bytes[..], &s).unwrap(),
        v
    );
    assert!(avrokit::value::from_datum_reader(&[][..], &s)
        .unwrap_err()
        .is_eof());

    // Field, map and union accessors.
    assert_eq!(v.field(&s, "x"), Some(&Value::Long(-3)));
    assert_eq!(v.field(&s, "y"), None);
    let m = Value::Map(vec![
        ("a".into(), Value::Int(1)),
        ("a".into(), Value::Int(2)),
    ]);
    assert_eq!(
        m.map_get("a"),
        Some(&Value::Int(2)),
        "the last entry of a repeated key"
    );
    let u = Value::Union(1, Box::new(Value::Union(0, Box::new(Value::Null))));
    assert_eq!(u.unwrap_union(), &Value::Null);
}

#[test]
fn read_value_leaves_the_rest_of_the_input() {
    let s = schema(r#"["null","int"]"#);
    let data = unhex("02 0e 00 02 01 ff");
    let mut dec = avrokit::Decoder::from_slice(&data);
    assert_eq!(
        read_value(&mut dec, &s).unwrap(),
        Value::Union(1, Box::new(Value::Int(7)))
    );
    assert_eq!(
        read_value(&mut dec, &s).unwrap(),
        Value::Union(0, Box::new(Value::Null))
    );
    assert_eq!(
        read_value(&mut dec, &s).unwrap(),
        Value::Union(1, Box::new(Value::Int(-1)))
    );
    assert_eq!(dec.rest(), [0xff]);
}
