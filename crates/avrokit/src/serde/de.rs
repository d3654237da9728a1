//! The serde `Deserializer`: Avro binary straight to Rust values, through a compiled
//! writer × reader plan.
//!
//! See the [module docs](super) for the mapping between Rust and Avro types.

use std::io::Read;
use std::sync::Arc;

use ::serde::de::value::{
    BorrowedStrDeserializer, I64Deserializer, StrDeserializer, U8Deserializer,
};
use ::serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer as _, IgnoredAny, IntoDeserializer,
    Visitor,
};
use ::serde::forward_to_deserialize_any;

use super::logical::{format_uuid, Temporal, Text, Unit};
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::{ReaderSource, Reference, SliceSource, Source};
use crate::resolution::ops::{
    enum_out_of_range, skip, unknown_symbol, FixedOut, IntOut, LongOut, Op, OpId, RecordOp, Step,
    StringOut, NO_SYMBOL,
};
use crate::resolution::{PlanInner, ResolvedPlan};
use crate::schema::{NodeId, NodeKind, Schema};
use crate::value::{parse_uuid, Value};

/// A plan for reading Rust values with serde: data written with one schema (the writer's),
/// read in the shape of another (the reader's), or of the same one.
///
/// It wraps the [`ResolvedPlan`] of the pair, so promotions, reordered and skipped fields,
/// defaults, and enum and union remaps are all decided once, when the plan is built. Cheap to
/// clone (an `Arc`), `Send + Sync`.
///
/// # Examples
/// ```
/// use avrokit::{serde::DePlan, Schema};
/// let v1 = Schema::parse_str(r#"{"type":"record","name":"User","fields":[
///     {"name":"id","type":"int"}]}"#)?;
/// let v2 = Schema::parse_str(r#"{"type":"record","name":"User","fields":[
///     {"name":"email","type":["null","string"],"default":null},
///     {"name":"id","type":"long"}]}"#)?;
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct User { id: i64, email: Option<String> }
///
/// let plan = DePlan::resolving(&v1, &v2)?; // once, then reused for every datum
/// let user: User = avrokit::serde::from_datum_slice(&[0x0a], &plan)?;
/// assert_eq!(user, User { id: 5, email: None });
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Clone)]
pub struct DePlan {
    inner: Arc<DeInner>,
}

struct DeInner {
    plan: ResolvedPlan,
    /// The plan's ops, copied here: one pointer hop less per value than through the plan.
    ops: Box<[Op]>,
    /// The reader node each op produces (`u32::MAX` for ops that produce nothing).
    reader_of: Box<[u32]>,
}

impl DePlan {
    /// A plan for reading data written with `schema` as `schema`.
    ///
    /// # Examples
    /// ```
    /// let schema = avrokit::Schema::parse_str(r#""string""#)?;
    /// let plan = avrokit::serde::DePlan::compile(&schema)?;
    /// let s: &str = avrokit::serde::from_datum_slice(&[2, b'x'], &plan)?;
    /// assert_eq!(s, "x");
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// None in practice for a parsed schema (a schema always resolves against itself).
    pub fn compile(schema: &Schema) -> Result<DePlan> {
        Ok(DePlan::from_resolved(ResolvedPlan::compile(
            schema, schema,
        )?))
    }

    /// A plan for reading data written with `writer` as values of `reader`.
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`] when the schemas cannot be resolved (see
    /// [`ResolvedPlan::compile`]).
    pub fn resolving(writer: &Schema, reader: &Schema) -> Result<DePlan> {
        Ok(DePlan::from_resolved(ResolvedPlan::compile(
            writer, reader,
        )?))
    }

    /// A plan from an already compiled [`ResolvedPlan`].
    pub fn from_resolved(plan: ResolvedPlan) -> DePlan {
        let reader_of = reader_nodes(plan.inner());
        let ops = plan.inner().ops.clone();
        DePlan {
            inner: Arc::new(DeInner {
                plan,
                ops,
                reader_of,
            }),
        }
    }

    /// The writer's schema.
    pub fn writer(&self) -> &Schema {
        self.inner.plan.writer()
    }

    /// The reader's schema.
    pub fn reader(&self) -> &Schema {
        self.inner.plan.reader()
    }
}

impl std::fmt::Debug for DePlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("DePlan").field(&self.inner.plan).finish()
    }
}

/// Walks the ops with the reader's schema to find the reader node of every op (the plan keeps
/// only what reading `Value`s needs; serde also wants union branch names and field names).
fn reader_nodes(p: &PlanInner) -> Box<[u32]> {
    let mut out = vec![u32::MAX; p.ops.len()];
    let mut work = vec![(p.root, p.reader.root_id())];
    while let Some((op, r)) = work.pop() {
        let Some(slot) = out.get_mut(op as usize) else {
            continue;
        };
        if *slot != u32::MAX {
            continue;
        }
        *slot = r.0;
        let rk = &p.reader.node(r).kind;
        match (&p.ops[op as usize], rk) {
            (Op::Union(branches), _) => work.extend(branches.iter().map(|&b| (b, r))),
            (Op::Wrap { index, op }, NodeKind::Union(u)) => {
                if let Some(&b) = u.variants.get(*index as usize) {
                    work.push((*op, b));
                }
            }
            (Op::Array { item, .. }, NodeKind::Array(a)) => work.push((*item, a.items)),
            (Op::Map(v), NodeKind::Map(m)) => work.push((*v, m.values)),
            (Op::Record(rec), NodeKind::Record(rr)) => {
                for s in rec.steps.iter() {
                    if let Step::Read { op, to } = s {
                        if let Some(f) = rr.fields.get(*to as usize) {
                            work.push((*op, f.schema));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out.into()
}

/// Reads Rust values from Avro datums through a [`DePlan`], one after another.
///
/// Over a slice ([`Deserializer::from_slice`]) strings and bytes borrow from the input:
/// `&'de str`, `&'de [u8]` (with `serde_bytes`) and `Cow<'de, str>` (with `#[serde(borrow)]`)
/// cost no copy. Over a reader ([`Deserializer::from_reader`]) they are copied (the reader
/// is buffered internally: do not add a `BufReader`).
///
/// # Examples
/// ```
/// use avrokit::{serde::{DePlan, Deserializer}, Schema};
/// let plan = DePlan::compile(&Schema::parse_str(r#""long""#)?)?;
/// let mut de = Deserializer::from_slice(&[2, 4, 6], &plan);
/// let mut sum = 0i64;
/// while !de.is_empty()? {
///     sum += de.deserialize::<i64>()?;
/// }
/// assert_eq!(sum, 6);
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct Deserializer<'de, S: Source<'de>> {
    dec: Decoder<'de, S>,
    plan: DePlan,
}

impl<'de> Deserializer<'de, SliceSource<'de>> {
    /// A deserializer over a slice holding one or more datums; strings and bytes borrow from it.
    pub fn from_slice(bytes: &'de [u8], plan: &DePlan) -> Self {
        Deserializer::new(Decoder::from_slice(bytes), plan)
    }
}

