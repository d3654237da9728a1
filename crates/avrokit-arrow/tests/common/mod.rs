//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType, Field, Fields, UnionFields};

/// The interop corpus (copied into the core crate's test data).
pub fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit/tests/data/interop")
}

/// Every `.avro` file under `dir`, sorted.
pub fn avro_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "avro") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A data type without field metadata (arrow-avro keeps Avro names there; we do not).
pub fn strip(dt: &DataType) -> DataType {
    let f = |f: &Field| Field::new(f.name(), strip(f.data_type()), f.is_nullable());
    match dt {
        DataType::List(x) => DataType::List(f(x).into()),
        DataType::Struct(fs) => DataType::Struct(fs.iter().map(|x| f(x)).collect::<Fields>()),
        DataType::Map(x, s) => DataType::Map(f(x).into(), *s),
        DataType::Union(u, m) => DataType::Union(
            UnionFields::try_new(u.iter().map(|(i, _)| i), u.iter().map(|(_, x)| f(x))).unwrap(),
            *m,
        ),
        d => d.clone(),
    }
}

/// The values of a column as text, one per row.
pub fn show(a: &dyn Array) -> Vec<String> {
    let opts = FormatOptions::default().with_null("∅");
    let f = ArrayFormatter::try_new(a, &opts).unwrap();
    (0..a.len()).map(|i| f.value(i).to_string()).collect()
}

/// All batches as one.
pub fn concat(batches: &[RecordBatch]) -> Option<RecordBatch> {
    let first = batches.first()?;
    Some(arrow_select::concat::concat_batches(&first.schema(), batches).unwrap())
}
