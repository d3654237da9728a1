//! Reading a [`Value`] through a [`ResolvedPlan`]: data written with one schema, produced in the
//! shape of another.
//!
//! The interpreter only matches on the plan's ops: promotions, skips, defaults and remaps were
//! all decided when the plan was compiled. Defaults are cloned from the values the plan built
//! once from its literals ([`FieldDefault::value`](super::literal::FieldDefault)).
//!
//! As in `value/decode.rs`, the common leaf ops (and unions of them) run inline in the loop of their
//! record, array or map, and [`read_value_resolved_into`] overwrites a reused value in place:
//! a reused record takes each writer field straight into its reader position (no swaps), and
//! its defaults are assigned in place (a string default reuses the string already there).

use super::ops::{
    skip, zero_size_item_mem, BytesOut, FixedOut, IntOut, LongOut, Op, OpId, Step, StringOut,
};
use super::{PlanInner, ResolvedPlan};
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Source;
use crate::value::decode::{
    assign_clone, in_field, nulls, put, read_branch, set_bytes, set_fixed, set_plain, set_scalar,
    set_string,
};
use crate::value::{read_value, read_value_into, Value};

/// Reads one datum written with the plan's writer schema, as a value of its reader schema.
///
/// The value has the reader's shape: record fields in the reader's order (reader-only fields
/// hold their defaults), the reader's union branch indexes, enum symbol indexes and logical
/// types. Limits, depth and error reporting are those of [`read_value`].
///
/// # Examples
/// ```
/// use avrokit::{Decoder, Schema, Value};
/// use avrokit::resolution::ResolvedPlan;
/// use avrokit::value::read_value_resolved;
///
/// let writer = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"x","type":"int"},{"name":"old","type":"string"}]}"#)?;
/// let reader = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"y","type":"long","default":7},{"name":"x","type":"double"}]}"#)?;
/// let plan = ResolvedPlan::compile(&writer, &reader)?; // once, then reused for every datum
///
/// let bytes = [0x06, 0x02, b'z']; // x = 3, old = "z"
/// let v = read_value_resolved(&mut Decoder::from_slice(&bytes), &plan)?;
/// assert_eq!(v, Value::Record(vec![Value::Long(7), Value::Double(3.0)]));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// Malformed or truncated data (with its byte offset and the path of the value being read), a
/// length, count or depth beyond the decoder's [`Limits`](crate::Limits), or
/// [`ErrorKind::Resolution`] for a datum the reader cannot represent: a writer union branch the
/// reader's schema has no match for, or an enum symbol the reader lacks (and has no default
/// for).
pub fn read_value_resolved<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    plan: &ResolvedPlan,
) -> Result<Value> {
    let p = plan.inner();
    if p.identity {
        // Same canonical form: the wire layout is the reader's own, so read it directly (the
        // reader's logical types apply, as with the ops).
        return read_value(dec, &p.reader);
    }
    match read_op(dec, p, p.root) {
        Ok(v) => Ok(v),
        Err(e) => Err(in_root(e, p)),
    }
}

/// Decodes one datum from `bytes` (which must hold exactly that datum) through `plan`.
///
/// # Examples
/// ```
/// use avrokit::{Schema, Value};
/// use avrokit::resolution::ResolvedPlan;
/// let plan = ResolvedPlan::compile(&Schema::parse_str(r#""int""#)?, &Schema::parse_str(r#""long""#)?)?;
/// assert_eq!(avrokit::value::from_datum_slice_resolved(&[0x03], &plan)?, Value::Long(-2));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`read_value_resolved`], and bytes left over after the datum.
pub fn from_datum_slice_resolved(bytes: &[u8], plan: &ResolvedPlan) -> Result<Value> {
    let mut dec = Decoder::from_slice(bytes);
    let v = read_value_resolved(&mut dec, plan)?;
    dec.expect_end()?;
    Ok(v)
}

