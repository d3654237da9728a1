//! `rust_decimal::Decimal` and `bigdecimal::BigDecimal` through serde, the derive and `Value`s:
//! the bytes are the specification's (the unscaled integer, two's-complement big-endian, in
//! `bytes` or sign-extended to a `fixed`), checked against hand-computed encodings, the `Value`
//! encoding and apache-avro's; values are rescaled to the schema's scale exactly, and a value
//! needing rounding or exceeding the precision is an error, never truncated.
#![cfg(all(feature = "derive", feature = "rust_decimal", feature = "bigdecimal"))]

use std::fmt::Debug;
use std::str::FromStr;

use apache_avro::types::Value as A;
use apache_avro::writer::datum::GenericDatumWriter;
use avrokit::serde::{from_datum_slice, to_datum_vec, DePlan, SerPlan};
use avrokit::value::Decimal as AvroDecimal;
use avrokit::{AvroSchema, ErrorKind, Schema, Value};
use bigdecimal::BigDecimal;
use rust_decimal::Decimal;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

const BYTES_9_2: &str = r#"{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}"#;
const FIXED_9_2: &str =
    r#"{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":9,"scale":2}"#;

fn dec(s: &str) -> Decimal {
    Decimal::from_str(s).unwrap()
}

fn big(s: &str) -> BigDecimal {
    BigDecimal::from_str(s).unwrap()
}

fn write<T: Serialize + ?Sized>(v: &T, schema: &str) -> avrokit::Result<Vec<u8>> {
    to_datum_vec(
        v,
        &SerPlan::compile(&Schema::parse_str(schema).unwrap()).unwrap(),
    )
}

fn read<T: DeserializeOwned>(bytes: &[u8], schema: &str) -> avrokit::Result<T> {
    from_datum_slice(
        bytes,
        &DePlan::compile(&Schema::parse_str(schema).unwrap()).unwrap(),
    )
}

/// apache-avro's encoding of the decimal with these unscaled bytes.
fn apache_decimal(schema: &str, unscaled: &[u8]) -> Vec<u8> {
    let schema = apache_avro::Schema::parse_str(schema).unwrap();
    let writer = GenericDatumWriter::builder(&schema).build().unwrap();
    let mut out = Vec::new();
    let v = A::Decimal(apache_avro::Decimal::from(unscaled.to_vec()));
    writer.write_value_ref(&mut out, &v).unwrap();
    out
}

/// Writes `v` through serde, checks the bytes, reads them back equal, and checks that every
/// strict prefix is an EOF error.
#[track_caller]
fn round_trip<T>(v: &T, schema: &str, bytes: &[u8])
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let out = write(v, schema).unwrap();
    assert_eq!(out, bytes, "{v:?} as {schema}");
    let back: T = read(&out, schema).unwrap();
    assert_eq!(&back, v);
    for n in 0..out.len() {
        assert!(read::<T>(&out[..n], schema).unwrap_err().is_eof());
    }
}

