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
//!
//! One role per file: this one runs the passes; `attrs.rs` reads and validates the attributes
//! of schema objects, `build.rs` is the parser of passes 1 and 2, `defaults.rs` pass 3, and
//! `errors.rs` the error messages.

mod attrs;
mod build;
mod defaults;
mod errors;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use self::build::Parser;
use self::defaults::DefaultsPass;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{Arena, Node, NodeId, NodeKind, Schema};

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
    for (i, json) in jsons.iter().enumerate() {
        check_json_depth(json).map_err(|e| at_root(e, i, many))?;
    }
    let mut p = Parser::default();
    for (i, json) in jsons.iter().enumerate() {
        p.declare(json, None, 0).map_err(|e| at_root(e, i, many))?;
    }
    let mut roots = Vec::with_capacity(jsons.len());
    for (i, json) in jsons.iter().enumerate() {
        roots.push(p.build(json, None, 0).map_err(|e| at_root(e, i, many))?);
    }
    let mut pass3 = DefaultsPass {
        nodes: &p.nodes,
        symbol_sets: HashMap::new(),
    };
    for (i, (json, &root)) in jsons.iter().zip(&roots).enumerate() {
        pass3
            .defaults(json, root, 0)
            .map_err(|e| at_root(e, i, many))?;
    }
    let mut expanded = vec![false; p.nodes.len()];
    for (i, &root) in roots.iter().enumerate() {
        check_written_depth(&p.nodes, root, &mut expanded).map_err(|e| at_root(e, i, many))?;
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
    use std::collections::HashSet;

    use super::attrs::{brief, max_decimal_digits, primitive, primitive_slot};
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
