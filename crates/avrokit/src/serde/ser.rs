//! The serde `Serializer`: Rust values straight to Avro binary, driven by a [`SerPlan`].
//!
//! See the [module docs](super) for the mapping between Rust and Avro types.

use std::mem;
use std::sync::Arc;

use ::serde::ser::{self, Serialize};

use super::logical::{check_decimal, format_uuid, parse_uuid, Logical, Temporal, Text};
use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::{BufferedSink, Sink};
use crate::logical::decimal;
use crate::schema::{Node, NodeKind, Schema};
use crate::value::write_value;

/// How deep Rust values may nest when writing (a recursive schema allows any depth; this bounds
/// the stack).
const MAX_WRITE_DEPTH: usize = 1024;

/// A schema compiled once for writing Rust values with serde: see the [module docs](super).
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
    inner: Arc<PlanInner>,
}

struct PlanInner {
    schema: Schema,
    /// Parallel to the schema's arena.
    nodes: Box<[SNode]>,
    root: u32,
}

/// The kinds of Rust values a union branch is chosen by.
#[derive(Clone, Copy)]
enum Kind {
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
const N_KINDS: usize = 10;

/// One compiled schema node.
enum SNode {
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

struct SEnum {
    name: Box<str>,
    symbols: Box<[Box<str>]>,
}

struct SRecord {
    fullname: Box<str>,
    short: Box<str>,
    fields: Box<[SField]>,
    /// Field names sorted, with their positions: the lookup for fields that come out of order.
    by_name: Box<[(Box<str>, u32)]>,
}

struct SField {
    name: Box<str>,
    node: u32,
    /// The field's default, encoded once: written when the Rust value has no such field.
    default: Option<Box<[u8]>>,
}

struct SUnion {
    branches: Box<[u32]>,
    /// The branch for each [`Kind`], chosen at compile time.
    by_kind: [Option<u32>; N_KINDS],
    /// Branch names: a named type's short name and fullname, an unnamed type's type name.
    names: Box<[(Box<str>, u32)]>,
    /// Record branches: (branch, short name, field count).
    records: Box<[(u32, Box<str>, usize)]>,
    /// Fixed branches: (branch, size).
    fixed: Box<[(u32, usize)]>,
    /// Enum branches.
    enums: Box<[u32]>,
}

impl SUnion {
    /// A branch by the name of a Rust enum variant: exact first, then ignoring ASCII case
    /// (`Long(i64)` takes the `"long"` branch).
    fn by_name(&self, name: &str) -> Option<u32> {
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

fn compile_node(schema: &Schema, node: &Node) -> SNode {
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
            // for dates and times, text for a fixed uuid, any bytes for a fixed decimal.
            let logical_takes = |b: usize, k: usize| {
                let l = Logical::of(schema.node(u.variants[b]));
                match (l, k) {
                    (Some(Logical::Temporal(_)), k) => {
                        k == Kind::Str as usize || k == Kind::Seq as usize
                    }
                    (Some(Logical::UuidFixed), k) => k == Kind::Str as usize,
                    (Some(Logical::Decimal { fixed: Some(_), .. }), k) => {
                        k == Kind::Bytes as usize || k == Kind::Seq as usize
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

fn describe(node: &SNode) -> String {
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
fn mismatch(node: &SNode, found: &str) -> Error {
    Error::data(format!("expected {}, found {found}", describe(node)))
}

#[cold]
#[inline(never)]
fn no_branch(found: &str) -> Error {
    Error::data(format!("no branch of the union accepts {found}"))
}

#[cold]
#[inline(never)]
fn out_of_range(v: i128, node: &SNode) -> Error {
    Error::data(format!("{v} is out of range for {}", describe(node)))
}

#[cold]
#[inline(never)]
fn too_deep() -> Error {
    Error::new(
        ErrorKind::Limit,
        format!("value nested deeper than {MAX_WRITE_DEPTH} levels"),
    )
}

/// What the serializer carries from value to value: the encoder and reusable buffers.
struct State<S: Sink> {
    enc: Encoder<S>,
    /// Buffers for fields that arrive out of schema order and collections of unknown length,
    /// kept from datum to datum so reordering does not allocate once warm.
    pool: Vec<Vec<u8>>,
    /// Lists of out-of-order fields of a record being written, reused likewise.
    pending_pool: Vec<Vec<(u32, Vec<u8>)>>,
    /// Scratch for a map key written to a record.
    key: String,
    /// Scratch for `collect_str` (chrono's types serialize themselves through it).
    text: String,
    depth: usize,
}

impl<S: Sink> State<S> {
    #[inline]
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_WRITE_DEPTH {
            return Err(too_deep());
        }
        Ok(())
    }

    #[inline]
    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// A state writing into a buffer from the pool, sharing this state's pools.
    fn sub(&mut self) -> State<Vec<u8>> {
        State {
            enc: Encoder::new(self.pool.pop().unwrap_or_default()),
            pool: mem::take(&mut self.pool),
            pending_pool: mem::take(&mut self.pending_pool),
            key: String::new(),
            text: String::new(),
            depth: self.depth,
        }
    }

    /// Takes the pools back from a sub-state and returns its buffer.
    fn join(&mut self, sub: State<Vec<u8>>) -> Vec<u8> {
        self.pool = sub.pool;
        self.pending_pool = sub.pending_pool;
        sub.enc.into_inner()
    }

    fn recycle(&mut self, mut buf: Vec<u8>) {
        buf.clear();
        self.pool.push(buf);
    }
}

/// A reusable serializer of Rust values as Avro datums of one schema, into any [`Sink`].
///
/// It keeps its encoder and the buffers used for out-of-order fields from datum to datum:
/// create it once and call [`serialize`](Self::serialize) for each value.
///
/// # Examples
/// ```
/// use avrokit::{serde::{SerPlan, Serializer}, Schema};
/// let plan = SerPlan::compile(&Schema::parse_str(r#""string""#)?)?;
/// let mut ser = Serializer::new(Vec::new(), &plan);
/// for s in ["a", "bc"] {
///     ser.serialize(s)?;
/// }
/// assert_eq!(ser.into_inner(), [2, b'a', 4, b'b', b'c']);
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct Serializer<S: Sink> {
    plan: SerPlan,
    state: State<S>,
}

impl<S: Sink> Serializer<S> {
    /// A serializer writing datums of `plan`'s schema into `sink` (`Vec<u8>`, `&mut Vec<u8>`,
    /// or any other [`Sink`]).
    pub fn new(sink: S, plan: &SerPlan) -> Serializer<S> {
        Serializer {
            plan: plan.clone(),
            state: State {
                enc: Encoder::new(sink),
                pool: Vec::new(),
                pending_pool: Vec::new(),
                key: String::new(),
                text: String::new(),
                depth: 0,
            },
        }
    }

    /// Writes one datum.
    ///
    /// # Errors
    /// When the value does not fit the schema (with the path of the mismatch, like
    /// `Order.items[3].price`), or when the sink fails. After an error the sink may hold part
    /// of the datum.
    #[inline]
    pub fn serialize<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let p = &*self.plan.inner;
        self.state.depth = 0;
        let root = &p.nodes[p.root as usize];
        value
            .serialize(NodeSer {
                st: &mut self.state,
                plan: p,
                node: root,
            })
            .map_err(|e| match root {
                SNode::Record(r) => e.in_field(r.short.to_string()),
                _ => e,
            })
    }

    /// The sink.
    #[inline]
    pub fn sink(&self) -> &S {
        self.state.enc.sink()
    }

    /// The sink, mutably (to take or clear the bytes written so far).
    #[inline]
    pub fn sink_mut(&mut self) -> &mut S {
        self.state.enc.sink_mut()
    }

    /// Returns the sink, without flushing it.
    #[inline]
    pub fn into_inner(self) -> S {
        self.state.enc.into_inner()
    }

    /// Flushes the sink (for buffered `io::Write` sinks).
    ///
    /// # Errors
    /// When the underlying writer fails.
    pub fn flush(&mut self) -> Result<()> {
        self.state.enc.flush()
    }
}

/// Encodes `value` as one datum of `plan`'s schema into a new `Vec<u8>`.
///
/// # Examples
/// ```
/// let plan = avrokit::serde::SerPlan::compile(&avrokit::Schema::parse_str(r#"["null","long"]"#)?)?;
/// assert_eq!(avrokit::serde::to_datum_vec(&Some(1i64), &plan)?, [2, 2]);
/// assert_eq!(avrokit::serde::to_datum_vec(&None::<i64>, &plan)?, [0]);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// When the value does not fit the schema; the error's path says where.
pub fn to_datum_vec<T: Serialize + ?Sized>(value: &T, plan: &SerPlan) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    to_datum_sink(value, plan, &mut out)?;
    Ok(out)
}

/// Appends `value` as one datum to `out` (reusing its allocation: clear it between datums).
///
/// # Examples
/// ```
/// let plan = avrokit::serde::SerPlan::compile(&avrokit::Schema::parse_str(r#""int""#)?)?;
/// let mut out = Vec::new();
/// avrokit::serde::to_datum_sink(&1, &plan, &mut out)?;
/// avrokit::serde::to_datum_sink(&-1, &plan, &mut out)?;
/// assert_eq!(out, [2, 1]);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// When the value does not fit the schema, or the sink fails.
pub fn to_datum_sink<T: Serialize + ?Sized, S: Sink>(
    value: &T,
    plan: &SerPlan,
    out: S,
) -> Result<()> {
    let mut ser = Serializer::new(out, plan);
    ser.serialize(value)?;
    ser.flush()
}

/// Writes `value` as one datum to an `io::Write`, through a buffer (the writer gets the datum in
/// chunks of up to 64 KiB, never a few bytes at a time).
///
/// # Examples
/// ```
/// let plan = avrokit::serde::SerPlan::compile(&avrokit::Schema::parse_str(r#""string""#)?)?;
/// let mut file = Vec::new(); // any io::Write
/// avrokit::serde::to_datum_writer(&mut file, "x", &plan)?;
/// assert_eq!(file, [2, b'x']);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// When the value does not fit the schema, or the writer fails.
pub fn to_datum_writer<W: std::io::Write, T: Serialize + ?Sized>(
    writer: W,
    value: &T,
    plan: &SerPlan,
) -> Result<()> {
    to_datum_sink(value, plan, BufferedSink::new(writer))
}

/// The serde `Serializer` for one value at one schema node.
struct NodeSer<'a, S: Sink> {
    st: &'a mut State<S>,
    plan: &'a PlanInner,
    node: &'a SNode,
}

impl<'a, S: Sink> NodeSer<'a, S> {
    #[inline(always)]
    fn at(st: &'a mut State<S>, plan: &'a PlanInner, node: u32) -> NodeSer<'a, S> {
        NodeSer {
            st,
            plan,
            node: &plan.nodes[node as usize],
        }
    }

    /// Writes the union branch index and moves to the branch.
    #[inline(always)]
    fn branch(self, u: &SUnion, b: u32) -> Result<NodeSer<'a, S>> {
        self.st.enc.write_union_index(b)?;
        Ok(NodeSer::at(self.st, self.plan, u.branches[b as usize]))
    }

    #[inline(always)]
    fn by_kind(self, u: &SUnion, kind: Kind, found: &str) -> Result<NodeSer<'a, S>> {
        match u.by_kind[kind as usize] {
            Some(b) => self.branch(u, b),
            None => Err(no_branch(found)),
        }
    }

