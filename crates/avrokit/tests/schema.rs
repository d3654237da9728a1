//! Schema parsing, writing back, Parsing Canonical Form and fingerprints.
//!
//! Test data lives in `tests/data/schemas/` (copied from the interoperability corpus and the
//! Apache Avro repository; see its README).

use std::fs;
use std::path::{Path, PathBuf};

use avrokit::schema::{LogicalType, Name, NodeKind, Order};
use avrokit::{ErrorKind, Schema};
use serde_json::{json, Value};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schemas")
}

fn load_json(rel: &str) -> Value {
    let path = data_dir().join(rel);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Files of a folder, sorted, as (file name, text).
fn files_in(rel: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = fs::read_dir(data_dir().join(rel))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(&path).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn parse(text: &str) -> Schema {
    Schema::parse_str(text).unwrap_or_else(|e| panic!("{text}\n  -> {e}"))
}

/// Parses and expects a schema error; returns (path, message).
fn reject(text: &str) -> (String, String) {
    match Schema::parse_str(text) {
        Ok(s) => panic!("accepted invalid schema {text}\n  as {s}"),
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Schema, "{e}");
            (e.path(), e.message().to_owned())
        }
    }
}

/// Writes the schema back, re-parses it, and checks that nothing changed.
fn assert_round_trip(schema: &Schema) {
    let written = schema.to_json();
    let again = Schema::parse_json(&written)
        .unwrap_or_else(|e| panic!("written schema does not parse: {e}\n{written}"));
    assert_eq!(again.canonical_form(), schema.canonical_form(), "{written}");
    assert_eq!(again.to_json(), written, "to_json is not stable");
    // Key order too, not only map equality.
    assert_eq!(again.to_json().to_string(), written.to_string());
    assert_eq!(&again, schema);
    // And through text.
    let text = Schema::parse_str(&schema.to_string()).unwrap();
    assert_eq!(text.to_json(), written);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ------------------------------------------------------------------ interop tables

#[test]
fn canonical_forms_and_fingerprints() {
    let cases = load_json("canonical-forms.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 30);
    for case in cases {
        let source = case["source"].as_str().unwrap();
        let schema =
            Schema::parse_json(&case["schema"]).unwrap_or_else(|e| panic!("{source}: {e}"));
        let canonical = schema.canonical_form();
        assert_eq!(canonical, case["canonical"].as_str().unwrap(), "{source}");
        let rabin = schema.fingerprint_rabin();
        assert_eq!(
            rabin as i64,
            case["crc64_avro"].as_i64().unwrap(),
            "{source}"
        );
        assert_eq!(
            hex(&rabin.to_le_bytes()),
            case["crc64_avro_hex_le"].as_str().unwrap(),
            "{source}"
        );
        assert_eq!(
            hex(&schema.fingerprint_md5()),
            case["md5"].as_str().unwrap()
        );
        assert_eq!(
            hex(&schema.fingerprint_sha256()),
            case["sha256"].as_str().unwrap()
        );
        // The same from the text, and after a round trip.
        assert_eq!(
            parse(&case["schema"].to_string()).canonical_form(),
            canonical
        );
        assert_round_trip(&schema);
    }
}

#[test]
fn upstream_schema_tests_table() {
    let cases = load_json("upstream/schema-tests.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 34);
    let mut fingerprinted = 0;
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let schema = Schema::parse_str(case["input"].as_str().unwrap())
            .unwrap_or_else(|e| panic!("case {id}: {e}"));
        let canonical = case["canonical"].as_str().unwrap();
        assert_eq!(schema.canonical_form(), canonical, "case {id}");
        // Every case's canonical form is itself a schema with the same canonical form.
        assert_eq!(parse(canonical).canonical_form(), canonical, "case {id}");
        if let Some(fp) = case["fingerprint"].as_i64() {
            assert_eq!(schema.fingerprint_rabin() as i64, fp, "case {id}");
            fingerprinted += 1;
        }
        assert_round_trip(&schema);
    }
    assert_eq!(fingerprinted, 26);
}

#[test]
fn validity_table() {
    let cases = load_json("validity.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 24);
    for case in cases {
        let text = case["schema"].as_str().unwrap();
        let why = case["why"].as_str().unwrap();
        match (Schema::parse_str(text), case["valid"].as_bool().unwrap()) {
            (Ok(s), true) => assert_round_trip(&s),
            (Err(e), false) => assert_eq!(e.kind(), ErrorKind::Schema, "{why}: {e}"),
            (Ok(_), false) => panic!("accepted invalid schema ({why}): {text}"),
            (Err(e), true) => panic!("rejected valid schema ({why}): {text}: {e}"),
        }
    }
}

#[test]
fn avro_c_schema_tests_pass() {
    let files = files_in("upstream/c-schema-tests/pass");
    assert_eq!(files.len(), 28);
    for (name, text) in files {
        let schema = Schema::parse_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_round_trip(&schema);
    }
}

#[test]
fn avro_c_schema_tests_fail() {
    let files = files_in("upstream/c-schema-tests/fail");
    assert_eq!(files.len(), 12);
    for (name, text) in files {
        let err = Schema::parse_str(&text).expect_err(&name);
        assert_eq!(err.kind(), ErrorKind::Schema, "{name}");
        assert!(err.path().starts_with('$'), "{name}: {err}");
    }
}

/// The schemas of a protocol's `types`, each given the protocol's namespace as the enclosing one
/// (our parser has no protocol-level default namespace), plus each message's request as a
/// record and its response, so that the references in messages are resolved too.
fn protocol_schemas(protocol: &Value) -> Vec<String> {
    let ns = protocol["namespace"].as_str().unwrap_or("");
    let mut out = Vec::new();
    for ty in protocol["types"].as_array().unwrap() {
        let mut ty = ty.clone();
        let obj = ty.as_object_mut().unwrap();
        if !obj.contains_key("namespace") && !obj["name"].as_str().unwrap().contains('.') {
            obj.insert("namespace".into(), ns.into());
        }
        out.push(ty.to_string());
    }
    if let Some(messages) = protocol["messages"].as_object() {
        for (name, msg) in messages {
            out.push(
                json!({"type": "record", "name": format!("{name}_request"), "namespace": ns,
                       "fields": msg["request"]})
                .to_string(),
            );
            out.push(
                json!({"type": "record", "name": format!("{name}_response"), "namespace": ns,
                       "fields": [{"name": "response", "type": msg["response"]}]})
                .to_string(),
            );
        }
    }
    out
}

#[test]
fn upstream_share_test_schemas() {
    let files = files_in("upstream/share-test-schemas");
    let (mut avsc, mut avpr) = (0, 0);
    for (name, text) in files {
        if name.ends_with(".avsc") {
            let schema = Schema::parse_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_round_trip(&schema);
            avsc += 1;
        } else if name.ends_with(".avpr") {
            let protocol: Value = serde_json::from_str(&text).unwrap();
            let texts = protocol_schemas(&protocol);
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let schemas = Schema::parse_many(&refs).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(schemas.len(), refs.len());
            for s in &schemas {
                assert_round_trip(s);
            }
            avpr += 1;
        }
    }
    assert_eq!((avsc, avpr), (6, 4));

    // Details of simple.avpr: the error type, orders, custom props.
    let protocol: Value = serde_json::from_str(
        &fs::read_to_string(data_dir().join("upstream/share-test-schemas/simple.avpr")).unwrap(),
    )
    .unwrap();
    let texts = protocol_schemas(&protocol);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let schemas = Schema::parse_many(&refs).unwrap();
    let err = schemas[3].root();
    let NodeKind::Record(rec) = err.kind() else {
        panic!()
    };
    assert!(rec.is_error);
    assert_eq!(rec.name.fullname(), "org.apache.avro.test.TestError");
    assert_eq!(schemas[3].to_json()["type"], "error");
    // An error is a record as far as the data is concerned.
    assert!(schemas[3].canonical_form().contains("\"type\":\"record\""));
    let NodeKind::Record(test) = schemas[2].root().kind() else {
        panic!()
    };
    assert_eq!(test.fields[0].order, Order::Ignore);
    assert_eq!(test.fields[1].order, Order::Descending);
    assert_eq!(
        schemas[2].root().prop("javaAnnotation"),
        Some(&json!("org.apache.avro.TestAnnotation"))
    );
    // `hello` request: the field's alias and custom property are kept.
    let hello = schemas
        .iter()
        .find(|s| s.root().name().unwrap().name() == "hello_request")
        .unwrap();
    let NodeKind::Record(req) = hello.root().kind() else {
        panic!()
    };
    assert_eq!(req.fields[0].aliases, ["salute"]);
    assert_eq!(
        req.fields[0].props,
        [("customProp".to_owned(), json!("customValue"))]
    );
}

#[test]
fn interop_corpus_schemas() {
    // Every schema embedded in the interop corpus' container files and resolution cases.
    let cases = load_json("corpus-schemas.json");
    let cases = cases.as_array().unwrap();
    assert!(cases.len() > 100);
    for case in cases {
        let source = case["source"].as_str().unwrap();
        let schema =
            Schema::parse_json(&case["schema"]).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_round_trip(&schema);
    }
    // The same schema written by different producers has the same canonical form, whatever
    // each producer did to names (fullnames, inherited namespaces) and attributes.
    let canonical = |source: &str| {
        let case = cases.iter().find(|c| c["source"] == source).unwrap();
        Schema::parse_json(&case["schema"])
            .unwrap()
            .canonical_form()
    };
    // (`namespaces` is left out: fastavro and avro-py both dropped the `"namespace": ""` of its
    // `Plain` record when they embedded the schema, so in their files it is `org.alpha.Plain`.
    // fastavro has no `logical` file, only `logical-native`.)
    for stem in ["unions", "recursive-mutual", "fixed", "enums", "logical"] {
        let java = canonical(&format!("data/java-1.8.2/{stem}.meta.json"));
        assert_eq!(
            java,
            canonical(&format!("data/avro-py/{stem}.meta.json")),
            "{stem}"
        );
        if stem != "logical" {
            assert_eq!(
                java,
                canonical(&format!("data/fastavro/{stem}.meta.json")),
                "{stem}"
            );
        }
    }
}

// ------------------------------------------------------------------ the specification's examples

#[test]
fn spec_linked_list() {
    let s = parse(
        r#"{
          "type": "record",
          "name": "LongList",
          "aliases": ["LinkedLongs"],
          "fields" : [
            {"name": "value", "type": "long"},
            {"name": "next", "type": ["null", "LongList"]}
          ]
        }"#,
    );
    let NodeKind::Record(r) = s.root().kind() else {
        panic!()
    };
    assert_eq!(r.name.fullname(), "LongList");
    assert_eq!(r.aliases, [Name::new("LinkedLongs")]);
    let NodeKind::Union(u) = s.node(r.fields[1].schema).kind() else {
        panic!()
    };
    assert_eq!(u.variants[1], s.root_id());
    assert_eq!(
        s.canonical_form(),
        r#"{"name":"LongList","type":"record","fields":[{"name":"value","type":"long"},{"name":"next","type":["null","LongList"]}]}"#
    );
    assert_eq!(
        s.to_json(),
        json!({"type": "record", "name": "LongList", "aliases": ["LinkedLongs"], "fields": [
            {"name": "value", "type": "long"}, {"name": "next", "type": ["null", "LongList"]}]})
    );
    assert_round_trip(&s);
}

#[test]
fn spec_simple_examples() {
    let suit = parse(
        r#"{"type": "enum", "name": "Suit", "symbols" : ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]}"#,
    );
    let NodeKind::Enum(e) = suit.root().kind() else {
        panic!()
    };
    assert_eq!(e.symbol_index("DIAMONDS"), Some(2));
    assert_eq!(e.default, None);

    // `default` on an array or map schema is not an attribute the specification defines for
    // them: it is kept as a custom property.
    let arr = parse(r#"{"type": "array", "items" : "string", "default": []}"#);
    assert_eq!(arr.root().prop("default"), Some(&json!([])));
    assert_eq!(arr.canonical_form(), r#"{"type":"array","items":"string"}"#);
    assert_eq!(
        arr.to_json(),
        json!({"type": "array", "items": "string", "default": []})
    );
    let map = parse(r#"{"type": "map", "values" : "long", "default": {}}"#);
    assert_eq!(map.canonical_form(), r#"{"type":"map","values":"long"}"#);

    let md5 = parse(r#"{"type": "fixed", "size": 16, "name": "md5"}"#);
    assert_eq!(
        md5.canonical_form(),
        r#"{"name":"md5","type":"fixed","size":16}"#
    );

    let test = parse(
        r#"{"type": "record", "name": "test", "fields" : [
            {"name": "a", "type": "long"}, {"name": "b", "type": "string"}]}"#,
    );
    assert_eq!(
        test.canonical_form(),
        r#"{"name":"test","type":"record","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}"#
    );

    let union = parse(r#"["null", "string"]"#);
    assert_eq!(union.canonical_form(), r#"["null","string"]"#);

    // The container file header: the nested fixed inherits the record's namespace.
    let header = parse(
        r#"{"type": "record", "name": "org.apache.avro.file.Header",
            "fields" : [
              {"name": "magic", "type": {"type": "fixed", "name": "Magic", "size": 4}},
              {"name": "meta", "type": {"type": "map", "values": "bytes"}},
              {"name": "sync", "type": {"type": "fixed", "name": "Sync", "size": 16}}
            ]}"#,
    );
    assert!(header.lookup("org.apache.avro.file.Magic").is_some());
    assert!(header.lookup("org.apache.avro.file.Sync").is_some());

    let decimal =
        parse(r#"{"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 2}"#);
    assert_eq!(
        decimal.root().logical,
        Some(LogicalType::Decimal {
            precision: 4,
            scale: 2
        })
    );
    assert!(decimal.root().props.is_empty());
    assert_eq!(decimal.canonical_form(), r#""bytes""#);
}

#[test]
fn spec_namespace_example() {
    let s = parse(
        r#"{
          "type": "record",
          "name": "Example",
          "fields": [
            {"name": "inheritNull", "type": {"type": "enum", "name": "Simple", "symbols": ["a", "b"]}},
            {"name": "explicitNamespace", "type": {
                "type": "fixed", "name": "Simple", "namespace": "explicit", "size": 12}},
            {"name": "fullName", "type": {
                "type": "record", "name": "a.full.Name", "namespace": "ignored",
                "fields": [
                  {"name": "inheritNamespace", "type": {
                      "type": "enum", "name": "Understanding", "symbols": ["d", "e"]}}
                ]}}
          ]
        }"#,
    );
    let mut names: Vec<&str> = s
        .nodes()
        .iter()
        .filter_map(|n| n.name().map(Name::fullname))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Example",
            "Simple",
            "a.full.Name",
            "a.full.Understanding",
            "explicit.Simple"
        ]
    );
    let NodeKind::Record(full) = s.node(s.lookup("a.full.Name").unwrap()).kind() else {
        panic!()
    };
    assert_eq!(full.name.namespace(), Some("a.full"));
    assert_eq!(
        s.canonical_form(),
        concat!(
            r#"{"name":"Example","type":"record","fields":["#,
            r#"{"name":"inheritNull","type":{"name":"Simple","type":"enum","symbols":["a","b"]}},"#,
            r#"{"name":"explicitNamespace","type":{"name":"explicit.Simple","type":"fixed","size":12}},"#,
            r#"{"name":"fullName","type":{"name":"a.full.Name","type":"record","fields":["#,
            r#"{"name":"inheritNamespace","type":{"name":"a.full.Understanding","type":"enum","symbols":["d","e"]}}]}}]}"#
        )
    );
    // Written back with name + namespace, the way Java writes it.
    let written = s.to_json();
    assert_eq!(written["fields"][1]["type"]["namespace"], "explicit");
    assert_eq!(written["fields"][2]["type"]["name"], "Name");
    assert_eq!(written["fields"][2]["type"]["namespace"], "a.full");
    assert!(written["fields"][2]["type"]["fields"][0]["type"]
        .get("namespace")
        .is_none());
    assert_round_trip(&s);
}

#[test]
fn spec_protocol_and_handshake_examples() {
    // HelloWorld's types, with the protocol namespace.
    let schemas = Schema::parse_many(&[
        r#"{"name": "Greeting", "namespace": "com.acme", "type": "record", "fields": [
            {"name": "message", "type": "string"}]}"#,
        r#"{"name": "Curse", "namespace": "com.acme", "type": "error", "fields": [
            {"name": "message", "type": "string"}]}"#,
        r#"{"type": "record", "name": "hello", "namespace": "com.acme", "fields": [
            {"name": "greeting", "type": "Greeting"}, {"name": "errors", "type": ["string", "Curse"]}]}"#,
    ])
    .unwrap();
    let NodeKind::Record(hello) = schemas[2].root().kind() else {
        panic!()
    };
    assert_eq!(hello.fields[0].schema, schemas[0].root_id());

    let request = parse(
        r#"{"type": "record", "name": "HandshakeRequest", "namespace":"org.apache.avro.ipc",
            "fields": [
              {"name": "clientHash", "type": {"type": "fixed", "name": "MD5", "size": 16}},
              {"name": "clientProtocol", "type": ["null", "string"]},
              {"name": "serverHash", "type": "MD5"},
              {"name": "meta", "type": ["null", {"type": "map", "values": "bytes"}]}
            ]}"#,
    );
    assert_eq!(
        request.canonical_form(),
        concat!(
            r#"{"name":"org.apache.avro.ipc.HandshakeRequest","type":"record","fields":["#,
            r#"{"name":"clientHash","type":{"name":"org.apache.avro.ipc.MD5","type":"fixed","size":16}},"#,
            r#"{"name":"clientProtocol","type":["null","string"]},"#,
            r#"{"name":"serverHash","type":"org.apache.avro.ipc.MD5"},"#,
            r#"{"name":"meta","type":["null",{"type":"map","values":"bytes"}]}]}"#
        )
    );
    let response = r#"{"type": "record", "name": "HandshakeResponse", "namespace": "org.apache.avro.ipc",
        "fields": [
          {"name": "match", "type": {"type": "enum", "name": "HandshakeMatch", "symbols": ["BOTH", "CLIENT", "NONE"]}},
          {"name": "serverProtocol", "type": ["null", "string"]},
          {"name": "serverHash", "type": ["null", {"type": "fixed", "name": "MD5", "size": 16}]},
          {"name": "meta", "type": ["null", {"type": "map", "values": "bytes"}]}
        ]}"#;
    assert_round_trip(&parse(response));
    // Both define org.apache.avro.ipc.MD5: fine apart, a duplicate when parsed together.
    let request_text = request.to_string();
    let err = Schema::parse_many(&[&request_text, response]).unwrap_err();
    assert_eq!(err.path(), "$[1].fields[2].type[1].name");
    assert!(err.message().contains("org.apache.avro.ipc.MD5"), "{err}");
}

