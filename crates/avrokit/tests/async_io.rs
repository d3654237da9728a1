//! The async reader and writer (`tokio` feature) against the blocking ones.
//!
//! - Round trip, every codec: the async writer writes the blocking writer's bytes; the async
//!   reader (as `next`, a `Value` stream, a serde stream, inline or on the blocking pool, over
//!   an input that hands out a few bytes per poll, interrupts and returns `Pending`) yields the
//!   blocking reader's records.
//! - Malformed input: every truncation and a byte flip at each position of the framing, a bad
//!   sync marker and a huge block count give the blocking reader's records and then its error
//!   (same kind, offset and message).
//! - A failing sink, for every byte at which it can fail: the error surfaces from the call
//!   that wrote, the writer is poisoned, and the bytes in the sink read back as the records of
//!   whole blocks, then an end-of-input error.
//! - Splits: `SplitSeeker` plus `build_async_at` give every record exactly once.

mod common;

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use avrokit::container::{
    AsyncReader, Codec, Reader, ReaderBuilder, SeekStep, SplitSeeker, WriterBuilder,
};
use avrokit::serde::{DePlan, SerPlan};
use avrokit::{ErrorKind, Limits, Schema, Value};
use common::codecs;
use futures::{StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

const SYNC: [u8; 16] = *b"0123456789abcdef";

fn schema() -> Schema {
    Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[
            {"name":"id","type":"long"},{"name":"name","type":"string"}]}"#,
    )
    .unwrap()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct R {
    id: i64,
    name: String,
}

fn record(i: i64) -> Value {
    Value::Record(vec![Value::Long(i), Value::String(format!("name {i}"))])
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

fn builder(codec: Codec, block: u64) -> WriterBuilder {
    WriterBuilder::new(&schema())
        .with_codec(codec)
        .with_block_records(block)
        .with_sync_marker(SYNC)
}

fn blocking_file(codec: Codec, n: i64, block: u64) -> Vec<u8> {
    let mut w = builder(codec, block).build(Vec::new()).unwrap();
    for i in 0..n {
        w.append(&record(i)).unwrap();
    }
    w.into_inner().unwrap()
}

/// What a reader gave: its records, then its error (kind, offset, message) if any.
type Outcome = (Vec<Value>, Option<(ErrorKind, Option<u64>, String)>);

fn outcome_of(it: impl IntoIterator<Item = avrokit::Result<Value>>) -> Outcome {
    let mut values = Vec::new();
    for r in it {
        match r {
            Ok(v) => values.push(v),
            Err(e) => return (values, Some((e.kind(), e.offset(), e.to_string()))),
        }
    }
    (values, None)
}

/// The blocking reader over a stream (as the async reader reads: not a slice, whose reader
/// can tell a block is cut before reading it).
fn blocking_outcome(bytes: &[u8]) -> Outcome {
    match Reader::new(bytes) {
        Ok(r) => outcome_of(r),
        Err(e) => outcome_of([Err(e)]),
    }
}

async fn async_outcome(input: impl AsyncRead + Unpin + Send, offload: Option<usize>) -> Outcome {
    match AsyncReader::new(input).await {
        Ok(mut r) => {
            r.set_offload_threshold(offload);
            outcome_of(r.into_stream().collect::<Vec<_>>().await)
        }
        Err(e) => outcome_of([Err(e)]),
    }
}

/// An input that hands out at most `max` bytes per poll, answering every third poll with
/// `Pending` (after waking) and every fifth with `Interrupted`.
struct Trickle {
    data: Vec<u8>,
    pos: usize,
    max: usize,
    polls: usize,
}

impl Trickle {
    fn new(data: &[u8], max: usize) -> Trickle {
        Trickle {
            data: data.to_vec(),
            pos: 0,
            max,
            polls: 0,
        }
    }
}

impl AsyncRead for Trickle {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.polls += 1;
        if self.polls % 3 == 0 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if self.polls % 5 == 0 {
            return Poll::Ready(Err(io::ErrorKind::Interrupted.into()));
        }
        let n = self
            .max
            .min(buf.remaining())
            .min(self.data.len() - self.pos);
        let pos = self.pos;
        buf.put_slice(&self.data[pos..pos + n]);
        self.pos += n;
        Poll::Ready(Ok(()))
    }
}

