//! pyarrow, an independent reader, against the columnar commands (`tests/python/columnar.py`):
//! the Parquet and Arrow IPC files `toparquet` and `toarrow` write of random records of every
//! type are read by pyarrow and compared value by value with fastavro's reading of the Avro
//! file they came from; and a Parquet file pyarrow writes is converted by `fromparquet` and
//! read back by fastavro, to the same values.
//!
//! Needs `python3` with `pyarrow` and `fastavro` (`python3 -m pip install pyarrow fastavro`).
//! Without them the test prints a notice and passes, except under CI (the `CI` environment
//! variable set), where it fails: CI must install them.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_avrokit");

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{program} {args:?}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn python_ready() -> bool {
    Command::new("python3")
        .args(["-c", "import pyarrow, fastavro"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The top-level fields of `schema` (a record schema file) but `drop`, comma-separated.
fn fields_but(schema: &Path, drop: &[&str]) -> String {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap();
    let names: Vec<&str> = json["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .filter(|n| !drop.contains(n))
        .collect();
    names.join(",")
}

#[test]
fn pyarrow_reads_what_avrokit_writes_and_avrokit_reads_what_pyarrow_writes() {
    if !python_ready() {
        let msg = "python3 with pyarrow and fastavro is not available (python3 -m pip install pyarrow fastavro)";
        if std::env::var_os("CI").is_some() {
            panic!("{msg}: CI must install them");
        }
        eprintln!("NOTICE: skipping the pyarrow interop test: {msg}");
        return;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema = manifest.join("tests/data/every-type.avsc");
    let script = manifest.join("tests/python/columnar.py");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-columnar");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (s, py) = (schema.to_str().unwrap(), script.to_str().unwrap());
    let path = |name: &str| dir.join(name).to_str().unwrap().to_owned();

    let avro = path("random.avro");
    run(
        BIN,
        &[
            "random", "--schema", s, "--count", "600", "--seed", "2026", "--codec", "deflate",
            &avro,
        ],
    );
    // Arrow holds every column but the recursive one; Parquet not the unions and durations.
    let (arrow, parquet, parquet_zstd) = (path("r.arrow"), path("r.parquet"), path("z.parquet"));
    let cols = fields_but(&schema, &["list"]);
    run(
        BIN,
        &[
            "toarrow",
            "--batch-size",
            "128",
            "--columns",
            &cols,
            &avro,
            &arrow,
        ],
    );
    let cols = fields_but(&schema, &["list", "u", "nums", "dur"]);
    run(
        BIN,
        &[
            "toparquet",
            "--row-group-size",
            "250",
            "--columns",
            &cols,
            &avro,
            &parquet,
        ],
    );
    run(
        BIN,
        &[
            "toparquet",
            "--compression",
            "zstd",
            "--columns",
            &cols,
            &avro,
            &parquet_zstd,
        ],
    );
    let out = run(
        "python3",
        &[py, "read", s, &avro, &parquet, &parquet_zstd, &arrow],
    );
    print!("{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("OK read ")).count(), 3);

    let (theirs, ours) = (path("pyarrow.parquet"), path("pyarrow.avro"));
    run("python3", &[py, "write", &theirs]);
    run(BIN, &["fromparquet", "--codec", "deflate", &theirs, &ours]);
    let out = run("python3", &[py, "check", &theirs, &ours]);
    print!("{out}");
    assert!(out.starts_with("OK check "), "{out}");
}
