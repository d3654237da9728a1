//! Column builders: Arrow buffers that decoders append to directly, one per reader position.

use std::sync::Arc;

use arrow_array::types::{
    Date32Type, Decimal128Type, Decimal256Type, Float32Type, Float64Type, Int32Type, Int64Type,
    IntervalMonthDayNanoType, Time32MillisecondType, Time64MicrosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, DictionaryArray, FixedSizeBinaryArray, ListArray,
    MapArray, NullArray, PrimitiveArray, StringArray, StringViewArray, StructArray, UnionArray,
};
use arrow_buffer::{
    i256, BooleanBuffer, Buffer, IntervalMonthDayNano, NullBuffer, OffsetBuffer, ScalarBuffer,
};
use arrow_schema::{DataType, Field, FieldRef, TimeUnit};
use avrokit::schema::{NodeId, NodeKind};
use avrokit::Schema;

use super::strings::utf8_array;
use crate::error::{Error, ErrorKind, Result};
use crate::mapping::nullable_union;

/// How a flush sizes the emptied builders for the batch that follows.
///
/// The buffers go to Arrow as they are (no copy), so each batch gets fresh ones. Sized
/// exactly to the batch before, about half of the next batches of varying-size data (strings,
/// arrays) outgrew them and reallocated, copying the whole buffer: callgrind put 16% of a
/// string-heavy read's instructions in `realloc`, 4% of the `-container` record's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// A full batch was flushed: the next is about as big. Its length and an eighth.
    Like,
    /// A short batch (the end of the input or of a parallel job): keep the capacity the
    /// builders grew to, which was for a full batch.
    Keep,
}

impl Next {
    /// `v`'s values, leaving it empty with the capacity for the next batch.
    fn take<T>(self, v: &mut Vec<T>) -> Vec<T> {
        let cap = match self {
            Next::Like => v.len().saturating_add(v.len() / 8),
            Next::Keep => v.capacity(),
        };
        std::mem::replace(v, Vec::with_capacity(cap))
    }
}

/// A bitmap being built (a boolean column's values, or a column's validity), appended to
/// without a branch on the bit. Arrow's `BooleanBufferBuilder::append` branches on it, and on
/// random booleans and nullable fields that branch mispredicted about every other time
/// (callgrind --branch-sim, -container record: 0.8 of its 10 mispredictions a record). Bits
/// gather in a word, stored every 64.
#[derive(Debug, Default)]
pub(crate) struct Bits {
    words: Vec<u64>,
    word: u64,
    len: usize,
}

impl Bits {
    #[inline(always)]
    pub(crate) fn append(&mut self, v: bool) {
        self.word |= u64::from(v) << (self.len % 64);
        self.len += 1;
        if self.len % 64 == 0 {
            self.words.push(self.word.to_le());
            self.word = 0;
        }
    }

    /// The bits appended, leaving the bitmap empty, sized by `next`.
    pub(crate) fn finish(&mut self, next: Next) -> BooleanBuffer {
        let len = std::mem::take(&mut self.len);
        if len % 64 != 0 {
            self.words.push(std::mem::take(&mut self.word).to_le());
        }
        let words = next.take(&mut self.words);
        BooleanBuffer::new(Buffer::from_vec(words), 0, len)
    }
}

/// The validity of a column read from a reader union `["null", T]` / `[T, "null"]`.
pub(crate) struct Nulls {
    pub(crate) bits: Bits,
    /// The reader union's null branch.
    pub(crate) null_branch: u32,
}

/// One output column: its buffers, its Arrow type, and its validity when nullable.
pub(crate) struct Col {
    pub(crate) kind: Kind,
    pub(crate) nulls: Option<Nulls>,
    pub(crate) data_type: DataType,
}

/// An explicit tag (`repr(u8)`): without it the tag hides in a `Vec`'s capacity niche, and
/// every value read decodes it with six instructions before its match.
#[repr(u8)]
pub(crate) enum Kind {
    Null(usize),
    Bool(Bits),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// `bytes` and `string`: Arrow's offsets and values buffers.
    Bin {
        offsets: Vec<i32>,
        values: Vec<u8>,
    },
    /// `fixed` and `uuid` (16 bytes, from its text form or a `fixed`).
    Fixed {
        size: usize,
        values: Vec<u8>,
        len: usize,
    },
    Dec128(Vec<i128>),
    Dec256(Vec<i256>),
    Interval(Vec<IntervalMonthDayNano>),
    Enum {
        keys: Vec<i32>,
        symbols: ArrayRef,
    },
    List {
        offsets: Vec<i32>,
        item: Box<Col>,
        field: FieldRef,
    },
    Map {
        offsets: Vec<i32>,
        keys: Box<Col>,
        values: Box<Col>,
        entries: FieldRef,
    },
    Struct {
        children: Vec<Col>,
        names: Vec<Box<str>>,
        len: usize,
    },
    Union {
        type_ids: Vec<i8>,
        offsets: Vec<i32>,
        children: Vec<Col>,
        /// Values in each child, for the offsets.
        counts: Vec<i32>,
    },
}

