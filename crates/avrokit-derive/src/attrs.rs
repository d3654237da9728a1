//! The attributes the derive reads: serde's and its own `#[avro(...)]`, on types and fields.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{Attribute, LitStr};

pub(crate) const LOGICAL_TYPES: &[&str] = &[
    "decimal",
    "big-decimal",
    "uuid",
    "date",
    "time-millis",
    "time-micros",
    "timestamp-millis",
    "timestamp-micros",
    "timestamp-nanos",
    "local-timestamp-millis",
    "local-timestamp-micros",
    "local-timestamp-nanos",
    "duration",
];

/// Collects errors so that all of them are reported at once.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    pub(crate) fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[derive(Default)]
pub(crate) struct ContainerAttrs {
    pub(crate) name: Option<String>,
    pub(crate) namespace: Option<String>,
    /// `#[avro(doc)]`, `#[avro(alias)]`s, `#[avro(props)]`.
    pub(crate) extra: Extra,
    /// `#[avro(enum_default = "SYMBOL")]`: the default symbol, when it is not the last (where
    /// `#[serde(other)]` can mark it).
    pub(crate) enum_default: Option<String>,
    pub(crate) rename_all: Option<String>,
    pub(crate) default: bool,
    pub(crate) transparent: bool,
    /// `#[avro(no_codec)]`: derive no working codec (the type's codec reports an error, and
    /// readers and writers use serde).
    pub(crate) no_codec: bool,
}

#[derive(Default)]
pub(crate) struct FieldAttrs {
    pub(crate) rename: Option<String>,
    pub(crate) skip: bool,
    /// `#[serde(default)]` (`Some(None)`) or `#[serde(default = "path")]`.
    pub(crate) serde_default: Option<Option<syn::ExprPath>>,
    pub(crate) skip_serializing_if: bool,
    pub(crate) bytes: bool,
    pub(crate) other: bool,
    pub(crate) logical: Option<(String, Span)>,
    pub(crate) precision: Option<u32>,
    pub(crate) scale: Option<u32>,
    pub(crate) avro_default: Option<LitStr>,
    pub(crate) fixed_name: Option<LitStr>,
    /// `#[avro(schema = "...")]`: the field type's schema as Avro JSON, named types by name.
    pub(crate) schema: Option<LitStr>,
    /// `#[avro(order = "...")]`.
    pub(crate) order: Option<String>,
    pub(crate) extra: Extra,
}

/// Attributes any named type or field may carry besides its own: an exact `doc` (instead of
/// the doc comments), `alias`es and custom properties (`props`, a JSON object).
#[derive(Default)]
pub(crate) struct Extra {
    pub(crate) doc: Option<String>,
    pub(crate) aliases: Vec<String>,
    pub(crate) props: Option<LitStr>,
}

