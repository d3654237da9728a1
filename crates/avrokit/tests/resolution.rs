//! Schema resolution: every rule of the specification's "Schema Resolution" section as a small
//! test named after it, the interoperability corpus's resolution cases
//! (`tests/data/resolution/`, copied from `shared/interop/resolution/`), plans shared and
//! reused, hostile input through a plan, and the low-level `ResolvingDecoder`.
//!
//! Every datum read here goes through three sources (a slice, a reader with a 1-byte buffer,
//! a reader with the default buffer), which must agree.

use std::fs;
use std::path::{Path, PathBuf};

use avrokit::container::Reader;
use avrokit::json::from_json_value;
use avrokit::resolution::{check_compatibility, ResolvedPlan, ResolvingDecoder};
use avrokit::value::{from_datum_slice_resolved, read_value, read_value_resolved, Decimal};
use avrokit::{Decoder, Encoder, Error, ErrorKind, Limits, Schema, Value};
use serde_json::{json, Value as Json};

// ------------------------------------------------------------------------------------ helpers

fn schema(text: &str) -> Schema {
    Schema::parse_str(text).unwrap_or_else(|e| panic!("{text}\n  -> {e}"))
}

fn plan(writer: &str, reader: &str) -> ResolvedPlan {
    ResolvedPlan::compile(&schema(writer), &schema(reader))
        .unwrap_or_else(|e| panic!("writer {writer}\nreader {reader}\n  -> {e}"))
}

fn compile_err(writer: &str, reader: &str) -> Error {
    match ResolvedPlan::compile(&schema(writer), &schema(reader)) {
        Ok(p) => panic!("compiled an unresolvable pair: {p:?}"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Resolution, "{e}");
            e
        }
    }
}

fn encode(v: &Value, s: &Schema) -> Vec<u8> {
    avrokit::to_datum_vec(v, s).unwrap_or_else(|e| panic!("{v:?}: {e}"))
}

/// Reads `bytes` through `plan` from every source; they must agree: the same value (compared
/// through `Debug`, so that NaN equals NaN), or both an error. A reader source does not know how
/// many bytes are left, so a hostile length can fail later there, or as a limit instead of an
/// end of input; a resolution error (which depends on the data only) is the same everywhere.
/// Also checks that the whole input is consumed.
fn read_everywhere(bytes: &[u8], plan: &ResolvedPlan) -> Result<Value, Error> {
    let from_slice = from_datum_slice_resolved(bytes, plan);
    for cap in [1, 64 * 1024] {
        let mut dec = Decoder::from_reader_with_capacity(cap, bytes);
        let r = read_value_resolved(&mut dec, plan);
        match (&from_slice, &r) {
            (Ok(a), Ok(b)) => {
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "capacity {cap}");
                assert!(dec.is_empty().unwrap(), "capacity {cap}: input left over");
            }
            (Err(a), Err(b)) => {
                let resolution = ErrorKind::Resolution;
                assert_eq!(a.kind() == resolution, b.kind() == resolution, "{a} vs {b}");
            }
            // The slice path rejects bytes left over after the datum; a reader stops after it.
            (Err(a), Ok(_)) if a.message().contains("left over") => {}
            _ => panic!("capacity {cap}: slice {from_slice:?}, reader {r:?}"),
        }
    }
    from_slice
}

/// Writes `input` (writer-side Avro JSON) with the writer schema and reads it through the plan.
fn resolve_json(plan: &ResolvedPlan, input: &Json) -> Result<Value, Error> {
    let v = from_json_value(input, plan.writer()).unwrap_or_else(|e| panic!("{input}: {e}"));
    read_everywhere(&encode(&v, plan.writer()), plan)
}

/// The reader-side value of Avro JSON `expected`.
fn expect(plan: &ResolvedPlan, expected: &Json) -> Value {
    from_json_value(expected, plan.reader()).unwrap_or_else(|e| panic!("{expected}: {e}"))
}

/// `writer` data `input` read as `reader` must be `expected` (all Avro JSON).
fn check(writer: &str, reader: &str, input: Json, expected: Json) {
    let p = plan(writer, reader);
    let got = resolve_json(&p, &input).unwrap_or_else(|e| panic!("{input}: {e}"));
    assert_eq!(got, expect(&p, &expected), "input {input}");
}

fn rec(fields: Vec<Value>) -> Value {
    Value::Record(fields)
}

fn u(i: u32, v: Value) -> Value {
    Value::Union(i, Box::new(v))
}

// ------------------------------------------------------------------ rule: matching / promotion

#[test]
fn same_primitive_types_match() {
    for (t, v) in [
        ("null", json!(null)),
        ("boolean", json!(true)),
        ("int", json!(-5)),
        ("long", json!(i64::MIN)),
        ("float", json!(0.5)),
        ("double", json!(-1.25)),
        ("bytes", json!("\u{ff}\u{0}")),
        ("string", json!("héllo")),
    ] {
        let s = format!("\"{t}\"");
        check(&s, &s, v.clone(), v);
    }
}

#[test]
fn promotion_int_to_long() {
    check(
        r#""int""#,
        r#""long""#,
        json!(i32::MIN),
        json!(i32::MIN as i64),
    );
}

#[test]
fn promotion_int_to_float_rounds_to_nearest() {
    let p = plan(r#""int""#, r#""float""#);
    assert_eq!(
        resolve_json(&p, &json!(16_777_217)).unwrap(),
        Value::Float(16_777_216.0)
    );
    assert_eq!(resolve_json(&p, &json!(-7)).unwrap(), Value::Float(-7.0));
}

#[test]
fn promotion_int_to_double() {
    check(
        r#""int""#,
        r#""double""#,
        json!(i32::MAX),
        json!(2147483647.0),
    );
}

#[test]
fn promotion_long_to_float() {
    let p = plan(r#""long""#, r#""float""#);
    assert_eq!(
        resolve_json(&p, &json!(1i64 << 40)).unwrap(),
        Value::Float((1u64 << 40) as f32)
    );
}

#[test]
fn promotion_long_to_double_rounds_to_nearest() {
    let p = plan(r#""long""#, r#""double""#);
    let v = resolve_json(&p, &json!(9_007_199_254_740_993i64)).unwrap();
    assert_eq!(v, Value::Double(9_007_199_254_740_992.0));
}

#[test]
fn promotion_float_to_double_is_exact() {
    let p = plan(r#""float""#, r#""double""#);
    let v = resolve_json(&p, &json!(0.1)).unwrap();
    assert_eq!(v, Value::Double(f64::from(0.1f32)));
}

#[test]
fn promotion_string_to_bytes() {
    let p = plan(r#""string""#, r#""bytes""#);
    assert_eq!(
        resolve_json(&p, &json!("é")).unwrap(),
        Value::Bytes(vec![0xc3, 0xa9])
    );
}

#[test]
fn promotion_bytes_to_string() {
    let p = plan(r#""bytes""#, r#""string""#);
    assert_eq!(
        resolve_json(&p, &json!("\u{c3}\u{a9}")).unwrap(),
        Value::String("é".into())
    );
}

#[test]
fn promotion_bytes_to_string_rejects_invalid_utf8_per_datum() {
    let p = plan(r#""bytes""#, r#""string""#);
    let err = resolve_json(&p, &json!("\u{ff}")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Data, "{err}");
}

#[test]
fn no_promotion_the_other_way() {
    for (w, r) in [
        ("long", "int"),
        ("double", "float"),
        ("float", "long"),
        ("double", "long"),
        ("float", "int"),
        ("int", "string"),
        ("string", "int"),
        ("boolean", "int"),
        ("null", "boolean"),
        ("int", "boolean"),
    ] {
        let e = compile_err(&format!("\"{w}\""), &format!("\"{r}\""));
        assert_eq!(e.message(), format!("writer {w} cannot be read as {r}"));
        assert_eq!(e.path(), "");
    }
}

#[test]
fn no_match_between_complex_kinds() {
    let cases = [
        (
            r#"{"type":"map","values":"int"}"#,
            r#"{"type":"array","items":"int"}"#,
        ),
        (
            r#"{"type":"array","items":"int"}"#,
            r#"{"type":"map","values":"int"}"#,
        ),
        (r#"{"type":"fixed","name":"F","size":4}"#, r#""bytes""#),
        (r#""bytes""#, r#"{"type":"fixed","name":"F","size":4}"#),
        (
            r#"{"type":"enum","name":"E","symbols":["A"]}"#,
            r#""string""#,
        ),
        (
            r#""string""#,
            r#"{"type":"enum","name":"E","symbols":["A"]}"#,
        ),
        (
            r#"{"type":"record","name":"R","fields":[]}"#,
            r#"{"type":"map","values":"int"}"#,
        ),
    ];
    for (w, r) in cases {
        compile_err(w, r);
    }
}

// -------------------------------------------------------------------------------- rule: arrays

#[test]
fn arrays_resolve_items_recursively() {
    check(
        r#"{"type":"array","items":"int"}"#,
        r#"{"type":"array","items":"double"}"#,
        json!([1, -2, 3]),
        json!([1.0, -2.0, 3.0]),
    );
    let e = compile_err(
        r#"{"type":"array","items":"long"}"#,
        r#"{"type":"array","items":"int"}"#,
    );
    assert_eq!(e.path(), "[]");
}

#[test]
fn arrays_written_in_sized_blocks_resolve() {
    // A blocking encoder writes negative counts with byte sizes; items are still converted.
    let w = schema(r#"{"type":"array","items":"int"}"#);
    let p = ResolvedPlan::compile(&w, &schema(r#"{"type":"array","items":"long"}"#)).unwrap();
    let mut out = Vec::new();
    {
        let mut enc = Encoder::blocking(&mut out, 4);
        avrokit::value::write_value(
            &mut enc,
            &Value::Array((0..10).map(Value::Int).collect()),
            &w,
        )
        .unwrap();
        enc.flush().unwrap();
    }
    assert_eq!(
        read_everywhere(&out, &p).unwrap(),
        Value::Array((0..10).map(Value::Long).collect())
    );
}

// ---------------------------------------------------------------------------------- rule: maps

#[test]
fn maps_resolve_values_recursively() {
    check(
        r#"{"type":"map","values":"float"}"#,
        r#"{"type":"map","values":"double"}"#,
        json!({"a": 0.5, "b": -1}),
        json!({"a": 0.5, "b": -1.0}),
    );
    let e = compile_err(
        r#"{"type":"map","values":"string"}"#,
        r#"{"type":"map","values":"int"}"#,
    );
    assert_eq!(e.path(), "{}");
}

// ------------------------------------------------------------------------------- rule: records

const USER_V1: &str = r#"{"type":"record","name":"User","fields":[
    {"name":"id","type":"long"},{"name":"name","type":"string"},
    {"name":"tags","type":{"type":"array","items":"string"}}]}"#;

#[test]
fn records_fields_matched_by_name_in_any_order() {
    check(
        USER_V1,
        r#"{"type":"record","name":"User","fields":[
            {"name":"tags","type":{"type":"array","items":"string"}},
            {"name":"name","type":"string"},{"name":"id","type":"long"}]}"#,
        json!({"id": 1, "name": "a", "tags": ["x"]}),
        json!({"tags": ["x"], "name": "a", "id": 1}),
    );
}

#[test]
fn records_fields_resolved_recursively() {
    let e = compile_err(
        r#"{"type":"record","name":"Order","fields":[{"name":"items","type":{"type":"array",
            "items":{"type":"record","name":"Item","fields":[{"name":"price","type":"long"}]}}}]}"#,
        r#"{"type":"record","name":"Order","fields":[{"name":"items","type":{"type":"array",
            "items":{"type":"record","name":"Item","fields":[{"name":"price","type":"int"}]}}}]}"#,
    );
    assert_eq!(e.path(), "Order.items[].price");
    assert_eq!(e.message(), "writer long cannot be read as int");
    assert!(e.to_string().contains("Order.items[].price"), "{e}");
}

