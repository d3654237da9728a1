//! The front ends agree on logical types: a datum that one of `Value` (binary), the JSON
//! encoding and serde accepts, the others accept too, with the same bytes; one that one of them
//! rejects, they all reject. Edge cases: decimals at their precision's limit (negative, with
//! redundant sign bytes, beyond 128 bits), decimals that do not fit their fixed,
//! uuid text (good, bad, upper case) on `string` and on `fixed(16)`, duration sizes, big-decimal
//! payloads.
//!
//! For each case every front end gets its own spelling of the same datum: a [`Value`], the
//! Avro JSON text, and a serde value. Decimals past their precision, which readers take and
//! writers refuse, have their own test below.

use avrokit::json::{from_json_str, to_json_string};
use avrokit::serde::{from_datum_slice, to_datum_vec, DePlan, SerPlan};
use avrokit::value::{Decimal, Duration};
use avrokit::{Result, Schema, Value};
use serde_bytes::ByteBuf;

type SerdeWrite = Box<dyn Fn(&SerPlan) -> Result<Vec<u8>>>;

struct Case {
    what: &'static str,
    schema: &'static str,
    value: Value,
    /// The datum in Avro's JSON encoding.
    json: String,
    serde: SerdeWrite,
    accept: bool,
}

const DEC3: &str = r#"{"type":"bytes","logicalType":"decimal","precision":3,"scale":1}"#;
const DEC_F2: &str =
    r#"{"type":"fixed","name":"F","size":2,"logicalType":"decimal","precision":4,"scale":0}"#;
const DEC_F3: &str =
    r#"{"type":"fixed","name":"F","size":3,"logicalType":"decimal","precision":7,"scale":0}"#;
const DEC50: &str = r#"{"type":"bytes","logicalType":"decimal","precision":49}"#;
const UUID_S: &str = r#"{"type":"string","logicalType":"uuid"}"#;
const UUID_F: &str = r#"{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}"#;
const DURATION: &str = r#"{"type":"fixed","name":"D","size":12,"logicalType":"duration"}"#;
const BIG: &str = r#"{"type":"bytes","logicalType":"big-decimal"}"#;

/// JSON text for bytes: one code point per byte.
fn json_bytes(b: &[u8]) -> String {
    serde_json::to_string(&b.iter().map(|&c| char::from(c)).collect::<String>()).unwrap()
}

/// A fixed decimal's bytes as its JSON must spell them: sign-extended, or trimmed of sign
/// bytes, to the fixed's size (left as they are when they cannot be).
fn sized(schema: &str, b: &[u8]) -> Vec<u8> {
    let size = match schema.split("\"size\":").nth(1) {
        Some(rest) if schema.contains("\"decimal\"") => rest
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(b.len()),
        _ => return b.to_vec(),
    };
    let fill = if b.first().is_some_and(|&x| x & 0x80 != 0) {
        0xff
    } else {
        0
    };
    let mut v = b.to_vec();
    while v.len() > size && v[0] == fill && (v[1] & 0x80 != 0) == (fill == 0xff) {
        v.remove(0);
    }
    while v.len() < size {
        v.insert(0, fill);
    }
    v
}

fn bytes_case(what: &'static str, schema: &'static str, b: &[u8], accept: bool) -> Case {
    let owned = b.to_vec();
    let fixed = schema.contains("\"fixed\"");
    Case {
        what,
        schema,
        value: if schema.contains("\"decimal\"") {
            let scale = if schema.contains("\"scale\":1") { 1 } else { 0 };
            Value::Decimal(Decimal::new(b.to_vec(), scale))
        } else if fixed {
            Value::Fixed(b.to_vec())
        } else {
            Value::Bytes(b.to_vec())
        },
        json: json_bytes(&sized(schema, b)),
        serde: Box::new(move |p| to_datum_vec(&ByteBuf::from(owned.clone()), p)),
        accept,
    }
}

