//! A schema-checked encoder, like Java's `ValidatingEncoder`.

use super::Encoder;
use crate::error::{Error, Result};
use crate::io::Sink;
use crate::schema::{NodeId, NodeKind, Schema};

/// Where the encoder is inside the datum being written.
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// Exactly one value of this node comes next (the root, a field, an item, a branch).
    One(NodeId),
    /// Inside a record, `next` fields written so far.
    Record { id: NodeId, next: usize },
    /// Inside an array; `item` once `start_item` opened an item that is not written yet.
    Array { items: NodeId, item: bool },
    /// Inside a map; `key` once `start_item` opened an entry whose key is not written yet.
    Map { values: NodeId, key: bool },
}

/// What a write call offers, to compare with what the schema expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    Fixed(usize),
    Enum(u32),
}

/// Wraps an [`Encoder`] and checks every call against a schema: the type of each value, record
/// fields in order, enum and union indexes in range, fixed sizes, and array and map framing.
/// Datums repeat: after one datum of the schema is complete, the next call starts another.
///
/// The check is a pushdown walk over the schema arena (a few branches per call, no
/// allocation once the stack has grown to the schema's depth).
///
/// # Examples
/// ```
/// use avrokit::{encode::ValidatingEncoder, Schema};
/// let schema = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"x","type":"double"},{"name":"n","type":"int"}]}"#)?;
/// let mut out = Vec::new();
/// let mut enc = ValidatingEncoder::new(&mut out, &schema);
/// enc.write_double(1.5)?;
/// enc.write_int(7)?;
/// // A second datum: the schema wants a double first.
/// assert!(enc.write_int(1).is_err());
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct ValidatingEncoder<S: Sink> {
    enc: Encoder<S>,
    schema: Schema,
    stack: Vec<Frame>,
}

impl<S: Sink> ValidatingEncoder<S> {
    /// A validating encoder over `sink` for datums of `schema`.
    pub fn new(sink: S, schema: &Schema) -> Self {
        ValidatingEncoder {
            enc: Encoder::new(sink),
            schema: schema.clone(),
            stack: Vec::with_capacity(8),
        }
    }

    /// The inner encoder's sink, without flushing.
    pub fn into_inner(self) -> S {
        self.enc.into_inner()
    }

    /// True when no datum is partly written (fields left over that take no call, such as
    /// records without fields, do not count).
    pub fn at_datum_boundary(&self) -> bool {
        self.stack.iter().all(|f| match *f {
            Frame::Record { id, next } => match &self.schema.node(id).kind {
                NodeKind::Record(r) => r.fields[next..]
                    .iter()
                    .all(|f| needs_no_call(&self.schema, f.schema, 0)),
                _ => false,
            },
            Frame::One(id) => needs_no_call(&self.schema, id, 0),
            _ => false,
        })
    }

    /// Finds the node the next value must have, descending into records.
    #[inline]
    fn next_node(&mut self) -> Result<NodeId> {
        loop {
            let Some(top) = self.stack.last_mut() else {
                self.stack.push(Frame::One(self.schema.root_id()));
                continue;
            };
            match *top {
                Frame::One(id) => {
                    self.stack.pop();
                    if let NodeKind::Record(_) = self.schema.node(id).kind {
                        self.stack.push(Frame::Record { id, next: 0 });
                        continue;
                    }
                    return Ok(id);
                }
                Frame::Record { id, ref mut next } => {
                    let NodeKind::Record(r) = &self.schema.node(id).kind else {
                        unreachable!("record frames hold records")
                    };
                    if *next < r.fields.len() {
                        let field = r.fields[*next].schema;
                        *next += 1;
                        self.stack.push(Frame::One(field));
                    } else {
                        self.stack.pop();
                    }
                }
                Frame::Array {
                    items,
                    ref mut item,
                } => {
                    if !*item {
                        return Err(Error::data(
                            "inside an array: call start_item before an item, or end the array",
                        ));
                    }
                    *item = false;
                    self.stack.push(Frame::One(items));
                }
                Frame::Map {
                    values,
                    ref mut key,
                } => {
                    if !*key {
                        return Err(Error::data(
                            "inside a map: call start_item before an entry, or end the map",
                        ));
                    }
                    return Err(Error::data(format!(
                        "a map entry starts with its key (a string), then a value of {}",
                        self.schema.node(values).kind.type_name()
                    )));
                }
            }
        }
    }