#[test]
fn records_writer_only_fields_are_skipped() {
    let writer = r#"{"type":"record","name":"Big","fields":[
        {"name":"keep","type":"int"},
        {"name":"m","type":{"type":"map","values":{"type":"array","items":{"type":"record",
            "name":"In","fields":[{"name":"s","type":"string"},{"name":"u","type":["null","bytes"]}]}}}},
        {"name":"un","type":["null","string",{"type":"array","items":"long"}]},
        {"name":"fx","type":{"type":"fixed","name":"F3","size":3}},
        {"name":"en","type":{"type":"enum","name":"E","symbols":["A","B"]}},
        {"name":"d","type":"double"},{"name":"f","type":"float"},{"name":"b","type":"boolean"},
        {"name":"n","type":"null"},{"name":"l","type":"long"},{"name":"by","type":"bytes"},
        {"name":"sub","type":{"type":"record","name":"Sub","fields":[{"name":"x","type":"double"},{"name":"y","type":"float"}]}},
        {"name":"tail","type":"string"}]}"#;
    let reader = r#"{"type":"record","name":"Big","fields":[
        {"name":"keep","type":"int"},{"name":"tail","type":"string"}]}"#;
    check(
        writer,
        reader,
        json!({"keep": 1, "m": {"k": [{"s": "x", "u": {"bytes": "\u{1}"}}, {"s": "", "u": null}]},
               "un": {"array": [1, 2, 3]}, "fx": "abc", "en": "B", "d": 1.5, "f": 2.5, "b": true,
               "n": null, "l": -99, "by": "zz", "sub": {"x": 1.0, "y": 2.0}, "tail": "end"}),
        json!({"keep": 1, "tail": "end"}),
    );
}

#[test]
fn records_reader_only_fields_take_their_defaults() {
    let reader = r#"{"type":"record","name":"User","fields":[
        {"name":"id","type":"long"},
        {"name":"age","type":"int","default":-1},
        {"name":"big","type":"long","default":9007199254740993},
        {"name":"nick","type":["null","string"],"default":null},
        {"name":"opt","type":["string","null"],"default":"dflt"},
        {"name":"score","type":"double","default":1},
        {"name":"ratio","type":"float","default":"NaN"},
        {"name":"flag","type":"boolean","default":true},
        {"name":"nothing","type":"null","default":null},
        {"name":"flags","type":{"type":"map","values":"boolean"},"default":{"a":true}},
        {"name":"raw","type":"bytes","default":"\u00ff\u0000"},
        {"name":"state","type":{"type":"enum","name":"St","symbols":["ON","OFF"]},"default":"OFF"},
        {"name":"pos","type":{"type":"record","name":"Pos","fields":[{"name":"x","type":"int"},
            {"name":"y","type":"int","default":9}]},"default":{"x":1}},
        {"name":"fx","type":{"type":"fixed","name":"Two","size":2},"default":"\u0000\u00ff"},
        {"name":"list","type":{"type":"array","items":"int"},"default":[1,2]}]}"#;
    let p = plan(USER_V1, reader);
    let v = resolve_json(&p, &json!({"id": 7, "name": "n", "tags": []})).unwrap();
    let Value::Record(f) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(f[0], Value::Long(7));
    assert_eq!(f[1], Value::Int(-1));
    assert_eq!(f[2], Value::Long(9_007_199_254_740_993));
    assert_eq!(f[3], u(0, Value::Null));
    assert_eq!(f[4], u(0, Value::String("dflt".into())));
    assert_eq!(f[5], Value::Double(1.0));
    assert!(matches!(f[6], Value::Float(x) if x.is_nan()));
    assert_eq!(f[7], Value::Boolean(true));
    assert_eq!(f[8], Value::Null);
    assert_eq!(f[9], Value::Map(vec![("a".into(), Value::Boolean(true))]));
    assert_eq!(f[10], Value::Bytes(vec![0xff, 0x00]));
    assert_eq!(f[11], Value::Enum(1));
    assert_eq!(f[12], rec(vec![Value::Int(1), Value::Int(9)]));
    assert_eq!(f[13], Value::Fixed(vec![0x00, 0xff]));
    assert_eq!(f[14], Value::Array(vec![Value::Int(1), Value::Int(2)]));
}

#[test]
fn records_reader_only_field_without_default_is_an_error() {
    let e = compile_err(
        USER_V1,
        r#"{"type":"record","name":"User","fields":[
            {"name":"id","type":"long"},{"name":"email","type":"string"}]}"#,
    );
    assert_eq!(e.path(), "User.email");
    assert!(e.message().contains("no default"), "{e}");
}

#[test]
fn records_match_by_unqualified_name() {
    check(
        r#"{"type":"record","name":"R","namespace":"a","fields":[{"name":"v","type":"int"}]}"#,
        r#"{"type":"record","name":"R","namespace":"b","fields":[{"name":"v","type":"long"}]}"#,
        json!({"v": 3}),
        json!({"v": 3}),
    );
}

#[test]
fn records_with_different_names_do_not_match() {
    let e = compile_err(
        r#"{"type":"record","name":"R1","fields":[{"name":"v","type":"int"}]}"#,
        r#"{"type":"record","name":"R2","fields":[{"name":"v","type":"int"}]}"#,
    );
    assert!(e.message().contains("names differ"), "{e}");
    assert_eq!(e.path(), "R2");
}

#[test]
fn records_nested_evolution_and_named_reuse() {
    check(
        r#"{"type":"record","name":"Outer","fields":[
            {"name":"in","type":{"type":"record","name":"In","fields":[
                {"name":"a","type":"int"},{"name":"gone","type":"string"}]}},
            {"name":"list","type":{"type":"array","items":"In"}}]}"#,
        r#"{"type":"record","name":"Outer","fields":[
            {"name":"in","type":{"type":"record","name":"In","fields":[
                {"name":"a","type":"long"},{"name":"added","type":"string","default":"d"}]}},
            {"name":"list","type":{"type":"array","items":"In"}}]}"#,
        json!({"in": {"a": 1, "gone": "x"}, "list": [{"a": 2, "gone": "y"}]}),
        json!({"in": {"a": 1, "added": "d"}, "list": [{"a": 2, "added": "d"}]}),
    );
}

