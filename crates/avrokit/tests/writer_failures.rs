//! Writers lose nothing silently. Over a sink that fails after N bytes, for every N from 0 to
//! the whole output, and for each way a sink fails (`WriteZero`, `StorageFull`, `BrokenPipe`,
//! a `write` that returns `Ok(0)`, a failing `flush`, a failure that goes away again):
//!
//! - the error surfaces from the call that wrote (append, flush, finish): a writer never says
//!   `Ok` once bytes were lost;
//! - the writer is then poisoned: every later call fails, whatever the sink does next;
//! - the bytes that reached the sink, read back, are exactly the records of the complete blocks
//!   among them (container files) or of the complete datums (the bare `Encoder`), then either a
//!   clean end or an end-of-input error; never a wrong record.
//!
//! A file cut exactly at a block boundary is a complete, shorter file: the format has no
//! trailer to tell it from one that was meant to end there, so "clean end" is the right answer
//! then, and the writer's error is what tells the truncation apart.
//!
//! Also: a writer dropped without `finish`, and sinks that return `Interrupted` (retried).

mod common;

use std::cell::RefCell;
use std::io::{self, BufWriter, Write};
use std::rc::Rc;

use avrokit::container::{Codec, Reader, Writer, WriterBuilder};
use avrokit::io::{BlockingSink, BufferedSink, DirectSink, Sink};
use avrokit::serde::SerPlan;
use avrokit::value::{read_value, write_value};
use avrokit::{Decoder, Encoder, Error, ErrorKind, Schema, Value};
use common::codecs;

// ------------------------------------------------------------------ failing sinks

/// How the sink fails once its budget is spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// `write` returns this error kind.
    Error(io::ErrorKind),
    /// `write` returns `Ok(0)` (which `write_all` turns into `WriteZero`).
    Zero,
    /// Writes all succeed; `flush` fails once the budget is spent.
    Flush,
}

const FAILURES: [Failure; 5] = [
    Failure::Error(io::ErrorKind::WriteZero),
    Failure::Error(io::ErrorKind::StorageFull),
    Failure::Error(io::ErrorKind::BrokenPipe),
    Failure::Zero,
    Failure::Flush,
];

/// A sink that accepts `limit` bytes (at most 7 per call, so a failure can land inside a
/// `write_all`), then fails as `failure` says, once or (`recovers: false`) for good. Its bytes
/// are shared, so they can be inspected after the writer that owns the sink is gone.
#[derive(Clone, Debug)]
struct FailAfter {
    bytes: Rc<RefCell<Vec<u8>>>,
    limit: usize,
    failure: Failure,
    /// After failing once, accept everything again (a transient failure).
    recovers: bool,
    failed: Rc<RefCell<bool>>,
}

impl FailAfter {
    fn new(limit: usize, failure: Failure, recovers: bool) -> FailAfter {
        FailAfter {
            bytes: Rc::default(),
            limit,
            failure,
            recovers,
            failed: Rc::default(),
        }
    }

    fn written(&self) -> Vec<u8> {
        self.bytes.borrow().clone()
    }

    fn spent(&self) -> bool {
        self.bytes.borrow().len() >= self.limit && !(self.recovers && *self.failed.borrow())
    }
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.failure != Failure::Flush && self.spent() {
            *self.failed.borrow_mut() = true;
            return match self.failure {
                Failure::Error(kind) => Err(io::Error::new(kind, "the sink failed")),
                _ => Ok(0),
            };
        }
        let room = if (self.recovers && *self.failed.borrow()) || self.failure == Failure::Flush {
            usize::MAX
        } else {
            self.limit - self.bytes.borrow().len()
        };
        let n = buf.len().min(7).min(room);
        self.bytes.borrow_mut().extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failure == Failure::Flush && self.spent() {
            *self.failed.borrow_mut() = true;
            return Err(io::Error::other("flush failed"));
        }
        Ok(())
    }
}

/// The kind of I/O error a failure shows as.
fn io_kind(f: Failure) -> io::ErrorKind {
    match f {
        Failure::Error(k) => k,
        Failure::Zero => io::ErrorKind::WriteZero,
        Failure::Flush => io::ErrorKind::Other,
    }
}

