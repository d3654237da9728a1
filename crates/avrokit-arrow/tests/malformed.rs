//! Bad input: every file of the malformed corpus that the core rejects is rejected here too,
//! with an error (never a panic); every prefix of a valid file is an error or its full reading.

mod common;

use avrokit_arrow::ReaderBuilder;
use common::*;

fn read(data: &[u8], threads: usize) -> Result<usize, avrokit_arrow::Error> {
    let r = ReaderBuilder::new()
        .with_threads(threads)
        .build_slice(data)?;
    let mut rows = 0;
    for b in r {
        rows += b?.num_rows();
    }
    Ok(rows)
}

#[test]
fn the_malformed_corpus_is_rejected() {
    let dir = interop_dir().join("malformed");
    let files = avro_files(&dir);
    assert!(!files.is_empty());
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let core = avrokit::container::Reader::from_slice(&data)
            .and_then(|r| r.collect::<Result<Vec<_>, _>>());
        for threads in [1, 2] {
            let ours = read(&data, threads);
            if core.is_err() {
                let e = ours.expect_err(&path.display().to_string());
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

#[test]
fn every_prefix_of_a_file_is_an_error_or_whole() {
    let path = interop_dir().join("data/fastavro/events-null.avro");
    let data = std::fs::read(path).unwrap();
    let full = read(&data, 1).unwrap();
    for n in (0..data.len()).step_by(7) {
        match read(&data[..n], 1) {
            Ok(rows) => assert!(rows <= full),
            Err(e) => assert!(!e.message().is_empty()),
        }
    }
}

#[test]
fn lying_counts_and_lengths_are_errors() {
    use avrokit::Schema;
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[
            {"name":"a","type":{"type":"array","items":"long"}},
            {"name":"s","type":"string"},
            {"name":"m","type":{"type":"map","values":"null"}}]}"#,
    )
    .unwrap();
    let cases: &[&[u8]] = &[
        &[0xfe, 0xff, 0xff, 0xff, 0x0f], // an array of 2^31 items in 5 bytes
        &[0x00, 0xfe, 0xff, 0xff, 0xff, 0x0f], // a string of 2^31 bytes
        &[0x00, 0x01],                   // a negative string length
        &[
            0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ], // map count
        &[
            0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ], // varint
    ];
    for bytes in cases {
        let mut dec = ReaderBuilder::new().build_decoder(&schema).unwrap();
        let e = dec.decode(bytes).expect_err(&format!("{bytes:02x?}"));
        assert!(e.offset().is_some(), "{e}");
    }
}

/// Every kind of value a projection skips, between the two selected columns: `k`, after all of
/// them, is read right only if each skip lands exactly where the value ends.
const SKIPPED: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"id","type":"long"},
    {"name":"l","type":"long"},
    {"name":"fx","type":{"type":"fixed","name":"F3","size":3}},
    {"name":"d","type":"double"},
    {"name":"s","type":"string"},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
    {"name":"u","type":["null","string"]},
    {"name":"w","type":["int","string","null"]},
    {"name":"v","type":["bytes","null"]},
    {"name":"a","type":{"type":"array","items":"long"}},
    {"name":"as","type":{"type":"array","items":"string"}},
    {"name":"ar","type":{"type":"array","items":{"type":"record","name":"P","fields":[
        {"name":"x","type":"long"},{"name":"y","type":"string"}]}}},
    {"name":"m","type":{"type":"map","values":"int"}},
    {"name":"ms","type":{"type":"map","values":"string"}},
    {"name":"n","type":{"type":"record","name":"N","fields":[
        {"name":"id","type":"long"},{"name":"label","type":"string"}]}},
    {"name":"t","type":{"type":"record","name":"Tree","fields":[
        {"name":"v","type":"long"},{"name":"kids","type":{"type":"array","items":"Tree"}}]}},
    {"name":"k","type":"int"}]}"#;

