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
//! | `rust_decimal::Decimal`, `bigdecimal::BigDecimal` (features `rust_decimal`, `bigdecimal`) | `bytes` `big-decimal`; with `#[avro(logical_type = "decimal", precision = P, scale = S)]` a `decimal` (values are rescaled to S exactly when written: one that needs rounding, or has more than P digits, is an error) |
//! | any other type `T` | `<T as AvroSchema>` (primitives, `String`, `Box<T>`, other derived types, recursively by name) |
//!
//! The date, time, uuid and decimal types need no serde attribute: avrokit's serializer turns the text
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
//!
//! The derive also implements `avrokit::AvroEncode` and `avrokit::AvroDecode`: straight-line
//! code writing and reading the type's own schema (see `avrokit::codec`), borrowing `&str`,
//! `&[u8]` and `Cow` fields from the input. A type it cannot write a codec for gets impls that
//! report why (see the limitations there); `#[avro(no_codec)]` asks for that explicitly, for a
//! field type that implements `AvroSchema` by hand without a codec.

mod attrs;
mod codec;
mod schema;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::spanned::Spanned;
use syn::{parse_macro_input, Data, DeriveInput, Fields, Type};

use crate::attrs::{container_attrs, docs, field_attrs, rename, valid_name, Errors, Extra};
use crate::schema::{field_json, fixed_def, is_u8, opt_str, record_json, type_json, FixedName};

/// Derives `avrokit::AvroSchema`: see the [crate docs](crate).
#[proc_macro_derive(AvroSchema, attributes(avro))]
pub fn derive_avro_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
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
    let codec = codec::codec_impls(input, &c);
    Ok(quote! {
        #codec

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
