//! The specification's own byte examples ("Binary Encoding" section of the Avro 1.12
//! specification), and the edges around them, decoded through every source and encoded through
//! every sink.

mod common;

use avrokit::{Decoder, Encoder, Value};
use common::{
    assert_same, decode_ok, each_sink, each_source, reference_long, roundtrip, schema, skip_ok,
    unhex,
};

/// Decodes `bytes` with `read` through every source and checks every byte was used.
macro_rules! decodes_everywhere {
    ($bytes:expr, |$dec:ident| $read:expr, $expected:expr) => {{
        let bytes: &[u8] = &$bytes;
        for (src, (got, offset)) in each_source!(bytes, |$dec| {
            let got = $read;
            (got, $dec.offset())
        }) {
            let got = got.unwrap_or_else(|e| panic!("{src}: {e} on {}", hex::encode(bytes)));
            assert_eq!(got, $expected, "{src} on {}", hex::encode(bytes));
            assert_eq!(offset, bytes.len() as u64, "{src}: bytes used");
        }
    }};
}

/// Encodes with `write` through every non-blocking sink (blocking sinks only change arrays
/// and maps) and checks the bytes.
macro_rules! encodes_to {
    (|$enc:ident| $write:expr, $expected:expr) => {{
        let expected: &[u8] = &$expected;
        for (snk, bytes) in each_sink!(|$enc| $write) {
            let bytes = bytes.unwrap_or_else(|e| panic!("{snk}: {e}"));
            if !snk.is_blocking() {
                assert_eq!(hex::encode(&bytes), hex::encode(expected), "{snk}");
            }
        }
    }};
}

#[test]
fn zigzag_table() {
    // value, hex: the table of the specification.
    let table: [(i64, &str); 7] = [
        (0, "00"),
        (-1, "01"),
        (1, "02"),
        (-2, "03"),
        (2, "04"),
        (-64, "7f"),
        (64, "80 01"),
    ];
    for (n, hex) in table {
        let bytes = unhex(hex);
        assert_eq!(
            reference_long(n),
            bytes,
            "the reference agrees with the table"
        );
        decodes_everywhere!(bytes, |dec| dec.read_long(), n);
        decodes_everywhere!(bytes, |dec| dec.read_int(), n as i32);
        encodes_to!(|enc| enc.write_long(n), bytes);
        encodes_to!(|enc| enc.write_int(n as i32), bytes);
    }
}

#[test]
fn varint_length_boundaries() {
    // The largest and smallest values of every encoded length, 1 to 10 bytes.
    let mut longs = vec![i64::MIN, i64::MAX, i64::MIN + 1, i64::MAX - 1];
    for k in 1..=9u32 {
        let edge = 1i64 << (7 * k - 1); // zigzag(edge) = 2^(7k): the first (k+1)-byte value
        longs.extend([edge - 1, edge, -edge, -edge - 1]);
    }
    for n in longs {
        let bytes = reference_long(n);
        decodes_everywhere!(bytes, |dec| dec.read_long(), n);
        encodes_to!(|enc| enc.write_long(n), bytes);
        if let Ok(i) = i32::try_from(n) {
            decodes_everywhere!(bytes, |dec| dec.read_int(), i);
            encodes_to!(|enc| enc.write_int(i), bytes);
        }
    }
}

#[test]
fn int_and_long_extremes() {
    let cases: [(i64, &str); 4] = [
        (i32::MAX as i64, "fe ff ff ff 0f"),
        (i32::MIN as i64, "ff ff ff ff 0f"),
        (i64::MAX, "fe ff ff ff ff ff ff ff ff 01"),
        (i64::MIN, "ff ff ff ff ff ff ff ff ff 01"),
    ];
    for (n, hex) in cases {
        let bytes = unhex(hex);
        assert_eq!(reference_long(n), bytes);
        decodes_everywhere!(bytes, |dec| dec.read_long(), n);
        encodes_to!(|enc| enc.write_long(n), bytes);
    }
    decodes_everywhere!(unhex("fe ff ff ff 0f"), |dec| dec.read_int(), i32::MAX);
    decodes_everywhere!(unhex("ff ff ff ff 0f"), |dec| dec.read_int(), i32::MIN);
    encodes_to!(|enc| enc.write_int(i32::MAX), unhex("fe ff ff ff 0f"));
    encodes_to!(|enc| enc.write_int(i32::MIN), unhex("ff ff ff ff 0f"));
}

#[test]
fn overlong_varints_are_read_like_java() {
    // Java's BinaryDecoder accepts redundant continuation bytes; so do we.
    decodes_everywhere!(unhex("80 00"), |dec| dec.read_long(), 0);
    decodes_everywhere!(unhex("81 80 80 00"), |dec| dec.read_long(), -1);
    decodes_everywhere!(unhex("82 80 80 80 00"), |dec| dec.read_int(), 1);
}

