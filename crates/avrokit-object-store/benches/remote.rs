//! Reading a 256 MiB container file from a local S3 server (moto's; with
//! `AVROKIT_BENCH_S3S_FS=/path/to/s3s-fs`, also crates.io's `s3s-fs`) against reading it from
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

    let mut rows = vec![
        ("disk, blocking reader", disk),
        ("file store, streamed GET", file_store),
    ];
    let pct = |a: Duration, b: Duration| 100.0 * a.as_secs_f64() / b.as_secs_f64();
    let mut ratios = vec![format!("file store / disk: {:.0}%", pct(disk, file_store))];

    // The local S3 server: moto's.
    match moto::moto() {
        None => println!("moto's server cannot start: its rows are skipped"),
        Some(m) => {
            let store = s3_store(&m.endpoint(), &m.bucket("bench"));
            let path = Path::from("bench.avro");
            let upload = rt.block_on(put(&store, &path, &schema, i));
            println!("upload to moto (multipart, encoding included): {upload:.2} s");
            let (s3_one, n_s3_one) = measure(runs, || {
                rt.block_on(one_get_count(store.clone(), path.clone()))
            });
            let (s3, n_s3) = measure(runs, || {
                rt.block_on(stream_count(
                    store.clone(),
                    path.clone(),
                    ObjectReaderBuilder::new(),
                ))
            });
            // GETs of 8 MiB, 2 ahead (the reader's former default): moto answers every ranged
            // GET by copying the whole object (its FakeKey.value), so many GETs of a big
            // object cost it O(size) each.
            let ranged = ObjectReaderBuilder::new()
                .with_chunk_size(8 << 20)
                .with_read_ahead(2);
            let (s3_ranged, n_s3_ranged) = measure(runs, || {
                rt.block_on(stream_count(store.clone(), path.clone(), ranged.clone()))
            });
            // moto's ceiling: one GET of the whole object, bytes only.
            let (s3_get, _) = measure(runs, || rt.block_on(get_len(&store, &path)));
            assert!([n_s3_one, n_s3, n_s3_ranged].iter().all(|&n| n == n_disk));
            rows.extend([
                ("S3 (moto), open_reader", s3_one),
                ("S3 (moto), open + reader", s3),
                ("S3 (moto), 8 MiB GETs", s3_ranged),
                ("S3 (moto), one GET, no decoding", s3_get),
            ]);
            ratios.push(format!(
                "moto / disk: {:.0}% with open_reader (target >= 80%), {:.0}% with open + reader, {:.0}% with 8 MiB GETs; moto's own GET / disk: {:.0}%",
                pct(disk, s3_one),
                pct(disk, s3),
                pct(disk, s3_ranged),
                pct(disk, s3_get),
            ));
        }
    }

    // A faster S3 server, when given: `AVROKIT_BENCH_S3S_FS=/path/to/s3s-fs` (crates.io's
    // `s3s-fs`, `cargo install s3s-fs --features binary`), serving a temporary directory.
    if let Ok(bin) = std::env::var("AVROKIT_BENCH_S3S_FS") {
        let server = S3sFs::start(&bin, &dir.join("s3s-root"));
        let store = s3_store(&server.endpoint(), "bench");
        let path = Path::from("bench.avro");
        let upload = rt.block_on(put(&store, &path, &schema, i));
        println!("upload to s3s-fs (multipart, encoding included): {upload:.2} s");
        let (s3_one, n_s3_one) = measure(runs, || {
            rt.block_on(one_get_count(store.clone(), path.clone()))
        });
        let (s3, n_s3) = measure(runs, || {
            rt.block_on(stream_count(
                store.clone(),
                path.clone(),
                ObjectReaderBuilder::new(),
            ))
        });
        let (s3_get, _) = measure(runs, || rt.block_on(get_len(&store, &path)));
        assert_eq!(n_s3, n_disk);
        assert_eq!(n_s3_one, n_disk);
        rows.extend([
            ("S3 (s3s-fs), open_reader", s3_one),
            ("S3 (s3s-fs), open + reader", s3),
            ("S3 (s3s-fs), one GET, no decoding", s3_get),
        ]);
        ratios.push(format!(
            "s3s-fs / disk: {:.0}% with open_reader (target >= 80%), {:.0}% with open + reader; s3s-fs's own GET / disk: {:.0}%",
            pct(disk, s3_one),
            pct(disk, s3),
            pct(disk, s3_get),
        ));
    }

    assert!([n_blocking, n_stream].iter().all(|&n| n == n_disk));
    rows.extend([
        ("memory, blocking reader", blocking),
        ("memory, async stream", stream),
        ("memory, async next()", next_loop),
    ]);
    report(bytes.len(), &rows);
    for r in ratios {
        println!("{r}");
    }
    println!(
        "async stream / blocking: {:.0}%, async next() / blocking: {:.0}% (target >= 90%)",
        pct(blocking, stream),
        pct(blocking, next_loop)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An S3 store of `bucket` at `endpoint` (plain HTTP, fixed test credentials).
fn s3_store(endpoint: &str, bucket: &str) -> Arc<dyn ObjectStore> {
    Arc::new(
        AmazonS3Builder::new()
            .with_endpoint(endpoint)
            .with_bucket_name(bucket)
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .with_allow_http(true)
            .build()
            .unwrap(),
    )
}

/// Writes the bench file's `n` records to `path` with a multipart upload; the seconds taken.
async fn put(store: &Arc<dyn ObjectStore>, path: &Path, schema: &Schema, n: i64) -> f64 {
    let t = Instant::now();
    let mut w = ObjectWriter::create(
        store.clone(),
        path,
        WriterBuilder::new(schema),
        UploadOptions::new(),
    )
    .await
    .unwrap();
    for k in 0..n {
        w.append(&record(k)).await.unwrap();
    }
    w.finish().await.unwrap();
    t.elapsed().as_secs_f64()
}

/// One GET of the whole object, its body streamed and counted, nothing kept: the server's
/// own speed, as the readers take the body. (Collected into one buffer with `bytes()`, the
/// GET took 40% longer than streamed: the copies into a 256 MiB buffer, not the server.) In a
/// task of the runtime, as the readers' GETs are (polled from `block_on`'s thread, every
/// piece of the body would cross threads).
async fn get_len(store: &Arc<dyn ObjectStore>, path: &Path) -> u64 {
    use object_store::ObjectStoreExt;
    let (store, path) = (store.clone(), path.clone());
    tokio::spawn(async move {
        let mut body = store.get(&path).await.unwrap().into_stream();
        let mut n = 0u64;
        while let Some(piece) = body.next().await {
            n += piece.unwrap().len() as u64;
        }
        n
    })
    .await
    .unwrap()
}

/// Reads every record of `path` through the async stream of `open_reader`: a HEAD, then one
/// GET for the header and the blocks.
async fn one_get_count(store: Arc<dyn ObjectStore>, path: Path) -> u64 {
    let r = ObjectReaderBuilder::new()
        .open_reader(store, &path)
        .await
        .unwrap();
    let mut s = std::pin::pin!(r.into_stream());
    let mut n = 0u64;
    while let Some(v) = s.next().await {
        v.unwrap();
        n += 1;
    }
    n
}

/// An `s3s-fs` server on 127.0.0.1, serving `root` (bucket `bench` is a folder in it), killed
/// when dropped.
struct S3sFs {
    port: u16,
    child: std::process::Child,
}

impl S3sFs {
    fn start(bin: &str, root: &std::path::Path) -> S3sFs {
        std::fs::create_dir_all(root.join("bench")).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new(bin)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", "test", "--secret-key", "test"])
            .arg(root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("starting s3s-fs");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "s3s-fs did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        S3sFs { port, child }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for S3sFs {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