#[test]
fn round_trip_every_codec_matches_the_blocking_writer_and_reader() {
    let rt = rt();
    for codec in codecs() {
        let expected = blocking_file(codec, 500, 37);
        let file = rt.block_on(async {
            let mut w = builder(codec, 37).build_async(Vec::new()).await.unwrap();
            for i in 0..500 {
                w.append(&record(i)).await.unwrap();
            }
            w.finish().await.unwrap()
        });
        assert_eq!(file, expected, "{codec:?}: the async writer's bytes");
        // Blocks compressed on threads reach the sink later, but the file is the same.
        let threaded = rt.block_on(async {
            let mut w = builder(codec, 37)
                .with_threads(3)
                .build_async(Vec::new())
                .await
                .unwrap();
            for i in 0..500 {
                w.append(&record(i)).await.unwrap();
            }
            w.finish().await.unwrap()
        });
        assert_eq!(threaded, expected, "{codec:?}: compressed on 3 threads");

        let want = blocking_outcome(&file);
        assert_eq!(want.0.len(), 500);
        assert!(want.1.is_none());
        for offload in [None, Some(0)] {
            assert_eq!(rt.block_on(async_outcome(&file[..], offload)), want);
            for max in [1, 7, 4096] {
                let got = rt.block_on(async_outcome(Trickle::new(&file, max), offload));
                assert_eq!(
                    got, want,
                    "{codec:?}, {max} bytes per poll, offload {offload:?}"
                );
            }
        }

        // `next`, and serde records.
        rt.block_on(async {
            let mut r = AsyncReader::new(&file[..]).await.unwrap();
            assert_eq!(r.codec().name(), codec.name());
            let mut n = 0;
            while let Some(v) = r.next().await {
                assert_eq!(v.unwrap(), record(n));
                n += 1;
            }
            assert_eq!(n, 500);
            let r = AsyncReader::new(&file[..]).await.unwrap();
            let plan = DePlan::compile(r.schema()).unwrap();
            let got: Vec<R> = r
                .into_serde_stream(&plan)
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            let want: Vec<R> = (0..500)
                .map(|id| R {
                    id,
                    name: format!("name {id}"),
                })
                .collect();
            assert_eq!(got, want);
        });
    }
}

#[test]
fn large_blocks_decode_on_the_blocking_pool_of_a_multi_thread_runtime() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    for codec in codecs() {
        let file = blocking_file(codec, 3000, 1000);
        let want = blocking_outcome(&file);
        let got = rt.block_on(async {
            let file = file.clone();
            tokio::spawn(async move { async_outcome(&file[..], Some(1)).await })
                .await
                .unwrap()
        });
        assert_eq!(got, want, "{codec:?}");
    }
}

#[test]
fn a_dropped_next_future_loses_nothing() {
    // Each `next` is polled once and dropped whatever it says, over an input that returns
    // `Pending` often, with blocks decompressed on the blocking pool: the reader keeps its
    // place in the block it is reading and picks up the decompression in flight.
    let rt = rt();
    for codec in codecs() {
        let file = blocking_file(codec, 300, 37);
        let want = blocking_outcome(&file);
        let got = rt.block_on(async {
            let mut r = AsyncReader::new(Trickle::new(&file, 7)).await.unwrap();
            r.set_offload_threshold(Some(0));
            let mut out = Vec::new();
            loop {
                let once = {
                    let mut next = std::pin::pin!(r.next());
                    futures::poll!(next.as_mut())
                };
                match once {
                    Poll::Ready(Some(v)) => out.push(v),
                    Poll::Ready(None) => break,
                    Poll::Pending => tokio::task::yield_now().await,
                }
            }
            outcome_of(out)
        });
        assert_eq!(got, want, "{codec:?}");
    }
}

#[test]
fn a_file_of_empty_blocks_still_yields_to_the_runtime() {
    // 50,000 empty blocks (count 0, size 0, sync marker: 18 bytes each) after the header of a
    // file with no records, read from memory (always ready): only the reader's own yields
    // can return `Pending`, and it must yield every 64 KiB or so.
    let mut file = blocking_file(Codec::Null, 0, 37);
    for _ in 0..50_000 {
        file.extend_from_slice(&[0, 0]);
        file.extend_from_slice(&SYNC);
    }
    assert_eq!(blocking_outcome(&file), (Vec::new(), None));
    let rt = rt();
    rt.block_on(async {
        let mut r = AsyncReader::new(&file[..]).await.unwrap();
        let mut pendings = 0;
        let end = loop {
            let once = {
                let mut next = std::pin::pin!(r.next());
                futures::poll!(next.as_mut())
            };
            match once {
                Poll::Pending => pendings += 1,
                Poll::Ready(end) => break end,
            }
        };
        assert!(end.is_none());
        assert!(pendings >= 10, "{pendings} yields");
    });
}

#[test]
fn records_read_with_next_are_not_read_again_by_a_stream() {
    let rt = rt();
    let file = blocking_file(Codec::Snappy, 100, 37);
    rt.block_on(async {
        let mut r = AsyncReader::new(&file[..]).await.unwrap();
        for i in 0..10 {
            assert_eq!(r.next().await.unwrap().unwrap(), record(i));
        }
        let plan = DePlan::compile(r.schema()).unwrap();
        let rest: Vec<R> = r
            .into_serde_stream(&plan)
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(rest.len(), 90);
        assert_eq!(rest[0].id, 10);
    });
}

