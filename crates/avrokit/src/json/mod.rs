//! Avro's JSON encoding: [`Value`]s to JSON and back, driven by the schema.
//!
//! The specification's JSON encoding is the default-value JSON of each type, with unions
//! written as `null` or `{"<branch name>": value}`. Precisely, as Java's `avro-tools tojson`
//! writes it:
//!
//! | Avro type | JSON |
//! |---|---|
//! | null, boolean, string | `null`, `true`/`false`, a string |
//! | int, long | an integer, exact over the whole 64-bit range |
//! | float, double | the shortest number that reads back as the same value (`0.1` for a float, not `0.10000000149011612`), `1.0` for integral values, `-0.0` keeps its sign; NaN and the infinities as the strings `"NaN"`, `"Infinity"`, `"-Infinity"` |
//! | bytes, fixed | a string with one code point per byte: byte `0xNN` is U+00NN |
//! | enum | the symbol |
//! | array, map, record | an array, an object, an object with the fields in schema order |
//! | union | `null` for the null branch, else `{"<name>": value}`: a record, enum or fixed branch by its full name, any other by its type name (`"int"`, `"array"`, `"map"`) |
//! | logical types | their underlying type: `decimal` as its bytes, `uuid` as the string (or the 16 fixed bytes), `date` and times as numbers, `duration` as its 12 bytes |
//!
//! Text output is UTF-8 with non-ASCII characters written raw, except the control characters
//! U+0000-U+001F and U+007F-U+009F and the separators U+2028/U+2029, which are `\u`-escaped:
//! a compact datum is always exactly one line. Numbers are spelled as serde_json spells them
//! (`1e-7`, `1e+300`); Java writes `1.0E-7` and Python `1e-07` for the same numbers.
//!
//! # Examples
//! ```
//! use avrokit::{json, Schema, Value};
//! let schema = Schema::parse_str(r#"{"type": "record", "name": "P", "namespace": "ns",
//!     "fields": [{"name": "f", "type": "float"},
//!                {"name": "b", "type": "bytes"},
//!                {"name": "u", "type": ["null", "P"]}]}"#)?;
//! let v = Value::Record(vec![
//!     Value::Float(0.1),
//!     Value::Bytes(vec![0xff, 0x00]),
//!     Value::Union(0, Box::new(Value::Null)),
//! ]);
//! let text = json::to_json_string(&v, &schema, false)?;
//! assert_eq!(text, r#"{"f":0.1,"b":"ÿ\u0000","u":null}"#);
//! assert_eq!(json::from_json_str(&text, &schema)?, v);
//!
//! let nested = Value::Record(vec![
//!     Value::Float(1.0),
//!     Value::Bytes(vec![]),
//!     Value::Union(1, Box::new(v)),
//! ]);
//! let text = json::to_json_string(&nested, &schema, false)?;
//! assert!(text.ends_with(r#""u":{"ns.P":{"f":0.1,"b":"ÿ\u0000","u":null}}}"#));
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # Reading
//! [`from_json_str`] and [`JsonReader`] read text directly into [`Value`]s; [`from_json_value`]
//! reads an already parsed `serde_json::Value`. Both build what the binary decoder builds for
//! the same schema (logical types as their [`Value`] variants, a `uuid` string that does not
//! parse as a string). They accept a little more than the writer produces:
//! - a union branch by its full name or, when unambiguous, its simple name;
//! - integers for `float` and `double`, and any JSON spelling of a number (`1e-05`, `1.0E-5`);
//! - record fields in any order, and a missing field when it has a default.
//!
//! A number too large for a `float` reads as infinity, as Java's decoder does; an integer out of
//! range for an `int` or `long`, or with a fraction or exponent, is an error.
//!
//! # Error handling
//! Errors name the path of the offending value (`Order.items[3].price`), and the text reader
//! also the byte offset. Text that ends inside a value is an [`ErrorKind::Eof`] error.
//!
//! # Limitations
//! Repeated keys: a [`Value::Map`] with a repeated key (binary data may hold one) is written
//! with each entry, so the text is an object with a repeated member, while [`to_json_value`]
//! keeps the last value, as a `serde_json::Map` must. Likewise the text reader keeps every
//! entry of a map and rejects a repeated record field, while a `serde_json::Value` handed to
//! [`from_json_value`] has already kept only the last.
//!
//! # Performance
//! Writing walks the value and the schema arena once, straight into a `String` (integers with
//! `itoa`, floats with `zmij`, the shortest round-trip formatter serde_json uses). Reading text
//! goes straight to [`Value`] without building a `serde_json::Value`, borrowing strings that
//! need no unescaping. Neither looks a type name up in a map.

