//! Walking compound values for serde: a record's fields, an array's items and a map's entries,
//! block by block, and bytes read as a sequence of `u8`.

use ::serde::de::value::{BorrowedStrDeserializer, StrDeserializer, U8Deserializer};
use ::serde::de::{self, DeserializeSeed};

use super::op::{wrong_shape, OpDe};
use super::plan::DeInner;
use super::value::ValueDe;
use crate::decode::{Blocks, Decoder, ItemCost};
use crate::error::{Error, Result};
use crate::io::{Reference, Source};
use crate::resolution::ops::{skip, OpId, RecordOp, Step};
use crate::schema::NodeKind;

/// Which value the record access hands out next.
pub(super) enum Pending {
    None,
    /// Step `k` reads with op `op`.
    Read(usize, OpId),
    Default(usize),
}

/// A record's fields as a serde map (field name to value) or, for tuples, a sequence: the
/// writer's fields in writer order (writer-only fields skipped), then the reader-only fields'
/// defaults. Serde's derived `Deserialize` matches fields by name, so no reordering is needed.
pub(super) struct RecordAccess<'a, 'de, S: Source<'de>> {
    pub(super) dec: &'a mut Decoder<'de, S>,
    pub(super) p: &'a DeInner,
    pub(super) rec: &'a RecordOp,
    pub(super) reader: Option<&'a crate::schema::RecordSchema>,
    pub(super) step: usize,
    pub(super) default: usize,
    pub(super) pending: Pending,
}

impl<'a, 'de, S: Source<'de>> RecordAccess<'a, 'de, S> {
    /// Moves to the next field that has a value; false at the end.
    #[inline(always)]
    fn advance(&mut self) -> Result<bool> {
        // The common case, a field the writer wrote and the reader reads, stays inline.
        match self.rec.steps.get(self.step) {
            Some(Step::Read { op, .. }) => {
                self.pending = Pending::Read(self.step, *op);
                self.step += 1;
                Ok(true)
            }
            None if self.default >= self.rec.defaults.len() => Ok(false),
            _ => self.advance_slow(),
        }
    }

    /// Skips writer-only fields, then hands out the reader-only fields' defaults.
    #[inline(never)]
    fn advance_slow(&mut self) -> Result<bool> {
        let p = self.p.plan.inner();
        while let Some(step) = self.rec.steps.get(self.step) {
            let k = self.step;
            self.step += 1;
            match step {
                Step::Read { op, .. } => {
                    self.pending = Pending::Read(k, *op);
                    return Ok(true);
                }
                Step::Skip(s) => {
                    skip(self.dec, p, *s).map_err(|e| e.in_field(self.rec.names[k].to_string()))?
                }
            }
        }
        if self.default < self.rec.defaults.len() {
            self.pending = Pending::Default(self.default);
            self.default += 1;
            return Ok(true);
        }
        Ok(false)
    }

    fn name(&self) -> &'a str {
        match self.pending {
            Pending::Read(k, _) => &self.rec.names[k],
            Pending::Default(i) => {
                let pos = self.rec.defaults[i].pos as usize;
                self.reader
                    .and_then(|r| r.fields.get(pos))
                    .map_or("", |f| f.name.as_str())
            }
            Pending::None => "",
        }
    }

    #[inline(always)]
    fn value<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value> {
        match std::mem::replace(&mut self.pending, Pending::None) {
            Pending::Read(k, op) => match seed.deserialize(OpDe {
                dec: &mut *self.dec,
                p: self.p,
                op,
            }) {
                Ok(v) => Ok(v),
                Err(e) => Err(self.field_error(e, k)),
            },
            Pending::Default(i) => self.default_value(i, seed),
            Pending::None => Err(wrong_shape("no value here", self.dec.offset())),
        }
    }

    /// The error of step `k`'s field, with its name.
    #[cold]
    #[inline(never)]
    fn field_error(&self, e: Error, k: usize) -> Error {
        e.in_field(self.rec.names[k].to_string())
    }

    /// Reader-only field `i`'s default.
    #[inline(never)]
    fn default_value<T: DeserializeSeed<'de>>(&mut self, i: usize, seed: T) -> Result<T::Value> {
        let (pos, value) = (&self.rec.defaults[i].pos, &self.rec.defaults[i].value);
        let reader = &self.p.plan.inner().reader;
        let node = match &reader.node(self.rec.reader).kind {
            NodeKind::Record(r) => r.fields.get(*pos as usize).map(|f| f.schema),
            _ => None,
        };
        match node {
            Some(node) => seed.deserialize(ValueDe {
                v: value,
                schema: reader,
                node,
            }),
            None => Err(wrong_shape("no default here", self.dec.offset())),
        }
    }
}

