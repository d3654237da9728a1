//! Reading Avro into RecordBatches: container files (whole, or one byte-range split), with
//! blocks decoded on several threads, and bare datums or single-object/Confluent messages.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use avrokit::container::{Codec, RawBlock};
use avrokit::single_object::SchemaStore;
use avrokit::{Limits, Schema};

use crate::decode::{Cursor, Next, Program, Rows, Target};
use crate::error::{Error, ErrorKind, Result};
use crate::mapping::MapOptions;
use crate::projection::project;

/// The default number of rows in a batch.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// Options for reading Avro into RecordBatches: batch size, reader schema, projection, string
/// type, threads, limits.
///
/// # Examples
/// ```
/// use avrokit::container::WriterBuilder;
/// use avrokit::{Schema, Value};
/// use avrokit_arrow::ReaderBuilder;
///
/// let schema = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
///     {"name":"id","type":"long"},{"name":"name","type":["null","string"]}]}"#)?;
/// let mut w = WriterBuilder::new(&schema).build(Vec::new())?;
/// for i in 0..10 {
///     w.append(&Value::Record(vec![Value::Long(i), Value::Union(0, Box::new(Value::Null))]))?;
/// }
/// let file = w.into_inner()?;
///
/// let reader = ReaderBuilder::new().with_batch_size(4).with_projection(["id"]).build_slice(&file)?;
/// let batches = reader.collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>(), [4, 4, 2]);
/// assert_eq!(batches[0].schema().field(0).name(), "id");
/// assert_eq!(batches[0].num_columns(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ReaderBuilder {
    batch_size: usize,
    reader_schema: Option<Schema>,
    projection: Option<Vec<String>>,
    utf8_view: bool,
    enum_as_string: bool,
    threads: usize,
    limits: Limits,
}

impl Default for ReaderBuilder {
    fn default() -> ReaderBuilder {
        ReaderBuilder::new()
    }
}

impl ReaderBuilder {
    /// Batches of [`DEFAULT_BATCH_SIZE`] rows, the writer's schema, every column, `Utf8`
    /// strings, one thread, default limits.
    pub fn new() -> ReaderBuilder {
        ReaderBuilder {
            batch_size: DEFAULT_BATCH_SIZE,
            reader_schema: None,
            projection: None,
            utf8_view: false,
            enum_as_string: false,
            threads: 1,
            limits: Limits::default(),
        }
    }

    /// The most rows a batch holds (at least 1).
    pub fn with_batch_size(mut self, rows: usize) -> ReaderBuilder {
        self.batch_size = rows.max(1);
        self
    }

    /// Reads the data as this schema (schema resolution, as everywhere in avrokit).
    pub fn with_reader_schema(mut self, schema: &Schema) -> ReaderBuilder {
        self.reader_schema = Some(schema.clone());
        self
    }

    /// Only these columns: field names of the top-level record, or dotted paths into nested
    /// records (`"a.b.c"`, through nullable unions, array items and map values). The other
    /// fields are skipped, never decoded.
    pub fn with_projection<S: AsRef<str>>(
        mut self,
        columns: impl IntoIterator<Item = S>,
    ) -> ReaderBuilder {
        self.projection = Some(columns.into_iter().map(|c| c.as_ref().to_owned()).collect());
        self
    }

    /// Strings as `Utf8View` rather than `Utf8`.
    pub fn with_utf8_view(mut self, yes: bool) -> ReaderBuilder {
        self.utf8_view = yes;
        self
    }

    /// Enums as the text of their symbols (`Utf8`, or `Utf8View` with
    /// [`with_utf8_view`](Self::with_utf8_view)) rather than `Dictionary(Int32, Utf8)`: for
    /// engines that do not carry dictionary columns through every operator (Ballista's
    /// shuffles, for one).
    pub fn with_enum_as_string(mut self, yes: bool) -> ReaderBuilder {
        self.enum_as_string = yes;
        self
    }

