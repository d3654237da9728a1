//! Reading object container files.

use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::{Arc, Mutex};

use super::codec::{Codec, Decompressor};
use super::framing::{
    peek_block_header, BlockDecoder, BlockEvent, BlockHeader, Header, HeaderDecoder, SYNC_SIZE,
};
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;
use crate::resolution::ResolvedPlan;
use crate::schema::{NodeId, NodeKind, Schema};
use crate::serde::DePlan;
use crate::value::{read_value, read_value_resolved, Value};

/// Decodes one datum of a container file from a decoder over the block's bytes.
///
/// This is the hook through which a [`Reader`] turns bytes into values. The default reads with
/// the file's own (writer) schema; reading with a different reader schema, or into another
/// representation, is a matter of installing another implementation with
/// [`Reader::set_datum_reader`]. The decoder always reads from a slice: the block's bytes,
/// borrowed from the input (null codec over a slice) or from the reader's decompression buffer.
///
/// # Examples
/// ```
/// use avrokit::container::{DatumReader, Reader, Writer};
/// use avrokit::{Decoder, Result, Schema, Value};
///
/// /// Reads `long` records, doubling them.
/// struct Doubler;
/// impl DatumReader for Doubler {
///     fn read_datum<'de>(&mut self, dec: &mut Decoder<'de>) -> Result<Value> {
///         Ok(Value::Long(dec.read_long()? * 2))
///     }
/// }
///
/// let schema = Schema::parse_str(r#""long""#)?;
/// let mut w = Writer::new(Vec::new(), &schema)?;
/// w.append(&Value::Long(21))?;
/// let file = w.into_inner()?;
/// let mut r = Reader::from_slice(&file)?;
/// r.set_datum_reader(Box::new(Doubler));
/// assert_eq!(r.next().transpose()?, Some(Value::Long(42)));
/// # Ok::<(), avrokit::Error>(())
/// ```
pub trait DatumReader: Send {
    /// Reads one datum.
    ///
    /// # Errors
    /// Malformed data; the reader adds the block and record to the error.
    fn read_datum<'de>(&mut self, dec: &mut Decoder<'de>) -> Result<Value>;
}

/// The default [`DatumReader`]: the file's schema, as [`read_value`] reads it.
struct WriterSchemaReader(Schema);

impl DatumReader for WriterSchemaReader {
    #[inline]
    fn read_datum<'de>(&mut self, dec: &mut Decoder<'de>) -> Result<Value> {
        read_value(dec, &self.0)
    }
}

/// Reads with a reader schema through a compiled resolution plan.
struct ResolvedReader(ResolvedPlan);

impl DatumReader for ResolvedReader {
    #[inline]
    fn read_datum<'de>(&mut self, dec: &mut Decoder<'de>) -> Result<Value> {
        read_value_resolved(dec, &self.0)
    }
}

/// Options for a [`Reader`]: limits, buffer size, reader schema.
///
/// # Examples
/// ```
/// use avrokit::container::{ReaderBuilder, Writer};
/// use avrokit::{Limits, Schema, Value};
/// let schema = Schema::parse_str(r#""string""#)?;
/// let mut w = Writer::new(Vec::new(), &schema)?;
/// w.append(&Value::String("hi".into()))?;
/// let file = w.into_inner()?;
///
/// let reader = ReaderBuilder::new()
///     .with_limits(Limits::default().with_max_alloc(1 << 20))
///     .with_buffer_capacity(4096)
///     .build(&file[..])?; // any io::Read
/// let values: Vec<Value> = reader.collect::<Result<_, _>>()?;
/// assert_eq!(values, [Value::String("hi".into())]);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ReaderBuilder {
    limits: Limits,
    capacity: usize,
    reader_schema: Option<Schema>,
    cache: Option<SchemaCache>,
}

impl Default for ReaderBuilder {
    fn default() -> Self {
        ReaderBuilder::new()
    }
}

impl ReaderBuilder {
    /// Default limits and a 64 KiB input buffer.
    pub fn new() -> ReaderBuilder {
        ReaderBuilder {
            limits: Limits::default(),
            capacity: 64 * 1024,
            reader_schema: None,
            cache: None,
        }
    }

    /// Takes the file's schema from `cache` when the header's `avro.schema` is, byte for byte,
    /// a text the cache holds, instead of parsing it; a schema parsed here is added to the
    /// cache. See [`SchemaCache`].
    #[must_use]
    pub fn with_schema_cache(mut self, cache: &SchemaCache) -> ReaderBuilder {
        self.cache = Some(cache.clone());
        self
    }

    /// Reads records as `schema` (the reader's schema), resolving each against the file's
    /// schema by the specification's rules: see [`Reader::set_reader_schema`].
    #[must_use]
    pub fn with_reader_schema(mut self, schema: &Schema) -> ReaderBuilder {
        self.reader_schema = Some(schema.clone());
        self
    }

    /// Sets the limits. `max_alloc` bounds every header length, every block's compressed size
    /// and its decompressed size, and every length inside a datum; `max_depth` bounds nesting.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> ReaderBuilder {
        self.limits = limits;
        self
    }

    /// Sets the size of the buffer used over an `io::Read` (at least 1 byte; default 64 KiB).
    #[must_use]
    pub fn with_buffer_capacity(mut self, bytes: usize) -> ReaderBuilder {
        self.capacity = bytes.max(1);
        self
    }

    /// Reads the header from any `io::Read` and returns a reader positioned at the first block.
    ///
    /// The reader buffers its input itself: do not wrap a `File` in a `BufReader`. Values are
    /// decoded from a per-block buffer that is reused from block to block. Split reading
    /// ([`Reader::seek_split`]) needs [`build_seekable`](Self::build_seekable) or a slice.
    ///
    /// # Errors
    /// A malformed header (bad magic, truncated, invalid or missing `avro.schema`), an unknown
    /// or disabled codec, a reader schema that cannot be resolved against the file's
    /// ([`ErrorKind::Resolution`]), or a failing reader.
    pub fn build<R: Read>(self, reader: R) -> Result<Reader<'static, R>> {
        let stream = Stream::new(reader, self.capacity, None);
        Reader::open(Input::Stream(stream), self)
    }

    /// As [`build`](Self::build), for a reader that can also seek (a `File`), which enables
    /// split reading.
    ///
    /// The reader must be positioned at the start of the container file, which must be at
    /// offset 0 of the stream: split offsets are stream offsets.
    ///
    /// # Errors
    /// As [`build`](Self::build).
    pub fn build_seekable<R: Read + Seek>(self, reader: R) -> Result<Reader<'static, R>> {
        fn seek<R: Seek>(r: &mut R, to: SeekFrom) -> io::Result<u64> {
            r.seek(to)
        }
        let stream = Stream::new(reader, self.capacity, Some(seek::<R>));
        Reader::open(Input::Stream(stream), self)
    }

    /// Reads a container file held in memory. Blocks of the `null` codec are decoded straight
    /// from `data` without copying; compressed blocks are decompressed into a reused buffer.
    ///
    /// # Errors
    /// As [`build`](Self::build).
    pub fn build_slice(self, data: &[u8]) -> Result<Reader<'_, &[u8]>> {
        Reader::open(Input::Slice { data, pos: 0 }, self)
    }
}

