//! Reading container files from a store: [`ObjectReaderBuilder`], [`AvroObject`], [`split_ranges`].

use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use avrokit::container::framing::HeaderDecoder;
use avrokit::container::{
    AsyncReader, Codec, Header, ReaderBuilder, SchemaCache, SeekStep, SplitSeeker,
};
use avrokit::{Limits, Schema};
use bytes::Bytes;
use object_store::path::Path;
use object_store::ObjectStore;

use crate::error::{Error, ErrorKind, Result};
use crate::source::{FetchOptions, RangeReader, Source};

/// The default size of the largest GET (1 GiB): a file or split up to that size is read with
/// one GET, streamed.
pub const DEFAULT_CHUNK_SIZE: usize = 1 << 30;
/// The default number of GETs in flight ahead of the one being read (when a read takes more
/// than one).
pub const DEFAULT_READ_AHEAD: usize = 2;
/// The default number of bytes one GET may receive ahead of the reader (8 MiB).
pub const DEFAULT_BUFFER_SIZE: usize = 8 << 20;
/// The default time one request may take, from sending it to its last byte (30 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The first GET of a sequential read, and the least one fetched for a header or a split
/// seek: big enough for most headers and the first block of a split.
const FIRST_CHUNK: usize = 256 * 1024;

/// Options for reading Avro container files from an object store.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use avrokit::container::Writer;
/// use avrokit::{Schema, Value};
/// use avrokit_object_store::ObjectReaderBuilder;
/// use futures::TryStreamExt;
/// use object_store::{memory::InMemory, path::Path, ObjectStore, ObjectStoreExt};
///
/// let schema = Schema::parse_str(r#""long""#)?;
/// let mut w = Writer::new(Vec::new(), &schema)?;
/// for i in 0..100 {
///     w.append(&Value::Long(i))?;
/// }
/// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
/// let path = Path::from("data/longs.avro");
/// store.put(&path, w.into_inner()?.into()).await?;
///
/// let file = ObjectReaderBuilder::new().open(store, &path).await?;
/// let mut total = 0;
/// for range in file.splits(4) {
///     let reader = file.split_reader(range).await?;
///     total += reader.into_stream().try_collect::<Vec<Value>>().await?.len();
/// }
/// assert_eq!(total, 100);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ObjectReaderBuilder {
    limits: Limits,
    reader_schema: Option<Schema>,
    cache: Option<SchemaCache>,
    fetch: FetchOptions,
}

impl Default for ObjectReaderBuilder {
    fn default() -> ObjectReaderBuilder {
        ObjectReaderBuilder::new()
    }
}

impl ObjectReaderBuilder {
    /// Default limits, the file's schema, streamed GETs of up to 1 GiB each buffering at most
    /// 8 MiB ahead of the reader (2 more in flight when a read takes several), a 30 s timeout
    /// per request and per piece of a body, reads pinned to the version first seen.
    pub fn new() -> ObjectReaderBuilder {
        ObjectReaderBuilder {
            limits: Limits::default(),
            reader_schema: None,
            cache: None,
            fetch: FetchOptions {
                first_chunk: FIRST_CHUNK,
                chunk: DEFAULT_CHUNK_SIZE,
                read_ahead: DEFAULT_READ_AHEAD,
                buffer: DEFAULT_BUFFER_SIZE,
                timeout: DEFAULT_TIMEOUT,
                pin_version: true,
            },
        }
    }