    /// Decodes a container file's blocks on this many threads (1: on the caller's thread).
    /// Batches still come out in file order; on threads, a batch is the blocks that fit in
    /// the batch size (fewer rows than it by less than a block's), decoded as the caller asks
    /// for batches, a few per thread at a time. The threads share out whole batches, so a
    /// file of one batch (fewer rows than the batch size) decodes on one thread.
    pub fn with_threads(mut self, threads: usize) -> ReaderBuilder {
        self.threads = threads.max(1);
        self
    }

    /// The limits on untrusted input (allocation, depth).
    pub fn with_limits(mut self, limits: Limits) -> ReaderBuilder {
        self.limits = limits;
        self
    }

    fn target(&self, writer: &Schema) -> Result<Target> {
        let reader = self.reader_schema.as_ref().unwrap_or(writer);
        let reader = match &self.projection {
            Some(p) => project(reader, p)?,
            None => reader.clone(),
        };
        Target::new(
            &reader,
            MapOptions {
                utf8_view: self.utf8_view,
                enum_as_string: self.enum_as_string,
            },
            self.limits,
        )
    }

    /// A reader of the container file `data`.
    ///
    /// # Errors
    /// A bad header, or a reader schema or projection that does not fit the file's schema.
    pub fn build_slice(self, data: &[u8]) -> Result<Reader<'_, &[u8]>> {
        let inner = avrokit::container::ReaderBuilder::new()
            .with_limits(self.limits)
            .build_slice(data)?;
        let mut r = Reader::new(self, inner)?;
        r.slice = Some(data);
        Ok(r)
    }

    /// A reader of a container file from any `io::Read` (it buffers the input itself).
    ///
    /// # Errors
    /// As [`build_slice`](Self::build_slice), and failing reads.
    pub fn build<R: Read>(self, input: R) -> Result<Reader<'static, R>> {
        let inner = avrokit::container::ReaderBuilder::new()
            .with_limits(self.limits)
            .build(input)?;
        Reader::new(self, inner)
    }

    /// A reader of a seekable container file, which can read one byte-range split
    /// ([`Reader::seek_split`]).
    ///
    /// # Errors
    /// As [`build`](Self::build).
    pub fn build_seekable<R: Read + std::io::Seek>(self, input: R) -> Result<Reader<'static, R>> {
        let inner = avrokit::container::ReaderBuilder::new()
            .with_limits(self.limits)
            .build_seekable(input)?;
        Reader::new(self, inner)
    }

    /// A decoder of bare datums and messages written with `writer` (see [`DatumDecoder`]).
    ///
    /// # Errors
    /// A reader schema or projection that does not fit `writer`.
    pub fn build_decoder(self, writer: &Schema) -> Result<DatumDecoder> {
        let target = self.target(writer)?;
        let program = target.program(writer)?;
        Ok(DatumDecoder {
            rows: Rows::new(&target)?,
            target,
            writer: program,
            by_fingerprint: HashMap::new(),
            by_id: HashMap::new(),
            options: self,
        })
    }
}

/// A block for a worker: its payload borrowed from the input slice, or copied out of a stream
/// (or a read-ahead buffer).
struct Block<'a> {
    index: u64,
    offset: u64,
    count: u64,
    data: Cow<'a, [u8]>,
}

/// Jobs per thread in one round of parallel decoding: enough that the threads finish a round
/// close together (the last job of a round leaves the other threads idle for about half a job,
/// an eighth of a round at 4), few enough that a round's batches stay a few per thread.
const JOBS_PER_THREAD: usize = 4;

/// The most payload bytes in one job.
const JOB_BYTES: usize = 8 << 20;

/// `part` as a subslice of `whole`, with `whole`'s lifetime, when it lies inside it.
fn within<'a>(whole: &'a [u8], part: &[u8]) -> Option<&'a [u8]> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let got = whole.get(start..start.checked_add(part.len())?)?;
    // The same address and length: the same bytes.
    (got.as_ptr() == part.as_ptr()).then_some(got)
}

