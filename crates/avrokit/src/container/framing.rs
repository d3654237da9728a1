//! Sans-IO parsers for the container header and data block framing.
//!
//! Both parsers are state machines fed byte slices of any size, down to one byte at a time: they
//! never read, seek or block, so a synchronous reader over a slice, a buffered `io::Read`, or an
//! async stream all share them. [`HeaderDecoder`] collects the header (magic, metadata map, sync
//! marker); [`BlockDecoder`] walks the data blocks that follow and reports what it finds as
//! [`BlockEvent`]s, handing payload bytes back as borrowed pieces of the caller's input, so a
//! caller holding the whole file decodes blocks without copying them.
//!
//! # Examples
//! Parsing a file fed in 7-byte pieces, as a network stream might deliver it:
//! ```
//! use avrokit::container::framing::{BlockDecoder, BlockEvent, HeaderDecoder};
//! use avrokit::container::Writer;
//! use avrokit::{Limits, Schema, Value};
//!
//! let schema = Schema::parse_str(r#""long""#)?;
//! let mut w = Writer::new(Vec::new(), &schema)?;
//! w.append(&Value::Long(7))?;
//! let file = w.into_inner()?;
//!
//! let mut chunks = file.chunks(7);
//! let mut hd = HeaderDecoder::new(Limits::default());
//! let mut rest: &[u8] = &[];
//! while !hd.is_complete() {
//!     let chunk = chunks.next().expect("the header is complete before the end");
//!     let n = hd.decode(chunk)?;
//!     rest = &chunk[n..];
//! }
//! let header = hd.finish()?;
//! let mut bd = BlockDecoder::new(&header, Limits::default());
//! let mut payload = Vec::new();
//! let mut records = 0;
//! for chunk in std::iter::once(rest).chain(chunks) {
//!     let mut input = chunk;
//!     while !input.is_empty() {
//!         let (n, event) = bd.decode(input)?;
//!         match event {
//!             BlockEvent::Start(h) => records += h.count,
//!             BlockEvent::Data(piece) => payload.extend_from_slice(piece),
//!             BlockEvent::End | BlockEvent::NeedInput => {}
//!         }
//!         input = &input[n..];
//!     }
//! }
//! bd.finish()?; // the input ended between two blocks
//! assert_eq!((records, payload), (1, vec![0x0e]));
//! # Ok::<(), avrokit::Error>(())
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;

/// The four bytes every container file starts with: `O`, `b`, `j`, 1.
pub const MAGIC: [u8; 4] = *b"Obj\x01";

/// The size of the sync marker that ends the header and every block.
pub const SYNC_SIZE: usize = 16;

/// Collects a zigzag varint one byte at a time.
#[derive(Debug, Clone, Copy, Default)]
struct VarintAcc {
    value: u64,
    len: u32,
}

impl VarintAcc {
    /// Adds one byte; the decoded (zigzag) value once the varint ends, or `Err` when it runs past
    /// ten bytes or 64 bits.
    #[inline]
    fn push(&mut self, b: u8) -> std::result::Result<Option<i64>, ()> {
        if self.len == 9 && b > 1 {
            return Err(());
        }
        self.value |= u64::from(b & 0x7f) << (7 * self.len);
        self.len += 1;
        if b < 0x80 {
            let raw = self.value;
            *self = VarintAcc::default();
            return Ok(Some(((raw >> 1) as i64) ^ -((raw & 1) as i64)));
        }
        Ok(None)
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A parsed container header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    metadata: Vec<(String, Vec<u8>)>,
    sync: [u8; SYNC_SIZE],
    len: u64,
}

impl Header {
    /// Every metadata entry, in file order (`avro.schema` and `avro.codec` included).
    pub fn metadata(&self) -> &[(String, Vec<u8>)] {
        &self.metadata
    }

    /// The value of a metadata key (the last one, should a key repeat).
    pub fn get(&self, key: &str) -> Option<&[u8]> {
        self.metadata
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    }

    /// The file's sync marker.
    pub fn sync_marker(&self) -> [u8; SYNC_SIZE] {
        self.sync
    }

