//! Avro schemas: parsed once into an arena of nodes, referred to by [`NodeId`].
//!
//! A [`Schema`] is an `Arc`-shared arena plus the id of its root node. Named types are defined
//! once in the arena; every reference to a named type (including a recursive one, such as a linked
//! list's `next` field) is simply the `NodeId` of that definition, so nothing on the data path looks
//! a name up or clones a schema. Several schemas parsed together ([`Schema::parse_many`]) share one
//! arena and may refer to each other's named types.
//!
//! Everything the specification asks to keep is kept: docs, aliases, custom properties, logical
//! types, field order and defaults. Writing a schema back ([`Schema::to_json`]) and the Parsing
//! Canonical Form ([`Schema::canonical_form`]) walk the arena, emitting a named type in full the
//! first time it is met and by name after that.
//!
//! # Examples
//! ```
//! use avrokit::schema::{Schema, NodeKind};
//! let schema = Schema::parse_str(r#"{
//!     "type": "record", "name": "LongList", "namespace": "demo",
//!     "fields": [
//!         {"name": "value", "type": "long"},
//!         {"name": "next", "type": ["null", "LongList"]}
//!     ]
//! }"#).unwrap();
//! let NodeKind::Record(rec) = schema.root().kind() else { panic!() };
//! assert_eq!(rec.name.fullname(), "demo.LongList");
//! // `next` is a union whose second branch is the record itself: same node id.
//! let NodeKind::Union(u) = schema.node(rec.fields[1].schema).kind() else { panic!() };
//! assert_eq!(u.variants[1], schema.root_id());
//! ```

mod canonical;
mod fingerprint;
mod name;
mod parse;
mod protocol;
pub(crate) mod write;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

pub use name::Name;
pub use protocol::{Message, Protocol};

use crate::error::Result;

/// The index of a node in a schema's arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The position of the node in [`Schema::nodes`].
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One schema node: its type, logical type annotation and custom properties.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What the node is.
    pub kind: NodeKind,
    /// A valid logical type annotation; an invalid or unknown one is kept in `props` as
    /// `logicalType` and otherwise ignored, as the specification says.
    pub logical: Option<LogicalType>,
    /// Custom attributes (anything the specification does not define), in document order.
    pub props: Vec<(String, serde_json::Value)>,
}

impl Node {
    /// The node's kind.
    #[inline]
    pub fn kind(&self) -> &NodeKind {
        &self.kind
    }

    /// The fullname of a named type (record, enum, fixed).
    pub fn name(&self) -> Option<&Name> {
        match &self.kind {
            NodeKind::Record(r) => Some(&r.name),
            NodeKind::Enum(e) => Some(&e.name),
            NodeKind::Fixed(f) => Some(&f.name),
            _ => None,
        }
    }

    /// A custom property by key.
    pub fn prop(&self, key: &str) -> Option<&serde_json::Value> {
        self.props.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// The type of a schema node.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// `"null"`
    Null,
    /// `"boolean"`
    Boolean,
    /// `"int"`: 32-bit signed.
    Int,
    /// `"long"`: 64-bit signed.
    Long,
    /// `"float"`: IEEE 754 single precision.
    Float,
    /// `"double"`: IEEE 754 double precision.
    Double,
    /// `"bytes"`
    Bytes,
    /// `"string"`: UTF-8.
    String,
    /// A record.
    Record(RecordSchema),
    /// An enum.
    Enum(EnumSchema),
    /// A fixed-size byte sequence.
    Fixed(FixedSchema),
    /// An array.
    Array(ArraySchema),
    /// A map with string keys.
    Map(MapSchema),
    /// A union.
    Union(UnionSchema),
}

impl NodeKind {
    /// The type name as the specification spells it (`"record"`, `"int"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            NodeKind::Null => "null",
            NodeKind::Boolean => "boolean",
            NodeKind::Int => "int",
            NodeKind::Long => "long",
            NodeKind::Float => "float",
            NodeKind::Double => "double",
            NodeKind::Bytes => "bytes",
            NodeKind::String => "string",
            NodeKind::Record(_) => "record",
            NodeKind::Enum(_) => "enum",
            NodeKind::Fixed(_) => "fixed",
            NodeKind::Array(_) => "array",
            NodeKind::Map(_) => "map",
            NodeKind::Union(_) => "union",
        }
    }
}

