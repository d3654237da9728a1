//! Where encoders write to.

use std::io::Write;

use super::varint;
use crate::error::{Error, Result};

/// A byte sink for an [`Encoder`](crate::Encoder).
///
/// Implemented for `Vec<u8>` (appended to directly; never fails), [`BufferedSink`] (any
/// `io::Write`, in chunks), [`DirectSink`] (writes through, for callers who buffer themselves),
/// [`BlockingSink`] (arrays and maps in sized blocks) and `&mut S` for any sink `S`.
///
/// Arrays and maps go through three hooks. The default is Java's `BinaryEncoder`: the item count
/// is known up front and written as one block, then a `0` terminator. [`BlockingSink`] overrides
/// them to write blocks of bounded size with a byte count, so readers can skip them.
pub trait Sink {
    /// Appends bytes.
    ///
    /// # Errors
    /// When the underlying writer fails.
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<()>;

    /// Appends one byte.
    ///
    /// # Errors
    /// When the underlying writer fails.
    #[inline]
    fn write_byte(&mut self, byte: u8) -> Result<()> {
        self.write_bytes(&[byte])
    }

    /// Appends a raw varint.
    ///
    /// # Errors
    /// When the underlying writer fails.
    #[inline]
    fn write_varint(&mut self, v: u64) -> Result<()> {
        let mut buf = [0u8; 10];
        let n = varint::encode(v, &mut buf);
        self.write_bytes(&buf[..n])
    }

    /// Pushes everything written so far to the underlying writer and flushes it.
    ///
    /// # Errors
    /// When the underlying writer fails, or (for [`BlockingSink`]) inside an open array or map.
    fn flush(&mut self) -> Result<()>;

    /// Starts an array or map of `len` items.
    ///
    /// # Errors
    /// When the underlying writer fails.
    #[inline]
    fn start_collection(&mut self, len: usize) -> Result<()> {
        if len > 0 {
            self.write_varint(varint::zigzag64(len as i64))?;
        }
        Ok(())
    }

    /// Called before each item of an array or map.
    ///
    /// # Errors
    /// When the underlying writer fails.
    #[inline]
    fn start_item(&mut self) -> Result<()> {
        Ok(())
    }

    /// Ends an array or map.
    ///
    /// # Errors
    /// When the underlying writer fails.
    #[inline]
    fn end_collection(&mut self) -> Result<()> {
        self.write_byte(0)
    }

    /// A hint that about `additional` more bytes are coming (a `Vec<u8>` reserves them, so a
    /// bulk write of many small values grows the buffer once). Does nothing by default.
    #[inline]
    fn reserve(&mut self, additional: usize) {
        let _ = additional;
    }

    /// Writes a run of array items of `item_size` bytes each, their encodings back to back in
    /// `items` (the bulk path of `f32`/`f64`/`bool` arrays). Sinks without per-item framing
    /// write them in one go; the default marks each item with
    /// [`start_item`](Sink::start_item), as [`BlockingSink`] needs.
    ///
    /// # Errors
    /// When the underlying writer fails.
    #[doc(hidden)]
    #[inline]
    fn write_items(&mut self, items: &[u8], item_size: usize) -> Result<()> {
        for item in items.chunks(item_size.max(1)) {
            self.start_item()?;
            self.write_bytes(item)?;
        }
        Ok(())
    }
}

impl Sink for Vec<u8> {
    #[inline(always)]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    #[inline(always)]
    fn write_byte(&mut self, byte: u8) -> Result<()> {
        self.push(byte);
        Ok(())
    }

    #[inline(always)]
    fn write_varint(&mut self, v: u64) -> Result<()> {
        // One byte: a push. Up to 2^56 (every int, nearly every long): the 7-bit groups are
        // spread with shifts and masks and stored as one 8-byte word, then the length trimmed,
        // so there is no branch per byte. avrokit-perf, same sitting, against the byte loop:
        // IntWrite 270-280 -> 290 M/s; the pure word path without the one-byte case was slower
        // on IntWrite (145-185 M/s).
        if v < 0x80 {
            self.push(v as u8);
            return Ok(());
        }
        if v < (1 << 56) {
            let (word, len) = varint::spread(v);
            let at = self.len();
            self.extend_from_slice(&word.to_le_bytes());
            self.truncate(at + len);
            return Ok(());
        }
        // 9 or 10 bytes: stored as 10, then trimmed, rather than a copy of a variable length.
        let (bytes, len) = varint::spread_wide(v);
        let at = self.len();
        self.extend_from_slice(&bytes);
        self.truncate(at + len);
        Ok(())
    }

