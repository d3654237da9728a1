//! Decompressing the next blocks while the current one decodes: [`Prefetch`].
//!
//! A compressed file's reader reads the framing of the blocks after block k as soon as block k
//! is loaded, up to [`DEPTH`] of them, and hands their payloads to one helper thread, which
//! decompresses them while the caller decodes the records of block k. Reading stays on the
//! caller's thread (the input need not be `Send`); only owned payloads cross. The helper starts
//! once a file has given 1 MiB of decompressed data, so small files cost no thread; when no
//! thread can be started the reader decompresses inline.
//!
//! Errors keep their order: an error in the framing of a block read ahead is held until the
//! records of the blocks before it have been read, and a decompression error comes when its
//! block is loaded. Whatever reads on from the input after records (raw blocks, the parallel
//! readers, a seek) first takes or forgets every block read ahead.

use std::sync::mpsc;
use std::thread;

use super::checks::block_error;
use crate::container::codec::{Codec, Decompressor};
use crate::container::framing::BlockHeader;
use crate::error::{Error, ErrorKind, Result};

/// Decompressed bytes read inline before the helper thread starts: past this, the thread's
/// start (tens of microseconds) is small next to the decompression it overlaps.
const START_AFTER: usize = 1 << 20;

/// Blocks handed to the helper and not taken back yet, at most. With one, the helper idled
/// after each block until the reader took it and handed over the next, a thread wake-up each
/// way per block; with several it runs from block to block. Memory: this many compressed and
/// decompressed blocks.
pub(super) const DEPTH: usize = 4;

/// A payload to decompress into `out`.
struct Job {
    header: BlockHeader,
    payload: Vec<u8>,
    out: Vec<u8>,
}

/// A decompressed block, with its buffers back.
struct Done {
    header: BlockHeader,
    payload: Vec<u8>,
    out: Vec<u8>,
    result: Result<()>,
}

