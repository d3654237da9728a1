//! A read-only view of a compiled [`ResolvedPlan`], for decoders outside this crate that write
//! into their own output (avrokit-arrow's column decoders write Arrow buffers). They follow the
//! same ops as every reader here, so resolution works the same everywhere: promotions, skipped
//! writer-only fields, reader-only defaults, enum and union remaps are all decided by the plan.
//!
//! The view mirrors the ops one to one; an op's reader type is the reader node the walk is at
//! (the plan's reader root for [`ResolvedPlan::root_op`], then record fields, array items, map
//! values and union branches of that node), so the reader's logical types come from there.

use super::literal::FieldDefault;
use super::ops::{Op, Skip, Step, NO_SYMBOL};
use super::ResolvedPlan;
use crate::schema::NodeId;
use crate::value::Value;

/// The index of an op in a plan: see [`ResolvedPlan::op`].
pub type PlanOpId = u32;

/// A writer enum symbol the reader cannot read, in [`PlanOp::Enum`]'s table.
pub const MISSING_SYMBOL: u32 = NO_SYMBOL;

/// One op of a plan: what to read from the wire (the writer's encoding) and how it lands in the
/// reader's type.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum PlanOp<'a> {
    /// Nothing on the wire; the reader's `null`.
    Null,
    /// A boolean byte.
    Boolean,
    /// A writer `int` read as a reader `int`.
    Int,
    /// A writer `int` promoted to the reader's `long`.
    IntToLong,
    /// A writer `int` promoted to the reader's `float`.
    IntToFloat,
    /// A writer `int` promoted to the reader's `double`.
    IntToDouble,
    /// A writer `long` read as a reader `long`.
    Long,
    /// A writer `long` promoted to the reader's `float`.
    LongToFloat,
    /// A writer `long` promoted to the reader's `double`.
    LongToDouble,
    /// A writer `float` read as a reader `float`.
    Float,
    /// A writer `float` promoted to the reader's `double`.
    FloatToDouble,
    /// A writer `double`.
    Double,
    /// Length-prefixed bytes (writer `bytes` or `string`) read as reader `bytes`.
    Bytes,
    /// Length-prefixed bytes (writer `string` or `bytes`) read as a reader `string`: they must
    /// be UTF-8.
    String,
    /// `size` raw bytes.
    Fixed {
        /// The fixed size.
        size: usize,
    },
    /// A writer enum index; `table[i]` is the reader's symbol index for writer symbol `i`, or
    /// [`MISSING_SYMBOL`] (an error for a datum holding it).
    Enum {
        /// Writer symbol index to reader symbol index.
        table: &'a [u32],
    },
    /// An array (blocks of items).
    Array {
        /// The items' op.
        items: PlanOpId,
    },
    /// A map (blocks of string keys and values).
    Map {
        /// The values' op.
        values: PlanOpId,
    },
    /// A record: writer fields in writer order, then the reader-only fields' defaults.
    Record(RecordView<'a>),
    /// A writer union: a branch index on the wire, then the op of that writer branch.
    Union {
        /// The op of each writer branch, by writer branch index.
        branches: &'a [PlanOpId],
    },
    /// A writer non-union read as branch `branch` of the reader's union.
    Wrap {
        /// The reader union's branch.
        branch: u32,
        /// The op reading the value into that branch's type.
        op: PlanOpId,
    },
    /// A datum reaching this op cannot be read: `message` says why.
    Fail {
        /// Where the schemas disagree, and how.
        message: &'a str,
    },
}

/// A record op: see [`PlanOp::Record`].
#[derive(Debug, Clone, Copy)]
pub struct RecordView<'a> {
    reader: NodeId,
    steps: &'a [Step],
    defaults: &'a [FieldDefault],
    len: u32,
}

/// One writer field of a record, in writer order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldStep {
    /// Read the writer field with `op` into reader field position `to`.
    Read {
        /// The field's op.
        op: PlanOpId,
        /// The reader field's position.
        to: usize,
    },
    /// Skip a writer-only field that always takes this many bytes.
    SkipBytes(u64),
    /// Skip a writer-only value of this writer node
    /// ([`Decoder::skip_value`](crate::Decoder::skip_value) with the plan's writer schema).
    SkipValue(NodeId),
}