/// Reads one datum written with the plan's writer schema into `out`, as a value of its reader
/// schema, reusing the allocations `out` holds (as [`read_value_into`] does): with one `Value`
/// reused for a stream of datums, reading allocates only while values grow. Reader-only fields
/// are assigned their defaults in place (a string default reuses the string already there).
///
/// The result is exactly what [`read_value_resolved`] returns. On error `out` holds some valid
/// but unspecified value.
///
/// # Examples
/// ```
/// use avrokit::{Decoder, Schema, Value};
/// use avrokit::resolution::ResolvedPlan;
/// use avrokit::value::read_value_resolved_into;
///
/// let writer = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"x","type":"int"}]}"#)?;
/// let reader = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"s","type":"string","default":"-"},{"name":"x","type":"long"}]}"#)?;
/// let plan = ResolvedPlan::compile(&writer, &reader)?;
/// let mut dec = Decoder::from_slice(&[0x06, 0x08]);
/// let mut v = Value::Null;
/// read_value_resolved_into(&mut dec, &plan, &mut v)?;
/// assert_eq!(v, Value::Record(vec![Value::String("-".into()), Value::Long(3)]));
/// read_value_resolved_into(&mut dec, &plan, &mut v)?; // reuses the record's vector
/// assert_eq!(v, Value::Record(vec![Value::String("-".into()), Value::Long(4)]));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`read_value_resolved`].
pub fn read_value_resolved_into<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    plan: &ResolvedPlan,
    out: &mut Value,
) -> Result<()> {
    let p = plan.inner();
    if p.identity {
        return read_value_into(dec, &p.reader, out);
    }
    match op_into(dec, p, p.root, out) {
        Ok(()) => Ok(()),
        Err(e) => Err(in_root(e, p)),
    }
}

#[cold]
#[inline(never)]
fn in_root(e: Error, p: &PlanInner) -> Error {
    match p.reader.root().name() {
        Some(n) => e.in_field(n.name().to_owned()),
        None => e,
    }
}

/// Runs a common leaf op (primitives and promotions without a logical type, enums) and hands
/// its value to `put`; `None` (nothing read) for any other op, which the caller runs out of
/// line. As the `Value` reader's `leaf_then`: `put` is inlined into each arm, so a value
/// stored in a slot or a box is built there, not returned and copied (a copy that waits on
/// the stores that built it).
#[inline(always)]
fn leaf_then<'de, S: Source<'de>, R>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    op: &Op,
    put: impl FnOnce(Value) -> R,
) -> Result<Option<R>> {
    Ok(Some(match op {
        Op::Null => put(Value::Null),
        Op::Boolean => put(Value::Boolean(dec.read_boolean()?)),
        Op::Int(IntOut::Int) => put(Value::Int(dec.read_int()?)),
        Op::IntToLong(LongOut::Long) => put(Value::Long(i64::from(dec.read_int()?))),
        Op::IntToDouble => put(Value::Double(f64::from(dec.read_int()?))),
        Op::Long(LongOut::Long) => put(Value::Long(dec.read_long()?)),
        Op::Float => put(Value::Float(dec.read_float()?)),
        Op::Double => put(Value::Double(dec.read_double()?)),
        Op::String(StringOut::String) => put(Value::String(dec.read_str()?.to_owned())),
        Op::Enum(e) => put(Value::Enum(e.read(dec, p)?)),
        _ => return Ok(None),
    }))
}

/// A reader union's branch `index` around op `id` (`Op::Wrap`): `Value::Union(index, ..)`,
/// the box allocated first so that the op's value is built in it.
#[inline(always)]
fn wrap_inline<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    index: u32,
    id: OpId,
) -> Result<Value> {
    let mut inner = Box::new(Value::Null);
    if leaf_then(dec, p, &p.ops[id as usize], |v| put(&mut inner, v))?.is_none() {
        put(&mut inner, read_op(dec, p, id)?);
    }
    Ok(Value::Union(index, inner))
}

/// Runs op `id` into `slot` (a [`Value::Null`]): the common leaves, and unions of them, built
/// in place; anything else out of line.
#[inline(always)]
fn op_put<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    id: OpId,
    slot: &mut Value,
) -> Result<()> {
    let op = &p.ops[id as usize];
    if leaf_then(dec, p, op, |v| put(slot, v))?.is_some() {
        return Ok(());
    }
    match op {
        // A writer union read as a reader union, branch by branch.
        Op::Union(branches) => {
            let i = read_branch(dec, branches)?;
            let branch = branches[i as usize];
            dec.enter()?;
            match &p.ops[branch as usize] {
                Op::Wrap { index, op } => put(slot, wrap_inline(dec, p, *index, *op)?),
                op => {
                    if leaf_then(dec, p, op, |v| put(slot, v))?.is_none() {
                        put(slot, read_op(dec, p, branch)?);
                    }
                }
            }
            dec.leave();
        }
        Op::Wrap { index, op } => put(slot, wrap_inline(dec, p, *index, *op)?),
        _ => put(slot, read_op(dec, p, id)?),
    }
    Ok(())
}

