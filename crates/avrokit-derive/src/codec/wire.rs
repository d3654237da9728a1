//! How one Rust type (a field's, a newtype's) is written and read: through the codec traits,
//! or by generated code for the shapes the derive gives another schema than the traits do
//! (`Vec<u8>` as `bytes`, `Option` with `null` second).

use proc_macro2::TokenStream as Tokens;
use quote::quote;
use serde_json::Value as Json;
use syn::Type;

use crate::schema::{is_u8, path_parts};

/// The support module of the generated code.
pub(crate) fn p() -> Tokens {
    quote!(::avrokit::__codec)
}

/// How a type is written and read.
pub(crate) enum Wire {
    /// Through `AvroEncode` / `AvroDecode`.
    Trait,
    /// Generated closures: `enc` is `|enc, v: &T| -> Result<()>`, `dec` is `|dec| -> Result<T>`;
    /// `into`, when given, reads over a place (`|dec, v: &mut T| -> Result<()>`); `res` reads
    /// data of another writer schema (`|dec, rs, op| -> Result<T>`), and `res_into`, when
    /// given, does so over a place (`|dec, rs, op, v: &mut T| -> Result<()>`).
    Custom {
        enc: Tokens,
        dec: Tokens,
        into: Option<Tokens>,
        res: Tokens,
        res_into: Option<Tokens>,
    },
}

/// Types the derive knows have no codec: (last path segment, why).
const NO_CODEC: &[(&str, &str)] = &[
    ("DateTime", "date and time types"),
    ("NaiveDate", "date and time types"),
    ("NaiveTime", "date and time types"),
    ("NaiveDateTime", "date and time types"),
    ("OffsetDateTime", "date and time types"),
    ("PrimitiveDateTime", "date and time types"),
    ("UtcDateTime", "date and time types"),
    ("PlainDateTime", "date and time types"),
    ("Date", "date and time types"),
    ("Time", "date and time types"),
    ("Uuid", "uuid::Uuid"),
    (
        "Decimal",
        "decimal types (writers must rescale and check the precision)",
    ),
    (
        "BigDecimal",
        "decimal types (writers must rescale and check the precision)",
    ),
    ("ByteBuf", "serde_bytes::ByteBuf"),
    ("Bytes", "serde_bytes::Bytes"),
    ("HashSet", "sets"),
    ("BTreeSet", "sets"),
    ("LinkedList", "LinkedList"),
    ("IndexMap", "IndexMap"),
];

/// Map key types the codec reads and writes (`AvroDecode + AsRef<str>`): the owned strings,
/// and `&str` and `Cow`, which borrow from the input.
fn string_key(key: &Type) -> bool {
    if let Type::Reference(r) = key {
        return matches!(&*r.elem, Type::Path(p) if p.path.is_ident("str"));
    }
    matches!(path_parts(key), Some((k, _)) if matches!(k.as_str(), "String" | "Cow" | "Box" | "Arc" | "Rc"))
}

/// True when `j` is the `null` schema.
fn is_null(j: &Json) -> bool {
    j.as_str() == Some("null") || j.get("type").and_then(Json::as_str) == Some("null")
}

/// The closure writing `ty` through the traits.
fn trait_enc(ty: &Type) -> Tokens {
    let p = p();
    quote!(|enc: &mut #p::Encoder<__S>, v: &#ty| -> #p::Result<()> {
        ::avrokit::AvroEncode::encode(v, enc)
    })
}

/// The closure reading `ty` through the traits.
fn trait_dec(ty: &Type) -> Tokens {
    let p = p();
    quote!(|dec: &mut #p::Decoder<'__de, __S>| -> #p::Result<#ty> {
        <#ty as ::avrokit::AvroDecode<'__de>>::decode(dec)
    })
}

/// The closure reading `ty` written with another schema, through the traits.
fn trait_res(ty: &Type) -> Tokens {
    let p = p();
    quote!(|dec: &mut #p::Decoder<'__de, __S>, rs: &#p::Resolver, op: u32| -> #p::Result<#ty> {
        <#ty as ::avrokit::AvroDecode<'__de>>::decode_resolved(dec, rs, op)
    })
}

/// `tokens` with every `__S` (the decoder's source type) replaced by `with`.
fn with_source(tokens: Tokens, with: &Tokens) -> Tokens {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .flat_map(|t| -> Vec<TokenTree> {
            match t {
                TokenTree::Ident(i) if i == "__S" => with.clone().into_iter().collect(),
                TokenTree::Group(g) => {
                    let mut n = Group::new(g.delimiter(), with_source(g.stream(), with));
                    n.set_span(g.span());
                    vec![TokenTree::Group(n)]
                }
                t => vec![t],
            }
        })
        .collect()
}