    /// The limits on untrusted input (see [`avrokit::Limits`]); they also bound the header.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> ObjectReaderBuilder {
        self.limits = limits;
        self
    }

    /// Reads records as `schema`, resolved against the file's.
    #[must_use]
    pub fn with_reader_schema(mut self, schema: &Schema) -> ObjectReaderBuilder {
        self.reader_schema = Some(schema.clone());
        self
    }

    /// Parses each distinct header schema once across many files (see [`SchemaCache`]).
    #[must_use]
    pub fn with_schema_cache(mut self, cache: &SchemaCache) -> ObjectReaderBuilder {
        self.cache = Some(cache.clone());
        self
    }

    /// The size of the largest GET (at least 1 byte; default 1 GiB). A whole file or split is
    /// asked for at once, in GETs of this size; reads after a seek and the end of a split's
    /// last block start with smaller GETs that double up to this. Smaller GETs with more
    /// read-ahead ([`with_read_ahead`](Self::with_read_ahead)) spread one read over several
    /// connections, which can be faster against a distant store than one connection.
    #[must_use]
    pub fn with_chunk_size(mut self, bytes: usize) -> ObjectReaderBuilder {
        self.fetch.chunk = bytes.max(1);
        self.fetch.first_chunk = FIRST_CHUNK.min(self.fetch.chunk);
        self
    }

    /// How many GETs run ahead of the one being read (default 2), when a read takes more than
    /// one: memory is bounded by `(read_ahead + 1) × buffer size` per reader.
    #[must_use]
    pub fn with_read_ahead(mut self, chunks: usize) -> ObjectReaderBuilder {
        self.fetch.read_ahead = chunks;
        self
    }

    /// The longest a request may wait for its answer, and a streamed GET for each next piece
    /// of its body while the reader waits for it (default 30 s): a store that stops answering
    /// gives an [`ErrorKind::Timeout`] error, never a hang. The store's own timeouts and
    /// retries (object_store's `ClientOptions`, `RetryConfig`) run inside this one.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> ObjectReaderBuilder {
        self.fetch.timeout = timeout;
        self
    }

    /// Whether every GET asks for the version (ETag, or the store's version id) that the
    /// first request saw (default true), so that an object rewritten while it is read is an
    /// error rather than a splice of two files. Turn it off for stores that give no usable
    /// ETags.
    #[must_use]
    pub fn with_pinned_version(mut self, yes: bool) -> ObjectReaderBuilder {
        self.fetch.pin_version = yes;
        self
    }

    /// How many bytes one GET may receive ahead of the reader (default 8 MiB, at least 1 byte,
    /// at most 1 GiB): past that it stops reading its connection until the reader catches
    /// up, so TCP holds the server back. The GET's bytes overlap with decoding as long as
    /// they arrive faster than they are decoded.
    #[must_use]
    pub fn with_buffer_size(mut self, bytes: usize) -> ObjectReaderBuilder {
        self.fetch.buffer = bytes.clamp(1, 1 << 30);
        self
    }

    pub(crate) fn fetch_options(&self) -> FetchOptions {
        self.fetch
    }

    fn core(&self) -> ReaderBuilder {
        let mut b = ReaderBuilder::new().with_limits(self.limits);
        if let Some(s) = &self.reader_schema {
            b = b.with_reader_schema(s);
        }
        if let Some(c) = &self.cache {
            b = b.with_schema_cache(c);
        }
        b
    }

    /// A reader of every record of the container file at `path`, with as few requests as it
    /// takes: a HEAD for its size and version, then one GET of the whole object (when it is at
    /// most the chunk size), streamed, whose first bytes are the header. Use
    /// [`open`](Self::open) instead to read splits, or several readers of one file.
    ///
    /// # Examples
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use avrokit::container::Writer;
    /// use avrokit::{Schema, Value};
    /// use avrokit_object_store::ObjectReaderBuilder;
    /// use futures::TryStreamExt;
    /// use object_store::{memory::InMemory, path::Path, ObjectStore, ObjectStoreExt};
    ///
    /// let mut w = Writer::new(Vec::new(), &Schema::parse_str(r#""long""#)?)?;
    /// w.append(&Value::Long(7))?;
    /// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    /// store.put(&Path::from("a.avro"), w.into_inner()?.into()).await?;
    ///
    /// let reader = ObjectReaderBuilder::new().open_reader(store, &Path::from("a.avro")).await?;
    /// let records: Vec<Value> = reader.into_stream().try_collect().await?;
    /// assert_eq!(records, [Value::Long(7)]);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub async fn open_reader(
        self,
        store: Arc<dyn ObjectStore>,
        path: &Path,
    ) -> Result<AsyncReader<RangeReader>> {
        let src = Arc::new(Source::open(store, path.clone(), self.fetch).await?);
        let len = src.len();
        let input = RangeReader::sized(src, 0..len, len);
        Ok(self.core().build_async(input).await?)
    }

    /// Opens the container file at `path`: a HEAD for its size and version, then GETs for its
    /// header (the first 256 KiB, more only if the header is longer), which is parsed once
    /// here and shared by every reader made from the result.
    ///
    /// # Errors
    /// A missing object or a failing store ([`ErrorKind::Store`], [`ErrorKind::Timeout`]), a
    /// malformed header, unknown codec or invalid schema ([`ErrorKind::Avro`]).
    pub async fn open(mut self, store: Arc<dyn ObjectStore>, path: &Path) -> Result<AvroObject> {
        // Every split reader parses the header's schema: once, with a cache.
        self.cache
            .get_or_insert_with(|| SchemaCache::with_capacity(1));
        let src = Arc::new(Source::open(store, path.clone(), self.fetch).await?);
        let len = src.len();
        let mut hd = HeaderDecoder::new(self.limits);
        let mut at = 0u64;
        let mut want = self.fetch.first_chunk.max(4096) as u64;
        while !hd.is_complete() && at < len {
            let to = len.min(at + want);
            let bytes = src.fetch(at..to).await?;
            let mut piece: &[u8] = &bytes;
            while !piece.is_empty() && !hd.is_complete() {
                let n = hd.decode(piece)?;
                if n == 0 {
                    break;
                }
                piece = &piece[n..];
            }
            at = to;
            want = want.saturating_mul(2);
        }
        let header = hd.finish()?;
        // Check the schema and codec now, once, rather than in every split's reader.
        let probe = self
            .core()
            .build_async_at(header.clone(), tokio::io::empty(), header.len())?;
        let schema = probe.schema().clone();
        let codec = probe.codec();
        Ok(AvroObject {
            src,
            header,
            schema,
            codec,
            options: self,
        })
    }
}

