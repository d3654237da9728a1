//! Block-level and parallel container reads: `Reader::next_block` (records borrowed from the
//! block), `Reader::par_blocks` and the `par_*` record readers (blocks on worker threads,
//! results in file order), and the decompress-ahead thread. Each is checked against the plain
//! sequential reader (the same records, then the same error) on every codec, slice and stream
//! input, split reads, and corrupt files.

use std::io::Cursor;

use avrokit::codec::CodecPlan;
use avrokit::container::{Codec, Reader, ReaderBuilder, WriterBuilder};
use avrokit::serde::{DePlan, SerPlan};
use avrokit::{AvroSchema, Schema, Value};
use serde::{Deserialize, Serialize};

const CODECS: [Codec; 6] = [
    Codec::Null,
    Codec::DEFLATE,
    Codec::Snappy,
    Codec::ZSTANDARD,
    Codec::BZIP2,
    Codec::XZ,
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "t")]
struct Row {
    id: i64,
    name: String,
    tags: Vec<String>,
    score: Option<f64>,
}

/// The same record, borrowing its strings from the block.
#[derive(Debug, Default, PartialEq, Deserialize, AvroSchema)]
#[avro(namespace = "t", name = "Row")]
struct RowRef<'a> {
    id: i64,
    name: &'a str,
    tags: Vec<&'a str>,
    score: Option<f64>,
}

fn rows(n: usize) -> Vec<Row> {
    (0..n)
        .map(|i| Row {
            id: i as i64 * 7 - 100,
            name: "n".repeat(i % 13) + &i.to_string(),
            tags: (0..i % 4).map(|k| format!("t{k}")).collect(),
            score: (i % 3 != 0).then_some(i as f64 / 4.0),
        })
        .collect()
}

/// A file of `n` rows in blocks of `per_block` records.
fn file(codec: Codec, n: usize, per_block: usize) -> Vec<u8> {
    let schema = Row::schema();
    let ser = SerPlan::compile(&schema).unwrap();
    let mut w = WriterBuilder::new(&schema)
        .with_codec(codec)
        .with_block_records(per_block as u64)
        .build(Vec::new())
        .unwrap();
    for r in rows(n) {
        w.append_serde(&r, &ser).unwrap();
    }
    w.into_inner().unwrap()
}

