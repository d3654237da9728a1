//! Schema to JSON, with everything the parser kept.
//!
//! A depth-first walk from the root writes each named type in full the first time it meets it
//! and by name after that, so recursive and shared types come out as they must. Names are written
//! the way Java writes them: a definition has its simple `name` plus a `namespace` attribute when
//! its namespace differs from the enclosing one (`""` for the null namespace inside a namespaced
//! type); a reference is the simple name when the namespaces agree and the fullname otherwise.
//! Every position keeps the enclosing namespace it had in the parsed document, so the output
//! parses back to the same schema (same canonical form, same `to_json`).
//!
//! Key order: `type`, `name`, `namespace`, `doc`, `aliases`, then the kind's own attributes,
//! the logical type, and the custom properties in document order. Fields: `name`, `type`, `doc`,
//! `default`, `order` (only when not ascending), `aliases`, custom properties.

use serde_json::{Map, Value};

use super::{LogicalType, Name, Node, NodeId, NodeKind, Order, Schema};

pub(crate) fn to_json(schema: &Schema) -> Value {
    let nodes = schema.nodes();
    let mut w = Writer {
        nodes,
        written: vec![false; nodes.len()],
    };
    w.write(schema.root_id(), None)
}

struct Writer<'a> {
    nodes: &'a [Node],
    /// Named types already written in full.
    written: Vec<bool>,
}

impl<'a> Writer<'a> {
    /// Writes node `id` at a position whose enclosing namespace is `ns`.
    ///
    /// Recursion is bounded: the parser rejects schemas that would nest deeper than its limit
    /// when written this way.
    fn write(&mut self, id: NodeId, ns: Option<&'a str>) -> Value {
        let nodes = self.nodes;
        let node = &nodes[id.index()];
        let mut m = Map::new();
        match &node.kind {
            NodeKind::Record(r) => {
                if self.first_time(id) {
                    let ty = if r.is_error { "error" } else { "record" };
                    m.insert("type".into(), ty.into());
                    self.write_name(&mut m, &r.name, ns, r.doc.as_deref(), &r.aliases);
                    let inner = r.name.namespace();
                    let fields = r
                        .fields
                        .iter()
                        .map(|f| {
                            let mut fm = Map::new();
                            fm.insert("name".into(), f.name.as_str().into());
                            fm.insert("type".into(), self.write(f.schema, inner));
                            if let Some(doc) = &f.doc {
                                fm.insert("doc".into(), doc.as_str().into());
                            }
                            if let Some(default) = &f.default {
                                fm.insert("default".into(), default.clone());
                            }
                            match f.order {
                                Order::Ascending => {}
                                Order::Descending => {
                                    fm.insert("order".into(), "descending".into());
                                }
                                Order::Ignore => {
                                    fm.insert("order".into(), "ignore".into());
                                }
                            }
                            if !f.aliases.is_empty() {
                                fm.insert("aliases".into(), f.aliases.clone().into());
                            }
                            push_props(&mut fm, &f.props);
                            Value::Object(fm)
                        })
                        .collect();
                    m.insert("fields".into(), Value::Array(fields));
                } else {
                    return reference(&r.name, ns);
                }
            }
            NodeKind::Enum(e) => {
                if self.first_time(id) {
                    m.insert("type".into(), "enum".into());
                    self.write_name(&mut m, &e.name, ns, e.doc.as_deref(), &e.aliases);
                    m.insert("symbols".into(), e.symbols.clone().into());
                    if let Some(sym) = e.default.and_then(|i| e.symbols.get(i as usize)) {
                        m.insert("default".into(), sym.as_str().into());
                    }
                } else {
                    return reference(&e.name, ns);
                }
            }
            NodeKind::Fixed(f) => {
                if self.first_time(id) {
                    m.insert("type".into(), "fixed".into());
                    self.write_name(&mut m, &f.name, ns, f.doc.as_deref(), &f.aliases);
                    m.insert("size".into(), (f.size as u64).into());
                } else {
                    return reference(&f.name, ns);
                }
            }
            NodeKind::Array(a) => {
                m.insert("type".into(), "array".into());
                m.insert("items".into(), self.write(a.items, ns));
            }
            NodeKind::Map(mp) => {
                m.insert("type".into(), "map".into());
                m.insert("values".into(), self.write(mp.values, ns));
            }
            NodeKind::Union(u) => {
                return Value::Array(u.variants.iter().map(|&v| self.write(v, ns)).collect());
            }
            primitive => {
                if node.logical.is_none() && node.props.is_empty() {
                    return Value::String(primitive.type_name().into());
                }
                m.insert("type".into(), primitive.type_name().into());
            }
        }
        if let Some(logical) = &node.logical {
            push_logical(&mut m, logical);
        }
        push_props(&mut m, &node.props);
        Value::Object(m)
    }

    fn first_time(&mut self, id: NodeId) -> bool {
        !std::mem::replace(&mut self.written[id.index()], true)
    }

    /// `name`, `namespace` (when it differs from the enclosing one), `doc`, `aliases`.
    fn write_name(
        &self,
        m: &mut Map<String, Value>,
        name: &Name,
        ns: Option<&str>,
        doc: Option<&str>,
        aliases: &[Name],
    ) {
        m.insert("name".into(), name.name().into());
        if name.namespace() != ns {
            m.insert("namespace".into(), name.namespace().unwrap_or("").into());
        }
        if let Some(doc) = doc {
            m.insert("doc".into(), doc.into());
        }
        if !aliases.is_empty() {
            // Aliases are read relative to the type's own namespace.
            let list = aliases
                .iter()
                .map(|a| {
                    if a.namespace() == name.namespace() {
                        Value::from(a.name())
                    } else {
                        Value::from(a.fullname())
                    }
                })
                .collect();
            m.insert("aliases".into(), Value::Array(list));
        }
    }
}

/// A reference to an already written named type from a position whose namespace is `ns`.
/// A null-namespace type referred to from inside a namespace is written as its simple name,
/// which the parser finds by its fallback to the null namespace.
fn reference(name: &Name, ns: Option<&str>) -> Value {
    if name.namespace() == ns || name.namespace().is_none() {
        Value::from(name.name())
    } else {
        Value::from(name.fullname())
    }
}

fn push_logical(m: &mut Map<String, Value>, logical: &LogicalType) {
    m.insert("logicalType".into(), logical.name().into());
    if let LogicalType::Decimal { precision, scale } = *logical {
        m.insert("precision".into(), precision.into());
        m.insert("scale".into(), scale.into());
    }
}

fn push_props(m: &mut Map<String, Value>, props: &[(String, Value)]) {
    for (k, v) in props {
        m.insert(k.clone(), v.clone());
    }
}