mod default;
mod read;
mod text;
mod write;

use std::io;

pub use default::default_to_value;
pub use text::JsonReader;

use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;
use crate::schema::Schema;
use crate::value::Value;

/// Converts a value of `schema` to its JSON encoding as a `serde_json::Value`.
///
/// Object members keep schema order (serde_json's `preserve_order`). A `float` becomes the
/// JSON number nearest to its shortest decimal form, so it prints as `0.1`, not as the
/// `f64` value of the `f32`.
///
/// # Examples
/// ```
/// use avrokit::{json::to_json_value, Schema, Value};
/// let schema = Schema::parse_str(r#"["null", {"type": "map", "values": "double"}]"#)?;
/// let v = Value::Union(1, Box::new(Value::Map(vec![("x".into(), Value::Double(f64::NAN))])));
/// assert_eq!(to_json_value(&v, &schema)?, serde_json::json!({"map": {"x": "NaN"}}));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::Data`] when the value does not match the schema (with the path), as
/// [`write_value`](crate::value::write_value) would report it; [`ErrorKind::Limit`] when it
/// nests deeper than 1024 levels.
pub fn to_json_value(value: &Value, schema: &Schema) -> Result<serde_json::Value> {
    let mut out = write::TreeOut::new();
    write::write_root(&mut out, value, schema)?;
    Ok(out.result.unwrap_or(serde_json::Value::Null))
}

/// Converts a value of `schema` to JSON text: one line when `pretty` is false, else indented
/// as Java's `avro-tools tojson --pretty` (Jackson's default pretty printer) does.
///
/// # Examples
/// ```
/// use avrokit::{json::to_json_string, Schema, Value};
/// let schema = Schema::parse_str(r#"{"type": "record", "name": "R", "fields": [
///     {"name": "a", "type": {"type": "array", "items": "int"}},
///     {"name": "s", "type": "string"}]}"#)?;
/// let v = Value::Record(vec![
///     Value::Array(vec![Value::Int(1), Value::Int(2)]),
///     Value::String("line\u{2028}sep".into()),
/// ]);
/// assert_eq!(to_json_string(&v, &schema, false)?, r#"{"a":[1,2],"s":"line\u2028sep"}"#);
/// assert_eq!(
///     to_json_string(&v, &schema, true)?,
///     "{\n  \"a\" : [ 1, 2 ],\n  \"s\" : \"line\\u2028sep\"\n}"
/// );
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`to_json_value`].
pub fn to_json_string(value: &Value, schema: &Schema, pretty: bool) -> Result<String> {
    let mut out = String::new();
    append_json(&mut out, value, schema, pretty)?;
    Ok(out)
}

/// Appends the JSON text of a value to `out`, as [`to_json_string`] writes it; on error `out`
/// is left as it was. Reusing one `String` across datums saves an allocation per datum.
///
/// # Examples
/// ```
/// use avrokit::{json::append_json, Schema, Value};
/// let schema = Schema::parse_str(r#""bytes""#)?;
/// let mut line = String::new();
/// for b in [vec![0x41, 0x0a], vec![0xe9]] {
///     line.clear();
///     append_json(&mut line, &Value::Bytes(b), &schema, false)?;
///     line.push('\n');
///     print!("{line}"); // "A\n", then "é"
/// }
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`to_json_value`].
pub fn append_json(out: &mut String, value: &Value, schema: &Schema, pretty: bool) -> Result<()> {
    let len = out.len();
    let mut text = write::TextOut {
        buf: out,
        pretty,
        indent: 0,
    };
    let result = write::write_root(&mut text, value, schema);
    if result.is_err() {
        out.truncate(len);
    }
    result
}

