//! Test data and helpers shared by the SQL tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use avrokit::container::{Codec, WriterBuilder};
use avrokit::{Schema, Value};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::prelude::SessionContext;

/// The mixed record of the tests: every kind of column a query touches.
pub const MIXED: &str = r#"{"type":"record","name":"Mixed","namespace":"t","fields":[
    {"name":"i","type":"int"},
    {"name":"l","type":"long"},
    {"name":"d","type":"double"},
    {"name":"b","type":"boolean"},
    {"name":"s","type":"string"},
    {"name":"e","type":{"type":"enum","name":"Suit","symbols":["SPADES","HEARTS","DIAMONDS","CLUBS"]}},
    {"name":"u","type":["null","string"]},
    {"name":"a","type":{"type":"array","items":"long"}},
    {"name":"n","type":{"type":"record","name":"Inner","fields":[
        {"name":"id","type":"long"},{"name":"label","type":"string"}]}}]}"#;

/// The join partner: keys into `Mixed.i` with a tag.
pub const KEYS: &str = r#"{"type":"record","name":"Key","fields":[
    {"name":"key","type":"int"},{"name":"tag","type":"string"}]}"#;

/// Every codec this build has.
pub const CODECS: [Codec; 6] = [
    Codec::Null,
    Codec::DEFLATE,
    Codec::Snappy,
    Codec::ZSTANDARD,
    Codec::BZIP2,
    Codec::XZ,
];

/// A seeded generator (splitmix64), so every run writes the same files.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn word(&mut self, max: u64) -> String {
        let len = self.below(max + 1);
        (0..len)
            .map(|_| char::from(b'a' + self.below(26) as u8))
            .collect()
    }
}

/// One mixed record.
pub fn mixed(rng: &mut Rng) -> Value {
    let label_len = 1 + rng.below(5);
    let label: String = (0..label_len)
        .map(|_| char::from(b'a' + rng.below(26) as u8))
        .collect();
    Value::Record(vec![
        Value::Int(rng.below(1000) as i32),
        Value::Long(rng.next() as i64 >> 8),
        Value::Double(rng.next() as f64 / u64::MAX as f64),
        Value::Boolean(rng.below(2) == 1),
        Value::String(rng.word(20)),
        Value::Enum(rng.below(4) as u32),
        if rng.below(3) == 0 {
            Value::Union(0, Box::new(Value::Null))
        } else {
            Value::Union(1, Box::new(Value::String(rng.word(8))))
        },
        Value::Array(
            (0..rng.below(5))
                .map(|_| Value::Long(rng.below(100) as i64))
                .collect(),
        ),
        Value::Record(vec![
            Value::Long(rng.below(10_000) as i64),
            Value::String(label),
        ]),
    ])
}

/// Writes `rows` values made by `make` into `path` with `schema` and `codec`, in blocks of
/// `block` records.
pub fn write_file(
    path: &Path,
    schema: &str,
    codec: Codec,
    rows: usize,
    block: usize,
    mut make: impl FnMut() -> Value,
) {
    let schema = Schema::parse_str(schema).unwrap();
    let mut w = WriterBuilder::new(&schema)
        .with_codec(codec)
        .with_block_records(block as u64)
        .build(std::fs::File::create(path).unwrap())
        .unwrap();
    for _ in 0..rows {
        w.append(&make()).unwrap();
    }
    w.into_inner().unwrap();
}

/// A fresh directory for one test.
pub fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sql")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The table `t`: one file per codec, 2000 mixed records each in blocks of 300. Returns the
/// directory and its files.
pub fn mixed_table(root: &Path) -> (PathBuf, Vec<PathBuf>) {
    let t = root.join("t");
    std::fs::create_dir_all(&t).unwrap();
    let mut rng = Rng::new(7);
    let files: Vec<PathBuf> = CODECS
        .iter()
        .map(|c| {
            let p = t.join(format!("part-{}.avro", c.name()));
            write_file(&p, MIXED, *c, 2000, 300, || mixed(&mut rng));
            p
        })
        .collect();
    (t, files)
}

/// The table `k`: 400 keys with tags.
pub fn keys_file(root: &Path) -> PathBuf {
    let p = root.join("k.avro");
    let mut rng = Rng::new(11);
    let tags = ["x", "y", "z"];
    write_file(&p, KEYS, Codec::DEFLATE, 400, 100, || {
        Value::Record(vec![
            Value::Int(rng.below(1000) as i32),
            Value::String(tags[rng.below(3) as usize].to_owned()),
        ])
    });
    p
}

/// The result of `sql` in `ctx`, as rows of values printed as DataFusion prints them.
pub async fn rows(ctx: &SessionContext, sql: &str) -> Vec<Vec<String>> {
    let batches = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    to_rows(&batches)
}

pub fn to_rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            out.push(
                b.columns()
                    .iter()
                    .map(|c| {
                        if c.is_null(r) {
                            "null".to_owned()
                        } else {
                            array_value_to_string(c, r).unwrap()
                        }
                    })
                    .collect(),
            );
        }
    }
    out
}

/// The error of running `sql` in `ctx` (planning or execution); panics if it succeeds.
pub async fn error(ctx: &SessionContext, sql: &str) -> String {
    let result = match ctx.sql(sql).await {
        Ok(df) => df.collect().await.map(|_| ()),
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => panic!("{sql} succeeded"),
        Err(e) => e.to_string(),
    }
}

/// The physical plan of `sql`, as EXPLAIN prints it.
pub async fn plan(ctx: &SessionContext, sql: &str) -> String {
    let rows = rows(ctx, &format!("EXPLAIN {sql}")).await;
    rows.iter()
        .filter(|r| r[0] == "physical_plan")
        .map(|r| r[1].clone())
        .collect()
}

/// True when `python3` has fastavro; under CI a missing fastavro fails the test instead.
pub fn fastavro_ready() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import fastavro"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        let msg = "python3 with fastavro is not available (python3 -m pip install fastavro)";
        if std::env::var_os("CI").is_some() {
            panic!("{msg}: CI must install it");
        }
        eprintln!("NOTICE: skipping the fastavro comparison: {msg}");
    }
    ok
}

/// Runs `tests/python/answers.py` over the files of `t` and `k`.
pub fn fastavro_answers(t: &[PathBuf], k: &[PathBuf]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/answers.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script);
    cmd.args(t);
    cmd.arg("--");
    cmd.args(k);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "answers.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The rows of one answer of [`fastavro_answers`].
pub fn answer(answers: &serde_json::Value, name: &str) -> Vec<Vec<String>> {
    answers[name]
        .as_array()
        .unwrap_or_else(|| panic!("no answer {name}"))
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

/// The corpus of files written by other implementations, in the core crate's test data.
pub fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit/tests/data/interop")
}
