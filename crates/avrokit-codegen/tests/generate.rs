//! What the generator writes for the shapes the corpus test cannot name one by one: recursion,
//! name clashes, keywords, docs, unions and errors. (That the code compiles and gives back its
//! schema is `avrokit-codegen-tests`.)

use avrokit::Schema;
use avrokit_codegen::{Config, Temporal};

fn gen(cfg: &Config, json: &str) -> String {
    let schema = Schema::parse_str(json).unwrap();
    cfg.generate(&[("root", &schema)]).unwrap().code
}

#[test]
fn recursive_types_are_boxed_only_in_the_cycle() {
    let code = gen(
        &Config::new(),
        r#"{"type":"record","name":"Node","fields":[
            {"name":"next","type":["null","Node"]},
            {"name":"children","type":{"type":"array","items":"Node"}},
            {"name":"leaf","type":{"type":"record","name":"Leaf","fields":[{"name":"v","type":"int"}]}}]}"#,
    );
    assert!(
        code.contains("pub next: ::std::option::Option<::std::boxed::Box<Node>>,"),
        "{code}"
    );
    assert!(
        code.contains("pub children: ::std::vec::Vec<Node>,"),
        "{code}"
    );
    assert!(code.contains("pub leaf: Leaf,"), "{code}");
}

#[test]
fn names_are_rust_names_and_keep_their_avro_spelling() {
    let code = gen(
        &Config::new(),
        r#"{"type":"record","name":"outer","namespace":"a","fields":[
            {"name":"type","type":{"type":"record","name":"Item","fields":[]}},
            {"name":"other","type":{"type":"record","name":"Item","namespace":"b","fields":[]}},
            {"name":"camelCase","type":{"type":"enum","name":"Kind","symbols":["FIRST_ONE","self"],"default":"FIRST_ONE"}},
            {"name":"self","type":"long"}]}"#,
    );
    for want in [
        "#[serde(rename = \"outer\")]\n#[avro(name = \"outer\", namespace = \"a\")]\npub struct Outer {",
        "pub struct AItem {}",
        "pub struct BItem {}",
        "pub r#type: AItem,",
        "    #[serde(rename = \"camelCase\")]\n    pub camel_case: Kind,",
        "    #[serde(rename = \"self\")]\n    pub self_: i64,",
        "#[avro(namespace = \"a\", enum_default = \"FIRST_ONE\")]",
        "    #[serde(rename = \"FIRST_ONE\")]\n    FirstOne,",
        "    #[serde(rename = \"self\")]\n    SelfType,",
    ] {
        assert!(code.contains(want), "{want}\n--- in ---\n{code}");
    }
}

#[test]
fn unions_become_options_and_enums_shared_by_shape() {
    let code = gen(
        &Config::new(),
        r#"{"type":"record","name":"R","fields":[
            {"name":"a","type":["int","string"]},
            {"name":"b","type":["int","string"]},
            {"name":"c","type":["null","int","string"]},
            {"name":"d","type":["long","null"]}]}"#,
    );
    assert_eq!(code.matches("pub enum RA {").count(), 1, "{code}");
    assert!(code.contains("pub b: RA,"), "{code}");
    assert!(code.contains("pub c: ::std::option::Option<RA>,"), "{code}");
    assert!(
        code.contains("    Int(i32),\n    String(::std::string::String),"),
        "{code}"
    );
    assert!(
        code.contains("#[avro(schema = \"[\\\"long\\\",\\\"null\\\"]\")]\n    pub d: ::std::option::Option<i64>,"),
        "{code}"
    );
}

#[test]
fn docs_are_rustdoc_safe_for_markdown() {
    let code = gen(
        &Config::new(),
        r#"{"type":"record","name":"R","doc":"Line [one] <b>\n- a list","fields":[]}"#,
    );
    assert!(
        code.contains("/// Line \\[one\\] \\<b\\>\n/// \\- a list\n"),
        "{code}"
    );
    // The exact text goes to the schema.
    assert!(
        code.contains(r#"doc = "Line [one] <b>\n- a list""#),
        "{code}"
    );
    let plain = gen(
        &Config::new(),
        r#"{"type":"record","name":"R","doc":"Plain.","fields":[]}"#,
    );
    assert!(
        plain.contains("/// Plain.\n") && !plain.contains("doc ="),
        "{plain}"
    );
}

#[test]
fn logical_types_follow_the_configuration() {
    let json = r#"{"type":"record","name":"R","fields":[
        {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
        {"name":"day","type":{"type":"int","logicalType":"date"}},
        {"name":"id","type":{"type":"string","logicalType":"uuid"}}]}"#;
    let raw = gen(&Config::new(), json);
    assert!(raw.contains("pub at: i64,") && raw.contains("pub id: ::std::string::String,"));
    let chrono = gen(Config::new().temporal(Temporal::Chrono).uuid(true), json);
    assert!(
        chrono.contains("pub at: ::chrono::DateTime<::chrono::Utc>,"),
        "{chrono}"
    );
    assert!(chrono.contains("pub day: ::chrono::NaiveDate,"), "{chrono}");
    assert!(chrono.contains("pub id: ::uuid::Uuid,"), "{chrono}");
    let time = gen(Config::new().temporal(Temporal::Time), json);
    assert!(time.contains("pub at: ::time::OffsetDateTime,"), "{time}");
}

#[test]
fn errors_name_the_problem() {
    let a = Schema::parse_str(r#"{"type":"fixed","name":"F","size":2}"#).unwrap();
    let b = Schema::parse_str(r#"{"type":"fixed","name":"F","size":3}"#).unwrap();
    let e = Config::new().generate(&[("a", &a), ("b", &b)]).unwrap_err();
    assert!(
        e.to_string()
            .contains("two different definitions of the type F"),
        "{e}"
    );
    let same = Config::new().generate(&[("a", &a), ("a2", &a)]).unwrap();
    assert_eq!(same.code.matches("pub struct F(").count(), 1);
    assert_eq!(same.roots, ["F", "F"]);

    let e = Config::new().generate_files(&["x.avdl"]).unwrap_err();
    assert!(e.to_string().contains("not supported yet"), "{e}");
}