type SeekFn<R> = fn(&mut R, SeekFrom) -> io::Result<u64>;

/// The first size of a stream's buffer: a small file costs no large buffer, and a large one
/// reaches the full capacity after a few reads that fill it.
const FIRST_BUFFER: usize = 8 * 1024;

/// An `io::Read` with its own buffer, and an optional way to seek it.
struct Stream<R> {
    inner: R,
    /// Starts at `FIRST_BUFFER` (or `capacity`), doubling up to `capacity` each time a read
    /// fills all of it.
    buf: Vec<u8>,
    capacity: usize,
    pos: usize,
    end: usize,
    /// The stream offset of `buf[0]`.
    base: u64,
    seek: Option<SeekFn<R>>,
    /// True once `read_at` has moved the inner reader away from `base + end`.
    displaced: bool,
}

impl<R: Read> Stream<R> {
    fn new(inner: R, capacity: usize, seek: Option<SeekFn<R>>) -> Stream<R> {
        Stream {
            inner,
            buf: vec![0; capacity.clamp(1, FIRST_BUFFER)],
            capacity: capacity.max(1),
            pos: 0,
            end: 0,
            base: 0,
            seek,
            displaced: false,
        }
    }

    /// Refills the (fully consumed) buffer; false at the end of the input.
    fn fill(&mut self) -> Result<bool> {
        self.base += self.end as u64;
        if self.end == self.buf.len() && self.buf.len() < self.capacity {
            // The last read filled the buffer: the input is not small, read more at a time.
            let len = (self.buf.len() * 2).min(self.capacity);
            self.buf.resize(len, 0);
        }
        self.pos = 0;
        self.end = 0;
        loop {
            match self.inner.read(&mut self.buf) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(e).or_offset(self.base)),
            }
        }
    }

    fn seek_fn(&self) -> Result<SeekFn<R>> {
        self.seek.ok_or_else(|| {
            Error::new(
                ErrorKind::Container,
                "split reading needs a slice or a seekable reader (ReaderBuilder::build_seekable)",
            )
        })
    }

    fn len(&mut self) -> Result<u64> {
        let seek = self.seek_fn()?;
        self.displaced = true;
        seek(&mut self.inner, SeekFrom::End(0)).map_err(Error::io)
    }

    /// Reads at `offset` until `out` is full or the input ends; leaves the stream anywhere
    /// (call `position` afterwards).
    fn read_at(&mut self, offset: u64, out: &mut [u8]) -> Result<usize> {
        let seek = self.seek_fn()?;
        self.displaced = true;
        seek(&mut self.inner, SeekFrom::Start(offset)).map_err(Error::io)?;
        self.pos = 0;
        self.end = 0;
        let mut n = 0;
        while n < out.len() {
            match self.inner.read(&mut out[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(e).or_offset(offset + n as u64)),
            }
        }
        Ok(n)
    }

    /// Continues reading from `offset`.
    fn position(&mut self, offset: u64) -> Result<()> {
        if !self.displaced && self.base + self.pos as u64 == offset {
            // Already there (say, the first split of a stream that cannot seek): no seek.
            return Ok(());
        }
        let seek = self.seek_fn()?;
        seek(&mut self.inner, SeekFrom::Start(offset)).map_err(Error::io)?;
        self.pos = 0;
        self.end = 0;
        self.base = offset;
        self.displaced = false;
        Ok(())
    }
}

enum Input<'a, R> {
    Slice { data: &'a [u8], pos: usize },
    Stream(Stream<R>),
}

impl<R: Read> Input<'_, R> {
    fn len(&mut self) -> Result<u64> {
        match self {
            Input::Slice { data, .. } => Ok(data.len() as u64),
            Input::Stream(s) => s.len(),
        }
    }

    fn read_at(&mut self, offset: u64, out: &mut [u8]) -> Result<usize> {
        match self {
            Input::Slice { data, .. } => {
                let start = (offset.min(data.len() as u64)) as usize;
                let n = out.len().min(data.len() - start);
                out[..n].copy_from_slice(&data[start..start + n]);
                Ok(n)
            }
            Input::Stream(s) => s.read_at(offset, out),
        }
    }

    fn position(&mut self, offset: u64) -> Result<()> {
        match self {
            Input::Slice { data, pos } => {
                *pos = (offset.min(data.len() as u64)) as usize;
                Ok(())
            }
            Input::Stream(s) => s.position(offset),
        }
    }
}

/// A block read by `Reader::next_frame`: its framing, and where its payload is in the input
/// slice (`None`: in the reader's raw buffer).
type Frame = (BlockHeader, Option<(usize, usize)>);

/// Where the records of the current block are.
#[derive(Debug, Clone, Copy)]
struct Current {
    /// In the input slice (null codec over a slice), else in `Reader::data`.
    in_input: bool,
    pos: usize,
    end: usize,
    /// Records not read yet.
    left: u64,
    /// The index of the next record in the block.
    record: u64,
    header: BlockHeader,
}

/// A data block as stored in the file: its framing and its (possibly compressed) payload.
///
/// Returned by [`Reader::next_raw_block`], for tools that count, copy or inspect blocks
/// without decoding them; [`Writer::append_raw_block`](super::Writer::append_raw_block) writes
/// one into another file of the same codec and schema.
#[derive(Debug, Clone, Copy)]
pub struct RawBlock<'r> {
    header: BlockHeader,
    data: &'r [u8],
    codec: Codec,
}

