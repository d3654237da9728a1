//! What the generator writes for the shapes the corpus test cannot name one by one: recursion,
//! name clashes, keywords, docs, unions and errors. (That the code compiles and gives back its
//! schema is `avrokit-codegen-tests`.)

use avrokit::Schema;
use avrokit_codegen::{Config, DecimalType, Temporal};

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
}

/// The Java IDL test data, copied into `avrokit-idl`.
fn idl_data() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit-idl/tests/data")
}

#[test]
fn idl_files_with_imports_give_every_named_type() {
    let d = idl_data();
    let mut cfg = Config::new();
    cfg.import_dir(d.join("include"));
    let out = cfg.generate_files(&[d.join("input/import.avdl")]).unwrap();
    // Types from the IDL itself, from IDL, protocol and schema imports relative to the file,
    // and from the import directory (`OnTheClasspath.*`).
    for want in [
        "pub struct Bar {",
        "pub struct Foo {",
        "pub struct Baz {",
        "pub struct NestedType {",
        "pub struct FromAfar {",
        "pub struct VeryFar {",
        "pub struct FarAway {",
    ] {
        assert!(out.code.contains(want), "{want}\n--- in ---\n{}", out.code);
    }
    assert_eq!(
        out.code.matches("pub struct Foo {").count(),
        1,
        "{}",
        out.code
    );
    assert!(out.roots.contains(&"Bar".to_owned()), "{:?}", out.roots);
    // Without the import directory, the class-path import is not found, and the error says
    // where it is imported.
    let e = Config::new()
        .generate_files(&[d.join("input/import.avdl")])
        .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("import.avdl:") && text.contains("OnTheClasspath"),
        "{text}"
    );
}

#[test]
fn idl_schema_syntax_names_an_unnamed_main_schema_after_the_file() {
    let d = idl_data();
    let out = Config::new()
        .generate_files(&[d.join("input/schema_syntax_schema.avdl")])
        .unwrap();
    assert!(
        out.code
            .contains("pub type SchemaSyntaxSchema = ::std::vec::Vec<StatusUpdate>;"),
        "{}",
        out.code
    );
    assert_eq!(out.roots.last().unwrap(), "SchemaSyntaxSchema");
    assert!(out.code.contains("pub struct StatusUpdate {"));
}

#[test]
fn protocols_give_their_types_and_mix_with_schemas() {
    let dir = std::env::temp_dir().join(format!("avrokit-codegen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let avpr = dir.join("p.avpr");
    std::fs::write(
        &avpr,
        r#"{"protocol":"P","namespace":"n",
            "types":[{"type":"record","name":"A","fields":[{"name":"x","type":"int"}]},
                     {"type":"error","name":"Oops","fields":[{"name":"why","type":"string"}]}],
            "messages":{"m":{"request":[{"name":"a","type":"A"}],
                             "response":{"type":"record","name":"Late","fields":[]},
                             "errors":["Oops"]}}}"#,
    )
    .unwrap();
    let avsc = dir.join("s.avsc");
    std::fs::write(
        &avsc,
        r#"{"type":"record","name":"S","namespace":"n","fields":[{"name":"a","type":"A"}]}"#,
    )
    .unwrap();
    let bad = dir.join("bad.avpr");
    std::fs::write(&bad, r#"{"protocol":"P","types":[{"type":"record"}]}"#).unwrap();

    let out = Config::new().generate_files(&[&avpr]).unwrap();
    // Every type, also one first defined in a message; no type for the message itself.
    assert_eq!(out.roots, ["A", "Oops", "Late"]);
    assert!(out.code.contains("pub struct Late {}"), "{}", out.code);
    assert!(!out.code.contains("pub struct M"), "{}", out.code);

    // An `.avsc` cannot see a protocol's types: it is parsed with the other schemas only.
    let e = Config::new().generate_files(&[&avpr, &avsc]).unwrap_err();
    assert!(e.to_string().contains("s.avsc"), "{e}");

    let e = Config::new().generate_files(&[&bad]).unwrap_err();
    assert!(e.to_string().contains("bad.avpr"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn decimals_follow_the_configuration() {
    let json = r#"{"type":"record","name":"R","fields":[
        {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
        {"name":"exact","type":{"type":"bytes","logicalType":"big-decimal"}},
        {"name":"maybe","type":["null",{"type":"bytes","logicalType":"decimal","precision":4}]},
        {"name":"fixed","type":{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":9,"scale":2}}]}"#;
    let raw = gen(&Config::new(), json);
    assert!(raw.contains("pub amount: ::serde_bytes::ByteBuf,"), "{raw}");
    let rd = gen(Config::new().decimal(DecimalType::RustDecimal), json);
    // The precision and scale go to the schema; a big-decimal is the type's own schema.
    assert!(
        rd.contains(
            "    #[avro(schema = \"{\\\"type\\\":\\\"bytes\\\",\\\"logicalType\\\":\\\"decimal\\\",\\\"precision\\\":9,\\\"scale\\\":2}\")]\n    pub amount: ::rust_decimal::Decimal,"
        ),
        "{rd}"
    );
    assert!(
        rd.contains("    pub exact: ::rust_decimal::Decimal,"),
        "{rd}"
    );
    assert!(
        !rd.contains(
            "    #[avro(schema = \"{\\\"type\\\":\\\"bytes\\\",\\\"logicalType\\\":\\\"big-decimal"
        ),
        "{rd}"
    );
    assert!(
        rd.contains("pub maybe: ::std::option::Option<::rust_decimal::Decimal>,"),
        "{rd}"
    );
    // A decimal fixed keeps its newtype.
    assert!(rd.contains("pub fixed: F,"), "{rd}");
    let bd = gen(Config::new().decimal(DecimalType::BigDecimal), json);
    assert!(bd.contains("pub amount: ::bigdecimal::BigDecimal,"), "{bd}");
}

/// `crates/avrokit/examples/generated/shop.rs` is what the generator writes for `shop.avdl`
/// (run with `AVROKIT_BLESS=1` to rewrite it after changing the generator or the IDL).
#[test]
fn the_generated_example_is_up_to_date() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit/examples/generated");
    let code = Config::new()
        .generate_files(&[dir.join("shop.avdl")])
        .unwrap()
        .code;
    let file = dir.join("shop.rs");
    if std::env::var_os("AVROKIT_BLESS").is_some() {
        std::fs::write(&file, &code).unwrap();
    }
    let on_disk = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        on_disk == code,
        "{} is out of date: rerun this test with AVROKIT_BLESS=1",
        file.display()
    );
}
