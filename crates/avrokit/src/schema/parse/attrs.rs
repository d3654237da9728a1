//! The attributes of schema objects: names, namespaces, aliases, custom properties, logical
//! types, and the parts of records and fields.

use serde_json::{Map, Value};

use super::{FIELD_RESERVED, LOG10_2};
use crate::error::{Error, Result};
use crate::schema::{Field, LogicalType, Name, NodeId, NodeKind, Order};

/// The kind of a primitive type name.
pub(super) fn primitive(name: &str) -> Option<NodeKind> {
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
pub(super) fn primitive_slot(kind: &NodeKind) -> Option<usize> {
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
pub(super) fn brief(v: &Value) -> String {
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
pub(super) fn definition_name<'j>(
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

pub(super) fn check_not_primitive(simple: &str) -> Result<()> {
    if primitive(simple).is_some() {
        return Err(Error::schema(format!(
            "\"{simple}\" is a primitive type name and may not be defined as a named type"
        ))
        .in_field("name"));
    }
    Ok(())
}

#[cold]
pub(super) fn invalid_name(name: &str, what: &str) -> Error {
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
pub(super) fn doc_of(obj: &Map<String, Value>) -> Option<String> {
    obj.get("doc").and_then(Value::as_str).map(str::to_owned)
}

/// The attributes of `obj` that are not in `reserved` nor a string `doc` (see [`doc_of`]).
pub(super) fn props_with_doc(obj: &Map<String, Value>, reserved: &[&str]) -> Vec<(String, Value)> {
    let mut props = custom_props(obj, reserved);
    if matches!(obj.get("doc"), Some(Value::String(_))) {
        props.retain(|(k, _)| k != "doc");
    }
    props
}

/// The `aliases` attribute: an array of strings. The specification accepts any string as an
/// alias ("aliases should be valid names, but this is not required").
pub(super) fn alias_strings(obj: &Map<String, Value>) -> Result<Vec<&str>> {
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
pub(super) fn type_aliases(obj: &Map<String, Value>, name: &Name) -> Result<Vec<Name>> {
    Ok(alias_strings(obj)?
        .into_iter()
        .map(|a| Name::with_namespace(a, name.namespace()))
        .collect())
}

/// The most decimal digits a two's-complement fixed of `size` bytes can hold:
/// `floor(log10(2^(8 * size - 1) - 1))`. `2^k - 1` is never a power of ten for `k >= 1`, so this
/// is `floor(k * log10(2))`; f64 is exact enough for any size whose digits fit in a `u32`.
pub(super) fn max_decimal_digits(size: usize) -> u64 {
    if size == 0 {
        return 0;
    }
    let bits = (size as f64) * 8.0 - 1.0;
    (bits * LOG10_2).floor() as u64
}

/// The logical type annotation of a node of `kind`, taken out of `props` when it is valid.
/// Unknown or invalid annotations stay in `props` and are otherwise ignored.
pub(super) fn extract_logical(
    kind: &NodeKind,
    props: &mut Vec<(String, Value)>,
) -> Option<LogicalType> {
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

/// The `type` attribute of a schema object.
#[inline(never)]
pub(super) fn object_type(obj: &Map<String, Value>) -> Result<&str> {
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
pub(super) fn record_fields<'j>(obj: &'j Map<String, Value>, ty: &str) -> Result<&'j [Value]> {
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
pub(super) fn field_header(json: &Value) -> Result<(&Map<String, Value>, &str, &Value)> {
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
pub(super) fn push_field(
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