/// Cuts `[0, len)` into `n` (at least 1) contiguous byte ranges of nearly equal size, for `n`
/// workers: read each with a split reader ([`AvroObject::split_reader`]) and every record of
/// the file comes out exactly once, each from the split in which the sync marker before its
/// block starts. Ranges may hold no block at all (more splits than blocks).
pub fn split_ranges(len: u64, n: usize) -> Vec<Range<u64>> {
    let n = n.max(1) as u64;
    (0..n)
        .map(|i| {
            let at = |k: u64| ((len as u128 * k as u128) / n as u128) as u64;
            at(i)..at(i + 1)
        })
        .collect()
}

/// An Avro container file in an object store, its header read: records come from
/// [`reader`](Self::reader) (the whole file) or [`split_reader`](Self::split_reader) (one
/// byte range), as the core's [`AsyncReader`] over ranged GETs (`next`, `into_stream`,
/// `into_serde_stream`).
///
/// Cloning it is cheap (the header and schema are shared), and every reader made from it
/// reads the same version of the object.
#[derive(Clone)]
pub struct AvroObject {
    src: Arc<Source>,
    header: Header,
    schema: Schema,
    codec: Codec,
    options: ObjectReaderBuilder,
}

impl AvroObject {
    #[cfg(feature = "arrow")]
    pub(crate) fn source(&self) -> &Arc<Source> {
        &self.src
    }

    /// The object's size in bytes.
    pub fn len(&self) -> u64 {
        self.src.len()
    }

    /// True for an empty object (never, once opened: a header has bytes).
    pub fn is_empty(&self) -> bool {
        self.src.len() == 0
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.src.path
    }