impl<R: Read> Deserializer<'static, ReaderSource<R>> {
    /// A deserializer over any `io::Read` (buffered internally, 64 KiB).
    pub fn from_reader(reader: R, plan: &DePlan) -> Self {
        Deserializer::new(Decoder::from_reader(reader), plan)
    }
}

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// A deserializer over a decoder (to choose its [`Limits`](crate::Limits) or source).
    pub fn new(dec: Decoder<'de, S>, plan: &DePlan) -> Self {
        Deserializer {
            dec,
            plan: plan.clone(),
        }
    }

    /// Reads the next datum as a `T`.
    ///
    /// # Errors
    /// Malformed or truncated data ([`ErrorKind::Eof`]), data the type cannot hold, or a datum
    /// the reader's schema cannot represent; the error has the byte offset and the path of the
    /// value.
    #[inline]
    pub fn deserialize<T: de::Deserialize<'de>>(&mut self) -> Result<T> {
        deserialize_from(&mut self.dec, &self.plan)
    }

    /// True when the input has no byte left.
    ///
    /// # Errors
    /// When the reader fails.
    pub fn is_empty(&mut self) -> Result<bool> {
        self.dec.is_empty()
    }

    /// The decoder, to read other data in between.
    pub fn decoder_mut(&mut self) -> &mut Decoder<'de, S> {
        &mut self.dec
    }

    /// Returns the decoder.
    pub fn into_decoder(self) -> Decoder<'de, S> {
        self.dec
    }
}

/// Reads one datum as a `T` from a decoder the caller keeps: what [`Deserializer::deserialize`]
/// does, for callers that only lend a decoder (the container reader's `next_with` hook).
#[inline]
pub(crate) fn deserialize_from<'de, S: Source<'de>, T: de::Deserialize<'de>>(
    dec: &mut Decoder<'de, S>,
    plan: &DePlan,
) -> Result<T> {
    let p = &*plan.inner;
    let pi = p.plan.inner();
    let de = OpDe {
        dec: &mut *dec,
        p,
        op: pi.root,
    };
    match T::deserialize(de) {
        Ok(v) => Ok(v),
        Err(e) => {
            let e = e.or_offset(dec.offset());
            Err(match pi.reader.root().name() {
                Some(n) => e.in_field(n.name().to_owned()),
                None => e,
            })
        }
    }
}

/// Decodes one datum from `bytes`, which must hold exactly that datum. Strings and bytes in
/// `T` may borrow from `bytes`.
///
/// # Examples
/// ```
/// let plan = avrokit::serde::DePlan::compile(&avrokit::Schema::parse_str(
///     r#"{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}"#)?)?;
/// #[derive(serde::Deserialize)]
/// struct R<'a> { s: &'a str }
/// let bytes = [4, b'h', b'i'];
/// let r: R = avrokit::serde::from_datum_slice(&bytes, &plan)?;
/// assert_eq!(r.s, "hi");
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`Deserializer::deserialize`], and bytes left over after the datum.
pub fn from_datum_slice<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    plan: &DePlan,
) -> Result<T> {
    let mut de = Deserializer::from_slice(bytes, plan);
    let v = de.deserialize()?;
    let rest = de.dec.rest();
    if !rest.is_empty() {
        return Err(Error::at(
            ErrorKind::Data,
            format!("{} bytes left over after the datum", rest.len()),
            de.dec.offset(),
        ));
    }
    Ok(v)
}

/// Decodes one datum from a reader (buffered internally; bytes read ahead are dropped, use a
/// [`Deserializer`] to read several datums).
///
/// # Examples
/// ```
/// let plan = avrokit::serde::DePlan::compile(&avrokit::Schema::parse_str(r#""int""#)?)?;
/// let v: i32 = avrokit::serde::from_datum_reader(&[0x03][..], &plan)?;
/// assert_eq!(v, -2);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`Deserializer::deserialize`], and a failing reader.
pub fn from_datum_reader<R: Read, T: DeserializeOwned>(reader: R, plan: &DePlan) -> Result<T> {
    Deserializer::from_reader(reader, plan).deserialize()
}

/// Deserializes one value produced by one op.
struct OpDe<'a, 'de, S: Source<'de>> {
    dec: &'a mut Decoder<'de, S>,
    p: &'a DeInner,
    op: OpId,
}

#[cold]
#[inline(never)]
fn fail(op: &Op, at: u64) -> Error {
    match op {
        Op::Fail(f) => Error::at(ErrorKind::Resolution, f.message.to_string(), at),
        _ => Error::at(ErrorKind::Resolution, "internal: unfinished plan", at),
    }
}

#[cold]
#[inline(never)]
fn bad_union_index(i: u32, n: usize, at: u64) -> Error {
    Error::at(
        ErrorKind::Data,
        format!("union index {i} out of range for a union of {n} branches"),
        at,
    )
}

#[cold]
#[inline(never)]
fn wrong_shape(what: &str, at: u64) -> Error {
    Error::at(ErrorKind::Data, format!("the data holds {what}"), at)
}

/// The name a Rust enum variant is matched with: a named type's short name, else the type
/// name (`"int"`, `"null"`...).
fn branch_name(schema: &Schema, id: NodeId) -> &str {
    let node = schema.node(id);
    match node.name() {
        Some(n) => n.name(),
        None => node.kind.type_name(),
    }
}

/// Picks the Rust variant for branch `index` named `name` of the reader's `union`: the variant
/// of that name (exactly, then ignoring ASCII case), else the variant at the same position. When
/// the Rust enum has as many variants as the union has branches besides `null` (an
/// `Option<Enum>` reading `["null", A, B]`: `null` is `None`), positions skip the `null` branch.
fn pick_variant<'v>(
    schema: &Schema,
    union: Option<NodeId>,
    name: &'v str,
    index: u32,
    variants: &'static [&'static str],
) -> &'v str {
    if let Some(v) = variants.iter().find(|v| **v == name) {
        return v;
    }
    if let Some(v) = variants.iter().find(|v| v.eq_ignore_ascii_case(name)) {
        return v;
    }
    let mut pos = index as usize;
    if let Some(NodeKind::Union(u)) = union.map(|id| &schema.node(id).kind) {
        let is_null = |b: &&NodeId| matches!(schema.node(**b).kind, NodeKind::Null);
        let nulls = u.variants.iter().filter(is_null).count();
        if nulls > 0 && variants.len() + nulls == u.variants.len() {
            pos -= u.variants.iter().take(pos).filter(is_null).count();
        }
    }
    match variants.get(pos) {
        Some(v) => v,
        None => name,
    }
}