#[test]
fn null_and_boolean() {
    decodes_everywhere!([0u8], |dec| dec.read_boolean(), false);
    decodes_everywhere!([1u8], |dec| dec.read_boolean(), true);
    decodes_everywhere!([0u8; 0], |dec| dec.read_null(), ());
    encodes_to!(|enc| enc.write_boolean(true), [1]);
    encodes_to!(|enc| enc.write_boolean(false), [0]);
    encodes_to!(|enc| enc.write_null(), []);
}

#[test]
fn floats_are_little_endian_ieee_bits() {
    let floats: [(u32, &str); 8] = [
        (1.0f32.to_bits(), "00 00 80 3f"),
        ((-0.0f32).to_bits(), "00 00 00 80"),
        (0.0f32.to_bits(), "00 00 00 00"),
        (f32::INFINITY.to_bits(), "00 00 80 7f"),
        (0x7fc0_0000, "00 00 c0 7f"), // the canonical quiet NaN
        (0xffc0_0000, "00 00 c0 ff"), // a negative NaN
        (0x7f80_0001, "01 00 80 7f"), // a signalling NaN
        (0x7fff_ffff, "ff ff ff 7f"), // the largest payload
    ];
    for (bits, hex) in floats {
        let bytes = unhex(hex);
        decodes_everywhere!(bytes, |dec| dec.read_float().map(f32::to_bits), bits);
        encodes_to!(|enc| enc.write_float(f32::from_bits(bits)), bytes);
    }
    let doubles: [(u64, &str); 6] = [
        (1.0f64.to_bits(), "00 00 00 00 00 00 f0 3f"),
        ((-0.0f64).to_bits(), "00 00 00 00 00 00 00 80"),
        (f64::NEG_INFINITY.to_bits(), "00 00 00 00 00 00 f0 ff"),
        (0x7ff8_0000_0000_0000, "00 00 00 00 00 00 f8 7f"),
        (0x7ff0_0000_0000_0001, "01 00 00 00 00 00 f0 7f"),
        (0xfff8_0000_dead_beef, "ef be ad de 00 00 f8 ff"),
    ];
    for (bits, hex) in doubles {
        let bytes = unhex(hex);
        decodes_everywhere!(bytes, |dec| dec.read_double().map(f64::to_bits), bits);
        encodes_to!(|enc| enc.write_double(f64::from_bits(bits)), bytes);
    }
}

#[test]
fn the_string_foo() {
    let bytes = unhex("06 66 6f 6f");
    decodes_everywhere!(bytes, |dec| dec.read_string(), "foo".to_owned());
    decodes_everywhere!(
        bytes,
        |dec| dec.read_str().map(str::to_owned),
        "foo".to_owned()
    );
    decodes_everywhere!(
        bytes,
        |dec| dec.read_bytes().map(<[u8]>::to_vec),
        b"foo".to_vec()
    );
    decodes_everywhere!(
        bytes,
        |dec| dec.read_str_ref().map(|s| s.to_owned()),
        "foo".to_owned()
    );
    decodes_everywhere!(bytes, |dec| dec.skip_bytes(), ());
    encodes_to!(|enc| enc.write_string("foo"), bytes);
    encodes_to!(|enc| enc.write_bytes(b"foo"), bytes);
    // Empty, and multi-byte UTF-8 (the length counts bytes, not characters).
    decodes_everywhere!([0u8], |dec| dec.read_string(), String::new());
    decodes_everywhere!(
        unhex("0a c3 a9 e2 82 ac"),
        |dec| dec.read_string(),
        "é€".to_owned()
    );
    encodes_to!(|enc| enc.write_string("é€"), unhex("0a c3 a9 e2 82 ac"));
}

#[test]
fn the_record_example_at_decoder_level() {
    // {"a": 27 (long), "b": "foo" (string)} is 36 06 66 6f 6f.
    let bytes = unhex("36 06 66 6f 6f");
    decodes_everywhere!(
        bytes,
        |dec| dec.read_long().and_then(|a| Ok((a, dec.read_string()?))),
        (27, "foo".to_owned())
    );
    encodes_to!(
        |enc| enc.write_long(27).and_then(|()| enc.write_string("foo")),
        bytes
    );
}

