//! Reader/writer compatibility reports: every incompatibility kind with its path and location,
//! several at once, recursive schemas, both directions.

use avrokit::resolution::{
    check_compatibility, check_mutual, IncompatibilityKind as K, ResolvedPlan,
};
use avrokit::Schema;

fn schema(text: &str) -> Schema {
    Schema::parse_str(text).unwrap_or_else(|e| panic!("{text}\n  -> {e}"))
}

/// (kind, path, location) of every incompatibility of `reader` reading `writer`'s data.
fn report(reader: &str, writer: &str) -> Vec<(K, String, String)> {
    check_compatibility(&schema(reader), &schema(writer))
        .incompatibilities()
        .iter()
        .map(|i| (i.kind(), i.path().to_owned(), i.location().to_owned()))
        .collect()
}

fn one(kind: K, path: &str, location: &str) -> Vec<(K, String, String)> {
    vec![(kind, path.to_owned(), location.to_owned())]
}

fn compatible(reader: &str, writer: &str) -> bool {
    let c = check_compatibility(&schema(reader), &schema(writer));
    // The plan compiler agrees whenever the checker says yes.
    if c.is_compatible() {
        ResolvedPlan::compile(&schema(writer), &schema(reader)).unwrap();
    }
    c.is_compatible()
}

