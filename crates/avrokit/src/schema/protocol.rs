//! Avro protocols (`.avpr`): named types and messages, read and written as Java does.
//!
//! A protocol's types and the schemas of its messages are parsed together by the schema parser,
//! in the protocol's namespace, into one arena: a message refers to the types by node id, like a
//! record field does. There is no RPC transport here, only the protocol document.
//!
//! Writing follows Java's `Protocol.toJson`: key order `protocol`, `namespace`, `doc`, custom
//! properties, `types`, `messages`; a type is written in full the first time it is met (in the
//! order the types were defined) and by name after that, names relative to the protocol's
//! namespace. [`Protocol::md5`] is the MD5 of that JSON as Java's compact Jackson writer prints
//! it, which is what Java's `Protocol.getMD5()` (and the Avro RPC handshake) uses.
//!
//! # Examples
//! ```
//! use avrokit::schema::Protocol;
//! let p = Protocol::parse_str(r#"{
//!   "protocol": "Echo", "namespace": "demo",
//!   "types": [{"type": "record", "name": "Ping", "fields": [{"name": "n", "type": "long"}]}],
//!   "messages": {"ping": {"request": [{"name": "p", "type": "Ping"}], "response": "Ping"}}
//! }"#)?;
//! assert_eq!(p.fullname(), "demo.Echo");
//! let ping = p.message("ping").unwrap();
//! assert_eq!(p.schema(ping.response).root().name().unwrap().fullname(), "demo.Ping");
//! assert_eq!(p.types()[0].to_json()["name"], "Ping");
//! # Ok::<(), avrokit::Error>(())
//! ```

use std::collections::HashSet;
use std::fmt;

use serde_json::{Map, Value};

use super::parse::{custom_props, json_type, parse_values_in};
use super::write::SharedWriter;
use super::{fingerprint, Field, Name, NodeId, NodeKind, Schema};
use crate::error::{Error, Result};

/// Attributes of a protocol object that are not custom properties (Java's `PROTOCOL_RESERVED`).
const PROTOCOL_RESERVED: &[&str] = &[
    "namespace",
    "protocol",
    "doc",
    "messages",
    "types",
    "errors",
];
/// Attributes of a message object that are not custom properties (Java's `MESSAGE_RESERVED`).
const MESSAGE_RESERVED: &[&str] = &["doc", "response", "request", "errors", "one-way"];

/// An Avro protocol: a name, named types and messages.
///
/// All schemas of a protocol share one arena: [`Message::request`] fields, [`Message::response`]
/// and [`Message::errors`] are node ids into it, turned into schemas by [`Protocol::schema`].
#[derive(Clone)]
pub struct Protocol {
    name: String,
    namespace: Option<String>,
    doc: Option<String>,
    props: Vec<(String, Value)>,
    /// The named types, in the order they are defined (a type nested in another comes after
    /// it, types first defined in messages come last), as Java keeps them.
    types: Vec<NodeId>,
    messages: Vec<Message>,
    /// A schema of the shared arena (its root is of no interest).
    arena: Schema,
    /// One record per message, holding its parameters as fields (not among `types`).
    requests: Vec<NodeId>,
}

/// One message of a [`Protocol`].
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The message name.
    pub name: String,
    /// Documentation.
    pub doc: Option<String>,
    /// Custom attributes, in document order.
    pub props: Vec<(String, serde_json::Value)>,
    /// The parameters, as record fields (name, type, default, ...).
    pub request: Vec<Field>,
    /// The response type (`null` for a one-way message).
    pub response: NodeId,
    /// The declared error types (records with `is_error`), without the implicit `"string"`
    /// system error every message may return.
    pub errors: Vec<NodeId>,
    /// True for a one-way message: no response, no errors.
    pub one_way: bool,
}

