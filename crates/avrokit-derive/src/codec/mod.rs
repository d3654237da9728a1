//! The generated codec: `AvroEncode` and `AvroDecode` impls writing and reading the type's own
//! schema (what `schema.rs` derives) field by field, with no dispatch and no names looked up.
//!
//! A type the derive cannot write a codec for (a field of a date/time or uuid type, a
//! `#[avro(schema)]` that reorders a union, a decimal field, `#[avro(no_codec)]`) gets impls
//! whose calls return an error saying why, with `HAS_CODEC = false` so that readers and writers
//! built on `CodecPlan` take the serde path for it instead.

mod wire;

use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, Type};

use self::wire::{p, wire, Wire};
use crate::attrs::{field_attrs, rename, ContainerAttrs, Errors};

/// What the impls say, for the type as a whole.
struct Bodies {
    encode: Tokens,
    decode: Tokens,
    /// `decode_resolved`'s body: data of another writer schema, through `rs` at op `op`.
    decode_resolved: Tokens,
    /// `decode_into`'s body, when it does better than the default (records).
    decode_into: Option<Tokens>,
    /// `decode_resolved_into`'s body, when it does better than the default (records).
    decode_resolved_into: Option<Tokens>,
    zero_size: Tokens,
    /// The field types that decide `HAS_CODEC`.
    types: Vec<Type>,
    /// For an enum written as a union: its branch methods.
    union: Option<UnionBodies>,
    /// `decode` and `decode_resolved` are `#[inline(always)]`: bodies so small that a call
    /// costs more than they do (an enum of unit variants: a varint and a range check), which
    /// LLVM's `#[inline]` heuristics still left out of line in a record's decode.
    always_inline: bool,
}

/// The branch methods of a union type (see `AvroDecode::BRANCHES`): bodies reading and
/// writing one branch, so that `Option<T>` can make `T`'s branches its own.
struct UnionBodies {
    branches: u32,
    /// `encode_branch`'s body (`shift` in scope).
    encode_branch: Tokens,
    /// `decode_branch`'s body (`index`, `at` in scope).
    decode_branch: Tokens,
    /// `decode_resolved_branch`'s body (`rs`, `index`, `op` in scope).
    decode_resolved_branch: Tokens,
}

/// One field of a record (a struct or a struct variant).
struct Field {
    /// `name`, or the tuple index.
    member: Tokens,
    /// The Avro field name, for error paths.
    name: String,
    ty: Type,
    /// `None` for a skipped field, which decoding fills with `default`.
    wire: Option<Wire>,
    default: Tokens,
}