    #[inline(always)]
    fn int(self, v: i64, kind: Kind) -> Result<()> {
        match self.node {
            SNode::Long => self.st.enc.write_long(v),
            SNode::Int => match i32::try_from(v) {
                Ok(v) => self.st.enc.write_int(v),
                Err(_) => Err(out_of_range(i128::from(v), self.node)),
            },
            SNode::Float => self.st.enc.write_float(v as f32),
            SNode::Double => self.st.enc.write_double(v as f64),
            SNode::Union(u) => self.int_union(u, v, kind),
            SNode::Logical(l) => self.logical_int(**l, v),
            n => Err(mismatch(n, "an integer")),
        }
    }

    /// An integer for a node with a logical type: the count of a date or time.
    #[inline(never)]
    fn logical_int(self, l: Logical, v: i64) -> Result<()> {
        match l {
            Logical::Temporal(t) => self.temporal(t, v),
            _ => Err(mismatch(self.node, "an integer")),
        }
    }

    /// Writes the count of a date or time.
    fn temporal(self, t: Temporal, v: i64) -> Result<()> {
        write_temporal(&mut self.st.enc, self.node, t, v)
    }

    /// Text for a node with a logical type: a date or time, or a uuid for a fixed.
    #[inline(never)]
    fn logical_str(self, l: Logical, v: &str) -> Result<()> {
        match l {
            Logical::Temporal(t) => {
                let n = t.parse(v)?;
                self.temporal(t, n)
            }
            Logical::UuidString => self.st.enc.write_string(v),
            Logical::UuidFixed => match parse_uuid(v) {
                Some(u) => self.st.enc.write_fixed(&u),
                None => Err(Error::data(format!("{v:?} is not a UUID"))),
            },
            Logical::Decimal { .. } => Err(mismatch(self.node, "a string")),
        }
    }

