//! The serde `Deserializer` of the value one plan op reads.

use ::serde::de::value::{
    BorrowedStrDeserializer, I64Deserializer, StrDeserializer, U32Deserializer,
};
use ::serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, Visitor};
use ::serde::forward_to_deserialize_any;

use super::access::{
    ArrayAccess, ByteSeq, FieldSeq, Fields, Items, MapAccess, Pending, RecordAccess,
};
use super::plan::DeInner;
use crate::decode::{Blocks, Decoder};
use crate::error::{Error, ErrorKind, Result};
use crate::io::{Reference, Source};
use crate::resolution::ops::{BytesOut, FixedOut, IntOut, LongOut, Op, OpId, RecordOp, StringOut};
use crate::schema::{NodeKind, Schema};
use crate::serde::logical::{format_uuid, Temporal, Text, Unit};
use crate::value::Value;

/// Deserializes one value produced by one op.
pub(super) struct OpDe<'a, 'de, S: Source<'de>> {
    pub(super) dec: &'a mut Decoder<'de, S>,
    pub(super) p: &'a DeInner,
    pub(super) op: OpId,
}

#[cold]
#[inline(never)]
pub(super) fn fail(op: &Op, at: u64) -> Error {
    match op {
        Op::Fail(f) => Error::at(ErrorKind::Resolution, f.message.to_string(), at),
        _ => Error::at(ErrorKind::Resolution, "internal: unfinished plan", at),
    }
}

#[cold]
#[inline(never)]
pub(super) fn bad_union_index(i: u32, n: usize, at: u64) -> Error {
    Error::at(
        ErrorKind::Data,
        format!("union index {i} out of range for a union of {n} branches"),
        at,
    )
}

#[cold]
#[inline(never)]
pub(super) fn wrong_shape(what: &str, at: u64) -> Error {
    Error::at(ErrorKind::Data, format!("the data holds {what}"), at)
}
/// The date or time a reader `int` or `long` op has, if any.
#[inline]
pub(super) fn temporal_of(op: &Op) -> Option<Temporal> {
    match op {
        Op::Int(out) => Temporal::of_int(*out),
        Op::Long(out) | Op::IntToLong(out) => Temporal::of_long(*out),
        _ => None,
    }
}

/// The date or time a default value has, if any.
pub(super) fn temporal_value(v: &Value) -> Option<(Temporal, i64)> {
    Some(match *v {
        Value::Date(v) => (Temporal::Date, v.into()),
        Value::TimeMillis(v) => (Temporal::Time(Unit::Millis), v.into()),
        Value::TimeMicros(v) => (Temporal::Time(Unit::Micros), v),
        Value::TimestampMillis(v) => (Temporal::Timestamp(Unit::Millis), v),
        Value::TimestampMicros(v) => (Temporal::Timestamp(Unit::Micros), v),
        Value::TimestampNanos(v) => (Temporal::Timestamp(Unit::Nanos), v),
        Value::LocalTimestampMillis(v) => (Temporal::Local(Unit::Millis), v),
        Value::LocalTimestampMicros(v) => (Temporal::Local(Unit::Micros), v),
        Value::LocalTimestampNanos(v) => (Temporal::Local(Unit::Nanos), v),
        _ => return None,
    })
}

/// A date or time as the text chrono parses.
pub(super) fn visit_temporal_str<'de, V: Visitor<'de>>(
    t: Temporal,
    v: i64,
    visitor: V,
) -> Result<V::Value> {
    let mut out = Text::new();
    t.format(v, &mut out)?;
    visitor.visit_str(out.as_str())
}

/// A date or time as the tuple of `len` components the `time` crate reads.
pub(super) fn visit_temporal_tuple<'de, V: Visitor<'de>>(
    t: Temporal,
    v: i64,
    len: usize,
    visitor: V,
) -> Result<V::Value> {
    match t.parts(v, len)? {
        Some((parts, n)) => visitor.visit_seq(Parts { parts, n, i: 0 }),
        None => Err(Error::data(format!(
            "a {} cannot be read as a tuple of {len}",
            t.name()
        ))),
    }
}

pub(super) fn visit_uuid_str<'de, V: Visitor<'de>>(u: &[u8; 16], visitor: V) -> Result<V::Value> {
    let mut out = Text::new();
    format_uuid(u, &mut out);
    visitor.visit_str(out.as_str())
}

/// The components of a date or time, as a sequence of integers.
pub(super) struct Parts {
    parts: [i64; 9],
    n: usize,
    i: usize,
}

impl<'de> de::SeqAccess<'de> for Parts {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.i >= self.n {
            return Ok(None);
        }
        let v = self.parts[self.i];
        self.i += 1;
        seed.deserialize(I64Deserializer::<Error>::new(v)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.n - self.i)
    }
}

