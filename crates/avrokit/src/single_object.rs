//! Single-object encoding and Confluent schema-registry framing: one datum per message, tagged
//! with the schema it was written with.
//!
//! - **Single-object encoding** (the specification's, used by Java's `BinaryMessageEncoder`):
//!   the marker `C3 01`, the writer schema's CRC-64-AVRO fingerprint
//!   ([`Schema::fingerprint_rabin`]) as 8 little-endian bytes, then the binary datum. A
//!   [`SchemaStore`] maps fingerprints back to schemas.
//! - **Confluent framing** (Kafka with a schema registry): the magic byte `0`, the schema's
//!   registry id as 4 big-endian bytes, then the binary datum. Schemas are found through a
//!   [`SchemaLookup`] (a `HashMap<u32, Schema>`, or a registry client of your own).
//!
//! The `to_*` / `from_*` functions mirror [`to_datum_vec`](crate::to_datum_vec) and
//! [`from_datum_slice`](crate::from_datum_slice) for one message. To read many messages use a
//! [`SingleObjectDecoder`] or [`ConfluentDecoder`]: they keep, per writer schema, the
//! resolution and serde plans compiled for the first message, so nothing is compiled per
//! message. To write many messages with serde, use a [`SingleObjectEncoder`], which computes
//! the fingerprint once.
//!
//! # Examples
//! ```
//! use avrokit::single_object::{from_single_object_slice, to_single_object_vec, SchemaStore};
//! use avrokit::{Schema, Value};
//! let schema = Schema::parse_str(r#""string""#)?;
//! let msg = to_single_object_vec(&Value::String("hi".into()), &schema)?;
//! assert_eq!(&msg[..2], [0xC3, 0x01]);
//! assert_eq!(msg[2..10], schema.fingerprint_rabin().to_le_bytes());
//!
//! let mut store = SchemaStore::new();
//! store.add(&schema);
//! assert_eq!(from_single_object_slice(&msg, &store, None)?, Value::String("hi".into()));
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # Errors
//! A message that does not start with the marker (or magic byte), one shorter than its header,
//! or one whose fingerprint (or id) names no known schema is an error, never a panic; so is a
//! datum that is malformed or followed by extra bytes. Byte offsets in errors count from the
//! start of the message.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use serde::de::Deserialize;
use serde::Serialize;

use crate::decode::Decoder;
use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;
use crate::resolution::ResolvedPlan;
use crate::schema::Schema;
use crate::serde::{DePlan, SerPlan};
use crate::value::{read_value, read_value_resolved, write_value, Value};

/// The two bytes every single-object message starts with.
pub const MARKER: [u8; 2] = [0xC3, 0x01];

/// The length of a single-object header: the marker and the 8-byte fingerprint.
pub const HEADER_LEN: usize = 10;

/// The byte every Confluent-framed message starts with.
pub const CONFLUENT_MAGIC: u8 = 0;

/// The length of a Confluent header: the magic byte and the 4-byte schema id.
pub const CONFLUENT_HEADER_LEN: usize = 5;

/// The single-object header for `schema`: [`MARKER`] and the schema's fingerprint.
///
/// # Examples
/// ```
/// let schema = avrokit::Schema::parse_str(r#""long""#)?;
/// let h = avrokit::single_object::header(&schema);
/// assert_eq!(h[..2], [0xC3, 0x01]);
/// assert_eq!(h[2..], schema.fingerprint_rabin().to_le_bytes());
/// # Ok::<(), avrokit::Error>(())
/// ```
pub fn header(schema: &Schema) -> [u8; HEADER_LEN] {
    header_of(schema.fingerprint_rabin())
}

fn header_of(fingerprint: u64) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..2].copy_from_slice(&MARKER);
    h[2..].copy_from_slice(&fingerprint.to_le_bytes());
    h
}

