//! Reading a [`Value`] from a `serde_json::Value` in Avro's JSON encoding, and the rules shared
//! with the text reader ([`super::text`]): leaf conversions, union branch lookup, missing fields.

use serde_json::Value as Json;

use crate::error::{Error, ErrorKind, Result};
use crate::logical::{BytesOut, FixedOut, IntOut, LongOut, StringOut};
use crate::schema::{EnumSchema, Field, FixedSchema, Node, NodeId, NodeKind, Schema};
use crate::schema::{RecordSchema, UnionSchema};
use crate::value::Value;

/// Datum or default-value JSON: they differ only in unions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// The JSON encoding of a datum: a union is `null` or `{"<branch>": value}`.
    Datum,
    /// A schema default: a union's value is the bare value of its first branch.
    Default,
}

/// Walks a `serde_json::Value` along the schema.
pub(super) struct TreeReader<'s> {
    pub(super) schema: &'s Schema,
    pub(super) mode: Mode,
    pub(super) max_depth: usize,
}

impl TreeReader<'_> {
    /// Reads node `id`; `depth` counts records, arrays, maps and unions, as the binary decoder.
    pub(super) fn read(&self, json: &Json, id: NodeId, depth: usize) -> Result<Value> {
        let node = self.schema.node(id);
        match &node.kind {
            NodeKind::Array(_) | NodeKind::Map(_) | NodeKind::Record(_) | NodeKind::Union(_) => {
                self.container(json, node, depth)
            }
            _ => self.leaf(json, node),
        }
    }

    /// A value of a type that nests nothing; kept out of the recursive path so that its locals
    /// do not weigh on every level of a deep value.
    #[inline(never)]
    fn leaf(&self, json: &Json, node: &Node) -> Result<Value> {
        Ok(match &node.kind {
            NodeKind::Null => match json {
                Json::Null => Value::Null,
                _ => return Err(expected(node, json)),
            },
            NodeKind::Boolean => match json {
                Json::Bool(b) => Value::Boolean(*b),
                _ => return Err(expected(node, json)),
            },
            NodeKind::Int | NodeKind::Long => match json {
                Json::Number(n) => match n.as_i64() {
                    Some(v) => integer_value(node, v)?,
                    None if n.is_u64() => return Err(out_of_range(node, &n.to_string())),
                    None => return Err(not_integer(node, &n.to_string())),
                },
                _ => return Err(expected(node, json)),
            },
            NodeKind::Float => match json {
                Json::Number(n) => Value::Float(if let Some(i) = n.as_i64() {
                    // An integer converts with one rounding, straight to f32.
                    i as f32
                } else if let Some(u) = n.as_u64() {
                    u as f32
                } else {
                    n.as_f64().unwrap_or(f64::NAN) as f32
                }),
                Json::String(s) => match special_float(s) {
                    Some(v) => Value::Float(v as f32),
                    None => return Err(expected(node, json)),
                },
                _ => return Err(expected(node, json)),
            },
            NodeKind::Double => match json {
                Json::Number(n) => Value::Double(if let Some(i) = n.as_i64() {
                    i as f64
                } else if let Some(u) = n.as_u64() {
                    u as f64
                } else {
                    n.as_f64().unwrap_or(f64::NAN)
                }),
                Json::String(s) => match special_float(s) {
                    Some(v) => Value::Double(v),
                    None => return Err(expected(node, json)),
                },
                _ => return Err(expected(node, json)),
            },
            NodeKind::Bytes => match json {
                Json::String(s) => bytes_value(node, code_points_to_bytes(s)?),
                _ => return Err(expected(node, json)),
            },
            NodeKind::String => match json {
                Json::String(s) => string_value(node, s.clone()),
                _ => return Err(expected(node, json)),
            },
            NodeKind::Fixed(f) => match json {
                Json::String(s) => fixed_value(node, f, code_points_to_bytes(s)?)?,
                _ => return Err(expected(node, json)),
            },
            NodeKind::Enum(e) => match json {
                Json::String(s) => enum_value(e, s)?,
                _ => return Err(expected(node, json)),
            },
            NodeKind::Array(_) | NodeKind::Map(_) | NodeKind::Record(_) | NodeKind::Union(_) => {
                // `read` sends these to `container`.
                return Err(Error::new(
                    ErrorKind::Data,
                    "internal error: not a leaf type",
                ));
            }
        })
    }

    fn container(&self, json: &Json, node: &Node, depth: usize) -> Result<Value> {
        Ok(match &node.kind {
            NodeKind::Array(a) => match json {
                Json::Array(items) => {
                    let depth = self.enter(depth)?;
                    let mut out = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        out.push(
                            self.read(item, a.items, depth)
                                .map_err(|e| e.in_index(i as u64))?,
                        );
                    }
                    Value::Array(out)
                }
                _ => return Err(expected(node, json)),
            },
            NodeKind::Map(m) => match json {
                Json::Object(entries) => {
                    let depth = self.enter(depth)?;
                    let mut out = Vec::with_capacity(entries.len());
                    for (k, v) in entries {
                        out.push((
                            k.clone(),
                            self.read(v, m.values, depth).map_err(|e| e.in_key(k))?,
                        ));
                    }
                    Value::Map(out)
                }
                _ => return Err(expected(node, json)),
            },
            NodeKind::Record(r) => match json {
                Json::Object(entries) => {
                    let depth = self.enter(depth)?;
                    let mut fields = Vec::with_capacity(r.fields.len());
                    let mut found = 0;
                    for f in &r.fields {
                        let v = match entries.get(&f.name) {
                            Some(v) => {
                                found += 1;
                                self.read(v, f.schema, depth)
                            }
                            None => missing_field(self.schema, r, f, depth, self.max_depth),
                        };
                        fields.push(v.map_err(|e| e.in_field(f.name.clone()))?);
                    }
                    // Keys that name no field are a mismatch in a datum (Java's JsonDecoder
                    // rejects them too); a default may carry extra keys, which the schema
                    // parser accepts, as Java does.
                    if self.mode == Mode::Datum && found < entries.len() {
                        if let Some(k) = entries.keys().find(|k| r.field_index(k).is_none()) {
                            return Err(unknown_field(r, k));
                        }
                    }
                    Value::Record(fields)
                }
                _ => return Err(expected(node, json)),
            },
            NodeKind::Union(u) => {
                let depth = self.enter(depth)?;
                let (index, branch, inner) = match self.mode {
                    Mode::Default => match u.variants.first() {
                        Some(&first) => (0, first, json),
                        None => return Err(Error::data("an empty union has no values")),
                    },
                    Mode::Datum => match json {
                        Json::Null => {
                            let (i, b) = null_branch(self.schema, u)?;
                            (i, b, json)
                        }
                        Json::Object(entries) if entries.len() == 1 => {
                            let Some((key, inner)) = entries.iter().next() else {
                                return Err(not_a_union_value(self.schema, u, "an empty object"));
                            };
                            let (i, b) = branch_by_name(self.schema, u, key)?;
                            (i, b, inner)
                        }
                        _ => return Err(not_a_union_value(self.schema, u, &union_found(json))),
                    },
                };
                let v = self.read(inner, branch, depth)?;
                Value::Union(index, Box::new(v))
            }
            _ => self.leaf(json, node)?,
        })
    }

    #[inline]
    fn enter(&self, depth: usize) -> Result<usize> {
        if depth >= self.max_depth {
            return Err(too_deep(self.max_depth, None));
        }
        Ok(depth + 1)
    }
}