#[test]
fn bytes_are_the_unscaled_twos_complement_big_endian() {
    // (text, unscaled bytes at scale 2)
    for (text, unscaled) in [
        ("123.45", &[0x30, 0x39][..]),
        ("-123.45", &[0xcf, 0xc7]),
        ("0.00", &[0x00]),
        ("-1.00", &[0x9c]),
        ("1.28", &[0x00, 0x80]),
        ("-1.28", &[0x80]),
        ("9999999.99", &[0x3b, 0x9a, 0xc9, 0xff]),
        ("-9999999.99", &[0xc4, 0x65, 0x36, 0x01]),
    ] {
        let mut datum = vec![(unscaled.len() as u8) << 1];
        datum.extend_from_slice(unscaled);
        assert_eq!(apache_decimal(BYTES_9_2, unscaled), datum, "{text}");
        round_trip(&dec(text), BYTES_9_2, &datum);
        round_trip(&big(text), BYTES_9_2, &datum);
        // The same through `Value`.
        let v = Value::Decimal(AvroDecimal::from(dec(text)));
        let schema = Schema::parse_str(BYTES_9_2).unwrap();
        assert_eq!(avrokit::to_datum_vec(&v, &schema).unwrap(), datum, "{text}");
        let back = avrokit::from_datum_slice(&datum, &schema).unwrap();
        let Value::Decimal(d) = back else {
            panic!("{back:?}")
        };
        assert_eq!(Decimal::try_from(&d).unwrap(), dec(text));
        assert_eq!(BigDecimal::from(&d), big(text));

        // A fixed of four bytes: sign-extended.
        let fill = if unscaled[0] & 0x80 != 0 { 0xff } else { 0 };
        let mut fixed = vec![fill; 4 - unscaled.len()];
        fixed.extend_from_slice(unscaled);
        assert_eq!(apache_decimal(FIXED_9_2, unscaled), fixed, "{text}");
        round_trip(&dec(text), FIXED_9_2, &fixed);
        round_trip(&big(text), FIXED_9_2, &fixed);
        let schema = Schema::parse_str(FIXED_9_2).unwrap();
        assert_eq!(avrokit::to_datum_vec(&v, &schema).unwrap(), fixed, "{text}");
    }
}

#[test]
fn values_are_rescaled_to_the_schema_exactly() {
    // 1.5 and 1.500 are 150 at scale 2.
    for text in ["1.5", "1.500", "1.50"] {
        assert_eq!(write(&dec(text), BYTES_9_2).unwrap(), [0x04, 0x00, 0x96]);
        assert_eq!(write(&big(text), BYTES_9_2).unwrap(), [0x04, 0x00, 0x96]);
        let v = Value::Decimal(AvroDecimal::from(dec(text)));
        let schema = Schema::parse_str(BYTES_9_2).unwrap();
        assert_eq!(
            avrokit::to_datum_vec(&v, &schema).unwrap(),
            [0x04, 0x00, 0x96]
        );
    }
    // Read back, the scale is the schema's.
    let d: Decimal = read(&[0x04, 0x00, 0x96], BYTES_9_2).unwrap();
    assert_eq!(d.scale(), 2);
    assert_eq!(d.to_string(), "1.50");
    // An integer with exponent notation, as bigdecimal may print one.
    assert_eq!(
        write(&big("12e3"), BYTES_9_2).unwrap(),
        write(&dec("12000"), BYTES_9_2).unwrap()
    );
}

#[test]
fn rounding_and_overflow_are_errors() {
    let schema = Schema::parse_str(BYTES_9_2).unwrap();
    for text in ["1.234", "-0.001", "12.345"] {
        for e in [
            write(&dec(text), BYTES_9_2).unwrap_err(),
            write(&big(text), BYTES_9_2).unwrap_err(),
            write(&dec(text), FIXED_9_2).unwrap_err(),
            avrokit::to_datum_vec(&Value::Decimal(dec(text).into()), &schema).unwrap_err(),
        ] {
            assert_eq!(e.kind(), ErrorKind::Data, "{text}: {e}");
            assert!(e.to_string().contains("needs rounding"), "{text}: {e}");
        }
    }
    // Ten digits do not fit precision 9, in bytes or in the fixed (which four bytes could
    // hold).
    for text in ["10000000.00", "-10000000.00", "12345678.9"] {
        for e in [
            write(&dec(text), BYTES_9_2).unwrap_err(),
            write(&big(text), BYTES_9_2).unwrap_err(),
            write(&dec(text), FIXED_9_2).unwrap_err(),
            write(&big(text), FIXED_9_2).unwrap_err(),
            avrokit::to_datum_vec(&Value::Decimal(dec(text).into()), &schema).unwrap_err(),
        ] {
            assert_eq!(e.kind(), ErrorKind::Data, "{text}: {e}");
            assert!(e.to_string().contains("9 digits"), "{text}: {e}");
        }
    }
    // A fixed too small for the value, whatever the precision (the schema's precision is the
    // most its size can hold, so only raw bytes get there).
    let f2 =
        r#"{"type":"fixed","name":"G","size":2,"logicalType":"decimal","precision":4,"scale":0}"#;
    let e = write(serde_bytes::Bytes::new(&[0x00, 0x80, 0x00]), f2).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    // Not a number at all.
    let e = write("12,5", BYTES_9_2).unwrap_err();
    assert!(e.to_string().contains("not a decimal number"), "{e}");
    // Hostile exponents are refused without building the digits.
    let e = write("1e2000000000", BYTES_9_2).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
}