/// Splits a single-object message into the writer schema's fingerprint and the datum's bytes.
///
/// # Examples
/// ```
/// let msg = [0xC3, 0x01, 1, 0, 0, 0, 0, 0, 0, 0, 0x02];
/// assert_eq!(avrokit::single_object::split_single_object(&msg)?, (1, &[0x02][..]));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::Eof`] when the message is shorter than its header, [`ErrorKind::Data`] when it
/// does not start with [`MARKER`].
pub fn split_single_object(bytes: &[u8]) -> Result<(u64, &[u8])> {
    // The marker is checked on whatever is there first, so that a one-byte message that is
    // not single-object encoded at all is reported as such rather than as truncated.
    for (i, (&b, &m)) in bytes.iter().zip(MARKER.iter()).enumerate() {
        if b != m {
            return Err(Error::at(
                ErrorKind::Data,
                format!(
                    "not a single-object message: expected the marker C3 01, found byte {b:#04X} \
                     at {i}"
                ),
                i as u64,
            ));
        }
    }
    let Some((head, datum)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return Err(Error::at(
            ErrorKind::Eof,
            format!(
                "single-object message of {} bytes is shorter than its {HEADER_LEN}-byte header",
                bytes.len()
            ),
            bytes.len() as u64,
        ));
    };
    let mut fp = [0u8; 8];
    fp.copy_from_slice(&head[2..]);
    Ok((u64::from_le_bytes(fp), datum))
}

/// Splits a Confluent-framed message into the schema id and the datum's bytes.
///
/// # Examples
/// ```
/// let msg = [0, 0, 0, 1, 0x2C, 0x02];
/// assert_eq!(avrokit::single_object::split_confluent(&msg)?, (300, &[0x02][..]));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::Data`] when the first byte is not [`CONFLUENT_MAGIC`], [`ErrorKind::Eof`] when
/// the message is shorter than its 5-byte header.
pub fn split_confluent(bytes: &[u8]) -> Result<(u32, &[u8])> {
    match bytes.first() {
        Some(&CONFLUENT_MAGIC) => {}
        Some(&b) => {
            return Err(Error::at(
                ErrorKind::Data,
                format!("not a Confluent-framed message: expected magic byte 0, found {b:#04X}"),
                0,
            ))
        }
        None => return Err(Error::at(ErrorKind::Eof, "empty Confluent message", 0)),
    }
    let Some((head, datum)) = bytes.split_first_chunk::<CONFLUENT_HEADER_LEN>() else {
        return Err(Error::at(
            ErrorKind::Eof,
            format!(
                "Confluent message of {} bytes is shorter than its {CONFLUENT_HEADER_LEN}-byte \
                 header",
                bytes.len()
            ),
            bytes.len() as u64,
        ));
    };
    let mut id = [0u8; 4];
    id.copy_from_slice(&head[1..]);
    Ok((u32::from_be_bytes(id), datum))
}

/// Writer schemas by CRC-64-AVRO fingerprint, to read single-object messages.
///
/// # Examples
/// ```
/// use avrokit::{single_object::SchemaStore, Schema};
/// let schema = Schema::parse_str(r#""int""#)?;
/// let mut store = SchemaStore::new();
/// let fp = store.add(&schema);
/// assert_eq!(fp, schema.fingerprint_rabin());
/// assert_eq!(store.get(fp), Some(&schema));
/// assert_eq!(store.get(fp ^ 1), None);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SchemaStore {
    schemas: HashMap<u64, Schema>,
}

impl SchemaStore {
    /// An empty store.
    pub fn new() -> SchemaStore {
        SchemaStore::default()
    }

    /// Adds `schema` (replacing one with the same fingerprint) and returns its fingerprint.
    pub fn add(&mut self, schema: &Schema) -> u64 {
        let fp = schema.fingerprint_rabin();
        self.schemas.insert(fp, schema.clone());
        fp
    }

    /// The schema with this fingerprint.
    pub fn get(&self, fingerprint: u64) -> Option<&Schema> {
        self.schemas.get(&fingerprint)
    }

    /// How many schemas the store holds.
    pub fn len(&self) -> usize {
        self.schemas.len()
    }

    /// True when the store holds no schema.
    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }

    /// The schema with this fingerprint, or an error naming the fingerprint.
    fn require(&self, fingerprint: u64) -> Result<&Schema> {
        self.get(fingerprint)
            .ok_or_else(|| unknown_fingerprint(fingerprint))
    }
}

#[cold]
fn unknown_fingerprint(fingerprint: u64) -> Error {
    Error::at(
        ErrorKind::Schema,
        format!("no schema with fingerprint {fingerprint:#018x} is known"),
        2,
    )
}

