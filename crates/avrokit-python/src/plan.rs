//! A schema compiled once into a plan of Python-object builders.
//!
//! One [`PNode`] per node of the core schema's arena (same indexes, so recursive types need
//! nothing special). Everything the per-datum loops need is decided here: field names as
//! interned Python strings, enum symbols as Python strings and a symbol lookup table, the
//! Python value each logical type maps to (the value fastavro gives), field defaults already
//! encoded, and the facts the union branch guessing needs.

use std::collections::HashMap;

use avrokit::schema::{LogicalType, NodeKind};
use avrokit::Schema;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// How a node's values look in Python, beyond their Avro type: the logical types fastavro
/// converts. Logical types fastavro leaves alone (`timestamp-nanos`, `duration`, `big-decimal`,
/// `uuid` on `fixed`...) are `None` here too, so their values are the underlying type's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logical {
    None,
    Date,
    TimeMillis,
    TimeMicros,
    TimestampMillis,
    TimestampMicros,
    LocalTimestampMillis,
    LocalTimestampMicros,
    Decimal { precision: u32, scale: u32 },
    Uuid,
}

pub enum PKind {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    Fixed(usize),
    Enum(Box<PEnum>),
    Array(u32),
    Map(u32),
    Record(Box<PRecord>),
    Union(Box<PUnion>),
}

pub struct PEnum {
    pub symbols: Vec<Py<PyString>>,
    pub index: HashMap<String, u32>,
}

pub struct PRecord {
    pub fields: Vec<PField>,
}

pub struct PField {
    pub name: Py<PyString>,
    pub node: u32,
    /// The field's default, encoded with the field's schema, written when a record lacks it.
    pub default: Option<Vec<u8>>,
    /// The field's type is a union with a `null` branch: a missing value is written as null.
    pub nullable: bool,
}

pub struct PUnion {
    pub branches: Vec<u32>,
    /// Exactly one branch is a record (fastavro's `return_record_name_override` test).
    pub single_record: bool,
    /// Exactly one branch is a named type (fastavro's `return_named_type_override` test).
    pub single_named: bool,
}

pub struct PNode {
    pub kind: PKind,
    pub logical: Logical,
    /// What names this node in fastavro's `(name, value)` union notation: the fullname of a
    /// named type, else the type name (`"string"`, `"array"`...).
    pub name: Py<PyString>,
    pub is_named: bool,
    /// The fewest bytes a value of this node takes on the wire.
    pub min_size: u64,
}

/// A compiled schema: the core schema and its plan.
pub struct Plan {
    pub schema: Schema,
    pub nodes: Vec<PNode>,
    pub root: u32,
}

impl Plan {
    #[inline(always)]
    pub fn node(&self, id: u32) -> &PNode {
        &self.nodes[id as usize]
    }

    pub fn root_node(&self) -> &PNode {
        self.node(self.root)
    }