/// Reads a container file as RecordBatches: an iterator of `Result<RecordBatch>`, in file
/// order. After an error the iterator ends.
pub struct Reader<'a, R = &'a [u8]> {
    inner: avrokit::container::Reader<'a, R>,
    target: Target,
    program: Program,
    rows: Rows,
    batch_size: usize,
    limits: Limits,
    codec: Codec,
    buf: Vec<u8>,
    ready: VecDeque<RecordBatch>,
    /// The whole input, when it is a slice: blocks for workers borrow from it.
    slice: Option<&'a [u8]>,
    /// The builders of the worker threads (one fewer than the threads: this thread decodes
    /// too), kept from round to round with their capacity.
    workers: Vec<(Rows, Vec<u8>)>,
    /// An error of a parallel round, returned once the batches before it are.
    failed: Option<Error>,
    /// The block framed after a round's last job, which starts the next round's first.
    carry: Option<Block<'a>>,
    threads: usize,
    done: bool,
}

impl<'a, R: Read> Reader<'a, R> {
    fn new(opts: ReaderBuilder, inner: avrokit::container::Reader<'a, R>) -> Result<Self> {
        let target = opts.target(inner.schema())?;
        let program = target.program(inner.schema())?;
        Ok(Reader {
            rows: Rows::new(&target)?,
            codec: inner.codec(),
            inner,
            target,
            program,
            batch_size: opts.batch_size,
            limits: opts.limits,
            buf: Vec::new(),
            ready: VecDeque::new(),
            slice: None,
            workers: Vec::new(),
            failed: None,
            carry: None,
            threads: opts.threads,
            done: false,
        })
    }

    /// The Arrow schema of the batches (with the reader's Avro schema in its metadata under
    /// `avro.schema`).
    pub fn schema(&self) -> SchemaRef {
        self.target.arrow.clone()
    }

    /// The file's (writer's) Avro schema.
    pub fn avro_schema(&self) -> &Schema {
        self.inner.schema()
    }

    /// The Avro schema the batches are read as (the reader schema, after projection).
    pub fn reader_schema(&self) -> &Schema {
        &self.target.reader
    }

