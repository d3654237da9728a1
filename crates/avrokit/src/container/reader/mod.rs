//! Reading object container files.
//!
//! One role per file: this one holds the [`Reader`] and its state machine (header, then
//! blocks, then records); `builder.rs` its options, `input.rs` the slice or buffered stream it
//! reads, `raw.rs` blocks taken without decoding them, `block.rs` decompressed blocks whose
//! records borrow from them, `parallel.rs` blocks decoded on worker threads in file order,
//! `ahead.rs` the next blocks decompressing while the current one decodes, `split.rs` split
//! seeking, `cache.rs` the schema cache, `checks.rs` the checks of a block and the context
//! errors get, and `records.rs` the decoding of a whole block at once (raw blocks, the async
//! reader).

mod ahead;
mod block;
mod builder;
mod cache;
mod checks;
mod input;
mod parallel;
mod raw;
mod records;
mod split;

use std::fmt;
use std::io::Read;

use self::ahead::{Next, Prefetch};
pub use self::block::{Block, BlockRecords, BlockRecordsInto};
pub use self::builder::ReaderBuilder;
pub use self::cache::SchemaCache;
pub(crate) use self::cache::{codec_of, schema_and_min_size, schema_of};
use self::checks::{block_error, check_count, data_start, record_error, records_end_early};
use self::input::Input;
pub use self::parallel::{ParBatches, ParBlocks, ParRecords};
pub use self::raw::RawBlock;
#[cfg(feature = "tokio")]
pub(crate) use self::records::{BlockDecoding, Cursor};
use crate::container::codec::{Codec, Decompressor};
use crate::container::framing::{
    BlockDecoder, BlockEvent, BlockHeader, Header, HeaderDecoder, SYNC_SIZE,
};
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;
use crate::resolution::ResolvedPlan;
use crate::schema::Schema;
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
    /// The first byte not yet asked of the CPU ([`crate::io::read_ahead`]), for the cursors
    /// that read ahead (typed records, borrowed blocks). `Reader::step` does not: on `-Cnull`
    /// its `Value`, serde and codec rows were no faster with it (2026-12-06).
    ahead: usize,
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
    /// The next compressed block, decompressing on a helper thread.
    prefetch: Prefetch,
    /// The plan of the reader schema, when one is set (for the parallel readers).
    resolved: Option<ResolvedPlan>,
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
                    let buf = s.fill_buf()?;
                    if buf.is_empty() {
                        break;
                    }
                    let n = hd.decode(buf)?;
                    s.consume(n);
                }
            }
        }
        let header = hd.finish()?;
        let (schema, min_record_size) = schema_and_min_size(options.cache.as_ref(), &header)?;
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
                ahead: 0,
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
            prefetch: Prefetch::new(options.decompress_ahead),
            resolved: None,
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
        self.resolved = Some(plan.clone());
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
    pub(in crate::container) fn is_file_schema(&mut self, schema: &Schema) -> bool {
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
            if !self.advance()? {
                return Ok(None);
            }
        }
        // Not a copy of the whole `Current`: see `Cursor::read` (the stores of the last
        // record's step would stall it). The error paths read `self.cur`, still as it was.
        let bytes = block_bytes(&self.input, &self.data, &self.cur);
        let mut dec = Decoder::from_slice(bytes).with_limits(self.limits);
        let result = f(&mut dec, &mut *self.datum);
        let used = dec.offset() as usize;
        let v = match result {
            Ok(v) => v,
            Err(e) => {
                let e = record_error(e, &self.cur, self.codec == Codec::Null);
                self.done = true;
                self.cur.left = 0;
                return Err(e);
            }
        };
        self.cur.pos += used;
        self.cur.left -= 1;
        self.cur.record += 1;
        if self.cur.left == 0 && self.cur.pos != self.cur.end {
            self.done = true;
            let start = data_start(&self.cur) as usize;
            return Err(records_end_early(
                &self.cur.header,
                self.cur.pos - start,
                self.cur.end - start,
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
                    let buf = s.fill_buf()?;
                    if buf.is_empty() {
                        framer.finish()?;
                        return Ok(None);
                    }
                    let (n, ev) = framer.decode(buf)?;
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
                            s.consume(n);
                            let h = header.expect("a block starts before it ends");
                            return Ok(Some((h, None)));
                        }
                    }
                    s.consume(n);
                }
            }
        }
    }

    /// Loads the next block unless the reader has ended; `false` (and the reader ended) at
    /// the end of the file or split. Ends the reader on error.
    fn advance(&mut self) -> Result<bool> {
        if self.done {
            return Ok(false);
        }
        match self.load_block() {
            Ok(true) => Ok(true),
            Ok(false) => {
                self.done = true;
                Ok(false)
            }
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }

    /// Loads the next block for record reading: decompresses it and checks its count.
    fn load_block(&mut self) -> Result<bool> {
        if self.prefetch.applies(self.codec) {
            return self.load_block_ahead();
        }
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
                self.decompress_frame(&h, range)?;
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
            ahead: 0,
        };
        Ok(true)
    }

    /// Decompresses the payload of frame `h` (at `range` of the input, else in `raw`) into
    /// `data`.
    fn decompress_frame(&mut self, h: &BlockHeader, range: Option<(usize, usize)>) -> Result<()> {
        let input: &[u8] = match (&self.input, range) {
            (Input::Slice { data, .. }, Some((a, b))) => &data[a..b],
            _ => &self.raw,
        };
        self.decompressor
            .decompress(input, &mut self.data, self.limits.max_alloc)
            .map_err(|e| block_error(e, h))
    }

    /// [`load_block`](Self::load_block) for compressed blocks read ahead: takes the block the
    /// helper thread decompressed (or decompresses the first one here), then hands it the
    /// payloads of the next blocks, up to `ahead::DEPTH` in its hands, before this block's
    /// records are decoded.
    fn load_block_ahead(&mut self) -> Result<bool> {
        let max = self.limits.max_alloc;
        let h = match self.prefetch.take(self.codec, max, &mut self.data)? {
            Next::Ready(h) => h,
            Next::End => return Ok(false),
            Next::Nothing => {
                let Some((h, range)) = self.next_frame()? else {
                    return Ok(false);
                };
                self.decompress_frame(&h, range)?;
                self.prefetch.inlined(self.data.len());
                h
            }
        };
        loop {
            let payload = self.prefetch.payload_buffer();
            let frame = self.next_owned_frame(payload);
            self.prefetch.submit(frame, self.codec, max);
            if !self.prefetch.wants_more() {
                break;
            }
        }
        check_count(
            &h,
            self.data.len() as u64,
            self.min_record_size,
            &self.limits,
        )?;
        self.cur = Current {
            in_input: false,
            pos: 0,
            end: self.data.len(),
            left: h.count,
            record: 0,
            header: h,
            ahead: 0,
        };
        Ok(true)
    }

    /// Loads the next block and hands it out whole: its records borrow from it (the input
    /// slice for the `null` codec, else the reader's decompression buffer) until the next
    /// call. Records of the current block not read yet are skipped. `None` at the end of the
    /// file (or split).
    ///
    /// This is the zero-copy way to read: serde types with `&str` or `&[u8]` fields and
    /// generated codecs over borrowed fields read through [`Block::serde_iter`] and
    /// [`Block::codec_iter`] without copying strings out of the block; see [`Block`].
    ///
    /// # Errors
    /// A corrupt or truncated block framing, decompression, or a count its bytes cannot hold.
    pub fn next_block(&mut self) -> Result<Option<Block<'_>>> {
        self.cur.left = 0;
        if !self.advance()? {
            return Ok(None);
        }
        let c = self.cur;
        self.cur.left = 0;
        Ok(Some(Block::new(
            block_bytes(&self.input, &self.data, &c),
            c.header,
            self.limits,
            self.codec == Codec::Null,
            &self.schema,
            Some(&mut *self.datum),
        )))
    }
}

impl<R> Reader<'_, R> {
    /// The records of the current block not read yet, as a block (for the parallel readers,
    /// which begin with them); `None` when there are none. The reader still counts them as
    /// unread: the caller ends the block.
    pub(super) fn rest_of_block(&self) -> Option<Block<'_>> {
        let c = &self.cur;
        if c.left == 0 {
            return None;
        }
        let start = data_start(c) as usize;
        let whole = block_bytes(&self.input, &self.data, &Current { pos: start, ..*c });
        let block = Block::new(
            whole,
            c.header,
            self.limits,
            self.codec == Codec::Null,
            &self.schema,
            None,
        );
        Some(block.rest(c.pos - start, c.record))
    }
}

/// The bytes of the current block `c` not read yet: in the input slice or in `data`.
fn block_bytes<'s, R>(input: &'s Input<'_, R>, data: &'s [u8], c: &Current) -> &'s [u8] {
    match (input, c.in_input) {
        (Input::Slice { data, .. }, true) => &data[c.pos..c.end],
        _ => &data[c.pos..c.end],
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