impl Col {
    /// The builder for reader node `id`, mapped to `field` (by [`crate::mapping::Mapper`]).
    pub(crate) fn new(schema: &Schema, id: NodeId, field: &Field) -> Result<Col> {
        let node = schema.node(id);
        if let Some((inner, null_branch)) = nullable_union(schema, node) {
            let mut col = Col::new(schema, inner, field)?;
            col.nulls = Some(Nulls {
                bits: Bits::default(),
                null_branch,
            });
            return Ok(col);
        }
        let dt = field.data_type();
        let kind = match (&node.kind, dt) {
            (NodeKind::Null, _) => Kind::Null(0),
            (NodeKind::Boolean, _) => Kind::Bool(Bits::default()),
            (NodeKind::Int, _) => Kind::I32(Vec::new()),
            (NodeKind::Long, _) => Kind::I64(Vec::new()),
            (NodeKind::Float, _) => Kind::F32(Vec::new()),
            (NodeKind::Double, _) => Kind::F64(Vec::new()),
            (_, DataType::Decimal128(..)) => Kind::Dec128(Vec::new()),
            (_, DataType::Decimal256(..)) => Kind::Dec256(Vec::new()),
            (_, DataType::Interval(_)) => Kind::Interval(Vec::new()),
            (_, DataType::FixedSizeBinary(n)) => Kind::Fixed {
                size: *n as usize,
                values: Vec::new(),
                len: 0,
            },
            (NodeKind::Bytes | NodeKind::String, _) => Kind::Bin {
                offsets: vec![0],
                values: Vec::new(),
            },
            (NodeKind::Enum(e), _) => Kind::Enum {
                keys: Vec::new(),
                symbols: Arc::new(StringArray::from_iter_values(&e.symbols)),
            },
            (NodeKind::Array(a), DataType::List(f)) => Kind::List {
                offsets: vec![0],
                item: Box::new(Col::new(schema, a.items, f)?),
                field: f.clone(),
            },
            (NodeKind::Map(m), DataType::Map(entries, _)) => {
                let DataType::Struct(kv) = entries.data_type() else {
                    return Err(internal("map entries"));
                };
                Kind::Map {
                    offsets: vec![0],
                    keys: Box::new(Col {
                        kind: Kind::Bin {
                            offsets: vec![0],
                            values: Vec::new(),
                        },
                        nulls: None,
                        data_type: DataType::Utf8,
                    }),
                    values: Box::new(Col::new(schema, m.values, &kv[1])?),
                    entries: entries.clone(),
                }
            }
            (NodeKind::Record(r), DataType::Struct(fields)) => Kind::Struct {
                children: r
                    .fields
                    .iter()
                    .zip(fields.iter())
                    .map(|(rf, f)| Col::new(schema, rf.schema, f))
                    .collect::<Result<_>>()?,
                names: r.fields.iter().map(|f| f.name.as_str().into()).collect(),
                len: 0,
            },
            (NodeKind::Union(u), DataType::Union(fields, _)) => Kind::Union {
                type_ids: Vec::new(),
                offsets: Vec::new(),
                children: u
                    .variants
                    .iter()
                    .zip(fields.iter())
                    .map(|(&v, (_, f))| Col::new(schema, v, f))
                    .collect::<Result<_>>()?,
                counts: vec![0; u.variants.len()],
            },
            _ => return Err(internal("column type")),
        };
        Ok(Col {
            kind,
            nulls: None,
            data_type: dt.clone(),
        })
    }

    /// A row root of one column (a non-record top-level schema).
    pub(crate) fn root_of(col: Col, field: &Field) -> Col {
        let name = field.name().as_str();
        Col {
            data_type: DataType::Struct(vec![field.clone()].into()),
            kind: Kind::Struct {
                children: vec![col],
                names: vec![name.into()],
                len: 0,
            },
            nulls: None,
        }
    }

    /// The root's columns (a struct's children), leaving the builders empty.
    pub(crate) fn finish_columns(&mut self, next: Next) -> Result<Vec<ArrayRef>> {
        match &mut self.kind {
            Kind::Struct { children, len, .. } => {
                *len = 0;
                children.iter_mut().map(|c| c.finish(next)).collect()
            }
            _ => Err(internal("root")),
        }
    }

    /// Appends a null: the validity bit and a placeholder value.
    #[inline]
    pub(crate) fn push_null(&mut self) {
        if let Some(n) = &mut self.nulls {
            n.bits.append(false);
        }
        self.kind.push_placeholder();
    }

