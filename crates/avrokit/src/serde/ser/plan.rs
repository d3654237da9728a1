//! Compiling a schema for serde writing: [`SerPlan`].

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;

use super::MAX_WRITE_DEPTH;
use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::{Node, NodeKind, Schema};
use crate::serde::logical::Logical;
use crate::value::write_value;

/// A schema compiled once for writing Rust values with serde: see the [module docs](crate::serde).
///
/// Built once, cheap to clone (an `Arc`), `Send + Sync`. It holds, for every node of the
/// schema, what the serializer needs without looking at the schema again: record fields by
/// position and a sorted name table for out-of-order fields, pre-encoded field defaults, and
/// for each union the branch to take for each kind of Rust value.
///
/// # Examples
/// ```
/// use avrokit::{serde::SerPlan, Schema};
/// let schema = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"x","type":"long"},{"name":"tag","type":["null","string"]}]}"#)?;
/// let plan = SerPlan::compile(&schema)?;
///
/// #[derive(serde::Serialize)]
/// struct P<'a> { x: i64, tag: Option<&'a str> }
/// let bytes = avrokit::serde::to_datum_vec(&P { x: -3, tag: Some("hi") }, &plan)?;
/// assert_eq!(bytes, [0x05, 0x02, 0x04, b'h', b'i']);
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Clone)]
pub struct SerPlan {
    pub(super) inner: Arc<PlanInner>,
}

pub(super) struct PlanInner {
    schema: Schema,
    /// Parallel to the schema's arena.
    pub(super) nodes: Box<[SNode]>,
    pub(super) root: u32,
}

/// The kinds of Rust values a union branch is chosen by.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Null = 0,
    Bool,
    /// i8, i16, i32, u8, u16.
    Int,
    /// i64, u32, u64.
    Long,
    Float,
    Double,
    Str,
    Bytes,
    Seq,
    Map,
}
pub(super) const N_KINDS: usize = 10;

/// One compiled schema node.
pub(super) enum SNode {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    Fixed(usize),
    Enum(Box<SEnum>),
    Array(u32),
    Map(u32),
    Record(Box<SRecord>),
    Union(Box<SUnion>),
    /// A node with a logical type that has a Rust form of its own: dates and times (text or
    /// `time` tuples), uuids (16 bytes or text), decimals (checked against the precision).
    /// Boxed, like the other large variants: every payload stays a word, so matching on a node
    /// costs what it did before logical types had a variant.
    Logical(Box<Logical>),
}

pub(super) struct SEnum {
    pub(super) name: Box<str>,
    pub(super) symbols: Box<[Box<str>]>,
}

pub(super) struct SRecord {
    pub(super) fullname: Box<str>,
    pub(super) short: Box<str>,
    pub(super) fields: Box<[SField]>,
    /// Field names sorted, with their positions: the lookup for fields that come out of order.
    pub(super) by_name: Box<[(Box<str>, u32)]>,
}

pub(super) struct SField {
    pub(super) name: Box<str>,
    pub(super) node: u32,
    /// The field's default, encoded once: written when the Rust value has no such field.
    pub(super) default: Option<Box<[u8]>>,
    /// The address of a `&'static str` key already found equal to `name` (0: none yet), so
    /// that a derived `Serialize`, which passes the same constant for every datum, is matched
    /// without comparing the text again.
    seen: AtomicUsize,
}

impl SField {
    /// Whether a struct field's key names this field.
    #[inline(always)]
    pub(super) fn is_key(&self, key: &'static str) -> bool {
        let addr = key.as_ptr() as usize;
        // A `'static` string is never freed or changed: the same address and length mean the
        // same text. (The length matters: constants may share a prefix's address.)
        if self.seen.load(Relaxed) == addr && self.name.len() == key.len() {
            return true;
        }
        if *self.name == *key {
            self.seen.store(addr, Relaxed);
            return true;
        }
        false
    }
}

pub(super) struct SUnion {
    pub(super) branches: Box<[u32]>,
    /// The branch for each [`Kind`], chosen at compile time.
    pub(super) by_kind: [Option<u32>; N_KINDS],
    /// Branch names: a named type's short name and fullname, an unnamed type's type name.
    names: Box<[(Box<str>, u32)]>,
    /// Record branches: (branch, short name, field count).
    pub(super) records: Box<[(u32, Box<str>, usize)]>,
    /// Fixed branches: (branch, size).
    pub(super) fixed: Box<[(u32, usize)]>,
    /// Enum branches.
    pub(super) enums: Box<[u32]>,
}

