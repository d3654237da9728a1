//! Serializers of compound values: arrays, maps, records and byte sequences.

use std::mem;

use ::serde::ser::{self, Serialize};

use super::keys::{ByteSer, IntCapture, KeyCapture, KeySer};
use super::node::{logical_end, NodeSer};
use super::plan::{PlanInner, SField, SNode, SRecord};
use super::State;
use crate::error::{Error, Result};
use crate::io::Sink;
use crate::serde::logical::Logical;

/// Serializers of sequences and tuples: arrays, bytes written as `u8`s (or to a fixed), and
/// records written from tuples. Structs and maps have types of their own ([`StructSer`],
/// [`MapLike`]), and so does the announced array ([`SeqSer`]): their elements, the commonest
/// calls of all, then match two cases rather than every kind of compound.
pub(crate) enum Compound<'a, S: Sink> {
    Array(ArraySer<'a, S>),
    Record(RecordSer<'a, S>),
    Bytes(BytesSer<'a, S>),
}

pub(crate) struct ArraySer<'a, S: Sink> {
    pub(super) st: &'a mut State<S>,
    pub(super) plan: &'a PlanInner,
    pub(super) item: &'a SNode,
    pub(super) expected: usize,
    pub(super) count: usize,
    /// Items of an array of unknown length, counted and written at the end.
    pub(super) buf: Option<Box<State<Vec<u8>>>>,
}

impl<S: Sink> ArraySer<'_, S> {
    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let i = self.count;
        self.count += 1;
        let r = match &mut self.buf {
            None => {
                if i >= self.expected {
                    return Err(Error::data(format!(
                        "the sequence has more items than the {} it announced",
                        self.expected
                    )));
                }
                self.st.enc.start_item()?;
                value.serialize(NodeSer {
                    st: self.st,
                    plan: self.plan,
                    node: self.item,
                })
            }
            Some(b) => value.serialize(NodeSer {
                st: b,
                plan: self.plan,
                node: self.item,
            }),
        };
        r.map_err(|e| e.in_index(i as u64))
    }

    #[inline]
    fn end(self) -> Result<()> {
        end_block(self.st, self.buf, self.count, self.expected, |n, c| {
            Error::data(format!("the sequence announced {n} items and had {c}"))
        })
    }
}

pub(crate) struct MapSer<'a, S: Sink> {
    pub(super) st: &'a mut State<S>,
    pub(super) plan: &'a PlanInner,
    pub(super) values: &'a SNode,
    pub(super) expected: usize,
    pub(super) count: usize,
    pub(super) buf: Option<Box<State<Vec<u8>>>>,
}

impl<S: Sink> MapSer<'_, S> {
    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.count += 1;
        match &mut self.buf {
            None => {
                if self.count > self.expected {
                    return Err(Error::data(format!(
                        "the map has more entries than the {} it announced",
                        self.expected
                    )));
                }
                self.st.enc.start_item()?;
                key.serialize(KeySer {
                    enc: &mut self.st.enc,
                })
            }
            Some(b) => key.serialize(KeySer { enc: &mut b.enc }),
        }
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let r = match &mut self.buf {
            None => value.serialize(NodeSer {
                st: self.st,
                plan: self.plan,
                node: self.values,
            }),
            Some(b) => value.serialize(NodeSer {
                st: b,
                plan: self.plan,
                node: self.values,
            }),
        };
        r.map_err(|e| e.in_index(self.count.saturating_sub(1) as u64))
    }

    fn field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result<()> {
        self.key(name)?;
        self.value(value).map_err(|e| e.in_key(name))
    }

    #[inline]
    fn end(self) -> Result<()> {
        end_block(self.st, self.buf, self.count, self.expected, |n, c| {
            Error::data(format!("the map announced {n} entries and had {c}"))
        })
    }
}

