//! End-to-end tests of the `avrokit` binary: every subcommand on the interoperability corpus
//! (`crates/avrokit/tests/data/interop/`), round trips through every codec, and the error
//! contract (one stderr line, exit 1 for bad input, 2 for bad usage, 70 for a panic, never
//! 101; bounded time and memory on malformed files).

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value as J;

const BIN: &str = env!("CARGO_BIN_EXE_avrokit");
const CODECS: [&str; 6] = ["null", "deflate", "snappy", "zstandard", "bzip2", "xz"];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit/tests/data/interop")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the binary with `args` and optional stdin.
fn run_with(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        let mut w = child.stdin.take().unwrap();
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = w.write_all(&input);
        });
    }
    child.wait_with_output().unwrap()
}

fn run(args: &[&str]) -> Output {
    run_with(args, None)
}

/// Runs and asserts success; returns stdout.
fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "avrokit {args:?} failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Asserts a failure with `code` and exactly one `avrokit: error:` line on stderr.
fn fails(out: &Output, code: i32) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.starts_with("avrokit: error: "), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "stderr: {err}");
    assert!(err.ends_with('\n'));
    err
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// JSON equality as the corpus README says: integers exactly, other numbers as equal doubles
/// or as equal floats (the printer writes a float's shortest form), everything else exactly.
fn json_eq(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Number(x), J::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                return x == y;
            }
            if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                return x == y;
            }
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || x as f32 == y as f32
        }
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn parse_lines(text: &str) -> Vec<J> {
    text.split('\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect()
}

fn assert_lines_eq(got: &str, want: &str, what: &str) {
    let (g, w) = (parse_lines(got), parse_lines(want));
    assert_eq!(g.len(), w.len(), "{what}: record count");
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!(
            json_eq(a, b),
            "{what}: record {i} differs:\n got {a}\nwant {b}"
        );
    }
}

/// Every container file of the corpus with its manifest record count.
fn corpus_files() -> Vec<(PathBuf, u64)> {
    let text = fs::read_to_string(corpus().join("data/MANIFEST.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (corpus().join(cols[0]), cols[3].parse().unwrap())
        })
        .collect()
}

fn meta_of(avro: &Path) -> J {
    let meta = avro.with_extension("meta.json");
    serde_json::from_str(&fs::read_to_string(meta).unwrap()).unwrap()
}

#[test]
fn tojson_matches_every_corpus_file() {
    let files = corpus_files();
    assert!(files.len() > 50);
    for (avro, _) in &files {
        let got = ok(&["tojson", p(avro)]);
        let want = fs::read_to_string(avro.with_extension("jsonl")).unwrap();
        assert_lines_eq(&got, &want, &avro.display().to_string());
    }
}

#[test]
fn count_matches_the_manifest() {
    for (avro, records) in corpus_files() {
        assert_eq!(
            ok(&["count", p(&avro)]).trim(),
            records.to_string(),
            "{}",
            avro.display()
        );
    }
}

#[test]
fn getschema_and_getmeta_match_the_expected_metadata() {
    for (avro, _) in corpus_files() {
        let meta = meta_of(&avro);
        let schema: J = serde_json::from_str(&ok(&["getschema", p(&avro)])).unwrap();
        assert_eq!(schema, meta["schema"], "{}", avro.display());

        let text = ok(&["getmeta", p(&avro)]);
        let entries: Vec<(&str, &str)> = text
            .lines()
            .map(|l| l.split_once('\t').expect("key<TAB>value"))
            .collect();
        let codec = entries
            .iter()
            .find(|(k, _)| *k == "avro.codec")
            .map(|(_, v)| *v);
        if meta["codec_in_header"] == J::Bool(true) {
            assert_eq!(codec, meta["codec"].as_str(), "{}", avro.display());
        }
        for (k, v) in meta["metadata"].as_object().unwrap() {
            let v = v.as_str().unwrap();
            if v.chars().any(char::is_control) {
                continue; // escaped by getmeta: compared by the --key test below
            }
            assert!(
                entries.contains(&(k.as_str(), v)),
                "{}: {k}",
                avro.display()
            );
        }
        assert!(entries.iter().any(|(k, _)| *k == "avro.schema"));
    }
}

#[test]
fn getmeta_key_prints_the_raw_value() {
    let avro = corpus().join("data/fastavro/events-deflate.avro");
    assert_eq!(
        ok(&["getmeta", "--key", "avro.codec", p(&avro)]),
        "deflate\n"
    );
    let out = run(&["getmeta", "--key", "no.such.key", p(&avro)]);
    fails(&out, 1);
}

