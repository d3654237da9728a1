//! A reader-only field's default, a [`Value`] built at plan time, handed to serde.

use ::serde::de::value::StrDeserializer;
use ::serde::de::{self, DeserializeSeed, Deserializer as _, IntoDeserializer, Visitor};
use ::serde::forward_to_deserialize_any;

use super::access::ByteSeq;
use super::branch::{branch_name, pick_variant};
use super::op::{temporal_value, visit_temporal_str, visit_temporal_tuple, visit_uuid_str};
use crate::error::{Error, Result};
use crate::schema::{NodeId, NodeKind, Schema};
use crate::value::Value;

/// A reader-only field's default (a [`Value`] built at plan time) as a serde value.
pub(super) struct ValueDe<'v> {
    pub(super) v: &'v Value,
    pub(super) schema: &'v Schema,
    pub(super) node: NodeId,
}

impl<'v> ValueDe<'v> {
    fn at(&self, v: &'v Value, node: NodeId) -> ValueDe<'v> {
        ValueDe {
            v,
            schema: self.schema,
            node,
        }
    }

    /// The union branch node and value, when this is a union.
    fn unwrap_union(&self) -> ValueDe<'v> {
        match (self.v, &self.schema.node(self.node).kind) {
            (Value::Union(i, inner), NodeKind::Union(u)) => match u.variants.get(*i as usize) {
                Some(&b) => self.at(inner, b).unwrap_union(),
                None => self.at(inner, self.node),
            },
            _ => self.at(self.v, self.node),
        }
    }
}

