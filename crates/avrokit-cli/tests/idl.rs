//! `avrokit idl` and `avrokit idl2schemata` on Java's IDL test files (kept in avrokit-idl's
//! test data).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_avrokit");

fn idl_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../avrokit-idl/tests/data")
        .join(name)
}

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("idl")
        .join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        pipe.write_all(bytes).unwrap();
    }
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn json_file(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn idl_prints_the_protocol() {
    let input = idl_data("input/simple.avdl");
    let out = run(&["idl", arg(&input)], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got, json_file(&idl_data("output/simple.avpr")));
}

#[test]
fn idl_writes_the_output_file_with_import_dirs() {
    let dir = scratch("import");
    let out_file = dir.join("import.avpr");
    let input = idl_data("input/import.avdl");
    let include = idl_data("include");
    let out = run(
        &[
            "idl",
            "--import-dir",
            arg(&include),
            arg(&input),
            arg(&out_file),
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert_eq!(
        json_file(&out_file),
        json_file(&idl_data("output/import.avpr"))
    );

    // Without the import directory, `OnTheClasspath.avdl` cannot be found.
    let out = run(&["idl", arg(&input), arg(&out_file)], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot find the import \"OnTheClasspath.avdl\""),
        "{err}"
    );
    assert!(err.contains("import.avdl:25:14"), "{err}");
}

#[test]
fn idl_of_the_schema_syntax_prints_the_main_schema() {
    let input = idl_data("input/schema_syntax_schema.avdl");
    let out = run(&["idl", arg(&input)], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        got,
        json_file(&idl_data("output/schema_syntax_schema.avsc"))
    );
}

#[test]
fn idl_reads_stdin_and_warns_about_stray_doc_comments() {
    let src = b"protocol P {\n  /** stray */\n}\n";
    let out = run(&["idl", "-"], Some(src));
    assert!(out.status.success());
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["protocol"], "P");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("avrokit: warning: <input>:2:3: warning: Ignoring out-of-place"),
        "{err}"
    );
}

#[test]
fn idl_errors_name_the_place() {
    let dir = scratch("errors");
    let bad = dir.join("bad.avdl");
    fs::write(&bad, "protocol P {\n  record R { Nope n; }\n}\n").unwrap();
    let out_file = dir.join("out.avpr");
    let out = run(&["idl", arg(&bad), arg(&out_file)], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("undefined type \"Nope\""), "{err}");
    assert!(err.contains("bad.avdl:2:14"), "{err}");
    assert!(!out_file.exists(), "no output is left behind on failure");

    let out = run(
        &[
            "idl",
            arg(&idl_data("errors/duplicateNameErrorParsing.avdl")),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("duplicateNameErrorParsing.avdl:11:6"), "{err}");
}

#[test]
fn idl2schemata_writes_one_schema_per_named_type() {
    let dir = scratch("split");
    let input = idl_data("input/simple.avdl");
    let out = run(&["idl2schemata", arg(&input), arg(&dir.join("out"))], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Kind.avsc",
            "MD5.avsc",
            "Status.avsc",
            "TestError.avsc",
            "TestRecord.avsc"
        ]
    );
    // Each file stands alone: TestRecord.avsc has the types it uses in full.
    let record = fs::read_to_string(dir.join("out/TestRecord.avsc")).unwrap();
    let schema = avrokit::Schema::parse_str(&record).unwrap();
    assert_eq!(
        schema.root().name().unwrap().fullname(),
        "org.apache.avro.test.TestRecord"
    );
    let expected = json_file(&idl_data("output/simple.avpr"));
    let kind = avrokit::Schema::parse_str(&fs::read_to_string(dir.join("out/Kind.avsc")).unwrap())
        .unwrap();
    assert_eq!(kind.to_json()["symbols"], expected["types"][0]["symbols"]);
}

#[test]
fn idl2schemata_of_the_schema_syntax() {
    let dir = scratch("split_schema");
    let input = idl_data("input/schema_syntax_schema.avdl");
    let out = run(&["idl2schemata", arg(&input), arg(&dir)], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let status = json_file(&dir.join("Status.avsc"));
    assert_eq!(status["namespace"], "system");
    let update = json_file(&dir.join("StatusUpdate.avsc"));
    assert_eq!(update["fields"][2]["type"]["name"], "Status");
    assert!(
        dir.join("Foo.avsc").exists(),
        "imported schemas are named types too"
    );
}
