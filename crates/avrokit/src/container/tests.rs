//! Writer templates, schema caches and stream buffers: files built from a template are the
//! builder's files, and a cached schema is used only for identical header bytes.

use super::framing::{MAGIC, SYNC_SIZE};
use super::{Codec, Reader, ReaderBuilder, SchemaCache, Writer, WriterBuilder};
use crate::encode::Encoder;
use crate::serde::DePlan;
use crate::{ErrorKind, Schema, Value};

const SCHEMA: &str = r#"{"type":"record","name":"R","namespace":"t","fields":[
    {"name":"id","type":"long"},{"name":"tag","type":["null","string"],"default":null}]}"#;

fn record(i: i64) -> Value {
    let tag = if i % 3 == 0 {
        Value::Union(0, Box::new(Value::Null))
    } else {
        Value::Union(1, Box::new(Value::String(format!("t{i}"))))
    };
    Value::Record(vec![Value::Long(i), tag])
}

fn fill(mut w: Writer<Vec<u8>>, n: i64) -> Vec<u8> {
    for i in 0..n {
        w.append(&record(i)).unwrap();
    }
    w.into_inner().unwrap()
}

fn codecs() -> Vec<Codec> {
    [
        Codec::Null,
        Codec::DEFLATE,
        Codec::Snappy,
        Codec::ZSTANDARD,
        Codec::Bzip2 { level: 1 },
        Codec::Xz { level: 0 },
    ]
    .into_iter()
    .filter(Codec::is_enabled)
    .collect()
}

/// Every sync marker of a complete file (the header's and each block's) replaced by zeros.
fn without_sync_markers(file: &[u8]) -> Vec<u8> {
    let r = Reader::from_slice(file).unwrap();
    let sync = r.sync_marker();
    let header_len = r.header().len() as usize;
    let mut out = file.to_vec();
    out[header_len - SYNC_SIZE..header_len].fill(0);
    let mut r = Reader::from_slice(file).unwrap();
    while let Some(b) = r.next_raw_block().unwrap() {
        let end = (b.header().data_offset + b.header().size) as usize;
        assert_eq!(out[end..end + SYNC_SIZE], sync);
        out[end..end + SYNC_SIZE].fill(0);
    }
    out
}

#[test]
fn template_files_are_builder_files() {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    for codec in codecs() {
        let builder = || {
            WriterBuilder::new(&schema)
                .with_codec(codec)
                .with_block_records(7)
                .with_metadata("k", "v")
                .with_metadata("empty", "")
        };
        // A fixed marker: identical bytes.
        let fixed = builder().with_sync_marker([3; SYNC_SIZE]);
        let template = fixed.clone().template().unwrap();
        let fresh = fill(fixed.build(Vec::new()).unwrap(), 50);
        for _ in 0..3 {
            assert_eq!(
                fill(template.build(Vec::new()).unwrap(), 50),
                fresh,
                "{codec}"
            );
        }
        assert_eq!(
            template.header_without_sync_marker(),
            &fresh[..template.header_without_sync_marker().len()]
        );
        // Random markers: each file its own, and otherwise the same bytes.
        let template = builder().template().unwrap();
        let fresh = fill(builder().build(Vec::new()).unwrap(), 50);
        let a = fill(template.build(Vec::new()).unwrap(), 50);
        let b = fill(template.build(Vec::new()).unwrap(), 50);
        let marker = |f: &[u8]| Reader::from_slice(f).unwrap().sync_marker();
        assert_ne!(marker(&a), marker(&b), "{codec}");
        assert_ne!(marker(&a), marker(&fresh), "{codec}");
        assert_eq!(without_sync_markers(&a), without_sync_markers(&fresh));
        assert_eq!(without_sync_markers(&b), without_sync_markers(&fresh));
        let back = Reader::from_slice(&b)
            .unwrap()
            .collect::<crate::Result<Vec<_>>>()
            .unwrap();
        assert_eq!(back, (0..50).map(record).collect::<Vec<_>>(), "{codec}");
    }
}

#[test]
fn template_checks_options_once() {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let e = WriterBuilder::new(&schema)
        .with_metadata("avro.x", "y")
        .template()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Container);
    let e = WriterBuilder::new(&schema)
        .with_metadata("a", "1")
        .with_metadata("a", "2")
        .template()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Container);
    let e = WriterBuilder::new(&schema)
        .with_codec(Codec::Deflate { level: 10 })
        .template()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Codec);
    let t = WriterBuilder::new(&schema)
        .with_codec(Codec::Snappy)
        .template()
        .unwrap();
    assert_eq!(t.codec(), Codec::Snappy);
    assert!(t.schema().same_arena(&schema));
    let w = t.build(Vec::new()).unwrap();
    assert_eq!(
        w.bytes_written(),
        t.header_without_sync_marker().len() as u64 + SYNC_SIZE as u64
    );
    assert!(t.header_without_sync_marker().starts_with(&MAGIC));
}