/// A record type.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordSchema {
    /// Fullname.
    pub name: Name,
    /// Alternative fullnames, used by schema resolution.
    pub aliases: Vec<Name>,
    /// Documentation.
    pub doc: Option<String>,
    /// Fields, in schema order (the order they are encoded in).
    pub fields: Vec<Field>,
    /// True for a protocol's `"error"` type (encoded like a record).
    pub is_error: bool,
}

impl RecordSchema {
    /// The position of the field called `name`.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// A record field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Documentation.
    pub doc: Option<String>,
    /// The field's type.
    pub schema: NodeId,
    /// The default value, in Avro's JSON encoding for the field's type (already validated).
    pub default: Option<serde_json::Value>,
    /// Sort order.
    pub order: Order,
    /// Alternative names, used by schema resolution.
    pub aliases: Vec<String>,
    /// Custom attributes, in document order.
    pub props: Vec<(String, serde_json::Value)>,
}

/// A field's sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// `"ascending"` (the default).
    #[default]
    Ascending,
    /// `"descending"`
    Descending,
    /// `"ignore"`
    Ignore,
}

/// An enum type.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumSchema {
    /// Fullname.
    pub name: Name,
    /// Alternative fullnames.
    pub aliases: Vec<Name>,
    /// Documentation.
    pub doc: Option<String>,
    /// Symbols, in index order.
    pub symbols: Vec<String>,
    /// Index of the default symbol, used by schema resolution for unknown symbols.
    pub default: Option<u32>,
}

impl EnumSchema {
    /// The index of `symbol`.
    pub fn symbol_index(&self, symbol: &str) -> Option<u32> {
        self.symbols
            .iter()
            .position(|s| s == symbol)
            .map(|i| i as u32)
    }
}

/// A fixed type.
#[derive(Debug, Clone, PartialEq)]
pub struct FixedSchema {
    /// Fullname.
    pub name: Name,
    /// Alternative fullnames.
    pub aliases: Vec<Name>,
    /// Documentation.
    pub doc: Option<String>,
    /// Size in bytes.
    pub size: usize,
}

/// An array type.
#[derive(Debug, Clone, PartialEq)]
pub struct ArraySchema {
    /// The items' type.
    pub items: NodeId,
}

/// A map type (keys are strings).
#[derive(Debug, Clone, PartialEq)]
pub struct MapSchema {
    /// The values' type.
    pub values: NodeId,
}

/// A union type.
#[derive(Debug, Clone, PartialEq)]
pub struct UnionSchema {
    /// The branches, in index order.
    pub variants: Vec<NodeId>,
}

/// Logical type annotations of the Avro 1.12 specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicalType {
    /// `decimal` on `bytes` or `fixed`: unscaled two's-complement big-endian integer.
    Decimal {
        /// Total number of digits (> 0).
        precision: u32,
        /// Digits after the point (0 ..= precision).
        scale: u32,
    },
    /// `big-decimal` on `bytes`: scale stored with each value.
    BigDecimal,
    /// `uuid` on `string` or `fixed(16)`.
    Uuid,
    /// `date` on `int`: days since the Unix epoch.
    Date,
    /// `time-millis` on `int`.
    TimeMillis,
    /// `time-micros` on `long`.
    TimeMicros,
    /// `timestamp-millis` on `long`.
    TimestampMillis,
    /// `timestamp-micros` on `long`.
    TimestampMicros,
    /// `timestamp-nanos` on `long`.
    TimestampNanos,
    /// `local-timestamp-millis` on `long`.
    LocalTimestampMillis,
    /// `local-timestamp-micros` on `long`.
    LocalTimestampMicros,
    /// `local-timestamp-nanos` on `long`.
    LocalTimestampNanos,
    /// `duration` on `fixed(12)`: months, days, milliseconds as little-endian u32s.
    Duration,
}

