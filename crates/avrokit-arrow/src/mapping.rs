//! The type mapping, Avro to Arrow (the table in the crate's README). It follows arrow-avro
//! 59.3 wherever arrow-avro defines one, so that batches from either reader look alike.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, IntervalUnit, TimeUnit, UnionFields, UnionMode};
use avrokit::schema::{LogicalType, Node, NodeId, NodeKind};
use avrokit::Schema;

use crate::error::{Error, Result};

/// The timezone arrow-avro gives `timestamp-*` columns (UTC instants).
pub const UTC: &str = "+00:00";

/// The schema-level metadata key holding the Avro schema a batch was read as (arrow-avro's key).
pub const AVRO_SCHEMA_KEY: &str = "avro.schema";

/// The field metadata arrow-avro puts on `uuid` columns, so that writers can write `uuid` back.
pub const LOGICAL_TYPE_KEY: &str = "logicalType";

/// The list item field name (Arrow's default, as arrow-avro uses).
pub const LIST_ITEM: &str = "item";

/// Mapping choices.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MapOptions {
    pub(crate) utf8_view: bool,
    /// Enums as their symbols' text (`Utf8`, or `Utf8View` with `utf8_view`) rather than
    /// `Dictionary(Int32, Utf8)`.
    pub(crate) enum_as_string: bool,
}

/// The largest decimal precision Arrow's Decimal128 holds.
pub(crate) const DECIMAL128_MAX: u32 = 38;
/// The largest decimal precision Arrow's Decimal256 holds.
pub(crate) const DECIMAL256_MAX: u32 = 76;

/// The branch of `["null", T]` or `[T, "null"]` that is not null, and the null branch.
pub(crate) fn nullable_union(schema: &Schema, node: &Node) -> Option<(NodeId, u32)> {
    let NodeKind::Union(u) = &node.kind else {
        return None;
    };
    if u.variants.len() != 2 {
        return None;
    }
    let is_null = |id: NodeId| matches!(schema.node(id).kind, NodeKind::Null);
    match (is_null(u.variants[0]), is_null(u.variants[1])) {
        (true, false) => Some((u.variants[1], 0)),
        (false, true) => Some((u.variants[0], 1)),
        _ => None,
    }
}

/// Walks a reader schema to Arrow types; named types are followed by id, so recursion (which
/// Arrow cannot represent) is detected by the stack of records being mapped.
pub(crate) struct Mapper<'a> {
    pub(crate) schema: &'a Schema,
    pub(crate) opts: MapOptions,
    open: Vec<NodeId>,
    cache: HashMap<NodeId, DataType>,
}

