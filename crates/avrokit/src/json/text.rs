//! A schema-driven reader of JSON text: straight from the text to a [`Value`], with no
//! `serde_json::Value` in between, byte offsets in errors, and nesting bounded by [`Limits`].

use std::borrow::Cow;

use super::read::{
    branch_by_name, bytes_value, code_points_to_bytes, enum_value, expected_found, fixed_value,
    integer_value, missing_field, not_a_union_value, not_integer, null_branch, out_of_range,
    special_float, string_value, too_deep, unknown_field,
};
use crate::error::{Error, ErrorKind, Result};
use crate::io::Limits;
use crate::schema::{
    ArraySchema, MapSchema, Node, NodeId, NodeKind, RecordSchema, Schema, UnionSchema,
};
use crate::value::Value;

/// Reads datums of one schema from JSON text in Avro's JSON encoding.
///
/// The text may hold any number of JSON values separated by whitespace (one per line, as
/// `avro-tools tojson` writes them, or pretty-printed over several lines); the reader is an
/// iterator over them. It reads the text directly into [`Value`]s, guided by the schema, so it
/// reports the byte offset of a problem along with its path, and it bounds nesting by
/// [`Limits::max_depth`] (counting records, arrays, maps and unions, as the binary decoder
/// does) instead of a JSON parser's fixed recursion limit.
///
/// # Examples
/// ```
/// use avrokit::{json::JsonReader, Schema, Value};
/// let schema = Schema::parse_str(r#"["null", "int"]"#)?;
/// let text = "{\"int\": 1}\nnull\n{\"int\": -2}\n";
/// let values: Vec<Value> = JsonReader::new(text, &schema).collect::<Result<_, _>>()?;
/// assert_eq!(values[1], Value::Union(0, Box::new(Value::Null)));
/// assert_eq!(values[2], Value::Union(1, Box::new(Value::Int(-2))));
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// Each item is an error when the JSON is malformed ([`ErrorKind::Data`], or
/// [`ErrorKind::Eof`] when the text ends inside a value), does not match the schema
/// ([`ErrorKind::Data`], with the path, e.g. `Order.items[3].price`), or nests deeper than the
/// limit ([`ErrorKind::Limit`]). After an error the iterator ends.
#[derive(Debug)]
pub struct JsonReader<'a> {
    text: &'a str,
    pos: usize,
    schema: &'a Schema,
    max_depth: usize,
    done: bool,
}

