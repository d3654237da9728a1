//! The binary encoder: one call per value, like Java's `BinaryEncoder`.
//!
//! An [`Encoder`] writes Avro's binary encoding into a [`Sink`]. It knows nothing about schemas:
//! the caller (a hand-written codec, [`Value`](crate::Value) or serde) decides what to write.
//!
//! # Examples
//! ```
//! use avrokit::Encoder;
//! let mut out = Vec::new();
//! let mut enc = Encoder::new(&mut out);
//! enc.write_long(-1)?;
//! enc.write_string("foo")?;
//! enc.write_array_start(2)?;
//! enc.start_item()?;
//! enc.write_int(1)?;
//! enc.start_item()?;
//! enc.write_int(2)?;
//! enc.write_array_end()?;
//! assert_eq!(out, [0x01, 0x06, b'f', b'o', b'o', 0x04, 0x02, 0x04, 0x00]);
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # Performance
//! `Vec<u8>` is the fastest sink: it is appended to directly and never fails. For an
//! `io::Write`, use [`Encoder::buffered`]: it hands the writer 64 KiB chunks, never a few bytes at
//! a time.

mod validating;

use std::io::Write;

use crate::error::Result;
use crate::io::varint::{zigzag32, zigzag64};
use crate::io::{BlockingSink, BufferedSink, DirectSink, Sink};

pub use validating::ValidatingEncoder;

/// Writes Avro binary data into a [`Sink`].
pub struct Encoder<S: Sink> {
    sink: S,
}

impl<S: Sink> Encoder<S> {
    /// An encoder over any sink; `&mut Vec<u8>` and `Vec<u8>` are sinks.
    #[inline]
    pub fn new(sink: S) -> Encoder<S> {
        Encoder { sink }
    }

    /// The sink.
    #[inline]
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// The sink, mutably.
    #[inline]
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    /// Returns the sink without flushing it.
    #[inline]
    pub fn into_inner(self) -> S {
        self.sink
    }

    /// Writes nothing: `null` has an empty encoding. Present so hand-written codecs read naturally.
    ///
    /// # Errors
    /// Never.
    #[inline(always)]
    pub fn write_null(&mut self) -> Result<()> {
        Ok(())
    }

    /// Writes a boolean as one byte.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_boolean(&mut self, v: bool) -> Result<()> {
        self.sink.write_byte(v as u8)
    }

    /// Writes an `int` as a zigzag varint.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_int(&mut self, v: i32) -> Result<()> {
        self.sink.write_varint(zigzag32(v))
    }

    /// Writes a `long` as a zigzag varint.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_long(&mut self, v: i64) -> Result<()> {
        self.sink.write_varint(zigzag64(v))
    }

    /// Writes a `float` as 4 little-endian bytes.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_float(&mut self, v: f32) -> Result<()> {
        self.sink.write_bytes(&v.to_le_bytes())
    }

    /// Writes a `double` as 8 little-endian bytes.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_double(&mut self, v: f64) -> Result<()> {
        self.sink.write_bytes(&v.to_le_bytes())
    }

    /// Writes `bytes`: the length as a `long`, then the bytes.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_bytes(&mut self, v: &[u8]) -> Result<()> {
        self.sink.write_varint(zigzag64(v.len() as i64))?;
        self.sink.write_bytes(v)
    }

    /// Writes a `string`: the UTF-8 length as a `long`, then the UTF-8 bytes.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_string(&mut self, v: &str) -> Result<()> {
        self.write_bytes(v.as_bytes())
    }

    /// Writes a `fixed`: the bytes alone (the schema gives the size).
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_fixed(&mut self, v: &[u8]) -> Result<()> {
        self.sink.write_bytes(v)
    }

    /// Writes an enum symbol's index.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_enum(&mut self, index: u32) -> Result<()> {
        self.sink.write_varint(zigzag64(i64::from(index)))
    }

    /// Writes a union branch index; the branch's value follows.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_union_index(&mut self, index: u32) -> Result<()> {
        self.sink.write_varint(zigzag64(i64::from(index)))
    }

    /// Starts an array of `len` items. Call [`start_item`](Self::start_item) before each item
    /// and [`write_array_end`](Self::write_array_end) after the last. With an ordinary sink the
    /// array is one block of `len` items (what Java's `BinaryEncoder` writes); with a
    /// [`BlockingSink`] it is written in sized blocks and `len` is not used.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_array_start(&mut self, len: usize) -> Result<()> {
        self.sink.start_collection(len)
    }

    /// Marks the start of an array or map item.
    ///
    /// # Errors
    /// When the sink fails, or for a [`BlockingSink`] outside an array or map.
    #[inline(always)]
    pub fn start_item(&mut self) -> Result<()> {
        self.sink.start_item()
    }

    /// Ends an array.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_array_end(&mut self) -> Result<()> {
        self.sink.end_collection()
    }

    /// Starts a map of `len` entries; each entry is [`start_item`](Self::start_item), the key
    /// as a string, then the value.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_map_start(&mut self, len: usize) -> Result<()> {
        self.sink.start_collection(len)
    }

    /// Ends a map.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline(always)]
    pub fn write_map_end(&mut self) -> Result<()> {
        self.sink.end_collection()
    }

    /// Writes bytes as they are: for pre-encoded data.
    ///
    /// # Errors
    /// When the sink fails.
    #[inline]
    pub fn write_raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.sink.write_bytes(bytes)
    }

    /// Pushes buffered bytes to the underlying writer and flushes it.
    ///
    /// # Errors
    /// When the underlying writer fails.
    pub fn flush(&mut self) -> Result<()> {
        self.sink.flush()
    }
}

impl<W: Write> Encoder<BufferedSink<W>> {
    /// An encoder over an `io::Write`, buffering 64 KiB at a time. Call
    /// [`flush`](Self::flush) at the end.
    pub fn buffered(inner: W) -> Self {
        Encoder::new(BufferedSink::new(inner))
    }

    /// As [`Encoder::buffered`], with a buffer of `capacity` bytes.
    pub fn buffered_with_capacity(capacity: usize, inner: W) -> Self {
        Encoder::new(BufferedSink::with_capacity(capacity, inner))
    }
}

impl<W: Write> Encoder<DirectSink<W>> {
    /// An encoder writing every value straight through to an `io::Write`.
    pub fn direct(inner: W) -> Self {
        Encoder::new(DirectSink::new(inner))
    }
}

impl<S: Sink> Encoder<BlockingSink<S>> {
    /// An encoder writing arrays and maps in blocks of about `block_size` bytes with byte counts.
    pub fn blocking(inner: S, block_size: usize) -> Self {
        Encoder::new(BlockingSink::new(inner, block_size))
    }
}
