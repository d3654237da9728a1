//! Malformed container files and datums, damaged every way we could think of: every read path
//! (values from a slice and from a stream, skipping as `avrokit count` does, serde, a resolving
//! reader schema, raw blocks) returns an error (never a panic) that says what and where, within
//! bounded time, memory and stack.
//!
//! - every truncation of a small file of each codec;
//! - every bit flip of a small file of each codec (a flip may still decode: then it must not
//!   pass a checksum that covers it, and framing damage is always caught);
//! - wrong magic, corrupt sync markers, unknown codecs, corrupt payloads, checksum mismatches;
//! - negative and huge lengths and counts, in the header, the block framing and inside datums,
//!   refused before anything of their size is allocated (a counting allocator checks);
//! - block counts that lie both ways;
//! - union and enum indexes out of range, invalid UTF-8 in strings and map keys;
//! - datums nested 100,000 deep through every decoder (binary, serde, resolved, JSON), and
//!   schemas nested 100,000 deep, on a thread with a 2 MiB stack.
//!
//! `container.rs` has the round trips and the framing unit cases; `limits.rs` the datum-level
//! limits through every source; this file is the file-level hostile suite.

mod common;

use avrokit::container::{Codec, RawBlock, Reader, ReaderBuilder, WriterBuilder};
use avrokit::serde::DePlan;
use avrokit::value::{from_datum_slice_resolved, read_value};
use avrokit::{Decoder, Error, ErrorKind, Limits, ResolvedPlan, Schema, Value};
use common::alloc::largest_allocation;
use common::codecs;
use common::reference_long as varint;
use serde::Deserialize as _;

// ------------------------------------------------------------------ allocation and stack bounds

#[global_allocator]
static ALLOCATOR: common::alloc::Counting = common::alloc::Counting;

const MIB: usize = 1 << 20;

/// The most any one allocation may take while reading a damaged small file. The largest
/// legitimate ones: the stream reader's 64 KiB buffer, a compressed block's buffer reserved up to
/// 1 MiB when its size is claimed (and then filled only as bytes arrive), and the bzip2
/// decoder's tables, sized by the block-size digit of the stream (up to 3.6 MB for `9`).
const ALLOC_BOUND: usize = 4 * MIB;

/// Runs `f` on a thread with a 2 MiB stack (the default for spawned threads), so that a deep
/// input is shown to be bounded by a limit, not by the luck of the main thread's 8 MiB.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 * MIB)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
}

// ------------------------------------------------------------------ the small files

const SCHEMA: &str = r#"{"type":"record","name":"R","namespace":"t","fields":[
    {"name":"id","type":"long"},
    {"name":"name","type":"string"},
    {"name":"tags","type":{"type":"map","values":"int"}},
    {"name":"u","type":["null","string","long"]},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
    {"name":"xs","type":{"type":"array","items":"double"}},
    {"name":"f","type":{"type":"fixed","name":"F","size":2}}]}"#;

/// The same record with one more field, so that resolution is not the identity.
const READER_SCHEMA: &str = r#"{"type":"record","name":"R","namespace":"t","fields":[
    {"name":"id","type":"long"},
    {"name":"name","type":"string"},
    {"name":"tags","type":{"type":"map","values":"long"}},
    {"name":"u","type":["null","string","long"]},
    {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
    {"name":"xs","type":{"type":"array","items":"double"}},
    {"name":"f","type":{"type":"fixed","name":"F","size":2}},
    {"name":"extra","type":"int","default":7}]}"#;

fn schema() -> Schema {
    Schema::parse_str(SCHEMA).unwrap()
}

fn record(i: i64) -> Value {
    let u = match i % 3 {
        0 => Value::Union(0, Box::new(Value::Null)),
        1 => Value::Union(1, Box::new(Value::String(format!("s{i}")))),
        _ => Value::Union(2, Box::new(Value::Long(i * 1000))),
    };
    Value::Record(vec![
        Value::Long(i),
        Value::String(format!("name-{i}-é")),
        Value::Map(
            (0..i % 3)
                .map(|k| (format!("k{k}"), Value::Int(k as i32)))
                .collect(),
        ),
        u,
        Value::Enum((i % 3) as u32),
        Value::Array((0..i % 4).map(|k| Value::Double(k as f64 / 2.0)).collect()),
        Value::Fixed(vec![i as u8, 0xff]),
    ])
}

fn records() -> Vec<Value> {
    (0..10).map(record).collect()
}

/// Codecs whose block checksum covers every payload byte: a corrupt payload cannot decode to
/// other records. (Raw deflate has none; zstd's frame checksum is off in Avro files; null has
/// nothing to check.)
fn checksummed(codec: Codec) -> bool {
    matches!(
        codec,
        Codec::Snappy | Codec::Bzip2 { .. } | Codec::Xz { .. }
    )
}

const SYNC: [u8; 16] = *b"0123456789abcdef";

/// The small file: 10 records in blocks of 3 (4 blocks).
fn small_file(codec: Codec) -> Vec<u8> {
    let s = schema();
    let mut w = WriterBuilder::new(&s)
        .with_codec(codec)
        .with_block_records(3)
        .with_sync_marker(SYNC)
        .build(Vec::new())
        .unwrap();
    for v in records() {
        w.append(&v).unwrap();
    }
    w.into_inner().unwrap()
}

/// One block as the file holds it.
#[derive(Debug, Clone, Copy)]
struct Block {
    start: u64,
    data: u64,
    size: u64,
    /// First byte after the sync marker.
    end: u64,
    count: u64,
}

fn blocks_of(file: &[u8]) -> (u64, Vec<Block>) {
    let mut r = Reader::from_slice(file).unwrap();
    let header = r.header().len();
    let mut out = Vec::new();
    while let Some(b) = r.next_raw_block().unwrap() {
        let h = b.header();
        out.push(Block {
            start: h.offset,
            data: h.data_offset,
            size: h.size,
            end: h.data_offset + h.size + 16,
            count: h.count,
        });
    }
    (header, out)
}

// ------------------------------------------------------------------ read paths

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// `Reader::from_slice`, iterating values.
    Slice,
    /// `ReaderBuilder::build` over a reader, with a tiny buffer.
    Stream,
    /// `next_with(skip_value)`, as `avrokit count` reads.
    Skip,
    /// `next_serde` into [`Any`] (serde's `deserialize_any`).
    Serde,
    /// `with_reader_schema` (a resolving plan that is not the identity).
    Resolved,
    /// `next_raw_block` then `RawBlock::decode`.
    Raw,
}

const PATHS: [Path; 6] = [
    Path::Slice,
    Path::Stream,
    Path::Skip,
    Path::Serde,
    Path::Resolved,
    Path::Raw,
];

/// What reading a whole file gave: the records read (only kept for the value paths, as
/// values; counted for the others), then the error that ended it, if any.
#[derive(Debug)]
struct Outcome {
    values: Vec<Value>,
    count: usize,
    err: Option<Error>,
}

fn read(path: Path, bytes: &[u8]) -> Outcome {
    read_with(path, bytes, Limits::default())
}