// ------------------------------------------------------------------ names and namespaces

#[test]
fn namespace_inheritance_and_references() {
    // A nested type inherits the enclosing namespace; references are looked up there first.
    let s = parse(
        r#"{"type": "record", "name": "Y", "namespace": "x", "fields": [
            {"name": "e", "type": {"type": "record", "name": "Z", "fields": [
                {"name": "f", "type": "x.Z"}, {"name": "g", "type": "Z"}, {"name": "h", "type": "Y"}]}}]}"#,
    );
    let z = s.lookup("x.Z").unwrap();
    let NodeKind::Record(zr) = s.node(z).kind() else {
        panic!()
    };
    assert_eq!(zr.fields[0].schema, z);
    assert_eq!(zr.fields[1].schema, z);
    assert_eq!(zr.fields[2].schema, s.root_id());

    // An explicit empty namespace is the null namespace; its nested types inherit it.
    let s = parse(
        r#"{"type": "record", "name": "R", "namespace": "outer", "fields": [
            {"name": "s", "type": {"type": "record", "namespace": "", "name": "Z", "fields": [
                {"name": "in", "type": {"type": "enum", "name": "E", "symbols": ["A"]}},
                {"name": "self", "type": ["null", "Z"]}]}},
            {"name": "t", "type": "Z"},
            {"name": "u", "type": "E"}]}"#,
    );
    assert!(s.lookup("Z").is_some() && s.lookup("E").is_some());
    assert!(s.lookup("outer.Z").is_none());
    // The written form keeps "namespace": "" so that it re-parses the same.
    assert_eq!(s.to_json()["fields"][0]["type"]["namespace"], "");
    assert_round_trip(&s);

    // The current namespace wins over the null namespace for a simple name.
    let s = parse(
        r#"{"type": "record", "name": "Top", "fields": [
            {"name": "a", "type": {"type": "fixed", "name": "F", "size": 1}},
            {"name": "b", "type": {"type": "record", "name": "Inner", "namespace": "n", "fields": [
                {"name": "c", "type": {"type": "fixed", "name": "F", "size": 2}},
                {"name": "d", "type": "F"}]}},
            {"name": "e", "type": "F"}]}"#,
    );
    let inner = s.lookup("n.Inner").unwrap();
    let NodeKind::Record(ir) = s.node(inner).kind() else {
        panic!()
    };
    assert_eq!(ir.fields[1].schema, s.lookup("n.F").unwrap());
    let NodeKind::Record(top) = s.root().kind() else {
        panic!()
    };
    assert_eq!(top.fields[2].schema, s.lookup("F").unwrap());
    assert_round_trip(&s);

    // A primitive name is never qualified by a namespace.
    let s = parse(
        r#"{"type": "record", "name": "R", "namespace": "a.b", "fields": [
            {"name": "i", "type": "int"}, {"name": "s", "type": {"type": "string"}}]}"#,
    );
    let NodeKind::Record(r) = s.root().kind() else {
        panic!()
    };
    assert_eq!(s.node(r.fields[0].schema).kind(), &NodeKind::Int);

    // Type aliases are relative to the type's namespace; field aliases are plain strings.
    let s = parse(
        r#"{"type": "record", "name": "a.b", "aliases": ["c", "x.y"], "fields": [
            {"name": "f", "type": "int", "aliases": ["g", "h"]}]}"#,
    );
    let NodeKind::Record(r) = s.root().kind() else {
        panic!()
    };
    let aliases: Vec<&str> = r.aliases.iter().map(Name::fullname).collect();
    assert_eq!(aliases, ["a.c", "x.y"]);
    assert_eq!(r.fields[0].aliases, ["g", "h"]);
    assert_eq!(s.to_json()["aliases"], json!(["c", "x.y"]));
    assert_round_trip(&s);

    // A null-namespace type next to a same-named one in the current namespace, and a
    // null-namespace type whose definition moves (it is written at its first use) out of the
    // record it was defined in: both written back so that they resolve the same.
    for text in [
        r#"{"type":"record","name":"R","namespace":"x","fields":[
            {"name":"a","type":{"type":"fixed","name":"T","namespace":"","size":1}},
            {"name":"b","type":{"type":"fixed","name":"T","size":2}},
            {"name":"c","type":"T"}]}"#,
        r#"{"type":"record","name":"R","namespace":"x","fields":[
            {"name":"c","type":["null","y.U"]},
            {"name":"d","type":{"type":"record","name":"U","namespace":"y","fields":[
                {"name":"t","type":{"type":"fixed","name":"T","namespace":"","size":1}}]}},
            {"name":"e","type":"T"}]}"#,
    ] {
        let s = parse(text);
        let NodeKind::Record(r) = s.root().kind() else {
            panic!()
        };
        let last = r.fields.last().unwrap().schema;
        assert_eq!(s.node(last).name().unwrap().fullname(), {
            if r.fields[0].name == "a" {
                "x.T"
            } else {
                "T"
            }
        });
        assert_round_trip(&s);
    }

    // Complex type keywords may be reused as names.
    let s = parse(
        r#"{"type": "record", "name": "record", "namespace": "n", "fields": [
            {"name": "m", "type": {"type": "enum", "name": "map", "symbols": ["A"]}},
            {"name": "again", "type": "map"}, {"name": "self", "type": ["null", "n.record"]}]}"#,
    );
    assert_round_trip(&s);
}

