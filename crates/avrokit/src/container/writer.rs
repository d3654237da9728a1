//! Writing object container files.

use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use super::codec::{Codec, Compressor};
use super::framing::{HeaderDecoder, MAGIC, SYNC_SIZE};
use super::reader::{codec_of, schema_of, RawBlock, Reader};
use super::write_pool::Pool;
use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::varint::{encode as encode_varint, zigzag64};
use crate::io::{flush_retrying, Limits};
use crate::schema::Schema;
use crate::serde::SerPlan;
use crate::value::{write_value, Value};

/// Room kept in front of a block's payload for its count and size (two varints of at most ten
/// bytes), so the whole block goes to the sink in one `write_all` without another copy.
const PREFIX: usize = 20;

/// Options for a [`Writer`]: codec, block size, metadata, sync marker.
///
/// # Examples
/// ```
/// use avrokit::container::{Codec, Reader, WriterBuilder};
/// use avrokit::{Schema, Value};
/// let schema = Schema::parse_str(r#""string""#)?;
/// let mut w = WriterBuilder::new(&schema)
///     .with_codec(Codec::Deflate { level: 9 })
///     .with_block_size(16 * 1024)
///     .with_metadata("created.by", "example")
///     .with_sync_marker([7; 16])
///     .build(Vec::new())?;
/// w.append(&Value::String("x".into()))?;
/// let file = w.into_inner()?;
/// let r = Reader::from_slice(&file)?;
/// assert_eq!(r.metadata_value("created.by"), Some(&b"example"[..]));
/// assert_eq!(r.sync_marker(), [7; 16]);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct WriterBuilder {
    schema: Schema,
    codec: Option<Codec>,
    block_size: usize,
    block_records: u64,
    metadata: Vec<(String, Vec<u8>)>,
    sync: Option<[u8; SYNC_SIZE]>,
    threads: usize,
}

impl WriterBuilder {
    /// Default block size: 64 KiB of encoded records.
    pub const DEFAULT_BLOCK_SIZE: usize = 64 * 1024;

    /// A builder for files of `schema`: `null` codec, 64 KiB blocks, a random sync marker.
    pub fn new(schema: &Schema) -> WriterBuilder {
        WriterBuilder {
            schema: schema.clone(),
            codec: None,
            block_size: Self::DEFAULT_BLOCK_SIZE,
            block_records: u64::MAX,
            metadata: Vec::new(),
            sync: None,
            threads: 1,
        }
    }

    /// Sets the codec (default [`Codec::Null`]).
    #[must_use]
    pub fn with_codec(mut self, codec: Codec) -> WriterBuilder {
        self.codec = Some(codec);
        self
    }

    /// Ends a block once its encoded (uncompressed) records reach `bytes` (at least 1).
    #[must_use]
    pub fn with_block_size(mut self, bytes: usize) -> WriterBuilder {
        self.block_size = bytes.max(1);
        self
    }

    /// Ends a block once it holds `n` records (at least 1; no limit by default).
    #[must_use]
    pub fn with_block_records(mut self, n: u64) -> WriterBuilder {
        self.block_records = n.max(1);
        self
    }

    /// Adds a metadata entry to the header. Keys starting with `avro.` are reserved by the
    /// specification: [`build`](Self::build) refuses them, and refuses a key given twice.
    #[must_use]
    pub fn with_metadata(
        mut self,
        key: impl Into<String>,
        value: impl Into<Vec<u8>>,
    ) -> WriterBuilder {
        self.metadata.push((key.into(), value.into()));
        self
    }

    /// Sets the sync marker (default: 16 random bytes). A fixed marker makes output
    /// reproducible; files that may be concatenated or split should keep random ones.
    #[must_use]
    pub fn with_sync_marker(mut self, sync: [u8; SYNC_SIZE]) -> WriterBuilder {
        self.sync = Some(sync);
        self
    }

    /// Compresses blocks on `n` worker threads (default 1: on the caller's thread, no
    /// threads started). Encoding the next block then overlaps compressing the last ones, and
    /// a compressed file is written up to `n` times as fast where compression dominates (zstd,
    /// deflate, bzip2 and xz do). The `null` codec has nothing to compress and starts no
    /// threads.
    ///
    /// The file is byte for byte the one a single-threaded writer makes: the blocks end at
    /// the same records, and come out in order. At most two blocks per thread are in flight,
    /// and their buffers (encoded and compressed) are kept for reuse: memory stays within a
    /// few block sizes per thread. Blocks reach the sink once compressed, so a full
    /// block may be written by a later `append` call than alone; [`flush`](Writer::flush)
    /// and [`finish`](Writer::finish) wait for every block. A block that fails to compress
    /// poisons the writer (alone, its records would stay pending instead): the blocks before
    /// it are in the sink and complete.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Codec, Reader, WriterBuilder};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""long""#)?;
    /// let mut w = WriterBuilder::new(&schema)
    ///     .with_codec(Codec::Deflate { level: 6 })
    ///     .with_block_records(100)
    ///     .with_threads(2)
    ///     .build(Vec::new())?;
    /// for n in 0..1000 {
    ///     w.append(&Value::Long(n))?;
    /// }
    /// let file = w.finish()?;
    /// let back = Reader::from_slice(&file)?.collect::<Result<Vec<_>, _>>()?;
    /// assert_eq!(back.len(), 1000);
    /// assert_eq!(back[999], Value::Long(999));
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    #[must_use]
    pub fn with_threads(mut self, n: usize) -> WriterBuilder {
        self.threads = n.max(1);
        self
    }

