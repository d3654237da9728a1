//! The generated codecs reading data of another writer schema: a [`Resolver`] compiled once
//! from (writer schema, the type's schema) drives the same per-field code the exact path runs,
//! as Java's `SpecificDatumReader` drives a `SpecificRecord` through a `ResolvingDecoder`.
//!
//! The resolution itself is the plan every other front end uses ([`ResolvedPlan`]): promotions,
//! writer-only fields skipped, reader-only fields from their defaults, reordered fields, enum
//! symbol and union branch remaps are all decided when it compiles. A record's generated code
//! walks the plan's steps for it (writer order) and reads each value with its field type's
//! [`AvroDecode::decode_resolved`], so nothing is looked up by name and no value is built
//! twice. Defaults are encoded once, in the reader's schema, and read with the field type's own
//! decoder.

use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::{CopySource, Source};
use crate::resolution::ops::{skip, zero_size_item_mem, Op, OpId, RecordOp, Step};
use crate::resolution::{PlanInner, ResolvedPlan};
use crate::schema::Schema;
use crate::value::write_value_at;

/// The encoded defaults of one record op's reader-only fields, in the order of its `defaults`.
type Defaults = Box<[Box<[u8]>]>;

/// A writer schema resolved against a codec type's own schema: the plan, and every reader-only
/// field's default encoded once in the reader's schema. Built by
/// [`CodecPlan::reading`](super::CodecPlan::reading); the generated code receives it by
/// reference. Not public API.
#[derive(Clone)]
pub struct Resolver {
    plan: ResolvedPlan,
    /// Per op: the encoded defaults of a record op, in the order of its `defaults`.
    defaults: Box<[Defaults]>,
    /// Per record op whose writer fields are the reader's first fields, in the reader's order
    /// (no skips; promotions allowed), and whose other reader fields all take defaults: how
    /// many fields are read. The generated code reads such a record straight, field by field,
    /// without walking its steps. `u32::MAX` for every other op.
    straight: Box<[u32]>,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("plan", &self.plan)
            .finish()
    }
}

impl Resolver {
    /// Compiles `writer` against `reader` (the type's schema).
    pub(crate) fn new(writer: &Schema, reader: &Schema) -> Result<Resolver> {
        let plan = ResolvedPlan::compile(writer, reader)?;
        let p = plan.inner();
        let mut defaults = Vec::with_capacity(p.ops.len());
        let mut straight = Vec::with_capacity(p.ops.len());
        for op in p.ops.iter() {
            if let Op::Record(rec) = op {
                if !fills_every_field(rec) {
                    return Err(internal(
                        "a record op that does not fill each reader field once",
                    ));
                }
            }
            straight.push(match op {
                Op::Record(rec) => {
                    let m = rec.steps.len();
                    let reads_first = rec
                        .steps
                        .iter()
                        .enumerate()
                        .all(|(k, s)| matches!(s, Step::Read { to, .. } if *to as usize == k));
                    let defaults_rest = m + rec.defaults.len() == rec.len as usize
                        && rec
                            .defaults
                            .iter()
                            .enumerate()
                            .all(|(k, d)| d.pos as usize == m + k);
                    if reads_first && defaults_rest {
                        m as u32
                    } else {
                        u32::MAX
                    }
                }
                _ => u32::MAX,
            });
            let encoded = match op {
                Op::Record(rec) => {
                    let reader_rec = match &p.reader.node(rec.reader).kind {
                        crate::schema::NodeKind::Record(r) => r,
                        _ => return Err(internal("a record op of a non-record")),
                    };
                    rec.defaults
                        .iter()
                        .map(|d| {
                            let field = &reader_rec.fields[d.pos as usize];
                            let mut out = Vec::new();
                            write_value_at(&mut out, &d.value, &p.reader, field.schema)
                                .map_err(|e| e.in_field(field.name.clone()))?;
                            Ok(out.into_boxed_slice())
                        })
                        .collect::<Result<Box<[_]>>>()?
                }
                _ => Box::default(),
            };
            defaults.push(encoded);
        }
        Ok(Resolver {
            plan,
            defaults: defaults.into(),
            straight: straight.into(),
        })
    }

    /// The op reading a whole datum.
    #[inline]
    pub fn root(&self) -> u32 {
        self.plan.inner().root
    }

