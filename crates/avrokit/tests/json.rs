//! Avro's JSON encoding (`avrokit::json`): the interoperability corpus's expected outputs read
//! and written back, and one test per rule.
//!
//! Corpus data lives in `tests/data/interop/data/` (a copy of the interoperability corpus):
//! each `NAME.jsonl` holds the records of `NAME.avro` as Avro JSON, one per line, as Java's
//! `avro-tools tojson` prints them, and `NAME.meta.json` the schema.

use std::fs;
use std::path::{Path, PathBuf};

use avrokit::json::{
    append_json, default_to_value, from_json_str, from_json_value, to_json_string, to_json_value,
    write_json, JsonReader,
};
use avrokit::schema::NodeKind;
use avrokit::value::{Decimal, Duration};
use avrokit::{from_datum_slice, to_datum_vec, ErrorKind, Limits, Schema, Value};
use proptest::prelude::*;
use serde_json::{json, Value as J};

fn schema(text: &str) -> Schema {
    Schema::parse_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Compact JSON text of a value.
fn text(v: &Value, s: &Schema) -> String {
    to_json_string(v, s, false).unwrap_or_else(|e| panic!("{v:?}: {e}"))
}

/// The binary encoding, which compares floats by bits (NaN included) where `Value`'s
/// `PartialEq` cannot.
fn bin(v: &Value, s: &Schema) -> Vec<u8> {
    to_datum_vec(v, s).unwrap_or_else(|e| panic!("{v:?}: {e}"))
}

// ---------------------------------------------------------------------------------- corpus

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/interop/data")
}

/// Every `NAME.jsonl` that has a `NAME.meta.json`, sorted: (path of the .jsonl, schema).
fn corpus() -> Vec<(PathBuf, Schema)> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = fs::read_dir(corpus_dir())
        .unwrap_or_else(|e| panic!("{}: {e}", corpus_dir().display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".jsonl"))
            .collect();
        files.sort();
        for jsonl in files {
            let name = jsonl.to_string_lossy();
            let meta = PathBuf::from(format!("{}.meta.json", name.trim_end_matches(".jsonl")));
            let Ok(meta) = fs::read_to_string(&meta) else {
                continue;
            };
            let meta: J = serde_json::from_str(&meta).unwrap();
            let schema = Schema::parse_json(&meta["schema"])
                .unwrap_or_else(|e| panic!("{}: schema: {e}", jsonl.display()));
            out.push((jsonl, schema));
        }
    }
    out
}

/// The corpus's comparison rule: numbers as numbers (integers exactly; otherwise equal as f64
/// or, for floats, when both round to the same f32), everything else exactly, object members
/// in the same order.
fn same_json(expected: &J, got: &J) -> bool {
    match (expected, got) {
        (J::Number(a), J::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => {
                let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
                x == y || x as f32 == y as f32
            }
        },
        (J::Array(a), J::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_json(x, y))
        }
        (J::Object(a), J::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_json(va, vb))
        }
        _ => expected == got,
    }
}

/// True when the text is one line with no raw control character or line separator.
fn is_one_safe_line(s: &str) -> bool {
    !s.chars().any(|c| {
        (c as u32) < 0x20
            || (0x7f..=0x9f).contains(&(c as u32))
            || c == '\u{2028}'
            || c == '\u{2029}'
    })
}

/// Every expected line: read (from text and from a parsed tree, which must agree), written back
/// (matching the line), written as text (matching the tree writer and staying one line),
/// encoded to binary and decoded (same datum, same JSON).
#[test]
fn corpus_lines_round_trip() {
    let files = corpus();
    assert!(
        files.len() >= 100,
        "only {} corpus files found",
        files.len()
    );
    let (mut lines, mut exact) = (0usize, 0usize);
    for (path, schema) in &files {
        let name = path
            .strip_prefix(corpus_dir())
            .unwrap()
            .display()
            .to_string();
        let content = fs::read_to_string(path).unwrap();
        for (n, line) in content
            .split('\n')
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
        {
            let at = format!("{name}:{}", n + 1);
            let expected: J = serde_json::from_str(line).unwrap_or_else(|e| panic!("{at}: {e}"));
            let from_tree =
                from_json_value(&expected, schema).unwrap_or_else(|e| panic!("{at}: {e}"));
            let from_text = from_json_str(line, schema).unwrap_or_else(|e| panic!("{at}: {e}"));
            let bytes = bin(&from_tree, schema);
            assert_eq!(
                bin(&from_text, schema),
                bytes,
                "{at}: text and tree readers differ"
            );

            let tree = to_json_value(&from_tree, schema).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert!(
                same_json(&expected, &tree),
                "{at}\n expected {expected}\n      got {tree}"
            );

            let out = text(&from_tree, schema);
            assert!(is_one_safe_line(&out), "{at}: {out:?}");
            let reparsed: J =
                serde_json::from_str(&out).unwrap_or_else(|e| panic!("{at}: {e}: {out}"));
            assert_eq!(reparsed, tree, "{at}: text and tree writers differ");
            if out == line {
                exact += 1;
            }
            let again = from_json_str(&out, schema).unwrap_or_else(|e| panic!("{at}: {e}: {out}"));
            assert_eq!(
                bin(&again, schema),
                bytes,
                "{at}: written text reads back differently"
            );

            let decoded = from_datum_slice(&bytes, schema).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(
                text(&decoded, schema),
                out,
                "{at}: binary round trip changed the JSON"
            );
            lines += 1;
        }
    }
    assert!(lines > 5000, "only {lines} lines");
    // Numbers are spelled differently by each producer (`1e-07`, `1.0E-7`); everything else
    // matches byte for byte.
    assert!(
        exact * 10 > lines * 8,
        "{exact} of {lines} lines written exactly"
    );
}