#[test]
fn the_array_example_at_decoder_level() {
    // [3, 27] as an array of long is 04 06 36 00 (one block of two, then the end).
    let read = |dec: &mut Decoder<'_>| -> avrokit::Result<Vec<i64>> {
        let mut items = Vec::new();
        let mut n = dec.read_array_start()?;
        while n > 0 {
            for _ in 0..n {
                items.push(dec.read_long()?);
            }
            n = dec.array_next()?;
        }
        Ok(items)
    };
    assert_eq!(
        read(&mut Decoder::from_slice(&unhex("04 06 36 00"))).unwrap(),
        [3, 27]
    );
    let write = |enc: &mut Encoder<&mut Vec<u8>>| -> avrokit::Result<()> {
        enc.write_array_start(2)?;
        for v in [3, 27] {
            enc.start_item()?;
            enc.write_long(v)?;
        }
        enc.write_array_end()
    };
    let mut out = Vec::new();
    write(&mut Encoder::new(&mut out)).unwrap();
    assert_eq!(out, unhex("04 06 36 00"));
    // The blocked form: count -2 (zigzag 03), byte size 2 (04), the items, the end.
    decodes_everywhere!(
        unhex("03 04 06 36 00"),
        |dec| dec.read_block_header().and_then(|h| Ok((
            h,
            dec.read_long()?,
            dec.read_long()?,
            dec.read_block_header()?
        ))),
        ((2, Some(2)), 3, 27, (0, None))
    );
    decodes_everywhere!(unhex("00"), |dec| dec.read_array_start(), 0);
}

#[test]
fn union_and_enum_indexes_at_decoder_level() {
    decodes_everywhere!(unhex("00"), |dec| dec.read_union_index(), 0);
    decodes_everywhere!(
        unhex("02 02 61"),
        |dec| dec
            .read_union_index()
            .and_then(|i| Ok((i, dec.read_string()?))),
        (1, "a".to_owned())
    );
    decodes_everywhere!(unhex("06"), |dec| dec.read_enum(), 3);
    encodes_to!(
        |enc| enc
            .write_union_index(1)
            .and_then(|()| enc.write_string("a")),
        unhex("02 02 61")
    );
    encodes_to!(|enc| enc.write_enum(3), unhex("06"));
    decodes_everywhere!(
        unhex("01 02 03"),
        |dec| dec.read_fixed(3).map(<[u8]>::to_vec),
        vec![1, 2, 3]
    );
    encodes_to!(|enc| enc.write_fixed(&[1, 2, 3]), unhex("01 02 03"));
}