/// Finds writer schemas by Confluent schema-registry id.
///
/// Implemented for `HashMap<u32, Schema>`; implement it for a registry client (an HTTP client
/// with its own cache, say). A [`ConfluentDecoder`] asks once per id and keeps the answer.
///
/// # Examples
/// ```
/// use std::collections::HashMap;
/// use avrokit::{single_object::SchemaLookup, ErrorKind, Schema};
/// let mut ids = HashMap::new();
/// ids.insert(7u32, Schema::parse_str(r#""int""#)?);
/// assert!(ids.schema(7).is_ok());
/// assert_eq!(ids.schema(8).unwrap_err().kind(), ErrorKind::Schema);
/// # Ok::<(), avrokit::Error>(())
/// ```
pub trait SchemaLookup {
    /// The schema registered under `id`.
    ///
    /// # Errors
    /// When there is no such schema (or the registry cannot be reached).
    fn schema(&self, id: u32) -> Result<Schema>;
}

impl<S: BuildHasher> SchemaLookup for HashMap<u32, Schema, S> {
    fn schema(&self, id: u32) -> Result<Schema> {
        self.get(&id).cloned().ok_or_else(|| {
            Error::at(
                ErrorKind::Schema,
                format!("no schema with registry id {id} is known"),
                1,
            )
        })
    }
}

impl<L: SchemaLookup + ?Sized> SchemaLookup for &L {
    fn schema(&self, id: u32) -> Result<Schema> {
        (**self).schema(id)
    }
}

/// Encodes `value` with `schema` as a single-object message.
///
/// # Examples
/// ```
/// use avrokit::{single_object::to_single_object_vec, Schema, Value};
/// let schema = Schema::parse_str(r#""int""#)?;
/// let msg = to_single_object_vec(&Value::Int(1), &schema)?;
/// assert_eq!(msg.len(), 11);
/// assert_eq!(msg[10], 0x02);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// When the value does not match the schema.
pub fn to_single_object_vec(value: &Value, schema: &Schema) -> Result<Vec<u8>> {
    let mut out = header(schema).to_vec();
    write_value(&mut Encoder::new(&mut out), value, schema)?;
    Ok(out)
}

/// Encodes a serde value as a single-object message of `plan`'s schema. Computes the schema's
/// fingerprint on every call: use a [`SingleObjectEncoder`] for many messages.
///
/// # Examples
/// ```
/// use avrokit::{serde::SerPlan, single_object::to_single_object_vec_serde, Schema};
/// let plan = SerPlan::compile(&Schema::parse_str(r#""string""#)?)?;
/// let msg = to_single_object_vec_serde("hi", &plan)?;
/// assert_eq!(msg[10..], [4, b'h', b'i']);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// When the value does not fit the schema.
pub fn to_single_object_vec_serde<T: Serialize + ?Sized>(
    value: &T,
    plan: &SerPlan,
) -> Result<Vec<u8>> {
    let mut out = header(plan.schema()).to_vec();
    crate::serde::to_datum_sink(value, plan, &mut out)?;
    Ok(out)
}

/// Decodes a single-object message, finding the writer schema in `store`; with `reader`, the
/// datum is resolved to that schema. Compiles the resolution plan on every call: use a
/// [`SingleObjectDecoder`] for many messages.
///
/// # Examples
/// ```
/// use avrokit::single_object::{from_single_object_slice, to_single_object_vec, SchemaStore};
/// use avrokit::{Schema, Value};
/// let int = Schema::parse_str(r#""int""#)?;
/// let long = Schema::parse_str(r#""long""#)?;
/// let msg = to_single_object_vec(&Value::Int(3), &int)?;
/// let mut store = SchemaStore::new();
/// store.add(&int);
/// assert_eq!(from_single_object_slice(&msg, &store, Some(&long))?, Value::Long(3));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// A bad marker or short message (see [`split_single_object`]), an unknown fingerprint
/// ([`ErrorKind::Schema`]), schemas that cannot be resolved, a malformed datum, or bytes left
/// over after it.
pub fn from_single_object_slice(
    bytes: &[u8],
    store: &SchemaStore,
    reader: Option<&Schema>,
) -> Result<Value> {
    let (fp, _) = split_single_object(bytes)?;
    let writer = store.require(fp)?;
    let plan = match reader {
        Some(r) => Some(ResolvedPlan::compile(writer, r)?),
        None => None,
    };
    read_whole_value(bytes, HEADER_LEN, writer, plan.as_ref(), Limits::default())
}

