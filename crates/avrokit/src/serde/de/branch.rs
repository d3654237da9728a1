//! The out-of-line paths of the op deserializer: union branches, enum symbols and Rust enum
//! variants, and logical types read as text or tuples.

use ::serde::de::value::StrDeserializer;
use ::serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, Visitor};

use super::op::{
    temporal_of, visit_temporal_str, visit_temporal_tuple, visit_uuid_str, wrong_shape, OpDe,
};
use crate::error::{Error, Result};
use crate::io::{Reference, Source};
use crate::logical::{big_decimal, decimal};
use crate::resolution::ops::{enum_out_of_range, BytesOut, FixedOut, Op, OpId};
use crate::schema::{NodeId, NodeKind, Schema};
use crate::serde::logical::parse_uuid;

/// The name a Rust enum variant is matched with: a named type's short name, else the type
/// name (`"int"`, `"null"`...).
pub(super) fn branch_name(schema: &Schema, id: NodeId) -> &str {
    let node = schema.node(id);
    match node.name() {
        Some(n) => n.name(),
        None => node.kind.type_name(),
    }
}

/// Picks the Rust variant for branch `index` named `name` of the reader's `union`: the variant
/// of that name (exactly, then ignoring ASCII case), else the variant at the same position. When
/// the Rust enum has as many variants as the union has branches besides `null` (an
/// `Option<Enum>` reading `["null", A, B]`: `null` is `None`), positions skip the `null` branch.
pub(super) fn pick_variant<'v>(
    schema: &Schema,
    union: Option<NodeId>,
    name: &'v str,
    index: u32,
    variants: &'static [&'static str],
) -> &'v str {
    if let Some(v) = variants.iter().find(|v| **v == name) {
        return v;
    }
    if let Some(v) = variants.iter().find(|v| v.eq_ignore_ascii_case(name)) {
        return v;
    }
    let mut pos = index as usize;
    if let Some(NodeKind::Union(u)) = union.map(|id| &schema.node(id).kind) {
        let is_null = |b: &&NodeId| matches!(schema.node(**b).kind, NodeKind::Null);
        let nulls = u.variants.iter().filter(is_null).count();
        if nulls > 0 && variants.len() + nulls == u.variants.len() {
            pos -= u.variants.iter().take(pos).filter(is_null).count();
        }
    }
    match variants.get(pos) {
        Some(v) => v,
        None => name,
    }
}