fn read_with(path: Path, bytes: &[u8], limits: Limits) -> Outcome {
    let builder = || ReaderBuilder::new().with_limits(limits);
    let mut out = Outcome {
        values: Vec::new(),
        count: 0,
        err: None,
    };
    let opened = match path {
        Path::Stream => builder()
            .with_buffer_capacity(7)
            .build(bytes)
            .map(ReaderKind::Stream),
        Path::Resolved => builder().build_slice(bytes).and_then(|mut r| {
            let reader = reader_schema_for(r.schema());
            r.set_reader_schema(&reader)?;
            Ok(ReaderKind::Slice(r))
        }),
        _ => builder().build_slice(bytes).map(ReaderKind::Slice),
    };
    let mut reader = match opened {
        Ok(r) => r,
        Err(e) => {
            out.err = Some(e);
            return out;
        }
    };
    match (&mut reader, path) {
        (ReaderKind::Stream(r), _) => drain(r.by_ref().map(|v| v.map(Some)), &mut out),
        (ReaderKind::Slice(r), Path::Slice | Path::Resolved) => {
            drain(r.by_ref().map(|v| v.map(Some)), &mut out)
        }
        (ReaderKind::Slice(r), Path::Skip) => {
            let s = r.schema().clone();
            let it = std::iter::from_fn(|| r.next_with(|dec| dec.skip_value(&s, s.root_id())))
                .map(|v| v.map(|()| None));
            drain(it, &mut out);
        }
        (ReaderKind::Slice(r), Path::Serde) => {
            let plan = DePlan::compile(r.schema()).unwrap();
            let it = std::iter::from_fn(|| r.next_serde::<Any>(&plan)).map(|v| v.map(|_| None));
            drain(it, &mut out);
        }
        (ReaderKind::Slice(r), Path::Raw) => {
            let s = r.schema().clone();
            loop {
                match r.next_raw_block() {
                    Ok(None) => break,
                    Ok(Some(b)) => match b.decode(&s, &limits) {
                        Ok(vs) => {
                            out.count += vs.len();
                            out.values.extend(vs);
                        }
                        Err(e) => {
                            out.err = Some(e);
                            break;
                        }
                    },
                    Err(e) => {
                        out.err = Some(e);
                        break;
                    }
                }
            }
        }
        (ReaderKind::Slice(_), Path::Stream) => unreachable!(),
    }
    out
}

/// A reader schema that resolution cannot treat as the identity: `READER_SCHEMA` for the small
/// files; else a record gets one more field (with a default), and other types become the second
/// branch of a union with null.
fn reader_schema_for(writer: &Schema) -> Schema {
    if writer.canonical_form() == schema().canonical_form() {
        return Schema::parse_str(READER_SCHEMA).unwrap();
    }
    let mut json = writer.to_json();
    if let Some(fields) = json.get_mut("fields").and_then(|f| f.as_array_mut()) {
        fields.push(object(vec![
            ("name", "extra_field".into()),
            ("type", "int".into()),
            ("default", 7.into()),
        ]));
    } else if !(json.is_array() || json == "null") {
        json = serde_json::Value::Array(vec!["null".into(), json]);
    }
    Schema::parse_json(&json).unwrap()
}

/// Anything serde's data model holds, through `deserialize_any`: what a schema-less consumer
/// (a generic "dynamic value" type) asks of the deserializer.
struct Any;

impl<'de> serde::Deserialize<'de> for Any {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Any, D::Error> {
        d.deserialize_any(AnyVisitor)
    }
}

struct AnyVisitor;

macro_rules! accept {
    ($($f:ident: $t:ty),*) => {
        $(fn $f<E>(self, _: $t) -> Result<Any, E> { Ok(Any) })*
    };
}

