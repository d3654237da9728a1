//! [`AvroSchema`]: the Avro schema of a Rust type.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Value as Json};

use crate::error::Error;
use crate::schema::Schema;

/// The Avro schema of a Rust type, as the serde front end writes and reads it.
///
/// Implemented for the primitive and standard types, and by `#[derive(AvroSchema)]` (the
/// `derive` feature) for structs and enums. Named types (records, enums, fixed) are written in
/// full the first time they occur and by name after that, so a type used twice, or a recursive
/// type, gives a valid schema.
///
/// | Rust | Avro |
/// |---|---|
/// | `bool` | `boolean` |
/// | `i8`, `i16`, `i32`, `u8`, `u16` | `int` |
/// | `i64`, `u32`, `u64` | `long` |
/// | `f32`, `f64` | `float`, `double` |
/// | `char`, `String`, `str`, `Cow<str>` | `string` |
/// | `()` | `null` |
/// | `Option<T>` | `["null", T]` |
/// | `Vec<T>`, `[T]`, `HashSet<T>` | `array` (the derive writes `Vec<u8>` as `bytes`) |
/// | `HashMap<String, V>`, `BTreeMap<String, V>` | `map` |
/// | `[u8; N]` | `fixed` of size N named `fixed_N` in the enclosing namespace (the derive names it after the field instead) |
/// | `uuid::Uuid` (feature `uuid`) | `{"type":"string","logicalType":"uuid"}` |
/// | chrono's `NaiveDate`, time's `Date` (features `chrono`, `time`) | `int` `date` |
/// | chrono's `NaiveTime`, time's `Time` | `long` `time-micros` |
/// | chrono's `DateTime<Tz>`, time's `OffsetDateTime` | `long` `timestamp-micros` |
/// | chrono's `NaiveDateTime`, time's `PrimitiveDateTime` | `long` `local-timestamp-micros` |
/// | `rust_decimal::Decimal`, `bigdecimal::BigDecimal` (features `rust_decimal`, `bigdecimal`) | `bytes` `big-decimal` (each value keeps its scale); the derive's `#[avro(logical_type = "decimal", precision = P, scale = S)]` makes it a `decimal` |
/// | `Box<T>`, `Arc<T>`, `&T` | as `T` |
///
/// # Examples
/// ```
/// use avrokit::serde::AvroSchema;
/// assert_eq!(<Option<Vec<i64>>>::schema().canonical_form(),
///            r#"["null",{"type":"array","items":"long"}]"#);
/// ```
pub trait AvroSchema {
    /// The schema of `Self`.
    ///
    /// # Panics
    /// A derived implementation panics if the Rust type does not make a valid Avro schema in a
    /// way the derive macro cannot see (for instance an enum whose variants hold two types of
    /// the same Avro type, which would make a union with two `long` branches, or two Rust
    /// types with the same Avro fullname in one schema); the message says why. The standard
    /// implementations never panic.
    fn schema() -> Schema;

    /// The schema as JSON, named types in full the first time `names` meets them and by name
    /// after. Used by derived implementations to compose schemas.
    #[doc(hidden)]
    fn __avro_json(names: &mut Names) -> Json {
        let _ = names;
        Self::schema().to_json()
    }
}

/// The named types already written while building one schema, and the namespace of the named
/// type being written (which a name without a namespace of its own takes, as Avro says).
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Names {
    /// Fullname to what defined it (a Rust type's name, `fixed(16)`...).
    defined: HashMap<String, String>,
    /// Rust type to the fullname it was written with (a type without a namespace of its own
    /// takes the namespace of the first place it is used in).
    owners: HashMap<String, String>,
    /// The namespaces of the named types being written, innermost last.
    namespaces: Vec<String>,
}

impl Names {
    /// The fullname of a type named `name` (a simple name, or a dotted fullname) with the
    /// namespace `namespace` (`None`: the enclosing type's; `Some("")`: the null namespace).
    pub fn fullname(&self, name: &str, namespace: Option<&str>) -> String {
        if name.contains('.') {
            return name.to_owned();
        }
        let ns = match namespace {
            Some(ns) => ns,
            None => self.namespaces.last().map_or("", String::as_str),
        };
        if ns.is_empty() {
            name.to_owned()
        } else {
            format!("{ns}.{name}")
        }
    }