impl<'a, 'de, S: Source<'de>> OpDe<'a, 'de, S> {
    /// `deserialize_any`, out of line: the slow path of the typed `deserialize_*`.
    #[inline(never)]
    pub(super) fn any_other<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }

    // Unions and wraps recurse into `deserialize_any`; keeping them out of line keeps
    // `deserialize_any` free of recursion, so it inlines into the callers' loops.
    #[inline(never)]
    pub(super) fn any_union<V: Visitor<'de>>(
        mut self,
        branches: &[OpId],
        visitor: V,
    ) -> Result<V::Value> {
        let b = self.union_branch(branches)?;
        self.dec.enter()?;
        let dec = &mut *self.dec;
        let v = OpDe {
            dec,
            p: self.p,
            op: b,
        }
        .deserialize_any(visitor)?;
        self.dec.leave();
        Ok(v)
    }

    #[inline(never)]
    pub(super) fn any_wrapped<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }

    #[inline(never)]
    pub(super) fn str_wrapped<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_str(self, visitor)
    }

    /// Moves into a union's branch (reading its index) or a wrapped op, and goes on there with
    /// `f`.
    #[inline(never)]
    pub(super) fn in_branch<V: Visitor<'de>>(
        mut self,
        visitor: V,
        f: impl for<'x> FnOnce(OpDe<'x, 'de, S>, V) -> Result<V::Value>,
    ) -> Result<V::Value> {
        match &self.ops()[self.op as usize] {
            Op::Union(branches) => {
                let b = self.union_branch(branches)?;
                self.dec.enter()?;
                let v = f(
                    OpDe {
                        dec: &mut *self.dec,
                        p: self.p,
                        op: b,
                    },
                    visitor,
                )?;
                self.dec.leave();
                Ok(v)
            }
            Op::Wrap { op, .. } => f(self.with(*op), visitor),
            _ => de::Deserializer::deserialize_any(self, visitor),
        }
    }

    /// The count of a date or time op.
    #[inline]
    fn read_count(&mut self, op: &Op) -> Result<i64> {
        match op {
            Op::Int(_) | Op::IntToLong(_) => self.dec.read_int().map(i64::from),
            _ => self.dec.read_long(),
        }
    }

    /// A string for a date or time (as chrono reads it) or a fixed uuid; a union's branch.
    #[inline(never)]
    pub(super) fn text<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let op = &self.ops()[self.op as usize];
        if let Some(t) = temporal_of(op) {
            let v = self.read_count(op)?;
            return visit_temporal_str(t, v, visitor);
        }
        match op {
            Op::Fixed {
                size,
                out: FixedOut::Uuid,
            } => {
                let r = self.dec.read_fixed_ref(*size)?;
                match <&[u8; 16]>::try_from(&*r) {
                    Ok(u) => visit_uuid_str(u, visitor),
                    Err(_) => visitor.visit_bytes(&r),
                }
            }
            Op::Union(_) | Op::Wrap { .. } => self.in_branch(visitor, |d, v| d.deserialize_str(v)),
            _ => de::Deserializer::deserialize_any(self, visitor),
        }
    }

    /// A decimal or big-decimal as its exact text (`-123.45`), which `rust_decimal` and
    /// `bigdecimal` read (in exponent form past what `rust_decimal` holds exactly, so that it
    /// fails rather than rounds); a big-decimal payload that does not parse stays bytes.
    #[inline(never)]
    pub(super) fn decimal_text<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (r, scale) = match &self.ops()[self.op as usize] {
            Op::Bytes(BytesOut::Decimal(scale)) => (self.dec.read_bytes_ref()?, Some(*scale)),
            Op::Fixed {
                size,
                out: FixedOut::Decimal(scale),
            } => (self.dec.read_fixed_ref(*size)?, Some(*scale)),
            _ => (self.dec.read_bytes_ref()?, None),
        };
        match scale {
            Some(scale) => visitor.visit_str(&decimal::to_serde_text(&r, scale)),
            None => match big_decimal::parse(&r) {
                Some(d) => visitor.visit_str(&decimal::to_serde_text(d.unscaled(), d.scale())),
                None => visitor.visit_bytes(&r),
            },
        }
    }

    /// A uuid string as its 16 bytes (the text itself when it is not a uuid).
    #[inline(never)]
    pub(super) fn uuid_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let r = self.dec.read_bytes_ref()?;
        match std::str::from_utf8(&r).ok().and_then(parse_uuid) {
            Some(u) => visitor.visit_bytes(&u),
            None => match r {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            },
        }
    }

    /// A date or time as the tuple of components the `time` crate reads.
    #[inline(never)]
    pub(super) fn temporal_tuple<V: Visitor<'de>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        let op = &self.ops()[self.op as usize];
        match temporal_of(op) {
            Some(t) => {
                let v = self.read_count(op)?;
                visit_temporal_tuple(t, v, len, visitor)
            }
            None => de::Deserializer::deserialize_any(self, visitor),
        }
    }

    /// Reads an enum op's symbol: the reader's symbol name.
    pub(super) fn symbol(&mut self) -> Result<&'a str> {
        let at = self.dec.offset();
        let r = self.symbol_index()?;
        self.symbol_name(r, at)
    }

    /// Reads an enum: the reader's symbol index.
    #[inline]
    pub(super) fn symbol_index(&mut self) -> Result<u32> {
        let p = self.p.plan.inner();
        let Op::Enum(e) = &p.ops[self.op as usize] else {
            return Err(wrong_shape("no enum", self.dec.offset()));
        };
        e.read(self.dec, p)
    }

    /// The reader's symbol `r`, read at `at`.
    fn symbol_name(&self, r: u32, at: u64) -> Result<&'a str> {
        let p = self.p.plan.inner();
        let Op::Enum(e) = &p.ops[self.op as usize] else {
            return Err(wrong_shape("no enum", at));
        };
        let node = self.p.reader_of[self.op as usize];
        match p.reader.nodes().get(node as usize).map(|n| &n.kind) {
            Some(NodeKind::Enum(re)) => match re.symbols.get(r as usize) {
                Some(s) => Ok(s),
                None => Err(enum_out_of_range(p, e.writer, r, at)),
            },
            _ => Err(wrong_shape("no enum", at)),
        }
    }

    /// True when this op is a `Wrap` into a reader union of more than one branch besides
    /// `null`: an `Option` of it holds a Rust enum of those branches.
    pub(super) fn wraps_flattened_union(&self) -> bool {
        let p = self.p.plan.inner();
        let Some(&node) = self.p.reader_of.get(self.op as usize) else {
            return false;
        };
        match p.reader.nodes().get(node as usize).map(|n| &n.kind) {
            Some(NodeKind::Union(u)) => {
                u.variants
                    .iter()
                    .filter(|&&b| !matches!(p.reader.node(b).kind, NodeKind::Null))
                    .count()
                    > 1
            }
            _ => false,
        }
    }

    /// True when the reader type of this union branch (a `Wrap`'s, or this op's) is named
    /// like one of `variants`, ignoring ASCII case: the Rust enum stands for the union.
    pub(super) fn branch_names_a_variant(&self, variants: &[&str]) -> bool {
        let p = self.p.plan.inner();
        let op = match &p.ops[self.op as usize] {
            Op::Wrap { op, .. } => *op,
            _ => self.op,
        };
        let node = self.p.reader_of.get(op as usize).copied();
        match node.filter(|&n| (n as usize) < p.reader.nodes().len()) {
            Some(n) => {
                let name = branch_name(&p.reader, NodeId(n));
                let full = p.reader.node(NodeId(n)).name().map(|n| n.fullname());
                variants
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(name) || full == Some(*v))
            }
            None => false,
        }
    }

    /// A Rust enum variant from a reader union branch (the op is a `Wrap`, or a value the
    /// reader holds outside a union).
    pub(super) fn variant<V: Visitor<'de>>(
        self,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let p = self.p.plan.inner();
        let (index, inner, union) = match &p.ops[self.op as usize] {
            Op::Wrap { index, op } => (
                *index,
                *op,
                self.p
                    .reader_of
                    .get(self.op as usize)
                    .filter(|&&n| (n as usize) < p.reader.nodes().len())
                    .map(|&n| NodeId(n)),
            ),
            _ => (0, self.op, None),
        };
        let node = self
            .p
            .reader_of
            .get(inner as usize)
            .copied()
            .unwrap_or(u32::MAX);
        let name = match p.reader.nodes().get(node as usize) {
            Some(_) => branch_name(&p.reader, NodeId(node)),
            None => "",
        };
        let variant = pick_variant(&p.reader, union, name, index, variants);
        visitor.visit_enum(VariantDe {
            de: self.with(inner),
            variant,
        })
    }
}

/// A Rust enum variant over a union branch.
pub(super) struct VariantDe<'a, 'de, S: Source<'de>> {
    de: OpDe<'a, 'de, S>,
    variant: &'a str,
}

impl<'a, 'de, S: Source<'de>> de::EnumAccess<'de> for VariantDe<'a, 'de, S> {
    type Error = Error;
    type Variant = OpDe<'a, 'de, S>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant)> {
        let v = seed.deserialize(StrDeserializer::<Error>::new(self.variant))?;
        Ok((v, self.de))
    }
}

impl<'de, S: Source<'de>> de::VariantAccess<'de> for OpDe<'_, 'de, S> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        // The branch is `null` or an empty record; anything else is read and dropped.
        self.deserialize_any(IgnoredAny).map(drop)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }
}
