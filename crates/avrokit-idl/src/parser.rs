//! Tokens to declarations: a recursive-descent parser of the grammar of Java's `Idl.g4`.
//!
//! Types come out as schema JSON in the form Java writes them: a named type definition has its
//! simple `name` and an explicit `namespace` (`""` for the null one), and a reference to a named
//! type is its fullname, so every definition can be placed anywhere in the final document.
//! References are collected with their position, for the reader to check once every file is read.
//!
//! Doc comments follow Java's rules: a declaration (protocol, named type, field, variable,
//! message, parameter) takes the last doc comment directly before its first token; every other
//! doc comment is reported as out of place.

use serde_json::{Map, Value};

use crate::doc::doc_text;
use crate::error::{Error, Pos};
use crate::lexer::{DocComment, Tok, Token};

/// Attributes Java reserves on schemas, so that an annotation cannot set them.
const SCHEMA_RESERVED: &[&str] = &[
    "doc",
    "fields",
    "items",
    "name",
    "namespace",
    "size",
    "symbols",
    "values",
    "type",
    "aliases",
];
const FIELD_RESERVED: &[&str] = &["default", "doc", "name", "order", "type", "aliases"];
const PROTOCOL_RESERVED: &[&str] = &[
    "namespace",
    "protocol",
    "doc",
    "messages",
    "types",
    "errors",
];
const MESSAGE_RESERVED: &[&str] = &["doc", "response", "request", "errors", "one-way"];
/// Names a named type may not have (Java's `INVALID_TYPE_NAMES`).
const INVALID_TYPE_NAMES: &[&str] = &[
    "boolean",
    "int",
    "long",
    "float",
    "double",
    "bytes",
    "string",
    "null",
    "date",
    "time_ms",
    "timestamp_ms",
    "localtimestamp_ms",
    "uuid",
];

/// What an IDL file declares, in order.
pub(crate) struct ParsedFile {
    /// The protocol, for a file in protocol syntax.
    pub(crate) protocol: Option<ProtocolDecl>,
    /// The main schema (`schema T;`), for a file in schema syntax.
    pub(crate) main_schema: Option<(Value, Pos)>,
    pub(crate) items: Vec<Item>,
    /// Every reference to a named type (fullname, where, true for a `throws` clause).
    pub(crate) refs: Vec<Ref>,
    /// Doc comments that document nothing.
    pub(crate) stray_docs: Vec<Pos>,
}

pub(crate) struct ProtocolDecl {
    pub(crate) name: String,
    pub(crate) namespace: Option<String>,
    pub(crate) doc: Option<String>,
    pub(crate) props: Map<String, Value>,
}

pub(crate) struct Ref {
    pub(crate) fullname: String,
    pub(crate) pos: Pos,
    pub(crate) is_error: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImportKind {
    Idl,
    Protocol,
    Schema,
}

pub(crate) enum Item {
    Import {
        kind: ImportKind,
        path: String,
        pos: Pos,
    },
    Type(NamedDef),
    Message(MessageDef),
}

/// A named type definition.
pub(crate) struct NamedDef {
    pub(crate) fullname: String,
    pub(crate) json: Value,
    pub(crate) pos: Pos,
    /// Where each field is declared (records and errors).
    pub(crate) field_pos: Vec<Pos>,
}

pub(crate) struct MessageDef {
    pub(crate) name: String,
    pub(crate) json: Value,
    pub(crate) pos: Pos,
    pub(crate) param_pos: Vec<Pos>,
}

/// A type as parsed: its JSON, and whether it is the `T?` shorthand (`["null", T]`, whose null
/// moves last when a field's default is not null).
struct TypeExpr {
    json: Value,
    optional: bool,
}

/// Annotations of one element, split into the ones Java handles specially and the rest.
#[derive(Default)]
struct Props {
    namespace: Option<String>,
    aliases: Option<Vec<String>>,
    order: Option<&'static str>,
    props: Map<String, Value>,
    /// Where the first annotation is (for "may not be annotated" errors).
    first: Option<Pos>,
}

/// Which annotations an element handles specially.
#[derive(Clone, Copy)]
struct Special {
    namespace: bool,
    aliases: bool,
    order: bool,
}

const PLAIN: Special = Special {
    namespace: false,
    aliases: false,
    order: false,
};
const NAMED: Special = Special {
    namespace: true,
    aliases: true,
    order: false,
};

pub(crate) struct Parser<'a> {
    tokens: &'a [Token],
    docs: &'a [DocComment],
    used_docs: Vec<bool>,
    i: usize,
    depth: usize,
    max_depth: usize,
    /// Enclosing namespaces (`None` for the null namespace).
    namespaces: Vec<Option<String>>,
    refs: Vec<Ref>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(tokens: &'a [Token], docs: &'a [DocComment], max_depth: usize) -> Self {
        Parser {
            tokens,
            docs,
            used_docs: vec![false; docs.len()],
            i: 0,
            depth: 0,
            max_depth,
            namespaces: Vec::new(),
            refs: Vec::new(),
        }
    }

