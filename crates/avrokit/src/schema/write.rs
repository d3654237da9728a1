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
//!
//! [`to_json_text`] writes the same JSON straight to text, without building the
//! `serde_json::Value` tree first (about ten times fewer instructions): container writers put
//! the schema in every file header, and files of a few records are common.

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

/// Writes several roots of one arena in turn, as a protocol's types and messages are written: a
/// named type is written in full the first time any root meets it and by name after that.
pub(crate) struct SharedWriter<'a>(Writer<'a>);

impl<'a> SharedWriter<'a> {
    pub(crate) fn new(nodes: &'a [Node]) -> SharedWriter<'a> {
        SharedWriter(Writer {
            nodes,
            written: vec![false; nodes.len()],
        })
    }

    /// Node `id` at a position whose enclosing namespace is `ns`.
    pub(crate) fn write(&mut self, id: NodeId, ns: Option<&'a str>) -> Value {
        self.0.write(id, ns)
    }

    /// True once the named type `id` has been written in full.
    pub(crate) fn is_written(&self, id: NodeId) -> bool {
        self.0.written[id.index()]
    }

    /// From now on, the named type `id` is written by name.
    pub(crate) fn mark_written(&mut self, id: NodeId) {
        self.0.written[id.index()] = true;
    }
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

/// The schema's JSON text, byte for byte `to_json(schema).to_string()` (compact, keys in the
/// order above), written directly.
pub(crate) fn to_json_text(schema: &Schema) -> Vec<u8> {
    let nodes = schema.nodes();
    let mut w = TextWriter {
        nodes,
        written: vec![false; nodes.len()],
        out: Vec::with_capacity(256),
    };
    match w.write(schema.root_id(), None) {
        Ok(()) => w.out,
        // A custom property named like an attribute written before it: `serde_json::Map`
        // replaces the attribute in place; leave that rare case to the tree writer.
        Err(Collision) => to_json(schema).to_string().into_bytes(),
    }
}

/// The keys written so far in one JSON object (at most nine: a fixed's `type`, `name`,
/// `namespace`, `doc`, `aliases`, `size`, `logicalType`, `precision`, `scale`).
#[derive(Default)]
struct Keys {
    keys: [&'static str; 9],
    n: usize,
}

impl Keys {
    fn push(&mut self, key: &'static str) {
        self.keys[self.n] = key;
        self.n += 1;
    }

    fn as_slice(&self) -> &[&'static str] {
        &self.keys[..self.n]
    }
}

/// A custom property whose key is also one of the attributes written for the same object.
struct Collision;

struct TextWriter<'a> {
    nodes: &'a [Node],
    /// Named types already written in full.
    written: Vec<bool>,
    out: Vec<u8>,
}

impl<'a> TextWriter<'a> {
    /// As `Writer::write`, appending to `out`.
    fn write(&mut self, id: NodeId, ns: Option<&'a str>) -> Result<(), Collision> {
        let nodes = self.nodes;
        let node = &nodes[id.index()];
        // The object's attributes, for the custom properties to be checked against.
        let mut keys = Keys::default();
        match &node.kind {
            NodeKind::Record(r) => {
                if !self.first_time(id) {
                    self.reference(&r.name, ns);
                    return Ok(());
                }
                let ty = if r.is_error { "error" } else { "record" };
                self.out.extend_from_slice(b"{\"type\":");
                string(&mut self.out, ty);
                keys.push("type");
                self.name(&r.name, ns, r.doc.as_deref(), &r.aliases, &mut keys);
                self.out.extend_from_slice(b",\"fields\":[");
                keys.push("fields");
                let inner = r.name.namespace();
                for (i, f) in r.fields.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.out.extend_from_slice(b"{\"name\":");
                    string(&mut self.out, f.name.as_str());
                    self.out.extend_from_slice(b",\"type\":");
                    self.write(f.schema, inner)?;
                    let mut fkeys = Keys::default();
                    fkeys.push("name");
                    fkeys.push("type");
                    if let Some(doc) = &f.doc {
                        self.out.extend_from_slice(b",\"doc\":");
                        string(&mut self.out, doc);
                        fkeys.push("doc");
                    }
                    if let Some(default) = &f.default {
                        self.out.extend_from_slice(b",\"default\":");
                        json(&mut self.out, default);
                        fkeys.push("default");
                    }
                    match f.order {
                        Order::Ascending => {}
                        Order::Descending => {
                            self.out.extend_from_slice(b",\"order\":\"descending\"");
                            fkeys.push("order");
                        }
                        Order::Ignore => {
                            self.out.extend_from_slice(b",\"order\":\"ignore\"");
                            fkeys.push("order");
                        }
                    }
                    if !f.aliases.is_empty() {
                        self.out.extend_from_slice(b",\"aliases\":[");
                        for (i, a) in f.aliases.iter().enumerate() {
                            if i > 0 {
                                self.out.push(b',');
                            }
                            string(&mut self.out, a);
                        }
                        self.out.push(b']');
                        fkeys.push("aliases");
                    }
                    self.props(&f.props, fkeys.as_slice())?;
                    self.out.push(b'}');
                }
                self.out.push(b']');
            }
            NodeKind::Enum(e) => {
                if !self.first_time(id) {
                    self.reference(&e.name, ns);
                    return Ok(());
                }
                self.out.extend_from_slice(b"{\"type\":\"enum\"");
                keys.push("type");
                self.name(&e.name, ns, e.doc.as_deref(), &e.aliases, &mut keys);
                self.out.extend_from_slice(b",\"symbols\":[");
                keys.push("symbols");
                for (i, sym) in e.symbols.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    string(&mut self.out, sym);
                }
                self.out.push(b']');
                if let Some(sym) = e.default.and_then(|i| e.symbols.get(i as usize)) {
                    self.out.extend_from_slice(b",\"default\":");
                    string(&mut self.out, sym);
                    keys.push("default");
                }
            }
            NodeKind::Fixed(f) => {
                if !self.first_time(id) {
                    self.reference(&f.name, ns);
                    return Ok(());
                }
                self.out.extend_from_slice(b"{\"type\":\"fixed\"");
                keys.push("type");
                self.name(&f.name, ns, f.doc.as_deref(), &f.aliases, &mut keys);
                self.out.extend_from_slice(b",\"size\":");
                self.out
                    .extend_from_slice(itoa::Buffer::new().format(f.size as u64).as_bytes());
                keys.push("size");
            }
            NodeKind::Array(a) => {
                self.out
                    .extend_from_slice(b"{\"type\":\"array\",\"items\":");
                keys.push("type");
                keys.push("items");
                self.write(a.items, ns)?;
            }
            NodeKind::Map(mp) => {
                self.out.extend_from_slice(b"{\"type\":\"map\",\"values\":");
                keys.push("type");
                keys.push("values");
                self.write(mp.values, ns)?;
            }
            NodeKind::Union(u) => {
                self.out.push(b'[');
                for (i, &v) in u.variants.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.write(v, ns)?;
                }
                self.out.push(b']');
                return Ok(());
            }
            primitive => {
                if node.logical.is_none() && node.props.is_empty() {
                    string(&mut self.out, primitive.type_name());
                    return Ok(());
                }
                self.out.extend_from_slice(b"{\"type\":");
                string(&mut self.out, primitive.type_name());
                keys.push("type");
            }
        }
        if let Some(logical) = &node.logical {
            self.out.extend_from_slice(b",\"logicalType\":");
            string(&mut self.out, logical.name());
            keys.push("logicalType");
            if let LogicalType::Decimal { precision, scale } = *logical {
                let mut b = itoa::Buffer::new();
                self.out.extend_from_slice(b",\"precision\":");
                self.out.extend_from_slice(b.format(precision).as_bytes());
                self.out.extend_from_slice(b",\"scale\":");
                self.out.extend_from_slice(b.format(scale).as_bytes());
                keys.push("precision");
                keys.push("scale");
            }
        }
        self.props(&node.props, keys.as_slice())?;
        self.out.push(b'}');
        Ok(())
    }

    fn first_time(&mut self, id: NodeId) -> bool {
        !std::mem::replace(&mut self.written[id.index()], true)
    }

    /// As `reference`.
    fn reference(&mut self, name: &Name, ns: Option<&str>) {
        if name.namespace() == ns || name.namespace().is_none() {
            string(&mut self.out, name.name());
        } else {
            string(&mut self.out, name.fullname());
        }
    }

    /// As `Writer::write_name`, after the `type` attribute; `keys` records each key written.
    fn name(
        &mut self,
        name: &Name,
        ns: Option<&str>,
        doc: Option<&str>,
        aliases: &[Name],
        keys: &mut Keys,
    ) {
        self.out.extend_from_slice(b",\"name\":");
        string(&mut self.out, name.name());
        keys.push("name");
        if name.namespace() != ns {
            self.out.extend_from_slice(b",\"namespace\":");
            string(&mut self.out, name.namespace().unwrap_or(""));
            keys.push("namespace");
        }
        if let Some(doc) = doc {
            self.out.extend_from_slice(b",\"doc\":");
            string(&mut self.out, doc);
            keys.push("doc");
        }
        if !aliases.is_empty() {
            self.out.extend_from_slice(b",\"aliases\":[");
            for (i, a) in aliases.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                if a.namespace() == name.namespace() {
                    string(&mut self.out, a.name());
                } else {
                    string(&mut self.out, a.fullname());
                }
            }
            self.out.push(b']');
            keys.push("aliases");
        }
    }

    /// The custom properties, unless one of them repeats a key already written (`written`) or
    /// another property's key: those are [`Collision`]s.
    fn props(&mut self, props: &[(String, Value)], written: &[&str]) -> Result<(), Collision> {
        for (i, (k, v)) in props.iter().enumerate() {
            if written.contains(&k.as_str()) || props[..i].iter().any(|(k2, _)| k2 == k) {
                return Err(Collision);
            }
            self.out.push(b',');
            string(&mut self.out, k);
            self.out.push(b':');
            json(&mut self.out, v);
        }
        Ok(())
    }
}