#[test]
fn serde_writes_match_value_writes() {
    let rt = rt();
    let file = rt.block_on(async {
        let mut w = builder(Codec::Snappy, 10)
            .build_async(Vec::new())
            .await
            .unwrap();
        let plan = SerPlan::compile(w.schema()).unwrap();
        for id in 0..100 {
            let r = R {
                id,
                name: format!("name {id}"),
            };
            w.append_serde(&r, &plan).await.unwrap();
        }
        w.finish().await.unwrap()
    });
    assert_eq!(file, blocking_file(Codec::Snappy, 100, 10));
}

#[test]
fn every_truncation_gives_the_blocking_readers_records_and_error() {
    let rt = rt();
    for codec in codecs() {
        let file = blocking_file(codec, 40, 7);
        for cut in 0..file.len() {
            let bytes = &file[..cut];
            let want = blocking_outcome(bytes);
            // A cut at a block boundary is a shorter complete file; any other is an error.
            match &want.1 {
                Some(err) => assert_eq!(err.0, ErrorKind::Eof, "{codec:?} cut at {cut}: {}", err.2),
                None => assert_eq!(want.0.len() % 7, 0, "{codec:?} cut at {cut}"),
            }
            let got = rt.block_on(async_outcome(Trickle::new(bytes, 5), None));
            assert_eq!(got, want, "{codec:?} cut at {cut}");
        }
    }
}

#[test]
fn flipped_bytes_give_the_blocking_readers_records_and_error() {
    let rt = rt();
    for codec in codecs() {
        let file = blocking_file(codec, 40, 7);
        for at in 0..file.len() {
            let mut bytes = file.clone();
            bytes[at] ^= 0x5a;
            let want = blocking_outcome(&bytes);
            let got = rt.block_on(async_outcome(&bytes[..], None));
            assert_eq!(got, want, "{codec:?}, byte {at} flipped");
        }
    }
}

#[test]
fn a_bad_sync_marker_and_a_huge_count_are_clear_errors() {
    let rt = rt();
    let file = blocking_file(Codec::Null, 10, 5);
    let header_len = Reader::from_slice(&file).unwrap().header().len() as usize;

    // The first block's marker: a block is returned only once its marker checks out, so no
    // records, and a container error at the marker.
    let end_of_first = file[header_len..]
        .windows(16)
        .position(|w| w == SYNC)
        .unwrap()
        + header_len;
    let mut bad = file.clone();
    bad[end_of_first + 3] ^= 1;
    let (values, err) = rt.block_on(async_outcome(&bad[..], None));
    assert!(values.is_empty());
    let (kind, offset, msg) = err.unwrap();
    assert_eq!(kind, ErrorKind::Container, "{msg}");
    assert!(offset.is_some(), "{msg}");
    assert_eq!(
        rt.block_on(async_outcome(&bad[..], None)),
        blocking_outcome(&bad)
    );

    // A block claiming i64::MAX records in 10 bytes: refused before anything is allocated.
    let mut huge = file[..header_len].to_vec();
    huge.extend_from_slice(&[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    huge.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    huge.extend_from_slice(&SYNC);
    let (values, err) = rt.block_on(async_outcome(&huge[..], None));
    assert!(values.is_empty());
    let (kind, _, msg) = err.unwrap();
    assert_eq!(kind, ErrorKind::Container, "{msg}");
    assert!(msg.contains("claims"), "{msg}");
    assert_eq!(
        rt.block_on(async_outcome(&huge[..], None)).1,
        blocking_outcome(&huge).1
    );

    // Tight limits apply to the async reader too.
    let limits = Limits {
        max_alloc: 64,
        ..Limits::default()
    };
    let big = blocking_file(Codec::Null, 100, 100);
    let r = rt.block_on(async {
        let mut r = ReaderBuilder::new()
            .with_limits(limits)
            .build_async(&big[..])
            .await?;
        r.next().await.transpose()
    });
    assert!(
        r.is_err(),
        "a 100-record block over a 64-byte allocation limit"
    );
}

/// A sink that accepts `limit` bytes, at most 7 per call (with `Interrupted` and `Pending`
/// between), then fails every write, flush and shutdown.
struct FailAfter {
    bytes: Vec<u8>,
    limit: usize,
    calls: usize,
}

impl FailAfter {
    fn tick(&mut self, cx: &mut Context<'_>) -> Option<Poll<io::Result<usize>>> {
        self.calls += 1;
        if self.calls % 4 == 0 {
            cx.waker().wake_by_ref();
            return Some(Poll::Pending);
        }
        if self.calls % 6 == 0 {
            return Some(Poll::Ready(Err(io::ErrorKind::Interrupted.into())));
        }
        None
    }
}

impl AsyncWrite for FailAfter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Some(p) = self.tick(cx) {
            return p;
        }
        let room = self.limit - self.bytes.len();
        if room == 0 {
            return Poll::Ready(Err(io::ErrorKind::StorageFull.into()));
        }
        let n = buf.len().min(7).min(room);
        self.bytes.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(p) = self.tick(cx) {
            return p.map(|r| r.map(drop));
        }
        if self.bytes.len() == self.limit {
            return Poll::Ready(Err(io::ErrorKind::StorageFull.into()));
        }
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush(cx)
    }
}

