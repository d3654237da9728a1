//! Reader-only field defaults, held by the plan in a form that belongs to no front end.
//!
//! A default is converted once, when the plan is compiled, from the schema's JSON to a
//! [`Literal`]: the datum as the binary encoding carries it, with logical types as their
//! underlying values. Each front end then presents it exactly as it presents the same datum read
//! from the wire (the [`Value`] reader with its logical variants, serde through its visitors,
//! the `ResolvingDecoder` through its typed reads), so a default never needs re-wrapping from
//! another front end's shape.

use crate::error::{Error, Result};
use crate::json::default_to_value;
use crate::logical::{big_decimal, uuid, BytesOut, FixedOut, IntOut, LongOut, StringOut};
use crate::schema::{NodeId, NodeKind, Schema};
use crate::value::Value;

/// A datum in Avro's data model: the types of the binary encoding, without logical types.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal {
    Null,
    Boolean(bool),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Bytes(Box<[u8]>),
    String(Box<str>),
    Fixed(Box<[u8]>),
    /// The symbol's index in the reader's enum.
    Enum(u32),
    Array(Box<[Literal]>),
    Map(Box<[(Box<str>, Literal)]>),
    /// Field values in the reader record's order.
    Record(Box<[Literal]>),
    /// The reader union's branch index and the branch's value.
    Union(u32, Box<Literal>),
}

/// A reader-only field of a record op: where it goes and what it holds.
#[derive(Debug, Clone)]
pub(crate) struct FieldDefault {
    /// The reader field's position.
    pub(crate) pos: u32,
    /// The default, for every front end.
    pub(crate) literal: Literal,
    /// The same default as the [`Value`] reader presents it, built once: cloning it per datum
    /// costs less than converting the literal, which needs the schema for the logical types.
    pub(crate) value: Value,
}

impl FieldDefault {
    /// The default of reader field `pos` (of type `node`) from the schema's `json`.
    pub(crate) fn from_json(
        json: &serde_json::Value,
        reader: &Schema,
        pos: u32,
        node: NodeId,
    ) -> Result<FieldDefault> {
        let value = default_to_value(json, reader, node)?;
        let literal = Literal::of_value(&value, reader, node)?;
        debug_assert_eq!(
            format!("{:?}", literal.to_value(reader, node)),
            format!("{value:?}")
        );
        Ok(FieldDefault {
            pos,
            literal,
            value,
        })
    }
}

impl Literal {
    /// The literal of `v`, a value of node `id` of `schema` in the shape the binary decoder
    /// builds (as the JSON reader builds defaults).
    pub(crate) fn of_value(v: &Value, schema: &Schema, id: NodeId) -> Result<Literal> {
        let node = schema.node(id);
        Ok(match (v, &node.kind) {
            (Value::Null, _) => Literal::Null,
            (Value::Boolean(b), _) => Literal::Boolean(*b),
            (Value::Int(x) | Value::Date(x) | Value::TimeMillis(x), _) => Literal::Int(*x),
            (
                Value::Long(x)
                | Value::TimeMicros(x)
                | Value::TimestampMillis(x)
                | Value::TimestampMicros(x)
                | Value::TimestampNanos(x)
                | Value::LocalTimestampMillis(x)
                | Value::LocalTimestampMicros(x)
                | Value::LocalTimestampNanos(x),
                _,
            ) => Literal::Long(*x),
            (Value::Float(x), _) => Literal::Float(*x),
            (Value::Double(x), _) => Literal::Double(*x),
            (Value::Bytes(b), _) => Literal::Bytes(b.as_slice().into()),
            (Value::String(s), _) => Literal::String(s.as_str().into()),
            (Value::Fixed(b), _) => Literal::Fixed(b.as_slice().into()),
            (Value::Enum(i), _) => Literal::Enum(*i),
            (Value::Uuid(u), NodeKind::Fixed(_)) => Literal::Fixed(u.as_slice().into()),
            (Value::Uuid(u), _) => Literal::String(uuid::format(u).into()),
            (Value::Duration(d), _) => Literal::Fixed(d.to_bytes().as_slice().into()),
            (Value::Decimal(d), NodeKind::Fixed(_)) => Literal::Fixed(d.unscaled().into()),
            (Value::Decimal(d), _) => Literal::Bytes(d.unscaled().into()),
            (Value::BigDecimal(d), _) => Literal::Bytes(big_decimal::payload(d)?.into()),
            (Value::Array(items), NodeKind::Array(a)) => Literal::Array(
                items
                    .iter()
                    .map(|v| Literal::of_value(v, schema, a.items))
                    .collect::<Result<_>>()?,
            ),
            (Value::Map(entries), NodeKind::Map(m)) => Literal::Map(
                entries
                    .iter()
                    .map(|(k, v)| Ok((k.as_str().into(), Literal::of_value(v, schema, m.values)?)))
                    .collect::<Result<_>>()?,
            ),
            (Value::Record(fields), NodeKind::Record(r)) => Literal::Record(
                fields
                    .iter()
                    .zip(&r.fields)
                    .map(|(v, f)| Literal::of_value(v, schema, f.schema))
                    .collect::<Result<_>>()?,
            ),
            (Value::Union(i, inner), NodeKind::Union(u)) => match u.variants.get(*i as usize) {
                Some(&b) => Literal::Union(*i, Box::new(Literal::of_value(inner, schema, b)?)),
                None => return Err(mismatch(v)),
            },
            (Value::Array(_) | Value::Map(_) | Value::Record(_) | Value::Union(..), _) => {
                return Err(mismatch(v))
            }
        })
    }

