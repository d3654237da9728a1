//! The matching rules of the specification's "Schema Resolution" section, in one place.
//!
//! Both the plan compiler ([`super::compile`]) and the compatibility checker
//! ([`super::compat`]) decide whether two nodes match through these functions, so the two can
//! never disagree about what resolves.

use crate::schema::{Field, LogicalType, Name, Node, NodeId, NodeKind, RecordSchema, Schema};

/// How a writer node relates to a reader node, neither of them a union, before looking inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shallow {
    /// Same type (and, for named types, matching names and sizes, for decimals the same scale
    /// and precision): resolve recursively.
    Same,
    /// The writer's primitive is promoted to the reader's (int to long, string to bytes, ...).
    Promote,
    /// No match.
    No(Mismatch),
}

/// Why two non-union nodes do not match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mismatch {
    /// Different types, and no promotion between them.
    Type,
    /// Named types of the same kind whose names (and reader aliases) do not match.
    Name,
    /// Fixed types of different sizes.
    FixedSize,
    /// Two `decimal`s with a different scale or precision.
    Decimal,
}

/// True when the two kinds are the same type (ignoring what is inside).
pub(crate) fn same_type(w: &NodeKind, r: &NodeKind) -> bool {
    std::mem::discriminant(w) == std::mem::discriminant(r)
}

/// The specification's promotions: int to long, float or double; long to float or double;
/// float to double; string to bytes and bytes to string.
pub(crate) fn promotable(w: &NodeKind, r: &NodeKind) -> bool {
    matches!(
        (w, r),
        (
            NodeKind::Int,
            NodeKind::Long | NodeKind::Float | NodeKind::Double
        ) | (NodeKind::Long, NodeKind::Float | NodeKind::Double)
            | (NodeKind::Float, NodeKind::Double)
            | (NodeKind::String, NodeKind::Bytes)
            | (NodeKind::Bytes, NodeKind::String)
    )
}

/// The aliases of a named type.
fn aliases(node: &Node) -> &[Name] {
    match &node.kind {
        NodeKind::Record(r) => &r.aliases,
        NodeKind::Enum(e) => &e.aliases,
        NodeKind::Fixed(f) => &f.aliases,
        _ => &[],
    }
}

/// Whether the writer's named type may be read as the reader's: the unqualified names are
/// equal (as the specification says), or one of the reader's aliases names the writer's type.
///
/// An alias matches the writer's fullname (Java's rule: an alias is relative to the namespace
/// of the type it belongs to, which the parser has already applied) or the writer's
/// unqualified name (consistent with the unqualified comparison of names themselves).
pub(crate) fn names_match(writer: &Node, reader: &Node) -> bool {
    let (Some(w), Some(r)) = (writer.name(), reader.name()) else {
        return false;
    };
    w.name() == r.name()
        || aliases(reader)
            .iter()
            .any(|a| a.fullname() == w.fullname() || a.name() == w.name())
}

/// The `decimal` parameters of a node, if it carries that logical type.
fn decimal(node: &Node) -> Option<(u32, u32)> {
    match node.logical {
        Some(LogicalType::Decimal { precision, scale }) => Some((precision, scale)),
        _ => None,
    }
}

/// Whether the logical types of two otherwise matching nodes are compatible.
///
/// The specification: two `decimal`s match when their scales and precisions match. A decimal
/// read from or into a plain `bytes`/`fixed` (one side not annotated) matches: the bytes are
/// the same and the reader's annotation decides how they are presented. Every other logical
/// type is presentation only and never prevents a match.
pub(crate) fn decimals_match(writer: &Node, reader: &Node) -> bool {
    match (decimal(writer), decimal(reader)) {
        (Some(w), Some(r)) => w == r,
        _ => true,
    }
}

/// Compares two nodes, neither of them a union.
pub(crate) fn shallow(writer: &Node, reader: &Node) -> Shallow {
    let (w, r) = (&writer.kind, &reader.kind);
    if !same_type(w, r) {
        return if promotable(w, r) {
            Shallow::Promote
        } else {
            Shallow::No(Mismatch::Type)
        };
    }
    match (w, r) {
        (NodeKind::Record(_), NodeKind::Record(_)) | (NodeKind::Enum(_), NodeKind::Enum(_)) => {
            if names_match(writer, reader) {
                Shallow::Same
            } else {
                Shallow::No(Mismatch::Name)
            }
        }
        (NodeKind::Fixed(wf), NodeKind::Fixed(rf)) => {
            if !names_match(writer, reader) {
                Shallow::No(Mismatch::Name)
            } else if wf.size != rf.size {
                Shallow::No(Mismatch::FixedSize)
            } else if !decimals_match(writer, reader) {
                Shallow::No(Mismatch::Decimal)
            } else {
                Shallow::Same
            }
        }
        (NodeKind::Bytes, NodeKind::Bytes) if !decimals_match(writer, reader) => {
            Shallow::No(Mismatch::Decimal)
        }
        _ => Shallow::Same,
    }
}

