//! Parsing Canonical Form, as the specification defines it:
//!
//! - PRIMITIVES: a primitive is its bare name (`"int"`), whatever attributes it had.
//! - FULLNAMES: names are written as fullnames, without `namespace` attributes.
//! - STRIP: only `type`, `name`, `fields`, `symbols`, `items`, `values`, `size` are kept.
//! - ORDER: `name`, `type`, `fields`, `symbols`, `items`, `values`, `size`.
//! - STRINGS: no escapes beyond what JSON requires (names and symbols are plain identifiers).
//! - INTEGERS: `size` is a bare integer without leading zeros.
//! - WHITESPACE: none.
//!
//! A named type is written in full the first time a depth-first walk meets it and by fullname
//! after that. A protocol `error` is written as `"record"`, since it is encoded as one (this
//! matches Java's `SchemaNormalization`).

use std::fmt::Write as _;

use super::{Node, NodeId, NodeKind, Schema};

pub(crate) fn canonical_form(schema: &Schema) -> String {
    let nodes = schema.nodes();
    let mut out = String::with_capacity(64);
    let mut written = vec![false; nodes.len()];
    write(nodes, schema.root_id(), &mut written, &mut out);
    out
}

/// Appends node `id`. Recursion is bounded by the parser's depth check.
fn write(nodes: &[Node], id: NodeId, written: &mut [bool], out: &mut String) {
    let node = &nodes[id.index()];
    let name = match node.name() {
        Some(name) => {
            if std::mem::replace(&mut written[id.index()], true) {
                push_str(out, name.fullname());
                return;
            }
            Some(name.fullname())
        }
        None => None,
    };
    match &node.kind {
        NodeKind::Record(r) => {
            out.push_str("{\"name\":");
            push_str(out, name.unwrap_or_default());
            out.push_str(",\"type\":\"record\",\"fields\":[");
            for (i, f) in r.fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"name\":");
                push_str(out, &f.name);
                out.push_str(",\"type\":");
                write(nodes, f.schema, written, out);
                out.push('}');
            }
            out.push_str("]}");
        }
        NodeKind::Enum(e) => {
            out.push_str("{\"name\":");
            push_str(out, name.unwrap_or_default());
            out.push_str(",\"type\":\"enum\",\"symbols\":[");
            for (i, s) in e.symbols.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_str(out, s);
            }
            out.push_str("]}");
        }
        NodeKind::Fixed(f) => {
            out.push_str("{\"name\":");
            push_str(out, name.unwrap_or_default());
            // Writing to a String cannot fail.
            let _ = write!(out, ",\"type\":\"fixed\",\"size\":{}}}", f.size);
        }
        NodeKind::Array(a) => {
            out.push_str("{\"type\":\"array\",\"items\":");
            write(nodes, a.items, written, out);
            out.push('}');
        }
        NodeKind::Map(m) => {
            out.push_str("{\"type\":\"map\",\"values\":");
            write(nodes, m.values, written, out);
            out.push('}');
        }
        NodeKind::Union(u) => {
            out.push('[');
            for (i, &v) in u.variants.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(nodes, v, written, out);
            }
            out.push(']');
        }
        primitive => {
            out.push('"');
            out.push_str(primitive.type_name());
            out.push('"');
        }
    }
}

/// Appends `s` as a JSON string literal with only the escapes JSON requires (STRINGS).
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c < '\u{20}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_keep_non_ascii_and_escape_only_what_json_needs() {
        let mut out = String::new();
        push_str(&mut out, "é\"\\\u{1}");
        assert_eq!(out, "\"é\\\"\\\\\\u0001\"");
    }
}
