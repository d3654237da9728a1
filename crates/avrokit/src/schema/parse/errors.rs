//! The schema parser's error messages.

use serde_json::Value;

use super::attrs::brief;
use crate::error::Error;
use crate::schema::{Name, Node, NodeKind};

#[cold]
#[inline(never)]
pub(super) fn not_a_schema(v: &Value) -> Error {
    Error::schema(format!(
        "a schema must be a type name (string), an object or a union (array), found {}",
        brief(v)
    ))
}

#[cold]
#[inline(never)]
pub(super) fn union_in_union(i: usize) -> Error {
    Error::schema("a union may not directly contain another union").in_index(i as u64)
}

#[cold]
#[inline(never)]
pub(super) fn missing_child(is_array: bool) -> Error {
    Error::schema(if is_array {
        "an array needs an \"items\" attribute (the items' type)"
    } else {
        "a map needs a \"values\" attribute (the values' type)"
    })
}

#[cold]
#[inline(never)]
pub(super) fn not_declared(name: &Name) -> Error {
    Error::schema(format!("internal error: \"{name}\" was not declared"))
}

#[cold]
#[inline(never)]
pub(super) fn duplicate_field(field: &str, record: &Node) -> Error {
    let record = record.name().map(Name::fullname).unwrap_or_default();
    Error::schema(format!(
        "duplicate field name \"{field}\" in record \"{record}\""
    ))
    .in_field("name")
}

#[cold]
#[inline(never)]
pub(super) fn unknown_type(s: &str, ns: Option<&str>) -> Error {
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
pub(super) fn missing_default_field(record: &Name, field: &str) -> Error {
    Error::schema(format!(
        "the default for record \"{record}\" lacks field \"{field}\", which has no default of its own"
    ))
}

#[cold]
#[inline(never)]
pub(super) fn duplicate_branch(node: &Node, first: usize) -> Error {
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
pub(super) fn bad_default(v: &Value, node: &Node, first_branch: bool) -> Error {
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
