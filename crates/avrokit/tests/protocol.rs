//! Protocols (`.avpr`): parsing, errors with their JSON path, writing back, and Java's text and
//! MD5.

use avrokit::schema::NodeKind;
use avrokit::Protocol;
use serde_json::{json, Value};

const RICH: &str = include_str!("data/protocol/rich.avpr");
/// `Protocol.toString()` of rich.avpr by Apache Avro Java (1.8.2, Debian's libavro-java).
const RICH_JAVA: &str = include_str!("data/protocol/rich.java.json");
/// `Protocol.getMD5()` of rich.avpr by the same Java.
const RICH_JAVA_MD5: &str = "c8ec1fed312d5d3210454c5e80ec2c29";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn java_text_and_md5_are_javas() {
    let p = Protocol::parse_str(RICH).unwrap();
    assert_eq!(p.to_java_text(), RICH_JAVA.trim_end());
    assert_eq!(hex(&p.md5()), RICH_JAVA_MD5);
    // Written back and read again, nothing changes.
    let again = Protocol::parse_json(&p.to_json()).unwrap();
    assert_eq!(again.to_java_text(), p.to_java_text());
    assert_eq!(again, p);
}

#[test]
fn the_model() {
    let p = Protocol::parse_str(RICH).unwrap();
    assert_eq!(
        (p.name(), p.namespace()),
        ("Rich", Some("org.example.rich"))
    );
    assert_eq!(p.fullname(), "org.example.rich.Rich");
    assert_eq!(p.prop("version"), Some(&json!(3)));
    // Types in definition order; the one defined in a message comes last, as in Java.
    let names: Vec<String> = p
        .types()
        .iter()
        .map(|t| t.root().name().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "org.example.rich.Hash",
            "org.example.rich.Color",
            "Point",
            "org.example.rich.Shape",
            "org.example.other.Inner",
            "org.example.rich.Oops",
            "org.example.rich.Receipt"
        ]
    );
    assert!(p.type_named("Point").is_some() && p.type_named("Nope").is_none());
    let draw = p.message("draw").unwrap();
    assert_eq!(draw.doc.as_deref(), Some("Draws."));
    assert_eq!(draw.props, [("idempotent".to_owned(), json!(true))]);
    assert_eq!(draw.request.len(), 2);
    assert_eq!(draw.request[1].default, Some(json!(2.0)));
    let shape = p.schema(draw.request[0].schema);
    assert_eq!(
        shape.root().name().unwrap().fullname(),
        "org.example.rich.Shape"
    );
    let NodeKind::Record(oops) = p.schema(draw.errors[0]).root().kind().clone() else {
        panic!()
    };
    assert!(oops.is_error);
    let notify = p.message("notify").unwrap();
    assert!(notify.one_way && notify.errors.is_empty());
    assert!(matches!(
        p.schema(notify.response).root().kind(),
        NodeKind::Null
    ));
}

#[test]
fn a_protocol_without_namespace() {
    let p = Protocol::parse_str(r#"{"protocol": "a.b.P", "messages": {}}"#).unwrap();
    assert_eq!(p.namespace(), None);
    assert_eq!(p.fullname(), "a.b.P");
    assert_eq!(
        p.to_json(),
        json!({"protocol": "a.b.P", "types": [], "messages": {}})
    );
    // Java writes the missing namespace as null.
    assert_eq!(
        p.to_java_text(),
        r#"{"protocol":"a.b.P","namespace":null,"types":[],"messages":{}}"#
    );
}

/// The error for `json`, as `path: message`.
fn error(json: Value) -> String {
    let e = Protocol::parse_json(&json).unwrap_err();
    format!("{}: {}", e.path(), e.message())
}

#[test]
fn errors_say_where() {
    let cases = [
        (json!([]), "$: a protocol must be a JSON object"),
        (json!({"types": []}), "$: a protocol needs a \"protocol\" name"),
        (json!({"protocol": 1}), "$.protocol: the protocol name must be a string"),
        (json!({"protocol": "P", "types": {}}), "$.types: \"types\" must be an array"),
        (json!({"protocol": "P", "types": ["int"]}), "$.types[0]: a protocol type must be a schema object"),
        (
            json!({"protocol": "P", "types": [{"type": "record", "name": "R", "fields": [{"name": "a", "type": "Nope"}]}]}),
            "$.types[0].fields[0].type: unknown type \"Nope\"",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"response": "null"}}}),
            "$.messages.m: a message needs a \"request\"",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"request": []}}}),
            "$.messages.m: a message needs a \"response\"",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"request": [{"name": "a", "type": "int", "default": "x"}], "response": "int"}}}),
            "$.messages.m.request[0].default: invalid default \"x\"",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"request": [{"name": "a", "type": "int"}, {"name": "a", "type": "int"}], "response": "int"}}}),
            "$.messages.m.request[1].name: duplicate parameter name \"a\"",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"request": [], "response": "Nope"}}}),
            "$.messages.m.response: unknown type \"Nope\"",
        ),
        (
            json!({"protocol": "P", "types": [{"type": "record", "name": "R", "fields": []}],
                   "messages": {"m": {"request": [], "response": "null", "errors": ["R"]}}}),
            "$.messages.m.errors[0]: a message may only declare error types, found the record \"R\"",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"request": [], "response": "null", "errors": ["Nope"]}}}),
            "$.messages.m.errors[0]: unknown type \"Nope\"",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"request": [], "response": "int", "one-way": true}}}),
            "$.messages.m.response: the response of a one-way message must be \"null\"",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"request": [], "one-way": true, "errors": []}}}),
            "$.messages.m.errors: a one-way message cannot declare errors",
        ),
        (
            json!({"protocol": "P", "messages": {"m": {"request": [], "response": "null", "one-way": "yes"}}}),
            "$.messages.m.one-way: \"one-way\" must be a boolean",
        ),
        (json!({"protocol": "P", "namespace": "a..b"}), "$.namespace: invalid namespace \"a..b\""),
    ];
    for (json, want) in cases {
        let got = error(json.clone());
        assert!(got.starts_with(want), "{json}:\n got  {got}\n want {want}");
    }
    assert!(Protocol::parse_str("{").is_err());
}

#[test]
fn request_records_stay_out_of_the_protocol() {
    // A type named like the records that hold message parameters is no clash.
    let p = Protocol::parse_str(
        r#"{"protocol": "P", "types": [{"type": "record", "name": "__request0", "fields": []}],
            "messages": {"m": {"request": [{"name": "r", "type": "__request0"}], "response": "null"}}}"#,
    )
    .unwrap();
    assert_eq!(p.types().len(), 1);
    assert_eq!(
        p.to_json()["messages"]["m"]["request"][0]["type"],
        "__request0"
    );
}