/// What the plain sequential reader gives: its records, and the error that ended them.
fn sequential(data: &[u8], ahead: bool) -> (Vec<Value>, Option<String>) {
    let r = ReaderBuilder::new()
        .with_decompress_ahead(ahead)
        .build_slice(data);
    let mut r = match r {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e.to_string())),
    };
    let mut out = Vec::new();
    for v in &mut r {
        match v {
            Ok(v) => out.push(v),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
    (out, None)
}

fn collect<T>(it: impl Iterator<Item = avrokit::Result<T>>) -> (Vec<T>, Option<String>) {
    let mut out = Vec::new();
    for v in it {
        match v {
            Ok(v) => out.push(v),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
    (out, None)
}

/// Every batch of `batches` copied out, and the error that ended them.
macro_rules! drain_batches {
    ($batches:expr) => {{
        let mut batches = $batches;
        let mut out = Vec::new();
        let mut err = None;
        while let Some(b) = batches.next_batch() {
            match b {
                Ok(b) => out.extend_from_slice(b),
                Err(e) => {
                    err = Some(e.to_string());
                    break;
                }
            }
        }
        assert!(batches.next_batch().is_none(), "nothing after the end");
        (out, err)
    }};
}

#[test]
fn parallel_values_equal_the_sequential_reader_on_every_codec_and_thread_count() {
    for codec in CODECS {
        let data = file(codec, 3000, 97);
        let (expected, err) = sequential(&data, false);
        assert_eq!(err, None, "{codec:?}");
        assert_eq!(expected.len(), 3000);
        for threads in [1, 2, 3, 8, 0] {
            let mut r = Reader::from_slice(&data).unwrap();
            let got = collect(r.par_values(threads));
            assert_eq!(got, (expected.clone(), None), "{codec:?} x{threads}");
            // The reader is at the end afterwards.
            assert!(r.next().is_none());
        }
        // A stream input: the payloads are moved out of the reader's buffer, not copied.
        let mut r = ReaderBuilder::new()
            .with_buffer_capacity(1000)
            .build(Cursor::new(&data))
            .unwrap();
        assert_eq!(
            collect(r.par_values(2)),
            (expected.clone(), None),
            "{codec:?} stream"
        );
    }
}

#[test]
fn parallel_serde_and_codec_reads_give_the_rows_in_file_order() {
    let want = rows(2500);
    for codec in CODECS {
        let data = file(codec, 2500, 64);
        let mut r = Reader::from_slice(&data).unwrap();
        let plan = DePlan::compile(r.schema()).unwrap();
        assert_eq!(
            collect(r.par_serde_iter::<Row>(&plan, 3)),
            (want.clone(), None)
        );
        let mut r = Reader::from_slice(&data).unwrap();
        let got = collect(r.par_codec_iter::<Row>(2).unwrap());
        assert_eq!(got, (want.clone(), None), "{codec:?}");
    }
    // A plan for another schema is refused before any record.
    let data = file(Codec::Snappy, 10, 3);
    let other = Schema::parse_str(r#""long""#).unwrap();
    let mut r = Reader::from_slice(&data).unwrap();
    let (got, err) = collect(r.par_serde_iter::<i64>(&DePlan::compile(&other).unwrap(), 2));
    assert!(got.is_empty());
    assert!(err.unwrap().contains("not the file's schema"));
}

/// Batches decoded over the records of earlier blocks: blocks of different sizes (the last
/// one shorter), records whose strings, vectors and options change shape from one to the
/// next, and a stream input, on every codec and thread count.
#[test]
fn batches_decode_over_earlier_records_and_equal_the_sequential_reader() {
    let want = rows(2000);
    for codec in CODECS {
        let data = file(codec, 2000, 83);
        let (values, err) = sequential(&data, false);
        assert_eq!(err, None);
        for threads in [1, 2, 3, 0] {
            let mut r = Reader::from_slice(&data).unwrap();
            let got = drain_batches!(r.par_value_batches(threads));
            assert_eq!(got, (values.clone(), None), "{codec:?} x{threads}");
            assert!(r.next().is_none());
            let mut r = Reader::from_slice(&data).unwrap();
            let got = drain_batches!(r.par_codec_batches::<Row>(threads).unwrap());
            assert_eq!(got, (want.clone(), None), "{codec:?} x{threads} codec");
        }
        let mut r = ReaderBuilder::new()
            .with_buffer_capacity(1000)
            .build(Cursor::new(&data))
            .unwrap();
        let got = drain_batches!(r.par_codec_batches::<Row>(2).unwrap());
        assert_eq!(got, (want.clone(), None), "{codec:?} stream");
    }
    // Big blocks after small ones, and small after big: the vectors lent back have fewer
    // and more records than the next block.
    let schema = Row::schema();
    let ser = SerPlan::compile(&schema).unwrap();
    let mut w = WriterBuilder::new(&schema).build(Vec::new()).unwrap();
    let mut at = 0;
    for n in [1, 200, 3, 150, 0, 7, 300, 2] {
        for r in &want[at..at + n] {
            w.append_serde(r, &ser).unwrap();
        }
        w.flush().unwrap();
        at += n;
    }
    let data = w.into_inner().unwrap();
    for threads in [1, 2] {
        let mut r = Reader::from_slice(&data).unwrap();
        let got = drain_batches!(r.par_codec_batches::<Row>(threads).unwrap());
        assert_eq!(got, (want[..at].to_vec(), None), "x{threads}");
    }
}

#[test]
fn parallel_reads_resolve_through_the_reader_schema() {
    let reader = Schema::parse_str(
        r#"{"type":"record","name":"Row","namespace":"t","fields":[
            {"name":"name","type":"string"},
            {"name":"id","type":"double"},
            {"name":"extra","type":"int","default":5}]}"#,
    )
    .unwrap();
    let data = file(Codec::DEFLATE, 500, 50);
    let seq = ReaderBuilder::new()
        .with_reader_schema(&reader)
        .build_slice(&data)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(seq[3].clone(), {
        let r = &rows(4)[3];
        Value::Record(vec![
            Value::String(r.name.clone()),
            Value::Double(r.id as f64),
            Value::Int(5),
        ])
    });
    let mut r = ReaderBuilder::new()
        .with_reader_schema(&reader)
        .build_slice(&data)
        .unwrap();
    assert_eq!(collect(r.par_values(3)), (seq.clone(), None));
    let mut r = ReaderBuilder::new()
        .with_reader_schema(&reader)
        .build_slice(&data)
        .unwrap();
    assert_eq!(drain_batches!(r.par_value_batches(2)), (seq, None));
}

#[test]
fn blocks_lend_their_records_borrowed() {
    let want = rows(1000);
    for codec in CODECS {
        let data = file(codec, 1000, 77);
        for ahead in [false, true] {
            let mut r = ReaderBuilder::new()
                .with_decompress_ahead(ahead)
                .build_slice(&data)
                .unwrap();
            let plan = DePlan::compile(r.schema()).unwrap();
            // A plan for the type at 'static serves every block (plans are covariant).
            let codec_plan = CodecPlan::<RowRef<'static>>::reading(r.schema()).unwrap();
            assert!(codec_plan.is_exact());
            let mut seen = 0;
            let mut counts = Vec::new();
            while let Some(mut block) = r.next_block().unwrap() {
                counts.push(block.count());
                let base = seen;
                for (k, row) in block.serde_iter::<RowRef>(&plan).enumerate() {
                    let row = row.unwrap();
                    let w = &want[base + k];
                    assert_eq!((row.id, row.name, row.score), (w.id, &*w.name, w.score));
                    assert_eq!(row.tags, w.tags.iter().map(|s| &**s).collect::<Vec<_>>());
                    // The string lies inside the block's bytes: it was not copied.
                    let bytes = block.data().as_ptr_range();
                    assert!(row.name.is_empty() || bytes.contains(&row.name.as_ptr()));
                    seen += 1;
                }
                let by_codec = block
                    .codec_iter(&codec_plan)
                    .collect::<Result<Vec<_>, _>>()
                    .unwrap();
                assert_eq!(by_codec.len() as u64, block.count());
                assert_eq!(by_codec[0].name, want[base].name);
                let values = block.values().collect::<Result<Vec<_>, _>>().unwrap();
                assert_eq!(values.len() as u64, block.count());
            }
            assert_eq!(seen, 1000, "{codec:?} ahead={ahead}");
            assert_eq!(counts.iter().sum::<u64>(), 1000);
            assert_eq!(counts[0], 77);
        }
    }
}

/// `Block::codec_into` reads each record over the one before and gives exactly what
/// `codec_iter` gives: records whose vectors and options grow and shrink from one to the next,
/// strings borrowed from the block, on every codec, with and without decompressing ahead.
#[test]
fn a_block_read_over_one_record_gives_what_codec_iter_gives() {
    let want = rows(1000);
    for codec in CODECS {
        let data = file(codec, 1000, 77);
        for ahead in [false, true] {
            let what = format!("{codec:?} ahead={ahead}");
            let mut r = ReaderBuilder::new()
                .with_decompress_ahead(ahead)
                .build_slice(&data)
                .unwrap();
            let plan = CodecPlan::<RowRef<'static>>::reading(r.schema()).unwrap();
            let mut seen = 0;
            while let Some(block) = r.next_block().unwrap() {
                let fresh = block
                    .codec_iter(&plan)
                    .collect::<Result<Vec<_>, _>>()
                    .unwrap();
                let mut rows = block.codec_into(&plan);
                assert_eq!(rows.remaining(), block.count());
                let mut row = RowRef::default();
                let mut k = 0;
                while let Some(read) = rows.next_into(&mut row) {
                    read.unwrap();
                    assert_eq!(row, fresh[k], "{what}: record {}", seen + k);
                    assert_eq!(row.name, want[seen + k].name);
                    let bytes = block.data().as_ptr_range();
                    assert!(row.name.is_empty() || bytes.contains(&row.name.as_ptr()));
                    k += 1;
                    assert_eq!(rows.remaining(), block.count() - k as u64);
                }
                assert_eq!(k, fresh.len(), "{what}");
                // After the last record the value is left as it was.
                assert!(rows.next_into(&mut row).is_none());
                assert_eq!(Some(&row), fresh.last(), "{what}");
                seen += k;
            }
            assert_eq!(seen, 1000, "{what}");
        }
    }
}

/// The same reading through a plan that resolves the file's schema (fields reordered and
/// dropped, a long promoted to a double); a plan for another file's schema is refused at the
/// first record.
#[test]
fn a_block_read_over_one_record_resolves_through_its_plan() {
    #[derive(Debug, Default, PartialEq, Deserialize, AvroSchema)]
    #[avro(namespace = "t", name = "Row")]
    struct Part<'a> {
        name: &'a str,
        id: f64,
    }
    let want = rows(300);
    let data = file(Codec::DEFLATE, 300, 40);
    let mut r = Reader::from_slice(&data).unwrap();
    let plan = CodecPlan::<Part<'static>>::reading(r.schema()).unwrap();
    assert!(!plan.is_exact());
    let mut got = Vec::new();
    while let Some(block) = r.next_block().unwrap() {
        let mut rows = block.codec_into(&plan);
        let mut part = Part::default();
        while let Some(read) = rows.next_into(&mut part) {
            read.unwrap();
            got.push((part.name.to_owned(), part.id));
        }
    }
    let expected: Vec<_> = want.iter().map(|w| (w.name.clone(), w.id as f64)).collect();
    assert_eq!(got, expected);

    let other = Schema::parse_str(
        r#"{"type":"record","name":"Row","namespace":"t","fields":[
            {"name":"id","type":"long"},{"name":"name","type":"string"},
            {"name":"tags","type":{"type":"array","items":"string"}},
            {"name":"score","type":["null","double"]},{"name":"x","type":"int"}]}"#,
    )
    .unwrap();
    let plan = CodecPlan::<RowRef<'static>>::reading(&other).unwrap();
    let mut r = Reader::from_slice(&data).unwrap();
    let block = r.next_block().unwrap().unwrap();
    let mut rows = block.codec_into(&plan);
    let mut row = RowRef::default();
    let err = rows.next_into(&mut row).unwrap().unwrap_err();
    assert!(err.to_string().contains("not the file's schema"), "{err}");
    assert!(rows.next_into(&mut row).is_none());
}

