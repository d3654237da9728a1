//! The read program: a writer/reader plan compiled against the output columns, and the
//! interpreter that runs it over Avro binary data, appending to the columns.
//!
//! The program comes from the core's [`ResolvedPlan`] (promotions, skips, defaults, enum and
//! union remaps are the plan's); what it adds is where each value lands in Arrow.

use arrow_buffer::{i256, IntervalMonthDayNano};
use avrokit::resolution::{FieldStep, PlanOp, PlanOpId, ResolvedPlan, MISSING_SYMBOL};
use avrokit::schema::{NodeId, NodeKind};
use avrokit::{Limits, Schema};

use super::column::{internal, Col, Kind};
use super::cursor::Cursor;
use crate::error::{Error, ErrorKind, Result};
use crate::mapping::nullable_union;

/// How to read one value from the wire into a column.
///
/// The leaves [`read_leaf`] handles come first, so that its match is one jump table.
pub(crate) enum Src {
    Bool,
    Int,
    Long,
    Float,
    Double,
    /// Length-prefixed bytes into a binary, decimal column.
    Bytes,
    /// Length-prefixed UTF-8 into a string or (text) uuid column.
    Str,
    Enum(Box<[u32]>),
    Null,
    IntToLong,
    IntToF32,
    IntToF64,
    LongToF32,
    LongToF64,
    FloatToF64,
    Fixed(usize),
    Array {
        item: Box<Src>,
        /// Items take no bytes on the wire: their count is bounded by the limit alone.
        zero_size: bool,
    },
    Map(Box<Src>),
    Record(Box<RecordSrc>),
    Union(Box<[Src]>),
    Wrap(u32, Box<Src>),
    Fail(Box<str>),
}

/// A reader-only field: its position, its default's encoding, and how to read that.
pub(crate) type FieldDefault = (usize, Box<[u8]>, Src);

pub(crate) struct RecordSrc {
    pub(crate) steps: Steps,
    pub(crate) defaults: Box<[FieldDefault]>,
}

/// A record's fields, as read from the wire.
pub(crate) enum Steps {
    /// Field `i` of the writer is column `i`, for every column: no skip, no reordering, no
    /// default. Read without a position to look up and check per field (the common case: a
    /// file read with its own schema, or one whose schema only gained fields at the end).
    InOrder(Box<[Src]>),
    /// Anything else.
    Mixed(Box<[Step]>),
}

impl RecordSrc {
    /// The record of `steps` for a struct of `columns` columns.
    pub(crate) fn new(steps: Vec<Step>, defaults: Vec<FieldDefault>, columns: usize) -> RecordSrc {
        let in_order = steps.len() == columns
            && steps
                .iter()
                .enumerate()
                .all(|(i, s)| matches!(s, Step::Read(to, _) if *to == i));
        let steps = if in_order {
            Steps::InOrder(
                steps
                    .into_iter()
                    .filter_map(|s| match s {
                        Step::Read(_, src) => Some(src),
                        Step::Skip(_) => None,
                    })
                    .collect(),
            )
        } else {
            Steps::Mixed(steps.into())
        };
        RecordSrc {
            steps,
            defaults: defaults.into(),
        }
    }
}

pub(crate) enum Step {
    Read(usize, Src),
    /// A writer-only value (or a run of them), skipped without being decoded.
    Skip(Skip),
}

/// How to skip a writer-only value, compiled once from the writer's schema: the projection's
/// hot path, since every unselected column of every row goes through it.
pub(crate) enum Skip {
    /// A run of values of one size each (null, boolean, float, double, fixed, records of
    /// those): one jump.
    Bytes(u64),
    /// `int`, `long`, `enum`: one varint.
    Varint,
    /// `bytes`, `string`: a length and that many bytes.
    Len,
    /// A record's fields in order (nested records flattened, fixed-size runs merged).
    Seq(Box<[Skip]>),
    Array {
        item: Box<Skip>,
        /// The items' size when it is fixed: a block of them is one jump.
        item_size: Option<u64>,
    },
    Map(Box<Skip>),
    Union(Box<[Skip]>),
    /// `["null", string]` or `["null", bytes]`, in either order (the branch index of null):
    /// an optional text, skipped without a branch on which it holds.
    NullOrLen(u8),
    /// A recursive type: the core's decoder, which bounds the nesting depth.
    Core(Schema),
}

impl Skip {
    /// The program that skips writer node `id`; a type that contains itself falls back to the
    /// core's decoder as a whole.
    fn compile(writer: &Schema, id: NodeId) -> Skip {
        let mut seq = Vec::new();
        match Skip::flat(writer, id, &mut Vec::new(), &mut seq) {
            Some(()) if seq.len() == 1 => seq.pop().unwrap_or(Skip::Bytes(0)),
            Some(()) => Skip::Seq(seq.into()),
            None => Skip::Core(writer.at(id)),
        }
    }

