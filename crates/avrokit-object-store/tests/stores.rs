//! Reading and writing through object_store's in-memory and local-file stores: the same
//! records as the local file, splits that give every record once, multipart writes, aborts,
//! truncated and changed objects, RecordBatches.

mod common;

use std::sync::Arc;

use avrokit::container::{Codec, Reader, ReaderBuilder, WriterBuilder};
use avrokit::serde::DePlan;
use avrokit::{ErrorKind as AvroKind, Value};
use avrokit_object_store::blocking::{BlockingReader, BlockingUpload};
use avrokit_object_store::{
    store_from_url, ErrorKind, ObjectReaderBuilder, ObjectWriter, UploadOptions,
};
use common::*;
use futures::{StreamExt, TryStreamExt};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

fn memory() -> Arc<dyn ObjectStore> {
    Arc::new(InMemory::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_codec_reads_whole_and_in_splits_as_the_local_file() {
    let store = memory();
    for codec in codecs() {
        let bytes = file(codec, 3000, 4096);
        let expected = local_records(&bytes);
        let key = format!("{}.avro", codec.name());
        put(&store, &key, bytes).await;
        let f = small_gets()
            .open(store.clone(), &Path::from(key))
            .await
            .unwrap();
        assert_eq!(f.codec().name(), codec.name());
        assert_eq!(remote_records(&f).await, expected, "{}", codec.name());
        for n in [1, 2, 3, 7] {
            assert_eq!(
                split_records(&f, n).await,
                expected,
                "{} in {n} splits",
                codec.name()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn splits_give_every_record_exactly_once_whatever_their_number() {
    let store = memory();
    let bytes = file(Codec::Null, 2000, 1024);
    let expected = local_records(&bytes);
    let blocks = {
        let mut r = Reader::from_slice(&bytes).unwrap();
        let mut n = 0;
        while r.next_raw_block().unwrap().is_some() {
            n += 1;
        }
        n
    };
    put(&store, "a.avro", bytes).await;
    let f = small_gets()
        .open(store, &Path::from("a.avro"))
        .await
        .unwrap();
    // Fewer splits than blocks, about as many, and far more (most then hold no block).
    for n in [
        1,
        4,
        blocks - 1,
        blocks,
        blocks + 1,
        3 * blocks,
        f.len() as usize / 50,
    ] {
        let mut ids: Vec<i64> = Vec::new();
        for range in f.splits(n) {
            let r = f.split_reader(range).await.unwrap();
            for v in collect_ok(r.into_stream()).await {
                let Value::Record(fields) = v else { panic!() };
                let Value::Long(id) = fields[0] else { panic!() };
                ids.push(id);
            }
        }
        assert_eq!(ids.len(), expected.len(), "{n} splits");
        assert!(
            ids.iter().enumerate().all(|(i, &id)| id == i as i64),
            "{n} splits: order"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn splits_read_concurrently_by_workers() {
    let store = memory();
    let bytes = file(Codec::Snappy, 5000, 2048);
    let expected = local_records(&bytes);
    put(&store, "w.avro", bytes).await;
    let f = small_gets()
        .open(store, &Path::from("w.avro"))
        .await
        .unwrap();
    let workers: Vec<_> = f
        .splits(5)
        .into_iter()
        .map(|range| {
            let f = f.clone();
            tokio::spawn(async move {
                collect_ok(f.split_reader(range).await.unwrap().into_stream()).await
            })
        })
        .collect();
    let mut all = Vec::new();
    for w in workers {
        all.extend(w.await.unwrap());
    }
    assert_eq!(all, expected);
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Event {
    id: i64,
    name: String,
    score: Option<f64>,
    tags: Vec<String>,
    #[serde(with = "serde_bytes_compat")]
    payload: Vec<u8>,
}

mod serde_bytes_compat {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        d.deserialize_byte_buf(V)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serde_types_stream_from_a_split() {
    let store = memory();
    put(
        &store,
        "s.avro",
        file(Codec::Deflate { level: 6 }, 500, 1024),
    )
    .await;
    let f = small_gets()
        .open(store, &Path::from("s.avro"))
        .await
        .unwrap();
    let plan = DePlan::compile(f.schema()).unwrap();
    let mut ids = Vec::new();
    for range in f.splits(3) {
        let events: Vec<Event> = f
            .split_reader(range)
            .await
            .unwrap()
            .into_serde_stream(&plan)
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        ids.extend(events.iter().map(|e| e.id));
        if let Some(e) = events.iter().find(|e| e.id == 4) {
            assert_eq!(e.name, "event-4-xxxx");
            assert_eq!(e.score, Some(4.0 / 7.0));
            assert_eq!(e.payload, [0, 1, 2, 3]);
        }
    }
    assert_eq!(ids, (0..500).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_file_store_reads_as_the_file() {
    let dir = std::env::temp_dir().join(format!("avrokit-os-local-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = file(Codec::Zstandard { level: 3 }, 2000, 4096);
    let expected = local_records(&bytes);
    std::fs::write(dir.join("f.avro"), &bytes).unwrap();
    let store: Arc<dyn ObjectStore> = Arc::new(LocalFileSystem::new_with_prefix(&dir).unwrap());
    let f = small_gets()
        .open(store.clone(), &Path::from("f.avro"))
        .await
        .unwrap();
    assert_eq!(remote_records(&f).await, expected);
    assert_eq!(split_records(&f, 4).await, expected);

    // Writing through the local store's multipart upload, read back by the blocking reader.
    let schema = schema();
    let mut w = ObjectWriter::create(
        store.clone(),
        &Path::from("out/g.avro"),
        WriterBuilder::new(&schema).with_codec(Codec::Snappy),
        UploadOptions::new().with_part_size(16 * 1024),
    )
    .await
    .unwrap();
    for v in &expected {
        w.append(v).await.unwrap();
    }
    w.finish().await.unwrap();
    let back = std::fs::read(dir.join("out/g.avro")).unwrap();
    assert_eq!(local_records(&back), expected);

    // A `file://` URL opens the same store.
    let url = format!("file://{}", dir.join("f.avro").display());
    let (s, p) = store_from_url(&url).unwrap();
    let f = ObjectReaderBuilder::new().open(s, &p).await.unwrap();
    assert_eq!(remote_records(&f).await, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multipart_writes_of_many_parts_read_back() {
    let store = memory();
    let schema = schema();
    for codec in codecs() {
        let path = Path::from(format!("mp-{}.avro", codec.name()));
        let mut w = ObjectWriter::create(
            store.clone(),
            &path,
            WriterBuilder::new(&schema)
                .with_codec(codec)
                .with_block_size(8192),
            UploadOptions::new()
                .with_part_size(32 * 1024)
                .with_max_concurrency(2),
        )
        .await
        .unwrap();
        for i in 0..4000 {
            w.append(&record(i)).await.unwrap();
        }
        // Not visible before `finish`.
        assert!(store.head(&path).await.is_err());
        let written = w.bytes_written();
        w.finish().await.unwrap();
        let bytes = store.get(&path).await.unwrap().bytes().await.unwrap();
        assert!(
            bytes.len() as u64 > written.min(64 * 1024),
            "{}",
            codec.name()
        );
        let got = local_records(&bytes);
        assert_eq!(got.len(), 4000);
        assert_eq!(got[3999], record(3999));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aborted_or_dropped_writer_leaves_no_object() {
    let store = memory();
    let schema = schema();
    let path = Path::from("gone.avro");
    let mut w = ObjectWriter::create(
        store.clone(),
        &path,
        WriterBuilder::new(&schema),
        UploadOptions::new().with_part_size(4096),
    )
    .await
    .unwrap();
    for i in 0..1000 {
        w.append(&record(i)).await.unwrap();
    }
    // A value of the wrong shape is refused without harm to the upload.
    let e = w.append(&Value::Long(1)).await.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Avro);
    w.abort().await.unwrap();
    assert!(store
        .head(&path)
        .await
        .unwrap_err()
        .to_string()
        .contains("not found"));

    let mut w = ObjectWriter::create(
        store.clone(),
        &path,
        WriterBuilder::new(&schema),
        UploadOptions::new(),
    )
    .await
    .unwrap();
    w.append(&record(0)).await.unwrap();
    drop(w);
    assert!(store.head(&path).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_object_gives_its_whole_blocks_then_an_eof_error() {
    let store = memory();
    let bytes = file(Codec::Null, 2000, 2048);
    let expected = local_records(&bytes);
    let header_len = Reader::from_slice(&bytes).unwrap().header().len() as usize;
    for cut in [header_len + 1, bytes.len() / 2, bytes.len() - 1] {
        put(&store, "t.avro", bytes[..cut].to_vec()).await;
        let f = small_gets()
            .open(store.clone(), &Path::from("t.avro"))
            .await
            .unwrap();
        let (got, err) = until_error(f.reader().await.unwrap().into_stream()).await;
        let err = err.expect("a truncated file must end in an error");
        assert_eq!(err.kind(), AvroKind::Eof, "{err}");
        assert!(err.offset().is_some_and(|o| o <= cut as u64), "{err}");
        assert!(got.len() < expected.len());
        assert_eq!(got[..], expected[..got.len()]);
        // Splits of it: the same records, and the error in the split holding the cut.
        let (mut n, mut errors) = (0, 0);
        for range in f.splits(3) {
            let (got, err) = until_error(f.split_reader(range).await.unwrap().into_stream()).await;
            n += got.len();
            errors += usize::from(err.is_some());
        }
        assert_eq!(n, got.len());
        assert_eq!(errors, 1);
    }
    // Cut inside the header: opening fails, saying so.
    put(&store, "t.avro", bytes[..header_len - 3].to_vec()).await;
    let e = small_gets()
        .open(store.clone(), &Path::from("t.avro"))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Avro);
    assert_eq!(e.avro_error().unwrap().kind(), AvroKind::Eof, "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_that_is_not_avro_or_missing_is_a_clear_error() {
    let store = memory();
    put(&store, "junk", b"this is not an avro file at all".to_vec()).await;
    let e = small_gets()
        .open(store.clone(), &Path::from("junk"))
        .await
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Avro, "{e}");
    assert!(e.avro_error().is_some());
    let e = small_gets()
        .open(store, &Path::from("nope.avro"))
        .await
        .unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert!(e.to_string().contains("nope.avro"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_rewritten_while_read_is_an_error_not_a_splice() {
    let store = memory();
    let bytes = file(Codec::Null, 3000, 2048);
    put(&store, "c.avro", bytes.clone()).await;
    let f = small_gets()
        .open(store.clone(), &Path::from("c.avro"))
        .await
        .unwrap();
    put(&store, "c.avro", file(Codec::Null, 3000, 1024)).await;
    let (got, err) = until_error(f.reader().await.unwrap().into_stream()).await;
    let err = err.expect("reading a rewritten object must fail");
    assert!(got.len() < 3000);
    assert!(err.to_string().contains("c.avro"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_schema_applies_to_every_split() {
    let store = memory();
    put(&store, "r.avro", file(Codec::Null, 300, 1024)).await;
    let reader = avrokit::Schema::parse_str(
        r#"{"type":"record","name":"Event","fields":[{"name":"id","type":"long"},
            {"name":"extra","type":"int","default":7}]}"#,
    )
    .unwrap();
    let f = small_gets()
        .with_reader_schema(&reader)
        .open(store, &Path::from("r.avro"))
        .await
        .unwrap();
    let got = split_records(&f, 2).await;
    assert_eq!(got.len(), 300);
    assert_eq!(got[5], Value::Record(vec![Value::Long(5), Value::Int(7)]));
}

#[test]
fn the_blocking_adapters_serve_the_core_reader_and_writer() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let store = memory();
    let bytes = file(Codec::Bzip2 { level: 9 }, 1500, 2048);
    let expected = local_records(&bytes);
    rt.block_on(put(&store, "b.avro", bytes.clone()));
    let opts = small_gets();
    // Whole reads (the Python package's reader): the core's sequential reader over them, then
    // a seek back, which must drop the streamed GET and read the same bytes again.
    let mut input = BlockingReader::open(
        store.clone(),
        &Path::from("b.avro"),
        &opts,
        rt.handle().clone(),
    )
    .unwrap()
    .with_whole_reads();
    let whole: Vec<Value> = ReaderBuilder::new()
        .build(&mut input)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(whole, expected);
    std::io::Seek::seek(&mut input, std::io::SeekFrom::Start(0)).unwrap();
    let mut again = Vec::new();
    std::io::Read::read_to_end(&mut input, &mut again).unwrap();
    assert_eq!(again, bytes);
    // `Read + Seek`: the core's seekable reader and its split reading, unchanged.
    let mut all = Vec::new();
    for range in avrokit_object_store::split_ranges(
        BlockingReader::open(
            store.clone(),
            &Path::from("b.avro"),
            &opts,
            rt.handle().clone(),
        )
        .unwrap()
        .len(),
        4,
    ) {
        let input = BlockingReader::open(
            store.clone(),
            &Path::from("b.avro"),
            &opts,
            rt.handle().clone(),
        )
        .unwrap();
        let mut r = ReaderBuilder::new().build_seekable(input).unwrap();
        r.seek_split(range.start, range.end).unwrap();
        all.extend(r.map(Result::unwrap));
    }
    assert_eq!(all, expected);

    // `Write`: a blocking upload, visible at commit only.
    let path = Path::from("b2.avro");
    let up = BlockingUpload::create(
        store.clone(),
        &path,
        UploadOptions::new().with_part_size(10_000),
        rt.handle().clone(),
    )
    .unwrap();
    let mut w = WriterBuilder::new(&schema()).build(up).unwrap();
    for v in &expected {
        w.append(v).unwrap();
    }
    let up = w.into_inner().unwrap();
    assert!(rt.block_on(store.head(&path)).is_err());
    up.commit().unwrap();
    let back = rt.block_on(async { store.get(&path).await.unwrap().bytes().await.unwrap() });
    assert_eq!(local_records(&back), expected);

    // Dropped uncommitted: aborted.
    let path = Path::from("b3.avro");
    let mut up = BlockingUpload::create(
        store.clone(),
        &path,
        UploadOptions::new(),
        rt.handle().clone(),
    )
    .unwrap();
    std::io::Write::write_all(&mut up, &[1, 2, 3]).unwrap();
    drop(up);
    assert!(rt.block_on(store.head(&path)).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_batches_from_a_whole_file_and_from_splits() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    let store = memory();
    let bytes = file(Codec::Xz { level: 1 }, 4000, 4096);
    put(&store, "x.avro", bytes.clone()).await;
    let f = small_gets()
        .open(store, &Path::from("x.avro"))
        .await
        .unwrap();
    let local: Vec<_> = avrokit_arrow::ReaderBuilder::new()
        .with_batch_size(1000)
        .build_slice(&bytes)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let remote: Vec<_> = f
        .batches(
            avrokit_arrow::ReaderBuilder::new().with_batch_size(1000),
            None,
        )
        .try_collect()
        .await
        .unwrap();
    assert_eq!(remote, local);

    let mut ids = Vec::new();
    for range in f.splits(4) {
        let builder = avrokit_arrow::ReaderBuilder::new()
            .with_projection(["id"])
            .with_threads(2);
        let mut s = std::pin::pin!(f.batches(builder, Some(range)));
        while let Some(b) = s.next().await {
            let b = b.unwrap();
            assert_eq!(b.num_columns(), 1);
            ids.extend(
                b.column(0)
                    .as_primitive::<Int64Type>()
                    .values()
                    .iter()
                    .copied(),
            );
        }
    }
    assert_eq!(ids, (0..4000).collect::<Vec<i64>>());
}
