//! Skipping values without decoding them.

use super::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::Source;
use crate::schema::{NodeId, NodeKind, Schema};

/// The encoded size of `id` when every value of it has the same size (null, boolean, float,
/// double, fixed, and records of those), so a run of them can be skipped in one jump.
///
/// A record that contains itself without a union in between has no finite value at all, so the
/// walk stops at the first record met again (`None`). Nesting is otherwise bounded by the schema
/// parser's depth limit.
pub(crate) fn fixed_size(schema: &Schema, id: NodeId) -> Option<u64> {
    fn go(schema: &Schema, id: NodeId, open: &mut Vec<NodeId>) -> Option<u64> {
        match &schema.node(id).kind {
            NodeKind::Null => Some(0),
            NodeKind::Boolean => Some(1),
            NodeKind::Float => Some(4),
            NodeKind::Double => Some(8),
            NodeKind::Fixed(f) => Some(f.size as u64),
            NodeKind::Record(r) => {
                if open.contains(&id) {
                    return None;
                }
                open.push(id);
                let size = r
                    .fields
                    .iter()
                    .try_fold(0u64, |acc, f| acc.checked_add(go(schema, f.schema, open)?));
                open.pop();
                size
            }
            _ => None,
        }
    }
    go(schema, id, &mut Vec::new())
}

/// For a type whose values take no bytes on the wire (null, fixed(0), records of such
/// types): how many `Value`s one value of it holds (itself and its fields, recursively), which
/// is what it costs in memory. `None` for any other type. Cheap for the usual array items: only
/// a record whose fields are all nulls, fixeds or records is walked in full.
pub(crate) fn zero_size_values(schema: &Schema, id: NodeId) -> Option<u64> {
    let candidate = match &schema.node(id).kind {
        NodeKind::Null => return Some(1),
        NodeKind::Fixed(f) => return (f.size == 0).then_some(1),
        NodeKind::Record(r) => r.fields.iter().all(|f| {
            matches!(
                schema.node(f.schema).kind,
                NodeKind::Null | NodeKind::Fixed(_) | NodeKind::Record(_)
            )
        }),
        _ => false,
    };
    if !candidate || fixed_size(schema, id) != Some(0) {
        return None;
    }
    // Not recursive (`fixed_size` found no cycle), so the walk ends.
    fn go(schema: &Schema, id: NodeId) -> u64 {
        match &schema.node(id).kind {
            NodeKind::Record(r) => r
                .fields
                .iter()
                .fold(1u64, |n, f| n.saturating_add(go(schema, f.schema))),
            _ => 1,
        }
    }
    Some(go(schema, id))
}

impl<'de, S: Source<'de>> Decoder<'de, S> {
    /// Skips one value of type `id` (a node of `schema`) without decoding it. Arrays and maps
    /// written in blocks with byte sizes are skipped a block at a time.
    ///
    /// # Errors
    /// Malformed or truncated data, or nesting beyond the depth limit.
    ///
    /// # Examples
    /// ```
    /// use avrokit::{Decoder, Schema};
    /// let schema = Schema::parse_str(r#"{"type":"array","items":"string"}"#)?;
    /// let data = [0x02, 0x02, b'a', 0x00, 0x0e];
    /// let mut dec = Decoder::from_slice(&data);
    /// dec.skip_value(&schema, schema.root_id())?;
    /// assert_eq!(dec.read_int()?, 7);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    pub fn skip_value(&mut self, schema: &Schema, id: NodeId) -> Result<()> {
        match &schema.node(id).kind {
            NodeKind::Null => Ok(()),
            NodeKind::Boolean => self.read_boolean().map(drop),
            NodeKind::Int => self.read_int().map(drop),
            NodeKind::Long => self.read_long().map(drop),
            NodeKind::Float => self.skip_raw(4),
            NodeKind::Double => self.skip_raw(8),
            NodeKind::Bytes | NodeKind::String => self.skip_bytes(),
            NodeKind::Fixed(f) => self.skip_raw(f.size as u64),
            NodeKind::Enum(_) => self.read_enum().map(drop),
            NodeKind::Record(r) => {
                self.enter()?;
                for f in &r.fields {
                    self.skip_value(schema, f.schema)?;
                }
                self.leave();
                Ok(())
            }
            NodeKind::Union(u) => {
                let at = self.offset();
                let i = self.read_union_index()?;
                let Some(&branch) = u.variants.get(i as usize) else {
                    return Err(Error::at(
                        ErrorKind::Data,
                        format!(
                            "union index {i} out of range for a union of {} branches",
                            u.variants.len()
                        ),
                        at,
                    ));
                };
                self.enter()?;
                self.skip_value(schema, branch)?;
                self.leave();
                Ok(())
            }
            NodeKind::Array(a) => self.skip_blocks(schema, None, a.items),
            NodeKind::Map(m) => self.skip_blocks(schema, Some(()), m.values),
        }
    }

    fn skip_blocks(&mut self, schema: &Schema, map: Option<()>, item: NodeId) -> Result<()> {
        self.enter()?;
        let item_size = if map.is_none() {
            fixed_size(schema, item)
        } else {
            None
        };
        loop {
            let (count, size) = self.read_block_header()?;
            if count == 0 {
                break;
            }
            if let Some(size) = size {
                self.skip_raw(size)?;
                continue;
            }
            if let Some(k) = item_size {
                let total = count
                    .checked_mul(k)
                    .ok_or_else(|| Error::at(ErrorKind::Data, "block too large", self.offset()))?;
                self.skip_raw(total)?;
                continue;
            }
            for _ in 0..count {
                let before = self.offset();
                if map.is_some() {
                    self.skip_bytes()?;
                }
                self.skip_value(schema, item)?;
                if self.offset() == before {
                    // A type whose values take no bytes takes none for every item: the rest of
                    // the block is already skipped, however large its count.
                    break;
                }
            }
        }
        self.leave();
        Ok(())
    }
}
