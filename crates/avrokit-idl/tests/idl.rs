//! The IDL reader beyond Java's golden files: warnings, errors with their positions, limits,
//! and the language features one at a time.

use std::path::{Path, PathBuf};

use avrokit_idl::{IdlLimits, IdlReader};
use serde_json::{json, Value};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn protocol_json(src: &str) -> Value {
    let idl = IdlReader::new()
        .parse_str(src, None)
        .unwrap_or_else(|e| panic!("{e}"));
    idl.protocol().expect("a protocol").to_json()
}

/// The error for `src`, as `line:column: message`.
fn error(src: &str) -> String {
    let e = IdlReader::new().parse_str(src, None).unwrap_err();
    let loc = e.location().expect("a location");
    assert_eq!(loc.file, Path::new("<input>"));
    format!("{}:{}: {}", loc.line, loc.column, e.message())
}

#[test]
fn misplaced_doc_comments_warn_where_java_does() {
    let idl = IdlReader::new()
        .parse_file(data().join("input/comments.avdl"))
        .unwrap();
    let got: Vec<(u32, u32)> = idl
        .warnings()
        .iter()
        .map(|w| (w.location.line, w.location.column))
        .collect();
    // Java's TestIdlReader.testDocCommentsAndWarnings.
    let java = [
        (21, 8),
        (21, 45),
        (22, 5),
        (23, 5),
        (24, 5),
        (25, 5),
        (26, 7),
        (27, 7),
        (28, 7),
        (33, 7),
        (34, 7),
        (35, 5),
        (36, 5),
        (37, 7),
        (42, 7),
        (43, 7),
        (46, 9),
        (47, 5),
        (54, 7),
        (55, 7),
        (58, 9),
        (59, 7),
        (60, 11),
        (61, 11),
    ];
    assert_eq!(got, java);
    for w in idl.warnings() {
        assert!(
            w.message.contains("out-of-place documentation comment"),
            "{w}"
        );
        assert!(w.to_string().contains("comments.avdl:"), "{w}");
    }
}

#[test]
fn a_name_defined_twice_is_an_error_at_the_second_definition() {
    let path = data().join("errors/duplicateNameErrorParsing.avdl");
    let e = IdlReader::new().parse_file(&path).unwrap_err();
    let loc = e.location().unwrap();
    assert_eq!(
        (loc.file.as_path(), loc.line, loc.column),
        (path.as_path(), 11, 6)
    );
    assert!(
        e.message()
            .contains("\"duplicateNameParseError.Foo\" is already defined"),
        "{e}"
    );
    assert!(
        e.message().contains(":6:6"),
        "names the first definition: {e}"
    );
    // The same definition twice is no error (Java accepts it as well).
    let idl = IdlReader::new()
        .parse_str("schema E; enum E { A } enum E { A }", None)
        .unwrap();
    assert_eq!(idl.named_schemas().len(), 1);
}

#[test]
fn errors_name_line_and_column() {
    let cases = [
        (
            "protocol P {\n  record R { int x }\n}",
            "2:20: expected ';', found '}'",
        ),
        (
            "protocol P {\n  record R { Missing m; }\n}",
            "2:14: undefined type \"Missing\"",
        ),
        (
            "@namespace(\"n\") protocol P {\n record R {}\n void m() throws R;\n}",
            "3:18: \"n.R\" is not an error type: only errors can be thrown",
        ),
        (
            "protocol P {\n  int ping() oneway;\n}",
            "2:3: the one-way message 'ping' must return void",
        ),
        (
            "protocol P { record R { string @order(\"up\") s; } }",
            "1:39: @order(...) must contain \"ASCENDING\", \"DESCENDING\" or \"IGNORE\"",
        ),
        (
            "protocol P { record R { @foo(1) R r; } }",
            "1:25: type references may not be annotated",
        ),
        (
            "protocol P { record int {} }",
            "1:21: \"int\" is a type name of the IDL and cannot name a record",
        ),
        (
            "protocol P { fixed F(-1); }",
            "1:22: the size of a fixed must be an int from 0 to 2^31-1",
        ),
        (
            "protocol P {\n  /* never closed",
            "2:3: unterminated comment: no closing */",
        ),
        (
            "protocol P { import idl \"nowhere.avdl\"; }",
            "1:25: cannot find the import \"nowhere.avdl\"",
        ),
        (
            "protocol P { record R { @doc(\"x\") int i; } }",
            "1:25: @doc cannot be used here",
        ),
    ];
    for (src, want) in cases {
        let got = error(src);
        assert!(got.starts_with(want), "{src:?}:\n got  {got}\n want {want}");
    }
}

