//! The options of a [`Reader`]: [`ReaderBuilder`].

use std::io::{self, Read, Seek, SeekFrom};

use super::cache::SchemaCache;
use super::input::{Input, Stream};
use super::Reader;
use crate::error::Result;
use crate::io::Limits;
use crate::schema::Schema;

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
    pub(crate) limits: Limits,
    pub(crate) capacity: usize,
    pub(crate) reader_schema: Option<Schema>,
    pub(crate) cache: Option<SchemaCache>,
    pub(crate) decompress_ahead: bool,
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
            decompress_ahead: true,
        }
    }

    /// Whether a compressed file's next blocks (up to 4) are decompressed on a helper thread
    /// while the current one decodes (on by default). The thread starts once the file has
    /// given 1 MiB of decompressed data, so small files never start one; reading stays on the
    /// caller's thread. The reader then holds up to 4 blocks more, compressed and
    /// decompressed. Turn it off to keep a reader on exactly one thread (say, when many
    /// readers already run one per core).
    #[must_use]
    pub fn with_decompress_ahead(mut self, yes: bool) -> ReaderBuilder {
        self.decompress_ahead = yes;
        self
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
    /// ([`ErrorKind::Resolution`](crate::ErrorKind::Resolution)), or a failing reader.
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