    // ------------------------------------------------------------------ token helpers

    fn tok(&self) -> &'a Token {
        // The lexer always ends the list with `Eof`, and `bump` never moves past it.
        &self.tokens[self.i.min(self.tokens.len() - 1)]
    }

    fn pos(&self) -> Pos {
        self.tok().pos
    }

    fn bump(&mut self) -> &'a Token {
        let t = self.tok();
        if self.i + 1 < self.tokens.len() {
            self.i += 1;
        }
        t
    }

    fn is_punct(&self, c: char) -> bool {
        self.tok().tok == Tok::Punct(c)
    }

    fn is_keyword(&self, kw: &str) -> bool {
        matches!(&self.tok().tok, Tok::Word { text, keyword: true } if text == kw)
    }

    fn unexpected(&self, expected: &str) -> Error {
        Error::at(
            self.pos(),
            format!("expected {expected}, found {}", self.tok().tok.describe()),
        )
    }

    fn expect_punct(&mut self, c: char) -> Result<Pos, Error> {
        if self.is_punct(c) {
            Ok(self.bump().pos)
        } else {
            Err(self.unexpected(&format!("'{c}'")))
        }
    }

    fn expect_keyword(&mut self, kw: &str) -> Result<(), Error> {
        if self.is_keyword(kw) {
            self.bump();
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{kw}'")))
        }
    }

    /// Any word (keywords included, as the grammar's `identifier`), backticks removed.
    fn identifier(&mut self) -> Result<(String, Pos), Error> {
        match &self.tok().tok {
            Tok::Word { text, .. } => {
                let t = self.bump();
                Ok((text.clone(), t.pos))
            }
            _ => Err(self.unexpected("an identifier")),
        }
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Error::at(
                self.pos(),
                format!("nested deeper than {} levels", self.max_depth),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// The doc comment of the declaration starting at token `start`: the last doc comment
    /// directly before it.
    fn doc_at(&mut self, start: usize) -> Option<String> {
        let range = self.tokens.get(start)?.docs.clone();
        let last = range.end.checked_sub(1).filter(|&i| i >= range.start)?;
        self.used_docs[last] = true;
        Some(doc_text(&self.docs[last].text))
    }

    fn namespace(&self) -> Option<&str> {
        self.namespaces.last().and_then(|n| n.as_deref())
    }

    /// `namespace.name` for a reference written `name` here (a dotted name is a fullname).
    fn fullname(&self, name: &str) -> String {
        match self.namespace() {
            Some(ns) if !name.contains('.') => format!("{ns}.{name}"),
            _ => name.to_owned(),
        }
    }

    // ------------------------------------------------------------------ file

    pub(crate) fn parse_file(mut self) -> Result<ParsedFile, Error> {
        let start = self.i;
        let props_at = self.pos();
        // Annotations come before a protocol or the first named type; look past them.
        let save = self.i;
        let mut lookahead = Props::default();
        self.annotations(&mut lookahead, NAMED, &[])?;
        let is_protocol = self.is_keyword("protocol");
        self.i = save;
        let mut items = Vec::new();
        let mut protocol = None;
        let mut main_schema = None;
        if is_protocol {
            protocol = Some(self.protocol(start, &mut items)?);
        } else {
            let _ = props_at;
            if self.is_keyword("namespace") {
                self.bump();
                let (ns, pos) = self.identifier()?;
                validate_namespace(&ns, pos)?;
                self.expect_punct(';')?;
                self.namespaces.push(Some(ns));
            }
            if self.is_keyword("schema") {
                let pos = self.bump().pos;
                let t = self.full_type()?;
                self.expect_punct(';')?;
                main_schema = Some((t.json, pos));
            }
            while self.tok().tok != Tok::Eof {
                if self.is_keyword("import") {
                    items.push(self.import()?);
                } else {
                    items.push(Item::Type(self.named_type()?));
                }
            }
        }
        if self.tok().tok != Tok::Eof {
            return Err(self.unexpected("the end of the file"));
        }
        let stray_docs = self
            .used_docs
            .iter()
            .zip(self.docs)
            .filter(|(used, _)| !**used)
            .map(|(_, d)| d.pos)
            .collect();
        Ok(ParsedFile {
            protocol,
            main_schema,
            items,
            refs: self.refs,
            stray_docs,
        })
    }

    fn protocol(&mut self, start: usize, items: &mut Vec<Item>) -> Result<ProtocolDecl, Error> {
        let special = Special {
            namespace: true,
            aliases: false,
            order: false,
        };
        let mut props = Props::default();
        self.annotations(&mut props, special, PROTOCOL_RESERVED)?;
        self.expect_keyword("protocol")?;
        let (ident, pos) = self.identifier()?;
        let (name, namespace) = split_name(&ident, props.namespace.as_deref(), pos)?;
        let doc = self.doc_at(start);
        self.namespaces.push(namespace.clone());
        self.expect_punct('{')?;
        while !self.is_punct('}') {
            if self.tok().tok == Tok::Eof {
                return Err(self.unexpected("'}' closing the protocol"));
            }
            if self.is_keyword("import") {
                items.push(self.import()?);
                continue;
            }
            // A named type or a message: both may start with annotations.
            let save = self.i;
            let mut skip = Props::default();
            self.annotations(&mut skip, PLAIN, &[])?;
            let is_type = ["record", "error", "enum", "fixed"]
                .iter()
                .any(|k| self.is_keyword(k));
            self.i = save;
            if is_type {
                items.push(Item::Type(self.named_type()?));
            } else {
                items.push(Item::Message(self.message()?));
            }
        }
        self.bump();
        self.namespaces.pop();
        Ok(ProtocolDecl {
            name,
            namespace,
            doc,
            props: props.props,
        })
    }

    fn import(&mut self) -> Result<Item, Error> {
        let pos = self.bump().pos;
        let kind = match &self.tok().tok {
            Tok::Word {
                text,
                keyword: true,
            } if text == "idl" => ImportKind::Idl,
            Tok::Word {
                text,
                keyword: true,
            } if text == "protocol" => ImportKind::Protocol,
            Tok::Word {
                text,
                keyword: true,
            } if text == "schema" => ImportKind::Schema,
            _ => return Err(self.unexpected("'idl', 'protocol' or 'schema' after 'import'")),
        };
        self.bump();
        let path = match &self.tok().tok {
            Tok::Str(s) => s.clone(),
            _ => return Err(self.unexpected("the file name to import, as a string")),
        };
        let path_pos = self.bump().pos;
        self.expect_punct(';')?;
        let _ = pos;
        Ok(Item::Import {
            kind,
            path,
            pos: path_pos,
        })
    }

    // ------------------------------------------------------------------ annotations, JSON

    /// `@name(json)*`, into `props`.
    fn annotations(
        &mut self,
        props: &mut Props,
        special: Special,
        reserved: &[&str],
    ) -> Result<(), Error> {
        while self.is_punct('@') {
            let at = self.bump().pos;
            props.first.get_or_insert(at);
            let (name, _) = self.identifier()?;
            self.expect_punct('(')?;
            let value_pos = self.pos();
            let value = self.json_value()?;
            self.expect_punct(')')?;
            match name.as_str() {
                "namespace" if special.namespace => match value {
                    Value::String(s) => props.namespace = Some(s),
                    _ => {
                        return Err(Error::at(
                            value_pos,
                            "@namespace(...) must contain a string",
                        ))
                    }
                },
                "aliases" if special.aliases => {
                    let list = match value {
                        Value::Array(items) => items
                            .into_iter()
                            .map(|v| match v {
                                Value::String(s) => Some(s),
                                _ => None,
                            })
                            .collect::<Option<Vec<_>>>(),
                        _ => None,
                    };
                    props.aliases = Some(list.ok_or_else(|| {
                        Error::at(value_pos, "@aliases(...) must contain an array of strings")
                    })?);
                }
                "order" if special.order => {
                    let order = value.as_str().map(str::to_ascii_uppercase);
                    props.order = Some(match order.as_deref() {
                        Some("ASCENDING") => "ascending",
                        Some("DESCENDING") => "descending",
                        Some("IGNORE") => "ignore",
                        _ => {
                            return Err(Error::at(
                                value_pos,
                                "@order(...) must contain \"ASCENDING\", \"DESCENDING\" or \
                                 \"IGNORE\"",
                            ))
                        }
                    });
                }
                _ if reserved.contains(&name.as_str()) => {
                    return Err(Error::at(
                        at,
                        format!("@{name} cannot be used here: \"{name}\" is a reserved attribute"),
                    ))
                }
                _ => {
                    props.props.insert(name, value);
                }
            }
        }
        Ok(())
    }

    fn json_value(&mut self) -> Result<Value, Error> {
        self.enter()?;
        let pos = self.pos();
        let v = match &self.tok().tok {
            Tok::Punct('{') => {
                self.bump();
                let mut m = Map::new();
                if !self.is_punct('}') {
                    loop {
                        let key = match &self.tok().tok {
                            Tok::Str(s) => s.clone(),
                            _ => return Err(self.unexpected("a string (an object key)")),
                        };
                        self.bump();
                        self.expect_punct(':')?;
                        let v = self.json_value()?;
                        m.insert(key, v);
                        if !self.is_punct(',') {
                            break;
                        }
                        self.bump();
                    }
                }
                self.expect_punct('}')?;
                Value::Object(m)
            }
            Tok::Punct('[') => {
                self.bump();
                let mut items = Vec::new();
                if !self.is_punct(']') {
                    loop {
                        items.push(self.json_value()?);
                        if !self.is_punct(',') {
                            break;
                        }
                        self.bump();
                    }
                }
                self.expect_punct(']')?;
                Value::Array(items)
            }
            Tok::Str(s) => {
                let v = Value::String(s.clone());
                self.bump();
                v
            }
            Tok::Int(text) => {
                let v = int_value(text).ok_or_else(|| {
                    Error::at(
                        pos,
                        format!("invalid integer {text} (out of the long range?)"),
                    )
                })?;
                self.bump();
                Value::from(v)
            }
            Tok::Float(text) => {
                let v = float_value(text)
                    .ok_or_else(|| Error::at(pos, format!("invalid number {text}")))?;
                self.bump();
                v
            }
            Tok::Word {
                text,
                keyword: true,
            } if text == "true" || text == "false" => {
                let v = Value::Bool(text == "true");
                self.bump();
                v
            }
            Tok::Word {
                text,
                keyword: true,
            } if text == "null" => {
                self.bump();
                Value::Null
            }
            _ => return Err(self.unexpected("a JSON value")),
        };
        self.leave();
        Ok(v)
    }

    // ------------------------------------------------------------------ named types

    fn named_type(&mut self) -> Result<NamedDef, Error> {
        let start = self.i;
        let mut props = Props::default();
        self.annotations(&mut props, NAMED, &[])?;
        let kw = match &self.tok().tok {
            Tok::Word {
                text,
                keyword: true,
            } if matches!(text.as_str(), "record" | "error" | "enum" | "fixed") => text.clone(),
            _ => return Err(self.unexpected("'record', 'error', 'enum' or 'fixed'")),
        };
        self.bump();
        let (ident, pos) = self.identifier()?;
        let (name, ns) = split_name(&ident, props.namespace.as_deref().or(self.namespace()), pos)?;
        if INVALID_TYPE_NAMES.contains(&name.as_str()) {
            return Err(Error::at(
                pos,
                format!("\"{name}\" is a type name of the IDL and cannot name a {kw}"),
            ));
        }
        let fullname = match &ns {
            Some(ns) => format!("{ns}.{name}"),
            None => name.clone(),
        };
        check_reserved(&props, SCHEMA_RESERVED)?;
        if kw == "enum" {
            check_reserved(&props, &["default"])?;
        }
        let mut m = Map::new();
        m.insert("type".into(), kw.as_str().into());
        m.insert("name".into(), name.into());
        m.insert("namespace".into(), ns.clone().unwrap_or_default().into());
        let mut field_pos = Vec::new();
        match kw.as_str() {
            "fixed" => {
                self.expect_punct('(')?;
                let size_pos = self.pos();
                let size = match &self.tok().tok {
                    Tok::Int(text) => int_value(text).filter(|s| {
                        (0..=i64::from(i32::MAX)).contains(s) && !has_long_suffix(text)
                    }),
                    _ => return Err(self.unexpected("the size of the fixed (an integer)")),
                }
                .ok_or_else(|| {
                    Error::at(
                        size_pos,
                        "the size of a fixed must be an int from 0 to 2^31-1",
                    )
                })?;
                self.bump();
                self.expect_punct(')')?;
                self.expect_punct(';')?;
                if let Some(doc) = self.doc_at(start) {
                    m.insert("doc".into(), doc.into());
                }
                m.insert("size".into(), size.into());
            }
            "enum" => {
                self.expect_punct('{')?;
                let mut symbols = Vec::new();
                if !self.is_punct('}') {
                    loop {
                        // Symbols may be annotated and documented; Java drops both.
                        let mut ignored = Props::default();
                        self.annotations(&mut ignored, PLAIN, &[])?;
                        let (symbol, _) = self.identifier()?;
                        symbols.push(Value::String(symbol));
                        if !self.is_punct(',') {
                            break;
                        }
                        self.bump();
                    }
                }
                self.expect_punct('}')?;
                let mut default = None;
                if self.is_punct('=') {
                    self.bump();
                    default = Some(self.identifier()?.0);
                    self.expect_punct(';')?;
                }
                if let Some(doc) = self.doc_at(start) {
                    m.insert("doc".into(), doc.into());
                }
                m.insert("symbols".into(), Value::Array(symbols));
                if let Some(d) = default {
                    m.insert("default".into(), d.into());
                }
            }
            _ => {
                if let Some(doc) = self.doc_at(start) {
                    m.insert("doc".into(), doc.into());
                }
                self.namespaces.push(ns.clone());
                self.expect_punct('{')?;
                let mut fields = Vec::new();
                while !self.is_punct('}') {
                    if self.tok().tok == Tok::Eof {
                        return Err(self.unexpected("'}' closing the record"));
                    }
                    self.field_declaration(&mut fields, &mut field_pos)?;
                }
                self.bump();
                self.namespaces.pop();
                m.insert("fields".into(), Value::Array(fields));
            }
        }
        for (k, v) in props.props {
            m.insert(k, v);
        }
        if let Some(aliases) = props.aliases {
            m.insert("aliases".into(), aliases.into());
        }
        Ok(NamedDef {
            fullname,
            json: Value::Object(m),
            pos,
            field_pos,
        })
    }

    /// `type var (= default)?, var ...;`: one field per variable.
    fn field_declaration(
        &mut self,
        fields: &mut Vec<Value>,
        field_pos: &mut Vec<Pos>,
    ) -> Result<(), Error> {
        let start = self.i;
        let default_doc = self.doc_at(start);
        let ty = self.full_type()?;
        loop {
            let (field, pos) = self.variable(&ty, default_doc.as_deref())?;
            fields.push(field);
            field_pos.push(pos);
            if !self.is_punct(',') {
                break;
            }
            self.bump();
        }
        self.expect_punct(';')?;
        Ok(())
    }

    /// A variable (field or parameter): `@annotations name (= default)?`.
    fn variable(
        &mut self,
        ty: &TypeExpr,
        default_doc: Option<&str>,
    ) -> Result<(Value, Pos), Error> {
        let start = self.i;
        let mut props = Props::default();
        let special = Special {
            namespace: false,
            aliases: true,
            order: true,
        };
        self.annotations(&mut props, special, FIELD_RESERVED)?;
        let (name, pos) = self.identifier()?;
        let doc = self
            .doc_at(start)
            .or_else(|| default_doc.map(str::to_owned));
        let default = if self.is_punct('=') {
            self.bump();
            Some(self.json_value()?)
        } else {
            None
        };
        let mut m = Map::new();
        m.insert("name".into(), name.into());
        let json = match (&ty.json, ty.optional, &default) {
            // `T?` with a non-null default: the null goes last.
            (Value::Array(branches), true, Some(d)) if !d.is_null() => {
                Value::Array(branches.iter().rev().cloned().collect())
            }
            (json, _, _) => json.clone(),
        };
        m.insert("type".into(), json);
        if let Some(doc) = doc {
            m.insert("doc".into(), doc.into());
        }
        if let Some(d) = default {
            m.insert("default".into(), d);
        }
        if let Some(order) = props.order {
            if order != "ascending" {
                m.insert("order".into(), order.into());
            }
        }
        if let Some(aliases) = props.aliases {
            m.insert("aliases".into(), aliases.into());
        }
        for (k, v) in props.props {
            m.insert(k, v);
        }
        Ok((Value::Object(m), pos))
    }

    // ------------------------------------------------------------------ messages

    fn message(&mut self) -> Result<MessageDef, Error> {
        let start = self.i;
        let mut props = Props::default();
        self.annotations(&mut props, PLAIN, MESSAGE_RESERVED)?;
        let doc = self.doc_at(start);
        let result_pos = self.pos();
        let response = if self.is_keyword("void") {
            self.bump();
            Value::from("null")
        } else {
            self.plain_type()?.json
        };
        let (name, pos) = self.identifier()?;
        self.expect_punct('(')?;
        let mut request = Vec::new();
        let mut param_pos = Vec::new();
        if !self.is_punct(')') {
            loop {
                let start = self.i;
                let default_doc = self.doc_at(start);
                let ty = self.full_type()?;
                let (param, ppos) = self.variable(&ty, default_doc.as_deref())?;
                request.push(param);
                param_pos.push(ppos);
                if !self.is_punct(',') {
                    break;
                }
                self.bump();
            }
        }
        self.expect_punct(')')?;
        let mut m = Map::new();
        if let Some(doc) = doc {
            m.insert("doc".into(), doc.into());
        }
        for (k, v) in props.props {
            m.insert(k, v);
        }
        m.insert("request".into(), Value::Array(request));
        if self.is_keyword("oneway") {
            self.bump();
            if response != "null" {
                return Err(Error::at(
                    result_pos,
                    format!("the one-way message '{name}' must return void"),
                ));
            }
            m.insert("response".into(), "null".into());
            m.insert("one-way".into(), true.into());
        } else {
            m.insert("response".into(), response);
            if self.is_keyword("throws") {
                self.bump();
                let mut errors = Vec::new();
                loop {
                    let (e, epos) = self.identifier()?;
                    let fullname = self.fullname(&e);
                    self.refs.push(Ref {
                        fullname: fullname.clone(),
                        pos: epos,
                        is_error: true,
                    });
                    errors.push(Value::String(fullname));
                    if !self.is_punct(',') {
                        break;
                    }
                    self.bump();
                }
                m.insert("errors".into(), Value::Array(errors));
            }
        }
        self.expect_punct(';')?;
        Ok(MessageDef {
            name,
            json: Value::Object(m),
            pos,
            param_pos,
        })
    }

    // ------------------------------------------------------------------ types

    /// `@annotations plainType`.
    fn full_type(&mut self) -> Result<TypeExpr, Error> {
        let mut props = Props::default();
        self.annotations(&mut props, PLAIN, SCHEMA_RESERVED)?;
        let mut t = self.plain_type()?;
        if props.props.is_empty() {
            return Ok(t);
        }
        let at = props.first.unwrap_or_else(|| self.pos());
        // On `T?` the annotations belong to `T`.
        let target = match (&mut t.json, t.optional) {
            (Value::Array(branches), true) => &mut branches[1],
            (json, _) => json,
        };
        match target {
            Value::String(s) if !is_primitive(s) => {
                return Err(Error::at(at, "type references may not be annotated"))
            }
            Value::String(s) => {
                let mut m = Map::new();
                m.insert("type".into(), s.as_str().into());
                *target = Value::Object(m);
            }
            Value::Array(_) => return Err(Error::at(at, "a union may not be annotated")),
            _ => {}
        }
        if let Value::Object(m) = target {
            for (k, v) in props.props {
                m.insert(k, v);
            }
        }
        Ok(t)
    }

    fn plain_type(&mut self) -> Result<TypeExpr, Error> {
        self.enter()?;
        let t = self.plain_type_inner()?;
        self.leave();
        Ok(t)
    }

    fn plain_type_inner(&mut self) -> Result<TypeExpr, Error> {
        let (text, keyword, pos) = match &self.tok().tok {
            Tok::Word { text, keyword } => (text.clone(), *keyword, self.pos()),
            _ => return Err(self.unexpected("a type")),
        };
        let plain = |json: Value| TypeExpr {
            json,
            optional: false,
        };
        if keyword {
            match text.as_str() {
                "array" | "map" => {
                    self.bump();
                    self.expect_punct('<')?;
                    let inner = self.full_type()?;
                    self.expect_punct('>')?;
                    let mut m = Map::new();
                    m.insert("type".into(), text.as_str().into());
                    let key = if text == "array" { "items" } else { "values" };
                    m.insert(key.into(), inner.json);
                    return Ok(plain(Value::Object(m)));
                }
                "union" => {
                    self.bump();
                    self.expect_punct('{')?;
                    let mut branches = Vec::new();
                    loop {
                        branches.push(self.full_type()?.json);
                        if !self.is_punct(',') {
                            break;
                        }
                        self.bump();
                    }
                    self.expect_punct('}')?;
                    return Ok(plain(Value::Array(branches)));
                }
                _ => {}
            }
        }
        self.bump();
        let json = match (keyword, text.as_str()) {
            (
                true,
                p @ ("boolean" | "int" | "long" | "float" | "double" | "bytes" | "string" | "null"),
            ) => Value::from(p),
            (true, "date") => logical("int", "date"),
            (true, "time_ms") => logical("int", "time-millis"),
            (true, "timestamp_ms") => logical("long", "timestamp-millis"),
            (true, "local_timestamp_ms") => logical("long", "local-timestamp-millis"),
            (true, "uuid") => logical("string", "uuid"),
            (true, "decimal") => {
                self.expect_punct('(')?;
                let precision = self.small_int("the precision")?;
                let scale = if self.is_punct(',') {
                    self.bump();
                    self.small_int("the scale")?
                } else {
                    0
                };
                self.expect_punct(')')?;
                let mut m = Map::new();
                m.insert("type".into(), "bytes".into());
                m.insert("logicalType".into(), "decimal".into());
                m.insert("precision".into(), precision.into());
                m.insert("scale".into(), scale.into());
                Value::Object(m)
            }
            _ => {
                let fullname = self.fullname(&text);
                self.refs.push(Ref {
                    fullname: fullname.clone(),
                    pos,
                    is_error: false,
                });
                Value::String(fullname)
            }
        };
        if self.is_punct('?') {
            self.bump();
            return Ok(TypeExpr {
                json: Value::Array(vec![Value::from("null"), json]),
                optional: true,
            });
        }
        Ok(plain(json))
    }

    fn small_int(&mut self, what: &str) -> Result<i64, Error> {
        let pos = self.pos();
        let v = match &self.tok().tok {
            Tok::Int(text) if !has_long_suffix(text) => int_value(text),
            _ => None,
        }
        .filter(|v| (0..=i64::from(i32::MAX)).contains(v))
        .ok_or_else(|| Error::at(pos, format!("{what} of a decimal must be an int from 0")))?;
        self.bump();
        Ok(v)
    }
}

fn logical(ty: &str, logical: &str) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), ty.into());
    m.insert("logicalType".into(), logical.into());
    Value::Object(m)
}

