//! [`AsyncReader`]: container files from a `tokio::io::AsyncRead`, records as a `Stream`.

use std::collections::VecDeque;
use std::fmt;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::Poll;

use futures::Stream;
use tokio::io::{AsyncRead, ReadBuf};

use crate::container::codec::Codec;
use crate::container::framing::{
    BlockDecoder, BlockEvent, BlockHeader, Header, HeaderDecoder, SYNC_SIZE,
};
use crate::container::reader::{codec_of, schema_and_min_size, BlockDecoding};
use crate::container::{ReaderBuilder, SchemaMatch};
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;
use crate::resolution::ResolvedPlan;
use crate::schema::Schema;
use crate::serde::DePlan;
use crate::value::{read_value, read_value_resolved, Value};

/// Blocks whose stored payload is at least this many bytes are decoded on tokio's blocking
/// pool by default (see [`AsyncReader::set_offload_threshold`]).
pub const DEFAULT_OFFLOAD_THRESHOLD: usize = 1 << 20;

/// The first size of the input buffer; it doubles up to the builder's capacity while reads
/// fill it, as the blocking reader's does.
const FIRST_BUFFER: usize = 8 * 1024;

/// The records of one block, and the error that ended them (the reader is then done).
type Batch<T> = (Vec<T>, Option<Error>);

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
    async fn fill_buf(&mut self) -> Result<&[u8]> {
        if self.pos >= self.end {
            self.base += self.end as u64;
            if self.end == self.buf.len() && self.buf.len() < self.capacity {
                let len = self.buf.len().saturating_mul(2).min(self.capacity);
                self.buf = vec![0; len];
            }
            self.pos = 0;
            self.end = 0;
            let (inner, buf) = (&mut self.inner, &mut self.buf);
            let n = poll_fn(|cx| loop {
                let mut rb = ReadBuf::new(buf);
                match Pin::new(&mut *inner).poll_read(cx, &mut rb) {
                    Poll::Ready(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Poll::Ready(r) => return Poll::Ready(r.map(|()| rb.filled().len())),
                    Poll::Pending => return Poll::Pending,
                }
            })
            .await
            .map_err(|e| Error::io(e).or_offset(self.base))?;
            self.end = n;
        }
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
/// - A block is the unit of work. Once its last byte has arrived, it is decompressed and all
///   its records decoded in one go, synchronously, inside the `poll` that completed it; the
///   records then come out of a buffer without further work. After decoding a block inline
///   the reader yields to the runtime once before it reads the next block, so a long file
///   cannot monopolise a worker thread (even when its input is always ready).
/// - A block whose stored payload is at least [`DEFAULT_OFFLOAD_THRESHOLD`] bytes (1 MiB;
///   change it with [`set_offload_threshold`](Self::set_offload_threshold)) is decompressed
///   and decoded on tokio's blocking thread pool (`spawn_blocking`) instead, when the reader is
///   polled inside a tokio runtime; outside one it is decoded inline. The default 64 KiB blocks
///   of avrokit and Java writers take well under a millisecond to decode, so they stay inline.
///
/// Memory: one block's stored payload, its decompressed bytes and its decoded records, each
/// bounded by [`Limits::max_alloc`] as in the blocking reader.
///
/// # Cancellation
/// Dropping a pending `next` future loses at most the block being read; the reader is then
/// positioned inside that block, so it refuses to continue ([`ErrorKind::Container`]) rather
/// than misread the rest.
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
    /// `None` while a block decodes on the blocking pool (or after that was cancelled).
    decoding: Option<BlockDecoding>,
    /// The current block's payload as stored.
    raw: Vec<u8>,
    offload: Option<usize>,
    split_end: Option<u64>,
    done: bool,
    /// The last block was decoded inline: yield to the runtime before reading the next.
    yield_first: bool,
    /// Records of the current block not yet returned by `next`, and the error after them.
    pending: VecDeque<Value>,
    pending_err: Option<Error>,
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
        let mut reader = AsyncReader {
            input,
            framer: BlockDecoder::at(header.sync_marker(), offset, limits),
            header,
            reader_schema: schema.clone(),
            values: ValueReader::Writer(schema.clone()),
            schema,
            codec,
            limits,
            decoding: Some(BlockDecoding::new(codec, min_record_size, limits)?),
            raw: Vec::new(),
            offload: Some(DEFAULT_OFFLOAD_THRESHOLD),
            split_end: None,
            done: false,
            yield_first: false,
            pending: VecDeque::new(),
            pending_err: None,
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

    /// Blocks whose stored payload is at least `bytes` are decoded on tokio's blocking pool
    /// (`None`: every block is decoded inline). See [What runs where](Self#what-runs-where).
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
        if self.pending.is_empty() && self.pending_err.is_none() {
            let values = self.values.clone();
            let (records, err) = self.next_batch(move |dec| values.read(dec)).await?;
            self.pending = records.into();
            self.pending_err = err;
        }
        match self.pending.pop_front() {
            Some(v) => Some(Ok(v)),
            None => self.pending_err.take().map(Err),
        }
    }

    /// The remaining records as a stream of [`Value`]s, ending after the first error.
    pub fn into_stream(self) -> impl Stream<Item = Result<Value>> + Send
    where
        R: Send,
    {
        futures::stream::unfold(self, |mut r| async move {
            let v = r.next().await?;
            Some((v, r))
        })
    }

    /// The remaining records as a stream of `T`s read through `plan`, ending after the first
    /// error. As with [`Reader::next_serde`](crate::container::Reader::next_serde), the plan's
    /// writer schema must be the file's: compile it from [`schema()`](Self::schema). Records
    /// buffered for [`next`](Self::next) are not part of the stream: call this before `next`.
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
        let plan = plan.clone();
        let state = (self, VecDeque::<T>::new(), None::<Error>);
        Ok(futures::stream::unfold(
            state,
            move |(mut r, mut queue, mut err)| {
                let plan = plan.clone();
                async move {
                    if queue.is_empty() && err.is_none() {
                        let (records, e) = r
                            .next_batch(move |dec| crate::serde::deserialize_from(dec, &plan))
                            .await?;
                        queue = records.into();
                        err = e;
                    }
                    let item = match queue.pop_front() {
                        Some(v) => Ok(v),
                        None => Err(err.take()?),
                    };
                    Some((item, (r, queue, err)))
                }
            },
        ))
    }

    /// The records of the next block decoded with `f` (and the error that ended them); `None`
    /// at the end of the file or split, and after an error.
    async fn next_batch<T, F>(&mut self, f: F) -> Option<Batch<T>>
    where
        T: Send + 'static,
        F: for<'de> FnMut(&mut Decoder<'de>) -> Result<T> + Send + 'static,
    {
        if self.done {
            return None;
        }
        if std::mem::take(&mut self.yield_first) {
            // Between blocks, where a dropped future loses nothing.
            YieldNow(false).await;
        }
        let batch = match self.next_frame().await {
            Ok(None) => None,
            Ok(Some(h)) => Some(self.decode(h, f).await),
            Err(e) => Some((Vec::new(), Some(e))),
        };
        match &batch {
            None | Some((_, Some(_))) => self.done = true,
            Some(_) => {}
        }
        batch
    }

    /// Reads the next block's framing and payload (into `self.raw`).
    async fn next_frame(&mut self) -> Result<Option<BlockHeader>> {
        if let Some(end) = self.split_end {
            if self.framer.is_at_boundary() && self.framer.offset() - SYNC_SIZE as u64 >= end {
                return Ok(None);
            }
        }
        if !self.framer.is_at_boundary() || self.decoding.is_none() {
            return Err(Error::at(
                ErrorKind::Container,
                "the reader was cancelled in the middle of a block: it cannot go on",
                self.framer.offset(),
            ));
        }
        let mut started: Option<BlockHeader> = None;
        loop {
            let framer = &mut self.framer;
            let buf = self.input.fill_buf().await?;
            if buf.is_empty() {
                framer.finish()?;
                return Ok(None);
            }
            let (n, event) = framer.decode(buf)?;
            let done = match event {
                BlockEvent::Start(h) => {
                    self.raw.clear();
                    // Trust a claimed size no further than 1 MiB: the rest grows as it arrives.
                    self.raw.reserve((h.size as usize).min(1 << 20));
                    started = Some(h);
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
            if done {
                return Ok(started);
            }
        }
    }

    /// Decodes the block in `self.raw`, inline or on the blocking pool.
    async fn decode<T, F>(&mut self, h: BlockHeader, mut f: F) -> Batch<T>
    where
        T: Send + 'static,
        F: for<'de> FnMut(&mut Decoder<'de>) -> Result<T> + Send + 'static,
    {
        let mut decoding = self.decoding.take().expect("checked by next_frame");
        let offload = self.offload.is_some_and(|t| self.raw.len() >= t)
            && tokio::runtime::Handle::try_current().is_ok();
        if !offload {
            let mut out = Vec::new();
            let r = decoding.decode(&h, &self.raw, &mut out, f);
            self.decoding = Some(decoding);
            self.yield_first = true;
            return (out, r.err());
        }
        let raw = std::mem::take(&mut self.raw);
        let job = tokio::task::spawn_blocking(move || {
            let mut out = Vec::new();
            let r = decoding.decode(&h, &raw, &mut out, &mut f);
            (decoding, raw, out, r)
        });
        match job.await {
            Ok((decoding, raw, out, r)) => {
                self.decoding = Some(decoding);
                self.raw = raw;
                (out, r.err())
            }
            Err(e) => (
                Vec::new(),
                Some(Error::new(
                    ErrorKind::Container,
                    format!(
                        "decoding block {} (at byte {}) on the blocking pool failed: {e}",
                        h.index, h.offset
                    ),
                )),
            ),
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

/// Returns `Pending` once (after asking to be woken at once), so that the runtime can run
/// other tasks between two blocks.
struct YieldNow(bool);

impl std::future::Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
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
