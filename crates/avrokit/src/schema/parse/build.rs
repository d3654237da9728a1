//! Passes 1 (declare) and 2 (build) of the schema parser.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::attrs::{
    brief, custom_props, definition_name, doc_of, extract_logical, field_header, json_type,
    object_type, primitive, primitive_slot, props_with_doc, push_field, record_fields,
    type_aliases,
};
use super::errors::{
    duplicate_branch, duplicate_field, missing_child, not_a_schema, not_declared, union_in_union,
    unknown_type,
};
use super::{
    check_depth, ARRAY_RESERVED, ENUM_RESERVED, FIXED_RESERVED, MAP_RESERVED, PRIMITIVE_RESERVED,
    RECORD_RESERVED,
};
use crate::error::{Error, Result};
use crate::schema::{
    ArraySchema, EnumSchema, Field, FixedSchema, MapSchema, Name, Node, NodeId, NodeKind,
    RecordSchema, UnionSchema,
};

/// What makes two union branches the same for the "no two branches of the same type" rule.
#[derive(PartialEq, Eq, Hash)]
pub(super) enum UnionKey {
    /// An unnamed type, by type name (`"int"`, `"array"`, ...).
    Unnamed(&'static str),
    /// A named type. One fullname is one node, so the node id identifies the fullname.
    Named(NodeId),
}

#[derive(Default)]
pub(super) struct Parser {
    pub(super) nodes: Vec<Node>,
    pub(super) names: HashMap<String, NodeId>,
    /// One shared node per primitive without logical type or custom properties, by
    /// [`primitive_slot`]: `"int"` written a thousand times is one node.
    bare: [Option<NodeId>; 8],
    /// Reused buffer for `namespace.name` lookups.
    scratch: String,
}

impl Parser {
    fn push(&mut self, node: Node) -> Result<NodeId> {
        let id =
            u32::try_from(self.nodes.len()).map_err(|_| Error::schema("too many schema nodes"))?;
        self.nodes.push(node);
        Ok(NodeId(id))
    }

    fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    // ---------------------------------------------------------------- pass 1: declare

