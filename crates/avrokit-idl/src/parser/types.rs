//! Type expressions: primitives, logical types, references, arrays, maps, unions, nullable.

use serde_json::{Map, Value};

use super::json::{has_long_suffix, int_value};
use super::{Parser, Props, Ref, TypeExpr, PLAIN, SCHEMA_RESERVED};
use crate::error::Error;
use crate::lexer::Tok;

impl Parser<'_> {
    /// `@annotations plainType`.
    pub(super) fn full_type(&mut self) -> Result<TypeExpr, Error> {
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

    pub(super) fn plain_type(&mut self) -> Result<TypeExpr, Error> {
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
