//! `avrokit codegen`: Rust types for schema, protocol and IDL files, written to a file or stdout; bad inputs are
//! one-line errors with exit code 1 and leave no output file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_avrokit");

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("codegen")
        .join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

#[test]
fn schemas_referring_to_each_other_make_one_file() {
    let dir = scratch("two_files");
    let point = dir.join("point.avsc");
    let shape = dir.join("shape.avsc");
    fs::write(
        &shape,
        r#"{"type":"record","name":"Shape","namespace":"geo","doc":"A shape.",
            "fields":[{"name":"type","type":"string"},
                      {"name":"corners","type":{"type":"array","items":"Point"}}]}"#,
    )
    .unwrap();
    fs::write(
        &point,
        r#"{"type":"record","name":"Point","namespace":"geo",
            "fields":[{"name":"x","type":"double"},{"name":"y","type":["double","null"]}]}"#,
    )
    .unwrap();
    let out = dir.join("geo.rs");
    let o = run(&[
        "codegen",
        shape.to_str().unwrap(),
        point.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let code = fs::read_to_string(&out).unwrap();
    assert!(code.contains("/// A shape.\n"), "{code}");
    assert!(code.contains("pub struct Shape {"), "{code}");
    assert!(
        code.contains("pub r#type: ::std::string::String,"),
        "{code}"
    );
    assert!(
        code.contains("pub corners: ::std::vec::Vec<Point>,"),
        "{code}"
    );
    assert_eq!(code.matches("pub struct Point {").count(), 1, "{code}");
    // Null second: an Option, with the union's order kept for `schema()`.
    assert!(
        code.contains(r#"#[avro(schema = "[\"double\",\"null\"]")]"#),
        "{code}"
    );

    let o = run(&["codegen", point.to_str().unwrap(), "--out", "-"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("pub struct Point {"));
}

#[test]
fn bad_inputs_are_errors_and_leave_no_file() {
    let dir = scratch("bad");
    let bad = dir.join("bad.avsc");
    fs::write(
        &bad,
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"nope"}]}"#,
    )
    .unwrap();
    let idl = dir.join("p.avdl");
    fs::write(&idl, "protocol P {\n  record R { nope a; }\n}").unwrap();
    let out = dir.join("out.rs");
    for input in [&bad, &idl, &dir.join("missing.avsc")] {
        let o = run(&[
            "codegen",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{input:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains(input.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
        assert!(!out.exists());
    }
    // An IDL error names the line and column.
    let o = run(&["codegen", idl.to_str().unwrap(), "--out", "-"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("p.avdl:2:"), "{err}");
}

#[test]
fn idl_with_imports_and_protocols() {
    let dir = scratch("idl");
    let common = dir.join("common");
    fs::create_dir_all(&common).unwrap();
    fs::write(
        common.join("money.avsc"),
        r#"{"type":"fixed","name":"Money","namespace":"shop","size":8}"#,
    )
    .unwrap();
    let idl = dir.join("shop.avdl");
    fs::write(
        &idl,
        r#"@namespace("shop") protocol Shop {
             import schema "money.avsc";
             /** An order. */
             record Order { long id; Money total; union { null, string } note = null; }
             Order get(long id);
           }"#,
    )
    .unwrap();
    let avpr = dir.join("ping.avpr");
    fs::write(
        &avpr,
        r#"{"protocol":"Ping","types":[{"type":"enum","name":"Level","symbols":["LOW","HIGH"]}],
            "messages":{"ping":{"request":[],"response":"Level"}}}"#,
    )
    .unwrap();
    let out = dir.join("shop.rs");
    let o = run(&[
        "codegen",
        "--import-dir",
        common.to_str().unwrap(),
        idl.to_str().unwrap(),
        avpr.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let code = fs::read_to_string(&out).unwrap();
    for want in [
        "/// An order.\n",
        "pub struct Order {",
        "pub total: Money,",
        "pub note: ::std::option::Option<::std::string::String>,",
        "pub struct Money(",
        "pub enum Level {",
    ] {
        assert!(code.contains(want), "{want}\n--- in ---\n{code}");
    }
    // Without the import directory the import is not found.
    let o = run(&["codegen", idl.to_str().unwrap(), "--out", "-"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("money.avsc"));
}

#[test]
fn decimals_map_to_the_type_asked_for() {
    let dir = scratch("decimal");
    let schema = dir.join("price.avsc");
    fs::write(
        &schema,
        r#"{"type":"record","name":"Price","fields":[
            {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}}]}"#,
    )
    .unwrap();
    for (flag, want) in [
        ("raw", "pub amount: ::serde_bytes::ByteBuf,"),
        ("rust-decimal", "pub amount: ::rust_decimal::Decimal,"),
        ("bigdecimal", "pub amount: ::bigdecimal::BigDecimal,"),
    ] {
        let o = run(&[
            "codegen",
            "--decimal",
            flag,
            schema.to_str().unwrap(),
            "--out",
            "-",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let code = String::from_utf8_lossy(&o.stdout);
        assert!(code.contains(want), "{flag}: {code}");
    }
}