impl<'r> RawBlock<'r> {
    /// A raw block of `count` objects whose payload, compressed with `codec`, is `data`.
    pub fn new(count: u64, data: &'r [u8], codec: Codec) -> RawBlock<'r> {
        RawBlock {
            header: BlockHeader {
                index: 0,
                offset: 0,
                count,
                size: data.len() as u64,
                data_offset: 0,
            },
            data,
            codec,
        }
    }

    /// The block's framing: index, file offset, object count, payload size.
    pub fn header(&self) -> &BlockHeader {
        &self.header
    }

    /// The number of objects in the block.
    pub fn count(&self) -> u64 {
        self.header.count
    }

    /// The payload as stored: compressed with [`codec`](Self::codec), without the sync marker.
    pub fn data(&self) -> &'r [u8] {
        self.data
    }

    /// The codec the payload is compressed with.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Decompresses the payload into `out` (replacing its contents), never beyond
    /// `limits.max_alloc` bytes.
    ///
    /// # Errors
    /// A disabled codec, corrupt compressed data, or output over the limit.
    pub fn decompress_into(&self, out: &mut Vec<u8>, limits: &Limits) -> Result<()> {
        Decompressor::new(self.codec)?
            .decompress(self.data, out, limits.max_alloc)
            .map_err(|e| block_error(e, &self.header))
    }

    /// Decodes the block's records with `schema` (the file's schema), with the checks a
    /// [`Reader`] makes. A block owns everything it needs, so blocks taken from one reader can
    /// be decoded on several threads.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Codec, Reader, WriterBuilder};
    /// use avrokit::{Limits, Schema, Value};
    /// let schema = Schema::parse_str(r#""int""#)?;
    /// let mut w = WriterBuilder::new(&schema).with_codec(Codec::Snappy).with_block_records(2).build(Vec::new())?;
    /// for i in 0..5 {
    ///     w.append(&Value::Int(i))?;
    /// }
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let mut blocks = Vec::new();
    /// while let Some(b) = r.next_raw_block()? {
    ///     blocks.push((b.count(), b.data().to_vec()));
    /// }
    /// let decoded: Vec<Vec<Value>> = std::thread::scope(|s| {
    ///     let handles: Vec<_> = blocks
    ///         .iter()
    ///         .map(|(n, data)| s.spawn(|| {
    ///             avrokit::container::RawBlock::new(*n, data, Codec::Snappy)
    ///                 .decode(&schema, &Limits::default())
    ///         }))
    ///         .collect();
    ///     handles.into_iter().map(|h| h.join().unwrap()).collect::<Result<_, _>>()
    /// })?;
    /// assert_eq!(decoded.concat(), (0..5).map(Value::Int).collect::<Vec<_>>());
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`decompress_into`](Self::decompress_into), a count its bytes cannot hold,
    /// malformed records, or records that do not use exactly the block's bytes.
    pub fn decode(&self, schema: &Schema, limits: &Limits) -> Result<Vec<Value>> {
        let mut buf = Vec::new();
        let data: &[u8] = if self.codec == Codec::Null {
            self.data
        } else {
            self.decompress_into(&mut buf, limits)?;
            &buf
        };
        let h = &self.header;
        check_count(h, data.len() as u64, min_encoded_size(schema), limits)?;
        let mut dec = Decoder::from_slice(data).with_limits(*limits);
        let mut out = Vec::with_capacity(h.count.min(4096) as usize);
        for record in 0..h.count {
            match read_value(&mut dec, schema) {
                Ok(v) => out.push(v),
                Err(e) => {
                    let c = Current {
                        in_input: false,
                        pos: 0,
                        end: data.len(),
                        left: h.count - record,
                        record,
                        header: *h,
                    };
                    // Offsets are within the (decompressed) block: the decoder started there.
                    return Err(record_error(e, &c, false));
                }
            }
        }
        if !dec.rest().is_empty() {
            return Err(Error::at(
                ErrorKind::Data,
                format!(
                    "block {} (at byte {}): its {} records end at byte {} of its {} bytes of data",
                    h.index,
                    h.offset,
                    h.count,
                    dec.offset(),
                    data.len()
                ),
                h.offset,
            ));
        }
        Ok(out)
    }
}

/// Reads an Avro object container file: its header, then its records as [`Value`]s.
///
/// A reader iterates over `Result<Value>`. After the first error the iterator ends (returns
/// `None`): a corrupt block cannot be skipped reliably. Every block's sync marker is checked,
/// every block size is checked against [`Limits::max_alloc`] before anything is allocated for
/// it, decompression never inflates beyond that limit, a block's object count is checked
/// against its bytes before decoding, and a block's records must use exactly its bytes. Errors
/// name the block and its byte offset in the file.
///
/// Construct one with [`Reader::from_slice`] (zero-copy for the `null` codec),
/// [`Reader::new`] (any `io::Read`; it buffers the input itself, so do not add a
/// `BufReader`), or a [`ReaderBuilder`] for limits, buffer size and seekable input.
///
/// # Examples
/// ```
/// use avrokit::container::{Codec, Reader, WriterBuilder};
/// use avrokit::{Schema, Value};
///
/// let schema = Schema::parse_str(r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#)?;
/// let mut w = WriterBuilder::new(&schema).with_codec(Codec::DEFLATE).build(Vec::new())?;
/// for i in 0..3 {
///     w.append(&Value::Record(vec![Value::Int(i)]))?;
/// }
/// let file = w.into_inner()?;
///
/// let reader = Reader::from_slice(&file)?;
/// assert_eq!(reader.codec().name(), "deflate");
/// assert_eq!(reader.schema(), &schema);
/// let values = reader.collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(values[2], Value::Record(vec![Value::Int(2)]));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Split reading
/// [`seek_split`](Self::seek_split) restricts a reader to the blocks of one byte range, as
/// Hadoop and Spark do to spread a file over machines. A block belongs to the range
/// `[start, end)` when the sync marker just before it *starts* in that range (for the first
/// block, the marker ending the header). Every block has exactly one such marker, so reading
/// every range of any partition of `0..file_len` yields every record exactly once. This is
/// the rule of Java's `DataFileReader.sync` / `pastSync` and Hadoop's `AvroRecordReader`, so
/// avrokit and Java readers can share the splits of one file.
pub struct Reader<'a, R = &'a [u8]> {
    input: Input<'a, R>,
    header: Header,
    schema: Schema,
    /// The schema of the values produced: the reader schema, or the file's.
    reader_schema: Schema,
    codec: Codec,
    limits: Limits,
    framer: BlockDecoder,
    decompressor: Decompressor,
    datum: Box<dyn DatumReader>,
    min_record_size: u64,
    /// A stream block's payload as read (compressed).
    raw: Vec<u8>,
    /// The current block's decompressed bytes (unless they are read in place from the input).
    data: Vec<u8>,
    cur: Current,
    done: bool,
    split_end: Option<u64>,
    /// Plans' schemas found equal to the file's.
    matched: super::SchemaMatch,
}