/// What each schema input given to the parser is, to report errors where they are.
enum Role<'j> {
    Placeholder,
    Type(usize),
    Request(&'j str),
    Response(&'j str),
    Error(&'j str, usize),
}

impl Protocol {
    /// Parses a protocol from its JSON text (an `.avpr` file).
    ///
    /// # Errors
    /// [`ErrorKind::Schema`](crate::ErrorKind::Schema) with a JSON path (`$.types[2].fields[0]`,
    /// `$.messages.ping.request[1].type`) when the text is not a valid protocol.
    pub fn parse_str(json: &str) -> Result<Protocol> {
        let value: Value = serde_json::from_str(json).map_err(|e| {
            Error::with_source(
                crate::ErrorKind::Schema,
                format!("invalid protocol JSON: {e}"),
                e,
            )
        })?;
        Protocol::parse_json(&value)
    }

    /// Parses a protocol from an already parsed JSON value.
    ///
    /// # Errors
    /// As [`Protocol::parse_str`].
    pub fn parse_json(json: &Value) -> Result<Protocol> {
        parse(json).map_err(|e| e.in_field("$"))
    }

    /// The protocol name, as written in the `protocol` attribute.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The namespace, `None` for the null namespace.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// `namespace.name` (or the name when there is no namespace or the name has dots).
    pub fn fullname(&self) -> String {
        Name::with_namespace(&self.name, self.namespace())
            .fullname()
            .to_owned()
    }

    /// Documentation.
    pub fn doc(&self) -> Option<&str> {
        self.doc.as_deref()
    }

    /// Custom attributes, in document order.
    pub fn props(&self) -> &[(String, Value)] {
        &self.props
    }

    /// A custom attribute by key.
    pub fn prop(&self, key: &str) -> Option<&Value> {
        self.props.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The named types, in definition order.
    pub fn types(&self) -> Vec<Schema> {
        self.types.iter().map(|&id| self.arena.at(id)).collect()
    }

    /// The named type with this fullname.
    pub fn type_named(&self, fullname: &str) -> Option<Schema> {
        let id = self.arena.lookup(fullname)?;
        self.types.contains(&id).then(|| self.arena.at(id))
    }

    /// The messages, in document order.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The message called `name`.
    pub fn message(&self, name: &str) -> Option<&Message> {
        self.messages.iter().find(|m| m.name == name)
    }

    /// The schema of a node of this protocol's arena (a parameter type, a response, an error).
    ///
    /// # Panics
    /// If `id` does not come from this protocol.
    pub fn schema(&self, id: NodeId) -> Schema {
        self.arena.at(id)
    }

    /// The protocol as JSON, keys in Java's order. A protocol without namespace has no
    /// `namespace` attribute (Java writes `"namespace": null`; see [`Protocol::to_java_text`]).
    pub fn to_json(&self) -> Value {
        self.write(false)
    }

    /// The protocol's JSON text exactly as Java's `Protocol.toString()` prints it: compact,
    /// Jackson's escapes, Java's number formatting, `"namespace":null` when there is none.
    pub fn to_java_text(&self) -> String {
        let mut out = String::new();
        java_json(&self.write(true), &mut out);
        out
    }

    /// The MD5 digest of [`Protocol::to_java_text`], as Java's `Protocol.getMD5()`.
    pub fn md5(&self) -> [u8; 16] {
        fingerprint::md5(self.to_java_text().as_bytes())
    }

    fn write(&self, null_namespace: bool) -> Value {
        let nodes = self.arena.nodes();
        let ns = self.namespace.as_deref();
        let mut m = Map::new();
        m.insert("protocol".into(), self.name.as_str().into());
        match ns {
            Some(ns) => {
                m.insert("namespace".into(), ns.into());
            }
            None if null_namespace => {
                m.insert("namespace".into(), Value::Null);
            }
            None => {}
        }
        if let Some(doc) = &self.doc {
            m.insert("doc".into(), doc.as_str().into());
        }
        for (k, v) in &self.props {
            m.insert(k.clone(), v.clone());
        }
        let mut w = SharedWriter::new(nodes);
        let mut types = Vec::with_capacity(self.types.len());
        for &id in &self.types {
            if !w.is_written(id) {
                types.push(java_key_order(w.write(id, ns)));
            }
        }
        m.insert("types".into(), Value::Array(types));
        // Messages refer to every type by name, as Java writes them against all known types.
        for &id in &self.types {
            w.mark_written(id);
        }
        let mut messages = Map::new();
        for (msg, &request) in self.messages.iter().zip(&self.requests) {
            let mut mm = Map::new();
            if let Some(doc) = &msg.doc {
                mm.insert("doc".into(), doc.as_str().into());
            }
            for (k, v) in &msg.props {
                mm.insert(k.clone(), v.clone());
            }
            let fields = match w.write(request, ns) {
                Value::Object(mut record) => record.remove("fields").unwrap_or_default(),
                _ => Value::Array(Vec::new()),
            };
            mm.insert("request".into(), fields);
            if msg.one_way {
                mm.insert("response".into(), "null".into());
                mm.insert("one-way".into(), true.into());
            } else {
                mm.insert("response".into(), java_key_order(w.write(msg.response, ns)));
                if !msg.errors.is_empty() {
                    let errors = msg.errors.iter().map(|&e| w.write(e, ns)).collect();
                    mm.insert("errors".into(), Value::Array(errors));
                }
            }
            messages.insert(msg.name.clone(), Value::Object(mm));
        }
        m.insert("messages".into(), Value::Object(messages));
        Value::Object(m)
    }
}

impl fmt::Debug for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Protocol({})", self.to_json())
    }
}

/// The protocol's JSON (as [`Protocol::to_json`]).
impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

impl std::str::FromStr for Protocol {
    type Err = Error;
    fn from_str(s: &str) -> Result<Protocol> {
        Protocol::parse_str(s)
    }
}

/// Protocols are equal when their JSON is.
impl PartialEq for Protocol {
    fn eq(&self, other: &Protocol) -> bool {
        self.to_json() == other.to_json()
    }
}

fn optional_string<'j>(obj: &'j Map<String, Value>, key: &'static str) -> Result<Option<&'j str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(Error::schema(format!(
            "\"{key}\" must be a string, found {}",
            json_type(other)
        ))
        .in_field(key)),
    }
}

