//! The serde `Serializer` of one value at one schema node.

use std::mem;

use ::serde::ser::{self, Serialize};

use super::compound::{
    ArraySer, BytesSer, Compound, MapLike, MapSer, RecordSer, SeqSer, StructSer,
};
use super::plan::{
    mismatch, no_branch, out_of_range, Kind, PlanInner, SEnum, SNode, SRecord, SUnion,
};
use super::State;
use crate::encode::Encoder;
use crate::error::{Error, Result};
use crate::io::Sink;
use crate::logical::{big_decimal, decimal};
use crate::serde::logical::{check_decimal, format_uuid, parse_uuid, Logical, Temporal, Text};

/// The serde `Serializer` for one value at one schema node.
pub(super) struct NodeSer<'a, S: Sink> {
    pub(super) st: &'a mut State<S>,
    pub(super) plan: &'a PlanInner,
    pub(super) node: &'a SNode,
}

impl<'a, S: Sink> NodeSer<'a, S> {
    #[inline(always)]
    pub(super) fn at(st: &'a mut State<S>, plan: &'a PlanInner, node: u32) -> NodeSer<'a, S> {
        NodeSer {
            st,
            plan,
            node: &plan.nodes[node as usize],
        }
    }

    /// Writes the union branch index and moves to the branch.
    #[inline(always)]
    fn branch(self, u: &SUnion, b: u32) -> Result<NodeSer<'a, S>> {
        self.st.enc.write_union_index(b)?;
        Ok(NodeSer::at(self.st, self.plan, u.branches[b as usize]))
    }

    #[inline(always)]
    fn by_kind(self, u: &SUnion, kind: Kind, found: &str) -> Result<NodeSer<'a, S>> {
        match u.by_kind[kind as usize] {
            Some(b) => self.branch(u, b),
            None => Err(no_branch(found)),
        }
    }

    #[inline(always)]
    fn int(self, v: i64, kind: Kind) -> Result<()> {
        match self.node {
            SNode::Long => self.st.enc.write_long(v),
            SNode::Int => match i32::try_from(v) {
                Ok(v) => self.st.enc.write_int(v),
                Err(_) => Err(out_of_range(i128::from(v), self.node)),
            },
            SNode::Float => self.st.enc.write_float(v as f32),
            SNode::Double => self.st.enc.write_double(v as f64),
            SNode::Union(u) => self.int_union(u, v, kind),
            SNode::Logical(l) => self.logical_int(**l, v),
            n => Err(mismatch(n, "an integer")),
        }
    }

    /// An integer for a node with a logical type: the count of a date or time.
    #[inline(never)]
    fn logical_int(self, l: Logical, v: i64) -> Result<()> {
        match l {
            Logical::Temporal(t) => self.temporal(t, v),
            _ => Err(mismatch(self.node, "an integer")),
        }
    }

    /// Writes the count of a date or time.
    fn temporal(self, t: Temporal, v: i64) -> Result<()> {
        write_temporal(&mut self.st.enc, self.node, t, v)
    }

    /// Text for a node with a logical type: a date or time, or a uuid for a fixed.
    #[inline(never)]
    fn logical_str(self, l: Logical, v: &str) -> Result<()> {
        match l {
            Logical::Temporal(t) => {
                let n = t.parse(v)?;
                self.temporal(t, n)
            }
            Logical::UuidString => self.st.enc.write_string(v),
            Logical::UuidFixed => match parse_uuid(v) {
                Some(u) => self.st.enc.write_fixed(&u),
                None => Err(Error::data(format!("{v:?} is not a UUID"))),
            },
            Logical::Decimal {
                precision,
                scale,
                fixed,
            } => {
                let b = decimal::text_to_unscaled(v, scale)?;
                write_decimal(&mut self.st.enc, &b, precision, fixed)
            }
            Logical::BigDecimal => {
                let d: crate::logical::Decimal = v.parse()?;
                self.st.enc.write_bytes(&big_decimal::payload(&d)?)
            }
        }
    }

    /// A sequence for a node with a logical type: a `time` tuple, or bytes as `u8`s.
    #[inline(never)]
    fn logical_seq(self, l: Logical, len: Option<usize>) -> Result<Compound<'a, S>> {
        if l == Logical::UuidFixed {
            return self.bytes_seq(len, Some(16));
        }
        // Collected (as `u8`s, or numbers as little-endian `i64`s), converted at the end.
        let buf = self.st.pool.pop().unwrap_or_default();
        Ok(Compound::Bytes(BytesSer {
            st: self.st,
            expected: 0,
            count: 0,
            buf: Some(buf),
            node: self.node,
        }))
    }

    /// Bytes for a node with a logical type: a uuid's 16 bytes, a decimal's unscaled integer.
    #[inline(never)]
    fn logical_bytes(self, l: Logical, v: &[u8]) -> Result<()> {
        match l {
            Logical::UuidString => match <&[u8; 16]>::try_from(v) {
                Ok(u) => {
                    let mut t = Text::new();
                    format_uuid(u, &mut t);
                    self.st.enc.write_string(t.as_str())
                }
                Err(_) => match simdutf8::basic::from_utf8(v) {
                    Ok(s) => self.st.enc.write_string(s),
                    Err(_) => Err(Error::data(
                        "a uuid is written from 16 bytes or from its text form",
                    )),
                },
            },
            Logical::UuidFixed if v.len() == 16 => self.st.enc.write_fixed(v),
            Logical::UuidFixed => Err(Error::data(format!(
                "a fixed uuid needs 16 bytes, the value has {}",
                v.len()
            ))),
            Logical::Decimal {
                precision, fixed, ..
            } => write_decimal(&mut self.st.enc, v, precision, fixed),
            Logical::BigDecimal => self.st.enc.write_bytes(v),
            Logical::Temporal(_) => Err(mismatch(self.node, "bytes")),
        }
    }

    // The union arms live in functions that are never inlined: that keeps the scalar paths
    // free of recursion, so they inline into the caller's loop (a `Vec<f32>` wrote 1.7x slower
    // with the recursive call in place).
    #[inline(never)]
    fn int_union(self, u: &SUnion, v: i64, kind: Kind) -> Result<()> {
        self.by_kind(u, kind, "an integer")?.int(v, kind)
    }

    #[inline(never)]
    fn double_union(self, u: &SUnion, v: f64, kind: Kind) -> Result<()> {
        self.by_kind(u, kind, "a float")?.double(v, kind)
    }

    #[inline(never)]
    fn f32_union(self, u: &SUnion, v: f32) -> Result<()> {
        ser::Serializer::serialize_f32(self.by_kind(u, Kind::Float, "a float")?, v)
    }

    #[inline(never)]
    fn bool_union(self, u: &SUnion, v: bool) -> Result<()> {
        ser::Serializer::serialize_bool(self.by_kind(u, Kind::Bool, "a bool")?, v)
    }

    #[inline(never)]
    fn str_union(self, u: &SUnion, v: &str) -> Result<()> {
        ser::Serializer::serialize_str(self.by_kind(u, Kind::Str, "a string")?, v)
    }

    #[inline(always)]
    fn double(self, v: f64, kind: Kind) -> Result<()> {
        match self.node {
            SNode::Double => self.st.enc.write_double(v),
            // An `f64` written as a `float` is rounded, as the schema asks.
            SNode::Float => self.st.enc.write_float(v as f32),
            SNode::Union(u) => self.double_union(u, v, kind),
            n => Err(mismatch(n, "a floating-point number")),
        }
    }

    fn symbol(&mut self, e: &SEnum, hint: u32, name: &str) -> Result<()> {
        // The Rust enum usually lists its variants in the schema's symbol order.
        let i = match e.symbols.get(hint as usize) {
            Some(s) if &**s == name => hint,
            _ => match e.symbols.iter().position(|s| &**s == name) {
                Some(i) => i as u32,
                None => {
                    return Err(Error::data(format!(
                        "{name:?} is not a symbol of enum {}",
                        e.name
                    )))
                }
            },
        };
        self.st.enc.write_enum(i)
    }

    /// A union branch for a struct, map or tuple named `name` with `len` fields.
    fn record_branch(u: &SUnion, name: &str, len: Option<usize>) -> Option<u32> {
        if let Some(&(b, _, _)) = u.records.iter().find(|(_, n, _)| &**n == name) {
            return Some(b);
        }
        if u.records.len() == 1 {
            return Some(u.records[0].0);
        }
        let len = len?;
        let mut same = u.records.iter().filter(|r| r.2 == len);
        match (same.next(), same.next()) {
            (Some(r), None) => Some(r.0),
            _ => None,
        }
    }

    #[inline(always)]
    fn record(self, r: &'a SRecord) -> Result<RecordSer<'a, S>> {
        self.st.enter()?;
        Ok(RecordSer {
            st: self.st,
            plan: self.plan,
            rec: r,
            next: 0,
            pending: Vec::new(),
        })
    }

    fn array(self, item: u32, len: Option<usize>) -> Result<Compound<'a, S>> {
        match len {
            Some(n) => Ok(Compound::Array(self.array_of(item, n)?)),
            None => {
                self.st.enter()?;
                let item = &self.plan.nodes[item as usize];
                let sub = self.st.sub();
                Ok(Compound::Array(ArraySer {
                    st: self.st,
                    plan: self.plan,
                    item,
                    expected: 0,
                    count: 0,
                    buf: Some(Box::new(sub)),
                }))
            }
        }
    }

    /// An array of `n` items, announced up front.
    #[inline(always)]
    fn array_of(self, item: u32, n: usize) -> Result<ArraySer<'a, S>> {
        self.st.enter()?;
        let item = &self.plan.nodes[item as usize];
        self.st.enc.write_array_start(n)?;
        // Fixed-width items: one reservation for the whole array.
        let width = match item {
            SNode::Float => 4,
            SNode::Double => 8,
            SNode::Boolean => 1,
            _ => 0,
        };
        if width > 0 {
            self.st.enc.sink_mut().reserve(n.saturating_mul(width));
        }
        Ok(ArraySer {
            st: self.st,
            plan: self.plan,
            item,
            expected: n,
            count: 0,
            buf: None,
        })
    }

    fn map_ser(self, values: u32, len: Option<usize>) -> Result<MapSer<'a, S>> {
        self.st.enter()?;
        let values = &self.plan.nodes[values as usize];
        let buf = match len {
            Some(n) => {
                self.st.enc.write_map_start(n)?;
                None
            }
            None => Some(Box::new(self.st.sub())),
        };
        Ok(MapSer {
            st: self.st,
            plan: self.plan,
            values,
            expected: len.unwrap_or(0),
            count: 0,
            buf,
        })
    }

    fn bytes_seq(self, len: Option<usize>, fixed: Option<usize>) -> Result<Compound<'a, S>> {
        match (fixed, len) {
            (Some(size), Some(n)) if n != size => Err(Error::data(format!(
                "fixed({size}) needs {size} bytes, the value has {n}"
            ))),
            (Some(size), _) => Ok(Compound::Bytes(BytesSer {
                st: self.st,
                expected: size,
                count: 0,
                buf: None,
                node: self.node,
            })),
            (None, Some(n)) => {
                self.st.enc.write_long(n as i64)?;
                self.st.enc.sink_mut().reserve(n);
                Ok(Compound::Bytes(BytesSer {
                    st: self.st,
                    expected: n,
                    count: 0,
                    buf: None,
                    node: self.node,
                }))
            }
            (None, None) => {
                let buf = self.st.pool.pop().unwrap_or_default();
                Ok(Compound::Bytes(BytesSer {
                    st: self.st,
                    expected: 0,
                    count: 0,
                    buf: Some(buf),
                    node: self.node,
                }))
            }
        }
    }

    /// A map written to anything but an Avro map: a record, or a union's branch.
    #[inline(never)]
    fn map_elsewhere(self, len: Option<usize>) -> Result<MapLike<'a, S>> {
        match self.node {
            SNode::Map(values) => Ok(MapLike::Map(self.map_ser(*values, len)?)),
            SNode::Record(r) => Ok(MapLike::Record(self.record(r)?)),
            SNode::Union(u) => {
                ser::Serializer::serialize_map(self.by_kind(u, Kind::Map, "a map")?, len)
            }
            n => Err(mismatch(n, "a map")),
        }
    }

    /// A sequence of unknown length, or written to anything but an array: bytes, a fixed, a
    /// union's branch.
    #[inline(never)]
    fn seq_elsewhere(self, len: Option<usize>) -> Result<SeqSer<'a, S>> {
        Ok(SeqSer::Other(self.seq(len, false)?))
    }

    /// Text written to anything but a string: bytes, an enum symbol, a union's branch, a
    /// logical type.
    #[inline(never)]
    fn str_elsewhere(mut self, v: &str) -> Result<()> {
        match self.node {
            SNode::String | SNode::Bytes => self.st.enc.write_string(v),
            SNode::Enum(e) => self.symbol(e, 0, v),
            SNode::Union(u) => self.str_union(u, v),
            SNode::Logical(l) => self.logical_str(**l, v),
            n => Err(mismatch(n, "a string")),
        }
    }

    /// A struct written to anything but a record: a map, or a union's branch.
    #[inline(never)]
    fn struct_elsewhere(self, name: &'static str, len: usize) -> Result<StructSer<'a, S>> {
        match self.node {
            SNode::Record(r) => Ok(StructSer::Record(self.record(r)?)),
            SNode::Map(values) => Ok(StructSer::Map(self.map_ser(*values, Some(len))?)),
            SNode::Union(u) => match NodeSer::<S>::record_branch(u, name, Some(len)) {
                Some(b) => ser::Serializer::serialize_struct(self.branch(u, b)?, name, len),
                None => ser::Serializer::serialize_struct(
                    self.by_kind(u, Kind::Map, &format!("the struct {name}"))?,
                    name,
                    len,
                ),
            },
            n => Err(mismatch(n, &format!("the struct {name}"))),
        }
    }

    /// A sequence (or tuple) of `len` elements.
    fn seq(self, len: Option<usize>, tuple: bool) -> Result<Compound<'a, S>> {
        match self.node {
            SNode::Array(item) => self.array(*item, len),
            SNode::Bytes => self.bytes_seq(len, None),
            SNode::Fixed(size) => self.bytes_seq(len, Some(*size)),
            SNode::Logical(l) => self.logical_seq(**l, len),
            SNode::Record(r) if tuple => Ok(Compound::Record(self.record(r)?)),
            SNode::Union(u) => {
                if let Some(&(b, _)) = u.fixed.iter().find(|f| Some(f.1) == len) {
                    return self.branch(u, b)?.seq(len, tuple);
                }
                self.by_kind(u, Kind::Seq, "a sequence")?.seq(len, tuple)
            }
            n => Err(mismatch(n, "a sequence")),
        }
    }
}