/// Every parallel reader begun part way through the file starts with the records of the
/// current block not read yet: on every codec, slice and stream input and thread count, at
/// the first record, inside a block, at a block's end and at the file's end.
#[test]
fn parallel_reads_begun_inside_a_block_start_with_its_records_not_read_yet() {
    let want = rows(700);
    for codec in CODECS {
        let data = file(codec, 700, 83);
        let (values, err) = sequential(&data, false);
        assert_eq!(err, None);
        for threads in [1, 2, 3] {
            for k in [0, 1, 40, 83, 84, 699, 700] {
                let what = format!("{codec:?} x{threads} after {k}");
                let slice = || skipped(Reader::from_slice(&data).unwrap(), k);
                rest_reads(slice, threads, &want[k..], &values[k..], &what);
                let stream = || {
                    let r = ReaderBuilder::new()
                        .with_buffer_capacity(1000)
                        .build(Cursor::new(&data))
                        .unwrap();
                    skipped(r, k)
                };
                rest_reads(
                    stream,
                    threads,
                    &want[k..],
                    &values[k..],
                    &format!("{what} stream"),
                );
            }
        }
    }
}

/// `r` after its first `k` records.
fn skipped<R: std::io::Read>(mut r: Reader<'_, R>, k: usize) -> Reader<'_, R> {
    for _ in 0..k {
        r.next().unwrap().unwrap();
    }
    r
}

/// Every parallel reader over a reader from `open` gives `want` (as rows) and `values`.
fn rest_reads<'a, R: std::io::Read>(
    open: impl Fn() -> Reader<'a, R>,
    threads: usize,
    want: &[Row],
    values: &[Value],
    what: &str,
) {
    let mut r = open();
    assert_eq!(
        collect(r.par_values(threads)),
        (values.to_vec(), None),
        "{what}"
    );
    let mut r = open();
    let plan = DePlan::compile(r.schema()).unwrap();
    let got = collect(r.par_serde_iter::<Row>(&plan, threads));
    assert_eq!(got, (want.to_vec(), None), "{what} serde");
    let mut r = open();
    let got = collect(r.par_codec_iter::<Row>(threads).unwrap());
    assert_eq!(got, (want.to_vec(), None), "{what} codec");
    let mut r = open();
    let got = drain_batches!(r.par_value_batches(threads));
    assert_eq!(got, (values.to_vec(), None), "{what} value batches");
    let mut r = open();
    let got = drain_batches!(r.par_codec_batches::<Row>(threads).unwrap());
    assert_eq!(got, (want.to_vec(), None), "{what} codec batches");
    // A block function sees the rest of the block as a block of its own: its count and
    // data are those of the records not read yet.
    let mut r = open();
    let plan = DePlan::compile(r.schema()).unwrap();
    let blocks = r
        .par_blocks(threads, move |block| {
            let ids = block
                .serde_iter::<RowRef>(&plan)
                .map(|row| row.map(|r| r.id))
                .collect::<avrokit::Result<Vec<_>>>()?;
            let mut dec = avrokit::Decoder::from_slice(block.data());
            let first = (!dec.is_empty()?).then(|| dec.read_long()).transpose()?;
            Ok((block.count(), ids, first))
        })
        .collect::<avrokit::Result<Vec<_>>>()
        .unwrap();
    let ids: Vec<i64> = blocks.iter().flat_map(|b| b.1.clone()).collect();
    let want_ids: Vec<i64> = want.iter().map(|r| r.id).collect();
    assert_eq!(ids, want_ids, "{what} blocks");
    for (count, ids, first) in &blocks {
        assert_eq!(*count as usize, ids.len(), "{what}");
        assert_eq!(
            *first,
            ids.first().copied(),
            "{what}: data() starts at the first record"
        );
    }
    if let Some((_, ids, _)) = blocks.first() {
        assert_eq!(
            ids.len(),
            (83 - (700 - want.len()) % 83).min(want.len()),
            "{what}"
        );
    }
}