#[test]
fn stdin_and_stdout_dashes() {
    let avro = corpus().join("data/fastavro/events-snappy.avro");
    let bytes = fs::read(&avro).unwrap();
    let out = run_with(&["tojson", "-"], Some(&bytes));
    assert!(out.status.success());
    assert_eq!(out.stdout, ok(&["tojson", p(&avro)]).into_bytes());
    let out = run_with(&["count", "-"], Some(&bytes));
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "500");
    // A schema from stdin.
    let out = run_with(
        &["canonical", "-"],
        Some(br#"{"type": "array", "items": "int"}"#),
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"type\":\"array\",\"items\":\"int\"}\n"
    );
}

/// The schema and records of one corpus file, as files in `dir`.
fn events(dir: &Path) -> (PathBuf, PathBuf) {
    let avro = corpus().join("data/fastavro/events-null.avro");
    let schema = dir.join("events.avsc");
    fs::write(&schema, ok(&["getschema", p(&avro)])).unwrap();
    (schema, avro.with_extension("jsonl"))
}

#[test]
fn fromjson_tojson_round_trip_through_every_codec() {
    let dir = scratch("fromjson");
    let (schema, jsonl) = events(&dir);
    let want = fs::read_to_string(&jsonl).unwrap();
    for codec in CODECS {
        let out = dir.join(format!("{codec}.avro"));
        ok(&[
            "fromjson",
            "--schema",
            p(&schema),
            "--codec",
            codec,
            "--block-size",
            "2048",
            p(&jsonl),
            p(&out),
        ]);
        assert_eq!(
            ok(&["getmeta", "--key", "avro.codec", p(&out)]),
            format!("{codec}\n")
        );
        assert_lines_eq(&ok(&["tojson", p(&out)]), &want, codec);
    }
    // Levels, and the pipeline through stdin and stdout.
    for (codec, level) in [
        ("deflate", "9"),
        ("zstandard", "-1"),
        ("bzip2", "1"),
        ("xz", "0"),
    ] {
        let out = run_with(
            &[
                "fromjson",
                "--schema",
                p(&schema),
                "--codec",
                codec,
                "--level",
                level,
                "-",
                "-",
            ],
            Some(want.as_bytes()),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let back = run_with(&["tojson", "-"], Some(&out.stdout));
        assert_lines_eq(&String::from_utf8(back.stdout).unwrap(), &want, codec);
    }
}

#[test]
fn fromjson_errors_name_the_line_and_leave_no_file() {
    let dir = scratch("fromjson-errors");
    let (schema, jsonl) = events(&dir);
    let mut text = fs::read_to_string(&jsonl).unwrap();
    text.insert_str(text.find('\n').unwrap() + 1, "\n{\"id\": \"not a long\"}\n");
    let bad = dir.join("bad.jsonl");
    fs::write(&bad, text).unwrap();
    let out_file = dir.join("out.avro");
    let err = fails(
        &run(&["fromjson", "--schema", p(&schema), p(&bad), p(&out_file)]),
        1,
    );
    assert!(err.contains("line 3"), "{err}");
    assert!(!out_file.exists(), "a failed command removes its output");

    // Usage errors: a level the codec does not have, an unknown codec, level out of range.
    for args in [
        vec!["--codec", "snappy", "--level", "3"],
        vec!["--codec", "lzo"],
        vec!["--codec", "deflate", "--level", "12"],
    ] {
        let mut all = vec!["fromjson", "--schema", p(&schema)];
        all.extend(args);
        all.extend([p(&jsonl), p(&out_file)]);
        fails(&run(&all), 2);
    }
}

#[test]
fn cat_concat_recodec() {
    let dir = scratch("cat");
    let null = corpus().join("data/fastavro/events-null.avro");
    let snappy = corpus().join("data/fastavro/events-snappy.avro");
    let deflate = corpus().join("data/fastavro/events-deflate.avro");
    let want_one = fs::read_to_string(null.with_extension("jsonl")).unwrap();
    let want_two = format!("{want_one}{want_one}");

    let out = dir.join("cat.avro");
    ok(&["cat", p(&null), p(&snappy), p(&out)]);
    assert_eq!(ok(&["count", p(&out)]).trim(), "1000");
    assert_lines_eq(&ok(&["tojson", p(&out)]), &want_two, "cat");
    assert_eq!(ok(&["getmeta", "--key", "avro.codec", p(&out)]), "null\n");

    ok(&[
        "cat",
        "--offset",
        "490",
        "--limit",
        "25",
        "--codec",
        "xz",
        p(&null),
        p(&snappy),
        p(&out),
    ]);
    let lines: Vec<&str> = want_one.lines().collect();
    let want: String = lines[490..]
        .iter()
        .chain(&lines[..15])
        .map(|l| format!("{l}\n"))
        .collect();
    assert_lines_eq(&ok(&["tojson", p(&out)]), &want, "cat --offset --limit");
    assert_eq!(ok(&["getmeta", "--key", "avro.codec", p(&out)]), "xz\n");

    let out = dir.join("concat.avro");
    ok(&["concat", p(&null), p(&null), p(&out)]);
    assert_eq!(ok(&["count", p(&out)]).trim(), "1000");
    assert_lines_eq(&ok(&["tojson", p(&out)]), &want_two, "concat");
    let err = fails(&run(&["concat", p(&null), p(&deflate), p(&out)]), 1);
    assert!(err.contains("codec"), "{err}");
    let other = corpus().join("data/fastavro/enums.avro");
    let err = fails(&run(&["concat", p(&null), p(&other), p(&out)]), 1);
    assert!(err.contains("schema"), "{err}");
    let err = fails(&run(&["cat", p(&null), p(&other), p(&out)]), 1);
    assert!(err.contains("schema"), "{err}");

    for codec in CODECS {
        let out = dir.join(format!("recodec-{codec}.avro"));
        ok(&["recodec", "--codec", codec, p(&deflate), p(&out)]);
        assert_eq!(
            ok(&["getmeta", "--key", "avro.codec", p(&out)]),
            format!("{codec}\n")
        );
        assert_lines_eq(&ok(&["tojson", p(&out)]), &want_one, codec);
    }

    // The output may not be an input: it would be truncated before being read.
    let same = dir.join("cat.avro");
    fails(&run(&["recodec", "--codec", "null", p(&same), p(&same)]), 2);
    fails(&run(&["cat", p(&null), p(&same), p(&same)]), 2);
    assert_eq!(
        ok(&["count", p(&same)]).trim(),
        "25",
        "the refused output is untouched"
    );
}

#[test]
fn random_is_deterministic_with_a_seed() {
    let dir = scratch("random");
    let schema = data("every-type.avsc");
    let file = |name: &str, seed: &str, codec: &str| {
        let out = dir.join(name);
        ok(&[
            "random",
            "--schema",
            p(&schema),
            "--count",
            "300",
            "--seed",
            seed,
            "--codec",
            codec,
            p(&out),
        ]);
        fs::read(out).unwrap()
    };
    for codec in CODECS {
        let a = file("a.avro", "42", codec);
        let b = file("b.avro", "42", codec);
        let c = file("c.avro", "43", codec);
        assert_eq!(a, b, "{codec}: same seed, same bytes");
        assert_ne!(a, c, "{codec}: another seed, other bytes");
        assert_eq!(ok(&["count", p(&dir.join("a.avro"))]).trim(), "300");
        // Every generated record reads back and prints.
        assert_eq!(
            parse_lines(&ok(&["tojson", p(&dir.join("a.avro"))])).len(),
            300
        );
    }
    // Through JSON and back: fromjson reads what tojson printed, to the same records.
    let json = ok(&["tojson", p(&dir.join("a.avro"))]);
    let back = run_with(
        &["fromjson", "--schema", p(&schema), "-", "-"],
        Some(json.as_bytes()),
    );
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    let again = run_with(&["tojson", "-"], Some(&back.stdout));
    assert_eq!(String::from_utf8(again.stdout).unwrap(), json);
}

#[test]
fn writing_commands_compress_on_threads_to_the_same_file() {
    let dir = scratch("write-threads");
    let schema = data("every-type.avsc");
    for codec in CODECS.iter().filter(|c| **c != "null") {
        let file = |threads: &str| {
            let out = dir.join(format!("t{threads}.avro"));
            ok(&[
                "random",
                "--schema",
                p(&schema),
                "--count",
                "3000",
                "--seed",
                "7",
                "--codec",
                codec,
                "--threads",
                threads,
                p(&out),
            ]);
            fs::read(out).unwrap()
        };
        let one = file("1");
        assert_eq!(file("3"), one, "{codec}: random --threads 3");
        // Blocks from records re-encoded by `cat` and `recodec`, on threads, read back the same.
        let src = dir.join("t1.avro");
        let (cat, recodec) = (dir.join("cat.avro"), dir.join("recodec.avro"));
        ok(&["cat", "--codec", codec, "--threads", "2", p(&src), p(&cat)]);
        ok(&[
            "recodec",
            "--codec",
            codec,
            "--threads",
            "2",
            p(&src),
            p(&recodec),
        ]);
        let json = ok(&["tojson", p(&src)]);
        assert_eq!(json.lines().count(), 3000);
        assert_eq!(ok(&["tojson", p(&cat)]), json, "{codec}: cat --threads 2");
        assert_eq!(
            ok(&["tojson", p(&recodec)]),
            json,
            "{codec}: recodec --threads 2"
        );
    }
    let bad = run(&[
        "random",
        "--schema",
        p(&schema),
        "--count",
        "1",
        "--threads",
        "0",
        "-",
    ]);
    assert!(!bad.status.success(), "--threads 0 is refused");
}

#[test]
fn split_read_yields_every_record_once() {
    let dir = scratch("split");
    let (schema, jsonl) = events(&dir);
    let file = dir.join("small-blocks.avro");
    ok(&[
        "fromjson",
        "--schema",
        p(&schema),
        "--block-size",
        "700",
        p(&jsonl),
        p(&file),
    ]);
    let len = fs::metadata(&file).unwrap().len();
    let whole = ok(&["tojson", p(&file)]);
    assert_eq!(whole.lines().count(), 500);
    // Cut points of several partitions, including cuts inside the header and sync markers.
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for parts in [1, 2, 3, 7, 19] {
        let mut cuts: Vec<u64> = (0..parts - 1)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng % len
            })
            .collect();
        cuts.extend([0, len]);
        cuts.sort_unstable();
        let mut joined = String::new();
        for w in cuts.windows(2) {
            joined += &ok(&[
                "split-read",
                "--start",
                &w[0].to_string(),
                "--end",
                &w[1].to_string(),
                p(&file),
            ]);
        }
        assert_eq!(joined, whole, "{parts} parts at {cuts:?}");
    }
    fails(
        &run(&["split-read", "--start", "5", "--end", "1", p(&file)]),
        2,
    );
    fails(&run(&["split-read", "--start", "0", "--end", "9", "-"]), 2);
}