    /// The underlying container reader (header, metadata, codec).
    pub fn container(&self) -> &avrokit::container::Reader<'a, R> {
        &self.inner
    }

    /// Restricts reading to the blocks of the byte range `[start, end)`, by the same
    /// sync-marker rule as the core's [`seek_split`](avrokit::container::Reader::seek_split):
    /// reading every range of a partition of the file yields every record once. Call before
    /// reading any batch.
    ///
    /// # Errors
    /// Input that cannot seek (built with [`ReaderBuilder::build`]), or a failing reader.
    pub fn seek_split(&mut self, start: u64, end: u64) -> Result<()> {
        Ok(self.inner.seek_split(start, end)?)
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.threads > 1 {
            return self.next_parallel();
        }
        loop {
            if let Some(b) = self.ready.pop_front() {
                return Ok(Some(b));
            }
            if self.done {
                return if self.rows.len() > 0 {
                    self.rows.flush(Next::Keep).map(Some)
                } else {
                    Ok(None)
                };
            }
            let Some(block) = self.inner.next_raw_block()? else {
                self.done = true;
                continue;
            };
            let h = *block.header();
            let data: &[u8] = if self.codec == Codec::Null {
                block.data()
            } else {
                block.decompress_into(&mut self.buf, &self.limits)?;
                &self.buf
            };
            decode_block(
                &mut self.rows,
                &self.program,
                (h.index, h.offset, h.count),
                data,
                self.batch_size,
                &self.limits,
                &mut self.ready,
            )?;
        }
    }

    /// Batches decoded on `threads` threads, in file order. Each round frames the next few
    /// jobs (the blocks of one batch each) on this thread, then decodes them on
    /// scoped threads, this one included: a slice's blocks are borrowed, never copied (on a
    /// string-heavy file, where decoding is mostly copying, copying each block out for a
    /// worker cost as much as decoding it, and two threads were slower than one).
    fn next_parallel(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if let Some(b) = self.ready.pop_front() {
                return Ok(Some(b));
            }
            if let Some(e) = self.failed.take() {
                return Err(e);
            }
            if self.done {
                return Ok(None);
            }
            self.round()?;
        }
    }

    /// Frames up to [`JOBS_PER_THREAD`] jobs per thread and decodes them.
    ///
    /// A job is the blocks of one batch (fewer rows than the batch size by less than a
    /// block's, unless one block holds more), decoded into that batch.
    fn round(&mut self) -> Result<()> {
        let mut jobs: Vec<Vec<Block<'a>>> = Vec::new();
        let limit = self.threads * JOBS_PER_THREAD;
        // A framing error comes after the batches of the blocks framed before it.
        let mut framing = None;
        // A job is the blocks of one batch: a block that would take it past the batch size (or
        // past JOB_BYTES) starts the next job, so that a job makes one batch and no remainder
        // (remainders made every other batch a few rows, whose builders then grew again by
        // doubling in the next job).
        let mut blocks: Vec<Block<'a>> = Vec::new();
        let (mut rows, mut bytes) = (0u64, 0usize);
        if let Some(b) = self.carry.take() {
            (rows, bytes) = (b.count, b.data.len());
            blocks.push(b);
        }
        while !self.done {
            let b = match self.inner.next_raw_block() {
                Ok(Some(b)) => b,
                Ok(None) => {
                    self.done = true;
                    break;
                }
                Err(e) => {
                    framing = Some(Error::from(e));
                    self.done = true;
                    break;
                }
            };
            let h = *b.header();
            let data = match self.slice.and_then(|whole| within(whole, b.data())) {
                Some(borrowed) => Cow::Borrowed(borrowed),
                None => Cow::Owned(b.data().to_vec()),
            };
            let block = Block {
                index: h.index,
                offset: h.offset,
                count: h.count,
                data,
            };
            if !blocks.is_empty()
                && (rows.saturating_add(block.count) > self.batch_size as u64
                    || bytes + block.data.len() > JOB_BYTES)
            {
                jobs.push(std::mem::take(&mut blocks));
                if jobs.len() == limit {
                    self.carry = Some(block);
                    break;
                }
                (rows, bytes) = (0, 0);
            }
            rows = rows.saturating_add(block.count);
            bytes += block.data.len();
            blocks.push(block);
        }
        if !blocks.is_empty() {
            jobs.push(blocks);
        }
        let helpers = (self.threads - 1).min(jobs.len().saturating_sub(1));
        while self.workers.len() < helpers {
            self.workers.push((Rows::new(&self.target)?, Vec::new()));
        }
        let cx = JobCx {
            program: &self.program,
            codec: self.codec,
            batch_size: self.batch_size,
            limits: &self.limits,
        };
        let next = AtomicUsize::new(0);
        let work = |rows: &mut Rows, buf: &mut Vec<u8>| {
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else {
                    return out;
                };
                let r = decode_job(rows, &cx, job, buf);
                let failed = r.is_err();
                out.push((i, r));
                if failed {
                    // Later jobs are not needed: the reader stops at the first error.
                    next.fetch_add(jobs.len(), Ordering::Relaxed);
                    return out;
                }
            }
        };
        let mut results: Vec<Option<Result<Vec<RecordBatch>>>> =
            (0..jobs.len()).map(|_| None).collect();
        let mut lost = false;
        thread::scope(|s| {
            let handles: Vec<_> = self.workers[..helpers]
                .iter_mut()
                .map(|(rows, buf)| s.spawn(|| work(rows, buf)))
                .collect();
            let mine = work(&mut self.rows, &mut self.buf);
            for (i, r) in mine {
                results[i] = Some(r);
            }
            for h in handles {
                match h.join() {
                    Ok(theirs) => {
                        for (i, r) in theirs {
                            results[i] = Some(r);
                        }
                    }
                    Err(_) => lost = true,
                }
            }
        });
        for r in results {
            match r {
                Some(Ok(batches)) => self.ready.extend(batches),
                Some(Err(e)) => {
                    self.failed = Some(e);
                    self.done = true;
                    break;
                }
                None => {
                    // A job not run: one before it failed, or a thread panicked.
                    if lost {
                        self.failed = Some(Error::new(ErrorKind::Io, "a decoding thread stopped"));
                    }
                    self.done = true;
                    break;
                }
            }
        }
        if self.failed.is_none() {
            self.failed = framing;
        }
        Ok(())
    }
}

/// What every job of a reader shares.
struct JobCx<'p> {
    program: &'p Program,
    codec: Codec,
    batch_size: usize,
    limits: &'p Limits,
}