impl<'a, 'de, S: Source<'de>> OpDe<'a, 'de, S> {
    #[inline(always)]
    pub(super) fn ops(&self) -> &'a [Op] {
        &self.p.ops
    }

    #[inline(always)]
    pub(super) fn with(self, op: OpId) -> Self {
        OpDe { op, ..self }
    }

    fn reader(&self) -> &'a Schema {
        &self.p.plan.inner().reader
    }

    /// Reads a writer union's index: the op of the branch.
    #[inline]
    pub(super) fn union_branch(&mut self, branches: &[OpId]) -> Result<OpId> {
        let at = self.dec.offset();
        let i = self.dec.read_union_index()?;
        match branches.get(i as usize) {
            Some(&b) => Ok(b),
            None => Err(bad_union_index(i, branches.len(), at)),
        }
    }

    fn record<V: Visitor<'de>>(self, rec: &'a RecordOp, visitor: V) -> Result<V::Value> {
        self.dec.enter()?;
        let names = match &self.reader().node(rec.reader).kind {
            NodeKind::Record(r) => Some(r),
            _ => None,
        };
        let mut access = RecordAccess {
            dec: self.dec,
            p: self.p,
            rec,
            reader: names,
            step: 0,
            default: 0,
            pending: Pending::None,
        };
        let v = visitor.visit_map(Fields(&mut access))?;
        // A visitor that stopped early (it never does for derived types) leaves fields unread.
        while de::MapAccess::next_key::<IgnoredAny>(&mut access)?.is_some() {
            de::MapAccess::next_value::<IgnoredAny>(&mut access)?;
        }
        access.dec.leave();
        Ok(v)
    }

    /// A record's values as a sequence, in the reader's field order (the caller has checked
    /// that the writer's order gives them so).
    fn record_seq<V: Visitor<'de>>(self, rec: &'a RecordOp, visitor: V) -> Result<V::Value> {
        self.dec.enter()?;
        let mut access = RecordAccess {
            dec: self.dec,
            p: self.p,
            rec,
            reader: None,
            step: 0,
            default: 0,
            pending: Pending::None,
        };
        let v = visitor.visit_seq(FieldSeq(&mut access))?;
        while de::SeqAccess::next_element::<IgnoredAny>(&mut access)?.is_some() {}
        access.dec.leave();
        Ok(v)
    }

    /// A string asked of anything but a string or a reader union's branch (both stay in
    /// `deserialize_str`): numbers and dates and times as text, a fixed uuid, a union's
    /// branch, bytes.
    #[inline(never)]
    fn str_other<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Int(IntOut::Int) | Op::Long(LongOut::Long) | Op::IntToLong(LongOut::Long) => {
                self.deserialize_any(visitor)
            }
            // Dates and times as text, a fixed uuid as text; unions to their branch.
            Op::Int(_)
            | Op::Long(_)
            | Op::IntToLong(_)
            | Op::Fixed {
                out: FixedOut::Uuid,
                ..
            }
            | Op::Union(_) => self.text(visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    fn array<V: Visitor<'de>>(self, item: OpId, zero: bool, visitor: V) -> Result<V::Value> {
        self.dec.enter()?;
        let mut access = ArrayAccess {
            dec: self.dec,
            p: self.p,
            item,
            zero,
            left: 0,
            blocks: Blocks::default(),
            done: false,
        };
        access.next_block()?;
        let v = visitor.visit_seq(Items(&mut access))?;
        while de::SeqAccess::next_element::<IgnoredAny>(&mut access)?.is_some() {}
        access.dec.leave();
        Ok(v)
    }

    fn bytes_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let op = &self.ops()[self.op as usize];
        let r = match op {
            Op::Bytes(_) | Op::String(_) => self.dec.read_bytes_ref()?,
            Op::Fixed { size, .. } => self.dec.read_fixed_ref(*size)?,
            _ => return self.deserialize_any(visitor),
        };
        let mut access = ByteSeq { bytes: &r, pos: 0 };
        visitor.visit_seq(&mut access)
    }
}