// ------------------------------------------------------------------ rules shared with text.rs

/// The value of a record field the JSON leaves out: its default (in the default-value JSON
/// encoding), or an error when it has none.
pub(super) fn missing_field(
    schema: &Schema,
    r: &RecordSchema,
    f: &Field,
    depth: usize,
    max_depth: usize,
) -> Result<Value> {
    match &f.default {
        Some(default) => TreeReader {
            schema,
            mode: Mode::Default,
            max_depth,
        }
        // A default can hold a record whose missing fields use their defaults in turn, which
        // may cycle (`A.b` defaults to `{}`, `B.a` to `{}`); the shared depth bounds that.
        .read(default, f.schema, depth),
        None => Err(Error::data(format!(
            "missing field \"{}\" of record {} (it has no default)",
            f.name, r.name
        ))),
    }
}

/// An `int` or `long` (with its logical type), range-checked.
pub(super) fn integer_value(node: &Node, v: i64) -> Result<Value> {
    Ok(match node.kind {
        NodeKind::Int => {
            let Ok(v) = i32::try_from(v) else {
                return Err(out_of_range(node, &v.to_string()));
            };
            IntOut::of(node.logical).make(v)
        }
        _ => LongOut::of(node.logical).make(v),
    })
}

/// The strings Java's encoder writes for the floats JSON numbers cannot hold.
#[inline]
pub(super) fn special_float(s: &str) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// The bytes of a string whose code points U+0000..U+00FF each stand for one byte.
pub(super) fn code_points_to_bytes(s: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        match u8::try_from(u32::from(c)) {
            Ok(b) => out.push(b),
            Err(_) => return Err(not_a_byte(c, i)),
        }
    }
    Ok(out)
}

