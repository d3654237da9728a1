//! `avrokit sql`: queries over local and `s3://` tables (moto's server on 127.0.0.1), the
//! answers checked against the other commands' reading of the same files.

#[path = "../../avrokit-object-store/tests/common/moto.rs"]
mod moto;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_avrokit");

const SCHEMA: &str = r#"{"type":"record","name":"Row","fields":[
    {"name":"id","type":"long"},{"name":"name","type":"string"},
    {"name":"score","type":["null","double"]},
    {"name":"inner","type":{"type":"record","name":"In","fields":[{"name":"k","type":"int"}]}}]}"#;

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sql")
        .join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn output(cmd: &mut Command) -> Output {
    cmd.output().unwrap()
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A random file of [`SCHEMA`] and its records as `tojson` prints them.
fn data(dir: &Path, name: &str, count: &str, codec: &str) -> (PathBuf, Vec<serde_json::Value>) {
    let schema = dir.join("row.avsc");
    fs::write(&schema, SCHEMA).unwrap();
    let file = dir.join(name);
    ok(
        output(Command::new(BIN).args([
            "random",
            "--schema",
            s(&schema),
            "--count",
            count,
            "--seed",
            "9",
            "--codec",
            codec,
            s(&file),
        ])),
        "random",
    );
    let json = ok(
        output(Command::new(BIN).args(["tojson", s(&file)])),
        "tojson",
    );
    let recs = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (file, recs)
}

#[test]
fn queries_answer_as_tojson_reads_the_file() {
    let dir = scratch("local");
    let (file, recs) = data(&dir, "rows.avro", "700", "deflate");
    let table = format!("t={}", s(&file));
    let csv = ok(
        output(Command::new(BIN).args([
            "sql",
            "SELECT count(*) AS n, sum(inner.k) AS k FROM t",
            "--table",
            &table,
            "--format",
            "csv",
        ])),
        "sql",
    );
    let k: i64 = recs.iter().map(|r| r["inner"]["k"].as_i64().unwrap()).sum();
    assert_eq!(csv, format!("n,k\n{},{k}\n", recs.len()));

    // JSON lines, and a directory as the table.
    let jsonl = ok(
        output(Command::new(BIN).args([
            "sql",
            "SELECT id, name FROM t ORDER BY id, name LIMIT 3",
            "--table",
            &format!("t={}", s(&dir)),
            "--format",
            "jsonl",
            "--threads",
            "2",
        ])),
        "sql jsonl",
    );
    let mut ids: Vec<(i64, String)> = recs
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    ids.sort();
    let got: Vec<(i64, String)> = jsonl
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_i64().unwrap(),
                v["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(got, ids[..3]);
}

#[test]
fn queries_come_from_stdin_and_write_with_copy() {
    let dir = scratch("stdin");
    let (file, recs) = data(&dir, "rows.avro", "300", "snappy");
    let copy = dir.join("copy.avro");
    let script = format!(
        "CREATE EXTERNAL TABLE t STORED AS AVRO LOCATION '{}';\n\
         -- copy the rows with a score; then count them\n\
         COPY (SELECT * FROM t WHERE score IS NOT NULL) TO '{}' STORED AS AVRO OPTIONS ('codec' 'deflate');\n\
         SELECT count(*) FROM t WHERE score IS NOT NULL;",
        s(&file),
        s(&copy)
    );
    let mut child = Command::new(BIN)
        .args(["sql", "--format", "csv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = ok(child.wait_with_output().unwrap(), "sql from stdin");
    let scored = recs.iter().filter(|r| !r["score"].is_null()).count();
    // COPY prints its row count, then the SELECT its count.
    assert_eq!(
        out,
        format!("count\n{scored}\ncount(*)\n{scored}\n"),
        "{out}"
    );
    let count = ok(output(Command::new(BIN).args(["count", s(&copy)])), "count");
    assert_eq!(count.trim(), scored.to_string());
    let meta = ok(
        output(Command::new(BIN).args(["getmeta", s(&copy)])),
        "getmeta",
    );
    assert!(meta.contains("avro.codec\tdeflate"), "{meta}");
}

#[test]
fn a_bad_query_or_table_is_one_line_on_stderr() {
    let dir = scratch("errors");
    let (file, _) = data(&dir, "rows.avro", "10", "null");
    for args in [
        vec!["sql", "SELECT nope FROM t", "--table"],
        vec!["sql", "SELECT 1", "--table"],
    ] {
        let mut args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        let table = if args[1] == "SELECT 1" {
            format!("t={}", s(&dir.join("missing.avro")))
        } else {
            format!("t={}", s(&file))
        };
        args.push(table);
        let out = output(Command::new(BIN).args(&args));
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let out = output(Command::new(BIN).args(["sql", "SELECT 1", "--table", "no-equals"]));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn tables_on_s3_urls_are_read_through_the_environment_configuration() {
    let Some(m) = moto::moto() else { return };
    let bucket = m.bucket("sql");
    let dir = scratch("s3");
    let (file, recs) = data(&dir, "rows.avro", "900", "zstandard");
    let env = |c: &mut Command| {
        c.env("AWS_ENDPOINT_URL", m.endpoint())
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ALLOW_HTTP", "true");
    };
    for key in ["t/a.avro", "t/b.avro"] {
        let mut c = Command::new(BIN);
        c.args(["cat", s(&file), &format!("s3://{bucket}/{key}")]);
        env(&mut c);
        ok(output(&mut c), "upload");
    }
    let mut c = Command::new(BIN);
    c.args([
        "sql",
        "SELECT count(*), min(id), max(id) FROM t",
        "--table",
        &format!("t=s3://{bucket}/t/"),
        "--format",
        "csv",
    ]);
    env(&mut c);
    let out = ok(output(&mut c), "sql on s3");
    let ids: Vec<i64> = recs.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    let (min, max) = (ids.iter().min().unwrap(), ids.iter().max().unwrap());
    let line = out.lines().nth(1).unwrap().to_owned();
    assert_eq!(line, format!("{},{min},{max}", 2 * recs.len()));
}