impl SUnion {
    /// A branch by the name of a Rust enum variant: exact first, then ignoring ASCII case
    /// (`Long(i64)` takes the `"long"` branch).
    pub(super) fn by_name(&self, name: &str) -> Option<u32> {
        self.names
            .iter()
            .find(|(n, _)| &**n == name)
            .or_else(|| {
                self.names
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))
            })
            .map(|&(_, b)| b)
    }
}

impl SerPlan {
    /// Compiles `schema` for writing.
    ///
    /// # Examples
    /// ```
    /// let schema = avrokit::Schema::parse_str(r#"{"type":"array","items":"float"}"#)?;
    /// let plan = avrokit::serde::SerPlan::compile(&schema)?;
    /// assert_eq!(avrokit::serde::to_datum_vec(&vec![1.0f32], &plan)?, [2, 0, 0, 0x80, 0x3f, 0]);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// None today for a parsed schema; the `Result` leaves room for schemas a later version
    /// cannot compile.
    pub fn compile(schema: &Schema) -> Result<SerPlan> {
        let nodes: Vec<SNode> = schema
            .nodes()
            .iter()
            .map(|n| compile_node(schema, n))
            .collect();
        Ok(SerPlan {
            inner: Arc::new(PlanInner {
                schema: schema.clone(),
                nodes: nodes.into(),
                root: schema.root_id().0,
            }),
        })
    }

    /// The schema this plan writes.
    #[inline]
    pub fn schema(&self) -> &Schema {
        &self.inner.schema
    }
}

impl std::fmt::Debug for SerPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SerPlan")
            .field("schema", &self.inner.schema.canonical_form())
            .finish()
    }
}