    /// Appends the skip of `id` to `out`, merging fixed-size runs; `None` when `id` is
    /// recursive (a record met again inside itself).
    fn flat(
        writer: &Schema,
        id: NodeId,
        open: &mut Vec<NodeId>,
        out: &mut Vec<Skip>,
    ) -> Option<()> {
        let one = |out: &mut Vec<Skip>, s: Skip| match (out.last_mut(), s) {
            (Some(Skip::Bytes(a)), Skip::Bytes(b)) => *a += b,
            (_, s) => out.push(s),
        };
        let single = |id: NodeId, open: &mut Vec<NodeId>| -> Option<Skip> {
            let mut v = Vec::new();
            Skip::flat(writer, id, open, &mut v)?;
            Some(match v.len() {
                0 => Skip::Bytes(0),
                1 => v.pop().unwrap_or(Skip::Bytes(0)),
                _ => Skip::Seq(v.into()),
            })
        };
        match &writer.node(id).kind {
            NodeKind::Null => one(out, Skip::Bytes(0)),
            NodeKind::Boolean => one(out, Skip::Bytes(1)),
            NodeKind::Float => one(out, Skip::Bytes(4)),
            NodeKind::Double => one(out, Skip::Bytes(8)),
            NodeKind::Fixed(f) => one(out, Skip::Bytes(f.size as u64)),
            NodeKind::Int | NodeKind::Long | NodeKind::Enum(_) => one(out, Skip::Varint),
            NodeKind::Bytes | NodeKind::String => one(out, Skip::Len),
            NodeKind::Record(r) => {
                if open.contains(&id) {
                    return None;
                }
                open.push(id);
                for f in &r.fields {
                    Skip::flat(writer, f.schema, open, out)?;
                }
                open.pop();
            }
            NodeKind::Array(a) => {
                let item = single(a.items, open)?;
                let item_size = match item {
                    Skip::Bytes(n) => Some(n),
                    _ => None,
                };
                one(
                    out,
                    Skip::Array {
                        item: Box::new(item),
                        item_size,
                    },
                );
            }
            NodeKind::Map(m) => {
                let value = single(m.values, open)?;
                one(out, Skip::Map(Box::new(value)));
            }
            NodeKind::Union(u) => {
                let branches = u
                    .variants
                    .iter()
                    .map(|&v| single(v, open))
                    .collect::<Option<Vec<_>>>()?;
                let skip = match branches[..] {
                    [Skip::Bytes(0), Skip::Len] => Skip::NullOrLen(0),
                    [Skip::Len, Skip::Bytes(0)] => Skip::NullOrLen(1),
                    _ => Skip::Union(branches.into()),
                };
                one(out, skip);
            }
        }
        Some(())
    }
}