impl<'a> RecordView<'a> {
    /// The reader's record node.
    pub fn reader(&self) -> NodeId {
        self.reader
    }

    /// The number of reader fields.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True for a reader record without fields.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The writer's fields, in writer (wire) order.
    pub fn steps(&self) -> impl ExactSizeIterator<Item = FieldStep> + 'a {
        self.steps.iter().map(|s| match s {
            Step::Read { op, to } => FieldStep::Read {
                op: *op,
                to: *to as usize,
            },
            Step::Skip(Skip::Raw(n)) => FieldStep::SkipBytes(*n),
            Step::Skip(Skip::Node(id)) => FieldStep::SkipValue(*id),
        })
    }

    /// The reader-only fields: reader position and default value (in the reader's shape), in
    /// reader order.
    pub fn defaults(&self) -> impl ExactSizeIterator<Item = (usize, &'a Value)> + 'a {
        self.defaults.iter().map(|d| (d.pos as usize, &d.value))
    }
}

impl ResolvedPlan {
    /// The op reading a whole datum: the writer's root as the reader's root.
    pub fn root_op(&self) -> PlanOpId {
        self.inner.root
    }

    /// The op `id` of this plan (from [`root_op`](Self::root_op) or another op).
    ///
    /// # Examples
    /// ```
    /// use avrokit::resolution::{FieldStep, PlanOp, ResolvedPlan};
    /// use avrokit::Schema;
    /// let w = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
    ///     {"name":"a","type":"int"},{"name":"b","type":"double"}]}"#)?;
    /// let r = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
    ///     {"name":"a","type":"long"}]}"#)?;
    /// let plan = ResolvedPlan::compile(&w, &r)?;
    /// let PlanOp::Record(rec) = plan.op(plan.root_op()) else { panic!() };
    /// let steps: Vec<FieldStep> = rec.steps().collect();
    /// let FieldStep::Read { op, to: 0 } = steps[0] else { panic!() };
    /// assert!(matches!(plan.op(op), PlanOp::IntToLong));
    /// assert_eq!(steps[1], FieldStep::SkipBytes(8));
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Panics
    /// When `id` is not an op of this plan.
    pub fn op(&self, id: PlanOpId) -> PlanOp<'_> {
        match &self.inner.ops[id as usize] {
            // A finished plan holds no pending op; treat one as unreadable rather than panic.
            Op::Pending => PlanOp::Fail {
                message: "incomplete plan",
            },
            Op::Null => PlanOp::Null,
            Op::Boolean => PlanOp::Boolean,
            Op::Int(_) => PlanOp::Int,
            Op::IntToLong(_) => PlanOp::IntToLong,
            Op::IntToFloat => PlanOp::IntToFloat,
            Op::IntToDouble => PlanOp::IntToDouble,
            Op::Long(_) => PlanOp::Long,
            Op::LongToFloat => PlanOp::LongToFloat,
            Op::LongToDouble => PlanOp::LongToDouble,
            Op::Float => PlanOp::Float,
            Op::FloatToDouble => PlanOp::FloatToDouble,
            Op::Double => PlanOp::Double,
            Op::Bytes(_) => PlanOp::Bytes,
            Op::String(_) => PlanOp::String,
            Op::Fixed { size, .. } => PlanOp::Fixed { size: *size },
            Op::Enum(e) => PlanOp::Enum { table: &e.table },
            Op::Array { item, .. } => PlanOp::Array { items: *item },
            Op::Map(v) => PlanOp::Map { values: *v },
            Op::Record(r) => PlanOp::Record(RecordView {
                reader: r.reader,
                steps: &r.steps,
                defaults: &r.defaults,
                len: r.len,
            }),
            Op::Union(b) => PlanOp::Union { branches: b },
            Op::Wrap { index, op } => PlanOp::Wrap {
                branch: *index,
                op: *op,
            },
            Op::Fail(f) => PlanOp::Fail {
                message: &f.message,
            },
        }
    }
}