pub(super) fn compile_node(schema: &Schema, node: &Node) -> SNode {
    if let Some(l) = Logical::of(node) {
        return SNode::Logical(Box::new(l));
    }
    match &node.kind {
        NodeKind::Null => SNode::Null,
        NodeKind::Boolean => SNode::Boolean,
        NodeKind::Int => SNode::Int,
        NodeKind::Long => SNode::Long,
        NodeKind::Float => SNode::Float,
        NodeKind::Double => SNode::Double,
        NodeKind::Bytes => SNode::Bytes,
        NodeKind::String => SNode::String,
        NodeKind::Fixed(f) => SNode::Fixed(f.size),
        NodeKind::Enum(e) => SNode::Enum(Box::new(SEnum {
            name: e.name.to_string().into(),
            symbols: e.symbols.iter().map(|s| s.as_str().into()).collect(),
        })),
        NodeKind::Array(a) => SNode::Array(a.items.0),
        NodeKind::Map(m) => SNode::Map(m.values.0),
        NodeKind::Record(r) => {
            let fields: Box<[SField]> = r
                .fields
                .iter()
                .map(|f| SField {
                    seen: AtomicUsize::new(0),
                    name: f.name.as_str().into(),
                    node: f.schema.0,
                    default: f.default.as_ref().and_then(|json| {
                        let v = crate::json::default_to_value(json, schema, f.schema).ok()?;
                        let mut out = Vec::new();
                        write_value(&mut Encoder::new(&mut out), &v, &schema.at(f.schema)).ok()?;
                        Some(out.into())
                    }),
                })
                .collect();
            let mut by_name: Vec<(Box<str>, u32)> = fields
                .iter()
                .enumerate()
                .map(|(i, f)| (f.name.clone(), i as u32))
                .collect();
            by_name.sort();
            SNode::Record(Box::new(SRecord {
                fullname: r.name.to_string().into(),
                short: r.name.name().into(),
                fields,
                by_name: by_name.into(),
            }))
        }
        NodeKind::Union(u) => {
            // Candidates in order of preference for each kind of Rust value; the first branch
            // of the first listed type wins (a union has at most one branch of each unnamed
            // type).
            let prefs: [&[&str]; N_KINDS] = [
                &["null"],
                &["boolean"],
                &["int", "long", "float", "double"],
                &["long", "float", "double"],
                &["float", "double"],
                &["double"],
                &["string", "enum", "bytes"],
                &["bytes", "string"],
                &["array", "bytes"],
                &["map", "record"],
            ];
            let type_of = |b: usize| schema.node(u.variants[b]).kind.type_name();
            let mut by_kind = [None; N_KINDS];
            // Failing those, a branch whose logical type takes the kind: text and `time` tuples
            // for dates and times, text for a fixed uuid, any bytes (or text) for a fixed
            // decimal.
            let logical_takes = |b: usize, k: usize| {
                let l = Logical::of(schema.node(u.variants[b]));
                match (l, k) {
                    (Some(Logical::Temporal(_)), k) => {
                        k == Kind::Str as usize || k == Kind::Seq as usize
                    }
                    (Some(Logical::UuidFixed), k) => k == Kind::Str as usize,
                    (Some(Logical::Decimal { fixed: Some(_), .. }), k) => {
                        k == Kind::Bytes as usize
                            || k == Kind::Seq as usize
                            || k == Kind::Str as usize
                    }
                    _ => false,
                }
            };
            for (k, list) in prefs.iter().enumerate() {
                by_kind[k] = list.iter().find_map(|t| {
                    let mut hits = (0..u.variants.len()).filter(|&b| type_of(b) == *t);
                    let first = hits.next()?;
                    // A map of several records (or enums) cannot be chosen by kind alone.
                    if (*t == "record" || *t == "enum") && hits.next().is_some() {
                        return None;
                    }
                    Some(first as u32)
                });
                if by_kind[k].is_none() {
                    by_kind[k] = (0..u.variants.len())
                        .find(|&b| logical_takes(b, k))
                        .map(|b| b as u32);
                }
            }
            let mut names = Vec::new();
            let mut records = Vec::new();
            let mut fixed = Vec::new();
            let mut enums = Vec::new();
            for (b, &id) in u.variants.iter().enumerate() {
                let node = schema.node(id);
                let b = b as u32;
                match node.name() {
                    Some(n) => {
                        names.push((n.name().into(), b));
                        names.push((n.to_string().into(), b));
                    }
                    None => names.push((node.kind.type_name().into(), b)),
                }
                match &node.kind {
                    NodeKind::Record(r) => records.push((b, r.name.name().into(), r.fields.len())),
                    NodeKind::Fixed(f) => fixed.push((b, f.size)),
                    NodeKind::Enum(_) => enums.push(b),
                    _ => {}
                }
            }
            SNode::Union(Box::new(SUnion {
                branches: u.variants.iter().map(|v| v.0).collect(),
                by_kind,
                names: names.into(),
                records: records.into(),
                fixed: fixed.into(),
                enums: enums.into(),
            }))
        }
    }
}

pub(super) fn describe(node: &SNode) -> String {
    match node {
        SNode::Null => "null".into(),
        SNode::Boolean => "boolean".into(),
        SNode::Int => "int".into(),
        SNode::Long => "long".into(),
        SNode::Float => "float".into(),
        SNode::Double => "double".into(),
        SNode::Bytes => "bytes".into(),
        SNode::String => "string".into(),
        SNode::Fixed(n) => format!("fixed({n})"),
        SNode::Enum(e) => format!("enum {}", e.name),
        SNode::Array(_) => "array".into(),
        SNode::Map(_) => "map".into(),
        SNode::Record(r) => format!("record {}", r.fullname),
        SNode::Union(u) => format!("union of {} branches", u.branches.len()),
        SNode::Logical(l) => l.describe(),
    }
}

#[cold]
#[inline(never)]
pub(super) fn mismatch(node: &SNode, found: &str) -> Error {
    Error::data(format!("expected {}, found {found}", describe(node)))
}

#[cold]
#[inline(never)]
pub(super) fn no_branch(found: &str) -> Error {
    Error::data(format!("no branch of the union accepts {found}"))
}

#[cold]
#[inline(never)]
pub(super) fn out_of_range(v: i128, node: &SNode) -> Error {
    Error::data(format!("{v} is out of range for {}", describe(node)))
}

#[cold]
#[inline(never)]
pub(super) fn too_deep() -> Error {
    Error::new(
        ErrorKind::Limit,
        format!("value nested deeper than {MAX_WRITE_DEPTH} levels"),
    )
}