/// A record name prefix that no string of `json` contains, so that the records standing for
/// message requests cannot clash with (or be referred to by) anything in the document.
fn unused_prefix(json: &Value) -> String {
    let mut strings = Vec::new();
    let mut stack = vec![json];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => strings.push(s.as_str()),
            Value::Array(items) => stack.extend(items),
            Value::Object(entries) => {
                strings.extend(entries.keys().map(String::as_str));
                stack.extend(entries.values());
            }
            _ => {}
        }
    }
    let mut prefix = String::from("__request");
    while strings.iter().any(|s| s.contains(prefix.as_str())) {
        prefix.insert(0, '_');
    }
    prefix
}

fn parse(json: &Value) -> Result<Protocol> {
    let Value::Object(obj) = json else {
        return Err(Error::schema(format!(
            "a protocol must be a JSON object, found {}",
            json_type(json)
        )));
    };
    let name = match obj.get("protocol") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::String(_)) | None => {
            return Err(Error::schema("a protocol needs a \"protocol\" name"))
        }
        Some(other) => {
            return Err(Error::schema(format!(
                "the protocol name must be a string, found {}",
                json_type(other)
            ))
            .in_field("protocol"))
        }
    };
    let namespace = match optional_string(obj, "namespace")? {
        None | Some("") => None,
        Some(ns) if Name::is_valid_namespace(ns) => Some(ns.to_owned()),
        Some(ns) => {
            return Err(Error::schema(format!(
                "invalid namespace \"{ns}\": expected names separated by dots, each matching \
                 [A-Za-z_][A-Za-z0-9_]*"
            ))
            .in_field("namespace"))
        }
    };
    let doc = optional_string(obj, "doc")?.map(str::to_owned);
    let props = custom_props(obj, PROTOCOL_RESERVED);

    let types_json: &[Value] = match obj.get("types") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(Error::schema(format!(
                "\"types\" must be an array of named types, found {}",
                json_type(other)
            ))
            .in_field("types"))
        }
    };
    let empty = Map::new();
    let messages_json = match obj.get("messages") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(Error::schema(format!(
                "\"messages\" must be an object of messages by name, found {}",
                json_type(other)
            ))
            .in_field("messages"))
        }
    };

    // Every schema of the protocol goes to the parser in one batch: a placeholder (so that the
    // arena is never empty), the types, then each message's request, response and errors.
    let prefix = unused_prefix(json);
    let mut inputs = vec![Value::from("null")];
    let mut roles = vec![Role::Placeholder];
    for (i, t) in types_json.iter().enumerate() {
        if !t.is_object() {
            return Err(Error::schema(format!(
                "a protocol type must be a schema object, found {}",
                json_type(t)
            ))
            .in_index(i as u64)
            .in_field("types"));
        }
        inputs.push(t.clone());
        roles.push(Role::Type(i));
    }
    struct Pending<'j> {
        name: &'j str,
        doc: Option<String>,
        props: Vec<(String, Value)>,
        one_way: bool,
        request: usize,
        response: usize,
        errors: std::ops::Range<usize>,
    }
    let mut pending = Vec::with_capacity(messages_json.len());
    for (k, (name, msg)) in messages_json.iter().enumerate() {
        let at = |e: Error| e.in_field(name.clone()).in_field("messages");
        let m = message_header(name, msg).map_err(at)?;
        let request = inputs.len();
        let mut record = Map::new();
        record.insert("type".into(), "record".into());
        record.insert("name".into(), format!("{prefix}{k}").into());
        record.insert("fields".into(), Value::Array(m.request.to_vec()));
        inputs.push(Value::Object(record));
        roles.push(Role::Request(name));
        let response = inputs.len();
        inputs.push(m.response.cloned().unwrap_or_else(|| "null".into()));
        roles.push(Role::Response(name));
        let first_error = inputs.len();
        for (j, e) in m.errors.iter().enumerate() {
            inputs.push(e.clone());
            roles.push(Role::Error(name, j));
        }
        pending.push(Pending {
            name,
            doc: m.doc,
            props: m.props,
            one_way: m.one_way,
            request,
            response,
            errors: first_error..inputs.len(),
        });
    }

    let schemas =
        parse_values_in(&inputs, namespace.as_deref()).map_err(|(i, e)| match roles[i] {
            Role::Placeholder => e,
            Role::Type(t) => e.in_index(t as u64).in_field("types"),
            Role::Request(m) => e
                .rename_outer_field("fields", "request")
                .in_field(m.to_owned())
                .in_field("messages"),
            Role::Response(m) => e
                .in_field("response")
                .in_field(m.to_owned())
                .in_field("messages"),
            Role::Error(m, j) => e
                .in_index(j as u64)
                .in_field("errors")
                .in_field(m.to_owned())
                .in_field("messages"),
        })?;
    let arena = schemas[0].clone();

    let requests: Vec<NodeId> = pending
        .iter()
        .map(|p| schemas[p.request].root_id())
        .collect();
    let request_set: HashSet<NodeId> = requests.iter().copied().collect();
    let types = arena
        .nodes()
        .iter()
        .enumerate()
        .filter(|(_, n)| n.name().is_some())
        .map(|(i, _)| NodeId(i as u32))
        .filter(|id| !request_set.contains(id))
        .collect();

    let mut messages = Vec::with_capacity(pending.len());
    for p in pending {
        let at = |e: Error| e.in_field(p.name.to_owned()).in_field("messages");
        let NodeKind::Record(request) = schemas[p.request].root().kind() else {
            return Err(at(Error::schema(
                "internal error: a request is not a record",
            )));
        };
        let response = schemas[p.response].root_id();
        if p.one_way && !matches!(arena.node(response).kind, NodeKind::Null) {
            return Err(at(Error::schema(
                "the response of a one-way message must be \"null\"",
            )
            .in_field("response")));
        }
        let mut errors = Vec::with_capacity(p.errors.len());
        for (j, i) in p.errors.clone().enumerate() {
            let id = schemas[i].root_id();
            match &arena.node(id).kind {
                NodeKind::Record(r) if r.is_error => errors.push(id),
                other => {
                    return Err(at(Error::schema(format!(
                        "a message may only declare error types, found {}",
                        arena.node(id).name().map_or_else(
                            || format!("a {}", other.type_name()),
                            |n| format!("the {} \"{n}\"", other.type_name())
                        )
                    ))
                    .in_index(j as u64)
                    .in_field("errors")));
                }
            }
        }
        messages.push(Message {
            name: p.name.to_owned(),
            doc: p.doc,
            props: p.props,
            request: request.fields.clone(),
            response,
            errors,
            one_way: p.one_way,
        });
    }
    Ok(Protocol {
        name,
        namespace,
        doc,
        props,
        types,
        messages,
        arena,
        requests,
    })
}

