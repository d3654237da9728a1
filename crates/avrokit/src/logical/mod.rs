//! Logical types, one home for every front end: the [`Value`](crate::Value) reader and writer,
//! the JSON encoding, schema resolution and serde all convert and check logical values here, so
//! they accept and reject exactly the same values.
//!
//! - [`decimal`]: the [`Decimal`] value, and the two's-complement rules: precision, fitting in
//!   a `fixed` (sign extension), minimal bytes.
//! - [`big_decimal`]: the `big-decimal` payload (the unscaled integer as `bytes`, then the scale
//!   as an `int`).
//! - [`uuid`]: the 8-4-4-4-12 text form.
//! - [`Duration`]: the 12-byte `duration`.
//! - The presentation tables ([`IntOut`], [`LongOut`], [`BytesOut`], [`StringOut`],
//!   [`FixedOut`]): which shape a schema node's logical type gives a value. The schema parser
//!   has already checked each annotation (a `uuid` fixed has 16 bytes, a `duration` 12, a
//!   decimal's precision fits its fixed), so a node's `logical` is always valid here.
//!
//! The Avro encoding of a `big-decimal` is itself binary Avro, so this module sits above the
//! `Decoder` and `Encoder` and below everything that has values.

pub(crate) mod big_decimal;
pub(crate) mod decimal;
mod duration;
pub(crate) mod uuid;

pub use decimal::Decimal;
pub use duration::Duration;

use crate::schema::LogicalType;

/// How a wire `int` is presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntOut {
    Int,
    Date,
    TimeMillis,
}

impl IntOut {
    #[inline]
    pub(crate) fn of(logical: Option<LogicalType>) -> IntOut {
        match logical {
            Some(LogicalType::Date) => IntOut::Date,
            Some(LogicalType::TimeMillis) => IntOut::TimeMillis,
            _ => IntOut::Int,
        }
    }
}

/// How a `long` (read, or promoted from an int) is presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LongOut {
    Long,
    TimeMicros,
    TimestampMillis,
    TimestampMicros,
    TimestampNanos,
    LocalTimestampMillis,
    LocalTimestampMicros,
    LocalTimestampNanos,
}

impl LongOut {
    #[inline]
    pub(crate) fn of(logical: Option<LogicalType>) -> LongOut {
        match logical {
            Some(LogicalType::TimeMicros) => LongOut::TimeMicros,
            Some(LogicalType::TimestampMillis) => LongOut::TimestampMillis,
            Some(LogicalType::TimestampMicros) => LongOut::TimestampMicros,
            Some(LogicalType::TimestampNanos) => LongOut::TimestampNanos,
            Some(LogicalType::LocalTimestampMillis) => LongOut::LocalTimestampMillis,
            Some(LogicalType::LocalTimestampMicros) => LongOut::LocalTimestampMicros,
            Some(LogicalType::LocalTimestampNanos) => LongOut::LocalTimestampNanos,
            _ => LongOut::Long,
        }
    }
}

/// How length-prefixed bytes are presented as `bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BytesOut {
    Bytes,
    /// A `decimal` of this scale.
    Decimal(u32),
    /// A `big-decimal`; a payload that does not parse stays bytes.
    BigDecimal,
}

impl BytesOut {
    #[inline]
    pub(crate) fn of(logical: Option<LogicalType>) -> BytesOut {
        match logical {
            Some(LogicalType::Decimal { scale, .. }) => BytesOut::Decimal(scale),
            Some(LogicalType::BigDecimal) => BytesOut::BigDecimal,
            _ => BytesOut::Bytes,
        }
    }
}

/// How a `string` is presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StringOut {
    String,
    /// A `uuid`; text that does not parse stays a string.
    Uuid,
}

impl StringOut {
    #[inline]
    pub(crate) fn of(logical: Option<LogicalType>) -> StringOut {
        match logical {
            Some(LogicalType::Uuid) => StringOut::Uuid,
            _ => StringOut::String,
        }
    }
}

/// How a `fixed` is presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FixedOut {
    Fixed,
    /// A `decimal` of this scale.
    Decimal(u32),
    Uuid,
    Duration,
}

impl FixedOut {
    #[inline]
    pub(crate) fn of(logical: Option<LogicalType>, size: usize) -> FixedOut {
        match logical {
            Some(LogicalType::Decimal { scale, .. }) => FixedOut::Decimal(scale),
            Some(LogicalType::Uuid) if size == 16 => FixedOut::Uuid,
            Some(LogicalType::Duration) if size == duration::SIZE => FixedOut::Duration,
            _ => FixedOut::Fixed,
        }
    }
}
