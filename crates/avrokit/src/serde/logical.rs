//! Logical types in the serde front end: what the serializer accepts and the deserializer hands
//! out for a schema node with a logical type, decided when the plan is compiled.
//!
//! Date and time types serialize themselves as text (chrono: RFC 3339, `2024-05-01`,
//! `12:30:00.5`) or as tuples of components (the `time` crate, in binary formats such as this
//! one); `uuid::Uuid` as 16 bytes. This module converts those forms to and from the numbers on
//! the wire (days, milli-, micro- or nanoseconds), so that such types read and write the bytes
//! Java does with no attribute on the field. The calendar arithmetic is here (proleptic
//! Gregorian, as Java's `java.time`), so none of chrono, time or uuid is needed for it: the cargo
//! features of the same names only add their [`AvroSchema`](super::AvroSchema) implementations.

use std::fmt::{self, Write as _};

use crate::error::{Error, Result};
pub(crate) use crate::logical::decimal::check_precision as check_decimal;
pub(crate) use crate::logical::uuid::parse as parse_uuid;
use crate::logical::{uuid, IntOut, LongOut};
use crate::schema::{LogicalType, Node, NodeKind};

const NANOS_PER_SEC: i128 = 1_000_000_000;
const SECS_PER_DAY: i128 = 86_400;
const NANOS_PER_DAY: i128 = SECS_PER_DAY * NANOS_PER_SEC;

/// The unit of a time or timestamp count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Millis,
    Micros,
    Nanos,
}

impl Unit {
    fn nanos(self) -> i128 {
        match self {
            Unit::Millis => 1_000_000,
            Unit::Micros => 1_000,
            Unit::Nanos => 1,
        }
    }
}

/// A date or time logical type: a count on the wire, text or components in Rust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Temporal {
    /// `date` (int): days since 1970-01-01.
    Date,
    /// `time-millis` (int) or `time-micros` (long): time of day.
    Time(Unit),
    /// `timestamp-*` (long): an instant, counted from 1970-01-01T00:00:00Z.
    Timestamp(Unit),
    /// `local-timestamp-*` (long): a wall-clock date and time, in no particular time zone.
    Local(Unit),
}

impl Temporal {
    pub(crate) fn of(l: LogicalType) -> Option<Temporal> {
        Some(match l {
            LogicalType::Date => Temporal::Date,
            LogicalType::TimeMillis => Temporal::Time(Unit::Millis),
            LogicalType::TimeMicros => Temporal::Time(Unit::Micros),
            LogicalType::TimestampMillis => Temporal::Timestamp(Unit::Millis),
            LogicalType::TimestampMicros => Temporal::Timestamp(Unit::Micros),
            LogicalType::TimestampNanos => Temporal::Timestamp(Unit::Nanos),
            LogicalType::LocalTimestampMillis => Temporal::Local(Unit::Millis),
            LogicalType::LocalTimestampMicros => Temporal::Local(Unit::Micros),
            LogicalType::LocalTimestampNanos => Temporal::Local(Unit::Nanos),
            _ => return None,
        })
    }

    /// The date or time logical type named `name`.
    pub(crate) fn from_name(name: &str) -> Option<Temporal> {
        Some(match name {
            "date" => Temporal::Date,
            "time-millis" => Temporal::Time(Unit::Millis),
            "time-micros" => Temporal::Time(Unit::Micros),
            "timestamp-millis" => Temporal::Timestamp(Unit::Millis),
            "timestamp-micros" => Temporal::Timestamp(Unit::Micros),
            "timestamp-nanos" => Temporal::Timestamp(Unit::Nanos),
            "local-timestamp-millis" => Temporal::Local(Unit::Millis),
            "local-timestamp-micros" => Temporal::Local(Unit::Micros),
            "local-timestamp-nanos" => Temporal::Local(Unit::Nanos),
            _ => return None,
        })
    }

    /// The logical type of a reader `int` op.
    pub(crate) fn of_int(out: IntOut) -> Option<Temporal> {
        match out {
            IntOut::Int => None,
            IntOut::Date => Some(Temporal::Date),
            IntOut::TimeMillis => Some(Temporal::Time(Unit::Millis)),
        }
    }