#[test]
fn decimals_too_big_for_rust_decimal_fail_to_read_and_bigdecimal_takes_them() {
    let wide = r#"{"type":"bytes","logicalType":"decimal","precision":60,"scale":10}"#;
    let text = "-12345678901234567890123456789012345678901234567.8901234567";
    let bytes = write(&big(text), wide).unwrap();
    let back: BigDecimal = read(&bytes, wide).unwrap();
    assert_eq!(back, big(text));
    assert_eq!(back.to_string(), text);
    assert!(read::<Decimal>(&bytes, wide).is_err());
    // The same through `Value`.
    let v = avrokit::from_datum_slice(&bytes, &Schema::parse_str(wide).unwrap()).unwrap();
    let Value::Decimal(d) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(d.to_text(), text);
    assert!(Decimal::try_from(d).is_err());
    assert_eq!(AvroDecimal::try_from(&big(text)).unwrap(), *d);
}

#[derive(Serialize, Deserialize, AvroSchema, Debug, PartialEq)]
struct Invoice {
    #[avro(logical_type = "decimal", precision = 9, scale = 2)]
    total: Decimal,
    #[avro(logical_type = "decimal", precision = 30, scale = 4)]
    rate: BigDecimal,
    #[avro(logical_type = "decimal", precision = 5, scale = 1)]
    discount: Option<Decimal>,
    /// No attributes: a `big-decimal`, each value with its own scale.
    exact: BigDecimal,
    raw: Decimal,
}

