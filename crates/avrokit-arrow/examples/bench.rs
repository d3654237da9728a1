//! avrokit-arrow against arrow-avro 59.3, side by side on the same files: decoding container
//! files to RecordBatches (1 thread and N threads) and encoding RecordBatches to container
//! files. Prints medians and ratios.
//!
//! `cargo run --release -p avrokit-arrow --example bench [-- RECORDS RUNS THREADS]`
//!
//! Data sets: the `-container` batch's mixed record (generated here with a simple seeded
//! generator, not avrokit-perf's Java `Random` port), the AVRO-3451 Big record, and a
//! string-heavy record. `MB/s` counts datum bytes (the uncompressed block payloads).

use std::hint::black_box;
use std::io::Cursor;
use std::time::Instant;

use arrow_array::RecordBatch;
use avrokit::container::{Codec, Reader, WriterBuilder};
use avrokit::{Schema, Value};

const MIXED: &str = r#"{"type":"record","name":"Mixed","namespace":"perf","fields":[
  {"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"d","type":"double"},
  {"name":"f","type":"float"},{"name":"b","type":"boolean"},{"name":"s","type":"string"},
  {"name":"by","type":"bytes"},
  {"name":"e","type":{"type":"enum","name":"Suit","symbols":["SPADES","HEARTS","DIAMONDS","CLUBS"]}},
  {"name":"u","type":["null","string"]},
  {"name":"a","type":{"type":"array","items":"long"}},
  {"name":"m","type":{"type":"map","values":"int"}},
  {"name":"n","type":{"type":"record","name":"Inner","fields":[
    {"name":"id","type":"long"},{"name":"label","type":"string"}]}}]}"#;

const BIG: &str = r#"{"namespace":"my.example","type":"record","name":"userInfo","fields":[
  {"default":"NONE","type":"string","name":"username"},
  {"default":-1,"type":"int","name":"age"},
  {"default":"NONE","type":"string","name":"phone"},
  {"default":"NONE","type":"string","name":"housenum"},
  {"default":{},"type":{"fields":[
      {"default":"NONE","type":"string","name":"street"},
      {"default":"NONE","type":"string","name":"city"},
      {"default":"NONE","type":"string","name":"state_prov"},
      {"default":"NONE","type":"string","name":"country"},
      {"default":"NONE","type":"string","name":"zip"}],
   "type":"record","name":"mailing_address"},"name":"address"}]}"#;

const STRINGS: &str = r#"{"type":"record","name":"Doc","fields":[
  {"name":"id","type":"string"},{"name":"title","type":"string"},
  {"name":"body","type":"string"},{"name":"author","type":"string"},
  {"name":"tags","type":{"type":"array","items":"string"}}]}"#;

/// A data set: name, schema, record generator, record count.
type DataSet = (&'static str, &'static str, fn(&mut Rng) -> Value, usize);

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn text(&mut self, max: u64) -> String {
        let n = self.below(max + 1);
        (0..n)
            .map(|_| (b'a' + self.below(26) as u8) as char)
            .collect()
    }
}

fn mixed(r: &mut Rng) -> Value {
    let s = r.text(40);
    Value::Record(vec![
        Value::Int(r.next() as i32),
        Value::Long(r.next() as i64 >> r.below(60)),
        Value::Double(r.next() as f64 / 7.0),
        Value::Float(r.below(1000) as f32 / 3.0),
        Value::Boolean(r.below(2) == 0),
        Value::String(s),
        Value::Bytes((0..r.below(17)).map(|_| r.next() as u8).collect()),
        Value::Enum(r.below(4) as u32),
        if r.below(2) == 0 {
            Value::Union(0, Box::new(Value::Null))
        } else {
            Value::Union(1, Box::new(Value::String(r.text(20))))
        },
        Value::Array(
            (0..r.below(6))
                .map(|_| Value::Long(r.below(1 << 20) as i64))
                .collect(),
        ),
        Value::Map(
            (0..r.below(4))
                .map(|k| (format!("k{k}"), Value::Int(r.below(100) as i32)))
                .collect(),
        ),
        Value::Record(vec![
            Value::Long(r.next() as i64 >> 40),
            Value::String(r.text(12)),
        ]),
    ])
}

fn big(_: &mut Rng) -> Value {
    let s = |x: &str| Value::String(x.into());
    Value::Record(vec![
        s("username"),
        Value::Int(10),
        s("000000000"),
        s("0000"),
        Value::Record(vec![
            s("street"),
            s("city"),
            s("state_prov"),
            s("country"),
            s("zip"),
        ]),
    ])
}