/// The reader union branch a writer node (not a union) is read as, if any.
///
/// The specification says "the first schema in the reader's union that matches"; a promotion
/// is also a match, so `int` read as `["null", "float", "long"]` picks `float`. An exact match
/// anywhere in the union is preferred over an earlier promotable branch (so `string` read as
/// `["bytes", "string"]` stays a string, and identical unions keep their branches), and among
/// named types a branch with the writer's full name is preferred over one that matches by
/// unqualified name or alias only:
///
/// 1. same type, and for named types the same fullname;
/// 2. same type, matching by unqualified name or alias;
/// 3. the first branch the writer's type promotes to.
pub(crate) fn select_branch(
    writer: &Schema,
    w: NodeId,
    reader: &Schema,
    variants: &[NodeId],
) -> Option<usize> {
    let wn = writer.node(w);
    let shallows: Vec<Shallow> = variants
        .iter()
        .map(|&b| {
            let rn = reader.node(b);
            if matches!(rn.kind, NodeKind::Union(_)) {
                // A union directly inside a union is not a valid schema; never match it.
                Shallow::No(Mismatch::Type)
            } else {
                shallow(wn, rn)
            }
        })
        .collect();
    let exact = variants.iter().zip(&shallows).position(|(&b, s)| {
        *s == Shallow::Same
            && match (wn.name(), reader.node(b).name()) {
                (Some(a), Some(b)) => a.fullname() == b.fullname(),
                _ => true,
            }
    });
    exact
        .or_else(|| shallows.iter().position(|s| *s == Shallow::Same))
        .or_else(|| shallows.iter().position(|s| *s == Shallow::Promote))
}

/// For each reader field, the writer field it reads, or `None` when the reader field must
/// come from its default.
///
/// A reader field matches the writer field of the same name; failing that, the first writer
/// field named by one of the reader field's aliases. Each writer field feeds at most one
/// reader field: name matches are made first for every field, then alias matches among the
/// writer fields still unclaimed, so an alias never steals a field another reader field has by
/// name.
pub(crate) fn match_fields(writer: &RecordSchema, reader: &RecordSchema) -> Vec<Option<usize>> {
    let mut claimed = vec![false; writer.fields.len()];
    let mut out: Vec<Option<usize>> = reader
        .fields
        .iter()
        .map(|rf| {
            let i = writer.field_index(&rf.name)?;
            if claimed[i] {
                return None;
            }
            claimed[i] = true;
            Some(i)
        })
        .collect();
    for (slot, rf) in out.iter_mut().zip(&reader.fields) {
        if slot.is_none() {
            *slot = alias_match(writer, rf, &claimed);
            if let Some(i) = *slot {
                claimed[i] = true;
            }
        }
    }
    out
}

fn alias_match(writer: &RecordSchema, rf: &Field, claimed: &[bool]) -> Option<usize> {
    rf.aliases
        .iter()
        .find_map(|a| writer.field_index(a).filter(|&i| !claimed[i]))
}

/// For each writer enum symbol, the reader symbol index it is read as: the same symbol, else
/// the reader's enum default, else `None` (an error for a datum holding that symbol).
pub(crate) fn enum_table(
    writer_symbols: &[String],
    reader: &crate::schema::EnumSchema,
) -> Vec<Option<u32>> {
    writer_symbols
        .iter()
        .map(|s| reader.symbol_index(s).or(reader.default))
        .collect()
}

/// A short description of a node's type for messages: `int`, `record Order`, `fixed F(4)`,
/// `bytes (decimal(6,2))`.
pub(crate) fn describe(node: &Node) -> String {
    let base = match &node.kind {
        NodeKind::Record(r) => format!("record {}", r.name),
        NodeKind::Enum(e) => format!("enum {}", e.name),
        NodeKind::Fixed(f) => format!("fixed {}({})", f.name, f.size),
        k => k.type_name().to_owned(),
    };
    match node.logical {
        Some(LogicalType::Decimal { precision, scale }) => {
            format!("{base} (decimal({precision},{scale}))")
        }
        _ => base,
    }
}

/// The message for a shallow mismatch: `writer long cannot be read as int`.
pub(crate) fn mismatch_message(writer: &Node, reader: &Node, why: Mismatch) -> String {
    let (w, r) = (describe(writer), describe(reader));
    match why {
        Mismatch::Type => format!("writer {w} cannot be read as {r}"),
        Mismatch::Name => format!("writer {w} cannot be read as {r}: the names differ"),
        Mismatch::FixedSize => format!("writer {w} cannot be read as {r}: the sizes differ"),
        Mismatch::Decimal => {
            format!("writer {w} cannot be read as {r}: decimal scale or precision differs")
        }
    }
}

/// A schema path being built while walking, as in `Order.items[].price`: the root record's
/// name, `.field` for fields, `[]` for array items, `{}` for map values and `[i]` for the
/// writer's union branch `i`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Path {
    text: String,
    marks: Vec<usize>,
}

impl Path {
    pub(crate) fn root(reader: &Schema) -> Path {
        let mut p = Path::default();
        if let Some(n) = reader.root().name() {
            p.text.push_str(n.name());
        }
        p
    }

    pub(crate) fn push_field(&mut self, name: &str) {
        self.marks.push(self.text.len());
        if !self.text.is_empty() {
            self.text.push('.');
        }
        self.text.push_str(name);
    }

    pub(crate) fn push_items(&mut self) {
        self.marks.push(self.text.len());
        self.text.push_str("[]");
    }

    pub(crate) fn push_values(&mut self) {
        self.marks.push(self.text.len());
        self.text.push_str("{}");
    }

    pub(crate) fn push_branch(&mut self, i: usize) {
        self.marks.push(self.text.len());
        self.text.push('[');
        self.text.push_str(&i.to_string());
        self.text.push(']');
    }

    pub(crate) fn pop(&mut self) {
        if let Some(m) = self.marks.pop() {
            self.text.truncate(m);
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }
}
