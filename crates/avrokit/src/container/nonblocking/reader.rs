//! [`AsyncReader`]: container files from a `tokio::io::AsyncRead`, records as a `Stream`.

use std::fmt;
use std::future::{poll_fn, Future};
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::task::JoinHandle;

use crate::container::codec::Codec;
use crate::container::framing::{
    BlockDecoder, BlockEvent, BlockHeader, Header, HeaderDecoder, SYNC_SIZE,
};
use crate::container::reader::{codec_of, schema_and_min_size, BlockDecoding, Cursor};
use crate::container::{ReaderBuilder, SchemaMatch};
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;
use crate::resolution::ResolvedPlan;
use crate::schema::Schema;
use crate::serde::DePlan;
use crate::value::{read_value, read_value_resolved, Value};

/// Blocks whose stored payload is at least this many bytes are decompressed on tokio's
/// blocking pool by default (see [`AsyncReader::set_offload_threshold`]).
pub const DEFAULT_OFFLOAD_THRESHOLD: usize = 1 << 20;

/// The first size of the input buffer; it doubles up to the builder's capacity while reads
/// fill it, as the blocking reader's does.
const FIRST_BUFFER: usize = 8 * 1024;

/// The reader yields to the runtime once it has framed and decoded this many bytes since it
/// last did: about one default block, well under a millisecond of work.
const YIELD_AFTER: usize = 64 * 1024;

/// What a decompression on the blocking pool hands back: the decoding state and the payload
/// buffer it borrowed, and the block with its decompressed length.
type Job = (BlockDecoding, Vec<u8>, Result<(BlockHeader, usize)>);

/// An `AsyncRead` with a growing buffer, read as the blocking reader reads its stream:
/// `Interrupted` is retried, and errors carry the offset of the failed read.
struct Input<R> {
    inner: R,
    buf: Vec<u8>,
    capacity: usize,
    pos: usize,
    end: usize,
    /// The stream offset of `buf[0]`.
    base: u64,
}

impl<R: AsyncRead + Unpin> Input<R> {
    fn new(inner: R, capacity: usize, base: u64) -> Input<R> {
        Input {
            inner,
            buf: vec![0; FIRST_BUFFER.min(capacity)],
            capacity,
            pos: 0,
            end: 0,
            base,
        }
    }

    /// The buffered bytes, reading more when none are left: empty at the end of the input.
    /// A `Pending` poll leaves nothing half done: the next poll reads into the same buffer.
    fn poll_fill_buf(&mut self, cx: &mut Context<'_>) -> Poll<Result<&[u8]>> {
        if self.pos >= self.end {
            self.base += self.end as u64;
            if self.end == self.buf.len() && self.buf.len() < self.capacity {
                let len = self.buf.len().saturating_mul(2).min(self.capacity);
                self.buf = vec![0; len];
            }
            self.pos = 0;
            self.end = 0;
            let n = loop {
                let mut rb = ReadBuf::new(&mut self.buf);
                match Pin::new(&mut self.inner).poll_read(cx, &mut rb) {
                    Poll::Ready(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Poll::Ready(Ok(())) => break rb.filled().len(),
                    Poll::Ready(Err(e)) => {
                        return Poll::Ready(Err(Error::io(e).or_offset(self.base)))
                    }
                    Poll::Pending => return Poll::Pending,
                }
            };
            self.end = n;
        }
        Poll::Ready(Ok(&self.buf[self.pos..self.end]))
    }

    async fn fill_buf(&mut self) -> Result<&[u8]> {
        poll_fn(|cx| match self.poll_fill_buf(cx) {
            Poll::Ready(Ok(_)) => Poll::Ready(Ok(())),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        })
        .await?;
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.end);
    }
}

/// How records become [`Value`]s: with the file's schema, or through a resolution plan.
#[derive(Clone)]
enum ValueReader {
    Writer(Schema),
    Resolved(ResolvedPlan),
}

impl ValueReader {
    fn read(&self, dec: &mut Decoder<'_>) -> Result<Value> {
        match self {
            ValueReader::Writer(s) => read_value(dec, s),
            ValueReader::Resolved(p) => read_value_resolved(dec, p),
        }
    }
}

