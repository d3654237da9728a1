//! An Avro schema for an Arrow schema, named as arrow-avro names it: the root record
//! `topLevelRecord`, nested records, enums and fixed types after their field (made unique with
//! `_2`, `_3`...), nullable fields as `["null", T]`.

use std::collections::HashSet;

use arrow_schema::{DataType, Field, IntervalUnit, Schema as ArrowSchema, TimeUnit};
use avrokit::Schema;
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::mapping::{AVRO_SCHEMA_KEY, LOGICAL_TYPE_KEY};

/// The root record's name when the Arrow schema does not carry an Avro schema.
pub const ROOT_RECORD_NAME: &str = "topLevelRecord";

/// The Avro schema batches of `schema` are written with: the one in its `avro.schema`
/// metadata when there is one (a batch read from Avro), else one derived from the Arrow types.
///
/// # Errors
/// An Arrow type with no Avro counterpart, or a bad `avro.schema`.
pub fn avro_schema_for(schema: &ArrowSchema) -> Result<Schema> {
    if let Some(json) = schema.metadata().get(AVRO_SCHEMA_KEY) {
        return Ok(Schema::parse_str(json)?);
    }
    derive_avro_schema(schema)
}

/// The Avro schema derived from the Arrow types alone (ignoring `avro.schema` metadata).
///
/// # Errors
/// An Arrow type with no Avro counterpart.
pub fn derive_avro_schema(schema: &ArrowSchema) -> Result<Schema> {
    let mut names = Names::default();
    names.unique(ROOT_RECORD_NAME);
    let fields = schema
        .fields()
        .iter()
        .map(|f| field(f, &mut names))
        .collect::<Result<Vec<_>>>()?;
    let json = json!({"type": "record", "name": ROOT_RECORD_NAME, "fields": fields});
    Ok(Schema::parse_json(&json)?)
}

#[derive(Default)]
struct Names {
    used: HashSet<String>,
}

impl Names {
    fn unique(&mut self, base: &str) -> String {
        let base = sanitise(base);
        if self.used.insert(base.clone()) {
            return base;
        }
        (2..)
            .map(|i| format!("{base}_{i}"))
            .find(|c| self.used.insert(c.clone()))
            .unwrap_or(base)
    }
}

/// An Avro name from any text: letters, digits and `_`, not starting with a digit; a valid
/// dotted fullname (a union branch's field name) is kept.
fn sanitise(s: &str) -> String {
    let valid = |seg: &str| {
        !seg.is_empty()
            && !seg.starts_with(|c: char| c.is_ascii_digit())
            && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if s.split('.').all(valid) {
        return s.to_owned();
    }
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn field(f: &Field, names: &mut Names) -> Result<Value> {
    Ok(json!({"name": f.name(), "type": nullable(f, names)?}))
}

fn nullable(f: &Field, names: &mut Names) -> Result<Value> {
    let t = type_of(f, names)?;
    let already = matches!(f.data_type(), DataType::Null | DataType::Union(..));
    Ok(if f.is_nullable() && !already {
        json!(["null", t])
    } else {
        t
    })
}

fn type_of(f: &Field, names: &mut Names) -> Result<Value> {
    let logical = |t: &str, l: &str| json!({"type": t, "logicalType": l});
    Ok(match f.data_type() {
        DataType::Null => json!("null"),
        DataType::Boolean => json!("boolean"),
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::UInt8 | DataType::UInt16 => {
            json!("int")
        }
        DataType::Int64 | DataType::UInt32 => json!("long"),
        DataType::Float16 | DataType::Float32 => json!("float"),
        DataType::Float64 => json!("double"),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => json!("bytes"),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => json!("string"),
        DataType::FixedSizeBinary(16)
            if f.metadata()
                .get(LOGICAL_TYPE_KEY)
                .is_some_and(|l| l == "uuid") =>
        {
            logical("string", "uuid")
        }
        DataType::FixedSizeBinary(n) => {
            json!({"type": "fixed", "name": names.unique(f.name()), "size": n})
        }
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            if *s < 0 {
                return Err(Error::unsupported(format!(
                    "column {}: a negative decimal scale has no Avro form",
                    f.name()
                )));
            }
            json!({"type": "bytes", "logicalType": "decimal", "precision": p, "scale": s})
        }
        DataType::Date32 => logical("int", "date"),
        DataType::Time32(TimeUnit::Millisecond) | DataType::Time32(TimeUnit::Second) => {
            logical("int", "time-millis")
        }
        DataType::Time64(_) => logical("long", "time-micros"),
        DataType::Timestamp(unit, tz) => {
            let unit = match unit {
                TimeUnit::Second | TimeUnit::Millisecond => "millis",
                TimeUnit::Microsecond => "micros",
                TimeUnit::Nanosecond => "nanos",
            };
            let local = if tz.is_some() { "" } else { "local-" };
            logical("long", &format!("{local}timestamp-{unit}"))
        }
        DataType::Interval(IntervalUnit::MonthDayNano) => json!({
            "type": "fixed", "name": names.unique(f.name()), "size": 12, "logicalType": "duration"
        }),
        DataType::Dictionary(_, v) if matches!(**v, DataType::Utf8 | DataType::LargeUtf8) => {
            json!("string")
        }
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            json!({"type": "array", "items": nullable(item, names)?})
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(Error::unsupported("a map whose entries are not a struct"));
            };
            if !matches!(
                kv[0].data_type(),
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            ) {
                return Err(Error::unsupported(format!(
                    "column {}: Avro map keys are strings, not {}",
                    f.name(),
                    kv[0].data_type()
                )));
            }
            json!({"type": "map", "values": nullable(&kv[1], names)?})
        }
        DataType::Struct(fields) => {
            let name = names.unique(f.name());
            let fields = fields
                .iter()
                .map(|c| field(c, names))
                .collect::<Result<Vec<_>>>()?;
            json!({"type": "record", "name": name, "fields": fields})
        }
        DataType::Union(fields, _) => Value::Array(
            fields
                .iter()
                .map(|(_, c)| type_of(c, names))
                .collect::<Result<Vec<_>>>()?,
        ),
        other => {
            return Err(Error::unsupported(format!(
                "column {}: Arrow type {other} has no Avro counterpart",
                f.name()
            )))
        }
    })
}
