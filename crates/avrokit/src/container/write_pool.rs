//! Blocks compressed on worker threads, for a [`Writer`](super::Writer) built
//! [`with_threads`](super::WriterBuilder::with_threads).
//!
//! The writer cuts blocks exactly as it does alone and hands each full one to the pool; the
//! workers compress with the same [`Compressor`] the writer would run, and the writer takes the
//! results back in block order. So the file is byte for byte the single-threaded one, and
//! encoding the next block overlaps compressing the last ones. At most
//! [`BLOCKS_PER_THREAD`] blocks per worker are in flight, which bounds the memory held.

use std::collections::{BTreeMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::codec::{Codec, Compressor};
use crate::error::{Error, ErrorKind, Result};

/// Blocks in flight per worker before the writer waits for the oldest one: enough that a
/// worker finds the next block ready when it finishes one.
const BLOCKS_PER_THREAD: usize = 2;

/// One block to compress: its encoded records after `prefix` reserved bytes.
struct Job {
    seq: u64,
    count: u64,
    block: Vec<u8>,
    /// A buffer to compress into (reused from an earlier block).
    frame: Vec<u8>,
}

/// A compressed block: `frame` holds `prefix` reserved bytes, then the payload.
pub(super) struct Done {
    seq: u64,
    /// The block's record count.
    pub(super) count: u64,
    /// The encoded records' buffer, handed back for reuse.
    pub(super) block: Vec<u8>,
    pub(super) frame: Result<Vec<u8>>,
}

/// The blocks waiting for a worker.
///
/// A queue under a lock, with a condition variable that wakes one idle worker per block. A
/// channel's receiver shared behind a `Mutex` woke a second worker each time the first took a
/// block (the next in line for the lock), so with fast codecs the workers spent their time
/// handing the lock around: snappy on two threads wrote Arrow batches 13% slower with two
/// workers than with one.
#[derive(Default)]
struct Jobs {
    queue: Mutex<JobQueue>,
    ready: Condvar,
}

#[derive(Default)]
struct JobQueue {
    waiting: VecDeque<Job>,
    /// Set when the pool shuts down: workers end once the queue is empty.
    closed: bool,
}

impl Jobs {
    /// The queue, also after a panic elsewhere (nothing panics while holding the lock).
    fn lock(&self) -> MutexGuard<'_, JobQueue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, job: Job) {
        self.lock().waiting.push_back(job);
        self.ready.notify_one();
    }

    /// The next block, waiting for one; `None` once the pool shuts down.
    fn next(&self) -> Option<Job> {
        let mut q = self.lock();
        loop {
            if let Some(job) = q.waiting.pop_front() {
                return Some(job);
            }
            if q.closed {
                return None;
            }
            q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }
}

/// The worker threads and the blocks in flight.
pub(super) struct Pool {
    jobs: Arc<Jobs>,
    /// In a `Mutex` only so that a `Writer` stays `Sync` (a `Receiver` is not); the writer
    /// alone takes from it.
    done: Mutex<Receiver<Done>>,
    workers: Vec<JoinHandle<()>>,
    prefix: usize,
    /// Sequence numbers: of the next block handed out, and of the next block to be written.
    sent: u64,
    next: u64,
    /// Blocks that came back before an earlier one.
    early: BTreeMap<u64, Done>,
    /// Buffers to reuse, for blocks and for frames.
    spare: Vec<Vec<u8>>,
    max_in_flight: usize,
    /// Records in the blocks handed out and not yet taken back.
    records: u64,
}

impl Pool {
    /// Starts `threads` workers compressing with `codec` (already checked); blocks carry
    /// `prefix` reserved bytes in front of their data.
    pub(super) fn start(codec: Codec, threads: usize, prefix: usize) -> Result<Pool> {
        let jobs = Arc::new(Jobs::default());
        let (done_tx, done) = channel::<Done>();
        let mut workers = Vec::with_capacity(threads);
        for i in 0..threads {
            let (rx, tx) = (jobs.clone(), done_tx.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("avrokit-compress-{i}"))
                .spawn(move || work(codec, prefix, &rx, &tx));
            match spawned {
                Ok(h) => workers.push(h),
                Err(e) => {
                    // The workers started so far end.
                    jobs.close();
                    return Err(Error::with_source(
                        ErrorKind::Io,
                        format!("starting compression thread {i} of {threads} failed: {e}"),
                        e,
                    ));
                }
            }
        }
        Ok(Pool {
            jobs,
            done: Mutex::new(done),
            workers,
            prefix,
            sent: 0,
            next: 0,
            early: BTreeMap::new(),
            spare: Vec::new(),
            max_in_flight: threads * BLOCKS_PER_THREAD,
            records: 0,
        })
    }

    /// Records handed out and not yet taken back.
    pub(super) fn records(&self) -> u64 {
        self.records
    }

    /// Blocks handed out and not yet taken back.
    fn in_flight(&self) -> usize {
        (self.sent - self.next) as usize
    }

    /// True when the writer must take a block back before handing out another.
    pub(super) fn full(&self) -> bool {
        self.in_flight() >= self.max_in_flight
    }

    /// An empty buffer of `prefix` reserved bytes, reused where one is spare.
    pub(super) fn buffer(&mut self) -> Vec<u8> {
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b.resize(self.prefix, 0);
        b
    }

    /// Keeps `b` for a later block or frame.
    pub(super) fn recycle(&mut self, b: Vec<u8>) {
        // Two per block in flight (its data and its frame) is all that can be in use at once.
        if self.spare.len() < 2 * (self.max_in_flight + 1) {
            self.spare.push(b);
        }
    }

    /// Hands a full block (`prefix` reserved bytes, then `count` encoded records) to a worker.
    /// Workers that are gone are reported by [`take`](Self::take): their result channel
    /// closes.
    pub(super) fn submit(&mut self, block: Vec<u8>, count: u64) {
        let frame = self.buffer();
        self.jobs.push(Job {
            seq: self.sent,
            count,
            block,
            frame,
        });
        self.sent += 1;
        self.records += count;
    }

    /// The next block in file order: waits for it when `wait` (and a block is in flight);
    /// `None` when none is in flight, or when it is not back yet and `wait` is false.
    ///
    /// # Errors
    /// When the workers are gone while a block is in flight.
    pub(super) fn take(&mut self, wait: bool) -> Result<Option<Done>> {
        loop {
            if self.in_flight() == 0 {
                return Ok(None);
            }
            if let Some(d) = self.early.remove(&self.next) {
                self.next += 1;
                self.records -= d.count;
                return Ok(Some(d));
            }
            let done = self.done.get_mut().unwrap_or_else(|e| e.into_inner());
            let d = if wait {
                done.recv().map_err(|_| gone())?
            } else {
                match done.try_recv() {
                    Ok(d) => d,
                    Err(TryRecvError::Empty) => return Ok(None),
                    Err(TryRecvError::Disconnected) => return Err(gone()),
                }
            };
            self.early.insert(d.seq, d);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Each worker ends after the blocks still queued (none when the writer took every
        // block back).
        self.jobs.close();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A worker: compresses blocks until the pool shuts down or the writer is gone.
fn work(codec: Codec, prefix: usize, jobs: &Jobs, done: &Sender<Done>) {
    let mut compressor = Compressor::unchecked(codec);
    while let Some(job) = jobs.next() {
        // The frame comes from `Pool::buffer`, already cut to its reserved prefix.
        let mut frame = job.frame;
        // A compressor that panics fails its block, which poisons the writer: otherwise the
        // writer would wait for that block forever while the other workers live on.
        let compressed = std::panic::catch_unwind(AssertUnwindSafe(|| {
            compressor.compress(&job.block[prefix..], &mut frame)
        }));
        let frame = match compressed {
            Ok(r) => r.map(|()| frame),
            Err(_) => {
                compressor = Compressor::unchecked(codec);
                Err(Error::new(ErrorKind::Container, "the compressor panicked"))
            }
        };
        let d = Done {
            seq: job.seq,
            count: job.count,
            block: job.block,
            frame,
        };
        if done.send(d).is_err() {
            return;
        }
    }
}

#[cold]
fn gone() -> Error {
    Error::new(
        ErrorKind::Container,
        "the compression threads stopped; blocks in flight are lost",
    )
}
