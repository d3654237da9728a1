//! `#[derive(AvroSchema)]` for avrokit: the Avro schema of a Rust struct or enum.
//!
//! Use it through `avrokit` with the `derive` feature (`avrokit::AvroSchema`); the generated
//! code refers to `::avrokit`.
//!
//! | Rust | Avro |
//! |---|---|
//! | struct with named fields | `record` named after the struct, fields in declaration order |
//! | newtype struct `struct M(T)` | `T`'s schema; `struct Md5([u8; 16])` is a `fixed` named `Md5` (in the type's namespace) |
//! | unit struct | `record` without fields |
//! | enum of unit variants | `enum`, a symbol per variant (`#[serde(other)]` marks the default) |
//! | enum with data | `union` of a branch per variant, in order: unit and struct variants are records named after the variant, a newtype variant `V(T)` is `T`'s schema |
//! | `Option<T>` | `["null", T]` |
//! | `Vec<u8>`, `&[u8]`, `serde_bytes::ByteBuf`, `#[serde(with = "serde_bytes")]` | `bytes` |
//! | `[u8; N]` (also inside `Option`, `Vec`...) | `fixed` of size N named `<Record>_<field>` (`<Enum>_<Variant>` in a newtype variant), or `#[avro(fixed_name = "...")]` |
//! | `Vec<T>`, `HashSet<T>`... | `array` |
//! | `HashMap<String, V>`, `BTreeMap<String, V>` | `map` |
//! | `uuid::Uuid` (avrokit feature `uuid`) | `{"type":"string","logicalType":"uuid"}` |
//! | chrono `NaiveDate`, time `Date` (features `chrono`, `time`) | `{"type":"int","logicalType":"date"}` |
//! | chrono `NaiveTime`, time `Time` | `long` `time-micros` (`time-millis` on request: then an `int`) |
//! | chrono `DateTime<Tz>`, time `OffsetDateTime` | `long` `timestamp-micros` (`-millis`, `-nanos` on request) |
//! | chrono `NaiveDateTime`, time `PrimitiveDateTime` | `long` `local-timestamp-micros` (`-millis`, `-nanos` on request) |
//! | any other type `T` | `<T as AvroSchema>` (primitives, `String`, `Box<T>`, other derived types, recursively by name) |
//!
//! The date, time and uuid types need no serde attribute: avrokit's serializer turns the text
//! or components they serialize to into the numbers on the wire, and back (see
//! `avrokit::serde`).
//!
//! Names: a type without `#[avro(namespace)]` takes the namespace of the first named type it is
//! used in, as Avro says. Each named type is written in full once and referred to by its
//! fullname after that; two different Rust types (or two sizes of fixed) with one Avro
//! fullname make `schema()` panic, since Avro cannot tell them apart.
//!
//! Attributes:
//! - `#[avro(namespace = "a.b")]`, `#[avro(name = "Other")]` on the type; doc comments become
//!   `doc`.
//! - serde's `rename`, `rename_all`, `default` (on the type or a field), `skip`,
//!   `skip_serializing`, `skip_serializing_if` (an `Option` field then gets a `null` default),
//!   `with = "serde_bytes"` and `other` are honoured; `flatten` and non-external enum tagging
//!   are rejected with a compile error.
//! - On a field: `#[avro(logical_type = "timestamp-millis")]` (with `precision` and `scale`
//!   for `decimal`) to annotate the field's type or change a date or time type's precision (a
//!   logical type that cannot annotate a known type, `date` on a `DateTime` or an `f64`, is a
//!   compile error); `#[avro(default = "<JSON>")]` for an explicit default (a date or time
//!   default from `#[serde(default)]` is converted to its number);
//!   `#[avro(fixed_name = "Md5")]` names the `fixed` of a `[u8; N]` field (a simple name takes
//!   the record's namespace; fields with the same name share one type, which must have one
//!   size).
//!
//! - For an exact schema (what `avrokit-codegen` writes): `#[avro(doc = "...")]` (instead of
//!   the doc comments), `#[avro(alias = "...")]` (repeatable) and `#[avro(props = "<JSON
//!   object>")]` (custom attributes) on a type or field; `#[avro(order = "descending")]` and
//!   `#[avro(schema = "<JSON>")]` on a field (or a newtype's or newtype variant's inner
//!   field): the field type's schema with named types by fullname, whose attributes and union
//!   order replace the derived ones (`Vec<Option<i64>>` as
//!   `{"type":"array","items":["long","null"]}`); `#[avro(enum_default = "SYMBOL")]` on an
//!   enum. A newtype of `[u8; N]` with `#[avro(namespace)]` is a fixed with that namespace
//!   (and its doc, aliases and properties). An enum without variants is the empty union.
//!
//! Errors in the input type are `compile_error!`s pointing at the offending item.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, Attribute, Data, DeriveInput, Fields, GenericArgument, LitStr,
    PathArguments, Type,
};