impl<'a> JsonReader<'a> {
    /// A reader of `text` with the default [`Limits`]. A leading byte order mark is skipped.
    pub fn new(text: &'a str, schema: &'a Schema) -> JsonReader<'a> {
        let pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
        JsonReader {
            text,
            pos,
            schema,
            max_depth: Limits::DEFAULT_MAX_DEPTH,
            done: false,
        }
    }

    /// Uses `limits.max_depth` as the deepest nesting allowed (`max_alloc` does not apply: the
    /// text is already in memory and values are at most proportional to it).
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> JsonReader<'a> {
        self.max_depth = limits.max_depth;
        self
    }

    /// The byte offset in the text where reading continues.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Reads the next value, or `None` when only whitespace is left.
    ///
    /// # Errors
    /// As the [type's](JsonReader#errors).
    pub fn read_value(&mut self) -> Result<Option<Value>> {
        if self.peek().is_none() {
            return Ok(None);
        }
        let root = self.schema.root_id();
        let v = self
            .node(root, 0)
            .map_err(|e| match self.schema.node(root).name() {
                Some(n) => e.in_field(n.name().to_owned()),
                None => e,
            })?;
        Ok(Some(v))
    }

    /// Checks that nothing but whitespace is left.
    ///
    /// # Errors
    /// [`ErrorKind::Data`] when something is.
    pub fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Error::at(
                ErrorKind::Data,
                "trailing characters after the JSON value",
                self.pos as u64,
            )),
        }
    }

    // ------------------------------------------------------------------- schema-driven values

    fn node(&mut self, id: NodeId, depth: usize) -> Result<Value> {
        let start = self.skip_ws();
        // Errors from the shared rules carry no offset; they happened at this value.
        self.node_at(id, depth)
            .map_err(|e| e.or_offset(start as u64))
    }

    /// Dispatches on the node's kind. Each kind has its own method so that the frames on the
    /// recursive path stay small (a leaf's locals never sit on the stack of a deep record).
    fn node_at(&mut self, id: NodeId, depth: usize) -> Result<Value> {
        let node = self.schema.node(id);
        match &node.kind {
            NodeKind::Array(a) => self.array(node, a, depth),
            NodeKind::Map(m) => self.map(node, m, depth),
            NodeKind::Record(r) => self.record(node, r, depth),
            NodeKind::Union(u) => self.union(node, u, depth),
            _ => self.leaf(node),
        }
    }

    /// A value of a type that nests nothing.
    #[inline(never)]
    fn leaf(&mut self, node: &Node) -> Result<Value> {
        let b = self.peek_byte();
        Ok(match &node.kind {
            NodeKind::Null => {
                self.literal(node, "null")?;
                Value::Null
            }
            NodeKind::Boolean => match b {
                Some(b't') => {
                    self.literal(node, "true")?;
                    Value::Boolean(true)
                }
                Some(b'f') => {
                    self.literal(node, "false")?;
                    Value::Boolean(false)
                }
                _ => return Err(self.unexpected(node)),
            },
            NodeKind::Int | NodeKind::Long => match b {
                Some(b'-' | b'0'..=b'9') => {
                    let (text, integral) = self.number()?;
                    if !integral {
                        return Err(not_integer(node, text));
                    }
                    let v = text.parse::<i64>().map_err(|_| out_of_range(node, text))?;
                    integer_value(node, v)?
                }
                _ => return Err(self.unexpected(node)),
            },
            NodeKind::Float => match b {
                Some(b'-' | b'0'..=b'9') => {
                    let (text, _) = self.number()?;
                    // Parsed straight to f32: one correct rounding, not two through f64.
                    Value::Float(text.parse::<f32>().map_err(|_| self.bad_number(text))?)
                }
                Some(b'"') => {
                    let s = self.string()?;
                    match special_float(&s) {
                        Some(v) => Value::Float(v as f32),
                        None => return Err(expected_found(node, &found_string(&s))),
                    }
                }
                _ => return Err(self.unexpected(node)),
            },
            NodeKind::Double => match b {
                Some(b'-' | b'0'..=b'9') => {
                    let (text, _) = self.number()?;
                    Value::Double(text.parse::<f64>().map_err(|_| self.bad_number(text))?)
                }
                Some(b'"') => {
                    let s = self.string()?;
                    match special_float(&s) {
                        Some(v) => Value::Double(v),
                        None => return Err(expected_found(node, &found_string(&s))),
                    }
                }
                _ => return Err(self.unexpected(node)),
            },
            NodeKind::Bytes => match b {
                Some(b'"') => bytes_value(node, code_points_to_bytes(&self.string()?)?),
                _ => return Err(self.unexpected(node)),
            },
            NodeKind::String => match b {
                Some(b'"') => string_value(node, self.string()?.into_owned()),
                _ => return Err(self.unexpected(node)),
            },
            NodeKind::Fixed(f) => match b {
                Some(b'"') => fixed_value(node, f, code_points_to_bytes(&self.string()?)?)?,
                _ => return Err(self.unexpected(node)),
            },
            NodeKind::Enum(e) => match b {
                Some(b'"') => enum_value(e, &self.string()?)?,
                _ => return Err(self.unexpected(node)),
            },
            NodeKind::Array(_) | NodeKind::Map(_) | NodeKind::Record(_) | NodeKind::Union(_) => {
                // `node_at` sends these to their own methods.
                return Err(Error::new(
                    ErrorKind::Data,
                    "internal error: not a leaf type",
                ));
            }
        })
    }

    fn array(&mut self, node: &Node, a: &ArraySchema, depth: usize) -> Result<Value> {
        let b = self.peek_byte();
        if b != Some(b'[') {
            return Err(self.unexpected(node));
        }
        self.pos += 1;
        let depth = self.enter(depth)?;
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                let v = self
                    .node(a.items, depth)
                    .map_err(|e| e.in_index(items.len() as u64))?;
                items.push(v);
                if self.comma_or_close(b']')? {
                    break;
                }
            }
        }
        Ok(Value::Array(items))
    }

    fn map(&mut self, node: &Node, m: &MapSchema, depth: usize) -> Result<Value> {
        let b = self.peek_byte();
        if b != Some(b'{') {
            return Err(self.unexpected(node));
        }
        self.pos += 1;
        let depth = self.enter(depth)?;
        let mut entries = Vec::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                let key = self.key()?.into_owned();
                let v = self.node(m.values, depth).map_err(|e| e.in_key(&key))?;
                entries.push((key, v));
                if self.comma_or_close(b'}')? {
                    break;
                }
            }
        }
        Ok(Value::Map(entries))
    }

    fn record(&mut self, node: &Node, r: &RecordSchema, depth: usize) -> Result<Value> {
        let schema = self.schema;
        let b = self.peek_byte();
        if b != Some(b'{') {
            return Err(self.unexpected(node));
        }
        self.pos += 1;
        let depth = self.enter(depth)?;
        let mut slots: Vec<Option<Value>> = (0..r.fields.len()).map(|_| None).collect();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            // Fields usually come in schema order: try the next one before searching.
            let mut next = 0;
            loop {
                let key_at = self.skip_ws();
                let key = self.key()?;
                let found = match r.fields.get(next) {
                    Some(f) if f.name == key => Some(next),
                    _ => r.field_index(&key),
                };
                let Some(i) = found else {
                    return Err(unknown_field(r, &key).or_offset(key_at as u64));
                };
                let f = &r.fields[i];
                if slots[i].is_some() {
                    return Err(Error::at(
                        ErrorKind::Data,
                        format!("field \"{}\" appears twice", f.name),
                        key_at as u64,
                    ));
                }
                let v = self
                    .node(f.schema, depth)
                    .map_err(|e| e.in_field(f.name.clone()))?;
                slots[i] = Some(v);
                next = i + 1;
                if self.comma_or_close(b'}')? {
                    break;
                }
            }
        }
        let mut fields = Vec::with_capacity(slots.len());
        for (f, slot) in r.fields.iter().zip(slots) {
            fields.push(match slot {
                Some(v) => v,
                None => missing_field(schema, r, f, depth, self.max_depth)
                    .map_err(|e| e.in_field(f.name.clone()))?,
            });
        }
        Ok(Value::Record(fields))
    }

    fn union(&mut self, node: &Node, u: &UnionSchema, depth: usize) -> Result<Value> {
        let schema = self.schema;
        let b = self.peek_byte();
        let depth = self.enter(depth)?;
        match b {
            Some(b'n') => {
                self.literal(node, "null")?;
                let (i, _) = null_branch(schema, u)?;
                Ok(Value::Union(i, Box::new(Value::Null)))
            }
            Some(b'{') => {
                self.pos += 1;
                if self.peek() == Some(b'}') {
                    return Err(not_a_union_value(schema, u, "an empty object"));
                }
                let key_at = self.skip_ws();
                let key = self.key()?;
                let (i, branch) =
                    branch_by_name(schema, u, &key).map_err(|e| e.or_offset(key_at as u64))?;
                let v = self.node(branch, depth)?;
                let after = self.skip_ws();
                if !self.comma_or_close(b'}')? {
                    return Err(not_a_union_value(
                        schema,
                        u,
                        "an object with more than one member",
                    )
                    .or_offset(after as u64));
                }
                Ok(Value::Union(i, Box::new(v)))
            }
            _ => {
                let found = self.found()?;
                Err(not_a_union_value(schema, u, found))
            }
        }
    }

    #[inline]
    fn enter(&self, depth: usize) -> Result<usize> {
        if depth >= self.max_depth {
            return Err(too_deep(self.max_depth, Some(self.pos as u64)));
        }
        Ok(depth + 1)
    }

    // ------------------------------------------------------------------------- JSON syntax

    /// Skips whitespace; returns the new position.
    #[inline]
    fn skip_ws(&mut self) -> usize {
        let bytes = self.text.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(self.pos) {
            self.pos += 1;
        }
        self.pos
    }

    /// The next byte after whitespace.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.peek_byte()
    }

    #[inline]
    fn peek_byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// After a member: `true` at the closing bracket (consumed), `false` after a comma.
    fn comma_or_close(&mut self, close: u8) -> Result<bool> {
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            None => Err(self.eof()),
            Some(_) => Err(self.syntax(if close == b']' {
                "expected ',' or ']' after an array item"
            } else {
                "expected ',' or '}' after an object member"
            })),
        }
    }

    /// An object key and its colon.
    fn key(&mut self) -> Result<Cow<'a, str>> {
        match self.peek() {
            Some(b'"') => {}
            None => return Err(self.eof()),
            Some(_) => return Err(self.syntax("expected a string (an object key)")),
        }
        let key = self.string()?;
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok(key)
            }
            None => Err(self.eof()),
            Some(_) => Err(self.syntax("expected ':' after an object key")),
        }
    }

    fn literal(&mut self, node: &Node, word: &'static str) -> Result<()> {
        let rest = self.text.as_bytes().get(self.pos..).unwrap_or_default();
        let word = word.as_bytes();
        if rest.starts_with(word) {
            self.pos += word.len();
            return Ok(());
        }
        if word.starts_with(rest) {
            return Err(self.eof_at(self.text.len()));
        }
        if rest.first() == word.first() {
            return Err(self.syntax("invalid literal"));
        }
        Err(self.unexpected(node))
    }

    /// A JSON number: its text and whether it is an integer (no fraction, no exponent).
    fn number(&mut self) -> Result<(&'a str, bool)> {
        let text = self.text;
        let bytes = text.as_bytes();
        let start = self.pos;
        let mut i = self.pos;
        let digits = |i: &mut usize| {
            while let Some(b'0'..=b'9') = bytes.get(*i) {
                *i += 1;
            }
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => digits(&mut i),
            None => return Err(self.eof_at(i)),
            Some(_) => return Err(self.syntax_at("invalid number", i)),
        }
        let mut integral = true;
        if bytes.get(i) == Some(&b'.') {
            integral = false;
            i += 1;
            match bytes.get(i) {
                Some(b'0'..=b'9') => digits(&mut i),
                None => return Err(self.eof_at(i)),
                Some(_) => return Err(self.syntax_at("invalid number: no digit after '.'", i)),
            }
        }
        if let Some(b'e' | b'E') = bytes.get(i) {
            integral = false;
            i += 1;
            if let Some(b'+' | b'-') = bytes.get(i) {
                i += 1;
            }
            match bytes.get(i) {
                Some(b'0'..=b'9') => digits(&mut i),
                None => return Err(self.eof_at(i)),
                Some(_) => {
                    return Err(self.syntax_at("invalid number: no digit in the exponent", i))
                }
            }
        }
        self.pos = i;
        // Every byte from `start` to `i` is ASCII, so both are char boundaries.
        Ok((&text[start..i], integral))
    }

    /// A JSON string (at its opening quote), borrowed from the text unless it has escapes.
    fn string(&mut self) -> Result<Cow<'a, str>> {
        let text = self.text;
        let bytes = text.as_bytes();
        self.pos += 1;
        let start = self.pos;
        // Positions where scanning stops are ASCII bytes, hence char boundaries: slicing there
        // cannot split a character.
        loop {
            match bytes.get(self.pos) {
                None => return Err(self.eof()),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Borrowed(&text[start..self.pos - 1]));
                }
                Some(b'\\') => break,
                Some(&b) if b < 0x20 => return Err(self.control_in_string(b)),
                Some(_) => self.pos += 1,
            }
        }
        let mut out = String::with_capacity(self.pos - start + 16);
        out.push_str(&text[start..self.pos]);
        loop {
            match bytes.get(self.pos) {
                None => return Err(self.eof()),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = self.escape()?;
                    out.push(c);
                }
                Some(&b) if b < 0x20 => return Err(self.control_in_string(b)),
                Some(_) => {
                    let run = self.pos;
                    while let Some(&b) = bytes.get(self.pos) {
                        if b == b'"' || b == b'\\' || b < 0x20 {
                            break;
                        }
                        self.pos += 1;
                    }
                    out.push_str(&text[run..self.pos]);
                }
            }
        }
    }

    /// One escape, after its backslash.
    fn escape(&mut self) -> Result<char> {
        let at = self.pos - 1;
        let Some(&b) = self.text.as_bytes().get(self.pos) else {
            return Err(self.eof());
        };
        self.pos += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                match hi {
                    0xd800..=0xdbff => {
                        // A high surrogate must be followed by an escaped low one.
                        let bytes = self.text.as_bytes();
                        if bytes.get(self.pos) != Some(&b'\\')
                            || bytes.get(self.pos + 1) != Some(&b'u')
                        {
                            return Err(self.syntax_at("unpaired surrogate in a string escape", at));
                        }
                        self.pos += 2;
                        let lo = self.hex4()?;
                        if !(0xdc00..=0xdfff).contains(&lo) {
                            return Err(self.syntax_at("unpaired surrogate in a string escape", at));
                        }
                        let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                        char::from_u32(c).ok_or_else(|| self.syntax_at("invalid escape", at))?
                    }
                    0xdc00..=0xdfff => {
                        return Err(self.syntax_at("unpaired surrogate in a string escape", at))
                    }
                    c => char::from_u32(c).ok_or_else(|| self.syntax_at("invalid escape", at))?,
                }
            }
            _ => return Err(self.syntax_at("invalid escape in a string", at)),
        })
    }

    fn hex4(&mut self) -> Result<u32> {
        let mut v = 0;
        for _ in 0..4 {
            let Some(&b) = self.text.as_bytes().get(self.pos) else {
                return Err(self.eof());
            };
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(self.syntax("invalid \\u escape: expected 4 hex digits")),
            };
            v = v * 16 + u32::from(d);
            self.pos += 1;
        }
        Ok(v)
    }

    // ------------------------------------------------------------------------------ errors

    /// What the next token is, for "expected X, found Y"; an error itself at the end of the
    /// text or on a character that starts no JSON value.
    fn found(&self) -> Result<&'static str> {
        Ok(match self.peek_byte() {
            None => return Err(self.eof()),
            Some(b'"') => "a string",
            Some(b'{') => "an object",
            Some(b'[') => "an array",
            Some(b't' | b'f') => "a boolean",
            Some(b'n') => "null",
            Some(b'-' | b'0'..=b'9') => "a number",
            Some(_) => return Err(self.syntax("expected a JSON value")),
        })
    }

    #[cold]
    #[inline(never)]
    fn unexpected(&self, node: &Node) -> Error {
        match self.found() {
            Ok(found) => expected_found(node, found).or_offset(self.pos as u64),
            Err(e) => e,
        }
    }

    #[cold]
    #[inline(never)]
    fn eof(&self) -> Error {
        self.eof_at(self.pos)
    }

    #[cold]
    #[inline(never)]
    fn eof_at(&self, at: usize) -> Error {
        Error::at(ErrorKind::Eof, "unexpected end of the JSON text", at as u64)
    }

    #[cold]
    #[inline(never)]
    fn syntax(&self, what: &'static str) -> Error {
        self.syntax_at(what, self.pos)
    }

    #[cold]
    #[inline(never)]
    fn syntax_at(&self, what: &'static str, at: usize) -> Error {
        let near = self.text.get(at..).and_then(|s| s.chars().next());
        let msg = match near {
            Some(c) => format!("invalid JSON: {what} (found {c:?})"),
            None => format!("invalid JSON: {what}"),
        };
        Error::at(ErrorKind::Data, msg, at as u64)
    }

    #[cold]
    #[inline(never)]
    fn control_in_string(&self, b: u8) -> Error {
        Error::at(
            ErrorKind::Data,
            format!("invalid JSON: control character U+{b:04X} in a string must be escaped"),
            self.pos as u64,
        )
    }

    #[cold]
    #[inline(never)]
    fn bad_number(&self, text: &str) -> Error {
        Error::data(format!("invalid number {text}"))
    }
}

/// `the string "..."` for messages, cut short when long.
fn found_string(s: &str) -> String {
    if s.chars().count() <= 40 {
        format!("the string {s:?}")
    } else {
        "a string".to_owned()
    }
}

impl Iterator for JsonReader<'_> {
    type Item = Result<Value>;

    fn next(&mut self) -> Option<Result<Value>> {
        if self.done {
            return None;
        }
        match self.read_value() {
            Ok(Some(v)) => Some(Ok(v)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                // Where the next value would start after malformed text is anyone's guess.
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