#[test]
fn records_empty_and_all_defaults() {
    check(
        r#"{"type":"record","name":"R","fields":[{"name":"gone","type":"string"}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":4}]}"#,
        json!({"gone": "xyz"}),
        json!({"a": 4}),
    );
    check(
        r#"{"type":"record","name":"R","fields":[]}"#,
        r#"{"type":"record","name":"R","fields":[]}"#,
        json!({}),
        json!({}),
    );
}

#[test]
fn recursive_schemas_compile_and_evolve() {
    let writer = r#"{"type":"record","name":"List","fields":[
        {"name":"v","type":"int"},{"name":"next","type":["null","List"]}]}"#;
    let reader = r#"{"type":"record","name":"List","fields":[
        {"name":"next","type":["null","List"]},{"name":"v","type":"long"},
        {"name":"w","type":"string","default":"-"}]}"#;
    let p = plan(writer, reader);
    let v = resolve_json(
        &p,
        &json!({"v": 1, "next": {"List": {"v": 2, "next": {"List": {"v": 3, "next": null}}}}}),
    )
    .unwrap();
    let leaf = rec(vec![
        u(0, Value::Null),
        Value::Long(3),
        Value::String("-".into()),
    ]);
    let mid = rec(vec![u(1, leaf), Value::Long(2), Value::String("-".into())]);
    assert_eq!(
        v,
        rec(vec![u(1, mid), Value::Long(1), Value::String("-".into())])
    );
}

#[test]
fn mutually_recursive_schemas_compile() {
    let w = r#"{"type":"record","name":"A","fields":[{"name":"b","type":["null",
        {"type":"record","name":"B","fields":[{"name":"a","type":["null","A"]},
        {"name":"n","type":"int"}]}]}]}"#;
    let r = r#"{"type":"record","name":"A","fields":[{"name":"b","type":["null",
        {"type":"record","name":"B","fields":[{"name":"a","type":["null","A"]},
        {"name":"n","type":"double"}]}]}]}"#;
    check(
        w,
        r,
        json!({"b": {"B": {"a": {"A": {"b": null}}, "n": 5}}}),
        json!({"b": {"B": {"a": {"A": {"b": null}}, "n": 5.0}}}),
    );
}

#[test]
fn recursive_failure_is_reported_at_compile_time() {
    // The reader adds a field without default to a recursive record.
    let e = compile_err(
        r#"{"type":"record","name":"T","fields":[{"name":"kids","type":{"type":"array","items":"T"}}]}"#,
        r#"{"type":"record","name":"T","fields":[{"name":"kids","type":{"type":"array","items":"T"}},
            {"name":"x","type":"int"}]}"#,
    );
    assert_eq!(e.path(), "T.x");
}

// --------------------------------------------------------------------------------- rule: enums

const COLORS: &str = r#"{"type":"enum","name":"C","symbols":["R","G","B"]}"#;

#[test]
fn enums_symbols_resolved_by_name() {
    let p = plan(
        COLORS,
        r#"{"type":"enum","name":"C","symbols":["B","G","R"]}"#,
    );
    for (i, want) in [(0, 2), (1, 1), (2, 0)] {
        assert_eq!(
            read_everywhere(&encode(&Value::Enum(i), p.writer()), &p).unwrap(),
            Value::Enum(want)
        );
    }
}

#[test]
fn enums_unknown_symbol_takes_the_reader_default() {
    let p = plan(
        r#"{"type":"enum","name":"C","symbols":["R","G","B","X"]}"#,
        r#"{"type":"enum","name":"C","symbols":["R","G","B","UNKNOWN"],"default":"UNKNOWN"}"#,
    );
    assert_eq!(resolve_json(&p, &json!("X")).unwrap(), Value::Enum(3));
    assert_eq!(resolve_json(&p, &json!("G")).unwrap(), Value::Enum(1));
}

#[test]
fn enums_unknown_symbol_without_default_fails_for_that_datum_only() {
    let writer = r#"{"type":"record","name":"P","fields":[
        {"name":"c","type":{"type":"enum","name":"C","symbols":["R","X"]}}]}"#;
    let reader = r#"{"type":"record","name":"P","fields":[
        {"name":"c","type":{"type":"enum","name":"C","symbols":["R"]}}]}"#;
    let p = plan(writer, reader);
    assert_eq!(
        resolve_json(&p, &json!({"c": "R"})).unwrap(),
        rec(vec![Value::Enum(0)])
    );
    let err = resolve_json(&p, &json!({"c": "X"})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Resolution, "{err}");
    assert_eq!(err.path(), "P.c");
    assert_eq!(err.offset(), Some(0));
    assert!(err.message().contains("\"X\""), "{err}");
    // Out of the writer's own range is malformed data, not a resolution problem.
    let err = read_everywhere(&[0x04], &p).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Data, "{err}");
}

#[test]
fn enums_with_different_names_do_not_match() {
    compile_err(
        r#"{"type":"enum","name":"C1","symbols":["A"]}"#,
        r#"{"type":"enum","name":"C2","symbols":["A"]}"#,
    );
}

// --------------------------------------------------------------------------------- rule: fixed

#[test]
fn fixed_with_same_name_and_size_match() {
    check(
        r#"{"type":"fixed","name":"H","namespace":"x","size":2}"#,
        r#"{"type":"fixed","name":"H","namespace":"y","size":2}"#,
        json!("ab"),
        json!("ab"),
    );
}

#[test]
fn fixed_sizes_must_match() {
    let e = compile_err(
        r#"{"type":"fixed","name":"H","size":2}"#,
        r#"{"type":"fixed","name":"H","size":3}"#,
    );
    assert!(e.message().contains("sizes differ"), "{e}");
}

#[test]
fn fixed_names_must_match() {
    compile_err(
        r#"{"type":"fixed","name":"H","size":2}"#,
        r#"{"type":"fixed","name":"G","size":2}"#,
    );
}

// -------------------------------------------------------------------------------- rule: unions

#[test]
fn unions_both_each_writer_branch_to_first_matching_reader_branch() {
    check(
        r#"["null","int"]"#,
        r#"["null","long"]"#,
        json!({"int": 5}),
        json!({"long": 5}),
    );
    check(
        r#"["null","int"]"#,
        r#"["null","long"]"#,
        json!(null),
        json!(null),
    );
    check(
        r#"["null","int","string"]"#,
        r#"["string","null"]"#,
        json!({"string": "s"}),
        json!({"string": "s"}),
    );
}

#[test]
fn unions_both_identical_keep_their_branches() {
    let p = plan(
        r#"["null","bytes","string"]"#,
        r#"["null","bytes","string"]"#,
    );
    assert!(p.is_identity());
    assert_eq!(
        resolve_json(&p, &json!({"string": "s"})).unwrap(),
        u(2, Value::String("s".into()))
    );
    assert_eq!(
        resolve_json(&p, &json!({"bytes": "b"})).unwrap(),
        u(1, Value::Bytes(b"b".to_vec()))
    );
}

#[test]
fn unions_both_missing_branch_fails_only_when_used() {
    let p = plan(r#"["null","int","string"]"#, r#"["null","string"]"#);
    assert_eq!(resolve_json(&p, &json!(null)).unwrap(), u(0, Value::Null));
    let err = resolve_json(&p, &json!({"int": 1})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Resolution, "{err}");
    assert_eq!(err.offset(), Some(1), "after the branch index");
    assert!(err.message().contains("writer int"), "{err}");
}

#[test]
fn unions_both_no_branch_readable_is_a_compile_error() {
    let e = compile_err(r#"["int","string"]"#, r#"["boolean","null"]"#);
    assert_eq!(e.path(), "[0]");
}

#[test]
fn unions_reader_only_first_matching_branch() {
    check(
        r#""int""#,
        r#"["null","long"]"#,
        json!(4),
        json!({"long": 4}),
    );
    // The first branch the writer promotes to (the specification's "first that matches").
    check(
        r#""int""#,
        r#"["null","float","long"]"#,
        json!(2),
        json!({"float": 2.0}),
    );
    // An exact match anywhere wins over an earlier promotion.
    check(
        r#""string""#,
        r#"["null","bytes","string"]"#,
        json!("hi"),
        json!({"string": "hi"}),
    );
    check(
        r#""int""#,
        r#"["double","int"]"#,
        json!(2),
        json!({"int": 2}),
    );
    let e = compile_err(r#""int""#, r#"["null","string"]"#);
    assert!(e.message().contains("any branch"), "{e}");
}

#[test]
fn unions_reader_only_named_branch_by_name() {
    let a = r#"{"type":"record","name":"A","fields":[{"name":"x","type":"int"}]}"#;
    let reader = r#"["null",{"type":"record","name":"B","fields":[{"name":"x","type":"int"}]},
        {"type":"record","name":"A","fields":[{"name":"x","type":"long"}]}]"#;
    check(a, reader, json!({"x": 1}), json!({"A": {"x": 1}}));
}

#[test]
fn unions_reader_only_prefers_the_full_name() {
    // Two reader branches named R (different namespaces): the writer's full name wins.
    let w = r#"{"type":"record","name":"R","namespace":"b","fields":[{"name":"x","type":"int"}]}"#;
    let r = r#"[{"type":"record","name":"R","namespace":"a","fields":[{"name":"x","type":"int"}]},
        {"type":"record","name":"R","namespace":"b","fields":[{"name":"x","type":"int"}]}]"#;
    check(w, r, json!({"x": 1}), json!({"b.R": {"x": 1}}));
}

#[test]
fn unions_writer_only_branch_read_as_the_reader() {
    check(
        r#"["null","string"]"#,
        r#""string""#,
        json!({"string": "x"}),
        json!("x"),
    );
    check(
        r#"["int","string"]"#,
        r#""long""#,
        json!({"int": 9}),
        json!(9),
    );
    let p = plan(r#"["null","string"]"#, r#""string""#);
    let err = resolve_json(&p, &json!(null)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Resolution, "{err}");
}

#[test]
fn unions_records_by_name_with_reordered_branches() {
    check(
        r#"[{"type":"record","name":"A","fields":[{"name":"x","type":"int"}]},
            {"type":"record","name":"B","fields":[{"name":"x","type":"int"}]}]"#,
        r#"[{"type":"record","name":"B","fields":[{"name":"x","type":"int"}]},
            {"type":"record","name":"A","fields":[{"name":"x","type":"long"}]}]"#,
        json!({"A": {"x": 1}}),
        json!({"A": {"x": 1}}),
    );
}