impl Wire {
    /// The write closure of `ty` on this wire.
    pub(crate) fn enc(&self, ty: &Type) -> Tokens {
        match self {
            Wire::Trait => trait_enc(ty),
            Wire::Custom { enc, .. } => enc.clone(),
        }
    }

    /// The read closure of `ty` on this wire.
    pub(crate) fn dec(&self, ty: &Type) -> Tokens {
        match self {
            Wire::Trait => trait_dec(ty),
            Wire::Custom { dec, .. } => dec.clone(),
        }
    }

    /// The resolving read closure of `ty` on this wire.
    pub(crate) fn res(&self, ty: &Type) -> Tokens {
        match self {
            Wire::Trait => trait_res(ty),
            Wire::Custom { res, .. } => res.clone(),
        }
    }

    /// An expression reading a `ty` written with another schema, as op `op` of `rs` (a
    /// `Result`).
    pub(crate) fn read_resolved(&self, ty: &Type, op: Tokens) -> Tokens {
        match self {
            Wire::Trait => {
                quote!(<#ty as ::avrokit::AvroDecode<'__de>>::decode_resolved(dec, rs, #op))
            }
            Wire::Custom { res, .. } => quote!((#res)(dec, rs, #op)),
        }
    }

    /// An expression reading a value written with another schema, as op `op` of `rs`, over
    /// the place `v` (a `&mut ty`; a `Result<()>`), reusing its allocations.
    pub(crate) fn read_resolved_into(&self, v: Tokens, op: Tokens) -> Tokens {
        match self {
            Wire::Trait => quote!(::avrokit::AvroDecode::decode_resolved_into(#v, dec, rs, #op)),
            Wire::Custom {
                res_into: Some(into),
                ..
            } => quote!((#into)(dec, rs, #op, #v)),
            Wire::Custom { res, .. } => quote!((#res)(dec, rs, #op).map(|x| *#v = x)),
        }
    }

    /// A closure reading a reader-only field's default over the place `v` (a `&mut ty`), as
    /// [`read_default`](Self::read_default) reads a new value.
    pub(crate) fn read_default_into(&self, ty: &Type, v: Tokens) -> Tokens {
        let p = p();
        let src = quote!(#p::DefaultSource<'_>);
        let body = match self {
            Wire::Trait => quote!(::avrokit::AvroDecode::decode_into(#v, dec)),
            Wire::Custom {
                into: Some(into), ..
            } => {
                let into = with_source(into.clone(), &src);
                quote!((#into)(dec, #v))
            }
            Wire::Custom { dec, .. } => {
                let read = with_source(dec.clone(), &src);
                quote!((#read)(dec).map(|x: #ty| *#v = x))
            }
        };
        quote!(|dec: &mut #p::Decoder<'__de, #src>| -> #p::Result<()> { #body })
    }

    /// A closure reading a `ty` from a reader-only field's default (a decoder over a
    /// [`DefaultSource`], which lends nothing).
    pub(crate) fn read_default(&self, ty: &Type) -> Tokens {
        let p = p();
        match self {
            Wire::Trait => quote!(
                |dec: &mut #p::Decoder<'__de, #p::DefaultSource<'_>>| -> #p::Result<#ty> {
                    <#ty as ::avrokit::AvroDecode<'__de>>::decode(dec)
                }
            ),
            Wire::Custom { dec, .. } => with_source(dec.clone(), &quote!(#p::DefaultSource<'_>)),
        }
    }

    /// A statement writing the place `v` (a reference).
    pub(crate) fn write(&self, v: Tokens) -> Tokens {
        match self {
            Wire::Trait => quote!(::avrokit::AvroEncode::encode(#v, enc)?;),
            Wire::Custom { enc, .. } => quote!((#enc)(enc, #v)?;),
        }
    }

    /// An expression reading a `ty` (a `Result`).
    pub(crate) fn read(&self, ty: &Type) -> Tokens {
        match self {
            Wire::Trait => quote!(<#ty as ::avrokit::AvroDecode<'__de>>::decode(dec)),
            Wire::Custom { dec, .. } => quote!((#dec)(dec)),
        }
    }

    /// An expression reading over the place `v` (a `&mut ty`; a `Result<()>`).
    pub(crate) fn read_into(&self, v: Tokens) -> Tokens {
        match self {
            Wire::Trait => quote!(::avrokit::AvroDecode::decode_into(#v, dec)),
            Wire::Custom {
                into: Some(into), ..
            } => quote!((#into)(dec, #v)),
            Wire::Custom { dec, .. } => quote!((#dec)(dec).map(|x| *#v = x)),
        }
    }

    /// A `const bool` expression: true when values of `ty` take no bytes.
    pub(crate) fn zero_size(&self, ty: &Type) -> Tokens {
        match self {
            Wire::Trait => quote!(<#ty as ::avrokit::AvroDecode<'__de>>::ZERO_SIZE),
            Wire::Custom { .. } => quote!(false),
        }
    }
}

/// How `ty` is written and read; `bytes` for `#[serde(with = "serde_bytes")]`, `overlay` the
/// field's `#[avro(schema)]` at this type. `Err` says why the derive writes no codec for it.
pub(crate) fn wire(ty: &Type, bytes: bool, overlay: Option<&Json>) -> Result<Wire, String> {
    let p = p();
    if let Some((name, args)) = path_parts(ty) {
        match (name.as_str(), args.as_slice()) {
            ("Option", [inner]) => {
                let (null_second, inner_overlay) = match overlay {
                    None => (false, None),
                    Some(Json::Array(b)) if b.len() == 2 && is_null(&b[0]) => (false, Some(&b[1])),
                    Some(Json::Array(b)) if b.len() == 2 && is_null(&b[1]) => (true, Some(&b[0])),
                    Some(_) => {
                        return Err("an `Option` whose schema is not a union with null".into())
                    }
                };
                let w = wire(inner, bytes, inner_overlay)?;
                if !null_second && matches!(w, Wire::Trait) {
                    return Ok(Wire::Trait);
                }
                let (ie, id, ir) = (w.enc(inner), w.dec(inner), w.res(inner));
                return Ok(Wire::Custom {
                    enc: quote!(|enc: &mut #p::Encoder<__S>, v: &#ty| -> #p::Result<()> {
                        #p::encode_option(enc, v, #null_second, #ie)
                    }),
                    dec: quote!(|dec: &mut #p::Decoder<'__de, __S>| -> #p::Result<#ty> {
                        #p::decode_option(dec, #null_second, #id)
                    }),
                    into: None,
                    res_into: None,
                    res: quote!(
                        |dec: &mut #p::Decoder<'__de, __S>, rs: &#p::Resolver, op: u32|
                            -> #p::Result<#ty> {
                            #p::decode_option_resolved(dec, rs, op, #null_second, #ir)
                        }
                    ),
                });
            }
            (_, _) if bytes => return bytes_wire(ty),
            ("Vec", [inner]) if is_u8(inner) => return bytes_wire(ty),
            ("Cow", [Type::Slice(s)]) if is_u8(&s.elem) => return bytes_wire(ty),
            ("Box", [Type::Slice(s)]) if is_u8(&s.elem) => return bytes_wire(ty),
            ("Vec", [inner]) => {
                let w = wire(inner, false, overlay.and_then(|o| o.get("items")))?;
                if matches!(w, Wire::Trait) {
                    return Ok(Wire::Trait);
                }
                let (ie, id, ir) = (w.enc(inner), w.dec(inner), w.res(inner));
                return Ok(Wire::Custom {
                    enc: quote!(|enc: &mut #p::Encoder<__S>, v: &#ty| -> #p::Result<()> {
                        #p::encode_array(enc, v, #ie)
                    }),
                    dec: quote!(|dec: &mut #p::Decoder<'__de, __S>| -> #p::Result<#ty> {
                        #p::decode_array(dec, #id)
                    }),
                    into: None,
                    res_into: None,
                    res: quote!(
                        |dec: &mut #p::Decoder<'__de, __S>, rs: &#p::Resolver, op: u32|
                            -> #p::Result<#ty> {
                            #p::decode_array_resolved(dec, rs, op, #ir)
                        }
                    ),
                });
            }
            ("HashMap" | "BTreeMap", [key, value, ..]) => {
                if !string_key(key) {
                    return Err("a map whose keys are not strings".into());
                }
                let w = wire(value, false, overlay.and_then(|o| o.get("values")))?;
                if matches!(w, Wire::Trait) {
                    return Ok(Wire::Trait);
                }
                let (ie, id, ir) = (w.enc(value), w.dec(value), w.res(value));
                return Ok(Wire::Custom {
                    enc: quote!(|enc: &mut #p::Encoder<__S>, v: &#ty| -> #p::Result<()> {
                        #p::encode_map(enc, v.len(), v.iter(), #ie)
                    }),
                    dec: quote!(|dec: &mut #p::Decoder<'__de, __S>| -> #p::Result<#ty> {
                        #p::decode_map(dec, #id)
                    }),
                    into: None,
                    res_into: None,
                    res: quote!(
                        |dec: &mut #p::Decoder<'__de, __S>, rs: &#p::Resolver, op: u32|
                            -> #p::Result<#ty> {
                            #p::decode_map_resolved(dec, rs, op, #ir)
                        }
                    ),
                });
            }
            ("VecDeque" | "Box" | "Rc" | "Arc" | "Cow", [inner]) => {
                return match wire(inner, false, overlay)? {
                    Wire::Trait => Ok(Wire::Trait),
                    Wire::Custom { .. } => Err(format!("{name} of bytes or of [T, null] unions")),
                };
            }
            _ => {}
        }
        if let Some((_, why)) = NO_CODEC.iter().find(|(n, _)| *n == name) {
            return Err(format!("{why} have no codec"));
        }
    }
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) if is_u8(&s.elem) => bytes_wire(ty),
            _ => leaf(overlay),
        },
        Type::Paren(t) => wire(&t.elem, bytes, overlay),
        Type::Group(t) => wire(&t.elem, bytes, overlay),
        // A `[u8; N]` is a fixed also under `serde_bytes`, as its schema says: the trait's.
        Type::Array(a) if is_u8(&a.elem) => Ok(Wire::Trait),
        _ if bytes => Err("a `serde_bytes` field of this type".into()),
        _ => leaf(overlay),
    }
}

/// A type the traits write: its schema is its own, so an overlay may annotate it but not
/// reorder a union in it.
fn leaf(overlay: Option<&Json>) -> Result<Wire, String> {
    match overlay {
        Some(Json::Array(_)) => {
            Err("an #[avro(schema)] union over a type with its own codec".into())
        }
        _ => Ok(Wire::Trait),
    }
}

/// `bytes`: `Vec<u8>`, `&[u8]`, `Cow<[u8]>`, `Box<[u8]>`, and other types under `serde_bytes`.
fn bytes_wire(ty: &Type) -> Result<Wire, String> {
    let p = p();
    Ok(Wire::Custom {
        enc: quote!(|enc: &mut #p::Encoder<__S>, v: &#ty| -> #p::Result<()> {
            #p::write_bytes(enc, ::core::convert::AsRef::<[u8]>::as_ref(v))
        }),
        dec: quote!(|dec: &mut #p::Decoder<'__de, __S>| -> #p::Result<#ty> {
            <#ty as #p::Bytes<'__de>>::read(dec)
        }),
        into: Some(
            quote!(|dec: &mut #p::Decoder<'__de, __S>, v: &mut #ty| -> #p::Result<()> {
                #p::Bytes::read_into(v, dec)
            }),
        ),
        res: quote!(
            |dec: &mut #p::Decoder<'__de, __S>, rs: &#p::Resolver, op: u32| -> #p::Result<#ty> {
                <#ty as #p::Bytes<'__de>>::read_resolved(dec, rs, op)
            }
        ),
        res_into: Some(quote!(
            |dec: &mut #p::Decoder<'__de, __S>, rs: &#p::Resolver, op: u32, v: &mut #ty|
                -> #p::Result<()> {
                #p::Bytes::read_resolved_into(v, dec, rs, op)
            }
        )),
    })
}

/// A `const bool` expression: true unless `ty` is a type whose codec reports that it has
/// none (`flag` is `HAS_CODEC`), or cannot resolve (`flag` is `RESOLVES`). Follows the type
/// through `Option` (a value of the type contains one of its inner type) and stops at pointers
/// and collections, which a recursive type goes through.
pub(crate) fn has_codec(ty: &Type, trait_path: &Tokens, flag: &Tokens) -> Tokens {
    if let Some((name, args)) = path_parts(ty) {
        match (name.as_str(), args.as_slice()) {
            ("Option", [inner]) => return has_codec(inner, trait_path, flag),
            (
                "Vec" | "VecDeque" | "Box" | "Rc" | "Arc" | "Cow" | "HashMap" | "BTreeMap"
                | "String" | "str" | "bool" | "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32"
                | "u64" | "f32" | "f64" | "char",
                _,
            ) => return quote!(true),
            _ => {}
        }
    }
    match ty {
        Type::Path(_) => quote!(<#ty as #trait_path>::#flag),
        _ => quote!(true),
    }
}