    /// Compiles `schema`'s whole arena.
    pub fn compile(py: Python<'_>, schema: &Schema) -> PyResult<Plan> {
        let arena = schema.nodes();
        let mut nodes = Vec::with_capacity(arena.len());
        for node in arena {
            let logical = logical_of(node.kind(), node.logical);
            let (name, is_named) = match node.name() {
                Some(n) => (PyString::intern(py, n.fullname()).unbind(), true),
                None => (
                    PyString::intern(py, node.kind().type_name()).unbind(),
                    false,
                ),
            };
            let kind = match node.kind() {
                NodeKind::Null => PKind::Null,
                NodeKind::Boolean => PKind::Boolean,
                NodeKind::Int => PKind::Int,
                NodeKind::Long => PKind::Long,
                NodeKind::Float => PKind::Float,
                NodeKind::Double => PKind::Double,
                NodeKind::Bytes => PKind::Bytes,
                NodeKind::String => PKind::String,
                NodeKind::Fixed(f) => PKind::Fixed(f.size),
                NodeKind::Enum(e) => PKind::Enum(Box::new(PEnum {
                    symbols: e
                        .symbols
                        .iter()
                        .map(|s| PyString::intern(py, s).unbind())
                        .collect(),
                    index: e
                        .symbols
                        .iter()
                        .enumerate()
                        .map(|(i, s)| (s.clone(), i as u32))
                        .collect(),
                })),
                NodeKind::Array(a) => PKind::Array(a.items.index() as u32),
                NodeKind::Map(m) => PKind::Map(m.values.index() as u32),
                NodeKind::Record(r) => {
                    let mut fields = Vec::with_capacity(r.fields.len());
                    for f in &r.fields {
                        let default = match &f.default {
                            Some(json) => Some(encode_default(schema, f.schema, json)?),
                            None => None,
                        };
                        let nullable = match arena[f.schema.index()].kind() {
                            NodeKind::Union(u) => u
                                .variants
                                .iter()
                                .any(|v| matches!(arena[v.index()].kind(), NodeKind::Null)),
                            _ => false,
                        };
                        fields.push(PField {
                            name: PyString::intern(py, &f.name).unbind(),
                            node: f.schema.index() as u32,
                            default,
                            nullable,
                        });
                    }
                    PKind::Record(Box::new(PRecord { fields }))
                }
                NodeKind::Union(u) => {
                    let kinds = u.variants.iter().map(|v| arena[v.index()].kind());
                    let records = kinds
                        .clone()
                        .filter(|k| matches!(k, NodeKind::Record(_)))
                        .count();
                    let named = kinds
                        .filter(|k| {
                            matches!(
                                k,
                                NodeKind::Record(_) | NodeKind::Enum(_) | NodeKind::Fixed(_)
                            )
                        })
                        .count();
                    PKind::Union(Box::new(PUnion {
                        branches: u.variants.iter().map(|v| v.index() as u32).collect(),
                        single_record: records == 1,
                        single_named: named == 1,
                    }))
                }
            };
            nodes.push(PNode {
                kind,
                logical,
                name,
                is_named,
                min_size: 0,
            });
        }
        let mut plan = Plan {
            schema: schema.clone(),
            nodes,
            root: schema.root_id().index() as u32,
        };
        let mut memo = vec![None; plan.nodes.len()];
        for id in 0..plan.nodes.len() {
            let m = min_size(&plan, id as u32, &mut memo, 0);
            plan.nodes[id].min_size = m;
        }
        Ok(plan)
    }
}

/// The fewest bytes a value of `id` takes; a type met again while being sized counts 0 (a
/// lower bound is all the callers need).
fn min_size(plan: &Plan, id: u32, memo: &mut [Option<u64>], depth: usize) -> u64 {
    if let Some(m) = memo[id as usize] {
        return m;
    }
    if depth > 64 {
        return 0;
    }
    memo[id as usize] = Some(0);
    let m = match &plan.node(id).kind {
        PKind::Null => 0,
        PKind::Boolean | PKind::Int | PKind::Long | PKind::Bytes | PKind::String => 1,
        PKind::Enum(_) | PKind::Array(_) | PKind::Map(_) => 1,
        PKind::Float => 4,
        PKind::Double => 8,
        PKind::Fixed(n) => *n as u64,
        PKind::Record(r) => r
            .fields
            .iter()
            .map(|f| min_size(plan, f.node, memo, depth + 1))
            .fold(0u64, u64::saturating_add),
        PKind::Union(u) => {
            1 + u
                .branches
                .iter()
                .map(|&b| min_size(plan, b, memo, depth + 1))
                .min()
                .unwrap_or(0)
        }
    };
    memo[id as usize] = Some(m);
    m
}

fn logical_of(kind: &NodeKind, logical: Option<LogicalType>) -> Logical {
    match (logical, kind) {
        (Some(LogicalType::Date), NodeKind::Int) => Logical::Date,
        (Some(LogicalType::TimeMillis), NodeKind::Int) => Logical::TimeMillis,
        (Some(LogicalType::TimeMicros), NodeKind::Long) => Logical::TimeMicros,
        (Some(LogicalType::TimestampMillis), NodeKind::Long) => Logical::TimestampMillis,
        (Some(LogicalType::TimestampMicros), NodeKind::Long) => Logical::TimestampMicros,
        (Some(LogicalType::LocalTimestampMillis), NodeKind::Long) => Logical::LocalTimestampMillis,
        (Some(LogicalType::LocalTimestampMicros), NodeKind::Long) => Logical::LocalTimestampMicros,
        (Some(LogicalType::Decimal { precision, scale }), NodeKind::Bytes | NodeKind::Fixed(_)) => {
            Logical::Decimal { precision, scale }
        }
        (Some(LogicalType::Uuid), NodeKind::String) => Logical::Uuid,
        _ => Logical::None,
    }
}

/// A field default (Avro JSON for the field's type) encoded with the field's schema.
fn encode_default(
    schema: &Schema,
    id: avrokit::schema::NodeId,
    json: &serde_json::Value,
) -> PyResult<Vec<u8>> {
    let value =
        avrokit::json::default_to_value(json, schema, id).map_err(crate::errors::avro_err)?;
    avrokit::to_datum_vec(&value, &schema.at(id)).map_err(crate::errors::avro_err)
}
