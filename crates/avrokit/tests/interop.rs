//! Container files written by other Avro implementations (Java, Python, C, fastavro, the Avro
//! repository's own test files, and handcrafted oddities), and malformed files that must be
//! rejected.
//!
//! Test data lives in `tests/data/interop/` (a copy of the interoperability corpus: `data/` with
//! a `MANIFEST.tsv` and, per file, the expected records as Avro JSON lines and the expected
//! metadata; `malformed/` with its own `MANIFEST.tsv`).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use avrokit::container::{Reader, ReaderBuilder};
use avrokit::schema::{NodeId, NodeKind};
use avrokit::{json, Schema, Value};
use serde_json::Value as J;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/interop")
}

/// Rows of a MANIFEST.tsv as (file, columns), header skipped.
fn manifest(rel: &str) -> Vec<(String, Vec<String>)> {
    let text = fs::read_to_string(root().join(rel)).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<String> = l.split('\t').map(str::to_owned).collect();
            (cols[0].clone(), cols)
        })
        .collect()
}

/// A reader that hands out at most `step` bytes per call, to split every boundary.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// A number of the expected JSON: a number, or NaN and the infinities as strings.
fn number(j: &J) -> Option<f64> {
    match j {
        J::Number(n) => n.as_f64(),
        J::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// The JSON name of a union branch: a named type's full name, else the type name.
fn branch_name(schema: &Schema, id: NodeId) -> String {
    let node = schema.node(id);
    match node.name() {
        Some(n) => n.fullname().to_owned(),
        None => node.kind().type_name().to_owned(),
    }
}

/// Compares Avro JSON values of the type `id` as the corpus README says: floats equal when they
/// round to the same f32, doubles when they are the same f64, everything else exactly.
fn json_eq(schema: &Schema, id: NodeId, got: &J, want: &J) -> bool {
    match schema.node(id).kind() {
        NodeKind::Float => match (number(got), number(want)) {
            (Some(a), Some(b)) => (a as f32 == b as f32) || (a.is_nan() && b.is_nan()),
            _ => false,
        },
        NodeKind::Double => match (number(got), number(want)) {
            (Some(a), Some(b)) => a == b || (a.is_nan() && b.is_nan()),
            _ => false,
        },
        NodeKind::Union(u) => match (got, want) {
            (J::Null, J::Null) => true,
            (J::Object(a), J::Object(b)) if a.len() == 1 && b.len() == 1 => {
                let (ka, va) = a.iter().next().unwrap();
                let (kb, vb) = b.iter().next().unwrap();
                ka == kb
                    && u.variants
                        .iter()
                        .find(|&&v| &branch_name(schema, v) == ka)
                        .is_some_and(|&v| json_eq(schema, v, va, vb))
            }
            _ => false,
        },
        NodeKind::Record(r) => match (got, want) {
            (J::Object(a), J::Object(b)) => {
                a.len() == b.len()
                    && r.fields
                        .iter()
                        .all(|f| match (a.get(&f.name), b.get(&f.name)) {
                            (Some(x), Some(y)) => json_eq(schema, f.schema, x, y),
                            _ => false,
                        })
            }
            _ => false,
        },
        NodeKind::Array(arr) => match (got, want) {
            (J::Array(a), J::Array(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| json_eq(schema, arr.items, x, y))
            }
            _ => false,
        },
        NodeKind::Map(m) => match (got, want) {
            (J::Object(a), J::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, x)| b.get(k).is_some_and(|y| json_eq(schema, m.values, x, y)))
            }
            _ => false,
        },
        _ => got == want,
    }
}

/// Bytes shown one code point per byte, as in the corpus' meta.json.
fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

fn read_all(reader: impl Iterator<Item = avrokit::Result<Value>>) -> avrokit::Result<Vec<Value>> {
    reader.collect()
}