    /// A sequence for a node with a logical type: a `time` tuple, or bytes as `u8`s.
    #[inline(never)]
    fn logical_seq(self, l: Logical, len: Option<usize>) -> Result<Compound<'a, S>> {
        if l == Logical::UuidFixed {
            return self.bytes_seq(len, Some(16));
        }
        // Collected (as `u8`s, or numbers as little-endian `i64`s), converted at the end.
        let buf = self.st.pool.pop().unwrap_or_default();
        Ok(Compound::Bytes(BytesSer {
            st: self.st,
            expected: 0,
            count: 0,
            buf: Some(buf),
            node: self.node,
        }))
    }

    /// Bytes for a node with a logical type: a uuid's 16 bytes, a decimal's unscaled integer.
    #[inline(never)]
    fn logical_bytes(self, l: Logical, v: &[u8]) -> Result<()> {
        match l {
            Logical::UuidString => match <&[u8; 16]>::try_from(v) {
                Ok(u) => {
                    let mut t = Text::new();
                    format_uuid(u, &mut t);
                    self.st.enc.write_string(t.as_str())
                }
                Err(_) => match simdutf8::basic::from_utf8(v) {
                    Ok(s) => self.st.enc.write_string(s),
                    Err(_) => Err(Error::data(
                        "a uuid is written from 16 bytes or from its text form",
                    )),
                },
            },
            Logical::UuidFixed if v.len() == 16 => self.st.enc.write_fixed(v),
            Logical::UuidFixed => Err(Error::data(format!(
                "a fixed uuid needs 16 bytes, the value has {}",
                v.len()
            ))),
            Logical::Decimal { precision, fixed } => {
                check_decimal(v, precision)?;
                match fixed {
                    None => self.st.enc.write_bytes(v),
                    Some(size) => {
                        write_decimal_fixed(&mut self.st.enc, v, precision, size as usize)
                    }
                }
            }
            Logical::Temporal(_) => Err(mismatch(self.node, "bytes")),
        }
    }

    // The union arms live in functions that are never inlined: that keeps the scalar paths
    // free of recursion, so they inline into the caller's loop (a `Vec<f32>` wrote 1.7x slower
    // with the recursive call in place).
    #[inline(never)]
    fn int_union(self, u: &SUnion, v: i64, kind: Kind) -> Result<()> {
        self.by_kind(u, kind, "an integer")?.int(v, kind)
    }

    #[inline(never)]
    fn double_union(self, u: &SUnion, v: f64, kind: Kind) -> Result<()> {
        self.by_kind(u, kind, "a float")?.double(v, kind)
    }

    #[inline(never)]
    fn f32_union(self, u: &SUnion, v: f32) -> Result<()> {
        ser::Serializer::serialize_f32(self.by_kind(u, Kind::Float, "a float")?, v)
    }

    #[inline(never)]
    fn bool_union(self, u: &SUnion, v: bool) -> Result<()> {
        ser::Serializer::serialize_bool(self.by_kind(u, Kind::Bool, "a bool")?, v)
    }

    #[inline(never)]
    fn str_union(self, u: &SUnion, v: &str) -> Result<()> {
        ser::Serializer::serialize_str(self.by_kind(u, Kind::Str, "a string")?, v)
    }

    #[inline(always)]
    fn double(self, v: f64, kind: Kind) -> Result<()> {
        match self.node {
            SNode::Double => self.st.enc.write_double(v),
            // An `f64` written as a `float` is rounded, as the schema asks.
            SNode::Float => self.st.enc.write_float(v as f32),
            SNode::Union(u) => self.double_union(u, v, kind),
            n => Err(mismatch(n, "a floating-point number")),
        }
    }

    fn symbol(&mut self, e: &SEnum, hint: u32, name: &str) -> Result<()> {
        // The Rust enum usually lists its variants in the schema's symbol order.
        let i = match e.symbols.get(hint as usize) {
            Some(s) if &**s == name => hint,
            _ => match e.symbols.iter().position(|s| &**s == name) {
                Some(i) => i as u32,
                None => {
                    return Err(Error::data(format!(
                        "{name:?} is not a symbol of enum {}",
                        e.name
                    )))
                }
            },
        };
        self.st.enc.write_enum(i)
    }

    /// A union branch for a struct, map or tuple named `name` with `len` fields.
    fn record_branch(u: &SUnion, name: &str, len: Option<usize>) -> Option<u32> {
        if let Some(&(b, _, _)) = u.records.iter().find(|(_, n, _)| &**n == name) {
            return Some(b);
        }
        if u.records.len() == 1 {
            return Some(u.records[0].0);
        }
        let len = len?;
        let mut same = u.records.iter().filter(|r| r.2 == len);
        match (same.next(), same.next()) {
            (Some(r), None) => Some(r.0),
            _ => None,
        }
    }