fn is_primitive(s: &str) -> bool {
    matches!(
        s,
        "null" | "boolean" | "int" | "long" | "float" | "double" | "bytes" | "string"
    )
}

fn check_reserved(props: &Props, reserved: &[&str]) -> Result<(), Error> {
    if let Some(k) = props.props.keys().find(|k| reserved.contains(&k.as_str())) {
        return Err(Error::at(
            props.first.unwrap_or(Pos {
                file: 0,
                line: 0,
                column: 0,
            }),
            format!("@{k} cannot be used here: \"{k}\" is a reserved attribute"),
        ));
    }
    Ok(())
}

fn validate_namespace(ns: &str, pos: Pos) -> Result<(), Error> {
    if ns.is_empty() || avrokit::schema::Name::is_valid_namespace(ns) {
        Ok(())
    } else {
        Err(Error::at(
            pos,
            format!(
                "invalid namespace \"{ns}\": expected names separated by dots, each matching \
                 [A-Za-z_][A-Za-z0-9_]*"
            ),
        ))
    }
}

/// A declared name, and its namespace: from the name when it has dots, else `namespace`.
fn split_name(
    ident: &str,
    namespace: Option<&str>,
    pos: Pos,
) -> Result<(String, Option<String>), Error> {
    let (name, ns) = match ident.rfind('.') {
        Some(dot) => (&ident[dot + 1..], Some(&ident[..dot])),
        None => (ident, namespace),
    };
    if !avrokit::schema::Name::is_valid_simple_name(name) {
        return Err(Error::at(
            pos,
            format!("invalid name \"{name}\": expected [A-Za-z_][A-Za-z0-9_]*"),
        ));
    }
    let ns = ns.filter(|ns| !ns.is_empty());
    if let Some(ns) = ns {
        validate_namespace(ns, pos)?;
    }
    Ok((name.to_owned(), ns.map(str::to_owned)))
}