    #[inline(always)]
    fn p(&self) -> &PlanInner {
        self.plan.inner()
    }

    /// The op `id`, after the branch index of any writer union on the wire (a writer union
    /// read as a reader non-union: the branch's own op). The common case, an op that is not a
    /// union, costs one load and one compare here; unions go out of line.
    #[inline(always)]
    fn leaf<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: OpId,
    ) -> Result<(&Op, OpId)> {
        let op = &self.p().ops[id as usize];
        match op {
            Op::Union(_) | Op::Fail(_) => self.leaf_slow(dec, id),
            op => Ok((op, id)),
        }
    }

    #[inline(never)]
    fn leaf_slow<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: OpId,
    ) -> Result<(&Op, OpId)> {
        let p = self.p();
        let mut id = id;
        loop {
            match &p.ops[id as usize] {
                Op::Union(branches) => id = writer_branch(dec, branches)?,
                Op::Fail(f) => return Err(f.error(dec.offset())),
                op => return Ok((op, id)),
            }
        }
    }

    /// Reads a `null` (nothing on the wire).
    #[inline(always)]
    pub fn read_null<'de, S: Source<'de>>(&self, dec: &mut Decoder<'de, S>, id: u32) -> Result<()> {
        match self.leaf(dec, id)?.0 {
            Op::Null => Ok(()),
            _ => Err(mismatch("null")),
        }
    }

    /// Reads a `boolean`.
    #[inline(always)]
    pub fn read_boolean<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: u32,
    ) -> Result<bool> {
        match self.leaf(dec, id)?.0 {
            Op::Boolean => dec.read_boolean(),
            _ => Err(mismatch("boolean")),
        }
    }

    /// Reads an `int`.
    #[inline(always)]
    pub fn read_int<'de, S: Source<'de>>(&self, dec: &mut Decoder<'de, S>, id: u32) -> Result<i32> {
        match self.leaf(dec, id)?.0 {
            Op::Int(_) => dec.read_int(),
            _ => Err(mismatch("int")),
        }
    }

    /// Reads a `long` (a writer `int` promoted).
    #[inline(always)]
    pub fn read_long<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: u32,
    ) -> Result<i64> {
        match self.leaf(dec, id)?.0 {
            Op::Long(_) => dec.read_long(),
            Op::IntToLong(_) => dec.read_int().map(i64::from),
            _ => Err(mismatch("long")),
        }
    }

    /// Reads a `float` (a writer `int` or `long` promoted, to the nearest float as Java's
    /// widening conversions round).
    #[inline(always)]
    pub fn read_float<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: u32,
    ) -> Result<f32> {
        match self.leaf(dec, id)?.0 {
            Op::Float => dec.read_float(),
            Op::IntToFloat => dec.read_int().map(|v| v as f32),
            Op::LongToFloat => dec.read_long().map(|v| v as f32),
            _ => Err(mismatch("float")),
        }
    }

    /// Reads a `double` (a writer `int`, `long` or `float` promoted).
    #[inline(always)]
    pub fn read_double<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: u32,
    ) -> Result<f64> {
        match self.leaf(dec, id)?.0 {
            Op::Double => dec.read_double(),
            Op::IntToDouble => dec.read_int().map(f64::from),
            Op::LongToDouble => dec.read_long().map(|v| v as f64),
            Op::FloatToDouble => dec.read_float().map(f64::from),
            _ => Err(mismatch("double")),
        }
    }

    /// Checks that op `id` reads a `string` (writer `string` or `bytes`, which must be UTF-8)
    /// and consumes any writer union index before it: the caller then reads the string with
    /// the decoder.
    #[inline(always)]
    pub fn string<'de, S: Source<'de>>(&self, dec: &mut Decoder<'de, S>, id: u32) -> Result<()> {
        match self.leaf(dec, id)?.0 {
            Op::String(_) => Ok(()),
            _ => Err(mismatch("string")),
        }
    }

    /// As [`string`](Self::string), for `bytes` (writer `bytes` or `string`).
    #[inline(always)]
    pub fn bytes<'de, S: Source<'de>>(&self, dec: &mut Decoder<'de, S>, id: u32) -> Result<()> {
        match self.leaf(dec, id)?.0 {
            Op::Bytes(_) => Ok(()),
            _ => Err(mismatch("bytes")),
        }
    }

    /// As [`string`](Self::string), for a `fixed` of `size` bytes.
    #[inline(always)]
    pub fn fixed<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: u32,
        size: usize,
    ) -> Result<()> {
        match self.leaf(dec, id)?.0 {
            Op::Fixed { size: s, .. } if *s == size => Ok(()),
            _ => Err(mismatch("fixed")),
        }
    }

    /// Reads a writer enum symbol: the reader's symbol index.
    #[inline(always)]
    pub fn symbol<'de, S: Source<'de>>(&self, dec: &mut Decoder<'de, S>, id: u32) -> Result<u32> {
        let Op::Enum(e) = self.leaf(dec, id)?.0 else {
            return Err(mismatch("enum"));
        };
        e.read(dec, self.p())
    }

    /// Reads the branch of a reader union: `(reader branch index, op reading its value)`. The
    /// writer's union index, if the writer has a union there, is read here.
    #[inline(always)]
    pub fn branch<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: u32,
    ) -> Result<(u32, u32)> {
        match self.leaf(dec, id)?.0 {
            Op::Wrap { index, op } => Ok((*index, *op)),
            _ => Err(mismatch("union")),
        }
    }

    /// The items' op of an array, and what an item costs in memory when the writer's items
    /// take no bytes (`None` when they do), for the block checks.
    #[inline(always)]
    pub fn array<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: u32,
        item_size: usize,
    ) -> Result<(u32, Option<usize>)> {
        match self.leaf(dec, id)?.0 {
            Op::Array {
                item,
                zero_size_items,
            } => Ok((
                *item,
                zero_size_items.then(|| zero_size_item_mem(self.p(), *item).max(item_size)),
            )),
            _ => Err(mismatch("array")),
        }
    }

    /// True when op `id` reads a value exactly as the reader's own schema encodes it (no
    /// promotion, no union around it): arrays of such items may take the bulk path.
    #[inline]
    pub(crate) fn is_plain(&self, id: u32, want: fn(&Op) -> bool) -> bool {
        want(&self.p().ops[id as usize])
    }

    /// The values' op of a map.
    #[inline(always)]
    pub fn map<'de, S: Source<'de>>(&self, dec: &mut Decoder<'de, S>, id: u32) -> Result<u32> {
        match self.leaf(dec, id)?.0 {
            Op::Map(values) => Ok(*values),
            _ => Err(mismatch("map")),
        }
    }

    /// A record: its writer fields (in writer order) and reader-only fields, for the generated
    /// code to walk.
    #[inline(always)]
    pub fn record<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        id: u32,
    ) -> Result<RecordSteps<'_>> {
        match self.leaf(dec, id)? {
            (Op::Record(rec), id) => Ok(RecordSteps {
                rs: self,
                rec,
                defaults: &self.defaults[id as usize],
                straight: self.straight[id as usize],
            }),
            _ => Err(mismatch("record")),
        }
    }
}

