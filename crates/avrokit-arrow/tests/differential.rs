//! Differential test against arrow-avro 59.3 on the interop corpus: both readers give equal
//! columns wherever their mappings agree; every difference is listed with its reason.

mod common;

use std::fs::File;
use std::io::BufReader;

use arrow_array::RecordBatch;
use common::*;

/// Why the two readers may differ: each difference must match one of these (never "we
/// fail"), so the list stays true.
const KNOWN: &[(&str, &str)] = &[
    (
        "Expected a Record schema",
        "arrow-avro reads only files whose top-level schema is a record",
    ),
    (
        "Failed to resolve",
        "arrow-avro 59.3 fails on some references to named types",
    ),
    (
        "is recursive",
        "recursive records have no Arrow type (arrow-avro fails too)",
    ),
    (
        "Offsets must be non-negative",
        "arrow-avro 59.3 fails on arrays of unions",
    ),
    (
        "Non-nullable field of ListArray",
        "arrow-avro 59.3 fails on arrays with null items",
    ),
    (
        "try_new_with_length",
        "arrow-avro 59.3 fails on records of no fields",
    ),
    (
        "theirs 0",
        "arrow-avro 59.3 yields no rows for records of no fields",
    ),
    (
        "invalid scale > precision",
        "arrow-avro rejects invalid logical types that Avro says to ignore",
    ),
    (
        "data_type: Union([(0, Field { name: \"null\"",
        "arrow-avro keeps [\"null\", T] as a union when T is written as a JSON object",
    ),
    (
        "name: \"null\", data_type: Null, nullable: true",
        "a union's null branch is a nullable Null field here (Arrow checks null values against \
         nullability), a non-nullable one in arrow-avro",
    ),
];

fn reason(diff: &str) -> Option<&'static str> {
    KNOWN
        .iter()
        .find(|(pat, _)| diff.contains(pat))
        .map(|(_, why)| *why)
}

fn ours(path: &std::path::Path) -> Result<Vec<RecordBatch>, String> {
    let data = std::fs::read(path).unwrap();
    avrokit_arrow::ReaderBuilder::new()
        .with_batch_size(100)
        .build_slice(&data)
        .and_then(|r| r.collect::<Result<Vec<_>, _>>())
        .map_err(|e| e.to_string())
}

fn theirs(path: &std::path::Path) -> Result<Vec<RecordBatch>, String> {
    let f = BufReader::new(File::open(path).unwrap());
    arrow_avro::reader::ReaderBuilder::new()
        .with_batch_size(100)
        .build(f)
        .map_err(|e| e.to_string())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

/// How the two readings differ, if they do.
fn compare(a: &[RecordBatch], b: &[RecordBatch]) -> Option<String> {
    let rows = |x: &[RecordBatch]| x.iter().map(|b| b.num_rows()).sum::<usize>();
    if rows(a) != rows(b) {
        return Some(format!("rows: ours {} theirs {}", rows(a), rows(b)));
    }
    let (Some(a), Some(b)) = (concat(a), concat(b)) else {
        return None;
    };
    if a.num_columns() != b.num_columns() {
        return Some(format!(
            "columns: ours {} theirs {}",
            a.num_columns(),
            b.num_columns()
        ));
    }
    for (i, (fa, fb)) in a
        .schema()
        .fields()
        .iter()
        .zip(b.schema().fields())
        .enumerate()
    {
        let (da, db) = (strip(fa.data_type()), strip(fb.data_type()));
        if fa.name() != fb.name() || da != db || fa.is_nullable() != fb.is_nullable() {
            return Some(format!("field {i}: ours {fa:?} theirs {fb:?}"));
        }
        let (va, vb) = (show(a.column(i)), show(b.column(i)));
        if let Some(r) = (0..va.len()).find(|&r| va[r] != vb[r]) {
            return Some(format!(
                "column {} row {r}: ours {} theirs {}",
                fa.name(),
                va[r],
                vb[r]
            ));
        }
    }
    None
}

#[test]
fn interop_corpus_matches_arrow_avro() {
    let dir = interop_dir().join("data");
    let files = avro_files(&dir);
    assert!(
        files.len() > 100,
        "the corpus is missing: {}",
        dir.display()
    );
    let mut unexplained = Vec::new();
    let mut agreed = 0;
    for path in &files {
        let name = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let outcome = match (ours(path), theirs(path)) {
            (Ok(a), Ok(b)) => compare(&a, &b),
            (Ok(_), Err(e)) => Some(format!("arrow-avro fails: {e}")),
            (Err(e), Ok(_)) => Some(format!("we fail: {e}")),
            (Err(a), Err(b)) => Some(format!("both fail: ours {a}; theirs {b}")),
        };
        match outcome {
            None => agreed += 1,
            Some(d) if d.starts_with("we fail") => unexplained.push(format!("{name}: {d}")),
            Some(d) => match reason(&d) {
                Some(_) => {}
                None => unexplained.push(format!("{name}: {d}")),
            },
        }
    }
    assert!(
        unexplained.is_empty(),
        "{} agreed; unexplained:\n{}",
        agreed,
        unexplained.join("\n")
    );
    assert!(agreed > 60, "only {agreed} files agree");
}
