//! Hostile lengths, counts, indexes and depths: each is an error (of the right kind, with an
//! offset inside the input), found without allocating what the input claims and without
//! overflowing the stack, through every source including the 1-byte reader; `skip_value` is
//! held to the same standard.

mod common;

use std::io::{self, Read};

use avrokit::value::{read_value, write_value};
use avrokit::{Decoder, Encoder, ErrorKind, Limits, Schema, Value};
use common::alloc::largest_allocation;
use common::{assert_err, decode_all, decode_all_with, reference_long, schema, skip_all, unhex};

#[global_allocator]
static ALLOCATOR: common::alloc::Counting = common::alloc::Counting;

use ErrorKind::{Data, Eof, Limit};

/// What a hostile case must give: the error kinds allowed for `read_value` and for
/// `skip_value` (an empty list for skip means skipping may also succeed).
struct Case {
    what: &'static str,
    schema: &'static str,
    bytes: Vec<u8>,
    decode: &'static [ErrorKind],
    skip: &'static [ErrorKind],
    skip_may_succeed: bool,
}

fn varint(n: i64) -> Vec<u8> {
    reference_long(n)
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn cases() -> Vec<Case> {
    let huge = varint(1 << 62);
    let c = |what, schema, bytes, decode, skip| Case {
        what,
        schema,
        bytes,
        decode,
        skip,
        skip_may_succeed: false,
    };
    vec![
        c(
            "string length 2^62",
            r#""string""#,
            cat(&[&huge, b"abc"]),
            &[Limit],
            &[Eof],
        ),
        c(
            "bytes length 2^62",
            r#""bytes""#,
            cat(&[&huge, b"abc"]),
            &[Limit],
            &[Eof],
        ),
        c(
            "string length i64::MAX",
            r#""string""#,
            varint(i64::MAX),
            &[Limit],
            &[Eof],
        ),
        c(
            "bytes length -1",
            r#""bytes""#,
            unhex("01 61"),
            &[Data],
            &[Data],
        ),
        c(
            "string length i64::MIN",
            r#""string""#,
            varint(i64::MIN),
            &[Data],
            &[Data],
        ),
        c(
            "string length 1000, 3 bytes",
            r#""string""#,
            cat(&[&varint(1000), b"abc"]),
            &[Eof],
            &[Eof],
        ),
        c(
            "array count 2^62, 3 bytes left",
            r#"{"type":"array","items":"long"}"#,
            cat(&[&huge, &[0, 0, 0]]),
            &[Eof, Limit],
            &[Eof],
        ),
        c(
            "array of strings, count 2^62",
            r#"{"type":"array","items":"string"}"#,
            cat(&[&huge, &[2, b'a']]),
            &[Eof, Limit],
            &[Eof],
        ),
        c(
            "map count 2^62, 3 bytes left",
            r#"{"type":"map","values":"long"}"#,
            cat(&[&huge, &[0, 0, 0]]),
            &[Eof, Limit],
            &[Eof],
        ),
        c(
            "map count i64::MAX",
            r#"{"type":"map","values":"null"}"#,
            cat(&[&varint(i64::MAX), &[0, 0]]),
            &[Eof, Limit],
            &[Eof],
        ),
        c(
            "array block count i64::MIN",
            r#"{"type":"array","items":"long"}"#,
            cat(&[&varint(i64::MIN), &[0, 0]]),
            &[Data],
            &[Data],
        ),
        c(
            "map block count i64::MIN",
            r#"{"type":"map","values":"long"}"#,
            cat(&[&varint(i64::MIN), &[0, 0]]),
            &[Data],
            &[Data],
        ),
        c(
            "negative block byte size",
            r#"{"type":"array","items":"long"}"#,
            unhex("01 01 02 00"),
            &[Data],
            &[Data],
        ),
        c(
            "block byte size i64::MIN",
            r#"{"type":"map","values":"long"}"#,
            cat(&[&[0x01], &varint(i64::MIN), &[0, 2, 0]]),
            &[Data],
            &[Data],
        ),
        c(
            // Reading takes the item, then finds the size wrong before looking for more;
            // skipping trusts the size and runs out of input.
            "block byte size beyond the input",
            r#"{"type":"array","items":"long"}"#,
            cat(&[&[0x01], &huge, &[2]]),
            &[Data],
            &[Eof],
        ),
        c(
            "union index 2 of 2",
            r#"["null","int"]"#,
            unhex("04 02"),
            &[Data],
            &[Data],
        ),
        c(
            "union index -1",
            r#"["null","int"]"#,
            unhex("01"),
            &[Data],
            &[Data],
        ),
        c(
            "union index 2^40",
            r#"["null","int"]"#,
            varint(1 << 40),
            &[Data],
            &[Data],
        ),
        c(
            "enum index 3 of 3",
            r#"{"type":"enum","name":"E","symbols":["A","B","C"]}"#,
            unhex("06"),
            &[Data],
            // Skipping reads the index without looking at the symbols (as Java's does).
            &[],
        ),
        c(
            "enum index -1",
            r#"{"type":"enum","name":"E","symbols":["A","B","C"]}"#,
            unhex("01"),
            &[Data],
            &[Data],
        ),
        c(
            "invalid UTF-8",
            r#""string""#,
            unhex("04 c3 28"),
            &[Data],
            &[],
        ),
        c(
            "overlong UTF-8 NUL",
            r#""string""#,
            unhex("04 c0 80"),
            &[Data],
            &[],
        ),
        c(
            "UTF-8 surrogate",
            r#""string""#,
            unhex("06 ed a0 80"),
            &[Data],
            &[],
        ),
        c(
            "int varint of 33 bits",
            r#""int""#,
            unhex("80 80 80 80 10"),
            &[Data],
            &[Data],
        ),
        c(
            "int varint of 64 bits",
            r#""int""#,
            varint(i64::MIN),
            &[Data],
            &[Data],
        ),
        c(
            "11-byte varint",
            r#""long""#,
            unhex("81 80 80 80 80 80 80 80 80 80 00"),
            &[Data],
            &[Data],
        ),
        c(
            "10-byte varint over 64 bits",
            r#""long""#,
            unhex("ff ff ff ff ff ff ff ff ff 02"),
            &[Data],
            &[Data],
        ),
        c(
            "10 continuation bytes then the end",
            r#""long""#,
            unhex("ff ff ff ff ff ff ff ff ff ff"),
            &[Data],
            &[Data],
        ),
        c(
            "boolean byte 2",
            r#""boolean""#,
            unhex("02"),
            &[Data],
            &[Data],
        ),
        c(
            "boolean byte ff",
            r#""boolean""#,
            unhex("ff"),
            &[Data],
            &[Data],
        ),
        c(
            "nested arrays 100,000 deep",
            r#"{"type":"record","name":"A","fields":[{"name":"a","type":{"type":"array","items":"A"}}]}"#,
            vec![0x02; 100_000],
            &[Limit],
            &[Limit],
        ),
        c(
            "a linked list 100,000 deep",
            r#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#,
            vec![0x02; 100_000],
            &[Limit],
            &[Limit],
        ),
        c(
            "nested maps 100,000 deep",
            r#"{"type":"record","name":"M","fields":[{"name":"m","type":{"type":"map","values":"M"}}]}"#,
            [0x02, 0x00].repeat(100_000),
            &[Limit],
            &[Limit],
        ),
        Case {
            what: "array of null, count 2^62",
            schema: r#"{"type":"array","items":"null"}"#,
            bytes: cat(&[&huge, &[0]]),
            decode: &[Limit],
            skip: &[],
            skip_may_succeed: true,
        },
        Case {
            what: "array of empty records, count i64::MAX, sized blocks",
            schema: r#"{"type":"array","items":{"type":"record","name":"E","fields":[]}}"#,
            bytes: cat(&[&varint(-i64::MAX), &[0], &varint(-i64::MAX), &[0], &[0]]),
            decode: &[Limit],
            skip: &[],
            skip_may_succeed: true,
        },
    ]
}

#[test]
fn hostile_inputs_fail_with_the_right_kind() {
    for case in cases() {
        let s = schema(case.schema);
        let len = case.bytes.len();
        for d in decode_all(&case.bytes, &s) {
            let ctx = format!("{}: decode through {}", case.what, d.src);
            match d.result {
                Ok(v) => panic!("{ctx}: a value: {:?}", Value::kind_name(&v)),
                Err(e) => assert_err(&e, case.decode, len, &ctx),
            }
        }
        for d in skip_all(&case.bytes, &s) {
            let ctx = format!("{}: skip through {}", case.what, d.src);
            match d.result {
                Ok(()) => assert!(
                    case.skip_may_succeed || case.skip.is_empty(),
                    "{ctx}: skipping succeeded"
                ),
                Err(e) if case.skip.is_empty() => {
                    assert_err(&e, &[Data, Eof, Limit], len, &ctx);
                }
                Err(e) => assert_err(&e, case.skip, len, &ctx),
            }
        }
    }
}

#[test]
fn a_self_recursive_record_without_a_base_case() {
    // `R { r: R }` has no finite value. If the parser accepts it, reading must stop at the
    // depth limit rather than recurse forever over zero bytes.
    let Ok(s) =
        Schema::parse_str(r#"{"type":"record","name":"R","fields":[{"name":"r","type":"R"}]}"#)
    else {
        return;
    };
    for d in decode_all(&[], &s) {
        let e = d.result.expect_err("no value can exist");
        assert_err(&e, &[Limit], 0, &format!("decode through {}", d.src));
    }
    for d in skip_all(&[], &s) {
        let e = d.result.expect_err("no value can exist");
        assert_err(&e, &[Limit], 0, &format!("skip through {}", d.src));
    }
}

#[test]
fn depth_limit_is_per_decoder_and_configurable() {
    let s =
        schema(r#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#);
    // 22 levels: the root record, then 10 times a union and a record, then a union of null.
    let mut bytes = vec![0x02; 10];
    bytes.push(0x00);
    let tight = Limits::default().with_max_depth(21);
    for d in decode_all_with(&bytes, &s, tight) {
        assert_err(
            &d.result.unwrap_err(),
            &[Limit],
            bytes.len(),
            &format!("{}", d.src),
        );
    }
    let enough = Limits::default().with_max_depth(22);
    for d in decode_all_with(&bytes, &s, enough) {
        d.result.unwrap_or_else(|e| panic!("{}: {e}", d.src));
    }
    // Reusing a decoder after a successful datum starts again from depth 0.
    let twice = [bytes.clone(), bytes.clone()].concat();
    let mut dec = Decoder::from_slice(&twice).with_limits(enough);
    read_value(&mut dec, &s).unwrap();
    read_value(&mut dec, &s).unwrap();
}

#[test]
fn writing_a_value_nested_too_deep_is_a_limit_error() {
    let s =
        schema(r#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#);
    let mut v = Value::Record(vec![Value::Union(0, Box::new(Value::Null))]);
    for _ in 0..2_000 {
        v = Value::Record(vec![Value::Union(1, Box::new(v))]);
    }
    let e = write_value(&mut Encoder::new(&mut Vec::new()), &v, &s).unwrap_err();
    assert_eq!(e.kind(), Limit, "{e}");
}

/// A reader that has `prefix`, then `n` copies of `byte`: real data behind a big claim.
fn backed(prefix: &[u8], byte: u8, n: u64) -> impl Read + '_ {
    io::Cursor::new(prefix).chain(io::repeat(byte).take(n))
}

#[test]
fn an_allocation_limit_is_enforced_before_allocating() {
    const MIB: usize = 1 << 20;
    let limits = Limits::default().with_max_alloc(MIB);
    let many = 1u64 << 24;
    let cases: [(&str, &str, Vec<u8>, u8); 5] = [
        ("16 MiB string", r#""string""#, varint(many as i64), b'a'),
        ("16 MiB bytes", r#""bytes""#, varint(many as i64), 0),
        (
            "2^24 longs",
            r#"{"type":"array","items":"long"}"#,
            varint(many as i64),
            0,
        ),
        (
            "2^24 map entries",
            r#"{"type":"map","values":"null"}"#,
            varint(many as i64),
            0,
        ),
        (
            "2^24 nulls",
            r#"{"type":"array","items":"null"}"#,
            varint(many as i64),
            0,
        ),
    ];
    for (what, json, prefix, fill) in cases {
        let s = schema(json);
        // Through a reader that really has the bytes the length or count claims.
        for cap in [1, 4096] {
            let (r, largest) = largest_allocation(|| {
                let mut dec =
                    Decoder::from_reader_with_capacity(cap, backed(&prefix, fill, many + 1))
                        .with_limits(limits);
                read_value(&mut dec, &s)
            });
            let e = r.expect_err(what);
            assert_eq!(e.kind(), Limit, "{what}, capacity {cap}: {e}");
            assert!(
                largest < MIB,
                "{what}, capacity {cap}: allocated {largest} bytes"
            );
        }
        // And through a slice that has them.
        let mut data = prefix.clone();
        data.resize(prefix.len() + many as usize + 1, fill);
        let (r, largest) = largest_allocation(|| {
            read_value(&mut Decoder::from_slice(&data).with_limits(limits), &s)
        });
        let e = r.expect_err(what);
        assert_eq!(e.kind(), Limit, "{what}, slice: {e}");
        assert!(largest < MIB, "{what}, slice: allocated {largest} bytes");
    }
}

#[test]
fn blocks_add_up_against_the_allocation_limit() {
    // Many small blocks of nulls: each is fine alone, together they pass the limit.
    let limits = Limits::default().with_max_alloc(1 << 16);
    let s = schema(r#"{"type":"array","items":"null"}"#);
    let mut bytes = Vec::new();
    for _ in 0..10_000 {
        bytes.extend(varint(100));
    }
    bytes.push(0);
    for d in decode_all_with(&bytes, &s, limits) {
        assert_err(
            &d.result.unwrap_err(),
            &[Limit],
            bytes.len(),
            &format!("{}", d.src),
        );
    }
    let s = schema(r#"{"type":"map","values":"null"}"#);
    let mut bytes = Vec::new();
    for _ in 0..10_000 {
        bytes.extend(varint(2));
        bytes.extend([0, 0]);
    }
    bytes.push(0);
    for d in decode_all_with(&bytes, &s, limits) {
        assert_err(
            &d.result.unwrap_err(),
            &[Limit],
            bytes.len(),
            &format!("{}", d.src),
        );
    }
}

#[test]
fn limits_that_are_not_reached_do_not_get_in_the_way() {
    let limits = Limits::default().with_max_alloc(100).with_max_depth(3);
    let s = schema(r#"{"type":"array","items":"string"}"#);
    let v = Value::Array(vec![Value::String("x".repeat(100))]);
    let mut bytes = Vec::new();
    write_value(&mut Encoder::new(&mut bytes), &v, &s).unwrap();
    for d in decode_all_with(&bytes, &s, limits) {
        assert_eq!(d.result.unwrap_or_else(|e| panic!("{}: {e}", d.src)), v);
    }
    let v = Value::Array(vec![Value::String("x".repeat(101))]);
    let mut bytes = Vec::new();
    write_value(&mut Encoder::new(&mut bytes), &v, &s).unwrap();
    for d in decode_all_with(&bytes, &s, limits) {
        assert_err(
            &d.result.unwrap_err(),
            &[Limit],
            bytes.len(),
            &format!("{}", d.src),
        );
    }
}

#[test]
fn zero_size_items_behind_deep_records_are_not_truncation() {
    // Five items of `R33 { a: R32 { ... R0 { a: null } } }`, which take no bytes, then the end.
    let mut json = String::from(r#""null""#);
    for i in 0..34 {
        json =
            format!(r#"{{"type":"record","name":"R{i}","fields":[{{"name":"a","type":{json}}}]}}"#);
    }
    let s = schema(&format!(r#"{{"type":"array","items":{json}}}"#));
    let bytes = [0x0a, 0x00];
    for d in decode_all(&bytes, &s) {
        let v = d.result.unwrap_or_else(|e| panic!("{}: {e}", d.src));
        assert!(
            matches!(&v, Value::Array(items) if items.len() == 5),
            "{}",
            d.src
        );
    }
    for d in skip_all(&bytes, &s) {
        d.result.unwrap_or_else(|e| panic!("{}: {e}", d.src));
    }
}