    #[inline]
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    #[inline(always)]
    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional);
    }

    #[inline(always)]
    fn write_items(&mut self, items: &[u8], _item_size: usize) -> Result<()> {
        self.extend_from_slice(items);
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    #[inline(always)]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        (**self).write_bytes(bytes)
    }
    #[inline(always)]
    fn write_byte(&mut self, byte: u8) -> Result<()> {
        (**self).write_byte(byte)
    }
    #[inline(always)]
    fn write_varint(&mut self, v: u64) -> Result<()> {
        (**self).write_varint(v)
    }
    #[inline]
    fn flush(&mut self) -> Result<()> {
        (**self).flush()
    }
    #[inline(always)]
    fn start_collection(&mut self, len: usize) -> Result<()> {
        (**self).start_collection(len)
    }
    #[inline(always)]
    fn start_item(&mut self) -> Result<()> {
        (**self).start_item()
    }
    #[inline(always)]
    fn end_collection(&mut self) -> Result<()> {
        (**self).end_collection()
    }

    #[inline(always)]
    fn reserve(&mut self, additional: usize) {
        (**self).reserve(additional)
    }

    #[inline(always)]
    fn write_items(&mut self, items: &[u8], item_size: usize) -> Result<()> {
        (**self).write_items(items, item_size)
    }
}

/// Buffers writes in memory and hands the `io::Write` full buffers only (64 KiB by default).
///
/// Call [`Sink::flush`] (or [`Encoder::flush`](crate::Encoder::flush)) at the end: dropping the
/// sink does not write what is buffered, so that a failure is never silent.
///
/// Once the writer fails, the sink is poisoned: the bytes it held are lost (the writer may have
/// taken part of them), so every later write and flush fails too, even if the writer would
/// work again; a stream with a hole in it is never reported as written.
pub struct BufferedSink<W: Write> {
    buf: Vec<u8>,
    /// The buffer's size; 0 once poisoned, which sends every write to the (failing) slow path.
    capacity: usize,
    inner: W,
    poisoned: bool,
}

impl<W: Write> BufferedSink<W> {
    /// Default buffer size: 64 KiB.
    pub const DEFAULT_CAPACITY: usize = 64 * 1024;

    /// A sink with a 64 KiB buffer.
    pub fn new(inner: W) -> BufferedSink<W> {
        BufferedSink::with_capacity(Self::DEFAULT_CAPACITY, inner)
    }

    /// A sink with a buffer of `capacity` bytes (at least 16).
    pub fn with_capacity(capacity: usize, inner: W) -> BufferedSink<W> {
        let capacity = capacity.max(16);
        BufferedSink {
            buf: Vec::with_capacity(capacity),
            capacity,
            inner,
            poisoned: false,
        }
    }

    /// The inner writer (buffered bytes not yet written stay in the buffer).
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Flushes and returns the inner writer.
    ///
    /// # Errors
    /// When writing the buffered bytes fails, or the sink is poisoned by an earlier failure.
    pub fn into_inner(mut self) -> Result<W> {
        self.drain()?;
        Ok(self.inner)
    }

    /// True after the writer failed: nothing more can be written.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    #[cold]
    #[inline(never)]
    fn drain(&mut self) -> Result<()> {
        if self.poisoned {
            self.buf.clear();
            return Err(poisoned());
        }
        let r = self.inner.write_all(&self.buf);
        self.buf.clear();
        r.map_err(|e| self.poison(e))
    }

    #[cold]
    fn poison(&mut self, e: std::io::Error) -> Error {
        self.poisoned = true;
        self.capacity = 0;
        Error::io(e)
    }
}

#[cold]
fn poisoned() -> Error {
    Error::new(
        crate::error::ErrorKind::Io,
        "the sink is poisoned by an earlier write error: nothing more can be written",
    )
}

