//! Decoding a [`Value`] by walking the schema arena.
//!
//! Two walkers share the leaf reads: [`read_value`] builds a new value, [`read_value_into`]
//! overwrites an existing one in place, keeping the allocations (record and array vectors,
//! strings, union boxes) of the value it overwrites, as Java's `read(reuse, decoder)` does.
//!
//! # Performance
//! The leaves that dominate real data (primitives without a logical type, enums), and unions
//! and records of them, are read inline in the loop of their record, array, map or union;
//! anything else goes through one out-of-line call per value. Error paths (naming the field,
//! index or key of a failing value) are cold functions, out of the loops. Measured with
//! callgrind on Java Perf's six-field record (`GenericRead`): `read_value` went from 948 to 618
//! instructions per datum (the record's allocation included; dropping the value costs about
//! 280 more), and `read_value_into` over the previous datum's value takes 525, with nothing to
//! allocate or drop. `Value` is 32 bytes (a `Decimal` holds a boxed slice, not a `Vec`).

use std::mem::size_of;

use super::Value;
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Source;
use crate::logical::{BytesOut, FixedOut, IntOut, LongOut, StringOut};
use crate::schema::{Node, NodeId, NodeKind, Schema};

/// Reads one datum of `schema` from `dec`.
///
/// # Errors
/// Malformed or truncated data (with its byte offset and the path of the value being read),
/// or a length, count or depth beyond the decoder's [`Limits`](crate::Limits).
pub fn read_value<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
) -> Result<Value> {
    match read_node(dec, schema, schema.root_id()) {
        Ok(v) => Ok(v),
        Err(e) => Err(in_root(e, schema)),
    }
}

/// Reads one datum of `schema` from `dec` into `out`, reusing the allocations `out` holds: the
/// vectors of records, arrays and maps, strings, bytes and union boxes are overwritten in place
/// where the new value has the same shape (Java's `read(reuse, decoder)`). Reading a stream of
/// datums of one schema into the same `Value` allocates only while values grow.
///
/// The result is exactly what [`read_value`] returns. On error `out` holds some valid but
/// unspecified value.
///
/// # Examples
/// ```
/// use avrokit::{Decoder, Schema, Value};
/// use avrokit::value::read_value_into;
/// let schema = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"name","type":"string"},{"name":"n","type":"int"}]}"#)?;
/// let data = [0x02, b'a', 0x02, 0x04, b'b', b'c', 0x04];
/// let mut dec = Decoder::from_slice(&data);
/// let mut v = Value::Null;
/// read_value_into(&mut dec, &schema, &mut v)?;
/// assert_eq!(v, Value::Record(vec![Value::String("a".into()), Value::Int(1)]));
/// read_value_into(&mut dec, &schema, &mut v)?; // reuses the record's vector and string
/// assert_eq!(v, Value::Record(vec![Value::String("bc".into()), Value::Int(2)]));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`read_value`].
pub fn read_value_into<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
    out: &mut Value,
) -> Result<()> {
    match node_into(dec, schema, schema.root_id(), out) {
        Ok(()) => Ok(()),
        Err(e) => Err(in_root(e, schema)),
    }
}

#[cold]
#[inline(never)]
fn in_root(e: Error, schema: &Schema) -> Error {
    match schema.root().name() {
        Some(n) => e.in_field(n.name().to_owned()),
        None => e,
    }
}

#[cold]
#[inline(never)]
pub(crate) fn in_field(e: Error, name: &str) -> Error {
    e.in_field(name.to_owned())
}

/// Reads a value of the common leaves (primitives without a logical type, enums) and hands
/// it to `put`; `None` (nothing read) for any other node, which the caller reads out of line.
///
/// `put` is inlined into each arm, so a caller that stores the value (a push, a `Box`) builds
/// each variant in its place. A value returned and then stored is written piecewise (tag,
/// payload) and read back whole right away, a load the CPU cannot forward from those stores:
/// perf put a quarter of `read_node`'s samples on that one load.
#[inline(always)]
fn leaf_then<'de, S: Source<'de>, R>(
    dec: &mut Decoder<'de, S>,
    node: &Node,
    put: impl FnOnce(Value) -> R,
) -> Result<Option<R>> {
    if node.logical.is_some() {
        return Ok(None);
    }
    Ok(Some(match &node.kind {
        NodeKind::Null => put(Value::Null),
        NodeKind::Boolean => put(Value::Boolean(dec.read_boolean()?)),
        NodeKind::Int => put(Value::Int(dec.read_int()?)),
        NodeKind::Long => put(Value::Long(dec.read_long()?)),
        NodeKind::Float => put(Value::Float(dec.read_float()?)),
        NodeKind::Double => put(Value::Double(dec.read_double()?)),
        NodeKind::Bytes => put(Value::Bytes(dec.read_bytes()?.to_vec())),
        NodeKind::String => put(Value::String(dec.read_str()?.to_owned())),
        NodeKind::Enum(e) => put(Value::Enum(read_symbol(dec, node, e.symbols.len())?)),
        _ => return Ok(None),
    }))
}