impl<'de, S: Source<'de>> de::MapAccess<'de> for RecordAccess<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if !self.advance()? {
            return Ok(None);
        }
        seed.deserialize(StrDeserializer::<Error>::new(self.name()))
            .map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.value(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rec.len as usize)
    }
}

/// The visitor's handle on a [`RecordAccess`], by value, as [`Items`] for arrays: the
/// per-field `next_key` and `next_value` calls are inlined into the visitor.
pub(super) struct Fields<'x, 'a, 'de, S: Source<'de>>(pub(super) &'x mut RecordAccess<'a, 'de, S>);

impl<'de, S: Source<'de>> de::MapAccess<'de> for Fields<'_, '_, 'de, S> {
    type Error = Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        de::MapAccess::next_key_seed(&mut *self.0, seed)
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.0.value(seed)
    }

    #[inline(always)]
    fn next_key<K: de::Deserialize<'de>>(&mut self) -> Result<Option<K>> {
        de::MapAccess::next_key_seed(&mut *self.0, std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value<V: de::Deserialize<'de>>(&mut self) -> Result<V> {
        self.0.value(std::marker::PhantomData)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        de::MapAccess::size_hint(&*self.0)
    }
}

impl<'de, S: Source<'de>> de::SeqAccess<'de> for RecordAccess<'_, 'de, S> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if !self.advance()? {
            return Ok(None);
        }
        self.value(seed).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rec.len as usize)
    }
}

/// The visitor's handle on a [`RecordAccess`] read as a sequence (a struct whose fields are
/// the record's, in order), by value as [`Items`], so `next_element` inlines into the visitor.
pub(super) struct FieldSeq<'x, 'a, 'de, S: Source<'de>>(
    pub(super) &'x mut RecordAccess<'a, 'de, S>,
);

impl<'de, S: Source<'de>> de::SeqAccess<'de> for FieldSeq<'_, '_, 'de, S> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        de::SeqAccess::next_element_seed(&mut *self.0, seed)
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        de::SeqAccess::next_element_seed(&mut *self.0, std::marker::PhantomData)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        de::SeqAccess::size_hint(&*self.0)
    }
}

/// An array's items, block by block.
pub(super) struct ArrayAccess<'a, 'de, S: Source<'de>> {
    pub(super) dec: &'a mut Decoder<'de, S>,
    pub(super) p: &'a DeInner,
    pub(super) item: OpId,
    pub(super) zero: bool,
    /// Items left in this block.
    pub(super) left: u64,
    /// The blocks read so far.
    pub(super) blocks: Blocks,
    pub(super) done: bool,
}

impl<'de, S: Source<'de>> ArrayAccess<'_, 'de, S> {
    pub(super) fn next_block(&mut self) -> Result<()> {
        // The size of a Rust item is not known here: each counts as one byte of memory.
        let zero = self.zero;
        let n = self.dec.next_block(&mut self.blocks, || ItemCost {
            zero_size_mem: zero.then_some(1),
            mem: 1,
        })?;
        self.done = n == 0;
        self.left = n;
        Ok(())
    }