impl<'a> Mapper<'a> {
    pub(crate) fn new(schema: &'a Schema, opts: MapOptions) -> Mapper<'a> {
        Mapper {
            schema,
            opts,
            open: Vec::new(),
            cache: HashMap::new(),
        }
    }

    /// The Arrow field for a value of node `id` named `name`.
    pub(crate) fn field(&mut self, name: &str, id: NodeId) -> Result<Field> {
        let node = self.schema.node(id);
        if let Some((inner, _)) = nullable_union(self.schema, node) {
            let mut f = self.field(name, inner)?;
            f.set_nullable(true);
            return Ok(f);
        }
        let dt = self.data_type(id)?;
        let nullable = match &node.kind {
            NodeKind::Union(u) => u
                .variants
                .iter()
                .any(|v| matches!(self.schema.node(*v).kind, NodeKind::Null)),
            // Arrow checks a null column against its parent's nullability; top-level columns
            // are made non-nullable again, as arrow-avro has them.
            NodeKind::Null => true,
            _ => false,
        };
        let mut f = Field::new(name, dt, nullable);
        if node.logical == Some(LogicalType::Uuid) {
            f.set_metadata(HashMap::from([(
                LOGICAL_TYPE_KEY.to_owned(),
                "uuid".to_owned(),
            )]));
        }
        Ok(f)
    }

    /// The Arrow type of node `id` (not a nullable union: see [`field`](Self::field)).
    pub(crate) fn data_type(&mut self, id: NodeId) -> Result<DataType> {
        if let Some(dt) = self.cache.get(&id) {
            return Ok(dt.clone());
        }
        let node = self.schema.node(id);
        let dt = match &node.kind {
            NodeKind::Null => DataType::Null,
            NodeKind::Boolean => DataType::Boolean,
            NodeKind::Int => match node.logical {
                Some(LogicalType::Date) => DataType::Date32,
                Some(LogicalType::TimeMillis) => DataType::Time32(TimeUnit::Millisecond),
                _ => DataType::Int32,
            },
            NodeKind::Long => match node.logical {
                Some(LogicalType::TimeMicros) => DataType::Time64(TimeUnit::Microsecond),
                Some(LogicalType::TimestampMillis) => ts(TimeUnit::Millisecond, true),
                Some(LogicalType::TimestampMicros) => ts(TimeUnit::Microsecond, true),
                Some(LogicalType::TimestampNanos) => ts(TimeUnit::Nanosecond, true),
                Some(LogicalType::LocalTimestampMillis) => ts(TimeUnit::Millisecond, false),
                Some(LogicalType::LocalTimestampMicros) => ts(TimeUnit::Microsecond, false),
                Some(LogicalType::LocalTimestampNanos) => ts(TimeUnit::Nanosecond, false),
                _ => DataType::Int64,
            },
            NodeKind::Float => DataType::Float32,
            NodeKind::Double => DataType::Float64,
            NodeKind::Bytes => match node.logical {
                Some(LogicalType::Decimal { precision, scale }) => decimal(precision, scale)?,
                _ => DataType::Binary,
            },
            NodeKind::String => match node.logical {
                Some(LogicalType::Uuid) => DataType::FixedSizeBinary(16),
                _ if self.opts.utf8_view => DataType::Utf8View,
                _ => DataType::Utf8,
            },
            NodeKind::Fixed(f) => match node.logical {
                Some(LogicalType::Decimal { precision, scale }) => decimal(precision, scale)?,
                Some(LogicalType::Duration) => DataType::Interval(IntervalUnit::MonthDayNano),
                _ => {
                    let size = i32::try_from(f.size).map_err(|_| {
                        Error::unsupported(format!("fixed size {} is too large for Arrow", f.size))
                    })?;
                    DataType::FixedSizeBinary(size)
                }
            },
            NodeKind::Enum(_) if self.opts.enum_as_string => match self.opts.utf8_view {
                true => DataType::Utf8View,
                false => DataType::Utf8,
            },
            NodeKind::Enum(_) => {
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
            }
            NodeKind::Array(a) => DataType::List(Arc::new(self.field(LIST_ITEM, a.items)?)),
            NodeKind::Map(m) => {
                let value = self.field("value", m.values)?;
                let key = Field::new("key", DataType::Utf8, false);
                DataType::Map(
                    Arc::new(Field::new(
                        "entries",
                        DataType::Struct(Fields::from(vec![key, value])),
                        false,
                    )),
                    false,
                )
            }
            NodeKind::Record(r) => {
                if self.open.contains(&id) {
                    return Err(Error::unsupported(format!(
                        "record {} is recursive, which Arrow types cannot represent (project \
                         the recursive field away)",
                        r.name.fullname()
                    )));
                }
                self.open.push(id);
                let fields = r
                    .fields
                    .iter()
                    .map(|f| self.field(&f.name, f.schema))
                    .collect::<Result<Vec<_>>>();
                self.open.pop();
                DataType::Struct(Fields::from(fields?))
            }
            NodeKind::Union(u) => {
                if u.variants.len() > 127 {
                    return Err(Error::unsupported(
                        "a union of more than 127 branches does not fit Arrow's type ids",
                    ));
                }
                let fields = u
                    .variants
                    .iter()
                    .map(|&v| {
                        let name = branch_name(self.schema.node(v));
                        self.field(&name, v)
                    })
                    .collect::<Result<Vec<_>>>()?;
                let ids: Vec<i8> = (0..fields.len() as i8).collect();
                DataType::Union(UnionFields::try_new(ids, fields)?, UnionMode::Dense)
            }
        };
        if !matches!(node.kind, NodeKind::Record(_)) || self.open.is_empty() {
            self.cache.insert(id, dt.clone());
        }
        Ok(dt)
    }
}

fn ts(unit: TimeUnit, utc: bool) -> DataType {
    DataType::Timestamp(unit, utc.then(|| UTC.into()))
}

fn decimal(precision: u32, scale: u32) -> Result<DataType> {
    let (p, s) = (precision as u8, scale as i8);
    if precision <= DECIMAL128_MAX {
        Ok(DataType::Decimal128(p, s))
    } else if precision <= DECIMAL256_MAX {
        Ok(DataType::Decimal256(p, s))
    } else {
        Err(Error::unsupported(format!(
            "decimal precision {precision} exceeds Arrow's maximum of {DECIMAL256_MAX}"
        )))
    }
}

/// A union branch's field name, as arrow-avro names it: a named type's fullname, else the
/// type (with its logical type) in snake case.
pub(crate) fn branch_name(node: &Node) -> String {
    if let Some(n) = node.name() {
        return n.fullname().to_owned();
    }
    let logical = match node.logical {
        Some(LogicalType::Date) if matches!(node.kind, NodeKind::Int) => Some("date"),
        Some(LogicalType::TimeMillis) if matches!(node.kind, NodeKind::Int) => Some("time_millis"),
        Some(l) if matches!(node.kind, NodeKind::Long) => Some(match l {
            LogicalType::TimeMicros => "time_micros",
            LogicalType::TimestampMillis => "timestamp_millis_utc",
            LogicalType::TimestampMicros => "timestamp_micros_utc",
            LogicalType::TimestampNanos => "timestamp_nanos_utc",
            LogicalType::LocalTimestampMillis => "timestamp_millis_local",
            LogicalType::LocalTimestampMicros => "timestamp_micros_local",
            LogicalType::LocalTimestampNanos => "timestamp_nanos_local",
            _ => "long",
        }),
        Some(LogicalType::Decimal { .. }) if matches!(node.kind, NodeKind::Bytes) => {
            Some("decimal")
        }
        Some(LogicalType::Uuid) if matches!(node.kind, NodeKind::String) => Some("uuid"),
        _ => None,
    };
    logical.unwrap_or(node.kind.type_name()).to_owned()
}
