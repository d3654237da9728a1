//! [`AvroSchema`]: the Avro schema of a Rust type.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Value as Json};

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
/// | `[u8; N]` | `fixed` of size N named `fixed_N` |
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
    /// the same Avro type, which would make a union with two `long` branches); the message says
    /// why. The standard implementations never panic.
    fn schema() -> Schema;

    /// The schema as JSON, named types in full the first time `names` meets them and by name
    /// after. Used by derived implementations to compose schemas.
    #[doc(hidden)]
    fn __avro_json(names: &mut Names) -> Json {
        let _ = names;
        Self::schema().to_json()
    }
}

/// The fullnames already written while building one schema.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Names {
    defined: HashSet<String>,
}

impl Names {
    /// Records `fullname`; false if it was written already (then refer to it by name).
    pub fn define(&mut self, fullname: &str) -> bool {
        self.defined.insert(fullname.to_owned())
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
#[doc(hidden)]
pub fn with_logical(inner: Json, logical: &str, extra: &[(&str, Json)]) -> Json {
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
        let name = format!("fixed_{N}");
        if names.define(&name) {
            json!({"type": "fixed", "name": name, "size": N})
        } else {
            json!(name)
        }
    }
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
