//! Replays fuzz inputs without libFuzzer, through the same checks as the fuzz targets
//! (`fuzz/src/checks.rs`, included below): every file of the committed corpus
//! (`fuzz/corpus/<target>/`), and every input a fuzzer once crashed on
//! (`tests/data/fuzz/<target>/`), each with the outcome it must now have.
//!
//! To add a regression: copy the crashing input from `fuzz/artifacts/<target>/` to
//! `tests/data/fuzz/<target>/<short-name>`, fix the library, and add a test below asserting
//! what the input now gives (a clean error of the right kind, or acceptance when it is valid).

#[path = "../../../fuzz/src/checks.rs"]
#[allow(dead_code)]
mod checks;

use std::path::{Path, PathBuf};

use avrokit::ErrorKind;
use checks::Outcome;

type Check = fn(&[u8]) -> Outcome;

const TARGETS: [(&str, Check); 6] = [
    ("schema_parse", checks::check_schema_parse),
    ("datum_fixed_schema", checks::check_datum_fixed_schema),
    ("datum_fuzzed_schema", checks::check_datum_fuzzed_schema),
    ("resolved", checks::check_resolved),
    ("container_read", checks::check_container_read),
    ("json_decode", checks::check_json_decode),
];

fn check_of(target: &str) -> Check {
    TARGETS
        .iter()
        .find(|(t, _)| *t == target)
        .unwrap_or_else(|| panic!("no fuzz target {target}"))
        .1
}

/// Runs every file under `dir` through `check`, naming the file of a failure.
fn replay_dir(dir: &Path, check: Check) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        if let Err(e) = std::panic::catch_unwind(|| check(&data)) {
            eprintln!("fuzz input {} fails its check", path.display());
            std::panic::resume_unwind(e);
        }
    }
    files.len()
}

/// Replays the committed corpus of one target (absent from a packaged crate: then nothing).
fn replay_corpus(target: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let n = replay_dir(&dir, check_of(target));
    eprintln!("{target}: {n} corpus inputs replayed");
}

/// The outcome of one saved regression input.
fn regression(target: &str, name: &str) -> Outcome {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz")
        .join(target)
        .join(name);
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    check_of(target)(&data)
}

#[test]
fn corpus_schema_parse() {
    replay_corpus("schema_parse");
}

#[test]
fn corpus_datum_fixed_schema() {
    replay_corpus("datum_fixed_schema");
}

#[test]
fn corpus_datum_fuzzed_schema() {
    replay_corpus("datum_fuzzed_schema");
}

#[test]
fn corpus_resolved() {
    replay_corpus("resolved");
}

#[test]
fn corpus_container_read() {
    replay_corpus("container_read");
}

#[test]
fn corpus_json_decode() {
    replay_corpus("json_decode");
}

/// Every saved regression input still passes its target's checks (the tests below also pin
/// what each one gives).
#[test]
fn every_regression_input_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz");
    for (target, check) in TARGETS {
        replay_dir(&root.join(target), check);
    }
}

#[test]
fn rich_schema_parses_and_round_trips() {
    let schema = checks::rich_schema();
    assert_eq!(
        checks::check_schema_parse(checks::RICH_SCHEMA.as_bytes()),
        Outcome::Accepted
    );
    // The canonical form of the fuzz schema is pinned: changing the schema invalidates the
    // committed corpus of `datum_fixed_schema` and `json_decode`.
    assert_eq!(
        schema.fingerprint_rabin(),
        RICH_FINGERPRINT,
        "{}",
        schema.canonical_form()
    );
}

const RICH_FINGERPRINT: u64 = 476_623_296_457_094_922;

#[test]
fn null_namespace_inside_a_namespace_is_exempt_from_canonical_reparse() {
    // The specification's canonical form of this schema names the fixed `Z`, which reads back
    // as `x.Z`: as in Java, so the fingerprint must stay as it is.
    let schema = r#"{"type": "record", "name": "R", "fields": [
      {"name": "s", "type": {"type": "record", "namespace": "x", "name": "Y", "fields": [
        {"name": "e", "type": {"type": "fixed", "namespace": "", "name": "Z", "size": 8}}]}},
      {"name": "t", "type": "Z"}]}"#;
    assert_eq!(
        checks::check_schema_parse(schema.as_bytes()),
        Outcome::Accepted
    );
}