/// A parallel reader begun inside a block whose later record is corrupt gives the sequential
/// reader's records and error, with the same block, record and file offset.
#[test]
fn a_corrupt_record_after_the_start_of_a_parallel_read_is_named_as_the_sequential_reader_names_it()
{
    let data = corrupted(Codec::Null, |d, h| {
        let mid = (h.data_offset + h.size / 2) as usize;
        for b in &mut d[mid..mid + 4] {
            *b ^= 0x5a;
        }
    });
    let (all, err) = sequential(&data, false);
    assert!(err.is_some(), "the corruption is caught");
    let k = 17 * 50 + 5;
    assert!(all.len() > k, "the corrupt record comes after record {k}");
    let open = || {
        let mut r = Reader::from_slice(&data).unwrap();
        for _ in 0..k {
            r.next().unwrap().unwrap();
        }
        r
    };
    for threads in [1, 2, 3] {
        let got = collect(open().par_values(threads));
        assert_eq!(got, (all[k..].to_vec(), err.clone()), "x{threads}");
        // A batch that fails gives none of its records: here, the rest of the block.
        let mut r = open();
        let got = drain_batches!(r.par_value_batches(threads));
        assert_eq!(got, (Vec::new(), err.clone()), "x{threads} batches");
    }
}

#[test]
fn par_blocks_runs_a_function_per_block_in_file_order() {
    let data = file(Codec::ZSTANDARD, 2000, 33);
    let mut r = Reader::from_slice(&data).unwrap();
    let plan = DePlan::compile(r.schema()).unwrap();
    let firsts = r
        .par_blocks(3, move |block| {
            let ids = block
                .serde_iter::<RowRef>(&plan)
                .map(|row| row.map(|r| r.id))
                .collect::<avrokit::Result<Vec<_>>>()?;
            Ok((block.header().index, ids[0], ids.len()))
        })
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let want = rows(2000);
    assert_eq!(firsts.len(), 2000usize.div_ceil(33));
    for (k, (index, first, n)) in firsts.iter().enumerate() {
        assert_eq!(*index, k as u64);
        assert_eq!(*first, want[k * 33].id);
        assert_eq!(*n, 33.min(2000 - k * 33));
    }
    // A worker's block has no datum reader: `values` says so instead of reading.
    let mut r = Reader::from_slice(&data).unwrap();
    let errs = r
        .par_blocks(2, |mut block| Ok(block.values().next().unwrap().is_err()))
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert!(errs.iter().all(|e| *e));
}