impl<'a> Reader<'a, &'a [u8]> {
    /// Reads a container file held in memory, with default limits. Blocks of the `null` codec
    /// are decoded straight from `data`.
    ///
    /// # Errors
    /// A malformed header, an unknown or disabled codec.
    pub fn from_slice(data: &'a [u8]) -> Result<Reader<'a, &'a [u8]>> {
        ReaderBuilder::new().build_slice(data)
    }
}

impl<R: Read> Reader<'static, R> {
    /// Reads a container file from any `io::Read`, with default limits and a 64 KiB buffer
    /// (do not add a `BufReader`: the reader buffers already).
    ///
    /// # Errors
    /// A malformed header, an unknown or disabled codec, or a failing reader.
    pub fn new(reader: R) -> Result<Reader<'static, R>> {
        ReaderBuilder::new().build(reader)
    }
}

impl<'a, R: Read> Reader<'a, R> {
    fn open(mut input: Input<'a, R>, options: ReaderBuilder) -> Result<Reader<'a, R>> {
        let limits = options.limits;
        let mut hd = HeaderDecoder::new(limits);
        match &mut input {
            Input::Slice { data, pos } => {
                *pos = hd.decode(data)?;
            }
            Input::Stream(s) => {
                while !hd.is_complete() {
                    if s.pos == s.end && !s.fill()? {
                        break;
                    }
                    let n = hd.decode(&s.buf[s.pos..s.end])?;
                    s.pos += n;
                }
            }
        }
        let header = hd.finish()?;
        let (schema, min_record_size) = match &options.cache {
            Some(cache) => cache.schema_of(&header)?,
            None => {
                let schema = schema_of(&header)?;
                let min = min_encoded_size(&schema);
                (schema, min)
            }
        };
        let codec = codec_of(&header)?;
        let decompressor = Decompressor::new(codec)?;
        let framer = BlockDecoder::new(&header, limits);
        let mut reader = Reader {
            input,
            schema: schema.clone(),
            reader_schema: schema.clone(),
            codec,
            limits,
            cur: Current {
                in_input: false,
                pos: 0,
                end: 0,
                left: 0,
                record: 0,
                header: *framer.current(),
            },
            framer,
            header,
            decompressor,
            datum: Box::new(WriterSchemaReader(schema)),
            min_record_size,
            raw: Vec::new(),
            data: Vec::new(),
            done: false,
            split_end: None,
            matched: super::SchemaMatch::default(),
        };
        if let Some(rs) = &options.reader_schema {
            reader.set_reader_schema(rs)?;
        }
        Ok(reader)
    }

    /// The schema the file was written with (its `avro.schema`).
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The codec of the file's blocks (`null` when the header names none).
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Every header metadata entry in file order, `avro.schema` and `avro.codec` included.
    pub fn metadata(&self) -> &[(String, Vec<u8>)] {
        self.header.metadata()
    }

    /// The value of one metadata key.
    pub fn metadata_value(&self, key: &str) -> Option<&[u8]> {
        self.header.get(key)
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's 16-byte sync marker.
    pub fn sync_marker(&self) -> [u8; SYNC_SIZE] {
        self.header.sync_marker()
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The schema of the records produced: the reader schema when one is set, else the file's.
    pub fn reader_schema(&self) -> &Schema {
        &self.reader_schema
    }

    /// Reads the following records as `schema`, resolved against the file's schema by the
    /// specification's rules (promotions, field defaults, enum defaults, union branches)
    /// through a plan compiled once here.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{ReaderBuilder, Writer};
    /// use avrokit::{Schema, Value};
    /// let old = Schema::parse_str(r#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#)?;
    /// let new = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
    ///     {"name":"a","type":"long"},{"name":"b","type":"string","default":"x"}]}"#)?;
    /// let mut w = Writer::new(Vec::new(), &old)?;
    /// w.append(&Value::Record(vec![Value::Int(1)]))?;
    /// let file = w.into_inner()?;
    /// let r = ReaderBuilder::new().with_reader_schema(&new).build_slice(&file)?;
    /// let v = r.collect::<Result<Vec<_>, _>>()?;
    /// assert_eq!(v, [Value::Record(vec![Value::Long(1), Value::String("x".into())])]);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`] when the schemas cannot be resolved; the reader keeps its
    /// previous schema.
    pub fn set_reader_schema(&mut self, schema: &Schema) -> Result<()> {
        let plan = ResolvedPlan::compile(&self.schema, schema)?;
        self.datum = Box::new(ResolvedReader(plan));
        self.reader_schema = schema.clone();
        Ok(())
    }

    /// Replaces how records are decoded (by default with the file's schema into [`Value`]s,
    /// or through [`set_reader_schema`](Self::set_reader_schema)'s plan). Takes effect from
    /// the next record; [`reader_schema`](Self::reader_schema) is not changed.
    pub fn set_datum_reader(&mut self, datum: Box<dyn DatumReader>) {
        self.datum = datum;
    }

    /// Reads the next record with `f`, which gets a decoder over the current block's bytes
    /// positioned at the record and must read exactly one record. `None` at the end of the
    /// file (or of the split).
    ///
    /// This is the general form of the iterator: a serde deserializer or a hand-written codec
    /// reads records this way without going through [`Value`].
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, Writer};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""string""#)?;
    /// let mut w = Writer::new(Vec::new(), &schema)?;
    /// w.append(&Value::String("abc".into()))?;
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let len = r.next_with(|dec| Ok(dec.read_str()?.len())).transpose()?;
    /// assert_eq!(len, Some(3));
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A corrupt or truncated file, or an error from `f`, with the block and record named.
    pub fn next_with<T>(
        &mut self,
        f: impl for<'de> FnOnce(&mut Decoder<'de>) -> Result<T>,
    ) -> Option<Result<T>> {
        self.step(|dec, _| f(dec)).transpose()
    }

    /// Reads the next record as a `T` through `plan`; `None` at the end of the file (or of the
    /// split). The reader schema is the plan's: [`set_reader_schema`](Self::set_reader_schema)
    /// does not apply here.
    ///
    /// `plan`'s writer schema must be this file's schema: compile it once from
    /// [`schema()`](Self::schema) (`DePlan::compile(r.schema())`, or
    /// `DePlan::resolving(r.schema(), &reader)`) so that the check is a pointer comparison.
    /// Strings and bytes are copied out of the block (`T` cannot borrow from it).
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, Writer};
    /// use avrokit::serde::DePlan;
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""string""#)?;
    /// let mut w = Writer::new(Vec::new(), &schema)?;
    /// w.append(&Value::String("abc".into()))?;
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let plan = DePlan::compile(r.schema())?;
    /// assert_eq!(r.next_serde::<String>(&plan).transpose()?, Some("abc".to_owned()));
    /// assert!(r.next_serde::<String>(&plan).is_none());
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A plan for another writer schema ([`ErrorKind::Schema`]), a corrupt or truncated file,
    /// or data the type cannot hold, with the block and record named.
    pub fn next_serde<T: serde::de::DeserializeOwned>(
        &mut self,
        plan: &DePlan,
    ) -> Option<Result<T>> {
        if !self.is_file_schema(plan.writer()) {
            return Some(Err(Error::schema(
                "next_serde: the plan's writer schema is not the file's schema",
            )));
        }
        self.next_with(|dec| crate::serde::deserialize_from(dec, plan))
    }

