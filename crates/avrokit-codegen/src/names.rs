//! Rust identifiers from Avro names: the conventions (`UpperCamelCase` types and variants,
//! `snake_case` fields), keywords escaped, names unique within their scope.

use std::collections::HashSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Keywords of every edition, which a field name must be escaped from (`r#type`).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers either.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// A type or variant name: `UpperCamelCase` of `name` (an Avro name, or a dotted path of
/// them), never empty nor a keyword.
pub(crate) fn type_ident(name: &str) -> String {
    let mut s = name.replace('.', "_").to_upper_camel_case();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'T');
    }
    if NOT_RAW.contains(&s.as_str()) {
        s.push_str("Type");
    }
    s
}

/// A field name: `snake_case` of `name`, `r#` before a keyword, `_` after the keywords that
/// cannot be raw.
pub(crate) fn field_ident(name: &str) -> String {
    let mut s = name.to_snake_case();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, "field_");
    }
    if NOT_RAW.contains(&s.as_str()) {
        s.push('_');
    } else if KEYWORDS.contains(&s.as_str()) {
        s.insert_str(0, "r#");
    }
    s
}

/// Identifiers taken in one scope (a module's types, a struct's fields).
#[derive(Default)]
pub(crate) struct Scope {
    taken: HashSet<String>,
}

impl Scope {
    /// `ident`, or `ident` with the first free number after it when it is taken.
    pub(crate) fn claim(&mut self, ident: String) -> String {
        let bare = |s: &str| s.trim_start_matches("r#").to_owned();
        if self.taken.insert(bare(&ident)) {
            return ident;
        }
        let base = bare(&ident);
        let sep = if base.chars().any(|c| c.is_ascii_uppercase()) {
            ""
        } else {
            "_"
        };
        (2..)
            .map(|i| format!("{base}{sep}{i}"))
            .find(|c| self.taken.insert(c.clone()))
            .unwrap_or(base)
    }
}

/// The name as Rust code reads it, without `r#`.
pub(crate) fn unraw(ident: &str) -> &str {
    ident.trim_start_matches("r#")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idents() {
        assert_eq!(type_ident("com.example.fooBar"), "ComExampleFooBar");
        assert_eq!(type_ident("HTTPRequest"), "HttpRequest");
        assert_eq!(type_ident("self"), "SelfType");
        assert_eq!(type_ident("_"), "T");
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("fooBar"), "foo_bar");
        assert_eq!(field_ident("_"), "field_");
        let mut s = Scope::default();
        assert_eq!(s.claim("a".into()), "a");
        assert_eq!(s.claim("a".into()), "a_2");
        assert_eq!(s.claim("A".into()), "A");
        assert_eq!(s.claim("A".into()), "A2");
    }
}