struct MessageHeader<'j> {
    doc: Option<String>,
    props: Vec<(String, Value)>,
    request: &'j [Value],
    response: Option<&'j Value>,
    errors: &'j [Value],
    one_way: bool,
}

/// Validates a message's attributes (everything but its schemas, which the parser checks).
fn message_header<'j>(name: &str, msg: &'j Value) -> Result<MessageHeader<'j>> {
    let Value::Object(obj) = msg else {
        return Err(Error::schema(format!(
            "a message must be an object, found {}",
            json_type(msg)
        )));
    };
    if !Name::is_valid_simple_name(name) {
        return Err(Error::schema(format!(
            "invalid message name \"{name}\": expected [A-Za-z_][A-Za-z0-9_]*"
        )));
    }
    let request = match obj.get("request") {
        Some(Value::Array(params)) => params.as_slice(),
        Some(other) => {
            return Err(Error::schema(format!(
                "\"request\" must be an array of parameters, found {}",
                json_type(other)
            ))
            .in_field("request"))
        }
        None => return Err(Error::schema("a message needs a \"request\" (an array)")),
    };
    // Duplicate parameter names are reported here, by name, rather than as the duplicate
    // fields of the record that holds them.
    let mut seen = HashSet::with_capacity(request.len());
    for (i, param) in request.iter().enumerate() {
        if let Some(Value::String(p)) = param.get("name") {
            if !seen.insert(p.as_str()) {
                return Err(Error::schema(format!("duplicate parameter name \"{p}\""))
                    .in_field("name")
                    .in_index(i as u64)
                    .in_field("request"));
            }
        }
    }
    let one_way = match obj.get("one-way") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(Error::schema(format!(
                "\"one-way\" must be a boolean, found {}",
                json_type(other)
            ))
            .in_field("one-way"))
        }
    };
    let response = obj.get("response");
    if !one_way && response.is_none() {
        return Err(Error::schema(
            "a message needs a \"response\" (unless it is \"one-way\")",
        ));
    }
    let errors = match obj.get("errors") {
        None => &[][..],
        Some(_) if one_way => {
            return Err(Error::schema("a one-way message cannot declare errors").in_field("errors"))
        }
        Some(Value::Array(errors)) => errors.as_slice(),
        Some(other) => {
            return Err(Error::schema(format!(
                "\"errors\" must be an array of error type names, found {}",
                json_type(other)
            ))
            .in_field("errors"))
        }
    };
    for (i, e) in errors.iter().enumerate() {
        if !e.is_string() {
            return Err(Error::schema(format!(
                "an error must be named by a string, found {}",
                json_type(e)
            ))
            .in_index(i as u64)
            .in_field("errors"));
        }
    }
    Ok(MessageHeader {
        doc: optional_string(obj, "doc")?.map(str::to_owned),
        props: custom_props(obj, MESSAGE_RESERVED),
        request,
        response,
        errors,
        one_way,
    })
}