    /// At the end of a block: reads the next one; false at the end of the array.
    #[inline(never)]
    fn refill(&mut self) -> Result<bool> {
        if !self.done {
            self.next_block()?;
        }
        Ok(!self.done)
    }

    /// The error of the item just read, with its index.
    #[cold]
    #[inline(never)]
    fn item_error(&self, e: Error) -> Error {
        // `seen` is the items up to the end of this block, `left` those after this one.
        e.in_index(self.blocks.seen() - self.left - 1)
    }
}

impl<'de, S: Source<'de>> de::SeqAccess<'de> for ArrayAccess<'_, 'de, S> {
    type Error = Error;

    // Always inlined into the visitor's loop; block boundaries and errors are out of line.
    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 && !self.refill()? {
            return Ok(None);
        }
        self.left -= 1;
        match seed.deserialize(OpDe {
            dec: &mut *self.dec,
            p: self.p,
            op: self.item,
        }) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(self.item_error(e)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        // The first block's count: serde caps what it preallocates from a hint.
        usize::try_from(self.left).ok()
    }
}

/// The visitor's handle on an [`ArrayAccess`], by value: serde's `impl SeqAccess for &mut A`
/// is a call per item the optimizer does not always inline; here `next_element` itself is
/// inlined into the visitor's loop.
pub(super) struct Items<'x, 'a, 'de, S: Source<'de>>(pub(super) &'x mut ArrayAccess<'a, 'de, S>);

impl<'de, S: Source<'de>> de::SeqAccess<'de> for Items<'_, '_, 'de, S> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.0.next_element_seed(seed)
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.0.next_element_seed(std::marker::PhantomData)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        de::SeqAccess::size_hint(&*self.0)
    }
}

/// A map's entries, block by block; keys borrow from the input where they can.
pub(super) struct MapAccess<'a, 'de, S: Source<'de>> {
    pub(super) dec: &'a mut Decoder<'de, S>,
    pub(super) p: &'a DeInner,
    pub(super) values: OpId,
    /// Entries left in this block.
    pub(super) left: u64,
    /// The blocks read so far.
    pub(super) blocks: Blocks,
    pub(super) done: bool,
}

impl<'de, S: Source<'de>> MapAccess<'_, 'de, S> {
    pub(super) fn next_block(&mut self) -> Result<()> {
        // A key takes at least its length byte.
        let n = self.dec.next_block(&mut self.blocks, || ItemCost {
            zero_size_mem: None,
            mem: 1,
        })?;
        self.done = n == 0;
        self.left = n;
        Ok(())
    }
}

impl<'de, S: Source<'de>> de::MapAccess<'de> for MapAccess<'_, 'de, S> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            if self.done {
                return Ok(None);
            }
            self.next_block()?;
            if self.done {
                return Ok(None);
            }
        }
        self.left -= 1;
        let v = match self.dec.read_str_ref()? {
            Reference::Borrowed(s) => seed.deserialize(BorrowedStrDeserializer::<Error>::new(s)),
            Reference::Copied(s) => seed.deserialize(StrDeserializer::<Error>::new(s)),
        };
        v.map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        // The entry whose key was read last.
        let i = (self.blocks.seen() - self.left).saturating_sub(1);
        seed.deserialize(OpDe {
            dec: &mut *self.dec,
            p: self.p,
            op: self.values,
        })
        .map_err(|e| e.in_index(i))
    }

    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.left).ok()
    }
}

/// `bytes` or `fixed` read as a sequence of `u8` (a `Vec<u8>` without `serde_bytes`, a
/// `[u8; N]`).
pub(super) struct ByteSeq<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) pos: usize,
}

impl<'de> de::SeqAccess<'de> for ByteSeq<'_> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                seed.deserialize(U8Deserializer::<Error>::new(b)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.bytes.len() - self.pos)
    }
}