    /// The header's size in bytes: the first data block starts at this offset.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Always false: a header holds at least the magic and the sync marker.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// What one metadata entry costs beyond its key and value bytes: its `(String, Vec<u8>)` slot.
const ENTRY_COST: usize = std::mem::size_of::<(String, Vec<u8>)>();

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HState {
    Magic,
    /// The item count of a block of the metadata map.
    Count,
    /// The byte size that follows a negative count (not needed, but it must be a valid varint).
    BlockSize,
    KeyLen,
    Key,
    ValueLen,
    Value,
    Sync,
    Done,
}

/// Parses a container header from bytes fed in pieces of any size.
///
/// Feed bytes with [`decode`](Self::decode) until [`is_complete`](Self::is_complete), then take
/// the header with [`finish`](Self::finish); calling `finish` earlier reports where the input
/// ended. Lengths in the metadata map are checked against [`Limits::max_alloc`] (each, and all
/// together with the memory each entry takes in the list), and key and value buffers grow only as
/// their bytes arrive, so a hostile length costs no more memory than the bytes that really follow
/// it.
///
/// See the [module docs](self) for an example.
#[derive(Debug)]
pub struct HeaderDecoder {
    state: HState,
    limits: Limits,
    offset: u64,
    varint: VarintAcc,
    varint_at: u64,
    magic: usize,
    entries_left: u64,
    need: usize,
    key: Vec<u8>,
    value: Vec<u8>,
    total: usize,
    metadata: Vec<(String, Vec<u8>)>,
    sync: [u8; SYNC_SIZE],
    sync_len: usize,
}

impl HeaderDecoder {
    /// A decoder at the start of a file.
    pub fn new(limits: Limits) -> HeaderDecoder {
        HeaderDecoder {
            state: HState::Magic,
            limits,
            offset: 0,
            varint: VarintAcc::default(),
            varint_at: 0,
            magic: 0,
            entries_left: 0,
            need: 0,
            key: Vec::new(),
            value: Vec::new(),
            total: 0,
            metadata: Vec::new(),
            sync: [0; SYNC_SIZE],
            sync_len: 0,
        }
    }

