//! Writing a [`Value`] in Avro's JSON encoding: one schema walk, two outputs (text or a
//! `serde_json::Value` tree) behind the [`Out`] trait, so both apply exactly the same rules.

use crate::error::Result;
use crate::schema::{Node, NodeId, NodeKind, Schema};
use crate::value::{branch_at, branch_for, check_fields, enter, write_scalar, ScalarOut, Value};

/// The events of one JSON value, in document order.
///
/// `key` and `item` get the member's index so that text output knows where commas go without
/// keeping a stack; `end_object` gets the member count so that pretty output knows an empty
/// object (`{ }`).
pub(super) trait Out {
    fn null(&mut self);
    fn boolean(&mut self, v: bool);
    fn long(&mut self, v: i64);
    fn float(&mut self, v: f32);
    fn double(&mut self, v: f64);
    fn string(&mut self, s: &str);
    /// Bytes as a string whose code points U+0000..U+00FF are the bytes.
    fn bytes(&mut self, b: &[u8]);
    fn begin_object(&mut self);
    fn key(&mut self, index: usize, key: &str);
    fn end_object(&mut self, len: usize);
    fn begin_array(&mut self);
    fn item(&mut self, index: usize);
    fn end_array(&mut self);
}

/// Writes `value` as a datum of the schema's root; errors carry the path of the mismatch.
pub(super) fn write_root<O: Out>(out: &mut O, value: &Value, schema: &Schema) -> Result<()> {
    let root = schema.root_id();
    walk(out, value, schema, root, 0).map_err(|e| match schema.node(root).name() {
        Some(n) => e.in_field(n.name().to_owned()),
        None => e,
    })
}

/// The union branch name the JSON encoding uses: a named type's full name, otherwise the type
/// name (`"int"`, `"array"`, `"map"`, ...).
pub(super) fn branch_name(node: &Node) -> &str {
    match node.name() {
        Some(n) => n.fullname(),
        None => node.kind.type_name(),
    }
}

/// The value rules are those of [`write_value`](crate::value::write_value): a value must
/// match its schema, with the same few conveniences (numeric promotions, a logical type's
/// underlying value, a bare value for a union).
fn walk<O: Out>(
    out: &mut O,
    value: &Value,
    schema: &Schema,
    id: NodeId,
    depth: usize,
) -> Result<()> {
    let node = schema.node(id);
    match (&node.kind, value) {
        (NodeKind::Record(r), Value::Record(fields)) => {
            check_fields(r, fields)?;
            let depth = enter(depth)?;
            out.begin_object();
            for (i, (f, v)) in r.fields.iter().zip(fields).enumerate() {
                out.key(i, &f.name);
                walk(out, v, schema, f.schema, depth).map_err(|e| e.in_field(f.name.clone()))?;
            }
            out.end_object(fields.len());
        }
        (NodeKind::Union(u), Value::Union(i, v)) => {
            write_branch(out, v, schema, branch_at(u, *i)?, enter(depth)?)?;
        }
        (NodeKind::Union(u), v) => {
            let (_, branch) = branch_for(schema, u, v)?;
            write_branch(out, v, schema, branch, enter(depth)?)?;
        }
        (NodeKind::Array(a), Value::Array(items)) => {
            let depth = enter(depth)?;
            out.begin_array();
            for (i, item) in items.iter().enumerate() {
                out.item(i);
                walk(out, item, schema, a.items, depth).map_err(|e| e.in_index(i as u64))?;
            }
            out.end_array();
        }
        (NodeKind::Map(m), Value::Map(entries)) => {
            let depth = enter(depth)?;
            out.begin_object();
            for (i, (k, v)) in entries.iter().enumerate() {
                out.key(i, k);
                walk(out, v, schema, m.values, depth).map_err(|e| e.in_key(k))?;
            }
            out.end_object(entries.len());
        }
        _ => leaf(out, value, node)?,
    }
    Ok(())
}

/// A value of a type that nests nothing, by the binary writer's rules. Kept out of `walk` so
/// that its locals do not weigh on every level of a deep value.
#[inline(never)]
fn leaf<O: Out>(out: &mut O, value: &Value, node: &Node) -> Result<()> {
    write_scalar(&mut Scalars(out), value, node)
}