/// Stores `v` in `slot`, which holds a [`Value::Null`]: nothing to drop, so no call comes
/// between building `v` and storing it (a `*slot = v` would call the drop glue first, and `v`
/// would wait for it on the stack). See [`leaf_then`].
#[inline(always)]
pub(crate) fn put(slot: &mut Value, v: Value) {
    debug_assert!(matches!(slot, Value::Null));
    std::mem::forget(std::mem::replace(slot, v));
}

/// `n` [`Value::Null`]s, for the fields of a record to be [`put`] in their places.
///
/// Collected from a counted iterator, which fills the allocation inline. `resize_with` was a
/// call that took the `Vec` by reference, so the caller stored its pointer and capacity as
/// two words and read them back as one 16-byte load: two stores cannot be forwarded to one
/// load, which then waits for both to reach the cache (a third of `read_op`'s samples on
/// ExtendedEnum's one-field records).
#[inline(always)]
pub(crate) fn nulls(n: usize) -> Vec<Value> {
    (0..n).map(|_| Value::Null).collect()
}

/// Reads a value of node `id` into `slot` (a [`Value::Null`]): a common leaf, a union whose
/// branch is one, and a nested record's leaves are built in their places (see [`leaf_then`]);
/// anything else is read out of line by [`read_node`].
#[inline(always)]
fn put_inline<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
    id: NodeId,
    slot: &mut Value,
) -> Result<()> {
    let node = schema.node(id);
    if leaf_then(dec, node, |v| put(slot, v))?.is_some() {
        return Ok(());
    }
    match &node.kind {
        NodeKind::Union(u) => {
            let i = read_branch(dec, &u.variants)?;
            let branch = u.variants[i as usize];
            dec.enter()?;
            // The box first, so that the branch's value is built in it.
            let mut inner = Box::new(Value::Null);
            if leaf_then(dec, schema.node(branch), |v| put(&mut inner, v))?.is_none() {
                put(&mut inner, read_node(dec, schema, branch)?);
            }
            dec.leave();
            put(slot, Value::Union(i, inner));
        }
        // A record nested in a record, array or map: its leaves are read here too.
        NodeKind::Record(r) => {
            dec.enter()?;
            let mut fields = nulls(r.fields.len());
            for (f, field) in r.fields.iter().zip(&mut fields) {
                let r = match leaf_then(dec, schema.node(f.schema), |v| put(field, v)) {
                    Ok(Some(())) => Ok(()),
                    Ok(None) => read_node(dec, schema, f.schema).map(|v| put(field, v)),
                    Err(e) => Err(e),
                };
                if let Err(e) = r {
                    return Err(in_field(e, &f.name));
                }
            }
            dec.leave();
            put(slot, Value::Record(fields));
        }
        _ => put(slot, read_node(dec, schema, id)?),
    }
    Ok(())
}

/// Reads a value of node `id` as [`put_inline`] does, and returns it.
#[inline(always)]
fn read_inline<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
    id: NodeId,
) -> Result<Value> {
    let mut v = Value::Null;
    put_inline(dec, schema, id, &mut v)?;
    Ok(v)
}

/// Reads an enum symbol index and checks it against the enum's `n` symbols.
#[inline(always)]
fn read_symbol<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    node: &Node,
    n: usize,
) -> Result<u32> {
    let at = dec.offset();
    let i = dec.read_enum()?;
    if i as usize >= n {
        return Err(enum_out_of_range(node, i, at));
    }
    Ok(i)
}