impl Extra {
    /// Parses `doc`, `alias` or `props`; false when `meta` is none of them.
    pub(crate) fn parse(&mut self, meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<bool> {
        if meta.path.is_ident("doc") {
            self.doc = Some(lit_str(meta)?.value());
        } else if meta.path.is_ident("alias") {
            self.aliases.push(lit_str(meta)?.value());
        } else if meta.path.is_ident("props") {
            let s = lit_str(meta)?;
            match serde_json::from_str::<serde_json::Value>(&s.value()) {
                Ok(serde_json::Value::Object(_)) => self.props = Some(s),
                _ => {
                    return Err(syn::Error::new(
                        s.span(),
                        "`props` is a JSON object of custom attributes, like                          r#\"{\"java-class\": \"X\"}\"#",
                    ))
                }
            }
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// Statements adding the aliases and properties to `obj` (a JSON map in scope).
    pub(crate) fn insert(&self, obj: &Tokens) -> Tokens {
        let p = quote!(::avrokit::__private);
        let aliases = &self.aliases;
        let aliases = (!aliases.is_empty())
            .then(|| quote!(#obj.insert("aliases".into(), #p::json!([#(#aliases),*]));));
        let props = self.props.as_ref().map(|text| {
            quote!(if let #p::Json::Object(extra) = #p::json_text(#text) {
                #obj.extend(extra);
            })
        });
        quote!(#aliases #props)
    }
}

pub(crate) fn lit_str(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// Skips the value of a serde attribute we do not interpret.
pub(crate) fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

/// `rename = "x"` or `rename(serialize = "x", deserialize = "y")` (the serialize name wins).
pub(crate) fn rename_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(lit_str(meta)?.value()));
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        let v = lit_str(&inner)?.value();
        if inner.path.is_ident("serialize") || name.is_none() {
            name = Some(v);
        }
        Ok(())
    })?;
    Ok(name)
}

pub(crate) fn container_attrs(
    attrs: &[Attribute],
    is_enum: bool,
    errs: &mut Errors,
) -> ContainerAttrs {
    let mut c = ContainerAttrs::default();
    for attr in attrs {
        let r = if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    c.name = rename_value(&meta)?;
                } else if meta.path.is_ident("rename_all") {
                    c.rename_all = rename_value(&meta)?;
                } else if meta.path.is_ident("default") {
                    c.default = true;
                    skip_value(&meta)?;
                } else if meta.path.is_ident("transparent") {
                    c.transparent = true;
                } else if is_enum
                    && (meta.path.is_ident("tag")
                        || meta.path.is_ident("content")
                        || meta.path.is_ident("untagged"))
                {
                    return Err(meta.error(
                        "AvroSchema supports externally tagged enums only (Avro unions); \
                         remove `tag`, `content` or `untagged`",
                    ));
                } else {
                    skip_value(&meta)?;
                }
                Ok(())
            })
        } else if attr.path().is_ident("avro") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("namespace") {
                    c.namespace = Some(lit_str(&meta)?.value());
                } else if meta.path.is_ident("name") {
                    c.name = Some(lit_str(&meta)?.value());
                } else if meta.path.is_ident("no_codec") {
                    c.no_codec = true;
                } else if meta.path.is_ident("enum_default") && is_enum {
                    c.enum_default = Some(lit_str(&meta)?.value());
                } else if !c.extra.parse(&meta)? {
                    return Err(meta.error(
                        "unknown avro attribute on a type: expected `namespace`, `name`, \
                         `doc`, `alias`, `props`, `no_codec` or (on an enum) `enum_default`",
                    ));
                }
                Ok(())
            })
        } else {
            Ok(())
        };
        if let Err(e) = r {
            errs.push(e);
        }
    }
    if let Some(ns) = &c.namespace {
        if !ns.is_empty() && !ns.split('.').all(valid_name) {
            errs.push(syn::Error::new(
                Span::call_site(),
                format!(
                    "invalid Avro namespace {ns:?}: dot-separated names of [A-Za-z_][A-Za-z0-9_]*"
                ),
            ));
        }
    }
    c
}

