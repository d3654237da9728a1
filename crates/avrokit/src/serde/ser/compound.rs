//! Serializers of compound values: arrays, maps, records and byte sequences.

use std::mem;

use ::serde::ser::{self, Serialize};

use super::keys::{ByteSer, IntCapture, KeyCapture, KeySer};
use super::node::{logical_end, NodeSer};
use super::plan::{PlanInner, SNode, SRecord};
use super::State;
use crate::error::{Error, Result};
use crate::io::Sink;
use crate::serde::logical::Logical;

/// Serializers of compound values.
pub(crate) enum Compound<'a, S: Sink> {
    Array(BlockSer<'a, S>),
    Map(BlockSer<'a, S>),
    Record(RecordSer<'a, S>),
    Bytes(BytesSer<'a, S>),
}

/// What a [`Length`] counts, for its error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Items {
    Seq,
    Map,
    Bytes,
    Fixed,
}

/// The items of an array, map or byte sequence, counted against the length written before
/// them (`announced`), or only counted when none was: those items are buffered, and their
/// count written at the end.
#[derive(Clone, Copy, Debug)]
pub(super) struct Length {
    announced: Option<usize>,
    count: usize,
    of: Items,
}

impl Length {
    /// `n` items, announced before them.
    #[inline]
    pub(super) fn announced(n: usize, of: Items) -> Length {
        Length {
            announced: Some(n),
            count: 0,
            of,
        }
    }

    /// Items of a length not known yet.
    #[inline]
    pub(super) fn unknown(of: Items) -> Length {
        Length {
            announced: None,
            count: 0,
            of,
        }
    }

    /// Counts one more item and returns its index.
    ///
    /// # Errors
    /// When it is one more than announced.
    #[inline(always)]
    fn next(&mut self) -> Result<usize> {
        let i = self.count;
        self.count += 1;
        match self.announced {
            Some(n) if i >= n => Err(self.too_many(n)),
            _ => Ok(i),
        }
    }

    /// Checks, at the end, that as many items came as were announced.
    #[inline]
    fn check_end(&self) -> Result<()> {
        match self.announced {
            Some(n) if n != self.count => Err(self.too_few(n)),
            _ => Ok(()),
        }
    }

    #[cold]
    #[inline(never)]
    fn too_many(&self, n: usize) -> Error {
        Error::data(match self.of {
            Items::Seq => format!("the sequence has more items than the {n} it announced"),
            Items::Map => format!("the map has more entries than the {n} it announced"),
            Items::Bytes | Items::Fixed => format!("{n} bytes announced, more written"),
        })
    }

    #[cold]
    #[inline(never)]
    fn too_few(&self, n: usize) -> Error {
        let count = self.count;
        Error::data(match self.of {
            Items::Seq => format!("the sequence announced {n} items and had {count}"),
            Items::Map => format!("the map announced {n} entries and had {count}"),
            Items::Bytes => format!("{n} bytes announced, {count} written"),
            Items::Fixed => format!("fixed({n}) needs {n} bytes, the value has {count}"),
        })
    }
}

/// An array or a map, written in one block: after the count announced up front, the items
/// (map entries: key, then value) go straight through; with no length announced they are
/// buffered, and the count and the buffer written at the end. Arrays and maps are framed alike.
pub(crate) struct BlockSer<'a, S: Sink> {
    pub(super) st: &'a mut State<S>,
    pub(super) plan: &'a PlanInner,
    /// The node of the items (array) or values (map).
    pub(super) item: &'a SNode,
    pub(super) len: Length,
    /// The items of a collection of unknown length.
    pub(super) buf: Option<Box<State<Vec<u8>>>>,
}

impl<S: Sink> BlockSer<'_, S> {
    /// Writes an array item.
    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let i = self.len.next()?;
        if self.buf.is_none() {
            self.st.enc.start_item()?;
        }
        self.item(value).map_err(|e| e.in_index(i as u64))
    }

    /// Writes a map entry's key.
    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.len.next()?;
        match &mut self.buf {
            None => {
                self.st.enc.start_item()?;
                key.serialize(KeySer {
                    enc: &mut self.st.enc,
                })
            }
            Some(b) => key.serialize(KeySer { enc: &mut b.enc }),
        }
    }

    /// Writes a map entry's value.
    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let i = self.len.count.saturating_sub(1);
        self.item(value).map_err(|e| e.in_index(i as u64))
    }

    /// Writes a map entry whose key is a field name.
    fn field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result<()> {
        self.key(name)?;
        self.value(value).map_err(|e| e.in_key(name))
    }

    /// Writes an item (a map's value) where the items go.
    #[inline(always)]
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match &mut self.buf {
            None => value.serialize(NodeSer {
                st: self.st,
                plan: self.plan,
                node: self.item,
            }),
            Some(b) => value.serialize(NodeSer {
                st: b,
                plan: self.plan,
                node: self.item,
            }),
        }
    }

    fn end(self) -> Result<()> {
        match self.buf {
            None => {
                self.len.check_end()?;
                self.st.enc.write_array_end()?;
            }
            Some(b) => {
                let buf = self.st.join(*b);
                let count = self.len.count;
                self.st.enc.write_array_start(count)?;
                if count > 0 {
                    self.st.enc.start_item()?;
                    self.st.enc.write_raw(&buf)?;
                }
                self.st.enc.write_array_end()?;
                self.st.recycle(buf);
            }
        }
        self.st.leave();
        Ok(())
    }
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
    #[inline(always)]
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        if let Some(f) = self.rec.fields.get(self.next) {
            if &*f.name == key {
                value
                    .serialize(NodeSer::at(self.st, self.plan, f.node))
                    .map_err(|e| e.in_field(f.name.to_string()))?;
                self.next += 1;
                if !self.pending.is_empty() {
                    self.drain_pending()?;
                }
                return Ok(());
            }
        }
        self.field_out_of_order(key, value)
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

    fn end(mut self) -> Result<()> {
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
    pub(super) len: Length,
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
        match &mut self.buf {
            None => {
                let b = value.serialize(ByteSer)?;
                self.len.next()?;
                self.st.enc.sink_mut().write_byte(b)
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
            None => self.len.check_end(),
        }
    }
}