/// Moves `aliases` after the custom properties of every named type definition in a written
/// schema, where Java writes it (`type`, `name`, `namespace`, `doc`, the kind's attributes,
/// properties, `aliases`). Only schema positions are visited: defaults and properties are data.
fn java_key_order(schema: Value) -> Value {
    match schema {
        Value::Array(branches) => Value::Array(branches.into_iter().map(java_key_order).collect()),
        Value::Object(mut m) => {
            let ty = m
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let ty = ty.as_str();
            match ty {
                "record" | "error" => {
                    if let Some(Value::Array(fields)) = m.get_mut("fields") {
                        for f in fields {
                            if let Some(t) = f.get_mut("type") {
                                *t = java_key_order(t.take());
                            }
                        }
                    }
                }
                "array" | "map" => {
                    let key = if ty == "array" { "items" } else { "values" };
                    if let Some(t) = m.get_mut(key) {
                        *t = java_key_order(t.take());
                    }
                }
                _ => {}
            }
            if matches!(ty, "record" | "error" | "enum" | "fixed") {
                if let Some(aliases) = m.shift_remove("aliases") {
                    m.insert("aliases".into(), aliases);
                }
            }
            Value::Object(m)
        }
        other => other,
    }
}

/// Compact JSON as Java's Jackson `JsonGenerator` writes it (see [`java_string`],
/// [`java_double`]).
pub(crate) fn java_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => java_double(f, out),
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => java_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                java_json(item, out);
            }
            out.push(']');
        }
        Value::Object(entries) => {
            out.push('{');
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                java_string(k, out);
                out.push(':');
                java_json(item, out);
            }
            out.push('}');
        }
    }
}

