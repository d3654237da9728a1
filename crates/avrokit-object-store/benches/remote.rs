//! Reading a 256 MiB container file from a local S3 server (moto's) against reading it from
//! disk, and the async stream against the blocking reader on the same bytes: medians of
//! several runs, and their ratios.
//!
//! `cargo bench -p avrokit-object-store --bench remote` (`AVROKIT_BENCH_MIB` changes the size,
//! `AVROKIT_BENCH_RUNS` the number of runs). Needs `python3 -m pip install 'moto[server]'`.

#[path = "../tests/common/moto.rs"]
mod moto;

use std::sync::Arc;
use std::time::{Duration, Instant};

use avrokit::container::{AsyncReader, Codec, ReaderBuilder, WriterBuilder};
use avrokit::{Schema, Value};
use avrokit_object_store::{ObjectReaderBuilder, ObjectWriter, UploadOptions};
use futures::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::ObjectStore;

const SCHEMA: &str = r#"{"type":"record","name":"Event","fields":[
    {"name":"id","type":"long"},{"name":"name","type":"string"},
    {"name":"score","type":["null","double"]},{"name":"payload","type":"bytes"}]}"#;

fn record(i: i64) -> Value {
    Value::Record(vec![
        Value::Long(i),
        Value::String(format!("event-{i}")),
        Value::Union(1, Box::new(Value::Double(i as f64 * 0.5))),
        Value::Bytes(vec![(i % 251) as u8; 64 + (i % 64) as usize]),
    ])
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `f` `runs` times; the median time and the records it counted.
fn measure(runs: usize, mut f: impl FnMut() -> u64) -> (Duration, u64) {
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..runs {
        let t = Instant::now();
        n = f();
        times.push(t.elapsed());
    }
    (median(times), n)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing to do.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mib = env("AVROKIT_BENCH_MIB", 256);
    let runs = env("AVROKIT_BENCH_RUNS", 5);
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    // The file, on disk.
    let mut w = WriterBuilder::new(&schema)
        .with_codec(Codec::Null)
        .build(Vec::new())
        .unwrap();
    let mut i = 0;
    while w.bytes_written() < (mib as u64) << 20 {
        w.append(&record(i)).unwrap();
        i += 1;
    }
    let bytes = w.into_inner().unwrap();
    let dir = std::env::temp_dir().join(format!("avrokit-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let local = dir.join("bench.avro");
    std::fs::write(&local, &bytes).unwrap();
    println!("file: {} MiB, {i} records, null codec", bytes.len() >> 20);

    let count_blocking = |r: &mut dyn Iterator<Item = avrokit::Result<Value>>| {
        let mut n = 0u64;
        for v in r {
            v.unwrap();
            n += 1;
        }
        n
    };

    // Disk: the blocking reader over a File.
    let (disk, n_disk) = measure(runs, || {
        let f = std::fs::File::open(&local).unwrap();
        let mut r = ReaderBuilder::new().build(f).unwrap();
        count_blocking(&mut r)
    });

    // The same bytes in memory: blocking reader over an io::Read, the async stream over an
    // AsyncRead.
    let (blocking, n_blocking) = measure(runs, || {
        let mut r = ReaderBuilder::new().build(&bytes[..]).unwrap();
        count_blocking(&mut r)
    });
    let (stream, n_stream) = measure(runs, || {
        rt.block_on(async {
            let r = AsyncReader::new(&bytes[..]).await.unwrap();
            let mut s = std::pin::pin!(r.into_stream());
            let mut n = 0u64;
            while let Some(v) = s.next().await {
                v.unwrap();
                n += 1;
            }
            n
        })
    });

    let (next_loop, n_next) = measure(runs, || {
        rt.block_on(async {
            let mut r = AsyncReader::new(&bytes[..]).await.unwrap();
            let mut n = 0u64;
            while let Some(v) = r.next().await {
                v.unwrap();
                n += 1;
            }
            n
        })
    });
    assert_eq!(n_next, n_disk);

    // The ranged-GET reader over object_store's local file store: the client's own cost,
    // without a server.
    let fs_store: Arc<dyn ObjectStore> =
        Arc::new(object_store::local::LocalFileSystem::new_with_prefix(&dir).unwrap());
    let (file_store, n_fs) = measure(runs, || {
        rt.block_on(stream_count(
            fs_store.clone(),
            Path::from("bench.avro"),
            ObjectReaderBuilder::new(),
        ))
    });
    assert_eq!(n_fs, n_disk);

    // The local S3 server.
    let Some(m) = moto::moto() else {
        println!("moto's server cannot start: the S3 rows are skipped");
        report(
            bytes.len(),
            &[
                ("disk", disk),
                ("blocking, memory", blocking),
                ("async stream, memory", stream),
            ],
        );
        return;
    };
    let bucket = m.bucket("bench");
    let store: Arc<dyn ObjectStore> = Arc::new(
        AmazonS3Builder::new()
            .with_endpoint(m.endpoint())
            .with_bucket_name(&bucket)
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .with_allow_http(true)
            .build()
            .unwrap(),
    );
    let path = Path::from("bench.avro");
    let t = Instant::now();
    rt.block_on(async {
        let mut w = ObjectWriter::create(
            store.clone(),
            &path,
            WriterBuilder::new(&schema),
            UploadOptions::new(),
        )
        .await
        .unwrap();
        for k in 0..i {
            w.append(&record(k)).await.unwrap();
        }
        w.finish().await.unwrap();
    });
    let upload = t.elapsed();
    let (s3, n_s3) = measure(runs, || {
        rt.block_on(stream_count(
            store.clone(),
            path.clone(),
            ObjectReaderBuilder::new(),
        ))
    });
    // moto answers every ranged GET by copying the whole object (its FakeKey.value), so
    // fewer, larger GETs are what it rewards: 64 MiB chunks, 3 ahead.
    let big = ObjectReaderBuilder::new()
        .with_chunk_size(64 << 20)
        .with_read_ahead(3);
    let (s3_big, n_s3_big) = measure(runs, || {
        rt.block_on(stream_count(store.clone(), path.clone(), big.clone()))
    });
    // moto's ceiling: one GET of the whole object, bytes only.
    let (s3_get, _) = measure(runs, || {
        rt.block_on(async {
            use object_store::ObjectStoreExt;
            store.get(&path).await.unwrap().bytes().await.unwrap().len() as u64
        })
    });
    assert!([n_blocking, n_stream, n_s3, n_s3_big]
        .iter()
        .all(|&n| n == n_disk));
    println!(
        "upload to S3 (multipart, encoding included): {:.2} s",
        upload.as_secs_f64()
    );
    report(
        bytes.len(),
        &[
            ("disk, blocking reader", disk),
            ("file store, ranged GETs", file_store),
            ("S3 (moto), 8 MiB GETs", s3),
            ("S3 (moto), 64 MiB GETs", s3_big),
            ("S3 (moto), one GET, no decoding", s3_get),
            ("memory, blocking reader", blocking),
            ("memory, async stream", stream),
            ("memory, async next()", next_loop),
        ],
    );
    let pct = |a: Duration, b: Duration| 100.0 * a.as_secs_f64() / b.as_secs_f64();
    println!(
        "S3 / disk: {:.0}% with 8 MiB GETs, {:.0}% with 64 MiB GETs (target >= 80%); file store / disk: {:.0}%",
        pct(disk, s3),
        pct(disk, s3_big),
        pct(disk, file_store)
    );
    println!(
        "async stream / blocking: {:.0}%, async next() / blocking: {:.0}% (target >= 90%)",
        pct(blocking, stream),
        pct(blocking, next_loop)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads every record of `path` through the async stream.
async fn stream_count(store: Arc<dyn ObjectStore>, path: Path, opts: ObjectReaderBuilder) -> u64 {
    let f = opts.open(store, &path).await.unwrap();
    let r = f.reader().await.unwrap();
    let mut s = std::pin::pin!(r.into_stream());
    let mut n = 0u64;
    while let Some(v) = s.next().await {
        v.unwrap();
        n += 1;
    }
    n
}

fn report(len: usize, rows: &[(&str, Duration)]) {
    for (what, t) in rows {
        println!(
            "{what:>28}: median {:7.3} s, {:7.1} MiB/s",
            t.as_secs_f64(),
            len as f64 / (1 << 20) as f64 / t.as_secs_f64()
        );
    }
}