    /// Appends a valid value of a nullable column's validity (the value follows).
    #[inline(always)]
    pub(crate) fn push_valid(&mut self) {
        if let Some(n) = &mut self.nulls {
            n.bits.append(true);
        }
    }

    /// The Arrow array of everything appended, leaving the builder empty, sized by `next`.
    pub(crate) fn finish(&mut self, next: Next) -> Result<ArrayRef> {
        let nulls = self
            .nulls
            .as_mut()
            .map(|n| NullBuffer::new(n.bits.finish(next)));
        let dt = self.data_type.clone();
        fn prim<T: arrow_array::ArrowPrimitiveType>(
            v: Vec<T::Native>,
            nulls: Option<NullBuffer>,
            dt: DataType,
        ) -> Result<ArrayRef> {
            Ok(Arc::new(
                PrimitiveArray::<T>::try_new(ScalarBuffer::from(v), nulls)?.with_data_type(dt),
            ))
        }
        // Offsets start at 0 in every batch.
        let take_offsets = |v: &mut Vec<i32>| {
            let out = next.take(v);
            v.push(0);
            out
        };
        let offsets = |v: &mut Vec<i32>| OffsetBuffer::new(ScalarBuffer::from(take_offsets(v)));
        let array: ArrayRef = match &mut self.kind {
            Kind::Null(n) => Arc::new(NullArray::new(std::mem::take(n))),
            Kind::Bool(b) => Arc::new(BooleanArray::new(b.finish(next), nulls)),
            Kind::I32(v) => match dt {
                DataType::Date32 => prim::<Date32Type>(next.take(v), nulls, dt)?,
                DataType::Time32(_) => prim::<Time32MillisecondType>(next.take(v), nulls, dt)?,
                _ => prim::<Int32Type>(next.take(v), nulls, dt)?,
            },
            Kind::I64(v) => match &dt {
                DataType::Time64(_) => prim::<Time64MicrosecondType>(next.take(v), nulls, dt)?,
                DataType::Timestamp(TimeUnit::Millisecond, _) => {
                    prim::<TimestampMillisecondType>(next.take(v), nulls, dt)?
                }
                DataType::Timestamp(TimeUnit::Microsecond, _) => {
                    prim::<TimestampMicrosecondType>(next.take(v), nulls, dt)?
                }
                DataType::Timestamp(_, _) => {
                    prim::<TimestampNanosecondType>(next.take(v), nulls, dt)?
                }
                _ => prim::<Int64Type>(next.take(v), nulls, dt)?,
            },
            Kind::F32(v) => prim::<Float32Type>(next.take(v), nulls, dt)?,
            Kind::F64(v) => prim::<Float64Type>(next.take(v), nulls, dt)?,
            Kind::Dec128(v) => prim::<Decimal128Type>(next.take(v), nulls, dt)?,
            Kind::Dec256(v) => prim::<Decimal256Type>(next.take(v), nulls, dt)?,
            Kind::Interval(v) => prim::<IntervalMonthDayNanoType>(next.take(v), nulls, dt)?,
            Kind::Bin { offsets: o, values } => match dt {
                DataType::Binary => Arc::new(BinaryArray::try_new(
                    offsets(o),
                    Buffer::from_vec(next.take(values)),
                    nulls,
                )?),
                DataType::Utf8View => {
                    let s = utf8_array(take_offsets(o), next.take(values), nulls)?;
                    Arc::new(StringViewArray::from(&s))
                }
                _ => Arc::new(utf8_array(take_offsets(o), next.take(values), nulls)?),
            },
            Kind::Fixed { size, values, len } => {
                let n = std::mem::take(len);
                let values = Buffer::from_vec(next.take(values));
                Arc::new(FixedSizeBinaryArray::try_new_with_len(
                    *size as i32,
                    values,
                    nulls,
                    n,
                )?)
            }
            Kind::Enum { keys, symbols } => {
                let keys = PrimitiveArray::<Int32Type>::try_new(
                    ScalarBuffer::from(next.take(keys)),
                    nulls,
                )?;
                let dict = DictionaryArray::<Int32Type>::try_new(keys, symbols.clone())?;
                match dt {
                    // Enums as strings: the symbols looked up once per batch.
                    DataType::Utf8 | DataType::Utf8View => arrow_cast::cast(&dict, &dt)?,
                    _ => Arc::new(dict),
                }
            }
            Kind::List {
                offsets: o,
                item,
                field,
            } => {
                let values = item.finish(next)?;
                Arc::new(ListArray::try_new(
                    field.clone(),
                    offsets(o),
                    values,
                    nulls,
                )?)
            }
            Kind::Map {
                offsets: o,
                keys,
                values,
                entries,
            } => {
                let k = keys.finish(next)?;
                let v = values.finish(next)?;
                let DataType::Struct(kv) = entries.data_type() else {
                    return Err(internal("map entries"));
                };
                let st = StructArray::try_new(kv.clone(), vec![k, v], None)?;
                Arc::new(MapArray::try_new(
                    entries.clone(),
                    offsets(o),
                    st,
                    nulls,
                    false,
                )?)
            }
            Kind::Struct { children, len, .. } => {
                let n = std::mem::take(len);
                let DataType::Struct(fields) = &dt else {
                    return Err(internal("struct"));
                };
                let arrays = children
                    .iter_mut()
                    .map(|c| c.finish(next))
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(StructArray::try_new_with_length(
                    fields.clone(),
                    arrays,
                    nulls,
                    n,
                )?)
            }
            Kind::Union {
                type_ids,
                offsets: o,
                children,
                counts,
            } => {
                let DataType::Union(fields, _) = &dt else {
                    return Err(internal("union"));
                };
                counts.iter_mut().for_each(|c| *c = 0);
                let arrays = children
                    .iter_mut()
                    .map(|c| c.finish(next))
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(UnionArray::try_new(
                    fields.clone(),
                    ScalarBuffer::from(next.take(type_ids)),
                    Some(ScalarBuffer::from(next.take(o))),
                    arrays,
                )?)
            }
        };
        Ok(array)
    }
}

