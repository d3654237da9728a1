//! The logical types' table from the wire to [`Value`]: the shape each of
//! [`crate::logical`]'s presentations gives a value. The binary decoder, the plan's reader,
//! the JSON reader and the plan's defaults all build logical values through these, so they
//! build the same values.

use super::Value;
use crate::logical::StringOut;
use crate::logical::{big_decimal, uuid, BytesOut, Decimal, Duration, FixedOut, IntOut, LongOut};

impl IntOut {
    #[inline(always)]
    pub(crate) fn make(self, v: i32) -> Value {
        match self {
            IntOut::Int => Value::Int(v),
            IntOut::Date => Value::Date(v),
            IntOut::TimeMillis => Value::TimeMillis(v),
        }
    }
}

impl LongOut {
    #[inline(always)]
    pub(crate) fn make(self, v: i64) -> Value {
        match self {
            LongOut::Long => Value::Long(v),
            LongOut::TimeMicros => Value::TimeMicros(v),
            LongOut::TimestampMillis => Value::TimestampMillis(v),
            LongOut::TimestampMicros => Value::TimestampMicros(v),
            LongOut::TimestampNanos => Value::TimestampNanos(v),
            LongOut::LocalTimestampMillis => Value::LocalTimestampMillis(v),
            LongOut::LocalTimestampMicros => Value::LocalTimestampMicros(v),
            LongOut::LocalTimestampNanos => Value::LocalTimestampNanos(v),
        }
    }
}

impl BytesOut {
    /// The value, as `read_value` builds it (a malformed `big-decimal` stays bytes).
    #[inline]
    pub(crate) fn make(self, b: &[u8]) -> Value {
        match self {
            BytesOut::Bytes => Value::Bytes(b.to_vec()),
            BytesOut::Decimal(scale) => Value::Decimal(Decimal::new(b.to_vec(), scale)),
            BytesOut::BigDecimal => match big_decimal::parse(b) {
                Some(d) => Value::BigDecimal(d),
                None => Value::Bytes(b.to_vec()),
            },
        }
    }

    /// As [`make`](Self::make), taking the bytes.
    #[inline]
    pub(crate) fn make_owned(self, b: Vec<u8>) -> Value {
        match self {
            BytesOut::Bytes => Value::Bytes(b),
            BytesOut::Decimal(scale) => Value::Decimal(Decimal::new(b, scale)),
            BytesOut::BigDecimal => self.make(&b),
        }
    }
}

impl StringOut {
    /// The value, as `read_value` builds it (a malformed `uuid` stays a string).
    #[inline]
    pub(crate) fn make(self, s: &str) -> Value {
        match self {
            StringOut::String => Value::String(s.to_owned()),
            StringOut::Uuid => match uuid::parse(s) {
                Some(u) => Value::Uuid(u),
                None => Value::String(s.to_owned()),
            },
        }
    }

    /// As [`make`](Self::make), taking the string.
    #[inline]
    pub(crate) fn make_owned(self, s: String) -> Value {
        match self {
            StringOut::String => Value::String(s),
            StringOut::Uuid => match uuid::parse(&s) {
                Some(u) => Value::Uuid(u),
                None => Value::String(s),
            },
        }
    }
}

impl FixedOut {
    /// The value, as `read_value` builds it.
    #[inline]
    pub(crate) fn make(self, b: &[u8]) -> Value {
        match self {
            FixedOut::Fixed => Value::Fixed(b.to_vec()),
            _ => self.make_owned(b.to_vec()),
        }
    }

    /// As [`make`](Self::make), taking the bytes.
    #[inline]
    pub(crate) fn make_owned(self, b: Vec<u8>) -> Value {
        match self {
            FixedOut::Fixed => Value::Fixed(b),
            FixedOut::Decimal(scale) => Value::Decimal(Decimal::new(b, scale)),
            FixedOut::Uuid => match <[u8; 16]>::try_from(b.as_slice()) {
                Ok(u) => Value::Uuid(u),
                Err(_) => Value::Fixed(b),
            },
            FixedOut::Duration => match Duration::from_slice(&b) {
                Some(d) => Value::Duration(d),
                None => Value::Fixed(b),
            },
        }
    }
}
