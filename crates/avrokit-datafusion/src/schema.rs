//! One reader schema for a table whose files were written with different schemas.
//!
//! A table is read as one Avro reader schema, resolved against each file's writer schema by
//! avrokit's schema resolution, so every file's batches have the table's columns and types.
//! That schema is the user's, when given; otherwise the files' own when they all agree;
//! otherwise a merge of their top-level records ([`merge`]), checked to read every file.

use avrokit::{check_compatibility, Schema};
use serde_json::{json, Map, Value as Json};

use crate::error::plan_error;
use datafusion::error::Result;

/// The reader schema for files written with `writers` (named by `names`, for errors).
///
/// `given` wins when present. Otherwise files that all have the same schema (by canonical
/// form) are read as it; files of different record schemas as [`merge`]'s record. Either way,
/// every writer is checked to resolve against the result: a file it cannot read is a planning
/// error naming the file and the incompatibility.
pub(crate) fn table_reader_schema(
    writers: &[Schema],
    names: &[String],
    given: Option<&Schema>,
) -> Result<Schema> {
    let reader = match given {
        Some(g) => g.clone(),
        None => {
            let Some(first) = writers.first() else {
                return plan_error("no Avro files to infer a schema from".to_owned());
            };
            let canon = first.canonical_form();
            if writers.iter().all(|w| w.canonical_form() == canon) {
                // The newest writer schema keeps docs, defaults and aliases as written.
                writers[writers.len() - 1].clone()
            } else if let Some(w) = writers.iter().rev().find(|r| reads_all(r, writers)) {
                // One file's schema reads all the others' (an added field with a default,
                // a promoted type): the table is that schema, untouched.
                w.clone()
            } else {
                merge(writers, names)?
            }
        }
    };
    for (w, name) in writers.iter().zip(names) {
        let c = check_compatibility(&reader, w);
        if !c.is_compatible() {
            let whose = if given.is_some() {
                "the given reader schema"
            } else {
                "the table's merged schema"
            };
            return plan_error(format!(
                "{whose} cannot read {name}, whose writer schema differs: {c}"
            ));
        }
    }
    Ok(reader)
}

/// Merges the top-level records of `writers` into one reader record.
///
/// The last schema (the newest, in listing order) is the base: its name, its fields in its
/// order. A field of another file that the base lacks is appended. A field missing from some
/// file must have a default; one without gets `null`, its type made nullable (`["null", T]`,
/// or its union with `null` moved first). Where files disagree on a field's type, the type
/// that reads all of them (a promotion: `int` to `long`, `float` to `double`, `string` to
/// `bytes`...) is taken, by the same resolution rules as everywhere else.
fn merge(writers: &[Schema], names: &[String]) -> Result<Schema> {
    let jsons: Vec<Json> = writers.iter().map(|w| w.to_json()).collect();
    let records: Vec<&Map<String, Json>> = jsons
        .iter()
        .zip(names)
        .map(|(j, name)| match j.as_object() {
            Some(o) if o.get("type") == Some(&json!("record")) => Ok(o),
            _ => plan_error(format!(
                "{name} has a schema that is not a record and differs from the other files': \
                 give the table a reader schema"
            )),
        })
        .collect::<Result<_>>()?;
    let base = records[records.len() - 1];
    // Every field name, in the base's order, then the others' in order of appearance.
    let mut order: Vec<String> = Vec::new();
    for r in std::iter::once(base).chain(records.iter().copied()) {
        for f in fields(r) {
            if let Some(n) = f.get("name").and_then(Json::as_str) {
                if !order.iter().any(|o| o == n) {
                    order.push(n.to_owned());
                }
            }
        }
    }
    let mut merged_fields = Vec::with_capacity(order.len());
    for name in &order {
        let versions: Vec<&Map<String, Json>> = records
            .iter()
            .rev()
            .filter_map(|r| fields(r).find(|f| f.get("name").and_then(Json::as_str) == Some(name)))
            .collect();
        let mut field = pick_type(name, &versions)?;
        if versions.len() < records.len() && !field.contains_key("default") {
            make_nullable(&mut field);
        }
        merged_fields.push(Json::Object(field));
    }
    let mut out = base.clone();
    out.insert("fields".to_owned(), Json::Array(merged_fields));
    Schema::parse_json(&Json::Object(out)).or_else(|e| {
        plan_error(format!(
            "the files' writer schemas could not be merged into one ({e}): give the table a \
             reader schema"
        ))
    })
}

fn reads_all(reader: &Schema, writers: &[Schema]) -> bool {
    writers
        .iter()
        .all(|w| check_compatibility(reader, w).is_compatible())
}

fn fields(record: &Map<String, Json>) -> impl Iterator<Item = &Map<String, Json>> {
    record
        .get("fields")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_object)
}