    /// True when `schema` is the file's schema (see [`SchemaMatch`](super::SchemaMatch)).
    #[inline]
    fn is_file_schema(&mut self, schema: &Schema) -> bool {
        self.matched.is(&self.schema, schema)
    }

    /// An iterator over the remaining records as `T`s, read through `plan` (see
    /// [`next_serde`](Self::next_serde)).
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, Writer};
    /// use avrokit::serde::{DePlan, SerPlan};
    /// use avrokit::Schema;
    /// let schema = Schema::parse_str(r#""long""#)?;
    /// let mut w = Writer::new(Vec::new(), &schema)?;
    /// let ser = SerPlan::compile(w.schema())?;
    /// for x in 1..=3i64 {
    ///     w.append_serde(&x, &ser)?;
    /// }
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let plan = DePlan::compile(r.schema())?;
    /// let xs = r.serde_iter::<i64>(&plan).collect::<Result<Vec<_>, _>>()?;
    /// assert_eq!(xs, [1, 2, 3]);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    pub fn serde_iter<'r, T: serde::de::DeserializeOwned>(
        &'r mut self,
        plan: &DePlan,
    ) -> impl Iterator<Item = Result<T>> + use<'r, 'a, R, T> {
        let plan = plan.clone();
        std::iter::from_fn(move || self.next_serde(&plan))
    }

    /// Reads one record with `f`, loading blocks as needed. Ends the reader on error.
    fn step<T>(
        &mut self,
        f: impl for<'de> FnOnce(&mut Decoder<'de>, &mut dyn DatumReader) -> Result<T>,
    ) -> Result<Option<T>> {
        while self.cur.left == 0 {
            if self.done {
                return Ok(None);
            }
            match self.load_block() {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            }
        }
        let c = self.cur;
        let bytes: &[u8] = match (&self.input, c.in_input) {
            (Input::Slice { data, .. }, true) => &data[c.pos..c.end],
            _ => &self.data[c.pos..c.end],
        };
        let mut dec = Decoder::from_slice(bytes).with_limits(self.limits);
        let result = f(&mut dec, &mut *self.datum);
        let used = dec.offset() as usize;
        let v = match result {
            Ok(v) => v,
            Err(e) => {
                self.done = true;
                self.cur.left = 0;
                return Err(record_error(e, &c, self.codec == Codec::Null));
            }
        };
        self.cur.pos += used;
        self.cur.left -= 1;
        self.cur.record += 1;
        if self.cur.left == 0 && self.cur.pos != self.cur.end {
            self.done = true;
            let h = &c.header;
            let start = data_start(&c) as usize;
            return Err(Error::at(
                ErrorKind::Data,
                format!(
                    "block {} (at byte {}): its {} records end at byte {} of its {} bytes of data",
                    h.index,
                    h.offset,
                    h.count,
                    self.cur.pos - start,
                    self.cur.end - start,
                ),
                h.offset,
            ));
        }
        Ok(Some(v))
    }

    /// Reads the next block's framing and payload. The payload is then either at
    /// `input[range]` (slice input) or in `self.raw`.
    fn next_frame(&mut self) -> Result<Option<Frame>> {
        if self.done {
            return Ok(None);
        }
        if let Some(end) = self.split_end {
            // At a boundary the framer's offset is where the next block starts, right after
            // the sync marker that decides which split the block belongs to.
            if self.framer.offset() - SYNC_SIZE as u64 >= end {
                return Ok(None);
            }
        }
        let framer = &mut self.framer;
        match &mut self.input {
            Input::Slice { data, pos } => {
                let data: &[u8] = data;
                let mut frame: Option<(BlockHeader, (usize, usize))> = None;
                loop {
                    let rest = &data[*pos..];
                    if rest.is_empty() {
                        framer.finish()?;
                        return Ok(None);
                    }
                    let (n, ev) = framer.decode(rest)?;
                    *pos += n;
                    match ev {
                        BlockEvent::NeedInput | BlockEvent::Data(_) => {}
                        BlockEvent::Start(h) => {
                            let left = (data.len() - *pos) as u64;
                            if h.size > left {
                                return Err(Error::at(
                                    ErrorKind::Eof,
                                    format!(
                                        "the file ends inside block {} (which starts at byte {}): it claims {} bytes of data, {left} are left",
                                        h.index, h.offset, h.size
                                    ),
                                    data.len() as u64,
                                ));
                            }
                            frame = Some((h, (*pos, *pos + h.size as usize)));
                        }
                        BlockEvent::End => {
                            let (h, range) = frame.expect("a block starts before it ends");
                            return Ok(Some((h, Some(range))));
                        }
                    }
                }
            }
            Input::Stream(s) => {
                let raw = &mut self.raw;
                let mut header: Option<BlockHeader> = None;
                loop {
                    if s.pos == s.end && !s.fill()? {
                        framer.finish()?;
                        return Ok(None);
                    }
                    let (n, ev) = framer.decode(&s.buf[s.pos..s.end])?;
                    match ev {
                        BlockEvent::NeedInput => {}
                        BlockEvent::Start(h) => {
                            raw.clear();
                            // Reserve for small blocks only: a large size is trusted no further
                            // than the bytes that actually arrive.
                            raw.reserve((h.size as usize).min(1 << 20));
                            header = Some(h);
                        }
                        BlockEvent::Data(piece) => raw.extend_from_slice(piece),
                        BlockEvent::End => {
                            s.pos += n;
                            let h = header.expect("a block starts before it ends");
                            return Ok(Some((h, None)));
                        }
                    }
                    s.pos += n;
                }
            }
        }
    }

    /// Loads the next block for record reading: decompresses it and checks its count.
    fn load_block(&mut self) -> Result<bool> {
        let Some((h, range)) = self.next_frame()? else {
            return Ok(false);
        };
        let (in_input, pos, end) = match (self.codec, range) {
            (Codec::Null, Some((a, b))) => (true, a, b),
            (Codec::Null, None) => {
                // Swap rather than copy: the old data buffer becomes the next raw buffer.
                std::mem::swap(&mut self.raw, &mut self.data);
                (false, 0, self.data.len())
            }
            (_, range) => {
                let input: &[u8] = match (&self.input, range) {
                    (Input::Slice { data, .. }, Some((a, b))) => &data[a..b],
                    _ => &self.raw,
                };
                self.decompressor
                    .decompress(input, &mut self.data, self.limits.max_alloc)
                    .map_err(|e| block_error(e, &h))?;
                (false, 0, self.data.len())
            }
        };
        check_count(&h, (end - pos) as u64, self.min_record_size, &self.limits)?;
        self.cur = Current {
            in_input,
            pos,
            end,
            left: h.count,
            record: 0,
            header: h,
        };
        Ok(true)
    }

    /// Reads the next block without decoding or decompressing it. Records of the current block
    /// not read yet are skipped. `None` at the end of the file (or split).
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, WriterBuilder};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""int""#)?;
    /// let mut w = WriterBuilder::new(&schema).with_block_records(2).build(Vec::new())?;
    /// for i in 0..5 {
    ///     w.append(&Value::Int(i))?;
    /// }
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let mut counts = Vec::new();
    /// while let Some(block) = r.next_raw_block()? {
    ///     counts.push(block.count());
    /// }
    /// assert_eq!(counts, [2, 2, 1]);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A corrupt or truncated block framing (sync marker, sizes). The payload is not checked.
    pub fn next_raw_block(&mut self) -> Result<Option<RawBlock<'_>>> {
        self.cur.left = 0;
        let frame = match self.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => {
                self.done = true;
                return Ok(None);
            }
            Err(e) => {
                self.done = true;
                return Err(e);
            }
        };
        let (header, range) = frame;
        let data: &[u8] = match (&self.input, range) {
            (Input::Slice { data, .. }, Some((a, b))) => &data[a..b],
            _ => &self.raw,
        };
        Ok(Some(RawBlock {
            header,
            data,
            codec: self.codec,
        }))
    }

    /// Restricts the reader to the blocks of the byte range `[start, end)`: those whose
    /// preceding sync marker starts in the range (see [Split reading](Self#split-reading)).
    /// The reader moves to the first such block; iteration stops at the first block past it.
    ///
    /// A sync marker is recognised by its 16 bytes and confirmed by the block after it being
    /// framed consistently (its size leads to another sync marker, or the file ends right after
    /// the marker), so marker bytes that happen to occur inside data are not taken for one.
    /// (A corrupt block right after a genuine marker is thus indistinguishable from such data:
    /// the range skips it, while reading the whole file reports it.)
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, WriterBuilder};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""long""#)?;
    /// let mut w = WriterBuilder::new(&schema).with_block_records(10).build(Vec::new())?;
    /// for i in 0..1000 {
    ///     w.append(&Value::Long(i))?;
    /// }
    /// let file = w.into_inner()?;
    ///
    /// let mut total = 0;
    /// for range in [0..700, 700..1500, 1500..file.len() as u64] {
    ///     let mut r = Reader::from_slice(&file)?;
    ///     r.seek_split(range.start, range.end)?;
    ///     total += r.count();
    /// }
    /// assert_eq!(total, 1000);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A reader built over an `io::Read` that cannot seek ([`ReaderBuilder::build`]), or a
    /// failing reader.
    pub fn seek_split(&mut self, start: u64, end: u64) -> Result<()> {
        self.cur.left = 0;
        self.done = false;
        self.split_end = Some(end);
        let header_marker = self.header.len() - SYNC_SIZE as u64;
        let found = if start <= header_marker {
            // The header's marker is known: never search the header itself, whose metadata
            // may contain the marker bytes (Avro C 1.5.4 wrote them as `avro.sync`).
            Some(header_marker)
        } else {
            self.find_marker(start, end)?
        };
        match found {
            Some(p) if p < end => {
                let at = p + SYNC_SIZE as u64;
                self.input.position(at)?;
                self.framer = BlockDecoder::at(self.header.sync_marker(), at, self.limits);
            }
            _ => self.done = true,
        }
        Ok(())
    }

    /// The first confirmed sync marker starting in `[from, end)`.
    fn find_marker(&mut self, from: u64, end: u64) -> Result<Option<u64>> {
        const CHUNK: usize = 64 * 1024;
        let sync = self.header.sync_marker();
        let len = self.input.len()?;
        let mut buf = vec![0u8; CHUNK + SYNC_SIZE - 1];
        let mut p = from;
        while p < end && p + SYNC_SIZE as u64 <= len {
            let want = ((end - p).min(CHUNK as u64) as usize) + SYNC_SIZE - 1;
            let n = self.input.read_at(p, &mut buf[..want])?;
            if n < SYNC_SIZE {
                break;
            }
            for i in 0..=n - SYNC_SIZE {
                if p + i as u64 >= end {
                    return Ok(None);
                }
                if buf[i] == sync[0]
                    && buf[i..i + SYNC_SIZE] == sync
                    && self.confirm_marker(p + i as u64, len)?
                {
                    return Ok(Some(p + i as u64));
                }
            }
            p += (n - (SYNC_SIZE - 1)) as u64;
        }
        Ok(None)
    }

    /// True when the block after a candidate marker at `at` is framed consistently.
    fn confirm_marker(&mut self, at: u64, len: u64) -> Result<bool> {
        let start = at + SYNC_SIZE as u64;
        if start == len {
            return Ok(true);
        }
        let mut head = [0u8; 20];
        let n = self.input.read_at(start, &mut head)?;
        let Some((count, size, used)) = peek_block_header(&head[..n], &self.limits) else {
            return Ok(false);
        };
        // Uncompressed, the count must fit in the size, as when reading the block.
        if self.codec == Codec::Null
            && (count.saturating_mul(self.min_record_size) > size || (count == 0 && size > 0))
        {
            return Ok(false);
        }
        let next = start + used as u64 + size;
        if next + SYNC_SIZE as u64 > len {
            return Ok(false);
        }
        let mut marker = [0u8; SYNC_SIZE];
        self.input.read_at(next, &mut marker)?;
        Ok(marker == self.header.sync_marker())
    }
}

