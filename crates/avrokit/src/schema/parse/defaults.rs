//! Pass 3 of the schema parser: field defaults validated against the completed arena.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::check_depth;
use super::errors::{bad_default, missing_default_field};
use crate::error::{Error, Result};
use crate::schema::{EnumSchema, Node, NodeId, NodeKind};

/// Pass 3: validates field defaults against the completed arena.
pub(super) struct DefaultsPass<'a> {
    pub(super) nodes: &'a [Node],
    /// Symbol sets of the large enums met so far (see [`DefaultsPass::has_symbol`]).
    pub(super) symbol_sets: HashMap<NodeId, HashSet<&'a str>>,
}

impl<'a> DefaultsPass<'a> {
    /// Validates the field defaults of the definitions in `json`, built as node `id`.
    pub(super) fn defaults(&mut self, json: &Value, id: NodeId, depth: usize) -> Result<()> {
        check_depth(depth)?;
        let nodes = self.nodes;
        match (json, &nodes[id.index()].kind) {
            (Value::Array(items), NodeKind::Union(u)) => {
                for (i, (item, &branch)) in items.iter().zip(&u.variants).enumerate() {
                    self.defaults(item, branch, depth + 1)
                        .map_err(|e| e.in_index(i as u64))?;
                }
            }
            (Value::Object(obj), kind) => {
                // Only a definition has nested JSON to walk: `{"type": "Foo"}` is a reference.
                match (obj.get("type").and_then(Value::as_str), kind) {
                    (Some("record" | "error"), NodeKind::Record(rec)) => {
                        let Some(Value::Array(fields)) = obj.get("fields") else {
                            return Ok(());
                        };
                        for (i, (field_json, field)) in fields.iter().zip(&rec.fields).enumerate() {
                            let at = |e: Error| e.in_index(i as u64).in_field("fields");
                            if let Some(ty) = field_json.get("type") {
                                self.defaults(ty, field.schema, depth + 1)
                                    .map_err(|e| at(e.in_field("type")))?;
                            }
                            if let Some(default) = &field.default {
                                self.check_default(default, field.schema, 0, false)
                                    .map_err(|e| at(e.in_field("default")))?;
                            }
                        }
                    }
                    (Some("array"), NodeKind::Array(a)) => {
                        if let Some(items) = obj.get("items") {
                            self.defaults(items, a.items, depth + 1)
                                .map_err(|e| e.in_field("items"))?;
                        }
                    }
                    (Some("map"), NodeKind::Map(m)) => {
                        if let Some(values) = obj.get("values") {
                            self.defaults(values, m.values, depth + 1)
                                .map_err(|e| e.in_field("values"))?;
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Checks that `v` is a valid default (Avro JSON encoding) for the type `id`. A union's
    /// default is for its first branch; `first_branch` says we are checking one, for the message.
    fn check_default(
        &mut self,
        v: &Value,
        id: NodeId,
        depth: usize,
        first_branch: bool,
    ) -> Result<()> {
        check_depth(depth)?;
        let nodes = self.nodes;
        let node = &nodes[id.index()];
        let ok = match &node.kind {
            NodeKind::Null => v.is_null(),
            NodeKind::Boolean => v.is_boolean(),
            NodeKind::Int => v.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
            NodeKind::Long => v.is_i64(),
            // Integers are numbers too; NaN and the infinities, which JSON cannot write, are
            // accepted as the strings Java's encoder uses for them.
            NodeKind::Float | NodeKind::Double => {
                v.is_number() || matches!(v.as_str(), Some("NaN" | "Infinity" | "-Infinity"))
            }
            NodeKind::String => v.is_string(),
            NodeKind::Bytes => v.as_str().is_some_and(|s| s.chars().all(|c| c <= '\u{ff}')),
            NodeKind::Fixed(f) => v
                .as_str()
                .is_some_and(|s| s.chars().all(|c| c <= '\u{ff}') && s.chars().count() == f.size),
            NodeKind::Enum(e) => v.as_str().is_some_and(|s| self.has_symbol(id, e, s)),
            NodeKind::Array(a) => {
                let Value::Array(items) = v else {
                    return Err(bad_default(v, node, first_branch));
                };
                for (i, item) in items.iter().enumerate() {
                    self.check_default(item, a.items, depth + 1, false)
                        .map_err(|e| e.in_index(i as u64))?;
                }
                true
            }
            NodeKind::Map(m) => {
                let Value::Object(entries) = v else {
                    return Err(bad_default(v, node, first_branch));
                };
                for (key, value) in entries {
                    self.check_default(value, m.values, depth + 1, false)
                        .map_err(|e| e.in_key(key))?;
                }
                true
            }
            NodeKind::Record(r) => {
                let Value::Object(entries) = v else {
                    return Err(bad_default(v, node, first_branch));
                };
                // As Java: every field must be given unless it has a default of its own; keys
                // that are not fields are ignored.
                for field in &r.fields {
                    match entries.get(&field.name) {
                        Some(value) => self
                            .check_default(value, field.schema, depth + 1, false)
                            .map_err(|e| e.in_field(field.name.clone()))?,
                        None if field.default.is_some() => {}
                        None => return Err(missing_default_field(&r.name, &field.name)),
                    }
                }
                true
            }
            NodeKind::Union(u) => {
                let Some(&first) = u.variants.first() else {
                    return Err(Error::schema(
                        "an empty union has no values, so it cannot have a default",
                    ));
                };
                return self.check_default(v, first, depth + 1, true);
            }
        };
        if ok {
            Ok(())
        } else {
            Err(bad_default(v, node, first_branch))
        }
    }

    /// True when `symbol` is one of the enum's. Large enums get a hash set, built once, so that a
    /// long array of enum defaults costs linear time, not symbols × items.
    fn has_symbol(&mut self, id: NodeId, e: &'a EnumSchema, symbol: &str) -> bool {
        const LINEAR_UP_TO: usize = 16;
        if e.symbols.len() <= LINEAR_UP_TO {
            return e.symbols.iter().any(|s| s == symbol);
        }
        self.symbol_sets
            .entry(id)
            .or_insert_with(|| e.symbols.iter().map(String::as_str).collect())
            .contains(symbol)
    }
}