/// A seeded generator of [`SKIPPED`] records, with varints of every length.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A long of a random bit width, so its varint is 1 to 10 bytes long.
    fn long(&mut self) -> i64 {
        (self.next() >> self.below(64)) as i64
    }
    fn text(&mut self, max: u64) -> String {
        (0..self.below(max + 1))
            .map(|_| char::from(b'a' + self.below(26) as u8))
            .collect()
    }
    fn tree(&mut self, depth: u32) -> avrokit::Value {
        use avrokit::Value;
        let kids = if depth == 0 { 0 } else { self.below(3) };
        Value::Record(vec![
            Value::Long(self.long()),
            Value::Array((0..kids).map(|_| self.tree(depth - 1)).collect()),
        ])
    }
    fn record(&mut self) -> avrokit::Value {
        use avrokit::Value;
        let w = match self.below(3) {
            0 => Value::Union(0, Box::new(Value::Int(self.long() as i32))),
            1 => Value::Union(1, Box::new(Value::String(self.text(30)))),
            _ => Value::Union(2, Box::new(Value::Null)),
        };
        Value::Record(vec![
            Value::Long(self.long()),
            Value::Long(self.long()),
            Value::Fixed(vec![1, 2, 3]),
            Value::Double(self.next() as f64),
            Value::String(self.text(200)),
            Value::Enum(self.below(3) as u32),
            if self.below(2) == 0 {
                Value::Union(0, Box::new(Value::Null))
            } else {
                // Lengths of one varint byte and of two.
                Value::Union(1, Box::new(Value::String(self.text(90))))
            },
            w,
            if self.below(2) == 0 {
                Value::Union(1, Box::new(Value::Null))
            } else {
                let n = self.below(100);
                Value::Union(0, Box::new(Value::Bytes((0..n).map(|i| i as u8).collect())))
            },
            Value::Array(
                (0..self.below(6))
                    .map(|_| Value::Long(self.long()))
                    .collect(),
            ),
            Value::Array(
                (0..self.below(4))
                    .map(|_| Value::String(self.text(10)))
                    .collect(),
            ),
            Value::Array(
                (0..self.below(3))
                    .map(|_| {
                        Value::Record(vec![Value::Long(self.long()), Value::String(self.text(5))])
                    })
                    .collect(),
            ),
            Value::Map(
                (0..self.below(4))
                    .map(|i| (format!("k{i}"), Value::Int(self.long() as i32)))
                    .collect(),
            ),
            Value::Map(
                (0..self.below(3))
                    .map(|i| (format!("k{i}"), Value::String(self.text(8))))
                    .collect(),
            ),
            Value::Record(vec![Value::Long(self.long()), Value::String(self.text(10))]),
            self.tree(3),
            Value::Int(self.long() as i32),
        ])
    }
}

/// The `id` and `k` columns of `datums` read by a decoder with `projection`, as text.
fn id_and_k(
    schema: &avrokit::Schema,
    datums: &[u8],
    projection: &[&str],
) -> Result<Vec<String>, avrokit_arrow::Error> {
    let mut dec = ReaderBuilder::new()
        .with_projection(projection.iter().copied())
        .build_decoder(schema)?;
    dec.decode_stream(datums)?;
    let batch = dec.flush()?;
    let mut out = show(batch.column_by_name("id").unwrap().as_ref());
    out.extend(show(batch.column_by_name("k").unwrap().as_ref()));
    Ok(out)
}

/// A projection skips every unselected value by the same rules a full read decodes it: on
/// valid data the selected columns come out the same; every datum cut short is an error; and
/// a byte changed anywhere gives an error or, when the full read accepts it, the full read's
/// values. Varints of every length, near the end of the data and far from it.
#[test]
fn skipped_values_land_where_read_ones_do() {
    let schema = avrokit::Schema::parse_str(SKIPPED).unwrap();
    let mut gen = Gen(19);
    let projection: &[&str] = &["id", "k"];
    // Every column Arrow can hold: the recursive `t` is skipped in both.
    let every: &[&str] = &[
        "id", "l", "fx", "d", "s", "e", "u", "w", "v", "a", "as", "ar", "m", "ms", "n", "k",
    ];
    let mut all = Vec::new();
    let mut datums = Vec::new();
    for _ in 0..300 {
        let datum = avrokit::to_datum_vec(&gen.record(), &schema).unwrap();
        all.extend_from_slice(&datum);
        datums.push(datum);
    }
    let full = id_and_k(&schema, &all, every).unwrap();
    assert_eq!(full.len(), 600);
    assert_eq!(id_and_k(&schema, &all, projection).unwrap(), full);

    for datum in datums.iter().take(40) {
        // (An empty stream is zero datums.)
        for n in 1..datum.len() {
            let e = id_and_k(&schema, &datum[..n], projection)
                .expect_err(&format!("a datum cut to {n} of {} bytes", datum.len()));
            assert!(e.offset().is_some(), "{e}");
        }
        for _ in 0..40 {
            let mut bad = datum.clone();
            let at = gen.below(bad.len() as u64) as usize;
            bad[at] = gen.next() as u8;
            let projected = id_and_k(&schema, &bad, projection);
            if let Ok(full) = id_and_k(&schema, &bad, every) {
                assert_eq!(projected.unwrap(), full, "byte {at} of {bad:02x?}");
            }
        }
    }
}