impl<R: Read> Iterator for Reader<'_, R> {
    type Item = Result<Value>;

    #[inline]
    fn next(&mut self) -> Option<Result<Value>> {
        self.step(|dec, datum| datum.read_datum(dec)).transpose()
    }
}

impl<R> fmt::Debug for Reader<'_, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("schema", &self.schema)
            .field("codec", &self.codec)
            .field("sync_marker", &self.header.sync_marker())
            .finish_non_exhaustive()
    }
}

/// Writer schemas of container files, remembered by the exact bytes of their header's
/// `avro.schema` entry, so that readers of many files with the same schema parse it once.
///
/// A [`ReaderBuilder::with_schema_cache`] reader looks the header's schema text up here: when
/// the cache holds exactly those bytes, the reader uses the schema parsed from them before
/// (and what was derived from it) instead of parsing the text again; otherwise it parses the
/// text and adds it. Only identical bytes match: a text that differs in anything, even
/// whitespace, is parsed on its own. The reader's [`schema()`](Reader::schema) is then the
/// cached `Schema` itself (the same `Arc`), so plans compiled once from it
/// ([`DePlan::compile`]) are recognised by a pointer comparison.
///
/// [`insert`](Self::insert) seeds the cache with a schema you hold, under the text avrokit's
/// writers put in headers: files written by avrokit with that schema then read as that very
/// schema. The cache keeps the most recently used texts (16 by default); clones share one
/// cache, which can be used from several threads.
///
/// # Examples
/// ```
/// use avrokit::container::{ReaderBuilder, SchemaCache, WriterBuilder};
/// use avrokit::serde::DePlan;
/// use avrokit::{Schema, Value};
/// let schema = Schema::parse_str(r#"{"type":"record","name":"Ping","fields":[{"name":"n","type":"long"}]}"#)?;
/// let template = WriterBuilder::new(&schema).template()?;
/// let files = (0..10)
///     .map(|n| {
///         let mut w = template.build(Vec::new())?;
///         w.append(&Value::Record(vec![Value::Long(n)]))?;
///         w.into_inner()
///     })
///     .collect::<Result<Vec<_>, _>>()?;
///
/// let cache = SchemaCache::new();
/// cache.insert(&schema);
/// let plan = DePlan::compile(&schema)?;
/// let mut sum = 0;
/// for file in &files {
///     let mut r = ReaderBuilder::new().with_schema_cache(&cache).build_slice(file)?;
///     assert!(r.schema().same_arena(&schema)); // not parsed again
///     for n in r.serde_iter::<(i64,)>(&plan) {
///         sum += n?.0;
///     }
/// }
/// assert_eq!(sum, 45);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Clone)]
pub struct SchemaCache {
    inner: Arc<Mutex<CacheEntries>>,
}