/// Reads one value of node `id`.
#[inline(never)]
pub(crate) fn read_node<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
    id: NodeId,
) -> Result<Value> {
    let node = schema.node(id);
    Ok(match &node.kind {
        NodeKind::Record(r) => {
            dec.enter()?;
            let mut fields = nulls(r.fields.len());
            for (f, slot) in r.fields.iter().zip(&mut fields) {
                if let Err(e) = put_inline(dec, schema, f.schema, slot) {
                    return Err(in_field(e, &f.name));
                }
            }
            dec.leave();
            Value::Record(fields)
        }
        NodeKind::Union(_) => read_inline(dec, schema, id)?,
        NodeKind::Array(a) => {
            let mut items = Vec::new();
            dec.read_array_in_place(
                || zero_size_mem(schema, a.items),
                &mut items,
                || Value::Null,
                |dec, slot| put_inline(dec, schema, a.items, slot),
            )?;
            Value::Array(items)
        }
        NodeKind::Map(m) => {
            let mut entries = Vec::new();
            dec.read_map_in_place(
                &mut entries,
                || Value::Null,
                |dec, slot| put_inline(dec, schema, m.values, slot),
            )?;
            Value::Map(entries)
        }
        _ => read_leaf(dec, node)?,
    })
}

/// Reads a value of a node that is neither a record, a union, an array nor a map, with its
/// logical type.
fn read_leaf<'de, S: Source<'de>>(dec: &mut Decoder<'de, S>, node: &Node) -> Result<Value> {
    Ok(match &node.kind {
        NodeKind::Null => Value::Null,
        NodeKind::Boolean => Value::Boolean(dec.read_boolean()?),
        NodeKind::Int => IntOut::of(node.logical).make(dec.read_int()?),
        NodeKind::Long => LongOut::of(node.logical).make(dec.read_long()?),
        NodeKind::Float => Value::Float(dec.read_float()?),
        NodeKind::Double => Value::Double(dec.read_double()?),
        NodeKind::Bytes => BytesOut::of(node.logical).make(dec.read_bytes()?),
        NodeKind::String => StringOut::of(node.logical).make(dec.read_str()?),
        NodeKind::Fixed(f) => FixedOut::of(node.logical, f.size).make(dec.read_fixed(f.size)?),
        NodeKind::Enum(e) => Value::Enum(read_symbol(dec, node, e.symbols.len())?),
        // Containers: `read_node` handles them before coming here.
        NodeKind::Record(_) | NodeKind::Union(_) | NodeKind::Array(_) | NodeKind::Map(_) => {
            return Err(Error::new(ErrorKind::Schema, "internal: not a leaf"))
        }
    })
}

/// Reads a union branch index and checks it against the union's `n` branches.
#[inline(always)]
pub(crate) fn read_branch<'de, S: Source<'de>, T>(
    dec: &mut Decoder<'de, S>,
    branches: &[T],
) -> Result<u32> {
    let at = dec.offset();
    let i = dec.read_union_index()?;
    if i as usize >= branches.len() {
        return Err(branch_out_of_range(i, branches.len(), at));
    }
    Ok(i)
}

#[cold]
#[inline(never)]
fn branch_out_of_range(i: u32, n: usize, at: u64) -> Error {
    Error::at(
        ErrorKind::Data,
        format!("union index {i} out of range for a union of {n} branches"),
        at,
    )
}

#[cold]
#[inline(never)]
fn enum_out_of_range(node: &Node, i: u32, at: u64) -> Error {
    let (name, n) = match &node.kind {
        NodeKind::Enum(e) => (e.name.to_string(), e.symbols.len()),
        _ => (String::new(), 0),
    };
    Error::at(
        ErrorKind::Data,
        format!("enum index {i} out of range for {name} ({n} symbols)"),
        at,
    )
}

/// What one array item of type `item` costs in memory when its values take no bytes on the
/// wire (null, empty records: their `Value`s, fields included), `None` for any other type.
#[inline]
fn zero_size_mem(schema: &Schema, item: NodeId) -> Option<usize> {
    crate::decode::zero_size_values(schema, item)
        .map(|n| (n as usize).saturating_mul(size_of::<Value>()))
}

// ---------------------------------------------------------------------------------------------
// Reading into an existing value.

/// Overwrites `slot` with a scalar, without running the drop glue of `slot` (the usual case
/// when a value is reused). `$varies` says whether the old value's variant changes from datum
/// to datum (the value inside a union): then one predictable test of "owns no heap memory" is
/// made, where matching the old variant against the new one would mispredict whenever the data
/// alternates (a union of null and int) and call the drop glue; elsewhere the old variant is
/// the new one, and that match is the cheaper test (5 instructions per field fewer, measured
/// with callgrind on Java Perf's Generic record).
macro_rules! set_scalar {
    ($slot:expr, $variant:ident, $v:expr, $varies:expr) => {{
        let v = $v;
        let slot: &mut Value = $slot;
        if $varies {
            $crate::value::decode::set_plain(slot, Value::$variant(v))
        } else {
            match slot {
                Value::$variant(x) => *x = v,
                slot => *slot = Value::$variant(v),
            }
        }
    }};
}
pub(crate) use set_scalar;

