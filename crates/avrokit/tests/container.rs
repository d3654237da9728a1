//! Object container files: writer and reader round trips with every codec and input path,
//! appending, block copying, split reading, failing sinks, corrupt and hostile files.

use std::io::{self, Cursor, Read, Write};
use std::path::Path;

use avrokit::container::{Codec, RawBlock, Reader, ReaderBuilder, Writer, WriterBuilder};
use avrokit::{ErrorKind, Limits, Schema, Value};

// ------------------------------------------------------------------ helpers

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const RICH: &str = r#"{"type": "record", "name": "Rich", "namespace": "t", "fields": [
    {"name": "n", "type": "null"},
    {"name": "b", "type": "boolean"},
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "by", "type": "bytes"},
    {"name": "s", "type": "string"},
    {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}},
    {"name": "a", "type": {"type": "array", "items": "long"}},
    {"name": "m", "type": {"type": "map", "values": "string"}},
    {"name": "u", "type": ["null", "string", {"type": "record", "name": "Inner", "fields": [
        {"name": "x", "type": "int"}, {"name": "tags", "type": {"type": "array", "items": "string"}}]}]},
    {"name": "dt", "type": {"type": "int", "logicalType": "date"}}
]}"#;

fn rich_schema() -> Schema {
    Schema::parse_str(RICH).unwrap()
}

fn text(rng: &mut Rng) -> String {
    let len = rng.below(20) as usize;
    (0..len)
        .map(|_| ['a', 'é', '字', 'z', ' ', '🙂'][rng.below(6) as usize])
        .collect()
}

fn rich_value(rng: &mut Rng) -> Value {
    let u = match rng.below(3) {
        0 => Value::Union(0, Box::new(Value::Null)),
        1 => Value::Union(1, Box::new(Value::String(text(rng)))),
        _ => Value::Union(
            2,
            Box::new(Value::Record(vec![
                Value::Int(rng.next() as i32),
                Value::Array(
                    (0..rng.below(3))
                        .map(|_| Value::String(text(rng)))
                        .collect(),
                ),
            ])),
        ),
    };
    Value::Record(vec![
        Value::Null,
        Value::Boolean(rng.below(2) == 1),
        Value::Int(rng.next() as i32 >> rng.below(32)),
        Value::Long(rng.next() as i64 >> rng.below(64)),
        Value::Float(rng.below(1000) as f32 / 8.0),
        Value::Double(rng.next() as f64 / 3.0),
        Value::Bytes((0..rng.below(30)).map(|_| rng.next() as u8).collect()),
        Value::String(text(rng)),
        Value::Fixed((rng.next() as u32).to_le_bytes().to_vec()),
        Value::Enum(rng.below(3) as u32),
        Value::Array(
            (0..rng.below(5))
                .map(|_| Value::Long(rng.next() as i64))
                .collect(),
        ),
        Value::Map(
            (0..rng.below(4))
                .map(|k| (format!("k{k}"), Value::String(text(rng))))
                .collect(),
        ),
        u,
        Value::Date(rng.below(40000) as i32),
    ])
}

fn rich_values(n: usize, seed: u64) -> Vec<Value> {
    let mut rng = Rng(seed | 1);
    (0..n).map(|_| rich_value(&mut rng)).collect()
}

fn all_codecs() -> Vec<Codec> {
    [
        Codec::Null,
        Codec::DEFLATE,
        Codec::Deflate { level: 1 },
        Codec::Snappy,
        Codec::ZSTANDARD,
        Codec::BZIP2,
        Codec::XZ,
    ]
    .into_iter()
    .filter(Codec::is_enabled)
    .collect()
}

/// A compressing codec of this build (deflate when enabled), or null when none is built.
fn compressing() -> Codec {
    all_codecs()
        .into_iter()
        .find(|c| *c != Codec::Null)
        .unwrap_or(Codec::Null)
}

fn write_file(schema: &Schema, values: &[Value], builder: WriterBuilder) -> Vec<u8> {
    let _ = schema;
    let mut w = builder.build(Vec::new()).unwrap();
    for v in values {
        w.append(v).unwrap();
    }
    w.into_inner().unwrap()
}