    /// Writes the header to `sink` and returns the writer.
    ///
    /// Blocks reach the sink whole, one `write_all` each, so an unbuffered `File` is fine.
    /// To write many files with the same options, prepare their header once with
    /// [`template`](Self::template).
    ///
    /// # Errors
    /// A reserved or repeated metadata key, a codec that is not enabled or has a bad level, or
    /// a failing sink.
    pub fn build<W: Write>(self, sink: W) -> Result<Writer<W>> {
        self.template()?.build(sink)
    }

    /// Checks the options and renders the header once, for writing any number of files.
    ///
    /// Building a writer renders the schema as JSON into the header, which for a file of a
    /// few records costs more than the records. A [`WriterTemplate`] keeps the rendered
    /// header, so each [`WriterTemplate::build`] only copies it.
    ///
    /// # Errors
    /// A reserved or repeated metadata key, or a codec that is not enabled or has a bad level.
    pub fn template(self) -> Result<WriterTemplate> {
        let codec = self.codec.unwrap_or(Codec::Null);
        codec.check()?;
        for (i, (k, _)) in self.metadata.iter().enumerate() {
            if k.starts_with("avro.") {
                return Err(Error::new(
                    ErrorKind::Container,
                    format!("metadata key {k:?} is reserved: keys starting with \"avro.\" belong to the specification"),
                ));
            }
            if self.metadata[..i].iter().any(|(k2, _)| k2 == k) {
                return Err(Error::new(
                    ErrorKind::Container,
                    format!("metadata key {k:?} is given twice"),
                ));
            }
        }
        let schema_json = crate::schema::write::to_json_text(&self.schema);
        let mut head = Vec::with_capacity(schema_json.len() + 64);
        let mut enc = Encoder::new(&mut head);
        enc.write_fixed(&MAGIC)?;
        enc.write_map_start(2 + self.metadata.len())?;
        enc.write_string("avro.schema")?;
        enc.write_bytes(&schema_json)?;
        enc.write_string("avro.codec")?;
        enc.write_bytes(codec.name().as_bytes())?;
        for (k, v) in &self.metadata {
            enc.write_string(k)?;
            enc.write_bytes(v)?;
        }
        enc.write_map_end()?;
        Ok(WriterTemplate {
            schema: self.schema,
            codec,
            block_size: self.block_size,
            block_records: self.block_records,
            sync: self.sync,
            threads: self.threads,
            head: head.into(),
        })
    }

    /// Opens an existing container file to add records at its end.
    ///
    /// The file's schema must be this builder's (their Parsing Canonical Forms equal); its
    /// codec and sync marker are kept. A codec set on the builder must be the file's codec
    /// (its level may differ); a sync marker set on the builder must be the file's; metadata
    /// cannot be added. The file must end with a complete block (or the header).
    ///
    /// # Errors
    /// A malformed header, a different schema, codec or sync marker, metadata on the builder,
    /// a file that does not end at a block boundary, or a failing file.
    pub fn append_to<W: Read + Write + Seek>(self, file: W) -> Result<Writer<W>> {
        open_for_append(file, Some(self))
    }

    fn defaults_for(schema: &Schema) -> WriterBuilder {
        WriterBuilder::new(schema)
    }
}

/// The header of container files prepared once by [`WriterBuilder::template`], for writing
/// many files with the same schema and options: each [`build`](Self::build) copies the
/// rendered header instead of rendering the schema again.
///
/// A file built from a template is the file [`WriterBuilder::build`] writes with the same
/// options, byte for byte (`build` goes through a template). Every file gets the builder's sync
/// marker if it set one, else a new random marker of its own. Cloning a template is cheap (the
/// header is shared).
///
/// # Examples
/// ```
/// use avrokit::container::{Codec, Reader, WriterBuilder};
/// use avrokit::{Schema, Value};
/// let schema = Schema::parse_str(r#"{"type":"record","name":"Ping","fields":[{"name":"n","type":"long"}]}"#)?;
/// let template = WriterBuilder::new(&schema)
///     .with_codec(Codec::Snappy)
///     .with_metadata("origin", "sensor-7")
///     .template()?;
/// let mut files = Vec::new();
/// for n in 0..100 {
///     let mut w = template.build(Vec::new())?;
///     w.append(&Value::Record(vec![Value::Long(n)]))?;
///     files.push(w.into_inner()?);
/// }
/// let r = Reader::from_slice(&files[42])?;
/// assert_eq!(r.metadata_value("origin"), Some(&b"sensor-7"[..]));
/// assert_eq!(r.collect::<Result<Vec<_>, _>>()?, [Value::Record(vec![Value::Long(42)])]);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Clone)]
pub struct WriterTemplate {
    schema: Schema,
    codec: Codec,
    block_size: usize,
    block_records: u64,
    sync: Option<[u8; SYNC_SIZE]>,
    threads: usize,
    /// The header up to its sync marker: magic and metadata map.
    head: Arc<[u8]>,
}