/// Decodes a single-object message into a serde type through `plan`, whose writer schema must
/// be the one the message names (checked by fingerprint, computed on every call: use a
/// [`SingleObjectDecoder`] for many messages). Strings and bytes may borrow from `bytes`.
///
/// # Examples
/// ```
/// use avrokit::serde::{DePlan, SerPlan};
/// use avrokit::single_object::{from_single_object_slice_serde, to_single_object_vec_serde};
/// use avrokit::Schema;
/// let schema = Schema::parse_str(r#""string""#)?;
/// let msg = to_single_object_vec_serde("hi", &SerPlan::compile(&schema)?)?;
/// let s: &str = from_single_object_slice_serde(&msg, &DePlan::compile(&schema)?)?;
/// assert_eq!(s, "hi");
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// A bad marker or short message, a fingerprint other than the plan's writer schema's
/// ([`ErrorKind::Schema`]), a malformed datum, or bytes left over after it.
pub fn from_single_object_slice_serde<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    plan: &DePlan,
) -> Result<T> {
    let (fp, _) = split_single_object(bytes)?;
    let expected = plan.writer().fingerprint_rabin();
    if fp != expected {
        return Err(Error::at(
            ErrorKind::Schema,
            format!(
                "message written with schema fingerprint {fp:#018x}, the plan's writer schema \
                 has {expected:#018x}"
            ),
            2,
        ));
    }
    read_whole_serde(bytes, HEADER_LEN, plan, Limits::default())
}

/// Encodes `value` with `schema` as a Confluent-framed message with registry id `id`.
///
/// # Examples
/// ```
/// use avrokit::{single_object::to_confluent_vec, Schema, Value};
/// let schema = Schema::parse_str(r#""int""#)?;
/// assert_eq!(to_confluent_vec(&Value::Int(1), &schema, 300)?, [0, 0, 0, 1, 0x2C, 0x02]);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// When the value does not match the schema.
pub fn to_confluent_vec(value: &Value, schema: &Schema, id: u32) -> Result<Vec<u8>> {
    let mut out = confluent_header(id).to_vec();
    write_value(&mut Encoder::new(&mut out), value, schema)?;
    Ok(out)
}

/// Encodes a serde value as a Confluent-framed message of `plan`'s schema with registry id
/// `id`.
///
/// # Examples
/// ```
/// use avrokit::{serde::SerPlan, single_object::to_confluent_vec_serde, Schema};
/// let plan = SerPlan::compile(&Schema::parse_str(r#""long""#)?)?;
/// assert_eq!(to_confluent_vec_serde(&-1i64, &plan, 2)?, [0, 0, 0, 0, 2, 0x01]);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// When the value does not fit the schema.
pub fn to_confluent_vec_serde<T: Serialize + ?Sized>(
    value: &T,
    plan: &SerPlan,
    id: u32,
) -> Result<Vec<u8>> {
    let mut out = confluent_header(id).to_vec();
    crate::serde::to_datum_sink(value, plan, &mut out)?;
    Ok(out)
}

fn confluent_header(id: u32) -> [u8; CONFLUENT_HEADER_LEN] {
    let mut h = [CONFLUENT_MAGIC; CONFLUENT_HEADER_LEN];
    h[1..].copy_from_slice(&id.to_be_bytes());
    h
}

/// Decodes a Confluent-framed message, asking `lookup` for the writer schema; with `reader`,
/// the datum is resolved to that schema. Looks the schema up and compiles the plan on every
/// call: use a [`ConfluentDecoder`] for many messages.
///
/// # Examples
/// ```
/// use std::collections::HashMap;
/// use avrokit::single_object::{from_confluent_slice, to_confluent_vec};
/// use avrokit::{Schema, Value};
/// let schema = Schema::parse_str(r#""int""#)?;
/// let registry = HashMap::from([(5u32, schema.clone())]);
/// let msg = to_confluent_vec(&Value::Int(-1), &schema, 5)?;
/// assert_eq!(from_confluent_slice(&msg, &registry, None)?, Value::Int(-1));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// A bad magic byte or short message (see [`split_confluent`]), the lookup's error for an
/// unknown id, schemas that cannot be resolved, a malformed datum, or bytes left over after it.
pub fn from_confluent_slice(
    bytes: &[u8],
    lookup: &impl SchemaLookup,
    reader: Option<&Schema>,
) -> Result<Value> {
    let (id, _) = split_confluent(bytes)?;
    let writer = lookup.schema(id)?;
    let plan = match reader {
        Some(r) => Some(ResolvedPlan::compile(&writer, r)?),
        None => None,
    };
    read_whole_value(
        bytes,
        CONFLUENT_HEADER_LEN,
        &writer,
        plan.as_ref(),
        Limits::default(),
    )
}

