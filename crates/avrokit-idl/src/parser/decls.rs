//! Declarations: named types (record, error, enum, fixed), fields, variables and messages.

use serde_json::{Map, Value};

use super::json::{has_long_suffix, int_value};
use super::{
    check_reserved, split_name, MessageDef, NamedDef, Parser, Props, Ref, Special, TypeExpr,
    FIELD_RESERVED, INVALID_TYPE_NAMES, MESSAGE_RESERVED, NAMED, PLAIN, SCHEMA_RESERVED,
};
use crate::error::{Error, Pos};
use crate::lexer::Tok;

impl Parser<'_> {
    pub(super) fn named_type(&mut self) -> Result<NamedDef, Error> {
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
    pub(super) fn field_declaration(
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
    pub(super) fn variable(
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

    pub(super) fn message(&mut self) -> Result<MessageDef, Error> {
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
}