fn cases() -> Vec<Case> {
    let uuid_text = "123e4567-e89b-12d3-a456-426614174000";
    let uuid = [
        0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40,
        0x00,
    ];
    let mut big_ok = vec![0x01];
    big_ok.extend([0u8; 20]); // 2^160: 49 digits
    let mut big_over = vec![0x02];
    big_over.extend([0u8; 20]); // 2^161: 49 digits too
    let dur = Duration {
        months: 1,
        days: 2,
        millis: 3,
    };
    vec![
        bytes_case("decimal 99.9 in precision 3", DEC3, &[0x03, 0xe7], true),
        bytes_case("decimal -99.9 in precision 3", DEC3, &[0xfc, 0x19], true),
        bytes_case(
            "decimal with redundant sign bytes",
            DEC3,
            &[0xff, 0xff, 0x80],
            true,
        ),
        bytes_case("decimal zero as no bytes", DEC3, &[], true),
        bytes_case("decimal of 49 digits in precision 49", DEC50, &big_ok, true),
        bytes_case("decimal 2^161 in precision 49", DEC50, &big_over, true),
        bytes_case(
            "fixed decimal 9999 in precision 4",
            DEC_F2,
            &[0x27, 0x0f],
            true,
        ),
        bytes_case("fixed decimal sign-extended", DEC_F2, &[0x9d], true),
        bytes_case("fixed decimal trimmed", DEC_F2, &[0xff, 0xff, 0x9d], true),
        bytes_case(
            "fixed decimal too wide for its fixed",
            DEC_F3,
            &[0x00, 0x80, 0x00, 0x00],
            false,
        ),
        bytes_case("duration of 12 bytes", DURATION, &dur.to_bytes(), true),
        bytes_case("duration of 11 bytes", DURATION, &[0; 11], false),
        bytes_case("duration of 13 bytes", DURATION, &[0; 13], false),
        Case {
            what: "duration value",
            schema: DURATION,
            value: Value::Duration(dur),
            json: json_bytes(&dur.to_bytes()),
            serde: Box::new(move |p| to_datum_vec(&ByteBuf::from(dur.to_bytes().to_vec()), p)),
            accept: true,
        },
        Case {
            what: "uuid text on a string",
            schema: UUID_S,
            value: Value::Uuid(uuid),
            json: format!("\"{uuid_text}\""),
            serde: Box::new(move |p| to_datum_vec(uuid_text, p)),
            accept: true,
        },
        Case {
            what: "text that is no uuid, on a uuid string (it stays a string)",
            schema: UUID_S,
            value: Value::String("not a uuid".into()),
            json: "\"not a uuid\"".into(),
            serde: Box::new(|p| to_datum_vec("not a uuid", p)),
            accept: true,
        },
        Case {
            what: "uuid on a fixed",
            schema: UUID_F,
            value: Value::Uuid(uuid),
            json: json_bytes(&uuid),
            serde: Box::new(move |p| to_datum_vec(uuid_text, p)),
            accept: true,
        },
        Case {
            what: "bad uuid text for a fixed",
            schema: UUID_F,
            value: Value::String("123e4567-e89b-12d3-a456-42661417400g".into()),
            json: "\"123e4567-e89b-12d3-a456-42661417400g\"".into(),
            serde: Box::new(|p| to_datum_vec("123e4567-e89b-12d3-a456-42661417400g", p)),
            accept: false,
        },
        Case {
            what: "uuid of 15 bytes for a fixed",
            schema: UUID_F,
            value: Value::Fixed(uuid[..15].to_vec()),
            json: json_bytes(&uuid[..15]),
            serde: Box::new(move |p| to_datum_vec(&ByteBuf::from(uuid[..15].to_vec()), p)),
            accept: false,
        },
        Case {
            what: "big-decimal",
            schema: BIG,
            value: Value::BigDecimal(Decimal::from_i128(-12345, 7)),
            json: json_bytes(&[0x04, 0xcf, 0xc7, 0x0e]),
            serde: Box::new(|p| to_datum_vec(&ByteBuf::from(vec![0x04, 0xcf, 0xc7, 0x0e]), p)),
            accept: true,
        },
    ]
}

#[test]
fn value_json_and_serde_accept_and_reject_the_same_datums() {
    for c in cases() {
        let what = c.what;
        let schema = Schema::parse_str(c.schema).unwrap_or_else(|e| panic!("{what}: {e}"));
        let plan = SerPlan::compile(&schema).unwrap();

        let value = avrokit::to_datum_vec(&c.value, &schema);
        let json_out = to_json_string(&c.value, &schema, false);
        let json_in = from_json_str(&c.json, &schema)
            .and_then(|v| avrokit::to_datum_vec(&v, &schema).map(|b| (v, b)));
        let serde = (c.serde)(&plan);
        let verdicts = [
            ("Value", value.is_ok()),
            ("Value to JSON", json_out.is_ok()),
            ("JSON to binary", json_in.is_ok()),
            ("serde", serde.is_ok()),
        ];
        for (front, ok) in verdicts {
            assert_eq!(
                ok,
                c.accept,
                "{what}: {front} {} it ({value:?} / {json_out:?} / {json_in:?} / {serde:?})",
                if ok { "accepts" } else { "rejects" }
            );
        }
        if !c.accept {
            continue;
        }
        let bytes = value.unwrap();
        assert_eq!(serde.unwrap(), bytes, "{what}: serde's bytes");
        assert_eq!(json_in.unwrap().1, bytes, "{what}: the JSON text's bytes");
        let again = from_json_str(&json_out.unwrap(), &schema).unwrap();
        assert_eq!(
            avrokit::to_datum_vec(&again, &schema).unwrap(),
            bytes,
            "{what}: JSON"
        );
    }
}