fn has_long_suffix(text: &str) -> bool {
    text.ends_with(['l', 'L'])
}

/// An integer literal as Java's `Long.decode` reads it: decimal, `0x` hex, `0` octal.
fn int_value(text: &str) -> Option<i64> {
    let t: String = text.chars().filter(|&c| c != '_').collect();
    let t = t.trim_end_matches(['l', 'L']);
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (radix, digits) = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, h)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    let magnitude = i128::from_str_radix(digits, radix).ok()?;
    i64::try_from(if neg { -magnitude } else { magnitude }).ok()
}

/// A floating-point literal as Java's `Double.parseDouble` reads it. NaN and the infinities,
/// which JSON cannot hold, become the strings Avro uses for them.
fn float_value(text: &str) -> Option<Value> {
    let t = text.trim_end_matches(['f', 'F', 'd', 'D']);
    let t = if text.contains(['x', 'X']) { text } else { t };
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let v = match body {
        "NaN" => return Some("NaN".into()),
        "Infinity" => return Some(if neg { "-Infinity" } else { "Infinity" }.into()),
        b if b.starts_with("0x") || b.starts_with("0X") => hex_float(&b[2..])?,
        b => b.parse::<f64>().ok()?,
    };
    let v = if neg { -v } else { v };
    if v.is_finite() {
        serde_json::Number::from_f64(v).map(Value::Number)
    } else {
        Some(if v > 0.0 { "Infinity" } else { "-Infinity" }.into())
    }
}