#[test]
fn a_failing_sink_poisons_the_writer_and_leaves_whole_blocks() {
    let rt = rt();
    for codec in [Codec::Null, Codec::Snappy] {
        let full = blocking_file(codec, 30, 4);
        // `limit == full.len()` fails at the last flush: the file is complete but the error
        // still surfaces.
        for limit in 0..=full.len() {
            let mut sink = FailAfter {
                bytes: Vec::new(),
                limit,
                calls: 0,
            };
            let r: avrokit::Result<()> = rt.block_on(async {
                let mut w = builder(codec, 4).build_async(&mut sink).await?;
                let mut res = Ok(());
                for i in 0..30 {
                    if let Err(e) = w.append(&record(i)).await {
                        assert!(w.is_poisoned());
                        res = Err(e);
                        break;
                    }
                }
                if res.is_err() {
                    // Poisoned: every later call fails, and so does finish.
                    assert!(w.append(&record(0)).await.is_err());
                    assert!(w.flush().await.is_err());
                    assert!(w.finish().await.is_err());
                    return res;
                }
                w.finish().await.map(drop)
            });
            let e = r.expect_err("the sink failed, the writer must say so");
            assert_eq!(e.kind(), ErrorKind::Io, "{e}");
            let got = sink.bytes;
            assert_eq!(&got[..], &full[..got.len()], "the sink holds a prefix");
            let (values, err) = blocking_outcome(&got);
            assert!(values.iter().zip(0..).all(|(v, i)| *v == record(i)));
            // A sink that fails right after a sync marker holds a complete, shorter file (the
            // format has no trailer): then the writer's error is what tells. Anywhere else the
            // cut is an end-of-input error after the whole blocks.
            if let Some((kind, _, msg)) = err {
                assert_eq!(kind, ErrorKind::Eof, "limit {limit}: {msg}");
            } else {
                assert_eq!(&got[got.len() - 16..], SYNC, "limit {limit}");
            }
            // Whole blocks of 4 records, or all 30 (the last block has 2).
            assert!(
                values.len() % 4 == 0 || values.len() == 30,
                "whole blocks only (limit {limit}): {}",
                values.len()
            );
        }
    }
}

#[test]
fn dropping_without_finish_leaves_a_visibly_incomplete_file() {
    let rt = rt();
    let mut sink = Vec::new();
    rt.block_on(async {
        let mut w = builder(Codec::Null, 4)
            .build_async(&mut sink)
            .await
            .unwrap();
        for i in 0..10 {
            w.append(&record(i)).await.unwrap();
        }
    });
    let (values, err) = blocking_outcome(&sink);
    assert_eq!(
        values.len(),
        4,
        "the first block; the second lacks its sync marker"
    );
    assert_eq!(err.unwrap().0, ErrorKind::Eof);
}

#[test]
fn splits_read_through_the_seeker_give_every_record_once() {
    let rt = rt();
    for codec in codecs() {
        let file = blocking_file(codec, 2000, 50);
        let r = Reader::from_slice(&file).unwrap();
        let (header, schema) = (r.header().clone(), r.schema().clone());
        let len = file.len() as u64;
        for n in [1u64, 2, 3, 7, 40] {
            let mut all = Vec::new();
            for k in 0..n {
                let (start, end) = (len * k / n, len * (k + 1) / n);
                let mut seeker =
                    SplitSeeker::new(&header, &schema, codec, Limits::default(), len, start, end);
                let first = loop {
                    match seeker.step() {
                        SeekStep::Read { offset, len } => {
                            let at = (offset as usize).min(file.len());
                            seeker.feed(&file[at..(at + len).min(file.len())]);
                        }
                        SeekStep::Done(first) => break first,
                    }
                };
                let Some(first) = first else { continue };
                let values: Vec<Value> = rt.block_on(async {
                    let mut r = ReaderBuilder::new()
                        .build_async_at(header.clone(), &file[first as usize..], first)
                        .unwrap();
                    r.set_split_end(end);
                    r.into_stream().try_collect().await.unwrap()
                });
                all.extend(values);
            }
            let want: Vec<Value> = (0..2000).map(record).collect();
            assert_eq!(all, want, "{codec:?} in {n} splits");
        }
    }
}
