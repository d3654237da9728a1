//! Schema JSON to arena.
//!
//! Parsing runs in passes over the JSON of every input, so that a name may be used before its
//! definition (in the depth-first walk) and several documents may refer to each other in any
//! order. An iterative check that each input nests at most [`MAX_JSON_DEPTH`] JSON levels comes
//! first and bounds every recursion that follows.
//!
//! 1. **declare**: find every named type definition (record, error, enum, fixed), validate its
//!    name and namespace, reject duplicates and primitive names, and reserve its node. Every
//!    fullname is known after this pass.
//! 2. **build**: build the nodes. A reference (`"Foo"`) is resolved at once: it is a primitive
//!    name, or a named type declared in pass 1. Unions are checked here (a branch's kind and name
//!    are known even when it is a named type not built yet, since pass 1 reserved it with both).
//! 3. **defaults**: walk the JSON and the arena side by side and validate every field default
//!    against its (now complete) type.
//! 4. **depth**: check that writing each root back (a named type in full the first time it is
//!    met) nests at most [`MAX_DEPTH`] levels, so that [`Schema::to_json`],
//!    [`Schema::canonical_form`] and every recursive walk downstream stay within the stack.
//!
//! Errors carry a JSON path into the input, built while unwinding: `$.fields[2].type`, or
//! `$[1].fields[2].type` when several inputs are parsed together.
//!
//! # Resolution of names
//! A reference containing a dot is a fullname. A reference without a dot is looked up in the
//! namespace of the most tightly enclosing named type and then, if no such type exists, in the
//! null namespace (as Java does: the specification's own example leaves no other way to refer to
//! a null-namespace type from inside a namespaced one). Primitive type names are never qualified.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::{
    Arena, ArraySchema, EnumSchema, Field, FixedSchema, LogicalType, MapSchema, Name, Node, NodeId,
    NodeKind, Order, RecordSchema, Schema, UnionSchema,
};
use crate::error::{Error, ErrorKind, Result};

/// Deepest nesting of schemas accepted, counted in schema levels (a record's field type, an
/// array's items, a map's values and a union's branch each add one), and deepest nesting of a
/// field default. Generous for real schemas (text input is already bounded by serde_json's
/// recursion limit of 128 JSON levels), small enough for every recursive walk to stay on a
/// thread's default stack.
pub(crate) const MAX_DEPTH: usize = 512;

/// Deepest JSON nesting accepted in an input document (checked first, without recursion). Text
/// input never gets near it (serde_json stops at 128); a `Value` built by hand could, and the
/// parser clones parts of it (defaults, custom properties) with serde_json's recursive `clone`.
pub(crate) const MAX_JSON_DEPTH: usize = 2 * MAX_DEPTH;

// `doc` is handled by `props_with_doc`: reserved only when it is a string.
const RECORD_RESERVED: &[&str] = &["type", "name", "namespace", "aliases", "fields"];
const ENUM_RESERVED: &[&str] = &["type", "name", "namespace", "aliases", "symbols", "default"];
const FIXED_RESERVED: &[&str] = &["type", "name", "namespace", "aliases", "size"];
const ARRAY_RESERVED: &[&str] = &["type", "items"];
const MAP_RESERVED: &[&str] = &["type", "values"];
const PRIMITIVE_RESERVED: &[&str] = &["type"];
const FIELD_RESERVED: &[&str] = &["name", "type", "default", "order", "aliases"];

/// `log10(2)`, for the number of decimal digits a fixed of a given size can hold.
const LOG10_2: f64 = std::f64::consts::LOG10_2;

pub(crate) fn parse_strs(jsons: &[&str]) -> Result<Vec<Schema>> {
    let many = jsons.len() > 1;
    let values = jsons
        .iter()
        .enumerate()
        .map(|(i, text)| {
            serde_json::from_str::<Value>(text).map_err(|e| {
                let err = Error::with_source(ErrorKind::Schema, format!("invalid JSON: {e}"), e);
                at_root(err, i, many)
            })
        })
        .collect::<Result<Vec<_>>>()?;
    parse_values(&values)
}

pub(crate) fn parse_values(jsons: &[Value]) -> Result<Vec<Schema>> {
    let many = jsons.len() > 1;
    parse_values_in(jsons, None).map_err(|(i, e)| at_root(e, i, many))
}