impl LogicalType {
    /// The `logicalType` attribute value.
    pub fn name(&self) -> &'static str {
        match self {
            LogicalType::Decimal { .. } => "decimal",
            LogicalType::BigDecimal => "big-decimal",
            LogicalType::Uuid => "uuid",
            LogicalType::Date => "date",
            LogicalType::TimeMillis => "time-millis",
            LogicalType::TimeMicros => "time-micros",
            LogicalType::TimestampMillis => "timestamp-millis",
            LogicalType::TimestampMicros => "timestamp-micros",
            LogicalType::TimestampNanos => "timestamp-nanos",
            LogicalType::LocalTimestampMillis => "local-timestamp-millis",
            LogicalType::LocalTimestampMicros => "local-timestamp-micros",
            LogicalType::LocalTimestampNanos => "local-timestamp-nanos",
            LogicalType::Duration => "duration",
        }
    }
}

/// The arena shared by every schema parsed together.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arena {
    pub(crate) nodes: Vec<Node>,
    /// Fullname to node, for the named types.
    pub(crate) names: HashMap<String, NodeId>,
}

/// A parsed Avro schema: a shared arena of nodes and the root node.
///
/// Cloning is cheap (an `Arc` clone). See the [module docs](self) for an example.
#[derive(Clone)]
pub struct Schema {
    pub(crate) arena: Arc<Arena>,
    pub(crate) root: NodeId,
}

impl Schema {
    /// Parses a schema from its JSON text.
    ///
    /// # Errors
    /// [`ErrorKind::Schema`](crate::ErrorKind::Schema) with a JSON path (like
    /// `$.fields[2].type`) when the text is not valid JSON or not a valid schema. Schemas nested
    /// more than 512 levels deep (or JSON nested more than 1024 levels) are rejected as well, so
    /// that no recursive walk over a parsed schema can exhaust the stack.
    pub fn parse_str(json: &str) -> Result<Schema> {
        let mut v = Self::parse_many(&[json])?;
        Ok(v.pop().expect("one schema in, one out"))
    }

    /// Parses a schema from an already parsed JSON value.
    ///
    /// # Errors
    /// As [`Schema::parse_str`].
    pub fn parse_json(json: &serde_json::Value) -> Result<Schema> {
        parse::parse_values(std::slice::from_ref(json)).map(|mut v| v.pop().expect("one schema"))
    }

    /// Parses several schemas that may refer to each other's named types, in any order (like
    /// `.avsc` files that depend on one another). They share one arena.
    ///
    /// # Errors
    /// As [`Schema::parse_str`]; the path names which input failed (`$[1].fields[0].type`
    /// style paths start with the input's index when there are several).
    pub fn parse_many(jsons: &[&str]) -> Result<Vec<Schema>> {
        parse::parse_strs(jsons)
    }

    /// The root node.
    #[inline]
    pub fn root(&self) -> &Node {
        &self.arena.nodes[self.root.index()]
    }

    /// The root node's id.
    #[inline]
    pub fn root_id(&self) -> NodeId {
        self.root
    }

