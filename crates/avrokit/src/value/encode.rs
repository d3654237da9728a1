//! Encoding a [`Value`] by walking the schema arena, checking that it matches.

use std::borrow::Cow;

use super::Value;
use crate::encode::Encoder;
use crate::error::{Error, Result};
use crate::io::Sink;
use crate::logical::decimal::{self, FixedBytes};
use crate::logical::{big_decimal, uuid, Decimal};
use crate::schema::{LogicalType, Node, NodeId, NodeKind, RecordSchema, Schema, UnionSchema};

/// Writes `value` as a datum of `schema`.
///
/// A value must match its schema; the few conveniences allowed are an `int` where a `long`,
/// `float` or `double` is expected, a `long` or `float` where a `double` or `float` is (the
/// specification's promotions), a logical type's underlying value (`Value::Int` for a `date`),
/// and a bare value where a union is expected (the first branch of its kind is chosen).
///
/// # Errors
/// When the value does not match, with the path of the mismatch (`Order.items[3].price`), or
/// when the sink fails.
pub fn write_value<S: Sink>(enc: &mut Encoder<S>, value: &Value, schema: &Schema) -> Result<()> {
    let root = schema.root_id();
    write_node(enc, value, schema, root, 0).map_err(|e| match schema.node(root).name() {
        Some(n) => e.in_field(n.name().to_owned()),
        None => e,
    })
}

/// How deep values may nest when writing: a cyclic or absurdly deep value is an error.
const MAX_WRITE_DEPTH: usize = 1024;

/// Writes `value` as node `id` of `schema` to the end of `out` (a reader-only field's default,
/// encoded once for the generated codecs).
pub(crate) fn write_value_at(
    out: &mut Vec<u8>,
    value: &Value,
    schema: &Schema,
    id: NodeId,
) -> Result<()> {
    write_node(&mut Encoder::new(out), value, schema, id, 0)
}

pub(crate) fn write_node<S: Sink>(
    enc: &mut Encoder<S>,
    value: &Value,
    schema: &Schema,
    id: NodeId,
    depth: usize,
) -> Result<()> {
    let node = schema.node(id);
    match (&node.kind, value) {
        (NodeKind::Record(r), Value::Record(fields)) => {
            check_fields(r, fields)?;
            let depth = enter(depth)?;
            for (f, v) in r.fields.iter().zip(fields) {
                write_node(enc, v, schema, f.schema, depth)
                    .map_err(|e| e.in_field(f.name.clone()))?;
            }
            Ok(())
        }
        (NodeKind::Union(u), Value::Union(i, v)) => {
            let branch = branch_at(u, *i)?;
            enc.write_union_index(*i)?;
            write_node(enc, v, schema, branch, enter(depth)?)
        }
        (NodeKind::Union(u), v) => {
            let (i, branch) = branch_for(schema, u, v)?;
            enc.write_union_index(i)?;
            write_node(enc, v, schema, branch, enter(depth)?)
        }
        (NodeKind::Array(a), Value::Array(items)) => {
            let depth = enter(depth)?;
            enc.write_array_start(items.len())?;
            for (i, item) in items.iter().enumerate() {
                enc.start_item()?;
                write_node(enc, item, schema, a.items, depth).map_err(|e| e.in_index(i as u64))?;
            }
            enc.write_array_end()
        }
        (NodeKind::Map(m), Value::Map(entries)) => {
            let depth = enter(depth)?;
            enc.write_map_start(entries.len())?;
            for (k, v) in entries {
                enc.start_item()?;
                enc.write_string(k)?;
                write_node(enc, v, schema, m.values, depth).map_err(|e| e.in_key(k))?;
            }
            enc.write_map_end()
        }
        _ => write_scalar(enc, value, node),
    }
}