#[test]
fn unions_branch_deep_failure_fails_per_datum() {
    // Branch Q cannot be resolved (reader field without default); data using branch null can.
    let w = r#"["null",{"type":"record","name":"Q","fields":[{"name":"a","type":"int"}]}]"#;
    let r = r#"["null",{"type":"record","name":"Q","fields":[{"name":"a","type":"int"},
        {"name":"b","type":"int"}]}]"#;
    let p = plan(w, r);
    assert_eq!(resolve_json(&p, &json!(null)).unwrap(), u(0, Value::Null));
    let err = resolve_json(&p, &json!({"Q": {"a": 1}})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Resolution, "{err}");
    assert!(
        err.message().contains("Q.b") || err.message().contains("[1].b"),
        "{err}"
    );
}

// ------------------------------------------------------------------------------ rule: aliases

#[test]
fn aliases_field() {
    check(
        r#"{"type":"record","name":"R","fields":[{"name":"old","type":"int"}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"new","type":"int","aliases":["old"]}]}"#,
        json!({"old": 5}),
        json!({"new": 5}),
    );
}

#[test]
fn aliases_field_never_steal_a_name_match() {
    // Reader `b` has alias `a`, but reader `a` claims writer `a` by name; `b` takes its default.
    check(
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#,
        r#"{"type":"record","name":"R","fields":[
            {"name":"b","type":"int","aliases":["a"],"default":0},{"name":"a","type":"int"}]}"#,
        json!({"a": 5}),
        json!({"b": 0, "a": 5}),
    );
}

#[test]
fn aliases_record_fullname_and_unqualified() {
    check(
        r#"{"type":"record","name":"Old","namespace":"ns","fields":[{"name":"v","type":"int"}]}"#,
        r#"{"type":"record","name":"New","namespace":"ns","aliases":["Old"],"fields":[{"name":"v","type":"int"}]}"#,
        json!({"v": 1}),
        json!({"v": 1}),
    );
    check(
        r#"{"type":"record","name":"Old","namespace":"a","fields":[{"name":"v","type":"int"}]}"#,
        r#"{"type":"record","name":"New","namespace":"b","aliases":["x.Old"],"fields":[{"name":"v","type":"int"}]}"#,
        json!({"v": 1}),
        json!({"v": 1}),
    );
}

#[test]
fn aliases_enum_and_fixed() {
    check(
        r#"["null",{"type":"enum","name":"Old","symbols":["A"]}]"#,
        r#"["null",{"type":"enum","name":"New","aliases":["Old"],"symbols":["A"]}]"#,
        json!({"Old": "A"}),
        json!({"New": "A"}),
    );
    check(
        r#"{"type":"fixed","name":"Old","size":1}"#,
        r#"{"type":"fixed","name":"New","aliases":["Old"],"size":1}"#,
        json!("z"),
        json!("z"),
    );
}

// ------------------------------------------------------------------------- rule: logical types

#[test]
fn logical_decimals_match_when_scale_and_precision_match() {
    let d = r#"{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}"#;
    let p = plan(d, d);
    let v = read_everywhere(&encode(&Value::Bytes(vec![0x01]), p.writer()), &p).unwrap();
    assert_eq!(v, Value::Decimal(Decimal::new(vec![0x01], 2)));
    for other in [
        r#"{"type":"bytes","logicalType":"decimal","precision":6,"scale":3}"#,
        r#"{"type":"bytes","logicalType":"decimal","precision":7,"scale":2}"#,
    ] {
        let e = compile_err(d, other);
        assert!(e.message().contains("decimal"), "{e}");
    }
    let f =
        r#"{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":6,"scale":2}"#;
    let g =
        r#"{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":6,"scale":1}"#;
    compile_err(f, g);
}

#[test]
fn logical_annotation_on_one_side_only() {
    // Plain bytes read as a decimal take the reader's scale; a decimal read as bytes is bytes.
    let d = r#"{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}"#;
    let p = plan(r#""bytes""#, d);
    assert_eq!(
        read_everywhere(&encode(&Value::Bytes(vec![7]), p.writer()), &p).unwrap(),
        Value::Decimal(Decimal::new(vec![7], 2))
    );
    let p = plan(d, r#""bytes""#);
    assert_eq!(
        read_everywhere(&encode(&Value::Bytes(vec![7]), p.writer()), &p).unwrap(),
        Value::Bytes(vec![7])
    );
}

#[test]
fn logical_types_follow_the_reader() {
    let p = plan(
        r#"{"type":"record","name":"T","fields":[{"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
            {"name":"d","type":{"type":"int","logicalType":"date"}}]}"#,
        r#"{"type":"record","name":"T","fields":[{"name":"ts","type":"long"},{"name":"d","type":"int"},
            {"name":"t","type":{"type":"long","logicalType":"timestamp-micros"},"default":5}]}"#,
    );
    let v = resolve_json(&p, &json!({"ts": 1_577_836_800_000i64, "d": 18262})).unwrap();
    assert_eq!(
        v,
        rec(vec![
            Value::Long(1_577_836_800_000),
            Value::Int(18262),
            Value::TimestampMicros(5)
        ])
    );
    // int promoted to a timestamp-millis long; bytes promoted to a uuid string.
    let p = plan(
        r#""int""#,
        r#"{"type":"long","logicalType":"timestamp-millis"}"#,
    );
    assert_eq!(
        resolve_json(&p, &json!(3)).unwrap(),
        Value::TimestampMillis(3)
    );
    let p = plan(r#""bytes""#, r#"{"type":"string","logicalType":"uuid"}"#);
    let text = "123e4567-e89b-12d3-a456-426614174000";
    let Value::Uuid(got) = resolve_json(&p, &json!(text)).unwrap() else {
        panic!()
    };
    assert_eq!(got[0], 0x12);
}

// ------------------------------------------------------------------ the interoperability cases