impl WriterTemplate {
    /// Writes the header to `sink` (in one `write_all`) and returns the writer.
    ///
    /// # Errors
    /// A failing sink.
    pub fn build<W: Write>(&self, mut sink: W) -> Result<Writer<W>> {
        let pool = start_pool(self.codec, self.threads)?;
        let sync = self.sync.unwrap_or_else(random_sync);
        // The header is staged in the buffer the writer encodes its blocks in: one allocation
        // for both, and none beyond it for a file of a few small records.
        let len = self.head.len() + SYNC_SIZE;
        let mut block = Vec::with_capacity(len.max(PREFIX + 256));
        block.extend_from_slice(&self.head);
        block.extend_from_slice(&sync);
        sink.write_all(&block).map_err(|e| {
            Error::with_source(
                ErrorKind::Io,
                format!("writing the container header failed: {e}"),
                e,
            )
        })?;
        block.clear();
        block.resize(PREFIX, 0);
        Ok(Writer {
            sink: Some(sink),
            schema: self.schema.clone(),
            matched: super::SchemaMatch::default(),
            codec: self.codec,
            compressor: Compressor::unchecked(self.codec),
            sync,
            block,
            frame: Vec::new(),
            count: 0,
            block_size: self.block_size,
            block_records: self.block_records,
            poisoned: false,
            offset: len as u64,
            blocks: 0,
            pool,
        })
    }

    /// The schema of the files.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The codec of the files' blocks.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// The header every file starts with, up to its 16-byte sync marker: the magic bytes and
    /// the metadata map (`avro.schema`, `avro.codec`, then the builder's entries).
    pub fn header_without_sync_marker(&self) -> &[u8] {
        &self.head
    }
}

impl fmt::Debug for WriterTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriterTemplate")
            .field("schema", &self.schema)
            .field("codec", &self.codec)
            .field("block_size", &self.block_size)
            .field("block_records", &self.block_records)
            .field("sync_marker", &self.sync)
            .field("threads", &self.threads)
            .field("header_len", &(self.head.len() + SYNC_SIZE))
            .finish()
    }
}

/// Writes an Avro object container file.
///
/// Records are encoded straight into a block buffer that is reused from block to block. A
/// block is compressed and written when its encoded records reach the block size (64 KiB by
/// default) or the record limit, on [`flush`](Self::flush), and on
/// [`into_inner`](Self::into_inner)/[`finish`](Self::finish). Each block reaches the sink in
/// one `write_all` call, with its count, size and sync marker.
///
/// # Errors and poisoning
/// Sink errors surface from the call that writes: [`append`](Self::append) (when a block
/// fills), [`flush`](Self::flush) and [`finish`](Self::finish). A failed write may have left
/// part of a block in the sink, so the writer is then *poisoned*: every later call fails, and
/// [`is_poisoned`](Self::is_poisoned) says so (a sink that would work again changes nothing:
/// bytes written after a partial block could never be read). Everything before that block is
/// intact, and a reader returns the records of the complete blocks and then rejects the partial
/// one ([`ErrorKind::Eof`]) rather than misreading it. A file cut exactly at a block boundary
/// is indistinguishable from a shorter complete file (the format has no trailer): only the
/// writer's error tells the two apart.
///
/// # Dropping without `finish`
/// Records appended since the last block was written are only in memory. Dropping an
/// unpoisoned writer writes them as a last block and flushes the sink, best effort, as
/// `std::io::BufWriter` does: a failure then cannot be reported (the reader sees the complete
/// blocks, then the end of the file or of its input inside the last one). Call
/// [`finish`](Self::finish) to know that the file is complete.
///
/// # Examples
/// ```
/// use avrokit::container::{Reader, Writer};
/// use avrokit::{Schema, Value};
/// let schema = Schema::parse_str(r#""long""#)?;
/// let mut w = Writer::new(Vec::new(), &schema)?;
/// w.append(&Value::Long(1))?;
/// w.append(&Value::Long(2))?;
/// let file: Vec<u8> = w.into_inner()?;
/// let back = Reader::from_slice(&file)?.collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(back, [Value::Long(1), Value::Long(2)]);
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct Writer<W: Write> {
    /// `None` only once taken by `into_inner`.
    sink: Option<W>,
    schema: Schema,
    /// Plans' schemas found equal to `schema` (`append_serde`).
    matched: super::SchemaMatch,
    codec: Codec,
    compressor: Compressor,
    sync: [u8; SYNC_SIZE],
    /// `PREFIX` reserved bytes, then the current block's encoded records.
    block: Vec<u8>,
    /// `PREFIX` reserved bytes, then a compressed payload (or a copied raw block).
    frame: Vec<u8>,
    count: u64,
    block_size: usize,
    block_records: u64,
    poisoned: bool,
    /// Bytes of the file known to be in the sink: header and complete blocks.
    offset: u64,
    blocks: u64,
    /// Worker threads compressing full blocks (`with_threads`), if any.
    pool: Option<Pool>,
}

/// The compression threads of a writer: none for one thread or the `null` codec.
fn start_pool(codec: Codec, threads: usize) -> Result<Option<Pool>> {
    if threads <= 1 || codec == Codec::Null {
        return Ok(None);
    }
    Pool::start(codec, threads, PREFIX).map(Some)
}

impl<W: Write> Writer<W> {
    /// Writes the header of a file of `schema` (null codec, default options) to `sink`.
    ///
    /// # Errors
    /// A failing sink.
    pub fn new(sink: W, schema: &Schema) -> Result<Writer<W>> {
        WriterBuilder::new(schema).build(sink)
    }