/// Where the scalars of a value go: the binary [`Encoder`] here, the JSON writer's output in
/// `json/`. Both writers classify a (node, value) pair that nests nothing through
/// [`write_scalar`], so they accept the same values with the same conveniences and errors.
pub(crate) trait ScalarOut {
    fn null(&mut self) -> Result<()>;
    fn boolean(&mut self, v: bool) -> Result<()>;
    fn int(&mut self, v: i32) -> Result<()>;
    fn long(&mut self, v: i64) -> Result<()>;
    fn float(&mut self, v: f32) -> Result<()>;
    fn double(&mut self, v: f64) -> Result<()>;
    fn bytes(&mut self, b: &[u8]) -> Result<()>;
    fn string(&mut self, s: &str) -> Result<()>;
    /// The bytes of a `fixed`, already checked to be its size.
    fn fixed(&mut self, b: &[u8]) -> Result<()>;
    /// An enum symbol, by its index (checked) and its text.
    fn symbol(&mut self, index: u32, symbol: &str) -> Result<()>;
}

impl<S: Sink> ScalarOut for Encoder<S> {
    #[inline]
    fn null(&mut self) -> Result<()> {
        Ok(())
    }
    #[inline]
    fn boolean(&mut self, v: bool) -> Result<()> {
        self.write_boolean(v)
    }
    #[inline]
    fn int(&mut self, v: i32) -> Result<()> {
        self.write_int(v)
    }
    #[inline]
    fn long(&mut self, v: i64) -> Result<()> {
        self.write_long(v)
    }
    #[inline]
    fn float(&mut self, v: f32) -> Result<()> {
        self.write_float(v)
    }
    #[inline]
    fn double(&mut self, v: f64) -> Result<()> {
        self.write_double(v)
    }
    #[inline]
    fn bytes(&mut self, b: &[u8]) -> Result<()> {
        self.write_bytes(b)
    }
    #[inline]
    fn string(&mut self, s: &str) -> Result<()> {
        self.write_string(s)
    }
    #[inline]
    fn fixed(&mut self, b: &[u8]) -> Result<()> {
        self.write_fixed(b)
    }
    #[inline]
    fn symbol(&mut self, index: u32, _symbol: &str) -> Result<()> {
        self.write_enum(index)
    }
}

/// Writes a value of a node that nests nothing (every kind but record, array, map and union),
/// applying the writers' conveniences: numeric promotions, a logical type's underlying value,
/// an enum symbol by name, and logical values (decimals checked, uuids spelled, durations
/// packed). Any other pair is a mismatch.
#[inline(always)]
pub(crate) fn write_scalar<O: ScalarOut>(out: &mut O, value: &Value, node: &Node) -> Result<()> {
    match (&node.kind, value) {
        (NodeKind::Null, Value::Null) => out.null(),
        (NodeKind::Boolean, Value::Boolean(b)) => out.boolean(*b),
        (NodeKind::Int, Value::Int(v) | Value::Date(v) | Value::TimeMillis(v)) => out.int(*v),
        (NodeKind::Long, Value::Int(v)) => out.long(i64::from(*v)),
        (
            NodeKind::Long,
            Value::Long(v)
            | Value::TimeMicros(v)
            | Value::TimestampMillis(v)
            | Value::TimestampMicros(v)
            | Value::TimestampNanos(v)
            | Value::LocalTimestampMillis(v)
            | Value::LocalTimestampMicros(v)
            | Value::LocalTimestampNanos(v),
        ) => out.long(*v),
        (NodeKind::Float, Value::Float(v)) => out.float(*v),
        (NodeKind::Float, Value::Int(v)) => out.float(*v as f32),
        (NodeKind::Float, Value::Long(v)) => out.float(*v as f32),
        (NodeKind::Double, Value::Double(v)) => out.double(*v),
        (NodeKind::Double, Value::Float(v)) => out.double(f64::from(*v)),
        (NodeKind::Double, Value::Int(v)) => out.double(f64::from(*v)),
        (NodeKind::Double, Value::Long(v)) => out.double(*v as f64),
        (NodeKind::Bytes, Value::Bytes(b)) => out.bytes(b),
        (NodeKind::Bytes, Value::Decimal(d)) => out.bytes(&checked_decimal(node, d)?),
        (NodeKind::Bytes, Value::BigDecimal(d)) => out.bytes(&big_decimal::payload(d)?),
        (NodeKind::String, Value::String(s)) => out.string(s),
        (NodeKind::String, Value::Uuid(u)) => out.string(uuid::as_str(&uuid::text(u))),
        (NodeKind::Fixed(f), Value::Fixed(b)) => {
            if b.len() != f.size {
                return Err(Error::data(format!(
                    "fixed {} needs {} bytes, the value has {}",
                    f.name,
                    f.size,
                    b.len()
                )));
            }
            out.fixed(b)
        }
        (NodeKind::Fixed(_), Value::Decimal(d)) => out.fixed(fixed_decimal(node, d)?.as_slice()),
        (NodeKind::Fixed(f), Value::Uuid(u)) if f.size == 16 => out.fixed(u),
        (NodeKind::Fixed(f), Value::Duration(d)) if f.size == 12 => out.fixed(&d.to_bytes()),
        (NodeKind::Enum(e), Value::Enum(i)) => match e.symbols.get(*i as usize) {
            Some(symbol) => out.symbol(*i, symbol),
            None => Err(Error::data(format!(
                "enum index {i} out of range for {} ({} symbols)",
                e.name,
                e.symbols.len()
            ))),
        },
        (NodeKind::Enum(e), Value::String(s)) => match e.symbol_index(s) {
            Some(i) => out.symbol(i, s),
            None => Err(Error::data(format!(
                "{s:?} is not a symbol of enum {}",
                e.name
            ))),
        },
        (kind, v) => Err(mismatch(kind, node, v)),
    }
}