/// Reads the datum after a `skip`-byte header; the decoder runs over the whole message so that
/// error offsets count from its start.
fn read_whole_value(
    bytes: &[u8],
    skip: usize,
    writer: &Schema,
    plan: Option<&ResolvedPlan>,
    limits: Limits,
) -> Result<Value> {
    let mut dec = Decoder::from_slice(bytes).with_limits(limits);
    dec.skip_raw(skip as u64)?;
    let v = match plan {
        Some(p) => read_value_resolved(&mut dec, p)?,
        None => read_value(&mut dec, writer)?,
    };
    dec.expect_end()?;
    Ok(v)
}

fn read_whole_serde<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    skip: usize,
    plan: &DePlan,
    limits: Limits,
) -> Result<T> {
    let mut dec = Decoder::from_slice(bytes).with_limits(limits);
    dec.skip_raw(skip as u64)?;
    let v = crate::serde::deserialize_from(&mut dec, plan)?;
    dec.expect_end()?;
    Ok(v)
}

/// Writes serde values as single-object messages of one schema, with the header computed once.
///
/// # Examples
/// ```
/// use avrokit::{serde::SerPlan, single_object::SingleObjectEncoder, Schema};
/// let schema = Schema::parse_str(r#""long""#)?;
/// let enc = SingleObjectEncoder::new(&SerPlan::compile(&schema)?);
/// let mut msg = Vec::new();
/// enc.encode_into(&7i64, &mut msg)?;
/// assert_eq!(msg[..10], avrokit::single_object::header(&schema));
/// assert_eq!(enc.encode(&7i64)?, msg);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SingleObjectEncoder {
    plan: SerPlan,
    header: [u8; HEADER_LEN],
}

impl SingleObjectEncoder {
    /// An encoder for `plan`'s schema.
    pub fn new(plan: &SerPlan) -> SingleObjectEncoder {
        SingleObjectEncoder {
            plan: plan.clone(),
            header: header(plan.schema()),
        }
    }

    /// The header every message starts with.
    pub fn header(&self) -> &[u8; HEADER_LEN] {
        &self.header
    }

    /// Encodes `value` as a new message.
    ///
    /// # Errors
    /// When the value does not fit the schema.
    pub fn encode<T: Serialize + ?Sized>(&self, value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.encode_into(value, &mut out)?;
        Ok(out)
    }

    /// Clears `out` and encodes `value` into it as one message (reusing its allocation).
    ///
    /// # Errors
    /// When the value does not fit the schema; `out` then holds part of the message.
    pub fn encode_into<T: Serialize + ?Sized>(&self, value: &T, out: &mut Vec<u8>) -> Result<()> {
        out.clear();
        out.extend_from_slice(&self.header);
        crate::serde::to_datum_sink(value, &self.plan, out)
    }
}

/// What a decoder keeps per writer schema; the plans are compiled on first use.
#[derive(Debug, Clone)]
struct Cached {
    writer: Schema,
    /// Writer × reader, when there is a reader schema.
    resolved: Option<ResolvedPlan>,
    de: Option<DePlan>,
}

/// The shared part of the two decoders: writer schemas and their plans by key.
#[derive(Debug, Clone)]
struct PlanCache<K> {
    reader: Option<Schema>,
    limits: Limits,
    entries: HashMap<K, Cached>,
}

impl<K: Hash + Eq + Copy> PlanCache<K> {
    fn new(reader: Option<&Schema>) -> PlanCache<K> {
        PlanCache {
            reader: reader.cloned(),
            limits: Limits::default(),
            entries: HashMap::new(),
        }
    }