    /// Records that `fullname` is written by `owner`: true the first time (write the type in
    /// full), false after (refer to it by its fullname).
    ///
    /// # Panics
    /// When another owner wrote that fullname: Avro has one type per name.
    pub fn define(&mut self, fullname: &str, owner: &str) -> bool {
        match self.defined.get(fullname) {
            None => {
                self.defined.insert(fullname.to_owned(), owner.to_owned());
                true
            }
            Some(o) if o == owner => false,
            Some(o) => panic!(
                "#[derive(AvroSchema)]: two types are named {fullname} in one schema ({o} and \
                 {owner}); Avro names one type once: rename one (#[avro(name)], \
                 #[avro(namespace)], or #[avro(fixed_name)] for a [u8; N])"
            ),
        }
    }

    /// For the Rust type `owner` named `name` with the namespace `namespace` (see
    /// [`fullname`](Self::fullname)): `Ok(fullname)` the first time (write it in full, between
    /// [`enter`](Self::enter) and [`leave`](Self::leave)), `Err(fullname)` after (refer to it).
    ///
    /// # Panics
    /// When another type has that fullname (see [`define`](Self::define)).
    pub fn named_type(
        &mut self,
        name: &str,
        namespace: Option<&str>,
        owner: &str,
    ) -> Result<String, String> {
        if let Some(full) = self.owners.get(owner) {
            return Err(full.clone());
        }
        let full = self.fullname(name, namespace);
        if !self.define(&full, owner) {
            return Err(full);
        }
        self.owners.insert(owner.to_owned(), full.clone());
        Ok(full)
    }

    /// Enters the named type `fullname`: names inside it without a namespace take its
    /// namespace.
    pub fn enter(&mut self, fullname: &str) {
        let ns = fullname.rsplit_once('.').map_or("", |(ns, _)| ns);
        self.namespaces.push(ns.to_owned());
    }

    /// Leaves the named type entered last.
    pub fn leave(&mut self) {
        self.namespaces.pop();
    }
}

/// A `fixed` of `size` bytes named `name` (a simple name in the enclosing namespace, or a
/// fullname), or a reference to it when it was written already.
///
/// # Panics
/// When another type has that fullname (see [`Names::define`]).
#[doc(hidden)]
pub fn fixed_json(names: &mut Names, name: &str, size: usize) -> Json {
    let full = names.fullname(name, None);
    if names.define(&full, &format!("fixed({size})")) {
        json!({"type": "fixed", "name": name, "size": size})
    } else {
        Json::String(full)
    }
}

/// Parses the JSON a derived implementation built.
///
/// # Panics
/// When the JSON is not a valid schema (see [`AvroSchema::schema`]).
#[doc(hidden)]
pub fn schema_from_json(type_name: &str, json: Json) -> Schema {
    match Schema::parse_json(&json) {
        Ok(s) => s,
        Err(e) => panic!("#[derive(AvroSchema)] on {type_name} made an invalid Avro schema: {e}"),
    }
}

/// `["null", inner]` (or `inner` with `null` put first when `inner` is a union already).
#[doc(hidden)]
pub fn optional_json(inner: Json) -> Json {
    match inner {
        Json::Array(mut branches) => {
            if !branches.iter().any(|b| b == "null") {
                branches.insert(0, json!("null"));
            }
            Json::Array(branches)
        }
        inner => json!(["null", inner]),
    }
}

/// An array of `items`.
#[doc(hidden)]
pub fn array_json(items: Json) -> Json {
    json!({"type": "array", "items": items})
}

/// A map of `values`.
#[doc(hidden)]
pub fn map_json(values: Json) -> Json {
    json!({"type": "map", "values": values})
}