/// A decimal with more digits than its precision: every reader takes it as it is (Java's
/// decoder does not check either), and every writer refuses it (as Java's `DecimalConversion`
/// does), whether the value came from binary, from JSON or from serde.
#[test]
fn over_precise_decimals_read_everywhere_and_no_writer_writes_them() {
    let schema = Schema::parse_str(DEC3).unwrap();
    let wire = [0x04, 0x03, 0xe8]; // bytes 03 e8: 1000 (100.0), past precision 3
    let v = avrokit::from_datum_slice(&wire, &schema).expect("Value reads it");
    assert_eq!(v, Value::Decimal(Decimal::new(vec![0x03, 0xe8], 1)));
    let b: ByteBuf =
        from_datum_slice(&wire, &DePlan::compile(&schema).unwrap()).expect("serde reads it");
    assert_eq!(b.as_slice(), &[0x03, 0xe8]);
    let from_json = from_json_str(&json_bytes(&[0x03, 0xe8]), &schema).expect("JSON reads it");
    assert_eq!(from_json, v);
    for e in [
        avrokit::to_datum_vec(&v, &schema).unwrap_err(),
        to_json_string(&v, &schema, false).unwrap_err(),
        to_datum_vec(&b, &SerPlan::compile(&schema).unwrap()).unwrap_err(),
    ] {
        assert!(e.to_string().contains("3 digits"), "{e}");
    }
    // At the limit, 999 (99.9) and -999, every writer writes it.
    for unscaled in [999, -999] {
        let ok = Value::Decimal(Decimal::from_i128(unscaled, 1));
        let bytes = avrokit::to_datum_vec(&ok, &schema).unwrap();
        assert_eq!(avrokit::from_datum_slice(&bytes, &schema).unwrap(), ok);
        assert!(to_json_string(&ok, &schema, false).is_ok());
    }
    // A fixed decimal likewise: 10000 fits two bytes but not precision 4.
    let fixed = Schema::parse_str(DEC_F2).unwrap();
    let ten_thousand = Value::Decimal(Decimal::new(vec![0x27, 0x10], 0));
    assert!(avrokit::to_datum_vec(&ten_thousand, &fixed).is_err());
    assert!(to_json_string(&ten_thousand, &fixed, false).is_err());
    let plan = SerPlan::compile(&fixed).unwrap();
    assert!(to_datum_vec(&ByteBuf::from(vec![0x27, 0x10]), &plan).is_err());
    let nines = Value::Decimal(Decimal::from_i128(9999, 0));
    assert!(avrokit::to_datum_vec(&nines, &fixed).is_ok());
}

/// A uuid's text reads back the same way everywhere: parsed by `Value` and JSON (upper case
/// too), handed to serde as text; text that is no uuid stays a string.
#[test]
fn uuid_text_reads_the_same_everywhere() {
    let schema = Schema::parse_str(UUID_S).unwrap();
    let de = DePlan::compile(&schema).unwrap();
    for text in [
        "123E4567-E89B-12D3-A456-426614174000",
        "123e4567-e89b-12d3-a456-426614174000",
        "123e4567e89b12d3a456426614174000",
    ] {
        let wire = avrokit::to_datum_vec(&Value::String(text.into()), &schema).unwrap();
        let v = avrokit::from_datum_slice(&wire, &schema).unwrap();
        let j = from_json_str(&serde_json::to_string(text).unwrap(), &schema).unwrap();
        assert_eq!(v, j, "{text}");
        let s: String = from_datum_slice(&wire, &de).unwrap();
        assert_eq!(s, text);
        match v {
            Value::Uuid(u) => assert!(text.len() == 36, "{text} parsed as {u:?}"),
            Value::String(s) => assert_eq!(s, text),
            other => panic!("{text}: {other:?}"),
        }
    }
}