fn read_slice(bytes: &[u8]) -> Vec<Value> {
    Reader::from_slice(bytes)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A reader handing out at most `step` bytes per call.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn read_stream(bytes: &[u8], step: usize, cap: usize) -> Vec<Value> {
    ReaderBuilder::new()
        .with_buffer_capacity(cap)
        .build(Trickle { data: bytes, step })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Reads until the end or the first error: the records read, and the error.
fn read_until_error(bytes: &[u8]) -> (Vec<Value>, Option<avrokit::Error>) {
    let reader = match Reader::from_slice(bytes) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut out = Vec::new();
    for v in reader {
        match v {
            Ok(v) => out.push(v),
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}

fn block_counts(bytes: &[u8]) -> Vec<u64> {
    let mut r = Reader::from_slice(bytes).unwrap();
    let mut out = Vec::new();
    while let Some(b) = r.next_raw_block().unwrap() {
        out.push(b.count());
    }
    out
}

/// The file offsets where blocks start, and the file's end.
fn block_boundaries(bytes: &[u8]) -> Vec<u64> {
    let mut r = Reader::from_slice(bytes).unwrap();
    let mut out = vec![r.header().len()];
    while let Some(b) = r.next_raw_block().unwrap() {
        out.push(b.header().data_offset + b.header().size + 16);
    }
    out
}

// ------------------------------------------------------------------ round trips

#[test]
fn round_trip_every_codec_and_input_path() {
    let schema = rich_schema();
    let values = rich_values(300, 7);
    for codec in all_codecs() {
        for block_size in [1, 700, 64 * 1024] {
            let bytes = write_file(
                &schema,
                &values,
                WriterBuilder::new(&schema)
                    .with_codec(codec)
                    .with_block_size(block_size),
            );
            let blocks = block_counts(&bytes);
            assert_eq!(blocks.iter().sum::<u64>(), 300);
            if block_size == 1 {
                assert_eq!(blocks.len(), 300, "{codec}");
            }
            let r = Reader::from_slice(&bytes).unwrap();
            assert_eq!(r.codec(), Codec::from_name(codec.name()).unwrap());
            assert_eq!(r.schema(), &schema);
            assert_eq!(read_slice(&bytes), values, "{codec} / {block_size}");
            for (step, cap) in [(1, 1), (13, 5), (100_000, 64 * 1024)] {
                assert_eq!(
                    read_stream(&bytes, step, cap),
                    values,
                    "{codec} / {block_size} / {step} / {cap}"
                );
            }
        }
    }
}

/// The complete blocks' records in the bytes a writer has put in its sink so far.
fn records_in_sink(bytes: &[u8]) -> u64 {
    let mut r = Reader::from_slice(bytes).unwrap();
    let mut n = 0;
    while let Some(b) = r.next_raw_block().unwrap() {
        n += b.count();
    }
    n
}

#[test]
fn blocks_compressed_on_threads_make_the_single_threaded_file() {
    let schema = rich_schema();
    let values = rich_values(600, 11);
    let other = write_file(
        &schema,
        &rich_values(40, 12),
        WriterBuilder::new(&schema)
            .with_codec(compressing())
            .with_block_size(300),
    );
    for codec in all_codecs() {
        // Appends in three ways, flushes halfway, copies another file's blocks in between
        // (they must land after the blocks still being compressed), changes the threads at
        // record 200 when `then` says so, and checks as it goes that every record is either
        // pending or in a complete block in the sink.
        let write = |threads: usize, then: Option<usize>| {
            let mut w = WriterBuilder::new(&schema)
                .with_codec(codec)
                .with_block_size(700)
                .with_sync_marker([9; 16])
                .with_threads(threads)
                .build(Vec::new())
                .unwrap();
            let mut appended = 0;
            for (i, v) in values.iter().enumerate() {
                match i % 3 {
                    0 => w.append(v).unwrap(),
                    1 => w
                        .append_encoded(&avrokit::to_datum_vec(v, &schema).unwrap())
                        .unwrap(),
                    _ => w
                        .append_with(|enc| avrokit::value::write_value(enc, v, &schema))
                        .unwrap(),
                }
                appended += 1;
                if let (200, Some(n)) = (i, then) {
                    let pending = w.pending_records();
                    w.set_threads(n).unwrap();
                    // The blocks in flight are in the sink; the block being filled is not.
                    assert!(w.pending_records() <= pending, "{codec}, {threads} -> {n}");
                }
                if i == 300 {
                    w.flush().unwrap();
                    assert_eq!(w.pending_records(), 0, "{codec}, {threads} threads");
                }
                if i == 450 && codec.same_format(&compressing()) {
                    appended += w
                        .append_blocks_from(&mut Reader::from_slice(&other).unwrap())
                        .unwrap();
                }
                assert_eq!(
                    w.pending_records() + records_in_sink(w.get_ref()),
                    appended,
                    "{codec}, {threads} threads, record {i}"
                );
            }
            w.finish().unwrap()
        };
        let one = write(1, None);
        assert!(block_counts(&one).len() > 20, "{codec}");
        for threads in [2, 5] {
            assert_eq!(write(threads, None), one, "{codec}, {threads} threads");
        }
        for (threads, then) in [(1, 3), (4, 1), (2, 2)] {
            let file = write(threads, Some(then));
            assert_eq!(file, one, "{codec}, {threads} then {then} threads");
        }
        let back = read_slice(&one);
        assert_eq!(back[..451], values[..451], "{codec}");
        assert_eq!(back[back.len() - 149..], values[451..], "{codec}");
    }
}

#[test]
fn empty_files() {
    let schema = rich_schema();
    for codec in all_codecs() {
        let bytes = write_file(&schema, &[], WriterBuilder::new(&schema).with_codec(codec));
        assert!(read_slice(&bytes).is_empty());
        assert!(read_stream(&bytes, 1, 1).is_empty());
        assert!(block_counts(&bytes).is_empty());
    }
}

#[test]
fn header_holds_schema_codec_and_user_metadata() {
    let schema = rich_schema();
    let bytes = write_file(
        &schema,
        &rich_values(3, 1),
        WriterBuilder::new(&schema)
            .with_codec(compressing())
            .with_metadata("user.bin", vec![0u8, 255, 7])
            .with_metadata("user.text", "hello")
            .with_sync_marker([0xAB; 16]),
    );
    assert_eq!(&bytes[..4], b"Obj\x01");
    let r = Reader::from_slice(&bytes).unwrap();
    let keys: Vec<&str> = r.metadata().iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["avro.schema", "avro.codec", "user.bin", "user.text"]);
    assert_eq!(
        r.metadata_value("avro.codec"),
        Some(compressing().name().as_bytes())
    );
    let json: serde_json::Value =
        serde_json::from_slice(r.metadata_value("avro.schema").unwrap()).unwrap();
    assert_eq!(json, schema.to_json());
    assert_eq!(r.metadata_value("user.bin"), Some(&[0u8, 255, 7][..]));
    assert_eq!(r.sync_marker(), [0xAB; 16]);
    assert_eq!(
        &bytes[r.header().len() as usize - 16..r.header().len() as usize],
        &[0xAB; 16]
    );
}

#[test]
fn reserved_and_repeated_metadata_keys_are_refused() {
    let schema = rich_schema();
    for key in ["avro.schema", "avro.codec", "avro.anything"] {
        let e = WriterBuilder::new(&schema)
            .with_metadata(key, "x")
            .build(Vec::new())
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Container);
        assert!(e.to_string().contains("reserved"), "{e}");
    }
    let e = WriterBuilder::new(&schema)
        .with_metadata("k", "1")
        .with_metadata("k", "2")
        .build(Vec::new())
        .unwrap_err();
    assert!(e.to_string().contains("twice"), "{e}");
}

#[test]
fn bad_codec_levels_are_refused() {
    let schema = rich_schema();
    for codec in [
        Codec::Deflate { level: 10 },
        Codec::Bzip2 { level: 0 },
        Codec::Xz { level: 42 },
        Codec::Zstandard { level: 99 },
    ] {
        assert!(
            WriterBuilder::new(&schema)
                .with_codec(codec)
                .build(Vec::new())
                .is_err(),
            "{codec}"
        );
    }
}

#[test]
fn random_sync_markers_differ() {
    let schema = rich_schema();
    let a = Writer::new(Vec::new(), &schema).unwrap().sync_marker();
    let b = Writer::new(Vec::new(), &schema).unwrap().sync_marker();
    assert_ne!(a, b);
    assert_ne!(a, [0; 16]);
}

#[test]
fn block_records_and_block_size_end_blocks() {
    let schema = Schema::parse_str(r#""long""#).unwrap();
    let values: Vec<Value> = (0..7).map(Value::Long).collect();
    let bytes = write_file(
        &schema,
        &values,
        WriterBuilder::new(&schema).with_block_records(3),
    );
    assert_eq!(block_counts(&bytes), [3, 3, 1]);
    // Each long takes one byte: a 2-byte block size closes every second record.
    let bytes = write_file(
        &schema,
        &values,
        WriterBuilder::new(&schema).with_block_size(2),
    );
    assert_eq!(block_counts(&bytes), [2, 2, 2, 1]);
    // flush() ends a block early.
    let mut w = Writer::new(Vec::new(), &schema).unwrap();
    w.append(&Value::Long(1)).unwrap();
    w.flush().unwrap();
    w.flush().unwrap(); // nothing pending: no empty block
    w.append(&Value::Long(2)).unwrap();
    assert_eq!(w.pending_records(), 1);
    let bytes = w.into_inner().unwrap();
    assert_eq!(block_counts(&bytes), [1, 1]);
}

#[test]
fn a_value_that_does_not_match_is_refused_and_leaves_no_trace() {
    let schema = rich_schema();
    let good = rich_values(2, 3);
    let mut w = Writer::new(Vec::new(), &schema).unwrap();
    w.append(&good[0]).unwrap();
    let mut bad = good[1].clone();
    if let Value::Record(fields) = &mut bad {
        fields[12] = Value::Union(
            2,
            Box::new(Value::Record(vec![Value::Int(1), Value::Long(5)])),
        );
    }
    let e = w.append(&bad).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert!(e.path().contains("u"), "{e}");
    assert!(w.append(&Value::Long(1)).is_err());
    w.append(&good[1]).unwrap();
    assert!(!w.is_poisoned());
    let bytes = w.into_inner().unwrap();
    assert_eq!(read_slice(&bytes), good);
}

#[test]
fn append_encoded_and_append_with() {
    let schema = rich_schema();
    let values = rich_values(5, 11);
    let mut w = WriterBuilder::new(&schema)
        .with_codec(compressing())
        .build(Vec::new())
        .unwrap();
    for v in &values {
        w.append_encoded(&avrokit::to_datum_vec(v, &schema).unwrap())
            .unwrap();
    }
    let e = w
        .append_with(|enc| {
            enc.write_long(1)?;
            Err(avrokit::Error::from(io::Error::other("stop")))
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    let bytes = w.into_inner().unwrap();
    assert_eq!(read_slice(&bytes), values);
}

#[test]
fn dropping_the_writer_writes_pending_records() {
    let schema = Schema::parse_str(r#""int""#).unwrap();
    let mut out = Vec::new();
    {
        let mut w = Writer::new(&mut out, &schema).unwrap();
        w.append(&Value::Int(5)).unwrap();
    }
    assert_eq!(read_slice(&out), [Value::Int(5)]);
}

#[test]
fn null_codec_slices_are_read_in_place() {
    let schema = Schema::parse_str(r#""bytes""#).unwrap();
    let bytes = write_file(
        &schema,
        &[Value::Bytes(vec![1; 100])],
        WriterBuilder::new(&schema),
    );
    let range = bytes.as_ptr() as usize..bytes.as_ptr() as usize + bytes.len();
    let mut r = Reader::from_slice(&bytes).unwrap();
    let at = r
        .next_with(|dec| Ok(dec.read_bytes_borrowed()?.as_ptr() as usize))
        .unwrap()
        .unwrap();
    assert!(range.contains(&at), "the datum was copied");
    assert!(r.next_with(|dec| dec.read_long()).is_none());
}

// ------------------------------------------------------------------ append and concat

#[test]
fn append_to_an_existing_file() {
    let schema = rich_schema();
    let values = rich_values(20, 5);
    for codec in all_codecs() {
        let mut w = WriterBuilder::new(&schema)
            .with_codec(codec)
            .with_metadata("keep", "me")
            .build(Cursor::new(Vec::new()))
            .unwrap();
        for v in &values[..8] {
            w.append(v).unwrap();
        }
        let sync = w.sync_marker();
        let file = w.into_inner().unwrap();

        let mut w = Writer::append_to(file).unwrap();
        assert_eq!(w.sync_marker(), sync);
        assert!(w.codec().same_format(&codec));
        for v in &values[8..15] {
            w.append(v).unwrap();
        }
        let file = w.into_inner().unwrap();

        let mut w = WriterBuilder::new(&schema)
            .with_codec(codec)
            .with_block_records(2)
            .append_to(file)
            .unwrap();
        for v in &values[15..] {
            w.append(v).unwrap();
        }
        let bytes = w.into_inner().unwrap().into_inner();
        assert_eq!(read_slice(&bytes), values, "{codec}");
        let r = Reader::from_slice(&bytes).unwrap();
        assert_eq!(r.metadata_value("keep"), Some(&b"me"[..]));
        assert_eq!(r.sync_marker(), sync);
    }
}

#[test]
fn append_to_a_header_only_file() {
    let schema = rich_schema();
    let file = Writer::new(Cursor::new(Vec::new()), &schema)
        .unwrap()
        .into_inner()
        .unwrap();
    let values = rich_values(3, 9);
    let mut w = Writer::append_to(file).unwrap();
    for v in &values {
        w.append(v).unwrap();
    }
    assert_eq!(read_slice(&w.into_inner().unwrap().into_inner()), values);
}

#[test]
#[cfg(feature = "deflate")]
fn append_to_refuses_mismatches_and_broken_files() {
    let schema = rich_schema();
    let mut w = WriterBuilder::new(&schema)
        .with_codec(Codec::DEFLATE)
        .build(Cursor::new(Vec::new()))
        .unwrap();
    w.append(&rich_values(1, 1)[0]).unwrap();
    let file = w.into_inner().unwrap().into_inner();

    let other = Schema::parse_str(r#""string""#).unwrap();
    let e = WriterBuilder::new(&other)
        .append_to(Cursor::new(file.clone()))
        .unwrap_err();
    assert!(e.to_string().contains("Canonical"), "{e}");

    // The same schema with other docs and properties is the same schema.
    let mut json = schema.to_json();
    json["doc"] = "documented".into();
    let same = Schema::parse_json(&json).unwrap();
    assert!(WriterBuilder::new(&same)
        .append_to(Cursor::new(file.clone()))
        .is_ok());

    let e = WriterBuilder::new(&schema)
        .with_codec(Codec::Null)
        .append_to(Cursor::new(file.clone()))
        .unwrap_err();
    assert!(e.to_string().contains("codec"), "{e}");
    assert!(WriterBuilder::new(&schema)
        .with_codec(Codec::Deflate { level: 1 })
        .append_to(Cursor::new(file.clone()))
        .is_ok());
    assert!(WriterBuilder::new(&schema)
        .with_metadata("x", "y")
        .append_to(Cursor::new(file.clone()))
        .is_err());
    assert!(WriterBuilder::new(&schema)
        .with_sync_marker([1; 16])
        .append_to(Cursor::new(file.clone()))
        .is_err());

    // A file cut inside its last block is refused, at every cut.
    let header_len = Reader::from_slice(&file).unwrap().header().len() as usize;
    for cut in header_len + 1..file.len() {
        let e = Writer::append_to(Cursor::new(file[..cut].to_vec())).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Container, "{cut}: {e}");
    }
    for cut in 0..header_len {
        assert!(Writer::append_to(Cursor::new(file[..cut].to_vec())).is_err());
    }
}

#[test]
fn concat_copies_raw_blocks() {
    let schema = rich_schema();
    let values = rich_values(40, 21);
    for codec in all_codecs() {
        let files: Vec<Vec<u8>> = values
            .chunks(15)
            .map(|c| {
                write_file(
                    &schema,
                    c,
                    WriterBuilder::new(&schema)
                        .with_codec(codec)
                        .with_block_records(4),
                )
            })
            .collect();
        let mut out = WriterBuilder::new(&schema)
            .with_codec(codec)
            .build(Vec::new())
            .unwrap();
        out.append(&values[0]).unwrap(); // a pending record goes first, as its own block
        let mut copied = 0;
        for f in &files {
            copied += out
                .append_blocks_from(&mut Reader::from_slice(f).unwrap())
                .unwrap();
        }
        assert_eq!(copied, 40);
        let bytes = out.into_inner().unwrap();
        let mut want = vec![values[0].clone()];
        want.extend(values.iter().cloned());
        assert_eq!(read_slice(&bytes), want, "{codec}");
        // Copying from a stream works too.
        let mut out = WriterBuilder::new(&schema)
            .with_codec(codec)
            .build(Vec::new())
            .unwrap();
        let mut r = ReaderBuilder::new()
            .with_buffer_capacity(3)
            .build(&files[0][..])
            .unwrap();
        assert_eq!(out.append_blocks_from(&mut r).unwrap(), 15);
        assert_eq!(read_slice(&out.into_inner().unwrap()), values[..15]);
    }
}

#[test]
#[cfg(all(feature = "deflate", feature = "snappy"))]
fn concat_refuses_other_schemas_and_codecs() {
    let schema = rich_schema();
    let file = write_file(
        &schema,
        &rich_values(2, 1),
        WriterBuilder::new(&schema).with_codec(Codec::DEFLATE),
    );
    let mut out = WriterBuilder::new(&schema)
        .with_codec(Codec::Snappy)
        .build(Vec::new())
        .unwrap();
    let e = out
        .append_blocks_from(&mut Reader::from_slice(&file).unwrap())
        .unwrap_err();
    assert!(e.to_string().contains("deflate"), "{e}");
    let raw_owner = Reader::from_slice(&file)
        .unwrap()
        .next_raw_block()
        .unwrap()
        .map(|b| (b.count(), b.data().to_vec()));
    let (count, data) = raw_owner.unwrap();
    assert!(out
        .append_raw_block(&RawBlock::new(count, &data, Codec::DEFLATE))
        .is_err());

    let other = Schema::parse_str(r#""int""#).unwrap();
    let mut out = WriterBuilder::new(&other)
        .with_codec(Codec::DEFLATE)
        .build(Vec::new())
        .unwrap();
    assert!(out
        .append_blocks_from(&mut Reader::from_slice(&file).unwrap())
        .is_err());
}

// ------------------------------------------------------------------ split reading

/// Reads `ranges` of `bytes` with fresh readers; all the records in order.
fn read_ranges(bytes: &[u8], ranges: &[(u64, u64)], seekable: bool) -> Vec<Value> {
    let mut out = Vec::new();
    for &(start, end) in ranges {
        if seekable {
            let mut r = ReaderBuilder::new()
                .with_buffer_capacity(7)
                .build_seekable(Cursor::new(bytes))
                .unwrap();
            r.seek_split(start, end).unwrap();
            out.extend(r.map(Result::unwrap));
        } else {
            let mut r = Reader::from_slice(bytes).unwrap();
            r.seek_split(start, end).unwrap();
            out.extend(r.map(Result::unwrap));
        }
    }
    out
}

fn split_file() -> (Vec<u8>, Vec<Value>) {
    let schema = rich_schema();
    let values = rich_values(60, 33);
    let bytes = write_file(
        &schema,
        &values,
        WriterBuilder::new(&schema)
            .with_codec(compressing())
            .with_block_records(3),
    );
    (bytes, values)
}

#[test]
fn two_way_splits_at_every_offset_yield_every_record_once() {
    let (bytes, values) = split_file();
    let len = bytes.len() as u64;
    for k in 0..=len {
        let got = read_ranges(&bytes, &[(0, k), (k, len)], false);
        assert_eq!(got.len(), values.len(), "split at {k}");
        assert!(got == values, "split at {k}");
    }
    // Seekable streams, at a sample of offsets.
    for k in (0..=len).step_by(37) {
        assert!(
            read_ranges(&bytes, &[(0, k), (k, len)], true) == values,
            "seekable split at {k}"
        );
    }
}

#[test]
fn random_partitions_yield_every_record_once() {
    let (bytes, values) = split_file();
    let len = bytes.len() as u64;
    let mut rng = Rng(99);
    for round in 0..200 {
        let parts = 1 + rng.below(12);
        let mut cuts: Vec<u64> = (0..parts).map(|_| rng.below(len + 1)).collect();
        cuts.push(0);
        cuts.push(len);
        cuts.sort_unstable();
        let ranges: Vec<(u64, u64)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
        let seekable = round % 4 == 0;
        assert!(
            read_ranges(&bytes, &ranges, seekable) == values,
            "{ranges:?}"
        );
    }
    // Ranges that reach past the end of the file are fine.
    assert!(read_ranges(&bytes, &[(0, 500), (500, u64::MAX)], false) == values);
}

#[test]
fn a_range_holds_the_blocks_whose_marker_starts_in_it() {
    let (bytes, _) = split_file();
    let starts = block_boundaries(&bytes);
    let header_len = starts[0];
    // [0, header_len - 16] all contain the header's marker: the first block belongs there.
    let mut r = Reader::from_slice(&bytes).unwrap();
    r.seek_split(header_len - 16, header_len - 15).unwrap();
    assert_eq!(r.count(), 3);
    let mut r = Reader::from_slice(&bytes).unwrap();
    r.seek_split(header_len - 15, starts[1] - 16).unwrap();
    assert_eq!(r.count(), 0);
    let mut r = Reader::from_slice(&bytes).unwrap();
    r.seek_split(header_len - 15, starts[1] - 15).unwrap();
    assert_eq!(r.count(), 3);
}

#[test]
fn split_reading_ignores_marker_bytes_inside_data() {
    // The handcrafted corpus file has its sync marker inside record data; splitting must not
    // start a block there.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/interop/data/handcrafted/sync-bytes-in-data.avro");
    let bytes = std::fs::read(path).unwrap();
    let values = read_slice(&bytes);
    assert_eq!(values.len(), 9);
    let sync = Reader::from_slice(&bytes).unwrap().sync_marker();
    let occurrences = bytes.windows(16).filter(|w| *w == sync).count();
    assert!(occurrences > 4, "the file has marker bytes in its data");
    let len = bytes.len() as u64;
    for k in 0..=len {
        assert!(
            read_ranges(&bytes, &[(0, k), (k, len)], false) == values,
            "split at {k}"
        );
    }
    // Our own writer, with records that hold the marker bytes, at their start or their end
    // (right before the next record or the block's real marker).
    let schema = Schema::parse_str(r#""bytes""#).unwrap();
    let marker: [u8; 16] = *b"\xc3\x17\x9a\x01\xfe\x88\x30\x4d\xb2\x6e\x00\x91\x5c\xe7\x2a\xd4";
    let values: Vec<Value> = (0..30)
        .map(|i| {
            Value::Bytes(match i % 3 {
                0 => [&marker[..], &[0xff, 0x01, 0x33]].concat(),
                1 => [&[7u8, 7][..], &marker[..]].concat(),
                _ => vec![i as u8; 5],
            })
        })
        .collect();
    let bytes = write_file(
        &schema,
        &values,
        WriterBuilder::new(&schema)
            .with_sync_marker(marker)
            .with_block_records(4),
    );
    assert!(bytes.windows(16).filter(|w| *w == marker).count() > 25);
    let len = bytes.len() as u64;
    for k in 0..=len {
        assert!(
            read_ranges(&bytes, &[(0, k), (k, len)], false) == values,
            "split at {k}"
        );
    }
}

#[test]
fn split_reading_needs_a_seekable_input() {
    let (bytes, _) = split_file();
    let header_len = Reader::from_slice(&bytes).unwrap().header().len();
    let mut r = Reader::new(&bytes[..]).unwrap();
    let e = r.seek_split(header_len, header_len + 100).unwrap_err();
    assert!(e.to_string().contains("seekable"), "{e}");
    // The first range needs no seek: the reader is already there.
    let mut r = Reader::new(&bytes[..]).unwrap();
    r.seek_split(0, header_len + 1).unwrap();
    assert_eq!(r.count(), 3);
}

// ------------------------------------------------------------------ failing sinks

/// A sink that accepts `limit` bytes, then fails (writing a partial chunk first, as a full disk
/// does), and records what it accepted.
struct FailAfter {
    written: Vec<u8>,
    limit: usize,
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.limit - self.written.len();
        if room == 0 {
            return Err(io::Error::other("disk full"));
        }
        let n = room.min(buf.len()).min(5);
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_sink_never_leads_to_a_silent_misread() {
    let schema = rich_schema();
    let values = rich_values(25, 77);
    let mut codecs = vec![Codec::Null, compressing()];
    codecs.dedup();
    for codec in codecs {
        let opts = || {
            WriterBuilder::new(&schema)
                .with_codec(codec)
                .with_block_records(3)
                .with_sync_marker([3; 16])
        };
        let full = {
            let mut w = opts().build(Vec::new()).unwrap();
            for (i, v) in values.iter().enumerate() {
                w.append(v).unwrap();
                if i % 4 == 3 {
                    w.flush().unwrap();
                }
            }
            w.into_inner().unwrap()
        };
        for limit in 0..=full.len() + 1 {
            let sink = FailAfter {
                written: Vec::new(),
                limit,
            };
            let mut durable = 0; // records known to be in the sink
            let mut failed = false;
            let mut w = match opts().build(sink) {
                Ok(w) => w,
                Err(e) => {
                    assert_eq!(e.kind(), ErrorKind::Io);
                    assert!(limit < full.len());
                    continue;
                }
            };
            for (i, v) in values.iter().enumerate() {
                let r = w
                    .append(v)
                    .and_then(|()| if i % 4 == 3 { w.flush() } else { Ok(()) });
                match r {
                    Ok(()) => {
                        if w.pending_records() == 0 {
                            durable = i + 1;
                        }
                    }
                    Err(e) => {
                        assert_eq!(e.kind(), ErrorKind::Io, "{e}");
                        assert!(w.is_poisoned());
                        failed = true;
                        break;
                    }
                }
            }
            let written = if failed {
                // Poisoned: everything fails from now on.
                assert!(w.append(&values[0]).is_err());
                assert!(w.flush().is_err());
                let bytes_ok = w.bytes_written() as usize;
                let sink_len = w.get_ref().written.len();
                assert!(bytes_ok <= sink_len);
                let written = w.get_ref().written.clone();
                assert!(w.into_inner().is_err());
                written
            } else {
                let sink = w.into_inner();
                match sink {
                    Ok(s) => s.written,
                    Err(e) => {
                        assert_eq!(e.kind(), ErrorKind::Io);
                        failed = true;
                        full[..limit.min(full.len())].to_vec()
                    }
                }
            };
            assert_eq!(failed, limit < full.len(), "limit {limit}");
            assert_eq!(
                written[..],
                full[..written.len()],
                "the sink got a prefix of the file"
            );
            let (got, err) = read_until_error(&written);
            assert!(
                got.len() >= durable,
                "limit {limit}: {} < {durable}",
                got.len()
            );
            assert_eq!(got[..], values[..got.len()], "limit {limit}: a misread");
            if !failed {
                assert!(err.is_none());
                assert_eq!(got, values);
            } else if err.is_none() {
                // A clean end must fall on a block boundary.
                let bounds = block_boundaries(&full);
                assert!(bounds.contains(&(written.len() as u64)), "limit {limit}");
            }
        }
    }
}

// ------------------------------------------------------------------ corrupt and hostile files

#[test]
fn every_truncation_is_an_error_or_a_clean_block_boundary() {
    let schema = rich_schema();
    let values = rich_values(30, 4);
    for codec in all_codecs() {
        let bytes = write_file(
            &schema,
            &values,
            WriterBuilder::new(&schema)
                .with_codec(codec)
                .with_block_records(4),
        );
        let bounds = block_boundaries(&bytes);
        // bzip2 sets up a multi-megabyte decoder per block: sample its cuts to keep this quick.
        let step = if matches!(codec, Codec::Bzip2 { .. }) {
            5
        } else {
            1
        };
        for cut in (0..bytes.len()).step_by(step) {
            let (got, err) = read_until_error(&bytes[..cut]);
            assert_eq!(got[..], values[..got.len()], "{codec} cut {cut}");
            match err {
                None => assert!(
                    bounds.contains(&(cut as u64)),
                    "{codec} cut {cut} read cleanly"
                ),
                Some(e) => {
                    assert!(e.is_eof(), "{codec} cut {cut}: {e}");
                    assert!(!bounds[1..].contains(&(cut as u64)));
                }
            }
            // A stream sees the same.
            let streamed = ReaderBuilder::new()
                .with_buffer_capacity(3)
                .build(Trickle {
                    data: &bytes[..cut],
                    step: 2,
                })
                .map(|r| r.take_while(Result::is_ok).count());
            if let Ok(n) = streamed {
                assert_eq!(n, got.len(), "{codec} cut {cut}");
            }
        }
    }
}

#[test]
fn flipped_bytes_never_panic_or_misread_silently_with_checksums() {
    let schema = rich_schema();
    let values = rich_values(12, 8);
    for codec in all_codecs() {
        let bytes = write_file(
            &schema,
            &values,
            WriterBuilder::new(&schema)
                .with_codec(codec)
                .with_block_records(5),
        );
        let header_len = Reader::from_slice(&bytes).unwrap().header().len() as usize;
        let step = if matches!(codec, Codec::Bzip2 { .. }) {
            5
        } else {
            1
        };
        for i in (0..bytes.len()).step_by(step) {
            for mask in [0x01u8, 0x80, 0xFF] {
                let mut bad = bytes.clone();
                bad[i] ^= mask;
                let (got, _err) = read_until_error(&bad);
                // Snappy's CRC catches every payload change; with every codec, a change in
                // the framing (count, size, sync marker) is caught.
                if codec == Codec::Snappy && i >= header_len {
                    assert_eq!(
                        got[..],
                        values[..got.len().min(values.len())],
                        "{codec} byte {i} ^ {mask:#x}"
                    );
                }
            }
        }
    }
}

/// A file of `schema` with the given raw blocks (count, payload) after a header.
fn handmade(schema: &str, codec: Option<&str>, blocks: &[(i64, Vec<u8>)]) -> Vec<u8> {
    let schema = Schema::parse_str(schema).unwrap();
    let sync = [0x42; 16];
    let mut out = Vec::new();
    let mut enc = avrokit::Encoder::new(&mut out);
    enc.write_fixed(b"Obj\x01").unwrap();
    let n = 1 + codec.is_some() as usize;
    enc.write_map_start(n).unwrap();
    enc.write_string("avro.schema").unwrap();
    enc.write_bytes(schema.to_json().to_string().as_bytes())
        .unwrap();
    if let Some(c) = codec {
        enc.write_string("avro.codec").unwrap();
        enc.write_bytes(c.as_bytes()).unwrap();
    }
    enc.write_map_end().unwrap();
    enc.write_fixed(&sync).unwrap();
    for (count, data) in blocks {
        enc.write_long(*count).unwrap();
        enc.write_bytes(data).unwrap();
        enc.write_fixed(&sync).unwrap();
    }
    out
}

fn first_error(bytes: &[u8], limits: Limits) -> avrokit::Error {
    let reader = ReaderBuilder::new().with_limits(limits).build_slice(bytes);
    match reader {
        Err(e) => e,
        Ok(r) => r.into_iter().find_map(Result::err).expect("an error"),
    }
}

#[test]
fn hostile_counts_and_sizes() {
    let d = Limits::default();
    // Negative count.
    let e = first_error(&handmade(r#""int""#, None, &[(-1, vec![2])]), d);
    assert_eq!(e.kind(), ErrorKind::Container);
    assert!(e.to_string().contains("negative object count"), "{e}");
    // More records than bytes.
    let e = first_error(&handmade(r#""int""#, None, &[(3, vec![2, 4])]), d);
    assert!(e.to_string().contains("claims 3 objects"), "{e}");
    // Zero-byte records: a huge count is capped, not spun through.
    let e = first_error(&handmade(r#""null""#, None, &[(1 << 62, vec![])]), d);
    assert_eq!(e.kind(), ErrorKind::Container, "{e}");
    let ok = handmade(
        r#""null""#,
        None,
        &[(1000, vec![]), (0, vec![]), (5, vec![])],
    );
    assert_eq!(read_slice(&ok).len(), 1005);
    // Bytes left over after the block's records, and bytes in a block of no records.
    let e = first_error(&handmade(r#""int""#, None, &[(1, vec![2, 4])]), d);
    assert_eq!(e.kind(), ErrorKind::Data);
    assert!(e.to_string().contains("end at byte 1 of its 2"), "{e}");
    let e = first_error(&handmade(r#""int""#, None, &[(0, vec![2])]), d);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    // A record that runs past its block.
    let e = first_error(&handmade(r#""string""#, None, &[(1, vec![10, b'a'])]), d);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    assert!(e.to_string().contains("block 0"), "{e}");
    // A block size far beyond the input or the limit: refused before allocating.
    let mut f = handmade(r#""int""#, None, &[]);
    let header_len = f.len();
    f.extend_from_slice(&[
        0x02, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x02,
    ]);
    let e = first_error(&f, d);
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    assert_eq!(e.offset(), Some(header_len as u64));
    let mut f = handmade(r#""int""#, None, &[]);
    f.extend_from_slice(&[0x02, 0x80, 0x80, 0x80, 0x80, 0x01, 0x02]); // 128 MiB claimed
    let e = first_error(&f, d);
    assert!(e.is_eof(), "{e}");
    let r = ReaderBuilder::new().build(&f[..]).unwrap();
    let e = r.into_iter().find_map(Result::err).unwrap();
    assert!(e.is_eof(), "{e}");
    // Unknown and malformed codec names.
    for name in ["lzo", "", "Deflate", "zstd"] {
        let e = first_error(&handmade(r#""int""#, Some(name), &[]), d);
        assert!(e.to_string().contains("unknown codec"), "{e}");
    }
    // A header without a schema.
    let mut f = b"Obj\x01\x00".to_vec();
    f.extend_from_slice(&[0; 16]);
    let e = first_error(&f, d);
    assert!(e.to_string().contains("no avro.schema"), "{e}");
}

#[test]
fn decompression_bombs_are_limit_errors() {
    let schema = Schema::parse_str(r#""bytes""#).unwrap();
    let big = Value::Bytes(vec![0; 8 << 20]);
    for codec in all_codecs() {
        let bytes = write_file(
            &schema,
            std::slice::from_ref(&big),
            WriterBuilder::new(&schema).with_codec(codec),
        );
        let small = Limits::default().with_max_alloc(1 << 20);
        let e = first_error(&bytes, small);
        assert_eq!(e.kind(), ErrorKind::Limit, "{codec}: {e}");
        assert!(e.to_string().contains("block 0"), "{codec}: {e}");
        let from_stream = ReaderBuilder::new()
            .with_limits(small)
            .build(&bytes[..])
            .unwrap()
            .into_iter()
            .find_map(Result::err)
            .unwrap();
        assert_eq!(from_stream.kind(), ErrorKind::Limit, "{codec}");
        // With room enough, the same file reads.
        assert_eq!(read_slice(&bytes), std::slice::from_ref(&big));
    }
    // Snappy's length header cannot make the reader allocate what the data cannot hold.
    if Codec::Snappy.is_enabled() {
        let mut payload = vec![0xff, 0xff, 0xff, 0xff, 0x01, 0x00];
        payload.extend_from_slice(&[0, 0, 0, 0]);
        let e = first_error(
            &handmade(r#""bytes""#, Some("snappy"), &[(1, payload)]),
            Limits::default(),
        );
        assert_eq!(e.kind(), ErrorKind::Codec, "{e}");
    }
}

#[test]
fn errors_end_the_iteration() {
    let f = handmade(r#""int""#, None, &[(2, vec![2, 4]), (1, vec![0x80])]);
    let mut r = Reader::from_slice(&f).unwrap();
    assert_eq!(r.next().unwrap().unwrap(), Value::Int(1));
    assert_eq!(r.next().unwrap().unwrap(), Value::Int(2));
    assert!(r.next().unwrap().is_err());
    assert!(r.next().is_none());
    assert!(r.next().is_none());
}

#[test]
fn header_map_in_blocks_and_missing_codec() {
    // A header whose map is written in a negative-count block with a byte size.
    let schema_json = br#""long""#;
    let mut f = b"Obj\x01".to_vec();
    let mut entry = Vec::new();
    let mut enc = avrokit::Encoder::new(&mut entry);
    enc.write_string("avro.schema").unwrap();
    enc.write_bytes(schema_json).unwrap();
    let mut enc = avrokit::Encoder::new(&mut f);
    enc.write_long(-1).unwrap();
    enc.write_long(entry.len() as i64).unwrap();
    f.extend_from_slice(&entry);
    f.push(0);
    f.extend_from_slice(&[9; 16]);
    f.extend_from_slice(&[0x02, 0x02, 0x54]);
    f.extend_from_slice(&[9; 16]);
    let r = Reader::from_slice(&f).unwrap();
    assert_eq!(r.codec(), Codec::Null);
    assert_eq!(r.collect::<Result<Vec<_>, _>>().unwrap(), [Value::Long(42)]);
}

#[test]
fn raw_blocks_built_by_hand() {
    // A null-codec block is the concatenated datums: build one and write it as it is.
    let schema = Schema::parse_str(r#""int""#).unwrap();
    let payload: Vec<u8> = (1..=3)
        .flat_map(|i| avrokit::to_datum_vec(&Value::Int(i), &schema).unwrap())
        .collect();
    let mut w = Writer::new(Vec::new(), &schema).unwrap();
    w.append(&Value::Int(0)).unwrap();
    w.append_raw_block(&RawBlock::new(3, &payload, Codec::Null))
        .unwrap();
    assert_eq!(w.blocks_written(), 2);
    let bytes = w.into_inner().unwrap();
    assert_eq!(block_counts(&bytes), [1, 3]);
    assert_eq!(
        read_slice(&bytes),
        (0..=3).map(Value::Int).collect::<Vec<_>>()
    );
    let mut r = Reader::from_slice(&bytes).unwrap();
    let first = r.next_raw_block().unwrap().unwrap();
    assert_eq!(first.header().index, 0);
    assert_eq!(first.data(), [0]);
    assert_eq!(first.codec(), Codec::Null);
    let second = *r.next_raw_block().unwrap().unwrap().header();
    assert_eq!((second.index, second.count, second.size), (1, 3, 3));
    assert!(r.next_raw_block().unwrap().is_none());
}

#[test]
fn reading_with_a_reader_schema() {
    let writer = rich_schema();
    let values = rich_values(20, 12);
    let bytes = write_file(
        &writer,
        &values,
        WriterBuilder::new(&writer)
            .with_codec(compressing())
            .with_block_records(6),
    );
    // The reader drops most fields, promotes `i` to double and adds a defaulted field.
    let reader = Schema::parse_str(
        r#"{"type": "record", "name": "Rich", "namespace": "t", "fields": [
            {"name": "i", "type": "double"},
            {"name": "s", "type": "string"},
            {"name": "extra", "type": "int", "default": 7}]}"#,
    )
    .unwrap();
    let want: Vec<Value> = values
        .iter()
        .map(|v| match v {
            Value::Record(f) => {
                let Value::Int(i) = f[2] else { unreachable!() };
                Value::Record(vec![
                    Value::Double(f64::from(i)),
                    f[7].clone(),
                    Value::Int(7),
                ])
            }
            _ => unreachable!(),
        })
        .collect();
    let r = ReaderBuilder::new()
        .with_reader_schema(&reader)
        .build_slice(&bytes)
        .unwrap();
    assert_eq!(r.reader_schema(), &reader);
    assert_eq!(r.schema(), &writer);
    assert_eq!(r.collect::<Result<Vec<_>, _>>().unwrap(), want);
    let r = ReaderBuilder::new()
        .with_reader_schema(&reader)
        .with_buffer_capacity(5)
        .build(&bytes[..])
        .unwrap();
    assert_eq!(r.collect::<Result<Vec<_>, _>>().unwrap(), want);
    // A reader schema that cannot be resolved fails when the reader is built.
    let bad = Schema::parse_str(r#""string""#).unwrap();
    let e = ReaderBuilder::new()
        .with_reader_schema(&bad)
        .build_slice(&bytes)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Resolution);
    let mut r = Reader::from_slice(&bytes).unwrap();
    assert!(r.set_reader_schema(&bad).is_err());
    assert_eq!(r.reader_schema(), &writer);
    assert_eq!(r.count(), 20);
}

#[test]
fn readers_and_writers_are_send() {
    fn send<T: Send>() {}
    send::<Reader<'static, std::fs::File>>();
    send::<Reader<'static, &'static [u8]>>();
    send::<Writer<std::fs::File>>();
    send::<WriterBuilder>();
    send::<ReaderBuilder>();
}

#[test]
fn a_seekable_reader_can_be_split_again() {
    let (bytes, values) = split_file();
    let len = bytes.len() as u64;
    let mut r = ReaderBuilder::new()
        .build_seekable(Cursor::new(&bytes))
        .unwrap();
    // A range with no block, then ranges that do: the reader moves back and forth.
    r.seek_split(len - 5, len).unwrap();
    assert!(r.next().is_none());
    r.seek_split(0, len).unwrap();
    assert!(r.by_ref().map(Result::unwrap).eq(values.iter().cloned()));
    r.seek_split(len / 2, len).unwrap();
    let tail: Vec<Value> = r.by_ref().map(Result::unwrap).collect();
    assert!(!tail.is_empty() && tail[..] == values[values.len() - tail.len()..]);
    r.seek_split(0, len / 2).unwrap();
    let head: Vec<Value> = r.map(Result::unwrap).collect();
    assert_eq!(head.len() + tail.len(), values.len());
}

#[test]
fn files_on_disk() {
    let schema = rich_schema();
    let values = rich_values(50, 19);
    let path = std::env::temp_dir().join(format!("avrokit-container-{}.avro", std::process::id()));
    let file = std::fs::File::create(&path).unwrap();
    let mut w = WriterBuilder::new(&schema)
        .with_codec(compressing())
        .with_block_records(7)
        .build(file)
        .unwrap();
    for v in &values[..30] {
        w.append(v).unwrap();
    }
    w.finish().unwrap();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut w = Writer::append_to(file).unwrap();
    for v in &values[30..] {
        w.append(v).unwrap();
    }
    w.finish().unwrap();

    let r = Reader::new(std::fs::File::open(&path).unwrap()).unwrap();
    assert_eq!(r.collect::<Result<Vec<_>, _>>().unwrap(), values);
    let len = std::fs::metadata(&path).unwrap().len();
    let mut all = Vec::new();
    for (start, end) in [(0, len / 3), (len / 3, len / 2), (len / 2, len)] {
        let mut r = ReaderBuilder::new()
            .build_seekable(std::fs::File::open(&path).unwrap())
            .unwrap();
        r.seek_split(start, end).unwrap();
        all.extend(r.map(Result::unwrap));
    }
    assert_eq!(all, values);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn raw_blocks_decode_on_their_own() {
    let schema = rich_schema();
    let values = rich_values(40, 6);
    for codec in all_codecs() {
        let bytes = write_file(
            &schema,
            &values,
            WriterBuilder::new(&schema)
                .with_codec(codec)
                .with_block_records(9),
        );
        let mut r = Reader::from_slice(&bytes).unwrap();
        let mut all = Vec::new();
        while let Some(b) = r.next_raw_block().unwrap() {
            all.extend(b.decode(&schema, &Limits::default()).unwrap());
        }
        assert_eq!(all, values, "{codec}");
    }
    // The same checks as the reader: a count the bytes cannot hold, bytes left over.
    let int = Schema::parse_str(r#""int""#).unwrap();
    let d = Limits::default();
    assert!(RawBlock::new(3, &[2, 4], Codec::Null)
        .decode(&int, &d)
        .is_err());
    let e = RawBlock::new(1, &[2, 4], Codec::Null)
        .decode(&int, &d)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    let e = RawBlock::new(2, &[2, 0x80], Codec::Null)
        .decode(&int, &d)
        .unwrap_err();
    assert!(e.to_string().contains("record 1"), "{e}");
}

#[test]
fn append_encoded_many_closes_blocks_where_single_appends_do() {
    let schema = rich_schema();
    let values = rich_values(300, 7);
    let mut data = Vec::new();
    let mut ends = Vec::new();
    for v in &values {
        data.extend(avrokit::to_datum_vec(v, &schema).unwrap());
        ends.push(data.len());
    }
    for (block_size, block_records) in [
        (1, u64::MAX),
        (64, u64::MAX),
        (700, 9),
        (1 << 20, 1),
        (1 << 20, 50),
        (300, 7),
    ] {
        let builder = || {
            WriterBuilder::new(&schema)
                .with_sync_marker([7; 16])
                .with_block_size(block_size)
                .with_block_records(block_records)
        };
        let mut one = builder().build(Vec::new()).unwrap();
        let mut start = 0;
        for &e in &ends {
            one.append_encoded(&data[start..e]).unwrap();
            start = e;
        }
        // In uneven runs, as batches arrive.
        let mut many = builder().build(Vec::new()).unwrap();
        let mut from = 0;
        for run in ends.chunks(37) {
            let base = from;
            let local: Vec<usize> = run.iter().map(|e| e - base).collect();
            many.append_encoded_many(&data[base..*run.last().unwrap()], &local)
                .unwrap();
            from = *run.last().unwrap();
        }
        assert_eq!(one.blocks_written(), many.blocks_written());
        assert_eq!(one.bytes_written(), many.bytes_written());
        let (a, b) = (one.into_inner().unwrap(), many.into_inner().unwrap());
        assert_eq!(a, b, "block size {block_size}, records {block_records}");
        assert_eq!(read_slice(&b), values);
    }
    let mut w = Writer::new(Vec::new(), &schema).unwrap();
    let e = w.append_encoded_many(&data[..10], &[5, 3]).unwrap_err();
    assert!(e.message().contains("rise"), "{e}");
    assert!(w.append_encoded_many(&data[..10], &[11]).is_err());
    assert_eq!(w.pending_records(), 0);
}
