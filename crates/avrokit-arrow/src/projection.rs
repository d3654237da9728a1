//! Projection by column name: a reader schema with only the selected fields, so that the
//! core's plan skips the others (they are never decoded).
//!
//! A path names a field of the root record, then fields of nested records (`a.b.c`), passing
//! through nullable unions, array items and map values on the way. A field selected by its own
//! path is kept whole. A named record reached by several paths keeps every field any of them
//! selects (a type has one definition).

use std::collections::{HashMap, HashSet};

use avrokit::schema::{LogicalType, Name, NodeId, NodeKind};
use avrokit::Schema;
use serde_json::{json, Map, Value};

use crate::error::{Error, Result};

/// The reader schema keeping only the fields on `paths`, in schema order.
pub(crate) fn project(schema: &Schema, paths: &[String]) -> Result<Schema> {
    let NodeKind::Record(_) = &schema.root().kind else {
        return Err(Error::unsupported(
            "projection needs a record at the top of the schema",
        ));
    };
    let mut selected: HashMap<NodeId, HashSet<String>> = HashMap::new();
    // No paths select no columns (a `count(*)` scan): the root keeps none of its fields,
    // rather than all of them as an unselected nested record would.
    selected.insert(schema.root_id(), HashSet::new());
    let mut whole: Vec<NodeId> = Vec::new();
    for path in paths {
        let mut at = schema.root_id();
        let segments: Vec<&str> = path.split('.').collect();
        for (i, seg) in segments.iter().enumerate() {
            let rec = record_below(schema, at).ok_or_else(|| {
                Error::mismatch(format!(
                    "column {path:?}: {} is not a record",
                    segments[..i].join(".")
                ))
            })?;
            let NodeKind::Record(r) = &schema.node(rec).kind else {
                unreachable!("record_below returns records")
            };
            let f =
                r.fields.iter().find(|f| f.name == *seg).ok_or_else(|| {
                    Error::mismatch(format!("no column {path:?}: no field {seg:?}"))
                })?;
            selected.entry(rec).or_default().insert(f.name.clone());
            at = f.schema;
            if i + 1 == segments.len() {
                whole.push(f.schema);
            }
        }
    }
    // Everything below a whole selection is kept whole.
    let mut keep_all: HashSet<NodeId> = HashSet::new();
    while let Some(id) = whole.pop() {
        if !keep_all.insert(id) {
            continue;
        }
        match &schema.node(id).kind {
            NodeKind::Record(r) => whole.extend(r.fields.iter().map(|f| f.schema)),
            NodeKind::Array(a) => whole.push(a.items),
            NodeKind::Map(m) => whole.push(m.values),
            NodeKind::Union(u) => whole.extend(u.variants.iter().copied()),
            _ => {}
        }
    }
    let mut w = Writer {
        schema,
        selected: &selected,
        keep_all: &keep_all,
        written: HashSet::new(),
    };
    let json = w.write(schema.root_id());
    Ok(Schema::parse_json(&json)?)
}

/// The record at `id`, or inside its nullable union, array items or map values.
fn record_below(schema: &Schema, mut id: NodeId) -> Option<NodeId> {
    for _ in 0..64 {
        match &schema.node(id).kind {
            NodeKind::Record(_) => return Some(id),
            NodeKind::Array(a) => id = a.items,
            NodeKind::Map(m) => id = m.values,
            NodeKind::Union(u) => {
                let mut records = u
                    .variants
                    .iter()
                    .filter(|v| !matches!(schema.node(**v).kind, NodeKind::Null));
                let first = *records.next()?;
                if records.next().is_some() {
                    return None;
                }
                id = first;
            }
            _ => return None,
        }
    }
    None
}

struct Writer<'a> {
    schema: &'a Schema,
    selected: &'a HashMap<NodeId, HashSet<String>>,
    keep_all: &'a HashSet<NodeId>,
    written: HashSet<NodeId>,
}

fn names(aliases: &[Name]) -> Value {
    Value::Array(aliases.iter().map(|a| a.fullname().into()).collect())
}

fn named(m: &mut Map<String, Value>, ty: &str, name: &Name, aliases: &[Name]) {
    m.insert("type".into(), ty.into());
    m.insert("name".into(), name.name().into());
    m.insert("namespace".into(), name.namespace().unwrap_or("").into());
    if !aliases.is_empty() {
        m.insert("aliases".into(), names(aliases));
    }
}

impl Writer<'_> {
    fn write(&mut self, id: NodeId) -> Value {
        let node = self.schema.node(id);
        if let Some(name) = node.name() {
            if !self.written.insert(id) {
                return name.fullname().into();
            }
        }
        let mut m = Map::new();
        match &node.kind {
            NodeKind::Record(r) => {
                named(&mut m, "record", &r.name, &r.aliases);
                let keep = |f: &str| {
                    self.keep_all.contains(&id)
                        || self.selected.get(&id).is_none_or(|s| s.contains(f))
                };
                let fields: Vec<Value> = r
                    .fields
                    .iter()
                    .filter(|f| keep(&f.name))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .map(|f| {
                        let mut fm = Map::new();
                        fm.insert("name".into(), f.name.as_str().into());
                        fm.insert("type".into(), self.write(f.schema));
                        if let Some(d) = &f.default {
                            fm.insert("default".into(), d.clone());
                        }
                        if !f.aliases.is_empty() {
                            fm.insert("aliases".into(), json!(f.aliases));
                        }
                        Value::Object(fm)
                    })
                    .collect();
                m.insert("fields".into(), fields.into());
            }
            NodeKind::Enum(e) => {
                named(&mut m, "enum", &e.name, &e.aliases);
                m.insert("symbols".into(), json!(e.symbols));
                if let Some(d) = e.default.and_then(|d| e.symbols.get(d as usize)) {
                    m.insert("default".into(), d.as_str().into());
                }
            }
            NodeKind::Fixed(f) => {
                named(&mut m, "fixed", &f.name, &f.aliases);
                m.insert("size".into(), f.size.into());
            }
            NodeKind::Array(a) => {
                m.insert("type".into(), "array".into());
                let items = self.write(a.items);
                m.insert("items".into(), items);
            }
            NodeKind::Map(mm) => {
                m.insert("type".into(), "map".into());
                let values = self.write(mm.values);
                m.insert("values".into(), values);
            }
            NodeKind::Union(u) => {
                return Value::Array(u.variants.iter().map(|&v| self.write(v)).collect());
            }
            k => {
                if node.logical.is_none() {
                    return k.type_name().into();
                }
                m.insert("type".into(), k.type_name().into());
            }
        }
        if let Some(l) = node.logical {
            m.insert("logicalType".into(), l.name().into());
            if let LogicalType::Decimal { precision, scale } = l {
                m.insert("precision".into(), precision.into());
                m.insert("scale".into(), scale.into());
            }
        }
        Value::Object(m)
    }
}
