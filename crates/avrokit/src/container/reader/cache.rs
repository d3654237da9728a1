//! Writer schemas remembered across files: [`SchemaCache`].

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::container::codec::Codec;
use crate::container::framing::Header;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::Schema;

/// Writer schemas of container files, remembered by the exact bytes of their header's
/// `avro.schema` entry, so that readers of many files with the same schema parse it once.
///
/// A [`ReaderBuilder::with_schema_cache`](crate::container::ReaderBuilder::with_schema_cache) reader looks the header's schema text up here: when
/// the cache holds exactly those bytes, the reader uses the schema parsed from them before
/// (and what was derived from it) instead of parsing the text again; otherwise it parses the
/// text and adds it. Only identical bytes match: a text that differs in anything, even
/// whitespace, is parsed on its own. The reader's [`schema()`](crate::container::Reader::schema) is then the
/// cached `Schema` itself (the same `Arc`), so plans compiled once from it
/// ([`DePlan::compile`](crate::serde::DePlan::compile)) are recognised by a pointer comparison.
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

pub(super) struct CacheEntries {
    entries: Vec<CacheEntry>,
    capacity: usize,
    /// Use counter: the entry with the smallest `used` goes first when the cache is full.
    clock: u64,
}

pub(super) struct CacheEntry {
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
    /// ([`WriterBuilder::build`](crate::container::WriterBuilder::build) and
    /// [`WriterTemplate`](crate::container::WriterTemplate)), replacing any schema cached under that
    /// text.
    pub fn insert(&self, schema: &Schema) {
        let json = crate::schema::write::to_json_text(schema);
        self.put(json.into(), schema.clone(), schema.min_encoded_size());
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
    pub(crate) fn schema_of(&self, header: &Header) -> Result<(Schema, u64)> {
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
        let min = schema.min_encoded_size();
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

/// The schema of `header` and its minimum record size, through `cache` when there is one.
pub(crate) fn schema_and_min_size(
    cache: Option<&SchemaCache>,
    header: &Header,
) -> Result<(Schema, u64)> {
    match cache {
        Some(cache) => cache.schema_of(header),
        None => {
            let schema = schema_of(header)?;
            let min = schema.min_encoded_size();
            Ok((schema, min))
        }
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