#[derive(Debug)]
struct Case {
    id: String,
    dir: PathBuf,
    meta: Json,
    writer: Schema,
    reader: Schema,
    input: Vec<Json>,
    /// `None` for an error case.
    expected: Option<Vec<Json>>,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/resolution/cases");
    let mut out = Vec::new();
    for entry in fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let read = |f: &str| {
            fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{}/{f}: {e}", dir.display()))
        };
        let lines = |text: String| -> Vec<Json> {
            text.split('\n')
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        };
        let expected = if dir.join("expected.error").exists() {
            None
        } else {
            Some(lines(read("expected.jsonl")))
        };
        out.push(Case {
            id: dir.file_name().unwrap().to_string_lossy().into_owned(),
            meta: serde_json::from_str(&read("case.json")).unwrap(),
            writer: schema(&read("writer.avsc")),
            reader: schema(&read("reader.avsc")),
            input: lines(read("input.jsonl")),
            expected,
            dir,
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(out.len(), 50, "the corpus has 50 resolution cases");
    out
}

/// The datums of the case's `input.avro`, read through `plan` with the container reader.
fn read_container(case: &Case, plan: &ResolvedPlan) -> Result<Vec<Value>, Error> {
    let file = fs::read(case.dir.join("input.avro")).unwrap();
    let mut reader = Reader::from_slice(&file)?;
    assert_eq!(
        reader.schema(),
        &case.writer,
        "{}: embedded schema",
        case.id
    );
    let mut out = Vec::new();
    while let Some(v) = reader.next_with(|dec| read_value_resolved(dec, plan)) {
        out.push(v?);
    }
    Ok(out)
}

#[test]
fn interop_resolution_cases() {
    let mut checked = 0;
    for case in cases() {
        let plan = ResolvedPlan::compile(&case.writer, &case.reader);
        let Some(expected) = &case.expected else {
            // An error case may fail at compile time or when the offending datum is read.
            if let Ok(plan) = plan {
                let from_json: Vec<_> = case.input.iter().map(|j| resolve_json(&plan, j)).collect();
                assert!(
                    from_json.iter().any(Result::is_err),
                    "{}: no error: {from_json:?}",
                    case.id
                );
                let e = from_json.into_iter().find_map(Result::err).unwrap();
                assert_eq!(e.kind(), ErrorKind::Resolution, "{}: {e}", case.id);
                assert!(
                    read_container(&case, &plan).is_err(),
                    "{}: container read",
                    case.id
                );
            }
            checked += 1;
            continue;
        };
        let plan = plan.unwrap_or_else(|e| panic!("{}: {e}", case.id));
        let mut acceptable = vec![expected.clone()];
        if let Some(Json::Array(alts)) = case.meta.get("also_acceptable") {
            acceptable.extend(alts.iter().map(|a| a.as_array().unwrap().clone()));
        }
        let accepted: Vec<Vec<Value>> = acceptable
            .iter()
            .filter_map(|lines| {
                lines
                    .iter()
                    .map(|l| from_json_value(l, &case.reader).ok())
                    .collect()
            })
            .collect();
        let got: Vec<Value> = case
            .input
            .iter()
            .map(|j| resolve_json(&plan, j).unwrap_or_else(|e| panic!("{}: {j}: {e}", case.id)))
            .collect();
        assert!(
            accepted.contains(&got),
            "{}: got {got:?}\nexpected one of {accepted:?}",
            case.id
        );
        let from_file = read_container(&case, &plan).unwrap_or_else(|e| panic!("{}: {e}", case.id));
        assert_eq!(from_file, got, "{}: input.avro", case.id);
        // The checker agrees with the plan: a case that reads every datum is compatible unless
        // it relies on data avoiding a missing branch or symbol (none of the passing cases do).
        let compat = check_compatibility(&case.reader, &case.writer);
        let partial = [
            "union-subset-ok",
            "union-writer-only",
            "union-writer-only-promote",
        ];
        assert_eq!(
            compat.is_compatible(),
            !partial.contains(&case.id.as_str()),
            "{}: {compat}",
            case.id
        );
        checked += 1;
    }
    assert_eq!(checked, 50);
}

#[test]
fn interop_error_cases_fail_at_compile_time_when_the_schemas_cannot_match() {
    // Of the error cases, only those depending on the data compile.
    let per_datum = [
        "enum-unknown-no-default",
        "union-subset-missing-branch",
        "union-writer-only-null",
    ];
    for case in cases().into_iter().filter(|c| c.expected.is_none()) {
        let compiled = ResolvedPlan::compile(&case.writer, &case.reader);
        assert_eq!(
            compiled.is_ok(),
            per_datum.contains(&case.id.as_str()),
            "{}: {compiled:?}",
            case.id
        );
    }
}

// ------------------------------------------------------------------- plans: compiled once, shared

#[test]
fn one_plan_reads_many_datums() {
    let w = schema(USER_V1);
    let r = schema(
        r#"{"type":"record","name":"User","fields":[{"name":"name","type":"string"},
            {"name":"id","type":"double"},{"name":"n","type":"int","default":3}]}"#,
    );
    let plan = ResolvedPlan::compile(&w, &r).unwrap();
    let mut bytes = Vec::new();
    for i in 0..1000i64 {
        let v = rec(vec![
            Value::Long(i),
            Value::String(format!("u{i}")),
            Value::Array(vec![Value::String("t".into()); (i % 3) as usize]),
        ]);
        bytes.extend(encode(&v, &w));
    }
    // One plan, one decoder, 1000 datums: the read API takes the plan, never the schemas.
    let mut dec = Decoder::from_slice(&bytes);
    for i in 0..1000i64 {
        let v = read_value_resolved(&mut dec, &plan).unwrap();
        assert_eq!(
            v,
            rec(vec![
                Value::String(format!("u{i}")),
                Value::Double(i as f64),
                Value::Int(3)
            ])
        );
    }
    assert!(dec.rest().is_empty());
}

#[test]
fn plans_are_shared_across_threads() {
    let plan = plan(
        r#"{"type":"array","items":"int"}"#,
        r#"{"type":"array","items":"long"}"#,
    );
    let bytes = encode(
        &Value::Array(vec![Value::Int(1), Value::Int(2)]),
        plan.writer(),
    );
    std::thread::scope(|s| {
        for _ in 0..4 {
            let plan = plan.clone();
            let bytes = &bytes;
            s.spawn(move || {
                for _ in 0..100 {
                    let v = from_datum_slice_resolved(bytes, &plan).unwrap();
                    assert_eq!(v, Value::Array(vec![Value::Long(1), Value::Long(2)]));
                }
            });
        }
    });
}

#[test]
fn identical_schemas_read_as_read_value_does() {
    let s = r#"{"type":"record","name":"R","fields":[{"name":"a","type":["null","string"]},
        {"name":"b","type":{"type":"map","values":{"type":"long","logicalType":"timestamp-micros"}}}]}"#;
    let p = plan(s, s);
    assert!(p.is_identity());
    let v = rec(vec![
        u(1, Value::String("x".into())),
        Value::Map(vec![("k".into(), Value::TimestampMicros(4))]),
    ]);
    let bytes = encode(&v, p.writer());
    assert_eq!(read_everywhere(&bytes, &p).unwrap(), v);
    assert_eq!(
        read_value(&mut Decoder::from_slice(&bytes), p.reader()).unwrap(),
        v
    );
    assert!(!plan(
        s,
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":["null","string"]}]}"#
    )
    .is_identity());
}

// ------------------------------------------------------------------------- errors and limits

#[test]
fn every_prefix_of_a_datum_is_an_eof_error() {
    let p = plan(
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"s","type":"string"},
            {"name":"skip","type":{"type":"array","items":"double"}},{"name":"u","type":["null","int"]}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"u","type":["null","long"]},{"name":"s","type":"bytes"},
            {"name":"a","type":"float"}]}"#,
    );
    let v = rec(vec![
        Value::Int(300),
        Value::String("hello".into()),
        Value::Array(vec![Value::Double(1.0), Value::Double(2.0)]),
        u(1, Value::Int(-70)),
    ]);
    let bytes = encode(&v, p.writer());
    assert_eq!(
        read_everywhere(&bytes, &p).unwrap(),
        rec(vec![
            u(1, Value::Long(-70)),
            Value::Bytes(b"hello".to_vec()),
            Value::Float(300.0)
        ])
    );
    for n in 0..bytes.len() {
        let err = read_everywhere(&bytes[..n], &p).unwrap_err();
        assert!(err.is_eof(), "prefix {n}: {err}");
        assert!(err.offset().is_some(), "prefix {n}: {err}");
    }
}

#[test]
fn runtime_errors_carry_the_reader_path() {
    let p = plan(
        r#"{"type":"record","name":"Order","fields":[{"name":"items","type":{"type":"array","items":
            {"type":"record","name":"Item","fields":[{"name":"name","type":"bytes"}]}}}]}"#,
        r#"{"type":"record","name":"Order","fields":[{"name":"items","type":{"type":"array","items":
            {"type":"record","name":"Item","fields":[{"name":"name","type":"string"}]}}}]}"#,
    );
    // Two items, the second's bytes are not UTF-8.
    let bytes = [0x04, 0x02, b'a', 0x02, 0xff, 0x00];
    let err = read_everywhere(&bytes, &p).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Data);
    assert_eq!(err.path(), "Order.items[1].name");
    assert_eq!(err.offset(), Some(3));
}

#[test]
fn hostile_counts_and_depth_are_bounded() {
    // An array claiming 2^60 items of a promoted type.
    let p = plan(
        r#"{"type":"array","items":"int"}"#,
        r#"{"type":"array","items":"long"}"#,
    );
    let mut bytes = Vec::new();
    Encoder::new(&mut bytes).write_long(1 << 60).unwrap();
    let err = read_everywhere(&bytes, &p).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Eof | ErrorKind::Limit),
        "{err}"
    );
    // Null items take no bytes: bounded by the allocation limit instead.
    let p = plan(
        r#"{"type":"array","items":"null"}"#,
        r#"{"type":"array","items":"null"}"#,
    );
    let p2 = plan(
        r#"{"type":"array","items":"null"}"#,
        r#"{"type":"array","items":["null","int"]}"#,
    );
    for p in [p, p2] {
        let err = from_datum_slice_resolved(&bytes, &p).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
    }
    // Nesting beyond the decoder's depth limit.
    let w = r#"{"type":"record","name":"N","fields":[{"name":"n","type":["null","N"]}]}"#;
    let r = r#"{"type":"record","name":"N","fields":[{"name":"n","type":["null","N"]},{"name":"x","type":"int","default":1}]}"#;
    let p = plan(w, r);
    let deep = vec![0x02u8; 64];
    let mut dec = Decoder::from_slice(&deep).with_limits(Limits::default().with_max_depth(16));
    let err = read_value_resolved(&mut dec, &p).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
}

#[test]
fn random_bytes_never_panic() {
    // A small xorshift generator: deterministic, no dependency.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let pairs = [
        (
            USER_V1,
            r#"{"type":"record","name":"User","fields":[{"name":"tags","type":{"type":"array","items":"bytes"}},{"name":"x","type":"int","default":1}]}"#,
        ),
        (
            r#"["null","int","string",{"type":"map","values":"float"}]"#,
            r#"["string","long",{"type":"map","values":"double"}]"#,
        ),
        (
            r#"{"type":"enum","name":"E","symbols":["A","B","C"]}"#,
            r#"{"type":"enum","name":"E","symbols":["C","A"]}"#,
        ),
    ];
    for (w, r) in pairs {
        let p = plan(w, r);
        for _ in 0..2000 {
            let len = (next() % 24) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let _ = read_everywhere(&bytes, &p);
        }
    }
}

