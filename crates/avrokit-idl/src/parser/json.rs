//! Annotations and JSON values: `@name(json)` properties, default values, and the literal
//! rules (Java's `Long.decode` and `Double.parseDouble`) they use.

use serde_json::{Map, Value};

use super::{Parser, Props, Special};
use crate::error::Error;
use crate::lexer::Tok;

impl Parser<'_> {
    /// `@name(json)*`, into `props`.
    pub(super) fn annotations(
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

    pub(super) fn json_value(&mut self) -> Result<Value, Error> {
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
}

pub(super) fn has_long_suffix(text: &str) -> bool {
    text.ends_with(['l', 'L'])
}

/// An integer literal as Java's `Long.decode` reads it: decimal, `0x` hex, `0` octal.
pub(super) fn int_value(text: &str) -> Option<i64> {
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