/// Reads an Avro object container file from a [`tokio::io::AsyncRead`]; its records come out
/// one at a time ([`next`](Self::next)) or as a [`futures::Stream`]
/// ([`into_stream`](Self::into_stream), [`into_serde_stream`](Self::into_serde_stream)).
///
/// It is the blocking [`Reader`](crate::container::Reader) with the I/O made async, and it
/// shares its parts: the sans-IO header and block parsers ([`framing`](crate::container::framing)),
/// the codecs, the checks of a block against its bytes, and the record decoders. It yields the
/// records the blocking reader yields, and then the same error, with the same kind, offset and
/// message (`tests/async_io.rs` checks this on the malformed-file suite's cases).
///
/// # What runs where
/// - Reading bytes is async: the reader awaits its input and never blocks a thread on it.
/// - A block's payload is read whole (its sync marker checked) before any of its records is
///   decoded, as the blocking reader does. It is then decompressed, inside the `poll` that
///   completed it, and its records are decoded one at a time, each when it is asked for
///   (nothing is decoded ahead of the consumer, and no `Vec` of a block's records is built).
/// - The reader yields to the runtime (returns `Pending` once, after asking to be woken at
///   once) whenever it has read and decoded 64 KiB since it last did, so a long file cannot
///   monopolise a worker thread, even when its input is always ready, however large its
///   blocks are and however many empty ones it holds.
/// - A compressed block whose stored payload is at least [`DEFAULT_OFFLOAD_THRESHOLD`] bytes
///   (1 MiB; change it with [`set_offload_threshold`](Self::set_offload_threshold)) is
///   decompressed on tokio's blocking thread pool (`spawn_blocking`) instead, when the reader
///   is polled inside a tokio runtime; outside one it is decompressed inline. The default
///   64 KiB blocks of avrokit and Java writers decompress in well under a millisecond, so
///   they stay inline.
///
/// Memory: one block's stored payload and its decompressed bytes, each bounded by
/// [`Limits::max_alloc`] as in the blocking reader, and the record being decoded.
///
/// # Cancellation
/// Dropping a pending `next` future (or a stream) loses nothing: the reader keeps the part of
/// a block it has read, and a block decompressing on the blocking pool is taken up by the
/// next call. So `next` can be raced in `select!` or given a timeout and called again.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> avrokit::Result<()> {
/// use avrokit::container::{AsyncReader, Writer};
/// use avrokit::{Schema, Value};
/// use futures::TryStreamExt;
///
/// let schema = Schema::parse_str(r#""long""#)?;
/// let mut w = Writer::new(Vec::new(), &schema)?;
/// for i in 0..3 {
///     w.append(&Value::Long(i))?;
/// }
/// let file = w.into_inner()?;
///
/// let reader = AsyncReader::new(&file[..]).await?; // any tokio::io::AsyncRead + Unpin
/// let values: Vec<Value> = reader.into_stream().try_collect().await?;
/// assert_eq!(values, [Value::Long(0), Value::Long(1), Value::Long(2)]);
/// # Ok(())
/// # }
/// ```
pub struct AsyncReader<R> {
    input: Input<R>,
    header: Header,
    schema: Schema,
    reader_schema: Schema,
    values: ValueReader,
    codec: Codec,
    limits: Limits,
    framer: BlockDecoder,
    /// `None` while a block decompresses on the blocking pool.
    decoding: Option<BlockDecoding>,
    /// The current block's payload as stored (the records of a `null` block are read here).
    raw: Vec<u8>,
    /// The records of the current block not read yet.
    cur: Cursor,
    /// A block decompressing on the blocking pool.
    job: Option<JoinHandle<Job>>,
    offload: Option<usize>,
    split_end: Option<u64>,
    done: bool,
    /// Bytes framed and decoded since the reader last yielded to the runtime.
    since_yield: usize,
    matched: SchemaMatch,
}

impl<R: AsyncRead + Unpin> AsyncReader<R> {
    /// Reads the header from `input` with default options (limits, 64 KiB buffer): see
    /// [`ReaderBuilder::build_async`].
    ///
    /// # Errors
    /// As [`ReaderBuilder::build_async`].
    pub async fn new(input: R) -> Result<AsyncReader<R>> {
        ReaderBuilder::new().build_async(input).await
    }