    /// The [`Value`] of this literal as node `id` of `schema`: what the binary decoder builds
    /// for the same datum (logical types as their own variants).
    pub(crate) fn to_value(&self, schema: &Schema, id: NodeId) -> Value {
        let node = schema.node(id);
        let logical = node.logical;
        match (self, &node.kind) {
            (Literal::Null, _) => Value::Null,
            (Literal::Boolean(b), _) => Value::Boolean(*b),
            (Literal::Int(x), _) => IntOut::of(logical).make(*x),
            (Literal::Long(x), _) => LongOut::of(logical).make(*x),
            (Literal::Float(x), _) => Value::Float(*x),
            (Literal::Double(x), _) => Value::Double(*x),
            (Literal::Bytes(b), _) => BytesOut::of(logical).make(b),
            (Literal::String(s), _) => StringOut::of(logical).make(s),
            (Literal::Fixed(b), NodeKind::Fixed(f)) => FixedOut::of(logical, f.size).make(b),
            (Literal::Fixed(b), _) => Value::Fixed(b.to_vec()),
            (Literal::Enum(i), _) => Value::Enum(*i),
            (Literal::Array(items), NodeKind::Array(a)) => {
                Value::Array(items.iter().map(|l| l.to_value(schema, a.items)).collect())
            }
            (Literal::Map(entries), NodeKind::Map(m)) => Value::Map(
                entries
                    .iter()
                    .map(|(k, l)| (k.to_string(), l.to_value(schema, m.values)))
                    .collect(),
            ),
            (Literal::Record(fields), NodeKind::Record(r)) => Value::Record(
                fields
                    .iter()
                    .zip(&r.fields)
                    .map(|(l, f)| l.to_value(schema, f.schema))
                    .collect(),
            ),
            (Literal::Union(i, inner), NodeKind::Union(u)) => {
                let branch = u.variants.get(*i as usize).copied().unwrap_or(id);
                Value::Union(*i, Box::new(inner.to_value(schema, branch)))
            }
            // `of_value` builds containers only along their schema.
            (Literal::Array(_) | Literal::Map(_) | Literal::Record(_) | Literal::Union(..), _) => {
                Value::Null
            }
        }
    }
}

#[cold]
#[inline(never)]
fn mismatch(v: &Value) -> Error {
    Error::data(format!(
        "internal: a default {} that does not match its schema",
        v.kind_name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every default, lowered to a literal and presented again as a `Value`, is the value the
    /// JSON reader built for it; logical types lower to what the wire carries.
    #[test]
    fn literals_lower_and_lift_back() {
        let schema = Schema::parse_str(
            r#"{"type":"record","name":"R","fields":[
            {"name":"i","type":"int","default":-3},
            {"name":"d","type":{"type":"int","logicalType":"date"},"default":19000},
            {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"},"default":5},
            {"name":"u","type":{"type":"string","logicalType":"uuid"},
                "default":"123E4567-E89B-12D3-A456-426614174000"},
            {"name":"uf","type":{"type":"fixed","name":"U","size":16,"logicalType":"uuid"},
                "default":"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f"},
            {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":2},
                "default":"\u00ff"},
            {"name":"decf","type":{"type":"fixed","name":"F","size":3,"logicalType":"decimal",
                "precision":5},"default":"\u0000\u0000\u0007"},
            {"name":"big","type":{"type":"bytes","logicalType":"big-decimal"},
                "default":"\u0002\u0007\u0004"},
            {"name":"dur","type":{"type":"fixed","name":"D","size":12,"logicalType":"duration"},
                "default":"\u0001\u0000\u0000\u0000\u0002\u0000\u0000\u0000\u0003\u0000\u0000\u0000"},
            {"name":"opt","type":["null","string"],"default":null},
            {"name":"arr","type":{"type":"array","items":["long","null"]},"default":[1,2]},
            {"name":"m","type":{"type":"map","values":"D"},"default":{}},
            {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]},"default":"B"},
            {"name":"rec","type":{"type":"record","name":"In","fields":[
                {"name":"x","type":"double","default":1.5}]},"default":{}}]}"#,
        )
        .unwrap();
        let NodeKind::Record(r) = schema.root().kind() else {
            unreachable!()
        };
        for (pos, f) in r.fields.iter().enumerate() {
            let d =
                FieldDefault::from_json(f.default.as_ref().unwrap(), &schema, pos as u32, f.schema)
                    .unwrap_or_else(|e| panic!("{}: {e}", f.name));
            assert_eq!(d.literal.to_value(&schema, f.schema), d.value, "{}", f.name);
        }
        let lit = |name: &str| {
            let f = &r.fields[r.field_index(name).unwrap()];
            FieldDefault::from_json(f.default.as_ref().unwrap(), &schema, 0, f.schema)
                .unwrap()
                .literal
        };
        assert_eq!(lit("d"), Literal::Int(19000));
        assert_eq!(lit("ts"), Literal::Long(5));
        // The uuid's text as the wire carries it (the canonical lower-case form).
        assert_eq!(
            lit("u"),
            Literal::String("123e4567-e89b-12d3-a456-426614174000".into())
        );
        assert_eq!(lit("dec"), Literal::Bytes(vec![0xff].into()));
        assert_eq!(lit("decf"), Literal::Fixed(vec![0, 0, 7].into()));
        assert_eq!(lit("big"), Literal::Bytes(vec![2, 7, 4].into()));
        assert_eq!(lit("opt"), Literal::Union(0, Box::new(Literal::Null)));
        assert_eq!(
            lit("rec"),
            Literal::Record(vec![Literal::Double(1.5)].into())
        );
    }
}