/// A JSON string with Jackson's escapes: `\"`, `\\`, `\b \t \n \f \r`, other control characters
/// as `\u00XX` with upper-case hex; everything else (`/`, non-ASCII) as is.
fn java_string(s: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 15] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A double as Java's `Double.toString` prints it (shortest round-trip digits): plain notation
/// with at least one fraction digit for magnitudes in `[1e-3, 1e7)`, otherwise `d.dddE±n`.
/// NaN and the infinities are strings, as Jackson quotes them by default.
fn java_double(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("\"NaN\"");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
        return;
    }
    if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // `{:e}` gives the shortest digits that round-trip: "1.2345e-5", "3e10".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if f < 0.0 {
        out.push('-');
    }
    if (-3..7).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        if digits.len() > 1 {
            out.push_str(&digits[1..]);
        } else {
            out.push('0');
        }
        out.push('E');
        out.push_str(&exp.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn double(f: f64) -> String {
        let mut s = String::new();
        java_double(f, &mut s);
        s
    }

    #[test]
    fn doubles_print_as_java_does() {
        // Values and Java's `Double.toString` of each.
        let cases = [
            (1.0, "1.0"),
            (-1.5, "-1.5"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (1234567.0, "1234567.0"),
            (12345678.0, "1.2345678E7"),
            (1e20, "1.0E20"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (-0.0, "-0.0"),
            (f64::MAX, "1.7976931348623157E308"),
        ];
        for (f, java) in cases {
            assert_eq!(double(f), java, "{f:e}");
        }
    }

    #[test]
    fn strings_escape_as_jackson_does() {
        let mut s = String::new();
        java_string("a\"b\\c/\u{1}\n\u{7f}é", &mut s);
        assert_eq!(s, "\"a\\\"b\\\\c/\\u0001\\n\u{7f}é\"");
    }

    #[test]
    fn request_names_avoid_every_string() {
        let json = serde_json::json!({"a": ["__request", "x___request"]});
        let prefix = unused_prefix(&json);
        assert_eq!(prefix, "____request");
    }
}