/// `inner` annotated with a logical type (and extra attributes such as `precision`).
///
/// # Panics
/// When the logical type cannot annotate `inner`'s type (`date` on a `long`...), which would
/// make Avro ignore it.
#[doc(hidden)]
pub fn with_logical(mut inner: Json, logical: &str, extra: &[(&str, Json)]) -> Json {
    use super::logical::Temporal;
    // A date or time type's precision may change its wire type (`NaiveTime` is a `long`
    // `time-micros`, or an `int` `time-millis`).
    if let (Some(new), Json::Object(o)) = (Temporal::from_name(logical), &mut inner) {
        let old = o.get("logicalType").and_then(Json::as_str);
        let is_time = |t: Temporal| matches!(t, Temporal::Time(_));
        if is_time(new) && old.and_then(Temporal::from_name).is_some_and(is_time) {
            let base = if new.is_int() { "int" } else { "long" };
            o.insert("type".into(), json!(base));
        }
    }
    let base = match &inner {
        Json::String(t) => Some(t.as_str()),
        Json::Object(o) => o.get("type").and_then(Json::as_str),
        _ => None,
    };
    let size = inner.get("size").and_then(Json::as_u64);
    let fits = match (logical, base) {
        ("decimal", Some(b)) => matches!(b, "bytes" | "fixed"),
        ("big-decimal", Some(b)) => b == "bytes",
        ("uuid", Some(b)) => b == "string" || (b == "fixed" && size == Some(16)),
        ("date" | "time-millis", Some(b)) => b == "int",
        ("duration", Some(b)) => b == "fixed" && size == Some(12),
        (_, Some(b)) => b == "long",
        (_, None) => true,
    };
    // A named type's reference (`"Md5"`) cannot be checked here.
    let named_ref = matches!(&inner, Json::String(t) if !PRIMITIVES.contains(&t.as_str()));
    if !fits && !named_ref {
        panic!(
            "#[avro(logical_type = {logical:?})] cannot annotate {}",
            base.unwrap_or("this type")
        );
    }
    let mut obj = match inner {
        Json::Object(o) => o,
        other => {
            let mut o = serde_json::Map::new();
            o.insert("type".into(), other);
            o
        }
    };
    obj.insert("logicalType".into(), json!(logical));
    for (k, v) in extra {
        obj.insert((*k).into(), v.clone());
    }
    Json::Object(obj)
}

const PRIMITIVES: &[&str] = &[
    "null", "boolean", "int", "long", "float", "double", "bytes", "string",
];

/// A field's default as the Avro JSON of its schema: a date or time default given as text
/// (what chrono's types serialize to) becomes its count, for a field of that logical type or a
/// union whose first branch is one.
#[doc(hidden)]
pub fn logical_default(schema: &Json, default: Json) -> Json {
    let node = match schema {
        Json::Array(branches) => branches.first().unwrap_or(&Json::Null),
        s => s,
    };
    let (Json::String(text), Some(lt)) = (&default, node.get("logicalType").and_then(Json::as_str))
    else {
        return default;
    };
    match super::logical::Temporal::from_name(lt).map(|t| t.parse(text)) {
        Some(Ok(v)) => json!(v),
        _ => default,
    }
}