    /// A writer continuing a file whose first `offset` bytes are in `sink`.
    fn assemble(
        b: WriterBuilder,
        sink: W,
        codec: Codec,
        compressor: Compressor,
        sync: [u8; SYNC_SIZE],
        offset: u64,
    ) -> Result<Writer<W>> {
        let pool = start_pool(codec, b.threads)?;
        Ok(Writer {
            sink: Some(sink),
            schema: b.schema,
            matched: super::SchemaMatch::default(),
            codec,
            compressor,
            sync,
            block: vec![0; PREFIX],
            frame: Vec::new(),
            count: 0,
            block_size: b.block_size,
            block_records: b.block_records,
            poisoned: false,
            offset,
            blocks: 0,
            pool,
        })
    }

    /// The schema records are written with.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The codec of the file's blocks.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// The file's sync marker.
    pub fn sync_marker(&self) -> [u8; SYNC_SIZE] {
        self.sync
    }

    /// Bytes of the file written to the sink so far (header and complete blocks). After a
    /// successful [`flush`](Self::flush) this is a block boundary: a position to split at, or to
    /// truncate back to.
    pub fn bytes_written(&self) -> u64 {
        self.offset
    }

    /// Blocks written to the sink so far (by this writer).
    pub fn blocks_written(&self) -> u64 {
        self.blocks
    }

    /// Records appended but not yet written to the sink (with
    /// [`with_threads`](WriterBuilder::with_threads), those of blocks being compressed too).
    pub fn pending_records(&self) -> u64 {
        self.count + self.pool.as_ref().map_or(0, Pool::records)
    }