/// A JSON output seen as the scalar writer's output: ints are JSON numbers like longs, fixed
/// bytes are bytes, and an enum is its symbol.
struct Scalars<'a, O>(&'a mut O);

impl<O: Out> ScalarOut for Scalars<'_, O> {
    fn null(&mut self) -> Result<()> {
        self.0.null();
        Ok(())
    }
    fn boolean(&mut self, v: bool) -> Result<()> {
        self.0.boolean(v);
        Ok(())
    }
    fn int(&mut self, v: i32) -> Result<()> {
        self.0.long(i64::from(v));
        Ok(())
    }
    fn long(&mut self, v: i64) -> Result<()> {
        self.0.long(v);
        Ok(())
    }
    fn float(&mut self, v: f32) -> Result<()> {
        self.0.float(v);
        Ok(())
    }
    fn double(&mut self, v: f64) -> Result<()> {
        self.0.double(v);
        Ok(())
    }
    fn bytes(&mut self, b: &[u8]) -> Result<()> {
        self.0.bytes(b);
        Ok(())
    }
    fn string(&mut self, s: &str) -> Result<()> {
        self.0.string(s);
        Ok(())
    }
    fn fixed(&mut self, b: &[u8]) -> Result<()> {
        self.0.bytes(b);
        Ok(())
    }
    fn symbol(&mut self, _index: u32, symbol: &str) -> Result<()> {
        self.0.string(symbol);
        Ok(())
    }
}

/// A union's value: `null` for the null branch, `{"<branch name>": value}` otherwise.
fn write_branch<O: Out>(
    out: &mut O,
    value: &Value,
    schema: &Schema,
    branch: NodeId,
    depth: usize,
) -> Result<()> {
    let node = schema.node(branch);
    if matches!(node.kind, NodeKind::Null) {
        return walk(out, value, schema, branch, depth);
    }
    out.begin_object();
    out.key(0, branch_name(node));
    walk(out, value, schema, branch, depth)?;
    out.end_object(1);
    Ok(())
}

// ------------------------------------------------------------------------------ text output

/// JSON text appended to a `String`, compact or pretty.
///
/// Compact output has no whitespace at all, so a datum is one line. Pretty output follows
/// Jackson's default pretty printer, which Java's `avro-tools tojson --pretty` uses: objects
/// one member per line indented by two spaces with `" : "` after the key, arrays on one line
/// as `[ 1, 2 ]`, empty containers as `{ }` and `[ ]`.
pub(super) struct TextOut<'a> {
    pub(super) buf: &'a mut String,
    pub(super) pretty: bool,
    /// Object nesting, for pretty indentation (arrays stay on one line, as in Jackson).
    pub(super) indent: usize,
}

impl TextOut<'_> {
    fn newline_indent(&mut self) {
        self.buf.push('\n');
        for _ in 0..self.indent {
            self.buf.push_str("  ");
        }
    }
}

impl Out for TextOut<'_> {
    #[inline]
    fn null(&mut self) {
        self.buf.push_str("null");
    }

    #[inline]
    fn boolean(&mut self, v: bool) {
        self.buf.push_str(if v { "true" } else { "false" });
    }

    #[inline]
    fn long(&mut self, v: i64) {
        self.buf.push_str(itoa::Buffer::new().format(v));
    }

    #[inline]
    fn float(&mut self, v: f32) {
        match nonfinite_f32(v) {
            Some(s) => push_quoted_ascii(self.buf, s),
            None => self.buf.push_str(zmij::Buffer::new().format_finite(v)),
        }
    }

    #[inline]
    fn double(&mut self, v: f64) {
        match nonfinite_f64(v) {
            Some(s) => push_quoted_ascii(self.buf, s),
            None => self.buf.push_str(zmij::Buffer::new().format_finite(v)),
        }
    }

    #[inline]
    fn string(&mut self, s: &str) {
        escape_str(self.buf, s);
    }

    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        escape_bytes(self.buf, b);
    }

    fn begin_object(&mut self) {
        self.buf.push('{');
        self.indent += 1;
    }

    fn key(&mut self, index: usize, key: &str) {
        if index > 0 {
            self.buf.push(',');
        }
        if self.pretty {
            self.newline_indent();
        }
        escape_str(self.buf, key);
        self.buf.push_str(if self.pretty { " : " } else { ":" });
    }

    fn end_object(&mut self, len: usize) {
        self.indent = self.indent.saturating_sub(1);
        if self.pretty {
            if len > 0 {
                self.newline_indent();
            } else {
                self.buf.push(' ');
            }
        }
        self.buf.push('}');
    }

    fn begin_array(&mut self) {
        self.buf.push('[');
    }

    fn item(&mut self, index: usize) {
        if index > 0 {
            self.buf.push(',');
        }
        if self.pretty {
            self.buf.push(' ');
        }
    }

    fn end_array(&mut self) {
        if self.pretty {
            self.buf.push(' ');
        }
        self.buf.push(']');
    }
}