fn strings(r: &mut Rng) -> Value {
    Value::Record(vec![
        Value::String(format!("{:016x}", r.next())),
        Value::String(r.text(60)),
        Value::String(r.text(400)),
        Value::String(r.text(20)),
        Value::Array((0..r.below(5)).map(|_| Value::String(r.text(10))).collect()),
    ])
}

fn file(schema: &Schema, n: usize, codec: Codec, gen: fn(&mut Rng) -> Value) -> Vec<u8> {
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let mut w = WriterBuilder::new(schema)
        .with_codec(codec)
        .build(Vec::new())
        .unwrap();
    for _ in 0..n {
        w.append(&gen(&mut rng)).unwrap();
    }
    w.into_inner().unwrap()
}

fn datum_bytes(file: &[u8]) -> u64 {
    let mut r = Reader::from_slice(file).unwrap();
    let mut n = 0;
    let mut buf = Vec::new();
    while let Some(b) = r.next_raw_block().unwrap() {
        b.decompress_into(&mut buf, &avrokit::Limits::default())
            .unwrap();
        n += buf.len() as u64;
    }
    n
}

fn median(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    t[t.len() / 2]
}

fn ours(file: &[u8], threads: usize) -> Vec<RecordBatch> {
    avrokit_arrow::ReaderBuilder::new()
        .with_threads(threads)
        .build_slice(file)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn theirs(file: &[u8]) -> Vec<RecordBatch> {
    arrow_avro::reader::ReaderBuilder::new()
        .with_batch_size(avrokit_arrow::DEFAULT_BATCH_SIZE)
        .build(Cursor::new(file))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let records = args.first().copied().unwrap_or(200_000);
    let runs = args.get(1).copied().unwrap_or(7);
    let threads = args.get(2).copied().unwrap_or(2);
    println!(
        "{:<22} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>9}",
        "data set", "ours 1t", "ours Nt", "arrow-avro", "1t ratio", "Nt ratio", "Nt/1t", "MB/s 1t"
    );
    let sets: [DataSet; 3] = [
        ("mixed (-container)", MIXED, mixed, records),
        ("avro3451 big", BIG, big, records),
        ("string-heavy", STRINGS, strings, records / 4),
    ];
    let mut enc_rows = Vec::new();
    for (name, json, gen, n) in sets {
        let schema = Schema::parse_str(json).unwrap();
        for codec in [Codec::Null, Codec::Snappy] {
            let f = file(&schema, n, codec, gen);
            let bytes = datum_bytes(&f);
            let a = median(runs, || drop(black_box(ours(&f, 1))));
            let b = median(runs, || drop(black_box(ours(&f, threads))));
            let c = median(runs, || drop(black_box(theirs(&f))));
            println!(
                "{:<22} {:>9.2}ms {:>9.2}ms {:>9.2}ms {:>8.2}x {:>8.2}x {:>8.2}x {:>9.0}",
                format!("{name} {}", codec.name()),
                a * 1e3,
                b * 1e3,
                c * 1e3,
                c / a,
                c / b,
                a / b,
                bytes as f64 / a / 1e6
            );
            if codec == Codec::Null {
                let batches = ours(&f, 1);
                let schema = batches[0].schema();
                let e1 = median(runs, || {
                    let mut w = avrokit_arrow::Writer::new(Vec::new(), &schema).unwrap();
                    batches.iter().for_each(|b| w.write(b).unwrap());
                    black_box(w.finish().unwrap());
                });
                let theirs_batches = theirs(&f);
                let tschema = theirs_batches[0].schema();
                let e2 = median(runs, || {
                    let mut w = arrow_avro::writer::AvroWriter::new(Vec::new(), (*tschema).clone())
                        .unwrap();
                    theirs_batches.iter().for_each(|b| w.write(b).unwrap());
                    w.finish().unwrap();
                    black_box(w.into_inner());
                });
                enc_rows.push((name, e1, e2, bytes));
            }
        }
    }
    println!(
        "\n{:<22} {:>10} {:>10} {:>9} {:>9}",
        "encode (null)", "ours", "arrow-avro", "ratio", "MB/s"
    );
    for (name, a, b, bytes) in enc_rows {
        println!(
            "{:<22} {:>9.2}ms {:>9.2}ms {:>8.2}x {:>9.0}",
            name,
            a * 1e3,
            b * 1e3,
            b / a,
            bytes as f64 / a / 1e6
        );
    }
}