struct Worker {
    jobs: Option<mpsc::SyncSender<Job>>,
    done: mpsc::Receiver<Done>,
    handle: Option<thread::JoinHandle<()>>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the queue alone would let the thread finish the blocks queued to it (up to
        // DEPTH) before it ends: the channel still delivers them. With the results' receiver
        // gone too, its next send fails, and it ends after its current block.
        self.jobs.take();
        drop(std::mem::replace(&mut self.done, mpsc::channel().1));
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The read-ahead state of one reader.
pub(super) struct Prefetch {
    enabled: bool,
    worker: Option<Worker>,
    /// Blocks handed to the worker and not taken back yet (they come back in order).
    pending: usize,
    /// A block read ahead but not handed over (no thread could start): decompressed inline.
    held: Option<(BlockHeader, Vec<u8>)>,
    /// An error reading ahead, given once the block before it is read.
    error: Option<Error>,
    /// The framing has no further block.
    eof: bool,
    /// Bytes decompressed on the reader's thread so far (until the helper starts).
    inline_bytes: usize,
    /// A thread could not be started: stay inline.
    no_thread: bool,
    /// Reused buffers: payloads and decompression outputs.
    spare_payload: Vec<u8>,
    spare_out: Vec<u8>,
}

/// What [`Prefetch::take`] gives: the next block, decompressed into the reader's buffer.
pub(super) enum Next {
    /// Block `header` is decompressed in the reader's data buffer.
    Ready(BlockHeader),
    /// Nothing was read ahead: the reader reads and decompresses the next block itself.
    Nothing,
    /// No block is left.
    End,
}

impl Prefetch {
    pub(super) fn new(enabled: bool) -> Prefetch {
        Prefetch {
            enabled,
            worker: None,
            pending: 0,
            held: None,
            error: None,
            eof: false,
            inline_bytes: 0,
            no_thread: false,
            spare_payload: Vec::new(),
            spare_out: Vec::new(),
        }
    }

    /// True when blocks of `codec` are read ahead.
    pub(super) fn applies(&self, codec: Codec) -> bool {
        self.enabled && codec != Codec::Null
    }

    /// A buffer for the payload of the next block read ahead.
    pub(super) fn payload_buffer(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.spare_payload)
    }

    /// Takes the block read ahead, if any, into `data` (the old contents become a spare).
    pub(super) fn take(
        &mut self,
        codec: Codec,
        max_alloc: usize,
        data: &mut Vec<u8>,
    ) -> Result<Next> {
        if self.pending > 0 {
            self.pending -= 1;
            let worker = self.worker.as_mut().ok_or_else(gone)?;
            let mut done = worker.done.recv().map_err(|_| gone())?;
            self.spare_payload = std::mem::take(&mut done.payload);
            std::mem::swap(data, &mut done.out);
            self.spare_out = done.out;
            done.result?;
            return Ok(Next::Ready(done.header));
        }
        if let Some((h, payload)) = self.held.take() {
            let r = Decompressor::new(codec)
                .and_then(|mut d| d.decompress(&payload, data, max_alloc))
                .map_err(|e| block_error(e, &h));
            self.spare_payload = payload;
            r?;
            self.inlined(data.len());
            return Ok(Next::Ready(h));
        }
        // A framing error comes after the blocks read before it.
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.eof {
            return Ok(Next::End);
        }
        Ok(Next::Nothing)
    }

    /// Counts `n` bytes decompressed on the reader's thread.
    pub(super) fn inlined(&mut self, n: usize) {
        self.inline_bytes = self.inline_bytes.saturating_add(n);
    }

    /// Records the result of reading the framing of the block after the current one: its
    /// payload goes to the worker (started here on first use).
    pub(super) fn submit(
        &mut self,
        frame: Result<Option<(BlockHeader, Vec<u8>)>>,
        codec: Codec,
        max_alloc: usize,
    ) {
        let (header, payload) = match frame {
            Ok(Some(f)) => f,
            Ok(None) => {
                self.eof = true;
                return;
            }
            Err(e) => {
                self.error = Some(e);
                return;
            }
        };
        if self.worker.is_none() {
            if self.no_thread || self.inline_bytes < START_AFTER {
                self.held = Some((header, payload));
                return;
            }
            self.worker = start(codec, max_alloc);
            self.no_thread = self.worker.is_none();
        }
        let Some(jobs) = self.worker.as_ref().and_then(|w| w.jobs.as_ref()) else {
            self.held = Some((header, payload));
            return;
        };
        let job = Job {
            header,
            payload,
            out: std::mem::take(&mut self.spare_out),
        };
        match jobs.send(job) {
            Ok(()) => self.pending += 1,
            Err(mpsc::SendError(job)) => {
                self.worker = None;
                self.held = Some((job.header, job.payload));
            }
        }
    }

    /// True when the helper runs and has room for another block, and the framing may hold
    /// one: the reader should read ahead again.
    pub(super) fn wants_more(&self) -> bool {
        (1..DEPTH).contains(&self.pending) && !self.eof && self.error.is_none()
    }

    /// True when a block (or its framing error) has been read ahead of the current one.
    pub(super) fn has_block(&self) -> bool {
        self.pending > 0 || self.held.is_some() || self.error.is_some()
    }

    /// The payload of the block read ahead, undecompressed (for raw block reads), or its
    /// framing error.
    pub(super) fn take_raw(&mut self) -> Result<Option<(BlockHeader, Vec<u8>)>> {
        if let Some(h) = self.held.take() {
            return Ok(Some(h));
        }
        if self.pending > 0 {
            self.pending -= 1;
            let worker = self.worker.as_mut().ok_or_else(gone)?;
            let done = worker.done.recv().map_err(|_| gone())?;
            self.spare_out = done.out;
            return Ok(Some((done.header, done.payload)));
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        Ok(None)
    }

    /// Forgets what was read ahead (the reader moves elsewhere); keeps the thread and buffers.
    pub(super) fn reset(&mut self) {
        while self.pending > 0 {
            let _ = self.take_raw();
        }
        self.held = None;
        self.error = None;
        self.eof = false;
    }
}

#[cold]
fn gone() -> Error {
    Error::new(ErrorKind::Io, "the decompression thread stopped")
}

/// Starts the worker; `None` when the system cannot start a thread.
fn start(codec: Codec, max_alloc: usize) -> Option<Worker> {
    let mut decompressor = Decompressor::new(codec).ok()?;
    // Room for every block the reader hands over: it never waits to hand one.
    let (jobs_tx, jobs) = mpsc::sync_channel::<Job>(DEPTH);
    let (done_tx, done) = mpsc::channel::<Done>();
    let handle = thread::Builder::new()
        .name("avrokit-decompress".into())
        .spawn(move || {
            for mut job in jobs {
                let result = decompressor
                    .decompress(&job.payload, &mut job.out, max_alloc)
                    .map_err(|e| block_error(e, &job.header));
                let done = Done {
                    header: job.header,
                    payload: job.payload,
                    out: job.out,
                    result,
                };
                if done_tx.send(done).is_err() {
                    return;
                }
            }
        })
        .ok()?;
    Some(Worker {
        jobs: Some(jobs_tx),
        done,
        handle: Some(handle),
    })
}