    /// A node by id.
    ///
    /// # Panics
    /// If `id` does not come from this schema's arena.
    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.arena.nodes[id.index()]
    }

    /// All nodes of the arena (shared with the schemas parsed together with this one).
    #[inline]
    pub fn nodes(&self) -> &[Node] {
        &self.arena.nodes
    }

    /// The named type with this fullname, if the arena has it.
    pub fn lookup(&self, fullname: &str) -> Option<NodeId> {
        self.arena.names.get(fullname).copied()
    }

    /// The same arena with another root: the schema of a field, a branch, an item type...
    pub fn at(&self, id: NodeId) -> Schema {
        assert!(id.index() < self.arena.nodes.len(), "node id out of range");
        Schema {
            arena: Arc::clone(&self.arena),
            root: id,
        }
    }

    /// True when both schemas share one arena (parsed together), so node ids are comparable.
    pub fn same_arena(&self, other: &Schema) -> bool {
        Arc::ptr_eq(&self.arena, &other.arena)
    }

    /// The schema as JSON, with everything kept (docs, aliases, defaults, custom properties).
    pub fn to_json(&self) -> serde_json::Value {
        write::to_json(self)
    }

    /// The fewest bytes one datum of this schema can encode to: a lower bound (a recursive
    /// type counts 0 for its recursion). Readers use it to reject a block that claims more
    /// objects than its bytes can hold.
    ///
    /// # Examples
    /// ```
    /// use avrokit::Schema;
    /// let s = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
    ///     {"name":"d","type":"double"},{"name":"s","type":"string"},{"name":"n","type":"null"}]}"#)?;
    /// assert_eq!(s.min_encoded_size(), 9);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    pub fn min_encoded_size(&self) -> u64 {
        fn go(schema: &Schema, id: NodeId, memo: &mut [Option<u64>], busy: &mut [bool]) -> u64 {
            let i = id.index();
            if let Some(v) = memo[i] {
                return v;
            }
            if busy[i] {
                return 0;
            }
            busy[i] = true;
            let v = match &schema.node(id).kind {
                NodeKind::Null => 0,
                NodeKind::Boolean
                | NodeKind::Int
                | NodeKind::Long
                | NodeKind::Bytes
                | NodeKind::String
                | NodeKind::Enum(_)
                | NodeKind::Array(_)
                | NodeKind::Map(_) => 1,
                NodeKind::Float => 4,
                NodeKind::Double => 8,
                NodeKind::Fixed(f) => f.size as u64,
                NodeKind::Record(r) => r.fields.iter().fold(0u64, |acc, f| {
                    acc.saturating_add(go(schema, f.schema, memo, busy))
                }),
                NodeKind::Union(u) => {
                    1 + u
                        .variants
                        .iter()
                        .map(|&b| go(schema, b, memo, busy))
                        .min()
                        .unwrap_or(0)
                }
            };
            busy[i] = false;
            memo[i] = Some(v);
            v
        }
        let n = self.nodes().len();
        go(
            self,
            self.root_id(),
            &mut vec![None; n],
            &mut vec![false; n],
        )
    }

    /// The Parsing Canonical Form of the specification.
    pub fn canonical_form(&self) -> String {
        canonical::canonical_form(self)
    }

    /// The CRC-64-AVRO (Rabin) fingerprint of the canonical form, as used by single-object
    /// encoding (little-endian bytes of this value).
    pub fn fingerprint_rabin(&self) -> u64 {
        fingerprint::rabin(self.canonical_form().as_bytes())
    }

    /// The MD5 digest of the canonical form.
    pub fn fingerprint_md5(&self) -> [u8; 16] {
        fingerprint::md5(self.canonical_form().as_bytes())
    }

    /// The SHA-256 digest of the canonical form.
    pub fn fingerprint_sha256(&self) -> [u8; 32] {
        fingerprint::sha256(self.canonical_form().as_bytes())
    }
}

/// Schemas are equal when their Parsing Canonical Forms are equal.
impl PartialEq for Schema {
    fn eq(&self, other: &Schema) -> bool {
        (self.same_arena(other) && self.root == other.root)
            || self.canonical_form() == other.canonical_form()
    }
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Schema({})", self.to_json())
    }
}

/// The schema's full JSON (as [`Schema::to_json`]).
impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

impl std::str::FromStr for Schema {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Schema> {
        Schema::parse_str(s)
    }
}