/// Overwrites `slot` with `v`, which owns no heap memory (see `set_scalar`).
#[inline(always)]
pub(crate) fn set_plain(slot: &mut Value, v: Value) {
    if owns_no_heap(slot) {
        // Nothing to free: forgetting the old value leaks nothing, and skips the drop glue.
        std::mem::forget(std::mem::replace(slot, v));
    } else {
        *slot = v;
    }
}

/// True for the variants that own no heap memory (listed, so that a variant added later is
/// dropped normally until it is listed here).
#[inline(always)]
fn owns_no_heap(v: &Value) -> bool {
    matches!(
        v,
        Value::Null
            | Value::Boolean(_)
            | Value::Int(_)
            | Value::Long(_)
            | Value::Float(_)
            | Value::Double(_)
            | Value::Enum(_)
            | Value::Date(_)
            | Value::TimeMillis(_)
            | Value::TimeMicros(_)
            | Value::TimestampMillis(_)
            | Value::TimestampMicros(_)
            | Value::TimestampNanos(_)
            | Value::LocalTimestampMillis(_)
            | Value::LocalTimestampMicros(_)
            | Value::LocalTimestampNanos(_)
            | Value::Uuid(_)
            | Value::Duration(_)
    )
}

/// Overwrites `slot` with the string `s`, reusing the slot's `String` if it holds one.
#[inline(always)]
pub(crate) fn set_string(slot: &mut Value, s: &str) {
    match slot {
        Value::String(x) => {
            x.clear();
            x.push_str(s);
        }
        slot => *slot = Value::String(s.to_owned()),
    }
}

/// Overwrites `slot` with the bytes `b`, reusing the slot's vector if it holds `bytes`.
#[inline(always)]
pub(crate) fn set_bytes(slot: &mut Value, b: &[u8]) {
    match slot {
        Value::Bytes(x) => {
            x.clear();
            x.extend_from_slice(b);
        }
        slot => *slot = Value::Bytes(b.to_vec()),
    }
}

/// Overwrites `slot` with the fixed `b`, reusing the slot's vector if it holds a `fixed`.
#[inline(always)]
pub(crate) fn set_fixed(slot: &mut Value, b: &[u8]) {
    match slot {
        Value::Fixed(x) => {
            x.clear();
            x.extend_from_slice(b);
        }
        slot => *slot = Value::Fixed(b.to_vec()),
    }
}