/// Decodes one job's blocks into batches; the last one holds the rows left over.
fn decode_job(
    rows: &mut Rows,
    cx: &JobCx,
    blocks: &[Block],
    buf: &mut Vec<u8>,
) -> Result<Vec<RecordBatch>> {
    let (program, codec, batch_size, limits) = (cx.program, cx.codec, cx.batch_size, cx.limits);
    let mut ready = VecDeque::new();
    for b in blocks {
        let data: &[u8] = if codec == Codec::Null {
            &b.data
        } else {
            RawBlock::new(b.count, &b.data, codec)
                .decompress_into(buf, limits)
                .map_err(|e| {
                    Error::from(e).context(format!("block {} (at byte {})", b.index, b.offset))
                })?;
            buf
        };
        decode_block(
            rows,
            program,
            (b.index, b.offset, b.count),
            data,
            batch_size,
            limits,
            &mut ready,
        )?;
    }
    if rows.len() > 0 {
        ready.push_back(rows.flush(Next::Keep)?);
    }
    Ok(ready.into())
}

/// Decodes one block's records into `rows`, moving each full batch to `ready`.
fn decode_block(
    rows: &mut Rows,
    program: &Program,
    (index, offset, count): (u64, u64, u64),
    data: &[u8],
    batch_size: usize,
    limits: &Limits,
    ready: &mut VecDeque<RecordBatch>,
) -> Result<()> {
    let at = || format!("block {index} (at byte {offset})");
    // Records that take no bytes are bounded by the limit; others by the block's bytes,
    // which reading checks record by record.
    if count > data.len() as u64 && count > limits.max_alloc as u64 {
        return Err(Error::at(
            ErrorKind::Limit,
            format!("{}: {count} records in {} bytes", at(), data.len()),
            offset,
        ));
    }
    let mut cur = Cursor::new(data);
    // Lines asked for ahead of the cursor (see `read_ahead`).
    let mut front = 0;
    for i in 0..count {
        avrokit::io::read_ahead(data, cur.pos(), &mut front);
        rows.decode(program, &mut cur)
            .map_err(|e| e.context(format!("{}, record {i}", at())))?;
        if rows.len() >= batch_size {
            ready.push_back(rows.flush(Next::Like)?);
        }
    }
    if cur.remaining() != 0 {
        return Err(Error::at(
            ErrorKind::Data,
            format!(
                "{}: its {count} records end at byte {} of its {} bytes of data",
                at(),
                cur.pos(),
                data.len()
            ),
            cur.pos() as u64,
        ));
    }
    Ok(())
}

impl<R: Read> Iterator for Reader<'_, R> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        if self.done && self.ready.is_empty() && self.rows.len() == 0 && self.failed.is_none() {
            return None;
        }
        match self.next_batch() {
            Ok(b) => b.map(Ok),
            Err(e) => {
                self.done = true;
                self.ready.clear();
                self.failed = None;
                self.carry = None;
                // Drop what the failed batch holds.
                if let Ok(r) = Rows::new(&self.target) {
                    self.rows = r;
                }
                Some(Err(e))
            }
        }
    }
}

/// Decodes bare Avro datums, or single-object / Confluent-framed messages, into one batch:
/// decode as many as you like, then [`flush`](Self::flush).
///
/// # Examples
/// ```
/// use avrokit::{Schema, Value};
/// use avrokit_arrow::ReaderBuilder;
/// let schema = Schema::parse_str(r#"{"type":"record","name":"P","fields":[{"name":"x","type":"int"}]}"#)?;
/// let mut dec = ReaderBuilder::new().build_decoder(&schema)?;
/// for x in 0..3 {
///     dec.decode(&avrokit::to_datum_vec(&Value::Record(vec![Value::Int(x)]), &schema)?)?;
/// }
/// let batch = dec.flush()?;
/// assert_eq!(batch.num_rows(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DatumDecoder {
    target: Target,
    rows: Rows,
    writer: Program,
    by_fingerprint: HashMap<u64, Program>,
    by_id: HashMap<u32, Program>,
    options: ReaderBuilder,
}