/// The version of field `name` whose type reads every other version's (newest first).
fn pick_type(name: &str, versions: &[&Map<String, Json>]) -> Result<Map<String, Json>> {
    let first = versions[0];
    if versions.iter().all(|v| v.get("type") == first.get("type")) {
        return Ok(first.clone());
    }
    // Types are compared as standalone schemas; a named type defined elsewhere in its file
    // cannot stand alone, and then that candidate is passed over.
    let standalone = |v: &Map<String, Json>| v.get("type").and_then(|t| Schema::parse_json(t).ok());
    let parsed: Vec<Option<Schema>> = versions.iter().map(|v| standalone(v)).collect();
    if parsed.iter().all(Option::is_some) {
        let parsed: Vec<Schema> = parsed.into_iter().flatten().collect();
        if let Some(i) = (0..parsed.len()).find(|&i| reads_all(&parsed[i], &parsed)) {
            return Ok(versions[i].clone());
        }
    }
    plan_error(format!(
        "field `{name}` has types in different files that no one of them can read all of \
         (for example {} and {}): give the table a reader schema",
        versions[0].get("type").unwrap_or(&Json::Null),
        versions
            .iter()
            .map(|v| v.get("type").unwrap_or(&Json::Null))
            .find(|t| Some(*t) != versions[0].get("type"))
            .unwrap_or(&Json::Null),
    ))
}

/// Gives a field the default `null`, making its type nullable: `["null", T]`, or its union
/// with `null` moved first (a union's default is of its first branch).
fn make_nullable(field: &mut Map<String, Json>) {
    let ty = field.remove("type").unwrap_or(Json::Null);
    let ty = match ty {
        Json::Array(mut branches) => {
            if let Some(i) = branches.iter().position(|b| b == "null") {
                let null = branches.remove(i);
                branches.insert(0, null);
            } else {
                branches.insert(0, json!("null"));
            }
            Json::Array(branches)
        }
        Json::String(s) if s == "null" => Json::String(s),
        other => json!(["null", other]),
    };
    field.insert("type".to_owned(), ty);
    field.insert("default".to_owned(), Json::Null);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(j: &str) -> Schema {
        Schema::parse_str(j).unwrap()
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("f{i}.avro")).collect()
    }

    #[test]
    fn same_schemas_are_read_as_themselves() {
        let a = s(r#"{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}"#);
        let r = table_reader_schema(&[a.clone(), a.clone()], &names(2), None).unwrap();
        assert_eq!(r.canonical_form(), a.canonical_form());
    }

    #[test]
    fn merged_record_adds_fields_nullable_and_promotes() {
        let old = s(r#"{"type":"record","name":"R","fields":[
            {"name":"x","type":"int"},{"name":"gone","type":"string"}]}"#);
        let new = s(r#"{"type":"record","name":"R","fields":[
            {"name":"x","type":"long"},{"name":"y","type":"double"},
            {"name":"z","type":["string","null"]}]}"#);
        let r = table_reader_schema(&[old, new], &names(2), None).unwrap();
        let j = r.to_json();
        let f = j["fields"].as_array().unwrap();
        let got: Vec<(&str, &Json)> = f
            .iter()
            .map(|f| (f["name"].as_str().unwrap(), &f["type"]))
            .collect();
        assert_eq!(
            got,
            [
                ("x", &json!("long")),
                ("y", &json!(["null", "double"])),
                ("z", &json!(["null", "string"])),
                ("gone", &json!(["null", "string"])),
            ]
        );
        assert!(f.iter().skip(1).all(|f| f["default"].is_null()));
    }

    #[test]
    fn unmergeable_types_are_a_clear_error() {
        let a = s(r#"{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}"#);
        let b = s(r#"{"type":"record","name":"R","fields":[{"name":"x","type":"boolean"}]}"#);
        let e = table_reader_schema(&[a, b], &names(2), None).unwrap_err();
        assert!(e.to_string().contains("field `x`"), "{e}");
    }

    #[test]
    fn a_given_schema_that_cannot_read_a_file_names_it() {
        let w = s(r#"{"type":"record","name":"R","fields":[{"name":"x","type":"long"}]}"#);
        let given = s(r#"{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}"#);
        let e = table_reader_schema(&[w], &names(1), Some(&given)).unwrap_err();
        assert!(e.to_string().contains("f0.avro"), "{e}");
    }

    #[test]
    fn a_schema_that_reads_the_others_is_taken_whole() {
        let r = table_reader_schema(&[s(r#""long""#), s(r#""int""#)], &names(2), None).unwrap();
        assert_eq!(r.canonical_form(), r#""long""#);
    }

    #[test]
    fn non_record_schemas_that_no_one_reads_are_an_error() {
        let e =
            table_reader_schema(&[s(r#""int""#), s(r#""boolean""#)], &names(2), None).unwrap_err();
        assert!(e.to_string().contains("not a record"), "{e}");
    }
}