/// Stores a clone of `v` (a default) in `slot` (a [`Value::Null`]): a string's or bytes'
/// clone is built in the slot, where a whole `Value` returned by `clone` would be copied.
#[inline(always)]
fn put_clone(slot: &mut Value, v: &Value) {
    match v {
        Value::String(s) => put(slot, Value::String(s.clone())),
        Value::Bytes(b) => put(slot, Value::Bytes(b.clone())),
        v => put(slot, v.clone()),
    }
}

/// Runs op `id` as [`op_put`] does, and returns its value.
#[inline(always)]
fn op_inline<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    id: OpId,
) -> Result<Value> {
    let mut v = Value::Null;
    op_put(dec, p, id, &mut v)?;
    Ok(v)
}

/// Runs op `id`.
#[inline(never)]
fn read_op<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    id: OpId,
) -> Result<Value> {
    Ok(match &p.ops[id as usize] {
        Op::Null => Value::Null,
        Op::Boolean => Value::Boolean(dec.read_boolean()?),
        Op::Int(out) => out.make(dec.read_int()?),
        Op::IntToLong(out) => out.make(i64::from(dec.read_int()?)),
        // `as` rounds to the nearest float, as Java's widening conversions do.
        Op::IntToFloat => Value::Float(dec.read_int()? as f32),
        Op::IntToDouble => Value::Double(f64::from(dec.read_int()?)),
        Op::Long(out) => out.make(dec.read_long()?),
        Op::LongToFloat => Value::Float(dec.read_long()? as f32),
        Op::LongToDouble => Value::Double(dec.read_long()? as f64),
        Op::Float => Value::Float(dec.read_float()?),
        Op::FloatToDouble => Value::Double(f64::from(dec.read_float()?)),
        Op::Double => Value::Double(dec.read_double()?),
        Op::Bytes(out) => out.make(dec.read_bytes()?),
        Op::String(out) => out.make(dec.read_str()?),
        Op::Fixed { size, out } => out.make(dec.read_fixed(*size)?),
        Op::Enum(e) => Value::Enum(e.read(dec, p)?),
        Op::Array {
            item,
            zero_size_items,
        } => {
            let mut items = Vec::new();
            dec.read_array_in_place(
                || zero_size_mem(p, *item, *zero_size_items),
                &mut items,
                || Value::Null,
                |dec, slot| op_put(dec, p, *item, slot),
            )?;
            Value::Array(items)
        }
        Op::Map(values) => {
            let mut entries = Vec::new();
            dec.read_map_in_place(
                &mut entries,
                || Value::Null,
                |dec, slot| op_put(dec, p, *values, slot),
            )?;
            Value::Map(entries)
        }
        Op::Record(rec) => {
            dec.enter()?;
            // Each writer field read straight into its reader position (the plan's positions
            // are within `len`), then the defaults into theirs.
            let mut fields = nulls(rec.len as usize);
            for (k, step) in rec.steps.iter().enumerate() {
                let res = match step {
                    Step::Read { op, to } => op_put(dec, p, *op, &mut fields[*to as usize]),
                    Step::Skip(s) => skip(dec, p, *s),
                };
                if let Err(e) = res {
                    return Err(in_field(e, &rec.names[k]));
                }
            }
            for d in rec.defaults.iter() {
                put_clone(&mut fields[d.pos as usize], &d.value);
            }
            dec.leave();
            Value::Record(fields)
        }
        Op::Union(_) | Op::Wrap { .. } => op_inline(dec, p, id)?,
        Op::Fail(f) => return Err(f.error(dec.offset())),
        Op::Pending => return Err(pending()),
    })
}

#[cold]
#[inline(never)]
fn pending() -> Error {
    Error::new(ErrorKind::Resolution, "internal: unfinished plan")
}

