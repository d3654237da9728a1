//! Finding a split's first block without I/O: [`SplitSeeker`].
//!
//! The rule is [`Reader::seek_split`](super::Reader::seek_split)'s: a block belongs to the
//! byte range `[start, end)` when the sync marker just before it starts in the range (the
//! header's marker for the first block); a marker is recognised by its 16 bytes and confirmed
//! by the block after it being framed consistently. The seeker asks for the bytes it needs
//! ([`SeekStep::Read`]) and is fed them, so readers that fetch ranges (an object store's
//! ranged GETs, an async file) find the same blocks the blocking reader does.

use super::codec::Codec;
use super::framing::{peek_block_header, Header, SYNC_SIZE};
use crate::io::Limits;
use crate::schema::Schema;

/// How many bytes one scanning read asks for (plus 15, so a marker across two reads is seen).
const CHUNK: u64 = 64 * 1024;

/// What a [`SplitSeeker`] needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekStep {
    /// Read up to `len` bytes at file offset `offset` (fewer at the end of the file) and
    /// [`feed`](SplitSeeker::feed) them.
    Read {
        /// Where to read.
        offset: u64,
        /// How many bytes, at most.
        len: usize,
    },
    /// The split's first block starts at this offset; `None` when no block belongs to the
    /// split.
    Done(Option<u64>),
}

#[derive(Debug, Clone, Copy)]
enum State {
    /// Look for the marker bytes from `scan`.
    Scan,
    /// A candidate marker at `at`: check the block framing after it.
    Head {
        at: u64,
    },
    /// The block after the candidate at `at` claims to end at `next`: is a marker there?
    Marker {
        at: u64,
        next: u64,
    },
    Done(Option<u64>),
}

/// Finds the first block of the split `[start, end)` of a container file, sans-IO.
///
/// # Examples
/// ```
/// use avrokit::container::{Reader, SeekStep, SplitSeeker, WriterBuilder};
/// use avrokit::{Limits, Schema, Value};
/// let schema = Schema::parse_str(r#""long""#)?;
/// let mut w = WriterBuilder::new(&schema).with_block_records(10).build(Vec::new())?;
/// for i in 0..1000 {
///     w.append(&Value::Long(i))?;
/// }
/// let file = w.into_inner()?;
/// let r = Reader::from_slice(&file)?;
/// let len = file.len() as u64;
/// let mut seeker = SplitSeeker::new(r.header(), r.schema(), r.codec(), Limits::default(), len, 700, 1500);
/// let first = loop {
///     match seeker.step() {
///         SeekStep::Read { offset, len } => {
///             let at = (offset as usize).min(file.len());
///             let to = (at + len).min(file.len());
///             seeker.feed(&file[at..to]);
///         }
///         SeekStep::Done(first) => break first,
///     }
/// };
/// let first = first.expect("a block starts in 700..1500");
/// assert!(first > 700 && first <= 1500 + 16);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SplitSeeker {
    sync: [u8; SYNC_SIZE],
    len: u64,
    end: u64,
    null: bool,
    min_record_size: u64,
    limits: Limits,
    scan: u64,
    state: State,
}

impl SplitSeeker {
    /// A seeker for the split `[start, end)` of a file of `file_len` bytes with this header,
    /// schema (the file's) and codec.
    pub fn new(
        header: &Header,
        schema: &Schema,
        codec: Codec,
        limits: Limits,
        file_len: u64,
        start: u64,
        end: u64,
    ) -> SplitSeeker {
        let header_marker = header.len() - SYNC_SIZE as u64;
        // The header's marker is known: never search the header itself, whose metadata may
        // hold the marker bytes (Avro C 1.5.4 wrote them as `avro.sync`).
        let state = if start <= header_marker {
            State::Done((header_marker < end).then_some(header.len()))
        } else {
            State::Scan
        };
        SplitSeeker {
            sync: header.sync_marker(),
            len: file_len,
            end,
            null: codec == Codec::Null,
            min_record_size: schema.min_encoded_size(),
            limits,
            scan: start,
            state,
        }
    }

    /// What to do next: read some bytes, or stop with the answer.
    pub fn step(&self) -> SeekStep {
        match self.state {
            State::Done(d) => SeekStep::Done(d),
            State::Scan if self.scan >= self.end || self.scan + SYNC_SIZE as u64 > self.len => {
                SeekStep::Done(None)
            }
            State::Scan => SeekStep::Read {
                offset: self.scan,
                len: ((self.end - self.scan).min(CHUNK) as usize) + SYNC_SIZE - 1,
            },
            State::Head { at } if at + SYNC_SIZE as u64 == self.len => {
                SeekStep::Done(Some(self.len))
            }
            State::Head { at } => SeekStep::Read {
                offset: at + SYNC_SIZE as u64,
                len: 20,
            },
            State::Marker { next, .. } => SeekStep::Read {
                offset: next,
                len: SYNC_SIZE,
            },
        }
    }

    /// Gives the seeker the bytes read for the last [`SeekStep::Read`], from its offset.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.state = match self.state {
            State::Done(_) => self.state,
            State::Scan => self.scanned(bytes),
            State::Head { at } => self.framed(at, bytes),
            State::Marker { at, .. } if bytes.len() == SYNC_SIZE && bytes == self.sync => {
                State::Done(Some(at + SYNC_SIZE as u64))
            }
            State::Marker { at, .. } => self.resume(at),
        };
    }

    fn scanned(&mut self, bytes: &[u8]) -> State {
        if bytes.len() < SYNC_SIZE {
            return State::Done(None);
        }
        let found = bytes
            .windows(SYNC_SIZE)
            .enumerate()
            .take_while(|(i, _)| self.scan + (*i as u64) < self.end)
            .find(|(_, w)| *w == self.sync);
        match found {
            Some((i, _)) => State::Head {
                at: self.scan + i as u64,
            },
            None => {
                self.scan += (bytes.len() - (SYNC_SIZE - 1)) as u64;
                State::Scan
            }
        }
    }

    /// The first bytes of the block after a candidate marker at `at`.
    fn framed(&mut self, at: u64, head: &[u8]) -> State {
        let Some((count, size, used)) = peek_block_header(head, &self.limits) else {
            return self.resume(at);
        };
        // Uncompressed, the count must fit in the size, as when reading the block.
        if self.null
            && (count.saturating_mul(self.min_record_size) > size || (count == 0 && size > 0))
        {
            return self.resume(at);
        }
        let next = at + SYNC_SIZE as u64 + used as u64 + size;
        if next + SYNC_SIZE as u64 > self.len {
            return self.resume(at);
        }
        State::Marker { at, next }
    }

    /// The candidate at `at` was not a marker: scan on from the byte after it.
    fn resume(&mut self, at: u64) -> State {
        self.scan = at + 1;
        State::Scan
    }
}
