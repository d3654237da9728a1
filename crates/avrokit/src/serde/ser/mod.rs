//! The serde `Serializer`: Rust values straight to Avro binary, driven by a [`SerPlan`].
//!
//! See the [module docs](super) for the mapping between Rust and Avro types.
//!
//! One role per file: `plan.rs` compiles a schema into a [`SerPlan`], `node.rs` serializes one
//! value at one schema node, `compound.rs` the arrays, maps, records and byte sequences made of
//! several values, and `keys.rs` the small serializers of map keys, bytes and tuple parts. This
//! file is the driver: the [`Serializer`] and the `to_datum_*` functions.

mod compound;
mod keys;
mod node;
mod plan;

use std::mem;

use ::serde::ser::{self, Serialize};

use self::node::NodeSer;
pub use self::plan::SerPlan;
use self::plan::{too_deep, SNode};
use crate::encode::Encoder;
use crate::error::{Error, Result};
use crate::io::{BufferedSink, Sink};

/// How deep Rust values may nest when writing (a recursive schema allows any depth; this bounds
/// the stack).
const MAX_WRITE_DEPTH: usize = 1024;
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
impl ser::Error for Error {
    #[cold]
    fn custom<T: std::fmt::Display>(msg: T) -> Error {
        Error::data(msg.to_string())
    }
}