/// Checks that a record value has one value for each field of `r`.
#[inline]
pub(crate) fn check_fields(r: &RecordSchema, fields: &[Value]) -> Result<()> {
    if fields.len() == r.fields.len() {
        return Ok(());
    }
    Err(Error::data(format!(
        "record {} has {} fields, the value has {}",
        r.name,
        r.fields.len(),
        fields.len()
    )))
}

/// The branch of `u` that the union index `i` of a `Value::Union` names.
#[inline]
pub(crate) fn branch_at(u: &UnionSchema, i: u32) -> Result<NodeId> {
    match u.variants.get(i as usize) {
        Some(&branch) => Ok(branch),
        None => Err(Error::data(format!(
            "union index {i} out of range for a union of {} branches",
            u.variants.len()
        ))),
    }
}

/// The first branch of `u` that takes the bare value `v` (see [`accepts`]): its index and node.
#[inline]
pub(crate) fn branch_for(schema: &Schema, u: &UnionSchema, v: &Value) -> Result<(u32, NodeId)> {
    match u.variants.iter().position(|&b| accepts(schema.node(b), v)) {
        Some(i) => Ok((i as u32, u.variants[i])),
        None => Err(Error::data(format!(
            "no branch of the union accepts a {} value",
            v.kind_name()
        ))),
    }
}

/// One level deeper into a value being written, or a [`Limit`](crate::ErrorKind::Limit) error
/// past [`MAX_WRITE_DEPTH`]: a cyclic or absurdly deep value is an error, not a stack overflow.
#[inline]
pub(crate) fn enter(depth: usize) -> Result<usize> {
    if depth >= MAX_WRITE_DEPTH {
        return Err(Error::new(
            crate::ErrorKind::Limit,
            format!("value nested deeper than {MAX_WRITE_DEPTH} levels"),
        ));
    }
    Ok(depth + 1)
}

/// The unscaled bytes of a decimal written to `node` (`bytes` or `fixed`), checked against its
/// `decimal` annotation, if any: a value of another scale is rescaled to the schema's exactly
/// (an error when that needs rounding), and the unscaled value may have at most `precision`
/// digits, as Java's `DecimalConversion` and serde's writer require. Readers take over-precise
/// decimals as they are (Java's decoder does not check either).
pub(crate) fn checked_decimal<'d>(node: &Node, d: &'d Decimal) -> Result<Cow<'d, [u8]>> {
    if let Some(LogicalType::Decimal { precision, scale }) = node.logical {
        let bytes = if scale == d.scale() {
            Cow::Borrowed(d.unscaled())
        } else {
            Cow::Owned(d.rescale(scale)?.unscaled().to_vec())
        };
        decimal::check_precision(&bytes, precision)?;
        return Ok(bytes);
    }
    Ok(Cow::Borrowed(d.unscaled()))
}