impl<'de> serde::de::Visitor<'de> for AnyVisitor {
    type Value = Any;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("anything")
    }
    accept!(visit_bool: bool, visit_i32: i32, visit_i64: i64, visit_u64: u64, visit_f32: f32,
        visit_f64: f64, visit_str: &str, visit_bytes: &[u8], visit_char: char);
    fn visit_unit<E>(self) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_none<E>(self) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Any, D::Error> {
        Any::deserialize(d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Any, A::Error> {
        while a.next_element::<Any>()?.is_some() {}
        Ok(Any)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Any, A::Error> {
        while a.next_entry::<Any, Any>()?.is_some() {}
        Ok(Any)
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, a: A) -> Result<Any, A::Error> {
        use serde::de::VariantAccess;
        let (Any, v) = a.variant::<Any>()?;
        v.newtype_variant::<Any>()
    }
}

enum ReaderKind<'a> {
    Slice(Reader<'a, &'a [u8]>),
    Stream(Reader<'static, &'a [u8]>),
}

fn drain(it: impl Iterator<Item = avrokit::Result<Option<Value>>>, out: &mut Outcome) {
    for v in it {
        match v {
            Ok(v) => {
                out.count += 1;
                out.values.extend(v);
            }
            Err(e) => {
                out.err = Some(e);
                return;
            }
        }
    }
}

/// The records of the first `n` blocks.
fn records_in_blocks(blocks: &[Block], n: usize) -> usize {
    blocks[..n].iter().map(|b| b.count as usize).sum()
}

// ------------------------------------------------------------------ truncation

#[test]
fn every_truncation_of_every_codec_is_eof_after_the_complete_blocks() {
    for codec in codecs() {
        let file = small_file(codec);
        let (header, blocks) = blocks_of(&file);
        let all = records();
        for cut in 0..file.len() {
            let prefix = &file[..cut];
            // Blocks wholly inside the prefix, and whether the cut falls on a block boundary.
            let complete = blocks.iter().filter(|b| b.end <= cut as u64).count();
            let at_boundary = cut as u64 == header || blocks.iter().any(|b| b.end == cut as u64);
            let want = if cut < header as usize {
                0
            } else {
                records_in_blocks(&blocks, complete)
            };
            for path in PATHS {
                let ctx = format!("{codec}, cut at {cut} of {}, {path:?}", file.len());
                let (o, largest) = largest_allocation(|| read(path, prefix));
                assert!(largest < ALLOC_BOUND, "{ctx}: allocated {largest} bytes");
                assert_eq!(o.count, want, "{ctx}: {:?}", o.err);
                if matches!(path, Path::Slice | Path::Stream | Path::Raw) {
                    assert_eq!(o.values[..], all[..want], "{ctx}: a misread");
                }
                match &o.err {
                    None => assert!(at_boundary, "{ctx}: read cleanly"),
                    Some(e) => {
                        assert!(!at_boundary || cut == 0, "{ctx}: {e}");
                        assert!(e.is_eof(), "{ctx}: not Eof: {e}");
                        let off = e
                            .offset()
                            .unwrap_or_else(|| panic!("{ctx}: no offset: {e}"));
                        assert!(off <= cut as u64, "{ctx}: offset {off}: {e}");
                        let msg = e.to_string();
                        if cut < header as usize {
                            assert!(msg.contains("header"), "{ctx}: {msg}");
                        } else {
                            assert!(
                                msg.contains(&format!("block {complete} ")),
                                "{ctx}: the message names the block: {msg}"
                            );
                        }
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------ bit flips

/// The kinds of error damage may give.
const DAMAGE: [ErrorKind; 6] = [
    ErrorKind::Eof,
    ErrorKind::Data,
    ErrorKind::Container,
    ErrorKind::Codec,
    ErrorKind::Limit,
    ErrorKind::Schema,
];

#[test]
fn every_bit_flip_of_every_codec_is_caught_or_harmless() {
    for codec in codecs() {
        let file = small_file(codec);
        let (header, blocks) = blocks_of(&file);
        let all = records();
        for i in 0..file.len() {
            let block = blocks
                .iter()
                .position(|b| b.start <= i as u64 && (i as u64) < b.end);
            for bit in 0..8 {
                let mut bad = file.clone();
                bad[i] ^= 1 << bit;
                let ctx = format!("{codec}, byte {i} bit {bit}");
                // Every bit through the slice reader; one bit of each byte through every path.
                let paths: &[Path] = if bit == i % 8 { &PATHS } else { &PATHS[..1] };
                let mut outcomes = Vec::new();
                for &path in paths {
                    let (o, largest) = largest_allocation(|| read(path, &bad));
                    assert!(
                        largest < ALLOC_BOUND,
                        "{ctx}, {path:?}: allocated {largest}"
                    );
                    if let Some(e) = &o.err {
                        assert!(
                            DAMAGE.contains(&e.kind()) || e.kind() == ErrorKind::Resolution,
                            "{ctx}, {path:?}: {e}"
                        );
                        if let Some(off) = e.offset() {
                            assert!(off <= bad.len() as u64, "{ctx}, {path:?}: {e}");
                        }
                    }
                    outcomes.push(o);
                }
                let slice = &outcomes[0];
                if let Some(stream) = outcomes.get(1) {
                    // The stream sees what the slice sees.
                    assert_eq!(slice.count, stream.count, "{ctx}: stream");
                    assert_eq!(
                        slice.err.as_ref().map(Error::kind),
                        stream.err.as_ref().map(Error::kind),
                        "{ctx}: stream: {:?} / {:?}",
                        slice.err,
                        stream.err
                    );
                }
                let Some(b) = block else {
                    // The header: a flip that still parses (a name, a symbol) reads every
                    // record; anything else is an error before the first record.
                    assert!(i < header as usize, "{ctx}");
                    assert!(
                        slice.err.is_some() || slice.count == all.len(),
                        "{ctx}: {} records",
                        slice.count
                    );
                    continue;
                };
                let blk = blocks[b];
                let before = records_in_blocks(&blocks, b);
                // Blocks before the damaged one read as written, on every path.
                for (path, o) in paths.iter().zip(&outcomes) {
                    assert!(
                        o.count >= before
                            || o.err
                                .as_ref()
                                .is_some_and(|e| e.kind() == ErrorKind::Schema),
                        "{ctx}, {path:?}: {} records, {before} are before the damage",
                        o.count
                    );
                }
                assert_eq!(slice.values[..before], all[..before], "{ctx}");
                if i as u64 >= blk.end - 16 {
                    // The block's sync marker: always caught, before the block's records.
                    let e = slice
                        .err
                        .as_ref()
                        .unwrap_or_else(|| panic!("{ctx}: no error"));
                    assert_eq!(e.kind(), ErrorKind::Container, "{ctx}: {e}");
                    assert!(e.message().contains("sync marker"), "{ctx}: {e}");
                    assert_eq!(e.offset(), Some(blk.end - 16), "{ctx}: {e}");
                    assert_eq!(slice.values[..], all[..before], "{ctx}");
                } else if i as u64 >= blk.data && checksummed(codec) {
                    // The payload, under a checksum: an error, or (a flip the decompressor
                    // ignores) the very same records.
                    let n = slice.values.len();
                    assert_eq!(
                        slice.values[..],
                        all[..n],
                        "{ctx}: a misread passed the checksum"
                    );
                    if let Some(e) = &slice.err {
                        assert!(e.to_string().contains(&format!("block {b} ")), "{ctx}: {e}");
                    }
                } else if i as u64 >= blk.data && codec == Codec::Null {
                    // Uncompressed records can change into other valid records, but never
                    // silently swallow or invent bytes: every block still ends where it did.
                    if slice.err.is_none() {
                        assert_eq!(slice.count, all.len(), "{ctx}");
                    }
                } else if (i as u64) < blk.data {
                    // The count or the size: a different count leaves bytes over or runs out,
                    // a different size misses the sync marker.
                    assert!(
                        slice.err.is_some() || slice.values == all,
                        "{ctx}: {:?}",
                        slice.values
                    );
                }
            }
        }
    }
}

#[test]
fn split_reading_damaged_files_never_panics_or_misreads() {
    // Every flipped byte and every truncation, read in ranges as Hadoop splits would be: never a
    // panic, and under a checksum never a record that was not written.
    for codec in [Codec::Null, Codec::Snappy]
        .into_iter()
        .filter(Codec::is_enabled)
    {
        let file = small_file(codec);
        let all = records();
        let mut damaged: Vec<Vec<u8>> = (0..file.len())
            .map(|i| {
                let mut bad = file.clone();
                bad[i] ^= 1 << (i % 8);
                bad
            })
            .collect();
        damaged.extend((1..file.len()).map(|cut| file[..cut].to_vec()));
        for bad in &damaged {
            let len = bad.len() as u64;
            for ranges in [
                vec![(0, len)],
                vec![(0, len / 3), (len / 3, len)],
                vec![
                    (0, len / 2),
                    (len / 2, len / 2 + 40),
                    (len / 2 + 40, len + 10),
                ],
            ] {
                for (start, end) in ranges {
                    let Ok(mut r) = Reader::from_slice(bad) else {
                        continue;
                    };
                    let (r, largest) = largest_allocation(|| {
                        r.seek_split(start, end)?;
                        r.collect::<avrokit::Result<Vec<_>>>()
                    });
                    assert!(largest < ALLOC_BOUND, "{codec}: {largest}");
                    match r {
                        Ok(values) if codec == Codec::Snappy => {
                            assert!(values.iter().all(|v| all.contains(v)), "{codec}");
                        }
                        Ok(_) => {}
                        Err(e) => assert!(DAMAGE.contains(&e.kind()), "{codec}: {e}"),
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------ magic, sync, codec

/// A file with the given header entries and raw blocks `(count, payload)`, its map and blocks
/// framed by hand.
fn handmade(entries: &[(&str, &[u8])], blocks: &[(i64, &[u8])]) -> Vec<u8> {
    let mut out = b"Obj\x01".to_vec();
    out.extend(varint(entries.len() as i64));
    for (k, v) in entries {
        out.extend(varint(k.len() as i64));
        out.extend_from_slice(k.as_bytes());
        out.extend(varint(v.len() as i64));
        out.extend_from_slice(v);
    }
    out.push(0);
    out.extend_from_slice(&SYNC);
    for (count, data) in blocks {
        out.extend(varint(*count));
        out.extend(varint(data.len() as i64));
        out.extend_from_slice(data);
        out.extend_from_slice(&SYNC);
    }
    out
}

/// A file of `schema` (JSON text) with null codec and the given blocks.
fn file_of(schema: &str, blocks: &[(i64, &[u8])]) -> Vec<u8> {
    handmade(&[("avro.schema", schema.as_bytes())], blocks)
}

fn first_error(path: Path, bytes: &[u8]) -> Error {
    read(path, bytes)
        .err
        .unwrap_or_else(|| panic!("{path:?}: no error"))
}

#[test]
fn wrong_magic_is_a_container_error_at_the_bad_byte() {
    let good = small_file(Codec::Null);
    let mut cases: Vec<(Vec<u8>, u64)> = Vec::new();
    for i in 0..4 {
        for x in [0x01u8, 0x20, 0xff] {
            let mut bad = good.clone();
            bad[i] ^= x;
            cases.push((bad, i as u64));
        }
    }
    let mut legacy = good.clone();
    legacy[3] = 0;
    cases.push((legacy, 3));
    cases.push((b"PAR1\x15\x04".to_vec(), 0));
    cases.push((b"{\"a\": 1}\n".to_vec(), 0));
    cases.push((vec![0; 100], 0));
    for (bad, at) in cases {
        for path in [Path::Slice, Path::Stream] {
            let e = first_error(path, &bad);
            assert_eq!(e.kind(), ErrorKind::Container, "{e}");
            assert!(e.message().contains("magic"), "{e}");
            assert_eq!(e.offset(), Some(at), "{e}");
        }
    }
    // Shorter than the magic: end of input, naming it.
    for n in 0..4 {
        let e = first_error(Path::Slice, &good[..n]);
        assert!(e.is_eof() && e.message().contains("magic"), "{e}");
    }
}

#[test]
fn a_corrupt_sync_marker_ends_the_file_after_its_block() {
    for codec in codecs() {
        let file = small_file(codec);
        let (header, blocks) = blocks_of(&file);
        let all = records();
        // The header's marker is the reference: change it, and the first block's marker fails.
        let mut bad = file.clone();
        bad[header as usize - 1] ^= 0x40;
        for path in PATHS {
            let o = read(path, &bad);
            let e = o.err.expect("an error");
            assert!(e.message().contains("sync marker"), "{codec} {path:?}: {e}");
            // A block is handed out only once its marker is checked: none of block 0.
            assert_eq!(o.count, 0, "{codec} {path:?}");
        }
        for (b, blk) in blocks.iter().enumerate() {
            for k in [0, 7, 15] {
                let mut bad = file.clone();
                bad[(blk.end - 16) as usize + k] = bad[(blk.end - 16) as usize + k].wrapping_add(1);
                for path in PATHS {
                    let o = read(path, &bad);
                    let ctx = format!("{codec}, block {b} marker byte {k}, {path:?}");
                    let e = o.err.unwrap_or_else(|| panic!("{ctx}: no error"));
                    assert_eq!(e.kind(), ErrorKind::Container, "{ctx}: {e}");
                    let msg = e.to_string();
                    assert!(msg.contains("sync marker"), "{ctx}: {msg}");
                    assert!(msg.contains(&format!("block {b} ")), "{ctx}: {msg}");
                    assert_eq!(e.offset(), Some(blk.end - 16), "{ctx}: {msg}");
                    assert_eq!(o.count, records_in_blocks(&blocks, b), "{ctx}");
                    if matches!(path, Path::Slice | Path::Stream | Path::Raw) {
                        assert_eq!(o.values[..], all[..o.count], "{ctx}");
                    }
                }
            }
        }
        // Split reading over a corrupt marker: the range that holds it reports it or skips the
        // block it cannot confirm; it never misreads.
        let mut bad = file.clone();
        bad[(blocks[1].end - 16) as usize] ^= 1;
        for start in [0, blocks[1].start, blocks[2].start] {
            let mut r = Reader::from_slice(&bad).unwrap();
            r.seek_split(start, bad.len() as u64).unwrap();
            let mut n = 0;
            for v in r.by_ref() {
                match v {
                    Ok(v) => assert!(all.contains(&v), "{codec} split at {start}"),
                    Err(e) => {
                        assert!(e.message().contains("sync marker"), "{codec}: {e}");
                        break;
                    }
                }
                n += 1;
            }
            assert!(n <= all.len());
        }
    }
}

#[test]
fn an_unknown_codec_is_named() {
    let names: [&[u8]; 6] = [b"lzo", b"", b"Snappy", b"zstd", b"null ", b"\xff\xfe"];
    for name in names {
        let f = handmade(
            &[("avro.schema", br#""int""#), ("avro.codec", name)],
            &[(1, &[2])],
        );
        for path in [Path::Slice, Path::Stream] {
            let e = first_error(path, &f);
            assert_eq!(e.kind(), ErrorKind::Container, "{e}");
            match std::str::from_utf8(name) {
                Ok(s) => {
                    assert!(e.message().contains("unknown codec"), "{e}");
                    assert!(e.message().contains(&format!("{s:?}")), "{e}");
                }
                Err(_) => assert!(e.message().contains("avro.codec"), "{e}"),
            }
        }
    }
    // A codec named twice: the last one counts, as for any key.
    let f = handmade(
        &[
            ("avro.schema", br#""int""#),
            ("avro.codec", b"lzo"),
            ("avro.codec", b"null"),
        ],
        &[(1, &[2])],
    );
    assert_eq!(read(Path::Slice, &f).values, [Value::Int(1)]);
}

/// Replaces block 0's payload in a file of `codec` by `payload`.
fn with_payload(codec: Codec, payload: &[u8]) -> Vec<u8> {
    let file = small_file(codec);
    let (header, blocks) = blocks_of(&file);
    let mut out = file[..header as usize].to_vec();
    out.extend(varint(blocks[0].count as i64));
    out.extend(varint(payload.len() as i64));
    out.extend_from_slice(payload);
    out.extend_from_slice(&file[(blocks[0].end - 16) as usize..]);
    out
}

#[test]
fn corrupt_compressed_payloads_are_codec_errors_naming_the_block() {
    for codec in codecs() {
        let file = small_file(codec);
        let (_, blocks) = blocks_of(&file);
        let p = &file[blocks[0].data as usize..(blocks[0].end - 16) as usize];
        let mut noise = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..p.len() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            noise.push(x as u8);
        }
        let mut cases: Vec<(&str, Vec<u8>)> = vec![
            ("zeros", vec![0; p.len()]),
            ("ones", vec![0xff; p.len()]),
            ("noise", noise),
            ("half", p[..p.len() / 2].to_vec()),
            ("all but one byte", p[..p.len() - 1].to_vec()),
            ("empty", Vec::new()),
            ("one byte", p[..1].to_vec()),
        ];
        let mut reversed = p.to_vec();
        reversed.reverse();
        cases.push(("reversed", reversed));
        for (what, payload) in cases {
            let bad = with_payload(codec, &payload);
            for path in PATHS {
                let ctx = format!("{codec}, payload {what}, {path:?}");
                let (o, largest) = largest_allocation(|| read(path, &bad));
                assert!(largest < ALLOC_BOUND, "{ctx}: allocated {largest}");
                let e = o.err.unwrap_or_else(|| panic!("{ctx}: no error"));
                let msg = e.to_string();
                assert!(msg.contains("block 0 "), "{ctx}: {msg}");
                if codec == Codec::Null {
                    // Records over random bytes: malformed data, or too many records claimed.
                    assert!(
                        matches!(
                            e.kind(),
                            ErrorKind::Data | ErrorKind::Container | ErrorKind::Limit
                        ),
                        "{ctx}: {msg}"
                    );
                } else {
                    assert_eq!(o.count, 0, "{ctx}");
                    let name_or_data = msg.contains(codec.name())
                        || matches!(e.kind(), ErrorKind::Data | ErrorKind::Container);
                    assert!(name_or_data, "{ctx}: {msg}");
                    assert!(
                        matches!(
                            e.kind(),
                            ErrorKind::Codec
                                | ErrorKind::Limit
                                | ErrorKind::Data
                                | ErrorKind::Container
                        ),
                        "{ctx}: {msg}"
                    );
                }
            }
        }
        // Bytes after the compressed stream.
        let mut longer = p.to_vec();
        longer.extend_from_slice(b"trailing");
        let o = read(Path::Slice, &with_payload(codec, &longer));
        match codec {
            // Ignored after a deflate, bzip2 or xz stream, as Java's readers ignore them
            // (avro-py's deflate leaves zlib's checksum there).
            Codec::Deflate { .. } | Codec::Bzip2 { .. } | Codec::Xz { .. } => {
                assert!(o.err.is_none(), "{codec}: {:?}", o.err);
                assert_eq!(o.values, records());
            }
            _ => {
                let e = o
                    .err
                    .unwrap_or_else(|| panic!("{codec}: trailing bytes accepted"));
                assert!(e.to_string().contains("block 0 "), "{codec}: {e}");
                // Uncompressed, the records come first; the last one reports the bytes after.
                assert!(o.count < blocks[0].count as usize, "{codec}");
            }
        }
    }
}

#[test]
fn a_snappy_checksum_mismatch_is_named() {
    if !Codec::Snappy.is_enabled() {
        return;
    }
    let file = small_file(Codec::Snappy);
    let (_, blocks) = blocks_of(&file);
    for (b, blk) in blocks.iter().enumerate() {
        for k in 1..=4 {
            let mut bad = file.clone();
            bad[(blk.end - 16) as usize - k] ^= 0x10;
            for path in PATHS {
                let o = read(path, &bad);
                let ctx = format!("block {b}, CRC byte -{k}, {path:?}");
                let e = o.err.unwrap_or_else(|| panic!("{ctx}: no error"));
                assert_eq!(e.kind(), ErrorKind::Codec, "{ctx}: {e}");
                let msg = e.to_string();
                assert!(msg.contains("CRC32 checksum mismatch"), "{ctx}: {msg}");
                assert!(msg.contains(&format!("block {b} ")), "{ctx}: {msg}");
                assert_eq!(e.offset(), Some(blk.start), "{ctx}: {msg}");
                assert_eq!(o.count, records_in_blocks(&blocks, b), "{ctx}");
            }
        }
    }
}

// ------------------------------------------------------------------ hostile lengths and counts

/// Interesting values for a length or a count.
fn hostile_numbers() -> Vec<i64> {
    vec![
        i64::MIN,
        i64::MIN + 1,
        -(1 << 40),
        -2,
        -1,
        1 << 31,
        1 << 40,
        1 << 62,
        i64::MAX - 1,
        i64::MAX,
    ]
}

/// Reads `bytes` every way with a small `max_alloc`; checks the error and that no allocation
/// came near what the input claims.
#[track_caller]
fn assert_refused(bytes: &[u8], kinds: &[ErrorKind], needle: &str, ctx: &str) {
    assert_refused_but(bytes, kinds, needle, ctx, &[]);
}

/// As [`assert_refused`], but `lenient` paths may also read the file without an error.
#[track_caller]
fn assert_refused_but(
    bytes: &[u8],
    kinds: &[ErrorKind],
    needle: &str,
    ctx: &str,
    lenient: &[Path],
) {
    for path in PATHS {
        for limits in [Limits::default(), Limits::default().with_max_alloc(MIB)] {
            let (o, largest) = largest_allocation(|| read_with(path, bytes, limits));
            let ctx = format!("{ctx}, {path:?}, max_alloc {}", limits.max_alloc);
            assert!(largest < 2 * MIB, "{ctx}: allocated {largest} bytes");
            let Some(e) = o.err else {
                assert!(lenient.contains(&path), "{ctx}: no error");
                continue;
            };
            assert!(kinds.contains(&e.kind()), "{ctx}: {:?}: {e}", e.kind());
            let off = e
                .offset()
                .unwrap_or_else(|| panic!("{ctx}: no offset: {e}"));
            assert!(off <= bytes.len() as u64, "{ctx}: {e}");
            assert!(
                e.to_string().contains(needle),
                "{ctx}: no {needle:?} in {e}"
            );
        }
    }
}

#[test]
fn hostile_header_lengths_are_refused_before_allocating() {
    use ErrorKind::{Container, Eof, Limit};
    let schema = br#""int""#;
    for n in hostile_numbers() {
        let ctx = format!("{n}");
        // The map's entry count (negative: a block count with a byte size after it).
        let mut f = b"Obj\x01".to_vec();
        f.extend(varint(n));
        f.extend([0x16, 0x00]);
        assert_refused(
            &f,
            &[Container, Eof, Limit],
            "",
            &format!("entry count {ctx}"),
        );
        // A key length and a value length.
        let mut f = b"Obj\x01\x02".to_vec();
        f.extend(varint(n));
        f.extend_from_slice(b"avro.schema");
        assert_refused(
            &f,
            &[Container, Eof, Limit],
            "",
            &format!("key length {ctx}"),
        );
        let mut f = b"Obj\x01\x02\x16avro.schema".to_vec();
        f.extend(varint(n));
        f.extend_from_slice(schema);
        assert_refused(
            &f,
            &[Container, Eof, Limit],
            "",
            &format!("value length {ctx}"),
        );
    }
    // Many empty entries: each costs memory beyond its two bytes, which counts against the
    // limit as well.
    let mut f = b"Obj\x01".to_vec();
    f.extend(varint(1 << 20));
    for _ in 0..1 << 20 {
        f.extend([0x00, 0x00]);
    }
    f.push(0);
    f.extend_from_slice(&SYNC);
    for path in [Path::Slice, Path::Stream] {
        let o = read_with(path, &f, Limits::default().with_max_alloc(MIB));
        let e = o.err.expect("over the limit");
        assert_eq!(e.kind(), Limit, "{path:?}: {e}");
    }
}

#[test]
fn hostile_block_counts_and_sizes_are_refused_before_allocating() {
    use ErrorKind::{Container, Eof, Limit};
    for n in hostile_numbers() {
        // The count, over a 1-byte payload (and over none).
        let f = file_of(r#""int""#, &[(n, &[2])]);
        assert_refused(&f, &[Container], "block 0 ", &format!("count {n}"));
        let f = file_of(r#""null""#, &[(n, &[])]);
        assert_refused(&f, &[Container], "block 0 ", &format!("null count {n}"));
        // The size, with 3 bytes following.
        let mut f = file_of(r#""int""#, &[(1, &[2])]);
        f.extend([0x02]);
        f.extend(varint(n));
        f.extend([2, 4, 6]);
        assert_refused(
            &f,
            &[Container, Eof, Limit],
            "block 1 ",
            &format!("size {n}"),
        );
    }
    // A count that is not a varint.
    let mut f = file_of(r#""int""#, &[]);
    f.extend([0xff; 11]);
    assert_refused(&f, &[Container], "varint", "an 11-byte count");
}

#[test]
fn hostile_lengths_inside_records_are_refused_before_allocating() {
    use ErrorKind::{Container, Data, Limit};
    let cases: [(&str, &str); 6] = [
        ("string", r#""string""#),
        ("bytes", r#""bytes""#),
        ("array", r#"{"type":"array","items":"long"}"#),
        ("map", r#"{"type":"map","values":"long"}"#),
        ("array of null", r#"{"type":"array","items":"null"}"#),
        ("map of null", r#"{"type":"map","values":"null"}"#),
    ];
    for (what, ty) in cases {
        let schema = format!(
            r#"{{"type":"record","name":"W","fields":[{{"name":"a","type":"int"}},{{"name":"v","type":{ty}}}]}}"#
        );
        let collection = ty.starts_with('{');
        // -1 and -2 are valid block counts of a collection (a byte size follows).
        for n in hostile_numbers()
            .into_iter()
            .filter(|&n| !(collection && n >= -2))
        {
            let mut payload = vec![0x02];
            payload.extend(varint(n));
            payload.extend([2, 4, 6, 0]);
            let f = file_of(&schema, &[(1, &payload)]);
            let ctx = format!("{what} length {n}");
            // The record is named with its block, and the path leads to the field. Skipping
            // a sized block jumps over its byte size without counting items, as Java's does:
            // a negative count skips without looking at the items.
            let lenient: &[Path] = if collection && n < 0 {
                &[Path::Skip]
            } else {
                &[]
            };
            assert_refused_but(&f, &[Data, Limit, Container], "block 0 ", &ctx, lenient);
            for path in [Path::Slice, Path::Stream, Path::Resolved, Path::Raw] {
                let e = first_error(path, &f);
                if e.kind() != Container {
                    let msg = e.to_string();
                    assert!(msg.contains("record 0"), "{ctx}, {path:?}: {msg}");
                    assert!(msg.contains("W.v"), "{ctx}, {path:?}: {msg}");
                }
            }
            // Compressed: the same, with the offset inside the decompressed block named.
            if Codec::DEFLATE.is_enabled() {
                let s = Schema::parse_str(&schema).unwrap();
                let mut w = WriterBuilder::new(&s)
                    .with_codec(Codec::DEFLATE)
                    .with_sync_marker(SYNC)
                    .build(Vec::new())
                    .unwrap();
                w.append_encoded(&payload).unwrap();
                let f = w.into_inner().unwrap();
                assert_refused_but(&f, &[Data, Limit, Container], "block 0 ", &ctx, lenient);
                let msg = first_error(Path::Slice, &f).to_string();
                assert!(msg.contains("of the decompressed block"), "{ctx}: {msg}");
            }
        }
    }
}

// ------------------------------------------------------------------ counts that lie

#[test]
fn block_counts_that_lie_are_errors_on_every_path() {
    // Three strings "a", "bb", "ccc".
    let three: &[u8] = &[2, b'a', 4, b'b', b'b', 6, b'c', b'c', b'c'];
    let s = r#""string""#;
    // More than the block holds (but no more than its bytes could): runs out inside the block.
    for claimed in [4, 5, 9] {
        let f = file_of(s, &[(claimed, three)]);
        for path in PATHS {
            let o = read(path, &f);
            let ctx = format!("{claimed} claimed, {path:?}");
            let e = o.err.unwrap_or_else(|| panic!("{ctx}: no error"));
            let msg = e.to_string();
            assert!(msg.contains("block 0 "), "{ctx}: {msg}");
            assert!(
                matches!(e.kind(), ErrorKind::Data | ErrorKind::Container),
                "{ctx}: {msg}"
            );
            if claimed == 4 && path != Path::Raw {
                assert_eq!(o.count, 3, "{ctx}");
                assert!(msg.contains("record 3"), "{ctx}: {msg}");
            }
        }
    }
    // Fewer: the records left over are garbage, not silently dropped.
    for claimed in [1, 2] {
        let f = file_of(s, &[(claimed, three)]);
        for path in PATHS {
            let o = read(path, &f);
            let ctx = format!("{claimed} claimed, {path:?}");
            let e = o.err.unwrap_or_else(|| panic!("{ctx}: no error"));
            assert_eq!(e.kind(), ErrorKind::Data, "{ctx}: {e}");
            let msg = e.to_string();
            assert!(msg.contains("block 0 "), "{ctx}: {msg}");
            assert!(msg.contains("of its 9 bytes"), "{ctx}: {msg}");
            assert_eq!(e.offset(), Some(first_block_offset(&f)), "{ctx}: {msg}");
        }
    }
    // None, over bytes.
    let f = file_of(s, &[(0, three)]);
    for path in PATHS {
        let e = first_error(path, &f);
        assert_eq!(e.kind(), ErrorKind::Data, "{path:?}: {e}");
        assert!(e.message().contains("no objects"), "{path:?}: {e}");
    }
    // A good block, then one that lies: the first block's records come first. (Reading record
    // by record, the last record the block claims is the one that reports the bytes left over,
    // instead of being returned; a raw block is decoded whole or not at all.)
    let f = file_of(s, &[(3, three), (2, three)]);
    for path in PATHS {
        let o = read(path, &f);
        assert_eq!(o.count, if path == Path::Raw { 3 } else { 4 }, "{path:?}");
        assert!(o.err.unwrap().to_string().contains("block 1 "), "{path:?}");
    }
    // The same through a compressed block.
    for codec in codecs().into_iter().filter(|c| *c != Codec::Null) {
        for claimed in [1u64, 2, 4, 9] {
            let sch = Schema::parse_str(s).unwrap();
            let mut w = WriterBuilder::new(&sch)
                .with_codec(codec)
                .with_sync_marker(SYNC)
                .build(Vec::new())
                .unwrap();
            w.append_raw_block(&RawBlock::new(claimed, &compress(codec, three), codec))
                .unwrap();
            let f = w.into_inner().unwrap();
            for path in PATHS {
                let e = first_error(path, &f);
                assert!(
                    matches!(e.kind(), ErrorKind::Data | ErrorKind::Container),
                    "{codec} {claimed} {path:?}: {e}"
                );
            }
        }
    }
}

fn first_block_offset(f: &[u8]) -> u64 {
    Reader::from_slice(f).unwrap().header().len()
}

/// `data` compressed as one block of `codec`.
fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
    let mut w = WriterBuilder::new(&Schema::parse_str(r#""bytes""#).unwrap())
        .with_codec(codec)
        .with_sync_marker(SYNC)
        .build(Vec::new())
        .unwrap();
    w.append_encoded(data).unwrap();
    let f = w.into_inner().unwrap();
    let mut r = Reader::from_slice(&f).unwrap();
    r.next_raw_block().unwrap().unwrap().data().to_vec()
}

// ------------------------------------------------------------------ indexes and UTF-8

#[test]
fn out_of_range_indexes_are_data_errors_with_the_path() {
    let schema = r#"{"type":"record","name":"W","fields":[
        {"name":"a","type":"int"},
        {"name":"u","type":["null","int"]},
        {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}]}"#;
    // Union index, then enum index; the other one valid.
    let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
    for bad in [-1i64, 2, 3, 1 << 31, 1 << 40, i64::MIN, i64::MAX] {
        let mut p = vec![0x02];
        p.extend(varint(bad));
        p.extend([0x02, 0x00]);
        cases.push(("union", p, "W.u"));
        if bad != 2 {
            let mut p = vec![0x02, 0x00];
            p.extend(varint(bad));
            cases.push(("enum", p, "W.e"));
        }
    }
    for (what, payload, at) in cases {
        let f = file_of(schema, &[(1, &payload)]);
        for path in PATHS {
            let o = read(path, &f);
            let ctx = format!("{what} {payload:02x?}, {path:?}");
            // Skipping does not look an enum's symbols up (as Java's skip does not): a small
            // index skips, a varint beyond 32 bits does not.
            let Some(e) = o.err else {
                assert!(what == "enum" && path == Path::Skip, "{ctx}: no error");
                continue;
            };
            assert_eq!(e.kind(), ErrorKind::Data, "{ctx}: {e}");
            let msg = e.to_string();
            assert!(
                msg.contains("block 0 ") && msg.contains("record 0"),
                "{ctx}: {msg}"
            );
            if path != Path::Skip {
                assert!(msg.contains(at), "{ctx}: the path: {msg}");
            }
            assert!(
                e.offset().is_some_and(|o| o < f.len() as u64),
                "{ctx}: {msg}"
            );
        }
    }
}

#[test]
fn invalid_utf8_in_strings_and_map_keys_is_a_data_error() {
    let schema = r#"{"type":"record","name":"W","fields":[
        {"name":"s","type":"string"},
        {"name":"m","type":{"type":"map","values":"int"}}]}"#;
    let bad_strings: [&[u8]; 5] = [
        b"\xc3\x28",
        b"\xc0\x80",
        b"\xed\xa0\x80",
        b"a\xff",
        b"\xf4\x90\x80\x80",
    ];
    for bad in bad_strings {
        let mut in_string = varint(bad.len() as i64);
        in_string.extend_from_slice(bad);
        in_string.push(0); // empty map
        let mut in_key = vec![0x00, 0x02];
        in_key.extend(varint(bad.len() as i64));
        in_key.extend_from_slice(bad);
        in_key.extend([0x02, 0x00]);
        for (what, payload, at) in [("string", in_string, "W.s"), ("map key", in_key, "W.m")] {
            let f = file_of(schema, &[(1, &payload)]);
            // Skipping does not validate text; every decoding path does.
            for path in [
                Path::Slice,
                Path::Stream,
                Path::Serde,
                Path::Resolved,
                Path::Raw,
            ] {
                let ctx = format!("{what} {bad:02x?}, {path:?}");
                let e = first_error(path, &f);
                assert_eq!(e.kind(), ErrorKind::Data, "{ctx}: {e}");
                let msg = e.to_string();
                assert!(msg.contains("UTF-8"), "{ctx}: {msg}");
                assert!(
                    msg.contains("block 0 ") && msg.contains("record 0"),
                    "{ctx}: {msg}"
                );
                if path != Path::Serde {
                    assert!(msg.contains(at), "{ctx}: {msg}");
                }
            }
        }
    }
}

// ------------------------------------------------------------------ deep nesting

const LIST: &str = r#"{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}"#;
const LIST_READER: &str = r#"{"type":"record","name":"L","fields":[
    {"name":"next","type":["null","L"]},{"name":"x","type":"int","default":1}]}"#;

/// A list 100,000 records long: `next` is the `L` branch every time (and never ends).
fn deep_list() -> Vec<u8> {
    vec![0x02; 100_000]
}

#[derive(serde::Deserialize, serde::Serialize, Debug)]
struct Node {
    next: Option<Box<Node>>,
}

impl Node {
    /// A list of `n` nodes, built (and, in `Drop`, taken apart) without recursion.
    fn list(n: usize) -> Node {
        let mut node = Node { next: None };
        for _ in 1..n {
            node = Node {
                next: Some(Box::new(node)),
            };
        }
        node
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let mut next = self.next.take();
        while let Some(mut n) = next {
            next = n.next.take();
        }
    }
}

/// The `Value` of a list of `n` records of `LIST`.
fn list_value(n: usize) -> Value {
    let mut v = Value::Record(vec![Value::Union(0, Box::new(Value::Null))]);
    for _ in 1..n {
        v = Value::Record(vec![Value::Union(1, Box::new(v))]);
    }
    v
}

/// Takes a deep `Value` apart without recursion.
fn dismantle_value(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Record(items) | Value::Array(items) => stack.extend(items),
            Value::Union(_, b) => stack.push(*b),
            Value::Map(entries) => stack.extend(entries.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[test]
fn writing_values_nested_deep_is_bounded_on_a_small_stack() {
    // Writers allow 1024 levels (a record and a union per list node): 500 nodes write, 5,000
    // are a limit error, through the value encoder, Avro JSON and serde.
    on_small_stack(|| {
        let s = Schema::parse_str(LIST).unwrap();
        let plan = avrokit::serde::SerPlan::compile(&s).unwrap();
        let de = DePlan::compile(&s).unwrap();
        let ok = list_value(500);
        let bytes = avrokit::to_datum_vec(&ok, &s).unwrap();
        let text = avrokit::json::to_json_string(&ok, &s, false).unwrap();
        let node = Node::list(500);
        assert_eq!(avrokit::serde::to_datum_vec(&node, &plan).unwrap(), bytes);
        // Reading them back needs a deeper decoder than the default 512.
        let deeper = Limits::default().with_max_depth(1024);
        let mut dec = Decoder::from_slice(&bytes).with_limits(deeper);
        let back = read_value(&mut dec, &s).unwrap();
        assert!(back == ok);
        let back_json = avrokit::json::JsonReader::new(&text, &s)
            .with_limits(deeper)
            .read_value()
            .unwrap()
            .unwrap();
        assert!(back_json == ok);
        let _: Node =
            avrokit::serde::Deserializer::new(Decoder::from_slice(&bytes).with_limits(deeper), &de)
                .deserialize()
                .unwrap();
        for v in [ok, back, back_json] {
            dismantle_value(v);
        }
        let deep = list_value(5_000);
        assert_depth_error(avrokit::to_datum_vec(&deep, &s), "write_value");
        assert_depth_error(
            avrokit::json::to_json_string(&deep, &s, false),
            "to_json_string",
        );
        assert_depth_error(
            avrokit::serde::to_datum_vec(&Node::list(5_000), &plan),
            "serde",
        );
        dismantle_value(deep);
    });
}

#[track_caller]
fn assert_depth_error(r: avrokit::Result<impl std::fmt::Debug>, ctx: &str) {
    let e = r.map(|_| ()).expect_err(ctx);
    assert_eq!(e.kind(), ErrorKind::Limit, "{ctx}: {e}");
    assert!(e.to_string().contains("deep"), "{ctx}: {e}");
}

#[test]
fn datums_nested_100_000_deep_are_depth_errors_on_a_small_stack() {
    on_small_stack(|| {
        let s = Schema::parse_str(LIST).unwrap();
        let bytes = deep_list();
        assert_depth_error(avrokit::from_datum_slice(&bytes, &s), "from_datum_slice");
        assert_depth_error(
            avrokit::value::from_datum_reader(&bytes[..], &s),
            "from_datum_reader",
        );
        let mut dec = Decoder::from_slice(&bytes);
        assert_depth_error(dec.skip_value(&s, s.root_id()), "skip_value");
        // serde: into a recursive type, into serde_json::Value (deserialize_any), ignored.
        let plan = DePlan::compile(&s).unwrap();
        assert_depth_error(
            avrokit::serde::from_datum_slice::<Node>(&bytes, &plan),
            "serde Node",
        );
        assert_depth_error(
            avrokit::serde::from_datum_slice::<serde_json::Value>(&bytes, &plan),
            "serde serde_json::Value",
        );
        assert_depth_error(
            avrokit::serde::from_datum_slice::<serde::de::IgnoredAny>(&bytes, &plan),
            "serde IgnoredAny",
        );
        assert_depth_error(
            avrokit::serde::from_datum_reader::<_, Node>(&bytes[..], &plan),
            "serde reader",
        );
        // Resolved, through a plan that is not the identity.
        let reader = Schema::parse_str(LIST_READER).unwrap();
        let rplan = ResolvedPlan::compile(&s, &reader).unwrap();
        assert_depth_error(from_datum_slice_resolved(&bytes, &rplan), "resolved");
        let dplan = DePlan::resolving(&s, &reader).unwrap();
        assert_depth_error(
            avrokit::serde::from_datum_slice::<Node>(&bytes, &dplan),
            "serde resolved",
        );
        // In a container file, on every path.
        let f = file_of(LIST, &[(1, &bytes)]);
        for path in PATHS {
            let e = first_error(path, &f);
            assert_eq!(e.kind(), ErrorKind::Limit, "{path:?}: {e}");
            assert!(e.to_string().contains("block 0 "), "{path:?}: {e}");
        }
        // Avro JSON: {"next": {"L": {"next": ... }}}.
        let mut json = String::new();
        for _ in 0..100_000 {
            json.push_str(r#"{"next":{"L":"#);
        }
        assert_depth_error(avrokit::json::from_json_str(&json, &s), "from_json_str");
        // Arrays and maps of arrays.
        let arrays = Schema::parse_str(
            r#"{"type":"record","name":"A","fields":[{"name":"a","type":{"type":"array","items":"A"}}]}"#,
        )
        .unwrap();
        assert_depth_error(avrokit::from_datum_slice(&bytes, &arrays), "arrays");
        let json = "{\"a\":[".repeat(100_000);
        assert_depth_error(avrokit::json::from_json_str(&json, &arrays), "JSON arrays");
        let maps = Schema::parse_str(
            r#"{"type":"record","name":"M","fields":[{"name":"m","type":{"type":"map","values":"M"}}]}"#,
        )
        .unwrap();
        let deep_maps = [0x02, 0x00].repeat(100_000);
        assert_depth_error(avrokit::from_datum_slice(&deep_maps, &maps), "maps");
        let json = "{\"m\":{\"\":".repeat(100_000);
        assert_depth_error(avrokit::json::from_json_str(&json, &maps), "JSON maps");
    });
}

/// A `serde_json::Value` nested `depth` levels: `wrap` puts one level around the inner value.
fn deep_json(
    depth: usize,
    wrap: impl Fn(serde_json::Value) -> serde_json::Value,
) -> serde_json::Value {
    let mut v = serde_json::Value::String("int".into());
    for _ in 0..depth {
        v = wrap(v);
    }
    v
}

/// Takes a deep `serde_json::Value` apart without recursion (its own `Drop` recurses).
fn dismantle(v: serde_json::Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// A JSON object of `entries` (`json!` would serialize an interpolated value recursively).
fn object(entries: Vec<(&str, serde_json::Value)>) -> serde_json::Value {
    serde_json::Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn array_of(items: serde_json::Value) -> serde_json::Value {
    object(vec![("type", "array".into()), ("items", items)])
}

fn record_of(t: serde_json::Value) -> serde_json::Value {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let field = object(vec![("name", "f".into()), ("type", t)]);
    object(vec![
        ("type", "record".into()),
        ("name", format!("R{n}").into()),
        ("fields", serde_json::Value::Array(vec![field])),
    ])
}

#[test]
fn schemas_nested_100_000_deep_are_schema_errors_on_a_small_stack() {
    on_small_stack(|| {
        const N: usize = 100_000;
        let texts = [
            (
                "arrays",
                r#"{"type":"array","items":"#.repeat(N) + r#""int""# + &"}".repeat(N),
            ),
            (
                "records",
                r#"{"type":"record","name":"R","fields":[{"name":"f","type":"#.repeat(N)
                    + r#""int""#
                    + &"}]}".repeat(N),
            ),
            ("unions", "[".repeat(N) + r#""int""# + &"]".repeat(N)),
            (
                "maps",
                r#"{"type":"map","values":"#.repeat(N) + r#""int""# + &"}".repeat(N),
            ),
            ("unclosed", r#"{"type":"array","items":"#.repeat(N)),
        ];
        for (what, text) in &texts {
            let e = Schema::parse_str(text).expect_err(what);
            assert_eq!(e.kind(), ErrorKind::Schema, "{what}: {e}");
            let e = Schema::parse_many(&[r#""int""#, text]).expect_err(what);
            assert_eq!(e.kind(), ErrorKind::Schema, "{what}: {e}");
            // In a container header.
            let f = handmade(&[("avro.schema", text.as_bytes())], &[]);
            let e = first_error(Path::Stream, &f);
            assert_eq!(e.kind(), ErrorKind::Schema, "{what} in a header: {e}");
            assert!(e.message().contains("avro.schema"), "{what}: {e}");
        }
        // Built by hand, past serde_json's own recursion limit.
        for (what, json) in [
            ("arrays", deep_json(N, array_of)),
            ("records", deep_json(N, record_of)),
            (
                "unions",
                deep_json(N, |v| serde_json::Value::Array(vec![v])),
            ),
        ] {
            let e = Schema::parse_json(&json).expect_err(what);
            assert_eq!(e.kind(), ErrorKind::Schema, "{what}: {e}");
            assert!(e.message().contains("deeper"), "{what}: {e}");
            dismantle(json);
        }
        // A Value that deep as Avro JSON data.
        let s = Schema::parse_str(LIST).unwrap();
        let json = deep_json(N, |v| object(vec![("next", object(vec![("L", v)]))]));
        let e = avrokit::json::from_json_value(&json, &s).expect_err("too deep");
        assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
        dismantle(json);
    });
}

#[test]
fn schemas_at_the_depth_limit_work_on_a_small_stack() {
    // The deepest schemas the parser accepts must not overflow a 2 MiB stack in anything that
    // walks them: writing back, canonical form, fingerprints, plans, compatibility, and datums.
    on_small_stack(|| {
        for (what, json) in [
            ("arrays", deep_json(500, array_of)),
            ("records", deep_json(255, record_of)),
        ] {
            let s = match Schema::parse_json(&json) {
                Ok(s) => s,
                Err(e) => panic!("{what}: {e}"),
            };
            let _ = s.to_json();
            let _ = s.canonical_form();
            let _ = s.fingerprint_rabin();
            let plan = ResolvedPlan::compile(&s, &s).unwrap();
            assert!(avrokit::check_compatibility(&s, &s).is_compatible());
            let _ = avrokit::serde::SerPlan::compile(&s).unwrap();
            let de = DePlan::compile(&s).unwrap();
            // The deepest datum: one item at each level (records: a chain of fields).
            let mut v = Value::Int(5);
            let mut bytes = vec![0x0a];
            for _ in 0..if what == "arrays" { 500 } else { 255 } {
                if what == "arrays" {
                    v = Value::Array(vec![v]);
                    bytes = [&[0x02][..], &bytes, &[0x00]].concat();
                } else {
                    v = Value::Record(vec![v]);
                }
            }
            assert_eq!(avrokit::to_datum_vec(&v, &s).unwrap(), bytes, "{what}");
            assert_eq!(avrokit::from_datum_slice(&bytes, &s).unwrap(), v, "{what}");
            assert_eq!(
                from_datum_slice_resolved(&bytes, &plan).unwrap(),
                v,
                "{what}"
            );
            let _: serde_json::Value = avrokit::serde::from_datum_slice(&bytes, &de).unwrap();
            let text = avrokit::json::to_json_string(&v, &s, false).unwrap();
            assert_eq!(
                avrokit::json::from_json_str(&text, &s).unwrap(),
                v,
                "{what}"
            );
            dismantle(json);
        }
    });
}

// ------------------------------------------------------------------ error messages

#[test]
fn errors_say_what_and_where() {
    // One of each, with the exact wording a user sees.
    let file = small_file(Codec::Null);
    let (header, blocks) = blocks_of(&file);
    let cut = (blocks[1].data + 2) as usize;
    let e = first_error(Path::Slice, &file[..cut]);
    assert_eq!(
        e.to_string(),
        format!(
            "unexpected end of input: the file ends inside block 1 (which starts at byte {}): it claims {} bytes of data, {} are left (byte offset {cut})",
            blocks[1].start,
            blocks[1].size,
            2
        )
    );
    let e = first_error(Path::Slice, &file[..header as usize - 3]);
    assert!(
        e.to_string()
            .contains("the input ends inside the header, in the header's sync marker"),
        "{e}"
    );
    let f = file_of(
        r#"{"type":"record","name":"W","fields":[{"name":"u","type":["null","int"]}]}"#,
        &[(1, &[0x08])],
    );
    let e = first_error(Path::Slice, &f);
    let msg = e.to_string();
    assert!(msg.starts_with("invalid data: block 0 (at byte "), "{msg}");
    assert!(msg.contains("record 0: "), "{msg}");
    assert!(msg.contains(" at W.u"), "{msg}");
}

#[test]
fn a_block_byte_size_its_items_do_not_fill_is_an_error_on_every_reading_path() {
    let schema = r#"{"type":"record","name":"R","fields":[
        {"name":"tags","type":{"type":"array","items":"string"}},
        {"name":"n","type":"int"}]}"#;
    // An array block of -1 item with byte size 3 ("ab" takes 3 bytes), the end, n = 1.
    let good = file_of(schema, &[(1, &[0x01, 0x06, 0x04, b'a', b'b', 0x00, 0x02])]);
    for path in PATHS {
        let o = read(path, &good);
        assert!(o.err.is_none(), "{path:?}: {:?}", o.err);
        assert_eq!(o.count.max(o.values.len()), 1, "{path:?}");
    }
    // The same item under a byte size of 2: a reader skipping by the size lands inside "ab".
    let bad = file_of(schema, &[(1, &[0x01, 0x04, 0x04, b'a', b'b', 0x00, 0x02])]);
    for path in PATHS {
        let e = first_error(path, &bad);
        if path != Path::Skip {
            assert!(e.message().contains("block byte size 2"), "{path:?}: {e}");
        }
    }
}