/// `flush`, retried while it is interrupted (as `write_all` retries writes).
pub(crate) fn flush_retrying<W: Write>(w: &mut W) -> std::io::Result<()> {
    loop {
        match w.flush() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

impl<W: Write> Sink for BufferedSink<W> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        if self.buf.len() + bytes.len() > self.capacity {
            self.drain()?;
            if bytes.len() >= self.capacity {
                return self.inner.write_all(bytes).map_err(|e| self.poison(e));
            }
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    #[inline]
    fn write_byte(&mut self, byte: u8) -> Result<()> {
        if self.buf.len() >= self.capacity {
            self.drain()?;
        }
        self.buf.push(byte);
        Ok(())
    }

    #[inline]
    fn write_varint(&mut self, v: u64) -> Result<()> {
        if self.buf.len() + 10 > self.capacity {
            self.drain()?;
        }
        self.buf.write_varint(v)
    }

    fn flush(&mut self) -> Result<()> {
        self.drain()?;
        flush_retrying(&mut self.inner).map_err(|e| self.poison(e))
    }

    #[inline]
    fn write_items(&mut self, items: &[u8], _item_size: usize) -> Result<()> {
        self.write_bytes(items)
    }
}

/// Writes every call straight through to the `io::Write`: for callers who buffer themselves.
///
/// Once the writer fails, the sink is poisoned: every later write and flush fails too (a
/// failed `write_all` may have written part of its bytes).
pub struct DirectSink<W: Write> {
    inner: W,
    poisoned: bool,
}

impl<W: Write> DirectSink<W> {
    /// A sink writing through to `inner`.
    pub fn new(inner: W) -> DirectSink<W> {
        DirectSink {
            inner,
            poisoned: false,
        }
    }

    /// The inner writer.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// True after the writer failed: nothing more can be written.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    #[cold]
    #[inline(never)]
    fn fail(&mut self, e: Option<std::io::Error>) -> Error {
        match e {
            Some(e) => {
                self.poisoned = true;
                Error::io(e)
            }
            None => poisoned(),
        }
    }
}

impl<W: Write> Sink for DirectSink<W> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        if self.poisoned {
            return Err(self.fail(None));
        }
        self.inner.write_all(bytes).map_err(|e| self.fail(Some(e)))
    }

    fn flush(&mut self) -> Result<()> {
        if self.poisoned {
            return Err(self.fail(None));
        }
        flush_retrying(&mut self.inner).map_err(|e| self.fail(Some(e)))
    }

    #[inline]
    fn write_items(&mut self, items: &[u8], _item_size: usize) -> Result<()> {
        self.write_bytes(items)
    }
}

/// Writes arrays and maps as blocks of about `block_size` bytes, each with a negative item count
/// followed by its byte size, as the specification allows: readers can skip a whole block without
/// decoding it, and the writer need not know the item count up front.
///
/// Everything inside an open array or map is staged in memory; the inner sink receives a
/// collection once it is complete.
///
/// # Examples
/// ```
/// use avrokit::{Encoder, io::BlockingSink};
/// let mut out = Vec::new();
/// let mut enc = Encoder::new(BlockingSink::new(&mut out, 1024));
/// enc.write_array_start(2)?;
/// enc.start_item()?;
/// enc.write_int(1)?;
/// enc.start_item()?;
/// enc.write_int(2)?;
/// enc.write_array_end()?;
/// enc.flush()?;
/// drop(enc);
/// // count -2 (zigzag 3), byte size 2, items 1 and 2, end of array
/// assert_eq!(out, [0x03, 0x04, 0x02, 0x04, 0x00]);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// [`BlockingSink::java_compatible`] instead reproduces Java's `BlockingBinaryEncoder` (see
/// there).
pub struct BlockingSink<S: Sink> {
    inner: S,
    staged: Vec<u8>,
    frames: Vec<Frame>,
    block_size: usize,
    /// Java's rule (`java_compatible`): `block_size` is the encoder's buffer size.
    java: bool,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    /// Where the current block's items start in `staged`.
    block_start: usize,
    /// Items in the current block.
    count: u64,
    /// Where the current item starts in `staged` (Java mode).
    item_start: usize,
    /// The current item did not fit and is being written as a one-item block (Java mode).
    overflow: bool,
}

impl<S: Sink> BlockingSink<S> {
    /// A blocking sink over `inner`, closing a block once it holds `block_size` bytes or more.
    pub fn new(inner: S, block_size: usize) -> BlockingSink<S> {
        BlockingSink {
            inner,
            staged: Vec::new(),
            frames: Vec::new(),
            block_size: block_size.max(1),
            java: false,
        }
    }