/// The date or time a reader `int` or `long` op has, if any.
#[inline]
fn temporal_of(op: &Op) -> Option<Temporal> {
    match op {
        Op::Int(out) => Temporal::of_int(*out),
        Op::Long(out) | Op::IntToLong(out) => Temporal::of_long(*out),
        _ => None,
    }
}

/// The date or time a default value has, if any.
fn temporal_value(v: &Value) -> Option<(Temporal, i64)> {
    Some(match *v {
        Value::Date(v) => (Temporal::Date, v.into()),
        Value::TimeMillis(v) => (Temporal::Time(Unit::Millis), v.into()),
        Value::TimeMicros(v) => (Temporal::Time(Unit::Micros), v),
        Value::TimestampMillis(v) => (Temporal::Timestamp(Unit::Millis), v),
        Value::TimestampMicros(v) => (Temporal::Timestamp(Unit::Micros), v),
        Value::TimestampNanos(v) => (Temporal::Timestamp(Unit::Nanos), v),
        Value::LocalTimestampMillis(v) => (Temporal::Local(Unit::Millis), v),
        Value::LocalTimestampMicros(v) => (Temporal::Local(Unit::Micros), v),
        Value::LocalTimestampNanos(v) => (Temporal::Local(Unit::Nanos), v),
        _ => return None,
    })
}

/// A date or time as the text chrono parses.
fn visit_temporal_str<'de, V: Visitor<'de>>(t: Temporal, v: i64, visitor: V) -> Result<V::Value> {
    let mut out = Text::new();
    t.format(v, &mut out)?;
    visitor.visit_str(out.as_str())
}

/// A date or time as the tuple of `len` components the `time` crate reads.
fn visit_temporal_tuple<'de, V: Visitor<'de>>(
    t: Temporal,
    v: i64,
    len: usize,
    visitor: V,
) -> Result<V::Value> {
    match t.parts(v, len)? {
        Some((parts, n)) => visitor.visit_seq(Parts { parts, n, i: 0 }),
        None => Err(Error::data(format!(
            "a {} cannot be read as a tuple of {len}",
            t.name()
        ))),
    }
}

fn visit_uuid_str<'de, V: Visitor<'de>>(u: &[u8; 16], visitor: V) -> Result<V::Value> {
    let mut out = Text::new();
    format_uuid(u, &mut out);
    visitor.visit_str(out.as_str())
}

/// The components of a date or time, as a sequence of integers.
struct Parts {
    parts: [i64; 9],
    n: usize,
    i: usize,
}

impl<'de> de::SeqAccess<'de> for Parts {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.i >= self.n {
            return Ok(None);
        }
        let v = self.parts[self.i];
        self.i += 1;
        seed.deserialize(I64Deserializer::<Error>::new(v)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.n - self.i)
    }
}

impl<'a, 'de, S: Source<'de>> OpDe<'a, 'de, S> {
    #[inline(always)]
    fn ops(&self) -> &'a [Op] {
        &self.p.ops
    }

    #[inline(always)]
    fn with(self, op: OpId) -> Self {
        OpDe { op, ..self }
    }

    fn reader(&self) -> &'a Schema {
        &self.p.plan.inner().reader
    }

    /// Reads a writer union's index: the op of the branch.
    #[inline]
    fn union_branch(&mut self, branches: &[OpId]) -> Result<OpId> {
        let at = self.dec.offset();
        let i = self.dec.read_union_index()?;
        match branches.get(i as usize) {
            Some(&b) => Ok(b),
            None => Err(bad_union_index(i, branches.len(), at)),
        }
    }

    fn record<V: Visitor<'de>>(self, rec: &'a RecordOp, visitor: V) -> Result<V::Value> {
        self.dec.enter()?;
        let names = match &self.reader().node(rec.reader).kind {
            NodeKind::Record(r) => Some(r),
            _ => None,
        };
        let mut access = RecordAccess {
            dec: self.dec,
            p: self.p,
            rec,
            reader: names,
            step: 0,
            default: 0,
            pending: Pending::None,
        };
        let v = visitor.visit_map(Fields(&mut access))?;
        // A visitor that stopped early (it never does for derived types) leaves fields unread.
        while de::MapAccess::next_key::<IgnoredAny>(&mut access)?.is_some() {
            de::MapAccess::next_value::<IgnoredAny>(&mut access)?;
        }
        access.dec.leave();
        Ok(v)
    }

    fn array<V: Visitor<'de>>(self, item: OpId, zero: bool, visitor: V) -> Result<V::Value> {
        self.dec.enter()?;
        let mut access = ArrayAccess {
            dec: self.dec,
            p: self.p,
            item,
            zero,
            left: 0,
            count: 0,
            done: false,
        };
        access.next_block()?;
        let v = visitor.visit_seq(Items(&mut access))?;
        while de::SeqAccess::next_element::<IgnoredAny>(&mut access)?.is_some() {}
        access.dec.leave();
        Ok(v)
    }

    fn bytes_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let op = &self.ops()[self.op as usize];
        let r = match op {
            Op::Bytes(_) | Op::String(_) => self.dec.read_bytes_ref()?,
            Op::Fixed { size, .. } => self.dec.read_fixed_ref(*size)?,
            _ => return self.deserialize_any(visitor),
        };
        let mut access = ByteSeq { bytes: &r, pos: 0 };
        visitor.visit_seq(&mut access)
    }
}

