//! Against a real S3-compatible server (moto's, on 127.0.0.1): whole-file and split reads of
//! every codec, RecordBatches, multipart writes of several parts, and faults injected by a
//! TCP proxy between client and server (a connection dropped in the middle of a block, a
//! truncated object, a server that stops answering, a failing part upload). Each fault ends
//! in a clear error within a bounded time, and never in records presented as the whole file.
//!
//! Skipped with a message when moto's server cannot start, unless `CI` is set.

mod common;

use std::sync::Arc;
use std::time::Duration;

use avrokit::container::{Codec, Reader, WriterBuilder};
use avrokit::ErrorKind as AvroKind;
use avrokit_object_store::{ErrorKind, ObjectReaderBuilder, ObjectWriter, UploadOptions};
use common::moto::moto;
use common::proxy::{Fault, Proxy};
use common::*;
use futures::TryStreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, RetryConfig};

/// An S3 store of `bucket` at `endpoint`. With `fail_fast`, few and quick retries, so that a
/// fault that lasts surfaces in seconds (the defaults retry for up to three minutes).
fn s3(endpoint: &str, bucket: &str, fail_fast: bool) -> Arc<dyn ObjectStore> {
    let mut b = AmazonS3Builder::new()
        .with_endpoint(endpoint)
        .with_bucket_name(bucket)
        .with_region("us-east-1")
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .with_allow_http(true);
    if fail_fast {
        b = b
            .with_retry(RetryConfig {
                backoff: BackoffConfig {
                    init_backoff: Duration::from_millis(20),
                    max_backoff: Duration::from_millis(200),
                    base: 2.0,
                },
                max_retries: 2,
                retry_timeout: Duration::from_secs(10),
            })
            .with_client_options(
                ClientOptions::new()
                    .with_allow_http(true)
                    .with_timeout(Duration::from_secs(120)),
            );
    }
    Arc::new(b.build().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_codec_reads_whole_and_in_splits_as_the_local_file() {
    let Some(m) = moto() else { return };
    let store = s3(&m.endpoint(), &m.bucket("codecs"), false);
    for codec in codecs() {
        let bytes = file(codec, 4000, 8192);
        let expected = local_records(&bytes);
        let key = format!("in/{}.avro", codec.name());
        put(&store, &key, bytes).await;
        let f = within(
            120,
            "open",
            small_gets().open(store.clone(), &Path::from(key.clone())),
        )
        .await
        .unwrap();
        let whole = within(120, "whole read", remote_records(&f)).await;
        assert_eq!(whole, expected, "{}", codec.name());
        // HEAD and one GET of the whole object, header included.
        let one = within(120, "open_reader", async {
            let r = ObjectReaderBuilder::new()
                .open_reader(store.clone(), &Path::from(key.clone()))
                .await
                .unwrap();
            collect_ok(r.into_stream()).await
        })
        .await;
        assert_eq!(one, expected, "{} through open_reader", codec.name());
        for n in [3, 8] {
            let got = within(120, "split reads", split_records(&f, n)).await;
            assert_eq!(got, expected, "{} in {n} splits", codec.name());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_batches_from_s3_equal_the_local_files() {
    let Some(m) = moto() else { return };
    let store = s3(&m.endpoint(), &m.bucket("batches"), false);
    for codec in [Codec::Null, Codec::Zstandard { level: 1 }] {
        let bytes = file(codec, 3000, 4096);
        put(&store, "b.avro", bytes.clone()).await;
        let f = small_gets()
            .open(store.clone(), &Path::from("b.avro"))
            .await
            .unwrap();
        let local: Vec<_> = avrokit_arrow::ReaderBuilder::new()
            .build_slice(&bytes)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let remote: Vec<_> = within(
            120,
            "batches",
            f.batches(avrokit_arrow::ReaderBuilder::new(), None)
                .try_collect::<Vec<_>>(),
        )
        .await
        .unwrap();
        assert_eq!(remote, local);
        let mut rows = 0;
        for range in f.splits(3) {
            let b: Vec<_> = f
                .batches(avrokit_arrow::ReaderBuilder::new(), Some(range))
                .try_collect()
                .await
                .unwrap();
            rows += b.iter().map(|b| b.num_rows()).sum::<usize>();
        }
        assert_eq!(rows, 3000);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multipart_writes_bigger_than_one_part_read_back() {
    let Some(m) = moto() else { return };
    let bucket = m.bucket("multipart");
    let store = s3(&m.endpoint(), &bucket, false);
    let path = Path::from("out/big.avro");
    // S3 wants parts of 5 MiB but the last: about 12 MiB is three parts.
    let mut w = ObjectWriter::create(
        store.clone(),
        &path,
        WriterBuilder::new(&schema()).with_codec(Codec::Null),
        UploadOptions::new()
            .with_part_size(5 << 20)
            .with_max_concurrency(2),
    )
    .await
    .unwrap();
    let mut n = 0;
    while w.bytes_written() < 12 << 20 {
        w.append(&record(n)).await.unwrap();
        n += 1;
    }
    assert!(store.head(&path).await.is_err(), "visible before finish");
    within(120, "finish", w.finish()).await.unwrap();
    assert_eq!(m.uploads_in_progress(&bucket), 0);
    let f = ObjectReaderBuilder::new().open(store, &path).await.unwrap();
    assert!(f.len() > 10 << 20);
    let got = within(120, "read back", remote_records(&f)).await;
    assert_eq!(got.len() as i64, n);
    assert!(got.iter().enumerate().all(|(i, v)| *v == record(i as i64)));
}

/// A file of many blocks on the server, the records it holds, and the store seen through a
/// proxy with `fault`.
async fn faulty(
    fault: Fault,
    key: &str,
    records: i64,
) -> Option<(Proxy, Arc<dyn ObjectStore>, Vec<u8>)> {
    let m = moto()?;
    let bucket = m.bucket("faults");
    let bytes = file(Codec::Null, records, 4096);
    put(&s3(&m.endpoint(), &bucket, false), key, bytes.clone()).await;
    let proxy = Proxy::start(m.port, fault).await;
    let store = s3(&proxy.endpoint(), &bucket, true);
    Some((proxy, store, bytes))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_dropped_in_the_middle_of_a_block_is_an_error() {
    // Many small GETs, and the default: one GET streamed.
    // (A bigger file for the default, whose header GET takes the first 256 KiB.)
    dropped_connection(small_gets(), "d.avro", 6000).await;
    dropped_connection(ObjectReaderBuilder::new(), "d1.avro", 30_000).await;
}

async fn dropped_connection(options: ObjectReaderBuilder, key: &str, records: i64) {
    // The response bytes of HEAD and the header GET, then half the file: inside some block.
    let probe = file(Codec::Null, records, 4096);
    let at = probe.len() as u64 / 2;
    let Some((proxy, store, bytes)) = faulty(Fault::DropAfter(at), key, records).await else {
        return;
    };
    let expected = local_records(&bytes);
    let f = options.open(store, &Path::from(key)).await.unwrap();
    let (got, err) = within(60, "a dropped connection", async {
        until_error(f.reader().await.unwrap().into_stream()).await
    })
    .await;
    assert!(proxy.tripped.load(std::sync::atomic::Ordering::SeqCst));
    let err = err.expect("a dropped connection must end in an error");
    eprintln!("dropped connection, after {} records: {err}", got.len());
    assert_eq!(err.kind(), AvroKind::Io, "{err}");
    assert!(err.offset().is_some(), "{err}");
    assert!(err.to_string().contains(key), "{err}");
    assert!(got.len() < expected.len());
    assert_eq!(got[..], expected[..got.len()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_object_is_never_presented_as_complete() {
    let Some(m) = moto() else { return };
    let store = s3(&m.endpoint(), &m.bucket("truncated"), false);
    let bytes = file(Codec::Snappy, 6000, 4096);
    let expected = local_records(&bytes);
    let header = Reader::from_slice(&bytes).unwrap().header().len() as usize;
    // Inside a block, and just short of the last sync marker's end.
    for cut in [bytes.len() / 3, bytes.len() - 5] {
        put(&store, "t.avro", bytes[..cut].to_vec()).await;
        let f = small_gets()
            .open(store.clone(), &Path::from("t.avro"))
            .await
            .unwrap();
        let (got, err) = within(60, "a truncated object", async {
            until_error(f.reader().await.unwrap().into_stream()).await
        })
        .await;
        let err = err.expect("a truncated object must end in an error");
        eprintln!("truncated at {cut}, after {} records: {err}", got.len());
        assert_eq!(err.kind(), AvroKind::Eof, "{err}");
        assert!(
            err.offset()
                .is_some_and(|o| o as usize <= cut && o as usize > header),
            "{err}"
        );
        assert!(got.len() < expected.len());
        assert_eq!(got[..], expected[..got.len()]);
        let got = within(60, "splits", async {
            let mut n = 0;
            let mut errors = 0;
            for range in f.splits(4) {
                let (g, e) = until_error(f.split_reader(range).await.unwrap().into_stream()).await;
                n += g.len();
                errors += usize::from(e.is_some());
            }
            (n, errors)
        })
        .await;
        assert_eq!(got.1, 1, "one split holds the cut");
        assert!(got.0 < expected.len());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stops_answering_is_a_timeout_error() {
    // Many small GETs, and the default: one GET streamed, stalling in the middle of its body.
    stalled_server(small_gets(), "s.avro", 6000).await;
    stalled_server(ObjectReaderBuilder::new(), "s1.avro", 30_000).await;
}

async fn stalled_server(options: ObjectReaderBuilder, key: &str, records: i64) {
    let probe = file(Codec::Null, records, 4096);
    let at = probe.len() as u64 / 2;
    let Some((proxy, store, bytes)) = faulty(Fault::StallAfter(at), key, records).await else {
        return;
    };
    let f = options
        .with_timeout(Duration::from_secs(2))
        .open(store.clone(), &Path::from(key))
        .await
        .unwrap();
    let (got, err) = within(60, "a stalled server", async {
        until_error(f.reader().await.unwrap().into_stream()).await
    })
    .await;
    assert!(proxy.tripped.load(std::sync::atomic::Ordering::SeqCst));
    let err = err.expect("a stalled server must end in an error");
    eprintln!("stalled server, after {} records: {err}", got.len());
    assert_eq!(err.kind(), AvroKind::Io, "{err}");
    assert!(
        err.to_string().contains("no complete answer within 2.0 s"),
        "{err}"
    );
    assert!(got.len() < local_records(&bytes).len());

    // Once stalled, opening again times out too, and says so.
    let e = within(
        60,
        "open on a stalled server",
        small_gets()
            .with_timeout(Duration::from_secs(2))
            .open(store, &Path::from(key)),
    )
    .await
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_part_upload_aborts_and_leaves_no_object() {
    let Some(m) = moto() else { return };
    let bucket = m.bucket("upfault");
    let proxy = Proxy::start(m.port, Fault::DropRequestsWith(b"partNumber=2&".to_vec())).await;
    let store = s3(&proxy.endpoint(), &bucket, true);
    let path = Path::from("never.avro");
    let result = within(120, "a failing upload", async {
        let mut w = ObjectWriter::create(
            store.clone(),
            &path,
            WriterBuilder::new(&schema()),
            UploadOptions::new()
                .with_part_size(5 << 20)
                .with_max_concurrency(1)
                .with_timeout(Duration::from_secs(20)),
        )
        .await?;
        for i in 0..120_000 {
            w.append(&record(i)).await?;
        }
        w.finish().await
    })
    .await;
    assert!(proxy.tripped.load(std::sync::atomic::Ordering::SeqCst));
    let e = result.expect_err("the upload must fail");
    eprintln!("failed part upload: {e}");
    assert!(
        matches!(e.kind(), ErrorKind::Store | ErrorKind::Timeout),
        "{e}"
    );
    assert!(e.to_string().contains("never.avro"), "{e}");
    let direct = s3(&m.endpoint(), &bucket, false);
    assert!(direct
        .head(&path)
        .await
        .unwrap_err()
        .to_string()
        .contains("not found"));
    assert_eq!(
        m.uploads_in_progress(&bucket),
        0,
        "the upload was not aborted"
    );
}