/// A record's steps, from [`Resolver::record`]. Not public API.
#[derive(Clone, Copy)]
pub struct RecordSteps<'r> {
    rs: &'r Resolver,
    rec: &'r RecordOp,
    defaults: &'r [Box<[u8]>],
    straight: u32,
}

impl RecordSteps<'_> {
    /// `Some(m)` when the reader's record has `n` fields, of which the writer's are the first
    /// `m`, in the reader's order (no skipped field), and the rest take their defaults: the
    /// caller reads field `k < m` with [`op`](Self::op)`(k)` and field `k >= m` with
    /// [`default_with`](Self::default_with)`(k - m, ..)`.
    #[inline(always)]
    pub fn straight(&self, n: usize) -> Option<usize> {
        (self.straight != u32::MAX && self.rec.len as usize == n).then_some(self.straight as usize)
    }

    /// The op of writer field `k` of a [`straight`](Self::straight) record.
    ///
    /// # Errors
    /// When field `k` is not read (not a straight record): the plan and the type disagree.
    #[inline(always)]
    pub fn op(&self, k: usize) -> Result<u32> {
        match self.rec.steps.get(k) {
            Some(Step::Read { op, .. }) => Ok(*op),
            _ => Err(mismatch("field")),
        }
    }

    /// The number of writer fields.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.rec.steps.len()
    }

    /// True for a writer record without fields.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.rec.steps.is_empty()
    }

    /// Writer field `k`: `Some((reader field position, op))` for the caller to read, or `None`
    /// when it is a writer-only field, skipped here.
    #[inline(always)]
    pub fn step<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        k: usize,
    ) -> Result<Option<(u32, u32)>> {
        match &self.rec.steps[k] {
            Step::Read { op, to } => Ok(Some((*to, *op))),
            Step::Skip(s) => match skip(dec, self.rs.p(), *s) {
                Ok(()) => Ok(None),
                Err(e) => Err(e.in_field(self.rec.names[k].to_string())),
            },
        }
    }

    /// The name of the reader field (or skipped writer field) of step `k`, for error paths.
    #[cold]
    #[inline(never)]
    pub fn in_step(&self, e: Error, k: usize) -> Error {
        e.in_field(self.rec.names[k].to_string())
    }

    /// The number of reader-only fields.
    #[inline(always)]
    pub fn defaults(&self) -> usize {
        self.rec.defaults.len()
    }

    /// The reader position of reader-only field `k`.
    #[inline(always)]
    pub fn default_pos(&self, k: usize) -> u32 {
        self.rec.defaults[k].pos
    }

    /// The default of reader-only field `k`, read by `read` from its encoding in the reader's
    /// schema (an owned value: a borrowed field type such as `&str` cannot take a default,
    /// and is an error).
    #[inline]
    pub fn default_with<'de, T>(
        &self,
        k: usize,
        read: impl FnOnce(&mut Decoder<'de, CopySource<'_>>) -> Result<T>,
    ) -> Result<T> {
        let mut dec = Decoder::<'de, CopySource<'_>>::new(CopySource::new(&self.defaults[k]));
        dec.enter()?;
        let v = read(&mut dec)?;
        dec.leave();
        Ok(v)
    }
}

