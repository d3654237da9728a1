//! Field default values: the JSON encoding with one difference, unions.

use super::read::{Mode, TreeReader};
use crate::error::Result;
use crate::io::Limits;
use crate::schema::{NodeId, Schema};
use crate::value::Value;

/// Converts a schema default value (a record field's `"default"`) to the [`Value`] of node `id`
/// of `schema`'s arena.
///
/// Defaults use the JSON encoding of datums except for unions: a union's default is the bare
/// value of its **first** branch, not wrapped in `{"<branch>": ...}`, and so are the unions
/// nested inside it. The result is what the binary decoder would build for the same datum
/// (`Value::Union(0, ...)` for a union, logical types as their own variants). A record default
/// may leave out fields that have defaults of their own; keys that name no field are ignored,
/// as Java does.
///
/// This is what schema resolution fills a reader-only field with.
///
/// # Examples
/// ```
/// use avrokit::{json::default_to_value, schema::NodeKind, Schema, Value};
/// let schema = Schema::parse_str(r#"{"type": "record", "name": "R", "fields": [
///     {"name": "tag", "type": ["null", "string"], "default": null},
///     {"name": "n", "type": ["long", "null"], "default": 7}
/// ]}"#)?;
/// let NodeKind::Record(r) = schema.root().kind() else { unreachable!() };
/// let f = &r.fields[1];
/// let v = default_to_value(f.default.as_ref().unwrap(), &schema, f.schema)?;
/// assert_eq!(v, Value::Union(0, Box::new(Value::Long(7))));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// [`ErrorKind::Data`](crate::ErrorKind::Data) with the path inside the default when the JSON
/// does not match the type (the schema parser validates defaults, so this happens only for
/// JSON from elsewhere), and [`ErrorKind::Limit`](crate::ErrorKind::Limit) when defaults nest
/// deeper than [`Limits::DEFAULT_MAX_DEPTH`] (record defaults whose missing fields' defaults
/// refer back to each other can cycle).
///
/// # Panics
/// If `id` does not come from `schema`'s arena.
pub fn default_to_value(json: &serde_json::Value, schema: &Schema, id: NodeId) -> Result<Value> {
    TreeReader {
        schema,
        mode: Mode::Default,
        max_depth: Limits::DEFAULT_MAX_DEPTH,
    }
    .read(json, id, 0)
}