/// Overwrites `slot` with a copy of `v`, reusing the slot's allocations where the shapes agree
/// (`Clone::clone_from` for values).
pub(crate) fn assign_clone(slot: &mut Value, v: &Value) {
    match (slot, v) {
        (Value::String(x), Value::String(y)) => {
            x.clear();
            x.push_str(y);
        }
        (Value::Bytes(x), Value::Bytes(y)) | (Value::Fixed(x), Value::Fixed(y)) => {
            x.clear();
            x.extend_from_slice(y);
        }
        (Value::Record(x), Value::Record(y)) | (Value::Array(x), Value::Array(y)) => {
            x.truncate(y.len());
            let have = x.len();
            for (s, v) in x.iter_mut().zip(y) {
                assign_clone(s, v);
            }
            x.extend(y[have..].iter().cloned());
        }
        (Value::Union(i, x), Value::Union(j, y)) => {
            *i = *j;
            assign_clone(x, y);
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// Reads a value of the common leaves (primitives without a logical type, enums) into `slot`;
/// false for any other node, which the caller reads out of line.
#[inline(always)]
fn try_leaf_into<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    node: &Node,
    slot: &mut Value,
    varies: bool,
) -> Result<bool> {
    if node.logical.is_some() {
        return Ok(false);
    }
    match &node.kind {
        NodeKind::Null => {
            if varies {
                set_plain(slot, Value::Null);
            } else if !matches!(slot, Value::Null) {
                *slot = Value::Null;
            }
        }
        NodeKind::Boolean => set_scalar!(slot, Boolean, dec.read_boolean()?, varies),
        NodeKind::Int => set_scalar!(slot, Int, dec.read_int()?, varies),
        NodeKind::Long => set_scalar!(slot, Long, dec.read_long()?, varies),
        NodeKind::Float => set_scalar!(slot, Float, dec.read_float()?, varies),
        NodeKind::Double => set_scalar!(slot, Double, dec.read_double()?, varies),
        NodeKind::String => set_string(slot, dec.read_str()?),
        NodeKind::Enum(e) => {
            set_scalar!(slot, Enum, read_symbol(dec, node, e.symbols.len())?, varies)
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Reads a value of node `id` into `slot`: common leaves, and unions of them, inline; anything
/// else out of line.
#[inline(always)]
fn into_inline<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
    id: NodeId,
    slot: &mut Value,
) -> Result<()> {
    let node = schema.node(id);
    if try_leaf_into(dec, node, slot, false)? {
        return Ok(());
    }
    if let (NodeKind::Union(u), Value::Union(index, inner)) = (&node.kind, &mut *slot) {
        let i = read_branch(dec, &u.variants)?;
        let branch = u.variants[i as usize];
        *index = i;
        dec.enter()?;
        if !try_leaf_into(dec, schema.node(branch), inner, true)? {
            node_into(dec, schema, branch, inner)?;
        }
        dec.leave();
        return Ok(());
    }
    // A record nested in a record, array or map, into a record of as many fields: its leaves
    // are read here too.
    if let (NodeKind::Record(r), Value::Record(fields)) = (&node.kind, &mut *slot) {
        if fields.len() == r.fields.len() {
            dec.enter()?;
            for (f, s) in r.fields.iter().zip(fields.iter_mut()) {
                let res = match try_leaf_into(dec, schema.node(f.schema), s, false) {
                    Ok(true) => Ok(()),
                    Ok(false) => node_into(dec, schema, f.schema, s),
                    Err(e) => Err(e),
                };
                if let Err(e) = res {
                    return Err(in_field(e, &f.name));
                }
            }
            dec.leave();
            return Ok(());
        }
    }
    node_into(dec, schema, id, slot)
}

/// Reads one value of node `id` into `slot`.
#[inline(never)]
fn node_into<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
    id: NodeId,
    slot: &mut Value,
) -> Result<()> {
    let node = schema.node(id);
    match &node.kind {
        NodeKind::Record(r) => {
            let Value::Record(fields) = slot else {
                *slot = read_node(dec, schema, id)?;
                return Ok(());
            };
            dec.enter()?;
            fields.truncate(r.fields.len());
            let have = fields.len();
            for (f, s) in r.fields.iter().zip(fields.iter_mut()) {
                if let Err(e) = into_inline(dec, schema, f.schema, s) {
                    return Err(in_field(e, &f.name));
                }
            }
            for f in &r.fields[have..] {
                match read_inline(dec, schema, f.schema) {
                    Ok(v) => fields.push(v),
                    Err(e) => return Err(in_field(e, &f.name)),
                }
            }
            dec.leave();
        }
        NodeKind::Union(u) => {
            let Value::Union(index, inner) = slot else {
                *slot = read_node(dec, schema, id)?;
                return Ok(());
            };
            let i = read_branch(dec, &u.variants)?;
            *index = i;
            dec.enter()?;
            into_inline(dec, schema, u.variants[i as usize], inner)?;
            dec.leave();
        }
        NodeKind::Array(a) => {
            let Value::Array(items) = slot else {
                *slot = read_node(dec, schema, id)?;
                return Ok(());
            };
            dec.read_array_into(
                || zero_size_mem(schema, a.items),
                items,
                |dec, s| into_inline(dec, schema, a.items, s),
                |dec| read_inline(dec, schema, a.items),
            )?;
        }
        NodeKind::Map(m) => {
            let Value::Map(entries) = slot else {
                *slot = read_node(dec, schema, id)?;
                return Ok(());
            };
            dec.read_map_into(
                entries,
                |dec, s| into_inline(dec, schema, m.values, s),
                |dec| read_inline(dec, schema, m.values),
            )?;
        }
        NodeKind::Bytes if node.logical.is_none() => set_bytes(slot, dec.read_bytes()?),
        NodeKind::Fixed(f) if node.logical.is_none() => set_fixed(slot, dec.read_fixed(f.size)?),
        _ => *slot = read_leaf(dec, node)?,
    }
    Ok(())
}