/// Ends an array or a map: checks that the `count` items are the `expected` ones announced
/// up front, or writes those buffered in `buf` (no length announced) as one block.
#[inline]
fn end_block<S: Sink>(
    st: &mut State<S>,
    buf: Option<Box<State<Vec<u8>>>>,
    count: usize,
    expected: usize,
    too_few: fn(usize, usize) -> Error,
) -> Result<()> {
    match buf {
        None => {
            if count != expected {
                return Err(too_few(expected, count));
            }
            // Arrays and maps end alike.
            st.enc.write_array_end()?;
        }
        Some(b) => write_buffered(st, *b, count)?,
    }
    st.leave();
    Ok(())
}

/// Writes an array or a map whose length was not known up front: its `count` items, buffered in
/// `sub`, as one block. Arrays and maps are framed alike.
#[inline(never)]
fn write_buffered<S: Sink>(st: &mut State<S>, sub: State<Vec<u8>>, count: usize) -> Result<()> {
    let buf = st.join(sub);
    st.enc.write_array_start(count)?;
    if count > 0 {
        st.enc.start_item()?;
        st.enc.write_raw(&buf)?;
    }
    st.enc.write_array_end()?;
    st.recycle(buf);
    Ok(())
}

/// A record. Fields that come in schema order are written straight through; a field that comes
/// early is encoded into a pooled buffer and copied out once the fields before it are written.
/// Fields the Rust value lacks are written from the schema's defaults.
pub(crate) struct RecordSer<'a, S: Sink> {
    pub(super) st: &'a mut State<S>,
    pub(super) plan: &'a PlanInner,
    pub(super) rec: &'a SRecord,
    /// The next field to write, in schema order.
    pub(super) next: usize,
    /// Fields encoded ahead of their turn: (position, bytes).
    pub(super) pending: Vec<(u32, Vec<u8>)>,
}

impl<S: Sink> RecordSer<'_, S> {
    /// A field of a struct: its key is a constant, matched by address once seen (see
    /// [`SField::is_key`]).
    #[inline(always)]
    fn struct_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        match self.rec.fields.get(self.next) {
            Some(f) if f.is_key(key) => self.in_order(f, value),
            _ => self.field_out_of_order(key, value),
        }
    }

    /// A field named by a map key.
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        match self.rec.fields.get(self.next) {
            Some(f) if *f.name == *key => self.in_order(f, value),
            _ => self.field_out_of_order(key, value),
        }
    }

    /// Writes the field whose turn it is.
    #[inline(always)]
    fn in_order<T: Serialize + ?Sized>(&mut self, f: &SField, value: &T) -> Result<()> {
        value
            .serialize(NodeSer::at(self.st, self.plan, f.node))
            .map_err(|e| e.in_field(f.name.to_string()))?;
        self.next += 1;
        if !self.pending.is_empty() {
            self.drain_pending()?;
        }
        Ok(())
    }

    /// The `i`th field, for tuples written as records.
    #[inline]
    fn positional<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let Some(f) = self.rec.fields.get(self.next) else {
            return Err(Error::data(format!(
                "record {} has {} fields, the tuple has more",
                self.rec.fullname,
                self.rec.fields.len()
            )));
        };
        value
            .serialize(NodeSer::at(self.st, self.plan, f.node))
            .map_err(|e| e.in_field(f.name.to_string()))?;
        self.next += 1;
        Ok(())
    }

    #[inline(never)]
    fn field_out_of_order<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        let Ok(k) = self.rec.by_name.binary_search_by(|(n, _)| (**n).cmp(key)) else {
            return Err(Error::data(format!(
                "record {} has no field {key:?}",
                self.rec.fullname
            )));
        };
        let pos = self.rec.by_name[k].1;
        if (pos as usize) < self.next || self.pending.iter().any(|p| p.0 == pos) {
            return Err(Error::data(format!("field {key:?} written twice")));
        }
        if self.pending.capacity() == 0 {
            self.pending = self.st.pending_pool.pop().unwrap_or_default();
        }
        let f = &self.rec.fields[pos as usize];
        let mut sub = self.st.sub();
        let r = value.serialize(NodeSer::at(&mut sub, self.plan, f.node));
        let buf = self.st.join(sub);
        r.map_err(|e| e.in_field(f.name.to_string()))?;
        self.pending.push((pos, buf));
        Ok(())
    }

    /// Writes the pending fields whose turn has come.
    fn drain_pending(&mut self) -> Result<()> {
        while let Some(k) = self.pending.iter().position(|p| p.0 as usize == self.next) {
            let (_, buf) = self.pending.swap_remove(k);
            self.st.enc.write_raw(&buf)?;
            self.st.recycle(buf);
            self.next += 1;
        }
        Ok(())
    }

    /// Ends the record: nothing to do but leave it when every field came in order.
    #[inline(always)]
    fn end(self) -> Result<()> {
        if self.next == self.rec.fields.len() && self.pending.capacity() == 0 {
            self.st.leave();
            return Ok(());
        }
        self.end_with_rest()
    }

    /// Ends a record whose fields came out of order or not at all: the pending ones, then
    /// the defaults of those missing.
    #[inline(never)]
    fn end_with_rest(mut self) -> Result<()> {
        while self.next < self.rec.fields.len() {
            self.drain_pending()?;
            let Some(f) = self.rec.fields.get(self.next) else {
                break;
            };
            match &f.default {
                Some(d) => self.st.enc.write_raw(d)?,
                None => {
                    return Err(Error::data(format!(
                        "field {:?} of record {} is missing and has no default",
                        f.name, self.rec.fullname
                    )))
                }
            }
            self.next += 1;
        }
        if self.pending.capacity() > 0 {
            let p = mem::take(&mut self.pending);
            self.st.pending_pool.push(p);
        }
        self.st.leave();
        Ok(())
    }
}