/// Appends a JSON value as `serde_json` writes it compactly.
fn json(out: &mut Vec<u8>, v: &Value) {
    serde_json::to_writer(&mut *out, v).expect("writing JSON to a Vec cannot fail");
}

/// Appends `s` as a JSON string, escaped exactly as `serde_json` escapes it: `"`, `\` and the
/// control characters below 0x20 (`\b \t \n \f \r` by name, the others as `\u00xx`).
fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The direct writer must give exactly the tree writer's text.
    fn check(schema: &Schema) {
        let tree = to_json(schema).to_string();
        let text = to_json_text(schema);
        assert_eq!(String::from_utf8(text).unwrap(), tree);
    }

    /// Every schema text that parses, from every file under `dir`: `.avsc` files, and the
    /// `schema` / `input` members of the JSON tables.
    fn collect(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                collect(&path, out);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            match path.extension().and_then(|e| e.to_str()) {
                Some("avsc") => out.push(text),
                Some("json") => {
                    let Ok(v) = serde_json::from_str::<Value>(&text) else {
                        continue;
                    };
                    for case in v.as_array().into_iter().flatten() {
                        for key in ["schema", "input"] {
                            match case.get(key) {
                                Some(Value::String(s)) => out.push(s.clone()),
                                Some(v @ (Value::Object(_) | Value::Array(_))) => {
                                    out.push(v.to_string());
                                }
                                _ => {}
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    #[test]
    fn text_is_the_tree_text_for_the_test_corpora() {
        let mut texts = Vec::new();
        collect(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"),
            &mut texts,
        );
        let mut parsed = 0;
        for text in &texts {
            if let Ok(schema) = Schema::parse_str(text) {
                check(&schema);
                parsed += 1;
            }
        }
        assert!(parsed > 200, "only {parsed} schemas found");
    }

    #[test]
    fn text_is_the_tree_text_for_hard_cases() {
        let cases = [
            r#""null""#,
            r#"{"type":"int","logicalType":"date","x-prop":[1,{"a":null}]}"#,
            r#"{"type":"long","logicalType":"nonsense","note":"kept"}"#,
            r#"{"type":"bytes","logicalType":"decimal","precision":9,"scale":2,"extra":1.5e300}"#,
            r#"{"type":"bytes","logicalType":"decimal","precision":0}"#,
            r#"{"type":"fixed","name":"F","namespace":"a.b","size":16,"aliases":["G","c.H"],
                "doc":"q\"\\\n\t\u0001\u001f\u007f\u00e9\ud83d\ude00","logicalType":"decimal","precision":20,"scale":3,"p":true}"#,
            r#"{"type":"fixed","name":"D","size":12,"logicalType":"duration"}"#,
            r#"{"type":"record","name":"R","namespace":"n1","doc":"d","aliases":["A"],"x":{"y":[]},
               "fields":[
                 {"name":"a","type":"int","doc":"field\rdoc","default":-3,"order":"descending","aliases":["b","c"],"f":"g"},
                 {"name":"e","type":{"type":"enum","name":"E","namespace":"","symbols":["X","Y"],"default":"Y","doc":5}},
                 {"name":"r","type":["null","R",{"type":"array","items":"E"},{"type":"map","values":{"type":"string","avro.java.string":"String"}}],"order":"ignore","default":null},
                 {"name":"s","type":{"type":"record","name":"S","namespace":"n2","fields":[
                     {"name":"back","type":["null","n1.R"],"default":null},
                     {"name":"e","type":"E"}]}},
                 {"name":"d","type":"double","default":1e-7},
                 {"name":"m","type":{"type":"map","values":"long","logicalType":"x"},"default":{"k":1,"\u0000":2}}
               ]}"#,
            r#"{"type":"error","name":"Err","fields":[]}"#,
            r#"[{"type":"enum","name":"Z","symbols":["a"]},{"type":"array","items":"Z"},{"type":"fixed","name":"W","size":0}]"#,
        ];
        for text in cases {
            let schema = Schema::parse_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            check(&schema);
        }
    }

    #[test]
    fn every_byte_is_escaped_as_serde_json_escapes_it() {
        let all: String = (0u32..0x80)
            .chain([0xe9, 0x2028, 0x1f600])
            .filter_map(char::from_u32)
            .collect();
        let mut out = Vec::new();
        string(&mut out, &all);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&all).unwrap()
        );
    }

    /// A custom property sharing a key with an attribute falls back to the tree writer, which
    /// gives the same (replaced-in-place) output as before.
    #[test]
    fn colliding_property_falls_back() {
        let schema = Schema::parse_str(r#"{"type":"int","logicalType":"date"}"#).unwrap();
        let mut arena = (*schema.arena).clone();
        arena.nodes[schema.root.index()]
            .props
            .push(("logicalType".into(), Value::from("other")));
        let schema = Schema {
            arena: std::sync::Arc::new(arena),
            root: schema.root,
        };
        assert_eq!(
            String::from_utf8(to_json_text(&schema)).unwrap(),
            r#"{"type":"int","logicalType":"other"}"#
        );
        check(&schema);
    }
}