fn push_quoted_ascii(buf: &mut String, s: &str) {
    buf.push('"');
    buf.push_str(s);
    buf.push('"');
}

/// NaN and the infinities, which JSON numbers cannot write, as the strings Java's
/// Jackson-based encoder uses.
#[inline]
pub(super) fn nonfinite_f64(v: f64) -> Option<&'static str> {
    if v.is_finite() {
        None
    } else if v.is_nan() {
        Some("NaN")
    } else if v > 0.0 {
        Some("Infinity")
    } else {
        Some("-Infinity")
    }
}

#[inline]
pub(super) fn nonfinite_f32(v: f32) -> Option<&'static str> {
    nonfinite_f64(f64::from(v))
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Escapes for ASCII bytes: 0 = written as is, `u` = `\u00XX`, anything else = `\` + that byte.
/// U+007F is escaped too: it is a control character, and the expected output escapes it.
static ASCII_ESCAPE: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[0x7f] = b'u';
    t
};

#[inline]
fn push_escape(buf: &mut String, c: u32) {
    match c {
        0..=0x7f if ASCII_ESCAPE[c as usize] != b'u' => {
            buf.push('\\');
            buf.push(char::from(ASCII_ESCAPE[c as usize]));
        }
        _ => {
            buf.push_str("\\u");
            for shift in [12, 8, 4, 0] {
                buf.push(char::from(HEX[((c >> shift) & 0xf) as usize]));
            }
        }
    }
}

/// Writes `s` as a JSON string: non-ASCII raw, except the control characters U+0000-U+001F,
/// U+007F-U+009F and the line separators U+2028/U+2029, which are `\u`-escaped so that no tool
/// splits a record in two (serde_json escapes only U+0000-U+001F).
pub(super) fn escape_str(buf: &mut String, s: &str) {
    buf.reserve(s.len() + 2);
    buf.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    loop {
        // The common path is one table look-up per byte.
        while i < bytes.len() && !STOP[bytes[i] as usize] {
            i += 1;
        }
        let Some(&b) = bytes.get(i) else {
            break;
        };
        // Stops are ASCII bytes and the lead bytes C2 and E2, always char boundaries, so the
        // slices below cannot split a character.
        let (code, len) = if b < 0x80 {
            (u32::from(b), 1)
        } else if b == 0xc2 && matches!(bytes.get(i + 1), Some(0x80..=0x9f)) {
            // C2 80..C2 9F is U+0080..U+009F: the second byte is the code point.
            (u32::from(bytes[i + 1]), 2)
        } else if b == 0xe2
            && bytes.get(i + 1) == Some(&0x80)
            && matches!(bytes.get(i + 2), Some(0xa8 | 0xa9))
        {
            // E2 80 A8 / E2 80 A9 is U+2028 / U+2029.
            (0x2000 + u32::from(bytes[i + 2] - 0x80), 3)
        } else {
            // Another character starting with C2 or E2: nothing to escape.
            i += 1;
            continue;
        };
        buf.push_str(&s[start..i]);
        push_escape(buf, code);
        i += len;
        start = i;
    }
    buf.push_str(&s[start..]);
    buf.push('"');
}

/// Bytes where [`escape_str`] must look closer: ASCII needing an escape, and C2 and E2, the
/// lead bytes of U+0080-U+009F and of U+2028/U+2029.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 128 {
        t[i] = ASCII_ESCAPE[i] != 0;
        i += 1;
    }
    t[0xc2] = true;
    t[0xe2] = true;
    t
};

/// Writes bytes as a JSON string of code points U+0000-U+00FF, escaped as [`escape_str`] does.
pub(super) fn escape_bytes(buf: &mut String, b: &[u8]) {
    buf.reserve(b.len() + 2);
    buf.push('"');
    for &x in b {
        let c = u32::from(x);
        if (x < 0x80 && ASCII_ESCAPE[x as usize] != 0) || (0x80..0xa0).contains(&c) {
            push_escape(buf, c);
        } else {
            buf.push(char::from(x));
        }
    }
    buf.push('"');
}

// ------------------------------------------------------------------------------ tree output

/// Builds a `serde_json::Value`. Containers under construction wait on a stack.
pub(super) struct TreeOut {
    stack: Vec<Frame>,
    pub(super) result: Option<serde_json::Value>,
}

enum Frame {
    Object(serde_json::Map<String, serde_json::Value>, String),
    Array(Vec<serde_json::Value>),
}

impl TreeOut {
    pub(super) fn new() -> TreeOut {
        TreeOut {
            stack: Vec::new(),
            result: None,
        }
    }

    fn put(&mut self, v: serde_json::Value) {
        match self.stack.last_mut() {
            Some(Frame::Object(map, key)) => {
                // A repeated map key keeps its first position and its last value, as
                // `serde_json::Map::insert` does.
                map.insert(std::mem::take(key), v);
            }
            Some(Frame::Array(items)) => items.push(v),
            None => self.result = Some(v),
        }
    }
}

impl Out for TreeOut {
    fn null(&mut self) {
        self.put(serde_json::Value::Null);
    }

    fn boolean(&mut self, v: bool) {
        self.put(serde_json::Value::Bool(v));
    }

    fn long(&mut self, v: i64) {
        self.put(serde_json::Value::from(v));
    }

    fn float(&mut self, v: f32) {
        let json = match nonfinite_f32(v) {
            Some(s) => serde_json::Value::from(s),
            // A JSON number holds an f64; `f64::from(0.1f32)` would print as
            // 0.10000000149011612. The f64 nearest to the shortest f32 text prints as that text
            // and still reads back as the same f32.
            None => {
                let shortest = zmij::Buffer::new().format_finite(v).parse::<f64>();
                number(shortest.unwrap_or(f64::from(v)))
            }
        };
        self.put(json);
    }

    fn double(&mut self, v: f64) {
        let json = match nonfinite_f64(v) {
            Some(s) => serde_json::Value::from(s),
            None => number(v),
        };
        self.put(json);
    }

    fn string(&mut self, s: &str) {
        self.put(serde_json::Value::String(s.to_owned()));
    }

    fn bytes(&mut self, b: &[u8]) {
        self.put(serde_json::Value::String(
            b.iter().map(|&x| char::from(x)).collect(),
        ));
    }

    fn begin_object(&mut self) {
        self.stack
            .push(Frame::Object(serde_json::Map::new(), String::new()));
    }

    fn key(&mut self, _index: usize, key: &str) {
        if let Some(Frame::Object(_, k)) = self.stack.last_mut() {
            key.clone_into(k);
        }
    }

    fn end_object(&mut self, _len: usize) {
        if let Some(Frame::Object(map, _)) = self.stack.pop() {
            self.put(serde_json::Value::Object(map));
        }
    }

    fn begin_array(&mut self) {
        self.stack.push(Frame::Array(Vec::new()));
    }

    fn item(&mut self, _index: usize) {}

    fn end_array(&mut self) {
        if let Some(Frame::Array(items)) = self.stack.pop() {
            self.put(serde_json::Value::Array(items));
        }
    }
}

/// A finite f64 as a JSON number (callers handle the non-finite values).
fn number(v: f64) -> serde_json::Value {
    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
}