/// A null-codec file whose header holds `schema_text` verbatim, with one block of `datums`.
fn file_with_schema_text(schema_text: &str, datums: &[u8], count: i64) -> Vec<u8> {
    let sync = [9u8; SYNC_SIZE];
    let mut out = Vec::new();
    let mut enc = Encoder::new(&mut out);
    enc.write_fixed(&MAGIC).unwrap();
    enc.write_map_start(1).unwrap();
    enc.write_string("avro.schema").unwrap();
    enc.write_bytes(schema_text.as_bytes()).unwrap();
    enc.write_map_end().unwrap();
    enc.write_fixed(&sync).unwrap();
    enc.write_long(count).unwrap();
    enc.write_bytes(datums).unwrap();
    enc.write_fixed(&sync).unwrap();
    out
}

#[test]
fn cache_is_used_for_identical_header_bytes_only() {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let cache = SchemaCache::new();
    assert!(cache.is_empty());
    cache.insert(&schema);
    assert_eq!(cache.len(), 1);
    let open = |file: &[u8]| {
        ReaderBuilder::new()
            .with_schema_cache(&cache)
            .build_slice(file)
            .map(|r| (r.schema().clone(), r.collect::<crate::Result<Vec<_>>>()))
    };

    // avrokit's own file: the seeded schema itself.
    let file = fill(Writer::new(Vec::new(), &schema).unwrap(), 10);
    let (s, values) = open(&file).unwrap();
    assert!(s.same_arena(&schema));
    assert_eq!(values.unwrap(), (0..10).map(record).collect::<Vec<_>>());

    // The same schema written differently (spaces): parsed, then cached under its own text.
    let spaced = schema.to_json().to_string().replace(',', ", ");
    let datum = [0x02, 0x00]; // id 1, tag null
    let (s, values) = open(&file_with_schema_text(&spaced, &datum, 1)).unwrap();
    assert!(!s.same_arena(&schema));
    assert_eq!(s, schema);
    assert_eq!(values.unwrap().len(), 1);
    assert_eq!(cache.len(), 2);
    let (s2, _) = open(&file_with_schema_text(&spaced, &datum, 1)).unwrap();
    assert!(s2.same_arena(&s), "the second read of that text is a hit");

    // A text of the same length differing in one byte (a field name) is another schema.
    let renamed = String::from_utf8(crate::schema::write::to_json_text(&schema))
        .unwrap()
        .replace("\"tag\"", "\"tog\"");
    let (s, values) = open(&file_with_schema_text(&renamed, &datum, 1)).unwrap();
    assert!(!s.same_arena(&schema));
    assert_ne!(s, schema);
    assert_eq!(s.root().kind.type_name(), "record");
    let fields = match &s.root().kind {
        crate::schema::NodeKind::Record(r) => {
            r.fields.iter().map(|f| f.name.clone()).collect::<Vec<_>>()
        }
        _ => unreachable!(),
    };
    assert_eq!(fields, ["id", "tog"]);
    assert_eq!(values.unwrap().len(), 1);

    // A different schema entirely: its own checks (a long needs at least one byte per record),
    // not the cached ones.
    let (s, values) = open(&file_with_schema_text(r#""null""#, &[], 3)).unwrap();
    assert_eq!(s.root().kind.type_name(), "null");
    assert_eq!(values.unwrap(), [Value::Null, Value::Null, Value::Null]);
    let (_, values) = open(&file_with_schema_text(r#""long""#, &[], 3)).unwrap();
    let e = values.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Container, "{e}");

    // A header text that does not parse is an error every time, and is not cached.
    let before = cache.len();
    for _ in 0..2 {
        let e = open(&file_with_schema_text("{", &[], 0)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Schema);
    }
    assert_eq!(cache.len(), before);
    cache.clear();
    assert!(cache.is_empty());
}

#[test]
fn cache_keeps_the_most_recently_used() {
    let texts = [r#""int""#, r#""long""#, r#""string""#];
    let cache = SchemaCache::with_capacity(2);
    let schema_of = |text: &str| {
        ReaderBuilder::new()
            .with_schema_cache(&cache)
            .build_slice(&file_with_schema_text(text, &[], 0))
            .unwrap()
            .schema()
            .clone()
    };
    let int = schema_of(texts[0]);
    let long = schema_of(texts[1]);
    assert!(schema_of(texts[0]).same_arena(&int)); // int is now the most recent
    let _string = schema_of(texts[2]); // evicts long
    assert_eq!(cache.len(), 2);
    assert!(schema_of(texts[0]).same_arena(&int));
    assert!(!schema_of(texts[1]).same_arena(&long));
}

#[test]
fn serde_plans_of_another_arena_are_checked_once_and_remembered() {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let file = fill(Writer::new(Vec::new(), &schema).unwrap(), 20);
    let other = Schema::parse_str(SCHEMA).unwrap();
    let plan = DePlan::compile(&other).unwrap();
    let mut r = Reader::from_slice(&file).unwrap();
    assert!(!r.schema().same_arena(&other));
    let got = r
        .serde_iter::<(i64, Option<String>)>(&plan)
        .collect::<crate::Result<Vec<_>>>()
        .unwrap();
    assert_eq!(got.len(), 20);
    assert_eq!(got[4], (4, Some("t4".into())));
    // A plan of another schema is still refused, after one of an equal schema was accepted.
    let mut r = Reader::from_slice(&file).unwrap();
    assert!(r.next_serde::<(i64, Option<String>)>(&plan).is_some());
    let wrong = DePlan::compile(&Schema::parse_str(r#""long""#).unwrap()).unwrap();
    let e = r.next_serde::<i64>(&wrong).unwrap().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Schema);
}

/// The stream buffer starts small and grows; every capacity reads every record.
#[test]
fn stream_buffer_sizes() {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let big = fill(
        WriterBuilder::new(&schema)
            .with_block_size(100_000)
            .build(Vec::new())
            .unwrap(),
        60_000,
    );
    let small = fill(Writer::new(Vec::new(), &schema).unwrap(), 3);
    for file in [&big, &small] {
        for capacity in [1, 7, 8 * 1024, 64 * 1024, 1 << 20] {
            let r = ReaderBuilder::new()
                .with_buffer_capacity(capacity)
                .build(&file[..])
                .unwrap();
            let n = r.collect::<crate::Result<Vec<_>>>().unwrap().len();
            assert_eq!(n, if file.len() > 1000 { 60_000 } else { 3 }, "{capacity}");
        }
    }
}

/// A record that is corrupt inside a block: the error names the block and the record, keeps
/// the path to the failing value, and its offset is where that value starts in the file (for
/// a compressed block, the offset in the decompressed block is named instead).
#[test]
fn a_corrupt_record_keeps_its_path_and_offset() {
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"},
            {"name":"items","type":{"type":"array","items":{"type":"record","name":"I",
                "fields":[{"name":"x","type":"int"},{"name":"s","type":"string"}]}}}]}"#,
    )
    .unwrap();
    let good: &[u8] = &[0x02, 0x02, 0x00, 0x02, b'h', 0x00];
    // a = 1; items: 2 of them, the second one's `s` not UTF-8 (its length byte at index 7).
    let bad: &[u8] = &[
        0x02, 0x04, 0x00, 0x04, b'o', b'k', 0x00, 0x04, 0xff, 0xfe, 0x00,
    ];
    let at_in_record = 7u64;
    for codec in codecs() {
        let mut w = WriterBuilder::new(&schema)
            .with_codec(codec)
            .build(Vec::new())
            .unwrap();
        w.append_encoded(good).unwrap();
        w.append_encoded(bad).unwrap();
        let file = w.into_inner().unwrap();
        let from_slice = Reader::from_slice(&file).unwrap().nth(1).unwrap();
        let from_stream = ReaderBuilder::new()
            .with_buffer_capacity(5)
            .build(&file[..])
            .unwrap()
            .nth(1)
            .unwrap();
        for e in [from_slice.unwrap_err(), from_stream.unwrap_err()] {
            let ctx = format!("{codec:?}: {e}");
            assert_eq!(e.kind(), ErrorKind::Data, "{ctx}");
            assert_eq!(e.path(), "R.items[1].s", "{ctx}");
            assert!(e.message().contains("not valid UTF-8"), "{ctx}");
            assert!(e.message().starts_with("block 0 (at byte "), "{ctx}");
            assert!(e.message().contains("record 1"), "{ctx}");
            let offset = e.offset().expect("an offset");
            if codec == Codec::Null {
                // The record's bytes are stored as they are: find them in the file.
                let start = file.windows(bad.len()).position(|w| w == bad).unwrap() as u64;
                assert_eq!(offset, start + at_in_record, "{ctx}");
            } else {
                let in_block = good.len() as u64 + at_in_record;
                let named = format!("byte {in_block} of the decompressed block");
                assert!(e.message().contains(&named), "{ctx}");
                assert!(
                    offset > MAGIC.len() as u64 && offset < file.len() as u64,
                    "{ctx}"
                );
            }
        }
    }
}