impl<'de, S: Source<'de>> de::Deserializer<'de> for OpDe<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let ops = self.ops();
        match &ops[self.op as usize] {
            Op::Null => visitor.visit_unit(),
            Op::Boolean => visitor.visit_bool(self.dec.read_boolean()?),
            Op::Int(_) => visitor.visit_i32(self.dec.read_int()?),
            Op::IntToLong(_) => visitor.visit_i64(i64::from(self.dec.read_int()?)),
            // `as` rounds to the nearest float, as Java's widening conversions do.
            Op::IntToFloat => visitor.visit_f32(self.dec.read_int()? as f32),
            Op::IntToDouble => visitor.visit_f64(f64::from(self.dec.read_int()?)),
            Op::Long(_) => visitor.visit_i64(self.dec.read_long()?),
            Op::LongToFloat => visitor.visit_f32(self.dec.read_long()? as f32),
            Op::LongToDouble => visitor.visit_f64(self.dec.read_long()? as f64),
            Op::Float => visitor.visit_f32(self.dec.read_float()?),
            Op::FloatToDouble => visitor.visit_f64(f64::from(self.dec.read_float()?)),
            Op::Double => visitor.visit_f64(self.dec.read_double()?),
            Op::Bytes(_) => match self.dec.read_bytes_ref()? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
            Op::String(_) => match self.dec.read_str_ref()? {
                Reference::Borrowed(s) => visitor.visit_borrowed_str(s),
                Reference::Copied(s) => visitor.visit_str(s),
            },
            Op::Fixed { size, .. } => match self.dec.read_fixed_ref(*size)? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
            Op::Enum(_) => {
                let sym = self.symbol()?;
                visitor.visit_str(sym)
            }
            Op::Array {
                item,
                zero_size_items,
            } => self.array(*item, *zero_size_items, visitor),
            Op::Map(values) => {
                self.dec.enter()?;
                let mut access = MapAccess {
                    dec: self.dec,
                    p: self.p,
                    values: *values,
                    left: 0,
                    count: 0,
                    done: false,
                };
                access.next_block()?;
                let v = visitor.visit_map(&mut access)?;
                while de::MapAccess::next_key::<IgnoredAny>(&mut access)?.is_some() {
                    de::MapAccess::next_value::<IgnoredAny>(&mut access)?;
                }
                access.dec.leave();
                Ok(v)
            }
            Op::Record(rec) => self.record(rec, visitor),
            Op::Union(branches) => self.any_union(branches, visitor),
            Op::Wrap { op, .. } => self.with(*op).any_wrapped(visitor),
            op @ (Op::Fail(_) | Op::Pending) => Err(fail(op, self.dec.offset())),
        }
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let ops = self.ops();
        let is_null = |op: OpId| match &ops[op as usize] {
            Op::Null => true,
            Op::Wrap { op, .. } => matches!(ops[*op as usize], Op::Null),
            _ => false,
        };
        match &ops[self.op as usize] {
            Op::Union(branches) => {
                let b = self.union_branch(branches)?;
                if is_null(b) {
                    return visitor.visit_none();
                }
                self.dec.enter()?;
                let dec = &mut *self.dec;
                let v = visitor.visit_some(OpDe {
                    dec,
                    p: self.p,
                    op: b,
                })?;
                self.dec.leave();
                Ok(v)
            }
            _ if is_null(self.op) => visitor.visit_none(),
            Op::Wrap { op, .. } => visitor.visit_some(self.with(*op)),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let ops = self.ops();
        match &ops[self.op as usize] {
            Op::Enum(_) => {
                let sym = self.symbol()?;
                visitor.visit_enum(StrDeserializer::<Error>::new(sym))
            }
            Op::String(_) => match self.dec.read_str_ref()? {
                Reference::Borrowed(s) => visitor.visit_enum(BorrowedStrDeserializer::new(s)),
                Reference::Copied(s) => visitor.visit_enum(StrDeserializer::new(s)),
            },
            Op::Union(branches) => {
                let b = self.union_branch(branches)?;
                self.dec.enter()?;
                let dec = &mut *self.dec;
                let de = OpDe {
                    dec,
                    p: self.p,
                    op: b,
                };
                // An enum or string branch is the Rust enum itself (`Option<Suit>`), unless
                // the Rust enum has a variant named after the branch (a union's enum).
                let v = match &ops[b as usize] {
                    Op::Enum(_) | Op::String(_) | Op::Wrap { .. }
                        if !de.branch_names_a_variant(variants) =>
                    {
                        de.deserialize_enum(_name, variants, visitor)?
                    }
                    _ => de.variant(variants, visitor)?,
                };
                self.dec.leave();
                Ok(v)
            }
            // An Avro enum inside a reader union (`Option<Suit>` reading `["null", Suit]`).
            Op::Wrap { op, .. }
                if matches!(ops[*op as usize], Op::Enum(_))
                    && !self.branch_names_a_variant(variants) =>
            {
                let sym = self.with(*op).symbol()?;
                visitor.visit_enum(StrDeserializer::<Error>::new(sym))
            }
            Op::Wrap { .. } => self.variant(variants, visitor),
            _ => Err(wrong_shape(
                "no enum or union for a Rust enum",
                self.dec.offset(),
            )),
        }
    }

    // Always inlined, as `deserialize_any` is for the other types: strings are read in place.
    #[inline(always)]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::String(_) => match self.dec.read_str_ref()? {
                Reference::Borrowed(s) => visitor.visit_borrowed_str(s),
                Reference::Copied(s) => visitor.visit_str(s),
            },
            Op::Int(IntOut::Int) | Op::Long(LongOut::Long) | Op::IntToLong(LongOut::Long) => {
                self.deserialize_any(visitor)
            }
            // Dates and times as text, a fixed uuid as text; unions to their branch.
            Op::Int(_)
            | Op::Long(_)
            | Op::IntToLong(_)
            | Op::Fixed {
                out: FixedOut::Uuid,
                ..
            }
            | Op::Union(_) => self.text(visitor),
            Op::Wrap { op, .. } => self.with(*op).str_wrapped(visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            // A uuid as its 16 bytes (what `uuid::Uuid` asks a binary format for).
            Op::String(StringOut::Uuid) => self.uuid_bytes(visitor),
            Op::String(_) => match self.dec.read_bytes_ref()? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
            Op::Union(_) | Op::Wrap { .. } => {
                self.in_branch(visitor, |d, v| d.deserialize_bytes(v))
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Array {
                item,
                zero_size_items,
            } => self.array(*item, *zero_size_items, visitor),
            Op::Bytes(_) | Op::Fixed { .. } | Op::String(_) => self.bytes_seq(visitor),
            Op::Union(_) | Op::Wrap { .. } => self.in_branch(visitor, |d, v| d.deserialize_seq(v)),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Bytes(_) | Op::Fixed { .. } | Op::String(_) => self.bytes_seq(visitor),
            // A `time` crate date or time, as its components.
            Op::Int(out) if *out != IntOut::Int => self.temporal_tuple(len, visitor),
            Op::Long(out) | Op::IntToLong(out) if *out != LongOut::Long => {
                self.temporal_tuple(len, visitor)
            }
            Op::Union(_) | Op::Wrap { .. } => {
                self.in_branch(visitor, |d, v| d.deserialize_tuple(len, v))
            }
            Op::Record(rec) => {
                if !rec.swaps.is_empty() {
                    return Err(wrong_shape(
                        "a record whose fields the writer ordered differently, read as a tuple",
                        self.dec.offset(),
                    ));
                }
                self.dec.enter()?;
                let mut access = RecordAccess {
                    dec: self.dec,
                    p: self.p,
                    rec,
                    reader: None,
                    step: 0,
                    default: 0,
                    pending: Pending::None,
                };
                let v = visitor.visit_seq(&mut access)?;
                while de::SeqAccess::next_element::<IgnoredAny>(&mut access)?.is_some() {}
                access.dec.leave();
                Ok(v)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Record(_) => {
                self.deserialize_any(IgnoredAny)?;
                visitor.visit_unit()
            }
            _ => self.deserialize_any(visitor),
        }
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    // The primitives read their own op in place, and leave every other op (promotions,
    // unions, logical types) to `deserialize_any`, out of line: the per-item cost of a
    // `Vec<f32>` or a struct of numbers is one compare, the read and the visit.
    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Boolean => visitor.visit_bool(self.dec.read_boolean()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i32(visitor)
    }

    #[inline(always)]
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i32(visitor)
    }

    #[inline(always)]
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Int(_) => visitor.visit_i32(self.dec.read_int()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Long(_) => visitor.visit_i64(self.dec.read_long()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Float => visitor.visit_f32(self.dec.read_float()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Double => visitor.visit_f64(self.dec.read_double()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Record(rec) => self.record(rec, visitor),
            _ => self.any_other(visitor),
        }
    }

    forward_to_deserialize_any! {
        i128 u8 u16 u32 u64 u128 char
        unit map identifier ignored_any
    }
}

impl<'a, 'de, S: Source<'de>> OpDe<'a, 'de, S> {
    /// `deserialize_any`, out of line: the slow path of the typed `deserialize_*`.
    #[inline(never)]
    fn any_other<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }

    // Unions and wraps recurse into `deserialize_any`; keeping them out of line keeps
    // `deserialize_any` free of recursion, so it inlines into the callers' loops.
    #[inline(never)]
    fn any_union<V: Visitor<'de>>(mut self, branches: &[OpId], visitor: V) -> Result<V::Value> {
        let b = self.union_branch(branches)?;
        self.dec.enter()?;
        let dec = &mut *self.dec;
        let v = OpDe {
            dec,
            p: self.p,
            op: b,
        }
        .deserialize_any(visitor)?;
        self.dec.leave();
        Ok(v)
    }

    #[inline(never)]
    fn any_wrapped<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }

    #[inline(never)]
    fn str_wrapped<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_str(self, visitor)
    }

    /// Moves into a union's branch (reading its index) or a wrapped op, and goes on there with
    /// `f`.
    #[inline(never)]
    fn in_branch<V: Visitor<'de>>(
        mut self,
        visitor: V,
        f: impl for<'x> FnOnce(OpDe<'x, 'de, S>, V) -> Result<V::Value>,
    ) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Union(branches) => {
                let b = self.union_branch(branches)?;
                self.dec.enter()?;
                let v = f(
                    OpDe {
                        dec: &mut *self.dec,
                        p: self.p,
                        op: b,
                    },
                    visitor,
                )?;
                self.dec.leave();
                Ok(v)
            }
            Op::Wrap { op, .. } => f(self.with(*op), visitor),
            _ => de::Deserializer::deserialize_any(self, visitor),
        }
    }

    /// The count of a date or time op.
    #[inline]
    fn read_count(&mut self, op: &Op) -> Result<i64> {
        match op {
            Op::Int(_) | Op::IntToLong(_) => self.dec.read_int().map(i64::from),
            _ => self.dec.read_long(),
        }
    }

    /// A string for a date or time (as chrono reads it) or a fixed uuid; a union's branch.
    #[inline(never)]
    fn text<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let op = &self.ops()[self.op as usize];
        if let Some(t) = temporal_of(op) {
            let v = self.read_count(op)?;
            return visit_temporal_str(t, v, visitor);
        }
        match op {
            Op::Fixed {
                size,
                out: FixedOut::Uuid,
            } => {
                let r = self.dec.read_fixed_ref(*size)?;
                match <&[u8; 16]>::try_from(&*r) {
                    Ok(u) => visit_uuid_str(u, visitor),
                    Err(_) => visitor.visit_bytes(&r),
                }
            }
            Op::Union(_) | Op::Wrap { .. } => self.in_branch(visitor, |d, v| d.deserialize_str(v)),
            _ => de::Deserializer::deserialize_any(self, visitor),
        }
    }

    /// A uuid string as its 16 bytes (the text itself when it is not a uuid).
    #[inline(never)]
    fn uuid_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let r = self.dec.read_bytes_ref()?;
        match std::str::from_utf8(&r).ok().and_then(parse_uuid) {
            Some(u) => visitor.visit_bytes(&u),
            None => match r {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
        }
    }

    /// A date or time as the tuple of components the `time` crate reads.
    #[inline(never)]
    fn temporal_tuple<V: Visitor<'de>>(mut self, len: usize, visitor: V) -> Result<V::Value> {
        let op = &self.ops()[self.op as usize];
        match temporal_of(op) {
            Some(t) => {
                let v = self.read_count(op)?;
                visit_temporal_tuple(t, v, len, visitor)
            }
            None => de::Deserializer::deserialize_any(self, visitor),
        }
    }

    /// Reads an enum op's symbol: the reader's symbol name.
    fn symbol(&mut self) -> Result<&'a str> {
        let p = self.p.plan.inner();
        let Op::Enum(e) = &p.ops[self.op as usize] else {
            return Err(wrong_shape("no enum", self.dec.offset()));
        };
        let at = self.dec.offset();
        let i = self.dec.read_enum()?;
        let r = match e.table.get(i as usize) {
            Some(&r) if r != NO_SYMBOL => r,
            Some(_) => return Err(unknown_symbol(p, e.writer, i, at)),
            None => return Err(enum_out_of_range(p, e.writer, i, at)),
        };
        let node = self.p.reader_of[self.op as usize];
        match p.reader.nodes().get(node as usize).map(|n| &n.kind) {
            Some(NodeKind::Enum(re)) => match re.symbols.get(r as usize) {
                Some(s) => Ok(s),
                None => Err(enum_out_of_range(p, e.writer, i, at)),
            },
            _ => Err(wrong_shape("no enum", at)),
        }
    }

    /// True when the reader type of this union branch (a `Wrap`'s, or this op's) is named
    /// like one of `variants`, ignoring ASCII case: the Rust enum stands for the union.
    fn branch_names_a_variant(&self, variants: &[&str]) -> bool {
        let p = self.p.plan.inner();
        let op = match &p.ops[self.op as usize] {
            Op::Wrap { op, .. } => *op,
            _ => self.op,
        };
        let node = self.p.reader_of.get(op as usize).copied();
        match node.filter(|&n| (n as usize) < p.reader.nodes().len()) {
            Some(n) => {
                let name = branch_name(&p.reader, NodeId(n));
                let full = p.reader.node(NodeId(n)).name().map(|n| n.fullname());
                variants
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(name) || full == Some(*v))
            }
            None => false,
        }
    }

    /// A Rust enum variant from a reader union branch (the op is a `Wrap`, or a value the
    /// reader holds outside a union).
    fn variant<V: Visitor<'de>>(
        self,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let p = self.p.plan.inner();
        let (index, inner, union) = match &p.ops[self.op as usize] {
            Op::Wrap { index, op } => (
                *index,
                *op,
                self.p
                    .reader_of
                    .get(self.op as usize)
                    .filter(|&&n| (n as usize) < p.reader.nodes().len())
                    .map(|&n| NodeId(n)),
            ),
            _ => (0, self.op, None),
        };
        let node = self
            .p
            .reader_of
            .get(inner as usize)
            .copied()
            .unwrap_or(u32::MAX);
        let name = match p.reader.nodes().get(node as usize) {
            Some(_) => branch_name(&p.reader, NodeId(node)),
            None => "",
        };
        let variant = pick_variant(&p.reader, union, name, index, variants);
        visitor.visit_enum(VariantDe {
            de: self.with(inner),
            variant,
        })
    }
}

