//! The compiled form of a writer/reader schema pair: an arena of ops indexed by [`OpId`].
//!
//! An op says what to read from the wire (the writer's encoding) and what [`Value`] to produce
//! (the reader's shape). Recursive schemas become cycles of op indices. Everything here is
//! decided once at compile time; the interpreters (`value.rs` for `Value`s, serde's, the
//! `ResolvingDecoder`'s flat program) only match on ops.

use super::literal::FieldDefault;
use super::PlanInner;
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Source;
// The reader's logical types, as every front end presents them.
pub(crate) use crate::logical::{BytesOut, FixedOut, IntOut, LongOut, StringOut};
use crate::schema::{NodeId, NodeKind};
use crate::value::Value;

/// The index of an op in [`Ops`].
pub(crate) type OpId = u32;

/// Skipping a writer-only value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Skip {
    /// A value whose encoding always has this many bytes (null, boolean, float, double, fixed,
    /// records of those).
    Raw(u64),
    /// Any other value of this writer node, skipped with `Decoder::skip_value`.
    Node(NodeId),
}

/// One writer field of a record, in writer order.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Read the writer field with `op` into reader field position `to`.
    Read { op: OpId, to: u32 },
    /// Skip a writer-only field.
    Skip(Skip),
}

/// A record: the writer's fields in order, then the reader-only fields' defaults.
#[derive(Debug, Clone)]
pub(crate) struct RecordOp {
    /// The reader's record node (the types of the defaults).
    pub(crate) reader: NodeId,
    /// Parallel to `steps`: the reader field's name for a read, the writer field's name for a
    /// skip (error paths only).
    pub(crate) names: Box<[Box<str>]>,
    pub(crate) steps: Box<[Step]>,
    /// Each reader-only field's position and default, in reader order.
    pub(crate) defaults: Box<[FieldDefault]>,
    /// Number of reader fields.
    pub(crate) len: u32,
    /// Swaps that move the values, pushed in writer order and then the defaults, to the reader's
    /// positions (empty when they are already in place): the serde reader's way. The `Value`
    /// reader instead reads each field straight into its position in a vector of `Null`s
    /// (`resolution/value.rs`): a swap loads each value right after it was stored, which the
    /// CPU stalls on, and overwriting a `Null` there needs no drop.
    pub(crate) swaps: Box<[(u32, u32)]>,
}

/// An enum: each writer symbol's reader index.
#[derive(Debug, Clone)]
pub(crate) struct EnumOp {
    /// The writer's enum node, for messages.
    pub(crate) writer: NodeId,
    /// Writer symbol index to reader symbol index; `u32::MAX` for a symbol the reader does not
    /// have (and has no default for).
    pub(crate) table: Box<[u32]>,
}

/// A marker in [`EnumOp::table`] for a writer symbol the reader cannot read.
pub(crate) const NO_SYMBOL: u32 = u32::MAX;

impl EnumOp {
    /// Reads a writer enum symbol and maps it to the reader's symbol index: every reader of
    /// resolved enums (values, serde, the generated codecs, the resolving decoder) goes
    /// through here.
    ///
    /// # Errors
    /// End of input, an index beyond the writer's symbols, or a symbol the reader lacks.
    #[inline(always)]
    pub(crate) fn read<'de, S: Source<'de>>(
        &self,
        dec: &mut Decoder<'de, S>,
        p: &PlanInner,
    ) -> Result<u32> {
        let at = dec.offset();
        let i = dec.read_enum()?;
        match self.table.get(i as usize) {
            Some(&r) if r != NO_SYMBOL => Ok(r),
            Some(_) => Err(unknown_symbol(p, self.writer, i, at)),
            None => Err(enum_out_of_range(p, self.writer, i, at)),
        }
    }
}

/// A datum that cannot be read: a writer union branch the reader has no match for, or a pair
/// that failed to resolve but is only reachable through such a branch.
#[derive(Debug, Clone)]
pub(crate) struct FailOp {
    /// Where the schemas disagree and how, as the compile error would have said.
    pub(crate) message: Box<str>,
}

impl FailOp {
    /// The error of reaching this op at `at`.
    #[cold]
    #[inline(never)]
    pub(crate) fn error(&self, at: u64) -> Error {
        Error::at(ErrorKind::Resolution, self.message.to_string(), at)
    }
}