/// Runs a common leaf op (as [`leaf_then`]) into `slot`; false for any other op, which the
/// caller runs out of line.
#[inline(always)]
fn try_leaf_into<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    op: &Op,
    slot: &mut Value,
    varies: bool,
) -> Result<bool> {
    match op {
        Op::Null => {
            if varies {
                set_plain(slot, Value::Null);
            } else if !matches!(slot, Value::Null) {
                *slot = Value::Null;
            }
        }
        Op::Boolean => set_scalar!(slot, Boolean, dec.read_boolean()?, varies),
        Op::Int(IntOut::Int) => set_scalar!(slot, Int, dec.read_int()?, varies),
        Op::IntToLong(LongOut::Long) => set_scalar!(slot, Long, i64::from(dec.read_int()?), varies),
        Op::IntToDouble => set_scalar!(slot, Double, f64::from(dec.read_int()?), varies),
        Op::Long(LongOut::Long) => set_scalar!(slot, Long, dec.read_long()?, varies),
        Op::Float => set_scalar!(slot, Float, dec.read_float()?, varies),
        Op::Double => set_scalar!(slot, Double, dec.read_double()?, varies),
        Op::String(StringOut::String) => set_string(slot, dec.read_str()?),
        Op::Enum(e) => set_scalar!(slot, Enum, e.read(dec, p)?, varies),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Runs op `id` into `slot`: the common leaves, and unions of them, inline; anything else out
/// of line.
#[inline(always)]
fn op_into_inline<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    id: OpId,
    slot: &mut Value,
) -> Result<()> {
    let op = &p.ops[id as usize];
    if try_leaf_into(dec, p, op, slot, false)? {
        return Ok(());
    }
    if let Op::Union(branches) = op {
        let i = read_branch(dec, branches)?;
        let branch = branches[i as usize];
        dec.enter()?;
        match (&p.ops[branch as usize], &mut *slot) {
            (Op::Wrap { index, op }, Value::Union(j, inner)) => {
                *j = *index;
                if !try_leaf_into(dec, p, &p.ops[*op as usize], inner, true)? {
                    op_into(dec, p, *op, inner)?;
                }
            }
            (op, slot) => {
                if !try_leaf_into(dec, p, op, slot, true)? {
                    op_into(dec, p, branch, slot)?;
                }
            }
        }
        dec.leave();
        return Ok(());
    }
    op_into(dec, p, id, slot)
}

/// Runs op `id` into `slot`.
#[inline(never)]
fn op_into<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    p: &PlanInner,
    id: OpId,
    slot: &mut Value,
) -> Result<()> {
    match &p.ops[id as usize] {
        Op::Record(rec) => {
            let fields = match slot {
                Value::Record(fields) if fields.len() == rec.len as usize => fields,
                _ => {
                    *slot = read_op(dec, p, id)?;
                    return Ok(());
                }
            };
            dec.enter()?;
            for (k, step) in rec.steps.iter().enumerate() {
                let res = match step {
                    Step::Read { op, to } => op_into_inline(dec, p, *op, &mut fields[*to as usize]),
                    Step::Skip(s) => skip(dec, p, *s),
                };
                if let Err(e) = res {
                    return Err(in_field(e, &rec.names[k]));
                }
            }
            for d in rec.defaults.iter() {
                assign_clone(&mut fields[d.pos as usize], &d.value);
            }
            dec.leave();
        }
        Op::Union(branches) => {
            let i = read_branch(dec, branches)?;
            dec.enter()?;
            op_into_inline(dec, p, branches[i as usize], slot)?;
            dec.leave();
        }
        Op::Wrap { index, op } => match slot {
            Value::Union(i, inner) => {
                *i = *index;
                op_into_inline(dec, p, *op, inner)?;
            }
            _ => *slot = Value::Union(*index, Box::new(op_inline(dec, p, *op)?)),
        },
        Op::Array {
            item,
            zero_size_items,
        } => {
            let Value::Array(items) = slot else {
                *slot = read_op(dec, p, id)?;
                return Ok(());
            };
            dec.read_array_into(
                || zero_size_mem(p, *item, *zero_size_items),
                items,
                |dec, s| op_into_inline(dec, p, *item, s),
                |dec| op_inline(dec, p, *item),
            )?;
        }
        Op::Map(values) => {
            let Value::Map(entries) = slot else {
                *slot = read_op(dec, p, id)?;
                return Ok(());
            };
            dec.read_map_into(
                entries,
                |dec, s| op_into_inline(dec, p, *values, s),
                |dec| op_inline(dec, p, *values),
            )?;
        }
        Op::Enum(e) => set_scalar!(slot, Enum, e.read(dec, p)?, false),
        Op::Bytes(BytesOut::Bytes) => set_bytes(slot, dec.read_bytes()?),
        Op::Fixed {
            size,
            out: FixedOut::Fixed,
        } => set_fixed(slot, dec.read_fixed(*size)?),
        _ => *slot = read_op(dec, p, id)?,
    }
    Ok(())
}

/// What one array item read by op `item` costs in memory when the writer's items take no
/// bytes on the wire: what each becomes (with the reader's defaults), against the budget of
/// the whole value. `None` for items that take bytes.
#[inline]
fn zero_size_mem(p: &PlanInner, item: OpId, zero_size_items: bool) -> Option<usize> {
    zero_size_items.then(|| zero_size_item_mem(p, item))
}