    /// Compresses the blocks from the next full one on with `n` threads, as
    /// [`WriterBuilder::with_threads`] does (1: on the caller's thread). The blocks being
    /// compressed are written first. For a writer whose options are chosen after it is built
    /// (a wrapper that writes the header before it knows them, say).
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Codec, Reader, WriterBuilder};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""long""#)?;
    /// let mut w = WriterBuilder::new(&schema)
    ///     .with_codec(Codec::Deflate { level: 6 })
    ///     .with_block_records(100)
    ///     .build(Vec::new())?;
    /// w.set_threads(3)?;
    /// for n in 0..1000 {
    ///     w.append(&Value::Long(n))?;
    /// }
    /// let file = w.finish()?;
    /// assert_eq!(Reader::from_slice(&file)?.count(), 1000);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// Writing the blocks in flight failed (the writer is then poisoned), or a thread could
    /// not be started.
    pub fn set_threads(&mut self, n: usize) -> Result<()> {
        self.write_compressed(true)?;
        // Dropping the old pool ends its threads; the block being filled stays.
        self.pool = None;
        self.pool = start_pool(self.codec, n)?;
        Ok(())
    }

    /// True after a sink error: nothing more can be written.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        self.sink
            .as_ref()
            .expect("the sink is present until into_inner")
    }

    /// The sink, for the async writer, which drains its in-memory staging sink.
    #[cfg(feature = "tokio")]
    pub(crate) fn sink_mut(&mut self) -> &mut W {
        self.sink
            .as_mut()
            .expect("the sink is present until into_inner")
    }

    /// Appends one record, checked against the schema.
    ///
    /// # Errors
    /// A value that does not match the schema (the path of the mismatch is named, and nothing
    /// of the record is kept), a poisoned writer, or a sink error while writing a full block.
    pub fn append(&mut self, value: &Value) -> Result<()> {
        self.check_poisoned()?;
        let before = self.block.len();
        if let Err(e) = write_value(&mut Encoder::new(&mut self.block), value, &self.schema) {
            self.block.truncate(before);
            return Err(e);
        }
        self.count += 1;
        self.after_append()
    }

    /// Appends one record encoded by `f` straight into the block buffer: the hook for serde and
    /// hand-written encoders. `f` must write exactly one datum of the schema; if it fails,
    /// whatever it wrote is discarded.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, Writer};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#"{"type":"array","items":"int"}"#)?;
    /// let mut w = Writer::new(Vec::new(), &schema)?;
    /// w.append_with(|enc| {
    ///     enc.write_array_start(2)?;
    ///     for x in [1, 2] {
    ///         enc.start_item()?;
    ///         enc.write_int(x)?;
    ///     }
    ///     enc.write_array_end()
    /// })?;
    /// let file = w.into_inner()?;
    /// let v = Reader::from_slice(&file)?.next().transpose()?;
    /// assert_eq!(v, Some(Value::Array(vec![Value::Int(1), Value::Int(2)])));
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// The error of `f`, a poisoned writer, or a sink error while writing a full block.
    pub fn append_with(
        &mut self,
        f: impl FnOnce(&mut Encoder<&mut Vec<u8>>) -> Result<()>,
    ) -> Result<()> {
        self.check_poisoned()?;
        let before = self.block.len();
        if let Err(e) = f(&mut Encoder::new(&mut self.block)) {
            self.block.truncate(before);
            return Err(e);
        }
        self.count += 1;
        self.after_append()
    }

    /// True when `schema` is the file's schema (see [`SchemaMatch`](super::SchemaMatch)): a
    /// pointer compare per datum, canonical forms compared once per schema.
    #[inline]
    pub(in crate::container) fn is_file_schema(&mut self, schema: &Schema) -> bool {
        self.matched.is(&self.schema, schema)
    }

    /// Appends one serde value as a record, encoded through `plan` straight into the block
    /// buffer (no [`Value`] is built).
    ///
    /// `plan` must be compiled from this file's schema: compile it from
    /// [`schema()`](Self::schema) (or a clone of the schema given to the writer) so that the
    /// check is a pointer comparison; a plan from another parse of the same schema is accepted
    /// but compared by canonical form on every call.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, Writer};
    /// use avrokit::serde::{DePlan, SerPlan};
    /// use avrokit::Schema;
    /// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    /// struct P { x: i64, tag: Option<String> }
    /// let schema = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
    ///     {"name":"x","type":"long"},{"name":"tag","type":["null","string"]}]}"#)?;
    /// let mut w = Writer::new(Vec::new(), &schema)?;
    /// let plan = SerPlan::compile(w.schema())?;
    /// w.append_serde(&P { x: 1, tag: None }, &plan)?;
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let de = DePlan::compile(r.schema())?;
    /// assert_eq!(r.next_serde::<P>(&de).transpose()?, Some(P { x: 1, tag: None }));
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A plan of another schema ([`ErrorKind::Schema`]), a value that does not fit the schema
    /// (nothing of the record is kept), a poisoned writer, or a sink error while writing a full
    /// block.
    pub fn append_serde<T: serde::Serialize + ?Sized>(
        &mut self,
        value: &T,
        plan: &SerPlan,
    ) -> Result<()> {
        if !self.is_file_schema(plan.schema()) {
            return Err(Error::schema(
                "append_serde: the plan was compiled from another schema than the file's",
            ));
        }
        self.check_poisoned()?;
        let before = self.block.len();
        if let Err(e) = crate::serde::to_datum_sink(value, plan, &mut self.block) {
            self.block.truncate(before);
            return Err(e);
        }
        self.count += 1;
        self.after_append()
    }

    /// Appends one record already encoded with the file's schema. The bytes are trusted: they
    /// are not checked against the schema.
    ///
    /// # Errors
    /// A poisoned writer, or a sink error while writing a full block.
    pub fn append_encoded(&mut self, datum: &[u8]) -> Result<()> {
        self.check_poisoned()?;
        self.block.extend_from_slice(datum);
        self.count += 1;
        self.after_append()
    }

    /// Appends many records already encoded with the file's schema: record `k` is
    /// `data[ends[k - 1]..ends[k]]` (the first starts at 0). Blocks close exactly where as many
    /// [`append_encoded`](Self::append_encoded) calls would close them, but the bytes between
    /// two block boundaries are copied at once; with the null codec, a whole block with no
    /// records pending before it is written from `data` without that copy. The bytes are
    /// trusted, as there.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, Writer};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""int""#)?;
    /// let mut w = Writer::new(Vec::new(), &schema)?;
    /// w.append_encoded_many(&[0x02, 0x04, 0x06], &[1, 2, 3])?;
    /// let file = w.into_inner()?;
    /// let back: Vec<Value> = Reader::from_slice(&file)?.collect::<Result<_, _>>()?;
    /// assert_eq!(back, [Value::Int(1), Value::Int(2), Value::Int(3)]);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// `ends` not rising within `data` (nothing is appended), a poisoned writer, or a sink
    /// error while writing a full block.
    pub fn append_encoded_many(&mut self, data: &[u8], ends: &[usize]) -> Result<()> {
        self.check_poisoned()?;
        if ends.windows(2).any(|w| w[0] > w[1]) || ends.last().is_some_and(|&e| e > data.len()) {
            return Err(Error::new(
                ErrorKind::Container,
                "append_encoded_many: record ends must rise and stay within the data",
            ));
        }
        let (mut start, mut i) = (0usize, 0usize);
        while i < ends.len() {
            let held = self.block.len() - PREFIX;
            // The first record after which the block is full, as `after_append` would see it.
            let by_records = (self.block_records - self.count).saturating_sub(1);
            let mut k = i + usize::try_from(by_records)
                .unwrap_or(usize::MAX)
                .min(ends.len() - 1 - i);
            if let Some(j) = ends[i..=k]
                .iter()
                .position(|&e| held + (e - start) >= self.block_size)
            {
                k = i + j;
            }
            let n = (k + 1 - i) as u64;
            let full =
                held + (ends[k] - start) >= self.block_size || self.count + n >= self.block_records;
            if full && self.count == 0 && self.codec == Codec::Null {
                // A whole block of the null codec with none pending: written from `data`,
                // not copied into the block buffer first (the same bytes).
                let sink = self.sink.as_mut().expect("sink present");
                let r = emit_from(&data[start..ends[k]], n, &self.sync, sink);
                self.account(r, n)?;
            } else {
                self.block.extend_from_slice(&data[start..ends[k]]);
                self.count += n;
                self.after_append()?;
            }
            start = ends[k];
            i = k + 1;
        }
        Ok(())
    }

    #[inline]
    fn after_append(&mut self) -> Result<()> {
        if self.block.len() - PREFIX >= self.block_size || self.count >= self.block_records {
            self.write_block()?;
        }
        Ok(())
    }

    /// Writes a block as read from another file by [`Reader::next_raw_block`], without
    /// decoding it; the pending records are written first, as their own block. The block's
    /// codec must be this file's, and its records must be of this file's schema (not checked:
    /// see [`append_blocks_from`](Self::append_blocks_from) for the checked form).
    ///
    /// # Errors
    /// A block of another codec, a poisoned writer, or a sink error.
    pub fn append_raw_block(&mut self, block: &RawBlock<'_>) -> Result<()> {
        // Checked here, not only by `write_block` (which has nothing to do when no records are
        // pending): a block must never follow the partial one a failed write left.
        self.check_poisoned()?;
        if !block.codec().same_format(&self.codec) {
            return Err(Error::new(
                ErrorKind::Container,
                format!(
                    "cannot copy a {} block into a {} file",
                    block.codec().name(),
                    self.codec.name()
                ),
            ));
        }
        self.write_block()?;
        self.write_compressed(true)?;
        self.frame.clear();
        self.frame.resize(PREFIX, 0);
        self.frame.extend_from_slice(block.data());
        let count = block.count();
        let r = emit(
            &mut self.frame,
            count,
            &self.sync,
            self.sink.as_mut().expect("sink present"),
        );
        self.account(r, count)
    }

    /// Copies every remaining block of `reader` into this file without decoding or
    /// recompressing it (what `avro-tools concat` does), after checking that the reader's
    /// schema and codec are this writer's. Returns the number of records copied.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, Writer};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""int""#)?;
    /// let mut files = Vec::new();
    /// for i in 0..2 {
    ///     let mut w = Writer::new(Vec::new(), &schema)?;
    ///     w.append(&Value::Int(i))?;
    ///     files.push(w.into_inner()?);
    /// }
    /// let mut out = Writer::new(Vec::new(), &schema)?;
    /// for f in &files {
    ///     out.append_blocks_from(&mut Reader::from_slice(f)?)?;
    /// }
    /// let all = Reader::from_slice(&out.into_inner()?)?.collect::<Result<Vec<_>, _>>()?;
    /// assert_eq!(all, [Value::Int(0), Value::Int(1)]);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A different schema (Parsing Canonical Form) or codec, a corrupt input block framing, a
    /// poisoned writer, or a sink error.
    pub fn append_blocks_from<R: Read>(&mut self, reader: &mut Reader<'_, R>) -> Result<u64> {
        self.check_poisoned()?;
        if reader.schema().canonical_form() != self.schema.canonical_form() {
            return Err(Error::new(
                ErrorKind::Container,
                "cannot copy blocks between files of different schemas (their Parsing Canonical Forms differ)",
            ));
        }
        if !reader.codec().same_format(&self.codec) {
            return Err(Error::new(
                ErrorKind::Container,
                format!(
                    "cannot copy blocks of a {} file into a {} file",
                    reader.codec().name(),
                    self.codec.name()
                ),
            ));
        }
        let mut records = 0;
        while let Some(block) = reader.next_raw_block()? {
            self.append_raw_block(&block)?;
            records += block.count();
        }
        Ok(records)
    }

    /// Writes the pending records as a block (if there are any) and flushes the sink.
    ///
    /// # Errors
    /// A poisoned writer, a compression error, or a sink error (which poisons the writer).
    pub fn flush(&mut self) -> Result<()> {
        self.write_block()?;
        self.write_compressed(true)?;
        self.check_poisoned()?;
        let r = flush_retrying(self.sink.as_mut().expect("sink present"));
        if let Err(e) = r {
            self.poisoned = true;
            return Err(Error::with_source(
                ErrorKind::Io,
                format!("flushing the sink failed: {e}; the writer is poisoned"),
                e,
            ));
        }
        Ok(())
    }

    /// Writes the pending records, flushes the sink and returns it.
    ///
    /// # Errors
    /// As [`flush`](Self::flush).
    pub fn into_inner(mut self) -> Result<W> {
        self.flush()?;
        Ok(self.sink.take().expect("sink present"))
    }

    /// The same as [`into_inner`](Self::into_inner): ends the file and returns the sink.
    ///
    /// # Errors
    /// As [`flush`](Self::flush).
    pub fn finish(self) -> Result<W> {
        self.into_inner()
    }

    fn check_poisoned(&self) -> Result<()> {
        if self.poisoned {
            return Err(poisoned_error());
        }
        Ok(())
    }

    /// Compresses and writes the current block, if it holds any record.
    fn write_block(&mut self) -> Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        self.check_poisoned()?;
        let count = self.count;
        if let Some(pool) = &mut self.pool {
            // The next block goes into a spare buffer while a worker compresses this one.
            let fresh = pool.buffer();
            // Workers that are gone are found when their blocks are taken back, which
            // poisons the writer.
            pool.submit(std::mem::replace(&mut self.block, fresh), count);
            self.count = 0;
            return self.write_compressed(false);
        }
        let sink = self.sink.as_mut().expect("sink present");
        let r = if self.codec == Codec::Null {
            emit(&mut self.block, count, &self.sync, sink)
        } else {
            self.frame.clear();
            self.frame.resize(PREFIX, 0);
            // A compression failure writes nothing: the records stay pending.
            self.compressor
                .compress(&self.block[PREFIX..], &mut self.frame)?;
            emit(&mut self.frame, count, &self.sync, sink)
        };
        self.account(r, count)?;
        self.block.truncate(PREFIX);
        self.count = 0;
        Ok(())
    }

    /// Writes the blocks the pool has compressed, in file order: every block in flight when
    /// `all`, else those back already, waiting only while the pool is full.
    fn write_compressed(&mut self, all: bool) -> Result<()> {
        loop {
            let Some(pool) = &mut self.pool else {
                return Ok(());
            };
            let wait = all || pool.full();
            let done = match pool.take(wait) {
                Ok(Some(d)) => d,
                Ok(None) => return Ok(()),
                Err(e) => {
                    self.poisoned = true;
                    return Err(e);
                }
            };
            pool.recycle(done.block);
            let mut frame = match done.frame {
                Ok(f) => f,
                Err(e) => {
                    // Later blocks must not follow: the records of this one would be missing
                    // from the file without a trace.
                    self.poisoned = true;
                    return Err(e.in_context(format!(
                        "compressing block {} ({} records); the writer is poisoned",
                        self.blocks, done.count
                    )));
                }
            };
            self.check_poisoned()?;
            let sink = self.sink.as_mut().expect("sink present");
            let r = emit(&mut frame, done.count, &self.sync, sink);
            if let Some(pool) = &mut self.pool {
                pool.recycle(frame);
            }
            self.account(r, done.count)?;
        }
    }

    fn account(&mut self, r: std::io::Result<u64>, count: u64) -> Result<()> {
        match r {
            Ok(n) => {
                self.offset += n;
                self.blocks += 1;
                Ok(())
            }
            Err(e) => {
                self.poisoned = true;
                Err(Error::with_source(
                    ErrorKind::Io,
                    format!(
                        "writing block {} ({count} records) at byte {} failed: {e}; the writer is poisoned and the output may end inside that block",
                        self.blocks, self.offset
                    ),
                    e,
                ))
            }
        }
    }
}