impl<'de> de::Deserializer<'de> for ValueDe<'_> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let node = &self.schema.node(self.node).kind;
        match self.v {
            Value::Null => visitor.visit_unit(),
            Value::Boolean(b) => visitor.visit_bool(*b),
            Value::Int(v) | Value::Date(v) | Value::TimeMillis(v) => visitor.visit_i32(*v),
            Value::Long(v)
            | Value::TimeMicros(v)
            | Value::TimestampMillis(v)
            | Value::TimestampMicros(v)
            | Value::TimestampNanos(v)
            | Value::LocalTimestampMillis(v)
            | Value::LocalTimestampMicros(v)
            | Value::LocalTimestampNanos(v) => visitor.visit_i64(*v),
            Value::Float(v) => visitor.visit_f32(*v),
            Value::Double(v) => visitor.visit_f64(*v),
            Value::Bytes(b) | Value::Fixed(b) => visitor.visit_bytes(b),
            Value::String(s) => visitor.visit_str(s),
            // Decimals as their text, as the op deserializer gives them.
            Value::Decimal(d) | Value::BigDecimal(d) => visitor.visit_str(
                &crate::logical::decimal::to_serde_text(d.unscaled(), d.scale()),
            ),
            Value::Uuid(u) => match node {
                NodeKind::String => visitor.visit_str(&crate::logical::uuid::format(u)),
                _ => visitor.visit_bytes(u),
            },
            Value::Duration(d) => visitor.visit_bytes(&d.to_bytes()),
            Value::Enum(i) => match node {
                NodeKind::Enum(e) => match e.symbols.get(*i as usize) {
                    Some(s) => visitor.visit_str(s),
                    None => Err(Error::data("enum default out of range")),
                },
                _ => visitor.visit_u32(*i),
            },
            Value::Array(items) => {
                let item = match node {
                    NodeKind::Array(a) => a.items,
                    _ => self.node,
                };
                visitor.visit_seq(ValueSeq {
                    it: items.iter(),
                    schema: self.schema,
                    item,
                })
            }
            Value::Map(entries) => {
                let values = match node {
                    NodeKind::Map(m) => m.values,
                    _ => self.node,
                };
                visitor.visit_map(ValueMap {
                    entries: entries
                        .iter()
                        .map(|(k, v)| (k.as_str(), v, values))
                        .collect(),
                    pos: 0,
                    schema: self.schema,
                })
            }
            Value::Record(fields) => {
                let NodeKind::Record(r) = node else {
                    return Err(Error::data("record default without a record schema"));
                };
                visitor.visit_map(ValueMap {
                    entries: r
                        .fields
                        .iter()
                        .zip(fields)
                        .map(|(f, v)| (f.name.as_str(), v, f.schema))
                        .collect(),
                    pos: 0,
                    schema: self.schema,
                })
            }
            Value::Union(..) => self.unwrap_union().deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        match inner.v {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(inner),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match (self.v, &self.schema.node(self.node).kind) {
            (Value::Enum(i), NodeKind::Enum(e)) => match e.symbols.get(*i as usize) {
                Some(s) => visitor.visit_enum(s.as_str().into_deserializer()),
                None => Err(Error::data("enum default out of range")),
            },
            (Value::String(s), _) => visitor.visit_enum(s.as_str().into_deserializer()),
            (Value::Union(i, _), NodeKind::Union(u)) => {
                let inner = self.unwrap_union();
                let name = u
                    .variants
                    .get(*i as usize)
                    .map_or("", |&b| branch_name(self.schema, b));
                let variant = pick_variant(self.schema, Some(self.node), name, *i, variants);
                visitor.visit_enum(ValueVariant { de: inner, variant })
            }
            _ => Err(Error::data(
                "a default that is not an enum, read as a Rust enum",
            )),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        if let Some((t, v)) = temporal_value(inner.v) {
            return visit_temporal_str(t, v, visitor);
        }
        match inner.v {
            Value::Uuid(u) => visit_uuid_str(u, visitor),
            _ => inner.deserialize_any(visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        match inner.v {
            Value::Uuid(u) => visitor.visit_bytes(u),
            Value::Decimal(d) => visitor.visit_bytes(d.unscaled()),
            Value::BigDecimal(d) => visitor.visit_bytes(&crate::logical::big_decimal::payload(d)?),
            _ => inner.deserialize_any(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        match inner.v {
            Value::Bytes(b) | Value::Fixed(b) => visitor.visit_seq(ByteSeq { bytes: b, pos: 0 }),
            Value::Uuid(u) => visitor.visit_seq(ByteSeq { bytes: u, pos: 0 }),
            Value::Decimal(d) => visitor.visit_seq(ByteSeq {
                bytes: d.unscaled(),
                pos: 0,
            }),
            _ => inner.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        let inner = self.unwrap_union();
        if let Some((t, v)) = temporal_value(inner.v) {
            return visit_temporal_tuple(t, v, len, visitor);
        }
        inner.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char
        unit unit_struct map struct identifier ignored_any
    }
}

pub(super) struct ValueVariant<'v> {
    de: ValueDe<'v>,
    variant: &'v str,
}

impl<'de, 'v> de::EnumAccess<'de> for ValueVariant<'v> {
    type Error = Error;
    type Variant = ValueDe<'v>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, ValueDe<'v>)> {
        let v = seed.deserialize(StrDeserializer::<Error>::new(self.variant))?;
        Ok((v, self.de))
    }
}

impl<'de> de::VariantAccess<'de> for ValueDe<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }
}

pub(super) struct ValueSeq<'v> {
    it: std::slice::Iter<'v, Value>,
    schema: &'v Schema,
    item: NodeId,
}

impl<'de> de::SeqAccess<'de> for ValueSeq<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.it.next() {
            Some(v) => seed
                .deserialize(ValueDe {
                    v,
                    schema: self.schema,
                    node: self.item,
                })
                .map(Some),
            None => Ok(None),
        }
    }
}

pub(super) struct ValueMap<'v> {
    entries: Vec<(&'v str, &'v Value, NodeId)>,
    pos: usize,
    schema: &'v Schema,
}

impl<'de> de::MapAccess<'de> for ValueMap<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.entries.get(self.pos) {
            Some((k, _, _)) => seed.deserialize(StrDeserializer::<Error>::new(k)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some(&(_, v, node)) = self.entries.get(self.pos) else {
            return Err(Error::data("map value without a key"));
        };
        self.pos += 1;
        seed.deserialize(ValueDe {
            v,
            schema: self.schema,
            node,
        })
    }
}
