//! RecordBatches to Avro: datums, and container files.
//!
//! A batch's columns are first brought to the Arrow types the Avro schema maps to (the README's
//! table, with arrow-cast: `Int8` to `Int32`, `LargeUtf8` to `Utf8`...), then each row is
//! encoded by a tree of column encoders built once per batch over the typed buffers.

mod schema;

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int32Type, IntervalMonthDayNanoType,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::{i256, ArrowNativeType, IntervalMonthDayNano, NullBuffer, ToByteSlice};
use arrow_schema::{DataType, Field, Fields, SchemaRef};
use avrokit::container::Codec;
use avrokit::io::Sink;
use avrokit::schema::{LogicalType, NodeId, NodeKind};
use avrokit::Schema;

pub use schema::{avro_schema_for, derive_avro_schema, ROOT_RECORD_NAME};

use crate::decode::VALUE_COLUMN;
use crate::error::{Error, ErrorKind, Result};
use crate::mapping::{nullable_union, MapOptions, Mapper};

/// Encodes RecordBatches as Avro datums of one schema.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use avrokit_arrow::BatchEncoder;
/// let batch = RecordBatch::try_from_iter([("x", Arc::new(Int64Array::from(vec![1, -1])) as _)])?;
/// let enc = BatchEncoder::new(&batch.schema())?;
/// let mut out = Vec::new();
/// let ends = enc.encode(&batch, &mut out)?;
/// assert_eq!(out, [0x02, 0x01]);
/// assert_eq!(ends, [1, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BatchEncoder {
    avro: Schema,
    /// The Arrow type each top-level column is cast to before encoding.
    targets: Fields,
    /// For each Avro field, the position of its column in the batch.
    columns: Vec<usize>,
    is_record: bool,
}

impl BatchEncoder {
    /// An encoder for batches of `schema`, with the Avro schema of [`avro_schema_for`].
    ///
    /// # Errors
    /// A type with no Avro counterpart.
    pub fn new(schema: &SchemaRef) -> Result<BatchEncoder> {
        BatchEncoder::with_avro_schema(schema, &avro_schema_for(schema)?)
    }

    /// An encoder for batches of `schema` written as `avro`, checked to fit: every Avro field
    /// has a column of that name whose type converts to the field's.
    ///
    /// # Errors
    /// A column missing, left over, or of a type that does not fit.
    pub fn with_avro_schema(schema: &SchemaRef, avro: &Schema) -> Result<BatchEncoder> {
        let mut mapper = Mapper::new(avro, MapOptions::default());
        let is_record = matches!(avro.root().kind, NodeKind::Record(_));
        let (targets, columns): (Fields, Vec<usize>) = match &avro.root().kind {
            NodeKind::Record(r) => {
                let mut cols = Vec::new();
                let mut fields = Vec::new();
                for f in &r.fields {
                    let (i, _) = schema.column_with_name(&f.name).ok_or_else(|| {
                        Error::mismatch(format!("the Avro field {:?} has no column", f.name))
                    })?;
                    cols.push(i);
                    fields.push(mapper.field(&f.name, f.schema)?);
                }
                if r.fields.len() != schema.fields().len() {
                    return Err(Error::mismatch(format!(
                        "{} columns for the {} fields of the Avro record",
                        schema.fields().len(),
                        r.fields.len()
                    )));
                }
                (fields.into(), cols)
            }
            _ => {
                if schema.fields().len() != 1 {
                    return Err(Error::mismatch(
                        "a schema that is not a record is written from batches of one column",
                    ));
                }
                (
                    vec![mapper.field(VALUE_COLUMN, avro.root_id())?].into(),
                    vec![0],
                )
            }
        };
        let enc = BatchEncoder {
            avro: avro.clone(),
            targets,
            columns,
            is_record,
        };
        // Check the types once, on an empty batch.
        enc.encode(&RecordBatch::new_empty(schema.clone()), &mut Vec::new())?;
        Ok(enc)
    }

    /// The Avro schema the datums are written with.
    pub fn avro_schema(&self) -> &Schema {
        &self.avro
    }

    /// Appends the datums of `batch` to `out`; returns where each ends in `out`.
    ///
    /// # Errors
    /// A value that does not fit (a null in a column the Avro schema does not allow null,
    /// a timestamp out of range...), with its column and row.
    pub fn encode(&self, batch: &RecordBatch, out: &mut Vec<u8>) -> Result<Vec<usize>> {
        let mut ends = Vec::with_capacity(batch.num_rows());
        self.encode_into(batch, out, &mut ends)?;
        Ok(ends)
    }

    /// As [`encode`](Self::encode), the ends appended to `ends`.
    fn encode_into(
        &self,
        batch: &RecordBatch,
        out: &mut Vec<u8>,
        ends: &mut Vec<usize>,
    ) -> Result<()> {
        let cast = self.conform(batch)?;
        let enc = self.tree(&cast)?;
        // Room for the whole batch at once (a string-heavy batch grew its buffer by doubling,
        // copying it each time), at most what a sane batch takes.
        out.reserve(enc.size_hint().min(1 << 28));
        encode_rows(&enc, 0..batch.num_rows(), out, ends)
    }