/// Writes `buf[PREFIX..]` as one block of `count` objects: count and size in the reserved prefix,
/// the payload, the sync marker, all in one `write_all`. Leaves `buf` as it found it.
fn emit<W: Write>(
    buf: &mut Vec<u8>,
    count: u64,
    sync: &[u8; SYNC_SIZE],
    sink: &mut W,
) -> std::io::Result<u64> {
    let size = buf.len() - PREFIX;
    let mut head = [0u8; PREFIX];
    let mut v = [0u8; 10];
    let a = encode_varint(zigzag64(count as i64), &mut v);
    head[..a].copy_from_slice(&v[..a]);
    let b = encode_varint(zigzag64(size as i64), &mut v);
    head[a..a + b].copy_from_slice(&v[..b]);
    let start = PREFIX - (a + b);
    buf[start..PREFIX].copy_from_slice(&head[..a + b]);
    buf.extend_from_slice(sync);
    let r = sink.write_all(&buf[start..]);
    let total = (buf.len() - start) as u64;
    buf.truncate(PREFIX + size);
    r.map(|()| total)
}

/// Writes `payload` as one block of `count` objects, as [`emit`] does, from the caller's
/// slice: the count and size, then the payload, then the sync marker, in one vectored write
/// where the sink supports them.
fn emit_from<W: Write>(
    payload: &[u8],
    count: u64,
    sync: &[u8; SYNC_SIZE],
    sink: &mut W,
) -> std::io::Result<u64> {
    let mut head = [0u8; PREFIX];
    let mut v = [0u8; 10];
    let a = encode_varint(zigzag64(count as i64), &mut v);
    head[..a].copy_from_slice(&v[..a]);
    let b = encode_varint(zigzag64(payload.len() as i64), &mut v);
    head[a..a + b].copy_from_slice(&v[..b]);
    write_all_parts(sink, &mut [&head[..a + b], payload, sync])?;
    Ok((a + b + payload.len() + SYNC_SIZE) as u64)
}