/// Every pair of a varied set of schemas: compiling and checking never panic, and a pair the
/// checker calls compatible always compiles.
#[test]
fn compile_and_compat_agree_on_every_pair() {
    let schemas = [
        r#""null""#,
        r#""boolean""#,
        r#""int""#,
        r#""long""#,
        r#""float""#,
        r#""double""#,
        r#""bytes""#,
        r#""string""#,
        r#"{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}"#,
        r#"{"type":"fixed","name":"F","size":4}"#,
        r#"{"type":"fixed","name":"F","size":8}"#,
        r#"{"type":"fixed","name":"G","aliases":["F"],"size":4}"#,
        r#"{"type":"enum","name":"E","symbols":["A","B"]}"#,
        r#"{"type":"enum","name":"E","symbols":["B"],"default":"B"}"#,
        r#"{"type":"enum","name":"E","symbols":["A"]}"#,
        r#"{"type":"array","items":"int"}"#,
        r#"{"type":"array","items":"long"}"#,
        r#"{"type":"map","values":"string"}"#,
        r#"{"type":"map","values":"bytes"}"#,
        r#"["null","int"]"#,
        r#"["null","long"]"#,
        r#"["int","string"]"#,
        r#"["string","null"]"#,
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string","default":""}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"b","type":"string"}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":["null","R"]}]}"#,
        r#"{"type":"record","name":"S","aliases":["R"],"fields":[{"name":"c","type":"int","aliases":["a"]}]}"#,
        r#"{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"n","type":["null","L"]}]}"#,
        r#"{"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]},{"name":"w","type":"int","default":0}]}"#,
    ];
    let parsed: Vec<Schema> = schemas.iter().map(|s| schema(s)).collect();
    let mut compatible = 0;
    for w in &parsed {
        for r in &parsed {
            let compiled = ResolvedPlan::compile(w, r);
            let compat = check_compatibility(r, w);
            if compat.is_compatible() {
                compatible += 1;
                assert!(compiled.is_ok(), "writer {w}\nreader {r}\n{compiled:?}");
            }
            if let Err(e) = &compiled {
                assert_eq!(e.kind(), ErrorKind::Resolution);
                assert!(!compat.is_compatible(), "writer {w}\nreader {r}: {e}");
            }
            if let Ok(p) = compiled {
                // A plan is also a ResolvingDecoder, or says why not, without panicking.
                let _ = ResolvingDecoder::new(&p, Decoder::from_slice(&[]));
            }
        }
    }
    assert!(compatible > parsed.len(), "{compatible}");
}

// -------------------------------------------------------------------------- ResolvingDecoder

const REC: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"}]}"#;

fn rec_bytes(n: i32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = Encoder::new(&mut out);
    for i in 0..n {
        for k in 0..3 {
            enc.write_double(f64::from(i) + f64::from(k) / 10.0)
                .unwrap();
        }
        for k in 0..3 {
            enc.write_int(i * 10 + k).unwrap();
        }
    }
    out
}

#[test]
fn resolving_decoder_same_schema() {
    let p = plan(REC, REC);
    let bytes = rec_bytes(100);
    let mut d = ResolvingDecoder::new(&p, Decoder::from_slice(&bytes)).unwrap();
    for i in 0..100 {
        let order = d.read_field_order().unwrap();
        assert_eq!(order, [0, 1, 2, 3, 4, 5]);
        for k in 0..3 {
            assert_eq!(d.read_double().unwrap(), f64::from(i) + f64::from(k) / 10.0);
        }
        for k in 0..3 {
            assert_eq!(d.read_int().unwrap(), i * 10 + k);
        }
    }
    d.finish().unwrap();
    assert!(d.into_inner().rest().is_empty());
}

#[test]
fn resolving_decoder_defaults_are_served_without_input() {
    let p = plan(
        REC,
        r#"{"type":"record","name":"R","fields":[
            {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
            {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"},
            {"name":"f7","type":"string","default":"undefined"},
            {"name":"f8","type":"string","default":"undefined"}]}"#,
    );
    let bytes = rec_bytes(50);
    let mut d = ResolvingDecoder::new(&p, Decoder::from_slice(&bytes)).unwrap();
    let mut s = String::new();
    for i in 0..50 {
        let order = d.read_field_order().unwrap();
        assert_eq!(order, [0, 1, 2, 3, 4, 5, 6, 7]);
        for &pos in order {
            match pos {
                0..=2 => {
                    d.read_double().unwrap();
                }
                3..=5 => assert_eq!(d.read_int().unwrap(), i * 10 + pos as i32 - 3),
                _ => {
                    d.read_string_into(&mut s).unwrap();
                    assert_eq!(s, "undefined");
                }
            }
        }
    }
    d.finish().unwrap();
    assert!(d.into_inner().rest().is_empty());
}

#[test]
fn resolving_decoder_out_of_order() {
    let p = plan(
        REC,
        r#"{"type":"record","name":"R","fields":[
            {"name":"f1","type":"double"},{"name":"f3","type":"double"},{"name":"f5","type":"int"},
            {"name":"f2","type":"double"},{"name":"f4","type":"int"},{"name":"f6","type":"int"}]}"#,
    );
    let bytes = rec_bytes(20);
    let mut d = ResolvingDecoder::new(&p, Decoder::from_slice(&bytes)).unwrap();
    for i in 0..20 {
        let order = d.read_field_order().unwrap();
        // Writer order f1 f2 f3 f4 f5 f6 as reader positions.
        assert_eq!(order, [0, 3, 1, 4, 2, 5]);
        let mut ints = [0; 3];
        for &pos in order {
            match pos {
                0 | 1 | 3 => {
                    d.read_double().unwrap();
                }
                2 => ints[1] = d.read_int().unwrap(),
                4 => ints[0] = d.read_int().unwrap(),
                _ => ints[2] = d.read_int().unwrap(),
            }
        }
        assert_eq!(ints, [i * 10, i * 10 + 1, i * 10 + 2]);
    }
    d.finish().unwrap();
}

#[test]
fn resolving_decoder_promotions() {
    let p = plan(
        REC,
        r#"{"type":"record","name":"R","fields":[
            {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
            {"name":"f4","type":"long"},{"name":"f5","type":"float"},{"name":"f6","type":"double"}]}"#,
    );
    let bytes = rec_bytes(10);
    let mut d = ResolvingDecoder::new(&p, Decoder::from_slice(&bytes)).unwrap();
    for i in 0..10 {
        d.read_field_order().unwrap();
        for _ in 0..3 {
            d.read_double().unwrap();
        }
        assert_eq!(d.read_long().unwrap(), i64::from(i * 10));
        assert_eq!(d.read_float().unwrap(), (i * 10 + 1) as f32);
        assert_eq!(d.read_double().unwrap(), f64::from(i * 10 + 2));
    }
    d.finish().unwrap();
}

#[test]
fn resolving_decoder_skips_and_nests() {
    let writer = r#"{"type":"record","name":"W","fields":[
        {"name":"skip1","type":{"type":"map","values":"string"}},
        {"name":"inner","type":{"type":"record","name":"I","fields":[
            {"name":"x","type":"int"},{"name":"gone","type":["null","string"]}]}},
        {"name":"c","type":{"type":"enum","name":"C","symbols":["A","B","Z"]}},
        {"name":"s","type":"bytes"},
        {"name":"fx","type":{"type":"fixed","name":"F","size":2}},
        {"name":"skip2","type":{"type":"array","items":"long"}}]}"#;
    let reader = r#"{"type":"record","name":"W","fields":[
        {"name":"s","type":"string"},
        {"name":"c","type":{"type":"enum","name":"C","symbols":["B","A","OTHER"],"default":"OTHER"}},
        {"name":"inner","type":{"type":"record","name":"I","fields":[
            {"name":"x","type":"long"},{"name":"y","type":"boolean","default":true}]}},
        {"name":"fx","type":{"type":"fixed","name":"F","size":2}},
        {"name":"extra","type":{"type":"record","name":"X","fields":[{"name":"q","type":"int"}]},
            "default":{"q":42}},
        {"name":"n","type":"null","default":null}]}"#;
    let w = schema(writer);
    let p = ResolvedPlan::compile(&w, &schema(reader)).unwrap();
    let datum = |i: i64| {
        rec(vec![
            Value::Map(vec![("k".into(), Value::String("v".repeat(i as usize)))]),
            rec(vec![Value::Int(i as i32), u(1, Value::String("g".into()))]),
            Value::Enum((i % 3) as u32),
            Value::Bytes(format!("s{i}").into_bytes()),
            Value::Fixed(vec![1, 2]),
            Value::Array((0..i).map(Value::Long).collect()),
        ])
    };
    let mut bytes = Vec::new();
    for i in 0..5 {
        bytes.extend(encode(&datum(i), &w));
    }
    for cap in [None, Some(1)] {
        let check_all = |mut d: ResolvingDecoderAny| {
            for i in 0..5i64 {
                let order = d.order().unwrap();
                // Writer order: inner(2), c(1), s(0), fx(3); then defaults extra(4), n(5).
                assert_eq!(order, [2, 1, 0, 3, 4, 5]);
                for pos in order {
                    match pos {
                        2 => {
                            assert_eq!(d.nested().unwrap(), [0, 1]);
                            assert_eq!(d.long().unwrap(), i);
                            assert!(d.boolean().unwrap());
                        }
                        1 => assert_eq!(d.en().unwrap(), [1, 0, 2][(i % 3) as usize]),
                        0 => assert_eq!(d.string().unwrap(), format!("s{i}")),
                        3 => assert_eq!(d.fixed().unwrap(), [1, 2]),
                        4 => {
                            assert_eq!(d.nested().unwrap(), [0]);
                            assert_eq!(d.int().unwrap(), 42);
                        }
                        _ => d.null().unwrap(),
                    }
                }
            }
            d.finish().unwrap();
        };
        match cap {
            None => check_all(ResolvingDecoderAny::Slice(
                ResolvingDecoder::new(&p, Decoder::from_slice(&bytes)).unwrap(),
            )),
            Some(c) => check_all(ResolvingDecoderAny::Reader(
                ResolvingDecoder::new(&p, Decoder::from_reader_with_capacity(c, &bytes[..]))
                    .unwrap(),
            )),
        }
    }
}