/// A Rust enum variant over a union branch.
struct VariantDe<'a, 'de, S: Source<'de>> {
    de: OpDe<'a, 'de, S>,
    variant: &'a str,
}

impl<'a, 'de, S: Source<'de>> de::EnumAccess<'de> for VariantDe<'a, 'de, S> {
    type Error = Error;
    type Variant = OpDe<'a, 'de, S>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant)> {
        let v = seed.deserialize(StrDeserializer::<Error>::new(self.variant))?;
        Ok((v, self.de))
    }
}

impl<'de, S: Source<'de>> de::VariantAccess<'de> for OpDe<'_, 'de, S> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        // The branch is `null` or an empty record; anything else is read and dropped.
        self.deserialize_any(IgnoredAny).map(drop)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }
}

/// Which value the record access hands out next.
enum Pending {
    None,
    /// Step `k` reads with op `op`.
    Read(usize, OpId),
    Default(usize),
}

/// A record's fields as a serde map (field name to value) or, for tuples, a sequence: the
/// writer's fields in writer order (writer-only fields skipped), then the reader-only fields'
/// defaults. Serde's derived `Deserialize` matches fields by name, so no reordering is needed.
struct RecordAccess<'a, 'de, S: Source<'de>> {
    dec: &'a mut Decoder<'de, S>,
    p: &'a DeInner,
    rec: &'a RecordOp,
    reader: Option<&'a crate::schema::RecordSchema>,
    step: usize,
    default: usize,
    pending: Pending,
}