    fn record(self, r: &'a SRecord) -> Result<RecordSer<'a, S>> {
        self.st.enter()?;
        Ok(RecordSer {
            st: self.st,
            plan: self.plan,
            rec: r,
            next: 0,
            pending: Vec::new(),
        })
    }

    fn array(self, item: u32, len: Option<usize>) -> Result<Compound<'a, S>> {
        self.st.enter()?;
        let item = &self.plan.nodes[item as usize];
        match len {
            Some(n) => {
                self.st.enc.write_array_start(n)?;
                // Fixed-width items: one reservation for the whole array.
                let width = match item {
                    SNode::Float => 4,
                    SNode::Double => 8,
                    SNode::Boolean => 1,
                    _ => 0,
                };
                if width > 0 {
                    self.st.enc.sink_mut().reserve(n.saturating_mul(width));
                }
                Ok(Compound::Array(ArraySer {
                    st: self.st,
                    plan: self.plan,
                    item,
                    expected: n,
                    count: 0,
                    buf: None,
                }))
            }
            None => {
                let sub = self.st.sub();
                Ok(Compound::Array(ArraySer {
                    st: self.st,
                    plan: self.plan,
                    item,
                    expected: 0,
                    count: 0,
                    buf: Some(Box::new(sub)),
                }))
            }
        }
    }

    fn map(self, values: u32, len: Option<usize>) -> Result<Compound<'a, S>> {
        self.st.enter()?;
        let values = &self.plan.nodes[values as usize];
        let buf = match len {
            Some(n) => {
                self.st.enc.write_map_start(n)?;
                None
            }
            None => Some(Box::new(self.st.sub())),
        };
        Ok(Compound::Map(MapSer {
            st: self.st,
            plan: self.plan,
            values,
            expected: len.unwrap_or(0),
            count: 0,
            buf,
        }))
    }

    fn bytes_seq(self, len: Option<usize>, fixed: Option<usize>) -> Result<Compound<'a, S>> {
        match (fixed, len) {
            (Some(size), Some(n)) if n != size => Err(Error::data(format!(
                "fixed({size}) needs {size} bytes, the value has {n}"
            ))),
            (Some(size), _) => Ok(Compound::Bytes(BytesSer {
                st: self.st,
                expected: size,
                count: 0,
                buf: None,
                node: self.node,
            })),
            (None, Some(n)) => {
                self.st.enc.write_long(n as i64)?;
                self.st.enc.sink_mut().reserve(n);
                Ok(Compound::Bytes(BytesSer {
                    st: self.st,
                    expected: n,
                    count: 0,
                    buf: None,
                    node: self.node,
                }))
            }
            (None, None) => {
                let buf = self.st.pool.pop().unwrap_or_default();
                Ok(Compound::Bytes(BytesSer {
                    st: self.st,
                    expected: 0,
                    count: 0,
                    buf: Some(buf),
                    node: self.node,
                }))
            }
        }
    }

    /// A sequence (or tuple) of `len` elements.
    fn seq(self, len: Option<usize>, tuple: bool) -> Result<Compound<'a, S>> {
        match self.node {
            SNode::Array(item) => self.array(*item, len),
            SNode::Bytes => self.bytes_seq(len, None),
            SNode::Fixed(size) => self.bytes_seq(len, Some(*size)),
            SNode::Logical(l) => self.logical_seq(**l, len),
            SNode::Record(r) if tuple => Ok(Compound::Record(self.record(r)?)),
            SNode::Union(u) => {
                if let Some(&(b, _)) = u.fixed.iter().find(|f| Some(f.1) == len) {
                    return self.branch(u, b)?.seq(len, tuple);
                }
                self.by_kind(u, Kind::Seq, "a sequence")?.seq(len, tuple)
            }
            n => Err(mismatch(n, "a sequence")),
        }
    }
}