/// Bytes written as a sequence of `u8` (a `Vec<u8>` without `serde_bytes`, a `[u8; N]`).
pub(crate) struct BytesSer<'a, S: Sink> {
    pub(super) st: &'a mut State<S>,
    pub(super) expected: usize,
    pub(super) count: usize,
    /// Bytes of a sequence of unknown length, or of one written to a node with a logical type.
    pub(super) buf: Option<Vec<u8>>,
    /// The node written: `bytes`, a `fixed`, or one with a logical type (then the elements are
    /// collected in `buf` and converted at the end: a `time` tuple's numbers as little-endian
    /// `i64`s, else bytes).
    pub(super) node: &'a SNode,
}

impl<S: Sink> BytesSer<'_, S> {
    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        match &mut self.buf {
            None => {
                let b = value.serialize(ByteSer)?;
                if self.count <= self.expected {
                    self.st.enc.sink_mut().write_byte(b)
                } else {
                    Err(Error::data(format!(
                        "{} bytes announced, more written",
                        self.expected
                    )))
                }
            }
            Some(buf) => match self.node {
                SNode::Logical(l) if matches!(**l, Logical::Temporal(_)) => {
                    let v = value.serialize(IntCapture)?;
                    buf.extend_from_slice(&v.to_le_bytes());
                    Ok(())
                }
                _ => {
                    buf.push(value.serialize(ByteSer)?);
                    Ok(())
                }
            },
        }
    }

    fn end(self) -> Result<()> {
        match self.buf {
            Some(buf) => {
                let r = match self.node {
                    SNode::Logical(l) => logical_end(&mut self.st.enc, self.node, **l, &buf),
                    _ => self.st.enc.write_bytes(&buf),
                };
                self.st.recycle(buf);
                r
            }
            None if self.count == self.expected => Ok(()),
            None if !matches!(self.node, SNode::Bytes) => Err(Error::data(format!(
                "fixed({}) needs {} bytes, the value has {}",
                self.expected, self.expected, self.count
            ))),
            None => Err(Error::data(format!(
                "{} bytes announced, {} written",
                self.expected, self.count
            ))),
        }
    }
}