impl<'a, 'de, S: Source<'de>> RecordAccess<'a, 'de, S> {
    /// Moves to the next field that has a value; false at the end.
    #[inline(always)]
    fn advance(&mut self) -> Result<bool> {
        // The common case, a field the writer wrote and the reader reads, stays inline.
        match self.rec.steps.get(self.step) {
            Some(Step::Read { op, .. }) => {
                self.pending = Pending::Read(self.step, *op);
                self.step += 1;
                Ok(true)
            }
            None if self.default >= self.rec.defaults.len() => Ok(false),
            _ => self.advance_slow(),
        }
    }

    /// Skips writer-only fields, then hands out the reader-only fields' defaults.
    #[inline(never)]
    fn advance_slow(&mut self) -> Result<bool> {
        let p = self.p.plan.inner();
        while let Some(step) = self.rec.steps.get(self.step) {
            let k = self.step;
            self.step += 1;
            match step {
                Step::Read { op, .. } => {
                    self.pending = Pending::Read(k, *op);
                    return Ok(true);
                }
                Step::Skip(s) => {
                    skip(self.dec, p, *s).map_err(|e| e.in_field(self.rec.names[k].to_string()))?
                }
            }
        }
        if self.default < self.rec.defaults.len() {
            self.pending = Pending::Default(self.default);
            self.default += 1;
            return Ok(true);
        }
        Ok(false)
    }

    fn name(&self) -> &'a str {
        match self.pending {
            Pending::Read(k, _) => &self.rec.names[k],
            Pending::Default(i) => {
                let pos = self.rec.defaults[i].0 as usize;
                self.reader
                    .and_then(|r| r.fields.get(pos))
                    .map_or("", |f| f.name.as_str())
            }
            Pending::None => "",
        }
    }

    #[inline(always)]
    fn value<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::Read(k, op) => match seed.deserialize(OpDe {
                dec: &mut *self.dec,
                p: self.p,
                op,
            }) {
                Ok(v) => Ok(v),
                Err(e) => Err(self.field_error(e, k)),
            },
            Pending::Default(i) => self.default_value(i, seed),
            Pending::None => Err(wrong_shape("no value here", self.dec.offset())),
        }
    }

    /// The error of step `k`'s field, with its name.
    #[cold]
    #[inline(never)]
    fn field_error(&self, e: Error, k: usize) -> Error {
        e.in_field(self.rec.names[k].to_string())
    }

    /// Reader-only field `i`'s default.
    #[inline(never)]
    fn default_value<T: DeserializeSeed<'de>>(&mut self, i: usize, seed: T) -> Result<T::Value> {
        let (pos, value) = &self.rec.defaults[i];
        let reader = &self.p.plan.inner().reader;
        let node = match &reader.node(self.rec.reader).kind {
            NodeKind::Record(r) => r.fields.get(*pos as usize).map(|f| f.schema),
            _ => None,
        };
        match node {
            Some(node) => seed.deserialize(ValueDe {
                v: value,
                schema: reader,
                node,
            }),
            None => Err(wrong_shape("no default here", self.dec.offset())),
        }
    }
}