impl<'a, S: Sink> ser::Serializer for NodeSer<'a, S> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, S>;
    type SerializeTuple = Compound<'a, S>;
    type SerializeTupleStruct = Compound<'a, S>;
    type SerializeTupleVariant = Compound<'a, S>;
    type SerializeMap = Compound<'a, S>;
    type SerializeStruct = Compound<'a, S>;
    type SerializeStructVariant = Compound<'a, S>;

    #[inline]
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        match self.node {
            SNode::Boolean => self.st.enc.write_boolean(v),
            SNode::Union(u) => self.bool_union(u, v),
            n => Err(mismatch(n, "a bool")),
        }
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.int(i64::from(v), Kind::Int)
    }

    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.int(i64::from(v), Kind::Int)
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        match self.node {
            // The common case first, without the range check.
            SNode::Int => self.st.enc.write_int(v),
            _ => self.int(i64::from(v), Kind::Int),
        }
    }

    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.int(v, Kind::Long)
    }

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.int(i64::from(v), Kind::Int)
    }

    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.int(i64::from(v), Kind::Int)
    }

    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.int(i64::from(v), Kind::Long)
    }

    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        match i64::try_from(v) {
            Ok(v) => self.int(v, Kind::Long),
            Err(_) => Err(out_of_range(i128::from(v), self.node)),
        }
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        match self.node {
            SNode::Float => self.st.enc.write_float(v),
            SNode::Union(u) => self.f32_union(u, v),
            _ => self.double(f64::from(v), Kind::Float),
        }
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.double(v, Kind::Double)
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    #[inline]
    fn serialize_str(mut self, v: &str) -> Result<()> {
        match self.node {
            SNode::String | SNode::Bytes => self.st.enc.write_string(v),
            SNode::Enum(e) => self.symbol(e, 0, v),
            SNode::Union(u) => self.str_union(u, v),
            SNode::Logical(l) => self.logical_str(**l, v),
            n => Err(mismatch(n, "a string")),
        }
    }

    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<()> {
        // Formatted into a buffer the serializer keeps, rather than a new `String` each time.
        use std::fmt::Write as _;
        let NodeSer { st, plan, node } = self;
        let mut text = mem::take(&mut st.text);
        text.clear();
        let r = match write!(text, "{value}") {
            Ok(()) => ser::Serializer::serialize_str(
                NodeSer {
                    st: &mut *st,
                    plan,
                    node,
                },
                &text,
            ),
            Err(_) => Err(Error::data("a value's Display implementation failed")),
        };
        st.text = text;
        r
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        match self.node {
            SNode::Bytes => self.st.enc.write_bytes(v),
            SNode::Fixed(size) if *size == v.len() => self.st.enc.write_fixed(v),
            SNode::Fixed(size) => Err(Error::data(format!(
                "fixed({size}) needs {size} bytes, the value has {}",
                v.len()
            ))),
            SNode::String => match simdutf8::basic::from_utf8(v) {
                Ok(s) => self.st.enc.write_string(s),
                Err(_) => Err(Error::data("bytes written as a string are not UTF-8")),
            },
            SNode::Union(u) => {
                if u.by_kind[Kind::Bytes as usize].is_none() {
                    if let Some(&(b, _)) = u.fixed.iter().find(|f| f.1 == v.len()) {
                        return self.branch(u, b)?.serialize_bytes(v);
                    }
                }
                self.by_kind(u, Kind::Bytes, "bytes")?.serialize_bytes(v)
            }
            SNode::Logical(l) => self.logical_bytes(**l, v),
            n => Err(mismatch(n, "bytes")),
        }
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        match self.node {
            SNode::Null => Ok(()),
            SNode::Union(u) => self.by_kind(u, Kind::Null, "None")?.serialize_unit(),
            n => Err(mismatch(n, "None")),
        }
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        // The union (if any) is chosen by the inner value's kind.
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        match self.node {
            SNode::Null => Ok(()),
            SNode::Record(r) if r.fields.is_empty() => Ok(()),
            SNode::Union(u) => self.by_kind(u, Kind::Null, "()")?.serialize_unit(),
            n => Err(mismatch(n, "()")),
        }
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<()> {
        match self.node {
            SNode::Union(u) => match u.records.iter().find(|r| &*r.1 == name && r.2 == 0) {
                Some(&(b, _, _)) => self.branch(u, b)?.serialize_unit(),
                None => self.serialize_unit(),
            },
            _ => self.serialize_unit(),
        }
    }

    fn serialize_unit_variant(
        mut self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<()> {
        match self.node {
            SNode::Enum(e) => self.symbol(e, index, variant),
            SNode::String => self.st.enc.write_string(variant),
            SNode::Union(u) => {
                if let Some(b) = u.by_name(variant) {
                    return self.branch(u, b)?.serialize_unit();
                }
                let plan = self.plan;
                let has = |&&b: &&u32| match &plan.nodes[u.branches[b as usize] as usize] {
                    SNode::Enum(e) => e.symbols.iter().any(|s| &**s == variant),
                    _ => false,
                };
                match u.enums.iter().find(has) {
                    Some(&b) => self
                        .branch(u, b)?
                        .serialize_unit_variant(_name, index, variant),
                    None => self
                        .by_kind(u, Kind::Str, "an enum variant")?
                        .serialize_str(variant),
                }
            }
            n => Err(mismatch(n, "a unit variant")),
        }
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        match self.node {
            SNode::Union(u) => match u.by_name(variant) {
                Some(b) => value.serialize(self.branch(u, b)?),
                // No branch of that name: the inner value's kind chooses (`Sq(Square)` takes
                // the `Square` record branch).
                None => value.serialize(self),
            },
            n => Err(mismatch(n, "an enum variant with data")),
        }
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, S>> {
        self.seq(len, false)
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, S>> {
        self.seq(Some(len), true)
    }

    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, S>> {
        if let SNode::Union(u) = self.node {
            if let Some(b) = NodeSer::<S>::record_branch(u, name, Some(len)) {
                return self.branch(u, b)?.seq(Some(len), true);
            }
        }
        self.seq(Some(len), true)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, S>> {
        match self.node {
            SNode::Union(u) => match u.by_name(variant) {
                Some(b) => self.branch(u, b)?.seq(Some(len), true),
                None => Err(no_branch(&format!("the tuple variant {variant}"))),
            },
            n => Err(mismatch(n, "an enum variant with data")),
        }
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, S>> {
        match self.node {
            SNode::Map(values) => self.map(*values, len),
            SNode::Record(r) => Ok(Compound::Record(self.record(r)?)),
            SNode::Union(u) => self.by_kind(u, Kind::Map, "a map")?.serialize_map(len),
            n => Err(mismatch(n, "a map")),
        }
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, S>> {
        match self.node {
            SNode::Record(r) => Ok(Compound::Record(self.record(r)?)),
            SNode::Map(values) => self.map(*values, Some(len)),
            SNode::Union(u) => match NodeSer::<S>::record_branch(u, name, Some(len)) {
                Some(b) => self.branch(u, b)?.serialize_struct(name, len),
                None => self
                    .by_kind(u, Kind::Map, &format!("the struct {name}"))?
                    .serialize_struct(name, len),
            },
            n => Err(mismatch(n, &format!("the struct {name}"))),
        }
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, S>> {
        match self.node {
            SNode::Union(u) => match u.by_name(variant) {
                Some(b) => self.branch(u, b)?.serialize_struct(variant, len),
                None => Err(no_branch(&format!("the struct variant {variant}"))),
            },
            n => Err(mismatch(n, "an enum variant with data")),
        }
    }
}

/// Serializers of compound values.
pub(crate) enum Compound<'a, S: Sink> {
    Array(ArraySer<'a, S>),
    Map(MapSer<'a, S>),
    Record(RecordSer<'a, S>),
    Bytes(BytesSer<'a, S>),
}

pub(crate) struct ArraySer<'a, S: Sink> {
    st: &'a mut State<S>,
    plan: &'a PlanInner,
    item: &'a SNode,
    expected: usize,
    count: usize,
    /// Items of an array of unknown length, counted and written at the end.
    buf: Option<Box<State<Vec<u8>>>>,
}

impl<S: Sink> ArraySer<'_, S> {
    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let i = self.count;
        self.count += 1;
        let r = match &mut self.buf {
            None => {
                if i >= self.expected {
                    return Err(Error::data(format!(
                        "the sequence has more items than the {} it announced",
                        self.expected
                    )));
                }
                self.st.enc.start_item()?;
                value.serialize(NodeSer {
                    st: self.st,
                    plan: self.plan,
                    node: self.item,
                })
            }
            Some(b) => value.serialize(NodeSer {
                st: b,
                plan: self.plan,
                node: self.item,
            }),
        };
        r.map_err(|e| e.in_index(i as u64))
    }

    fn end(self) -> Result<()> {
        match self.buf {
            None => {
                if self.count != self.expected {
                    return Err(Error::data(format!(
                        "the sequence announced {} items and had {}",
                        self.expected, self.count
                    )));
                }
                self.st.enc.write_array_end()?;
            }
            Some(b) => {
                let buf = self.st.join(*b);
                self.st.enc.write_array_start(self.count)?;
                if self.count > 0 {
                    self.st.enc.start_item()?;
                    self.st.enc.write_raw(&buf)?;
                }
                self.st.enc.write_array_end()?;
                self.st.recycle(buf);
            }
        }
        self.st.leave();
        Ok(())
    }
}

pub(crate) struct MapSer<'a, S: Sink> {
    st: &'a mut State<S>,
    plan: &'a PlanInner,
    values: &'a SNode,
    expected: usize,
    count: usize,
    buf: Option<Box<State<Vec<u8>>>>,
}

impl<S: Sink> MapSer<'_, S> {
    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.count += 1;
        match &mut self.buf {
            None => {
                if self.count > self.expected {
                    return Err(Error::data(format!(
                        "the map has more entries than the {} it announced",
                        self.expected
                    )));
                }
                self.st.enc.start_item()?;
                key.serialize(KeySer {
                    enc: &mut self.st.enc,
                })
            }
            Some(b) => key.serialize(KeySer { enc: &mut b.enc }),
        }
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let r = match &mut self.buf {
            None => value.serialize(NodeSer {
                st: self.st,
                plan: self.plan,
                node: self.values,
            }),
            Some(b) => value.serialize(NodeSer {
                st: b,
                plan: self.plan,
                node: self.values,
            }),
        };
        r.map_err(|e| e.in_index(self.count.saturating_sub(1) as u64))
    }

    fn field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result<()> {
        self.key(name)?;
        self.value(value).map_err(|e| e.in_key(name))
    }

    fn end(self) -> Result<()> {
        match self.buf {
            None => {
                if self.count != self.expected {
                    return Err(Error::data(format!(
                        "the map announced {} entries and had {}",
                        self.expected, self.count
                    )));
                }
                self.st.enc.write_map_end()?;
            }
            Some(b) => {
                let buf = self.st.join(*b);
                self.st.enc.write_map_start(self.count)?;
                if self.count > 0 {
                    self.st.enc.start_item()?;
                    self.st.enc.write_raw(&buf)?;
                }
                self.st.enc.write_map_end()?;
                self.st.recycle(buf);
            }
        }
        self.st.leave();
        Ok(())
    }
}

/// A record. Fields that come in schema order are written straight through; a field that comes
/// early is encoded into a pooled buffer and copied out once the fields before it are written.
/// Fields the Rust value lacks are written from the schema's defaults.
pub(crate) struct RecordSer<'a, S: Sink> {
    st: &'a mut State<S>,
    plan: &'a PlanInner,
    rec: &'a SRecord,
    /// The next field to write, in schema order.
    next: usize,
    /// Fields encoded ahead of their turn: (position, bytes).
    pending: Vec<(u32, Vec<u8>)>,
}

impl<S: Sink> RecordSer<'_, S> {
    #[inline(always)]
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        if let Some(f) = self.rec.fields.get(self.next) {
            if &*f.name == key {
                value
                    .serialize(NodeSer::at(self.st, self.plan, f.node))
                    .map_err(|e| e.in_field(f.name.to_string()))?;
                self.next += 1;
                if !self.pending.is_empty() {
                    self.drain_pending()?;
                }
                return Ok(());
            }
        }
        self.field_out_of_order(key, value)
    }

    /// The `i`th field, for tuples written as records.
    #[inline]
    fn positional<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let Some(f) = self.rec.fields.get(self.next) else {
            return Err(Error::data(format!(
                "record {} has {} fields, the tuple has more",
                self.rec.fullname,
                self.rec.fields.len()
            )));
        };
        value
            .serialize(NodeSer::at(self.st, self.plan, f.node))
            .map_err(|e| e.in_field(f.name.to_string()))?;
        self.next += 1;
        Ok(())
    }

    #[inline(never)]
    fn field_out_of_order<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<()> {
        let Ok(k) = self.rec.by_name.binary_search_by(|(n, _)| (**n).cmp(key)) else {
            return Err(Error::data(format!(
                "record {} has no field {key:?}",
                self.rec.fullname
            )));
        };
        let pos = self.rec.by_name[k].1;
        if (pos as usize) < self.next || self.pending.iter().any(|p| p.0 == pos) {
            return Err(Error::data(format!("field {key:?} written twice")));
        }
        if self.pending.capacity() == 0 {
            self.pending = self.st.pending_pool.pop().unwrap_or_default();
        }
        let f = &self.rec.fields[pos as usize];
        let mut sub = self.st.sub();
        let r = value.serialize(NodeSer::at(&mut sub, self.plan, f.node));
        let buf = self.st.join(sub);
        r.map_err(|e| e.in_field(f.name.to_string()))?;
        self.pending.push((pos, buf));
        Ok(())
    }

    /// Writes the pending fields whose turn has come.
    fn drain_pending(&mut self) -> Result<()> {
        while let Some(k) = self.pending.iter().position(|p| p.0 as usize == self.next) {
            let (_, buf) = self.pending.swap_remove(k);
            self.st.enc.write_raw(&buf)?;
            self.st.recycle(buf);
            self.next += 1;
        }
        Ok(())
    }

    fn end(mut self) -> Result<()> {
        while self.next < self.rec.fields.len() {
            self.drain_pending()?;
            let Some(f) = self.rec.fields.get(self.next) else {
                break;
            };
            match &f.default {
                Some(d) => self.st.enc.write_raw(d)?,
                None => {
                    return Err(Error::data(format!(
                        "field {:?} of record {} is missing and has no default",
                        f.name, self.rec.fullname
                    )))
                }
            }
            self.next += 1;
        }
        if self.pending.capacity() > 0 {
            let p = mem::take(&mut self.pending);
            self.st.pending_pool.push(p);
        }
        self.st.leave();
        Ok(())
    }
}