macro_rules! compound_impl {
    ($trait:ident, $method:ident) => {
        impl<S: Sink> ser::$trait for Compound<'_, S> {
            type Ok = ();
            type Error = Error;

            #[inline]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                match self {
                    Compound::Array(a) => a.element(value),
                    Compound::Bytes(b) => b.element(value),
                    Compound::Record(r) => r.positional(value),
                }
            }

            #[inline]
            fn end(self) -> Result<()> {
                self.finish()
            }
        }
    };
}

/// The serializer of a sequence: an array of announced length, the commonest, apart from the
/// rest (bytes as `u8`s, fixed, unknown lengths), so that its items and end match two cases.
pub(crate) enum SeqSer<'a, S: Sink> {
    Array(ArraySer<'a, S>),
    Other(Compound<'a, S>),
}

impl<S: Sink> ser::SerializeSeq for SeqSer<'_, S> {
    type Ok = ();
    type Error = Error;

    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            SeqSer::Array(a) => a.element(value),
            SeqSer::Other(c) => ser::SerializeSeq::serialize_element(c, value),
        }
    }

    #[inline(always)]
    fn end(self) -> Result<()> {
        match self {
            SeqSer::Array(a) => a.end(),
            SeqSer::Other(c) => c.finish(),
        }
    }
}

compound_impl!(SerializeSeq, serialize_element);
compound_impl!(SerializeTuple, serialize_element);
compound_impl!(SerializeTupleStruct, serialize_field);
compound_impl!(SerializeTupleVariant, serialize_field);

/// The serializer of a struct: into a record (field by field, in schema order where it can)
/// or into a map (a key per field). Apart from [`Compound`], so that a struct's fields and
/// end, the commonest calls of all, match two cases rather than every kind of compound.
pub(crate) enum StructSer<'a, S: Sink> {
    Record(RecordSer<'a, S>),
    Map(MapSer<'a, S>),
}

macro_rules! struct_impl {
    ($trait:ident) => {
        impl<S: Sink> ser::$trait for StructSer<'_, S> {
            type Ok = ();
            type Error = Error;

            // Always inlined into the struct's `Serialize`: a call per field cost about 25
            // instructions of register saves and restores, as much as writing the field.
            #[inline(always)]
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                match self {
                    StructSer::Record(r) => r.struct_field(key, value),
                    StructSer::Map(m) => m.field(key, value),
                }
            }

            #[inline]
            fn end(self) -> Result<()> {
                match self {
                    StructSer::Record(r) => r.end(),
                    StructSer::Map(m) => m.end(),
                }
            }
        }
    };
}

struct_impl!(SerializeStruct);
struct_impl!(SerializeStructVariant);

impl<S: Sink> Compound<'_, S> {
    #[inline(always)]
    fn finish(self) -> Result<()> {
        match self {
            Compound::Array(a) => a.end(),
            Compound::Bytes(b) => b.end(),
            Compound::Record(r) => r.end(),
        }
    }
}

/// The serializer of a map: into an Avro map, or into a record whose fields the keys name.
pub(crate) enum MapLike<'a, S: Sink> {
    Map(MapSer<'a, S>),
    Record(RecordSer<'a, S>),
}

impl<S: Sink> ser::SerializeMap for MapLike<'_, S> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        match self {
            MapLike::Map(m) => m.key(key),
            MapLike::Record(r) => {
                // The key names a field: capture it for `serialize_value`.
                let mut k = mem::take(&mut r.st.key);
                k.clear();
                let res = key.serialize(KeyCapture { out: &mut k });
                r.st.key = k;
                res
            }
        }
    }

    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            MapLike::Map(m) => m.value(value),
            MapLike::Record(r) => {
                let k = mem::take(&mut r.st.key);
                let res = r.field(&k, value);
                r.st.key = k;
                res
            }
        }
    }

    #[inline]
    fn end(self) -> Result<()> {
        match self {
            MapLike::Map(m) => m.end(),
            MapLike::Record(r) => r.end(),
        }
    }
}