/// Every datum of a corpus file also reads when the whole file is one text (the stream reader).
#[test]
fn corpus_files_stream() {
    for (path, schema) in corpus() {
        let content = fs::read_to_string(&path).unwrap();
        let count = content.split('\n').filter(|l| !l.is_empty()).count();
        let values: Vec<Value> = JsonReader::new(&content, &schema)
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(values.len(), count, "{}", path.display());
    }
}

// ------------------------------------------------------------------------- strings, escapes

#[test]
fn strings_escape_controls_and_separators_only() {
    let s = schema(r#""string""#);
    let cases = [
        ("plain", r#""plain""#),
        ("q\"b\\s/", r#""q\"b\\s/""#),
        ("\u{8}\u{c}\n\r\t", r#""\b\f\n\r\t""#),
        ("\u{0}\u{1}\u{1f}\u{7f}", r#""\u0000\u0001\u001f\u007f""#),
        (
            "\u{80}\u{85}\u{9f}\u{a0}",
            "\"\\u0080\\u0085\\u009f\u{a0}\"",
        ),
        (
            "a\u{2028}b\u{2029}c\u{2027}",
            "\"a\\u2028b\\u2029c\u{2027}\"",
        ),
        ("é漢🙂", "\"é漢🙂\""),
        ("", r#""""#),
    ];
    for (input, expected) in cases {
        let v = Value::String(input.into());
        let out = text(&v, &s);
        assert_eq!(out, expected, "{input:?}");
        assert_eq!(from_json_str(&out, &s).unwrap(), v);
        assert_eq!(to_json_value(&v, &s).unwrap(), J::String(input.into()));
    }
}

proptest! {
    #[test]
    fn any_string_is_one_safe_line_and_reads_back(input in any::<String>()) {
        let s = schema(r#"{"type": "map", "values": "string"}"#);
        let v = Value::Map(vec![(input.clone(), Value::String(input.clone()))]);
        let out = text(&v, &s);
        prop_assert!(is_one_safe_line(&out), "{:?}", out);
        prop_assert_eq!(from_json_str(&out, &s).unwrap(), v.clone());
        let parsed: J = serde_json::from_str(&out).unwrap();
        prop_assert_eq!(parsed, to_json_value(&v, &s).unwrap());
    }

    #[test]
    fn any_bytes_read_back(b in proptest::collection::vec(any::<u8>(), 0..64)) {
        let s = schema(r#""bytes""#);
        let v = Value::Bytes(b.clone());
        let out = text(&v, &s);
        prop_assert!(is_one_safe_line(&out), "{:?}", out);
        prop_assert_eq!(from_json_str(&out, &s).unwrap(), v.clone());
        let tree = to_json_value(&v, &s).unwrap();
        let expected: String = b.iter().map(|&x| char::from(x)).collect();
        prop_assert_eq!(&tree, &J::String(expected));
        prop_assert_eq!(from_json_value(&tree, &s).unwrap(), v);
    }

    #[test]
    fn any_float_is_shortest_and_exact(bits in any::<u32>()) {
        let f = f32::from_bits(bits);
        let s = schema(r#""float""#);
        let out = text(&Value::Float(f), &s);
        // NaN payloads do not survive "NaN"; every other value comes back bit for bit.
        let same = |v: Value| match v {
            Value::Float(g) => g.to_bits() == bits || (f.is_nan() && g.is_nan()),
            _ => false,
        };
        prop_assert!(same(from_json_str(&out, &s).unwrap()), "{}", out);
        // The tree's f64 reads back as the same f32 too.
        let tree = to_json_value(&Value::Float(f), &s).unwrap();
        prop_assert!(same(from_json_value(&tree, &s).unwrap()), "{}", tree);
        if f.is_finite() {
            prop_assert_eq!(out.parse::<f32>().unwrap().to_bits(), bits);
            // The same number, though the f64 formatter may spell it differently (`1e+13` is
            // `10000000000000.0` as an f64).
            prop_assert_eq!(tree.as_f64(), out.parse::<f64>().ok());
        }
    }

    #[test]
    fn any_double_is_exact(bits in any::<u64>()) {
        let d = f64::from_bits(bits);
        let s = schema(r#""double""#);
        let out = text(&Value::Double(d), &s);
        let same = |v: Value| match v {
            Value::Double(g) => g.to_bits() == bits || (d.is_nan() && g.is_nan()),
            _ => false,
        };
        prop_assert!(same(from_json_str(&out, &s).unwrap()), "{}", out);
        prop_assert!(same(from_json_value(&to_json_value(&Value::Double(d), &s).unwrap(), &s).unwrap()));
        if d.is_finite() {
            prop_assert_eq!(out.parse::<f64>().unwrap().to_bits(), bits);
        }
    }

    #[test]
    fn garbage_text_never_panics(input in "[\\[\\]{}\",:0-9a-z\\\\ .eE+-]{0,40}") {
        for schema_text in [
            r#"{"type": "record", "name": "R", "fields": [
                {"name": "a", "type": ["null", "int", {"type": "array", "items": "double"}]},
                {"name": "b", "type": {"type": "map", "values": "bytes"}, "default": {}}]}"#,
            r#"["null", "string", "long", "boolean"]"#,
        ] {
            let s = schema(schema_text);
            let _ = from_json_str(&input, &s);
            let _ = JsonReader::new(&input, &s).count();
        }
    }
}

#[test]
fn bytes_and_fixed_are_code_point_strings() {
    let s = schema(r#""bytes""#);
    let v = Value::Bytes(vec![
        0x00, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0x9f, 0xa0, 0xe9, 0xff,
    ]);
    assert_eq!(
        text(&v, &s),
        "\"\\u0000\\u001f\\\"\\\\\\u007f\\u0080\\u009f\u{a0}é\u{ff}\""
    );
    assert_eq!(from_json_str(&text(&v, &s), &s).unwrap(), v);
    assert_eq!(
        from_json_str(r#""\u00ff\u0000""#, &s).unwrap(),
        Value::Bytes(vec![0xff, 0])
    );

    let f = schema(r#"{"type": "fixed", "name": "F", "size": 2}"#);
    assert_eq!(
        from_json_str(r#""ÿA""#, &f).unwrap(),
        Value::Fixed(vec![0xff, 0x41])
    );
    assert_eq!(text(&Value::Fixed(vec![0xff, 0x41]), &f), "\"ÿA\"");
}

#[test]
fn code_points_above_255_are_rejected() {
    let s = schema(r#""bytes""#);
    let e = from_json_str(r#""ab\u0100""#, &s).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert!(
        e.message().contains("U+0100") && e.message().contains("position 2"),
        "{e}"
    );
    let e = from_json_value(&json!("🙂"), &s).unwrap_err();
    assert!(e.message().contains("not a byte"), "{e}");

    let f = schema(r#"{"type": "fixed", "name": "F", "size": 2}"#);
    let e = from_json_str(r#""abc""#, &f).unwrap_err();
    assert!(e.message().contains("2 code points"), "{e}");
    assert!(from_json_str(r#""a""#, &f).is_err());
}

// ---------------------------------------------------------------------------------- numbers

#[test]
fn floats_print_shortest_with_a_point() {
    let f = schema(r#""float""#);
    let d = schema(r#""double""#);
    for (v, expected) in [
        (0.1f32, "0.1"),
        (1.0, "1.0"),
        (-40.0, "-40.0"),
        (1e-45, "1e-45"),
        (123456.79, "123456.79"),
        (3.4028235e38, "3.4028235e+38"),
        (16777216.0, "16777216.0"),
    ] {
        assert_eq!(text(&Value::Float(v), &f), expected);
        assert_eq!(
            to_json_value(&Value::Float(v), &f).unwrap().to_string(),
            expected
        );
    }
    for (v, expected) in [
        (0.1f64, "0.1"),
        (1.0, "1.0"),
        (1e300, "1e+300"),
        (5e-324, "5e-324"),
        (0.30000000000000004, "0.30000000000000004"),
        (-1e-7, "-1e-7"),
    ] {
        assert_eq!(text(&Value::Double(v), &d), expected);
        assert_eq!(
            to_json_value(&Value::Double(v), &d).unwrap().to_string(),
            expected
        );
    }
}

#[test]
fn negative_zero_keeps_its_sign() {
    let f = schema(r#""float""#);
    let d = schema(r#""double""#);
    assert_eq!(text(&Value::Float(-0.0), &f), "-0.0");
    assert_eq!(text(&Value::Double(-0.0), &d), "-0.0");
    assert_eq!(
        to_json_value(&Value::Double(-0.0), &d).unwrap().to_string(),
        "-0.0"
    );
    let Value::Double(back) = from_json_str("-0.0", &d).unwrap() else {
        panic!()
    };
    assert!(back == 0.0 && back.is_sign_negative());
    let Value::Float(back) = from_json_value(&json!(-0.0), &f).unwrap() else {
        panic!()
    };
    assert!(back == 0.0 && back.is_sign_negative());
}

#[test]
fn nan_and_infinities_are_strings() {
    let d = schema(r#"["null", "double", "float"]"#);
    for (v, expected) in [
        (
            Value::Union(1, Box::new(Value::Double(f64::NAN))),
            r#"{"double":"NaN"}"#,
        ),
        (
            Value::Union(1, Box::new(Value::Double(f64::INFINITY))),
            r#"{"double":"Infinity"}"#,
        ),
        (
            Value::Union(2, Box::new(Value::Float(f32::NEG_INFINITY))),
            r#"{"float":"-Infinity"}"#,
        ),
    ] {
        assert_eq!(text(&v, &d), expected);
        assert_eq!(
            to_json_value(&v, &d).unwrap(),
            serde_json::from_str::<J>(expected).unwrap()
        );
        assert_eq!(bin(&from_json_str(expected, &d).unwrap(), &d), bin(&v, &d));
    }
    let Value::Union(1, x) = from_json_str(r#"{"double": "NaN"}"#, &d).unwrap() else {
        panic!()
    };
    assert!(matches!(*x, Value::Double(n) if n.is_nan()));
    // Other strings are not numbers.
    let e = from_json_str(r#"{"double": "nan"}"#, &d).unwrap_err();
    assert!(e.message().contains("\"nan\""), "{e}");
    assert!(from_json_value(&json!({"float": "inf"}), &d).is_err());
}

#[test]
fn numbers_read_in_any_spelling() {
    let d = schema(r#""double""#);
    for t in ["1e-05", "1.0E-5", "0.00001", "1E-5"] {
        assert_eq!(from_json_str(t, &d).unwrap(), Value::Double(1e-5), "{t}");
    }
    assert_eq!(from_json_str("3", &d).unwrap(), Value::Double(3.0));
    assert_eq!(from_json_value(&json!(3), &d).unwrap(), Value::Double(3.0));
    assert_eq!(
        from_json_value(&json!(u64::MAX), &d).unwrap(),
        Value::Double(u64::MAX as f64)
    );
    let f = schema(r#""float""#);
    assert_eq!(
        from_json_str("230.04529", &f).unwrap(),
        Value::Float(230.04529)
    );
    assert_eq!(
        from_json_str("16777217", &f).unwrap(),
        Value::Float(16777216.0)
    );
    // As Java: too large for a float reads as infinity.
    assert_eq!(
        from_json_str("1e39", &f).unwrap(),
        Value::Float(f32::INFINITY)
    );
}

#[test]
fn longs_are_exact_over_the_whole_range() {
    let l = schema(r#""long""#);
    for v in [
        i64::MIN,
        i64::MIN + 1,
        -1,
        0,
        1 << 53,
        (1 << 53) + 1,
        i64::MAX,
    ] {
        let out = text(&Value::Long(v), &l);
        assert_eq!(out, v.to_string());
        assert_eq!(from_json_str(&out, &l).unwrap(), Value::Long(v));
        assert_eq!(to_json_value(&Value::Long(v), &l).unwrap(), json!(v));
        assert_eq!(from_json_value(&json!(v), &l).unwrap(), Value::Long(v));
    }
    let e = from_json_str("9223372036854775808", &l).unwrap_err();
    assert!(e.message().contains("out of range"), "{e}");
    let e = from_json_value(&json!(9223372036854775808u64), &l).unwrap_err();
    assert!(e.message().contains("out of range"), "{e}");
    let e = from_json_str("-92233720368547758080", &l).unwrap_err();
    assert!(e.message().contains("out of range"), "{e}");
}

#[test]
fn ints_must_fit_and_be_integers() {
    let i = schema(r#""int""#);
    assert_eq!(
        from_json_str("-2147483648", &i).unwrap(),
        Value::Int(i32::MIN)
    );
    assert_eq!(
        from_json_value(&json!(2147483647), &i).unwrap(),
        Value::Int(i32::MAX)
    );
    for bad in ["2147483648", "-2147483649"] {
        let e = from_json_str(bad, &i).unwrap_err();
        assert!(e.message().contains("out of range for int"), "{e}");
        assert!(from_json_value(&serde_json::from_str(bad).unwrap(), &i).is_err());
    }
    for bad in ["1.0", "1e2", "1.5"] {
        let e = from_json_str(bad, &i).unwrap_err();
        assert!(e.message().contains("expected an integer"), "{bad}: {e}");
        assert!(from_json_value(&serde_json::from_str(bad).unwrap(), &i).is_err());
    }
    assert!(from_json_str("\"1\"", &i).is_err());
}

// ----------------------------------------------------------------------------------- unions

#[test]
fn union_branches_are_named_by_full_name_or_type_name() {
    let s = schema(
        r#"["null", "int", "long", "string", "bytes",
            {"type": "array", "items": "int"}, {"type": "map", "values": "int"},
            {"type": "record", "name": "Point", "namespace": "a.b", "fields": [{"name": "x", "type": "int"}]},
            {"type": "enum", "name": "Color", "symbols": ["RED"]},
            {"type": "fixed", "name": "c.Hash", "size": 1}]"#,
    );
    let cases = [
        (Value::Union(0, Box::new(Value::Null)), "null"),
        (Value::Union(1, Box::new(Value::Int(5))), r#"{"int":5}"#),
        (Value::Union(2, Box::new(Value::Long(5))), r#"{"long":5}"#),
        (
            Value::Union(3, Box::new(Value::String("x".into()))),
            r#"{"string":"x"}"#,
        ),
        (
            Value::Union(4, Box::new(Value::Bytes(vec![1]))),
            r#"{"bytes":"\u0001"}"#,
        ),
        (
            Value::Union(5, Box::new(Value::Array(vec![Value::Int(1)]))),
            r#"{"array":[1]}"#,
        ),
        (
            Value::Union(6, Box::new(Value::Map(vec![]))),
            r#"{"map":{}}"#,
        ),
        (
            Value::Union(7, Box::new(Value::Record(vec![Value::Int(1)]))),
            r#"{"a.b.Point":{"x":1}}"#,
        ),
        (
            Value::Union(8, Box::new(Value::Enum(0))),
            r#"{"Color":"RED"}"#,
        ),
        (
            Value::Union(9, Box::new(Value::Fixed(vec![0x41]))),
            r#"{"c.Hash":"A"}"#,
        ),
    ];
    for (v, expected) in cases {
        assert_eq!(text(&v, &s), expected);
        assert_eq!(from_json_str(expected, &s).unwrap(), v, "{expected}");
        assert_eq!(
            from_json_value(&serde_json::from_str(expected).unwrap(), &s).unwrap(),
            v
        );
    }
    // A named branch also answers to its simple name when that is unambiguous.
    assert_eq!(
        from_json_str(r#"{"Point": {"x": 2}}"#, &s).unwrap(),
        Value::Union(7, Box::new(Value::Record(vec![Value::Int(2)])))
    );
    assert_eq!(
        from_json_value(&json!({"Hash": "B"}), &s).unwrap(),
        Value::Union(9, Box::new(Value::Fixed(vec![0x42])))
    );
    let e = from_json_str(r#"{"float": 1.5}"#, &s).unwrap_err();
    assert!(
        e.message().contains("\"float\" is not a branch") && e.message().contains("a.b.Point"),
        "{e}"
    );
    assert_eq!(e.offset(), Some(1));
}

#[test]
fn union_branch_is_the_encoded_one_not_a_guess() {
    let s = schema(r#"["int", "long"]"#);
    assert_eq!(
        text(&Value::Union(1, Box::new(Value::Long(5))), &s),
        r#"{"long":5}"#
    );
    // A bare value picks the first branch of its own kind, as `write_value` does.
    assert_eq!(text(&Value::Long(5), &s), r#"{"long":5}"#);
    assert_eq!(text(&Value::Int(5), &s), r#"{"int":5}"#);
}

#[test]
fn ambiguous_simple_names_need_the_full_name() {
    let s = schema(
        r#"[{"type": "record", "name": "x.R", "fields": []},
            {"type": "record", "name": "y.R", "fields": []}]"#,
    );
    assert_eq!(
        from_json_str(r#"{"y.R": {}}"#, &s).unwrap(),
        Value::Union(1, Box::new(Value::Record(vec![])))
    );
    let e = from_json_str(r#"{"R": {}}"#, &s).unwrap_err();
    assert!(e.message().contains("more than one branch"), "{e}");
}

#[test]
fn union_values_must_be_null_or_one_member_objects() {
    let s = schema(r#"["null", "string"]"#);
    for bad in [
        r#""bare""#,
        "{}",
        r#"{"string": "a", "null": null}"#,
        "[]",
        "1",
    ] {
        let e = from_json_str(bad, &s).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Data, "{bad}: {e}");
        assert!(e.message().contains("union"), "{bad}: {e}");
        let e = from_json_value(&serde_json::from_str(bad).unwrap(), &s).unwrap_err();
        assert!(e.message().contains("union"), "{bad}: {e}");
    }
    let no_null = schema(r#"["int", "string"]"#);
    let e = from_json_str("null", &no_null).unwrap_err();
    assert!(e.message().contains("null is not a branch"), "{e}");
}

// ------------------------------------------------------------------- records, enums, maps

const ORDER: &str = r#"{"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item",
        "fields": [{"name": "sku", "type": "string"}, {"name": "price", "type": "double"}]}}},
    {"name": "tags", "type": {"type": "map", "values": "int"}, "default": {"none": 0}},
    {"name": "state", "type": {"type": "enum", "name": "State", "symbols": ["NEW", "DONE"]}}
]}"#;

fn order() -> Value {
    let item = |sku: &str, price: f64| {
        Value::Record(vec![Value::String(sku.into()), Value::Double(price)])
    };
    Value::Record(vec![
        Value::Long(7),
        Value::Array(vec![item("a", 1.5), item("b", 2.0)]),
        Value::Map(vec![("x".into(), Value::Int(1))]),
        Value::Enum(1),
    ])
}

#[test]
fn records_are_objects_in_schema_order() {
    let s = schema(ORDER);
    let expected = r#"{"id":7,"items":[{"sku":"a","price":1.5},{"sku":"b","price":2.0}],"tags":{"x":1},"state":"DONE"}"#;
    assert_eq!(text(&order(), &s), expected);
    assert_eq!(to_json_value(&order(), &s).unwrap().to_string(), expected);
    assert_eq!(from_json_str(expected, &s).unwrap(), order());
    // Fields in any order.
    let shuffled = r#"{"state":"DONE","tags":{"x":1},"items":[{"price":1.5,"sku":"a"},{"sku":"b","price":2}],"id":7}"#;
    assert_eq!(from_json_str(shuffled, &s).unwrap(), order());
    assert_eq!(
        from_json_value(&serde_json::from_str(shuffled).unwrap(), &s).unwrap(),
        order()
    );
}

#[test]
fn pretty_output_is_jacksons() {
    let s = schema(ORDER);
    let expected = "{\n  \"id\" : 7,\n  \"items\" : [ {\n    \"sku\" : \"a\",\n    \"price\" : 1.5\n  }, {\n    \"sku\" : \"b\",\n    \"price\" : 2.0\n  } ],\n  \"tags\" : {\n    \"x\" : 1\n  },\n  \"state\" : \"DONE\"\n}";
    assert_eq!(to_json_string(&order(), &s, true).unwrap(), expected);
    assert_eq!(from_json_str(expected, &s).unwrap(), order());
    let empty = Value::Record(vec![
        Value::Long(1),
        Value::Array(vec![]),
        Value::Map(vec![]),
        Value::Enum(0),
    ]);
    assert_eq!(
        to_json_string(&empty, &s, true).unwrap(),
        "{\n  \"id\" : 1,\n  \"items\" : [ ],\n  \"tags\" : { },\n  \"state\" : \"NEW\"\n}"
    );
}

#[test]
fn missing_fields_take_their_defaults() {
    let s = schema(ORDER);
    let v = from_json_str(r#"{"id": 1, "items": [], "state": "NEW"}"#, &s).unwrap();
    assert_eq!(
        v.field(&s, "tags"),
        Some(&Value::Map(vec![("none".into(), Value::Int(0))]))
    );
    let e = from_json_str(r#"{"items": [], "state": "NEW"}"#, &s).unwrap_err();
    assert!(e.message().contains("missing field \"id\""), "{e}");
    assert_eq!(e.path(), "Order.id");
    let e = from_json_value(&json!({"items": [], "state": "NEW"}), &s).unwrap_err();
    assert_eq!(e.path(), "Order.id");
}

#[test]
fn unknown_and_repeated_fields_are_errors() {
    let s = schema(ORDER);
    let e =
        from_json_str(r#"{"id": 1, "items": [], "state": "NEW", "colour": 1}"#, &s).unwrap_err();
    assert!(e.message().contains("unknown field \"colour\""), "{e}");
    assert_eq!(e.offset(), Some(39));
    let e = from_json_value(
        &json!({"id": 1, "items": [], "state": "NEW", "colour": 1}),
        &s,
    )
    .unwrap_err();
    assert!(e.message().contains("unknown field \"colour\""), "{e}");
    let e = from_json_str(r#"{"id": 1, "id": 2, "items": [], "state": "NEW"}"#, &s).unwrap_err();
    assert!(e.message().contains("appears twice"), "{e}");
}

#[test]
fn enums_are_symbols() {
    let s = schema(r#"{"type": "enum", "name": "E", "symbols": ["A", "B"]}"#);
    assert_eq!(text(&Value::Enum(1), &s), r#""B""#);
    assert_eq!(text(&Value::String("A".into()), &s), r#""A""#);
    assert_eq!(from_json_str(r#""B""#, &s).unwrap(), Value::Enum(1));
    let e = from_json_str(r#""C""#, &s).unwrap_err();
    assert!(
        e.message()
            .contains("\"C\" is not a symbol of enum E (A, B)"),
        "{e}"
    );
    assert!(to_json_value(&Value::Enum(2), &s).is_err());
}

#[test]
fn maps_keep_entry_order() {
    let s = schema(r#"{"type": "map", "values": "long"}"#);
    let v = Value::Map(vec![
        ("z".into(), Value::Long(1)),
        ("a".into(), Value::Long(2)),
    ]);
    assert_eq!(text(&v, &s), r#"{"z":1,"a":2}"#);
    assert_eq!(from_json_str(r#"{"z":1,"a":2}"#, &s).unwrap(), v);
    assert_eq!(from_json_value(&json!({"z": 1, "a": 2}), &s).unwrap(), v);
}

// ----------------------------------------------------------------------------- logical types

const LOGICAL: &str = r#"{"type": "record", "name": "L", "fields": [
    {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "decf", "type": {"type": "fixed", "name": "D4", "size": 4, "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "big", "type": {"type": "bytes", "logicalType": "big-decimal"}},
    {"name": "us", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "uf", "type": {"type": "fixed", "name": "U16", "size": 16, "logicalType": "uuid"}},
    {"name": "date", "type": {"type": "int", "logicalType": "date"}},
    {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
    {"name": "lts", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
    {"name": "dur", "type": {"type": "fixed", "name": "Dur", "size": 12, "logicalType": "duration"}},
    {"name": "opt", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]}
]}"#;

#[test]
fn logical_types_are_written_as_their_underlying_type() {
    let s = schema(LOGICAL);
    let uuid = [
        0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40,
        0x00,
    ];
    let v = Value::Record(vec![
        Value::Decimal(Decimal::from_i128(-2, 2)),
        Value::Decimal(Decimal::from_i128(-2, 2)),
        Value::BigDecimal(Decimal::from_i128(1, 3)),
        Value::Uuid(uuid),
        Value::Uuid([0x41; 16]),
        Value::Date(-1),
        Value::TimeMillis(1000),
        Value::TimestampNanos(i64::MIN),
        Value::LocalTimestampMicros(5),
        Value::Duration(Duration {
            months: 1,
            days: 2,
            millis: 3,
        }),
        Value::Union(1, Box::new(Value::TimestampMillis(-1))),
    ]);
    let out = text(&v, &s);
    assert_eq!(
        out,
        concat!(
            r#"{"dec":"þ","decf":"ÿÿÿþ","big":"\u0002\u0001\u0006","#,
            r#""us":"123e4567-e89b-12d3-a456-426614174000","uf":"AAAAAAAAAAAAAAAA","#,
            r#""date":-1,"tm":1000,"ts":-9223372036854775808,"lts":5,"#,
            r#""dur":"\u0001\u0000\u0000\u0000\u0002\u0000\u0000\u0000\u0003\u0000\u0000\u0000","#,
            r#""opt":{"long":-1}}"#
        )
    );
    // Reading builds what the binary decoder builds, field for field.
    let back = from_json_str(&out, &s).unwrap();
    let decoded = from_datum_slice(&bin(&v, &s), &s).unwrap();
    assert_eq!(back, decoded);
    assert!(matches!(back.field(&s, "date"), Some(Value::Date(-1))));
    assert!(matches!(back.field(&s, "us"), Some(Value::Uuid(u)) if *u == uuid));
    assert!(matches!(back.field(&s, "dur"), Some(Value::Duration(d)) if d.days == 2));
    assert_eq!(text(&back, &s), out);
}

#[test]
fn logical_edge_cases_follow_the_binary_decoder() {
    // A uuid string that does not parse stays a string, as in binary.
    let s = schema(r#"{"type": "string", "logicalType": "uuid"}"#);
    assert_eq!(
        from_json_str(r#""not-a-uuid""#, &s).unwrap(),
        Value::String("not-a-uuid".into())
    );
    // A decimal that does not fit its fixed, or has the wrong scale, cannot be written.
    let f = schema(
        r#"{"type": "fixed", "name": "D1", "size": 1, "logicalType": "decimal", "precision": 2, "scale": 1}"#,
    );
    assert!(to_json_value(&Value::Decimal(Decimal::from_i128(300, 1)), &f).is_err());
    assert!(to_json_value(&Value::Decimal(Decimal::from_i128(3, 2)), &f).is_err());
    // An invalid logical type is ignored: plain int.
    let d = schema(r#"{"type": "string", "logicalType": "date"}"#);
    assert_eq!(
        from_json_str(r#""x""#, &d).unwrap(),
        Value::String("x".into())
    );
}

// ----------------------------------------------------------------------------------- errors

#[test]
fn errors_name_the_path() {
    let s = schema(ORDER);
    let bad = r#"{"id": 1, "items": [{"sku": "a", "price": 1}, {"sku": "b", "price": "x"}], "state": "NEW"}"#;
    let e = from_json_str(bad, &s).unwrap_err();
    assert_eq!(e.path(), "Order.items[1].price");
    assert_eq!(e.kind(), ErrorKind::Data);
    assert!(e.message().contains("expected double"), "{e}");
    assert_eq!(e.offset(), Some(bad.find("\"x\"").unwrap() as u64));
    let e = from_json_value(&serde_json::from_str(bad).unwrap(), &s).unwrap_err();
    assert_eq!(e.path(), "Order.items[1].price");
    assert!(e.to_string().contains("at Order.items[1].price"), "{e}");

    let e = from_json_str(
        r#"{"id": 1, "items": [], "tags": {"k": true}, "state": "NEW"}"#,
        &s,
    )
    .unwrap_err();
    assert_eq!(e.path(), "Order.tags[\"k\"]");

    let mut wrong = order();
    if let Value::Record(f) = &mut wrong {
        f[1] = Value::Array(vec![Value::Record(vec![
            Value::String("a".into()),
            Value::Boolean(true),
        ])]);
    }
    let e = to_json_value(&wrong, &s).unwrap_err();
    assert_eq!(e.path(), "Order.items[0].price");
    let mut out = String::from("keep");
    assert!(append_json(&mut out, &wrong, &s, false).is_err());
    assert_eq!(out, "keep", "a failed append leaves the buffer as it was");
    let mut sink = Vec::new();
    assert!(write_json(&mut sink, &wrong, &s, false).is_err());
    assert!(sink.is_empty());
}

#[test]
fn malformed_text_is_an_error_with_an_offset() {
    let s = schema(
        r#"{"type": "record", "name": "R", "fields": [
        {"name": "a", "type": {"type": "array", "items": "string"}}]}"#,
    );
    for (bad, offset) in [
        (r#"{"a": ["x",]}"#, 11),
        (r#"{"a": ["x"] "#, 12),
        (r#"{"a" ["x"]}"#, 5),
        (r#"{"a": ["\q"]}"#, 8),
        (r#"{"a": ["\ud800"]}"#, 8),
        ("{\"a\": [\"tab\there\"]}", 11),
        (r#"{"a": []} x"#, 10),
        (r#"{a: []}"#, 1),
        ("", 0),
    ] {
        let e = from_json_str(bad, &s).unwrap_err();
        assert_eq!(e.offset(), Some(offset), "{bad}: {e}");
    }
    // Text that ends inside a value is an end-of-input error.
    for truncated in [r#"{"a": ["x"#, r#"{"a": ["#, r#"{"a""#, "{", "", "  "] {
        let e = from_json_str(truncated, &s).unwrap_err();
        assert!(e.is_eof(), "{truncated:?}: {e}");
    }
    let n = schema(r#"["null", "boolean"]"#);
    assert!(from_json_str("nul", &n).unwrap_err().is_eof());
    assert!(!from_json_str("nulL", &n).unwrap_err().is_eof());
    assert!(from_json_str(r#"{"boolean": tru"#, &n)
        .unwrap_err()
        .is_eof());
}

#[test]
fn every_prefix_of_a_datum_is_an_eof_error() {
    let s = schema(ORDER);
    let full = text(&order(), &s);
    for end in 0..full.len() {
        if !full.is_char_boundary(end) {
            continue;
        }
        let prefix = &full[..end];
        let e = from_json_str(prefix, &s).unwrap_err();
        assert!(e.is_eof(), "{prefix:?}: {e}");
    }
}

// -------------------------------------------------------------------- depth and the stream

#[test]
fn deep_recursive_values_read_and_write() {
    let s = schema(
        r#"{"type": "record", "name": "Node", "fields": [
        {"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"]}]}"#,
    );
    // 200 nodes: 400 levels of JSON, beyond serde_json's default recursion limit of 128.
    let mut v = Value::Record(vec![Value::Int(0), Value::Union(0, Box::new(Value::Null))]);
    for i in 1..200 {
        v = Value::Record(vec![Value::Int(i), Value::Union(1, Box::new(v))]);
    }
    let out = text(&v, &s);
    let back = from_json_str(&out, &s).unwrap();
    assert_eq!(back, v);
    assert_eq!(
        from_json_value(&to_json_value(&v, &s).unwrap(), &s).unwrap(),
        v
    );
    // Deeper than the limit is an error, not a stack overflow.
    let limits = Limits::default().with_max_depth(100);
    let e = JsonReader::new(&out, &s)
        .with_limits(limits)
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    let hostile = "[".repeat(100_000);
    let a = schema(r#"{"type": "array", "items": {"type": "array", "items": "int"}}"#);
    assert!(from_json_str(&hostile, &a).is_err());
}

/// A linked list of `n` nodes: `2n - 1` levels of records and unions.
fn linked_list(n: i32) -> (Schema, Value) {
    let s = schema(
        r#"{"type": "record", "name": "Node", "fields": [
        {"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"]}]}"#,
    );
    let mut v = Value::Record(vec![Value::Int(0), Value::Union(0, Box::new(Value::Null))]);
    for i in 1..n {
        v = Value::Record(vec![Value::Int(i), Value::Union(1, Box::new(v))]);
    }
    (s, v)
}

#[test]
fn nesting_up_to_the_limits_fits_a_test_threads_stack() {
    // 511 levels: just within the default read limit of 512.
    let (s, v) = linked_list(256);
    let out = text(&v, &s);
    assert_eq!(from_json_str(&out, &s).unwrap(), v);
    assert_eq!(
        from_json_value(&to_json_value(&v, &s).unwrap(), &s).unwrap(),
        v
    );
    let (s, v) = linked_list(257);
    let e = from_json_str(&text(&v, &s), &s).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    // 1023 levels: just within the write limit of 1024.
    let (s, v) = linked_list(512);
    assert!(to_json_value(&v, &s).is_ok());
    assert!(to_json_string(&v, &s, true).is_ok());
    let (s, v) = linked_list(513);
    assert_eq!(to_json_value(&v, &s).unwrap_err().kind(), ErrorKind::Limit);
}

#[test]
fn the_stream_reader_reads_values_separated_by_whitespace() {
    let s = schema(r#"["null", "int"]"#);
    let t = " null\n{\"int\":1}{\"int\":2}\r\n\t{\n \"int\" : 3\n}\n";
    let all: Vec<Value> = JsonReader::new(t, &s).collect::<Result<_, _>>().unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all[3], Value::Union(1, Box::new(Value::Int(3))));
    // After an error the stream ends.
    let mut r = JsonReader::new("{\"int\":1} oops {\"int\":2}", &s);
    assert!(r.next().unwrap().is_ok());
    assert!(r.next().unwrap().is_err());
    assert!(r.next().is_none());
    // A byte order mark is skipped; trailing text after a single value is an error.
    assert_eq!(
        from_json_str("\u{feff}null", &s).unwrap(),
        Value::Union(0, Box::new(Value::Null))
    );
    assert!(from_json_str("null null", &s).is_err());
}

// ------------------------------------------------------------------------------- defaults

#[test]
fn defaults_use_the_first_branch_unwrapped() {
    let s = schema(
        r#"{"type": "record", "name": "R", "fields": [
            {"name": "u", "type": ["string", "null"], "default": "x"},
            {"name": "n", "type": ["null", "string"], "default": null},
            {"name": "inner", "type": {"type": "record", "name": "In", "fields": [
                {"name": "a", "type": ["long", "null"]},
                {"name": "b", "type": "int", "default": 4}]},
             "default": {"a": 3}},
            {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2}, "default": "\u00ffA"},
            {"name": "d", "type": "double", "default": "NaN"},
            {"name": "m", "type": {"type": "map", "values": ["int", "null"]}, "default": {"k": 1}}
        ]}"#,
    );
    let NodeKind::Record(r) = s.root().kind() else {
        panic!()
    };
    let def = |i: usize| {
        default_to_value(
            r.fields[i].default.as_ref().unwrap(),
            &s,
            r.fields[i].schema,
        )
        .unwrap()
    };
    assert_eq!(def(0), Value::Union(0, Box::new(Value::String("x".into()))));
    assert_eq!(def(1), Value::Union(0, Box::new(Value::Null)));
    assert_eq!(
        def(2),
        Value::Record(vec![
            Value::Union(0, Box::new(Value::Long(3))),
            Value::Int(4)
        ])
    );
    assert_eq!(def(3), Value::Fixed(vec![0xff, 0x41]));
    assert!(matches!(def(4), Value::Double(d) if d.is_nan()));
    assert_eq!(
        def(5),
        Value::Map(vec![("k".into(), Value::Union(0, Box::new(Value::Int(1))))])
    );
    // The datum encoding of the same union is wrapped; the default encoding is not.
    let u = r.fields[0].schema;
    assert!(default_to_value(&json!({"string": "x"}), &s, u).is_err());
    assert!(default_to_value(&json!(null), &s, u).is_err());
}

#[test]
fn cyclic_record_defaults_end_in_an_error() {
    // A.b defaults to {} whose missing field B.a defaults to {} whose missing A.b ...
    let s = schema(
        r#"{"type": "record", "name": "A", "fields": [
            {"name": "b", "type": {"type": "record", "name": "B", "fields": [
                {"name": "a", "type": "A", "default": {}}]}, "default": {}}]}"#,
    );
    let NodeKind::Record(r) = s.root().kind() else {
        panic!()
    };
    let e = default_to_value(&json!({}), &s, r.fields[0].schema).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    let e = from_json_str("{}", &s).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
}

// ---------------------------------------------------------------------------- conveniences

#[test]
fn values_with_promotions_are_written_as_the_schema_type() {
    let s = schema(
        r#"{"type": "record", "name": "R", "fields": [
        {"name": "l", "type": "long"}, {"name": "f", "type": "float"}, {"name": "d", "type": "double"}]}"#,
    );
    let v = Value::Record(vec![Value::Int(1), Value::Int(2), Value::Float(0.1)]);
    // The double holds the float's exact value, so it is not 0.1.
    assert_eq!(text(&v, &s), r#"{"l":1,"f":2.0,"d":0.10000000149011612}"#);
}

#[test]
fn write_json_writes_the_text() {
    let s = schema(r#"{"type": "array", "items": "string"}"#);
    let v = Value::Array(vec![Value::String("a\nb".into())]);
    let mut out = Vec::new();
    write_json(&mut out, &v, &s, false).unwrap();
    write_json(&mut out, &v, &s, true).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), r#"["a\nb"][ "a\nb" ]"#);
}