    /// Checks a value-writing call against the schema.
    #[inline]
    fn check(&mut self, call: Call) -> Result<()> {
        if let Some(Frame::Map { values, key: true }) = self.stack.last().copied() {
            if call != Call::String {
                return Err(Error::data("a map entry starts with its key, a string"));
            }
            self.stack.pop();
            self.stack.push(Frame::Map { values, key: false });
            self.stack.push(Frame::One(values));
            return Ok(());
        }
        let id = self.next_node()?;
        let node = self.schema.node(id);
        let ok = match (&node.kind, call) {
            (NodeKind::Null, Call::Null)
            | (NodeKind::Boolean, Call::Boolean)
            | (NodeKind::Int, Call::Int)
            | (NodeKind::Long, Call::Long)
            | (NodeKind::Float, Call::Float)
            | (NodeKind::Double, Call::Double)
            | (NodeKind::Bytes, Call::Bytes)
            | (NodeKind::String, Call::String) => true,
            (NodeKind::Fixed(f), Call::Fixed(n)) => f.size == n,
            (NodeKind::Enum(e), Call::Enum(i)) => (i as usize) < e.symbols.len(),
            _ => false,
        };
        if !ok {
            // Put the expectation back so the caller can still write the right thing.
            self.stack.push(Frame::One(id));
            return Err(Error::data(format!(
                "the schema expects {} here, not this {:?} write",
                describe(&self.schema, id),
                call
            )));
        }
        Ok(())
    }

    /// Writes `null` (nothing), after checking the schema expects it.
    ///
    /// # Errors
    /// When the schema expects something else.
    pub fn write_null(&mut self) -> Result<()> {
        self.check(Call::Null)
    }

    /// Writes a boolean. # Errors: a schema mismatch or a failing sink.
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_boolean(&mut self, v: bool) -> Result<()> {
        self.check(Call::Boolean)?;
        self.enc.write_boolean(v)
    }

    /// Writes an `int`.
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_int(&mut self, v: i32) -> Result<()> {
        self.check(Call::Int)?;
        self.enc.write_int(v)
    }

    /// Writes a `long`.
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_long(&mut self, v: i64) -> Result<()> {
        self.check(Call::Long)?;
        self.enc.write_long(v)
    }

    /// Writes a `float`.
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_float(&mut self, v: f32) -> Result<()> {
        self.check(Call::Float)?;
        self.enc.write_float(v)
    }

    /// Writes a `double`.
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_double(&mut self, v: f64) -> Result<()> {
        self.check(Call::Double)?;
        self.enc.write_double(v)
    }

    /// Writes `bytes`.
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_bytes(&mut self, v: &[u8]) -> Result<()> {
        self.check(Call::Bytes)?;
        self.enc.write_bytes(v)
    }

    /// Writes a `string` (also a map key).
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_string(&mut self, v: &str) -> Result<()> {
        self.check(Call::String)?;
        self.enc.write_string(v)
    }

    /// Writes a `fixed`, whose length must be the schema's size.
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_fixed(&mut self, v: &[u8]) -> Result<()> {
        self.check(Call::Fixed(v.len()))?;
        self.enc.write_fixed(v)
    }

    /// Writes an enum index, which must be in range.
    ///
    /// # Errors
    /// When the schema expects something else, or the sink fails.
    pub fn write_enum(&mut self, index: u32) -> Result<()> {
        self.check(Call::Enum(index))?;
        self.enc.write_enum(index)
    }

