//! Decoding a [`Value`] by walking the schema arena.

use std::mem::size_of;

use super::logical::{parse_uuid, Decimal, Duration};
use super::Value;
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Source;
use crate::schema::{LogicalType, NodeId, NodeKind, Schema};

/// Reads one datum of `schema` from `dec`.
///
/// # Errors
/// Malformed or truncated data (with its byte offset and the path of the value being read),
/// or a length, count or depth beyond the decoder's [`Limits`](crate::Limits).
pub fn read_value<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
) -> Result<Value> {
    let root = schema.root_id();
    read_node(dec, schema, root).map_err(|e| match schema.node(root).name() {
        Some(n) => e.in_field(n.name().to_owned()),
        None => e,
    })
}

/// Reads one value of node `id`.
pub(crate) fn read_node<'de, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    schema: &Schema,
    id: NodeId,
) -> Result<Value> {
    let node = schema.node(id);
    Ok(match &node.kind {
        NodeKind::Null => Value::Null,
        NodeKind::Boolean => Value::Boolean(dec.read_boolean()?),
        NodeKind::Int => {
            let v = dec.read_int()?;
            match node.logical {
                None => Value::Int(v),
                Some(LogicalType::Date) => Value::Date(v),
                Some(LogicalType::TimeMillis) => Value::TimeMillis(v),
                Some(_) => Value::Int(v),
            }
        }
        NodeKind::Long => {
            let v = dec.read_long()?;
            match node.logical {
                None => Value::Long(v),
                Some(LogicalType::TimeMicros) => Value::TimeMicros(v),
                Some(LogicalType::TimestampMillis) => Value::TimestampMillis(v),
                Some(LogicalType::TimestampMicros) => Value::TimestampMicros(v),
                Some(LogicalType::TimestampNanos) => Value::TimestampNanos(v),
                Some(LogicalType::LocalTimestampMillis) => Value::LocalTimestampMillis(v),
                Some(LogicalType::LocalTimestampMicros) => Value::LocalTimestampMicros(v),
                Some(LogicalType::LocalTimestampNanos) => Value::LocalTimestampNanos(v),
                Some(_) => Value::Long(v),
            }
        }
        NodeKind::Float => Value::Float(dec.read_float()?),
        NodeKind::Double => Value::Double(dec.read_double()?),
        NodeKind::Bytes => {
            let b = dec.read_bytes()?;
            match node.logical {
                Some(LogicalType::Decimal { scale, .. }) => {
                    Value::Decimal(Decimal::new(b.to_vec(), scale))
                }
                Some(LogicalType::BigDecimal) => match parse_big_decimal(b) {
                    Some(d) => Value::BigDecimal(d),
                    None => Value::Bytes(b.to_vec()),
                },
                _ => Value::Bytes(b.to_vec()),
            }
        }
        NodeKind::String => {
            let s = dec.read_str()?;
            match node.logical {
                Some(LogicalType::Uuid) => match parse_uuid(s) {
                    Some(u) => Value::Uuid(u),
                    None => Value::String(s.to_owned()),
                },
                _ => Value::String(s.to_owned()),
            }
        }
        NodeKind::Fixed(f) => {
            let b = dec.read_fixed(f.size)?;
            match node.logical {
                Some(LogicalType::Decimal { scale, .. }) => {
                    Value::Decimal(Decimal::new(b.to_vec(), scale))
                }
                Some(LogicalType::Uuid) if b.len() == 16 => {
                    Value::Uuid(b.try_into().expect("16 bytes"))
                }
                Some(LogicalType::Duration) if b.len() == 12 => {
                    Value::Duration(Duration::from_bytes(b.try_into().expect("12 bytes")))
                }
                _ => Value::Fixed(b.to_vec()),
            }
        }
        NodeKind::Enum(e) => {
            let at = dec.offset();
            let i = dec.read_enum()?;
            if i as usize >= e.symbols.len() {
                return Err(Error::at(
                    ErrorKind::Data,
                    format!(
                        "enum index {i} out of range for {} ({} symbols)",
                        e.name,
                        e.symbols.len()
                    ),
                    at,
                ));
            }
            Value::Enum(i)
        }
        NodeKind::Record(r) => {
            dec.enter()?;
            let mut fields = Vec::with_capacity(r.fields.len());
            for f in &r.fields {
                match read_node(dec, schema, f.schema) {
                    Ok(v) => fields.push(v),
                    Err(e) => return Err(e.in_field(f.name.clone())),
                }
            }
            dec.leave();
            Value::Record(fields)
        }
        NodeKind::Union(u) => {
            let at = dec.offset();
            let i = dec.read_union_index()?;
            let Some(&branch) = u.variants.get(i as usize) else {
                return Err(Error::at(
                    ErrorKind::Data,
                    format!(
                        "union index {i} out of range for a union of {} branches",
                        u.variants.len()
                    ),
                    at,
                ));
            };
            dec.enter()?;
            let v = read_node(dec, schema, branch)?;
            dec.leave();
            Value::Union(i, Box::new(v))
        }
        NodeKind::Array(a) => {
            dec.enter()?;
            let mut items: Vec<Value> = Vec::new();
            loop {
                let (count, _) = dec.read_block_header()?;
                if count == 0 {
                    break;
                }
                check_block(dec, schema, a.items, items.len() as u64, count, 1)?;
                items.reserve(count.min(4096) as usize);
                for _ in 0..count {
                    match read_node(dec, schema, a.items) {
                        Ok(v) => items.push(v),
                        Err(e) => return Err(e.in_index(items.len() as u64)),
                    }
                }
            }
            dec.leave();
            Value::Array(items)
        }
        NodeKind::Map(m) => {
            dec.enter()?;
            let mut entries: Vec<(String, Value)> = Vec::new();
            loop {
                let (count, _) = dec.read_block_header()?;
                if count == 0 {
                    break;
                }
                // A key takes at least its length byte: this block's entries must fit in the
                // bytes left, and all entries so far in the allocation limit.
                dec.check_items(count, 1, 0)?;
                dec.check_items(
                    (entries.len() as u64).saturating_add(count),
                    0,
                    size_of::<(String, Value)>(),
                )?;
                entries.reserve(count.min(4096) as usize);
                for _ in 0..count {
                    let key = dec.read_string()?;
                    match read_node(dec, schema, m.values) {
                        Ok(v) => entries.push((key, v)),
                        Err(e) => return Err(e.in_key(&key)),
                    }
                }
            }
            dec.leave();
            Value::Map(entries)
        }
    })
}

/// Checks a block of `count` more array items against the input left and the limits.
#[inline]
fn check_block<'de, S: Source<'de>>(
    dec: &Decoder<'de, S>,
    schema: &Schema,
    item: NodeId,
    have: u64,
    count: u64,
    min_bytes: u64,
) -> Result<()> {
    let total = have.saturating_add(count);
    match dec.check_items(count, min_bytes, 0) {
        Ok(()) => dec.check_items(total, 0, size_of::<Value>()),
        // Items that take no bytes at all (null, empty records) are only bounded by memory.
        Err(e) if e.is_eof() && crate::decode::fixed_size(schema, item) == Some(0) => {
            dec.check_items(total, 0, size_of::<Value>())
        }
        Err(e) => Err(e),
    }
}

/// A `big-decimal` payload: the unscaled integer as Avro `bytes`, then the scale as an `int`.
pub(crate) fn parse_big_decimal(b: &[u8]) -> Option<Decimal> {
    let mut d = Decoder::from_slice(b);
    let unscaled = d.read_bytes().ok()?.to_vec();
    let scale = d.read_int().ok()?;
    if !d.rest().is_empty() || scale < 0 {
        return None;
    }
    Some(Decimal::new(unscaled, scale as u32))
}