/// One compiled op.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// Reserved while its pair is being compiled (a recursive reference points here); never
    /// left in a finished plan.
    Pending,
    Null,
    Boolean,
    Int(IntOut),
    IntToLong(LongOut),
    IntToFloat,
    IntToDouble,
    Long(LongOut),
    LongToFloat,
    LongToDouble,
    Float,
    FloatToDouble,
    Double,
    /// Length-prefixed bytes (writer `bytes` or `string`) read as reader `bytes`.
    Bytes(BytesOut),
    /// Length-prefixed bytes (writer `string` or `bytes`) read as a reader `string`, checked to
    /// be UTF-8.
    String(StringOut),
    Fixed {
        size: usize,
        out: FixedOut,
    },
    Enum(Box<EnumOp>),
    Array {
        item: OpId,
        /// The writer's items always encode to zero bytes (so a count is bounded by memory only).
        zero_size_items: bool,
    },
    Map(OpId),
    Record(Box<RecordOp>),
    /// A writer union: the op of each writer branch.
    Union(Box<[OpId]>),
    /// A writer non-union read as the reader union's branch `index`.
    Wrap {
        index: u32,
        op: OpId,
    },
    Fail(Box<FailOp>),
}

/// What one value read by op `id` from a writer item that takes no bytes (null, fixed(0), a
/// record of those, maybe wrapped in a reader union) costs in memory: its `Value`s and the
/// reader's defaults it holds. Such items are bounded by memory alone, so this is what a count
/// of them is checked with.
pub(crate) fn zero_size_item_mem(p: &PlanInner, id: OpId) -> usize {
    fn heap(v: &Value) -> usize {
        const V: usize = std::mem::size_of::<Value>();
        match v {
            Value::Bytes(b) | Value::Fixed(b) => b.len(),
            Value::String(s) => s.len(),
            Value::Decimal(d) | Value::BigDecimal(d) => d.unscaled().len(),
            Value::Array(items) | Value::Record(items) => items
                .iter()
                .fold(items.len() * V, |n, v| n.saturating_add(heap(v))),
            Value::Map(entries) => entries.iter().fold(
                entries.len() * std::mem::size_of::<(String, Value)>(),
                |n, (k, v)| n.saturating_add(k.len()).saturating_add(heap(v)),
            ),
            Value::Union(_, v) => V.saturating_add(heap(v)),
            _ => 0,
        }
    }
    // The writer's item type is not recursive (it takes no bytes), so neither is this walk.
    fn op_heap(p: &PlanInner, id: OpId) -> usize {
        const V: usize = std::mem::size_of::<Value>();
        match &p.ops[id as usize] {
            Op::Record(r) => {
                let reads = r.steps.iter().fold(0usize, |n, s| match s {
                    Step::Read { op, .. } => n.saturating_add(op_heap(p, *op)),
                    Step::Skip(_) => n,
                });
                let defaults = r
                    .defaults
                    .iter()
                    .fold(0usize, |n, d| n.saturating_add(heap(&d.value)));
                (r.len as usize * V)
                    .saturating_add(reads)
                    .saturating_add(defaults)
            }
            Op::Wrap { op, .. } => V.saturating_add(op_heap(p, *op)),
            _ => 0,
        }
    }
    std::mem::size_of::<Value>().saturating_add(op_heap(p, id))
}

/// Skips a writer-only value.
#[inline]
pub(crate) fn skip<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    s: Skip,
) -> Result<()> {
    match s {
        Skip::Raw(n) => dec.skip_raw(n),
        Skip::Node(id) => dec.skip_value(&p.writer, id),
    }
}

#[cold]
#[inline(never)]
pub(crate) fn unknown_symbol(p: &PlanInner, writer_enum: NodeId, i: u32, at: u64) -> Error {
    let (name, symbol) = match &p.writer.node(writer_enum).kind {
        NodeKind::Enum(e) => (
            e.name.to_string(),
            e.symbols.get(i as usize).cloned().unwrap_or_default(),
        ),
        _ => (String::new(), String::new()),
    };
    Error::at(
        ErrorKind::Resolution,
        format!(
            "symbol \"{symbol}\" of the writer's enum {name} is not in the reader's enum, which \
             has no default"
        ),
        at,
    )
}

#[cold]
#[inline(never)]
pub(crate) fn enum_out_of_range(p: &PlanInner, writer_enum: NodeId, i: u32, at: u64) -> Error {
    let (name, n) = match &p.writer.node(writer_enum).kind {
        NodeKind::Enum(e) => (e.name.to_string(), e.symbols.len()),
        _ => (String::new(), 0),
    };
    Error::at(
        ErrorKind::Data,
        format!("enum index {i} out of range for {name} ({n} symbols)"),
        at,
    )
}