    /// A blocking sink that writes the blocks Java's `BlockingBinaryEncoder` writes when
    /// configured with a `buffer_size`-byte block buffer (Java's `EncoderFactory`
    /// `configureBlockSize`), byte for byte, for arrays and maps of **fixed-size** items
    /// (`float`, `double`, records of them...) that contain no nested array or map.
    ///
    /// The rule: the items of a block are buffered until the next primitive write (a float, a
    /// varint, a string's bytes) would make the block exceed `buffer_size` bytes. Then the
    /// complete items buffered so far become a sized block (negative count, byte size, items),
    /// the item being written becomes an "overflow" block of its own with a **positive** count
    /// of 1 and no byte size, and buffering restarts with the following item. At the end of
    /// the collection the remaining items form a final sized block, then `0`.
    ///
    /// For other shapes (nested collections, items of varying size) the output is valid Avro
    /// that any reader accepts, but Java's encoder, whose buffer also holds enclosing headers
    /// and compacts differently, may cut the blocks elsewhere.
    ///
    /// # Examples
    /// ```
    /// use avrokit::{Encoder, io::BlockingSink};
    /// let mut out = Vec::new();
    /// let mut enc = Encoder::new(BlockingSink::java_compatible(&mut out, 8));
    /// enc.write_array_start(3)?;
    /// for x in [1.0f32, 2.0, 3.0] {
    ///     enc.start_item()?;
    ///     enc.write_float(x)?;
    /// }
    /// enc.write_array_end()?;
    /// drop(enc);
    /// // -2 items, 8 bytes, floats 1 and 2; then 1 item (overflow, no size), float 3; end.
    /// assert_eq!(out[..2], [0x03, 0x10]);
    /// assert_eq!(out[10], 0x02);
    /// assert_eq!(out.len(), 2 + 8 + 1 + 4 + 1);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    pub fn java_compatible(inner: S, buffer_size: usize) -> BlockingSink<S> {
        BlockingSink {
            java: true,
            ..BlockingSink::new(inner, buffer_size)
        }
    }

    /// Java mode: the current item of the innermost frame does not fit with `extra` more
    /// bytes. Closes the complete items as a sized block and opens a one-item block for it.
    fn java_overflow(&mut self) {
        let frame = *self.frames.last().expect("an open collection");
        // The complete items: a sized block (header spliced in front of them).
        let complete = frame.count - 1;
        let mut shift = 0;
        if complete > 0 {
            let size = (frame.item_start - frame.block_start) as i64;
            let mut header = Vec::with_capacity(20);
            header
                .write_varint(varint::zigzag64(-(complete as i64)))
                .ok();
            header.write_varint(varint::zigzag64(size)).ok();
            shift = header.len();
            self.staged
                .splice(frame.block_start..frame.block_start, header);
        }
        // The current item: count +1, no size, then its bytes.
        let at = frame.item_start + shift;
        self.staged.insert(at, varint::zigzag64(1) as u8);
        let frame = self.frames.last_mut().expect("an open collection");
        frame.overflow = true;
        frame.count = 0;
    }

    /// The inner sink.
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// Appends `n` complete items of `s` bytes each to the innermost frame's current block, as
    /// `n` rounds of `start_item` and `write_bytes` would when no block is cut among them.
    fn append_items(&mut self, run: &[u8], n: usize, s: usize) {
        self.staged.extend_from_slice(run);
        let frame = self.frames.last_mut().expect("an open collection");
        frame.count += n as u64;
        frame.item_start = self.staged.len() - s;
    }

    /// Writes the header of the current block of the innermost frame in front of its items.
    fn close_block(&mut self) {
        let frame = self.frames.last_mut().expect("an open collection");
        if frame.count == 0 {
            return;
        }
        let size = (self.staged.len() - frame.block_start) as i64;
        let mut header = Vec::with_capacity(20);
        header
            .write_varint(varint::zigzag64(-(frame.count as i64)))
            .ok();
        header.write_varint(varint::zigzag64(size)).ok();
        self.staged
            .splice(frame.block_start..frame.block_start, header);
        frame.block_start = self.staged.len();
        frame.count = 0;
    }
}