#[test]
fn forward_references_in_one_document() {
    // `B` is used before the depth-first walk reaches its definition.
    let s = parse(
        r#"{"type": "record", "name": "A", "namespace": "ns", "fields": [
            {"name": "early", "type": ["null", "B"]},
            {"name": "list", "type": {"type": "array", "items": "ns.B"}},
            {"name": "def", "type": {"type": "record", "name": "B", "fields": [
                {"name": "back", "type": ["null", "A"]}]}}]}"#,
    );
    let b = s.lookup("ns.B").unwrap();
    let NodeKind::Record(a) = s.root().kind() else {
        panic!()
    };
    let NodeKind::Union(u) = s.node(a.fields[0].schema).kind() else {
        panic!()
    };
    assert_eq!(u.variants[1], b);
    // Written back, B is defined at its first use.
    let written = s.to_json();
    assert_eq!(written["fields"][0]["type"][1]["type"], "record");
    assert_eq!(written["fields"][2]["type"], "B");
    assert!(s.canonical_form().starts_with(
        r#"{"name":"ns.A","type":"record","fields":[{"name":"early","type":["null",{"name":"ns.B","type":"record""#
    ));
    assert_round_trip(&s);

    // A forward reference with a default that depends on the later definition.
    let s = parse(
        r#"{"type": "record", "name": "A", "fields": [
            {"name": "e", "type": "E", "default": "Y"},
            {"name": "def", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y"]}}]}"#,
    );
    assert_round_trip(&s);
    let (path, _) = reject(
        r#"{"type": "record", "name": "A", "fields": [
            {"name": "e", "type": "E", "default": "Z"},
            {"name": "def", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y"]}}]}"#,
    );
    assert_eq!(path, "$.fields[0].default");
}

#[test]
fn references_across_documents() {
    let person = r#"{"type": "record", "name": "Person", "namespace": "org", "fields": [
        {"name": "employer", "type": ["null", "Company"]}]}"#;
    let company = r#"{"type": "record", "name": "org.Company", "fields": [
        {"name": "ceo", "type": ["null", "Person"]}, {"name": "hq", "type": "org.Address"}]}"#;
    let address = r#"{"type": "record", "name": "Address", "namespace": "org", "fields": [
        {"name": "street", "type": "string"}]}"#;
    // Any order works: every document may refer to every other.
    for order in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [1, 2, 0]] {
        let texts = [person, company, address];
        let input: Vec<&str> = order.iter().map(|&i| texts[i]).collect();
        let schemas = Schema::parse_many(&input).unwrap();
        let pos = |i: usize| order.iter().position(|&o| o == i).unwrap();
        let (p, c, a) = (&schemas[pos(0)], &schemas[pos(1)], &schemas[pos(2)]);
        assert!(p.same_arena(c) && c.same_arena(a));
        assert_eq!(p.lookup("org.Company"), Some(c.root_id()));
        let NodeKind::Record(cr) = c.root().kind() else {
            panic!()
        };
        assert_eq!(cr.fields[1].schema, a.root_id());
        // Written alone, each schema carries the definitions it needs.
        for s in [p, c, a] {
            assert_round_trip(s);
        }
        assert!(p
            .canonical_form()
            .contains(r#"{"name":"org.Address","type":"record""#));
    }
    // A name nobody defines is an error naming the document.
    let err = Schema::parse_many(&[person, address]).unwrap_err();
    assert_eq!(err.path(), "$[0].fields[0].type[1]");
    assert!(err.message().contains("Company"), "{err}");
    // Empty input, empty output.
    assert!(Schema::parse_many(&[]).unwrap().is_empty());
}

#[test]
fn invalid_names() {
    for (text, path) in [
        (r#"{"type":"record","name":"R-1","fields":[]}"#, "$.name"),
        (r#"{"type":"record","name":"a..b","fields":[]}"#, "$.name"),
        (r#"{"type":"record","name":".a","fields":[]}"#, "$.name"),
        (r#"{"type":"record","name":"a.","fields":[]}"#, "$.name"),
        (r#"{"type":"record","name":"","fields":[]}"#, "$.name"),
        (r#"{"type":"enum","name":"é","symbols":["A"]}"#, "$.name"),
        (
            r#"{"type":"fixed","name":"F","namespace":"1x","size":1}"#,
            "$.namespace",
        ),
        (
            r#"{"type":"fixed","name":"F","namespace":"a..b","size":1}"#,
            "$.namespace",
        ),
        (
            r#"{"type":"fixed","name":"F","namespace":7,"size":1}"#,
            "$.namespace",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a b","type":"int"}]}"#,
            "$.fields[0].name",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"1","type":"int"}]}"#,
            "$.fields[0].name",
        ),
        (
            r#"{"type":"enum","name":"E","symbols":["A","B-C"]}"#,
            "$.symbols[1]",
        ),
        (
            r#"{"type":"enum","name":"E","symbols":["A",1]}"#,
            "$.symbols[1]",
        ),
        // Primitive names may not be defined, in any namespace.
        (r#"{"type":"record","name":"int","fields":[]}"#, "$.name"),
        (r#"{"type":"fixed","name":"x.string","size":1}"#, "$.name"),
        (
            r#"{"type":"enum","name":"null","namespace":"n","symbols":["A"]}"#,
            "$.name",
        ),
        (
            r#"{"type":"array","items":{"type":"record","name":"ok","fields":[{"name":"x","type":{"type":"enum","name":"bad name","symbols":[]}}]}}"#,
            "$.items.fields[0].type.name",
        ),
    ] {
        let (got, msg) = reject(text);
        assert_eq!(got, path, "{text}: {msg}");
    }
    // The namespace attribute is ignored (not validated) when the name is a fullname.
    let s = parse(r#"{"type":"record","name":"a.b.C","namespace":"not valid!","fields":[]}"#);
    assert_eq!(s.root().name().unwrap().fullname(), "a.b.C");
    // Any string is accepted as an alias, as the specification says.
    parse(r#"{"type":"record","name":"R","aliases":["not-a-name", "a..b"],"fields":[]}"#);
}

// ------------------------------------------------------------------ invalid schemas and error paths

#[test]
fn error_paths() {
    let cases = [
        // (schema, path, part of the message)
        ("{", "$", "invalid JSON"),
        ("", "$", "invalid JSON"),
        ("42", "$", "a schema must be"),
        ("null", "$", "a schema must be"),
        (r#""Nope""#, "$", "unknown type \"Nope\""),
        (r#"{"type":"nope"}"#, "$.type", "unknown type \"nope\""),
        (r#"{"type":"array"}"#, "$", "\"items\""),
        (r#"{"type":"map"}"#, "$", "\"values\""),
        (r#"{"type":"record","name":"R"}"#, "$", "\"fields\""),
        (
            r#"{"type":"record","name":"R","fields":{}}"#,
            "$.fields",
            "array",
        ),
        (r#"{"type":"enum","name":"E"}"#, "$", "\"symbols\""),
        (
            r#"{"type":"enum","name":"E","symbols":"A B"}"#,
            "$.symbols",
            "array",
        ),
        (r#"{"type":"fixed","name":"F"}"#, "$", "\"size\""),
        (
            r#"{"type":"fixed","name":"F","size":-1}"#,
            "$.size",
            "non-negative",
        ),
        (
            r#"{"type":"fixed","name":"F","size":1.5}"#,
            "$.size",
            "non-negative",
        ),
        (
            r#"{"type":"fixed","name":"F","size":"x"}"#,
            "$.size",
            "non-negative",
        ),
        (r#"{"type":"fixed","size":4}"#, "$", "needs a \"name\""),
        (
            r#"{"type":"record","name":["R"],"fields":[]}"#,
            "$.name",
            "string",
        ),
        (r#"{"name":"x"}"#, "$", "\"type\""),
        (r#"{"type":{"type":"int"}}"#, "$.type", "type name"),
        (r#"{"type":7}"#, "$.type", "string"),
        (r#"["int","int"]"#, "$[1]", "two branches"),
        (
            r#"["null",{"type":"array","items":"int"},{"type":"array","items":"long"}]"#,
            "$[2]",
            "array",
        ),
        (
            r#"[{"type":"map","values":"int"},{"type":"map","values":"long"}]"#,
            "$[1]",
            "map",
        ),
        (
            r#"["int",{"type":"int","logicalType":"date"}]"#,
            "$[1]",
            "int",
        ),
        (r#"["null",["int"]]"#, "$[1]", "union"),
        (
            r#"[{"type":"fixed","name":"F","size":1},"F"]"#,
            "$[1]",
            "named type \"F\"",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]}"#,
            "$.fields[1].name",
            "duplicate field name \"a\"",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"type":"int"}]}"#,
            "$.fields[0]",
            "needs a \"name\"",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a"}]}"#,
            "$.fields[0]",
            "needs a \"type\"",
        ),
        (
            r#"{"type":"record","name":"R","fields":["a"]}"#,
            "$.fields[0]",
            "must be an object",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"up"}]}"#,
            "$.fields[0].order",
            "ascending",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"ASCENDING"}]}"#,
            "$.fields[0].order",
            "ascending",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","aliases":"b"}]}"#,
            "$.fields[0].aliases",
            "array",
        ),
        (
            r#"{"type":"record","name":"R","aliases":[1],"fields":[]}"#,
            "$.aliases[0]",
            "string",
        ),
        (
            r#"{"type":"enum","name":"E","symbols":["A","A"]}"#,
            "$.symbols[1]",
            "duplicate enum symbol",
        ),
        (
            r#"{"type":"enum","name":"E","symbols":["A"],"default":"B"}"#,
            "$.default",
            "not one of its symbols",
        ),
        (
            r#"{"type":"enum","name":"E","symbols":["A"],"default":0}"#,
            "$.default",
            "symbols",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"fixed","name":"F","size":1}},{"name":"b","type":{"type":"fixed","name":"F","size":1}}]}"#,
            "$.fields[1].type.name",
            "defined twice",
        ),
        (
            r#"{"type":"record","name":"n.R","fields":[{"name":"r","type":{"type":"record","name":"R","fields":[]}}]}"#,
            "$.fields[0].type.name",
            "\"n.R\" is defined twice",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"map","values":{"type":"array","items":"Missing"}}}]}"#,
            "$.fields[0].type.values.items",
            "unknown type \"Missing\"",
        ),
        (
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"record"}]}"#,
            "$.fields[0].type",
            "{\"type\": \"record\"",
        ),
    ];
    for (text, path, needle) in cases {
        let (got, msg) = reject(text);
        assert_eq!(got, path, "{text}: {msg}");
        assert!(
            msg.contains(needle),
            "{text}: message {msg:?} lacks {needle:?}"
        );
    }
    // Display puts kind, message and path together.
    let err =
        Schema::parse_str(r#"{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}"#)
            .unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.starts_with("invalid schema: unknown type \"Nope\""),
        "{shown}"
    );
    assert!(shown.ends_with(" at $.fields[0].type"), "{shown}");
    // Invalid JSON keeps serde_json's error as the source.
    let err = Schema::parse_str("{\"type\": }").unwrap_err();
    assert!(std::error::Error::source(&err).is_some());
    // Inputs of parse_many are numbered.
    let err = Schema::parse_many(&[r#""int""#, "{"]).unwrap_err();
    assert_eq!(err.path(), "$[1]");
    let err = Schema::parse_many(&[
        r#""int""#,
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}"#,
    ])
    .unwrap_err();
    assert_eq!(err.path(), "$[1].fields[0].type");
}

