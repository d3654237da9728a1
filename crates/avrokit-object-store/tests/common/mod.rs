//! Test data and helpers shared by the test files.

#![allow(dead_code)]

pub mod moto;
pub mod proxy;

use std::sync::Arc;
use std::time::Duration;

use avrokit::container::{Codec, Reader, WriterBuilder};
use avrokit::{Schema, Value};
use avrokit_object_store::{AvroObject, ObjectReaderBuilder};
use futures::StreamExt;
use object_store::ObjectStore;

/// Every codec of the specification.
pub fn codecs() -> Vec<Codec> {
    ["null", "deflate", "snappy", "zstandard", "bzip2", "xz"]
        .iter()
        .map(|n| Codec::from_name(n).unwrap())
        .collect()
}

pub const SCHEMA: &str = r#"{"type":"record","name":"Event","fields":[
    {"name":"id","type":"long"},
    {"name":"name","type":"string"},
    {"name":"score","type":["null","double"]},
    {"name":"tags","type":{"type":"array","items":"string"}},
    {"name":"payload","type":"bytes"}]}"#;

pub fn schema() -> Schema {
    Schema::parse_str(SCHEMA).unwrap()
}

/// Record `i`: varied sizes, so that blocks differ and compress differently.
pub fn record(i: i64) -> Value {
    let n = (i % 13) as usize;
    Value::Record(vec![
        Value::Long(i),
        Value::String(format!("event-{i}-{}", "x".repeat(n))),
        if i % 3 == 0 {
            Value::Union(0, Box::new(Value::Null))
        } else {
            Value::Union(1, Box::new(Value::Double(i as f64 / 7.0)))
        },
        Value::Array((0..n % 4).map(|k| Value::String(format!("t{k}"))).collect()),
        Value::Bytes((0..(i % 97) as u8).collect()),
    ])
}

/// A container file of `records` records in blocks of about `block` bytes.
pub fn file(codec: Codec, records: i64, block: usize) -> Vec<u8> {
    let mut w = WriterBuilder::new(&schema())
        .with_codec(codec)
        .with_block_size(block)
        .build(Vec::new())
        .unwrap();
    for i in 0..records {
        w.append(&record(i)).unwrap();
    }
    w.into_inner().unwrap()
}

/// The records of a local file, read by the core's blocking reader.
pub fn local_records(file: &[u8]) -> Vec<Value> {
    Reader::from_slice(file)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Every record of the object, through the async stream.
pub async fn remote_records(file: &AvroObject) -> Vec<Value> {
    let r = file.reader().await.unwrap();
    collect_ok(r.into_stream()).await
}

/// Every record of the object read as `n` splits, one after the other.
pub async fn split_records(file: &AvroObject, n: usize) -> Vec<Value> {
    let mut all = Vec::new();
    for range in file.splits(n) {
        let r = file.split_reader(range).await.unwrap();
        all.extend(collect_ok(r.into_stream()).await);
    }
    all
}

/// The items of a stream that must not fail.
pub async fn collect_ok<S>(s: S) -> Vec<Value>
where
    S: futures::Stream<Item = avrokit::Result<Value>>,
{
    let mut s = std::pin::pin!(s);
    let mut out = Vec::new();
    while let Some(v) = s.next().await {
        out.push(v.unwrap());
    }
    out
}

/// The records before the stream's error, and the error (`None` when it ended cleanly).
pub async fn until_error<S>(s: S) -> (Vec<Value>, Option<avrokit::Error>)
where
    S: futures::Stream<Item = avrokit::Result<Value>>,
{
    let mut s = std::pin::pin!(s);
    let mut out = Vec::new();
    while let Some(v) = s.next().await {
        match v {
            Ok(v) => out.push(v),
            Err(e) => {
                // The stream ends after its error.
                assert!(s.next().await.is_none(), "items after the error");
                return (out, Some(e));
            }
        }
    }
    (out, None)
}

/// Small GETs, so that a test file takes many requests and read-ahead is exercised.
pub fn small_gets() -> ObjectReaderBuilder {
    ObjectReaderBuilder::new()
        .with_chunk_size(64 * 1024)
        .with_read_ahead(2)
}

/// Puts `bytes` at `key`.
pub async fn put(store: &Arc<dyn ObjectStore>, key: &str, bytes: Vec<u8>) {
    use object_store::ObjectStoreExt;
    store
        .put(&object_store::path::Path::from(key), bytes.into())
        .await
        .unwrap();
}

/// Runs `f`, failing the test if it takes longer than `secs` (a hang, not a slow run: the
/// bound is far above what the work takes).
pub async fn within<T>(secs: u64, what: &str, f: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(Duration::from_secs(secs), f).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no result within {secs} s (a hang)"),
    }
}