    /// The logical type of a reader `long` op.
    pub(crate) fn of_long(out: LongOut) -> Option<Temporal> {
        Some(match out {
            LongOut::Long => return None,
            LongOut::TimeMicros => Temporal::Time(Unit::Micros),
            LongOut::TimestampMillis => Temporal::Timestamp(Unit::Millis),
            LongOut::TimestampMicros => Temporal::Timestamp(Unit::Micros),
            LongOut::TimestampNanos => Temporal::Timestamp(Unit::Nanos),
            LongOut::LocalTimestampMillis => Temporal::Local(Unit::Millis),
            LongOut::LocalTimestampMicros => Temporal::Local(Unit::Micros),
            LongOut::LocalTimestampNanos => Temporal::Local(Unit::Nanos),
        })
    }

    /// True when the wire type is `int` (else `long`).
    pub(crate) fn is_int(self) -> bool {
        matches!(self, Temporal::Date | Temporal::Time(Unit::Millis))
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Temporal::Date => "date",
            Temporal::Time(Unit::Millis) => "time-millis",
            Temporal::Time(_) => "time-micros",
            Temporal::Timestamp(Unit::Millis) => "timestamp-millis",
            Temporal::Timestamp(Unit::Micros) => "timestamp-micros",
            Temporal::Timestamp(Unit::Nanos) => "timestamp-nanos",
            Temporal::Local(Unit::Millis) => "local-timestamp-millis",
            Temporal::Local(Unit::Micros) => "local-timestamp-micros",
            Temporal::Local(Unit::Nanos) => "local-timestamp-nanos",
        }
    }

    /// The count for `nanos` since the epoch (or since midnight for a time), rounded down as
    /// Java's conversions do; an error when it does not fit the wire type.
    fn count(self, nanos: i128) -> Result<i64> {
        let n = match self {
            Temporal::Date => nanos.div_euclid(NANOS_PER_DAY),
            Temporal::Time(u) | Temporal::Timestamp(u) | Temporal::Local(u) => {
                nanos.div_euclid(u.nanos())
            }
        };
        let fits = if self.is_int() {
            i32::try_from(n).is_ok()
        } else {
            i64::try_from(n).is_ok()
        };
        if !fits {
            return Err(out_of_range(self));
        }
        Ok(n as i64)
    }

    /// Nanoseconds since the epoch (since midnight for a time) of a count.
    fn nanos(self, v: i64) -> i128 {
        match self {
            Temporal::Date => i128::from(v) * NANOS_PER_DAY,
            Temporal::Time(u) | Temporal::Timestamp(u) | Temporal::Local(u) => {
                i128::from(v) * u.nanos()
            }
        }
    }

    /// Parses the text form: `2024-05-01` for a date, `12:30:00.25` for a time, RFC 3339 for a
    /// timestamp (`2024-05-01T12:30:00.25Z`; without an offset it is taken as UTC). A local
    /// timestamp takes the wall-clock date and time as written and ignores any offset.
    pub(crate) fn parse(self, s: &str) -> Result<i64> {
        let parsed = match self {
            Temporal::Date => parse_date(s.as_bytes())
                .and_then(|(days, rest)| rest.is_empty().then_some(days * NANOS_PER_DAY)),
            Temporal::Time(_) => {
                parse_time(s.as_bytes()).and_then(|(t, rest)| rest.is_empty().then_some(t))
            }
            Temporal::Timestamp(_) | Temporal::Local(_) => {
                parse_date_time(s.as_bytes()).map(|(wall, offset)| match self {
                    Temporal::Local(_) => wall,
                    _ => wall - i128::from(offset) * NANOS_PER_SEC,
                })
            }
        };
        match parsed {
            Some(n) => self.count(n),
            None => Err(bad_text(self, s)),
        }
    }

    /// Writes the text form of a count, as chrono writes its types (fractions of a second in 3,
    /// 6 or 9 digits as needed; `Z` after an instant).
    pub(crate) fn format(self, v: i64, out: &mut Text) -> Result<()> {
        let n = self.nanos(v);
        let r = match self {
            Temporal::Date => write_date(out, n.div_euclid(NANOS_PER_DAY)),
            Temporal::Time(_) => {
                if !(0..NANOS_PER_DAY).contains(&n) {
                    return Err(Error::data(format!(
                        "{} value {v} is not a time of day",
                        self.name()
                    )));
                }
                write_time(out, n)
            }
            Temporal::Timestamp(_) | Temporal::Local(_) => {
                write_date(out, n.div_euclid(NANOS_PER_DAY))
                    .and_then(|()| out.write_char('T'))
                    .and_then(|()| write_time(out, n.rem_euclid(NANOS_PER_DAY)))
                    .and_then(|()| match self {
                        Temporal::Timestamp(_) => out.write_char('Z'),
                        _ => Ok(()),
                    })
            }
        };
        r.map_err(|_| out_of_range(self))
    }

    /// The count from the components the `time` crate serializes its types as: `(year,
    /// ordinal)` for a `Date`, `(hour, minute, second, nanosecond)` for a `Time`, `(year,
    /// ordinal, hour, minute, second, nanosecond)` for a `PrimitiveDateTime` (taken as UTC by a
    /// timestamp) and the same followed by the offset's hours, minutes and seconds for an
    /// `OffsetDateTime` (ignored by a local timestamp).
    pub(crate) fn count_of_parts(self, p: &[i64]) -> Result<i64> {
        let date = |y: i64, ordinal: i64| -> Option<i128> {
            let days_in_year = if is_leap(y) { 366 } else { 365 };
            (1..=days_in_year)
                .contains(&ordinal)
                .then(|| days_from_civil(y, 1, 1) + i128::from(ordinal) - 1)
        };
        let time = |h: i64, m: i64, s: i64, ns: i64| -> Option<i128> {
            ((0..24).contains(&h)
                && (0..60).contains(&m)
                && (0..=60).contains(&s)
                && (0..2 * NANOS_PER_SEC).contains(&i128::from(ns)))
            .then(|| {
                (i128::from(h) * 3600 + i128::from(m) * 60 + i128::from(s)) * NANOS_PER_SEC
                    + i128::from(ns)
            })
        };
        let n = match (self, p) {
            (Temporal::Date, &[y, o]) => date(y, o).map(|d| d * NANOS_PER_DAY),
            (Temporal::Time(_), &[h, m, s, ns]) => time(h, m, s, ns),
            (Temporal::Timestamp(_) | Temporal::Local(_), &[y, o, h, m, s, ns, ref off @ ..])
                if off.is_empty() || off.len() == 3 =>
            {
                let wall = date(y, o)
                    .zip(time(h, m, s, ns))
                    .map(|(d, t)| d * NANOS_PER_DAY + t);
                let offset = match off {
                    [oh, om, os] if matches!(self, Temporal::Timestamp(_)) => {
                        i128::from(*oh) * 3600 + i128::from(*om) * 60 + i128::from(*os)
                    }
                    _ => 0,
                };
                wall.map(|w| w - offset * NANOS_PER_SEC)
            }
            _ => {
                return Err(Error::data(format!(
                    "{} cannot be written from a tuple of {} numbers",
                    self.name(),
                    p.len()
                )))
            }
        };
        match n {
            Some(n) => self.count(n),
            None => Err(Error::data(format!(
                "{} components {p:?} are not a valid date or time",
                self.name()
            ))),
        }
    }

    /// The components of a count, in the `time` crate's order for a tuple of `len` (see
    /// [`count_of_parts`](Self::count_of_parts)); `None` when `len` does not fit this type.
    pub(crate) fn parts(self, v: i64, len: usize) -> Result<Option<([i64; 9], usize)>> {
        let n = self.nanos(v);
        let days = n.div_euclid(NANOS_PER_DAY);
        let tod = n.rem_euclid(NANOS_PER_DAY);
        let (y, _, _) = civil_from_days(days);
        let y = i64::try_from(y).map_err(|_| out_of_range(self))?;
        let ordinal = days - days_from_civil(y, 1, 1) + 1;
        let secs = tod / NANOS_PER_SEC;
        let hms = [
            (secs / 3600) as i64,
            (secs / 60 % 60) as i64,
            (secs % 60) as i64,
            (tod % NANOS_PER_SEC) as i64,
        ];
        let mut out = [0i64; 9];
        match (self, len) {
            (Temporal::Date, 2) => out[..2].copy_from_slice(&[y, ordinal as i64]),
            (Temporal::Time(_), 4) => {
                if !(0..NANOS_PER_DAY).contains(&n) {
                    return Err(Error::data(format!(
                        "{} value {v} is not a time of day",
                        self.name()
                    )));
                }
                out[..4].copy_from_slice(&hms)
            }
            (Temporal::Timestamp(_) | Temporal::Local(_), 6 | 9) => {
                out[0] = y;
                out[1] = ordinal as i64;
                out[2..6].copy_from_slice(&hms);
            }
            _ => return Ok(None),
        }
        Ok(Some((out, len)))
    }
}