/// A default from serde (`#[serde(default)]`, a type's `Default`) as the Avro JSON of its
/// schema: as [`logical_default`], and decimal text (what `rust_decimal` and `bigdecimal`
/// serialize to) becomes the JSON of its bytes: the unscaled integer at the schema's scale (a
/// fixed's sign-extended to its size), or a big-decimal's payload.
///
/// # Panics
/// When the text is a decimal that needs rounding to the schema's scale, or does not fit it.
#[doc(hidden)]
pub fn serde_logical_default(schema: &Json, default: Json) -> Json {
    use crate::logical::{big_decimal, decimal, Decimal};
    let node = match schema {
        Json::Array(branches) => branches.first().unwrap_or(&Json::Null),
        s => s,
    };
    let lt = node.get("logicalType").and_then(Json::as_str);
    let Json::String(text) = &default else {
        return default;
    };
    let bytes = match lt {
        Some("decimal") => {
            let scale = node.get("scale").and_then(Json::as_u64).unwrap_or(0);
            let precision = node.get("precision").and_then(Json::as_u64);
            let size = node.get("size").and_then(Json::as_u64);
            let written = u32::try_from(scale)
                .map_err(|_| Error::data("scale"))
                .and_then(|scale| decimal::text_to_unscaled(text, scale))
                .and_then(|b| {
                    let p = precision.and_then(|p| u32::try_from(p).ok());
                    let s = size.and_then(|s| usize::try_from(s).ok());
                    decimal::to_write(&b, p, s).map(|w| w.as_slice().to_vec())
                });
            match written {
                Ok(b) => b,
                Err(e) => panic!("the default {text:?} of a decimal field: {e}"),
            }
        }
        Some("big-decimal") => match text
            .parse::<Decimal>()
            .and_then(|d| big_decimal::payload(&d))
        {
            Ok(b) => b,
            Err(e) => panic!("the default {text:?} of a big-decimal field: {e}"),
        },
        _ => return logical_default(schema, default),
    };
    Json::String(bytes.iter().map(|&b| char::from(b)).collect())
}

/// The schema `derived` from a Rust type, with the attributes and union order of `overlay` (the
/// text of `#[avro(schema = "...")]`: Avro JSON naming named types by fullname). Unnamed nodes
/// are taken from `overlay` (logical types, custom properties, the position of `null` in a
/// union), named ones from `derived` (which defines them the first time), so that a field of
/// type `Vec<Option<i64>>` can stand for `{"type":"array","items":["long","null"]}`.
///
/// # Panics
/// When `overlay` is not JSON or does not have the shape of `derived` (see
/// [`AvroSchema::schema`]).
#[doc(hidden)]
pub fn overlay_json(derived: Json, overlay: &str) -> Json {
    let overlay: Json = match serde_json::from_str(overlay) {
        Ok(v) => v,
        Err(e) => panic!("#[avro(schema = {overlay:?})] is not valid JSON: {e}"),
    };
    match overlay_node(derived, &overlay) {
        Ok(v) => v,
        Err(why) => panic!("#[avro(schema = {overlay})] does not fit the Rust type: {why}"),
    }
}

fn overlay_node(derived: Json, overlay: &Json) -> Result<Json, String> {
    /// A node's type name (`"long"`, `"array"`, a named type's fullname or `"record"`...).
    fn kind(j: &Json) -> Option<String> {
        match j {
            Json::String(s) => Some(s.clone()),
            Json::Object(o) => {
                let t = o.get("type")?;
                match t.as_str()? {
                    "record" | "error" | "enum" | "fixed" => {
                        let name = o.get("name")?.as_str()?;
                        match o.get("namespace").and_then(Json::as_str) {
                            Some(ns) if !ns.is_empty() && !name.contains('.') => {
                                Some(format!("{ns}.{name}"))
                            }
                            _ => Some(name.to_owned()),
                        }
                    }
                    _ => kind(t),
                }
            }
            _ => None,
        }
    }
    let is_named = |k: &str| !PRIMITIVES.contains(&k) && k != "array" && k != "map";
    match overlay {
        // A union of one branch (`["null"]`) from the branch's type (`()`).
        Json::Array(branches) if branches.len() == 1 && !derived.is_array() => {
            Ok(Json::Array(vec![overlay_node(derived, &branches[0])?]))
        }
        Json::Array(branches) => {
            let Json::Array(mut have) = derived else {
                return Err(format!("a union where the type has {derived}"));
            };
            if have.len() != branches.len() {
                return Err(format!(
                    "{} branches where the type has {}",
                    branches.len(),
                    have.len()
                ));
            }
            let mut out = Vec::with_capacity(branches.len());
            for b in branches {
                let k = kind(b);
                let pos = have.iter().position(|h| kind(h) == k);
                match pos {
                    Some(i) => out.push(overlay_node(have.remove(i), b)?),
                    None => return Err(format!("the type has no union branch {b}")),
                }
            }
            Ok(Json::Array(out))
        }
        _ => {
            let (Some(want), Some(got)) = (kind(overlay), kind(&derived)) else {
                return Err(format!("{overlay} where the type has {derived}"));
            };
            if is_named(&want) {
                // Named types come from the Rust type, defined or referred to by it.
                return if want == got {
                    Ok(derived)
                } else {
                    Err(format!("{want} where the type has {got}"))
                };
            }
            // A date or time type's wire type follows its logical type (`NaiveTime` is a
            // `time-micros` long or a `time-millis` int).
            let logical = |j: &Json| j.get("logicalType").is_some();
            if want != got && !(logical(overlay) && logical(&derived)) {
                return Err(format!("{want} where the type has {got}"));
            }
            let mut node = overlay.clone();
            if let (Json::Object(o), Json::Object(d)) = (&mut node, derived) {
                for key in ["items", "values"] {
                    if let (Some(inner), Some(dinner)) = (o.get(key).cloned(), d.get(key)) {
                        o.insert(key.into(), overlay_node(dinner.clone(), &inner)?);
                    }
                }
            }
            Ok(node)
        }
    }
}