/// Writes the JSON text of a value to `w` (no trailing newline), as [`to_json_string`].
///
/// The text is built in memory first and handed to `w` in one `write_all`, so an unbuffered
/// writer costs one system call per datum, and nothing is written when the value does not
/// match the schema. To write many datums, prefer [`append_json`] into a reused `String`.
///
/// # Examples
/// ```
/// use avrokit::{json::write_json, Schema, Value};
/// let schema = Schema::parse_str(r#""double""#)?;
/// let mut out = Vec::new();
/// write_json(&mut out, &Value::Double(-0.0), &schema, false)?;
/// write_json(&mut out, &Value::Double(1e300), &schema, false)?;
/// assert_eq!(out, b"-0.01e+300");
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`to_json_value`], and [`ErrorKind::Io`] when `w` fails.
pub fn write_json<W: io::Write>(
    mut w: W,
    value: &Value,
    schema: &Schema,
    pretty: bool,
) -> Result<()> {
    let text = to_json_string(value, schema, pretty)?;
    w.write_all(text.as_bytes()).map_err(Error::io)
}

/// Reads a value of `schema` from a parsed JSON value in Avro's JSON encoding.
///
/// # Examples
/// ```
/// use avrokit::{json::from_json_value, Schema, Value};
/// let schema = Schema::parse_str(r#"{"type": "fixed", "name": "F", "size": 2}"#)?;
/// let v = from_json_value(&serde_json::json!("\u{ff}\u{0}"), &schema)?;
/// assert_eq!(v, Value::Fixed(vec![0xff, 0x00]));
/// let err = from_json_value(&serde_json::json!("\u{100}\u{0}"), &schema).unwrap_err();
/// assert!(err.message().contains("U+0100"), "{err}");
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::Data`] with the path (`Order.items[3].price`) when the JSON does not match the
/// schema; [`ErrorKind::Limit`] when it nests deeper than [`Limits::DEFAULT_MAX_DEPTH`].
pub fn from_json_value(json: &serde_json::Value, schema: &Schema) -> Result<Value> {
    let root = schema.root_id();
    read::TreeReader {
        schema,
        mode: read::Mode::Datum,
        max_depth: Limits::DEFAULT_MAX_DEPTH,
    }
    .read(json, root, 0)
    .map_err(|e| match schema.node(root).name() {
        Some(n) => e.in_field(n.name().to_owned()),
        None => e,
    })
}

/// Reads one value of `schema` from JSON text in Avro's JSON encoding; the text must hold
/// exactly one JSON value (whitespace around it is fine). For several, use [`JsonReader`].
///
/// # Examples
/// ```
/// use avrokit::{json::from_json_str, Schema, Value};
/// let schema = Schema::parse_str(r#"{"type": "record", "name": "Order", "fields": [
///     {"name": "items", "type": {"type": "array", "items": "double"}}]}"#)?;
/// let v = from_json_str(r#"{"items": [1, 2.5, "-Infinity"]}"#, &schema)?;
/// assert_eq!(v, Value::Record(vec![Value::Array(vec![
///     Value::Double(1.0), Value::Double(2.5), Value::Double(f64::NEG_INFINITY),
/// ])]));
/// let err = from_json_str(r#"{"items": [1, true]}"#, &schema).unwrap_err();
/// assert_eq!(err.path(), "Order.items[1]");
/// assert_eq!(err.offset(), Some(14)); // the byte offset of `true`
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`JsonReader`]; also [`ErrorKind::Eof`] for empty text and [`ErrorKind::Data`] for
/// anything after the value.
pub fn from_json_str(text: &str, schema: &Schema) -> Result<Value> {
    let mut reader = JsonReader::new(text, schema);
    let Some(v) = reader.read_value()? else {
        return Err(Error::at(
            ErrorKind::Eof,
            "empty JSON text: expected a value",
            text.len() as u64,
        ));
    };
    reader.end()?;
    Ok(v)
}
