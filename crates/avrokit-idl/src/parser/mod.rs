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

mod decls;
mod json;
mod types;

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