macro_rules! compound_impl {
    ($trait:ident, $method:ident $(, $key:ident)?) => {
        impl<S: Sink> ser::$trait for Compound<'_, S> {
            type Ok = ();
            type Error = Error;

            #[inline]
            fn $method<T: Serialize + ?Sized>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result<()> {
                match self {
                    Compound::Array(a) => a.element(value),
                    Compound::Bytes(b) => b.element(value),
                    Compound::Record(r) => {
                        compound_impl!(@record r, value $(, $key)?)
                    }
                    Compound::Map(m) => {
                        compound_impl!(@map m, value $(, $key)?)
                    }
                }
            }

            #[inline]
            fn end(self) -> Result<()> {
                self.finish()
            }
        }
    };
    (@record $r:ident, $value:ident, $key:ident) => { $r.field($key, $value) };
    (@record $r:ident, $value:ident) => { $r.positional($value) };
    (@map $m:ident, $value:ident, $key:ident) => { $m.field($key, $value) };
    (@map $m:ident, $value:ident) => {{
        let _ = $m;
        let _ = $value;
        Err(Error::data("a map cannot be written from a sequence"))
    }};
}

compound_impl!(SerializeSeq, serialize_element);
compound_impl!(SerializeTuple, serialize_element);
compound_impl!(SerializeTupleStruct, serialize_field);
compound_impl!(SerializeTupleVariant, serialize_field);
compound_impl!(SerializeStruct, serialize_field, key);
compound_impl!(SerializeStructVariant, serialize_field, key);

impl<S: Sink> Compound<'_, S> {
    #[inline]
    fn finish(self) -> Result<()> {
        match self {
            Compound::Array(a) => a.end(),
            Compound::Bytes(b) => b.end(),
            Compound::Record(r) => r.end(),
            Compound::Map(m) => m.end(),
        }
    }
}

impl<S: Sink> ser::SerializeMap for Compound<'_, S> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        match self {
            Compound::Map(m) => m.key(key),
            Compound::Record(r) => {
                // The key names a field: capture it for `serialize_value`.
                let mut k = mem::take(&mut r.st.key);
                k.clear();
                let res = key.serialize(KeyCapture { out: &mut k });
                r.st.key = k;
                res
            }
            _ => Err(Error::data("a map key inside a sequence")),
        }
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            Compound::Map(m) => m.value(value),
            Compound::Record(r) => {
                let k = mem::take(&mut r.st.key);
                let res = r.field(&k, value);
                r.st.key = k;
                res
            }
            _ => Err(Error::data("a map value inside a sequence")),
        }
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}