/// Reads a writer union's branch index: the op of that writer branch.
#[inline(always)]
fn writer_branch<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    branches: &[OpId],
) -> Result<OpId> {
    let at = dec.offset();
    let i = dec.read_union_index()?;
    match branches.get(i as usize) {
        Some(&op) => Ok(op),
        None => Err(bad_branch(i, branches.len(), at)),
    }
}

#[cold]
#[inline(never)]
fn bad_branch(i: u32, n: usize, at: u64) -> Error {
    Error::at(
        ErrorKind::Data,
        format!("union index {i} out of range: the union has {n} branches"),
        at,
    )
}

/// A plan op that does not read what the type reads: the plan was compiled against another
/// schema than the type's (a hand-written `AvroSchema` that disagrees with its codec).
#[cold]
#[inline(never)]
fn mismatch(what: &'static str) -> Error {
    Error::new(
        ErrorKind::Schema,
        format!(
            "the resolution plan does not read a {what} here: the type's codec and its schema \
             disagree"
        ),
    )
}

/// True when the record op gives every reader field exactly one value, read or defaulted: the
/// generated `decode_resolved_into` writes the fields of a reused record in place and relies
/// on it to leave none of them stale.
fn fills_every_field(rec: &RecordOp) -> bool {
    let mut filled = vec![false; rec.len as usize];
    let reads = rec.steps.iter().filter_map(|s| match s {
        Step::Read { to, .. } => Some(*to),
        Step::Skip(_) => None,
    });
    for pos in reads.chain(rec.defaults.iter().map(|d| d.pos)) {
        match filled.get_mut(pos as usize) {
            Some(f) if !*f => *f = true,
            _ => return false,
        }
    }
    filled.iter().all(|&f| f)
}

#[cold]
#[inline(never)]
fn internal(what: &str) -> Error {
    Error::new(ErrorKind::Schema, format!("internal: {what}"))
}

/// The error of a type whose codec has no resolving decoder (a hand-written [`AvroDecode`]).
#[cold]
#[inline(never)]
pub(crate) fn no_resolving(ty: &'static str) -> Error {
    Error::new(
        ErrorKind::Schema,
        format!("{ty} has no resolving decoder: read it with its own schema, or through serde"),
    )
}