struct CacheEntries {
    entries: Vec<CacheEntry>,
    capacity: usize,
    /// Use counter: the entry with the smallest `used` goes first when the cache is full.
    clock: u64,
}

struct CacheEntry {
    json: Box<[u8]>,
    schema: Schema,
    min_record_size: u64,
    used: u64,
}

impl Default for SchemaCache {
    fn default() -> Self {
        SchemaCache::new()
    }
}

impl SchemaCache {
    /// An empty cache keeping up to 16 schema texts.
    pub fn new() -> SchemaCache {
        SchemaCache::with_capacity(16)
    }

    /// An empty cache keeping up to `capacity` schema texts (at least 1), evicting the least
    /// recently used beyond that.
    pub fn with_capacity(capacity: usize) -> SchemaCache {
        SchemaCache {
            inner: Arc::new(Mutex::new(CacheEntries {
                entries: Vec::new(),
                capacity: capacity.max(1),
                clock: 0,
            })),
        }
    }

    /// Adds `schema` under the JSON text avrokit's container writers write for it
    /// ([`WriterBuilder::build`](super::WriterBuilder::build) and
    /// [`WriterTemplate`](super::WriterTemplate)), replacing any schema cached under that
    /// text.
    pub fn insert(&self, schema: &Schema) {
        let json = crate::schema::write::to_json_text(schema);
        self.put(json.into(), schema.clone(), min_encoded_size(schema));
    }