impl<'de, S: Source<'de>> de::MapAccess<'de> for RecordAccess<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if !self.advance()? {
            return Ok(None);
        }
        seed.deserialize(StrDeserializer::<Error>::new(self.name()))
            .map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.value(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rec.len as usize)
    }
}

/// The visitor's handle on a [`RecordAccess`], by value, as [`Items`] for arrays: the
/// per-field `next_key` and `next_value` calls are inlined into the visitor.
struct Fields<'x, 'a, 'de, S: Source<'de>>(&'x mut RecordAccess<'a, 'de, S>);

impl<'de, S: Source<'de>> de::MapAccess<'de> for Fields<'_, '_, 'de, S> {
    type Error = Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        de::MapAccess::next_key_seed(&mut *self.0, seed)
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.0.value(seed)
    }

    #[inline(always)]
    fn next_key<K: de::Deserialize<'de>>(&mut self) -> Result<Option<K>> {
        de::MapAccess::next_key_seed(&mut *self.0, std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value<V: de::Deserialize<'de>>(&mut self) -> Result<V> {
        self.0.value(std::marker::PhantomData)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        de::MapAccess::size_hint(&*self.0)
    }
}

impl<'de, S: Source<'de>> de::SeqAccess<'de> for RecordAccess<'_, 'de, S> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if !self.advance()? {
            return Ok(None);
        }
        self.value(seed).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rec.len as usize)
    }
}

/// An array's items, block by block.
struct ArrayAccess<'a, 'de, S: Source<'de>> {
    dec: &'a mut Decoder<'de, S>,
    p: &'a DeInner,
    item: OpId,
    zero: bool,
    /// Items left in this block.
    left: u64,
    /// Items up to the end of this block.
    count: u64,
    done: bool,
}

impl<'de, S: Source<'de>> ArrayAccess<'_, 'de, S> {
    fn next_block(&mut self) -> Result<()> {
        let (n, _) = self.dec.read_block_header()?;
        if n == 0 {
            self.done = true;
            return Ok(());
        }
        // Items that take no bytes (null, empty records) cannot be checked against the bytes
        // left: they share the value's budget for such items, so nesting cannot multiply it.
        if self.zero {
            self.dec.check_zero_size_items(n, 1)?;
        } else {
            self.dec.check_items(n, 1, 0)?;
        }
        let count = self.count.saturating_add(n);
        self.dec.check_items(count, 0, 1)?;
        self.count = count;
        self.left = n;
        Ok(())
    }

    /// At the end of a block: reads the next one; false at the end of the array.
    #[inline(never)]
    fn refill(&mut self) -> Result<bool> {
        if !self.done {
            self.next_block()?;
        }
        Ok(!self.done)
    }

    /// The error of the item just read, with its index.
    #[cold]
    #[inline(never)]
    fn item_error(&self, e: Error) -> Error {
        // `count` is the items up to the end of this block, `left` those after this one.
        e.in_index(self.count - self.left - 1)
    }
}

impl<'de, S: Source<'de>> de::SeqAccess<'de> for ArrayAccess<'_, 'de, S> {
    type Error = Error;

    // Always inlined into the visitor's loop; block boundaries and errors are out of line.
    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 && !self.refill()? {
            return Ok(None);
        }
        self.left -= 1;
        match seed.deserialize(OpDe {
            dec: &mut *self.dec,
            p: self.p,
            op: self.item,
        }) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(self.item_error(e)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        // The first block's count: serde caps what it preallocates from a hint.
        usize::try_from(self.left).ok()
    }
}

/// The visitor's handle on an [`ArrayAccess`], by value: serde's `impl SeqAccess for &mut A`
/// is a call per item the optimizer does not always inline; here `next_element` itself is
/// inlined into the visitor's loop.
struct Items<'x, 'a, 'de, S: Source<'de>>(&'x mut ArrayAccess<'a, 'de, S>);

impl<'de, S: Source<'de>> de::SeqAccess<'de> for Items<'_, '_, 'de, S> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.0.next_element_seed(seed)
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.0.next_element_seed(std::marker::PhantomData)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        de::SeqAccess::size_hint(&*self.0)
    }
}

/// A map's entries, block by block; keys borrow from the input where they can.
struct MapAccess<'a, 'de, S: Source<'de>> {
    dec: &'a mut Decoder<'de, S>,
    p: &'a DeInner,
    values: OpId,
    left: u64,
    count: u64,
    done: bool,
}

impl<'de, S: Source<'de>> MapAccess<'_, 'de, S> {
    fn next_block(&mut self) -> Result<()> {
        let (n, _) = self.dec.read_block_header()?;
        if n == 0 {
            self.done = true;
            return Ok(());
        }
        // A key takes at least its length byte.
        self.dec.check_items(n, 1, 0)?;
        self.dec.check_items(self.count.saturating_add(n), 0, 1)?;
        self.left = n;
        Ok(())
    }
}

impl<'de, S: Source<'de>> de::MapAccess<'de> for MapAccess<'_, 'de, S> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            if self.done {
                return Ok(None);
            }
            self.next_block()?;
            if self.done {
                return Ok(None);
            }
        }
        self.left -= 1;
        self.count += 1;
        let v = match self.dec.read_str_ref()? {
            Reference::Borrowed(s) => seed.deserialize(BorrowedStrDeserializer::<Error>::new(s)),
            Reference::Copied(s) => seed.deserialize(StrDeserializer::<Error>::new(s)),
        };
        v.map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let i = self.count.saturating_sub(1);
        seed.deserialize(OpDe {
            dec: &mut *self.dec,
            p: self.p,
            op: self.values,
        })
        .map_err(|e| e.in_index(i))
    }

    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.left).ok()
    }
}

/// `bytes` or `fixed` read as a sequence of `u8` (a `Vec<u8>` without `serde_bytes`, a
/// `[u8; N]`).
struct ByteSeq<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl<'de> de::SeqAccess<'de> for ByteSeq<'_> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                seed.deserialize(U8Deserializer::<Error>::new(b)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.bytes.len() - self.pos)
    }
}

/// A reader-only field's default (a [`Value`] built at plan time) as a serde value.
struct ValueDe<'v> {
    v: &'v Value,
    schema: &'v Schema,
    node: NodeId,
}

impl<'v> ValueDe<'v> {
    fn at(&self, v: &'v Value, node: NodeId) -> ValueDe<'v> {
        ValueDe {
            v,
            schema: self.schema,
            node,
        }
    }

    /// The union branch node and value, when this is a union.
    fn unwrap_union(&self) -> ValueDe<'v> {
        match (self.v, &self.schema.node(self.node).kind) {
            (Value::Union(i, inner), NodeKind::Union(u)) => match u.variants.get(*i as usize) {
                Some(&b) => self.at(inner, b).unwrap_union(),
                None => self.at(inner, self.node),
            },
            _ => self.at(self.v, self.node),
        }
    }
}