#[test]
fn schema_errors_point_at_the_field() {
    // An invalid default is found by avrokit's schema parser; the error points at the field.
    let got = error("protocol P {\n  record R {\n    int i = \"one\";\n  }\n}");
    assert!(got.starts_with("3:9: invalid default \"one\""), "{got}");
    let got = error("protocol P {\n  void m(long n = 1.5);\n}");
    assert!(got.starts_with("2:15: invalid default 1.5"), "{got}");
}

#[test]
fn limits_bound_the_input() {
    let deep = format!("schema {}int{};", "array<".repeat(200), ">".repeat(200));
    let e = IdlReader::new().parse_str(&deep, None).unwrap_err();
    assert!(e.message().contains("nested deeper than 128 levels"), "{e}");
    let json = format!(
        "protocol P {{ record R {{ array<int> a = {}{}; }} }}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let e = IdlReader::new().parse_str(&json, None).unwrap_err();
    assert!(e.message().contains("nested deeper"), "{e}");

    let small = IdlLimits {
        max_tokens: 10,
        ..IdlLimits::default()
    };
    let e = IdlReader::new()
        .limits(small)
        .parse_str("protocol P { record R { int a; int b; } }", None)
        .unwrap_err();
    assert!(e.message().contains("more than 10 tokens"), "{e}");

    let tiny = IdlLimits {
        max_file_size: 100,
        ..IdlLimits::default()
    };
    let e = IdlReader::new()
        .limits(tiny)
        .parse_file(data().join("input/simple.avdl"))
        .unwrap_err();
    assert!(e.message().contains("larger than 100 bytes"), "{e}");

    let one_file = IdlLimits {
        max_files: 1,
        ..IdlLimits::default()
    };
    let e = IdlReader::new()
        .limits(one_file)
        .parse_file(data().join("input/baseball.avdl"))
        .unwrap_err();
    assert!(e.message().contains("more than 1 files"), "{e}");
}

#[test]
fn hostile_text_gives_errors_not_panics() {
    let inputs = [
        "",
        "protocol",
        "protocol P {",
        "@",
        "@x(",
        "schema",
        "record",
        "`",
        "`a",
        "\"",
        "0x",
        "protocol P { record R { union {} u; } }",
        "protocol P { enum E { } = ; }",
        "protocol P { void m(int a, int a); }",
        "namespace ..;",
        "protocol P { record R { int a = {\"k\" 1}; } }",
        "protocol P { record R { decimal(99999999999) d; } }",
        "\u{1a}",
        "é",
    ];
    for src in inputs {
        let _ = IdlReader::new().parse_str(src, None);
    }
    // Every prefix of a real file, too.
    let simple = std::fs::read_to_string(data().join("input/simple.avdl")).unwrap();
    for end in (0..simple.len()).filter(|&i| simple.is_char_boundary(i)) {
        let _ = IdlReader::new().parse_str(&simple[..end], None);
    }
}

#[test]
fn nullable_shorthand_puts_null_where_the_default_says() {
    let p = protocol_json(
        "protocol P { record R { string? a; string? b = null; string? c = \"x\"; \
         array<int?> d; @prop(1) int? e = 1; } }",
    );
    let f = &p["types"][0]["fields"];
    assert_eq!(f[0]["type"], json!(["null", "string"]));
    assert_eq!(f[1]["type"], json!(["null", "string"]));
    assert_eq!(f[2]["type"], json!(["string", "null"]));
    assert_eq!(
        f[3]["type"],
        json!({"type": "array", "items": ["null", "int"]})
    );
    assert_eq!(f[4]["type"], json!([{"type": "int", "prop": 1}, "null"]));
}

#[test]
fn logical_type_shorthands_and_annotations() {
    let p = protocol_json(
        "protocol P { record R { date a; time_ms b; timestamp_ms c; local_timestamp_ms d; \
         uuid e; decimal(9,2) f; decimal(4) g; @logicalType(\"timestamp-micros\") long h; } }",
    );
    let types: Vec<Value> = p["types"][0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["type"].clone())
        .collect();
    assert_eq!(
        types,
        [
            json!({"type": "int", "logicalType": "date"}),
            json!({"type": "int", "logicalType": "time-millis"}),
            json!({"type": "long", "logicalType": "timestamp-millis"}),
            json!({"type": "long", "logicalType": "local-timestamp-millis"}),
            json!({"type": "string", "logicalType": "uuid"}),
            json!({"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}),
            json!({"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 0}),
            json!({"type": "long", "logicalType": "timestamp-micros"}),
        ]
    );
}

#[test]
fn forward_references_and_record_namespaces() {
    let p = protocol_json(
        "@namespace(\"a\") protocol P {\n\
         @namespace(\"b\") record R { S s; a.T t; }\n\
         @namespace(\"b\") record S { long x; }\n\
         record T { union { null, b.R } r = null; }\n}",
    );
    // Inside b.R, `S` is b.S; `a.T` is written relative to the record's namespace.
    assert_eq!(p["types"][0]["fields"][0]["type"]["name"], "S");
    assert_eq!(p["types"][0]["fields"][1]["type"]["name"], "T");
    assert_eq!(p["types"][0]["fields"][1]["type"]["namespace"], "a");
}

#[test]
fn schema_syntax_without_main_schema_lists_its_types() {
    let idl = IdlReader::new()
        .parse_str("namespace n;\nrecord A { B b; }\nfixed B(4);", None)
        .unwrap();
    assert!(idl.protocol().is_none() && idl.main_schema().is_none() && idl.to_json().is_none());
    let names: Vec<String> = idl
        .named_schemas()
        .iter()
        .map(|s| s.root().name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["n.A", "n.B"]);
}

#[test]
fn messages_throws_and_oneway() {
    let p = protocol_json(
        "protocol P { error E {} /** Hi. */ @p(\"v\") string hi(int `a` = 1) throws E; \
         void fire(string s) oneway; }",
    );
    assert_eq!(
        p["messages"],
        json!({
            "hi": {"doc": "Hi.", "p": "v", "request": [{"name": "a", "type": "int", "default": 1}],
                   "response": "string", "errors": ["E"]},
            "fire": {"request": [{"name": "s", "type": "string"}], "response": "null", "one-way": true}
        })
    );
}

#[test]
fn files_lists_the_main_file_and_every_import_once() {
    let idl = IdlReader::new()
        .import_dir(data().join("include"))
        .parse_file(data().join("input/import.avdl"))
        .unwrap();
    let names: Vec<String> = idl
        .files()
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names[0], "import.avdl");
    for want in [
        "reservedwords.avdl",
        "nestedimport.avdl",
        "OnTheClasspath.avdl",
        "OnTheClasspath.avpr",
        "OnTheClasspath.avsc",
        "baz.avsc",
        "foo.avsc",
        "bar.avpr",
    ] {
        assert_eq!(
            names.iter().filter(|n| *n == want).count(),
            1,
            "{want} in {names:?}"
        );
    }
    let text = IdlReader::new().parse_str("protocol P {}", None).unwrap();
    assert!(text.files().is_empty());
}