/// The `AvroEncode` and `AvroDecode` impls of `input`.
pub(crate) fn codec_impls(input: &DeriveInput, c: &ContainerAttrs) -> Tokens {
    let bodies = if c.no_codec {
        Err("#[avro(no_codec)]".to_owned())
    } else {
        bodies(input, c)
    };
    let has_codec = bodies.is_ok();
    let bodies = bodies.unwrap_or_else(|why| {
        let p = p();
        let what = format!("{} has no generated codec: {why}", input.ident);
        Bodies {
            encode: quote!(::core::result::Result::Err(#p::no_codec(#what))),
            decode: quote!(::core::result::Result::Err(#p::no_codec(#what))),
            decode_resolved: quote!(::core::result::Result::Err(#p::no_codec(#what))),
            decode_into: None,
            decode_resolved_into: None,
            zero_size: quote!(false),
            types: Vec::new(),
            union: None,
            always_inline: false,
        }
    });
    emit(input, bodies, has_codec)
}

fn bodies(input: &DeriveInput, c: &ContainerAttrs) -> Result<Bodies, String> {
    let rename_all = c.rename_all.as_deref();
    match &input.data {
        Data::Struct(s) => {
            let newtype = match &s.fields {
                Fields::Unnamed(f) => f.unnamed.len() == 1 || c.transparent,
                Fields::Named(_) => c.transparent,
                Fields::Unit => false,
            };
            let fields = fields(&s.fields, rename_all)?;
            if newtype {
                return newtype_bodies(&s.fields, fields);
            }
            Ok(record_bodies(&s.fields, &fields))
        }
        Data::Enum(e) => {
            let mut scratch = Errors::default();
            let variants: Vec<_> = e
                .variants
                .iter()
                .map(|v| (v, field_attrs(&v.attrs, &mut scratch).skip))
                .collect();
            let all_unit = !e.variants.is_empty()
                && e.variants.iter().all(|v| matches!(v.fields, Fields::Unit));
            if all_unit {
                return Ok(unit_enum_bodies(&variants));
            }
            union_bodies(&variants)
        }
        Data::Union(_) => Err("a Rust union".into()),
    }
}

/// The fields of a struct or variant, in declaration order.
fn fields(fields: &Fields, rename_all: Option<&str>) -> Result<Vec<Field>, String> {
    let mut scratch = Errors::default();
    let mut out = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let attrs = field_attrs(&f.attrs, &mut scratch);
        let member = match &f.ident {
            Some(id) => quote!(#id),
            None => {
                let i = syn::Index::from(i);
                quote!(#i)
            }
        };
        let rust = match &f.ident {
            Some(id) => id.to_string().trim_start_matches("r#").to_owned(),
            None => format!("field{i}"),
        };
        let name = match attrs.rename.clone() {
            Some(n) => n,
            None => rename(&rust, rename_all, false).unwrap_or(rust),
        };
        let default = match &attrs.serde_default {
            Some(Some(path)) => quote!(#path()),
            _ => quote!(::core::default::Default::default()),
        };
        let wire = if attrs.skip {
            None
        } else {
            if matches!(&attrs.logical, Some((lt, _)) if lt == "decimal") {
                return Err(format!(
                    "field `{name}` is a decimal (writers must check its precision)"
                ));
            }
            let overlay = attrs
                .schema
                .as_ref()
                .and_then(|s| serde_json::from_str::<serde_json::Value>(&s.value()).ok());
            Some(
                wire(&f.ty, attrs.bytes, overlay.as_ref())
                    .map_err(|w| format!("field `{name}`: {w}"))?,
            )
        };
        out.push(Field {
            member,
            name,
            ty: f.ty.clone(),
            wire,
            default,
        });
    }
    Ok(out)
}

/// Local names for the fields' values.
fn locals(fields: &[Field]) -> Vec<syn::Ident> {
    (0..fields.len())
        .map(|i| format_ident!("__f{}", i))
        .collect()
}

/// Statements reading the fields into `locals`, each error with its field's name.
fn read_fields(fields: &[Field], locals: &[syn::Ident]) -> Tokens {
    let p = p();
    fields
        .iter()
        .zip(locals)
        .map(|(f, l)| match &f.wire {
            Some(w) => {
                let read = w.read(&f.ty);
                let name = &f.name;
                quote!(let #l = match #read {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => {
                        return ::core::result::Result::Err(#p::in_field(e, #name))
                    }
                };)
            }
            None => {
                let d = &f.default;
                quote!(let #l = #d;)
            }
        })
        .collect()
}

/// An expression (a `Result`) reading a record of `fields` written with another schema, as
/// op `op` of `rs`: the writer's fields in the plan's order, each read by its field type's
/// resolving code into its local, then the reader-only fields' defaults, then `path` built.
fn resolve_record(path: Tokens, shape: &Fields, fields: &[Field]) -> Tokens {
    let p = p();
    let locals = locals(fields);
    // Reader field positions: the written fields, in order (skipped ones are not in the
    // schema).
    let wired: Vec<(usize, &Field)> = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.wire.is_some())
        .collect();
    let decls: Tokens = fields
        .iter()
        .zip(&locals)
        .map(|(f, l)| {
            let ty = &f.ty;
            match &f.wire {
                Some(_) => {
                    quote!(let mut #l: ::core::option::Option<#ty> = ::core::option::Option::None;)
                }
                None => {
                    let d = &f.default;
                    quote!(let #l: #ty = #d;)
                }
            }
        })
        .collect();
    let reads: Tokens = wired
        .iter()
        .enumerate()
        .map(|(pos, (i, f))| {
            let pos = pos as u32;
            let l = &locals[*i];
            let read = f
                .wire
                .as_ref()
                .map(|w| w.read_resolved(&f.ty, quote!(__op)))
                .unwrap_or_default();
            quote!(#pos => {
                #l = ::core::option::Option::Some(match #read {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => {
                        return ::core::result::Result::Err(__rec.in_step(e, __k))
                    }
                });
            })
        })
        .collect();
    let defaults: Tokens = wired
        .iter()
        .enumerate()
        .map(|(pos, (i, f))| {
            let pos = pos as u32;
            let l = &locals[*i];
            let name = &f.name;
            let read = f
                .wire
                .as_ref()
                .map(|w| w.read_default(&f.ty))
                .unwrap_or_default();
            quote!(#pos => {
                #l = ::core::option::Option::Some(match __rec.default_with(__k, #read) {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => {
                        return ::core::result::Result::Err(#p::in_field(e, #name))
                    }
                });
            })
        })
        .collect();
    let unwraps: Tokens = wired
        .iter()
        .map(|(i, f)| {
            let l = &locals[*i];
            let name = &f.name;
            quote!(let #l = match #l {
                ::core::option::Option::Some(v) => v,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(#p::unfilled(#name))
                }
            };)
        })
        .collect();
    // Writer fields that are the reader's first ones, in order (only promotions differ), the
    // rest defaulted (fields added to the schema): read straight.
    let n = wired.len();
    let straight: Tokens = wired
        .iter()
        .enumerate()
        .map(|(pos, (i, f))| {
            let l = &locals[*i];
            let name = &f.name;
            let (read, default) = f
                .wire
                .as_ref()
                .map(|w| {
                    (
                        w.read_resolved(&f.ty, quote!(__rec.op(#pos)?)),
                        w.read_default(&f.ty),
                    )
                })
                .unwrap_or_default();
            quote!(let #l = if #pos < __m {
                match #read {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => {
                        return ::core::result::Result::Err(__rec.in_step(e, #pos))
                    }
                }
            } else {
                match __rec.default_with(#pos - __m, #default) {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(e) => {
                        return ::core::result::Result::Err(#p::in_field(e, #name))
                    }
                }
            };)
        })
        .collect();
    let skipped: Tokens = fields
        .iter()
        .zip(&locals)
        .filter(|(f, _)| f.wire.is_none())
        .map(|(f, l)| {
            let ty = &f.ty;
            let d = &f.default;
            quote!(let #l: #ty = #d;)
        })
        .collect();
    let build = construct(path, shape, fields, &locals);
    let walk = walk_steps(&reads, &defaults);
    quote!({
        let __rec = rs.record(dec, op)?;
        if let ::core::option::Option::Some(__m) = __rec.straight(#n) {
            #straight
            #skipped
            return ::core::result::Result::Ok(#build);
        }
        #decls
        #walk
        #unwraps
        ::core::result::Result::Ok(#build)
    })
}

/// The walk of a resolved record that is not read straight: the writer's fields in writer
/// order, each read by its arm of `reads` (skipped ones are skipped by `step`), then the
/// reader-only fields by their arms of `defaults`; both match on the reader position.
fn walk_steps(reads: &Tokens, defaults: &Tokens) -> Tokens {
    let p = p();
    quote!(
        for __k in 0..__rec.len() {
            if let ::core::option::Option::Some((__to, __op)) = __rec.step(dec, __k)? {
                match __to {
                    #reads
                    __other => return ::core::result::Result::Err(#p::no_field(__other)),
                }
            }
        }
        for __k in 0..__rec.defaults() {
            match __rec.default_pos(__k) {
                #defaults
                __other => return ::core::result::Result::Err(#p::no_field(__other)),
            }
        }
    )
}

/// `decode_resolved_into`'s body for a record: as [`resolve_record`], writing each field in
/// place (the `Resolver` checked that the plan fills every field once, so none is left stale).
fn resolve_record_into(fields: &[Field]) -> Tokens {
    let p = p();
    let wired: Vec<&Field> = fields.iter().filter(|f| f.wire.is_some()).collect();
    let n = wired.len();
    let place = |f: &Field| {
        let m = &f.member;
        quote!(&mut self.#m)
    };
    let mut reads = Tokens::new();
    let mut defaults = Tokens::new();
    let mut straight = Tokens::new();
    for (pos, f) in wired.iter().enumerate() {
        let Some(w) = &f.wire else { continue };
        let name = &f.name;
        let read = w.read_resolved_into(place(f), quote!(__op));
        let default = w.read_default_into(&f.ty, place(f));
        let pos32 = pos as u32;
        reads.extend(quote!(#pos32 => {
            if let ::core::result::Result::Err(e) = #read {
                return ::core::result::Result::Err(__rec.in_step(e, __k));
            }
        }));
        defaults.extend(quote!(#pos32 => {
            if let ::core::result::Result::Err(e) = __rec.default_with(__k, #default) {
                return ::core::result::Result::Err(#p::in_field(e, #name));
            }
        }));
        let read = w.read_resolved_into(place(f), quote!(__rec.op(#pos)?));
        straight.extend(quote!(
            if #pos < __m {
                if let ::core::result::Result::Err(e) = #read {
                    return ::core::result::Result::Err(__rec.in_step(e, #pos));
                }
            } else if let ::core::result::Result::Err(e) = __rec.default_with(#pos - __m, #default) {
                return ::core::result::Result::Err(#p::in_field(e, #name));
            }
        ));
    }
    let skipped: Tokens = fields
        .iter()
        .filter(|f| f.wire.is_none())
        .map(|f| {
            let m = &f.member;
            let d = &f.default;
            quote!(self.#m = #d;)
        })
        .collect();
    let walk = walk_steps(&reads, &defaults);
    quote!({
        let __rec = rs.record(dec, op)?;
        if let ::core::option::Option::Some(__m) = __rec.straight(#n) {
            #straight
            #skipped
            return ::core::result::Result::Ok(());
        }
        #walk
        #skipped
        ::core::result::Result::Ok(())
    })
}

/// `Path { a: __f0, .. }`, `Path(__f0, ..)` or `Path`.
fn construct(path: Tokens, shape: &Fields, fields: &[Field], locals: &[syn::Ident]) -> Tokens {
    let members = fields.iter().map(|f| &f.member);
    match shape {
        Fields::Named(_) => quote!(#path { #(#members: #locals),* }),
        Fields::Unnamed(_) => quote!(#path(#(#locals),*)),
        Fields::Unit => path,
    }
}

/// A pattern binding the written fields of a variant to `locals` (`_` for skipped ones).
fn pattern(path: Tokens, shape: &Fields, fields: &[Field], locals: &[syn::Ident]) -> Tokens {
    let binds: Vec<Tokens> = fields
        .iter()
        .zip(locals)
        .map(|(f, l)| match f.wire {
            Some(_) => quote!(#l),
            None => quote!(_),
        })
        .collect();
    let members = fields.iter().map(|f| &f.member);
    match shape {
        Fields::Named(_) => quote!(#path { #(#members: #binds),* }),
        Fields::Unnamed(_) => quote!(#path(#(#binds),*)),
        Fields::Unit => path,
    }
}

/// Statements writing the bound `locals` (references).
fn write_locals(fields: &[Field], locals: &[syn::Ident]) -> Tokens {
    fields
        .iter()
        .zip(locals)
        .filter_map(|(f, l)| f.wire.as_ref().map(|w| w.write(quote!(#l))))
        .collect()
}

fn zero_size(fields: &[Field]) -> Tokens {
    let parts = fields
        .iter()
        .filter_map(|f| f.wire.as_ref().map(|w| w.zero_size(&f.ty)));
    quote!(true #(&& #parts)*)
}

fn written_types(fields: &[Field]) -> Vec<Type> {
    fields
        .iter()
        .filter(|f| f.wire.is_some())
        .map(|f| f.ty.clone())
        .collect()
}

/// A struct as a record: its fields in order.
fn record_bodies(shape: &Fields, fields: &[Field]) -> Bodies {
    let p = p();
    let writes: Tokens = fields
        .iter()
        .filter_map(|f| {
            let m = &f.member;
            f.wire.as_ref().map(|w| w.write(quote!(&self.#m)))
        })
        .collect();
    let locals = locals(fields);
    let reads = read_fields(fields, &locals);
    let build = construct(quote!(Self), shape, fields, &locals);
    let intos: Tokens = fields
        .iter()
        .map(|f| {
            let m = &f.member;
            match &f.wire {
                Some(w) => {
                    let into = w.read_into(quote!(&mut self.#m));
                    let name = &f.name;
                    quote!(if let ::core::result::Result::Err(e) = #into {
                        return ::core::result::Result::Err(#p::in_field(e, #name));
                    })
                }
                None => {
                    let d = &f.default;
                    quote!(self.#m = #d;)
                }
            }
        })
        .collect();
    Bodies {
        encode: quote!(#writes ::core::result::Result::Ok(())),
        decode: quote!(#reads ::core::result::Result::Ok(#build)),
        decode_resolved: resolve_record(quote!(Self), shape, fields),
        decode_into: Some(quote!(#intos ::core::result::Result::Ok(()))),
        decode_resolved_into: Some(resolve_record_into(fields)),
        zero_size: zero_size(fields),
        types: written_types(fields),
        union: None,
        always_inline: false,
    }
}

/// A newtype or transparent struct: as its first field.
fn newtype_bodies(shape: &Fields, fields: Vec<Field>) -> Result<Bodies, String> {
    let Some(inner) = fields.first() else {
        return Err("a transparent struct without fields".into());
    };
    let Some(w) = &inner.wire else {
        return Err("a newtype whose field is skipped".into());
    };
    let m = &inner.member;
    let write = w.write(quote!(&self.#m));
    let read = w.read(&inner.ty);
    let read_resolved = w.read_resolved(&inner.ty, quote!(op));
    let into = w.read_into(quote!(&mut self.#m));
    let resolved_into = w.read_resolved_into(quote!(&mut self.#m), quote!(op));
    let locals = locals(&fields);
    let first = &locals[0];
    let rest: Tokens = fields[1..]
        .iter()
        .zip(&locals[1..])
        .map(|(f, l)| {
            let d = &f.default;
            quote!(let #l = #d;)
        })
        .collect();
    let build = construct(quote!(Self), shape, &fields, &locals);
    Ok(Bodies {
        encode: quote!(#write ::core::result::Result::Ok(())),
        decode: quote!(let #first = #read?; #rest ::core::result::Result::Ok(#build)),
        decode_resolved: quote!(
            let #first = #read_resolved?; #rest ::core::result::Result::Ok(#build)
        ),
        decode_into: (fields.len() == 1).then_some(into),
        decode_resolved_into: (fields.len() == 1).then_some(resolved_into),
        zero_size: w.zero_size(&inner.ty),
        types: vec![inner.ty.clone()],
        union: None,
        always_inline: false,
    })
}

/// An enum of unit variants as an Avro enum: a symbol per variant that is not skipped.
fn unit_enum_bodies(variants: &[(&syn::Variant, bool)]) -> Bodies {
    let p = p();
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    let mut index = 0u32;
    for (v, skip) in variants {
        let id = &v.ident;
        if *skip {
            let what = id.to_string();
            writes.push(
                quote!(Self::#id => ::core::result::Result::Err(#p::skipped_variant(#what)),),
            );
            continue;
        }
        writes.push(quote!(Self::#id => enc.write_enum(#index),));
        reads.push((index, id));
        index += 1;
    }
    let n = index as usize;
    // The index is range-checked first, then mapped by a match that yields `Self` (its last
    // arm a catch-all): a match of constants becomes a table lookup with no branch, where one
    // writing `Ok(variant)` per arm stayed an indirect jump, mispredicted on every change of
    // symbol (about half the reads of random data).
    let (decode, decode_resolved) = match reads.split_last() {
        Some(((_, last), rest)) => {
            let arms = rest.iter().map(|(i, id)| quote!(#i => Self::#id,));
            let variant = quote!(match __i { #(#arms)* _ => Self::#last });
            (
                quote!({
                    let at = dec.offset();
                    let __i = dec.read_enum()?;
                    if __i >= #index {
                        return ::core::result::Result::Err(#p::bad_enum(__i, #n, at));
                    }
                    ::core::result::Result::Ok(#variant)
                }),
                quote!({
                    let __i = rs.symbol(dec, op)?;
                    if __i >= #index {
                        return ::core::result::Result::Err(#p::no_variant(__i));
                    }
                    ::core::result::Result::Ok(#variant)
                }),
            )
        }
        // No symbol to read (every variant skipped).
        None => (
            quote!({
                let at = dec.offset();
                ::core::result::Result::Err(#p::bad_enum(dec.read_enum()?, 0, at))
            }),
            quote!(::core::result::Result::Err(#p::no_variant(rs.symbol(dec, op)?))),
        ),
    };
    Bodies {
        encode: quote!(match self { #(#writes)* }),
        decode,
        decode_resolved,
        decode_into: None,
        decode_resolved_into: None,
        zero_size: quote!(false),
        types: Vec::new(),
        union: None,
        always_inline: true,
    }
}

/// An enum with data as a union: a branch per variant that is not skipped, in order.
fn union_bodies(variants: &[(&syn::Variant, bool)]) -> Result<Bodies, String> {
    let p = p();
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    let mut resolved = Vec::new();
    let mut types = Vec::new();
    let mut index = 0u32;
    for (v, skip) in variants {
        let id = &v.ident;
        if *skip {
            let what = id.to_string();
            writes.push(quote!(Self::#id { .. } => {
                ::core::result::Result::Err(#p::skipped_variant(#what))
            }));
            continue;
        }
        let newtype = matches!(&v.fields, Fields::Unnamed(f) if f.unnamed.len() == 1);
        let fields = fields(&v.fields, None).map_err(|e| format!("variant {id}: {e}"))?;
        let locals = locals(&fields);
        let pat = pattern(quote!(Self::#id), &v.fields, &fields, &locals);
        let write = write_locals(&fields, &locals);
        writes.push(quote!(#pat => {
            enc.write_union_index(#index + shift)?;
            #write
            ::core::result::Result::Ok(())
        }));
        let read = if newtype {
            let f = &fields[0];
            let Some(w) = &f.wire else {
                return Err(format!("variant {id}: its field is skipped"));
            };
            let r = w.read(&f.ty);
            let rr = w.read_resolved(&f.ty, quote!(op));
            resolved.push(quote!(#index => ::core::result::Result::Ok(Self::#id(#rr?)),));
            quote!(::core::result::Result::Ok(Self::#id(#r?)))
        } else {
            let r = read_fields(&fields, &locals);
            let build = construct(quote!(Self::#id), &v.fields, &fields, &locals);
            let rr = resolve_record(quote!(Self::#id), &v.fields, &fields);
            resolved.push(quote!(#index => #rr,));
            quote!({ #r ::core::result::Result::Ok(#build) })
        };
        reads.push(quote!(#index => #read,));
        types.extend(written_types(&fields));
        index += 1;
    }
    let n = index as usize;
    let encode_branch = if variants.is_empty() {
        quote!(match *self {})
    } else {
        quote!(match self { #(#writes)* })
    };
    Ok(Bodies {
        encode: quote!(::avrokit::AvroEncode::encode_branch(self, enc, 0)),
        decode: quote!({
            let at = dec.offset();
            let index = dec.read_union_index()?;
            <Self as ::avrokit::AvroDecode<'__de>>::decode_branch(dec, index, at)
        }),
        decode_resolved: quote!({
            let (__branch, op) = rs.branch(dec, op)?;
            <Self as ::avrokit::AvroDecode<'__de>>::decode_resolved_branch(dec, rs, __branch, op)
        }),
        decode_into: None,
        decode_resolved_into: None,
        zero_size: quote!(false),
        types,
        union: Some(UnionBodies {
            branches: index,
            encode_branch,
            decode_branch: quote!(match index {
                #(#reads)*
                i => ::core::result::Result::Err(#p::bad_union(i, #n, at)),
            }),
            decode_resolved_branch: quote!(match index {
                #(#resolved)*
                i => ::core::result::Result::Err(#p::no_variant(i)),
            }),
        }),
        always_inline: false,
    })
}

fn emit(input: &DeriveInput, b: Bodies, has_codec: bool) -> Tokens {
    let p = p();
    let ident = &input.ident;
    let mut ge = input.generics.clone();
    for tp in ge.type_params_mut() {
        tp.bounds.push(syn::parse_quote!(::avrokit::AvroEncode));
    }
    let (ig, tg, wc) = ge.split_for_impl();

    let mut gd = input.generics.clone();
    for tp in gd.type_params_mut() {
        tp.bounds
            .push(syn::parse_quote!(::avrokit::AvroDecode<'__de>));
    }
    let lifetimes: Vec<&syn::Lifetime> = input.generics.lifetimes().map(|l| &l.lifetime).collect();
    let de: syn::LifetimeParam = if lifetimes.is_empty() {
        syn::parse_quote!('__de)
    } else {
        syn::parse_quote!('__de: #(#lifetimes)+*)
    };
    gd.params.insert(0, syn::GenericParam::Lifetime(de));
    let (igd, _, wcd) = gd.split_for_impl();

    let Bodies {
        encode,
        decode,
        decode_resolved,
        decode_into,
        decode_resolved_into,
        zero_size,
        types,
        union,
        always_inline,
    } = b;
    let inline = if always_inline {
        quote!(#[inline(always)])
    } else {
        quote!(#[inline])
    };
    let dec_trait = quote!(::avrokit::AvroDecode<'__de>);
    let flag = |name: Tokens| {
        if has_codec {
            let parts = types.iter().map(|t| wire::has_codec(t, &dec_trait, &name));
            quote!(true #(&& #parts)*)
        } else {
            quote!(false)
        }
    };
    let has = flag(quote!(HAS_CODEC));
    let resolves = flag(quote!(RESOLVES));
    let decode_into = decode_into.map(|body| {
        quote! {
            #[inline]
            fn decode_into<__S: #p::Source<'__de>>(
                &mut self,
                dec: &mut #p::Decoder<'__de, __S>,
            ) -> #p::Result<()> {
                #body
            }
        }
    });
    let decode_resolved_into = decode_resolved_into.map(|body| {
        quote! {
            #[inline]
            #[allow(unused_variables, unreachable_code)]
            fn decode_resolved_into<__S: #p::Source<'__de>>(
                &mut self,
                dec: &mut #p::Decoder<'__de, __S>,
                rs: &#p::Resolver,
                op: u32,
            ) -> #p::Result<()> {
                #body
            }
        }
    });
    let (enc_branch, dec_branch) = match union {
        Some(UnionBodies {
            branches,
            encode_branch,
            decode_branch,
            decode_resolved_branch,
        }) => (
            quote! {
                #[allow(unused_variables)]
                fn encode_branch<__S: #p::Sink>(
                    &self,
                    enc: &mut #p::Encoder<__S>,
                    shift: u32,
                ) -> #p::Result<()> {
                    #encode_branch
                }
            },
            quote! {
                const BRANCHES: u32 = #branches;

                #[allow(unused_variables)]
                fn decode_branch<__S: #p::Source<'__de>>(
                    dec: &mut #p::Decoder<'__de, __S>,
                    index: u32,
                    at: u64,
                ) -> #p::Result<Self> {
                    #decode_branch
                }

                #[allow(unused_variables, unused_mut, unreachable_code)]
                fn decode_resolved_branch<__S: #p::Source<'__de>>(
                    dec: &mut #p::Decoder<'__de, __S>,
                    rs: &#p::Resolver,
                    index: u32,
                    op: u32,
                ) -> #p::Result<Self> {
                    #decode_resolved_branch
                }
            },
        ),
        None => (Tokens::new(), Tokens::new()),
    };
    quote! {
        #[automatically_derived]
        impl #ig ::avrokit::AvroEncode for #ident #tg #wc {
            #[inline]
            #[allow(unused_variables)]
            fn encode<__S: #p::Sink>(&self, enc: &mut #p::Encoder<__S>) -> #p::Result<()> {
                #encode
            }

            #enc_branch
        }

        #[automatically_derived]
        impl #igd ::avrokit::AvroDecode<'__de> for #ident #tg #wcd {
            const ZERO_SIZE: bool = #zero_size;
            const HAS_CODEC: bool = #has;
            const RESOLVES: bool = #resolves;

            #inline
            #[allow(unused_variables)]
            fn decode<__S: #p::Source<'__de>>(
                dec: &mut #p::Decoder<'__de, __S>,
            ) -> #p::Result<Self> {
                #decode
            }

            #inline
            #[allow(unused_variables, unused_mut, unreachable_code)]
            fn decode_resolved<__S: #p::Source<'__de>>(
                dec: &mut #p::Decoder<'__de, __S>,
                rs: &#p::Resolver,
                op: u32,
            ) -> #p::Result<Self> {
                #decode_resolved
            }

            #dec_branch

            #decode_into

            #decode_resolved_into
        }
    }
}