    /// Declares every named type defined in `json` (see the module docs).
    pub(super) fn declare<'j>(
        &mut self,
        json: &'j Value,
        ns: Option<&'j str>,
        depth: usize,
    ) -> Result<()> {
        check_depth(depth)?;
        match json {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.declare(item, ns, depth + 1)
                        .map_err(|e| e.in_index(i as u64))?;
                }
            }
            Value::Object(obj) => {
                // Malformed objects are skipped here; pass 2 reports them with their path.
                let Some(Value::String(ty)) = obj.get("type") else {
                    return Ok(());
                };
                match ty.as_str() {
                    "record" | "error" | "enum" | "fixed" => {
                        let inner = self.declare_named(obj, ty, ns)?;
                        if let Some(Value::Array(fields)) = obj.get("fields") {
                            for (i, field) in fields.iter().enumerate() {
                                if let Some(t) = field.get("type") {
                                    self.declare(t, inner, depth + 1).map_err(|e| {
                                        e.in_field("type").in_index(i as u64).in_field("fields")
                                    })?;
                                }
                            }
                        }
                    }
                    "array" => {
                        if let Some(items) = obj.get("items") {
                            self.declare(items, ns, depth + 1)
                                .map_err(|e| e.in_field("items"))?;
                        }
                    }
                    "map" => {
                        if let Some(values) = obj.get("values") {
                            self.declare(values, ns, depth + 1)
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

    /// Declares the named type defined by `obj`; returns the namespace its fields inherit.
    #[inline(never)]
    fn declare_named<'j>(
        &mut self,
        obj: &'j Map<String, Value>,
        ty: &str,
        ns: Option<&'j str>,
    ) -> Result<Option<&'j str>> {
        let (name, inner) = definition_name(obj, ty, ns)?;
        if self.names.contains_key(name.fullname()) {
            return Err(Error::schema(format!(
                "\"{name}\" is defined twice (a fullname may be defined only once)"
            ))
            .in_field("name"));
        }
        let fullname = name.fullname().to_owned();
        // A placeholder with the right kind and name, so that unions can be checked before the
        // type is built; pass 2 fills it in.
        let kind = match ty {
            "enum" => NodeKind::Enum(EnumSchema {
                name,
                aliases: Vec::new(),
                doc: None,
                symbols: Vec::new(),
                default: None,
            }),
            "fixed" => NodeKind::Fixed(FixedSchema {
                name,
                aliases: Vec::new(),
                doc: None,
                size: 0,
            }),
            _ => NodeKind::Record(RecordSchema {
                name,
                aliases: Vec::new(),
                doc: None,
                fields: Vec::new(),
                is_error: ty == "error",
            }),
        };
        let id = self.push(Node {
            kind,
            logical: None,
            props: Vec::new(),
        })?;
        self.names.insert(fullname, id);
        Ok(inner)
    }

    // ---------------------------------------------------------------- pass 2: build
    //
    // `build`, `object`, `array_or_map`, `union`, `record` and `field` recurse (one schema level
    // is two to four of their frames), so they do as little as possible themselves: validation,
    // properties and error messages live in `#[inline(never)]` helpers whose frames are popped
    // before the next level is entered. This took the stack used per level from about 2 KiB to
    // a few hundred bytes.

    /// Builds the node for `json`, whose enclosing namespace is `ns`.
    pub(super) fn build<'j>(
        &mut self,
        json: &'j Value,
        ns: Option<&'j str>,
        depth: usize,
    ) -> Result<NodeId> {
        check_depth(depth)?;
        match json {
            Value::String(s) => self.reference(s, ns),
            Value::Array(items) => self.union(items, ns, depth),
            Value::Object(obj) => self.object(obj, ns, depth),
            other => Err(not_a_schema(other)),
        }
    }

    /// The shared node of a primitive without annotations.
    fn bare(&mut self, kind: NodeKind) -> Result<NodeId> {
        let Some(slot) = primitive_slot(&kind) else {
            return Err(Error::schema("internal error: not a primitive type"));
        };
        if let Some(id) = self.bare[slot] {
            return Ok(id);
        }
        let id = self.push(Node {
            kind,
            logical: None,
            props: Vec::new(),
        })?;
        self.bare[slot] = Some(id);
        Ok(id)
    }

    /// A type name: a primitive, or a named type (see "Resolution of names" in the module docs).
    #[inline(never)]
    fn reference(&mut self, s: &str, ns: Option<&str>) -> Result<NodeId> {
        if let Some(kind) = primitive(s) {
            return self.bare(kind);
        }
        if !s.contains('.') {
            if let Some(ns) = ns {
                self.scratch.clear();
                self.scratch.push_str(ns);
                self.scratch.push('.');
                self.scratch.push_str(s);
                if let Some(&id) = self.names.get(self.scratch.as_str()) {
                    return Ok(id);
                }
            }
        }
        if let Some(&id) = self.names.get(s) {
            return Ok(id);
        }
        Err(unknown_type(s, ns))
    }

    #[inline(never)]
    fn union<'j>(
        &mut self,
        items: &'j [Value],
        ns: Option<&'j str>,
        depth: usize,
    ) -> Result<NodeId> {
        let mut variants = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            if item.is_array() {
                return Err(union_in_union(i));
            }
            let id = self
                .build(item, ns, depth + 1)
                .map_err(|e| e.in_index(i as u64))?;
            variants.push(id);
        }
        self.finish_union(variants)
    }

    /// Checks that no two branches have the same type, and pushes the union.
    #[inline(never)]
    fn finish_union(&mut self, variants: Vec<NodeId>) -> Result<NodeId> {
        // A hash map rather than a scan: a hostile union of many thousand named types must not
        // take quadratic time.
        let mut first_of: HashMap<UnionKey, usize> = HashMap::with_capacity(variants.len());
        for (i, &id) in variants.iter().enumerate() {
            let node = self.node(id);
            let key = match node.name() {
                Some(_) => UnionKey::Named(id),
                None => UnionKey::Unnamed(node.kind.type_name()),
            };
            if let Some(&first) = first_of.get(&key) {
                return Err(duplicate_branch(node, first).in_index(i as u64));
            }
            first_of.insert(key, i);
        }
        self.push(Node {
            kind: NodeKind::Union(UnionSchema { variants }),
            logical: None,
            props: Vec::new(),
        })
    }

    fn object<'j>(
        &mut self,
        obj: &'j Map<String, Value>,
        ns: Option<&'j str>,
        depth: usize,
    ) -> Result<NodeId> {
        let ty = object_type(obj)?;
        match ty {
            "record" | "error" => self.record(obj, ty, ns, depth),
            "array" => self.array_or_map(obj, ns, depth, true),
            "map" => self.array_or_map(obj, ns, depth, false),
            "enum" => self.enumeration(obj, ns),
            "fixed" => self.fixed(obj, ns),
            _ => self.primitive_or_reference(obj, ty, ns),
        }
    }

    /// `{"type": "int", ...}`, or `{"type": "Foo"}` naming a defined type.
    #[inline(never)]
    fn primitive_or_reference(
        &mut self,
        obj: &Map<String, Value>,
        ty: &str,
        ns: Option<&str>,
    ) -> Result<NodeId> {
        let Some(kind) = primitive(ty) else {
            // A reference, as Java accepts it. Other attributes of such an object are ignored:
            // they cannot apply to a type defined elsewhere.
            return self.reference(ty, ns).map_err(|e| e.in_field("type"));
        };
        let mut props = custom_props(obj, PRIMITIVE_RESERVED);
        if props.is_empty() {
            return self.bare(kind);
        }
        let logical = extract_logical(&kind, &mut props);
        self.push(Node {
            kind,
            logical,
            props,
        })
    }

    fn array_or_map<'j>(
        &mut self,
        obj: &'j Map<String, Value>,
        ns: Option<&'j str>,
        depth: usize,
        is_array: bool,
    ) -> Result<NodeId> {
        let key = if is_array { "items" } else { "values" };
        let Some(child) = obj.get(key) else {
            return Err(missing_child(is_array));
        };
        let child = self
            .build(child, ns, depth + 1)
            .map_err(|e| e.in_field(key))?;
        self.finish_array_or_map(obj, child, is_array)
    }

    #[inline(never)]
    fn finish_array_or_map(
        &mut self,
        obj: &Map<String, Value>,
        child: NodeId,
        is_array: bool,
    ) -> Result<NodeId> {
        let (kind, reserved) = if is_array {
            (
                NodeKind::Array(ArraySchema { items: child }),
                ARRAY_RESERVED,
            )
        } else {
            (NodeKind::Map(MapSchema { values: child }), MAP_RESERVED)
        };
        let mut props = custom_props(obj, reserved);
        let logical = extract_logical(&kind, &mut props);
        self.push(Node {
            kind,
            logical,
            props,
        })
    }

    /// The node reserved in pass 1 for the definition `obj`, and its inner namespace.
    #[inline(never)]
    fn declared<'j>(
        &self,
        obj: &'j Map<String, Value>,
        ty: &str,
        ns: Option<&'j str>,
    ) -> Result<(NodeId, Option<&'j str>)> {
        let (name, inner) = definition_name(obj, ty, ns)?;
        match self.names.get(name.fullname()) {
            Some(&id) => Ok((id, inner)),
            // Pass 1 declares every definition pass 2 can reach; never panic all the same.
            None => Err(not_declared(&name)),
        }
    }

    #[inline(never)]
    fn record<'j>(
        &mut self,
        obj: &'j Map<String, Value>,
        ty: &str,
        ns: Option<&'j str>,
        depth: usize,
    ) -> Result<NodeId> {
        let (id, inner) = self.declared(obj, ty, ns)?;
        let fields_json = record_fields(obj, ty)?;
        let mut fields: Vec<Field> = Vec::with_capacity(fields_json.len());
        for (i, field_json) in fields_json.iter().enumerate() {
            self.field(&mut fields, field_json, inner, depth)
                .map_err(|e| e.in_index(i as u64).in_field("fields"))?;
        }
        self.finish_record(id, obj, fields)?;
        Ok(id)
    }

    /// Fills in the record reserved in pass 1 (which already has its name and `is_error`).
    #[inline(never)]
    fn finish_record(
        &mut self,
        id: NodeId,
        obj: &Map<String, Value>,
        fields: Vec<Field>,
    ) -> Result<()> {
        let mut seen: HashSet<&str> = HashSet::with_capacity(fields.len());
        for (i, field) in fields.iter().enumerate() {
            if !seen.insert(&field.name) {
                return Err(duplicate_field(&field.name, self.node(id))
                    .in_index(i as u64)
                    .in_field("fields"));
            }
        }
        let node = &mut self.nodes[id.index()];
        let NodeKind::Record(rec) = &mut node.kind else {
            return Err(Error::schema("internal error: not a record"));
        };
        rec.aliases = type_aliases(obj, &rec.name)?;
        rec.doc = doc_of(obj);
        rec.fields = fields;
        node.props = props_with_doc(obj, RECORD_RESERVED);
        node.logical = extract_logical(&node.kind, &mut node.props);
        Ok(())
    }

    /// Appends a record field to `fields`. (The `Field` itself is only ever on the stack in
    /// `push_field`, out of the recursion.)
    #[inline(never)]
    fn field<'j>(
        &mut self,
        fields: &mut Vec<Field>,
        json: &'j Value,
        ns: Option<&'j str>,
        depth: usize,
    ) -> Result<()> {
        let (obj, name, ty) = field_header(json)?;
        let schema = self
            .build(ty, ns, depth + 1)
            .map_err(|e| e.in_field("type"))?;
        push_field(fields, obj, name, schema)
    }

    #[inline(never)]
    fn enumeration(&mut self, obj: &Map<String, Value>, ns: Option<&str>) -> Result<NodeId> {
        let (id, _) = self.declared(obj, "enum", ns)?;
        let symbols_json = match obj.get("symbols") {
            Some(Value::Array(symbols)) => symbols,
            Some(other) => {
                return Err(Error::schema(format!(
                    "\"symbols\" must be an array of strings, found {}",
                    json_type(other)
                ))
                .in_field("symbols"))
            }
            None => {
                return Err(Error::schema(
                    "an enum needs a \"symbols\" attribute (an array of strings)",
                ))
            }
        };
        let mut symbols = Vec::with_capacity(symbols_json.len());
        let mut seen: HashSet<&str> = HashSet::with_capacity(symbols_json.len());
        for (i, symbol) in symbols_json.iter().enumerate() {
            let at = |e: Error| e.in_index(i as u64).in_field("symbols");
            let Value::String(s) = symbol else {
                return Err(at(Error::schema(format!(
                    "an enum symbol must be a string, found {}",
                    json_type(symbol)
                ))));
            };
            if !Name::is_valid_simple_name(s) {
                return Err(at(Error::schema(format!(
                    "invalid enum symbol \"{s}\": expected [A-Za-z_][A-Za-z0-9_]*"
                ))));
            }
            if !seen.insert(s) {
                return Err(at(Error::schema(format!("duplicate enum symbol \"{s}\""))));
            }
            symbols.push(s.clone());
        }
        let default = match obj.get("default") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => match symbols.iter().position(|x| x == s) {
                Some(i) => Some(i as u32),
                None => {
                    return Err(Error::schema(format!(
                        "the enum default \"{s}\" is not one of its symbols"
                    ))
                    .in_field("default"))
                }
            },
            Some(other) => {
                return Err(Error::schema(format!(
                    "the enum default must be one of its symbols, found {}",
                    brief(other)
                ))
                .in_field("default"))
            }
        };
        let node = &mut self.nodes[id.index()];
        let NodeKind::Enum(e) = &mut node.kind else {
            return Err(Error::schema("internal error: not an enum"));
        };
        e.aliases = type_aliases(obj, &e.name)?;
        e.doc = doc_of(obj);
        e.symbols = symbols;
        e.default = default;
        node.props = props_with_doc(obj, ENUM_RESERVED);
        node.logical = extract_logical(&node.kind, &mut node.props);
        Ok(id)
    }

    #[inline(never)]
    fn fixed(&mut self, obj: &Map<String, Value>, ns: Option<&str>) -> Result<NodeId> {
        let (id, _) = self.declared(obj, "fixed", ns)?;
        let size_json = obj
            .get("size")
            .ok_or_else(|| Error::schema("a fixed needs a \"size\" (a number of bytes)"))?;
        let size = match size_json {
            Value::Number(n) => n.as_u64(),
            // The canonical form's INTEGERS rule ("eliminate quotes around ... integer
            // literals") implies a size may be written as a string of digits.
            Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                s.parse::<u64>().ok()
            }
            _ => None,
        };
        let size = size.and_then(|s| usize::try_from(s).ok()).ok_or_else(|| {
            Error::schema(format!(
                "invalid fixed size {}: expected a non-negative integer",
                brief(size_json)
            ))
            .in_field("size")
        })?;
        let node = &mut self.nodes[id.index()];
        let NodeKind::Fixed(f) = &mut node.kind else {
            return Err(Error::schema("internal error: not a fixed"));
        };
        f.aliases = type_aliases(obj, &f.name)?;
        f.doc = doc_of(obj);
        f.size = size;
        node.props = props_with_doc(obj, FIXED_RESERVED);
        node.logical = extract_logical(&node.kind, &mut node.props);
        Ok(id)
    }
}