/// Derives `avrokit::AvroSchema`: see the [crate docs](crate).
#[proc_macro_derive(AvroSchema, attributes(avro))]
pub fn derive_avro_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

const LOGICAL_TYPES: &[&str] = &[
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
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[derive(Default)]
struct ContainerAttrs {
    name: Option<String>,
    namespace: Option<String>,
    /// `#[avro(doc)]`, `#[avro(alias)]`s, `#[avro(props)]`.
    extra: Extra,
    /// `#[avro(enum_default = "SYMBOL")]`: the default symbol, when it is not the last (where
    /// `#[serde(other)]` can mark it).
    enum_default: Option<String>,
    rename_all: Option<String>,
    default: bool,
    transparent: bool,
}

#[derive(Default)]
struct FieldAttrs {
    rename: Option<String>,
    skip: bool,
    /// `#[serde(default)]` (`Some(None)`) or `#[serde(default = "path")]`.
    serde_default: Option<Option<syn::ExprPath>>,
    skip_serializing_if: bool,
    bytes: bool,
    other: bool,
    logical: Option<(String, Span)>,
    precision: Option<u32>,
    scale: Option<u32>,
    avro_default: Option<LitStr>,
    fixed_name: Option<LitStr>,
    /// `#[avro(schema = "...")]`: the field type's schema as Avro JSON, named types by name.
    schema: Option<LitStr>,
    /// `#[avro(order = "...")]`.
    order: Option<String>,
    extra: Extra,
}

/// Attributes any named type or field may carry besides its own: an exact `doc` (instead of
/// the doc comments), `alias`es and custom properties (`props`, a JSON object).
#[derive(Default)]
struct Extra {
    doc: Option<String>,
    aliases: Vec<String>,
    props: Option<LitStr>,
}

impl Extra {
    /// Parses `doc`, `alias` or `props`; false when `meta` is none of them.
    fn parse(&mut self, meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<bool> {
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
    fn insert(&self, obj: &Tokens) -> Tokens {
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

fn lit_str(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// Skips the value of a serde attribute we do not interpret.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

/// `rename = "x"` or `rename(serialize = "x", deserialize = "y")` (the serialize name wins).
fn rename_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
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

fn container_attrs(attrs: &[Attribute], is_enum: bool, errs: &mut Errors) -> ContainerAttrs {
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
                } else if meta.path.is_ident("enum_default") && is_enum {
                    c.enum_default = Some(lit_str(&meta)?.value());
                } else if !c.extra.parse(&meta)? {
                    return Err(meta.error(
                        "unknown avro attribute on a type: expected `namespace`, `name`, \
                         `doc`, `alias`, `props` or (on an enum) `enum_default`",
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

fn field_attrs(attrs: &[Attribute], errs: &mut Errors) -> FieldAttrs {
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

fn docs(attrs: &[Attribute]) -> Option<String> {
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

fn valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// serde's `rename_all` rules, for field names (snake_case in) and variant names (PascalCase in).
fn rename(name: &str, rule: Option<&str>, is_variant: bool) -> Result<String, String> {
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

/// The last path segment of a type and its generic type arguments.
fn path_parts(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let seg = p.path.segments.last()?;
    let args = match &seg.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((seg.ident.to_string(), args))
}

fn is_u8(ty: &Type) -> bool {
    matches!(path_parts(ty), Some((n, a)) if n == "u8" && a.is_empty())
}

/// The name a `[u8; N]` inside a type gets as a `fixed`, and whether the type has one.
struct FixedName {
    name: String,
    used: bool,
}

impl FixedName {
    fn new(name: String) -> FixedName {
        FixedName { name, used: false }
    }
}

/// Tokens computing the schema JSON of `ty` (with `names: &mut Names` in scope); a `[u8; N]`
/// in it is a `fixed` named `fixed.name`.
fn type_json(ty: &Type, bytes: bool, fixed: &mut FixedName) -> syn::Result<Tokens> {
    let p = quote!(::avrokit::__private);
    if let Some((name, args)) = path_parts(ty) {
        match (name.as_str(), args.as_slice()) {
            ("Option", [inner]) => {
                let inner = type_json(inner, bytes, fixed)?;
                return Ok(quote!(#p::optional_json(#inner)));
            }
            (_, _) if bytes => return Ok(quote!(#p::json!("bytes"))),
            ("Vec", [inner]) if is_u8(inner) => return Ok(quote!(#p::json!("bytes"))),
            ("ByteBuf", []) | ("Bytes", []) => return Ok(quote!(#p::json!("bytes"))),
            ("Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "LinkedList", [inner, ..]) => {
                let inner = type_json(inner, false, fixed)?;
                return Ok(quote!(#p::array_json(#inner)));
            }
            ("HashMap" | "BTreeMap" | "IndexMap", [key, value, ..]) => {
                let key_ok = match path_parts(key) {
                    Some((k, _)) => matches!(
                        k.as_str(),
                        "String"
                            | "str"
                            | "Cow"
                            | "Box"
                            | "Arc"
                            | "Rc"
                            | "char"
                            | "i8"
                            | "i16"
                            | "i32"
                            | "i64"
                            | "u8"
                            | "u16"
                            | "u32"
                            | "u64"
                    ),
                    None => matches!(key, Type::Reference(_)),
                };
                if !key_ok {
                    return Err(syn::Error::new(
                        key.span(),
                        "Avro maps have string keys: use String (or an integer) as the key type",
                    ));
                }
                let value = type_json(value, false, fixed)?;
                return Ok(quote!(#p::map_json(#value)));
            }
            ("Box" | "Arc" | "Rc", [inner]) => return type_json(inner, bytes, fixed),
            ("Cow", [inner]) => return type_json(inner, bytes, fixed),
            _ => {}
        }
    }
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) if is_u8(&s.elem) => Ok(quote!(#p::json!("bytes"))),
            elem => type_json(elem, bytes, fixed),
        },
        Type::Slice(s) if is_u8(&s.elem) => Ok(quote!(#p::json!("bytes"))),
        Type::Slice(s) => {
            let inner = type_json(&s.elem, false, fixed)?;
            Ok(quote!(#p::array_json(#inner)))
        }
        // A `[u8; N]` is a fixed also with `serde_bytes` (which takes arrays of any size).
        Type::Array(a) if is_u8(&a.elem) => {
            fixed.used = true;
            let name = &fixed.name;
            Ok(quote!(#p::fixed_json(names, #name, ::core::mem::size_of::<#ty>())))
        }
        _ if bytes => Ok(quote!(#p::json!("bytes"))),
        Type::Array(a) => Err(syn::Error::new(
            a.span(),
            "AvroSchema supports arrays of u8 only ([u8; N] is a fixed); use Vec<T> for an Avro array",
        )),
        Type::Tuple(t) if t.elems.is_empty() => Ok(quote!(#p::json!("null"))),
        Type::Tuple(t) => Err(syn::Error::new(
            t.span(),
            "AvroSchema cannot name a tuple: use a struct (an Avro record needs field names)",
        )),
        Type::Paren(t) => type_json(&t.elem, bytes, fixed),
        Type::Group(t) => type_json(&t.elem, bytes, fixed),
        Type::Path(_) => {
            Ok(quote_spanned!(ty.span()=> <#ty as ::avrokit::AvroSchema>::__avro_json(names)))
        }
        other => Err(syn::Error::new(
            other.span(),
            "AvroSchema cannot derive a schema for this type",
        )),
    }
}

/// Why `logical` cannot annotate `ty`, for the types whose Avro type the derive knows (the
/// standard ones, chrono's, time's, uuid's); `None` when it can or the type is unknown.
fn logical_misfit(ty: &Type, logical: &str) -> Option<String> {
    let (name, args) = path_parts(ty)?;
    if name == "Option" && args.len() == 1 {
        return logical_misfit(args[0], logical);
    }
    const TIMESTAMPS: &[&str] = &["timestamp-millis", "timestamp-micros", "timestamp-nanos"];
    const LOCAL: &[&str] = &[
        "local-timestamp-millis",
        "local-timestamp-micros",
        "local-timestamp-nanos",
    ];
    const LONG: &[&str] = &[
        "time-micros",
        "timestamp-millis",
        "timestamp-micros",
        "timestamp-nanos",
        "local-timestamp-millis",
        "local-timestamp-micros",
        "local-timestamp-nanos",
    ];
    let allowed: &[&str] = match name.as_str() {
        "DateTime" | "OffsetDateTime" | "UtcDateTime" => TIMESTAMPS,
        "NaiveDateTime" | "PrimitiveDateTime" | "PlainDateTime" => LOCAL,
        "NaiveTime" | "Time" => &["time-millis", "time-micros"],
        "NaiveDate" | "Date" => &["date"],
        "Uuid" | "String" | "str" => &["uuid"],
        "i8" | "i16" | "i32" | "u8" | "u16" => &["date", "time-millis"],
        "i64" | "u32" | "u64" => LONG,
        "f32" | "f64" | "bool" | "char" => &[],
        _ => return None,
    };
    if allowed.contains(&logical) {
        return None;
    }
    Some(if allowed.is_empty() {
        format!("logical type {logical:?} cannot annotate {name}")
    } else {
        format!(
            "logical type {logical:?} cannot annotate {name}: expected {}",
            allowed.join(", ")
        )
    })
}

/// The JSON of one record field of record `record`, or `None` for a skipped one.
fn field_json(
    field: &syn::Field,
    index: usize,
    record: &str,
    rename_all: Option<&str>,
    container_default: bool,
    errs: &mut Errors,
) -> Option<Tokens> {
    let attrs = field_attrs(&field.attrs, errs);
    if attrs.skip {
        return None;
    }
    let p = quote!(::avrokit::__private);
    let rust_name = match &field.ident {
        Some(i) => i.to_string().trim_start_matches("r#").to_owned(),
        None => format!("field{index}"),
    };
    let name = match attrs.rename.clone() {
        Some(n) => n,
        None => match rename(&rust_name, rename_all, false) {
            Ok(n) => n,
            Err(e) => {
                errs.push(syn::Error::new(field.span(), e));
                rust_name.clone()
            }
        },
    };
    if !valid_name(&name) {
        errs.push(syn::Error::new(
            field.span(),
            format!("{name:?} is not a valid Avro field name: [A-Za-z_][A-Za-z0-9_]*"),
        ));
    }
    let ty = &field.ty;
    let mut fixed = FixedName::new(match &attrs.fixed_name {
        Some(n) => n.value(),
        None => format!("{record}_{name}"),
    });
    let mut schema = match type_json(ty, attrs.bytes, &mut fixed) {
        Ok(t) => t,
        Err(e) => {
            errs.push(e);
            return None;
        }
    };
    if let (Some(n), false) = (&attrs.fixed_name, fixed.used) {
        errs.push(syn::Error::new(
            n.span(),
            "`fixed_name` names the Avro fixed of a [u8; N] field (or Option<[u8; N]>, \
             Vec<[u8; N]>...); this field has none",
        ));
    }
    let optional = matches!(path_parts(ty), Some((n, a)) if n == "Option" && a.len() == 1);
    if let Some((lt, span)) = &attrs.logical {
        if let Some(why) = logical_misfit(ty, lt) {
            errs.push(syn::Error::new(*span, why));
        }
        let mut extra = Vec::new();
        if let Some(pr) = attrs.precision {
            extra.push(quote!(("precision", #p::json!(#pr))));
        }
        if let Some(sc) = attrs.scale {
            extra.push(quote!(("scale", #p::json!(#sc))));
        }
        let base = match (optional, path_parts(ty)) {
            (true, Some((_, args))) => match type_json(args[0], attrs.bytes, &mut fixed) {
                Ok(t) => t,
                Err(e) => {
                    errs.push(e);
                    return None;
                }
            },
            _ => schema.clone(),
        };
        let annotated = quote!(#p::with_logical(#base, #lt, &[#(#extra),*]));
        schema = if optional {
            quote!(#p::optional_json(#annotated))
        } else {
            annotated
        };
    }
    if let Some(overlay) = &attrs.schema {
        schema = quote!(#p::overlay_json(#schema, #overlay));
    }
    let default = if let Some(lit) = &attrs.avro_default {
        let text = lit.value();
        Some(quote!(#p::json_text(#text)))
    } else if let Some(d) = &attrs.serde_default {
        Some(match d {
            Some(path) => quote!(#p::to_json(&#path())),
            None if attrs.bytes => quote!(#p::json!("")),
            None => quote!(#p::default_json::<#ty>()),
        })
    } else if container_default {
        let member = match &field.ident {
            Some(i) => quote!(#i),
            None => {
                let i = syn::Index::from(index);
                quote!(#i)
            }
        };
        Some(quote!(#p::to_json(&<Self as ::core::default::Default>::default().#member)))
    } else if optional && attrs.skip_serializing_if {
        Some(quote!(#p::Json::Null))
    } else {
        None
    };
    let doc = attrs
        .extra
        .doc
        .clone()
        .or_else(|| docs(&field.attrs))
        .map(|d| quote!(f.insert("doc".into(), #p::json!(#d));));
    let order = attrs
        .order
        .as_ref()
        .filter(|o| *o != "ascending")
        .map(|o| quote!(f.insert("order".into(), #p::json!(#o));));
    let extra = attrs.extra.insert(&quote!(f));
    // A date or time default given as text (chrono's serde form) becomes its count.
    let (default_let, default) = match default {
        Some(d) => (
            quote!(let default = #p::logical_default(&schema, #d);),
            quote!(f.insert("default".into(), default);),
        ),
        None => (quote!(), quote!()),
    };
    Some(quote!({
        let schema = #schema;
        #default_let
        let mut f = #p::Map::new();
        f.insert("name".into(), #p::json!(#name));
        f.insert("type".into(), schema);
        #doc
        #default
        #order
        #extra
        fields.push(#p::Json::Object(f));
    }))
}

/// A fixed definition of `size` bytes (or a reference by fullname when `names` has it).
fn fixed_def(
    name: &str,
    namespace: &str,
    doc: Option<String>,
    extra: &Extra,
    size: Tokens,
    owner: Tokens,
) -> Tokens {
    let p = quote!(::avrokit::__private);
    let doc = doc.map(|d| quote!(obj.insert("doc".into(), #p::json!(#d));));
    let extra = extra.insert(&quote!(obj));
    quote!({
        match names.named_type(#name, ::core::option::Option::Some(#namespace), #owner) {
            ::core::result::Result::Ok(_) => {
                let mut obj = #p::Map::new();
                obj.insert("type".into(), #p::json!("fixed"));
                obj.insert("name".into(), #p::json!(#name));
                obj.insert("namespace".into(), #p::json!(#namespace));
                #doc
                obj.insert("size".into(), #p::json!(#size));
                #extra
                #p::Json::Object(obj)
            }
            ::core::result::Result::Err(full) => #p::Json::String(full),
        }
    })
}

/// `Some("ns")` or `None` as tokens.
fn opt_str(s: Option<&str>) -> Tokens {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// A record definition (or a reference by fullname when `names` has it). `owner` names the Rust
/// type (or variant) it stands for, to catch two types with one Avro name.
fn record_json(
    name: &str,
    namespace: Option<&str>,
    doc: Option<String>,
    extra: &Extra,
    fields: Vec<Tokens>,
    owner: Tokens,
) -> Tokens {
    let p = quote!(::avrokit::__private);
    let ns_opt = opt_str(namespace);
    let ns = namespace.map(|ns| quote!(obj.insert("namespace".into(), #p::json!(#ns));));
    let doc = doc.map(|d| quote!(obj.insert("doc".into(), #p::json!(#d));));
    let extra = extra.insert(&quote!(obj));
    quote!({
        match names.named_type(#name, #ns_opt, #owner) {
            ::core::result::Result::Ok(full) => {
                names.enter(&full);
                let mut fields: ::std::vec::Vec<#p::Json> = ::std::vec::Vec::new();
                #(#fields)*
                names.leave();
                let mut obj = #p::Map::new();
                obj.insert("type".into(), #p::json!("record"));
                obj.insert("name".into(), #p::json!(#name));
                #ns
                #doc
                obj.insert("fields".into(), #p::Json::Array(fields));
                #extra
                #p::Json::Object(obj)
            }
            ::core::result::Result::Err(full) => #p::Json::String(full),
        }
    })
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let mut errs = Errors::default();
    let is_enum = matches!(input.data, Data::Enum(_));
    let c = container_attrs(&input.attrs, is_enum, &mut errs);
    let rust_name = input.ident.to_string();
    let name = c.name.clone().unwrap_or_else(|| rust_name.clone());
    if !valid_name(&name) {
        errs.push(syn::Error::new(
            input.ident.span(),
            format!("{name:?} is not a valid Avro name: [A-Za-z_][A-Za-z0-9_]*"),
        ));
    }
    let ns = c.namespace.as_deref();
    let doc = c.extra.doc.clone().or_else(|| docs(&input.attrs));
    let p = quote!(::avrokit::__private);
    let rename_all = c.rename_all.as_deref();
    let owner = quote!(::core::any::type_name::<Self>());
    // A newtype of `[u8; N]` is a fixed named after the type.
    let qualified = match ns {
        Some(ns) if !ns.is_empty() => format!("{ns}.{name}"),
        _ => name.clone(),
    };

    let body = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 || c.transparent => {
                match f.unnamed.iter().next() {
                    Some(inner) => {
                        let attrs = field_attrs(&inner.attrs, &mut errs);
                        let fixed_array = matches!(&inner.ty, Type::Array(a) if is_u8(&a.elem));
                        if let (Some(ns), true) = (ns, fixed_array) {
                            // A fixed with its namespace given: named like a record, with its
                            // doc, aliases and properties.
                            let ty = &inner.ty;
                            let size = quote!(::core::mem::size_of::<#ty>());
                            fixed_def(&name, ns, doc.clone(), &c.extra, size, owner.clone())
                        } else {
                            let mut fixed = FixedName::new(qualified.clone());
                            let t =
                                type_json(&inner.ty, attrs.bytes, &mut fixed).unwrap_or_else(|e| {
                                    errs.push(e);
                                    quote!(#p::Json::Null)
                                });
                            match &attrs.schema {
                                Some(overlay) => quote!(#p::overlay_json(#t, #overlay)),
                                None => t,
                            }
                        }
                    }
                    None => quote!(#p::Json::Null),
                }
            }
            Fields::Named(f) if c.transparent => match f.named.iter().next() {
                Some(inner) => {
                    let mut fixed = FixedName::new(qualified.clone());
                    type_json(&inner.ty, false, &mut fixed).unwrap_or_else(|e| {
                        errs.push(e);
                        quote!(#p::Json::Null)
                    })
                }
                None => quote!(#p::Json::Null),
            },
            fields => {
                let fields: Vec<Tokens> = fields
                    .iter()
                    .enumerate()
                    .filter_map(|(i, f)| field_json(f, i, &name, rename_all, c.default, &mut errs))
                    .collect();
                record_json(&name, ns, doc, &c.extra, fields, owner.clone())
            }
        },
        Data::Enum(e) => {
            // An enum without variants, which has no values, is the empty union.
            let all_unit = !e.variants.is_empty()
                && e.variants.iter().all(|v| matches!(v.fields, Fields::Unit));
            let mut symbols = Vec::new();
            let mut default_symbol = None;
            let mut branches = Vec::new();
            for v in &e.variants {
                let vattrs = field_attrs(&v.attrs, &mut errs);
                if vattrs.skip {
                    continue;
                }
                let vname = match vattrs.rename.clone() {
                    Some(n) => n,
                    None => rename(&v.ident.to_string(), rename_all, true).unwrap_or_else(|e| {
                        errs.push(syn::Error::new(v.span(), e));
                        v.ident.to_string()
                    }),
                };
                // A newtype variant's name only picks the union branch (`Point`, `com.x.Point`).
                let newtype = matches!(&v.fields, Fields::Unnamed(f) if f.unnamed.len() == 1);
                if !newtype && !valid_name(&vname) {
                    errs.push(syn::Error::new(
                        v.span(),
                        format!("{vname:?} is not a valid Avro name: [A-Za-z_][A-Za-z0-9_]*"),
                    ));
                }
                if all_unit {
                    if vattrs.other {
                        default_symbol = Some(vname.clone());
                    }
                    symbols.push(vname);
                    continue;
                }
                let vdoc = docs(&v.attrs);
                let vident = v.ident.to_string();
                let vowner = quote!(&::std::format!("{}::{}", #owner, #vident));
                branches.push(match &v.fields {
                    Fields::Unit => {
                        record_json(&vname, ns, vdoc, &Extra::default(), Vec::new(), vowner)
                    }
                    Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                        let inner = &f.unnamed[0];
                        let a = field_attrs(&inner.attrs, &mut errs);
                        let mut fixed = FixedName::new(match &a.fixed_name {
                            Some(n) => n.value(),
                            None => format!("{qualified}_{vname}"),
                        });
                        let t = type_json(&inner.ty, a.bytes, &mut fixed).unwrap_or_else(|e| {
                            errs.push(e);
                            quote!(#p::Json::Null)
                        });
                        match &a.schema {
                            Some(overlay) => quote!(#p::overlay_json(#t, #overlay)),
                            None => t,
                        }
                    }
                    fields => {
                        let fields: Vec<Tokens> = fields
                            .iter()
                            .enumerate()
                            .filter_map(|(i, f)| field_json(f, i, &vname, None, false, &mut errs))
                            .collect();
                        record_json(&vname, ns, vdoc, &Extra::default(), fields, vowner)
                    }
                });
            }
            if let Some(d) = &c.enum_default {
                if !all_unit || !symbols.contains(d) {
                    errs.push(syn::Error::new(
                        input.ident.span(),
                        format!("`enum_default` {d:?} is not a symbol of this enum"),
                    ));
                }
                default_symbol = Some(d.clone());
            }
            if all_unit {
                let ns_opt = opt_str(ns);
                let nsq = ns.map(|ns| quote!(obj.insert("namespace".into(), #p::json!(#ns));));
                let docq = doc.map(|d| quote!(obj.insert("doc".into(), #p::json!(#d));));
                let defq =
                    default_symbol.map(|d| quote!(obj.insert("default".into(), #p::json!(#d));));
                let extra = c.extra.insert(&quote!(obj));
                quote!({
                    match names.named_type(#name, #ns_opt, #owner) {
                        ::core::result::Result::Ok(_) => {
                            let mut obj = #p::Map::new();
                            obj.insert("type".into(), #p::json!("enum"));
                            obj.insert("name".into(), #p::json!(#name));
                            #nsq
                            #docq
                            obj.insert("symbols".into(), #p::json!([#(#symbols),*]));
                            #defq
                            #extra
                            #p::Json::Object(obj)
                        }
                        ::core::result::Result::Err(full) => #p::Json::String(full),
                    }
                })
            } else {
                quote!(#p::Json::Array(::std::vec![#(#branches),*]))
            }
        }
        Data::Union(u) => {
            errs.push(syn::Error::new(
                u.union_token.span(),
                "AvroSchema cannot be derived for a Rust union: use an enum (an Avro union)",
            ));
            quote!(#p::Json::Null)
        }
    };
    errs.finish()?;

    let ident = &input.ident;
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(::avrokit::AvroSchema));
    }
    let (impl_g, ty_g, where_c) = generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_g ::avrokit::AvroSchema for #ident #ty_g #where_c {
            fn schema() -> ::avrokit::Schema {
                #p::schema_from_json(
                    #rust_name,
                    <Self as ::avrokit::AvroSchema>::__avro_json(&mut #p::Names::default()),
                )
            }

            #[allow(unused_variables)]
            fn __avro_json(names: &mut #p::Names) -> #p::Json {
                #body
            }
        }
    })
}
