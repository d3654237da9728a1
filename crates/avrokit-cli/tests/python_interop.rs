//! Files written by `avrokit random` and `avrokit fromjson`, for every codec and a schema with
//! every type and logical type, read back by Python's fastavro and by the official `avro`
//! package, record by record against `avrokit tojson`'s output (`tests/python/read_back.py`).
//!
//! Needs `python3` with `fastavro` and `avro` (`python3 -m pip install fastavro avro`). Without
//! them the test prints a notice and passes, except under CI (the `CI` environment variable
//! set), where it fails: CI must install them. Codecs a library cannot read here are skipped by
//! the script with a `SKIP` line: avro-py has no xz at all, and snappy and zstandard need
//! optional modules (fastavro: cramjam, zstandard; avro-py: python-snappy, zstandard).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_avrokit");
const CODECS: [&str; 6] = ["null", "deflate", "snappy", "zstandard", "bzip2", "xz"];

fn avrokit(args: &[&str], stdin: Option<&Path>) -> Vec<u8> {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    if let Some(p) = stdin {
        cmd.stdin(fs::File::open(p).unwrap());
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "avrokit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn python_ready() -> bool {
    Command::new("python3")
        .args(["-c", "import fastavro, avro"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn python_libraries_read_what_avrokit_writes() {
    if !python_ready() {
        let msg = "python3 with fastavro and avro is not available (python3 -m pip install fastavro avro)";
        if std::env::var_os("CI").is_some() {
            panic!("{msg}: CI must install them");
        }
        eprintln!("NOTICE: skipping the Python interop test: {msg}");
        return;
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema = manifest.join("tests/data/every-type.avsc");
    let script = manifest.join("tests/python/read_back.py");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-interop");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let s = schema.to_str().unwrap();

    let mut specs: Vec<String> = Vec::new();
    for (i, codec) in CODECS.iter().enumerate() {
        // `random`, with the seed varying by codec so every file holds other values.
        let random: PathBuf = dir.join(format!("random-{codec}.avro"));
        let seed = (1000 + i).to_string();
        let r = random.to_str().unwrap();
        avrokit(
            &[
                "random", "--schema", s, "--count", "150", "--seed", &seed, "--codec", codec, r,
            ],
            None,
        );
        let jsonl = dir.join(format!("random-{codec}.jsonl"));
        fs::write(&jsonl, avrokit(&["tojson", r], None)).unwrap();
        specs.push(format!("{codec}:{r}:{}", jsonl.display()));

        // `fromjson` of that JSON, in small blocks.
        let from = dir.join(format!("fromjson-{codec}.avro"));
        let f = from.to_str().unwrap();
        avrokit(
            &[
                "fromjson",
                "--schema",
                s,
                "--codec",
                codec,
                "--block-size",
                "1024",
                "-",
                f,
            ],
            Some(&jsonl),
        );
        let jsonl2 = dir.join(format!("fromjson-{codec}.jsonl"));
        fs::write(&jsonl2, avrokit(&["tojson", f], None)).unwrap();
        specs.push(format!("{codec}:{f}:{}", jsonl2.display()));
    }

    for lib in ["fastavro", "avro"] {
        let out = Command::new("python3")
            .arg(&script)
            .arg(lib)
            .arg(&schema)
            .args(&specs)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        print!("{stdout}");
        assert!(
            out.status.success(),
            "{lib} disagrees with avrokit:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // With the optional modules .ci/run installs (cramjam, backports.zstd, python-snappy,
        // zstandard), fastavro reads every codec and avro-py every codec but xz, which it lacks.
        // Elsewhere only the codecs Python itself provides are required.
        let required: &[&str] = if std::env::var_os("CI").is_none() {
            &["null", "deflate", "bzip2"]
        } else if lib == "fastavro" {
            &CODECS
        } else {
            &["null", "deflate", "snappy", "zstandard", "bzip2"]
        };
        for &codec in required {
            let checked = stdout
                .lines()
                .filter(|l| l.starts_with(&format!("OK {lib} {codec} ")))
                .count();
            assert_eq!(checked, 2, "{lib} read both {codec} files:\n{stdout}");
        }
    }
}