impl<'a, S: Sink> ser::Serializer for NodeSer<'a, S> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'a, S>;
    type SerializeTuple = Compound<'a, S>;
    type SerializeTupleStruct = Compound<'a, S>;
    type SerializeTupleVariant = Compound<'a, S>;
    type SerializeMap = MapLike<'a, S>;
    type SerializeStruct = StructSer<'a, S>;
    type SerializeStructVariant = StructSer<'a, S>;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        match self.node {
            SNode::Boolean => self.st.enc.write_boolean(v),
            SNode::Union(u) => self.bool_union(u, v),
            n => Err(mismatch(n, "a bool")),
        }
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.int(i64::from(v), Kind::Int)
    }

    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.int(i64::from(v), Kind::Int)
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        match self.node {
            // The common case first, without the range check.
            SNode::Int => self.st.enc.write_int(v),
            _ => self.int(i64::from(v), Kind::Int),
        }
    }

    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.int(v, Kind::Long)
    }

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.int(i64::from(v), Kind::Int)
    }

    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.int(i64::from(v), Kind::Int)
    }

    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.int(i64::from(v), Kind::Long)
    }

    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        match i64::try_from(v) {
            Ok(v) => self.int(v, Kind::Long),
            Err(_) => Err(out_of_range(i128::from(v), self.node)),
        }
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        match self.node {
            SNode::Float => self.st.enc.write_float(v),
            SNode::Union(u) => self.f32_union(u, v),
            _ => self.double(f64::from(v), Kind::Float),
        }
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.double(v, Kind::Double)
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    // A string written to a string is inlined at every call; the rest is a call.
    #[inline(always)]
    fn serialize_str(self, v: &str) -> Result<()> {
        match self.node {
            SNode::String => self.st.enc.write_string(v),
            SNode::Union(u) => self.str_union(u, v),
            _ => self.str_elsewhere(v),
        }
    }

    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<()> {
        // Formatted into a buffer the serializer keeps, rather than a new `String` each time.
        use std::fmt::Write as _;
        let NodeSer { st, plan, node } = self;
        let mut text = mem::take(&mut st.text);
        text.clear();
        let r = match write!(text, "{value}") {
            Ok(()) => ser::Serializer::serialize_str(
                NodeSer {
                    st: &mut *st,
                    plan,
                    node,
                },
                &text,
            ),
            Err(_) => Err(Error::data("a value's Display implementation failed")),
        };
        st.text = text;
        r
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        match self.node {
            SNode::Bytes => self.st.enc.write_bytes(v),
            SNode::Fixed(size) if *size == v.len() => self.st.enc.write_fixed(v),
            SNode::Fixed(size) => Err(Error::data(format!(
                "fixed({size}) needs {size} bytes, the value has {}",
                v.len()
            ))),
            SNode::String => match simdutf8::basic::from_utf8(v) {
                Ok(s) => self.st.enc.write_string(s),
                Err(_) => Err(Error::data("bytes written as a string are not UTF-8")),
            },
            SNode::Union(u) => {
                if u.by_kind[Kind::Bytes as usize].is_none() {
                    if let Some(&(b, _)) = u.fixed.iter().find(|f| f.1 == v.len()) {
                        return self.branch(u, b)?.serialize_bytes(v);
                    }
                }
                self.by_kind(u, Kind::Bytes, "bytes")?.serialize_bytes(v)
            }
            SNode::Logical(l) => self.logical_bytes(**l, v),
            n => Err(mismatch(n, "bytes")),
        }
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        match self.node {
            SNode::Null => Ok(()),
            SNode::Union(u) => self.by_kind(u, Kind::Null, "None")?.serialize_unit(),
            n => Err(mismatch(n, "None")),
        }
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        // The union (if any) is chosen by the inner value's kind.
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        match self.node {
            SNode::Null => Ok(()),
            SNode::Record(r) if r.fields.is_empty() => Ok(()),
            SNode::Union(u) => self.by_kind(u, Kind::Null, "()")?.serialize_unit(),
            n => Err(mismatch(n, "()")),
        }
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        match self.node {
            SNode::Union(u) => match u.records.iter().find(|r| &*r.1 == name && r.2 == 0) {
                Some(&(b, _, _)) => self.branch(u, b)?.serialize_unit(),
                None => self.serialize_unit(),
            },
            _ => self.serialize_unit(),
        }
    }

    fn serialize_unit_variant(
        mut self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<()> {
        match self.node {
            SNode::Enum(e) => self.symbol(e, index, variant),
            SNode::String => self.st.enc.write_string(variant),
            SNode::Union(u) => {
                if let Some(b) = u.by_name(variant) {
                    return self.branch(u, b)?.serialize_unit();
                }
                let plan = self.plan;
                let has = |&&b: &&u32| match &plan.nodes[u.branches[b as usize] as usize] {
                    SNode::Enum(e) => e.symbols.iter().any(|s| &**s == variant),
                    _ => false,
                };
                match u.enums.iter().find(has) {
                    Some(&b) => self
                        .branch(u, b)?
                        .serialize_unit_variant(_name, index, variant),
                    None => self
                        .by_kind(u, Kind::Str, "an enum variant")?
                        .serialize_str(variant),
                }
            }
            n => Err(mismatch(n, "a unit variant")),
        }
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        match self.node {
            SNode::Union(u) => match u.by_name(variant) {
                Some(b) => value.serialize(self.branch(u, b)?),
                // No branch of that name: the inner value's kind chooses (`Sq(Square)` takes
                // the `Square` record branch).
                None => value.serialize(self),
            },
            n => Err(mismatch(n, "an enum variant with data")),
        }
    }

    // A sequence of known length written to an array is the common case: inlined, the rest
    // is a call.
    #[inline(always)]
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a, S>> {
        if let (SNode::Array(item), Some(n)) = (self.node, len) {
            return Ok(SeqSer::Array(self.array_of(*item, n)?));
        }
        self.seq_elsewhere(len)
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, S>> {
        self.seq(Some(len), true)
    }

    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, S>> {
        if let SNode::Union(u) = self.node {
            if let Some(b) = NodeSer::<S>::record_branch(u, name, Some(len)) {
                return self.branch(u, b)?.seq(Some(len), true);
            }
        }
        self.seq(Some(len), true)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, S>> {
        match self.node {
            SNode::Union(u) => match u.by_name(variant) {
                Some(b) => self.branch(u, b)?.seq(Some(len), true),
                None => Err(no_branch(&format!("the tuple variant {variant}"))),
            },
            n => Err(mismatch(n, "an enum variant with data")),
        }
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<MapLike<'a, S>> {
        if let SNode::Map(values) = self.node {
            return Ok(MapLike::Map(self.map_ser(*values, len)?));
        }
        self.map_elsewhere(len)
    }

    // A struct written to a record is the common case: it is inlined into the struct's
    // `Serialize`, the rest (maps, unions) is a call.
    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructSer<'a, S>> {
        if let SNode::Record(r) = self.node {
            return Ok(StructSer::Record(self.record(r)?));
        }
        self.struct_elsewhere(name, len)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<StructSer<'a, S>> {
        match self.node {
            SNode::Union(u) => match u.by_name(variant) {
                Some(b) => self.branch(u, b)?.serialize_struct(variant, len),
                None => Err(no_branch(&format!("the struct variant {variant}"))),
            },
            n => Err(mismatch(n, "an enum variant with data")),
        }
    }
}
/// Writes the count of a date or time as its wire type.
pub(super) fn write_temporal<S: Sink>(
    enc: &mut Encoder<S>,
    node: &SNode,
    t: Temporal,
    v: i64,
) -> Result<()> {
    if t.is_int() {
        match i32::try_from(v) {
            Ok(v) => enc.write_int(v),
            Err(_) => Err(out_of_range(i128::from(v), node)),
        }
    } else {
        enc.write_long(v)
    }
}

/// Writes a decimal's unscaled integer, checked against the precision: as `bytes`, or
/// sign-extended to a fixed of `fixed` bytes.
fn write_decimal<S: Sink>(
    enc: &mut Encoder<S>,
    v: &[u8],
    precision: u32,
    fixed: Option<u32>,
) -> Result<()> {
    match fixed {
        None => check_decimal(v, precision).and_then(|_| enc.write_bytes(v)),
        Some(size) => write_decimal_fixed(enc, v, precision, size as usize),
    }
}

/// Writes a decimal's unscaled integer sign-extended to a fixed of `size` bytes.
pub(super) fn write_decimal_fixed<S: Sink>(
    enc: &mut Encoder<S>,
    v: &[u8],
    precision: u32,
    size: usize,
) -> Result<()> {
    let w = decimal::to_write(v, Some(precision), Some(size))?;
    enc.write_fixed(w.as_slice())
}

/// Writes a value with a logical type given as a sequence: a `time` crate date or time (its
/// numbers as little-endian `i64`s in `buf`), or the bytes of a uuid or decimal.
#[inline(never)]
pub(super) fn logical_end<S: Sink>(
    enc: &mut Encoder<S>,
    node: &SNode,
    l: Logical,
    buf: &[u8],
) -> Result<()> {
    match l {
        Logical::Temporal(t) => {
            let n = buf.len() / 8;
            let mut parts = [0i64; 9];
            if n > parts.len() {
                return Err(Error::data(format!(
                    "{} cannot be written from a tuple of {n} numbers",
                    t.name()
                )));
            }
            for (p, c) in parts.iter_mut().zip(buf.chunks_exact(8)) {
                *p = i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            }
            let v = t.count_of_parts(&parts[..n])?;
            write_temporal(enc, node, t, v)
        }
        Logical::Decimal {
            precision, fixed, ..
        } => write_decimal(enc, buf, precision, fixed),
        Logical::BigDecimal => enc.write_bytes(buf),
        Logical::UuidString => match <&[u8; 16]>::try_from(buf) {
            Ok(u) => {
                let mut t = Text::new();
                format_uuid(u, &mut t);
                enc.write_string(t.as_str())
            }
            Err(_) => Err(Error::data(format!(
                "a uuid needs 16 bytes, the value has {}",
                buf.len()
            ))),
        },
        Logical::UuidFixed => Err(mismatch(node, "a sequence")),
    }
}
