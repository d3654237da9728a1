//! Generic values: any Avro datum, encoded and decoded with a [`Schema`].
//!
//! A [`Value`] mirrors the schema it is written with: records hold their fields by position
//! (the names live in the schema), unions hold the branch index, enums the symbol index.
//! Logical types have their own variants ([`Value::Date`], [`Value::Decimal`], ...), and the
//! decoder produces them whenever the schema carries a valid logical type.
//!
//! # Examples
//! ```
//! use avrokit::{Schema, Value, value::{read_value, write_value}, Decoder, Encoder};
//! let schema = Schema::parse_str(r#"{"type":"map","values":"int"}"#)?;
//! let v = Value::Map(vec![("a".into(), Value::Int(1)), ("b".into(), Value::Int(-1))]);
//! let mut out = Vec::new();
//! write_value(&mut Encoder::new(&mut out), &v, &schema)?;
//! let back = read_value(&mut Decoder::from_slice(&out), &schema)?;
//! assert_eq!(back, v);
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # Error handling
//! Writing checks the value against the schema and reports the path of a mismatch, such as
//! `Order.items[3].price`. Reading reports the byte offset and the path of the value being read.

pub(crate) mod decode;
mod encode;
mod logical;

pub use crate::logical::{Decimal, Duration};
// Reading through a plan lives with the plan (`resolution/value.rs`); the public path stays.
pub use crate::resolution::value::{
    from_datum_slice_resolved, read_value_resolved, read_value_resolved_into,
};
pub use decode::{read_value, read_value_into};
pub use encode::write_value;
// Shared with the JSON encoding (`crate::json`), which must accept the same values.
pub(crate) use encode::{
    branch_at, branch_for, check_fields, enter, write_scalar, write_value_at, ScalarOut,
};

use crate::decode::Decoder;
use crate::encode::Encoder;
use crate::error::Result;
use crate::schema::Schema;

/// Any Avro datum.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `boolean`
    Boolean(bool),
    /// `int`
    Int(i32),
    /// `long`
    Long(i64),
    /// `float`
    Float(f32),
    /// `double`
    Double(f64),
    /// `bytes`
    Bytes(Vec<u8>),
    /// `string`
    String(String),
    /// `fixed`: exactly the schema's size.
    Fixed(Vec<u8>),
    /// `enum`: the symbol's index in the schema.
    Enum(u32),
    /// `array`
    Array(Vec<Value>),
    /// `map`: entries in the order they were read or are to be written.
    Map(Vec<(String, Value)>),
    /// `record`: field values in schema order.
    Record(Vec<Value>),
    /// `union`: branch index and the branch's value.
    Union(u32, Box<Value>),
    /// `date`: days since 1970-01-01.
    Date(i32),
    /// `time-millis`: milliseconds after midnight.
    TimeMillis(i32),
    /// `time-micros`: microseconds after midnight.
    TimeMicros(i64),
    /// `timestamp-millis`: milliseconds since the Unix epoch, UTC.
    TimestampMillis(i64),
    /// `timestamp-micros`
    TimestampMicros(i64),
    /// `timestamp-nanos`
    TimestampNanos(i64),
    /// `local-timestamp-millis`: milliseconds since 1970-01-01T00:00 local time.
    LocalTimestampMillis(i64),
    /// `local-timestamp-micros`
    LocalTimestampMicros(i64),
    /// `local-timestamp-nanos`
    LocalTimestampNanos(i64),
    /// `decimal` (scale from the schema) on bytes or fixed.
    Decimal(Decimal),
    /// `big-decimal` (scale carried by the value) on bytes.
    BigDecimal(Decimal),
    /// `uuid`, as its 16 bytes (on `string` it is written in the 8-4-4-4-12 hex form).
    Uuid([u8; 16]),
    /// `duration` on fixed(12).
    Duration(Duration),
}

impl Value {
    /// A short name of the value's kind, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Boolean(_) => "boolean",
            Value::Int(_) => "int",
            Value::Long(_) => "long",
            Value::Float(_) => "float",
            Value::Double(_) => "double",
            Value::Bytes(_) => "bytes",
            Value::String(_) => "string",
            Value::Fixed(_) => "fixed",
            Value::Enum(_) => "enum",
            Value::Array(_) => "array",
            Value::Map(_) => "map",
            Value::Record(_) => "record",
            Value::Union(..) => "union",
            Value::Date(_) => "date",
            Value::TimeMillis(_) => "time-millis",
            Value::TimeMicros(_) => "time-micros",
            Value::TimestampMillis(_) => "timestamp-millis",
            Value::TimestampMicros(_) => "timestamp-micros",
            Value::TimestampNanos(_) => "timestamp-nanos",
            Value::LocalTimestampMillis(_) => "local-timestamp-millis",
            Value::LocalTimestampMicros(_) => "local-timestamp-micros",
            Value::LocalTimestampNanos(_) => "local-timestamp-nanos",
            Value::Decimal(_) => "decimal",
            Value::BigDecimal(_) => "big-decimal",
            Value::Uuid(_) => "uuid",
            Value::Duration(_) => "duration",
        }
    }

    /// The value inside a union (or the value itself when it is not a union).
    pub fn unwrap_union(&self) -> &Value {
        match self {
            Value::Union(_, v) => v.unwrap_union(),
            v => v,
        }
    }

    /// A map entry by key (the last one, if the key repeats).
    pub fn map_get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A record field by name, using the record's schema for the names.
    pub fn field<'a>(&'a self, schema: &Schema, name: &str) -> Option<&'a Value> {
        match (self, schema.root().kind()) {
            (Value::Record(fields), crate::schema::NodeKind::Record(r)) => {
                fields.get(r.field_index(name)?)
            }
            _ => None,
        }
    }
}

macro_rules! from_impls {
    ($($t:ty => $v:ident),* $(,)?) => {
        $(impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::$v(v.into())
            }
        })*
    };
}

from_impls!(
    bool => Boolean,
    i32 => Int,
    i64 => Long,
    f32 => Float,
    f64 => Double,
    String => String,
    &str => String,
    Vec<u8> => Bytes,
);

impl From<()> for Value {
    fn from(_: ()) -> Value {
        Value::Null
    }
}

/// Encodes `value` with `schema` into a new `Vec<u8>`.
///
/// # Errors
/// When the value does not match the schema (the error names the path).
pub fn to_datum_vec(value: &Value, schema: &Schema) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_value(&mut Encoder::new(&mut out), value, schema)?;
    Ok(out)
}

/// Decodes one datum of `schema` from `bytes`, which must hold exactly that datum.
///
/// # Errors
/// Malformed or truncated data ([`ErrorKind::Eof`](crate::ErrorKind::Eof)), or bytes left over after the datum.
pub fn from_datum_slice(bytes: &[u8], schema: &Schema) -> Result<Value> {
    let mut dec = Decoder::from_slice(bytes);
    let v = read_value(&mut dec, schema)?;
    dec.expect_end()?;
    Ok(v)
}

/// Decodes one datum of `schema` from a reader (buffered internally).
///
/// # Errors
/// Malformed or truncated data, or a failing reader.
pub fn from_datum_reader<R: std::io::Read>(reader: R, schema: &Schema) -> Result<Value> {
    read_value(&mut Decoder::from_reader(reader), schema)
}

#[cfg(test)]
mod tests;