// ------------------------------------------------------------------ defaults

#[test]
fn field_defaults() {
    fn with_default(ty: &str, default: &str) -> String {
        format!(
            r#"{{"type":"record","name":"R","fields":[{{"name":"f","type":{ty},"default":{default}}}]}}"#
        )
    }
    let fixed2 = r#"{"type":"fixed","name":"F","size":2}"#;
    let enm = r#"{"type":"enum","name":"E","symbols":["A","B"]}"#;
    let rec = r#"{"type":"record","name":"S","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}]}"#;
    let valid = [
        (r#""null""#, "null"),
        (r#""boolean""#, "true"),
        (r#""int""#, "-2147483648"),
        (r#""int""#, "2147483647"),
        (r#""long""#, "-9223372036854775808"),
        (r#""long""#, "9223372036854775807"),
        (r#""float""#, "1.5"),
        (r#""float""#, "1"),
        (r#""double""#, "-0.0"),
        (r#""double""#, "1e300"),
        (r#""double""#, r#""NaN""#),
        (r#""float""#, r#""Infinity""#),
        (r#""double""#, r#""-Infinity""#),
        (r#""bytes""#, r#""\u00ff\u0000a""#),
        (r#""bytes""#, r#""""#),
        (r#""string""#, r#""é€😀""#),
        (fixed2, r#""\u00ffa""#),
        (enm, r#""B""#),
        (r#"{"type":"array","items":"int"}"#, "[1,2,3]"),
        (r#"{"type":"array","items":"int"}"#, "[]"),
        (r#"{"type":"map","values":"long"}"#, r#"{"a":1,"b":-2}"#),
        (r#"["null","int"]"#, "null"),
        (r#"["int","null"]"#, "3"),
        (r#"[{"type":"array","items":"int"},"null"]"#, "[1]"),
        (rec, r#"{"a":1}"#),
        (rec, r#"{"a":1,"b":"y","extra":true}"#),
        (r#"{"type":"int","logicalType":"date"}"#, "19000"),
        (
            r#"{"type":"array","items":{"type":"record","name":"P","fields":[{"name":"u","type":["null","string"]}]}}"#,
            r#"[{"u":null},{"u":null}]"#,
        ),
    ];
    for (ty, default) in valid {
        let text = with_default(ty, default);
        let s = Schema::parse_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let NodeKind::Record(r) = s.root().kind() else {
            panic!()
        };
        let expected: Value = serde_json::from_str(default).unwrap();
        assert_eq!(r.fields[0].default.as_ref(), Some(&expected), "{text}");
        assert_round_trip(&s);
    }
    let invalid = [
        (r#""null""#, "0", "$.fields[0].default"),
        (r#""boolean""#, "0", "$.fields[0].default"),
        (r#""int""#, "2147483648", "$.fields[0].default"),
        (r#""int""#, "1.5", "$.fields[0].default"),
        (r#""int""#, r#""1""#, "$.fields[0].default"),
        (r#""long""#, "9223372036854775808", "$.fields[0].default"),
        (r#""long""#, "1.0", "$.fields[0].default"),
        (r#""float""#, r#""1.5""#, "$.fields[0].default"),
        (r#""double""#, "null", "$.fields[0].default"),
        (r#""bytes""#, r#""\u0100""#, "$.fields[0].default"),
        (r#""bytes""#, "[1]", "$.fields[0].default"),
        (r#""string""#, "1", "$.fields[0].default"),
        (fixed2, r#""a""#, "$.fields[0].default"),
        (fixed2, r#""abc""#, "$.fields[0].default"),
        (fixed2, r#""a\u0100""#, "$.fields[0].default"),
        (enm, r#""C""#, "$.fields[0].default"),
        (
            r#"{"type":"array","items":"int"}"#,
            r#"[1,"2"]"#,
            "$.fields[0].default[1]",
        ),
        (
            r#"{"type":"array","items":"int"}"#,
            "{}",
            "$.fields[0].default",
        ),
        (
            r#"{"type":"map","values":"long"}"#,
            r#"{"a":1,"b":"x"}"#,
            "$.fields[0].default[\"b\"]",
        ),
        (r#"["null","int"]"#, "1", "$.fields[0].default"),
        (r#"["int","null"]"#, "null", "$.fields[0].default"),
        ("[]", "null", "$.fields[0].default"),
        (rec, r#"{"b":"y"}"#, "$.fields[0].default"),
        (rec, r#"{"a":"1"}"#, "$.fields[0].default.a"),
        (rec, "[]", "$.fields[0].default"),
    ];
    for (ty, default, path) in invalid {
        let text = with_default(ty, default);
        let (got, msg) = reject(&text);
        assert_eq!(got, path, "{text}: {msg}");
        assert!(msg.contains("default"), "{msg}");
    }
    let (_, msg) = reject(&with_default(r#"["null","int"]"#, "1"));
    assert!(msg.contains("first branch"), "{msg}");
    // Defaults of nested records are checked too, wherever they are.
    let (path, _) = reject(
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":
            {"type":"record","name":"S","fields":[{"name":"x","type":"int","default":"no"}]}}}]}"#,
    );
    assert_eq!(path, "$.fields[0].type.items.fields[0].default");
}

// ------------------------------------------------------------------ logical types

#[test]
fn logical_types() {
    let valid = [
        (
            r#"{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}"#,
            LogicalType::Decimal {
                precision: 9,
                scale: 2,
            },
        ),
        (
            r#"{"type":"bytes","logicalType":"decimal","precision":3}"#,
            LogicalType::Decimal {
                precision: 3,
                scale: 0,
            },
        ),
        (
            r#"{"type":"bytes","logicalType":"decimal","precision":5,"scale":5}"#,
            LogicalType::Decimal {
                precision: 5,
                scale: 5,
            },
        ),
        (
            r#"{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":18}"#,
            LogicalType::Decimal {
                precision: 18,
                scale: 0,
            },
        ),
        (
            r#"{"type":"fixed","name":"D","size":16,"logicalType":"decimal","precision":38,"scale":10}"#,
            LogicalType::Decimal {
                precision: 38,
                scale: 10,
            },
        ),
        (
            r#"{"type":"bytes","logicalType":"big-decimal"}"#,
            LogicalType::BigDecimal,
        ),
        (
            r#"{"type":"string","logicalType":"uuid"}"#,
            LogicalType::Uuid,
        ),
        (
            r#"{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}"#,
            LogicalType::Uuid,
        ),
        (r#"{"type":"int","logicalType":"date"}"#, LogicalType::Date),
        (
            r#"{"type":"int","logicalType":"time-millis"}"#,
            LogicalType::TimeMillis,
        ),
        (
            r#"{"type":"long","logicalType":"time-micros"}"#,
            LogicalType::TimeMicros,
        ),
        (
            r#"{"type":"long","logicalType":"timestamp-millis"}"#,
            LogicalType::TimestampMillis,
        ),
        (
            r#"{"type":"long","logicalType":"timestamp-micros"}"#,
            LogicalType::TimestampMicros,
        ),
        (
            r#"{"type":"long","logicalType":"timestamp-nanos"}"#,
            LogicalType::TimestampNanos,
        ),
        (
            r#"{"type":"long","logicalType":"local-timestamp-millis"}"#,
            LogicalType::LocalTimestampMillis,
        ),
        (
            r#"{"type":"long","logicalType":"local-timestamp-micros"}"#,
            LogicalType::LocalTimestampMicros,
        ),
        (
            r#"{"type":"long","logicalType":"local-timestamp-nanos"}"#,
            LogicalType::LocalTimestampNanos,
        ),
        (
            r#"{"type":"fixed","name":"Dur","size":12,"logicalType":"duration"}"#,
            LogicalType::Duration,
        ),
    ];
    for (text, logical) in valid {
        let s = parse(text);
        assert_eq!(s.root().logical, Some(logical), "{text}");
        assert!(s.root().prop("logicalType").is_none(), "{text}");
        assert!(s.root().prop("precision").is_none(), "{text}");
        assert_eq!(s.to_json()["logicalType"], logical.name(), "{text}");
        assert_round_trip(&s);
        // The canonical form is that of the underlying type.
        let mut plain: Value = serde_json::from_str(text).unwrap();
        for key in ["logicalType", "precision", "scale"] {
            plain.as_object_mut().unwrap().remove(key);
        }
        assert_eq!(
            s.canonical_form(),
            parse(&plain.to_string()).canonical_form(),
            "{text}"
        );
    }
    // Invalid or unknown: ignored, kept as properties, written back as they were.
    let invalid = [
        r#"{"type":"bytes","logicalType":"decimal","precision":2,"scale":5}"#,
        r#"{"type":"bytes","logicalType":"decimal","precision":0}"#,
        r#"{"type":"bytes","logicalType":"decimal"}"#,
        r#"{"type":"bytes","logicalType":"decimal","precision":-1}"#,
        r#"{"type":"bytes","logicalType":"decimal","precision":4,"scale":-1}"#,
        r#"{"type":"bytes","logicalType":"decimal","precision":4.5}"#,
        r#"{"type":"bytes","logicalType":"decimal","precision":"4"}"#,
        r#"{"type":"bytes","logicalType":"decimal","precision":4294967296}"#,
        r#"{"type":"fixed","name":"D","size":2,"logicalType":"decimal","precision":5}"#,
        r#"{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":19}"#,
        r#"{"type":"fixed","name":"D","size":0,"logicalType":"decimal","precision":1}"#,
        r#"{"type":"string","logicalType":"decimal","precision":4}"#,
        r#"{"type":"fixed","name":"B","size":8,"logicalType":"big-decimal"}"#,
        r#"{"type":"bytes","logicalType":"uuid"}"#,
        r#"{"type":"fixed","name":"U","size":15,"logicalType":"uuid"}"#,
        r#"{"type":"string","logicalType":"date"}"#,
        r#"{"type":"long","logicalType":"date"}"#,
        r#"{"type":"long","logicalType":"time-millis"}"#,
        r#"{"type":"int","logicalType":"time-micros"}"#,
        r#"{"type":"int","logicalType":"timestamp-millis"}"#,
        r#"{"type":"fixed","name":"Dur","size":16,"logicalType":"duration"}"#,
        r#"{"type":"bytes","logicalType":"duration"}"#,
        r#"{"type":"long","logicalType":"not-a-real-type"}"#,
        r#"{"type":"long","logicalType":7}"#,
        r#"{"type":"long","logicalType":"Timestamp-Millis"}"#,
        r#"{"type":"record","name":"R","fields":[],"logicalType":"date"}"#,
        r#"{"type":"enum","name":"E","symbols":["A"],"logicalType":"uuid"}"#,
        r#"{"type":"array","items":"int","logicalType":"date"}"#,
        r#"{"type":"map","values":"int","logicalType":"date"}"#,
    ];
    for text in invalid {
        let s = parse(text);
        assert_eq!(s.root().logical, None, "{text}");
        let original: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            s.root().prop("logicalType"),
            original.get("logicalType"),
            "{text}"
        );
        assert_eq!(s.to_json(), original, "{text}");
        assert_round_trip(&s);
    }
    // Nested in a record: same behaviour, and the canonical form drops all of it.
    let s = parse(
        r#"{"type":"record","name":"R","fields":[
            {"name":"ok","type":{"type":"long","logicalType":"timestamp-millis"}},
            {"name":"bad","type":{"type":"string","logicalType":"date","x":1}}]}"#,
    );
    assert_eq!(
        s.canonical_form(),
        r#"{"name":"R","type":"record","fields":[{"name":"ok","type":"long"},{"name":"bad","type":"string"}]}"#
    );
    assert_round_trip(&s);
}

// ------------------------------------------------------------------ writing back

#[test]
fn to_json_keeps_everything() {
    let text = r#"{
      "type": "record", "name": "Doc", "namespace": "com.example",
      "doc": "a record", "aliases": ["Old", "other.Older"],
      "x-first": 1,
      "fields": [
        {"name": "id", "type": "long", "doc": "the id", "order": "descending", "x-prop": true},
        {"name": "name", "type": {"type": "string", "avro.java.string": "String"}, "default": "n", "aliases": ["title"]},
        {"name": "score", "type": "double", "default": 1.5, "order": "ignore"},
        {"name": "raw", "type": "bytes", "default": "\u00ff\u0000"},
        {"name": "e", "type": {"type": "enum", "name": "E", "doc": "an enum", "symbols": ["A", "B"], "default": "B", "aliases": ["F"], "z": "y"}, "default": "A"},
        {"name": "f", "type": {"type": "fixed", "name": "F", "namespace": "other", "size": 4, "aliases": ["G", "com.example.H"]}},
        {"name": "again", "type": ["null", "other.F", "E"], "default": null},
        {"name": "odd_doc", "type": "int", "doc": ["not", "a", "string"]}
      ],
      "x-last": {"k": [1, 2]}
    }"#;
    let s = parse(text);
    let expected = json!({
      "type": "record", "name": "Doc", "namespace": "com.example",
      "doc": "a record", "aliases": ["Old", "other.Older"],
      "fields": [
        {"name": "id", "type": "long", "doc": "the id", "order": "descending", "x-prop": true},
        {"name": "name", "type": {"type": "string", "avro.java.string": "String"}, "default": "n", "aliases": ["title"]},
        {"name": "score", "type": "double", "default": 1.5, "order": "ignore"},
        {"name": "raw", "type": "bytes", "default": "\u{ff}\u{0}"},
        {"name": "e", "type": {"type": "enum", "name": "E", "doc": "an enum", "aliases": ["F"], "symbols": ["A", "B"], "default": "B", "z": "y"}, "default": "A"},
        {"name": "f", "type": {"type": "fixed", "name": "F", "namespace": "other", "aliases": ["G", "com.example.H"], "size": 4}},
        {"name": "again", "type": ["null", "other.F", "E"], "default": null},
        {"name": "odd_doc", "type": "int", "doc": ["not", "a", "string"]}
      ],
      "x-first": 1,
      "x-last": {"k": [1, 2]}
    });
    assert_eq!(s.to_json(), expected);
    // Key order, custom properties in document order included.
    assert_eq!(s.to_json().to_string(), expected.to_string());
    assert_eq!(
        s.root()
            .props
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>(),
        ["x-first", "x-last"]
    );
    let NodeKind::Record(r) = s.root().kind() else {
        panic!()
    };
    assert_eq!(r.doc.as_deref(), Some("a record"));
    assert_eq!(r.fields[0].doc.as_deref(), Some("the id"));
    assert_eq!(r.fields[7].doc, None);
    let NodeKind::Fixed(f) = s.node(r.fields[5].schema).kind() else {
        panic!()
    };
    let aliases: Vec<&str> = f.aliases.iter().map(Name::fullname).collect();
    assert_eq!(aliases, ["other.G", "com.example.H"]);
    assert_round_trip(&s);
    // Display is the compact JSON.
    assert_eq!(s.to_string(), expected.to_string());
}

#[test]
fn sub_schemas_and_shared_primitives() {
    let s = parse(
        r#"{"type":"record","name":"R","namespace":"n","fields":[
            {"name":"a","type":"int"},{"name":"b","type":{"type":"int"}},
            {"name":"c","type":{"type":"record","name":"S","fields":[{"name":"r","type":["null","R"]}]}},
            {"name":"d","type":"S"}]}"#,
    );
    let NodeKind::Record(r) = s.root().kind() else {
        panic!()
    };
    // A bare primitive is one node, however it is written.
    assert_eq!(r.fields[0].schema, r.fields[1].schema);
    assert_eq!(r.fields[2].schema, r.fields[3].schema);
    // A sub-schema written alone defines what it needs, in its own namespace context.
    let sub = s.at(r.fields[2].schema);
    assert_eq!(
        sub.to_json(),
        json!({"type":"record","name":"S","namespace":"n","fields":[{"name":"r","type":["null",
            {"type":"record","name":"R","fields":[
              {"name":"a","type":"int"},{"name":"b","type":"int"},
              {"name":"c","type":"S"},{"name":"d","type":"S"}]}]}]})
    );
    assert_round_trip(&sub);
    assert_eq!(sub, sub.clone());
    assert_ne!(sub, s);
    // Equality is by canonical form, across arenas.
    assert_eq!(parse(r#"{"type":"int","x":1}"#), parse(r#""int""#));
}

#[test]
fn fixed_size_as_string_of_digits() {
    // INTEGERS: "eliminate quotes around and any leading zeros in front of JSON integer literals".
    let s = parse(r#"{"type":"fixed","name":"F","size":"016"}"#);
    assert_eq!(
        s.canonical_form(),
        r#"{"name":"F","type":"fixed","size":16}"#
    );
    assert_eq!(s.to_json()["size"], 16);
}

#[test]
fn unusual_but_valid() {
    // `{"type": "Name"}` refers to a defined type, as Java accepts.
    let s = parse(
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"enum","name":"E","symbols":["X"]}},
            {"name":"b","type":{"type":"E"}}]}"#,
    );
    let NodeKind::Record(r) = s.root().kind() else {
        panic!()
    };
    assert_eq!(r.fields[0].schema, r.fields[1].schema);
    // Empty union, empty record, empty enum, fixed of size 0, error type at top level.
    for text in [
        "[]",
        r#"{"type":"record","name":"R","fields":[]}"#,
        r#"{"type":"enum","name":"E","symbols":[]}"#,
        r#"{"type":"fixed","name":"F","size":0}"#,
        r#"{"type":"error","name":"Oops","fields":[{"name":"m","type":"string"}]}"#,
        r#"{"type":"record","name":"R","namespace":null,"aliases":null,"fields":[]}"#,
        r#"{"type":"enum","name":"E","symbols":["A"],"default":null}"#,
        r#"{"type":"string","doc":"a doc on a primitive is a custom property"}"#,
    ] {
        assert_round_trip(&parse(text));
    }
}

// ------------------------------------------------------------------ limits and hostile input

/// `{"type": "array", "items": inner}`, built without `json!`, which would serialise `inner`
/// again (recursively) at every level.
fn array_of(inner: Value) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("type".into(), "array".into());
    m.insert("items".into(), inner);
    Value::Object(m)
}

fn nested_arrays(depth: usize) -> Value {
    (0..depth).fold(json!("int"), |v, _| array_of(v))
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    // Text input is bounded by serde_json's recursion limit.
    let deep_text = "[".repeat(100_000);
    assert_eq!(
        Schema::parse_str(&deep_text).unwrap_err().kind(),
        ErrorKind::Schema
    );
    let deep_text = r#"{"type":"array","items":"#.repeat(10_000);
    assert_eq!(
        Schema::parse_str(&deep_text).unwrap_err().kind(),
        ErrorKind::Schema
    );

    // A built JSON value can be deeper: the parser has its own limit. (Deep values are leaked
    // rather than dropped: serde_json drops them recursively, which is not what is tested.)
    let v = nested_arrays(500);
    let ok = Schema::parse_json(&v).unwrap();
    // (Not through text: serde_json would refuse to read it back.)
    let written = ok.to_json();
    let again = Schema::parse_json(&written).unwrap();
    assert_eq!(again.canonical_form(), ok.canonical_form());
    std::mem::forget((v, written));
    let v = nested_arrays(600);
    let err = Schema::parse_json(&v).unwrap_err();
    assert!(err.message().contains("schema nested deeper"), "{err}");
    assert_eq!(err.kind(), ErrorKind::Schema);
    let v = nested_arrays(20_000);
    let err = Schema::parse_json(&v).unwrap_err();
    assert!(err.message().contains("JSON nested deeper"), "{err}");
    assert_eq!(err.kind(), ErrorKind::Schema);
    std::mem::forget(v);

    // Nested records and unions.
    let mut v = json!("int");
    for i in 0..20_000 {
        let mut field = serde_json::Map::new();
        field.insert("name".into(), "f".into());
        field.insert("type".into(), Value::Array(vec![json!("null"), v]));
        let mut rec = serde_json::Map::new();
        rec.insert("type".into(), "record".into());
        rec.insert("name".into(), format!("R{i}").into());
        rec.insert("fields".into(), Value::Array(vec![Value::Object(field)]));
        v = Value::Object(rec);
    }
    assert!(Schema::parse_json(&v)
        .unwrap_err()
        .message()
        .contains("deeper"));
    std::mem::forget(v);

    // Deep field defaults of a recursive type: `[{"x": [{"x": [...]}]}]`.
    let with_default = |depth: usize| {
        let default = (0..depth).fold(json!([]), |inner, _| {
            let mut node = serde_json::Map::new();
            node.insert("x".into(), inner);
            Value::Array(vec![Value::Object(node)])
        });
        let mut schema = json!({"type": "record", "name": "R", "fields": [
            {"name": "a", "type": {"type": "record", "name": "A", "fields": [
                {"name": "x", "type": {"type": "array", "items": "A"}}]}},
            {"name": "d", "type": {"type": "array", "items": "A"}}]});
        schema["fields"][1]["default"] = default;
        schema
    };
    let shallow = with_default(30);
    assert_round_trip(&Schema::parse_json(&shallow).unwrap());
    // Within the JSON depth limit, but deeper than the schema walk of the default may go.
    let deep = with_default(400);
    let err = Schema::parse_json(&deep).unwrap_err();
    assert!(err.message().contains("deeper"), "{err}");
    assert!(
        err.path().starts_with("$.fields[1].default[0].x[0].x[0]"),
        "{err}"
    );
    // Far deeper: stopped before anything else looks at it.
    let deeper = with_default(20_000);
    let err = Schema::parse_json(&deeper).unwrap_err();
    assert!(err.message().contains("JSON nested deeper"), "{err}");
    std::mem::forget(deeper);
    // Deep custom properties too (they are cloned into the schema).
    let prop = (0..20_000).fold(json!(1), |v, _| Value::Array(vec![v]));
    let mut schema = json!({"type": "int"});
    schema["x"] = prop;
    assert!(Schema::parse_json(&schema).is_err());
    std::mem::forget(schema);

    // Schemas that would nest too deep only when written back (each document refers to the
    // next, which gets written inline) are rejected too.
    let texts: Vec<String> = (0..40)
        .map(|i| {
            let leaf = if i == 39 { json!("int") } else { json!(format!("T{}", i + 1)) };
            let items = (0..20).fold(leaf, |v, _| array_of(v));
            json!({"type": "record", "name": format!("T{i}"), "fields": [{"name": "f", "type": items}]})
                .to_string()
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let err = Schema::parse_many(&refs).unwrap_err();
    assert!(err.message().contains("deeper"), "{err}");
    assert!(Schema::parse_many(&refs[20..]).is_ok());
}

#[test]
fn deepest_schemas_fit_in_a_small_stack() {
    // The deepest schemas accepted, parsed and written back on a thread with a quarter of the
    // default 2 MiB stack: the recursive walks have room to spare.
    std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| {
            let arrays = nested_arrays(512);
            let records = (0..340).fold(json!("int"), |inner, i| {
                let mut field = serde_json::Map::new();
                field.insert("name".into(), "f".into());
                field.insert("type".into(), inner);
                let mut rec = serde_json::Map::new();
                rec.insert("type".into(), "record".into());
                rec.insert("name".into(), format!("R{i}").into());
                rec.insert("fields".into(), Value::Array(vec![Value::Object(field)]));
                Value::Object(rec)
            });
            for v in [arrays, records] {
                let s = Schema::parse_json(&v).unwrap();
                let written = s.to_json();
                assert!(!s.canonical_form().is_empty());
                let _ = s.fingerprint_rabin();
                std::mem::forget((v, written, s));
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn large_schemas_take_linear_time() {
    // Quadratic checks would take minutes here; linear ones take milliseconds.
    let n = 50_000;
    let branches: Vec<Value> = (0..n)
        .map(|i| json!({"type": "fixed", "name": format!("F{i}"), "size": 1}))
        .collect();
    let union = Schema::parse_json(&Value::Array(branches)).unwrap();
    let NodeKind::Union(u) = union.root().kind() else {
        panic!()
    };
    assert_eq!(u.variants.len(), n);
    let symbols: Vec<String> = (0..n).map(|i| format!("S{i}")).collect();
    let default: Vec<&String> = symbols.iter().rev().collect();
    let schema = json!({"type": "record", "name": "R", "fields": [{"name": "e", "type": {
        "type": "array", "items": {"type": "enum", "name": "E", "symbols": symbols}},
        "default": default}]});
    let started = std::time::Instant::now();
    Schema::parse_json(&schema).unwrap();
    assert!(started.elapsed().as_secs() < 10);
}

#[test]
fn hostile_inputs_do_not_panic() {
    // Every prefix and a few mutations of a schema using every feature.
    let text =
        fs::read_to_string(data_dir().join("upstream/c-schema-tests/pass/interop.avsc")).unwrap();
    for end in 0..text.len() {
        if text.is_char_boundary(end) {
            let _ = Schema::parse_str(&text[..end]);
        }
    }
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        for replacement in [b'"', b'[', b'{', b'}', b',', b'x', b'.', b'1'] {
            let mut mutated = bytes.to_vec();
            mutated[i] = replacement;
            if let Ok(s) = std::str::from_utf8(&mutated) {
                if let Ok(schema) = Schema::parse_str(s) {
                    assert_round_trip(&schema);
                }
            }
        }
    }
    // Odd JSON in every position.
    for odd in [
        "null",
        "true",
        "1",
        "-1",
        "1e999",
        "\"\"",
        "[]",
        "{}",
        "[[]]",
        "{\"type\":null}",
    ] {
        for template in [
            "ODD",
            r#"{"type":ODD}"#,
            r#"{"type":"record","name":ODD,"fields":[]}"#,
            r#"{"type":"record","name":"R","fields":ODD}"#,
            r#"{"type":"record","name":"R","fields":[ODD]}"#,
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":ODD}]}"#,
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":ODD}]}"#,
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":ODD}]}"#,
            r#"{"type":"enum","name":"E","symbols":ODD}"#,
            r#"{"type":"enum","name":"E","symbols":["A"],"default":ODD}"#,
            r#"{"type":"fixed","name":"F","size":ODD}"#,
            r#"{"type":"array","items":ODD}"#,
            r#"{"type":"map","values":ODD}"#,
            r#"["null",ODD]"#,
            r#"{"type":"bytes","logicalType":"decimal","precision":ODD,"scale":ODD}"#,
        ] {
            let text = template.replace("ODD", odd);
            if let Ok(s) = Schema::parse_str(&text) {
                assert_round_trip(&s);
            }
        }
    }
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// Arbitrary JSON built mostly from schema vocabulary, so that the generator reaches deep
    /// into the parser rather than failing at the first attribute.
    fn schemaish() -> impl Strategy<Value = Value> {
        let word = prop::sample::select(vec![
            "null", "boolean", "int", "long", "float", "double", "bytes", "string", "record",
            "error", "enum", "fixed", "array", "map", "A", "B", "n.A", "n", "", "x y", "decimal",
            "uuid", "date", "duration",
        ]);
        let leaf = prop_oneof![
            word.prop_map(|w| json!(w)),
            any::<i64>().prop_map(|n| json!(n)),
            (-5i64..40).prop_map(|n| json!(n)),
            Just(json!(null)),
            Just(json!(true)),
            Just(json!(1.5)),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            let key = prop::sample::select(vec![
                "type",
                "name",
                "namespace",
                "fields",
                "symbols",
                "items",
                "values",
                "size",
                "default",
                "order",
                "aliases",
                "doc",
                "logicalType",
                "precision",
                "scale",
                "x",
            ]);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((key, inner), 0..7).prop_map(|kvs| {
                    Value::Object(kvs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn arbitrary_json_never_panics(v in schemaish()) {
            if let Ok(s) = Schema::parse_json(&v) {
                assert_round_trip(&s);
                let _ = s.fingerprint_rabin();
            }
        }

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,64}") {
            let _ = Schema::parse_str(&s);
        }
    }
}
