//! The schema JSON of types and fields, as tokens that build it (with `names` in scope).

use proc_macro2::TokenStream as Tokens;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

use crate::attrs::{docs, field_attrs, rename, valid_name, Errors, Extra};

/// The last path segment of a type and its generic type arguments.
pub(crate) fn path_parts(ty: &Type) -> Option<(String, Vec<&Type>)> {
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

pub(crate) fn is_u8(ty: &Type) -> bool {
    matches!(path_parts(ty), Some((n, a)) if n == "u8" && a.is_empty())
}

/// The name a `[u8; N]` inside a type gets as a `fixed`, and whether the type has one.
pub(crate) struct FixedName {
    pub(crate) name: String,
    pub(crate) used: bool,
}

impl FixedName {
    pub(crate) fn new(name: String) -> FixedName {
        FixedName { name, used: false }
    }
}

/// Tokens computing the schema JSON of `ty` (with `names: &mut Names` in scope); a `[u8; N]`
/// in it is a `fixed` named `fixed.name`.
pub(crate) fn type_json(ty: &Type, bytes: bool, fixed: &mut FixedName) -> syn::Result<Tokens> {
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
/// standard ones, chrono's, time's, uuid's, the decimal types); `None` when it can or the type
/// is unknown.
pub(crate) fn logical_misfit(ty: &Type, logical: &str) -> Option<String> {
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
        "Decimal" | "BigDecimal" => &["decimal", "big-decimal"],
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
pub(crate) fn field_json(
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
    // A date or time default given as text (chrono's serde form) becomes its count; a decimal
    // default from serde (`rust_decimal`'s and `bigdecimal`'s text) its bytes, while an
    // explicit `#[avro(default)]` of a decimal already is Avro's JSON of its bytes.
    let convert = if attrs.avro_default.is_some() {
        quote!(#p::logical_default)
    } else {
        quote!(#p::serde_logical_default)
    };
    let (default_let, default) = match default {
        Some(d) => (
            quote!(let default = #convert(&schema, #d);),
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
pub(crate) fn fixed_def(
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
pub(crate) fn opt_str(s: Option<&str>) -> Tokens {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// A record definition (or a reference by fullname when `names` has it). `owner` names the Rust
/// type (or variant) it stands for, to catch two types with one Avro name.
pub(crate) fn record_json(
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