/// `write_all` of several slices in order, through `write_vectored`: one system call for an
/// unbuffered file (`writev`), one copy for a `Vec`, and no staging buffer. Retries
/// `Interrupted` and short writes, as `write_all` does.
fn write_all_parts<W: Write>(sink: &mut W, parts: &mut [&[u8]]) -> std::io::Result<()> {
    use std::io::{ErrorKind as IoKind, IoSlice};
    let mut first = 0;
    loop {
        while first < parts.len() && parts[first].is_empty() {
            first += 1;
        }
        if first == parts.len() {
            return Ok(());
        }
        let mut slices = [IoSlice::new(&[]); 3];
        let n_slices = (parts.len() - first).min(slices.len());
        for (s, p) in slices.iter_mut().zip(&parts[first..first + n_slices]) {
            *s = IoSlice::new(p);
        }
        let mut n = match sink.write_vectored(&slices[..n_slices]) {
            Ok(0) => return Err(IoKind::WriteZero.into()),
            Ok(n) => n,
            Err(e) if e.kind() == IoKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for p in &mut parts[first..] {
            let k = n.min(p.len());
            *p = &p[k..];
            n -= k;
            if n == 0 {
                break;
            }
        }
    }
}

impl<W: Read + Write + Seek> Writer<W> {
    /// Opens an existing container file to add records at its end, keeping its schema, codec
    /// and sync marker. Use [`WriterBuilder::append_to`] to check the schema or set options.
    ///
    /// # Examples
    /// ```
    /// use std::io::Cursor;
    /// use avrokit::container::{Reader, Writer};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""int""#)?;
    /// let mut w = Writer::new(Cursor::new(Vec::new()), &schema)?;
    /// w.append(&Value::Int(1))?;
    /// let file = w.into_inner()?;
    ///
    /// let mut w = Writer::append_to(file)?;
    /// w.append(&Value::Int(2))?;
    /// let file = w.into_inner()?.into_inner();
    /// let all = Reader::from_slice(&file)?.collect::<Result<Vec<_>, _>>()?;
    /// assert_eq!(all, [Value::Int(1), Value::Int(2)]);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A malformed header, a file that does not end at a block boundary, or a failing file.
    pub fn append_to(file: W) -> Result<Writer<W>> {
        open_for_append(file, None)
    }
}

fn open_for_append<W: Read + Write + Seek>(
    mut file: W,
    builder: Option<WriterBuilder>,
) -> Result<Writer<W>> {
    file.seek(SeekFrom::Start(0)).map_err(Error::io)?;
    let mut hd = HeaderDecoder::new(Limits::default());
    let mut buf = [0u8; 4096];
    let mut pending: &[u8] = &[];
    while !hd.is_complete() {
        if pending.is_empty() {
            let n = loop {
                match file.read(&mut buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Error::io(e)),
                }
            };
            if n == 0 {
                break;
            }
            pending = &buf[..n];
        }
        let n = hd.decode(pending)?;
        pending = &pending[n..];
    }
    let header = hd.finish()?;
    let schema = schema_of(&header)?;
    let file_codec = codec_of(&header)?;
    let sync = header.sync_marker();
    let builder = match builder {
        None => WriterBuilder::defaults_for(&schema),
        Some(b) => {
            if b.schema.canonical_form() != schema.canonical_form() {
                return Err(Error::new(
                    ErrorKind::Container,
                    "cannot append: the file's schema is not the writer's (their Parsing Canonical Forms differ)",
                ));
            }
            if !b.metadata.is_empty() {
                return Err(Error::new(
                    ErrorKind::Container,
                    "cannot append: metadata cannot be added to an existing file's header",
                ));
            }
            if b.sync.is_some_and(|s| s != sync) {
                return Err(Error::new(
                    ErrorKind::Container,
                    "cannot append: the builder's sync marker is not the file's",
                ));
            }
            if let Some(c) = b.codec {
                if !c.same_format(&file_codec) {
                    return Err(Error::new(
                        ErrorKind::Container,
                        format!(
                            "cannot append: the file's codec is {}, not {}",
                            file_codec.name(),
                            c.name()
                        ),
                    ));
                }
            }
            b
        }
    };
    let codec = builder.codec.unwrap_or(file_codec);
    let compressor = Compressor::new(codec)?;
    let len = file.seek(SeekFrom::End(0)).map_err(Error::io)?;
    if len > header.len() {
        // A file that ends mid-block (a crashed writer) must not get blocks appended after the
        // fragment: they would be unreachable. A complete file ends with its sync marker.
        let mut tail = [0u8; SYNC_SIZE];
        file.seek(SeekFrom::End(-(SYNC_SIZE as i64)))
            .map_err(Error::io)?;
        file.read_exact(&mut tail).map_err(Error::io)?;
        if tail != sync || len < header.len() + SYNC_SIZE as u64 + 2 {
            return Err(Error::at(
                ErrorKind::Container,
                "cannot append: the file does not end with its sync marker (it is truncated or was not finished)",
                len,
            ));
        }
        file.seek(SeekFrom::End(0)).map_err(Error::io)?;
    }
    Writer::assemble(builder, file, codec, compressor, sync, len)
}