/// Bytes written as a sequence of `u8` (a `Vec<u8>` without `serde_bytes`, a `[u8; N]`).
pub(crate) struct BytesSer<'a, S: Sink> {
    st: &'a mut State<S>,
    expected: usize,
    count: usize,
    /// Bytes of a sequence of unknown length, or of one written to a node with a logical type.
    buf: Option<Vec<u8>>,
    /// The node written: `bytes`, a `fixed`, or one with a logical type (then the elements are
    /// collected in `buf` and converted at the end: a `time` tuple's numbers as little-endian
    /// `i64`s, else bytes).
    node: &'a SNode,
}

impl<S: Sink> BytesSer<'_, S> {
    #[inline(always)]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.count += 1;
        match &mut self.buf {
            None => {
                let b = value.serialize(ByteSer)?;
                if self.count <= self.expected {
                    self.st.enc.sink_mut().write_byte(b)
                } else {
                    Err(Error::data(format!(
                        "{} bytes announced, more written",
                        self.expected
                    )))
                }
            }
            Some(buf) => match self.node {
                SNode::Logical(l) if matches!(**l, Logical::Temporal(_)) => {
                    let v = value.serialize(IntCapture)?;
                    buf.extend_from_slice(&v.to_le_bytes());
                    Ok(())
                }
                _ => {
                    buf.push(value.serialize(ByteSer)?);
                    Ok(())
                }
            },
        }
    }

    fn end(self) -> Result<()> {
        match self.buf {
            Some(buf) => {
                let r = match self.node {
                    SNode::Logical(l) => logical_end(&mut self.st.enc, self.node, **l, &buf),
                    _ => self.st.enc.write_bytes(&buf),
                };
                self.st.recycle(buf);
                r
            }
            None if self.count == self.expected => Ok(()),
            None if !matches!(self.node, SNode::Bytes) => Err(Error::data(format!(
                "fixed({}) needs {} bytes, the value has {}",
                self.expected, self.expected, self.count
            ))),
            None => Err(Error::data(format!(
                "{} bytes announced, {} written",
                self.expected, self.count
            ))),
        }
    }
}