/// `bytes` with its logical type, as the binary decoder builds it.
pub(super) fn bytes_value(node: &Node, b: Vec<u8>) -> Value {
    BytesOut::of(node.logical).make_owned(b)
}

/// `string` with its logical type, as the binary decoder builds it: a `uuid` that does not
/// parse stays a string.
pub(super) fn string_value(node: &Node, s: String) -> Value {
    StringOut::of(node.logical).make_owned(s)
}

/// `fixed` with its logical type, size-checked.
pub(super) fn fixed_value(node: &Node, f: &FixedSchema, b: Vec<u8>) -> Result<Value> {
    if b.len() != f.size {
        return Err(Error::data(format!(
            "fixed {} needs a string of {} code points (one per byte), found {}",
            f.name,
            f.size,
            b.len()
        )));
    }
    Ok(FixedOut::of(node.logical, f.size).make_owned(b))
}

pub(super) fn enum_value(e: &EnumSchema, symbol: &str) -> Result<Value> {
    match e.symbol_index(symbol) {
        Some(i) => Ok(Value::Enum(i)),
        None => Err(Error::data(format!(
            "{symbol:?} is not a symbol of enum {} ({})",
            e.name,
            list(e.symbols.iter().map(String::as_str))
        ))),
    }
}

/// The union branch a JSON `null` stands for.
pub(super) fn null_branch(schema: &Schema, u: &UnionSchema) -> Result<(u32, NodeId)> {
    match u
        .variants
        .iter()
        .position(|&b| matches!(schema.node(b).kind, NodeKind::Null))
    {
        Some(i) => Ok((i as u32, u.variants[i])),
        None => Err(Error::data(format!(
            "null is not a branch of the union {}",
            branch_list(schema, u)
        ))),
    }
}

/// The union branch named `key`: a named type by full name (as written) or, when that is
/// unambiguous, by simple name; any other type by its type name (`"int"`, `"array"`, ...).
pub(super) fn branch_by_name(schema: &Schema, u: &UnionSchema, key: &str) -> Result<(u32, NodeId)> {
    let name_of = |b: NodeId| super::write::branch_name(schema.node(b));
    if let Some(i) = u.variants.iter().position(|&b| name_of(b) == key) {
        return Ok((i as u32, u.variants[i]));
    }
    let mut by_simple = u
        .variants
        .iter()
        .enumerate()
        .filter(|(_, &b)| schema.node(b).name().is_some_and(|n| n.name() == key));
    match (by_simple.next(), by_simple.next()) {
        (Some((i, &b)), None) => Ok((i as u32, b)),
        (Some(_), Some(_)) => Err(Error::data(format!(
            "\"{key}\" names more than one branch of the union {}; use the full name",
            branch_list(schema, u)
        ))),
        _ => Err(Error::data(format!(
            "\"{key}\" is not a branch of the union {}",
            branch_list(schema, u)
        ))),
    }
}

// --------------------------------------------------------------------------------- errors

#[cold]
#[inline(never)]
pub(super) fn too_deep(max_depth: usize, offset: Option<u64>) -> Error {
    let e = Error::new(
        ErrorKind::Limit,
        format!("JSON value nested deeper than {max_depth} levels"),
    );
    match offset {
        Some(o) => e.or_offset(o),
        None => e,
    }
}