impl<'de, S: Source<'de>> de::Deserializer<'de> for OpDe<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let ops = self.ops();
        match &ops[self.op as usize] {
            Op::Null => visitor.visit_unit(),
            Op::Boolean => visitor.visit_bool(self.dec.read_boolean()?),
            Op::Int(_) => visitor.visit_i32(self.dec.read_int()?),
            Op::IntToLong(_) => visitor.visit_i64(i64::from(self.dec.read_int()?)),
            // `as` rounds to the nearest float, as Java's widening conversions do.
            Op::IntToFloat => visitor.visit_f32(self.dec.read_int()? as f32),
            Op::IntToDouble => visitor.visit_f64(f64::from(self.dec.read_int()?)),
            Op::Long(_) => visitor.visit_i64(self.dec.read_long()?),
            Op::LongToFloat => visitor.visit_f32(self.dec.read_long()? as f32),
            Op::LongToDouble => visitor.visit_f64(self.dec.read_long()? as f64),
            Op::Float => visitor.visit_f32(self.dec.read_float()?),
            Op::FloatToDouble => visitor.visit_f64(f64::from(self.dec.read_float()?)),
            Op::Double => visitor.visit_f64(self.dec.read_double()?),
            Op::Bytes(BytesOut::Bytes) => match self.dec.read_bytes_ref()? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
            // Decimals as their text: what `rust_decimal` and `bigdecimal` read. Their bytes
            // are what `deserialize_bytes` and sequences get.
            Op::Bytes(_)
            | Op::Fixed {
                out: FixedOut::Decimal(_),
                ..
            } => self.decimal_text(visitor),
            Op::String(_) => match self.dec.read_str_ref()? {
                Reference::Borrowed(s) => visitor.visit_borrowed_str(s),
                Reference::Copied(s) => visitor.visit_str(s),
            },
            Op::Fixed { size, .. } => match self.dec.read_fixed_ref(*size)? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
            Op::Enum(_) => {
                let sym = self.symbol()?;
                visitor.visit_str(sym)
            }
            Op::Array {
                item,
                zero_size_items,
            } => self.array(*item, *zero_size_items, visitor),
            Op::Map(values) => {
                self.dec.enter()?;
                let mut access = MapAccess {
                    dec: self.dec,
                    p: self.p,
                    values: *values,
                    left: 0,
                    blocks: Blocks::default(),
                    done: false,
                };
                access.next_block()?;
                let v = visitor.visit_map(&mut access)?;
                while de::MapAccess::next_key::<IgnoredAny>(&mut access)?.is_some() {
                    de::MapAccess::next_value::<IgnoredAny>(&mut access)?;
                }
                access.dec.leave();
                Ok(v)
            }
            Op::Record(rec) => self.record(rec, visitor),
            Op::Union(branches) => self.any_union(branches, visitor),
            Op::Wrap { op, .. } => self.with(*op).any_wrapped(visitor),
            op @ (Op::Fail(_) | Op::Pending) => Err(fail(op, self.dec.offset())),
        }
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let ops = self.ops();
        let is_null = |op: OpId| match &ops[op as usize] {
            Op::Null => true,
            Op::Wrap { op, .. } => matches!(ops[*op as usize], Op::Null),
            _ => false,
        };
        match &ops[self.op as usize] {
            Op::Union(branches) => {
                let b = self.union_branch(branches)?;
                if is_null(b) {
                    return visitor.visit_none();
                }
                self.dec.enter()?;
                let dec = &mut *self.dec;
                let v = visitor.visit_some(OpDe {
                    dec,
                    p: self.p,
                    op: b,
                })?;
                self.dec.leave();
                Ok(v)
            }
            _ if is_null(self.op) => visitor.visit_none(),
            // `Option<E>` of a Rust enum `E` whose branches, with `null`, make the reader's
            // union (`["null", "string", "long"]`): `E` picks its variant from the branch.
            Op::Wrap { .. } if self.wraps_flattened_union() => visitor.visit_some(self),
            Op::Wrap { op, .. } => visitor.visit_some(self.with(*op)),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let ops = self.ops();
        match &ops[self.op as usize] {
            // The Rust enum's variants are the symbols, in order: the variant by its index,
            // which a derived visitor takes without comparing names.
            Op::Enum(_) if self.p.names_in_order(self.op, variants) => {
                let i = self.symbol_index()?;
                visitor.visit_enum(U32Deserializer::<Error>::new(i))
            }
            Op::Enum(_) => {
                let sym = self.symbol()?;
                visitor.visit_enum(StrDeserializer::<Error>::new(sym))
            }
            Op::String(_) => match self.dec.read_str_ref()? {
                Reference::Borrowed(s) => visitor.visit_enum(BorrowedStrDeserializer::new(s)),
                Reference::Copied(s) => visitor.visit_enum(StrDeserializer::new(s)),
            },
            Op::Union(branches) => {
                let b = self.union_branch(branches)?;
                self.dec.enter()?;
                let dec = &mut *self.dec;
                let de = OpDe {
                    dec,
                    p: self.p,
                    op: b,
                };
                let v = match &ops[b as usize] {
                    // An enum or string branch is the Rust enum itself (`Option<Suit>`), unless
                    // the Rust enum has a variant named after the branch (a union's enum).
                    Op::Enum(_) | Op::String(_) | Op::Wrap { .. }
                        if !de.branch_names_a_variant(variants) =>
                    {
                        de.deserialize_enum(_name, variants, visitor)?
                    }
                    _ => de.variant(variants, visitor)?,
                };
                self.dec.leave();
                Ok(v)
            }
            // An Avro enum inside a reader union (`Option<Suit>` reading `["null", Suit]`).
            Op::Wrap { op, .. }
                if matches!(ops[*op as usize], Op::Enum(_))
                    && !self.branch_names_a_variant(variants) =>
            {
                let sym = self.with(*op).symbol()?;
                visitor.visit_enum(StrDeserializer::<Error>::new(sym))
            }
            Op::Wrap { .. } => self.variant(variants, visitor),
            _ => Err(wrong_shape(
                "no enum or union for a Rust enum",
                self.dec.offset(),
            )),
        }
    }

    // A string read as a string is inlined at every call, and only that: with the other
    // cases inlined too, serde's `String::deserialize` grew too large to inline into the
    // struct's visitor, a call per string field.
    #[inline(always)]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::String(_) => match self.dec.read_str_ref()? {
                Reference::Borrowed(s) => visitor.visit_borrowed_str(s),
                Reference::Copied(s) => visitor.visit_str(s),
            },
            // The string branch of a reader's union (an `Option<String>`).
            Op::Wrap { op, .. } => self.with(*op).str_wrapped(visitor),
            _ => self.str_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            // A uuid as its 16 bytes (what `uuid::Uuid` asks a binary format for).
            Op::String(StringOut::Uuid) => self.uuid_bytes(visitor),
            Op::String(_) | Op::Bytes(_) => match self.dec.read_bytes_ref()? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
            Op::Fixed { size, .. } => match self.dec.read_fixed_ref(*size)? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
            Op::Union(_) | Op::Wrap { .. } => {
                self.in_branch(visitor, |d, v| d.deserialize_bytes(v))
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Array {
                item,
                zero_size_items,
            } => self.array(*item, *zero_size_items, visitor),
            Op::Bytes(_) | Op::Fixed { .. } | Op::String(_) => self.bytes_seq(visitor),
            Op::Union(_) | Op::Wrap { .. } => self.in_branch(visitor, |d, v| d.deserialize_seq(v)),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Bytes(_) | Op::Fixed { .. } | Op::String(_) => self.bytes_seq(visitor),
            // A `time` crate date or time, as its components.
            Op::Int(out) if *out != IntOut::Int => self.temporal_tuple(len, visitor),
            Op::Long(out) | Op::IntToLong(out) if *out != LongOut::Long => {
                self.temporal_tuple(len, visitor)
            }
            Op::Union(_) | Op::Wrap { .. } => {
                self.in_branch(visitor, |d, v| d.deserialize_tuple(len, v))
            }
            Op::Record(rec) => {
                if !rec.swaps.is_empty() {
                    return Err(wrong_shape(
                        "a record whose fields the writer ordered differently, read as a tuple",
                        self.dec.offset(),
                    ));
                }
                self.record_seq(rec, visitor)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Record(_) => {
                self.deserialize_any(IgnoredAny)?;
                visitor.visit_unit()
            }
            _ => self.deserialize_any(visitor),
        }
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    // The primitives read their own op in place, and leave every other op (promotions,
    // unions, logical types) to `deserialize_any`, out of line: the per-item cost of a
    // `Vec<f32>` or a struct of numbers is one compare, the read and the visit.
    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Boolean => visitor.visit_bool(self.dec.read_boolean()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i32(visitor)
    }

    #[inline(always)]
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i32(visitor)
    }

    #[inline(always)]
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Int(_) => visitor.visit_i32(self.dec.read_int()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Long(_) => visitor.visit_i64(self.dec.read_long()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Float => visitor.visit_f32(self.dec.read_float()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Double => visitor.visit_f64(self.dec.read_double()?),
            _ => self.any_other(visitor),
        }
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            // The struct's fields are the record's, in its order: values as a sequence, which
            // a derived visitor takes without matching a key per field (about half the cost
            // of a six-field record, callgrind).
            Op::Record(rec) if self.p.names_in_order(self.op, fields) => {
                self.record_seq(rec, visitor)
            }
            Op::Record(rec) => self.record(rec, visitor),
            Op::Wrap { op, .. } if matches!(self.ops()[*op as usize], Op::Record(_)) => {
                let op = *op;
                self.with(op).deserialize_struct(name, fields, visitor)
            }
            _ => self.any_other(visitor),
        }
    }

    forward_to_deserialize_any! {
        i128 u8 u16 u32 u64 u128 char
        unit map identifier ignored_any
    }
}