/// Writes the count of a date or time as its wire type.
fn write_temporal<S: Sink>(enc: &mut Encoder<S>, node: &SNode, t: Temporal, v: i64) -> Result<()> {
    if t.is_int() {
        match i32::try_from(v) {
            Ok(v) => enc.write_int(v),
            Err(_) => Err(out_of_range(i128::from(v), node)),
        }
    } else {
        enc.write_long(v)
    }
}

/// Writes a decimal's unscaled integer sign-extended to a fixed of `size` bytes.
fn write_decimal_fixed<S: Sink>(
    enc: &mut Encoder<S>,
    v: &[u8],
    precision: u32,
    size: usize,
) -> Result<()> {
    let w = decimal::to_write(v, Some(precision), Some(size))?;
    enc.write_fixed(w.as_slice())
}

/// Writes a value with a logical type given as a sequence: a `time` crate date or time (its
/// numbers as little-endian `i64`s in `buf`), or the bytes of a uuid or decimal.
#[inline(never)]
fn logical_end<S: Sink>(enc: &mut Encoder<S>, node: &SNode, l: Logical, buf: &[u8]) -> Result<()> {
    match l {
        Logical::Temporal(t) => {
            let n = buf.len() / 8;
            let mut parts = [0i64; 9];
            if n > parts.len() {
                return Err(Error::data(format!(
                    "{} cannot be written from a tuple of {n} numbers",
                    t.name()
                )));
            }
            for (p, c) in parts.iter_mut().zip(buf.chunks_exact(8)) {
                *p = i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            }
            let v = t.count_of_parts(&parts[..n])?;
            write_temporal(enc, node, t, v)
        }
        Logical::Decimal { precision, fixed } => match fixed {
            None => check_decimal(buf, precision).and_then(|_| enc.write_bytes(buf)),
            Some(size) => write_decimal_fixed(enc, buf, precision, size as usize),
        },
        Logical::UuidString => match <&[u8; 16]>::try_from(buf) {
            Ok(u) => {
                let mut t = Text::new();
                format_uuid(u, &mut t);
                enc.write_string(t.as_str())
            }
            Err(_) => Err(Error::data(format!(
                "a uuid needs 16 bytes, the value has {}",
                buf.len()
            ))),
        },
        Logical::UuidFixed => Err(mismatch(node, "a sequence")),
    }
}

macro_rules! compound_impl {
    ($trait:ident, $method:ident $(, $key:ident)?) => {
        impl<S: Sink> ser::$trait for Compound<'_, S> {
            type Ok = ();
            type Error = Error;

            #[inline]
            fn $method<T: Serialize + ?Sized>(
                &mut self,
                $($key: &'static str,)?
                value: &T,
            ) -> Result<()> {
                match self {
                    Compound::Array(a) => a.element(value),
                    Compound::Bytes(b) => b.element(value),
                    Compound::Record(r) => {
                        compound_impl!(@record r, value $(, $key)?)
                    }
                    Compound::Map(m) => {
                        compound_impl!(@map m, value $(, $key)?)
                    }
                }
            }

            #[inline]
            fn end(self) -> Result<()> {
                self.finish()
            }
        }
    };
    (@record $r:ident, $value:ident, $key:ident) => { $r.field($key, $value) };
    (@record $r:ident, $value:ident) => { $r.positional($value) };
    (@map $m:ident, $value:ident, $key:ident) => { $m.field($key, $value) };
    (@map $m:ident, $value:ident) => {{
        let _ = $m;
        let _ = $value;
        Err(Error::data("a map cannot be written from a sequence"))
    }};
}

compound_impl!(SerializeSeq, serialize_element);
compound_impl!(SerializeTuple, serialize_element);
compound_impl!(SerializeTupleStruct, serialize_field);
compound_impl!(SerializeTupleVariant, serialize_field);
compound_impl!(SerializeStruct, serialize_field, key);
compound_impl!(SerializeStructVariant, serialize_field, key);

impl<S: Sink> Compound<'_, S> {
    #[inline]
    fn finish(self) -> Result<()> {
        match self {
            Compound::Array(a) => a.end(),
            Compound::Bytes(b) => b.end(),
            Compound::Record(r) => r.end(),
            Compound::Map(m) => m.end(),
        }
    }
}