    /// True once the whole header, sync marker included, has been read.
    pub fn is_complete(&self) -> bool {
        self.state == HState::Done
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Consumes header bytes from `input` and returns how many it took: all of them until the
    /// header is complete, then none (the rest belongs to the first data block).
    ///
    /// # Errors
    /// [`ErrorKind::Container`] for a bad magic or malformed map framing, [`ErrorKind::Data`]
    /// for a key that is not UTF-8, [`ErrorKind::Limit`] for lengths over the limit. The
    /// decoder must not be used after an error.
    pub fn decode(&mut self, input: &[u8]) -> Result<usize> {
        let mut i = 0;
        while i < input.len() {
            match self.state {
                HState::Done => break,
                HState::Magic => {
                    let b = input[i];
                    if b != MAGIC[self.magic] {
                        return Err(self.bad_magic(b));
                    }
                    self.magic += 1;
                    i += 1;
                    if self.magic == MAGIC.len() {
                        self.state = HState::Count;
                    }
                }
                HState::Count | HState::BlockSize | HState::KeyLen | HState::ValueLen => {
                    if self.varint.is_empty() {
                        self.varint_at = self.offset + i as u64;
                    }
                    let b = input[i];
                    i += 1;
                    match self.varint.push(b) {
                        Err(()) => return Err(self.bad_varint()),
                        Ok(None) => {}
                        Ok(Some(v)) => self.on_varint(v)?,
                    }
                }
                HState::Key | HState::Value => {
                    let buf = if self.state == HState::Key {
                        &mut self.key
                    } else {
                        &mut self.value
                    };
                    let take = (self.need - buf.len()).min(input.len() - i);
                    buf.extend_from_slice(&input[i..i + take]);
                    i += take;
                    if buf.len() == self.need {
                        self.end_bytes()?;
                    }
                }
                HState::Sync => {
                    let take = (SYNC_SIZE - self.sync_len).min(input.len() - i);
                    self.sync[self.sync_len..self.sync_len + take]
                        .copy_from_slice(&input[i..i + take]);
                    self.sync_len += take;
                    i += take;
                    if self.sync_len == SYNC_SIZE {
                        self.state = HState::Done;
                    }
                }
            }
        }
        self.offset += i as u64;
        Ok(i)
    }

    fn on_varint(&mut self, v: i64) -> Result<()> {
        match self.state {
            HState::Count => {
                if v == 0 {
                    self.state = HState::Sync;
                } else if v < 0 {
                    if v == i64::MIN {
                        return Err(self.at_varint(
                            ErrorKind::Container,
                            "metadata map block count out of range",
                        ));
                    }
                    self.entries_left = v.unsigned_abs();
                    self.state = HState::BlockSize;
                } else {
                    self.entries_left = v as u64;
                    self.state = HState::KeyLen;
                }
            }
            HState::BlockSize => {
                if v < 0 {
                    return Err(
                        self.at_varint(ErrorKind::Container, "negative metadata map block size")
                    );
                }
                self.state = HState::KeyLen;
            }
            HState::KeyLen | HState::ValueLen => {
                let what = if self.state == HState::KeyLen {
                    "key"
                } else {
                    "value"
                };
                if v < 0 {
                    return Err(self.at_varint(
                        ErrorKind::Container,
                        format!("negative metadata {what} length {v}"),
                    ));
                }
                // Each entry also costs its slot in the metadata list, so that a header of
                // millions of empty entries is bounded like one of long values.
                let slot = if self.state == HState::KeyLen {
                    ENTRY_COST
                } else {
                    0
                };
                let left = self.limits.max_alloc.saturating_sub(self.total);
                if (v as u64).saturating_add(slot as u64) > left as u64 {
                    return Err(self.at_varint(
                        ErrorKind::Limit,
                        format!(
                            "metadata {what} length {v} takes the header past the allocation limit of {} bytes (after {} entries)",
                            self.limits.max_alloc,
                            self.metadata.len()
                        ),
                    ));
                }
                self.need = v as usize;
                self.total += self.need + slot;
                if self.state == HState::KeyLen {
                    self.key.clear();
                    self.state = HState::Key;
                } else {
                    self.value = Vec::new();
                    self.state = HState::Value;
                }
                if self.need == 0 {
                    self.end_bytes()?;
                }
            }
            _ => unreachable!("only varint states reach on_varint"),
        }
        Ok(())
    }

    fn end_bytes(&mut self) -> Result<()> {
        if self.state == HState::Key {
            self.state = HState::ValueLen;
            return Ok(());
        }
        let key = match String::from_utf8(std::mem::take(&mut self.key)) {
            Ok(k) => k,
            Err(_) => {
                return Err(Error::at(
                    ErrorKind::Data,
                    "a metadata key in the header is not valid UTF-8",
                    self.varint_at,
                ))
            }
        };
        self.metadata.push((key, std::mem::take(&mut self.value)));
        self.entries_left -= 1;
        self.state = if self.entries_left == 0 {
            HState::Count
        } else {
            HState::KeyLen
        };
        Ok(())
    }

    /// The parsed header.
    ///
    /// # Errors
    /// [`ErrorKind::Eof`] naming what was being read when the header is not complete (call this
    /// when the input has ended).
    pub fn finish(self) -> Result<Header> {
        if self.state != HState::Done {
            let what = match self.state {
                HState::Magic => "the magic bytes",
                HState::Count | HState::BlockSize => "a metadata map block count",
                HState::KeyLen | HState::Key => "a metadata key",
                HState::ValueLen | HState::Value => "a metadata value",
                HState::Sync => "the header's sync marker",
                HState::Done => unreachable!(),
            };
            return Err(Error::at(
                ErrorKind::Eof,
                format!("the input ends inside the header, in {what}"),
                self.offset,
            ));
        }
        Ok(Header {
            metadata: self.metadata,
            sync: self.sync,
            len: self.offset,
        })
    }

    #[cold]
    fn bad_magic(&self, b: u8) -> Error {
        let at = self.magic;
        let msg = if at == 3 && b == 0 {
            "not an Avro object container file: magic `Obj\\x00` is the Avro 1.2 legacy format"
                .to_owned()
        } else if at == 3 {
            format!("not an Avro object container file: magic `Obj` followed by version byte {b} instead of 1")
        } else {
            "not an Avro object container file: bad magic (expected `Obj\\x01`)".to_owned()
        };
        Error::at(ErrorKind::Container, msg, self.offset + at as u64)
    }

    #[cold]
    fn bad_varint(&self) -> Error {
        self.at_varint(
            ErrorKind::Container,
            "varint longer than 64 bits in the header",
        )
    }

    #[cold]
    fn at_varint(&self, kind: ErrorKind, msg: impl Into<std::borrow::Cow<'static, str>>) -> Error {
        Error::at(kind, msg, self.varint_at)
    }
}

/// The framing of one data block, as read from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHeader {
    /// The block's position: 0 for the first block read by this decoder (after a split seek,
    /// the first block of the split).
    pub index: u64,
    /// The file offset of the block's first byte (its object count).
    pub offset: u64,
    /// The number of objects the block claims to hold.
    pub count: u64,
    /// The size of its (possibly compressed) payload in bytes.
    pub size: u64,
    /// The file offset of the payload's first byte.
    pub data_offset: u64,
}

/// What a [`BlockDecoder`] found in the bytes it was given.
#[derive(Debug, PartialEq, Eq)]
pub enum BlockEvent<'a> {
    /// Every byte given was consumed without completing anything: feed more.
    NeedInput,
    /// A block's count and size were read; its payload follows.
    Start(BlockHeader),
    /// A piece of the current block's payload, borrowed from the input. The pieces of one block
    /// add up to its size; when the input holds the whole payload, there is exactly one piece.
    Data(&'a [u8]),
    /// The block's sync marker was read and matches the header's: the block is complete.
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BState {
    Count,
    Size,
    Data,
    Sync,
}

/// Walks the data blocks of a container file, fed in pieces of any size.
///
/// [`decode`](Self::decode) consumes bytes up to the next event and returns how many it took.
/// It checks that counts and sizes are not negative, that a payload size is within
/// [`Limits::max_alloc`] (before the caller allocates anything for it), and that every block
/// ends with the header's sync marker. When the input ends, [`finish`](Self::finish) says whether
/// it ended cleanly between two blocks.
///
/// See the [module docs](self) for an example.
#[derive(Debug, Clone)]
pub struct BlockDecoder {
    sync: [u8; SYNC_SIZE],
    limits: Limits,
    state: BState,
    varint: VarintAcc,
    offset: u64,
    index: u64,
    header: BlockHeader,
    data_left: u64,
    sync_len: usize,
}

impl BlockDecoder {
    /// A decoder positioned at the first block, right after `header`.
    pub fn new(header: &Header, limits: Limits) -> BlockDecoder {
        BlockDecoder::at(header.sync_marker(), header.len(), limits)
    }

    /// A decoder for blocks ending in `sync`, positioned at file offset `offset`, which must be
    /// the start of a block (right after a sync marker).
    pub fn at(sync: [u8; SYNC_SIZE], offset: u64, limits: Limits) -> BlockDecoder {
        BlockDecoder {
            sync,
            limits,
            state: BState::Count,
            varint: VarintAcc::default(),
            offset,
            index: 0,
            header: BlockHeader {
                index: 0,
                offset,
                count: 0,
                size: 0,
                data_offset: offset,
            },
            data_left: 0,
            sync_len: 0,
        }
    }

    /// The file offset of the next byte to decode.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// True between two blocks (nothing of the next block read yet).
    pub fn is_at_boundary(&self) -> bool {
        self.state == BState::Count && self.varint.is_empty()
    }

    /// The header of the block being read (or the last one read, between blocks).
    pub fn current(&self) -> &BlockHeader {
        &self.header
    }

    /// Consumes bytes from `input` up to the next event; returns how many it took and the event.
    ///
    /// # Errors
    /// [`ErrorKind::Container`] for a negative or malformed count or size and for a sync marker
    /// that does not match the header's; [`ErrorKind::Limit`] for a payload size over
    /// `max_alloc`. Each names the block and its byte offset. The decoder must not be used
    /// after an error.
    pub fn decode<'a>(&mut self, input: &'a [u8]) -> Result<(usize, BlockEvent<'a>)> {
        let mut i = 0;
        while i < input.len() {
            match self.state {
                BState::Count | BState::Size => {
                    if self.state == BState::Count && self.varint.is_empty() {
                        self.header = BlockHeader {
                            index: self.index,
                            offset: self.offset + i as u64,
                            count: 0,
                            size: 0,
                            data_offset: 0,
                        };
                    }
                    let b = input[i];
                    i += 1;
                    let v = match self.varint.push(b) {
                        Err(()) => {
                            self.offset += i as u64;
                            return Err(
                                self.error(ErrorKind::Container, "varint longer than 64 bits")
                            );
                        }
                        Ok(None) => continue,
                        Ok(Some(v)) => v,
                    };
                    if self.state == BState::Count {
                        if v < 0 {
                            self.offset += i as u64;
                            return Err(self.error(
                                ErrorKind::Container,
                                format!("negative object count {v}"),
                            ));
                        }
                        self.header.count = v as u64;
                        self.state = BState::Size;
                        continue;
                    }
                    self.offset += i as u64;
                    if v < 0 {
                        return Err(
                            self.error(ErrorKind::Container, format!("negative block size {v}"))
                        );
                    }
                    if v as u64 > self.limits.max_alloc as u64 {
                        return Err(self.error(
                            ErrorKind::Limit,
                            format!(
                                "block size {v} exceeds the allocation limit of {} bytes",
                                self.limits.max_alloc
                            ),
                        ));
                    }
                    self.header.size = v as u64;
                    self.header.data_offset = self.offset;
                    self.data_left = v as u64;
                    self.state = if v == 0 { BState::Sync } else { BState::Data };
                    self.sync_len = 0;
                    return Ok((i, BlockEvent::Start(self.header)));
                }
                BState::Data => {
                    // `Start` is returned as soon as the size is read, so a call never enters
                    // the payload after consuming framing: a data piece starts at `input[0]`.
                    debug_assert_eq!(i, 0);
                    let take = (self.data_left.min((input.len() - i) as u64)) as usize;
                    self.data_left -= take as u64;
                    self.offset += take as u64;
                    if self.data_left == 0 {
                        self.state = BState::Sync;
                    }
                    return Ok((take, BlockEvent::Data(&input[..take])));
                }
                BState::Sync => {
                    let take = (SYNC_SIZE - self.sync_len).min(input.len() - i);
                    let got = &input[i..i + take];
                    if got != &self.sync[self.sync_len..self.sync_len + take] {
                        let marker_at = self.offset + i as u64 - self.sync_len as u64;
                        self.offset += i as u64;
                        return Err(Error::at(
                            ErrorKind::Container,
                            format!(
                                "the sync marker after block {} (which starts at byte {}) does not match the header's: the file is corrupt",
                                self.header.index, self.header.offset
                            ),
                            marker_at,
                        ));
                    }
                    self.sync_len += take;
                    i += take;
                    if self.sync_len == SYNC_SIZE {
                        self.offset += i as u64;
                        self.state = BState::Count;
                        self.index += 1;
                        return Ok((i, BlockEvent::End));
                    }
                }
            }
        }
        self.offset += i as u64;
        Ok((i, BlockEvent::NeedInput))
    }

    /// Checks that the input ended cleanly, between two blocks.
    ///
    /// # Errors
    /// [`ErrorKind::Eof`] naming the block and what of it was missing.
    pub fn finish(&self) -> Result<()> {
        if self.is_at_boundary() {
            return Ok(());
        }
        let what = match self.state {
            BState::Count => "in its object count".to_owned(),
            BState::Size => "in its size".to_owned(),
            BState::Data => format!(
                "{} bytes short of its {}-byte payload",
                self.data_left, self.header.size
            ),
            BState::Sync => format!("in its sync marker ({} of 16 bytes present)", self.sync_len),
        };
        Err(Error::at(
            ErrorKind::Eof,
            format!(
                "the file ends inside block {} (which starts at byte {}), {what}",
                self.header.index, self.header.offset
            ),
            self.offset,
        ))
    }

    #[cold]
    fn error(&self, kind: ErrorKind, msg: impl Into<String>) -> Error {
        Error::at(
            kind,
            format!(
                "block {} (at byte {}): {}",
                self.header.index,
                self.header.offset,
                msg.into()
            ),
            self.header.offset,
        )
    }
}

/// Parses a block's count and size from the start of `input`, for split seeking: `None` when
/// they are not both there or are invalid; otherwise (count, size, bytes they take).
pub(crate) fn peek_block_header(input: &[u8], limits: &Limits) -> Option<(u64, u64, usize)> {
    let mut acc = VarintAcc::default();
    let mut vals = [0i64; 2];
    let mut k = 0;
    for (i, &b) in input.iter().enumerate().take(20) {
        if let Some(v) = acc.push(b).ok()? {
            vals[k] = v;
            k += 1;
            if k == 2 {
                let (count, size) = (vals[0], vals[1]);
                if count < 0 || size < 0 || size as u64 > limits.max_alloc as u64 {
                    return None;
                }
                return Some((count as u64, size as u64, i + 1));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_bytes() -> Vec<u8> {
        let mut h = MAGIC.to_vec();
        h.push(0x02); // one entry
        h.push(0x02);
        h.push(b'k');
        h.push(0x04);
        h.extend_from_slice(b"vv");
        h.push(0x00);
        h.extend_from_slice(&[7u8; 16]);
        h
    }

    #[test]
    fn header_one_byte_at_a_time() {
        let bytes = header_bytes();
        let mut hd = HeaderDecoder::new(Limits::default());
        for b in &bytes {
            assert_eq!(hd.decode(std::slice::from_ref(b)).unwrap(), 1);
        }
        assert!(hd.is_complete());
        assert_eq!(hd.decode(b"xyz").unwrap(), 0);
        let h = hd.finish().unwrap();
        assert_eq!(h.get("k"), Some(&b"vv"[..]));
        assert_eq!(h.sync_marker(), [7u8; 16]);
        assert_eq!(h.len(), bytes.len() as u64);
    }

    #[test]
    fn header_every_prefix_is_eof() {
        let bytes = header_bytes();
        for n in 0..bytes.len() {
            let mut hd = HeaderDecoder::new(Limits::default());
            hd.decode(&bytes[..n]).unwrap();
            let e = hd.finish().unwrap_err();
            assert!(e.is_eof(), "{n}: {e}");
        }
    }

    #[test]
    fn header_bad_magic() {
        let mut hd = HeaderDecoder::new(Limits::default());
        let e = hd.decode(b"Obj\x02").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Container);
        assert_eq!(e.offset(), Some(3));
    }

    #[test]
    fn header_length_over_limit() {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[0x02, 0x80, 0x80, 0x80, 0x80, 0x10]); // key length 2^31
        let mut hd = HeaderDecoder::new(Limits::default().with_max_alloc(1024));
        let e = hd.decode(&bytes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Limit);
    }

    #[test]
    fn blocks_in_pieces() {
        let sync = [9u8; 16];
        let mut file = vec![0x04, 0x06, 1, 2, 3];
        file.extend_from_slice(&sync);
        file.extend_from_slice(&[0x00, 0x00]);
        file.extend_from_slice(&sync);
        for piece in 1..file.len() + 1 {
            let mut bd = BlockDecoder::at(sync, 100, Limits::default());
            let mut data = Vec::new();
            let mut starts = Vec::new();
            let mut ends = 0;
            for chunk in file.chunks(piece) {
                let mut input = chunk;
                while !input.is_empty() {
                    let (n, ev) = bd.decode(input).unwrap();
                    match ev {
                        BlockEvent::Start(h) => starts.push((h.offset, h.count, h.size)),
                        BlockEvent::Data(d) => data.extend_from_slice(d),
                        BlockEvent::End => ends += 1,
                        BlockEvent::NeedInput => assert_eq!(n, input.len()),
                    }
                    input = &input[n..];
                }
            }
            bd.finish().unwrap();
            assert_eq!(starts, vec![(100, 2, 3), (121, 0, 0)]);
            assert_eq!(data, [1, 2, 3]);
            assert_eq!(ends, 2);
            assert_eq!(bd.offset(), 100 + file.len() as u64);
        }
    }

    #[test]
    fn block_errors() {
        let sync = [9u8; 16];
        let mut bd = BlockDecoder::at(sync, 0, Limits::default());
        assert_eq!(bd.decode(&[0x01]).unwrap_err().kind(), ErrorKind::Container);
        let mut bd = BlockDecoder::at(sync, 0, Limits::default());
        assert_eq!(
            bd.decode(&[0x02, 0x01]).unwrap_err().kind(),
            ErrorKind::Container
        );
        let mut bd = BlockDecoder::at(sync, 0, Limits::default().with_max_alloc(10));
        assert_eq!(
            bd.decode(&[0x02, 0x40]).unwrap_err().kind(),
            ErrorKind::Limit
        );
        let mut bd = BlockDecoder::at(sync, 0, Limits::default());
        let mut f = vec![0x02, 0x00];
        f.extend_from_slice(&[8u8; 16]);
        let (n, _) = bd.decode(&f).unwrap();
        let e = bd.decode(&f[n..]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Container);
        assert_eq!(e.offset(), Some(2));
        let mut bd = BlockDecoder::at(sync, 0, Limits::default());
        bd.decode(&[0x02]).unwrap();
        assert!(bd.finish().unwrap_err().is_eof());
    }
}