/// A decimal written to a `fixed` node: [`checked_decimal`], sign-extended to the size.
pub(crate) fn fixed_decimal(node: &Node, d: &Decimal) -> Result<FixedBytes> {
    let NodeKind::Fixed(f) = &node.kind else {
        return Err(Error::data("internal: a fixed decimal without a fixed"));
    };
    decimal::fit(&checked_decimal(node, d)?, f.size).ok_or_else(|| {
        Error::data(format!(
            "decimal {d} does not fit in fixed {} of {} bytes",
            f.name, f.size
        ))
    })
}

/// Whether a bare value (not `Value::Union`) belongs to a union branch of this type: the
/// value's kind must be the branch's kind, without promotions, so the choice is unambiguous.
pub(crate) fn accepts(node: &Node, v: &Value) -> bool {
    match (&node.kind, v) {
        (NodeKind::Null, Value::Null)
        | (NodeKind::Boolean, Value::Boolean(_))
        | (NodeKind::Int, Value::Int(_))
        | (NodeKind::Long, Value::Long(_))
        | (NodeKind::Float, Value::Float(_))
        | (NodeKind::Double, Value::Double(_))
        | (NodeKind::Bytes, Value::Bytes(_))
        | (NodeKind::String, Value::String(_))
        | (NodeKind::Array(_), Value::Array(_))
        | (NodeKind::Map(_), Value::Map(_))
        | (NodeKind::Enum(_), Value::Enum(_)) => true,
        (NodeKind::Fixed(f), Value::Fixed(b)) => f.size == b.len(),
        (NodeKind::Record(r), Value::Record(fields)) => r.fields.len() == fields.len(),
        (NodeKind::Int, Value::Date(_)) => node.logical == Some(LogicalType::Date),
        (NodeKind::Int, Value::TimeMillis(_)) => node.logical == Some(LogicalType::TimeMillis),
        (NodeKind::Long, v) => match v {
            Value::TimeMicros(_) => node.logical == Some(LogicalType::TimeMicros),
            Value::TimestampMillis(_) => node.logical == Some(LogicalType::TimestampMillis),
            Value::TimestampMicros(_) => node.logical == Some(LogicalType::TimestampMicros),
            Value::TimestampNanos(_) => node.logical == Some(LogicalType::TimestampNanos),
            Value::LocalTimestampMillis(_) => {
                node.logical == Some(LogicalType::LocalTimestampMillis)
            }
            Value::LocalTimestampMicros(_) => {
                node.logical == Some(LogicalType::LocalTimestampMicros)
            }
            Value::LocalTimestampNanos(_) => node.logical == Some(LogicalType::LocalTimestampNanos),
            _ => false,
        },
        (NodeKind::Bytes | NodeKind::Fixed(_), Value::Decimal(_)) => {
            matches!(node.logical, Some(LogicalType::Decimal { .. }))
        }
        (NodeKind::Bytes, Value::BigDecimal(_)) => node.logical == Some(LogicalType::BigDecimal),
        (NodeKind::String | NodeKind::Fixed(_), Value::Uuid(_)) => {
            node.logical == Some(LogicalType::Uuid)
        }
        (NodeKind::Fixed(_), Value::Duration(_)) => node.logical == Some(LogicalType::Duration),
        _ => false,
    }
}

#[cold]
#[inline(never)]
fn mismatch(kind: &NodeKind, node: &Node, v: &Value) -> Error {
    let expected = match node.name() {
        Some(n) => format!("{} {}", kind.type_name(), n),
        None => match node.logical {
            Some(l) => format!("{} ({})", kind.type_name(), l.name()),
            None => kind.type_name().to_owned(),
        },
    };
    Error::data(format!(
        "expected {expected}, found a {} value",
        v.kind_name()
    ))
}