    /// Writes a union branch index; a value of that branch must follow.
    ///
    /// # Errors
    /// When no union is expected, the index is out of range, or the sink fails.
    pub fn write_union_index(&mut self, index: u32) -> Result<()> {
        let id = self.next_node()?;
        let NodeKind::Union(u) = &self.schema.node(id).kind else {
            self.stack.push(Frame::One(id));
            return Err(Error::data(format!(
                "the schema expects {} here, not a union index",
                describe(&self.schema, id)
            )));
        };
        let Some(&branch) = u.variants.get(index as usize) else {
            self.stack.push(Frame::One(id));
            return Err(Error::data(format!(
                "union index {index} out of range for a union of {} branches",
                u.variants.len()
            )));
        };
        self.stack.push(Frame::One(branch));
        self.enc.write_union_index(index)
    }

    /// Starts an array of `len` items.
    ///
    /// # Errors
    /// When no array is expected, or the sink fails.
    pub fn write_array_start(&mut self, len: usize) -> Result<()> {
        let id = self.next_node()?;
        let NodeKind::Array(a) = &self.schema.node(id).kind else {
            self.stack.push(Frame::One(id));
            return Err(Error::data(format!(
                "the schema expects {} here, not an array",
                describe(&self.schema, id)
            )));
        };
        self.stack.push(Frame::Array {
            items: a.items,
            item: false,
        });
        self.enc.write_array_start(len)
    }

    /// Starts a map of `len` entries.
    ///
    /// # Errors
    /// When no map is expected, or the sink fails.
    pub fn write_map_start(&mut self, len: usize) -> Result<()> {
        let id = self.next_node()?;
        let NodeKind::Map(m) = &self.schema.node(id).kind else {
            self.stack.push(Frame::One(id));
            return Err(Error::data(format!(
                "the schema expects {} here, not a map",
                describe(&self.schema, id)
            )));
        };
        self.stack.push(Frame::Map {
            values: m.values,
            key: false,
        });
        self.enc.write_map_start(len)
    }

    /// Starts an array item or a map entry.
    ///
    /// # Errors
    /// Outside an array or map, before the previous item was written, or when the sink fails.
    pub fn start_item(&mut self) -> Result<()> {
        match self.stack.last_mut() {
            Some(Frame::Array {
                item: item @ false, ..
            }) => *item = true,
            Some(Frame::Map {
                key: key @ false, ..
            }) => *key = true,
            _ => return Err(Error::data("start_item outside an array or map, or twice")),
        }
        self.enc.start_item()
    }

    /// Ends the current array.
    ///
    /// # Errors
    /// When no array is open, an item was started but not written, or the sink fails.
    pub fn write_array_end(&mut self) -> Result<()> {
        match self.stack.last() {
            Some(Frame::Array { item: false, .. }) => {
                self.stack.pop();
                self.enc.write_array_end()
            }
            _ => Err(Error::data("write_array_end without an open array")),
        }
    }

    /// Ends the current map.
    ///
    /// # Errors
    /// When no map is open, an entry was started but not written, or the sink fails.
    pub fn write_map_end(&mut self) -> Result<()> {
        match self.stack.last() {
            Some(Frame::Map { key: false, .. }) => {
                self.stack.pop();
                self.enc.write_map_end()
            }
            _ => Err(Error::data("write_map_end without an open map")),
        }
    }

    /// Flushes the sink.
    ///
    /// # Errors
    /// When the sink fails.
    pub fn flush(&mut self) -> Result<()> {
        self.enc.flush()
    }
}

/// A record whose fields are all such records: writing it takes no call at all.
fn needs_no_call(schema: &Schema, id: NodeId, depth: u32) -> bool {
    match &schema.node(id).kind {
        NodeKind::Record(r) => {
            depth < 64
                && r.fields
                    .iter()
                    .all(|f| needs_no_call(schema, f.schema, depth + 1))
        }
        _ => false,
    }
}