#[test]
fn derived_schemas_and_round_trips() {
    let schema = Invoice::schema();
    let j = schema.to_json();
    let field = |i: usize| &j["fields"][i]["type"];
    assert_eq!(
        field(0),
        &serde_json::json!({"type":"bytes","logicalType":"decimal","precision":9,"scale":2})
    );
    assert_eq!(field(1)["precision"], 30);
    assert_eq!(field(1)["scale"], 4);
    assert_eq!(field(2)[0], "null");
    assert_eq!(field(2)[1]["logicalType"], "decimal");
    assert_eq!(field(2)[1]["scale"], 1);
    assert_eq!(
        field(3),
        &serde_json::json!({"type":"bytes","logicalType":"big-decimal"})
    );
    assert_eq!(field(4)["logicalType"], "big-decimal");

    let inv = Invoice {
        total: dec("-42.50"),
        rate: big("0.0825"),
        discount: Some(dec("2.5")),
        exact: big("-123.450"),
        raw: dec("3.14159"),
    };
    let ser = SerPlan::compile(&schema).unwrap();
    let bytes = to_datum_vec(&inv, &ser).unwrap();
    let expect = Value::Record(vec![
        Value::Decimal(AvroDecimal::from_i128(-4250, 2)),
        Value::Decimal(AvroDecimal::from_i128(825, 4)),
        Value::Union(1, Box::new(Value::Decimal(AvroDecimal::from_i128(25, 1)))),
        Value::BigDecimal(AvroDecimal::from_i128(-123_450, 3)),
        Value::BigDecimal(AvroDecimal::from_i128(314_159, 5)),
    ]);
    assert_eq!(bytes, avrokit::to_datum_vec(&expect, &schema).unwrap());
    // `exact`: bytes(unscaled -123450 = fe 1d c6) then int(scale 3), in a `bytes` of 5.
    let exact = [0x0a, 0x06, 0xfe, 0x1d, 0xc6, 0x06];
    assert!(
        bytes.windows(exact.len()).any(|w| w == exact),
        "{bytes:02x?}"
    );
    let back: Invoice = from_datum_slice(&bytes, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(back, inv);
    assert_eq!(
        back.exact.to_string(),
        "-123.450",
        "big-decimal keeps the scale"
    );
    assert_eq!(back.total.to_string(), "-42.50");

    let none = Invoice {
        discount: None,
        ..inv
    };
    let bytes = to_datum_vec(&none, &ser).unwrap();
    let back: Invoice = from_datum_slice(&bytes, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(back, none);

    // A total that needs rounding is an error with the field's path.
    let bad = Invoice {
        total: dec("1.001"),
        ..none
    };
    let e = to_datum_vec(&bad, &ser).unwrap_err();
    assert!(e.to_string().contains("total"), "{e}");
    assert!(e.to_string().contains("needs rounding"), "{e}");
}

#[test]
fn resolution_reads_decimals_into_a_reader_with_defaults() {
    #[derive(Serialize, Deserialize, AvroSchema, Debug, PartialEq)]
    #[avro(name = "Invoice")]
    struct Old {
        #[avro(logical_type = "decimal", precision = 9, scale = 2)]
        total: Decimal,
    }
    let bytes = to_datum_vec(
        &Old { total: dec("7.25") },
        &SerPlan::compile(&Old::schema()).unwrap(),
    )
    .unwrap();
    #[derive(Deserialize, AvroSchema, Debug, PartialEq)]
    #[avro(name = "Invoice")]
    struct New {
        #[serde(default)]
        note: Option<String>,
        #[avro(logical_type = "decimal", precision = 9, scale = 2)]
        total: Decimal,
    }
    let plan = DePlan::resolving(&Old::schema(), &New::schema()).unwrap();
    let n: New = from_datum_slice(&bytes, &plan).unwrap();
    assert_eq!(
        n,
        New {
            note: None,
            total: dec("7.25")
        }
    );
}

#[test]
fn bytes_readers_still_get_bytes() {
    // `serde_bytes` and `Vec<u8>` read a decimal's unscaled bytes, as before.
    let b: serde_bytes::ByteBuf = read(&[0x04, 0xcf, 0xc7], BYTES_9_2).unwrap();
    assert_eq!(b.as_slice(), [0xcf, 0xc7]);
    let v: Vec<u8> = read(&[0x04, 0xcf, 0xc7], BYTES_9_2).unwrap();
    assert_eq!(v, [0xcf, 0xc7]);
    // A string reads the text.
    let s: String = read(&[0x04, 0xcf, 0xc7], BYTES_9_2).unwrap();
    assert_eq!(s, "-123.45");
    let s: String = read(&[0xff, 0xff, 0xcf, 0xc7], FIXED_9_2).unwrap();
    assert_eq!(s, "-123.45");
}

fn one_fifty() -> Decimal {
    dec("1.50")
}

#[test]
fn serde_defaults_of_decimals_are_their_bytes() {
    #[derive(Serialize, Deserialize, AvroSchema, Debug, PartialEq)]
    #[avro(name = "Invoice")]
    struct WithDefaults {
        #[serde(default = "one_fifty")]
        #[avro(logical_type = "decimal", precision = 9, scale = 2)]
        fee: Decimal,
        #[serde(default)]
        exact: BigDecimal,
    }
    let schema = WithDefaults::schema();
    let j = schema.to_json();
    // 150 = 0x00 0x96, as the JSON string of those bytes.
    assert_eq!(j["fields"][0]["default"], "\u{0}\u{96}");
    // Zero as a big-decimal payload: bytes [0] then scale 0.
    assert_eq!(j["fields"][1]["default"], "\u{2}\u{0}\u{0}");
    // A reader with those defaults fills a record written without the fields.
    let writer = Schema::parse_str(r#"{"type":"record","name":"Invoice","fields":[]}"#).unwrap();
    let r: WithDefaults =
        from_datum_slice(&[], &DePlan::resolving(&writer, &schema).unwrap()).unwrap();
    assert_eq!(r.fee, dec("1.50"));
    assert_eq!(r.exact, big("0"));
}

proptest::proptest! {
    /// Any rust_decimal at any schema scale at least its own: the serde bytes are the `Value`
    /// encoding of the rescaled unscaled integer, and read back equal; at a smaller scale, a
    /// value is written only when the digits dropped are zeros.
    #[test]
    fn rust_decimals_round_trip_at_every_scale(m in proptest::num::i64::ANY, own in 0u32..=18, schema_scale in 0u32..=20) {
        let d = Decimal::from_i128_with_scale(i128::from(m), own);
        let json = format!(r#"{{"type":"bytes","logicalType":"decimal","precision":60,"scale":{schema_scale}}}"#);
        let schema = Schema::parse_str(&json).unwrap();
        let exact = AvroDecimal::from(d).rescale(schema_scale);
        match (write(&d, &json), exact) {
            (Ok(bytes), Ok(rescaled)) => {
                let fits = rescaled.to_i128().is_some_and(|n| n.unsigned_abs() < 1 << 96);
                let v = Value::Decimal(rescaled);
                proptest::prop_assert_eq!(&bytes, &avrokit::to_datum_vec(&v, &schema).unwrap());
                if fits {
                    let back: Decimal = read(&bytes, &json).unwrap();
                    proptest::prop_assert_eq!(back, d);
                    proptest::prop_assert_eq!(back.scale(), schema_scale);
                } else {
                    // Past rust_decimal's 96 bits at this scale: an error, never a rounded
                    // value; bigdecimal reads it exactly.
                    proptest::prop_assert!(read::<Decimal>(&bytes, &json).is_err());
                    let back: BigDecimal = read(&bytes, &json).unwrap();
                    proptest::prop_assert_eq!(back, BigDecimal::from(&AvroDecimal::from(d)));
                }
            }
            (Err(e), Err(_)) => {
                proptest::prop_assert!(schema_scale < own, "{}", e);
                proptest::prop_assert!(e.to_string().contains("needs rounding"), "{}", e);
            }
            (w, r) => proptest::prop_assert!(false, "serde {:?}, rescale {:?}", w.err(), r.err()),
        }
    }
}

#[test]
fn rust_decimal_never_rounds_what_it_reads() {
    // 29 digits after the point: rust_decimal's own parser would round the plain text to 28.
    let wide = r#"{"type":"bytes","logicalType":"decimal","precision":30,"scale":29}"#;
    let text = "1.00000000000000000000000000001";
    let bytes = write(&big(text), wide).unwrap();
    assert!(read::<Decimal>(&bytes, wide).is_err());
    assert_eq!(read::<BigDecimal>(&bytes, wide).unwrap(), big(text));
    // A String gets the exponent form there, the plain form within rust_decimal's range.
    let s: String = read(&bytes, wide).unwrap();
    assert_eq!(s, "100000000000000000000000000001E-29");
    let s: String = read(&[0x04, 0xcf, 0xc7], BYTES_9_2).unwrap();
    assert_eq!(s, "-123.45");
    // 2^96 at scale 0 does not fit either; 2^96 - 1 does.
    let int = r#"{"type":"bytes","logicalType":"decimal","precision":30}"#;
    let max = write(&dec("79228162514264337593543950335"), int).unwrap();
    assert_eq!(read::<Decimal>(&max, int).unwrap(), Decimal::MAX);
    let over = write(&big("79228162514264337593543950336"), int).unwrap();
    assert!(read::<Decimal>(&over, int).is_err());
}
