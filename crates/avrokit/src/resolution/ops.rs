//! The compiled form of a writer/reader schema pair: an arena of ops indexed by [`OpId`].
//!
//! An op says what to read from the wire (the writer's encoding) and what [`Value`] to produce
//! (the reader's shape). Recursive schemas become cycles of op indices. Everything here is
//! decided once at compile time; the interpreter in `value/resolved.rs` only matches on ops.

use super::PlanInner;
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Source;
use crate::schema::{LogicalType, NodeId, NodeKind};
use crate::value::{parse_big_decimal, parse_uuid, Decimal, Duration, Value};

/// The index of an op in [`Ops`].
pub(crate) type OpId = u32;

/// How a wire `int` is presented in the reader's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntOut {
    Int,
    Date,
    TimeMillis,
}

impl IntOut {
    pub(crate) fn of(logical: Option<LogicalType>) -> IntOut {
        match logical {
            Some(LogicalType::Date) => IntOut::Date,
            Some(LogicalType::TimeMillis) => IntOut::TimeMillis,
            _ => IntOut::Int,
        }
    }

    #[inline(always)]
    pub(crate) fn make(self, v: i32) -> Value {
        match self {
            IntOut::Int => Value::Int(v),
            IntOut::Date => Value::Date(v),
            IntOut::TimeMillis => Value::TimeMillis(v),
        }
    }
}

/// How a `long` (read or promoted from an int) is presented in the reader's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LongOut {
    Long,
    TimeMicros,
    TimestampMillis,
    TimestampMicros,
    TimestampNanos,
    LocalTimestampMillis,
    LocalTimestampMicros,
    LocalTimestampNanos,
}

impl LongOut {
    pub(crate) fn of(logical: Option<LogicalType>) -> LongOut {
        match logical {
            Some(LogicalType::TimeMicros) => LongOut::TimeMicros,
            Some(LogicalType::TimestampMillis) => LongOut::TimestampMillis,
            Some(LogicalType::TimestampMicros) => LongOut::TimestampMicros,
            Some(LogicalType::TimestampNanos) => LongOut::TimestampNanos,
            Some(LogicalType::LocalTimestampMillis) => LongOut::LocalTimestampMillis,
            Some(LogicalType::LocalTimestampMicros) => LongOut::LocalTimestampMicros,
            Some(LogicalType::LocalTimestampNanos) => LongOut::LocalTimestampNanos,
            _ => LongOut::Long,
        }
    }

    #[inline(always)]
    pub(crate) fn make(self, v: i64) -> Value {
        match self {
            LongOut::Long => Value::Long(v),
            LongOut::TimeMicros => Value::TimeMicros(v),
            LongOut::TimestampMillis => Value::TimestampMillis(v),
            LongOut::TimestampMicros => Value::TimestampMicros(v),
            LongOut::TimestampNanos => Value::TimestampNanos(v),
            LongOut::LocalTimestampMillis => Value::LocalTimestampMillis(v),
            LongOut::LocalTimestampMicros => Value::LocalTimestampMicros(v),
            LongOut::LocalTimestampNanos => Value::LocalTimestampNanos(v),
        }
    }
}

/// How length-prefixed bytes (written as `bytes` or `string`) are presented as reader `bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BytesOut {
    Bytes,
    Decimal(u32),
    BigDecimal,
}

impl BytesOut {
    pub(crate) fn of(logical: Option<LogicalType>) -> BytesOut {
        match logical {
            Some(LogicalType::Decimal { scale, .. }) => BytesOut::Decimal(scale),
            Some(LogicalType::BigDecimal) => BytesOut::BigDecimal,
            _ => BytesOut::Bytes,
        }
    }

    /// The value, as `read_value` builds it (a malformed `big-decimal` stays bytes).
    #[inline]
    pub(crate) fn make(self, b: &[u8]) -> Value {
        match self {
            BytesOut::Bytes => Value::Bytes(b.to_vec()),
            BytesOut::Decimal(scale) => Value::Decimal(Decimal::new(b.to_vec(), scale)),
            BytesOut::BigDecimal => match parse_big_decimal(b) {
                Some(d) => Value::BigDecimal(d),
                None => Value::Bytes(b.to_vec()),
            },
        }
    }
}

/// How a reader `string` (written as `string` or `bytes`) is presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StringOut {
    String,
    Uuid,
}

impl StringOut {
    pub(crate) fn of(logical: Option<LogicalType>) -> StringOut {
        match logical {
            Some(LogicalType::Uuid) => StringOut::Uuid,
            _ => StringOut::String,
        }
    }

    /// The value, as `read_value` builds it (a malformed `uuid` stays a string).
    #[inline]
    pub(crate) fn make(self, s: &str) -> Value {
        match self {
            StringOut::String => Value::String(s.to_owned()),
            StringOut::Uuid => match parse_uuid(s) {
                Some(u) => Value::Uuid(u),
                None => Value::String(s.to_owned()),
            },
        }
    }
}

/// How a reader `fixed` is presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FixedOut {
    Fixed,
    Decimal(u32),
    Uuid,
    Duration,
}

impl FixedOut {
    pub(crate) fn of(logical: Option<LogicalType>, size: usize) -> FixedOut {
        match logical {
            Some(LogicalType::Decimal { scale, .. }) => FixedOut::Decimal(scale),
            Some(LogicalType::Uuid) if size == 16 => FixedOut::Uuid,
            Some(LogicalType::Duration) if size == 12 => FixedOut::Duration,
            _ => FixedOut::Fixed,
        }
    }

    /// The value, as `read_value` builds it.
    #[inline]
    pub(crate) fn make(self, b: &[u8]) -> Value {
        match self {
            FixedOut::Fixed => Value::Fixed(b.to_vec()),
            FixedOut::Decimal(scale) => Value::Decimal(Decimal::new(b.to_vec(), scale)),
            FixedOut::Uuid => match <[u8; 16]>::try_from(b) {
                Ok(u) => Value::Uuid(u),
                Err(_) => Value::Fixed(b.to_vec()),
            },
            FixedOut::Duration => match <&[u8; 12]>::try_from(b) {
                Ok(d) => Value::Duration(Duration::from_bytes(d)),
                Err(_) => Value::Fixed(b.to_vec()),
            },
        }
    }
}

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
    /// Reader position and (precomputed) default value of each reader-only field, in reader
    /// order.
    pub(crate) defaults: Box<[(u32, Value)]>,
    /// Number of reader fields.
    pub(crate) len: u32,
    /// Swaps that move the values, pushed in writer order and then the defaults, to the reader's
    /// positions (empty when they are already in place). Cheaper than placing values into a
    /// vector of `Null`s: no fill, no drop of the overwritten values (about 40 instructions per
    /// field less, measured with callgrind on a reordered six-field record).
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

/// A datum that cannot be read: a writer union branch the reader has no match for, or a pair
/// that failed to resolve but is only reachable through such a branch.
#[derive(Debug, Clone)]
pub(crate) struct FailOp {
    /// Where the schemas disagree and how, as the compile error would have said.
    pub(crate) message: Box<str>,
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
                    .fold(0usize, |n, (_, v)| n.saturating_add(heap(v)));
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