/// Checks that `e` is the sink's failure (or the poisoned writer's refusal).
#[track_caller]
fn assert_sink_error(e: &Error, failure: Failure, ctx: &str) {
    assert_eq!(e.kind(), ErrorKind::Io, "{ctx}: {e}");
    let source = std::error::Error::source(e).and_then(|s| s.downcast_ref::<io::Error>());
    match source {
        Some(io) => assert_eq!(io.kind(), io_kind(failure), "{ctx}: {e}"),
        None => assert!(e.message().contains("poisoned"), "{ctx}: {e}"),
    }
}

/// A writer that takes at most 3 bytes per call and answers every other call of `write`,
/// `write_vectored` and `flush` with `Interrupted`. Its vectored writes take their 3 bytes
/// across the slices' boundaries.
#[derive(Default)]
struct Interrupting {
    data: Vec<u8>,
    flip: bool,
    flushes: usize,
}

impl Write for Interrupting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.flip = !self.flip;
        if self.flip {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(3);
        self.data.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.flip = !self.flip;
        if self.flip {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let mut n = 0;
        for b in bufs {
            let k = b.len().min(3 - n);
            self.data.extend_from_slice(&b[..k]);
            n += k;
        }
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.flip = !self.flip;
        if self.flip {
            return Err(io::ErrorKind::Interrupted.into());
        }
        self.flushes += 1;
        Ok(())
    }
}

// ------------------------------------------------------------------ data

const SCHEMA: &str = r#"{"type":"record","name":"Ev","fields":[
    {"name":"id","type":"long"},
    {"name":"name","type":"string"},
    {"name":"tags","type":{"type":"array","items":"string"}},
    {"name":"score","type":["null","double"]}]}"#;

#[derive(serde::Serialize)]
struct Ev {
    id: i64,
    name: String,
    tags: Vec<String>,
    score: Option<f64>,
}

fn schema() -> Schema {
    Schema::parse_str(SCHEMA).unwrap()
}

fn ev(i: i64) -> Ev {
    Ev {
        id: i,
        name: format!("event {i}"),
        tags: (0..i % 3).map(|t| format!("t{t}")).collect(),
        score: (i % 2 == 0).then_some(i as f64 / 4.0),
    }
}

fn value(i: i64) -> Value {
    let e = ev(i);
    Value::Record(vec![
        Value::Long(e.id),
        Value::String(e.name),
        Value::Array(e.tags.into_iter().map(Value::String).collect()),
        match e.score {
            None => Value::Union(0, Box::new(Value::Null)),
            Some(s) => Value::Union(1, Box::new(Value::Double(s))),
        },
    ])
}

const N: i64 = 23;

fn values() -> Vec<Value> {
    (0..N).map(value).collect()
}

fn builder(codec: Codec) -> WriterBuilder {
    WriterBuilder::new(&schema())
        .with_codec(codec)
        .with_block_records(4)
        .with_sync_marker([0x5a; 16])
}

/// Appends record `i` one of three ways (value, serde, pre-encoded), and flushes after every
/// fifth record, so that blocks end both ways.
fn append<W: Write>(w: &mut Writer<W>, i: i64, plan: &SerPlan) -> avrokit::Result<()> {
    match i % 3 {
        0 => w.append(&value(i))?,
        1 => w.append_serde(&ev(i), plan)?,
        _ => w.append_encoded(&avrokit::to_datum_vec(&value(i), &schema())?)?,
    }
    if i % 5 == 4 {
        w.flush()?;
    }
    Ok(())
}

/// The whole file, written to a sink that never fails.
fn full_file(codec: Codec) -> Vec<u8> {
    let plan = SerPlan::compile(&schema()).unwrap();
    let mut w = builder(codec).build(Vec::new()).unwrap();
    for i in 0..N {
        append(&mut w, i, &plan).unwrap();
    }
    w.finish().unwrap()
}

/// Block boundaries of a complete file: (end offset, records up to there), header first.
fn boundaries(file: &[u8]) -> Vec<(u64, usize)> {
    let mut r = Reader::from_slice(file).unwrap();
    let mut out = vec![(r.header().len(), 0)];
    let mut records = 0;
    while let Some(b) = r.next_raw_block().unwrap() {
        records += b.count() as usize;
        out.push((b.header().data_offset + b.header().size + 16, records));
    }
    out
}