/// The two source types behind one set of calls, for the test above.
enum ResolvingDecoderAny<'p, 'de> {
    Slice(ResolvingDecoder<'p, 'de>),
    Reader(ResolvingDecoder<'p, 'static, avrokit::io::ReaderSource<&'de [u8]>>),
}

macro_rules! both {
    ($self:ident, $d:ident => $e:expr) => {
        match $self {
            ResolvingDecoderAny::Slice($d) => $e,
            ResolvingDecoderAny::Reader($d) => $e,
        }
    };
}

impl ResolvingDecoderAny<'_, '_> {
    fn order(&mut self) -> avrokit::Result<Vec<usize>> {
        both!(self, d => d.read_field_order().map(<[usize]>::to_vec))
    }
    fn nested(&mut self) -> avrokit::Result<Vec<usize>> {
        self.order()
    }
    fn long(&mut self) -> avrokit::Result<i64> {
        both!(self, d => d.read_long())
    }
    fn int(&mut self) -> avrokit::Result<i32> {
        both!(self, d => d.read_int())
    }
    fn boolean(&mut self) -> avrokit::Result<bool> {
        both!(self, d => d.read_boolean())
    }
    fn en(&mut self) -> avrokit::Result<u32> {
        both!(self, d => d.read_enum())
    }
    fn string(&mut self) -> avrokit::Result<String> {
        both!(self, d => d.read_str().map(str::to_owned))
    }
    fn fixed(&mut self) -> avrokit::Result<Vec<u8>> {
        both!(self, d => d.read_fixed().map(<[u8]>::to_vec))
    }
    fn null(&mut self) -> avrokit::Result<()> {
        both!(self, d => d.read_null())
    }
    fn finish(&mut self) -> avrokit::Result<()> {
        both!(self, d => d.finish())
    }
}

#[test]
fn resolving_decoder_misuse_is_an_error() {
    let p = plan(REC, REC);
    let bytes = rec_bytes(1);
    let mut d = ResolvingDecoder::new(&p, Decoder::from_slice(&bytes)).unwrap();
    // Reading before read_field_order.
    assert_eq!(d.read_double().unwrap_err().kind(), ErrorKind::Data);
    d.read_field_order().unwrap();
    let err = d.read_int().unwrap_err();
    assert!(err.message().contains("read_double"), "{err}");
    assert!(d.read_field_order().is_err(), "f1 is not a record");
    d.read_double().unwrap();
    assert!(d.finish().is_err(), "the record is not finished");
}

#[test]
fn resolving_decoder_scope() {
    for (w, r) in [
        (r#""int""#, r#""long""#),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"]}]}"#,
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"]}]}"#,
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"int"}}]}"#,
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"int"}}]}"#,
        ),
        (
            r#"{"type":"record","name":"R","fields":[]}"#,
            r#"{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":"int"},"default":{}}]}"#,
        ),
    ] {
        let p = plan(w, r);
        let err = ResolvingDecoder::new(&p, Decoder::from_slice(&[]))
            .err()
            .expect("refused");
        assert_eq!(err.kind(), ErrorKind::Resolution);
        assert!(
            err.message().contains("ResolvingDecoder reads records"),
            "{err}"
        );
    }
    // Writer-only fields of any type are fine.
    let p = plan(
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":["null",{"type":"array","items":"int"}]},{"name":"b","type":"int"}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"b","type":"int"}]}"#,
    );
    let bytes = [0x02, 0x04, 0x02, 0x04, 0x00, 0x0e];
    let mut d = ResolvingDecoder::new(&p, Decoder::from_slice(&bytes)).unwrap();
    d.read_field_order().unwrap();
    assert_eq!(d.read_int().unwrap(), 7);
    d.finish().unwrap();
}

#[test]
fn resolving_decoder_trailing_skips_after_a_borrowed_read() {
    // The last reader field is a string and writer-only fields follow it: they are skipped
    // before the next datum (or by finish), after the string was handed out.
    let p = plan(
        r#"{"type":"record","name":"R","fields":[{"name":"s","type":"string"},{"name":"gone","type":"long"}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}"#,
    );
    let bytes = [0x02, b'a', 0x7e, 0x02, b'b', 0x02];
    let mut d = ResolvingDecoder::new(&p, Decoder::from_slice(&bytes)).unwrap();
    for want in ["a", "b"] {
        d.read_field_order().unwrap();
        assert_eq!(d.read_str().unwrap(), want);
    }
    d.finish().unwrap();
    assert!(d.into_inner().rest().is_empty());
}

#[test]
fn resolving_decoder_unknown_enum_symbol() {
    let p = plan(
        r#"{"type":"record","name":"R","fields":[{"name":"c","type":{"type":"enum","name":"C","symbols":["A","B"]}}]}"#,
        r#"{"type":"record","name":"R","fields":[{"name":"c","type":{"type":"enum","name":"C","symbols":["A"]}}]}"#,
    );
    let mut d = ResolvingDecoder::new(&p, Decoder::from_slice(&[0x02])).unwrap();
    d.read_field_order().unwrap();
    let err = d.read_enum().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Resolution);
    assert_eq!(err.path(), "c");
}

// ------------------------------------------------------------------ generated schema pairs

/// A deterministic xorshift generator (no dependency, same cases on every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const PRIMS: [&str; 8] = [
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
];

/// A random schema; named types come from a small pool so that pairs share names.
///
/// `flat` schemas are what `ResolvingDecoder` reads: a record (at the root) of primitives, enums,
/// fixed and records, without arrays, maps or unions.
fn gen_schema(rng: &mut Rng, depth: u32, used: &mut Vec<&'static str>, flat: bool) -> Json {
    let mut name = |rng: &mut Rng| -> Option<&'static str> {
        let pool = ["A", "B", "C", "D"];
        let n = pool[rng.below(4) as usize];
        (!used.contains(&n)).then(|| {
            used.push(n);
            n
        })
    };
    let pick = match (flat, depth) {
        (true, 0) => 13,
        (true, 1..=2) => [0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13][rng.below(11) as usize],
        (true, _) => rng.below(8),
        (false, 0..=2) => rng.below(14),
        (false, _) => rng.below(8),
    };
    match pick {
        0..=7 => json!(PRIMS[pick as usize]),
        8 => json!({"type": "array", "items": gen_schema(rng, depth + 1, used, flat)}),
        9 => json!({"type": "map", "values": gen_schema(rng, depth + 1, used, flat)}),
        10 => {
            let mut branches: Vec<Json> = Vec::new();
            let mut taken = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let p = PRIMS[rng.below(8) as usize];
                if !taken.contains(&p) {
                    taken.push(p);
                    branches.push(json!(p));
                }
            }
            if rng.below(2) == 0 {
                if let Some(n) = name(rng) {
                    branches.push(json!({"type": "enum", "name": n, "symbols": ["X", "Y"]}));
                }
            }
            Json::Array(branches)
        }
        11 => match name(rng) {
            Some(n) => {
                let symbols: Vec<&str> = ["X", "Y", "Z"]
                    .into_iter()
                    .filter(|_| rng.below(3) > 0)
                    .collect();
                let symbols = if symbols.is_empty() {
                    vec!["X"]
                } else {
                    symbols
                };
                let mut e = json!({"type": "enum", "name": n, "symbols": symbols});
                if rng.below(2) == 0 {
                    e["default"] = json!(symbols[0]);
                }
                e
            }
            None => json!("int"),
        },
        12 => match name(rng) {
            Some(n) => json!({"type": "fixed", "name": n, "size": 1 + rng.below(3)}),
            None => json!("long"),
        },
        _ => match name(rng) {
            Some(n) => {
                let mut fields = Vec::new();
                for f in ["a", "b", "c"] {
                    if rng.below(3) == 0 {
                        continue;
                    }
                    let ty = gen_schema(rng, depth + 1, used, flat);
                    let mut field = json!({"name": f, "type": ty});
                    let default = match &field["type"] {
                        Json::String(s) if s == "int" || s == "long" => Some(json!(1)),
                        Json::String(s) if s == "string" || s == "bytes" => Some(json!("d")),
                        Json::String(s) if s == "null" => Some(json!(null)),
                        Json::Array(b) if b.first() == Some(&json!("null")) => Some(json!(null)),
                        Json::Object(o) if o.get("type") == Some(&json!("array")) => {
                            Some(json!([]))
                        }
                        _ => None,
                    };
                    if let (Some(d), true) = (default, rng.below(2) == 0) {
                        field["default"] = d;
                    }
                    if rng.below(6) == 0 {
                        let alias = ["a", "b", "c"][rng.below(3) as usize];
                        field["aliases"] = json!([alias]);
                    }
                    fields.push(field);
                }
                json!({"type": "record", "name": n, "fields": fields})
            }
            None => json!("string"),
        },
    }
}

