//! Blocks decoded on several threads, results in file order: [`ParBlocks`] (one result per
//! block, from a function over a borrowed [`Block`]) and [`ParRecords`] (the records, for
//! `Value`s, serde types, generated codecs or any decoding function).
//!
//! `threads` counts the caller's thread: it reads the framing (the input need not be `Send`),
//! queues each block's payload, owned, for `threads - 1` workers, and decodes queued blocks
//! itself whenever the next result in file order is not ready, so no thread waits while a
//! block is left to decode. Workers decompress a payload, check its count and run the
//! function over the block; results are put back in file order. At most two blocks per
//! thread are in flight, so memory stays bounded by the block size. Payload and
//! decompression buffers are reused from block to block. With one thread, or when no worker
//! can be started, every block is decoded on the caller's thread, straight from a slice
//! input, with the same results.
//!
//! [`ParRecords`] decodes the records themselves on the caller's thread only: its workers
//! decompress and check blocks ahead of it (with the `null` codec it starts none).
//! [`ParBatches`] decodes on every thread, into records reused from block to block.
//!
//! # Performance
//! For records that own memory the allocator decides (the mixed record of `avrokit-perf`'s
//! container tests, 100k records, 2 idle cores): the sequential reader takes 22 ms. Records
//! decoded on a worker and dropped on the caller's thread take glibc's arena lock from both
//! threads at every record: 110 ms of wall time and 157 ms of CPU with one worker beside the
//! caller, 18 000 context switches per read (`__lll_lock_wait_private`, `_int_malloc`). A
//! block's new records held in a `Vec` before being given out cost 50% more even on one thread
//! (glibc's per-thread cache holds a few chunks per size, not a block's). So records given
//! out by value are read one at a time, on the thread that drops them. The ways to decode on
//! several threads avoid the allocator instead: a [`ParBlocks`] function consumes each
//! block's records where it decodes them, and [`ParBatches`] decodes over records it lent out
//! before, reusing their allocations (1.2x the sequential reader on one thread).

use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, ThreadId};

use super::input::Input;
use super::records::{BlockDecoding, Cursor};
use super::{Block, Reader};
use crate::codec::{AvroDecodeOwned, CodecPlan};
use crate::container::codec::Codec;
use crate::container::framing::BlockHeader;
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::resolution::ResolvedPlan;
use crate::schema::Schema;
use crate::serde::{AvroSchema, DePlan};
use crate::value::{
    read_value, read_value_into, read_value_resolved, read_value_resolved_into, Value,
};

/// One block waiting to be decoded.
struct Job {
    seq: u64,
    header: BlockHeader,
    payload: Vec<u8>,
}

/// The per-block function, shared by the workers.
type BlockFn<U> = dyn Fn(Block<'_>) -> Result<U> + Send + Sync;

/// A block's result (or the panic of the function on a worker), with its payload buffer
/// back.
type Done<U> = (u64, Vec<u8>, thread::Result<Result<U>>);

/// What a thread needs to turn a payload into a result: the block checks and buffers of
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

/// The queue of blocks waiting for a thread, shared by the caller and the workers.
struct Queue {
    jobs: VecDeque<Job>,
    /// Set when the iterator ends: workers stop after their current block.
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued or the queue closes.
    more: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        lock(&self.queue)
    }
}

struct Pool<U> {
    shared: Arc<Shared>,
    done: mpsc::Receiver<Done<U>>,
    workers: Vec<thread::JoinHandle<()>>,
}

impl<U> Pool<U> {
    fn push(&self, job: Job) {
        self.shared.lock().jobs.push_back(job);
        self.shared.more.notify_one();
    }

    /// The oldest queued job, for the caller's thread to decode.
    fn take(&self) -> Option<Job> {
        self.shared.lock().jobs.pop_front()
    }
}