/// Parses `jsons` together as [`parse_values`] does, every input in the enclosing namespace `ns`
/// (a protocol's types and messages are read in the protocol's namespace). On error, the index of
/// the failing input and the error, whose path is relative to that input.
pub(crate) fn parse_values_in(
    jsons: &[Value],
    ns: Option<&str>,
) -> std::result::Result<Vec<Schema>, (usize, Error)> {
    for (i, json) in jsons.iter().enumerate() {
        check_json_depth(json).map_err(|e| (i, e))?;
    }
    let mut p = Parser::default();
    for (i, json) in jsons.iter().enumerate() {
        p.declare(json, ns, 0).map_err(|e| (i, e))?;
    }
    let mut roots = Vec::with_capacity(jsons.len());
    for (i, json) in jsons.iter().enumerate() {
        roots.push(p.build(json, ns, 0).map_err(|e| (i, e))?);
    }
    let mut pass3 = DefaultsPass {
        nodes: &p.nodes,
        symbol_sets: HashMap::new(),
    };
    for (i, (json, &root)) in jsons.iter().zip(&roots).enumerate() {
        pass3.defaults(json, root, 0).map_err(|e| (i, e))?;
    }
    let mut expanded = vec![false; p.nodes.len()];
    for (i, &root) in roots.iter().enumerate() {
        check_written_depth(&p.nodes, root, &mut expanded).map_err(|e| (i, e))?;
    }
    let arena = Arc::new(Arena {
        nodes: p.nodes,
        names: p.names,
    });
    Ok(roots
        .into_iter()
        .map(|root| Schema {
            arena: Arc::clone(&arena),
            root,
        })
        .collect())
}

/// Completes an error's path with the input index (when there are several) and the `$` root.
#[cold]
fn at_root(err: Error, index: usize, many: bool) -> Error {
    let err = if many {
        err.in_index(index as u64)
    } else {
        err
    };
    err.in_field("$")
}

#[cold]
#[inline(never)]
fn too_deep() -> Error {
    Error::schema(format!("schema nested deeper than {MAX_DEPTH} levels"))
}

#[inline]
fn check_depth(depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        Err(too_deep())
    } else {
        Ok(())
    }
}