fn record(fields: &str) -> String {
    format!(r#"{{"type":"record","name":"R","fields":[{fields}]}}"#)
}

#[test]
fn name_mismatch() {
    assert_eq!(
        report(
            r#"{"type":"record","name":"R2","fields":[]}"#,
            r#"{"type":"record","name":"R1","fields":[]}"#
        ),
        one(K::NameMismatch, "R2", "/name")
    );
    assert_eq!(
        report(
            &record(r#"{"name":"e","type":{"type":"enum","name":"E2","symbols":["A"]}}"#),
            &record(r#"{"name":"e","type":{"type":"enum","name":"E1","symbols":["A"]}}"#)
        ),
        one(K::NameMismatch, "R.e", "/fields/0/type/name")
    );
    // Aliases and namespaces.
    assert!(compatible(
        r#"{"type":"record","name":"b.R","aliases":["Old"],"fields":[]}"#,
        r#"{"type":"record","name":"a.Old","fields":[]}"#
    ));
    assert!(compatible(
        r#"{"type":"record","name":"b.R","fields":[]}"#,
        r#"{"type":"record","name":"a.R","fields":[]}"#
    ));
}

#[test]
fn fixed_size_mismatch() {
    assert_eq!(
        report(
            &record(r#"{"name":"f","type":{"type":"fixed","name":"F","size":3}}"#),
            &record(r#"{"name":"f","type":{"type":"fixed","name":"F","size":2}}"#)
        ),
        one(K::FixedSizeMismatch, "R.f", "/fields/0/type/size")
    );
    // Name and size both wrong: both reported.
    let r = report(
        r#"{"type":"fixed","name":"G","size":3}"#,
        r#"{"type":"fixed","name":"F","size":2}"#,
    );
    assert_eq!(
        r.iter().map(|x| x.0).collect::<Vec<_>>(),
        [K::NameMismatch, K::FixedSizeMismatch]
    );
}

#[test]
fn missing_enum_symbols() {
    let c = check_compatibility(
        &schema(&record(
            r#"{"name":"a","type":"int"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}}"#,
        )),
        &schema(&record(
            r#"{"name":"a","type":"int"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}"#,
        )),
    );
    let [inc] = c.incompatibilities() else {
        panic!("{c}")
    };
    assert_eq!(inc.kind(), K::MissingEnumSymbols);
    assert_eq!(inc.path(), "R.e");
    assert_eq!(inc.location(), "/fields/1/type/symbols");
    assert!(inc.message().contains("[B, C]"), "{inc}");
    // With a reader default, missing symbols are fine.
    assert!(compatible(
        r#"{"type":"enum","name":"E","symbols":["A","Z"],"default":"Z"}"#,
        r#"{"type":"enum","name":"E","symbols":["A","B"]}"#
    ));
}

#[test]
fn reader_field_missing_default_value() {
    assert_eq!(
        report(
            &record(r#"{"name":"a","type":"int"},{"name":"b","type":"string"}"#),
            &record(r#"{"name":"a","type":"int"}"#)
        ),
        one(K::ReaderFieldMissingDefaultValue, "R.b", "/fields/1")
    );
    assert!(compatible(
        &record(r#"{"name":"a","type":"int"},{"name":"b","type":"string","default":""}"#),
        &record(r#"{"name":"a","type":"int"}"#)
    ));
    // Writer-only fields never matter.
    assert!(compatible(
        &record(""),
        &record(r#"{"name":"a","type":"int"}"#)
    ));
}

#[test]
fn type_mismatch() {
    assert_eq!(
        report(r#""int""#, r#""long""#),
        one(K::TypeMismatch, "", "/")
    );
    assert_eq!(
        report(
            &record(r#"{"name":"xs","type":{"type":"array","items":"int"}}"#),
            &record(r#"{"name":"xs","type":{"type":"array","items":"string"}}"#)
        ),
        one(K::TypeMismatch, "R.xs[]", "/fields/0/type/items")
    );
    assert_eq!(
        report(
            r#"{"type":"map","values":{"type":"array","items":"float"}}"#,
            r#"{"type":"map","values":{"type":"array","items":"double"}}"#
        ),
        one(K::TypeMismatch, "{}[]", "/values/items")
    );
    let c = check_compatibility(&schema(r#""int""#), &schema(r#""long""#));
    assert_eq!(
        c.incompatibilities()[0].message(),
        "writer long cannot be read as int"
    );
}

#[test]
fn missing_union_branch() {
    // Writer union, reader union without the branch: the writer's branch index in the path.
    assert_eq!(
        report(
            &record(r#"{"name":"u","type":["null","string"]}"#),
            &record(r#"{"name":"u","type":["null","int","string"]}"#)
        ),
        one(K::MissingUnionBranch, "R.u[1]", "/fields/0/type/1")
    );
    // Writer non-union, reader union lacking it.
    assert_eq!(
        report(r#"["null","string"]"#, r#""int""#),
        one(K::MissingUnionBranch, "", "/")
    );
    // Writer union read as a non-union: each branch on its own.
    assert_eq!(
        report(r#""string""#, r#"["null","string"]"#),
        one(K::TypeMismatch, "[0]", "/0")
    );
    assert!(compatible(
        r#"["null","string","long"]"#,
        r#"["null","string"]"#
    ));
    assert!(compatible(r#"["null","long"]"#, r#""int""#));
    assert!(compatible(r#""long""#, r#"["int"]"#));
}

#[test]
fn decimal_mismatch() {
    assert_eq!(
        report(
            r#"{"type":"bytes","logicalType":"decimal","precision":6,"scale":3}"#,
            r#"{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}"#
        ),
        one(K::DecimalMismatch, "", "/")
    );
    assert!(compatible(
        r#""bytes""#,
        r#"{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}"#
    ));
}

#[test]
fn invalid_default() {
    // The parser accepts this default (the missing field has a default of its own), but that
    // default refers back to the record forever.
    let reader = r#"{"type":"record","name":"R","fields":[
        {"name":"x","type":{"type":"record","name":"S","fields":[{"name":"s","type":"S","default":{}}]},
         "default":{}}]}"#;
    let writer = r#"{"type":"record","name":"R","fields":[]}"#;
    let r = report(reader, writer);
    assert_eq!(r, one(K::InvalidDefault, "R.x", "/fields/0/default"));
    let err = ResolvedPlan::compile(&schema(writer), &schema(reader)).unwrap_err();
    assert_eq!(err.path(), "R.x");
}

#[test]
fn every_incompatibility_is_reported() {
    let reader = record(
        r#"{"name":"a","type":"int"},
           {"name":"b","type":{"type":"fixed","name":"F","size":4}},
           {"name":"c","type":{"type":"enum","name":"E","symbols":["X"]}},
           {"name":"d","type":["null","string"]},
           {"name":"e","type":{"type":"map","values":"float"}},
           {"name":"new","type":"string"}"#,
    );
    let writer = record(
        r#"{"name":"a","type":"long"},
           {"name":"b","type":{"type":"fixed","name":"F","size":8}},
           {"name":"c","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
           {"name":"d","type":["null","boolean","string","double"]},
           {"name":"e","type":{"type":"map","values":"double"}},
           {"name":"gone","type":"string"}"#,
    );
    let c = check_compatibility(&schema(&reader), &schema(&writer));
    let got: Vec<(K, &str)> = c
        .incompatibilities()
        .iter()
        .map(|i| (i.kind(), i.path()))
        .collect();
    assert_eq!(
        got,
        [
            (K::TypeMismatch, "R.a"),
            (K::FixedSizeMismatch, "R.b"),
            (K::MissingEnumSymbols, "R.c"),
            (K::MissingUnionBranch, "R.d[1]"),
            (K::MissingUnionBranch, "R.d[3]"),
            (K::TypeMismatch, "R.e{}"),
            (K::ReaderFieldMissingDefaultValue, "R.new"),
        ]
    );
    let text = c.to_string();
    assert!(
        text.contains("TYPE_MISMATCH at R.a: writer long cannot be read as int"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 7);
}

#[test]
fn recursive_schemas_terminate() {
    let w = r#"{"type":"record","name":"L","fields":[{"name":"v","type":"long"},{"name":"n","type":["null","L"]}]}"#;
    let r = r#"{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"n","type":["null","L"]}]}"#;
    // Reported once, at the first place the pair is met.
    assert_eq!(report(r, w), one(K::TypeMismatch, "L.v", "/fields/0/type"));
    assert!(compatible(w, r));
}

#[test]
fn mutual_compatibility() {
    let a = record(r#"{"name":"x","type":"int"},{"name":"y","type":"string","default":"-"}"#);
    let b = record(r#"{"name":"x","type":"int"}"#);
    let m = check_mutual(&schema(&a), &schema(&b));
    assert!(m.is_compatible(), "{m:?}");
    let c = record(r#"{"name":"x","type":"long"}"#);
    let m = check_mutual(&schema(&b), &schema(&c));
    assert!(m.b_reads_a.is_compatible());
    assert!(!m.a_reads_b.is_compatible());
    assert!(!m.is_compatible());
}

/// Java's classic compatible / incompatible pairs (TestSchemaCompatibility), reader first.
#[test]
fn java_style_pairs() {
    let yes = [
        (r#""boolean""#, r#""boolean""#),
        (r#""long""#, r#""int""#),
        (r#""float""#, r#""long""#),
        (r#""double""#, r#""float""#),
        (r#""string""#, r#""bytes""#),
        (r#""bytes""#, r#""string""#),
        (
            r#"{"type":"array","items":"long"}"#,
            r#"{"type":"array","items":"int"}"#,
        ),
        (
            r#"{"type":"map","values":"double"}"#,
            r#"{"type":"map","values":"long"}"#,
        ),
        (r#"["int","string"]"#, r#"["string","int"]"#),
        (r#"["null","long"]"#, r#"["null","int"]"#),
        (
            r#"{"type":"enum","name":"E","symbols":["A","B","C"]}"#,
            r#"{"type":"enum","name":"E","symbols":["B","A"]}"#,
        ),
    ];
    for (r, w) in yes {
        assert!(
            compatible(r, w),
            "reader {r} writer {w}: {:?}",
            report(r, w)
        );
    }
    let no = [
        (r#""int""#, r#""float""#),
        (r#""null""#, r#""int""#),
        (
            r#"{"type":"array","items":"int"}"#,
            r#"{"type":"array","items":"long"}"#,
        ),
        (r#"["int"]"#, r#"["int","string"]"#),
        (r#""int""#, r#"["int","string"]"#),
        (
            r#"{"type":"enum","name":"E","symbols":["A"]}"#,
            r#"{"type":"enum","name":"E","symbols":["A","B"]}"#,
        ),
    ];
    for (r, w) in no {
        assert!(!compatible(r, w), "reader {r} writer {w}");
    }
}