    /// The batch's columns, in the Avro fields' order, as the Arrow types they are written
    /// from.
    fn conform(&self, batch: &RecordBatch) -> Result<Vec<ArrayRef>> {
        let mut cast: Vec<ArrayRef> = Vec::with_capacity(self.columns.len());
        for (&i, target) in self.columns.iter().zip(self.targets.iter()) {
            let col = batch.column(i);
            let name = batch.schema_ref().field(i).name().clone();
            cast.push(conform(col, target.data_type()).map_err(|e| e.in_field(&name))?);
        }
        Ok(cast)
    }

    /// The encoder tree over the conformed columns.
    fn tree<'a>(&'a self, cast: &'a [ArrayRef]) -> Result<Enc<'a>> {
        let root = self.avro.root_id();
        if !self.is_record {
            return build(&self.avro, root, cast[0].as_ref());
        }
        let NodeKind::Record(r) = &self.avro.root().kind else {
            return Err(Error::mismatch("internal: the root is not a record"));
        };
        let fields = r
            .fields
            .iter()
            .zip(cast)
            .map(|(f, a)| {
                Ok((
                    f.name.as_str(),
                    build(&self.avro, f.schema, a.as_ref()).map_err(|e| e.in_field(&f.name))?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Enc::Record(fields))
    }
}

/// Encodes the rows `rows` of `enc`'s batch into `out`, pushing where each ends.
fn encode_rows(
    enc: &Enc<'_>,
    rows: std::ops::Range<usize>,
    out: &mut Vec<u8>,
    ends: &mut Vec<usize>,
) -> Result<()> {
    ends.reserve(rows.len());
    for row in rows {
        let r = match enc {
            // The root record's fields straight away: no call to get there.
            Enc::Record(fields) => fields
                .iter()
                .try_for_each(|(name, f)| f.encode(row, out).map_err(|e| e.in_field(name))),
            enc => enc.encode(row, out),
        };
        r.map_err(|e| e.context(format!("row {row}")))?;
        ends.push(out.len());
    }
    Ok(())
}

/// `array` as `target` (the Arrow type of the Avro type it is written as), converting when
/// the types differ in more than field metadata and nullability.
fn conform(array: &ArrayRef, target: &DataType) -> Result<ArrayRef> {
    if same_shape(array.data_type(), target) {
        return Ok(array.clone());
    }
    arrow_cast::cast(array, target).map_err(|e| {
        Error::mismatch(format!(
            "Arrow type {} cannot be written as Avro's {target} ({e})",
            array.data_type()
        ))
    })
}

/// Equal types, ignoring field metadata, nullability and names of list items and map entries.
fn same_shape(a: &DataType, b: &DataType) -> bool {
    let f = |x: &Field, y: &Field| same_shape(x.data_type(), y.data_type());
    match (a, b) {
        (DataType::List(x), DataType::List(y)) => f(x, y),
        (DataType::Map(x, _), DataType::Map(y, _)) => f(x, y),
        (DataType::Struct(x), DataType::Struct(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(x, y)| x.name() == y.name() && f(x, y))
        }
        (DataType::Union(x, _), DataType::Union(y, _)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|((_, x), (_, y))| f(x, y))
        }
        (DataType::Dictionary(k1, v1), DataType::Dictionary(k2, v2)) => k1 == k2 && v1 == v2,
        _ => a == b,
    }
}

/// One column's encoder over a batch's buffers.
enum Enc<'a> {
    Null,
    Bool(&'a arrow_array::BooleanArray),
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    Bin(&'a [i32], &'a [u8]),
    Fixed(&'a arrow_array::FixedSizeBinaryArray),
    UuidText(&'a arrow_array::FixedSizeBinaryArray),
    Dec128(&'a [i128], Option<usize>),
    Dec256(&'a [i256], Option<usize>),
    Duration(&'a [IntervalMonthDayNano]),
    Enum(&'a [i32], Vec<Option<u32>>),
    List(&'a [i32], Box<Enc<'a>>),
    Map(&'a [i32], &'a [i32], &'a [u8], Box<Enc<'a>>),
    Record(Vec<(&'a str, Enc<'a>)>),
    Nullable {
        nulls: Option<&'a NullBuffer>,
        null_branch: i64,
        value_branch: i64,
        inner: Box<Enc<'a>>,
    },
    /// A column whose Avro type takes no null, but whose array has some.
    Required(&'a NullBuffer, Box<Enc<'a>>),
    Union {
        type_ids: &'a [i8],
        offsets: Option<&'a [i32]>,
        /// By Arrow type id: the Avro branch and the child's encoder.
        children: Vec<Option<(i64, Enc<'a>)>>,
    },
}

#[cold]
fn bad(node: &str, array: &dyn Array) -> Error {
    Error::mismatch(format!(
        "Arrow type {} cannot be written as Avro {node}",
        array.data_type()
    ))
}

/// The encoder of `array` (already conformed) as Avro node `id`.
fn build<'a>(avro: &'a Schema, id: NodeId, array: &'a dyn Array) -> Result<Enc<'a>> {
    let node = avro.node(id);
    if let Some((inner, null_branch)) = nullable_union(avro, node) {
        return Ok(Enc::Nullable {
            nulls: array.nulls().filter(|n| n.null_count() > 0),
            null_branch: null_branch as i64,
            value_branch: 1 - null_branch as i64,
            inner: Box::new(build(avro, inner, array)?),
        });
    }
    let enc = match (&node.kind, array.data_type()) {
        (NodeKind::Null, _) => return Ok(Enc::Null),
        (NodeKind::Boolean, DataType::Boolean) => Enc::Bool(array.as_boolean()),
        (NodeKind::Int, _) => Enc::I32(i32_values(array).ok_or_else(|| bad("int", array))?),
        (NodeKind::Long, _) => Enc::I64(i64_values(array).ok_or_else(|| bad("long", array))?),
        (NodeKind::Float, _) => Enc::F32(
            array
                .as_primitive_opt::<Float32Type>()
                .ok_or_else(|| bad("float", array))?
                .values(),
        ),
        (NodeKind::Double, _) => Enc::F64(
            array
                .as_primitive_opt::<Float64Type>()
                .ok_or_else(|| bad("double", array))?
                .values(),
        ),
        (NodeKind::Bytes | NodeKind::Fixed(_), DataType::Decimal128(..)) => Enc::Dec128(
            array.as_primitive::<Decimal128Type>().values(),
            fixed_size(&node.kind),
        ),
        (NodeKind::Bytes | NodeKind::Fixed(_), DataType::Decimal256(..)) => Enc::Dec256(
            array.as_primitive::<Decimal256Type>().values(),
            fixed_size(&node.kind),
        ),
        (NodeKind::Bytes, DataType::Binary) => {
            let a = array.as_binary::<i32>();
            Enc::Bin(a.value_offsets(), a.values())
        }
        (NodeKind::String, DataType::Utf8) => {
            let a = array.as_string::<i32>();
            Enc::Bin(a.value_offsets(), a.values())
        }
        (NodeKind::String, DataType::FixedSizeBinary(16))
            if node.logical == Some(LogicalType::Uuid) =>
        {
            Enc::UuidText(array.as_fixed_size_binary())
        }
        (NodeKind::Fixed(_), DataType::Interval(_)) => {
            Enc::Duration(array.as_primitive::<IntervalMonthDayNanoType>().values())
        }
        (NodeKind::Fixed(f), DataType::FixedSizeBinary(n)) if *n as usize == f.size => {
            Enc::Fixed(array.as_fixed_size_binary())
        }
        (NodeKind::Enum(e), DataType::Dictionary(k, _)) if **k == DataType::Int32 => {
            let d = array.as_dictionary::<Int32Type>();
            let values = d
                .values()
                .as_string_opt::<i32>()
                .ok_or_else(|| bad("enum", array))?;
            let remap = (0..values.len())
                .map(|i| e.symbol_index(values.value(i)))
                .collect();
            Enc::Enum(d.keys().values(), remap)
        }
        (NodeKind::Array(a), DataType::List(_)) => {
            let l = array.as_list::<i32>();
            Enc::List(
                l.value_offsets(),
                Box::new(build(avro, a.items, l.values().as_ref()).map_err(|e| e.in_field("[]"))?),
            )
        }
        (NodeKind::Map(m), DataType::Map(..)) => {
            let map = array.as_map();
            let keys = map
                .keys()
                .as_string_opt::<i32>()
                .ok_or_else(|| bad("map", array))?;
            if keys.null_count() > 0 {
                return Err(Error::mismatch("a map key is null"));
            }
            Enc::Map(
                map.value_offsets(),
                keys.value_offsets(),
                keys.values(),
                Box::new(
                    build(avro, m.values, map.values().as_ref()).map_err(|e| e.in_field("{}"))?,
                ),
            )
        }
        (NodeKind::Record(r), DataType::Struct(_)) => {
            let s = array.as_struct();
            if s.num_columns() != r.fields.len() {
                return Err(bad("record", array));
            }
            Enc::Record(
                r.fields
                    .iter()
                    .zip(s.columns())
                    .map(|(f, c)| {
                        Ok((
                            f.name.as_str(),
                            build(avro, f.schema, c.as_ref()).map_err(|e| e.in_field(&f.name))?,
                        ))
                    })
                    .collect::<Result<_>>()?,
            )
        }
        (NodeKind::Union(u), DataType::Union(fields, _)) => {
            let ua = array.as_union();
            let max = fields.iter().map(|(t, _)| t).max().unwrap_or(0);
            let mut children: Vec<Option<(i64, Enc)>> = (0..=max.max(0)).map(|_| None).collect();
            for (pos, (tid, _)) in fields.iter().enumerate() {
                let Some(&branch) = u.variants.get(pos) else {
                    return Err(bad("union (fewer branches)", array));
                };
                if tid < 0 {
                    return Err(bad("union", array));
                }
                children[tid as usize] =
                    Some((pos as i64, build(avro, branch, ua.child(tid).as_ref())?));
            }
            Enc::Union {
                type_ids: ua.type_ids(),
                offsets: ua.offsets().map(|o| &o[..]),
                children,
            }
        }
        _ => return Err(bad(node.kind.type_name(), array)),
    };
    Ok(match array.nulls().filter(|n| n.null_count() > 0) {
        Some(n) if !matches!(array.data_type(), DataType::Union(..)) => {
            Enc::Required(n, Box::new(enc))
        }
        _ => enc,
    })
}

fn fixed_size(kind: &NodeKind) -> Option<usize> {
    match kind {
        NodeKind::Fixed(f) => Some(f.size),
        _ => None,
    }
}

fn i32_values(array: &dyn Array) -> Option<&[i32]> {
    use arrow_array::*;
    let any = array.as_any();
    any.downcast_ref::<Int32Array>()
        .map(|a| a.values().as_ref())
        .or_else(|| {
            any.downcast_ref::<Date32Array>()
                .map(|a| a.values().as_ref())
        })
        .or_else(|| {
            any.downcast_ref::<Time32MillisecondArray>()
                .map(|a| a.values().as_ref())
        })
}

fn i64_values(array: &dyn Array) -> Option<&[i64]> {
    use arrow_array::*;
    let any = array.as_any();
    any.downcast_ref::<Int64Array>()
        .map(|a| a.values().as_ref())
        .or_else(|| {
            any.downcast_ref::<Time64MicrosecondArray>()
                .map(|a| a.values().as_ref())
        })
        .or_else(|| {
            any.downcast_ref::<TimestampMillisecondArray>()
                .map(|a| a.values().as_ref())
        })
        .or_else(|| {
            any.downcast_ref::<TimestampMicrosecondArray>()
                .map(|a| a.values().as_ref())
        })
        .or_else(|| {
            any.downcast_ref::<TimestampNanosecondArray>()
                .map(|a| a.values().as_ref())
        })
}

#[inline(always)]
fn put_long(out: &mut Vec<u8>, v: i64) {
    put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// A varint, through the core's `Vec<u8>` sink: one byte is a push, longer ones are one or two
/// word stores and a truncate, with no loop per byte (random `long`s, 9 and 10 bytes, were a
/// tenth of the -container record's encoding instructions when they looped).
#[inline(always)]
fn put_varint(out: &mut Vec<u8>, v: u64) {
    // A `Vec` sink cannot fail.
    let _ = Sink::write_varint(out, v);
}

#[inline(always)]
fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, (b.len() as u64) << 1);
    out.extend_from_slice(b);
}

/// The bytes `values[start..end]` (a string or binary value), length first. A value of at
/// most 16 bytes with 16 bytes of the buffer from its start is copied as one 16-byte block and
/// `out` cut back: a fixed-size copy is two moves, where a copy of varying length calls
/// `memcpy` (as the decoder's [`Cursor::bytes_into`](crate::decode::Cursor)).
#[inline(always)]
fn put_bin(out: &mut Vec<u8>, values: &[u8], start: usize, end: usize) {
    let b = &values[start..end];
    put_varint(out, (b.len() as u64) << 1);
    match values.get(start..).and_then(|r| r.first_chunk::<16>()) {
        Some(chunk) if b.len() <= 16 => {
            let at = out.len();
            out.extend_from_slice(chunk);
            out.truncate(at + b.len());
        }
        _ => out.extend_from_slice(b),
    }
}

/// Floats or doubles, little-endian as Avro writes them: on a little-endian machine that is
/// their memory, so the whole run is one copy.
#[inline(always)]
fn put_floats<T: ArrowNativeType>(out: &mut Vec<u8>, v: &[T]) {
    if cfg!(target_endian = "little") {
        out.extend_from_slice(v.to_byte_slice());
    } else {
        for x in v {
            out.extend(x.to_byte_slice().iter().rev());
        }
    }
}

/// The shortest big-endian two's complement form of `be` (at least one byte).
fn minimal(be: &[u8]) -> &[u8] {
    let mut b = be;
    while b.len() > 1 {
        let (x, y) = (b[0], b[1]);
        if (x == 0 && y & 0x80 == 0) || (x == 0xff && y & 0x80 != 0) {
            b = &b[1..];
        } else {
            break;
        }
    }
    b
}

fn put_decimal(out: &mut Vec<u8>, be: &[u8], fixed: Option<usize>) -> Result<()> {
    let m = minimal(be);
    match fixed {
        None => put_bytes(out, m),
        Some(n) => {
            if m.len() > n {
                return Err(Error::new(
                    ErrorKind::Mismatch,
                    format!("a decimal does not fit the Avro fixed({n})"),
                ));
            }
            let fill = if m[0] & 0x80 != 0 { 0xff } else { 0 };
            out.extend(std::iter::repeat_n(fill, n - m.len()));
            out.extend_from_slice(m);
        }
    }
    Ok(())
}

/// The bytes between the first and the last of `offsets`.
fn span(offsets: &[i32]) -> usize {
    match (offsets.first(), offsets.last()) {
        (Some(&a), Some(&b)) => b.saturating_sub(a).max(0) as usize,
        _ => 0,
    }
}

impl Enc<'_> {
    /// About as many bytes as the encoding of every value of the arrays takes (more, rather than
    /// less): the buffer is reserved once per batch.
    fn size_hint(&self) -> usize {
        let sum = |encs: &mut dyn Iterator<Item = &Enc>| encs.map(Enc::size_hint).sum::<usize>();
        match self {
            Enc::Null => 0,
            Enc::Bool(a) => a.len(),
            Enc::I32(v) => v.len() * 5,
            Enc::I64(v) => v.len() * 10,
            Enc::F32(v) => v.len() * 4,
            Enc::F64(v) => v.len() * 8,
            Enc::Bin(o, _) => span(o) + o.len() * 5,
            Enc::Fixed(a) => a.len() * a.value_length().max(0) as usize,
            Enc::UuidText(a) => a.len() * 37,
            Enc::Dec128(v, _) => v.len() * 21,
            Enc::Dec256(v, _) => v.len() * 37,
            Enc::Duration(v) => v.len() * 12,
            Enc::Enum(k, _) => k.len() * 5,
            Enc::List(o, item) => o.len() * 11 + item.size_hint(),
            Enc::Map(o, ko, _, v) => o.len() * 11 + span(ko) + ko.len() * 5 + v.size_hint(),
            Enc::Record(fields) => sum(&mut fields.iter().map(|(_, f)| f)),
            Enc::Nullable { inner, .. } => inner.size_hint() + inner.size_hint() / 8,
            Enc::Required(_, inner) => inner.size_hint(),
            Enc::Union {
                type_ids, children, ..
            } => type_ids.len() * 10 + sum(&mut children.iter().flatten().map(|(_, e)| e)),
        }
    }

    /// Encodes row `i`: the leaves here, inlined into the record and collection loops (one
    /// call and one dispatch per value fewer), the rest in [`Enc::encode_any`].
    #[inline(always)]
    fn encode(&self, i: usize, out: &mut Vec<u8>) -> Result<()> {
        if !self.encode_leaf(i, out) {
            if let Enc::Nullable {
                nulls,
                null_branch,
                value_branch,
                inner,
            } = self
            {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    put_long(out, *null_branch);
                } else {
                    put_long(out, *value_branch);
                    if !inner.encode_leaf(i, out) {
                        inner.encode_any(i, out)?;
                    }
                }
            } else {
                self.encode_any(i, out)?;
            }
        }
        Ok(())
    }

    /// Encodes row `i` of a number, boolean, string, bytes or enum column; `false` for the
    /// others (and for a dictionary key that is no symbol).
    #[inline(always)]
    fn encode_leaf(&self, i: usize, out: &mut Vec<u8>) -> bool {
        match self {
            Enc::I64(v) => put_long(out, v[i]),
            Enc::I32(v) => put_long(out, v[i] as i64),
            Enc::F64(v) => out.extend_from_slice(&v[i].to_le_bytes()),
            Enc::F32(v) => out.extend_from_slice(&v[i].to_le_bytes()),
            Enc::Bool(a) => out.push(a.value(i) as u8),
            Enc::Bin(o, v) => put_bin(out, v, o[i] as usize, o[i + 1] as usize),
            Enc::Enum(keys, remap) => {
                match usize::try_from(keys[i])
                    .ok()
                    .and_then(|k| remap.get(k).copied().flatten())
                {
                    Some(s) => put_long(out, s as i64),
                    // Not a symbol: `encode_any` says so.
                    None => return false,
                }
            }
            _ => return false,
        }
        true
    }

    /// Encodes the items `rows` of an array: numbers and strings in a loop of their own (the
    /// item's kind matched once an array, not once an item), anything else item by item.
    #[inline(never)]
    fn encode_items(&self, rows: std::ops::Range<usize>, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Enc::I64(v) => v[rows].iter().for_each(|&x| put_long(out, x)),
            Enc::I32(v) => v[rows].iter().for_each(|&x| put_long(out, x as i64)),
            Enc::F64(v) => put_floats(out, &v[rows]),
            Enc::F32(v) => put_floats(out, &v[rows]),
            Enc::Bin(o, v) => {
                for j in rows {
                    put_bin(out, v, o[j] as usize, o[j + 1] as usize);
                }
            }
            item => {
                for j in rows {
                    item.encode(j, out)?;
                }
            }
        }
        Ok(())
    }

    /// Encodes the entries `rows` of a map whose keys are `keys` (offsets and bytes) and whose
    /// values are `self`'s, as [`encode_items`](Self::encode_items) does an array's.
    #[inline(never)]
    fn encode_entries(
        &self,
        (ko, kv): (&[i32], &[u8]),
        rows: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let key =
            |out: &mut Vec<u8>, j: usize| put_bin(out, kv, ko[j] as usize, ko[j + 1] as usize);
        match self {
            Enc::I64(v) => rows.for_each(|j| {
                key(out, j);
                put_long(out, v[j]);
            }),
            Enc::I32(v) => rows.for_each(|j| {
                key(out, j);
                put_long(out, v[j] as i64);
            }),
            Enc::Bin(o, v) => rows.for_each(|j| {
                key(out, j);
                put_bin(out, v, o[j] as usize, o[j + 1] as usize);
            }),
            value => {
                for j in rows {
                    key(out, j);
                    value.encode(j, out)?;
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn encode_any(&self, i: usize, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Enc::Null => {}
            Enc::Bool(a) => out.push(a.value(i) as u8),
            Enc::I32(v) => put_long(out, v[i] as i64),
            Enc::I64(v) => put_long(out, v[i]),
            Enc::F32(v) => out.extend_from_slice(&v[i].to_le_bytes()),
            Enc::F64(v) => out.extend_from_slice(&v[i].to_le_bytes()),
            Enc::Bin(o, v) => put_bin(out, v, o[i] as usize, o[i + 1] as usize),
            Enc::Fixed(a) => out.extend_from_slice(a.value(i)),
            Enc::UuidText(a) => {
                let b = a.value(i);
                let mut s = [0u8; 36];
                let mut n = 0;
                const HEX: &[u8; 16] = b"0123456789abcdef";
                for (k, byte) in b.iter().enumerate() {
                    if matches!(k, 4 | 6 | 8 | 10) {
                        s[n] = b'-';
                        n += 1;
                    }
                    s[n] = HEX[(byte >> 4) as usize];
                    s[n + 1] = HEX[(byte & 15) as usize];
                    n += 2;
                }
                put_bytes(out, &s);
            }
            Enc::Dec128(v, fixed) => put_decimal(out, &v[i].to_be_bytes(), *fixed)?,
            Enc::Dec256(v, fixed) => put_decimal(out, &v[i].to_be_bytes(), *fixed)?,
            Enc::Duration(v) => {
                let d = v[i];
                let millis = d.nanoseconds / 1_000_000;
                // Months and days wrap back to Avro's unsigned form, as reading wrapped them.
                if d.nanoseconds % 1_000_000 != 0 || !(0..=u32::MAX as i64).contains(&millis) {
                    return Err(Error::mismatch(
                        "an interval finer than a millisecond, or of negative or too many \
                         milliseconds, for an Avro duration",
                    ));
                }
                out.extend_from_slice(&(d.months as u32).to_le_bytes());
                out.extend_from_slice(&(d.days as u32).to_le_bytes());
                out.extend_from_slice(&(millis as u32).to_le_bytes());
            }
            Enc::Enum(keys, remap) => {
                let k = keys[i];
                match usize::try_from(k)
                    .ok()
                    .and_then(|k| remap.get(k).copied().flatten())
                {
                    Some(s) => put_long(out, s as i64),
                    None => {
                        return Err(Error::mismatch(format!(
                            "dictionary key {k} is not a symbol of the Avro enum"
                        )))
                    }
                }
            }
            Enc::List(o, item) => {
                let (a, b) = (o[i] as usize, o[i + 1] as usize);
                if b > a {
                    put_long(out, (b - a) as i64);
                    item.encode_items(a..b, out).map_err(|e| e.in_field("[]"))?;
                }
                out.push(0);
            }
            Enc::Map(o, ko, kv, values) => {
                let (a, b) = (o[i] as usize, o[i + 1] as usize);
                if b > a {
                    put_long(out, (b - a) as i64);
                    values
                        .encode_entries((ko, kv), a..b, out)
                        .map_err(|e| e.in_field("{}"))?;
                }
                out.push(0);
            }
            Enc::Record(fields) => {
                for (name, f) in fields {
                    f.encode(i, out).map_err(|e| e.in_field(name))?;
                }
            }
            Enc::Nullable {
                nulls,
                null_branch,
                value_branch,
                inner,
            } => {
                if nulls.is_some_and(|n| n.is_null(i)) {
                    put_long(out, *null_branch);
                } else {
                    put_long(out, *value_branch);
                    inner.encode(i, out)?;
                }
            }
            Enc::Required(nulls, inner) => {
                if nulls.is_null(i) {
                    return Err(Error::mismatch("a null where the Avro type takes none"));
                }
                inner.encode(i, out)?;
            }
            Enc::Union {
                type_ids,
                offsets,
                children,
            } => {
                let t = type_ids[i];
                let j = offsets.map_or(i, |o| o[i] as usize);
                let Some(Some((branch, enc))) = children.get(t as usize) else {
                    return Err(Error::mismatch(format!("union type id {t} unknown")));
                };
                put_long(out, *branch);
                enc.encode(j, out)?;
            }
        }
        Ok(())
    }
}

/// Writes RecordBatches as an Avro container file.
///
/// Dropping a writer writes what it holds, as [`finish`](Self::finish) does, but ignores
/// errors: call `finish` to see them.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int64Array, RecordBatch};
/// use avrokit_arrow::{ReaderBuilder, Writer};
/// let batch = RecordBatch::try_from_iter([("x", Arc::new(Int64Array::from(vec![1, 2, 3])) as _)])?;
/// let mut w = Writer::new(Vec::new(), &batch.schema())?;
/// w.write(&batch)?;
/// let file = w.finish()?;
/// let back: Vec<_> = ReaderBuilder::new().build_slice(&file)?.collect::<Result<_, _>>()?;
/// assert_eq!(back[0].column(0).as_ref(), batch.column(0).as_ref());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Writer<W: Write> {
    encoder: BatchEncoder,
    /// Taken only by `finish`, which consumes the writer: present wherever it is used.
    inner: Option<avrokit::container::Writer<W>>,
    buf: Vec<u8>,
    /// Where each record of `buf` ends.
    ends: Vec<usize>,
    /// The threads that encode a batch, the caller's included.
    threads: usize,
    /// The last batch encoded on threads, in chunks, not yet appended: the next call appends
    /// it while the other threads encode (or `finish` does).
    pending: Vec<Encoded>,
    /// Chunk buffers to reuse, so that they keep their capacity from batch to batch.
    spare: Vec<Encoded>,
}

/// Encoded records, and where each ends.
type Encoded = (Vec<u8>, Vec<usize>);

/// The fewest rows worth a thread of their own: fewer cost more to hand over than to encode.
const ROWS_PER_THREAD: usize = 1024;

/// Chunks per thread a batch is cut into on threads: enough that a thread which starts late,
/// or spends a while appending the last batch, still finds its share of the work.
const CHUNKS_PER_THREAD: usize = 8;

impl<W: Write> Writer<W> {
    /// A writer of batches of `schema`, with the Avro schema of [`avro_schema_for`] and the
    /// `null` codec.
    ///
    /// # Errors
    /// A type with no Avro counterpart, or a failing sink.
    pub fn new(sink: W, schema: &SchemaRef) -> Result<Writer<W>> {
        Writer::with_options(sink, schema, None, Codec::Null)
    }

    /// A writer with a given Avro schema (checked against `schema`) and codec.
    ///
    /// # Errors
    /// As [`BatchEncoder::with_avro_schema`], or a failing sink.
    pub fn with_options(
        sink: W,
        schema: &SchemaRef,
        avro: Option<&Schema>,
        codec: Codec,
    ) -> Result<Writer<W>> {
        let avro = match avro {
            Some(a) => a.clone(),
            None => avro_schema_for(schema)?,
        };
        let encoder = BatchEncoder::with_avro_schema(schema, &avro)?;
        let inner = avrokit::container::WriterBuilder::new(&avro)
            .with_codec(codec)
            .build(sink)?;
        Ok(Writer {
            encoder,
            inner: Some(inner),
            buf: Vec::new(),
            ends: Vec::new(),
            threads: 1,
            pending: Vec::new(),
            spare: Vec::new(),
        })
    }

    /// Encodes each batch on `threads` threads (1: all on the caller's, as by default; the
    /// caller's thread is one of them), and compresses the blocks on `threads` more, those of
    /// the core writer's [`set_threads`](avrokit::container::Writer::set_threads) (none for
    /// the `null` codec).
    ///
    /// A batch's rows are cut into chunks that the threads take in turn (as many threads as
    /// the batch has 1024 rows for, at most `threads`). The caller's thread first appends the
    /// previous batch, so a batch reaches the sink during the next call to
    /// [`write`](Self::write) or in [`finish`](Self::finish), and a failing sink may be
    /// reported one call later.
    ///
    /// The file is the same, byte for byte, as one written on one thread with the same sync
    /// marker: the same blocks (64 KiB of encoded records each), in the same order. A value
    /// that does not fit still writes nothing of its batch.
    ///
    /// # Errors
    /// Writing the blocks being compressed failed, or a compression thread could not be
    /// started.
    pub fn with_threads(mut self, threads: usize) -> Result<Writer<W>> {
        self.threads = threads.max(1);
        let threads = self.threads;
        self.inner_mut().set_threads(threads)?;
        Ok(self)
    }

    /// The Avro schema of the file.
    pub fn avro_schema(&self) -> &Schema {
        self.encoder.avro_schema()
    }

    /// Appends the rows of `batch`.
    ///
    /// # Errors
    /// A value that does not fit the Avro schema (nothing of the batch is written), or a
    /// failing sink.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let threads = self.threads.min(batch.num_rows() / ROWS_PER_THREAD);
        if threads > 1 {
            return self.write_on_threads(batch, threads);
        }
        self.append_pending()?;
        self.buf.clear();
        self.ends.clear();
        self.encoder
            .encode_into(batch, &mut self.buf, &mut self.ends)?;
        let inner = self.inner.as_mut().expect("present until finish");
        Ok(inner.append_encoded_many(&self.buf, &self.ends)?)
    }

    /// Encodes `batch` in chunks taken in turn by `threads` threads (the caller's included),
    /// while the caller's thread first appends the previous batch; the chunks become the
    /// pending batch.
    fn write_on_threads(&mut self, batch: &RecordBatch, threads: usize) -> Result<()> {
        let cast = self.encoder.conform(batch)?;
        let enc = self.encoder.tree(&cast)?;
        let rows = batch.num_rows();
        let per = rows.div_ceil(threads * CHUNKS_PER_THREAD).max(1);
        let chunks = rows.div_ceil(per);
        let room = (enc.size_hint() / chunks).min(1 << 28);
        let mut spare = std::mem::take(&mut self.spare);
        spare.resize_with(chunks, Default::default);
        // Each chunk's buffers are taken out of their slot for the time they are filled: side
        // by side, two threads' `Vec`s would share a cache line, and every push would bounce
        // it between the cores (the runs took 3x as long as on one thread).
        let slots: Vec<Mutex<(Encoded, Result<()>)>> =
            spare.into_iter().map(|e| Mutex::new((e, Ok(())))).collect();
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let work = || loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= chunks || failed.load(Ordering::Relaxed) {
                return;
            }
            let (mut buf, mut ends) = std::mem::take(&mut lock(&slots[k]).0);
            buf.clear();
            ends.clear();
            buf.reserve(room);
            let r = encode_rows(&enc, k * per..rows.min((k + 1) * per), &mut buf, &mut ends);
            if r.is_err() {
                // Chunks are taken in row order: every one before this is done or being done,
                // so the first error in row order is still found.
                failed.store(true, Ordering::Relaxed);
            }
            *lock(&slots[k]) = ((buf, ends), r);
        };
        let pending = std::mem::take(&mut self.pending);
        let inner = self.inner.as_mut().expect("present until finish");
        let appended = std::thread::scope(|s| {
            let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
            let appended = append_all(&pending, inner);
            if appended.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            work();
            for h in helpers {
                // A helper that panicked left its chunk's result `Ok` with empty buffers:
                // caught below by the count of records.
                let _ = h.join();
            }
            appended
        });
        self.spare = pending;
        let mut result = appended;
        let mut encoded = Vec::with_capacity(chunks);
        for slot in slots {
            let (bufs, r) = slot.into_inner().unwrap_or_else(PoisonError::into_inner);
            if result.is_ok() {
                result = r;
            }
            encoded.push(bufs);
        }
        let count: usize = encoded.iter().map(|(_, ends)| ends.len()).sum();
        if result.is_ok() && count != rows {
            result = Err(Error::new(ErrorKind::Io, "an encoding thread panicked"));
        }
        // Nothing of the batch is kept unless every chunk encoded; the first error in row
        // order wins.
        match result {
            Ok(()) => self.pending = encoded,
            Err(_) => self.spare.extend(encoded),
        }
        result
    }

    /// Appends the pending batch, if any.
    fn append_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let inner = self.inner.as_mut().expect("present until finish");
        let r = append_all(&pending, inner);
        self.spare = pending;
        r
    }

    fn inner_mut(&mut self) -> &mut avrokit::container::Writer<W> {
        self.inner.as_mut().expect("present until finish")
    }

    /// Writes the last block and flushes; returns the sink.
    ///
    /// # Errors
    /// A failing sink.
    pub fn finish(mut self) -> Result<W> {
        self.append_pending()?;
        let inner = self.inner.take().expect("present until finish");
        Ok(inner.into_inner()?)
    }
}

impl<W: Write> Drop for Writer<W> {
    /// Writes what the writer holds, best effort (`finish` reports the errors); the inner
    /// writer then writes its last block as it drops.
    fn drop(&mut self) {
        if self.inner.is_some() {
            let _ = self.append_pending();
        }
    }
}

/// Appends encoded chunks, in order, to `inner`.
fn append_all<W: Write>(
    chunks: &[Encoded],
    inner: &mut avrokit::container::Writer<W>,
) -> Result<()> {
    for (buf, ends) in chunks {
        inner.append_encoded_many(buf, ends)?;
    }
    Ok(())
}

/// The slot's contents, also after a panic on another thread (they are checked afterwards).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::{put_bin, put_long};

    /// The word-at-a-time varints are the byte loop's, at every length.
    #[test]
    fn varints_match_the_byte_loop() {
        let mut values = vec![0i64, 1, -1, i64::MIN, i64::MAX];
        for bits in 0..64 {
            let p = 1i64.wrapping_shl(bits);
            values.extend([
                p,
                p.wrapping_sub(1),
                p.wrapping_add(1),
                p.wrapping_neg(),
                p.wrapping_neg().wrapping_sub(1),
            ]);
        }
        values.extend((0..1000i64).map(|i| i.wrapping_mul(0x1e37_79b9_7f4a_7c15)));
        for v in values {
            let mut z = ((v << 1) ^ (v >> 63)) as u64;
            let mut want = vec![0xaa];
            while z >= 0x80 {
                want.push(z as u8 | 0x80);
                z >>= 7;
            }
            want.push(z as u8);
            let mut got = vec![0xaa];
            put_long(&mut got, v);
            assert_eq!(got, want, "{v}");
        }
    }

    /// Strings of every length up to 40, near the end of their buffer and away from it.
    #[test]
    fn strings_are_copied_exactly() {
        let values: Vec<u8> = (0..100u8).collect();
        for start in [0usize, 50, 60, 70, 84, 90, 99, 100] {
            for len in 0..=(100 - start).min(40) {
                let mut got = vec![7];
                put_bin(&mut got, &values, start, start + len);
                let mut want = vec![7, (len as u8) << 1];
                want.extend_from_slice(&values[start..start + len]);
                assert_eq!(got, want, "{start} {len}");
            }
        }
    }
}
