//! Builds seed corpora for the fuzz targets from the repository's test data:
//!
//! ```sh
//! cargo run --release -p avrokit-cli -- random --schema fuzz/schemas/rich.avsc \
//!     --count 40 --seed 7 /tmp/rich.avro
//! cd fuzz && cargo run --example make_seeds -- /tmp/rich.avro seeds
//! ```
//!
//! writes `seeds/<target>/<name>` (then `cargo fuzz cmin` merges them into `corpus/`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use avrokit::container::Reader;
use avrokit::json::to_json_string;
use avrokit::value::read_value;
use avrokit::Schema;
use avrokit_fuzz::checks::rich_schema;

const MAX_FILE: u64 = 32 * 1024;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

struct Out {
    dir: PathBuf,
    n: usize,
}

impl Out {
    fn new(root: &Path, target: &str) -> Out {
        let dir = root.join(target);
        fs::create_dir_all(&dir).unwrap();
        Out { dir, n: 0 }
    }
    fn put(&mut self, data: &[u8]) {
        fs::write(self.dir.join(format!("seed-{:04}", self.n)), data).unwrap();
        self.n += 1;
    }
}

/// The bytes of each of the first `n` records of a container file.
fn records(file: &[u8], n: usize) -> Option<(Schema, Vec<Vec<u8>>)> {
    let mut r = Reader::from_slice(file).ok()?;
    let schema = r.schema().clone();
    let mut out = Vec::new();
    while out.len() < n {
        let s = schema.clone();
        let rec = r.next_with(move |dec| {
            let rest = dec.rest();
            read_value(dec, &s)?;
            Ok(rest[..rest.len() - dec.rest().len()].to_vec())
        });
        match rec {
            Some(Ok(bytes)) => out.push(bytes),
            _ => break,
        }
    }
    Some((schema, out))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rich = PathBuf::from(args.get(1).expect("usage: make_seeds RICH.avro OUT_DIR"));
    let root = PathBuf::from(args.get(2).expect("usage: make_seeds RICH.avro OUT_DIR"));
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/avrokit/tests/data");
    let mut all = Vec::new();
    files(&data, &mut all);

    // schema_parse: schema files and every schema in the JSON tables.
    let mut schemas = BTreeSet::new();
    for p in &all {
        let name = p.to_string_lossy();
        if name.ends_with(".avsc") || name.contains("c-schema-tests") {
            if let Ok(text) = fs::read_to_string(p) {
                schemas.insert(text);
            }
        }
    }
    for table in [
        "schemas/canonical-forms.json",
        "schemas/validity.json",
        "schemas/corpus-schemas.json",
        "schemas/upstream/schema-tests.json",
    ] {
        let text = fs::read_to_string(data.join(table)).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        for entry in json.as_array().unwrap() {
            for key in ["schema", "input", "canonical"] {
                match entry.get(key) {
                    Some(serde_json::Value::String(s)) => schemas.insert(s.clone()),
                    Some(v) => schemas.insert(v.to_string()),
                    None => false,
                };
            }
        }
    }
    let mut out = Out::new(&root, "schema_parse");
    for s in &schemas {
        out.put(s.as_bytes());
    }

    // datum_fixed_schema and json_decode: records of the rich schema.
    let schema = rich_schema();
    let file = fs::read(&rich).unwrap();
    let (_, recs) = records(&file, 100).unwrap();
    let mut bin = Out::new(&root, "datum_fixed_schema");
    let mut json = Out::new(&root, "json_decode");
    for (i, r) in recs.iter().enumerate() {
        bin.put(r);
        let v = avrokit::from_datum_slice(r, &schema).unwrap();
        json.put(to_json_string(&v, &schema, i % 8 == 0).unwrap().as_bytes());
    }

    // container_read and datum_fuzzed_schema: the interop files.
    let mut cont = Out::new(&root, "container_read");
    let mut fuzzed = Out::new(&root, "datum_fuzzed_schema");
    let mut seen = BTreeSet::new();
    for p in &all {
        if p.extension().is_none_or(|e| e != "avro") {
            continue;
        }
        let bytes = fs::read(p).unwrap();
        if bytes.len() as u64 <= MAX_FILE {
            cont.put(&bytes);
        }
        if let Some((schema, recs)) = records(&bytes, 3) {
            let text = schema.to_json().to_string();
            for r in recs {
                if seen.insert((text.clone(), r.clone())) && seen.len() < 2000 {
                    let mut seed = text.clone().into_bytes();
                    seed.push(0);
                    seed.extend_from_slice(&r);
                    fuzzed.put(&seed);
                }
            }
        }
    }

    // resolved: the resolution cases, writer and reader schema and the first records.
    let mut res = Out::new(&root, "resolved");
    let cases = data.join("resolution/cases");
    let mut dirs: Vec<_> = fs::read_dir(&cases)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let (Ok(w), Ok(r), Ok(f)) = (
            fs::read(dir.join("writer.avsc")),
            fs::read(dir.join("reader.avsc")),
            fs::read(dir.join("input.avro")),
        ) else {
            continue;
        };
        let Some((_, recs)) = records(&f, 2) else {
            continue;
        };
        for rec in recs {
            let mut seed = w.clone();
            seed.push(0);
            seed.extend_from_slice(&r);
            seed.push(0);
            seed.extend_from_slice(&rec);
            res.put(&seed);
        }
    }
}