/// `--threads` decodes blocks on worker threads: tojson, count and split-read print exactly
/// what one thread prints, in the same order, with a reader schema too, and a corrupt block
/// gives the same records before the same error.
#[test]
fn threads_print_what_one_thread_prints() {
    let dir = scratch("threads");
    let (schema, jsonl) = events(&dir);
    for codec in ["null", "deflate", "zstandard"] {
        let file = dir.join(format!("{codec}.avro"));
        ok(&[
            "fromjson",
            "--schema",
            p(&schema),
            "--codec",
            codec,
            "--block-size",
            "600",
            p(&jsonl),
            p(&file),
        ]);
        let one = ok(&["tojson", "--threads", "1", p(&file)]);
        assert_eq!(one.lines().count(), 500);
        for n in ["2", "5"] {
            assert_eq!(
                ok(&["tojson", "--threads", n, p(&file)]),
                one,
                "{codec} x{n}"
            );
            assert_eq!(ok(&["count", "--threads", n, p(&file)]), "500\n");
            let len = fs::metadata(&file).unwrap().len().to_string();
            let mid = (fs::metadata(&file).unwrap().len() / 2).to_string();
            let split = |t: &str| {
                ok(&[
                    "split-read",
                    "--start",
                    "0",
                    "--end",
                    &mid,
                    "--threads",
                    t,
                    p(&file),
                ]) + &ok(&[
                    "split-read",
                    "--start",
                    &mid,
                    "--end",
                    &len,
                    "--threads",
                    t,
                    p(&file),
                ])
            };
            assert_eq!(split(n), one, "{codec} split x{n}");
        }
        // From stdin, with the default number of threads.
        let piped = run_with(&["tojson", "-"], Some(&fs::read(&file).unwrap()));
        assert_eq!(String::from_utf8(piped.stdout).unwrap(), one);
    }
    // A reader schema, resolved on the workers: the same as on one thread.
    let file = dir.join("deflate.avro");
    let reader = dir.join("reader.avsc");
    let mut s: J = serde_json::from_str(&fs::read_to_string(&schema).unwrap()).unwrap();
    let fields = s["fields"].as_array_mut().unwrap();
    fields.reverse();
    fields.push(serde_json::json!({"name": "added", "type": "string", "default": "d"}));
    fs::write(&reader, s.to_string()).unwrap();
    let one = ok(&[
        "tojson",
        "--threads",
        "1",
        "--reader-schema",
        p(&reader),
        p(&file),
    ]);
    assert!(
        one.lines().all(|l| l.ends_with(r#""added":"d"}"#)),
        "{}",
        &one[..200]
    );
    assert_eq!(
        ok(&[
            "tojson",
            "--threads",
            "3",
            "--reader-schema",
            p(&reader),
            p(&file)
        ]),
        one
    );

    // A corrupt block in the middle: the same output before the same error.
    let mut bad = fs::read(dir.join("null.avro")).unwrap();
    let at = bad.len() * 2 / 3;
    bad[at..at + 40].fill(0xff);
    let bad_file = dir.join("bad.avro");
    fs::write(&bad_file, &bad).unwrap();
    let one = run(&["tojson", "--threads", "1", p(&bad_file)]);
    let err = fails(&one, 1);
    let three = run(&["tojson", "--threads", "3", p(&bad_file)]);
    assert_eq!(fails(&three, 1), err);
    assert_eq!(three.stdout, one.stdout);
    assert!(!one.stdout.is_empty());
    let count_err = fails(&run(&["count", "--threads", "2", p(&bad_file)]), 1);
    assert!(count_err.contains("block"), "{count_err}");
    fails(&run(&["tojson", "--threads", "0", p(&file)]), 2);
}

#[test]
fn canonical_and_fingerprints() {
    // From the corpus's schemas/canonical-forms.json (the first entry).
    let schema = data("array-holder.avsc");
    let canonical = ok(&["canonical", p(&schema)]);
    assert!(canonical.starts_with(
        r#"{"name":"com.example.interop.ArrayHolder","type":"record","fields":[{"name":"ints""#
    ));
    assert_eq!(ok(&["fingerprint", p(&schema)]), "b1ffac8384200857\n");
    assert_eq!(
        ok(&["fingerprint", "--algorithm", "rabin", p(&schema)]),
        "b1ffac8384200857\n"
    );
    assert_eq!(
        ok(&["fingerprint", "--algorithm", "md5", p(&schema)]),
        "ee460c72da1b86e8289be3a4a1ab0906\n"
    );
    assert_eq!(
        ok(&["fingerprint", "--algorithm", "sha256", p(&schema)]),
        "2f45261d4ac2738fff78617c20c400e19fb6f58212b642742d2046ab70ee26a5\n"
    );
    let err = fails(
        &run_with(&["canonical", "-"], Some(b"{\"type\": \"nope\"}")),
        1,
    );
    assert!(err.contains("<stdin>"), "{err}");
}

#[test]
fn compat_exit_codes() {
    let dir = scratch("compat");
    let w = dir.join("w.avsc");
    let r = dir.join("r.avsc");
    fs::write(&w, r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"long"}]}"#).unwrap();
    fs::write(&r, r#"{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"c","type":"string","default":"x"}]}"#).unwrap();
    assert_eq!(
        ok(&["compat", "--reader", p(&r), "--writer", p(&w)]),
        "compatible\n"
    );
    let out = run(&["compat", "--reader", p(&w), "--writer", p(&r)]);
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(report.starts_with("incompatible\n"), "{report}");
    assert!(report.contains("TYPE_MISMATCH at R.a"), "{report}");
    assert!(
        report.contains("READER_FIELD_MISSING_DEFAULT_VALUE at R.b"),
        "{report}"
    );
    assert!(out.stderr.is_empty());
    fails(
        &run(&[
            "compat",
            "--reader",
            p(&dir.join("missing.avsc")),
            "--writer",
            p(&w),
        ]),
        1,
    );
}

#[test]
fn tojson_with_a_reader_schema_follows_the_resolution_cases() {
    let cases =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit/tests/data/resolution/cases");
    let mut checked = 0;
    for entry in fs::read_dir(cases).unwrap() {
        let dir = entry.unwrap().path();
        let case: J =
            serde_json::from_str(&fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        if case
            .get("ambiguous")
            .is_some_and(|a| a != &J::Null && a != &J::Bool(false))
        {
            continue; // the library's own tests cover the acceptable readings
        }
        let (reader, input) = (dir.join("reader.avsc"), dir.join("input.avro"));
        let out = run(&["tojson", "--reader-schema", p(&reader), p(&input)]);
        if dir.join("expected.error").exists() {
            fails(&out, 1);
        } else {
            assert!(
                out.status.success(),
                "{}: {}",
                dir.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            let want = fs::read_to_string(dir.join("expected.jsonl")).unwrap();
            assert_lines_eq(
                &String::from_utf8(out.stdout).unwrap(),
                &want,
                &dir.display().to_string(),
            );
        }
        checked += 1;
    }
    assert!(checked > 30);
}

/// Runs `avrokit ARGS` under a 1 GiB address-space limit, killed after 20 s.
fn run_bounded(args: &[&str]) -> (Output, Duration) {
    let mut cmd = String::from("ulimit -v 1048576; exec \"$0\"");
    for i in 0..args.len() {
        cmd.push_str(&format!(" \"${}\"", i + 1));
    }
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .arg(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drain both pipes on threads so a chatty child cannot block on a full pipe.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("avrokit {args:?} did not finish within 20 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = Output {
        status,
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    };
    (out, start.elapsed())
}

#[test]
fn malformed_files_fail_cleanly_in_bounded_time_and_memory() {
    let mut seen = 0;
    for entry in fs::read_dir(corpus().join("malformed")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "avro") {
            continue;
        }
        let (out, took) = run_bounded(&["tojson", p(&path)]);
        let code = out.status.code();
        assert!(
            code.is_some_and(|c| c != 0 && c != 101 && c != 70),
            "{}: exit {code:?}, stderr {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let err = fails(&out, 1);
        assert!(err.contains(p(&path)), "the error names the file: {err}");
        assert!(
            took < Duration::from_secs(10),
            "{}: {took:?}",
            path.display()
        );
        seen += 1;
    }
    assert!(seen >= 10);
}

#[test]
fn usage_errors_and_panics_are_one_line() {
    fails(&run(&["tojson", "--bogus", "x.avro"]), 2);
    fails(&run(&["cat", "only-one"]), 2);
    fails(&run(&["fingerprint", "--algorithm", "crc32", "x.avsc"]), 2);
    let err = String::from_utf8(run(&["internal-panic"]).stderr).unwrap();
    let out = run(&["internal-panic"]);
    assert_eq!(out.status.code(), Some(70));
    assert!(err.starts_with("avrokit: internal error: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let err = fails(&run(&["count", "/no/such/file.avro"]), 1);
    assert!(err.contains("/no/such/file.avro"), "{err}");
    assert!(run(&["--help"]).status.success());
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let dir = scratch("pipe");
    let file = dir.join("big.avro");
    let schema = dir.join("s.avsc");
    fs::write(&schema, r#""string""#).unwrap();
    ok(&[
        "random",
        "--schema",
        p(&schema),
        "--count",
        "60000",
        "--seed",
        "1",
        p(&file),
    ]);
    let mut child = Command::new(BIN)
        .args(["tojson", p(&file)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take()); // like `| head -c 16`
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ------------------------------------------------------------------ generated hostile files

/// What the library makes of a file, for each way the CLI reads one: the header alone
/// (`getschema`, `getmeta`), the records decoded (`tojson`, `cat`, `recodec`, `split-read`),
/// skipped (`count`), or the raw blocks (`concat`). True when it reads cleanly.
#[derive(Debug, Clone, Copy)]
struct Verdicts {
    header: bool,
    values: bool,
    skipped: bool,
    blocks: bool,
}

fn verdicts(bytes: &[u8]) -> Verdicts {
    use avrokit::container::Reader;
    let open = || Reader::from_slice(bytes);
    let Ok(mut r) = open() else {
        return Verdicts {
            header: false,
            values: false,
            skipped: false,
            blocks: false,
        };
    };
    let values = r.by_ref().all(|v| v.is_ok());
    let mut r = open().unwrap();
    let s = r.schema().clone();
    let skipped =
        std::iter::from_fn(|| r.next_with(|d| d.skip_value(&s, s.root_id()))).all(|v| v.is_ok());
    let mut r = open().unwrap();
    let blocks = loop {
        match r.next_raw_block() {
            Ok(Some(_)) => {}
            Ok(None) => break true,
            Err(_) => break false,
        }
    };
    Verdicts {
        header: true,
        values,
        skipped,
        blocks,
    }
}

/// Runs every reading subcommand over `file` (`all`: also the ones that only read the header,
/// and `split-read` and `recodec`), bounded in time and memory; each must succeed exactly when
/// the library reads the file cleanly the same way, and otherwise fail with exit code 1 and one
/// stderr line naming the file, leaving no output file behind.
fn check_hostile(file: &Path, dir: &Path, all: bool, what: &str) {
    let bytes = fs::read(file).unwrap();
    let v = verdicts(&bytes);
    let out = dir.join("out.avro");
    let len = bytes.len().to_string();
    let mut runs: Vec<(Vec<&str>, bool, bool)> = vec![
        (vec!["tojson", p(file)], v.values, false),
        (vec!["count", p(file)], v.skipped, false),
        (vec!["cat", p(file), p(&out)], v.values, true),
        (vec!["concat", p(file), p(&out)], v.blocks, true),
    ];
    if all {
        runs.extend([
            (vec!["getschema", p(file)], v.header, false),
            (vec!["getmeta", p(file)], v.header, false),
            (
                vec!["recodec", "--codec", "deflate", p(file), p(&out)],
                v.values,
                true,
            ),
            (
                vec!["split-read", "--start", "0", "--end", &len, p(file)],
                v.values,
                false,
            ),
        ]);
    }
    for (args, clean, writes) in runs {
        let _ = fs::remove_file(&out);
        let (o, _) = run_bounded(&args);
        let ctx = format!("{what}: avrokit {args:?}");
        let code = o.status.code();
        assert!(
            code.is_some_and(|c| c != 101 && c != 70),
            "{ctx}: exit {code:?} (a crash), stderr {}",
            String::from_utf8_lossy(&o.stderr)
        );
        if clean {
            assert_eq!(
                code,
                Some(0),
                "{ctx}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        } else {
            let err = fails(&o, 1);
            assert!(
                err.contains(p(file)),
                "{ctx}: the error names the file: {err}"
            );
            if writes {
                assert!(!out.exists(), "{ctx}: a failed command leaves no output");
            }
        }
    }
}

/// A small file of `codec`: 10 records of a record schema in blocks of 3, fixed sync marker.
fn small_file(codec: avrokit::container::Codec) -> Vec<u8> {
    use avrokit::container::WriterBuilder;
    use avrokit::{Schema, Value};
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[{"name":"id","type":"long"},
            {"name":"s","type":"string"},{"name":"u","type":["null","int"]},
            {"name":"m","type":{"type":"map","values":"double"}}]}"#,
    )
    .unwrap();
    let mut w = WriterBuilder::new(&schema)
        .with_codec(codec)
        .with_block_records(3)
        .with_sync_marker([0x33; 16])
        .build(Vec::new())
        .unwrap();
    for i in 0..10i64 {
        w.append(&Value::Record(vec![
            Value::Long(i),
            Value::String(format!("record {i}")),
            Value::Union(1, Box::new(Value::Int(i as i32))),
            Value::Map(vec![("k".into(), Value::Double(i as f64))]),
        ]))
        .unwrap();
    }
    w.into_inner().unwrap()
}

#[test]
fn damaged_files_of_every_codec_fail_cleanly_in_every_subcommand() {
    use avrokit::container::{Codec, Reader};
    let dir = scratch("damaged");
    for name in CODECS {
        let codec = Codec::from_name(name).unwrap();
        let good = small_file(codec);
        let r = Reader::from_slice(&good).unwrap();
        let header = r.header().len() as usize;
        let mut r = Reader::from_slice(&good).unwrap();
        let mut blocks = Vec::new();
        while let Some(b) = r.next_raw_block().unwrap() {
            let h = *b.header();
            blocks.push((h.offset as usize, h.data_offset as usize, h.size as usize));
        }
        // Damage to the header, through every subcommand.
        let mut header_damage: Vec<(String, Vec<u8>)> = vec![
            ("empty".into(), Vec::new()),
            ("cut in the magic".into(), good[..3].to_vec()),
            ("cut in the schema".into(), good[..header / 2].to_vec()),
            (
                "cut in the header's marker".into(),
                good[..header - 1].to_vec(),
            ),
        ];
        for (what, i) in [
            ("magic", 1),
            ("schema", header / 2),
            ("header's marker", header - 1),
        ] {
            let mut bad = good.clone();
            bad[i] ^= 0x21;
            header_damage.push((format!("flip in the {what}"), bad));
        }
        // Damage to the blocks (all of them for null, two for the others).
        let mut block_damage: Vec<(String, Vec<u8>)> = Vec::new();
        for (b, &(start, data, size)) in blocks.iter().enumerate() {
            if name != "null" && b % 2 == 1 {
                continue;
            }
            let end = data + size + 16;
            block_damage.push((
                format!("cut in block {b}'s data"),
                good[..data + size / 2].to_vec(),
            ));
            block_damage.push((
                format!("cut in block {b}'s marker"),
                good[..end - 5].to_vec(),
            ));
            for (what, i) in [
                ("count", start),
                ("size", data - 1),
                ("data", data + size / 2),
                ("last data byte", data + size - 1),
                ("marker", end - 9),
            ] {
                let mut bad = good.clone();
                bad[i] ^= 0x04;
                block_damage.push((format!("flip in block {b}'s {what}"), bad));
            }
        }
        for (all, damage) in [(true, header_damage), (false, block_damage)] {
            for (what, bytes) in damage {
                let file = dir.join(format!("{name}.avro"));
                fs::write(&file, &bytes).unwrap();
                check_hostile(&file, &dir, all, &format!("{name}, {what}"));
            }
        }
    }
}

/// A file of `schema` with a null codec and the given raw blocks, framed by hand.
fn handmade_file(entries: &[(&str, &[u8])], blocks: &[(i64, &[u8])]) -> Vec<u8> {
    fn varint(n: i64, out: &mut Vec<u8>) {
        let mut z = ((n << 1) ^ (n >> 63)) as u64;
        while z >= 0x80 {
            out.push(z as u8 | 0x80);
            z >>= 7;
        }
        out.push(z as u8);
    }
    let mut out = b"Obj\x01".to_vec();
    varint(entries.len() as i64, &mut out);
    for (k, v) in entries {
        varint(k.len() as i64, &mut out);
        out.extend_from_slice(k.as_bytes());
        varint(v.len() as i64, &mut out);
        out.extend_from_slice(v);
    }
    out.push(0);
    out.extend_from_slice(&[7; 16]);
    for (count, data) in blocks {
        varint(*count, &mut out);
        varint(data.len() as i64, &mut out);
        out.extend_from_slice(data);
        out.extend_from_slice(&[7; 16]);
    }
    out
}

#[test]
fn hostile_files_fail_cleanly_in_every_subcommand() {
    let dir = scratch("hostile");
    let schema = |s: &'static str| ("avro.schema", s.as_bytes());
    let list = r#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#;
    let deep_schema =
        r#"{"type":"array","items":"#.repeat(100_000) + r#""int""# + &"}".repeat(100_000);
    let deep_datum = vec![0x02; 100_000];
    let mut huge_size = handmade_file(&[schema(r#""int""#)], &[]);
    huge_size.extend([
        0x02, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x02,
    ]);
    let mut big_size = handmade_file(&[schema(r#""int""#)], &[]);
    big_size.extend([0x02, 0x80, 0x80, 0x80, 0x80, 0x01, 0x02]); // 128 MiB claimed, 1 byte
    let mut huge_key = b"Obj\x01\x02".to_vec();
    huge_key.extend([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("block size 2^62", huge_size),
        ("block size 128 MiB, 1 byte there", big_size),
        ("metadata key length i64::MAX", huge_key),
        (
            "negative count",
            handmade_file(&[schema(r#""int""#)], &[(-1, &[2])]),
        ),
        (
            "count i64::MAX of null",
            handmade_file(&[schema(r#""null""#)], &[(i64::MAX, &[])]),
        ),
        (
            "count over the bytes",
            handmade_file(&[schema(r#""int""#)], &[(9, &[2, 4])]),
        ),
        (
            "bytes after the records",
            handmade_file(&[schema(r#""int""#)], &[(1, &[2, 4])]),
        ),
        (
            "string length i64::MIN",
            handmade_file(&[schema(r#""string""#)], &[(1, &[0xff; 10])]),
        ),
        (
            "string length 2^62",
            handmade_file(
                &[schema(r#""string""#)],
                &[(
                    1,
                    &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
                )],
            ),
        ),
        (
            "union index 5",
            handmade_file(&[schema(r#"["null","int"]"#)], &[(1, &[0x0a, 0x02])]),
        ),
        (
            "enum index 7",
            handmade_file(
                &[schema(r#"{"type":"enum","name":"E","symbols":["A"]}"#)],
                &[(1, &[0x0e])],
            ),
        ),
        (
            "invalid UTF-8",
            handmade_file(&[schema(r#""string""#)], &[(1, &[0x04, 0xc3, 0x28])]),
        ),
        (
            "invalid UTF-8 map key",
            handmade_file(
                &[schema(r#"{"type":"map","values":"null"}"#)],
                &[(1, &[0x02, 0x04, 0xc0, 0x80, 0x00])],
            ),
        ),
        (
            "unknown codec",
            handmade_file(&[schema(r#""int""#), ("avro.codec", b"lzo")], &[(1, &[2])]),
        ),
        (
            "snappy without its CRC",
            handmade_file(
                &[schema(r#""int""#), ("avro.codec", b"snappy")],
                &[(1, &[1, 0, 2])],
            ),
        ),
        (
            "a datum 100,000 deep",
            handmade_file(&[("avro.schema", list.as_bytes())], &[(1, &deep_datum)]),
        ),
        (
            "a schema 100,000 deep",
            handmade_file(&[("avro.schema", deep_schema.as_bytes())], &[]),
        ),
    ];
    for (what, bytes) in cases {
        let file = dir.join("hostile.avro");
        fs::write(&file, &bytes).unwrap();
        let v = verdicts(&bytes);
        assert!(!v.values, "{what}: {v:?}");
        check_hostile(&file, &dir, true, what);
    }
}

#[test]
fn schemas_and_json_nested_100_000_deep_fail_cleanly() {
    let dir = scratch("deep-schema");
    let deep = dir.join("deep.avsc");
    fs::write(
        &deep,
        r#"{"type":"array","items":"#.repeat(100_000) + r#""int""# + &"}".repeat(100_000),
    )
    .unwrap();
    let unions = dir.join("unions.avsc");
    fs::write(&unions, "[".repeat(100_000)).unwrap();
    let ok_schema = dir.join("ok.avsc");
    fs::write(&ok_schema, r#""int""#).unwrap();
    let data = dir.join("data.jsonl");
    fs::write(&data, "1\n2\n").unwrap();
    let avro = dir.join("data.avro");
    ok(&["fromjson", "--schema", p(&ok_schema), p(&data), p(&avro)]);
    let out = dir.join("out.avro");
    for schema in [&deep, &unions] {
        let runs: Vec<Vec<&str>> = vec![
            vec!["fromjson", "--schema", p(schema), p(&data), p(&out)],
            vec!["canonical", p(schema)],
            vec!["fingerprint", p(schema)],
            vec!["compat", "--reader", p(schema), "--writer", p(&ok_schema)],
            vec!["compat", "--reader", p(&ok_schema), "--writer", p(schema)],
            vec!["random", "--schema", p(schema), "--count", "3", p(&out)],
            vec!["tojson", "--reader-schema", p(schema), p(&avro)],
        ];
        for args in runs {
            let (o, _) = run_bounded(&args);
            let err = fails(&o, 1);
            assert!(
                err.contains(p(schema)),
                "{args:?}: the error names the schema: {err}"
            );
            assert!(!out.exists(), "{args:?}");
        }
    }
    // A JSON record nested 100,000 deep, for a recursive schema.
    let list = dir.join("list.avsc");
    fs::write(
        &list,
        r#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#,
    )
    .unwrap();
    let deep_data = dir.join("deep.jsonl");
    fs::write(&deep_data, r#"{"next":{"L":"#.repeat(100_000) + "\n").unwrap();
    let (o, _) = run_bounded(&["fromjson", "--schema", p(&list), p(&deep_data), p(&out)]);
    let err = fails(&o, 1);
    assert!(err.contains("line 1"), "{err}");
    assert!(err.contains("deep"), "{err}");
    assert!(!out.exists());
}