#[test]
fn block_size_beyond_the_input_is_refused_by_slices_as_by_readers() {
    // An array block of -1 item whose byte size (100) runs past the end of the input: a slice
    // once refused it early while a reader source, which cannot know the bytes left, read the
    // item. Both now read the item and then refuse the block, because its item took 1 byte,
    // not 100: a reader skipping by the size would land elsewhere, so accepting it would let
    // a projection and a full read of the same data disagree.
    assert_eq!(
        regression("datum_fuzzed_schema", "block-size-beyond-input"),
        Outcome::Rejected(ErrorKind::Data)
    );
    let schema = avrokit::Schema::parse_str(r#"{"type":"array","items":"int"}"#).unwrap();
    let data = [0x01, 0xc8, 0x01, 0x04, 0x00];
    let err = avrokit::from_datum_slice(&data, &schema).unwrap_err();
    assert!(
        err.message()
            .contains("block byte size 100, but its items took 1 bytes"),
        "{err}"
    );
    assert_eq!(err.offset(), Some(3), "{err}");
    let err = avrokit::value::read_value(&mut avrokit::Decoder::from_reader(&data[..]), &schema)
        .unwrap_err();
    assert!(err.message().contains("block byte size 100"), "{err}");
    // The exact size reads.
    let v = avrokit::from_datum_slice(&[0x01, 0x02, 0x04, 0x00], &schema).unwrap();
    assert_eq!(v, avrokit::Value::Array(vec![avrokit::Value::Int(2)]));
    // Skipping trusts the size, and so fails at the end of the input.
    let mut dec = avrokit::Decoder::from_slice(&data);
    let err = dec.skip_value(&schema, schema.root_id()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Eof);
}

#[test]
fn zero_size_items_share_one_budget_per_value() {
    // 1000 arrays of 500 000 nulls in 4 KB: each array alone fits the fuzz targets' 16 MiB
    // limit, together they took 16 GB. All items that take no bytes in one value now share
    // one `max_alloc` budget.
    assert_eq!(
        regression("datum_fuzzed_schema", "nested-arrays-of-nulls"),
        Outcome::Rejected(ErrorKind::Limit)
    );
    // 200 000 records of 64 null fields in a few bytes: each record costs its 65 values, not
    // one.
    assert_eq!(
        regression("datum_fuzzed_schema", "wide-records-of-nulls"),
        Outcome::Rejected(ErrorKind::Limit)
    );
    // Through a plan: 200 000 empty writer records, each read with a 1000-byte default.
    assert_eq!(
        regression("resolved", "empty-records-with-big-defaults"),
        Outcome::Rejected(ErrorKind::Limit)
    );
}

#[test]
fn zero_size_items_within_the_budget_still_decode() {
    use avrokit::value::read_value;
    use avrokit::{Decoder, Limits, Schema, Value};
    let schema =
        Schema::parse_str(r#"{"type":"array","items":{"type":"array","items":"null"}}"#).unwrap();
    // Two arrays of 1000 nulls: 2000 values, well within a 1 MiB budget.
    let bytes = [0x04, 0xd0, 0x0f, 0x00, 0xd0, 0x0f, 0x00, 0x00];
    let limits = Limits::default().with_max_alloc(1 << 20);
    let expected = Value::Array(vec![Value::Array(vec![Value::Null; 1000]); 2]);
    // The budget is per value: a decoder reading many values does not run out.
    let data = bytes.repeat(100);
    let mut dec = Decoder::from_slice(&data).with_limits(limits);
    for _ in 0..100 {
        assert_eq!(read_value(&mut dec, &schema).unwrap(), expected);
    }
    // 40 arrays of 1000 nulls in one value exceed it (40 000 values of at least 32 bytes).
    let mut many = vec![0x50];
    for _ in 0..40 {
        many.extend([0xd0, 0x0f, 0x00]);
    }
    many.push(0);
    let err = read_value(&mut Decoder::from_slice(&many).with_limits(limits), &schema).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Limit, "{err}");
}

#[test]
fn a_uuid_string_with_a_misplaced_dash_is_a_plain_string() {
    // 36 characters with the four dashes in place and a fifth at 24: the parser skipped it and
    // read its last digit pair one past the end (an index panic).
    assert_eq!(
        regression("datum_fuzzed_schema", "uuid-with-a-misplaced-dash"),
        Outcome::Accepted
    );
    let schema = avrokit::Schema::parse_str(r#"{"type":"string","logicalType":"uuid"}"#).unwrap();
    let text = "00000000-0000-0000-0000--00000000000";
    let mut bytes = vec![72];
    bytes.extend_from_slice(text.as_bytes());
    let v = avrokit::from_datum_slice(&bytes, &schema).unwrap();
    assert_eq!(v, avrokit::Value::String(text.into()));
    let v = avrokit::json::from_json_str(&format!("\"{text}\""), &schema).unwrap();
    assert_eq!(v, avrokit::Value::String(text.into()));
    // The fuzzer's input, a datum of the rich schema, is now refused further on.
    assert_eq!(
        regression("datum_fixed_schema", "uuid-with-a-misplaced-dash"),
        Outcome::Rejected(ErrorKind::Data)
    );
}