impl<'de> de::Deserializer<'de> for ValueDe<'_> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let node = &self.schema.node(self.node).kind;
        match self.v {
            Value::Null => visitor.visit_unit(),
            Value::Boolean(b) => visitor.visit_bool(*b),
            Value::Int(v) | Value::Date(v) | Value::TimeMillis(v) => visitor.visit_i32(*v),
            Value::Long(v)
            | Value::TimeMicros(v)
            | Value::TimestampMillis(v)
            | Value::TimestampMicros(v)
            | Value::TimestampNanos(v)
            | Value::LocalTimestampMillis(v)
            | Value::LocalTimestampMicros(v)
            | Value::LocalTimestampNanos(v) => visitor.visit_i64(*v),
            Value::Float(v) => visitor.visit_f32(*v),
            Value::Double(v) => visitor.visit_f64(*v),
            Value::Bytes(b) | Value::Fixed(b) => visitor.visit_bytes(b),
            Value::String(s) => visitor.visit_str(s),
            Value::Decimal(d) => visitor.visit_bytes(d.unscaled()),
            Value::BigDecimal(d) => visitor.visit_bytes(d.unscaled()),
            Value::Uuid(u) => match node {
                NodeKind::String => visitor.visit_str(&crate::value::format_uuid(u)),
                _ => visitor.visit_bytes(u),
            },
            Value::Duration(d) => visitor.visit_bytes(&d.to_bytes()),
            Value::Enum(i) => match node {
                NodeKind::Enum(e) => match e.symbols.get(*i as usize) {
                    Some(s) => visitor.visit_str(s),
                    None => Err(Error::data("enum default out of range")),
                },
                _ => visitor.visit_u32(*i),
            },
            Value::Array(items) => {
                let item = match node {
                    NodeKind::Array(a) => a.items,
                    _ => self.node,
                };
                visitor.visit_seq(ValueSeq {
                    it: items.iter(),
                    schema: self.schema,
                    item,
                })
            }
            Value::Map(entries) => {
                let values = match node {
                    NodeKind::Map(m) => m.values,
                    _ => self.node,
                };
                visitor.visit_map(ValueMap {
                    entries: entries
                        .iter()
                        .map(|(k, v)| (k.as_str(), v, values))
                        .collect(),
                    pos: 0,
                    schema: self.schema,
                })
            }
            Value::Record(fields) => {
                let NodeKind::Record(r) = node else {
                    return Err(Error::data("record default without a record schema"));
                };
                visitor.visit_map(ValueMap {
                    entries: r
                        .fields
                        .iter()
                        .zip(fields)
                        .map(|(f, v)| (f.name.as_str(), v, f.schema))
                        .collect(),
                    pos: 0,
                    schema: self.schema,
                })
            }
            Value::Union(..) => self.unwrap_union().deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        match inner.v {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(inner),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match (self.v, &self.schema.node(self.node).kind) {
            (Value::Enum(i), NodeKind::Enum(e)) => match e.symbols.get(*i as usize) {
                Some(s) => visitor.visit_enum(s.as_str().into_deserializer()),
                None => Err(Error::data("enum default out of range")),
            },
            (Value::String(s), _) => visitor.visit_enum(s.as_str().into_deserializer()),
            (Value::Union(i, _), NodeKind::Union(u)) => {
                let inner = self.unwrap_union();
                let name = u
                    .variants
                    .get(*i as usize)
                    .map_or("", |&b| branch_name(self.schema, b));
                let variant = pick_variant(self.schema, Some(self.node), name, *i, variants);
                visitor.visit_enum(ValueVariant { de: inner, variant })
            }
            _ => Err(Error::data(
                "a default that is not an enum, read as a Rust enum",
            )),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        if let Some((t, v)) = temporal_value(inner.v) {
            return visit_temporal_str(t, v, visitor);
        }
        match inner.v {
            Value::Uuid(u) => visit_uuid_str(u, visitor),
            _ => inner.deserialize_any(visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        match inner.v {
            Value::Uuid(u) => visitor.visit_bytes(u),
            _ => inner.deserialize_any(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        match inner.v {
            Value::Bytes(b) | Value::Fixed(b) => visitor.visit_seq(ByteSeq { bytes: b, pos: 0 }),
            Value::Uuid(u) => visitor.visit_seq(ByteSeq { bytes: u, pos: 0 }),
            _ => inner.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        if let Some((t, v)) = temporal_value(inner.v) {
            return visit_temporal_tuple(t, v, len, visitor);
        }
        inner.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char
        unit unit_struct map struct identifier ignored_any
    }
}

struct ValueVariant<'v> {
    de: ValueDe<'v>,
    variant: &'v str,
}

impl<'de, 'v> de::EnumAccess<'de> for ValueVariant<'v> {
    type Error = Error;
    type Variant = ValueDe<'v>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, ValueDe<'v>)> {
        let v = seed.deserialize(StrDeserializer::<Error>::new(self.variant))?;
        Ok((v, self.de))
    }
}

impl<'de> de::VariantAccess<'de> for ValueDe<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }
}

struct ValueSeq<'v> {
    it: std::slice::Iter<'v, Value>,
    schema: &'v Schema,
    item: NodeId,
}

impl<'de> de::SeqAccess<'de> for ValueSeq<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.it.next() {
            Some(v) => seed
                .deserialize(ValueDe {
                    v,
                    schema: self.schema,
                    node: self.item,
                })
                .map(Some),
            None => Ok(None),
        }
    }
}

struct ValueMap<'v> {
    entries: Vec<(&'v str, &'v Value, NodeId)>,
    pos: usize,
    schema: &'v Schema,
}

impl<'de> de::MapAccess<'de> for ValueMap<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.entries.get(self.pos) {
            Some((k, _, _)) => seed.deserialize(StrDeserializer::<Error>::new(k)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some(&(_, v, node)) = self.entries.get(self.pos) else {
            return Err(Error::data("map value without a key"));
        };
        self.pos += 1;
        seed.deserialize(ValueDe {
            v,
            schema: self.schema,
            node,
        })
    }
}

impl de::Error for Error {
    #[cold]
    fn custom<T: std::fmt::Display>(msg: T) -> Error {
        Error::data(msg.to_string())
    }
}