/// Checks that `json` nests at most [`MAX_JSON_DEPTH`] levels. Iterative, so that it cannot
/// overflow the stack on the input it exists to reject.
fn check_json_depth(json: &Value) -> Result<()> {
    let mut stack = vec![(json, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_JSON_DEPTH {
            return Err(Error::schema(format!(
                "JSON nested deeper than {MAX_JSON_DEPTH} levels"
            )));
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|x| (x, depth + 1))),
            Value::Object(entries) => stack.extend(entries.values().map(|x| (x, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// The kind of a primitive type name.
fn primitive(name: &str) -> Option<NodeKind> {
    Some(match name {
        "null" => NodeKind::Null,
        "boolean" => NodeKind::Boolean,
        "int" => NodeKind::Int,
        "long" => NodeKind::Long,
        "float" => NodeKind::Float,
        "double" => NodeKind::Double,
        "bytes" => NodeKind::Bytes,
        "string" => NodeKind::String,
        _ => return None,
    })
}

/// Slot of a primitive kind in [`Parser::bare`].
fn primitive_slot(kind: &NodeKind) -> Option<usize> {
    Some(match kind {
        NodeKind::Null => 0,
        NodeKind::Boolean => 1,
        NodeKind::Int => 2,
        NodeKind::Long => 3,
        NodeKind::Float => 4,
        NodeKind::Double => 5,
        NodeKind::Bytes => 6,
        NodeKind::String => 7,
        _ => return None,
    })
}

/// A short rendering of a JSON value for error messages (long values are cut).
fn brief(v: &Value) -> String {
    const MAX: usize = 60;
    let s = v.to_string();
    if s.len() <= MAX {
        return s;
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// The name of a JSON value's type, for error messages.
pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The fullname of a named type definition, and the namespace its nested definitions and
/// references inherit. Validates the `name` and `namespace` attributes.
fn definition_name<'j>(
    obj: &'j Map<String, Value>,
    ty: &str,
    enclosing: Option<&'j str>,
) -> Result<(Name, Option<&'j str>)> {
    let name = match obj.get("name") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(Error::schema(format!(
                "the name of a {ty} must be a string, found {}",
                json_type(other)
            ))
            .in_field("name"))
        }
        None => return Err(Error::schema(format!("a {ty} needs a \"name\""))),
    };
    if let Some(dot) = name.rfind('.') {
        // A fullname: any namespace attribute is ignored, as the specification says.
        if !Name::is_valid_fullname(name) {
            return Err(invalid_name(name, "name").in_field("name"));
        }
        check_not_primitive(&name[dot + 1..])?;
        return Ok((Name::new(name), Some(&name[..dot])));
    }
    if !Name::is_valid_simple_name(name) {
        return Err(invalid_name(name, "name").in_field("name"));
    }
    check_not_primitive(name)?;
    let space = match obj.get("namespace") {
        // `null` is read as "no namespace attribute", as Java's parser does.
        None | Some(Value::Null) => enclosing,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => {
            if !Name::is_valid_namespace(s) {
                return Err(invalid_name(s, "namespace").in_field("namespace"));
            }
            Some(s.as_str())
        }
        Some(other) => {
            return Err(Error::schema(format!(
                "a namespace must be a string, found {}",
                json_type(other)
            ))
            .in_field("namespace"))
        }
    };
    Ok((Name::with_namespace(name, space), space))
}

fn check_not_primitive(simple: &str) -> Result<()> {
    if primitive(simple).is_some() {
        return Err(Error::schema(format!(
            "\"{simple}\" is a primitive type name and may not be defined as a named type"
        ))
        .in_field("name"));
    }
    Ok(())
}

#[cold]
fn invalid_name(name: &str, what: &str) -> Error {
    let rule = if what == "namespace" {
        "names separated by dots, each matching [A-Za-z_][A-Za-z0-9_]*"
    } else {
        "[A-Za-z_][A-Za-z0-9_]*, optionally preceded by a dotted namespace"
    };
    Error::schema(format!("invalid {what} \"{name}\": expected {rule}"))
}

/// The attributes of `obj` that are not in `reserved`, in document order.
pub(crate) fn custom_props(obj: &Map<String, Value>, reserved: &[&str]) -> Vec<(String, Value)> {
    obj.iter()
        .filter(|(k, _)| !reserved.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The `doc` attribute. A non-string `doc` is not an error (Java ignores it); it is kept as a
/// custom property instead so that nothing is lost when the schema is written back.
fn doc_of(obj: &Map<String, Value>) -> Option<String> {
    obj.get("doc").and_then(Value::as_str).map(str::to_owned)
}

/// The attributes of `obj` that are not in `reserved` nor a string `doc` (see [`doc_of`]).
fn props_with_doc(obj: &Map<String, Value>, reserved: &[&str]) -> Vec<(String, Value)> {
    let mut props = custom_props(obj, reserved);
    if matches!(obj.get("doc"), Some(Value::String(_))) {
        props.retain(|(k, _)| k != "doc");
    }
    props
}

/// The `aliases` attribute: an array of strings. The specification accepts any string as an
/// alias ("aliases should be valid names, but this is not required").
fn alias_strings(obj: &Map<String, Value>) -> Result<Vec<&str>> {
    match obj.get("aliases") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, a)| {
                a.as_str().ok_or_else(|| {
                    Error::schema(format!("an alias must be a string, found {}", json_type(a)))
                        .in_index(i as u64)
                        .in_field("aliases")
                })
            })
            .collect(),
        Some(other) => Err(Error::schema(format!(
            "aliases must be an array of strings, found {}",
            json_type(other)
        ))
        .in_field("aliases")),
    }
}

/// Type aliases, relative to the namespace of the type they name.
fn type_aliases(obj: &Map<String, Value>, name: &Name) -> Result<Vec<Name>> {
    Ok(alias_strings(obj)?
        .into_iter()
        .map(|a| Name::with_namespace(a, name.namespace()))
        .collect())
}

/// The most decimal digits a two's-complement fixed of `size` bytes can hold:
/// `floor(log10(2^(8 * size - 1) - 1))`. `2^k - 1` is never a power of ten for `k >= 1`, so this
/// is `floor(k * log10(2))`; f64 is exact enough for any size whose digits fit in a `u32`.
fn max_decimal_digits(size: usize) -> u64 {
    if size == 0 {
        return 0;
    }
    let bits = (size as f64) * 8.0 - 1.0;
    (bits * LOG10_2).floor() as u64
}

/// The logical type annotation of a node of `kind`, taken out of `props` when it is valid.
/// Unknown or invalid annotations stay in `props` and are otherwise ignored.
fn extract_logical(kind: &NodeKind, props: &mut Vec<(String, Value)>) -> Option<LogicalType> {
    let prop = |key: &str| props.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let name = prop("logicalType")?.as_str()?;
    let logical = match (name, kind) {
        ("decimal", NodeKind::Bytes | NodeKind::Fixed(_)) => {
            let precision = prop("precision")?.as_u64()?;
            let scale = match prop("scale") {
                None => 0,
                Some(v) => v.as_u64()?,
            };
            if precision == 0 || scale > precision {
                return None;
            }
            if let NodeKind::Fixed(f) = kind {
                if precision > max_decimal_digits(f.size) {
                    return None;
                }
            }
            LogicalType::Decimal {
                precision: u32::try_from(precision).ok()?,
                scale: u32::try_from(scale).ok()?,
            }
        }
        ("big-decimal", NodeKind::Bytes) => LogicalType::BigDecimal,
        ("uuid", NodeKind::String) => LogicalType::Uuid,
        ("uuid", NodeKind::Fixed(f)) if f.size == 16 => LogicalType::Uuid,
        ("date", NodeKind::Int) => LogicalType::Date,
        ("time-millis", NodeKind::Int) => LogicalType::TimeMillis,
        ("time-micros", NodeKind::Long) => LogicalType::TimeMicros,
        ("timestamp-millis", NodeKind::Long) => LogicalType::TimestampMillis,
        ("timestamp-micros", NodeKind::Long) => LogicalType::TimestampMicros,
        ("timestamp-nanos", NodeKind::Long) => LogicalType::TimestampNanos,
        ("local-timestamp-millis", NodeKind::Long) => LogicalType::LocalTimestampMillis,
        ("local-timestamp-micros", NodeKind::Long) => LogicalType::LocalTimestampMicros,
        ("local-timestamp-nanos", NodeKind::Long) => LogicalType::LocalTimestampNanos,
        ("duration", NodeKind::Fixed(f)) if f.size == 12 => LogicalType::Duration,
        _ => return None,
    };
    let is_decimal = matches!(logical, LogicalType::Decimal { .. });
    props
        .retain(|(k, _)| k != "logicalType" && !(is_decimal && (k == "precision" || k == "scale")));
    Some(logical)
}

/// What makes two union branches the same for the "no two branches of the same type" rule.
#[derive(PartialEq, Eq, Hash)]
enum UnionKey {
    /// An unnamed type, by type name (`"int"`, `"array"`, ...).
    Unnamed(&'static str),
    /// A named type. One fullname is one node, so the node id identifies the fullname.
    Named(NodeId),
}

#[derive(Default)]
struct Parser {
    nodes: Vec<Node>,
    names: HashMap<String, NodeId>,
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
    fn declare<'j>(&mut self, json: &'j Value, ns: Option<&'j str>, depth: usize) -> Result<()> {
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
    fn build<'j>(&mut self, json: &'j Value, ns: Option<&'j str>, depth: usize) -> Result<NodeId> {
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

/// Pass 3: validates field defaults against the completed arena.
struct DefaultsPass<'a> {
    nodes: &'a [Node],
    /// Symbol sets of the large enums met so far (see [`DefaultsPass::has_symbol`]).
    symbol_sets: HashMap<NodeId, HashSet<&'a str>>,
}

impl<'a> DefaultsPass<'a> {
    /// Validates the field defaults of the definitions in `json`, built as node `id`.
    fn defaults(&mut self, json: &Value, id: NodeId, depth: usize) -> Result<()> {
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

/// The `type` attribute of a schema object.
#[inline(never)]
fn object_type(obj: &Map<String, Value>) -> Result<&str> {
    match obj.get("type") {
        Some(Value::String(t)) => Ok(t),
        Some(v @ (Value::Object(_) | Value::Array(_))) => Err(Error::schema(format!(
            "the \"type\" attribute of a schema object must be a type name, found {}; \
             a nested schema or union goes directly where this object is",
            json_type(v)
        ))
        .in_field("type")),
        Some(v) => Err(Error::schema(format!(
            "the \"type\" attribute must be a string, found {}",
            json_type(v)
        ))
        .in_field("type")),
        None => Err(Error::schema("a schema object needs a \"type\" attribute")),
    }
}

/// The `fields` attribute of a record.
#[inline(never)]
fn record_fields<'j>(obj: &'j Map<String, Value>, ty: &str) -> Result<&'j [Value]> {
    match obj.get("fields") {
        Some(Value::Array(fields)) => Ok(fields),
        Some(other) => Err(Error::schema(format!(
            "\"fields\" must be an array of field objects, found {}",
            json_type(other)
        ))
        .in_field("fields")),
        None => Err(Error::schema(format!(
            "a {ty} needs a \"fields\" attribute (an array, possibly empty)"
        ))),
    }
}

/// A field's object, validated name, and type JSON.
#[inline(never)]
fn field_header(json: &Value) -> Result<(&Map<String, Value>, &str, &Value)> {
    let Value::Object(obj) = json else {
        return Err(Error::schema(format!(
            "a field must be an object with \"name\" and \"type\", found {}",
            json_type(json)
        )));
    };
    let name = match obj.get("name") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(Error::schema(format!(
                "a field name must be a string, found {}",
                json_type(other)
            ))
            .in_field("name"))
        }
        None => return Err(Error::schema("a field needs a \"name\"")),
    };
    if !Name::is_valid_simple_name(name) {
        return Err(Error::schema(format!(
            "invalid field name \"{name}\": expected [A-Za-z_][A-Za-z0-9_]*"
        ))
        .in_field("name"));
    }
    let ty = obj
        .get("type")
        .ok_or_else(|| Error::schema(format!("field \"{name}\" needs a \"type\"")))?;
    Ok((obj, name, ty))
}

/// Completes a field with everything but its type, and appends it.
#[inline(never)]
fn push_field(
    fields: &mut Vec<Field>,
    obj: &Map<String, Value>,
    name: &str,
    schema: NodeId,
) -> Result<()> {
    let order = match obj.get("order") {
        None => Order::Ascending,
        Some(Value::String(s)) if s == "ascending" => Order::Ascending,
        Some(Value::String(s)) if s == "descending" => Order::Descending,
        Some(Value::String(s)) if s == "ignore" => Order::Ignore,
        Some(other) => {
            return Err(Error::schema(format!(
                "invalid order {}: expected \"ascending\", \"descending\" or \"ignore\"",
                brief(other)
            ))
            .in_field("order"))
        }
    };
    let aliases = alias_strings(obj)?.into_iter().map(str::to_owned).collect();
    fields.push(Field {
        name: name.to_owned(),
        doc: doc_of(obj),
        schema,
        // Validated in pass 3, once every type it may refer to is built.
        default: obj.get("default").cloned(),
        order,
        aliases,
        props: props_with_doc(obj, FIELD_RESERVED),
    });
    Ok(())
}

#[cold]
#[inline(never)]
fn not_a_schema(v: &Value) -> Error {
    Error::schema(format!(
        "a schema must be a type name (string), an object or a union (array), found {}",
        brief(v)
    ))
}

#[cold]
#[inline(never)]
fn union_in_union(i: usize) -> Error {
    Error::schema("a union may not directly contain another union").in_index(i as u64)
}

#[cold]
#[inline(never)]
fn missing_child(is_array: bool) -> Error {
    Error::schema(if is_array {
        "an array needs an \"items\" attribute (the items' type)"
    } else {
        "a map needs a \"values\" attribute (the values' type)"
    })
}

#[cold]
#[inline(never)]
fn not_declared(name: &Name) -> Error {
    Error::schema(format!("internal error: \"{name}\" was not declared"))
}

#[cold]
#[inline(never)]
fn duplicate_field(field: &str, record: &Node) -> Error {
    let record = record.name().map(Name::fullname).unwrap_or_default();
    Error::schema(format!(
        "duplicate field name \"{field}\" in record \"{record}\""
    ))
    .in_field("name")
}

#[cold]
#[inline(never)]
fn unknown_type(s: &str, ns: Option<&str>) -> Error {
    let mut msg = format!("unknown type \"{s}\": not a primitive type name and ");
    match ns {
        Some(ns) if !s.contains('.') => {
            msg.push_str(&format!("no type \"{ns}.{s}\" or \"{s}\" is defined"));
        }
        _ => msg.push_str("no named type of that name is defined"),
    }
    if matches!(s, "record" | "error" | "enum" | "fixed" | "array" | "map") {
        msg.push_str(&format!(
            " (a {s} is declared with an object: {{\"type\": \"{s}\", ...}})"
        ));
    }
    Error::schema(msg)
}

#[cold]
#[inline(never)]
fn missing_default_field(record: &Name, field: &str) -> Error {
    Error::schema(format!(
        "the default for record \"{record}\" lacks field \"{field}\", which has no default of its own"
    ))
}

#[cold]
#[inline(never)]
fn duplicate_branch(node: &Node, first: usize) -> Error {
    let what = match node.name() {
        Some(name) => format!("the named type \"{name}\""),
        None => format!("a second {}", node.kind.type_name()),
    };
    Error::schema(format!(
        "a union may not contain two branches of the same type: {what} repeats branch {first}"
    ))
}

#[cold]
#[inline(never)]
fn bad_default(v: &Value, node: &Node, first_branch: bool) -> Error {
    let expected = match &node.kind {
        NodeKind::Null => "null".to_owned(),
        NodeKind::Boolean => "a boolean".to_owned(),
        NodeKind::Int => "an integer in the int (32-bit) range".to_owned(),
        NodeKind::Long => "an integer in the long (64-bit) range".to_owned(),
        NodeKind::Float | NodeKind::Double => {
            format!(
                "a number (or \"NaN\", \"Infinity\", \"-Infinity\") for a {}",
                node.kind.type_name()
            )
        }
        NodeKind::String => "a string".to_owned(),
        NodeKind::Bytes => "a string of code points 0-255 (one per byte) for bytes".to_owned(),
        NodeKind::Fixed(f) => format!(
            "a string of exactly {} code points 0-255 for fixed \"{}\"",
            f.size, f.name
        ),
        NodeKind::Enum(e) => format!("one of the symbols of enum \"{}\"", e.name),
        NodeKind::Array(_) => "an array".to_owned(),
        NodeKind::Map(_) => "an object (a map)".to_owned(),
        NodeKind::Record(r) => format!("an object with the fields of record \"{}\"", r.name),
        NodeKind::Union(_) => "a value of the union's first branch".to_owned(),
    };
    let note = if first_branch {
        " (a union's default must match its first branch)"
    } else {
        ""
    };
    Error::schema(format!(
        "invalid default {}: expected {expected}{note}",
        brief(v)
    ))
}

/// Checks how deep writing `root` back nests, a named type being written in full the first time
/// a depth-first walk meets it and by name after that (as `to_json` and the canonical form do).
/// Iterative, so it cannot overflow the stack itself. `expanded` is all false on entry and on
/// return (it is shared between roots so that many small schemas cost no more than one big one).
fn check_written_depth(nodes: &[Node], root: NodeId, expanded: &mut [bool]) -> Result<()> {
    let mut touched = Vec::new();
    let mut stack = vec![(root, 0usize)];
    let mut result = Ok(());
    while let Some((id, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            result = Err(too_deep());
            break;
        }
        // Children are pushed in reverse so they pop left to right: a named type is expanded
        // at the same place as when writing.
        match &nodes[id.index()].kind {
            NodeKind::Record(r) => {
                if std::mem::replace(&mut expanded[id.index()], true) {
                    continue;
                }
                touched.push(id.index());
                stack.extend(r.fields.iter().rev().map(|f| (f.schema, depth + 1)));
            }
            NodeKind::Array(a) => stack.push((a.items, depth + 1)),
            NodeKind::Map(m) => stack.push((m.values, depth + 1)),
            NodeKind::Union(u) => stack.extend(u.variants.iter().rev().map(|&v| (v, depth + 1))),
            _ => {}
        }
    }
    for i in touched {
        expanded[i] = false;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits_per_fixed_size() {
        // floor(log10(2^(8n-1) - 1)) for small n, computed by hand.
        let expected = [
            0, 2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38,
        ];
        for (n, &digits) in expected.iter().enumerate() {
            assert_eq!(max_decimal_digits(n), digits, "size {n}");
        }
    }

    #[test]
    fn brief_cuts_long_values_on_char_boundaries() {
        let v = Value::String("é".repeat(100));
        let b = brief(&v);
        assert!(b.ends_with("...") && b.len() < 70, "{b}");
    }

    #[test]
    fn primitive_slots_are_distinct() {
        let names = [
            "null", "boolean", "int", "long", "float", "double", "bytes", "string",
        ];
        let slots: HashSet<usize> = names
            .iter()
            .map(|n| primitive_slot(&primitive(n).unwrap()).unwrap())
            .collect();
        assert_eq!(slots.len(), 8);
    }
}