impl DatumDecoder {
    /// The Arrow schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.target.arrow.clone()
    }

    /// Rows decoded since the last flush.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when no row is waiting for [`flush`](Self::flush).
    pub fn is_empty(&self) -> bool {
        self.rows.len() == 0
    }

    fn one(&mut self, program: Option<Program>, datum: &[u8]) -> Result<()> {
        let program = program.as_ref().unwrap_or(&self.writer);
        let mut cur = Cursor::new(datum);
        let r = self.rows.decode(program, &mut cur).and_then(|()| {
            if cur.remaining() == 0 {
                Ok(())
            } else {
                Err(Error::at(
                    ErrorKind::Data,
                    format!("{} bytes left after the datum", cur.remaining()),
                    cur.pos() as u64,
                ))
            }
        });
        if r.is_err() {
            // The builders may hold part of the datum: start the batch again.
            self.rows = Rows::new(&self.target)?;
        }
        r
    }

    /// Decodes one datum, which must use all of `datum`, written with the writer schema.
    ///
    /// # Errors
    /// Malformed data, or bytes left over. The rows decoded since the last flush are
    /// dropped on error.
    pub fn decode(&mut self, datum: &[u8]) -> Result<()> {
        self.one(None, datum)
    }

    /// Decodes every datum of a stream of datums written back to back; returns how many.
    ///
    /// # Errors
    /// As [`decode`](Self::decode); a datum cut short at the end is an error.
    pub fn decode_stream(&mut self, mut bytes: &[u8]) -> Result<usize> {
        let mut n = 0;
        let mut consumed = 0u64;
        while !bytes.is_empty() {
            let mut cur = Cursor::new(bytes);
            if let Err(e) = self.rows.decode(&self.writer, &mut cur) {
                self.rows = Rows::new(&self.target)?;
                return Err(e.shifted(consumed).context(format!("datum {n}")));
            }
            if cur.pos() == 0 {
                // A datum of no bytes: a stream of them never ends.
                return Err(Error::unsupported("a stream of datums that take no bytes"));
            }
            consumed += cur.pos() as u64;
            bytes = &bytes[cur.pos()..];
            n += 1;
        }
        Ok(n)
    }

    /// Decodes a single-object encoded message (`C3 01`, the writer schema's fingerprint,
    /// the datum), its writer schema looked up in `store`.
    ///
    /// # Errors
    /// A bad header, an unknown fingerprint, a schema that does not resolve, malformed data.
    pub fn decode_single_object(&mut self, message: &[u8], store: &SchemaStore) -> Result<()> {
        let (fp, datum) = avrokit::single_object::split_single_object(message)?;
        let program = match self.by_fingerprint.get(&fp) {
            Some(p) => p.clone(),
            None => {
                let writer = store.get(fp).ok_or_else(|| {
                    Error::mismatch(format!(
                        "no schema with fingerprint {fp:#018x} in the store"
                    ))
                })?;
                let p = self.target.program(writer)?;
                self.by_fingerprint.insert(fp, p.clone());
                p
            }
        };
        self.one(Some(program), datum)
    }

    /// Decodes a Confluent-framed message (`00`, a 4-byte schema id, the datum); `lookup`
    /// gives the writer schema of an id (called once per id).
    ///
    /// # Errors
    /// As [`decode_single_object`](Self::decode_single_object).
    pub fn decode_confluent(
        &mut self,
        message: &[u8],
        lookup: impl FnOnce(u32) -> Option<Schema>,
    ) -> Result<()> {
        let (id, datum) = avrokit::single_object::split_confluent(message)?;
        let program = match self.by_id.get(&id) {
            Some(p) => p.clone(),
            None => {
                let writer =
                    lookup(id).ok_or_else(|| Error::mismatch(format!("no schema for id {id}")))?;
                let p = self.target.program(&writer)?;
                self.by_id.insert(id, p.clone());
                p
            }
        };
        self.one(Some(program), datum)
    }

    /// The batch of everything decoded since the last flush.
    ///
    /// # Errors
    /// Strings that are not UTF-8.
    pub fn flush(&mut self) -> Result<RecordBatch> {
        self.rows.flush(Next::Like)
    }

    /// The options this decoder was built with.
    pub fn options(&self) -> &ReaderBuilder {
        &self.options
    }
}