impl<S: Sink> ser::SerializeMap for Compound<'_, S> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        match self {
            Compound::Map(m) => m.key(key),
            Compound::Record(r) => {
                // The key names a field: capture it for `serialize_value`.
                let mut k = mem::take(&mut r.st.key);
                k.clear();
                let res = key.serialize(KeyCapture { out: &mut k });
                r.st.key = k;
                res
            }
            _ => Err(Error::data("a map key inside a sequence")),
        }
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        match self {
            Compound::Map(m) => m.value(value),
            Compound::Record(r) => {
                let k = mem::take(&mut r.st.key);
                let res = r.field(&k, value);
                r.st.key = k;
                res
            }
            _ => Err(Error::data("a map value inside a sequence")),
        }
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// Writes a map key: strings, and integers and chars as their text.
struct KeySer<'a, S: Sink> {
    enc: &'a mut Encoder<S>,
}

/// Captures a map key naming a record field.
struct KeyCapture<'a> {
    out: &'a mut String,
}

/// Reads one `u8` of a byte sequence.
struct ByteSer;

/// Reads one integer of a tuple (the components of a `time` crate date or time).
struct IntCapture;

#[cold]
#[inline(never)]
fn bad_key() -> Error {
    Error::data("map keys must be strings (or integers, or chars)")
}

#[cold]
#[inline(never)]
fn not_a_byte() -> Error {
    Error::data("expected a byte (u8) in a sequence written as bytes or fixed")
}

/// Implements every `Serializer` method not listed as an error.
macro_rules! reject_rest {
    ($err:expr) => {
        fn serialize_bool(self, _: bool) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_f32(self, _: f32) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_f64(self, _: f64) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_none(self) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_unit(self) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
            Err($err)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
            Err($err)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err($err)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err($err)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err($err)
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
            Err($err)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err($err)
        }
    };
}

macro_rules! key_text_impl {
    ($self:ident, $write:expr) => {
        type Ok = ();
        type Error = Error;
        type SerializeSeq = ser::Impossible<(), Error>;
        type SerializeTuple = ser::Impossible<(), Error>;
        type SerializeTupleStruct = ser::Impossible<(), Error>;
        type SerializeTupleVariant = ser::Impossible<(), Error>;
        type SerializeMap = ser::Impossible<(), Error>;
        type SerializeStruct = ser::Impossible<(), Error>;
        type SerializeStructVariant = ser::Impossible<(), Error>;

        fn serialize_str($self, v: &str) -> Result<()> {
            $write($self, v)
        }
        fn serialize_char($self, v: char) -> Result<()> {
            $write($self, v.encode_utf8(&mut [0; 4]))
        }
        fn serialize_i8($self, v: i8) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_i16($self, v: i16) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_i32($self, v: i32) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_i64($self, v: i64) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_u8($self, v: u8) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_u16($self, v: u16) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_u32($self, v: u32) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_u64($self, v: u64) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_unit_variant($self, _: &'static str, _: u32, v: &'static str) -> Result<()> {
            $write($self, v)
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>($self, _: &'static str, v: &T) -> Result<()> {
            v.serialize($self)
        }
        reject_rest!(bad_key());
    };
}

impl<S: Sink> ser::Serializer for KeySer<'_, S> {
    key_text_impl!(self, |s: Self, v: &str| s.enc.write_string(v));
}

impl ser::Serializer for KeyCapture<'_> {
    key_text_impl!(self, |s: Self, v: &str| {
        s.out.push_str(v);
        Ok(())
    });
}

/// `ByteSer` answers with the byte rather than writing it.
impl ser::Serializer for ByteSer {
    type Ok = u8;
    type Error = Error;
    type SerializeSeq = ser::Impossible<u8, Error>;
    type SerializeTuple = ser::Impossible<u8, Error>;
    type SerializeTupleStruct = ser::Impossible<u8, Error>;
    type SerializeTupleVariant = ser::Impossible<u8, Error>;
    type SerializeMap = ser::Impossible<u8, Error>;
    type SerializeStruct = ser::Impossible<u8, Error>;
    type SerializeStructVariant = ser::Impossible<u8, Error>;

    #[inline(always)]
    fn serialize_u8(self, v: u8) -> Result<u8> {
        Ok(v)
    }
    fn serialize_i8(self, v: i8) -> Result<u8> {
        Ok(v as u8)
    }
    fn serialize_i16(self, v: i16) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_i32(self, v: i32) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_i64(self, v: i64) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_u16(self, v: u16) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_u32(self, v: u32) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_u64(self, v: u64) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_char(self, _: char) -> Result<u8> {
        Err(not_a_byte())
    }
    fn serialize_str(self, _: &str) -> Result<u8> {
        Err(not_a_byte())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<u8> {
        Err(not_a_byte())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<u8> {
        v.serialize(self)
    }
    reject_rest!(not_a_byte());
}

#[cold]
#[inline(never)]
fn not_an_integer() -> Error {
    Error::data("expected an integer in a tuple written as a date or time")
}

impl ser::Serializer for IntCapture {
    type Ok = i64;
    type Error = Error;
    type SerializeSeq = ser::Impossible<i64, Error>;
    type SerializeTuple = ser::Impossible<i64, Error>;
    type SerializeTupleStruct = ser::Impossible<i64, Error>;
    type SerializeTupleVariant = ser::Impossible<i64, Error>;
    type SerializeMap = ser::Impossible<i64, Error>;
    type SerializeStruct = ser::Impossible<i64, Error>;
    type SerializeStructVariant = ser::Impossible<i64, Error>;

    fn serialize_i8(self, v: i8) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<i64> {
        Ok(v)
    }
    fn serialize_u8(self, v: u8) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<i64> {
        i64::try_from(v).map_err(|_| not_an_integer())
    }
    fn serialize_char(self, _: char) -> Result<i64> {
        Err(not_an_integer())
    }
    fn serialize_str(self, _: &str) -> Result<i64> {
        Err(not_an_integer())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<i64> {
        Err(not_an_integer())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<i64> {
        v.serialize(self)
    }
    reject_rest!(not_an_integer());
}

impl ser::Error for Error {
    #[cold]
    fn custom<T: std::fmt::Display>(msg: T) -> Error {
        Error::data(msg.to_string())
    }
}