pub(crate) fn field_attrs(attrs: &[Attribute], errs: &mut Errors) -> FieldAttrs {
    let mut f = FieldAttrs::default();
    for attr in attrs {
        let r = if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                let p = &meta.path;
                if p.is_ident("rename") {
                    f.rename = rename_value(&meta)?;
                } else if p.is_ident("skip") || p.is_ident("skip_serializing") {
                    f.skip = true;
                } else if p.is_ident("skip_serializing_if") {
                    f.skip_serializing_if = true;
                    skip_value(&meta)?;
                } else if p.is_ident("default") {
                    if meta.input.peek(syn::Token![=]) {
                        let path = lit_str(&meta)?.parse::<syn::ExprPath>()?;
                        f.serde_default = Some(Some(path));
                    } else {
                        f.serde_default = Some(None);
                    }
                } else if p.is_ident("with") || p.is_ident("serialize_with") {
                    let v = lit_str(&meta)?.value();
                    f.bytes = v == "serde_bytes" || v.ends_with("::serde_bytes");
                } else if p.is_ident("other") {
                    f.other = true;
                } else if p.is_ident("flatten") {
                    return Err(meta.error(
                        "AvroSchema does not support #[serde(flatten)]: Avro records have a \
                         fixed set of fields",
                    ));
                } else {
                    skip_value(&meta)?;
                }
                Ok(())
            })
        } else if attr.path().is_ident("avro") {
            attr.parse_nested_meta(|meta| {
                let p = &meta.path;
                if p.is_ident("logical_type") {
                    let s = lit_str(&meta)?;
                    if !LOGICAL_TYPES.contains(&s.value().as_str()) {
                        return Err(syn::Error::new(
                            s.span(),
                            format!(
                                "unknown Avro logical type {:?}; expected one of: {}",
                                s.value(),
                                LOGICAL_TYPES.join(", ")
                            ),
                        ));
                    }
                    f.logical = Some((s.value(), s.span()));
                } else if p.is_ident("precision") {
                    f.precision = Some(meta.value()?.parse::<syn::LitInt>()?.base10_parse()?);
                } else if p.is_ident("scale") {
                    f.scale = Some(meta.value()?.parse::<syn::LitInt>()?.base10_parse()?);
                } else if p.is_ident("default") {
                    f.avro_default = Some(lit_str(&meta)?);
                } else if p.is_ident("rename") {
                    f.rename = Some(lit_str(&meta)?.value());
                } else if p.is_ident("fixed_name") {
                    let s = lit_str(&meta)?;
                    if !s.value().split('.').all(valid_name) {
                        return Err(syn::Error::new(
                            s.span(),
                            format!(
                                "{:?} is not a valid Avro name: dot-separated names of \
                                 [A-Za-z_][A-Za-z0-9_]*",
                                s.value()
                            ),
                        ));
                    }
                    f.fixed_name = Some(s);
                } else if p.is_ident("schema") {
                    let s = lit_str(&meta)?;
                    if serde_json::from_str::<serde_json::Value>(&s.value()).is_err() {
                        return Err(syn::Error::new(s.span(), "`schema` is not valid JSON"));
                    }
                    f.schema = Some(s);
                } else if p.is_ident("order") {
                    let s = lit_str(&meta)?;
                    if !matches!(s.value().as_str(), "ascending" | "descending" | "ignore") {
                        return Err(syn::Error::new(
                            s.span(),
                            "`order` is \"ascending\", \"descending\" or \"ignore\"",
                        ));
                    }
                    f.order = Some(s.value());
                } else if !f.extra.parse(&meta)? {
                    return Err(meta.error(
                        "unknown avro attribute on a field: expected `logical_type`, \
                         `precision`, `scale`, `default`, `rename`, `fixed_name`, `schema`, \
                         `order`, `doc`, `alias` or `props`",
                    ));
                }
                Ok(())
            })
        } else {
            Ok(())
        };
        if let Err(e) = r {
            errs.push(e);
        }
    }
    if let Some((lt, span)) = &f.logical {
        if lt == "decimal" && f.precision.is_none() {
            errs.push(syn::Error::new(
                *span,
                "logical type \"decimal\" needs `precision` (and optionally `scale`)",
            ));
        }
    }
    f
}

pub(crate) fn docs(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if lines.is_empty() {
        None
    } else {
        Some(lines.join("\n"))
    }
}

pub(crate) fn valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// serde's `rename_all` rules, for field names (snake_case in) and variant names (PascalCase in).
pub(crate) fn rename(name: &str, rule: Option<&str>, is_variant: bool) -> Result<String, String> {
    let Some(rule) = rule else {
        return Ok(name.to_owned());
    };
    // Split into lowercase words.
    let words: Vec<String> = if is_variant {
        let mut words = Vec::new();
        let mut cur = String::new();
        for c in name.chars() {
            if c.is_uppercase() && !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            cur.extend(c.to_lowercase());
        }
        if !cur.is_empty() {
            words.push(cur);
        }
        words
    } else {
        name.split('_').map(str::to_owned).collect()
    };
    let cap = |w: &String| {
        let mut c = w.chars();
        match c.next() {
            Some(f) => f.to_uppercase().chain(c).collect::<String>(),
            None => String::new(),
        }
    };
    Ok(match rule {
        "lowercase" => words.concat(),
        "UPPERCASE" => words.concat().to_uppercase(),
        "PascalCase" => words.iter().map(cap).collect(),
        "camelCase" => {
            let pascal: String = words.iter().map(cap).collect();
            let mut c = pascal.chars();
            match c.next() {
                Some(f) => f.to_lowercase().chain(c).collect(),
                None => String::new(),
            }
        }
        "snake_case" => words.join("_"),
        "SCREAMING_SNAKE_CASE" => words.join("_").to_uppercase(),
        "kebab-case" | "SCREAMING-KEBAB-CASE" => {
            return Err(format!(
                "rename_all = {rule:?} makes names with '-', which Avro names cannot have"
            ))
        }
        other => return Err(format!("unknown rename_all rule {other:?}")),
    })
}