/// Random pairs of random schemas: compiling and checking never panic; the checker and the
/// compiler agree; data valid for the writer, read through the plan, either reads or fails
/// with a resolution error (never as malformed data), and always reads when the checker
/// says the pair is compatible.
#[test]
fn generated_pairs_never_panic_and_agree() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let schemas: Vec<Schema> = (0..160)
        .filter_map(|i| {
            Schema::parse_json(&gen_schema(&mut rng, 0, &mut Vec::new(), i % 4 == 0)).ok()
        })
        .collect();
    assert!(schemas.len() > 130, "{}", schemas.len());
    let (mut compiled, mut compatible, mut datums, mut driven_count) = (0, 0, 0, 0);
    for w in &schemas {
        for r in &schemas {
            let compat = check_compatibility(r, w);
            let plan = match ResolvedPlan::compile(w, r) {
                Ok(p) => p,
                Err(e) => {
                    assert_eq!(e.kind(), ErrorKind::Resolution);
                    assert!(!compat.is_compatible(), "writer {w}\nreader {r}\n{e}");
                    continue;
                }
            };
            compiled += 1;
            compatible += usize::from(compat.is_compatible());
            let _ = ResolvingDecoder::new(&plan, Decoder::from_slice(&[]));
            for _ in 0..40 {
                // Random bytes, mostly small even ones (small varints, valid indexes and
                // lengths), or anything.
                let len = rng.below(32) as usize;
                let any = rng.below(4) == 0;
                let noise: Vec<u8> = (0..len)
                    .map(|_| match any {
                        true => rng.next() as u8,
                        false => [0, 0, 2, 2, 4, 1, 6, 0x80, 0x41][rng.below(9) as usize],
                    })
                    .collect();
                // Any input through the plan: never a panic.
                let _ = from_datum_slice_resolved(&noise, &plan);
                // The datum of the writer's schema at the front of the noise, if there is one.
                let mut dec = Decoder::from_slice(&noise);
                if read_value(&mut dec, w).is_ok() {
                    let bytes = &noise[..dec.offset() as usize];
                    // (A block byte size may point past the datum: then it is not one alone.)
                    if avrokit::from_datum_slice(bytes, w).is_err() {
                        continue;
                    }
                    let resolved = from_datum_slice_resolved(bytes, &plan);
                    datums += 1;
                    match &resolved {
                        Ok(_) => {}
                        // Bytes promoted to a string must be UTF-8: the one failure compatible
                        // schemas allow.
                        Err(e) if e.kind() == ErrorKind::Data && e.message().contains("UTF-8") => {}
                        Err(e) => {
                            assert_eq!(
                                e.kind(),
                                ErrorKind::Resolution,
                                "writer {w}\nreader {r}\n{bytes:?}: {e}"
                            );
                            assert!(
                                !compat.is_compatible(),
                                "writer {w}\nreader {r}\n{bytes:?}: {e}"
                            );
                        }
                    }
                    if let (Ok(v), Ok(mut d)) = (
                        &resolved,
                        ResolvingDecoder::new(&plan, Decoder::from_slice(bytes)),
                    ) {
                        driven_count += 1;
                        let driven = drive(&mut d, r, r.root_id()).unwrap();
                        d.finish().unwrap();
                        assert!(
                            d.into_inner().rest().is_empty(),
                            "writer {w}\nreader {r}\n{bytes:?}"
                        );
                        assert_eq!(
                            format!("{driven:?}"),
                            format!("{v:?}"),
                            "writer {w}\nreader {r}"
                        );
                    }
                    if plan.is_identity() || w == r {
                        let plain = avrokit::from_datum_slice(bytes, r).unwrap();
                        assert_eq!(format!("{:?}", resolved.unwrap()), format!("{plain:?}"));
                    }
                }
            }
        }
    }
    assert!(
        compiled > 1000 && compatible > 500 && datums > 2000 && driven_count > 1000,
        "{compiled} {compatible} {datums} {driven_count}"
    );
}

/// A plan between structurally identical schemas (only the namespace differs, so the plan is
/// not the identity shortcut) reads exactly as `read_value` does: the same values, and errors
/// with the same kind, offset and path.
#[test]
fn ops_match_read_value_on_any_input() {
    let shapes = [
        r#"{"type":"record","name":"R","namespace":"NS","fields":[
            {"name":"a","type":"int"},{"name":"s","type":["null","string",{"type":"array","items":"long"}]},
            {"name":"m","type":{"type":"map","values":{"type":"enum","name":"E","symbols":["X","Y"]}}},
            {"name":"f","type":{"type":"fixed","name":"F","size":2}},{"name":"d","type":"double"},
            {"name":"r","type":["null","R"]}]}"#,
        r#"{"type":"record","name":"T","namespace":"NS","fields":[
            {"name":"items","type":{"type":"array","items":{"type":"record","name":"I","fields":[
                {"name":"b","type":"bytes"},{"name":"ok","type":"boolean"},{"name":"n","type":"null"}]}}},
            {"name":"u","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":1}}]}"#,
    ];
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for shape in shapes {
        let w = schema(&shape.replace("NS", "w"));
        let r = schema(&shape.replace("NS", "r"));
        let plan = ResolvedPlan::compile(&w, &r).unwrap();
        assert!(!plan.is_identity());
        let mut ok = 0;
        for _ in 0..3000 {
            // Mostly small even bytes (small non-negative varints, valid indexes and lengths).
            let len = 8 + rng.below(40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| [0, 0, 0, 2, 2, 4, 1, 6, 0x80][rng.below(9) as usize])
                .collect();
            // Read a datum from the front of the bytes (what follows is not looked at).
            let (mut d1, mut d2) = (Decoder::from_slice(&bytes), Decoder::from_slice(&bytes));
            let plain = read_value(&mut d1, &r);
            let resolved = read_value_resolved(&mut d2, &plan);
            match (&plain, &resolved) {
                (Ok(a), Ok(b)) => {
                    ok += 1;
                    assert_eq!(format!("{a:?}"), format!("{b:?}"));
                    assert_eq!(d1.offset(), d2.offset());
                }
                (Err(a), Err(b)) => {
                    assert_eq!(
                        (a.kind(), a.offset(), a.path()),
                        (b.kind(), b.offset(), b.path()),
                        "{bytes:?}"
                    );
                }
                _ => panic!("{bytes:?}: {plain:?} vs {resolved:?}"),
            }
        }
        assert!(ok > 100, "{ok} valid datums");
    }
}

/// Reads one record of the reader's schema (no logical types) field by field through a
/// `ResolvingDecoder`, building the value `read_value_resolved` builds.
fn drive(
    d: &mut ResolvingDecoder<'_, '_>,
    r: &Schema,
    id: avrokit::schema::NodeId,
) -> avrokit::Result<Value> {
    use avrokit::schema::NodeKind;
    let NodeKind::Record(rec) = r.node(id).kind() else {
        panic!("not a record")
    };
    let mut fields = vec![Value::Null; rec.fields.len()];
    for &pos in d.read_field_order()? {
        let f = &rec.fields[pos];
        fields[pos] = match r.node(f.schema).kind() {
            NodeKind::Null => d.read_null().map(|()| Value::Null)?,
            NodeKind::Boolean => Value::Boolean(d.read_boolean()?),
            NodeKind::Int => Value::Int(d.read_int()?),
            NodeKind::Long => Value::Long(d.read_long()?),
            NodeKind::Float => Value::Float(d.read_float()?),
            NodeKind::Double => Value::Double(d.read_double()?),
            NodeKind::Bytes => Value::Bytes(d.read_bytes()?.to_vec()),
            NodeKind::String => Value::String(d.read_str()?.to_owned()),
            NodeKind::Fixed(_) => Value::Fixed(d.read_fixed()?.to_vec()),
            NodeKind::Enum(_) => Value::Enum(d.read_enum()?),
            NodeKind::Record(_) => drive_nested(d, r, f.schema)?,
            k => panic!("{k:?} is beyond the ResolvingDecoder's scope"),
        };
    }
    Ok(Value::Record(fields))
}

fn drive_nested(
    d: &mut ResolvingDecoder<'_, '_>,
    r: &Schema,
    id: avrokit::schema::NodeId,
) -> avrokit::Result<Value> {
    drive(d, r, id)
}