#[test]
fn a_panic_in_the_block_function_comes_out_on_the_callers_thread_in_its_turn() {
    // Whichever thread decodes block 5 (the caller's, or a worker's), its panic is the
    // caller's once blocks 0..5 are given out, and not a hang or an error.
    for threads in [1, 2, 3] {
        let data = file(Codec::Null, 1000, 20);
        let mut r = Reader::from_slice(&data).unwrap();
        let mut got = Vec::new();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for index in r.par_blocks(threads, |block| {
                let index = block.header().index;
                assert!(index != 5, "block 5");
                Ok(index)
            }) {
                got.push(index.unwrap());
            }
        }));
        let panic = run.expect_err("the panic comes out");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"block 5"), "x{threads}");
        assert_eq!(got, [0, 1, 2, 3, 4], "x{threads}");
    }
}

#[test]
fn records_stop_early_and_the_reader_goes_on_after_the_blocks_handed_out() {
    // Dropping a parallel iterator part way drops what is in flight; nothing hangs, and
    // every thread count gives the same first records.
    let data = file(Codec::Snappy, 3000, 25);
    let (all, _) = sequential(&data, false);
    for threads in [1, 2, 4] {
        let mut r = Reader::from_slice(&data).unwrap();
        let first: Vec<Value> = r
            .par_values(threads)
            .take(110)
            .map(Result::unwrap)
            .collect();
        assert_eq!(first, all[..110], "x{threads}");
    }
}