impl<W: Write> Drop for Writer<W> {
    /// Writes the pending records and flushes, best effort, ignoring errors (call
    /// [`finish`](Writer::finish) to see them); a poisoned writer writes nothing more.
    fn drop(&mut self) {
        if self.sink.is_some() && !self.poisoned {
            let _ = self.flush();
        }
    }
}

impl<W: Write> fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Writer")
            .field("schema", &self.schema)
            .field("codec", &self.codec)
            .field("sync_marker", &self.sync)
            .field("bytes_written", &self.offset)
            .field("pending_records", &self.count)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

/// 16 random bytes: SipHash, under keys the standard library draws from the operating system
/// (a `RandomState`, made once per thread), of a per-thread file counter. Distinct files of a
/// thread get distinct inputs, threads and processes distinct keys; no system call per file.
fn random_sync() -> [u8; SYNC_SIZE] {
    use std::cell::Cell;
    thread_local! {
        static STATE: (RandomState, Cell<u64>) = (RandomState::new(), Cell::new(0));
    }
    STATE.with(|(keys, counter)| {
        let n = counter.get();
        counter.set(n.wrapping_add(1));
        let mut out = [0u8; SYNC_SIZE];
        for (i, half) in out.chunks_exact_mut(8).enumerate() {
            let mut h = keys.build_hasher();
            h.write_u64(n);
            h.write_usize(i);
            half.copy_from_slice(&h.finish().to_le_bytes());
        }
        out
    })
}

/// The error of every call on a poisoned writer (blocking or async).
pub(crate) fn poisoned_error() -> Error {
    Error::new(
        ErrorKind::Io,
        "the writer is poisoned by an earlier write error: nothing more can be written",
    )
}