/// What a node expects, for messages: `"an int (a JSON integer)"`, `"record Foo (an object)"`.
pub(super) fn expectation(node: &Node) -> String {
    let json = match &node.kind {
        NodeKind::Null => return "null".to_owned(),
        NodeKind::Boolean => return "a boolean".to_owned(),
        NodeKind::Int => "an integer in the int (32-bit) range",
        NodeKind::Long => "an integer in the long (64-bit) range",
        NodeKind::Float | NodeKind::Double => "a number, \"NaN\", \"Infinity\" or \"-Infinity\"",
        NodeKind::Bytes => "a string of code points 0-255, one per byte",
        NodeKind::String => "a string",
        NodeKind::Fixed(_) => "a string of code points 0-255, one per byte",
        NodeKind::Enum(_) => "a string: one of its symbols",
        NodeKind::Array(_) => "an array",
        NodeKind::Map(_) => "an object",
        NodeKind::Record(_) => "an object",
        NodeKind::Union(_) => "null or an object {\"<branch>\": value}",
    };
    let mut what = node.kind.type_name().to_owned();
    if let Some(n) = node.name() {
        what.push(' ');
        what.push_str(n.fullname());
    } else if let Some(l) = node.logical {
        what.push_str(&format!(" ({})", l.name()));
    }
    format!("{what}: {json}")
}

#[cold]
#[inline(never)]
pub(super) fn expected_found(node: &Node, found: &str) -> Error {
    Error::data(format!("expected {}, found {found}", expectation(node)))
}

#[cold]
#[inline(never)]
fn expected(node: &Node, json: &Json) -> Error {
    let found = match json {
        Json::String(s) if s.chars().count() <= 40 => format!("the string {s:?}"),
        Json::Number(n) => format!("the number {n}"),
        other => json_kind(other).to_owned(),
    };
    expected_found(node, &found)
}

#[cold]
#[inline(never)]
pub(super) fn out_of_range(node: &Node, number: &str) -> Error {
    Error::data(format!(
        "{number} is out of range for {}",
        node.kind.type_name()
    ))
}

#[cold]
#[inline(never)]
pub(super) fn not_integer(node: &Node, number: &str) -> Error {
    Error::data(format!(
        "expected an integer for {}, found {number} (an {} takes no fraction or exponent)",
        node.kind.type_name(),
        node.kind.type_name()
    ))
}

#[cold]
#[inline(never)]
fn not_a_byte(c: char, index: usize) -> Error {
    Error::data(format!(
        "character {c:?} (U+{:04X}) at position {index} is not a byte: bytes and fixed are \
         strings of code points U+0000-U+00FF",
        u32::from(c)
    ))
}

#[cold]
#[inline(never)]
pub(super) fn unknown_field(r: &RecordSchema, key: &str) -> Error {
    Error::data(format!(
        "unknown field \"{key}\" for record {} (fields: {})",
        r.name,
        list(r.fields.iter().map(|f| f.name.as_str()))
    ))
}

#[cold]
#[inline(never)]
pub(super) fn not_a_union_value(schema: &Schema, u: &UnionSchema, found: &str) -> Error {
    Error::data(format!(
        "expected a value of the union {}: null or an object with one member \
         {{\"<branch name>\": value}}, found {found}",
        branch_list(schema, u)
    ))
}

fn json_kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

fn union_found(json: &Json) -> String {
    match json {
        Json::Object(o) if o.is_empty() => "an empty object".to_owned(),
        Json::Object(o) => format!("an object with {} members", o.len()),
        other => json_kind(other).to_owned(),
    }
}

fn branch_list(schema: &Schema, u: &UnionSchema) -> String {
    format!(
        "[{}]",
        list(
            u.variants
                .iter()
                .map(|&b| super::write::branch_name(schema.node(b)))
        )
    )
}

fn list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut s = String::new();
    for (i, item) in items.enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        if i == 20 {
            s.push_str("...");
            break;
        }
        s.push_str(item);
    }
    s
}