    fn value(
        &mut self,
        key: K,
        load: impl FnOnce() -> Result<Schema>,
        bytes: &[u8],
        skip: usize,
    ) -> Result<Value> {
        let c = entry(&mut self.entries, key, load)?;
        if let Some(r) = &self.reader {
            resolved(c, r)?;
        }
        // `resolved` is only ever set when there is a reader schema.
        read_whole_value(bytes, skip, &c.writer, c.resolved.as_ref(), self.limits)
    }

    fn serde<'de, T: Deserialize<'de>>(
        &mut self,
        key: K,
        load: impl FnOnce() -> Result<Schema>,
        bytes: &'de [u8],
        skip: usize,
    ) -> Result<T> {
        let c = entry(&mut self.entries, key, load)?;
        if c.de.is_none() {
            let de = match &self.reader {
                // Shares the resolution with the `Value` path instead of compiling it twice.
                Some(r) => DePlan::from_resolved(resolved(c, r)?.clone()),
                None => DePlan::compile(&c.writer)?,
            };
            c.de = Some(de);
        }
        let de = c.de.as_ref().expect("set above");
        read_whole_serde(bytes, skip, de, self.limits)
    }
}

/// The entry of `key`, loading its writer schema on first use.
fn entry<K: Hash + Eq + Copy>(
    entries: &mut HashMap<K, Cached>,
    key: K,
    load: impl FnOnce() -> Result<Schema>,
) -> Result<&mut Cached> {
    // Loading can fail, and a failure must not be cached: hence a fallible vacant arm rather
    // than `or_insert_with`.
    match entries.entry(key) {
        std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
        std::collections::hash_map::Entry::Vacant(e) => Ok(e.insert(Cached {
            writer: load()?,
            resolved: None,
            de: None,
        })),
    }
}

fn resolved<'c>(c: &'c mut Cached, reader: &Schema) -> Result<&'c ResolvedPlan> {
    if c.resolved.is_none() {
        c.resolved = Some(ResolvedPlan::compile(&c.writer, reader)?);
    }
    Ok(c.resolved.as_ref().expect("set above"))
}

/// Reads single-object messages, keeping the plans compiled for each writer schema.
///
/// Without a reader schema, messages are read as written; with one, each is resolved to it
/// through a plan compiled the first time its writer schema is seen.
///
/// # Examples
/// ```
/// use avrokit::single_object::{to_single_object_vec, SchemaStore, SingleObjectDecoder};
/// use avrokit::serde::SerPlan;
/// use avrokit::{Schema, Value};
/// let v1 = Schema::parse_str(r#"{"type":"record","name":"U","fields":[{"name":"id","type":"int"}]}"#)?;
/// let v2 = Schema::parse_str(r#"{"type":"record","name":"U","fields":[
///     {"name":"id","type":"long"},{"name":"email","type":["null","string"],"default":null}]}"#)?;
/// let mut store = SchemaStore::new();
/// store.add(&v1);
/// let mut dec = SingleObjectDecoder::with_reader_schema(store, &v2);
///
/// let msg = to_single_object_vec(&Value::Record(vec![Value::Int(5)]), &v1)?;
/// assert_eq!(
///     dec.decode(&msg)?,
///     Value::Record(vec![Value::Long(5), Value::Union(0, Box::new(Value::Null))])
/// );
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct U { id: i64, email: Option<String> }
/// assert_eq!(dec.decode_serde::<U>(&msg)?, U { id: 5, email: None });
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SingleObjectDecoder {
    store: SchemaStore,
    cache: PlanCache<u64>,
}

impl SingleObjectDecoder {
    /// A decoder reading each message with its writer schema.
    pub fn new(store: SchemaStore) -> SingleObjectDecoder {
        SingleObjectDecoder {
            store,
            cache: PlanCache::new(None),
        }
    }

    /// A decoder resolving every message to `reader`.
    pub fn with_reader_schema(store: SchemaStore, reader: &Schema) -> SingleObjectDecoder {
        SingleObjectDecoder {
            store,
            cache: PlanCache::new(Some(reader)),
        }
    }

    /// Sets the limits datums are decoded with (default: [`Limits::default`]).
    pub fn with_limits(mut self, limits: Limits) -> SingleObjectDecoder {
        self.cache.limits = limits;
        self
    }