/// Compiles `plan`'s op `op` (a value of reader node `r`) into the program for column `col`.
pub(crate) fn compile(plan: &ResolvedPlan, op: PlanOpId, r: NodeId, col: &Col) -> Result<Src> {
    let reader = plan.reader();
    let rnode = reader.node(r);
    Ok(match plan.op(op) {
        PlanOp::Null => Src::Null,
        PlanOp::Boolean => Src::Bool,
        PlanOp::Int => Src::Int,
        PlanOp::IntToLong => Src::IntToLong,
        PlanOp::IntToFloat => Src::IntToF32,
        PlanOp::IntToDouble => Src::IntToF64,
        PlanOp::Long => Src::Long,
        PlanOp::LongToFloat => Src::LongToF32,
        PlanOp::LongToDouble => Src::LongToF64,
        PlanOp::Float => Src::Float,
        PlanOp::FloatToDouble => Src::FloatToF64,
        PlanOp::Double => Src::Double,
        PlanOp::Bytes => Src::Bytes,
        PlanOp::String => Src::Str,
        PlanOp::Fixed { size } => Src::Fixed(size),
        PlanOp::Enum { table } => Src::Enum(table.into()),
        PlanOp::Array { items } => {
            let (NodeKind::Array(a), Kind::List { item, .. }) = (&rnode.kind, &col.kind) else {
                return Err(internal("array"));
            };
            let item_src = compile(plan, items, a.items, item)?;
            let zero_size = takes_no_bytes(&item_src);
            Src::Array {
                item: Box::new(item_src),
                zero_size,
            }
        }
        PlanOp::Map { values } => {
            let (NodeKind::Map(m), Kind::Map { values: v, .. }) = (&rnode.kind, &col.kind) else {
                return Err(internal("map"));
            };
            Src::Map(Box::new(compile(plan, values, m.values, v)?))
        }
        PlanOp::Record(rec) => {
            let (NodeKind::Record(rs), Kind::Struct { children, .. }) = (&rnode.kind, &col.kind)
            else {
                return Err(internal("record"));
            };
            let steps = rec
                .steps()
                .map(|s| {
                    Ok(match s {
                        FieldStep::Read { op, to } => {
                            Step::Read(to, compile(plan, op, rs.fields[to].schema, &children[to])?)
                        }
                        FieldStep::SkipBytes(n) => Step::Skip(Skip::Bytes(n)),
                        FieldStep::SkipValue(w) => Step::Skip(Skip::compile(plan.writer(), w)),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let steps = merge_skips(steps);
            let defaults = rec
                .defaults()
                .map(|(to, value)| {
                    let field = reader.at(rs.fields[to].schema);
                    let bytes = avrokit::to_datum_vec(value, &field)?;
                    let own = ResolvedPlan::compile(&field, &field)?;
                    let src = compile(&own, own.root_op(), field.root_id(), &children[to])?;
                    Ok((to, bytes.into_boxed_slice(), src))
                })
                .collect::<Result<Vec<_>>>()?;
            Src::Record(Box::new(RecordSrc::new(steps, defaults, children.len())))
        }
        PlanOp::Union { branches } => Src::Union(
            branches
                .iter()
                .map(|&b| compile(plan, b, r, col))
                .collect::<Result<Vec<_>>>()?
                .into(),
        ),
        PlanOp::Wrap { branch, op } => {
            let NodeKind::Union(u) = &rnode.kind else {
                return Err(internal("union"));
            };
            let target = *u
                .variants
                .get(branch as usize)
                .ok_or_else(|| internal("union branch"))?;
            let inner = match (&col.kind, nullable_union(reader, rnode)) {
                (_, Some((_, null_branch))) if null_branch == branch => Src::Null,
                (_, Some(_)) => compile(plan, op, target, col)?,
                (Kind::Union { children, .. }, None) => {
                    compile(plan, op, target, &children[branch as usize])?
                }
                _ => return Err(internal("union")),
            };
            Src::Wrap(branch, Box::new(inner))
        }
        PlanOp::Fail { message } => Src::Fail(message.into()),
        _ => return Err(Error::unsupported("an op this version does not know")),
    })
}

/// Runs of skips between two reads become one step: fewer dispatches per row, and adjacent
/// fixed-size skips one jump.
fn merge_skips(steps: Vec<Step>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    for step in steps {
        match (out.last_mut(), step) {
            (Some(Step::Skip(prev)), Step::Skip(next)) => {
                let mut seq = match std::mem::replace(prev, Skip::Bytes(0)) {
                    Skip::Seq(v) => v.into_vec(),
                    other => vec![other],
                };
                match next {
                    Skip::Seq(v) => seq.extend(v.into_vec()),
                    other => seq.push(other),
                }
                let mut merged: Vec<Skip> = Vec::with_capacity(seq.len());
                for s in seq {
                    match (merged.last_mut(), s) {
                        (Some(Skip::Bytes(a)), Skip::Bytes(b)) => *a += b,
                        (_, s) => merged.push(s),
                    }
                }
                *prev = if merged.len() == 1 {
                    merged.pop().unwrap_or(Skip::Bytes(0))
                } else {
                    Skip::Seq(merged.into())
                };
            }
            (_, step) => out.push(step),
        }
    }
    out
}

fn takes_no_bytes(src: &Src) -> bool {
    match src {
        Src::Null | Src::Fixed(0) => true,
        Src::Record(r) => match &r.steps {
            Steps::InOrder(srcs) => srcs.iter().all(takes_no_bytes),
            Steps::Mixed(steps) => steps.iter().all(|s| match s {
                Step::Read(_, s) => takes_no_bytes(s),
                Step::Skip(Skip::Bytes(n)) => *n == 0,
                Step::Skip(_) => false,
            }),
        },
        Src::Wrap(_, s) => takes_no_bytes(s),
        _ => false,
    }
}

/// What reading needs besides the data: the limits.
pub(crate) struct Cx {
    pub(crate) limits: Limits,
}

#[inline(always)]
fn push_str_like(col: &mut Col, b: &[u8]) -> Result<()> {
    if let Kind::Bin { offsets, values } = &mut col.kind {
        values.extend_from_slice(b);
        let end = i32::try_from(values.len()).map_err(|_| too_big())?;
        offsets.push(end);
        Ok(())
    } else {
        Err(internal("binary"))
    }
}

#[cold]
fn too_big() -> Error {
    Error::new(
        ErrorKind::Limit,
        "a column's values exceed 2 GiB in one batch (use a smaller batch size)",
    )
}

/// Reads one value with `src` into `col`.
///
/// The common leaves (numbers, strings, bytes, a nullable union's branch) are handled here,
/// inlined into the record and collection loops; everything else goes to [`read_any`]. That
/// saves a call and a second dispatch per value: about a third of the instructions per row of
/// the `-container` record (callgrind). A nested record goes straight to [`read_record`], not
/// through `read_any`, the call into that large function costing more than its dispatch:
/// 13 fewer instructions a row of a record shaped like `-container`'s (one nested record).
#[inline(always)]
pub(crate) fn read(col: &mut Col, src: &Src, cur: &mut Cursor, cx: &Cx) -> Result<()> {
    if read_leaf(&mut col.kind, src, cur)? {
        return Ok(());
    }
    match src {
        Src::Union(branches) if col.nulls.is_some() => {
            let at = cur.pos();
            let i = cur.long()?;
            match usize::try_from(i).ok().and_then(|i| branches.get(i)) {
                Some(Src::Wrap(branch, inner)) => {
                    let nulls = col.nulls.as_mut().ok_or_else(|| internal("nulls"))?;
                    if *branch == nulls.null_branch {
                        col.push_null();
                    } else {
                        nulls.bits.append(true);
                        if !read_leaf(&mut col.kind, inner, cur)? {
                            read_any(col, inner, cur, cx)?;
                        }
                    }
                }
                _ => {
                    // Out of range or a failing branch: the general path says which.
                    cur.set_pos(at);
                    read_any(col, src, cur, cx)?;
                }
            }
        }
        Src::Record(r) => read_record(col, r, cur, cx)?,
        _ => read_any(col, src, cur, cx)?,
    }
    Ok(())
}

/// Reads a leaf value (a number, a string or bytes, an enum, a boolean) when `src` and `kind`
/// are one; `false` for anything else, which [`read_any`] handles.
#[inline(always)]
fn read_leaf(kind: &mut Kind, src: &Src, cur: &mut Cursor) -> Result<bool> {
    match (src, kind) {
        (Src::Long, Kind::I64(v)) => v.push(cur.long()?),
        (Src::Int, Kind::I32(v)) => v.push(cur.int()?),
        (Src::Double, Kind::F64(v)) => v.push(cur.double()?),
        (Src::Float, Kind::F32(v)) => v.push(cur.float()?),
        (Src::Bool, Kind::Bool(b)) => b.append(cur.boolean()?),
        (Src::Str | Src::Bytes, Kind::Bin { offsets, values }) => {
            cur.bytes_into(values)?;
            let end = i32::try_from(values.len()).map_err(|_| too_big())?;
            offsets.push(end);
        }
        (Src::Enum(table), Kind::Enum { keys, .. }) => {
            let at = cur.pos();
            let i = cur.int()?;
            match usize::try_from(i).ok().and_then(|i| table.get(i)) {
                Some(&m) if m != MISSING_SYMBOL => keys.push(m as i32),
                _ => {
                    cur.set_pos(at);
                    return Ok(false);
                }
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Reads one value with `src` into `col`: every case.
#[inline(never)]
fn read_any(col: &mut Col, src: &Src, cur: &mut Cursor, cx: &Cx) -> Result<()> {
    match src {
        Src::Long => match &mut col.kind {
            Kind::I64(v) => v.push(cur.long()?),
            _ => return Err(internal("long")),
        },
        Src::Int => match &mut col.kind {
            Kind::I32(v) => v.push(cur.int()?),
            _ => return Err(internal("int")),
        },
        Src::Str => {
            let b = cur.bytes()?;
            match &mut col.kind {
                Kind::Fixed { values, len, .. } => {
                    let at = cur.pos() - b.len();
                    let u = parse_uuid(b).ok_or_else(|| {
                        Error::at(
                            ErrorKind::Data,
                            format!("not a uuid: {:?}", String::from_utf8_lossy(b)),
                            at as u64,
                        )
                    })?;
                    values.extend_from_slice(&u);
                    *len += 1;
                }
                _ => push_str_like(col, b)?,
            }
        }
        Src::Double => match &mut col.kind {
            Kind::F64(v) => v.push(cur.double()?),
            _ => return Err(internal("double")),
        },
        Src::Float => match &mut col.kind {
            Kind::F32(v) => v.push(cur.float()?),
            _ => return Err(internal("float")),
        },
        Src::Bool => match &mut col.kind {
            Kind::Bool(b) => b.append(cur.boolean()?),
            _ => return Err(internal("boolean")),
        },
        Src::Null => match &mut col.kind {
            Kind::Null(n) => *n += 1,
            _ => return Err(internal("null")),
        },
        Src::IntToLong => match &mut col.kind {
            Kind::I64(v) => v.push(cur.int()? as i64),
            _ => return Err(internal("long")),
        },
        Src::IntToF32 => match &mut col.kind {
            Kind::F32(v) => v.push(cur.int()? as f32),
            _ => return Err(internal("float")),
        },
        Src::IntToF64 => match &mut col.kind {
            Kind::F64(v) => v.push(cur.int()? as f64),
            _ => return Err(internal("double")),
        },
        Src::LongToF32 => match &mut col.kind {
            Kind::F32(v) => v.push(cur.long()? as f32),
            _ => return Err(internal("float")),
        },
        Src::LongToF64 => match &mut col.kind {
            Kind::F64(v) => v.push(cur.long()? as f64),
            _ => return Err(internal("double")),
        },
        Src::FloatToF64 => match &mut col.kind {
            Kind::F64(v) => v.push(cur.float()? as f64),
            _ => return Err(internal("double")),
        },
        Src::Bytes => {
            let at = cur.pos();
            let b = cur.bytes()?;
            match &mut col.kind {
                Kind::Dec128(v) => v.push(decimal128(b).ok_or_else(|| decimal_error(b, at))?),
                Kind::Dec256(v) => v.push(decimal256(b).ok_or_else(|| decimal_error(b, at))?),
                _ => push_str_like(col, b)?,
            }
        }
        Src::Fixed(size) => {
            let at = cur.pos();
            let b = cur.take(*size)?;
            match &mut col.kind {
                Kind::Fixed { values, len, .. } => {
                    values.extend_from_slice(b);
                    *len += 1;
                }
                Kind::Dec128(v) => v.push(decimal128(b).ok_or_else(|| decimal_error(b, at))?),
                Kind::Dec256(v) => v.push(decimal256(b).ok_or_else(|| decimal_error(b, at))?),
                Kind::Interval(v) => {
                    let le = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
                    if b.len() != 12 {
                        return Err(internal("duration"));
                    }
                    // Avro's months and days are unsigned, Arrow's signed: values past
                    // i32::MAX wrap, as arrow-avro's do.
                    let (months, days, millis) = (le(0), le(4), le(8));
                    v.push(IntervalMonthDayNano::new(
                        months as i32,
                        days as i32,
                        millis as i64 * 1_000_000,
                    ));
                }
                _ => return Err(internal("fixed")),
            }
        }
        Src::Enum(table) => {
            let at = cur.pos();
            let i = cur.int()?;
            let mapped = match usize::try_from(i).ok().and_then(|i| table.get(i)) {
                Some(&m) if m != MISSING_SYMBOL => m,
                Some(_) => {
                    return Err(Error::at(
                        ErrorKind::Avro(avrokit::ErrorKind::Resolution),
                        format!("enum symbol {i} of the writer is not in the reader's enum, which has no default"),
                        at as u64,
                    ))
                }
                None => {
                    return Err(Error::at(
                        ErrorKind::Data,
                        format!("enum index {i} out of range ({} symbols)", table.len()),
                        at as u64,
                    ))
                }
            };
            match &mut col.kind {
                Kind::Enum { keys, .. } => keys.push(mapped as i32),
                _ => return Err(internal("enum")),
            }
        }
        Src::Record(r) => read_record(col, r, cur, cx)?,
        Src::Array { item, zero_size } => {
            let Kind::List {
                offsets,
                item: child,
                ..
            } = &mut col.kind
            else {
                return Err(internal("array"));
            };
            // The items counted here, not asked of the child (a call per array).
            let mut end = i64::from(*offsets.last().unwrap_or(&0));
            loop {
                let at = cur.pos();
                let (n, size) = cur.block()?;
                if n == 0 {
                    break;
                }
                check_count(n, *zero_size, cur, cx, at)?;
                let start = cur.pos();
                read_items(child, item, n, cur, cx).map_err(|e| e.in_field("[]"))?;
                check_size(size, start, cur, at)?;
                end = end.saturating_add(n as i64);
            }
            offsets.push(i32::try_from(end).map_err(|_| too_big())?);
        }
        Src::Map(value) => {
            let Kind::Map {
                offsets,
                keys,
                values,
                ..
            } = &mut col.kind
            else {
                return Err(internal("map"));
            };
            let mut end = i64::from(*offsets.last().unwrap_or(&0));
            loop {
                let at = cur.pos();
                let (n, size) = cur.block()?;
                if n == 0 {
                    break;
                }
                check_count(n, false, cur, cx, at)?;
                end = end.saturating_add(n as i64);
                let start = cur.pos();
                for _ in 0..n {
                    let Kind::Bin {
                        offsets: key_ends,
                        values: key_bytes,
                    } = &mut keys.kind
                    else {
                        return Err(internal("map keys"));
                    };
                    cur.bytes_into(key_bytes)?;
                    key_ends.push(i32::try_from(key_bytes.len()).map_err(|_| too_big())?);
                    read(values, value, cur, cx).map_err(|e| e.in_field("{}"))?;
                }
                check_size(size, start, cur, at)?;
            }
            offsets.push(i32::try_from(end).map_err(|_| too_big())?);
        }
        Src::Union(branches) => {
            let at = cur.pos();
            let i = cur.long()?;
            let Some(b) = usize::try_from(i).ok().and_then(|i| branches.get(i)) else {
                return Err(Error::at(
                    ErrorKind::Data,
                    format!("union index {i} out of range ({} branches)", branches.len()),
                    at as u64,
                ));
            };
            if let Src::Fail(message) = b {
                return Err(Error::at(
                    ErrorKind::Avro(avrokit::ErrorKind::Resolution),
                    format!("writer union branch {i}: {message}"),
                    at as u64,
                ));
            }
            read(col, b, cur, cx)?;
        }
        Src::Wrap(branch, inner) => {
            if let Some(null_branch) = col.nulls.as_ref().map(|n| n.null_branch) {
                if *branch == null_branch {
                    col.push_null();
                } else {
                    col.push_valid();
                    read(col, inner, cur, cx)?;
                }
            } else if let Kind::Union {
                type_ids,
                offsets,
                children,
                counts,
            } = &mut col.kind
            {
                let b = *branch as usize;
                type_ids.push(b as i8);
                offsets.push(counts[b]);
                counts[b] += 1;
                read(&mut children[b], inner, cur, cx)?;
            } else {
                return Err(internal("union"));
            }
        }
        Src::Fail(message) => {
            return Err(Error::at(
                ErrorKind::Avro(avrokit::ErrorKind::Resolution),
                message.to_string(),
                cur.pos() as u64,
            ))
        }
    }
    Ok(())
}

/// Reads `n` array items with `item` into `child`. Items that are numbers, strings or bytes
/// are read in a loop of their own, the (item, column) pair matched once a block where
/// [`read`] matches it once an item (a record shaped like -container's, 0-5 longs an array:
/// 1670 to 1608 instructions a row, callgrind); other items go one by one through `read`.
#[inline(always)]
fn read_items(child: &mut Col, item: &Src, n: u64, cur: &mut Cursor, cx: &Cx) -> Result<()> {
    match (item, &mut child.kind) {
        (Src::Long, Kind::I64(v)) => (0..n).try_for_each(|_| cur.long().map(|x| v.push(x))),
        (Src::Int, Kind::I32(v)) => (0..n).try_for_each(|_| cur.int().map(|x| v.push(x))),
        // Floats and doubles take a fixed size: the block's values are one slice of the input,
        // converted in one loop with no bounds check per item.
        (Src::Double, Kind::F64(v)) => {
            let b = cur.take(fixed_run(n, 8, cur)?)?;
            v.extend(
                b.chunks_exact(8)
                    .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])),
            );
            Ok(())
        }
        (Src::Float, Kind::F32(v)) => {
            let b = cur.take(fixed_run(n, 4, cur)?)?;
            v.extend(
                b.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            Ok(())
        }
        (Src::Str | Src::Bytes, Kind::Bin { offsets, values }) => (0..n).try_for_each(|_| {
            cur.bytes_into(values)?;
            offsets.push(i32::try_from(values.len()).map_err(|_| too_big())?);
            Ok(())
        }),
        _ => (0..n).try_for_each(|_| read(child, item, cur, cx)),
    }
}

/// The bytes of `n` values of `size` bytes each; a count too large for an address is more
/// than the input holds. `Cursor::take` checks the result against what is left.
#[inline(always)]
fn fixed_run(n: u64, size: u64, cur: &Cursor) -> Result<usize> {
    n.checked_mul(size)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| cur.eof())
}

/// Reads one record into a struct column.
#[inline]
pub(crate) fn read_record(col: &mut Col, r: &RecordSrc, cur: &mut Cursor, cx: &Cx) -> Result<()> {
    let Kind::Struct {
        children,
        names,
        len,
    } = &mut col.kind
    else {
        return Err(internal("record"));
    };
    match &r.steps {
        Steps::InOrder(srcs) => {
            for (i, (child, src)) in children.iter_mut().zip(srcs.iter()).enumerate() {
                read(child, src, cur, cx).map_err(|e| field_error(e, names, i))?;
            }
        }
        Steps::Mixed(steps) => {
            for step in steps.iter() {
                match step {
                    Step::Read(to, src) => read(&mut children[*to], src, cur, cx)
                        .map_err(|e| field_error(e, names, *to))?,
                    Step::Skip(s) => skip(s, cur, cx)?,
                }
            }
        }
    }
    for (to, bytes, src) in r.defaults.iter() {
        read(&mut children[*to], src, &mut Cursor::new(bytes), cx)
            .map_err(|e| e.in_field(&names[*to]))?;
    }
    *len += 1;
    Ok(())
}

#[cold]
#[inline(never)]
fn field_error(e: Error, names: &[Box<str>], i: usize) -> Error {
    match names.get(i) {
        Some(name) => e.in_field(name),
        None => e,
    }
}

/// Skips a writer-only value: the leaves here, inlined into the loops that call this, the
/// rest in [`skip_any`].
#[inline(always)]
fn skip(s: &Skip, cur: &mut Cursor, cx: &Cx) -> Result<()> {
    match s {
        Skip::Bytes(n) => cur.skip(*n),
        Skip::Varint => cur.skip_varint(),
        Skip::Len => cur.skip_len(),
        _ => skip_any(s, cur, cx),
    }
}

/// Skips a writer-only value. Arrays and maps written with block byte sizes are skipped a
/// block at a time; counts are checked against what is left before any loop.
///
/// The work happens on a copy of the cursor whose address reaches no call, so its position
/// stays in a register from one value to the next: skipping is a chain in which each value's
/// end is where the next one starts, and a store and reload of the position at every value
/// lengthened it (perf: `mov` to and from the cursor were the hottest instructions of a
/// projected scan). The caller's cursor is brought up to date only around the rare nested
/// calls, and at the end.
#[inline(never)]
fn skip_any(s: &Skip, cur: &mut Cursor, cx: &Cx) -> Result<()> {
    let mut c = cur.clone();
    let r = skip_seq(s, &mut c, cur, cx);
    cur.sync(&c);
    r
}

/// [`skip_any`]'s body. Plain loops here and below: a closure can stay a call of its own,
/// which the copy would then reach.
#[inline(always)]
fn skip_seq<'a>(s: &Skip, c: &mut Cursor<'a>, cur: &mut Cursor<'a>, cx: &Cx) -> Result<()> {
    match s {
        Skip::Seq(steps) => {
            for s in steps.iter() {
                skip_on(s, c, cur, cx)?;
            }
            Ok(())
        }
        s => skip_on(s, c, cur, cx),
    }
}

/// Skips one value on the local cursor `c`. A nested sequence, an array, map or union item
/// that is not a leaf, and a recursive type, go through `cur`, the caller's cursor.
#[inline(always)]
fn skip_on<'a>(s: &Skip, c: &mut Cursor<'a>, cur: &mut Cursor<'a>, cx: &Cx) -> Result<()> {
    match s {
        Skip::Bytes(n) => c.skip(*n),
        Skip::Varint => c.skip_varint(),
        Skip::Len => c.skip_len(),
        Skip::Seq(_) => nested(s, c, cur, cx),
        Skip::Array { item, item_size } => loop {
            let at = c.pos();
            let (n, size) = c.block()?;
            if n == 0 {
                return Ok(());
            }
            if let Some(size) = size {
                c.skip(size)?;
            } else if let Some(k) = item_size {
                let total = n
                    .checked_mul(*k)
                    .ok_or_else(|| c.error("array block too large"))?;
                c.skip(total)?;
            } else {
                // Items of no fixed size take a byte at least.
                check_count(n, false, c, cx, at)?;
                // The loop inside the match: a leaf item costs no dispatch.
                match &**item {
                    Skip::Varint => {
                        for _ in 0..n {
                            c.skip_varint()?;
                        }
                    }
                    Skip::Len => {
                        for _ in 0..n {
                            c.skip_len()?;
                        }
                    }
                    item => {
                        for _ in 0..n {
                            nested(item, c, cur, cx)?;
                        }
                    }
                }
            }
        },
        Skip::Map(value) => loop {
            let at = c.pos();
            let (n, size) = c.block()?;
            if n == 0 {
                return Ok(());
            }
            if let Some(size) = size {
                c.skip(size)?;
            } else {
                check_count(n, false, c, cx, at)?;
                for _ in 0..n {
                    c.skip_len()?;
                    match &**value {
                        Skip::Varint => c.skip_varint()?,
                        Skip::Len => c.skip_len()?,
                        Skip::Bytes(k) => c.skip(*k)?,
                        value => nested(value, c, cur, cx)?,
                    }
                }
            }
        },
        Skip::NullOrLen(null) => c.skip_null_or_len(*null),
        Skip::Union(branches) => {
            let at = c.pos();
            let i = c.long()?;
            match usize::try_from(i).ok().and_then(|i| branches.get(i)) {
                Some(Skip::Bytes(n)) => c.skip(*n),
                Some(Skip::Varint) => c.skip_varint(),
                Some(Skip::Len) => c.skip_len(),
                Some(b) => nested(b, c, cur, cx),
                None => Err(Error::at(
                    ErrorKind::Data,
                    format!("union index {i} out of range ({} branches)", branches.len()),
                    at as u64,
                )),
            }
        }
        Skip::Core(schema) => {
            cur.sync(c);
            let r = skip_core(schema, cur, cx);
            c.sync(cur);
            r
        }
    }
}

/// Skips a value that is not a leaf from inside [`skip_on`]: through the caller's cursor,
/// brought up to date before and read back after.
#[inline(always)]
fn nested<'a>(s: &Skip, c: &mut Cursor<'a>, cur: &mut Cursor<'a>, cx: &Cx) -> Result<()> {
    cur.sync(c);
    let r = skip_any(s, cur, cx);
    c.sync(cur);
    r
}

/// Skips a value of a recursive type with the core's decoder, which bounds the depth.
#[cold]
fn skip_core(schema: &Schema, cur: &mut Cursor, cx: &Cx) -> Result<()> {
    let rest = cur.rest();
    let mut dec = avrokit::Decoder::from_slice(rest).with_limits(cx.limits);
    let at = cur.pos() as u64;
    dec.skip_value(schema, schema.root_id())
        .map_err(|e| Error::from(e).shifted(at))?;
    cur.advance(rest.len() - dec.rest().len());
    Ok(())
}

/// A block's item count against what is left and the limits, before anything is read.
#[inline]
fn check_count(n: u64, zero_size: bool, cur: &Cursor, cx: &Cx, at: usize) -> Result<()> {
    let bound = if zero_size {
        cx.limits.max_alloc as u64
    } else {
        cur.remaining() as u64
    };
    if n > bound {
        return Err(Error::at(
            if zero_size {
                ErrorKind::Limit
            } else {
                ErrorKind::Eof
            },
            format!(
                "block of {n} items, but {}",
                if zero_size {
                    format!("the limit is {bound}")
                } else {
                    format!("only {bound} bytes are left")
                }
            ),
            at as u64,
        ));
    }
    Ok(())
}

/// A block's byte size (after a negative count) against the bytes its items took: a reader
/// that skips by the size must land where one that reads the items does.
#[inline(always)]
fn check_size(size: Option<u64>, start: usize, cur: &Cursor, at: usize) -> Result<()> {
    match size {
        Some(size) if size != (cur.pos() - start) as u64 => Err(Error::at(
            ErrorKind::Data,
            format!(
                "block byte size {size}, but its items took {} bytes",
                cur.pos() - start
            ),
            at as u64,
        )),
        _ => Ok(()),
    }
}

fn decimal128(b: &[u8]) -> Option<i128> {
    let mut buf = [if b.first().is_some_and(|&x| x & 0x80 != 0) {
        0xff
    } else {
        0
    }; 16];
    let b = strip_sign(b, 16)?;
    buf[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

fn decimal256(b: &[u8]) -> Option<i256> {
    let neg = b.first().is_some_and(|&x| x & 0x80 != 0);
    let mut buf = [if neg { 0xff } else { 0 }; 32];
    let b = strip_sign(b, 32)?;
    buf[32 - b.len()..].copy_from_slice(b);
    Some(i256::from_be_bytes(buf))
}

/// Drops redundant sign-extension bytes so the value fits `width` bytes, if it can.
fn strip_sign(mut b: &[u8], width: usize) -> Option<&[u8]> {
    while b.len() > width {
        let (first, second) = (b[0], b[1]);
        let redundant = (first == 0 && second & 0x80 == 0) || (first == 0xff && second & 0x80 != 0);
        if !redundant {
            return None;
        }
        b = &b[1..];
    }
    Some(b)
}

#[cold]
fn decimal_error(b: &[u8], at: usize) -> Error {
    Error::at(
        ErrorKind::Data,
        format!(
            "a decimal of {} bytes does not fit the Arrow decimal type",
            b.len()
        ),
        at as u64,
    )
}

/// The 16 bytes of a uuid's text form (`8-4-4-4-12` hex digits): dashes exactly at 8, 13, 18
/// and 23, hex digits everywhere else.
pub(crate) fn parse_uuid(s: &[u8]) -> Option<[u8; 16]> {
    if s.len() != 36 {
        return None;
    }
    let mut out = [0u8; 16];
    let mut digits = 0usize;
    for (i, &c) in s.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return None;
            }
            continue;
        }
        let d = (c as char).to_digit(16)? as u8;
        let byte = &mut out[digits / 2];
        *byte = if digits % 2 == 0 { d << 4 } else { *byte | d };
        digits += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::parse_uuid;

    #[test]
    fn uuid_text_is_parsed_by_position() {
        let u = parse_uuid(b"123e4567-e89b-12d3-a456-426614174000").unwrap();
        assert_eq!(u[0], 0x12);
        assert_eq!(u[15], 0x00);
        assert_eq!(u[8], 0xa4);
        // Dashes elsewhere (the fuzzer's input shifted the pairs past the end), a dash missing,
        // a non-hex digit, a wrong length: none is a uuid, and none panics.
        for bad in [
            &b"1-3e4567-e89b-12d3-a456-426614174000"[..],
            b"123e4567-e89b-12d3-a456-42661417400-",
            b"123e4567-e89b-12d3-a456-4266141740-0",
            b"123e4567xe89b-12d3-a456-426614174000",
            b"123e4567-e89b-12d3-a456-42661417400g",
            b"123e4567-e89b-12d3-a456-42661417400",
            b"------------------------------------",
        ] {
            assert_eq!(parse_uuid(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