impl<U> Drop for Pool<U> {
    fn drop(&mut self) {
        // Closing the queue ends every worker after its current block; the queued blocks
        // are dropped.
        {
            let mut q = self.shared.lock();
            q.closed = true;
            q.jobs.clear();
        }
        self.shared.more.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// The results of a function over every remaining block of a [`Reader`], computed on
/// `threads` threads (the caller's among them) and given in file order. Made by
/// [`Reader::par_blocks`]. When the reader has read part of a block, the first result is the
/// function's over the records of that block not read yet (run on the caller's thread when
/// the iterator is made), so that no record is skipped.
///
/// After the first error (in the framing, a decompression, or from the function) it ends. The
/// reader is left after the last block framed; dropping the iterator early drops the blocks
/// in flight. A panic of the function on a worker is resumed on the caller's thread when its
/// block's turn comes.
pub struct ParBlocks<'r, 'a, R, U> {
    reader: &'r mut Reader<'a, R>,
    /// The workers, when there are any.
    pool: Option<Pool<U>>,
    /// The caller's own decoding: every block without workers, queued blocks with them.
    local: Option<Work<BlockFn<U>>>,
    /// The most blocks framed and not yet given out.
    window: u64,
    sent: u64,
    next: u64,
    finished: BTreeMap<u64, (Vec<u8>, thread::Result<Result<U>>)>,
    /// A framing error, given after the results of the blocks before it.
    input_error: Option<Error>,
    input_done: bool,
    failed: bool,
    spare: Vec<Vec<u8>>,
    /// The result over the records of the current block not read yet when the iterator was
    /// made: the first result given.
    head: Option<Result<U>>,
}

/// What the parallel readers do with the records of the current block that were not read yet
/// when they begin.
#[derive(Clone, Copy)]
enum Rest {
    /// The function runs over them, on the caller's thread, as the first block.
    AsBlock,
    /// They stay with the reader, for the caller to read first.
    Keep,
}

impl<'r, 'a, R: Read, U: Send + 'static> ParBlocks<'r, 'a, R, U> {
    fn new<F>(reader: &'r mut Reader<'a, R>, threads: usize, rest: Rest, f: F) -> Self
    where
        F: Fn(Block<'_>) -> Result<U> + Send + Sync + 'static,
    {
        let threads = if threads == 0 {
            thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
        let head = match rest {
            Rest::AsBlock => {
                let head = reader.rest_of_block().map(&f);
                reader.cur.left = 0;
                head
            }
            Rest::Keep => None,
        };
        let f: Arc<BlockFn<U>> = Arc::new(f);
        let work = |f: Arc<BlockFn<U>>| -> Result<Work<_>> {
            Ok(Work {
                decoding: BlockDecoding::new(reader.codec, reader.min_record_size, reader.limits)?,
                schema: reader.schema.clone(),
                f,
            })
        };
        let mut input_error = None;
        let (pool, local) = match work(f.clone()) {
            Ok(local) => match start(threads - 1, || work(f.clone())) {
                Ok(pool) => (pool, Some(local)),
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
            window: pool
                .as_ref()
                .map_or(1, |p| 2 * (p.workers.len() as u64 + 1)),
            pool,
            local,
            sent: 0,
            next: 0,
            finished: BTreeMap::new(),
            input_error,
            input_done,
            failed: false,
            spare: Vec::new(),
            head,
        };
        // The blocks the reader already read ahead (to decompress them) come first; without
        // workers, `next_here` takes them when their turn comes.
        while !blocks.input_done && blocks.pool.is_some() && blocks.reader.prefetch.has_block() {
            match blocks.reader.prefetch.take_raw() {
                Ok(Some((h, payload))) => blocks.send(h, payload),
                Ok(None) => break,
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

    /// Queues block `h` for the workers.
    fn send(&mut self, header: BlockHeader, payload: Vec<u8>) {
        let Some(pool) = &self.pool else {
            return self.end_input(Err(stopped()));
        };
        pool.push(Job {
            seq: self.sent,
            header,
            payload,
        });
        self.sent += 1;
    }

    /// Reads frames until `window` blocks are out or the input ends.
    fn fill(&mut self) {
        while !self.input_done && self.sent - self.next < self.window {
            let payload = self.spare.pop().unwrap_or_default();
            match self.reader.next_owned_frame(payload) {
                Ok(Some((h, payload))) => self.send(h, payload),
                Ok(None) => self.end_input(Ok(())),
                Err(e) => self.end_input(Err(e)),
            }
        }
    }

    /// The next block decoded on this thread, without workers: a block the reader read
    /// ahead, then each block straight from the input (a slice's bytes in place).
    fn next_here(&mut self) -> Option<Result<U>> {
        let Some(work) = self.local.as_mut() else {
            self.end_input(Ok(()));
            return self.input_error.take().map(Err);
        };
        if self.input_done {
            return self.input_error.take().map(Err);
        }
        if self.reader.prefetch.has_block() {
            return match self.reader.prefetch.take_raw() {
                Ok(Some((h, payload))) => Some(work.run(&h, &payload)),
                Ok(None) => self.next_here(),
                Err(e) => {
                    self.end_input(Ok(()));
                    Some(Err(e))
                }
            };
        }
        let frame = self.reader.next_frame();
        match frame {
            Ok(Some((h, range))) => {
                let data = match (&self.reader.input, range) {
                    (Input::Slice { data, .. }, Some((a, b))) => &data[a..b],
                    _ => &self.reader.raw[..],
                };
                Some(work.run(&h, data))
            }
            Ok(None) => {
                self.end_input(Ok(()));
                None
            }
            Err(e) => {
                self.end_input(Ok(()));
                Some(Err(e))
            }
        }
    }
}

/// The next block in file order, with workers: its result, or its job, for the caller's
/// thread to decode as it likes (see [`ParBlocks::turn`]).
enum Turn<U> {
    Done(Result<U>),
    Here(Job),
}

impl<R: Read, U: Send + 'static> ParBlocks<'_, '_, R, U> {
    /// With workers: the next block's result in file order, or its job when no thread has
    /// taken it yet; `None` at the end (after a framing error, given once). While the next
    /// block is on a worker, this thread decodes later queued blocks rather than wait.
    /// A [`Turn::Here`] job must be given back with [`finish_here`](Self::finish_here).
    fn turn(&mut self) -> Option<Turn<U>> {
        self.fill();
        if self.next == self.sent {
            self.failed = true;
            return self.input_error.take().map(|e| Turn::Done(Err(e)));
        }
        let (payload, r) = loop {
            if let Some(done) = self.finished.remove(&self.next) {
                break done;
            }
            let Some(pool) = &self.pool else {
                self.failed = true;
                return Some(Turn::Done(Err(stopped())));
            };
            // Results already there first; then a queued block here; then wait.
            let got = match pool.done.try_recv() {
                Ok(done) => Ok(done),
                Err(_) => match (pool.take(), self.local.as_mut()) {
                    (Some(job), _) if job.seq == self.next => return Some(Turn::Here(job)),
                    (Some(job), Some(work)) => {
                        let r = work.run(&job.header, &job.payload);
                        Ok((job.seq, job.payload, Ok(r)))
                    }
                    _ => pool.done.recv().map_err(|_| stopped()),
                },
            };
            match got {
                Ok((seq, payload, r)) => {
                    self.finished.insert(seq, (payload, r));
                }
                Err(e) => {
                    self.failed = true;
                    return Some(Turn::Done(Err(e)));
                }
            }
        };
        self.next += 1;
        self.spare.push(payload);
        let r = match r {
            Ok(r) => r,
            Err(panic) => {
                self.stop();
                resume_unwind(panic)
            }
        };
        if r.is_err() {
            self.stop();
        }
        Some(Turn::Done(r))
    }

    /// Ends the turn of a block given out by [`turn`](Self::turn) as [`Turn::Here`].
    fn finish_here(&mut self, payload: Vec<u8>) {
        self.next += 1;
        self.spare.push(payload);
    }
}

impl<R: Read, U: Send + 'static> Iterator for ParBlocks<'_, '_, R, U> {
    type Item = Result<U>;

    fn next(&mut self) -> Option<Result<U>> {
        if self.failed {
            return None;
        }
        if let Some(r) = self.head.take() {
            if r.is_err() {
                self.stop();
            }
            return Some(r);
        }
        if self.pool.is_none() {
            let r = self.next_here();
            match &r {
                Some(Ok(_)) => {}
                _ => self.stop(),
            }
            return r;
        }
        match self.turn()? {
            Turn::Done(r) => Some(r),
            Turn::Here(job) => {
                let r = match self.local.as_mut() {
                    Some(work) => work.run(&job.header, &job.payload),
                    None => Err(stopped()),
                };
                self.finish_here(job.payload);
                if r.is_err() {
                    self.stop();
                }
                Some(r)
            }
        }
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

/// Starts up to `workers` worker threads; `Ok(None)` when there are none (none asked for, or
/// none could start).
fn start<U, F>(workers: usize, mut work: impl FnMut() -> Result<Work<F>>) -> Result<Option<Pool<U>>>
where
    U: Send + 'static,
    F: Fn(Block<'_>) -> Result<U> + Send + Sync + ?Sized + 'static,
{
    if workers == 0 {
        return Ok(None);
    }
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue {
            jobs: VecDeque::new(),
            closed: false,
        }),
        more: Condvar::new(),
    });
    let (done_tx, done) = mpsc::channel::<Done<U>>();
    let mut handles = Vec::with_capacity(workers);
    for i in 0..workers {
        let mut w = work()?;
        let shared = shared.clone();
        let done_tx = done_tx.clone();
        let spawned = thread::Builder::new()
            .name(format!("avrokit-decode-{i}"))
            .spawn(move || loop {
                let job = {
                    let mut q = shared.lock();
                    loop {
                        if let Some(job) = q.jobs.pop_front() {
                            break job;
                        }
                        if q.closed {
                            return;
                        }
                        q = shared.more.wait(q).unwrap_or_else(|e| e.into_inner());
                    }
                };
                // A panic of the function is the caller's, in its block's turn.
                let r = catch_unwind(AssertUnwindSafe(|| w.run(&job.header, &job.payload)));
                if done_tx.send((job.seq, job.payload, r)).is_err() {
                    return;
                }
            });
        match spawned {
            Ok(h) => handles.push(h),
            Err(_) => break,
        }
    }
    if handles.is_empty() {
        return Ok(None);
    }
    Ok(Some(Pool {
        shared,
        done,
        workers: handles,
    }))
}

#[cold]
fn stopped() -> Error {
    Error::new(ErrorKind::Io, "a decoding thread stopped")
}

/// The function that reads one record.
type ReadFn<T> = dyn for<'de> Fn(&mut Decoder<'de>) -> Result<T> + Send + Sync;

/// A block's framing and bytes, decompressed and count-checked on a worker.
type Loaded = (BlockHeader, Vec<u8>);

/// Where the records of the block being read are.
enum Bytes {
    /// A payload this thread loaded into its own decoding buffers.
    Job(Job),
    /// Bytes a worker decompressed.
    Loaded(Vec<u8>),
}

/// The records of every remaining block of a [`Reader`], in file order. Made by
/// [`Reader::par_values`], [`Reader::par_serde_iter`], [`Reader::par_codec_iter`] and
/// [`Reader::par_iter_with`].
///
/// The records are decoded on the caller's thread, one at a time; the other threads
/// decompress and check the blocks ahead of it. Records that own memory are allocated and
/// dropped on one thread: decoded on a worker and dropped on the caller's thread, glibc's
/// malloc made the two threads fight over its arena lock at every record (on 2 idle cores, 2
/// threads read the mixed record of `avrokit-perf`'s container tests 4 to 5 times slower than
/// 1, with some 18 000 context switches per 100 000 records). A file of the `null` codec, with
/// nothing to decompress, is read as the sequential reader reads it; for decoding that pays
/// off on several threads, use [`Reader::par_codec_batches`] or [`Reader::par_value_batches`],
/// or [`Reader::par_blocks`] and consume each block's records there.
///
/// Yields exactly what the sequential reader yields from where it stands (the records of the
/// current block not read yet first): the same records, then the same error (after which it
/// ends).
pub struct ParRecords<'r, 'a, R, T> {
    blocks: ParBlocks<'r, 'a, R, Loaded>,
    /// The function that reads one record.
    read: Arc<ReadFn<T>>,
    /// Without workers, the records are read by the sequential reader's loop.
    one_by_one: bool,
    /// The block being read record by record, and where.
    here: Option<(Bytes, Cursor)>,
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
            if let Some(e) = self.first.take().or_else(|| self.tail.take()) {
                self.done = true;
                self.blocks.stop();
                return Some(Err(e));
            }
            if self.done {
                return None;
            }
            if self.one_by_one || self.blocks.reader.cur.left > 0 {
                // The sequential reader's own loop: every record without workers, and with
                // them, the rest of the block the reader was in when the iterator began.
                let read = &self.read;
                let r = self.blocks.reader.next_with(|dec| read(dec));
                if !matches!(r, Some(Ok(_))) {
                    self.done = true;
                    self.blocks.stop();
                }
                return r;
            }
            if let Some(r) = self.read_here() {
                return Some(r);
            }
            if self.blocks.failed {
                self.done = true;
                return None;
            }
            match self.blocks.turn() {
                Some(Turn::Here(job)) => self.start_here(job),
                Some(Turn::Done(Ok((h, bytes)))) => {
                    let cursor = Cursor::new(&h, bytes.len());
                    self.here = Some((Bytes::Loaded(bytes), cursor));
                }
                Some(Turn::Done(Err(e))) => {
                    self.done = true;
                    return Some(Err(e));
                }
                None => {
                    self.done = true;
                    return None;
                }
            }
        }
    }
}

impl<R: Read, T: Send + 'static> ParRecords<'_, '_, R, T> {
    /// Loads a block given to this thread in its turn (decompressed and count-checked) to
    /// read its records.
    fn start_here(&mut self, job: Job) {
        let Some(work) = self.blocks.local.as_mut() else {
            self.tail = Some(stopped());
            return self.blocks.finish_here(job.payload);
        };
        match work.decoding.load(&job.header, &job.payload) {
            Ok(data) => {
                let cursor = Cursor::new(&job.header, data.len());
                self.here = Some((Bytes::Job(job), cursor));
            }
            Err(e) => {
                self.tail = Some(e);
                self.blocks.finish_here(job.payload);
            }
        }
    }

    /// The next record of the block being read, if it has one left; an error ends the
    /// iterator.
    fn read_here(&mut self) -> Option<Result<T>> {
        let (bytes, cursor) = self.here.as_mut()?;
        if cursor.remaining() == 0 {
            if let (Bytes::Job(job), _) = self.here.take()? {
                self.blocks.finish_here(job.payload);
            }
            return None;
        }
        let work = self.blocks.local.as_mut()?;
        let (limits, in_file) = (work.decoding.limits(), work.decoding.in_file());
        let data = match bytes {
            Bytes::Job(job) => work.decoding.bytes(&job.payload),
            Bytes::Loaded(b) => &b[..],
        };
        let read = &self.read;
        let r = cursor.read(data, limits, in_file, |dec| read(dec));
        if r.is_err() {
            self.done = true;
            self.here = None;
            self.blocks.stop();
        }
        Some(r)
    }
}

/// A block's records as decoded into a reused vector: the first `len` items are this block's,
/// the rest are kept from earlier blocks for their allocations. With the thread that decoded
/// them.
struct Batch<T> {
    items: Vec<T>,
    len: usize,
    by: Option<ThreadId>,
}

/// Vectors handed back by [`ParBatches`] for the next blocks, with the thread that last
/// decoded into each.
type Spare<T> = Arc<Mutex<Vec<(Option<ThreadId>, Vec<T>)>>>;

/// The records of every remaining block of a [`Reader`], decoded on several threads, the
/// caller's among them, and lent out a block at a time in file order. Made by
/// [`Reader::par_codec_batches`] and [`Reader::par_value_batches`].
///
/// Where [`ParRecords`] decodes every record on the caller's thread (so that records are
/// allocated and freed on one thread), this decodes on every thread, `null` codec included,
/// and avoids the allocator instead: each block's records are decoded over the records of an
/// earlier block, reusing their strings, vectors and maps, and a batch goes back to the
/// threads when [`next_batch`](Self::next_batch) is called again. Once the vectors have grown
/// to the data, decoding allocates nothing. At most four blocks per thread are in flight. On
/// one thread, a compressed block is decompressed and then decoded, in turn; the sequential
/// reader's decompress-ahead thread overlaps the two, and is faster there.
///
/// Gives the sequential reader's records a block at a time (the records of the current block
/// not read yet first, as one batch), then its error (after which it ends); the block that
/// fails gives none of its records.
///
/// # Examples
/// ```
/// use avrokit::container::{Reader, WriterBuilder};
/// use avrokit::{Schema, Value};
/// let schema = Schema::parse_str(r#""string""#)?;
/// let mut w = WriterBuilder::new(&schema).with_block_records(10).build(Vec::new())?;
/// for i in 0..100 {
///     w.append(&Value::String("x".repeat(i % 7)))?;
/// }
/// let file = w.into_inner()?;
/// let mut r = Reader::from_slice(&file)?;
/// let mut batches = r.par_value_batches(2);
/// let mut total = 0;
/// while let Some(batch) = batches.next_batch() {
///     for v in batch? {
///         if let Value::String(s) = v {
///             total += s.len();
///         }
///     }
/// }
/// assert_eq!(total, (0..100usize).map(|i| i % 7).sum::<usize>());
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct ParBatches<'r, 'a, R, T> {
    blocks: ParBlocks<'r, 'a, R, Batch<T>>,
    spare: Spare<T>,
    /// The batch lent out last.
    lent: Batch<T>,
}

impl<R: Read, T: Send + 'static> ParBatches<'_, '_, R, T> {
    /// The next block's records, in file order; `None` after the last block or the first
    /// error. The slice is valid until the next call, which hands its records back to be
    /// decoded over.
    pub fn next_batch(&mut self) -> Option<Result<&[T]>> {
        let done = std::mem::replace(&mut self.lent, Batch::empty());
        if done.items.capacity() > 0 {
            lock(&self.spare).push((done.by, done.items));
        }
        match self.blocks.next()? {
            Ok(batch) => {
                self.lent = batch;
                Some(Ok(&self.lent.items[..self.lent.len]))
            }
            Err(e) => Some(Err(e)),
        }
    }
}

