//! Blocks decoded on several threads, results in file order: [`ParBlocks`] (one result per
//! block, from a function over a borrowed [`Block`]) and [`ParRecords`] (the records, for
//! `Value`s, serde types, generated codecs or any decoding function).
//!
//! The caller's thread reads the framing (the input need not be `Send`) and hands each block's
//! payload, owned, to a pool of workers, which decompress it, check its count and run the
//! function over the block; results are put back in file order. At most two blocks per
//! worker are in flight, so memory stays bounded by the block size. Payload and decompression
//! buffers are reused from block to block. When no thread can be started, the blocks are
//! decoded on the caller's thread, with the same results.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use super::input::Input;
use super::records::BlockDecoding;
use super::{Block, Reader};
use crate::codec::{AvroDecodeOwned, CodecPlan};
use crate::container::framing::BlockHeader;
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::resolution::ResolvedPlan;
use crate::schema::Schema;
use crate::serde::{AvroSchema, DePlan};
use crate::value::{read_value, read_value_resolved, Value};

/// One block handed to a worker.
struct Job {
    seq: u64,
    header: BlockHeader,
    payload: Vec<u8>,
}

/// The per-block function, shared by the workers.
type BlockFn<U> = dyn Fn(Block<'_>) -> Result<U> + Send + Sync;

/// A block's result, with its payload buffer back.
type Done<U> = (u64, Vec<u8>, Result<U>);

/// What a worker needs to turn a payload into a result: the block checks and buffers of
/// [`BlockDecoding`], the file's schema and the function.
struct Work<F: ?Sized> {
    decoding: BlockDecoding,
    schema: Schema,
    f: Arc<F>,
}

impl<F: ?Sized> Work<F> {
    fn run<U>(&mut self, h: &BlockHeader, payload: &[u8]) -> Result<U>
    where
        F: Fn(Block<'_>) -> Result<U>,
    {
        let (limits, in_file) = (self.decoding.limits(), self.decoding.in_file());
        let data = self.decoding.load(h, payload)?;
        (self.f)(Block::new(data, *h, limits, in_file, &self.schema, None))
    }
}

struct Pool<U> {
    jobs: Option<mpsc::SyncSender<Job>>,
    done: mpsc::Receiver<Done<U>>,
    workers: Vec<thread::JoinHandle<()>>,
}

impl<U> Drop for Pool<U> {
    fn drop(&mut self) {
        // Closing the queue ends every worker after its current block.
        self.jobs.take();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// The results of a function over every remaining block of a [`Reader`], computed on worker
/// threads and given in file order. Made by [`Reader::par_blocks`].
///
/// After the first error (in the framing, a decompression, or from the function) it ends. The
/// reader is left after the last block handed to a worker; dropping the iterator early drops
/// the blocks in flight.
pub struct ParBlocks<'r, 'a, R, U> {
    reader: &'r mut Reader<'a, R>,
    pool: Option<Pool<U>>,
    /// Decodes on the caller's thread when no worker could start.
    inline: Option<Work<BlockFn<U>>>,
    in_flight: usize,
    sent: u64,
    next: u64,
    finished: BTreeMap<u64, (Vec<u8>, Result<U>)>,
    /// A framing error, given after the results of the blocks before it.
    input_error: Option<Error>,
    input_done: bool,
    failed: bool,
    spare: Vec<Vec<u8>>,
}

impl<'r, 'a, R: Read, U: Send + 'static> ParBlocks<'r, 'a, R, U> {
    fn new<F>(reader: &'r mut Reader<'a, R>, threads: usize, f: F) -> Self
    where
        F: Fn(Block<'_>) -> Result<U> + Send + Sync + 'static,
    {
        let threads = if threads == 0 {
            thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        reader.cur.left = 0;
        let f: Arc<BlockFn<U>> = Arc::new(f);
        let work = |f: Arc<BlockFn<U>>| -> Result<Work<_>> {
            Ok(Work {
                decoding: BlockDecoding::new(reader.codec, reader.min_record_size, reader.limits)?,
                schema: reader.schema.clone(),
                f,
            })
        };
        let mut input_error = None;
        let (pool, inline) = match start(threads, || work(f.clone())) {
            Ok(Some(pool)) => (Some(pool), None),
            Ok(None) => match work(f.clone()) {
                Ok(w) => (None, Some(w)),
                Err(e) => {
                    input_error = Some(e);
                    (None, None)
                }
            },
            Err(e) => {
                input_error = Some(e);
                (None, None)
            }
        };
        let input_done = input_error.is_some() || reader.done;
        let mut blocks = ParBlocks {
            reader,
            pool,
            inline,
            in_flight: threads * 2,
            sent: 0,
            next: 0,
            finished: BTreeMap::new(),
            input_error,
            input_done,
            failed: false,
            spare: Vec::new(),
        };
        // A block the reader already read ahead (to decompress it) comes first.
        if !blocks.input_done && blocks.reader.prefetch.has_block() {
            match blocks.reader.prefetch.take_raw() {
                Ok(Some((h, payload))) => blocks.send(h, payload),
                Ok(None) => {}
                Err(e) => blocks.end_input(Err(e)),
            }
        }
        blocks
    }

    fn end_input(&mut self, e: Result<()>) {
        self.input_done = true;
        self.reader.done = true;
        if let Err(e) = e {
            self.input_error.get_or_insert(e);
        }
    }

    /// Hands block `h` to a worker, or decodes it here without one.
    fn send(&mut self, h: BlockHeader, payload: Vec<u8>) {
        let seq = self.sent;
        self.sent += 1;
        if let Some(work) = &mut self.inline {
            let r = work.run(&h, &payload);
            self.finished.insert(seq, (payload, r));
            return;
        }
        let Some(jobs) = self.pool.as_ref().and_then(|p| p.jobs.as_ref()) else {
            self.sent -= 1;
            return self.end_input(Err(stopped()));
        };
        if jobs
            .send(Job {
                seq,
                header: h,
                payload,
            })
            .is_err()
        {
            self.sent -= 1;
            self.end_input(Err(stopped()));
        }
    }

    /// Reads frames until `in_flight` blocks are out or the input ends.
    fn fill(&mut self) {
        while !self.input_done && self.sent - self.next < self.in_flight as u64 {
            let payload = self.spare.pop().unwrap_or_default();
            match self.reader.next_owned_frame(payload) {
                Ok(Some((h, payload))) => self.send(h, payload),
                Ok(None) => self.end_input(Ok(())),
                Err(e) => self.end_input(Err(e)),
            }
        }
    }
}

impl<R: Read, U: Send + 'static> Iterator for ParBlocks<'_, '_, R, U> {
    type Item = Result<U>;

    fn next(&mut self) -> Option<Result<U>> {
        if self.failed {
            return None;
        }
        self.fill();
        if self.next == self.sent {
            self.failed = true;
            return self.input_error.take().map(Err);
        }
        while !self.finished.contains_key(&self.next) {
            let got = match &self.pool {
                Some(pool) => pool.done.recv().map_err(|_| stopped()),
                None => Err(stopped()),
            };
            match got {
                Ok((seq, payload, r)) => {
                    self.finished.insert(seq, (payload, r));
                }
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        let (payload, r) = self.finished.remove(&self.next)?;
        self.next += 1;
        self.spare.push(payload);
        if r.is_err() {
            self.stop();
        }
        Some(r)
    }
}

impl<R, U> ParBlocks<'_, '_, R, U> {
    /// Ends the iterator and the reader, as an error ends the sequential reader. What is still
    /// in flight is dropped with the pool.
    fn stop(&mut self) {
        self.failed = true;
        self.reader.done = true;
        self.pool = None;
    }
}

/// Starts `threads` workers; `Ok(None)` when not even one thread could start.
fn start<U, F>(threads: usize, mut work: impl FnMut() -> Result<Work<F>>) -> Result<Option<Pool<U>>>
where
    U: Send + 'static,
    F: Fn(Block<'_>) -> Result<U> + Send + Sync + ?Sized + 'static,
{
    let (jobs_tx, jobs_rx) = mpsc::sync_channel::<Job>(threads);
    let jobs_rx = Arc::new(Mutex::new(jobs_rx));
    let (done_tx, done) = mpsc::channel::<Done<U>>();
    let mut workers = Vec::with_capacity(threads);
    for i in 0..threads {
        let mut w = work()?;
        let jobs_rx = jobs_rx.clone();
        let done_tx = done_tx.clone();
        let spawned = thread::Builder::new()
            .name(format!("avrokit-decode-{i}"))
            .spawn(move || loop {
                let job = match jobs_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok(job) = job else { return };
                let r = w.run(&job.header, &job.payload);
                if done_tx.send((job.seq, job.payload, r)).is_err() {
                    return;
                }
            });
        match spawned {
            Ok(h) => workers.push(h),
            Err(_) => break,
        }
    }
    if workers.is_empty() {
        return Ok(None);
    }
    Ok(Some(Pool {
        jobs: Some(jobs_tx),
        done,
        workers,
    }))
}

#[cold]
fn stopped() -> Error {
    Error::new(ErrorKind::Io, "a decoding thread stopped")
}

/// A block's records, and the error that ended them early.
type Decoded<T> = (Vec<T>, Option<Error>);

/// The records of every remaining block of a [`Reader`], decoded on worker threads, in file
/// order. Made by [`Reader::par_values`], [`Reader::par_serde_iter`],
/// [`Reader::par_codec_iter`] and [`Reader::par_iter_with`].
///
/// Yields exactly what the sequential reader yields: the same records, then the same error
/// (after which it ends).
pub struct ParRecords<'r, 'a, R, T> {
    blocks: ParBlocks<'r, 'a, R, Decoded<T>>,
    current: std::vec::IntoIter<T>,
    /// The error after the records of the current block.
    tail: Option<Error>,
    /// An error before any record (a plan for another schema).
    first: Option<Error>,
    done: bool,
}

impl<R: Read, T: Send + 'static> Iterator for ParRecords<'_, '_, R, T> {
    type Item = Result<T>;

    #[inline]
    fn next(&mut self) -> Option<Result<T>> {
        loop {
            if let Some(v) = self.current.next() {
                return Some(Ok(v));
            }
            if let Some(e) = self.first.take().or_else(|| self.tail.take()) {
                self.done = true;
                self.blocks.stop();
                return Some(Err(e));
            }
            if self.done {
                return None;
            }
            match self.blocks.next() {
                None => {
                    self.done = true;
                    return None;
                }
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Some(Ok((records, tail))) => {
                    self.current = records.into_iter();
                    self.tail = tail;
                }
            }
        }
    }
}

impl<'a, R: Read> Reader<'a, R> {
    /// Runs `f` over every remaining block on `threads` worker threads (0: one per core),
    /// and yields its results in file order. `f` gets each block decompressed and
    /// count-checked, and reads its records borrowed (see [`Block`]); a per-block aggregate,
    /// a filter or a conversion to another format fits here.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Codec, Reader, WriterBuilder};
    /// use avrokit::serde::DePlan;
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""string""#)?;
    /// let mut w = WriterBuilder::new(&schema).with_codec(Codec::DEFLATE).with_block_records(10).build(Vec::new())?;
    /// for i in 0..100 {
    ///     w.append(&Value::String("x".repeat(i % 7)))?;
    /// }
    /// let file = w.into_inner()?;
    ///
    /// let mut r = Reader::from_slice(&file)?;
    /// let plan = DePlan::compile(r.schema())?;
    /// // The total length of the strings, block by block, borrowing them from each block.
    /// let lens = r.par_blocks(2, move |block| {
    ///     block.serde_iter::<&str>(&plan).map(|s| s.map(str::len)).sum::<Result<usize, _>>()
    /// });
    /// let total: usize = lens.sum::<Result<usize, _>>()?;
    /// assert_eq!(total, (0..100usize).map(|i| i % 7).sum::<usize>());
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    pub fn par_blocks<U, F>(&mut self, threads: usize, f: F) -> ParBlocks<'_, 'a, R, U>
    where
        U: Send + 'static,
        F: Fn(Block<'_>) -> Result<U> + Send + Sync + 'static,
    {
        ParBlocks::new(self, threads, f)
    }

    /// The remaining records, each read by `read` on `threads` worker threads (0: one per
    /// core), in file order. The general form of the `par_*` readers.
    pub fn par_iter_with<T, F>(&mut self, threads: usize, read: F) -> ParRecords<'_, 'a, R, T>
    where
        T: Send + 'static,
        F: for<'de> Fn(&mut Decoder<'de>) -> Result<T> + Send + Sync + 'static,
    {
        self.par_records(threads, None, read)
    }

    /// The remaining records as [`Value`]s of the reader schema (as the iterator reads them,
    /// but a datum reader installed with [`set_datum_reader`](Self::set_datum_reader) is not
    /// used), decoded on `threads` worker threads (0: one per core), in file order.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Codec, Reader, WriterBuilder};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""long""#)?;
    /// let mut w = WriterBuilder::new(&schema).with_codec(Codec::Snappy).with_block_records(100).build(Vec::new())?;
    /// for i in 0..1000 {
    ///     w.append(&Value::Long(i))?;
    /// }
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let values = r.par_values(4).collect::<Result<Vec<_>, _>>()?;
    /// assert_eq!(values, (0..1000).map(Value::Long).collect::<Vec<_>>());
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    pub fn par_values(&mut self, threads: usize) -> ParRecords<'_, 'a, R, Value> {
        let plan: Option<ResolvedPlan> = self.resolved.clone();
        let schema = self.schema.clone();
        self.par_records(threads, None, move |dec| match &plan {
            Some(p) => read_value_resolved(dec, p),
            None => read_value(dec, &schema),
        })
    }

    /// The remaining records as `T`s through `plan` (see [`next_serde`](Self::next_serde)),
    /// decoded on `threads` worker threads (0: one per core), in file order.
    pub fn par_serde_iter<T>(&mut self, plan: &DePlan, threads: usize) -> ParRecords<'_, 'a, R, T>
    where
        T: serde::de::DeserializeOwned + Send + 'static,
    {
        let first = (!self.is_file_schema(plan.writer())).then(|| {
            Error::schema("par_serde_iter: the plan's writer schema is not the file's schema")
        });
        let plan = plan.clone();
        self.par_records(threads, first, move |dec| {
            crate::serde::deserialize_from(dec, &plan)
        })
    }

    /// The remaining records as `T`s through a [`CodecPlan`] compiled here once (see
    /// [`codec_iter`](Self::codec_iter)), decoded on `threads` worker threads (0: one per
    /// core), in file order.
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`] when the file's schema cannot be read as `T`'s.
    pub fn par_codec_iter<T>(&mut self, threads: usize) -> Result<ParRecords<'_, 'a, R, T>>
    where
        T: AvroSchema + AvroDecodeOwned + serde::de::DeserializeOwned + Send + 'static,
    {
        let plan = CodecPlan::<T>::reading(self.schema())?;
        Ok(self.par_records(threads, None, move |dec| plan.decode(dec)))
    }

    fn par_records<T, F>(
        &mut self,
        threads: usize,
        first: Option<Error>,
        read: F,
    ) -> ParRecords<'_, 'a, R, T>
    where
        T: Send + 'static,
        F: for<'de> Fn(&mut Decoder<'de>) -> Result<T> + Send + Sync + 'static,
    {
        let blocks = self.par_blocks(threads, move |block| {
            let mut out = Vec::with_capacity(block.count().min(1 << 16) as usize);
            for r in block.records_with(|dec| read(dec)) {
                match r {
                    Ok(v) => out.push(v),
                    Err(e) => return Ok((out, Some(e))),
                }
            }
            Ok((out, None))
        });
        ParRecords {
            blocks,
            current: Vec::new().into_iter(),
            tail: None,
            first,
            done: false,
        }
    }

    /// The next block's framing and its payload, moved (stream input) or copied (slice
    /// input) into `payload`, a buffer of its own.
    pub(super) fn next_owned_frame(
        &mut self,
        mut payload: Vec<u8>,
    ) -> Result<Option<(BlockHeader, Vec<u8>)>> {
        let Some((h, range)) = self.next_frame()? else {
            return Ok(None);
        };
        match (&self.input, range) {
            (Input::Slice { data, .. }, Some((a, b))) => {
                payload.clear();
                payload.extend_from_slice(&data[a..b]);
            }
            _ => std::mem::swap(&mut payload, &mut self.raw),
        }
        Ok(Some((h, payload)))
    }
}