#[cold]
#[inline(never)]
fn out_of_range(t: Temporal) -> Error {
    Error::data(format!(
        "the date or time is out of the range of {}",
        t.name()
    ))
}

#[cold]
#[inline(never)]
fn bad_text(t: Temporal, s: &str) -> Error {
    let expected = match t {
        Temporal::Date => "a date like 2024-05-01",
        Temporal::Time(_) => "a time of day like 12:30:00.25",
        Temporal::Timestamp(_) => "an RFC 3339 date and time like 2024-05-01T12:30:00.25Z",
        Temporal::Local(_) => "a date and time like 2024-05-01T12:30:00.25",
    };
    Error::data(format!("{s:?} is not {expected} (for {})", t.name()))
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i128 {
    let (y, m, d) = (i128::from(y), i128::from(m), i128::from(d));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count.
fn civil_from_days(z: i128) -> (i128, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as i64;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as i64;
    let y = yoe + era * 400 + i128::from(m <= 2);
    (y, m, d)
}

/// `n` ASCII digits, exactly.
fn digits(b: &[u8], n: usize) -> Option<(i64, &[u8])> {
    if b.len() < n || !b[..n].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = b[..n]
        .iter()
        .fold(0i64, |a, &c| a * 10 + i64::from(c - b'0'));
    Some((v, &b[n..]))
}

fn lit(b: &[u8], c: u8) -> Option<&[u8]> {
    match b.split_first() {
        Some((&x, rest)) if x == c => Some(rest),
        _ => None,
    }
}

/// `[+-]YYYY-MM-DD` (four digits, or a sign and four or more): days since the epoch.
fn parse_date(b: &[u8]) -> Option<(i128, &[u8])> {
    let (neg, b) = match b.first() {
        Some(b'+') => (false, &b[1..]),
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if !(4..=10).contains(&n) {
        return None;
    }
    let (y, b) = digits(b, n)?;
    let y = if neg { -y } else { y };
    let (m, b) = digits(lit(b, b'-')?, 2)?;
    let (d, b) = digits(lit(b, b'-')?, 2)?;
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    Some((days_from_civil(y, m, d), b))
}

/// `HH:MM[:SS[.fraction]]`: nanoseconds since midnight (a leap second `60` counts as one more
/// second, as chrono does).
fn parse_time(b: &[u8]) -> Option<(i128, &[u8])> {
    let (h, b) = digits(b, 2)?;
    let (m, mut b) = digits(lit(b, b':')?, 2)?;
    let mut s = 0;
    let mut nanos = 0i128;
    if let Some(rest) = lit(b, b':') {
        let (sec, rest) = digits(rest, 2)?;
        s = sec;
        b = rest;
        if let Some(rest) = lit(b, b'.').or_else(|| lit(b, b',')) {
            let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            // Digits past nanoseconds are dropped.
            let mut scale = NANOS_PER_SEC;
            for &c in &rest[..n.min(9)] {
                scale /= 10;
                nanos += i128::from(c - b'0') * scale;
            }
            b = &rest[n..];
        }
    }
    if h > 23 || m > 59 || s > 60 {
        return None;
    }
    Some((i128::from(h * 3600 + m * 60 + s) * NANOS_PER_SEC + nanos, b))
}

/// `date` `T` `time` and an optional offset (`Z`, `+HH:MM`, `-HHMM`, `+HH`): the wall-clock
/// nanoseconds since the epoch and the offset in seconds.
fn parse_date_time(b: &[u8]) -> Option<(i128, i32)> {
    let (days, b) = parse_date(b)?;
    let b = match b.split_first() {
        Some((b'T' | b't' | b' ', rest)) => rest,
        _ => return None,
    };
    let (t, b) = parse_time(b)?;
    let wall = days * NANOS_PER_DAY + t;
    let offset = match b {
        [] | [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let (h, rest) = digits(rest, 2)?;
            let rest = lit(rest, b':').unwrap_or(rest);
            let (m, rest) = if rest.is_empty() {
                (0, rest)
            } else {
                digits(rest, 2)?
            };
            if !rest.is_empty() || h > 23 || m > 59 {
                return None;
            }
            let secs = (h * 3600 + m * 60) as i32;
            if *sign == b'-' {
                -secs
            } else {
                secs
            }
        }
        _ => return None,
    };
    Some((wall, offset))
}

fn write_date(out: &mut Text, days: i128) -> fmt::Result {
    let (y, m, d) = civil_from_days(days);
    if (0..=9999).contains(&y) {
        write!(out, "{y:04}-{m:02}-{d:02}")
    } else {
        write!(out, "{y:+05}-{m:02}-{d:02}")
    }
}

fn write_time(out: &mut Text, tod: i128) -> fmt::Result {
    let secs = tod / NANOS_PER_SEC;
    let nano = tod % NANOS_PER_SEC;
    write!(
        out,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )?;
    if nano == 0 {
        Ok(())
    } else if nano % 1_000_000 == 0 {
        write!(out, ".{:03}", nano / 1_000_000)
    } else if nano % 1_000 == 0 {
        write!(out, ".{:06}", nano / 1_000)
    } else {
        write!(out, ".{nano:09}")
    }
}

/// A short text formatted on the stack.
pub(crate) struct Text {
    buf: [u8; 64],
    len: usize,
}

impl Text {
    pub(crate) fn new() -> Text {
        Text {
            buf: [0; 64],
            len: 0,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only whole `&str`s are ever appended.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// The 8-4-4-4-12 lower-case hex form of a UUID.
pub(crate) fn format_uuid(u: &[u8; 16], out: &mut Text) {
    out.buf[..36].copy_from_slice(&uuid::text(u));
    out.len = 36;
}

/// The logical type of a schema node, as the serializer treats it. `duration` has no Rust form
/// of its own and is written as its underlying type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Logical {
    Temporal(Temporal),
    /// `uuid` on `string`: 16 bytes are written as the text form.
    UuidString,
    /// `uuid` on `fixed(16)`: the text form is parsed to the 16 bytes.
    UuidFixed,
    /// `decimal` on `bytes` (`fixed: None`) or `fixed`: the value is the unscaled integer's
    /// two's-complement big-endian bytes, checked against the precision and sign-extended to
    /// the size of a fixed; or decimal text (what `rust_decimal` and `bigdecimal` serialize
    /// to), rescaled to the schema's scale exactly.
    Decimal {
        precision: u32,
        scale: u32,
        fixed: Option<u32>,
    },
    /// `big-decimal` on `bytes`: the value is the payload (unscaled bytes and scale), or
    /// decimal text, written with the scale the text has.
    BigDecimal,
}

impl Logical {
    pub(crate) fn of(node: &Node) -> Option<Logical> {
        let l = node.logical?;
        if let Some(t) = Temporal::of(l) {
            return Some(Logical::Temporal(t));
        }
        match (l, &node.kind) {
            (LogicalType::Uuid, NodeKind::String) => Some(Logical::UuidString),
            (LogicalType::Uuid, NodeKind::Fixed(_)) => Some(Logical::UuidFixed),
            (LogicalType::Decimal { precision, scale }, NodeKind::Bytes) => {
                Some(Logical::Decimal {
                    precision,
                    scale,
                    fixed: None,
                })
            }
            (LogicalType::Decimal { precision, scale }, NodeKind::Fixed(f)) => {
                Some(Logical::Decimal {
                    precision,
                    scale,
                    fixed: Some(u32::try_from(f.size).ok()?),
                })
            }
            (LogicalType::BigDecimal, NodeKind::Bytes) => Some(Logical::BigDecimal),
            _ => None,
        }
    }

    pub(crate) fn describe(self) -> String {
        match self {
            Logical::Temporal(t) => {
                let base = if t.is_int() { "int" } else { "long" };
                format!("{base} ({})", t.name())
            }
            Logical::UuidString => "string (uuid)".into(),
            Logical::UuidFixed => "fixed(16) (uuid)".into(),
            Logical::Decimal {
                precision,
                scale,
                fixed: None,
            } => format!("bytes (decimal({precision}, {scale}))"),
            Logical::Decimal {
                precision,
                scale,
                fixed: Some(n),
            } => format!("fixed({n}) (decimal({precision}, {scale}))"),
            Logical::BigDecimal => "bytes (big-decimal)".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(t: Temporal, v: i64) -> String {
        let mut out = Text::new();
        t.format(v, &mut out).unwrap();
        out.as_str().to_owned()
    }

    #[test]
    fn civil_round_trips() {
        for days in (-800_000..800_000)
            .step_by(997)
            .chain([-719_468, 0, 59, 60, 11_016])
        {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y as i64, m, d), days);
        }
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn text_forms() {
        let ts = Temporal::Timestamp(Unit::Micros);
        assert_eq!(ts.parse("1970-01-01T00:00:00Z").unwrap(), 0);
        assert_eq!(
            ts.parse("1970-01-01T00:00:01.5+01:00").unwrap(),
            -3_598_500_000
        );
        assert_eq!(ts.parse("1969-12-31T23:59:59.9999999Z").unwrap(), -1);
        assert_eq!(fmt(ts, -1), "1969-12-31T23:59:59.999999Z");
        assert_eq!(fmt(ts, 1_500_000), "1970-01-01T00:00:01.500Z");
        assert_eq!(
            Temporal::Local(Unit::Millis)
                .parse("2024-02-29T12:00:00+05:00")
                .unwrap(),
            1_709_208_000_000
        );
        assert_eq!(Temporal::Date.parse("2000-03-01").unwrap(), 11_017);
        assert_eq!(fmt(Temporal::Date, -719_529), "-0001-12-31");
        assert_eq!(fmt(Temporal::Date, 2_932_897), "+10000-01-01");
        assert_eq!(Temporal::Date.parse("+10000-01-01").unwrap(), 2_932_897);
        assert!(Temporal::Date.parse("2023-02-29").is_err());
        assert!(Temporal::Date.parse("2023-1-01").is_err());
        assert_eq!(
            Temporal::Time(Unit::Millis).parse("23:59:59.999").unwrap(),
            86_399_999
        );
        assert_eq!(
            fmt(Temporal::Time(Unit::Micros), 45_296_000_001),
            "12:34:56.000001"
        );
        assert!(Temporal::Time(Unit::Micros).parse("24:00:00").is_err());
        assert!(Temporal::Time(Unit::Micros)
            .format(-1, &mut Text::new())
            .is_err());
        assert!(Temporal::Date.parse("99999999-01-01").is_err());
    }

    #[test]
    fn parts() {
        let ts = Temporal::Timestamp(Unit::Nanos);
        let v = ts.parse("2024-03-01T01:02:03.000000004Z").unwrap();
        let (p, n) = ts.parts(v, 9).unwrap().unwrap();
        assert_eq!(&p[..n], &[2024, 61, 1, 2, 3, 4, 0, 0, 0]);
        assert_eq!(ts.count_of_parts(&p[..n]).unwrap(), v);
        assert_eq!(
            ts.count_of_parts(&[2024, 61, 3, 2, 3, 4, 2, 0, 0]).unwrap(),
            v
        );
        assert_eq!(
            Temporal::Local(Unit::Nanos)
                .count_of_parts(&[2024, 61, 1, 2, 3, 4, 2, 0, 0])
                .unwrap(),
            v
        );
        assert!(Temporal::Date.parts(0, 9).unwrap().is_none());
        assert!(Temporal::Date.count_of_parts(&[2023, 366]).is_err());
    }
}