impl<T> Batch<T> {
    fn empty() -> Batch<T> {
        Batch {
            items: Vec::new(),
            len: 0,
            by: None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every lock here is held only to push or pop (a job, a vector): a panic cannot leave
    // what it guards half-changed.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'a, R: Read> Reader<'a, R> {
    /// Runs `f` over every remaining block on `threads` threads, the caller's included (1: on
    /// the caller's thread alone; 0: one per core), and yields its results in file order. `f`
    /// gets each block decompressed and count-checked, and reads its records borrowed (see
    /// [`Block`]); a per-block aggregate, a filter or a conversion to another format fits
    /// here. When the reader has read part of a block, `f` first gets the records of that
    /// block not read yet, as a block of their own ([`Block::count`] and [`Block::data`] are
    /// theirs).
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
        ParBlocks::new(self, threads, Rest::AsBlock, f)
    }

    /// The remaining records, each read by `read` on the caller's thread from blocks
    /// decompressed on `threads` threads (the caller's included; 0: one per core), in file
    /// order (see [`ParRecords`]). The general form of the `par_*` readers.
    pub fn par_iter_with<T, F>(&mut self, threads: usize, read: F) -> ParRecords<'_, 'a, R, T>
    where
        T: Send + 'static,
        F: for<'de> Fn(&mut Decoder<'de>) -> Result<T> + Send + Sync + 'static,
    {
        self.par_records(threads, None, read)
    }