    /// The known writer schemas.
    pub fn store(&self) -> &SchemaStore {
        &self.store
    }

    /// Adds a writer schema and returns its fingerprint.
    pub fn add_schema(&mut self, schema: &Schema) -> u64 {
        let fp = self.store.add(schema);
        // A replaced schema (same fingerprint) must not keep the old one's plans.
        self.cache.entries.remove(&fp);
        fp
    }

    /// Decodes one message as a [`Value`] (of the reader schema, when there is one).
    ///
    /// # Errors
    /// As [`from_single_object_slice`].
    pub fn decode(&mut self, bytes: &[u8]) -> Result<Value> {
        let (fp, _) = split_single_object(bytes)?;
        let store = &self.store;
        self.cache
            .value(fp, || store.require(fp).cloned(), bytes, HEADER_LEN)
    }

    /// Decodes one message as a `T` (strings and bytes may borrow from `bytes`).
    ///
    /// # Errors
    /// As [`from_single_object_slice`], and data the type cannot hold.
    pub fn decode_serde<'de, T: Deserialize<'de>>(&mut self, bytes: &'de [u8]) -> Result<T> {
        let (fp, _) = split_single_object(bytes)?;
        let store = &self.store;
        self.cache
            .serde(fp, || store.require(fp).cloned(), bytes, HEADER_LEN)
    }
}

/// Reads Confluent-framed messages, keeping each id's schema and compiled plans (so the
/// [`SchemaLookup`] is asked once per id).
///
/// # Examples
/// ```
/// use std::collections::HashMap;
/// use avrokit::single_object::{to_confluent_vec, ConfluentDecoder};
/// use avrokit::{ErrorKind, Schema, Value};
/// let schema = Schema::parse_str(r#""string""#)?;
/// let mut dec = ConfluentDecoder::new(HashMap::from([(1u32, schema.clone())]));
/// let msg = to_confluent_vec(&Value::String("x".into()), &schema, 1)?;
/// assert_eq!(dec.decode(&msg)?, Value::String("x".into()));
/// assert_eq!(dec.decode_serde::<&str>(&msg)?, "x");
/// let unknown = to_confluent_vec(&Value::String("x".into()), &schema, 2)?;
/// assert_eq!(dec.decode(&unknown).unwrap_err().kind(), ErrorKind::Schema);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ConfluentDecoder<L> {
    lookup: L,
    cache: PlanCache<u32>,
}

impl<L: SchemaLookup> ConfluentDecoder<L> {
    /// A decoder reading each message with its writer schema.
    pub fn new(lookup: L) -> ConfluentDecoder<L> {
        ConfluentDecoder {
            lookup,
            cache: PlanCache::new(None),
        }
    }

    /// A decoder resolving every message to `reader`.
    pub fn with_reader_schema(lookup: L, reader: &Schema) -> ConfluentDecoder<L> {
        ConfluentDecoder {
            lookup,
            cache: PlanCache::new(Some(reader)),
        }
    }

    /// Sets the limits datums are decoded with (default: [`Limits::default`]).
    pub fn with_limits(mut self, limits: Limits) -> ConfluentDecoder<L> {
        self.cache.limits = limits;
        self
    }

    /// The schema lookup.
    pub fn lookup(&self) -> &L {
        &self.lookup
    }

    /// Decodes one message as a [`Value`] (of the reader schema, when there is one).
    ///
    /// # Errors
    /// As [`from_confluent_slice`].
    pub fn decode(&mut self, bytes: &[u8]) -> Result<Value> {
        let (id, _) = split_confluent(bytes)?;
        let lookup = &self.lookup;
        self.cache
            .value(id, || lookup.schema(id), bytes, CONFLUENT_HEADER_LEN)
    }

    /// Decodes one message as a `T` (strings and bytes may borrow from `bytes`).
    ///
    /// # Errors
    /// As [`from_confluent_slice`], and data the type cannot hold.
    pub fn decode_serde<'de, T: Deserialize<'de>>(&mut self, bytes: &'de [u8]) -> Result<T> {
        let (id, _) = split_confluent(bytes)?;
        let lookup = &self.lookup;
        self.cache
            .serde(id, || lookup.schema(id), bytes, CONFLUENT_HEADER_LEN)
    }
}