#[test]
fn the_spec_examples_as_values() {
    let record = schema(
        r#"{"type":"record","name":"test","fields":[
            {"name":"a","type":"long"},{"name":"b","type":"string"}]}"#,
    );
    let v = Value::Record(vec![Value::Long(27), Value::String("foo".into())]);
    assert_eq!(roundtrip(&v, &record), unhex("36 06 66 6f 6f"));

    let foo = schema(r#"{"type":"enum","name":"Foo","symbols":["A","B","C","D"]}"#);
    assert_eq!(roundtrip(&Value::Enum(0), &foo), unhex("00"));
    assert_eq!(roundtrip(&Value::Enum(3), &foo), unhex("06"));

    let longs = schema(r#"{"type":"array","items":"long"}"#);
    let v = Value::Array(vec![Value::Long(3), Value::Long(27)]);
    assert_eq!(roundtrip(&v, &longs), unhex("04 06 36 00"));
    assert_eq!(roundtrip(&Value::Array(vec![]), &longs), unhex("00"));

    let union = schema(r#"["null","string"]"#);
    assert_eq!(
        roundtrip(&Value::Union(0, Box::new(Value::Null)), &union),
        unhex("00")
    );
    let a = Value::Union(1, Box::new(Value::String("a".into())));
    assert_eq!(roundtrip(&a, &union), unhex("02 02 61"));

    let fixed = schema(r#"{"type":"fixed","name":"F","size":4}"#);
    assert_eq!(
        roundtrip(&Value::Fixed(vec![9, 8, 7, 6]), &fixed),
        unhex("09 08 07 06")
    );
    let empty = schema(r#"{"type":"fixed","name":"E","size":0}"#);
    assert_eq!(roundtrip(&Value::Fixed(vec![]), &empty), unhex(""));

    let foo_str = schema(r#""string""#);
    assert_eq!(
        roundtrip(&Value::String("foo".into()), &foo_str),
        unhex("06 66 6f 6f")
    );
    assert_eq!(roundtrip(&Value::Null, &schema(r#""null""#)), unhex(""));
    assert_eq!(
        roundtrip(&Value::Boolean(true), &schema(r#""boolean""#)),
        unhex("01")
    );
    assert_eq!(
        roundtrip(&Value::Bytes(vec![0xff]), &schema(r#""bytes""#)),
        unhex("02 ff")
    );
    assert_eq!(
        roundtrip(&Value::Int(-64), &schema(r#""int""#)),
        unhex("7f")
    );
    assert_eq!(
        roundtrip(&Value::Long(64), &schema(r#""long""#)),
        unhex("80 01")
    );
    assert_eq!(
        roundtrip(&Value::Float(1.0), &schema(r#""float""#)),
        unhex("00 00 80 3f")
    );
    let nan = Value::Double(f64::from_bits(0x7ff0_0000_0000_0001));
    assert_eq!(
        roundtrip(&nan, &schema(r#""double""#)),
        unhex("01 00 00 00 00 00 f0 7f")
    );
    let neg_zero = Value::Float(-0.0);
    assert_eq!(
        roundtrip(&neg_zero, &schema(r#""float""#)),
        unhex("00 00 00 80")
    );
}

#[test]
fn blocked_arrays_decode_and_skip() {
    let longs = schema(r#"{"type":"array","items":"long"}"#);
    let expected = Value::Array(vec![Value::Long(3), Value::Long(27)]);
    for hex in [
        "04 06 36 00",          // one block of two
        "02 06 02 36 00",       // two blocks of one
        "03 04 06 36 00",       // one block of -2 items, 2 bytes
        "01 02 06 01 02 36 00", // two blocks of -1 item, 1 byte each
        "01 02 06 02 36 00",    // a sized block, then a plain one
        "00",                   // (the empty array, checked below)
    ] {
        let bytes = unhex(hex);
        let v = decode_ok(&bytes, &longs);
        if hex == "00" {
            assert_same(&v, &Value::Array(vec![]), hex);
        } else {
            assert_same(&v, &expected, hex);
        }
        skip_ok(&bytes, &longs);
    }
    // A record with a blocked array between two fields: skipping uses the byte size.
    let rec = schema(
        r#"{"type":"record","name":"R","fields":[
            {"name":"xs","type":{"type":"array","items":"string"}},
            {"name":"after","type":"int"}]}"#,
    );
    let bytes = unhex("03 08 02 61 02 62 00 0e"); // ["a","b"] as one sized block, then 7
    let v = decode_ok(&bytes, &rec);
    let expected = Value::Record(vec![
        Value::Array(vec![Value::String("a".into()), Value::String("b".into())]),
        Value::Int(7),
    ]);
    assert_same(&v, &expected, "record with a sized block");
    skip_ok(&bytes, &rec);
    let xs = schema(r#"{"type":"array","items":"string"}"#);
    for (src, (r, after)) in each_source!(&bytes, |dec| {
        let r = dec.skip_value(&xs, xs.root_id());
        (r, dec.read_int())
    }) {
        r.unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(after.unwrap(), 7, "{src}: the int after the skipped array");
    }
}

#[test]
fn blocked_maps_decode_and_skip() {
    let map = schema(r#"{"type":"map","values":"long"}"#);
    let expected = Value::Map(vec![
        ("a".into(), Value::Long(1)),
        ("b".into(), Value::Long(-1)),
    ]);
    for hex in [
        "04 02 61 02 02 62 01 00",          // one block of two
        "02 02 61 02 02 02 62 01 00",       // two blocks of one
        "03 0c 02 61 02 02 62 01 00",       // one block of -2 entries, 6 bytes
        "01 06 02 61 02 01 06 02 62 01 00", // two blocks of -1 entry, 3 bytes each
    ] {
        let bytes = unhex(hex);
        assert_same(&decode_ok(&bytes, &map), &expected, hex);
        skip_ok(&bytes, &map);
    }
    assert_eq!(roundtrip(&expected, &map), unhex("04 02 61 02 02 62 01 00"));
    assert_eq!(roundtrip(&Value::Map(vec![]), &map), unhex("00"));
}

#[test]
fn blocking_sink_writes_the_sized_form() {
    // With a block size of 1 byte every item closes a block: -1 item, its size, the item.
    let longs = schema(r#"{"type":"array","items":"long"}"#);
    let v = Value::Array(vec![Value::Long(3), Value::Long(27)]);
    let mut out = Vec::new();
    let mut enc = Encoder::blocking(&mut out, 1);
    avrokit::value::write_value(&mut enc, &v, &longs).unwrap();
    enc.flush().unwrap();
    drop(enc);
    assert_eq!(out, unhex("01 02 06 01 02 36 00"));
    // With a large block size: one block of -2 items and 2 bytes.
    let mut out = Vec::new();
    let mut enc = Encoder::blocking(&mut out, 1024);
    avrokit::value::write_value(&mut enc, &v, &longs).unwrap();
    enc.flush().unwrap();
    drop(enc);
    assert_eq!(out, unhex("03 04 06 36 00"));
}