/// Reads a (possibly cut) file: the records, and the error that ended it.
fn read_back(bytes: &[u8]) -> (Vec<Value>, Option<Error>) {
    let mut out = Vec::new();
    let r = match Reader::from_slice(bytes) {
        Ok(r) => r,
        Err(e) => return (out, Some(e)),
    };
    for v in r {
        match v {
            Ok(v) => out.push(v),
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}

/// What a reader must make of the first `len` bytes of `full`: exactly the records of the
/// complete blocks, then a clean end exactly at a block boundary, else an end-of-input error.
#[track_caller]
fn assert_prefix_reads_back(written: &[u8], full: &[u8], ctx: &str) {
    assert_eq!(
        written,
        &full[..written.len()],
        "{ctx}: the sink holds a prefix of the file"
    );
    let bounds = boundaries(full);
    let (got, err) = read_back(written);
    let complete = bounds
        .iter()
        .take_while(|(end, _)| *end <= written.len() as u64)
        .last()
        .map_or(0, |&(_, n)| n);
    assert_eq!(
        got,
        values()[..complete],
        "{ctx}: the records of the complete blocks"
    );
    let at_boundary = bounds.iter().any(|&(end, _)| end == written.len() as u64);
    match err {
        None => assert!(at_boundary, "{ctx}: read cleanly at {}", written.len()),
        Some(e) => {
            assert!(!at_boundary, "{ctx}: {e}");
            assert!(e.is_eof(), "{ctx}: {e}");
        }
    }
}

/// Every call of a poisoned writer fails. `full` is a complete file of the writer's codec.
#[track_caller]
fn assert_poisoned<W: Write>(w: &mut Writer<W>, plan: &SerPlan, full: &[u8], ctx: &str) {
    assert!(w.is_poisoned(), "{ctx}");
    let refused = |r: avrokit::Result<()>, what: &str| {
        let e = r.expect_err(&format!("{ctx}: {what} on a poisoned writer"));
        assert_eq!(e.kind(), ErrorKind::Io, "{ctx}: {what}: {e}");
        assert!(e.message().contains("poisoned"), "{ctx}: {what}: {e}");
    };
    refused(w.append(&value(0)), "append");
    refused(w.append_serde(&ev(1), plan), "append_serde");
    refused(w.append_encoded(&[0, 0, 0, 0]), "append_encoded");
    let mut r = Reader::from_slice(full).unwrap();
    let block = r.next_raw_block().unwrap().unwrap();
    refused(w.append_raw_block(&block), "append_raw_block");
    refused(
        w.append_blocks_from(&mut Reader::from_slice(full).unwrap())
            .map(drop),
        "append_blocks_from",
    );
    refused(w.flush(), "flush");
}

// ------------------------------------------------------------------ container writer

/// Writes the file into `FailAfter(limit)`, compressing on `threads` threads; returns whether
/// a call failed, and the sink.
fn write_failing(
    codec: Codec,
    threads: usize,
    full: &[u8],
    limit: usize,
    failure: Failure,
    recovers: bool,
) -> (bool, FailAfter) {
    let sink = FailAfter::new(limit, failure, recovers);
    let plan = SerPlan::compile(&schema()).unwrap();
    let ctx =
        format!("{codec}, {threads} threads, {failure:?}, limit {limit}, recovers {recovers}");
    let mut w = match builder(codec).with_threads(threads).build(sink.clone()) {
        Ok(w) => w,
        Err(e) => {
            assert_sink_error(&e, failure, &ctx);
            assert!(e.message().contains("header"), "{ctx}: {e}");
            return (true, sink);
        }
    };
    let mut durable = 0; // records known to be in the sink
    for i in 0..N {
        match append(&mut w, i, &plan) {
            Ok(()) => {
                if w.pending_records() == 0 {
                    durable = i as usize + 1;
                }
            }
            Err(e) => {
                assert_sink_error(&e, failure, &ctx);
                assert!(
                    e.message().contains("poisoned"),
                    "{ctx}: the error says the writer is poisoned: {e}"
                );
                assert_poisoned(&mut w, &plan, full, &ctx);
                let at = sink.written().len();
                let e = w.finish().expect_err(&ctx);
                assert_sink_error(&e, failure, &ctx);
                assert_eq!(
                    sink.written().len(),
                    at,
                    "{ctx}: nothing written after poisoning"
                );
                let (got, _) = read_back(&sink.written());
                assert!(
                    got.len() >= durable,
                    "{ctx}: {} < {durable} durable",
                    got.len()
                );
                return (true, sink);
            }
        }
    }
    match w.finish() {
        Ok(_) => (false, sink),
        Err(e) => {
            assert_sink_error(&e, failure, &ctx);
            (true, sink)
        }
    }
}

/// The sink limits to try on `full`: all of them when `exhaustive`, else every `step`-th and
/// those around the block boundaries (to keep the slow codecs quick).
fn limits(full: &[u8], exhaustive: bool, step: usize) -> Vec<usize> {
    let bounds = boundaries(full);
    (0..=full.len())
        .filter(|&n| {
            exhaustive
                || n % step == 0
                || bounds.iter().any(|&(end, _)| (n as u64).abs_diff(end) <= 1)
        })
        .collect()
}

/// Writes `full`'s records on `threads` threads into a sink failing at `limit`, and checks
/// that a loss was reported exactly when there was one, and what the sink holds.
fn check_failing_write(codec: Codec, threads: usize, full: &[u8], limit: usize, failure: Failure) {
    let ctx = format!("{codec}, {threads} threads, {failure:?}, limit {limit}");
    let (failed, sink) = write_failing(codec, threads, full, limit, failure, false);
    let written = sink.written();
    if failure == Failure::Flush {
        // Every byte got through, but the flush that should have made them durable failed:
        // that must be reported.
        assert_eq!(failed, limit <= full.len(), "{ctx}");
    } else {
        assert_eq!(
            failed,
            limit < full.len(),
            "{ctx}: Ok although bytes were lost"
        );
        assert_eq!(written.len(), limit.min(full.len()), "{ctx}");
    }
    assert_prefix_reads_back(&written, full, &ctx);
}

#[test]
fn a_container_writer_over_a_failing_sink_reports_it_and_loses_no_complete_block() {
    for codec in codecs() {
        let full = full_file(codec);
        // Every failure at every offset for null and snappy; one failure for the others
        // (whose framing is the same), at every offset for deflate, and for the slow codecs
        // at every fifth offset and around every block boundary, to keep the suite quick.
        let failures: &[Failure] = if matches!(codec, Codec::Null | Codec::Snappy) {
            &FAILURES
        } else {
            &FAILURES[..1]
        };
        let exhaustive = matches!(codec, Codec::Null | Codec::Snappy | Codec::Deflate { .. });
        for &failure in failures {
            for limit in limits(&full, exhaustive, 5) {
                check_failing_write(codec, 1, &full, limit, failure);
            }
        }
    }
}

#[test]
fn a_writer_compressing_on_threads_over_a_failing_sink_loses_no_complete_block() {
    // Blocks reach the sink after later appends than alone, but the same guarantees hold: the
    // sink holds a prefix of the single-threaded file, and every loss is reported.
    for codec in codecs().into_iter().filter(|c| *c != Codec::Null) {
        let full = full_file(codec);
        let exhaustive = matches!(codec, Codec::Snappy | Codec::Deflate { .. });
        for threads in [2, 3] {
            for limit in limits(&full, exhaustive, 7) {
                for failure in [Failure::Error(io::ErrorKind::StorageFull), Failure::Flush] {
                    check_failing_write(codec, threads, &full, limit, failure);
                }
            }
        }
    }
}

#[test]
fn a_failure_that_goes_away_still_poisons_the_writer() {
    // A sink that fails once, then would accept everything: what follows the failure must not
    // be written after a partial block, where no reader would find it.
    for codec in [Codec::Null, Codec::Snappy]
        .into_iter()
        .filter(Codec::is_enabled)
    {
        let full = full_file(codec);
        for limit in 0..full.len() {
            for failure in [Failure::Error(io::ErrorKind::StorageFull), Failure::Zero] {
                let ctx = format!("{codec}, {failure:?}, limit {limit}, transient");
                let (failed, sink) = write_failing(codec, 1, &full, limit, failure, true);
                assert!(failed, "{ctx}");
                assert_eq!(
                    sink.written().len(),
                    limit,
                    "{ctx}: written after the failure"
                );
                assert_prefix_reads_back(&sink.written(), &full, &ctx);
            }
        }
    }
}

#[test]
fn a_buffered_container_writer_reports_failures_at_finish() {
    // Behind a BufWriter the failure shows at the flush that pushes the bytes out: `finish`
    // must fail then, not report success.
    let codec = Codec::Null;
    let full = full_file(codec);
    let plan = SerPlan::compile(&schema()).unwrap();
    for limit in 0..=full.len() {
        let ctx = format!("BufWriter, limit {limit}");
        let sink = FailAfter::new(limit, Failure::Error(io::ErrorKind::StorageFull), false);
        let r = (|| -> Result<(), String> {
            let mut w = builder(codec)
                .build(BufWriter::with_capacity(100, sink.clone()))
                .map_err(|e| e.to_string())?;
            for i in 0..N {
                append(&mut w, i, &plan).map_err(|e| e.to_string())?;
            }
            let mut inner = w.finish().map_err(|e| e.to_string())?;
            inner.flush().map_err(|e| e.to_string())
        })();
        assert_eq!(r.is_err(), limit < full.len(), "{ctx}: {r:?}");
        assert_prefix_reads_back(&sink.written(), &full, &ctx);
    }
}

#[test]
fn a_writer_dropped_without_finish_writes_its_pending_block_best_effort() {
    // Decided behaviour (see `Writer`'s docs): dropping a writer writes the records still
    // pending, as `BufWriter` does, and ignores a failure (only `finish` can report it). What
    // reached the sink reads back as its complete blocks, then a clean end or end of input.
    for codec in codecs() {
        // Unflushed: 6 records, block size 4, so one block is written by `append` and one by
        // the drop.
        let mut full = Vec::new();
        {
            let mut w = builder(codec).build(&mut full).unwrap();
            for i in 0..6 {
                w.append(&value(i)).unwrap();
            }
            assert_eq!(w.pending_records(), 2);
        }
        let (got, err) = read_back(&full);
        assert!(err.is_none(), "{codec}: {err:?}");
        assert_eq!(got, values()[..6], "{codec}");
        for limit in 0..=full.len() {
            let sink = FailAfter::new(limit, Failure::Error(io::ErrorKind::BrokenPipe), false);
            if let Ok(mut w) = builder(codec).build(sink.clone()) {
                for i in 0..6 {
                    if w.append(&value(i)).is_err() {
                        break;
                    }
                }
            }
            let ctx = format!("{codec}, dropped, limit {limit}");
            assert_eq!(sink.written().len(), limit.min(full.len()), "{ctx}");
            assert_prefix_reads_back(&sink.written(), &full, &ctx);
        }
    }
}

/// Whole blocks written from the caller's bytes (`append_encoded_many`, null codec) go out as
/// one vectored write of three parts (count and size, payload, sync marker); a sink that takes
/// them 3 bytes at a time, across the parts, with interruptions, gets the same file.
#[test]
fn vectored_writes_are_retried_across_parts() {
    let mut data = Vec::new();
    let mut ends = Vec::new();
    for i in 0..40 {
        data.extend(avrokit::to_datum_vec(&value(i), &schema()).unwrap());
        ends.push(data.len());
    }
    let b = || builder(Codec::Null).with_block_records(7);
    let mut w = b().build(Vec::new()).unwrap();
    w.append_encoded_many(&data, &ends).unwrap();
    let full = w.finish().unwrap();
    let mut w = b().build(Interrupting::default()).unwrap();
    w.append_encoded_many(&data, &ends).unwrap();
    assert_eq!(w.finish().unwrap().data, full);
    let (got, err) = read_back(&full);
    assert!(err.is_none(), "{err:?}");
    assert_eq!(got.len(), 40);
}

#[test]
fn sinks_that_are_interrupted_are_retried() {
    for codec in codecs() {
        let full = full_file(codec);
        let plan = SerPlan::compile(&schema()).unwrap();
        let mut w = builder(codec).build(Interrupting::default()).unwrap();
        for i in 0..N {
            append(&mut w, i, &plan).unwrap();
        }
        let sink = w.finish().unwrap();
        assert_eq!(sink.data, full, "{codec}");
        assert!(sink.flushes >= 4, "{codec}: {}", sink.flushes);
    }
}

// ------------------------------------------------------------------ the bare encoder

/// Writes every record with `write_value`, then flushes: the first error, and whether a call
/// after it succeeded (which it must not).
fn encode_all<S: Sink>(enc: &mut Encoder<S>) -> Option<(Error, bool)> {
    let s = schema();
    let mut first: Option<Error> = None;
    let mut later_ok = false;
    for v in values() {
        match write_value(enc, &v, &s) {
            Ok(()) => later_ok |= first.is_some(),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    match enc.flush() {
        Ok(()) => later_ok |= first.is_some(),
        Err(e) => {
            first.get_or_insert(e);
        }
    }
    if first.is_some() {
        // And once more, after the error.
        later_ok |= write_value(enc, &values()[0], &s).is_ok() && enc.flush().is_ok();
    }
    first.map(|e| (e, later_ok))
}

/// The datums of a (possibly cut) stream: the complete ones, then a clean end or Eof.
#[track_caller]
fn assert_datums_read_back(written: &[u8], full: &[u8], ctx: &str) {
    assert_eq!(written, &full[..written.len()], "{ctx}: a prefix");
    let s = schema();
    let mut dec = Decoder::from_slice(written);
    let mut n = 0;
    while !dec.rest().is_empty() {
        match read_value(&mut dec, &s) {
            Ok(v) => {
                assert_eq!(v, values()[n], "{ctx}: datum {n}");
                n += 1;
            }
            Err(e) => {
                assert!(e.is_eof(), "{ctx}: {e}");
                return;
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum SinkKind {
    Buffered16,
    Buffered,
    Direct,
    BlockingBuffered,
    BlockingDirect,
}

const SINKS: [SinkKind; 5] = [
    SinkKind::Buffered16,
    SinkKind::Buffered,
    SinkKind::Direct,
    SinkKind::BlockingBuffered,
    SinkKind::BlockingDirect,
];

/// Runs `encode_all` over `w` through the sink `kind`.
fn encode_through<W: Write>(kind: SinkKind, w: W) -> Option<(Error, bool)> {
    match kind {
        SinkKind::Buffered16 => encode_all(&mut Encoder::new(BufferedSink::with_capacity(16, w))),
        SinkKind::Buffered => encode_all(&mut Encoder::new(BufferedSink::new(w))),
        SinkKind::Direct => encode_all(&mut Encoder::new(DirectSink::new(w))),
        SinkKind::BlockingBuffered => encode_all(&mut Encoder::new(BlockingSink::new(
            BufferedSink::with_capacity(16, w),
            8,
        ))),
        SinkKind::BlockingDirect => {
            encode_all(&mut Encoder::new(BlockingSink::new(DirectSink::new(w), 8)))
        }
    }
}

#[test]
fn an_encoder_over_a_failing_writer_reports_it_and_stays_failed() {
    for kind in SINKS {
        let mut full = Vec::new();
        assert!(encode_through(kind, &mut full).is_none(), "{kind:?}");
        // Every failure for the plain sinks; a write and a flush failure for the others.
        let failures: &[Failure] = match kind {
            SinkKind::Buffered16 | SinkKind::Direct => &FAILURES,
            _ => &[Failure::Error(io::ErrorKind::WriteZero), Failure::Flush],
        };
        for &failure in failures {
            for recovers in [false, true] {
                for limit in 0..=full.len() {
                    let ctx = format!("{kind:?}, {failure:?}, limit {limit}, recovers {recovers}");
                    let sink = FailAfter::new(limit, failure, recovers);
                    let r = encode_through(kind, sink.clone());
                    let lost = if failure == Failure::Flush {
                        limit <= full.len()
                    } else {
                        limit < full.len()
                    };
                    match r {
                        None => assert!(!lost, "{ctx}: Ok although bytes were lost"),
                        Some((e, later_ok)) => {
                            assert!(lost, "{ctx}: {e}");
                            assert_sink_error(&e, failure, &ctx);
                            assert!(!later_ok, "{ctx}: a call succeeded after the failure");
                        }
                    }
                    let written = sink.written();
                    if failure != Failure::Flush && !recovers {
                        assert_eq!(written.len(), limit.min(full.len()), "{ctx}");
                    }
                    let upto = written.len().min(limit).min(full.len());
                    if recovers && failure != Failure::Flush {
                        // Nothing may follow the failure.
                        assert_eq!(written.len(), upto, "{ctx}: written after the failure");
                    }
                    assert_datums_read_back(&written[..upto], &full, &ctx);
                }
            }
        }
    }
}

#[test]
fn an_encoder_over_an_interrupted_writer_retries() {
    for kind in SINKS {
        let mut full = Vec::new();
        assert!(encode_through(kind, &mut full).is_none());
        let shared = Rc::new(RefCell::new(Interrupting::default()));
        struct Share(Rc<RefCell<Interrupting>>);
        impl Write for Share {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0.borrow_mut().write(buf)
            }
            fn flush(&mut self) -> io::Result<()> {
                self.0.borrow_mut().flush()
            }
        }
        assert!(
            encode_through(kind, Share(shared.clone())).is_none(),
            "{kind:?}"
        );
        assert_eq!(shared.borrow().data, full, "{kind:?}");
        assert!(shared.borrow().flushes >= 1, "{kind:?}");
    }
}
