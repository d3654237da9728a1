//! The read and write commands on `s3://` URLs, against a real S3-compatible server (moto's,
//! on 127.0.0.1), configured the way users configure object_store: `AWS_ENDPOINT_URL`,
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ALLOW_HTTP`.
//!
//! Skipped with a message when moto's server cannot start, unless `CI` is set.

#[path = "../../avrokit-object-store/tests/common/moto.rs"]
mod moto;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_avrokit");

const SCHEMA: &str = r#"{"type":"record","name":"Row","fields":[
    {"name":"id","type":"long"},{"name":"name","type":"string"},
    {"name":"score","type":["null","double"]},{"name":"tags","type":{"type":"array","items":"string"}}]}"#;

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("remote")
        .join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the binary against the server `m`.
fn run(m: &moto::Moto, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("AWS_ENDPOINT_URL", m.endpoint())
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ALLOW_HTTP", "true")
        .output()
        .unwrap()
}

/// Runs and expects success; stdout.
fn ok(m: &moto::Moto, args: &[&str]) -> String {
    let out = run(m, args);
    assert!(
        out.status.success(),
        "avrokit {args:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs and expects exit code 1 with one line on stderr; the line.
fn fails(m: &moto::Moto, args: &[&str]) -> String {
    let out = run(m, args);
    assert_eq!(out.status.code(), Some(1), "avrokit {args:?}: {out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn read_commands_take_s3_urls_and_write_commands_upload() {
    let Some(m) = moto::moto() else { return };
    let bucket = m.bucket("cli");
    let dir = scratch("s3");
    let schema = dir.join("row.avsc");
    fs::write(&schema, SCHEMA).unwrap();
    let local = dir.join("local.avro");
    ok(
        m,
        &[
            "random",
            "--schema",
            s(&schema),
            "--count",
            "5000",
            "--seed",
            "3",
            "--codec",
            "zstandard",
            s(&local),
        ],
    );
    let url = format!("s3://{bucket}/data/a.avro");

    // Write: `cat` to an s3:// output (a multipart upload), then read it back.
    ok(m, &["cat", s(&local), &url]);
    let expected = ok(m, &["tojson", s(&local)]);
    assert_eq!(expected.lines().count(), 5000);
    assert_eq!(ok(m, &["tojson", &url]), expected);
    assert_eq!(ok(m, &["count", &url]).trim(), "5000");
    assert_eq!(
        ok(m, &["getschema", &url]),
        ok(m, &["getschema", s(&local)])
    );
    let meta = ok(m, &["getmeta", "--key", "avro.codec", &url]);
    assert_eq!(meta.trim(), "zstandard");

    // Splits of the remote file give every record once.
    let mut lines = String::new();
    for (start, end) in [(0, 3000), (3000, 40_000), (40_000, 1u64 << 40)] {
        lines += &ok(
            m,
            &[
                "split-read",
                "--start",
                &start.to_string(),
                "--end",
                &end.to_string(),
                &url,
            ],
        );
    }
    assert_eq!(lines, expected);

    // `cat` of remote inputs into another remote output.
    let url2 = format!("s3://{bucket}/data/twice.avro");
    ok(m, &["cat", &url, &url, &url2]);
    assert_eq!(ok(m, &["count", &url2]).trim(), "10000");

    // `fromjson` to s3://.
    let jsonl = dir.join("rows.jsonl");
    fs::write(&jsonl, &expected).unwrap();
    let url3 = format!("s3://{bucket}/data/fromjson.avro");
    ok(
        m,
        &[
            "fromjson",
            "--schema",
            s(&schema),
            "--codec",
            "snappy",
            s(&jsonl),
            &url3,
        ],
    );
    assert_eq!(ok(m, &["tojson", &url3]), expected);

    // The columnar commands: Avro from s3:// to Parquet and Arrow IPC, and Parquet back to
    // an s3:// Avro file.
    let parquet = dir.join("a.parquet");
    ok(m, &["toparquet", &url, s(&parquet)]);
    let arrow = dir.join("a.arrow");
    ok(m, &["toarrow", "--columns", "id", &url, s(&arrow)]);
    assert!(fs::metadata(&arrow).unwrap().len() > 0);
    let url4 = format!("s3://{bucket}/data/fromparquet.avro");
    ok(m, &["fromparquet", s(&parquet), &url4]);
    assert_eq!(ok(m, &["tojson", &url4]), expected);
    assert_eq!(m.uploads_in_progress(&bucket), 0);
}

#[test]
fn remote_failures_are_one_line_errors_and_leave_no_object() {
    let Some(m) = moto::moto() else { return };
    let bucket = m.bucket("clierr");
    let dir = scratch("s3err");
    let schema = dir.join("row.avsc");
    fs::write(&schema, SCHEMA).unwrap();

    let err = fails(m, &["count", &format!("s3://{bucket}/missing.avro")]);
    assert!(err.contains("missing.avro"), "{err}");

    // A bad record in the middle of the input: the command fails, the upload is aborted.
    let good = r#"{"id":1,"name":"a","score":null,"tags":[]}"#;
    let mut text = String::new();
    for _ in 0..1000 {
        text += good;
        text += "\n";
    }
    text += "{\"id\":\"not a long\"}\n";
    let jsonl = dir.join("bad.jsonl");
    fs::write(&jsonl, text).unwrap();
    let url = format!("s3://{bucket}/never.avro");
    fails(m, &["fromjson", "--schema", s(&schema), s(&jsonl), &url]);
    let err = fails(m, &["count", &url]);
    assert!(err.contains("never.avro"), "{err}");
    assert_eq!(m.uploads_in_progress(&bucket), 0);

    // A URL of a scheme no store has is a usage error (exit 2).
    let out = run(m, &["count", "ftp://host/x.avro"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