/// A file whose blocks `k` are altered by `corrupt` (given the whole file and the block's
/// header), and what the sequential reader makes of it.
fn corrupted(
    codec: Codec,
    corrupt: impl Fn(&mut Vec<u8>, &avrokit::container::BlockHeader),
) -> Vec<u8> {
    let mut data = file(codec, 1500, 50);
    let mut r = Reader::from_slice(&data).unwrap();
    let mut headers = Vec::new();
    while let Some(b) = r.next_raw_block().unwrap() {
        headers.push(*b.header());
    }
    drop(r);
    corrupt(&mut data, &headers[17]);
    data
}

#[test]
fn corrupt_blocks_give_the_same_records_then_the_same_error_on_every_path() {
    type Corruption = (
        &'static str,
        fn(&mut Vec<u8>, &avrokit::container::BlockHeader),
    );
    let cases: [Corruption; 4] = [
        ("payload", |d, h| {
            let mid = (h.data_offset + h.size / 2) as usize;
            for b in &mut d[mid..mid + 4] {
                *b ^= 0x5a;
            }
        }),
        ("sync marker", |d, h| {
            let end = (h.data_offset + h.size) as usize;
            d[end + 3] ^= 1;
        }),
        ("count", |d, h| {
            // 50 records (zigzag 100) become 63 (zigzag 126): one byte either way.
            assert_eq!(d[h.offset as usize], 100);
            d[h.offset as usize] = 126;
        }),
        ("truncated", |d, h| {
            d.truncate((h.data_offset + h.size / 2) as usize)
        }),
    ];
    for codec in CODECS {
        for (what, corrupt) in cases {
            let data = corrupted(codec, corrupt);
            let (want, err) = sequential(&data, false);
            // Altered compressed bytes may still decompress (zstandard keeps no checksum
            // here) and decode; every other corruption must be caught.
            assert!(
                err.is_some() || what == "payload",
                "{codec:?} {what}: no error"
            );
            assert!(
                want.len() <= 17 * 50 + 50 || err.is_none(),
                "{codec:?} {what}"
            );
            assert_eq!(
                sequential(&data, true),
                (want.clone(), err.clone()),
                "{codec:?} {what} ahead"
            );
            for threads in [1, 2, 3] {
                let mut r = Reader::from_slice(&data).unwrap();
                assert_eq!(
                    collect(r.par_values(threads)),
                    (want.clone(), err.clone()),
                    "{codec:?} {what} x{threads}"
                );
                assert!(r.next().is_none(), "{codec:?} {what}: the reader ends too");
                // Batches are whole blocks: the records of block 17, the one that fails (in
                // its data, count or sync marker), are not given.
                let mut r = Reader::from_slice(&data).unwrap();
                let (got, got_err) = drain_batches!(r.par_value_batches(threads));
                assert_eq!(got_err, err, "{codec:?} {what} x{threads} batches");
                let whole = if err.is_some() { 17 * 50 } else { want.len() };
                assert!(
                    got.len() == whole && want.starts_with(&got),
                    "{codec:?} {what} x{threads}: {} batched records of {}",
                    got.len(),
                    want.len()
                );
            }
            let mut r = Reader::from_slice(&data).unwrap();
            let mut blocks = Vec::new();
            let block_err = loop {
                match r.next_block() {
                    Ok(Some(mut b)) => match b.values().collect::<Result<Vec<_>, _>>() {
                        Ok(v) => blocks.extend(v),
                        Err(e) => break Some(e.to_string()),
                    },
                    Ok(None) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            assert_eq!(block_err, err, "{codec:?} {what} blocks");
            assert!(blocks.len() <= want.len() && want.starts_with(&blocks));
            // Read over one record, a block gives the records and the error that `codec_iter`
            // gives.
            let mut r = Reader::from_slice(&data).unwrap();
            let plan = CodecPlan::<RowRef<'static>>::reading(r.schema()).unwrap();
            let mut fresh = 0;
            let into_err = loop {
                match r.next_block() {
                    Ok(Some(b)) => {
                        let (rows, e) = collect(b.codec_iter(&plan));
                        fresh += rows.len();
                        let mut it = b.codec_into(&plan);
                        let mut row = RowRef::default();
                        let (mut k, mut e_into) = (0, None);
                        while let Some(read) = it.next_into(&mut row) {
                            match read {
                                Ok(()) => {
                                    assert_eq!(row, rows[k], "{codec:?} {what}");
                                    k += 1;
                                }
                                Err(e) => e_into = Some(e.to_string()),
                            }
                        }
                        assert_eq!(e_into, e, "{codec:?} {what}: codec_into");
                        assert_eq!(k, rows.len(), "{codec:?} {what}");
                        if e.is_some() {
                            break e;
                        }
                    }
                    Ok(None) => break None,
                    Err(e) => break Some(e.to_string()),
                }
            };
            // The generated code and the `Value` reader may word a bad datum differently.
            assert_eq!(
                into_err.is_some(),
                err.is_some(),
                "{codec:?} {what} codec_into"
            );
            assert!(fresh <= want.len(), "{codec:?} {what}");
        }
    }
}

#[test]
fn read_ahead_keeps_raw_blocks_and_splits_exact() {
    for codec in [Codec::DEFLATE, Codec::Snappy] {
        let data = file(codec, 2000, 40);
        // Records of one block, then raw blocks: the block read ahead comes next, once.
        let mut r = Reader::from_slice(&data).unwrap();
        assert!(r.next().is_some());
        let mut counts = vec![];
        while let Some(b) = r.next_raw_block().unwrap() {
            counts.push(b.count());
        }
        assert_eq!(counts.len(), 2000 / 40 - 1);
        assert!(counts.iter().all(|c| *c == 40));

        // Splits: every record once, with the reader reading ahead.
        let len = data.len() as u64;
        let cuts = [0, len / 5, len / 3, len / 2 + 7, len - 100, len];
        let mut total = Vec::new();
        for w in cuts.windows(2) {
            let mut r = Reader::from_slice(&data).unwrap();
            r.seek_split(w[0], w[1]).unwrap();
            total.extend(r.par_values(2).map(Result::unwrap));
        }
        assert_eq!(total, sequential(&data, false).0);
        // A reader moved by seek_split after reading ahead forgets what it read.
        let mut r = Reader::from_slice(&data).unwrap();
        assert!(r.next().is_some());
        r.seek_split(len / 2, len).unwrap();
        let tail = r.map(Result::unwrap).collect::<Vec<_>>();
        let all = sequential(&data, false).0;
        assert!(!tail.is_empty() && all.ends_with(&tail));
    }
}

/// Past the first MiB the next block decompresses on the helper thread: a large file reads the
/// same with and without it, through every API, also when a late block is corrupt.
#[test]
fn a_large_file_reads_the_same_with_the_decompress_thread() {
    for codec in [Codec::DEFLATE, Codec::Snappy, Codec::ZSTANDARD, Codec::XZ] {
        let mut data = file(codec, 60_000, 500);
        let plain = sequential(&data, false);
        assert_eq!(plain.0.len(), 60_000);
        assert_eq!(sequential(&data, true), plain, "{codec:?}");
        let mut r = Reader::from_slice(&data).unwrap();
        let mut n = 0;
        while let Some(block) = r.next_block().unwrap() {
            n += block.records_with(|d| d.read_long()).count();
        }
        assert_eq!(n, 60_000);
        // Raw blocks after some records: the rest of the current block is skipped, and the
        // block read ahead is handed out next.
        // Past 50 000 records the helper holds several blocks.
        let mut r = Reader::from_slice(&data).unwrap();
        for _ in 0..50_001 {
            r.next().unwrap().unwrap();
        }
        let mut left = 0;
        while let Some(b) = r.next_raw_block().unwrap() {
            left += b.count();
        }
        assert_eq!(left, 9_500, "{codec:?}");
        // Records, then the rest on several threads: the rest of the current block, then the
        // blocks the helper holds, none lost.
        for threads in [1, 2, 3] {
            let mut r = Reader::from_slice(&data).unwrap();
            for _ in 0..50_001 {
                r.next().unwrap().unwrap();
            }
            let rest = r
                .par_values(threads)
                .map(Result::unwrap)
                .collect::<Vec<_>>();
            assert_eq!(rest.len(), 9_999, "{codec:?} x{threads}");
            assert!(rest[..] == plain.0[50_001..], "{codec:?} x{threads}");
            let mut r = Reader::from_slice(&data).unwrap();
            for _ in 0..50_001 {
                r.next().unwrap().unwrap();
            }
            let (rest, err) = drain_batches!(r.par_value_batches(threads));
            assert_eq!(err, None);
            assert!(
                rest[..] == plain.0[50_001..],
                "{codec:?} x{threads} batches"
            );
        }
        // A reader moved by seek_split while the helper holds blocks forgets them all: the
        // split's records are the file's, from its first block on.
        let mut r = Reader::from_slice(&data).unwrap();
        for _ in 0..50_001 {
            r.next().unwrap().unwrap();
        }
        let len = data.len() as u64;
        r.seek_split(len / 4, len).unwrap();
        let tail = r.map(Result::unwrap).collect::<Vec<_>>();
        assert!(tail.len() > 40_000 && plain.0.ends_with(&tail), "{codec:?}");
        // A corrupt sync marker near the end.
        let mut r = Reader::from_slice(&data).unwrap();
        let mut last = None;
        while let Some(b) = r.next_raw_block().unwrap() {
            last = Some(*b.header());
        }
        let h = last.unwrap();
        data[(h.offset - 5) as usize] ^= 0x40;
        let bad = sequential(&data, false);
        assert!(bad.1.is_some() && bad.0.len() >= 59_000, "{codec:?}");
        assert_eq!(sequential(&data, true), bad, "{codec:?} corrupt");
    }
}