impl<S: Sink> Sink for BlockingSink<S> {
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let Some(frame) = self.frames.last() else {
            return self.inner.write_bytes(bytes);
        };
        if self.java
            && !frame.overflow
            && frame.count > 0
            && self.staged.len() - frame.block_start + bytes.len() > self.block_size
        {
            self.java_overflow();
        }
        self.staged.extend_from_slice(bytes);
        Ok(())
    }

    /// The bulk path of fixed-width items: where the blocks are cut is worked out from the
    /// item size, so a run of items that share a block is one copy, with exactly the blocks
    /// the per-item path ([`start_item`](Sink::start_item) then
    /// [`write_bytes`](Sink::write_bytes) per item) would cut. Per item, that path cost about
    /// 30 instructions of frame checks for a 4-byte float (the Java-blocked float array write
    /// of avrokit-perf ran at 0.4x the peers' one-block write).
    fn write_items(&mut self, items: &[u8], item_size: usize) -> Result<()> {
        let s = item_size.max(1);
        if self.frames.is_empty() || items.len() % s != 0 {
            // Outside a collection, or not a whole number of items: the general path says so.
            for item in items.chunks(s) {
                self.start_item()?;
                self.write_bytes(item)?;
            }
            return Ok(());
        }
        let mut rest = items;
        while !rest.is_empty() {
            let frame = *self.frames.last().expect("checked above");
            let used = self.staged.len() - frame.block_start;
            if self.java {
                if frame.overflow {
                    // The previous item was an overflow block; the next item starts a new one.
                    self.start_item()?;
                    self.write_bytes(&rest[..s])?;
                    rest = &rest[s..];
                    continue;
                }
                // Items that keep the block within `block_size` go in as they are; the first
                // one that does not becomes the overflow item (as `write_bytes` decides).
                let fit = (self.block_size.saturating_sub(used) / s).min(rest.len() / s);
                if fit == 0 {
                    self.start_item()?;
                    self.write_bytes(&rest[..s])?;
                    rest = &rest[s..];
                    continue;
                }
                let (run, tail) = rest.split_at(fit * s);
                self.append_items(run, fit, s);
                rest = tail;
            } else {
                if frame.count > 0 && used >= self.block_size {
                    self.close_block();
                }
                let used = self.staged.len() - self.frames.last().expect("open").block_start;
                // `start_item` closes the block before the first item that finds it full, so
                // the block takes items until it holds `block_size` bytes, at least one.
                let take = self.block_size.saturating_sub(used).div_ceil(s).max(1);
                let take = take.min(rest.len() / s);
                let (run, tail) = rest.split_at(take * s);
                self.append_items(run, take, s);
                rest = tail;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.frames.is_empty() {
            return Err(Error::data("cannot flush inside an open array or map"));
        }
        self.inner.flush()
    }

    fn start_collection(&mut self, _len: usize) -> Result<()> {
        self.frames.push(Frame {
            block_start: self.staged.len(),
            count: 0,
            item_start: self.staged.len(),
            overflow: false,
        });
        Ok(())
    }

    fn start_item(&mut self) -> Result<()> {
        let Some(frame) = self.frames.last_mut() else {
            return Err(Error::data("start_item outside an array or map"));
        };
        if self.java {
            if frame.overflow {
                // The overflow item is complete; buffering restarts with this one.
                frame.overflow = false;
                frame.block_start = self.staged.len();
            }
        } else if frame.count > 0 && self.staged.len() - frame.block_start >= self.block_size {
            self.close_block();
        }
        let frame = self.frames.last_mut().expect("checked above");
        frame.count += 1;
        frame.item_start = self.staged.len();
        Ok(())
    }

    fn end_collection(&mut self) -> Result<()> {
        if self.frames.is_empty() {
            return Err(Error::data("end of an array or map that was not started"));
        }
        self.close_block();
        self.frames.pop();
        self.staged.push(0);
        if self.frames.is_empty() {
            let r = self.inner.write_bytes(&self.staged);
            self.staged.clear();
            r?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Encoder;

    fn varint(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        out.write_varint(varint::zigzag64(v)).unwrap();
        out
    }

    fn float_bytes(items: &[f32]) -> Vec<u8> {
        items.iter().flat_map(|f| f.to_le_bytes()).collect()
    }

    /// The layout Java's BlockingBinaryEncoder (254-byte buffer) gives an array of `n` floats,
    /// as the Perf workload catalog states it.
    fn java_layout(items: &[f32]) -> Vec<u8> {
        let n = items.len();
        let mut out = Vec::new();
        let sized = |out: &mut Vec<u8>, part: &[f32]| {
            out.extend(varint(-(part.len() as i64)));
            out.extend(varint(4 * part.len() as i64));
            out.extend(float_bytes(part));
        };
        if n <= 63 {
            sized(&mut out, items);
        } else {
            sized(&mut out, &items[..63]);
            out.push(0x02);
            out.extend(float_bytes(&items[63..64]));
            if n > 64 {
                sized(&mut out, &items[64..]);
            }
        }
        out.push(0);
        out
    }

    #[test]
    fn java_compatible_blocks_match_java_for_float_arrays() {
        for (n, len) in [
            (56, 4 * 56 + 4),
            (63, 4 * 63 + 4),
            (64, 4 * 64 + 5),
            (65, 4 * 65 + 7),
            (80, 4 * 80 + 8),
            (112, 4 * 112 + 8),
        ] {
            let items: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
            let mut out = Vec::new();
            let mut enc = Encoder::new(BlockingSink::java_compatible(&mut out, 254));
            enc.write_array_start(n).unwrap();
            for &f in &items {
                enc.start_item().unwrap();
                enc.write_float(f).unwrap();
            }
            enc.write_array_end().unwrap();
            enc.flush().unwrap();
            drop(enc);
            let want = java_layout(&items);
            assert_eq!(want.len(), len, "n = {n}: the catalog's total");
            assert_eq!(out, want, "n = {n}");
            if n >= 64 {
                assert_eq!(out[..3], [0x7d, 0xf8, 0x03], "n = {n}: block A header");
                assert_eq!(out[255], 0x02, "n = {n}: the overflow block's count");
            }
        }
    }

    /// Writes `lead` items one by one, then the rest through `write_items` in runs of `chunk`
    /// items (or one by one when `bulk` is false).
    fn blocked(
        java: bool,
        block: usize,
        s: usize,
        n: usize,
        lead: usize,
        chunk: usize,
        bulk: bool,
    ) -> Vec<u8> {
        let item = |i: usize| -> Vec<u8> { (0..s).map(|k| (i * 7 + k) as u8).collect() };
        let mut out = Vec::new();
        let mut sink = if java {
            BlockingSink::java_compatible(&mut out, block)
        } else {
            BlockingSink::new(&mut out, block)
        };
        sink.start_collection(n).unwrap();
        let all: Vec<u8> = (0..n).flat_map(item).collect();
        let (first, rest) = all.split_at(lead.min(n) * s);
        for it in first.chunks(s) {
            sink.start_item().unwrap();
            sink.write_bytes(it).unwrap();
        }
        if bulk {
            for run in rest.chunks((chunk * s).max(1)) {
                sink.write_items(run, s).unwrap();
            }
        } else {
            for it in rest.chunks(s) {
                sink.start_item().unwrap();
                sink.write_bytes(it).unwrap();
            }
        }
        sink.end_collection().unwrap();
        drop(sink);
        out
    }

    #[test]
    fn bulk_items_cut_the_blocks_the_per_item_path_cuts() {
        for java in [true, false] {
            for block in [1, 3, 8, 254, 1000] {
                for s in [1, 4, 8, 9, 300] {
                    for n in [0, 1, 2, 62, 63, 64, 65, 127, 200, 513] {
                        for lead in [0, 1, 5] {
                            for chunk in [1, 3, 64, 1000] {
                                let want = blocked(java, block, s, n, lead, chunk, false);
                                let got = blocked(java, block, s, n, lead, chunk, true);
                                assert_eq!(
                                    got, want,
                                    "java {java}, block {block}, item {s}, n {n}, lead {lead}, chunk {chunk}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn java_compatible_reads_back() {
        let items: Vec<f32> = (0..200).map(|i| i as f32).collect();
        let mut out = Vec::new();
        let mut enc = Encoder::new(BlockingSink::java_compatible(&mut out, 254));
        enc.write_array_start(items.len()).unwrap();
        for &f in &items {
            enc.start_item().unwrap();
            enc.write_float(f).unwrap();
        }
        enc.write_array_end().unwrap();
        drop(enc);
        let mut dec = crate::Decoder::from_slice(&out);
        let mut back = Vec::new();
        loop {
            let n = dec.read_long().unwrap();
            if n == 0 {
                break;
            }
            if n < 0 {
                dec.read_long().unwrap();
            }
            for _ in 0..n.unsigned_abs() {
                back.push(dec.read_float().unwrap());
            }
        }
        assert_eq!(back, items);
        assert!(dec.rest().is_empty());
    }
}