/// The JSON of `T::default()`, for a field with `#[serde(default)]`. serde_json's encoding of a
/// value is Avro's JSON encoding of defaults for the types the derive supports, except bytes.
#[doc(hidden)]
pub fn default_json<T: Default + serde::Serialize>() -> Json {
    serde_json::to_value(T::default()).unwrap_or(Json::Null)
}

/// The JSON of a value, for `#[serde(default = "path")]` and type-level `#[serde(default)]`.
#[doc(hidden)]
pub fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}

/// Parses an `#[avro(default = "...")]` literal.
///
/// # Panics
/// When the text is not JSON (see [`AvroSchema::schema`]).
#[doc(hidden)]
pub fn json_text(text: &str) -> Json {
    match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => panic!("#[avro(default = {text:?})] is not valid JSON: {e}"),
    }
}

macro_rules! primitive {
    ($($t:ty => $name:literal),* $(,)?) => {
        $(impl AvroSchema for $t {
            fn schema() -> Schema {
                prim($name)
            }
            fn __avro_json(_: &mut Names) -> Json {
                json!($name)
            }
        })*
    };
}

fn prim(name: &str) -> Schema {
    // A primitive type name always parses.
    Schema::parse_json(&json!(name)).unwrap_or_else(|_| unreachable!("primitive {name}"))
}

primitive!(
    bool => "boolean",
    i8 => "int", i16 => "int", i32 => "int", u8 => "int", u16 => "int",
    i64 => "long", u32 => "long", u64 => "long",
    f32 => "float", f64 => "double",
    char => "string", String => "string", str => "string",
    () => "null",
);

impl AvroSchema for Cow<'_, str> {
    fn schema() -> Schema {
        prim("string")
    }
    fn __avro_json(_: &mut Names) -> Json {
        json!("string")
    }
}

/// Builds a schema from `__avro_json` with fresh names.
fn from_json<T: AvroSchema + ?Sized>() -> Schema {
    schema_from_json(
        std::any::type_name::<T>(),
        T::__avro_json(&mut Names::default()),
    )
}

impl<T: AvroSchema> AvroSchema for Option<T> {
    fn schema() -> Schema {
        from_json::<Self>()
    }
    fn __avro_json(names: &mut Names) -> Json {
        optional_json(T::__avro_json(names))
    }
}

macro_rules! seq {
    ($($t:ty),*) => {
        $(impl<T: AvroSchema> AvroSchema for $t {
            fn schema() -> Schema {
                from_json::<Self>()
            }
            fn __avro_json(names: &mut Names) -> Json {
                array_json(T::__avro_json(names))
            }
        })*
    };
}

seq!(
    Vec<T>,
    [T],
    std::collections::VecDeque<T>,
    std::collections::BTreeSet<T>
);