    fn assemble(
        input: Input<R>,
        header: Header,
        offset: u64,
        options: ReaderBuilder,
    ) -> Result<AsyncReader<R>> {
        let limits = options.limits;
        let (schema, min_record_size) = schema_and_min_size(options.cache.as_ref(), &header)?;
        let codec = codec_of(&header)?;
        let framer = BlockDecoder::at(header.sync_marker(), offset, limits);
        let mut reader = AsyncReader {
            input,
            cur: Cursor::empty(framer.current()),
            framer,
            header,
            reader_schema: schema.clone(),
            values: ValueReader::Writer(schema.clone()),
            schema,
            codec,
            limits,
            decoding: Some(BlockDecoding::new(codec, min_record_size, limits)?),
            raw: Vec::new(),
            job: None,
            offload: Some(DEFAULT_OFFLOAD_THRESHOLD),
            split_end: None,
            done: false,
            since_yield: 0,
            matched: SchemaMatch::default(),
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

    /// The schema of the [`Value`]s produced: the reader schema when one is set, else the
    /// file's.
    pub fn reader_schema(&self) -> &Schema {
        &self.reader_schema
    }

    /// The codec of the file's blocks.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every header metadata entry in file order.
    pub fn metadata(&self) -> &[(String, Vec<u8>)] {
        self.header.metadata()
    }

    /// The value of one metadata key.
    pub fn metadata_value(&self, key: &str) -> Option<&[u8]> {
        self.header.get(key)
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The file offset of the next block (between blocks), or of the next byte to read.
    pub fn offset(&self) -> u64 {
        self.framer.offset()
    }

    /// Reads the following [`Value`]s as `schema`, resolved against the file's schema through
    /// a plan compiled once (see [`Reader::set_reader_schema`](crate::container::Reader::set_reader_schema)).
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`] when the schemas cannot be resolved; the reader keeps its
    /// previous schema.
    pub fn set_reader_schema(&mut self, schema: &Schema) -> Result<()> {
        let plan = ResolvedPlan::compile(&self.schema, schema)?;
        self.values = ValueReader::Resolved(plan);
        self.reader_schema = schema.clone();
        Ok(())
    }

    /// Compressed blocks whose stored payload is at least `bytes` are decompressed on tokio's
    /// blocking pool (`None`: every block is decompressed inline). See
    /// [What runs where](Self#what-runs-where).
    pub fn set_offload_threshold(&mut self, bytes: Option<usize>) {
        self.offload = bytes;
    }

    /// Stops before the first block whose preceding sync marker starts at or after `end`: the
    /// rule of [`Reader::seek_split`](crate::container::Reader::seek_split). With a reader
    /// started at a split's first block ([`ReaderBuilder::build_async_at`]), this reads
    /// exactly the split `[start, end)`.
    pub fn set_split_end(&mut self, end: u64) {
        self.split_end = Some(end);
    }

    /// The next record as a [`Value`]; `None` at the end of the file (or split), and after an
    /// error.
    ///
    /// # Errors
    /// As the blocking reader's iterator: a corrupt or truncated file, a failing input.
    pub async fn next(&mut self) -> Option<Result<Value>> {
        poll_fn(|cx| self.poll_value(cx)).await
    }

    /// The remaining records as a stream of [`Value`]s, ending after the first error.
    pub fn into_stream(self) -> impl Stream<Item = Result<Value>> + Send
    where
        R: Send,
    {
        ValueStream(self)
    }

    /// The remaining records as a stream of `T`s read through `plan`, ending after the first
    /// error. As with [`Reader::next_serde`](crate::container::Reader::next_serde), the plan's
    /// writer schema must be the file's: compile it from [`schema()`](Self::schema). The
    /// stream starts at the reader's next record (after those [`next`](Self::next) returned).
    ///
    /// # Examples
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> avrokit::Result<()> {
    /// use avrokit::container::{AsyncReader, Writer};
    /// use avrokit::serde::{DePlan, SerPlan};
    /// use avrokit::Schema;
    /// use futures::TryStreamExt;
    /// let schema = Schema::parse_str(r#""string""#)?;
    /// let mut w = Writer::new(Vec::new(), &schema)?;
    /// let ser = SerPlan::compile(w.schema())?;
    /// w.append_serde("a", &ser)?;
    /// w.append_serde("b", &ser)?;
    /// let file = w.into_inner()?;
    /// let r = AsyncReader::new(&file[..]).await?;
    /// let plan = DePlan::compile(r.schema())?;
    /// let got: Vec<String> = r.into_serde_stream(&plan)?.try_collect().await?;
    /// assert_eq!(got, ["a", "b"]);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// A plan for another writer schema ([`ErrorKind::Schema`]).
    pub fn into_serde_stream<T>(
        mut self,
        plan: &DePlan,
    ) -> Result<impl Stream<Item = Result<T>> + Send>
    where
        R: Send,
        T: serde::de::DeserializeOwned + Send + 'static,
    {
        if !self.matched.is(&self.schema, plan.writer()) {
            return Err(Error::schema(
                "into_serde_stream: the plan's writer schema is not the file's schema",
            ));
        }
        Ok(SerdeStream {
            reader: self,
            plan: plan.clone(),
            _records: PhantomData,
        })
    }

    /// The next record as a [`Value`] (the poll behind `next` and `into_stream`).
    #[inline(always)]
    fn poll_value(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Value>>> {
        match self.poll_record(cx) {
            Poll::Ready(Ok(true)) => {
                Poll::Ready(Some(self.read_record(|dec, values| values.read(dec))))
            }
            Poll::Ready(Ok(false)) => Poll::Ready(None),
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Polls until a record is at the cursor (`true`), the file or split ends (`false`), or an
    /// error ends the reader. Yields to the runtime after [`YIELD_AFTER`] bytes of work.
    #[inline]
    fn poll_record(&mut self, cx: &mut Context<'_>) -> Poll<Result<bool>> {
        loop {
            let left = self.cur.remaining() > 0;
            if !left && self.done {
                return Poll::Ready(Ok(false));
            }
            if self.since_yield >= YIELD_AFTER {
                self.since_yield = 0;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            if left {
                return Poll::Ready(Ok(true));
            }
            match self.poll_block(cx) {
                Poll::Ready(Ok(true)) => {}
                Poll::Ready(Ok(false)) => {
                    self.done = true;
                    return Poll::Ready(Ok(false));
                }
                Poll::Ready(Err(e)) => {
                    self.done = true;
                    return Poll::Ready(Err(e));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Reads the record at the cursor (after `poll_record` said there is one) with `f`, which
    /// gets the reader's [`ValueReader`]. An error ends the reader.
    #[inline]
    fn read_record<T>(
        &mut self,
        f: impl for<'de> FnOnce(&mut Decoder<'de>, &ValueReader) -> Result<T>,
    ) -> Result<T> {
        let Some(decoding) = &self.decoding else {
            self.done = true;
            return Err(Error::new(
                ErrorKind::Container,
                "no block is loaded: the reader cannot go on",
            ));
        };
        let before = self.cur.position();
        let values = &self.values;
        let r = self.cur.read(
            decoding.bytes(&self.raw),
            self.limits,
            decoding.in_file(),
            |dec| f(dec, values),
        );
        self.since_yield += self.cur.position() - before;
        if r.is_err() {
            self.done = true;
        }
        r
    }

    /// Loads the next block: `true` when its records are at the cursor, `false` at the end of
    /// the file or split.
    fn poll_block(&mut self, cx: &mut Context<'_>) -> Poll<Result<bool>> {
        if let Some(job) = &mut self.job {
            let r = match Pin::new(job).poll(cx) {
                Poll::Ready(r) => r,
                Poll::Pending => return Poll::Pending,
            };
            self.job = None;
            return Poll::Ready(match r {
                Ok((decoding, raw, loaded)) => {
                    self.decoding = Some(decoding);
                    self.raw = raw;
                    loaded.map(|(h, len)| {
                        self.cur = Cursor::in_cache(&h, len);
                        true
                    })
                }
                Err(e) => Err(Error::new(
                    ErrorKind::Container,
                    format!(
                        "decompressing block {} on the blocking pool failed: {e}",
                        self.framer.current().index
                    ),
                )),
            });
        }
        if let Some(end) = self.split_end {
            if self.framer.is_at_boundary() && self.framer.offset() - SYNC_SIZE as u64 >= end {
                return Poll::Ready(Ok(false));
            }
        }
        if self.decoding.is_none() {
            return Poll::Ready(Err(self.lost()));
        }
        loop {
            let buf = match self.input.poll_fill_buf(cx) {
                Poll::Ready(Ok(buf)) => buf,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            if buf.is_empty() {
                return Poll::Ready(self.framer.finish().map(|()| false));
            }
            let (n, event) = match self.framer.decode(buf) {
                Ok(r) => r,
                Err(e) => return Poll::Ready(Err(e)),
            };
            let done = match event {
                BlockEvent::Start(h) => {
                    self.raw.clear();
                    // Trust a claimed size no further than 1 MiB: the rest grows as it arrives.
                    self.raw.reserve((h.size as usize).min(1 << 20));
                    false
                }
                BlockEvent::Data(piece) => {
                    self.raw.extend_from_slice(piece);
                    false
                }
                BlockEvent::End => true,
                BlockEvent::NeedInput => false,
            };
            self.input.consume(n);
            // Framing is work too: a file of empty blocks must not run without yielding.
            self.since_yield += n;
            if done {
                break;
            }
        }
        let h = *self.framer.current();
        let offload = self.codec != Codec::Null
            && self.offload.is_some_and(|t| self.raw.len() >= t)
            && tokio::runtime::Handle::try_current().is_ok();
        if offload {
            let Some(mut decoding) = self.decoding.take() else {
                return Poll::Ready(Err(self.lost()));
            };
            let raw = std::mem::take(&mut self.raw);
            self.job = Some(tokio::task::spawn_blocking(move || {
                let loaded = decoding.load(&h, &raw).map(|data| (h, data.len()));
                (decoding, raw, loaded)
            }));
            return self.poll_block(cx);
        }
        let Some(decoding) = &mut self.decoding else {
            return Poll::Ready(Err(self.lost()));
        };
        Poll::Ready(decoding.load(&h, &self.raw).map(|data| {
            self.cur = Cursor::in_cache(&h, data.len());
            true
        }))
    }

    /// The error of a reader whose decoding state is gone (a panic on the blocking pool).
    #[cold]
    fn lost(&self) -> Error {
        Error::at(
            ErrorKind::Container,
            "a block's decompression was lost: the reader cannot go on",
            self.framer.offset(),
        )
    }
}

/// [`AsyncReader::into_stream`]: the reader's records as [`Value`]s.
struct ValueStream<R>(AsyncReader<R>);

impl<R: AsyncRead + Unpin> Stream for ValueStream<R> {
    type Item = Result<Value>;

    #[inline]
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Value>>> {
        self.0.poll_value(cx)
    }
}

/// [`AsyncReader::into_serde_stream`]: the reader's records as `T`s through a plan.
struct SerdeStream<R, T> {
    reader: AsyncReader<R>,
    plan: DePlan,
    _records: PhantomData<fn() -> T>,
}

impl<R: AsyncRead + Unpin, T: serde::de::DeserializeOwned> Stream for SerdeStream<R, T> {
    type Item = Result<T>;

    #[inline]
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<T>>> {
        let this = self.get_mut();
        match this.reader.poll_record(cx) {
            Poll::Ready(Ok(true)) => {
                let plan = &this.plan;
                Poll::Ready(Some(
                    this.reader
                        .read_record(|dec, _| crate::serde::deserialize_from(dec, plan)),
                ))
            }
            Poll::Ready(Ok(false)) => Poll::Ready(None),
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl ReaderBuilder {
    /// Reads the header from a [`tokio::io::AsyncRead`] and returns an [`AsyncReader`]
    /// positioned at the first block, with this builder's limits, buffer capacity, reader
    /// schema and schema cache.
    ///
    /// The reader buffers its input itself: do not wrap it in a `BufReader`.
    ///
    /// # Errors
    /// As [`build`](Self::build): a malformed header, an unknown or disabled codec, a reader
    /// schema that cannot be resolved, or a failing input.
    pub async fn build_async<R: AsyncRead + Unpin>(self, input: R) -> Result<AsyncReader<R>> {
        let mut input = Input::new(input, self.capacity, 0);
        let mut hd = HeaderDecoder::new(self.limits);
        while !hd.is_complete() {
            let buf = input.fill_buf().await?;
            if buf.is_empty() {
                break;
            }
            let n = hd.decode(buf)?;
            input.consume(n);
        }
        let header = hd.finish()?;
        let offset = header.len();
        AsyncReader::assemble(input, header, offset, self)
    }

    /// An [`AsyncReader`] of a file whose `header` is already known, continuing at file
    /// offset `offset`, which must be the start of a block (or the end of the file): `input`
    /// yields the file's bytes from there. This is how one byte range of a remote file is read
    /// without fetching what comes before it: with the header fetched once, the split's first
    /// block found by [`SplitSeeker`](crate::container::SplitSeeker), and
    /// [`AsyncReader::set_split_end`].
    ///
    /// # Errors
    /// An invalid or missing schema in the header, an unknown or disabled codec, or a reader
    /// schema that cannot be resolved.
    pub fn build_async_at<R: AsyncRead + Unpin>(
        self,
        header: Header,
        input: R,
        offset: u64,
    ) -> Result<AsyncReader<R>> {
        let input = Input::new(input, self.capacity, offset);
        AsyncReader::assemble(input, header, offset, self)
    }
}

impl<R> fmt::Debug for AsyncReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncReader")
            .field("schema", &self.schema)
            .field("codec", &self.codec)
            .field("sync_marker", &self.header.sync_marker())
            .finish_non_exhaustive()
    }
}