    /// The store it is in.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.src.store
    }

    /// The object's metadata as the first request saw it (size, ETag, version).
    pub fn meta(&self) -> &object_store::ObjectMeta {
        &self.src.meta
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The schema the file was written with.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The codec of its blocks.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Every header metadata entry, in file order.
    pub fn metadata(&self) -> &[(String, Vec<u8>)] {
        self.header.metadata()
    }

    /// The value of one metadata key.
    pub fn metadata_value(&self, key: &str) -> Option<&[u8]> {
        self.header.get(key)
    }

    /// The options it was opened with.
    pub fn options(&self) -> &ObjectReaderBuilder {
        &self.options
    }

    /// The object cut into `n` byte ranges ([`split_ranges`]).
    pub fn splits(&self, n: usize) -> Vec<Range<u64>> {
        split_ranges(self.len(), n)
    }

    /// The bytes `range` of the object as an `AsyncRead`: all of them asked for at once (in
    /// GETs of at most the chunk size), streamed, with the reader's buffering, read-ahead and
    /// timeouts.
    pub fn range_reader(&self, range: Range<u64>) -> RangeReader {
        let len = range.end.saturating_sub(range.start);
        RangeReader::sized(self.src.clone(), range, len)
    }

    /// A reader of every record, from the first block on (the header is not fetched again):
    /// one streamed GET of the rest of the file, when it is at most the chunk size.
    ///
    /// # Errors
    /// A reader schema that cannot be resolved against the file's.
    pub async fn reader(&self) -> Result<AsyncReader<RangeReader>> {
        let at = self.header.len();
        let input = self.range_reader(at..self.len());
        Ok(self
            .options
            .core()
            .build_async_at(self.header.clone(), input, at)?)
    }

    /// A reader of the records of the split `range`: the blocks whose preceding sync marker
    /// starts in it (the rule of [`avrokit::container::Reader::seek_split`]). The split's
    /// first block is found with ranged GETs around `range.start` ([`SplitSeeker`]); then one
    /// streamed GET asks for the split and 256 KiB past its end, and reading runs past
    /// `range.end` only to finish the split's last block.
    ///
    /// # Errors
    /// A failing store while seeking, or a reader schema that cannot be resolved.
    pub async fn split_reader(&self, range: Range<u64>) -> Result<AsyncReader<RangeReader>> {
        let len = self.len();
        let first = self.first_block(range.clone()).await?;
        let at = first.unwrap_or(len);
        // The split and a little more at once: its last block most likely ends within
        // `first_chunk` of its end; if not, more is asked for one GET at a time.
        let ask = range.end.saturating_sub(at) + self.options.fetch.first_chunk as u64;
        let input = RangeReader::sized(
            self.src.clone(),
            if first.is_some() { at..len } else { len..len },
            ask,
        );
        let mut reader = self
            .options
            .core()
            .build_async_at(self.header.clone(), input, at)?;
        reader.set_split_end(range.end);
        Ok(reader)
    }

    /// The offset of the split's first block, found by the core's sans-IO seeker over GETs
    /// of at least 256 KiB (the seeker asks for a few bytes at a time once it has a
    /// candidate marker; they are served from the last GET when they fall in it).
    async fn first_block(&self, range: Range<u64>) -> Result<Option<u64>> {
        if range.start > range.end {
            return Err(Error::new(
                ErrorKind::Usage,
                format!(
                    "split {}..{}: the start is after the end",
                    range.start, range.end
                ),
            ));
        }
        let len = self.len();
        let mut seeker = SplitSeeker::new(
            &self.header,
            &self.schema,
            self.codec,
            self.options.limits,
            len,
            range.start,
            range.end,
        );
        let mut window: (u64, Bytes) = (0, Bytes::new());
        loop {
            match seeker.step() {
                SeekStep::Done(first) => return Ok(first),
                SeekStep::Read { offset, len: n } => {
                    let from = offset.min(len);
                    let to = len.min(offset.saturating_add(n as u64));
                    let (start, bytes) = &window;
                    if from < *start || to > *start + bytes.len() as u64 {
                        let fetch_to =
                            len.min(to.max(from + self.options.fetch.first_chunk as u64));
                        window = (from, self.src.fetch(from..fetch_to).await?);
                    }
                    let (start, bytes) = &window;
                    seeker.feed(&bytes[(from - start) as usize..(to - start) as usize]);
                }
            }
        }
    }
}

impl fmt::Debug for AvroObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AvroObject")
            .field("source", &self.src)
            .field("codec", &self.codec)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::split_ranges;

    #[test]
    fn split_ranges_cover_the_object_without_gaps() {
        for len in [0u64, 1, 7, 100, 1 << 40] {
            for n in [0usize, 1, 2, 3, 8, 1000] {
                let r = split_ranges(len, n);
                assert_eq!(r.len(), n.max(1));
                assert_eq!(r[0].start, 0);
                assert_eq!(r.last().unwrap().end, len);
                assert!(r.windows(2).all(|w| w[0].end == w[1].start));
            }
        }
    }
}