    /// The remaining records as [`Value`]s of the reader schema (as the iterator reads them,
    /// but a datum reader installed with [`set_datum_reader`](Self::set_datum_reader) is not
    /// used), from blocks decompressed on `threads` threads (the caller's included; 0: one
    /// per core), in file order (see [`ParRecords`]).
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
    /// from blocks decompressed on `threads` threads (the caller's included; 0: one per
    /// core), in file order (see [`ParRecords`]).
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
    /// [`codec_iter`](Self::codec_iter)), from blocks decompressed on `threads` threads (the
    /// caller's included; 0: one per core), in file order (see [`ParRecords`]).
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

    /// The remaining records as `T`s through a [`CodecPlan`] compiled here once (see
    /// [`codec_iter`](Self::codec_iter)), decoded on `threads` threads (the caller's
    /// included; 0: one per core) over the records of earlier blocks, and lent out a block at
    /// a time in file order (see [`ParBatches`]).
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`] when the file's schema cannot be read as `T`'s.
    pub fn par_codec_batches<T>(&mut self, threads: usize) -> Result<ParBatches<'_, 'a, R, T>>
    where
        T: AvroSchema + AvroDecodeOwned + serde::de::DeserializeOwned + Send + 'static,
    {
        let plan = CodecPlan::<T>::reading(self.schema())?;
        let into = plan.clone();
        Ok(self.par_batches(
            threads,
            move |dec| plan.decode(dec),
            move |dec, v| into.decode_into(v, dec),
        ))
    }

    /// The remaining records as [`Value`]s of the reader schema (as
    /// [`par_values`](Self::par_values) reads them), decoded on `threads` threads (the
    /// caller's included; 0: one per core) over the values of earlier blocks, and lent out a
    /// block at a time in file order (see [`ParBatches`]).
    pub fn par_value_batches(&mut self, threads: usize) -> ParBatches<'_, 'a, R, Value> {
        let plan: Option<ResolvedPlan> = self.resolved.clone();
        let schema = self.schema.clone();
        let (new_plan, new_schema) = (plan.clone(), schema.clone());
        self.par_batches(
            threads,
            move |dec| match &new_plan {
                Some(p) => read_value_resolved(dec, p),
                None => read_value(dec, &new_schema),
            },
            move |dec, v| match &plan {
                Some(p) => read_value_resolved_into(dec, p, v),
                None => read_value_into(dec, &schema, v),
            },
        )
    }

    /// Blocks decoded by `decode_into` over the records of earlier blocks, with `new` for
    /// the records a block has beyond them.
    fn par_batches<T, N, F>(
        &mut self,
        threads: usize,
        new: N,
        decode_into: F,
    ) -> ParBatches<'_, 'a, R, T>
    where
        T: Send + 'static,
        N: for<'de> Fn(&mut Decoder<'de>) -> Result<T> + Send + Sync + 'static,
        F: for<'de> Fn(&mut Decoder<'de>, &mut T) -> Result<()> + Send + Sync + 'static,
    {
        let spare: Spare<T> = Arc::default();
        let from = spare.clone();
        let mut blocks = self.par_blocks(threads, move |block| {
            // A vector this thread decoded into last, when there is one: its records and
            // their strings are still in this core's cache (taking any vector, two threads
            // spent 40% more CPU time between them than one).
            let me = thread::current().id();
            let mut items = {
                let mut spare = lock(&from);
                let mine = spare.iter().rposition(|(by, _)| *by == Some(me));
                match mine.or(spare.len().checked_sub(1)) {
                    Some(i) => spare.swap_remove(i).1,
                    None => Vec::new(),
                }
            };
            let mut len = 0;
            for r in block.records_with(|dec| {
                match items.get_mut(len) {
                    Some(v) => decode_into(dec, v)?,
                    None => items.push(new(dec)?),
                }
                len += 1;
                Ok(())
            }) {
                r?;
            }
            Ok(Batch {
                items,
                len,
                by: Some(me),
            })
        });
        // Four blocks in flight per thread, not two: a thread that finds the queue empty
        // sleeps until the caller frames more (avrokit-perf ContainerNullRead, codec batches,
        // 2 threads against 1: 1.64x with two, 1.81x with four, alternating runs). A batch is
        // one block's records, so memory stays bounded by the block size.
        if let Some(pool) = &blocks.pool {
            blocks.window = 4 * (pool.workers.len() as u64 + 1);
        }
        ParBatches {
            blocks,
            spare,
            lent: Batch::empty(),
        }
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
        let read: Arc<ReadFn<T>> = Arc::new(read);
        // Workers only decompress: with nothing to decompress, one thread.
        let threads = if self.codec == Codec::Null {
            1
        } else {
            threads
        };
        let blocks = ParBlocks::new(self, threads, Rest::Keep, |block| {
            Ok((*block.header(), block.data().to_vec()))
        });
        let one_by_one = blocks.pool.is_none() && blocks.local.is_some();
        ParRecords {
            blocks,
            read,
            one_by_one,
            here: None,
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
