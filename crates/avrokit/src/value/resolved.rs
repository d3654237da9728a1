//! Reading a [`Value`] through a [`ResolvedPlan`]: data written with one schema, produced in the
//! shape of another.
//!
//! The interpreter only matches on the plan's ops: promotions, skips, defaults and remaps were
//! all decided when the plan was compiled. Defaults are cloned from values built once, at
//! compile time.

use std::mem::size_of;

use super::{read_value, Value};
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Source;
use crate::resolution::ops::{enum_out_of_range, skip, unknown_symbol, Op, OpId, Step, NO_SYMBOL};
use crate::resolution::{PlanInner, ResolvedPlan};

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
    read_op(dec, p, p.root).map_err(|e| match p.reader.root().name() {
        Some(n) => e.in_field(n.name().to_owned()),
        None => e,
    })
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
    if !dec.rest().is_empty() {
        return Err(Error::at(
            ErrorKind::Data,
            format!("{} bytes left over after the datum", dec.rest().len()),
            dec.offset(),
        ));
    }
    Ok(v)
}

/// Runs op `id`.
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
        Op::Enum(e) => {
            let at = dec.offset();
            let i = dec.read_enum()?;
            match e.table.get(i as usize) {
                Some(&r) if r != NO_SYMBOL => Value::Enum(r),
                Some(_) => return Err(unknown_symbol(p, e.writer, i, at)),
                None => return Err(enum_out_of_range(p, e.writer, i, at)),
            }
        }
        Op::Array {
            item,
            zero_size_items,
        } => {
            dec.enter()?;
            let mut items: Vec<Value> = Vec::new();
            loop {
                let (count, _) = dec.read_block_header()?;
                if count == 0 {
                    break;
                }
                check_block(dec, *zero_size_items, items.len() as u64, count)?;
                items.reserve(count.min(4096) as usize);
                for _ in 0..count {
                    match read_op(dec, p, *item) {
                        Ok(v) => items.push(v),
                        Err(e) => return Err(e.in_index(items.len() as u64)),
                    }
                }
            }
            dec.leave();
            Value::Array(items)
        }
        Op::Map(values) => {
            dec.enter()?;
            let mut entries: Vec<(String, Value)> = Vec::new();
            loop {
                let (count, _) = dec.read_block_header()?;
                if count == 0 {
                    break;
                }
                // A key takes at least its length byte: this block's entries must fit in the
                // bytes left, and all entries so far in the allocation limit (as `read_value`).
                dec.check_items(count, 1, 0)?;
                dec.check_items(
                    (entries.len() as u64).saturating_add(count),
                    0,
                    size_of::<(String, Value)>(),
                )?;
                entries.reserve(count.min(4096) as usize);
                for _ in 0..count {
                    let key = dec.read_string()?;
                    match read_op(dec, p, *values) {
                        Ok(v) => entries.push((key, v)),
                        Err(e) => return Err(e.in_key(&key)),
                    }
                }
            }
            dec.leave();
            Value::Map(entries)
        }
        Op::Record(rec) => {
            dec.enter()?;
            let mut fields = Vec::with_capacity(rec.len as usize);
            for (k, step) in rec.steps.iter().enumerate() {
                match step {
                    Step::Read { op, .. } => match read_op(dec, p, *op) {
                        Ok(v) => fields.push(v),
                        Err(e) => return Err(e.in_field(rec.names[k].to_string())),
                    },
                    Step::Skip(s) => {
                        skip(dec, p, *s).map_err(|e| e.in_field(rec.names[k].to_string()))?
                    }
                }
            }
            fields.extend(rec.defaults.iter().map(|(_, v)| v.clone()));
            // Writer order (then the defaults) to reader order.
            for &(i, j) in rec.swaps.iter() {
                fields.swap(i as usize, j as usize);
            }
            dec.leave();
            Value::Record(fields)
        }
        Op::Union(branches) => {
            let at = dec.offset();
            let i = dec.read_union_index()?;
            let Some(&branch) = branches.get(i as usize) else {
                return Err(Error::at(
                    ErrorKind::Data,
                    format!(
                        "union index {i} out of range for a union of {} branches",
                        branches.len()
                    ),
                    at,
                ));
            };
            dec.enter()?;
            let v = read_op(dec, p, branch)?;
            dec.leave();
            v
        }
        Op::Wrap { index, op } => Value::Union(*index, Box::new(read_op(dec, p, *op)?)),
        Op::Fail(f) => {
            return Err(Error::at(
                ErrorKind::Resolution,
                f.message.to_string(),
                dec.offset(),
            ))
        }
        Op::Pending => {
            return Err(Error::new(
                ErrorKind::Resolution,
                "internal: unfinished plan",
            ))
        }
    })
}

/// Checks a block of `count` more array items against the input left and the limits (as
/// `read_value` does).
#[inline]
fn check_block<'de, S: Source<'de>>(
    dec: &Decoder<'de, S>,
    zero_size_items: bool,
    have: u64,
    count: u64,
) -> Result<()> {
    // Items that take no bytes at all (null, empty records) are only bounded by memory.
    if !zero_size_items {
        dec.check_items(count, 1, 0)?;
    }
    dec.check_items(have.saturating_add(count), 0, size_of::<Value>())
}