#[test]
fn every_data_file_reads_as_expected() {
    let rows = manifest("data/MANIFEST.tsv");
    assert!(rows.len() > 150, "the corpus has {} files", rows.len());
    let mut checked = 0;
    for (file, cols) in &rows {
        let path = root().join(file);
        let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let stem = path.with_extension("");
        let meta: J =
            serde_json::from_str(&fs::read_to_string(stem.with_extension("meta.json")).unwrap())
                .unwrap();
        let expected: Vec<J> = fs::read_to_string(stem.with_extension("jsonl"))
            .unwrap()
            .split('\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{file}: {e}: {l}")))
            .collect();

        let codec = avrokit::container::Codec::from_name(&cols[2]).unwrap();
        if !codec.is_enabled() {
            let e = Reader::from_slice(&bytes).unwrap_err();
            assert!(e.to_string().contains("not enabled"), "{file}: {e}");
            checked += 1;
            continue;
        }
        let reader = Reader::from_slice(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let schema = reader.schema().clone();

        // Header: codec, schema, user metadata.
        assert_eq!(reader.codec().name(), meta["codec"], "{file}");
        assert_eq!(reader.codec().name(), cols[2], "{file}");
        let embedded: J =
            serde_json::from_slice(reader.metadata_value("avro.schema").unwrap()).unwrap();
        assert_eq!(embedded, meta["schema"], "{file}");
        let user: serde_json::Map<String, J> = reader
            .metadata()
            .iter()
            .filter(|(k, _)| k != "avro.schema" && k != "avro.codec")
            .map(|(k, v)| (k.clone(), J::String(latin1(v))))
            .collect();
        assert_eq!(J::Object(user), meta["metadata"], "{file}");

        // Records, through the json module.
        let values = read_all(reader).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            values.len() as u64,
            meta["record_count"].as_u64().unwrap(),
            "{file}"
        );
        assert_eq!(values.len().to_string(), cols[3], "{file}");
        assert_eq!(values.len(), expected.len(), "{file}");
        for (i, (v, want)) in values.iter().zip(&expected).enumerate() {
            let got =
                json::to_json_value(v, &schema).unwrap_or_else(|e| panic!("{file}[{i}]: {e}"));
            assert!(
                json_eq(&schema, schema.root_id(), &got, want),
                "{file} record {i}:\n  got  {got}\n  want {want}"
            );
        }

        // Blocks.
        let mut r = Reader::from_slice(&bytes).unwrap();
        let mut counts = Vec::new();
        while let Some(b) = r.next_raw_block().unwrap_or_else(|e| panic!("{file}: {e}")) {
            counts.push(J::from(b.count()));
        }
        assert_eq!(J::Array(counts.clone()), meta["block_counts"], "{file}");
        assert_eq!(counts.len().to_string(), cols[4], "{file}");

        // The same through io::Read, in small pieces and a tiny buffer.
        for (step, cap) in [(1, 1), (7, 3), (4096, 64 * 1024)] {
            let reader = ReaderBuilder::new()
                .with_buffer_capacity(cap)
                .build(Trickle { data: &bytes, step })
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            let streamed =
                read_all(reader).unwrap_or_else(|e| panic!("{file} (stream {step}/{cap}): {e}"));
            assert!(
                same_values(&streamed, &values),
                "{file} (stream {step}/{cap})"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, rows.len());
}

/// Value equality where NaN equals NaN (the corpus has NaN floats and doubles).
fn same_values(a: &[Value], b: &[Value]) -> bool {
    fn eq(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
            (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
            (Value::Array(x), Value::Array(y)) | (Value::Record(x), Value::Record(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(p, q))
            }
            (Value::Map(x), Value::Map(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.0 == q.0 && eq(&p.1, &q.1))
            }
            (Value::Union(i, x), Value::Union(j, y)) => i == j && eq(x, y),
            _ => a == b,
        }
    }
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| eq(x, y))
}

/// Opens and reads a whole file; the first error.
fn first_error(reader: avrokit::Result<Reader<'_, impl Read>>) -> Option<avrokit::Error> {
    match reader {
        Err(e) => Some(e),
        Ok(r) => r.into_iter().find_map(Result::err),
    }
}

#[test]
fn every_malformed_file_is_rejected() {
    let rows = manifest("malformed/MANIFEST.tsv");
    assert!(rows.len() >= 18);
    let dir = root().join("malformed");
    let mut files: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".avro"))
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        rows.len(),
        "every malformed file is in the manifest"
    );
    for (file, cols) in &rows {
        let bytes = fs::read(dir.join(file)).unwrap();
        let e = first_error(Reader::from_slice(&bytes))
            .unwrap_or_else(|| panic!("{file} ({}) was accepted", cols[2]));
        let shown = e.to_string();
        assert!(!shown.is_empty());
        // The same from a stream, a byte at a time.
        let e2 = first_error(ReaderBuilder::new().with_buffer_capacity(1).build(Trickle {
            data: &bytes,
            step: 1,
        }))
        .unwrap_or_else(|| panic!("{file} was accepted from a stream"));
        assert_eq!(e.kind(), e2.kind(), "{file}: {e} / {e2}");
    }
}

#[test]
#[cfg(all(feature = "deflate", feature = "snappy"))]
fn malformed_errors_say_what_and_where() {
    let dir = root().join("malformed");
    let err = |name: &str| {
        let bytes = fs::read(dir.join(name)).unwrap();
        first_error(Reader::from_slice(&bytes)).unwrap()
    };
    use avrokit::ErrorKind::*;
    let cases: &[(&str, avrokit::ErrorKind, &str)] = &[
        ("bad-magic.avro", Container, "magic"),
        ("upstream-test.avro12.avro", Container, "legacy"),
        ("codec-unknown.avro", Container, "\"lzo\""),
        (
            "corrupt-sync-after-block1.avro",
            Container,
            "sync marker after block 0",
        ),
        (
            "block-count-huge.avro",
            Container,
            "claims 1099511627776 objects",
        ),
        ("deflate-corrupt.avro", Codec, "deflate"),
        ("snappy-crc-mismatch.avro", Codec, "CRC32"),
        ("truncated-in-header-metadata.avro", Eof, "header"),
        ("truncated-in-block-data.avro", Eof, "block 0"),
        ("upstream-c-avro-1238-truncated.avro", Eof, "sync marker"),
        ("string-length-negative.avro", Data, "negative length"),
        ("union-index-out-of-range.avro", Data, "union index 3"),
        ("enum-index-out-of-range.avro", Data, "enum index 3"),
        ("string-invalid-utf8.avro", Data, "UTF-8"),
        ("schema-unknown-type.avro", Schema, "Missing"),
        ("schema-invalid-json.avro", Schema, "avro.schema"),
        ("upstream-js-person-10.no-codec.avro", Eof, "block 1"),
    ];
    for &(name, kind, needle) in cases {
        let e = err(name);
        let shown = e.to_string();
        assert_eq!(e.kind(), kind, "{name}: {shown}");
        assert!(shown.contains(needle), "{name}: {shown:?} lacks {needle:?}");
        // Errors in the data name where; errors in the header's schema or codec entries name
        // the entry instead.
        let in_header = kind == Schema || name == "codec-unknown.avro";
        assert!(
            e.offset().is_some() || in_header,
            "{name}: no offset in {shown}"
        );
    }
}