/// `h.hhhp±e` (after `0x`), with an optional `f`/`d` suffix.
fn hex_float(s: &str) -> Option<f64> {
    let s = s.trim_end_matches(['f', 'F', 'd', 'D']);
    let (mantissa, exp) = s.split_once(['p', 'P'])?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut v = 0f64;
    for c in int.chars().chain(frac.chars()) {
        v = v * 16.0 + f64::from(c.to_digit(16)?);
    }
    let shift = exp.checked_sub(4 * i32::try_from(frac.len()).ok()?)?;
    Some(v * 2f64.powi(shift))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_decode_as_java() {
        assert_eq!(int_value("0x10"), Some(16));
        assert_eq!(int_value("010"), Some(8));
        assert_eq!(int_value("0"), Some(0));
        assert_eq!(int_value("-12L"), Some(-12));
        assert_eq!(int_value("9223372036854775807"), Some(i64::MAX));
        assert_eq!(int_value("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(int_value("9223372036854775808"), None);
        assert_eq!(int_value("09"), None);
    }

    #[test]
    fn floats_decode_as_java() {
        assert_eq!(float_value("1.5"), Some(Value::from(1.5)));
        assert_eq!(float_value("2f"), Some(Value::from(2.0)));
        assert_eq!(float_value("-Infinity"), Some(Value::from("-Infinity")));
        assert_eq!(float_value("NaN"), Some(Value::from("NaN")));
        assert_eq!(float_value("0x1.8p1"), Some(Value::from(3.0)));
        assert_eq!(float_value("1e400"), Some(Value::from("Infinity")));
    }
}