fn describe(schema: &Schema, id: NodeId) -> String {
    let node = schema.node(id);
    match node.name() {
        Some(n) => format!("{} {}", node.kind.type_name(), n),
        None => node.kind.type_name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;

    fn schema() -> Schema {
        Schema::parse_str(
            r#"{"type":"record","name":"R","fields":[
                {"name":"a","type":"int"},
                {"name":"tags","type":{"type":"array","items":"string"}},
                {"name":"m","type":{"type":"map","values":"long"}},
                {"name":"u","type":["null","double"]},
                {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
                {"name":"f","type":{"type":"fixed","name":"F","size":2}},
                {"name":"inner","type":{"type":"record","name":"I","fields":[]}}
            ]}"#,
        )
        .unwrap()
    }

    fn write_one(enc: &mut ValidatingEncoder<&mut Vec<u8>>) -> Result<()> {
        enc.write_int(5)?;
        enc.write_array_start(2)?;
        enc.start_item()?;
        enc.write_string("a")?;
        enc.start_item()?;
        enc.write_string("b")?;
        enc.write_array_end()?;
        enc.write_map_start(1)?;
        enc.start_item()?;
        enc.write_string("k")?;
        enc.write_long(-1)?;
        enc.write_map_end()?;
        enc.write_union_index(1)?;
        enc.write_double(2.5)?;
        enc.write_enum(1)?;
        enc.write_fixed(b"zz")
    }

    #[test]
    fn valid_calls_give_the_value_encoding() {
        let s = schema();
        let mut out = Vec::new();
        let mut enc = ValidatingEncoder::new(&mut out, &s);
        write_one(&mut enc).unwrap();
        write_one(&mut enc).unwrap();
        drop(enc);
        let v = Value::Record(vec![
            Value::Int(5),
            Value::Array(vec![Value::String("a".into()), Value::String("b".into())]),
            Value::Map(vec![("k".into(), Value::Long(-1))]),
            Value::Union(1, Box::new(Value::Double(2.5))),
            Value::Enum(1),
            Value::Fixed(b"zz".to_vec()),
            Value::Record(vec![]),
        ]);
        let one = crate::to_datum_vec(&v, &s).unwrap();
        assert_eq!(out, [one.clone(), one].concat());
    }

    #[test]
    fn every_kind_of_mistake_is_an_error() {
        let s = schema();
        let mut out = Vec::new();
        let mut enc = ValidatingEncoder::new(&mut out, &s);
        assert!(enc.write_long(5).is_err(), "int expected");
        enc.write_int(5).unwrap(); // still possible after a rejected call
        assert!(enc.write_string("x").is_err(), "array expected");
        enc.write_array_start(1).unwrap();
        assert!(enc.write_string("x").is_err(), "start_item first");
        enc.start_item().unwrap();
        assert!(enc.write_int(1).is_err(), "string item expected");
        enc.write_string("x").unwrap();
        assert!(enc.write_map_end().is_err(), "array open, not a map");
        enc.write_array_end().unwrap();
        enc.write_map_start(1).unwrap();
        enc.start_item().unwrap();
        assert!(enc.write_long(1).is_err(), "key first");
        enc.write_string("k").unwrap();
        enc.write_long(1).unwrap();
        enc.write_map_end().unwrap();
        assert!(enc.write_union_index(2).is_err(), "index out of range");
        assert!(enc.write_double(1.0).is_err(), "union index first");
        enc.write_union_index(0).unwrap();
        enc.write_null().unwrap();
        assert!(enc.write_enum(2).is_err(), "enum index out of range");
        enc.write_enum(0).unwrap();
        assert!(enc.write_fixed(b"abc").is_err(), "fixed size");
        enc.write_fixed(b"ab").unwrap();
        assert!(enc.at_datum_boundary());
    }
}