impl Kind {
    /// Appends the value a null slot holds (zero, empty).
    pub(crate) fn push_placeholder(&mut self) {
        match self {
            Kind::Null(n) => *n += 1,
            Kind::Bool(b) => b.append(false),
            Kind::I32(v) => v.push(0),
            Kind::I64(v) => v.push(0),
            Kind::F32(v) => v.push(0.0),
            Kind::F64(v) => v.push(0.0),
            Kind::Bin { offsets, .. } | Kind::List { offsets, .. } | Kind::Map { offsets, .. } => {
                let last = *offsets.last().unwrap_or(&0);
                offsets.push(last);
            }
            Kind::Fixed { size, values, len } => {
                values.resize(values.len() + *size, 0);
                *len += 1;
            }
            Kind::Dec128(v) => v.push(0),
            Kind::Dec256(v) => v.push(i256::ZERO),
            Kind::Interval(v) => v.push(IntervalMonthDayNano::ZERO),
            Kind::Enum { keys, .. } => keys.push(0),
            Kind::Struct { children, len, .. } => {
                children.iter_mut().for_each(Col::push_null);
                *len += 1;
            }
            Kind::Union {
                type_ids,
                offsets,
                children,
                counts,
            } => {
                type_ids.push(0);
                offsets.push(counts[0]);
                counts[0] += 1;
                children[0].push_null();
            }
        }
    }
}

#[cold]
pub(crate) fn internal(what: &str) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("internal: the plan and the {what} column disagree"),
    )
}

#[cfg(test)]
mod tests {
    use super::{Bits, Next};

    /// Bitmaps of every length around the 64-bit words read back bit for bit, batch after
    /// batch.
    #[test]
    fn bits_read_back_as_appended() {
        let mut bits = Bits::default();
        for (round, len) in [0usize, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 1000]
            .into_iter()
            .enumerate()
        {
            let want: Vec<bool> = (0..len).map(|i| (i * 7 + round) % 3 == 0).collect();
            for &b in &want {
                bits.append(b);
            }
            let next = if round % 2 == 0 {
                Next::Like
            } else {
                Next::Keep
            };
            let got = bits.finish(next);
            assert_eq!(got.len(), len);
            assert_eq!(got.iter().collect::<Vec<_>>(), want, "{len} bits");
        }
    }

    /// After a full batch the builder has room for one an eighth bigger; after a short one it
    /// keeps what it grew to. Either way it is empty and the values go out whole.
    #[test]
    fn flushed_builders_are_sized_for_the_next_batch() {
        let mut v: Vec<u8> = Vec::with_capacity(100);
        v.extend(0..80);
        let out = Next::Like.take(&mut v);
        assert_eq!(out, (0..80).collect::<Vec<u8>>());
        assert!(v.is_empty());
        assert!(v.capacity() >= 90, "{}", v.capacity());
        assert!(v.capacity() < 100, "{}", v.capacity());

        v.extend(0..5);
        let out = Next::Keep.take(&mut v);
        assert_eq!(out.len(), 5);
        assert!(v.is_empty());
        assert!(v.capacity() >= 90, "{}", v.capacity());

        let mut empty: Vec<i64> = Vec::new();
        assert!(Next::Like.take(&mut empty).is_empty());
        assert_eq!(empty.capacity(), 0);
    }
}
