//! `toparquet`, `fromparquet`, `toarrow`, `fromarrow` end to end: every file of the
//! interoperability corpus (`crates/avrokit/tests/data/interop/`) goes Avro -> Arrow IPC ->
//! Avro and Avro -> Parquet -> Avro and must give the same records as `tojson` prints them;
//! what Parquet cannot hold is refused with the column named; options reach the files; damaged
//! Parquet and Arrow IPC files fail with one line, exit 1, and leave no output behind.

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use avrokit::schema::{NodeId, NodeKind};
use avrokit::Schema;

const BIN: &str = env!("CARGO_BIN_EXE_avrokit");

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit/tests/data/interop")
}

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("columnar")
        .join(test);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the binary with `args`, `stdin` piped in when given.
fn avrokit(args: &[&str], stdin: Option<Vec<u8>>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().unwrap();
    if let Some(bytes) = stdin {
        let mut w = child.stdin.take().unwrap();
        std::thread::spawn(move || w.write_all(&bytes));
    }
    child.wait_with_output().unwrap()
}

/// Runs and requires success; returns stdout.
fn ok(args: &[&str]) -> Vec<u8> {
    let out = avrokit(args, None);
    assert!(
        out.status.success(),
        "avrokit {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs and requires exit 1 with one `avrokit: error:` line; returns that line.
fn refused(args: &[&str]) -> String {
    refusal(&avrokit(args, None), args)
}

/// Requires that `out` is exit 1 with one `avrokit: error:` line; returns that line.
fn refusal(out: &Output, args: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "avrokit {args:?}: {err}");
    assert!(err.starts_with("avrokit: error: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn tojson(file: &Path) -> String {
    String::from_utf8(ok(&["tojson", p(file)])).unwrap()
}

/// The corpus's container files.
fn corpus_files() -> Vec<PathBuf> {
    let manifest = fs::read_to_string(corpus().join("data/MANIFEST.tsv")).unwrap();
    let files: Vec<PathBuf> = manifest
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|f| !f.is_empty())
        .map(|f| corpus().join(f))
        .collect();
    assert!(files.len() > 100, "the corpus has {} files", files.len());
    files
}

fn file_schema(file: &Path) -> Schema {
    let bytes = fs::read(file).unwrap();
    avrokit::container::Reader::from_slice(&bytes)
        .unwrap()
        .schema()
        .clone()
}

/// True when a record of `schema` contains itself: no Arrow type can represent it.
fn is_recursive(schema: &Schema) -> bool {
    fn visit(s: &Schema, id: NodeId, open: &mut Vec<NodeId>) -> bool {
        match &s.node(id).kind {
            NodeKind::Record(r) => {
                if open.contains(&id) {
                    return true;
                }
                open.push(id);
                let found = r.fields.iter().any(|f| visit(s, f.schema, open));
                open.pop();
                found
            }
            NodeKind::Array(a) => visit(s, a.items, open),
            NodeKind::Map(m) => visit(s, m.values, open),
            NodeKind::Union(u) => u.variants.iter().any(|&v| visit(s, v, open)),
            _ => false,
        }
    }
    visit(schema, schema.root_id(), &mut Vec::new())
}

/// Short unique names for the corpus files (`fastavro-maps`).
fn label(file: &Path) -> String {
    let dir = file
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    let stem = file.file_stem().unwrap().to_string_lossy();
    format!("{dir}-{stem}")
}

#[test]
fn every_corpus_file_round_trips_through_arrow_ipc() {
    let dir = scratch("arrow");
    let mut converted = 0;
    for file in corpus_files() {
        let (arrow, back) = (dir.join("x.arrow"), dir.join("x.avro"));
        let _ = fs::remove_file(&arrow);
        if is_recursive(&file_schema(&file)) {
            let err = refused(&["toarrow", p(&file), p(&arrow)]);
            assert!(err.contains("recursive"), "{}: {err}", file.display());
            assert!(!arrow.exists(), "a failed toarrow left its output");
            continue;
        }
        ok(&["toarrow", p(&file), p(&arrow)]);
        ok(&["fromarrow", p(&arrow), p(&back)]);
        assert_eq!(tojson(&back), tojson(&file), "{}", file.display());
        converted += 1;
    }
    assert!(converted > 100, "only {converted} files converted");
}

/// The reason `toparquet` gives for refusing a column Parquet cannot hold.
const NO_PARQUET_FORM: &str = "has no Parquet form";

#[test]
fn every_corpus_file_round_trips_through_parquet_or_is_refused_with_the_column_named() {
    let dir = scratch("parquet");
    let mut converted = 0;
    let mut refusals = HashSet::new();
    for file in corpus_files() {
        let (parquet, back) = (dir.join("x.parquet"), dir.join("x.avro"));
        let _ = fs::remove_file(&parquet);
        let args = ["toparquet", p(&file), p(&parquet)];
        let out = avrokit(&args, None);
        if out.status.success() {
            ok(&["fromparquet", p(&parquet), p(&back)]);
            assert_eq!(tojson(&back), tojson(&file), "{}", file.display());
            converted += 1;
            continue;
        }
        let err = refusal(&out, &args);
        assert!(!parquet.exists(), "a failed toparquet left its output");
        if is_recursive(&file_schema(&file)) {
            assert!(err.contains("recursive"), "{}: {err}", file.display());
            continue;
        }
        assert!(err.contains(NO_PARQUET_FORM), "{}: {err}", file.display());
        // The refused types are all Arrow can hold: Arrow IPC takes the same file.
        ok(&["toarrow", p(&file), p(&dir.join("x.arrow"))]);
        let reason = err
            .split(": ")
            .find(|s| s.contains(NO_PARQUET_FORM))
            .unwrap();
        refusals.insert(reason.split(" has no").next().unwrap().to_owned());
    }
    assert!(converted > 80, "only {converted} files converted");
    // Unions, durations and empty records are each met, and each refused for what it is.
    assert!(refusals.len() >= 4, "{refusals:?}");
}

/// The top-level field names of a file's record schema.
fn top_fields(file: &Path) -> Vec<String> {
    let schema = file_schema(file);
    match &schema.root().kind {
        NodeKind::Record(r) => r.fields.iter().map(|f| f.name.clone()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn the_columns_parquet_can_hold_round_trip_through_it() {
    // Files with unions, durations or empty records beside logical types, nested records,
    // arrays and maps: every column Parquet can hold, projected, must come back as the same
    // projection through Arrow IPC (which holds everything, and is checked exactly above).
    let dir = scratch("parquet-columns");
    let mut columns_checked = 0;
    for file in corpus_files() {
        let fields = top_fields(&file);
        if fields.is_empty() || is_recursive(&file_schema(&file)) {
            continue;
        }
        let parquet = dir.join("x.parquet");
        if avrokit(&["toparquet", p(&file), p(&parquet)], None)
            .status
            .success()
        {
            continue; // whole files are covered by the test above
        }
        let held: Vec<&str> = fields
            .iter()
            .map(String::as_str)
            .filter(|f| {
                avrokit(&["toparquet", "--columns", f, p(&file), p(&parquet)], None)
                    .status
                    .success()
            })
            .collect();
        if held.is_empty() {
            continue;
        }
        let cols = held.join(",");
        let name = label(&file);
        let (via_parquet, via_arrow) = (dir.join(format!("{name}-p.avro")), dir.join("a.avro"));
        ok(&["toparquet", "--columns", &cols, p(&file), p(&parquet)]);
        ok(&["fromparquet", p(&parquet), p(&via_parquet)]);
        let arrow = dir.join("x.arrow");
        ok(&["toarrow", "--columns", &cols, p(&file), p(&arrow)]);
        ok(&["fromarrow", p(&arrow), p(&via_arrow)]);
        let got = tojson(&via_parquet);
        assert_eq!(got, tojson(&via_arrow), "{} columns {cols}", file.display());
        assert_eq!(top_fields(&via_parquet), held);
        assert!(!got.is_empty() || tojson(&file).is_empty());
        columns_checked += held.len();
    }
    assert!(columns_checked > 20, "only {columns_checked} columns");
}

/// `n` `random` records of the CLI's every-type schema, in a deflate file.
fn random_file(dir: &Path, n: usize) -> PathBuf {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/every-type.avsc");
    let file = dir.join("random.avro");
    let count = n.to_string();
    ok(&[
        "random",
        "--schema",
        p(&schema),
        "--count",
        &count,
        "--seed",
        "42",
        "--codec",
        "deflate",
        p(&file),
    ]);
    file
}

#[test]
fn options_reach_the_files_and_dashes_mean_stdin_and_stdout() {
    use parquet::basic::Compression;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = scratch("options");
    let events = corpus().join("data/fastavro/events-null.avro");
    let want = tojson(&events);

    let parquet = dir.join("zstd.parquet");
    ok(&[
        "toparquet",
        "--compression",
        "zstd",
        "--level",
        "5",
        "--row-group-size",
        "64",
        "--batch-size",
        "50",
        "--threads",
        "2",
        p(&events),
        p(&parquet),
    ]);
    let reader = SerializedFileReader::new(fs::File::open(&parquet).unwrap()).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.file_metadata().num_rows(), 500);
    assert_eq!(meta.num_row_groups(), 500usize.div_ceil(64));
    for rg in meta.row_groups() {
        assert!(rg.num_rows() <= 64);
        for c in rg.columns() {
            assert!(matches!(c.compression(), Compression::ZSTD(_)), "{c:?}");
        }
    }

    // Parquet on stdout, read back from stdin, to Avro on stdout.
    let piped = avrokit(&["toparquet", p(&events), "-"], None);
    assert!(piped.status.success());
    let back = avrokit(
        &["fromparquet", "--codec", "deflate", "-", "-"],
        Some(piped.stdout),
    );
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    let avro = dir.join("from-stdin.avro");
    fs::write(&avro, &back.stdout).unwrap();
    assert_eq!(tojson(&avro), want);
    let codec = ok(&["getmeta", "--key", "avro.codec", p(&avro)]);
    assert_eq!(codec, b"deflate\n");

    // The same for Arrow IPC, with a projection and the file given on stdin.
    let piped = avrokit(
        &["toarrow", "--columns", "id", "-", "-"],
        Some(fs::read(&events).unwrap()),
    );
    assert!(piped.status.success());
    let back = avrokit(&["fromarrow", "-", "-"], Some(piped.stdout));
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    fs::write(&avro, &back.stdout).unwrap();
    assert_eq!(top_fields(&avro), ["id"]);
    assert_eq!(tojson(&avro).lines().count(), 500);

    // A given Avro schema is checked against the columns.
    let wrong = dir.join("wrong.avsc");
    fs::write(
        &wrong,
        r#"{"type":"record","name":"R","fields":[{"name":"nope","type":"long"}]}"#,
    )
    .unwrap();
    let err = refused(&["fromparquet", "--schema", p(&wrong), p(&parquet), p(&avro)]);
    assert!(err.contains("nope"), "{err}");

    // Bad option values are usage errors (exit 2).
    for bad in [
        &["toparquet", "--compression", "lzo", p(&events), p(&parquet)][..],
        &[
            "toparquet",
            "--compression",
            "snappy",
            "--level",
            "3",
            p(&events),
            p(&parquet),
        ],
        &[
            "toparquet",
            "--compression",
            "zstd",
            "--level",
            "99",
            p(&events),
            p(&parquet),
        ],
        &["fromarrow", "--codec", "nope", p(&parquet), p(&avro)],
    ] {
        assert_eq!(avrokit(bad, None).status.code(), Some(2), "{bad:?}");
    }
}

/// The records of `tojson` output without the fields `drop`.
fn without(json: &str, drop: &[&str]) -> Vec<serde_json::Value> {
    json.lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let obj = v.as_object_mut().unwrap();
            for d in drop {
                obj.shift_remove(*d);
            }
            v
        })
        .collect()
}

#[test]
fn random_records_of_every_type_round_trip_through_both() {
    // Every type and logical type (the schema of the Python interop test), in several batches
    // and row groups. Arrow takes every column but the recursive `list`; Parquet takes those
    // but the unions and the duration.
    let dir = scratch("random");
    let file = random_file(&dir, 700);
    let want = tojson(&file);
    let fields = top_fields(&file);
    let keep = |drop: &[&str]| -> String {
        let kept: Vec<&str> = fields
            .iter()
            .map(String::as_str)
            .filter(|f| !drop.contains(f))
            .collect();
        kept.join(",")
    };
    let not_arrow = ["list"];
    let arrow = dir.join("r.arrow");
    let cols = keep(&not_arrow);
    ok(&[
        "toarrow",
        "--batch-size",
        "100",
        "--columns",
        &cols,
        p(&file),
        p(&arrow),
    ]);
    let back = dir.join("a.avro");
    ok(&["fromarrow", "--codec", "snappy", p(&arrow), p(&back)]);
    assert_eq!(without(&tojson(&back), &[]), without(&want, &not_arrow));

    let not_parquet = ["list", "u", "nums", "dur"];
    let parquet = dir.join("r.parquet");
    let cols = keep(&not_parquet);
    ok(&[
        "toparquet",
        "--row-group-size",
        "256",
        "--columns",
        &cols,
        p(&file),
        p(&parquet),
    ]);
    ok(&["fromparquet", "--batch-size", "99", p(&parquet), p(&back)]);
    assert_eq!(without(&tojson(&back), &[]), without(&want, &not_parquet));
}

#[test]
fn damaged_parquet_and_arrow_files_fail_cleanly_and_leave_no_output() {
    let dir = scratch("damaged");
    let events = corpus().join("data/fastavro/events-null.avro");
    let (parquet, arrow) = (dir.join("ok.parquet"), dir.join("ok.arrow"));
    ok(&["toparquet", p(&events), p(&parquet)]);
    ok(&["toarrow", p(&events), p(&arrow)]);
    let out = dir.join("out.avro");
    let check = |cmd: &str, input: &Path, what: &str| {
        let err = refused(&[cmd, p(input), p(&out)]);
        assert!(err.contains(what), "{cmd} {}: {err}", input.display());
        assert!(err.contains(p(input)), "{err}");
        assert!(!out.exists(), "{cmd} left a partial output");
    };
    // Not the format at all: an Avro file, an empty file, text.
    let text = dir.join("text.parquet");
    fs::write(&text, "just some text, not a columnar file\n").unwrap();
    let empty = dir.join("empty");
    fs::write(&empty, "").unwrap();
    for input in [&events, &text, &empty] {
        check("fromparquet", input, "not a Parquet file");
        check("fromarrow", input, "not an Arrow IPC file");
    }
    check("fromparquet", &arrow, "not a Parquet file");
    check("fromarrow", &parquet, "not an Arrow IPC file");
    // Truncated: every cut loses the footer, which both formats are read from.
    for (cmd, good, what) in [
        ("fromparquet", &parquet, "not a Parquet file"),
        ("fromarrow", &arrow, "not an Arrow IPC file"),
    ] {
        let bytes = fs::read(good).unwrap();
        for cut in [1, 7, 8, bytes.len() / 2, bytes.len() - 1] {
            let t = dir.join(format!("cut-{cut}"));
            fs::write(&t, &bytes[..bytes.len() - cut]).unwrap();
            check(cmd, &t, what);
        }
    }
    // Damaged anywhere: the parquet and arrow-ipc crates panic on some such files (out-of-range
    // buffer slices); that is still bad input, exit 1 with one line, or the bytes decode.
    for (cmd, good) in [("fromparquet", &parquet), ("fromarrow", &arrow)] {
        let bytes = fs::read(good).unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..60 {
            let mut d = bytes.clone();
            for _ in 0..1 + round % 4 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let at = (state >> 33) as usize % d.len();
                d[at] = (state >> 13) as u8;
            }
            let t = dir.join("damaged");
            fs::write(&t, &d).unwrap();
            let run = avrokit(&[cmd, p(&t), p(&out)], None);
            if !run.status.success() {
                refusal(&run, &[cmd, "damaged"]);
                assert!(!out.exists(), "{cmd} left a partial output");
            }
            let _ = fs::remove_file(&out);
        }
    }
    // A missing input names the file.
    check(
        "fromparquet",
        &dir.join("missing.parquet"),
        "missing.parquet",
    );
}

/// The sizes an Arrow IPC footer claims are checked before anything of that size is
/// allocated: the footer's own length in the trailer, and each record batch's body length.
#[test]
fn arrow_ipc_sizes_past_the_file_are_refused_before_reading() {
    let dir = scratch("ipc-sizes");
    let events = corpus().join("data/fastavro/events-null.avro");
    let arrow = dir.join("ok.arrow");
    ok(&["toarrow", "--batch-size", "100", p(&events), p(&arrow)]);
    let bytes = fs::read(&arrow).unwrap();
    let out = dir.join("out.avro");
    let n = bytes.len();

    // A trailer whose footer length is larger than the file, or negative.
    for claimed in [i32::MAX, -5, n as i32] {
        let mut d = bytes.clone();
        d[n - 10..n - 6].copy_from_slice(&claimed.to_le_bytes());
        let t = dir.join("footer-len.arrow");
        fs::write(&t, &d).unwrap();
        let err = refused(&["fromarrow", p(&t), p(&out)]);
        assert!(err.contains("footer claims"), "{claimed}: {err}");
        assert!(!out.exists());
    }

    // A record batch whose body length runs past the data, or is negative: find the footer's
    // first block (a flatbuffer struct: offset i64, metadata length i32, 4 bytes of padding,
    // body length i64) and change its body length.
    let footer_len = i32::from_le_bytes(bytes[n - 10..n - 6].try_into().unwrap()) as usize;
    let footer_at = n - 10 - footer_len;
    let footer = arrow_ipc::root_as_footer(&bytes[footer_at..n - 10]).unwrap();
    let first = footer.recordBatches().unwrap().get(0);
    assert!(footer.recordBatches().unwrap().len() > 1);
    let mut pattern = Vec::new();
    pattern.extend_from_slice(&first.offset().to_le_bytes());
    pattern.extend_from_slice(&first.metaDataLength().to_le_bytes());
    pattern.extend_from_slice(&[0; 4]);
    pattern.extend_from_slice(&first.bodyLength().to_le_bytes());
    let at = footer_at
        + bytes[footer_at..]
            .windows(pattern.len())
            .position(|w| w == pattern)
            .expect("the first block in the footer");
    for body in [i64::MAX / 2, -1, n as i64] {
        let mut d = bytes.clone();
        d[at + 16..at + 24].copy_from_slice(&body.to_le_bytes());
        let t = dir.join("body-len.arrow");
        fs::write(&t, &d).unwrap();
        let err = refused(&["fromarrow", p(&t), p(&out)]);
        assert!(err.contains("record batch 0 claims"), "{body}: {err}");
        assert!(!out.exists());
    }
    // The untouched file converts, on one thread and on three, to the same records.
    for threads in ["1", "3"] {
        ok(&[
            "fromarrow",
            "--threads",
            threads,
            "--codec",
            "deflate",
            p(&arrow),
            p(&out),
        ]);
        assert_eq!(tojson(&out), tojson(&events), "{threads} threads");
    }
}