    /// The number of schema texts held.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// True when the cache holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every schema.
    pub fn clear(&self) {
        self.lock().entries.clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheEntries> {
        // Nothing panics while the lock is held; a poisoned lock still holds valid entries.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The schema of `header` and its minimum record size, from the cache or parsed (and
    /// then cached).
    fn schema_of(&self, header: &Header) -> Result<(Schema, u64)> {
        if let Some(json) = header.get("avro.schema") {
            let mut c = self.lock();
            c.clock += 1;
            let now = c.clock;
            if let Some(e) = c.entries.iter_mut().find(|e| *e.json == *json) {
                e.used = now;
                return Ok((e.schema.clone(), e.min_record_size));
            }
        }
        // Parsed without the lock held: another reader may parse the same text meanwhile,
        // which costs time, not correctness.
        let schema = schema_of(header)?;
        let min = min_encoded_size(&schema);
        let json = header.get("avro.schema").expect("schema_of found it");
        self.put(json.into(), schema.clone(), min);
        Ok((schema, min))
    }

    fn put(&self, json: Box<[u8]>, schema: Schema, min_record_size: u64) {
        let mut c = self.lock();
        c.clock += 1;
        let used = c.clock;
        let entry = CacheEntry {
            json,
            schema,
            min_record_size,
            used,
        };
        if let Some(e) = c.entries.iter_mut().find(|e| e.json == entry.json) {
            *e = entry;
        } else if c.entries.len() < c.capacity {
            c.entries.push(entry);
        } else {
            let oldest = c
                .entries
                .iter_mut()
                .min_by_key(|e| e.used)
                .expect("a full cache has entries");
            *oldest = entry;
        }
    }
}

impl fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.lock();
        f.debug_struct("SchemaCache")
            .field("len", &c.entries.len())
            .field("capacity", &c.capacity)
            .finish()
    }
}

/// The schema in the header's `avro.schema`.
pub(crate) fn schema_of(header: &Header) -> Result<Schema> {
    let Some(json) = header.get("avro.schema") else {
        return Err(Error::new(
            ErrorKind::Container,
            "the header has no avro.schema entry",
        ));
    };
    let text = std::str::from_utf8(json)
        .map_err(|_| Error::new(ErrorKind::Schema, "the header's avro.schema is not UTF-8"))?;
    Schema::parse_str(text).map_err(|e| {
        let path = e.path();
        let at = if path.is_empty() {
            String::new()
        } else {
            format!(" at {path}")
        };
        Error::new(
            e.kind(),
            format!(
                "the header's avro.schema is not a valid schema: {}{at}",
                e.message()
            ),
        )
    })
}

/// The codec named in the header's `avro.codec` (null when absent).
pub(crate) fn codec_of(header: &Header) -> Result<Codec> {
    match header.get("avro.codec") {
        None => Ok(Codec::Null),
        Some(name) => match std::str::from_utf8(name) {
            Ok(name) => Codec::from_name(name),
            Err(_) => Err(Error::new(
                ErrorKind::Container,
                "the header's avro.codec is not UTF-8",
            )),
        },
    }
}

/// Checks a block's object count against its (decompressed) size.
fn check_count(h: &BlockHeader, len: u64, min_record_size: u64, limits: &Limits) -> Result<()> {
    // Every record takes at least `min_record_size` bytes; records that take none (null,
    // empty records) are bounded by max_alloc so that a lying count cannot spin forever.
    let max_records = len
        .checked_div(min_record_size)
        .unwrap_or(limits.max_alloc as u64);
    if h.count > max_records {
        return Err(Error::at(
            ErrorKind::Container,
            format!(
                "block {} (at byte {}) claims {} objects, but its {len} bytes of data can hold at most {max_records}",
                h.index, h.offset, h.count
            ),
            h.offset,
        ));
    }
    if h.count == 0 && len > 0 {
        return Err(Error::at(
            ErrorKind::Data,
            format!(
                "block {} (at byte {}) holds no objects but has {len} bytes of data",
                h.index, h.offset
            ),
            h.offset,
        ));
    }
    Ok(())
}

#[cold]
fn block_error(e: Error, h: &BlockHeader) -> Error {
    Error::at(
        e.kind(),
        format!("block {} (at byte {}): {}", h.index, h.offset, e.message()),
        h.offset,
    )
}

#[cold]
fn record_error(e: Error, c: &Current, in_file: bool) -> Error {
    let h = &c.header;
    let (kind, what) = if e.is_eof() {
        // The block is complete: running out inside it is corruption, not a truncated file.
        (
            ErrorKind::Data,
            "the block's data ends inside the record".to_owned(),
        )
    } else {
        (e.kind(), e.message().to_owned())
    };
    let mut msg = format!(
        "block {} (at byte {}), record {}: {what}",
        h.index, h.offset, c.record
    );
    let path = e.path();
    if !path.is_empty() {
        msg.push_str(" at ");
        msg.push_str(&path);
    }
    let offset = match e.offset() {
        // Offsets inside the block map to file offsets when the block is stored uncompressed.
        Some(o) if in_file => h.data_offset + (c.pos as u64 - data_start(c)) + o,
        Some(o) => {
            msg.push_str(&format!(
                " (byte {} of the decompressed block)",
                c.pos as u64 + o
            ));
            h.offset
        }
        None => h.offset,
    };
    Error::at(kind, msg, offset)
}

/// The position of the block's first byte in the buffer `c.pos` indexes.
fn data_start(c: &Current) -> u64 {
    if c.in_input {
        c.header.data_offset
    } else {
        0
    }
}

/// The fewest bytes one datum of `schema` can encode to (a lower bound: recursion counts 0).
pub(crate) fn min_encoded_size(schema: &Schema) -> u64 {
    fn go(schema: &Schema, id: NodeId, memo: &mut [Option<u64>], busy: &mut [bool]) -> u64 {
        let i = id.index();
        if let Some(v) = memo[i] {
            return v;
        }
        if busy[i] {
            return 0;
        }
        busy[i] = true;
        let v = match &schema.node(id).kind {
            NodeKind::Null => 0,
            NodeKind::Boolean
            | NodeKind::Int
            | NodeKind::Long
            | NodeKind::Bytes
            | NodeKind::String
            | NodeKind::Enum(_)
            | NodeKind::Array(_)
            | NodeKind::Map(_) => 1,
            NodeKind::Float => 4,
            NodeKind::Double => 8,
            NodeKind::Fixed(f) => f.size as u64,
            NodeKind::Record(r) => r.fields.iter().fold(0u64, |acc, f| {
                acc.saturating_add(go(schema, f.schema, memo, busy))
            }),
            NodeKind::Union(u) => {
                1 + u
                    .variants
                    .iter()
                    .map(|&b| go(schema, b, memo, busy))
                    .min()
                    .unwrap_or(0)
            }
        };
        busy[i] = false;
        memo[i] = Some(v);
        v
    }
    let n = schema.nodes().len();
    go(
        schema,
        schema.root_id(),
        &mut vec![None; n],
        &mut vec![false; n],
    )
}