impl<T: AvroSchema, H> AvroSchema for HashSet<T, H> {
    fn schema() -> Schema {
        from_json::<Self>()
    }
    fn __avro_json(names: &mut Names) -> Json {
        array_json(T::__avro_json(names))
    }
}

impl<K, V: AvroSchema, H> AvroSchema for HashMap<K, V, H> {
    fn schema() -> Schema {
        from_json::<Self>()
    }
    fn __avro_json(names: &mut Names) -> Json {
        map_json(V::__avro_json(names))
    }
}

impl<K, V: AvroSchema> AvroSchema for BTreeMap<K, V> {
    fn schema() -> Schema {
        from_json::<Self>()
    }
    fn __avro_json(names: &mut Names) -> Json {
        map_json(V::__avro_json(names))
    }
}

impl<const N: usize> AvroSchema for [u8; N] {
    fn schema() -> Schema {
        from_json::<Self>()
    }
    fn __avro_json(names: &mut Names) -> Json {
        fixed_json(names, &format!("fixed_{N}"), N)
    }
}

/// `AvroSchema` for types with a logical type: `$base` annotated with `$logical`.
macro_rules! logical {
    ($($(#[$attr:meta])* [$($gen:tt)*] $t:ty => $base:literal, $logical:literal;)*) => {
        $($(#[$attr])*
        impl<$($gen)*> AvroSchema for $t {
            fn schema() -> Schema {
                from_json::<Self>()
            }
            fn __avro_json(_: &mut Names) -> Json {
                json!({"type": $base, "logicalType": $logical})
            }
        })*
    };
}

logical! {
    #[cfg(feature = "uuid")]
    [] uuid::Uuid => "string", "uuid";
    #[cfg(feature = "chrono")]
    [] chrono::NaiveDate => "int", "date";
    #[cfg(feature = "chrono")]
    [] chrono::NaiveTime => "long", "time-micros";
    #[cfg(feature = "chrono")]
    [Tz: chrono::TimeZone] chrono::DateTime<Tz> => "long", "timestamp-micros";
    #[cfg(feature = "chrono")]
    [] chrono::NaiveDateTime => "long", "local-timestamp-micros";
    #[cfg(feature = "time")]
    [] time::Date => "int", "date";
    #[cfg(feature = "time")]
    [] time::Time => "long", "time-micros";
    #[cfg(feature = "time")]
    [] time::OffsetDateTime => "long", "timestamp-micros";
    #[cfg(feature = "time")]
    [] time::PrimitiveDateTime => "long", "local-timestamp-micros";
    #[cfg(feature = "rust_decimal")]
    [] rust_decimal::Decimal => "bytes", "big-decimal";
    #[cfg(feature = "bigdecimal")]
    [] bigdecimal::BigDecimal => "bytes", "big-decimal";
}

macro_rules! transparent {
    ($($t:ty),*) => {
        $(impl<T: AvroSchema + ?Sized> AvroSchema for $t {
            fn schema() -> Schema {
                T::schema()
            }
            fn __avro_json(names: &mut Names) -> Json {
                T::__avro_json(names)
            }
        })*
    };
}

transparent!(Box<T>, std::sync::Arc<T>, std::rc::Rc<T>, &T);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_types() {
        assert_eq!(i32::schema().canonical_form(), r#""int""#);
        assert_eq!(
            <Vec<Option<String>>>::schema().canonical_form(),
            r#"{"type":"array","items":["null","string"]}"#
        );
        assert_eq!(
            <HashMap<String, [u8; 4]>>::schema().canonical_form(),
            r#"{"type":"map","values":{"name":"fixed_4","type":"fixed","size":4}}"#
        );
        assert_eq!(
            <Vec<[u8; 2]>>::__avro_json(&mut Names::default())["items"]["size"],
            2
        );
    }

    #[test]
    fn optional_of_a_union_puts_null_first() {
        assert_eq!(
            optional_json(json!(["int", "string"])),
            json!(["null", "int", "string"])
        );
        assert_eq!(
            optional_json(json!(["int", "null"])),
            json!(["int", "null"])
        );
    }
}
