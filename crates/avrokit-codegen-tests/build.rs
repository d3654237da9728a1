//! Generates Rust types for every distinct schema of the interop corpus (the copy in
//! `crates/avrokit/tests/data`): container files' schemas, the schema tables, the upstream test
//! schemas and the resolution cases' schemas. Each schema gets a module; schemas with logical
//! types get two more, with chrono's and time's types (and `uuid::Uuid`), and schemas with
//! decimals one more with `bigdecimal::BigDecimal`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use avrokit::Schema;
use avrokit_codegen::{Config, DecimalType, MapType, Temporal};
use serde_json::Value as Json;

fn main() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit/tests/data");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", data.display());
    let mut found: Vec<(String, String)> = Vec::new(); // (source, schema text)
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let json = |p: &Path| serde_json::from_str::<Json>(&read(p)).unwrap_or(Json::Null);

    for dir in sorted_dir(&data.join("interop/data")) {
        for f in sorted_dir(&dir) {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".meta.json") {
                if let Some(s) = json(&f).get("schema") {
                    let avro = dir.join(format!("{stem}.avro"));
                    found.push((rel(&data, &avro), s.to_string()));
                }
            }
        }
    }
    let schemas = data.join("schemas");
    for (table, key) in [
        ("canonical-forms.json", "schema"),
        ("validity.json", "schema"),
        ("upstream/schema-tests.json", "input"),
    ] {
        if let Json::Array(rows) = json(&schemas.join(table)) {
            for (i, row) in rows.iter().enumerate() {
                let text = match &row[key] {
                    Json::String(s) => s.clone(),
                    other => other.to_string(),
                };
                found.push((format!("schemas/{table}#{i}"), text));
            }
        }
    }
    for dir in [
        "upstream/c-schema-tests/pass",
        "upstream/share-test-schemas",
    ] {
        for f in sorted_dir(&schemas.join(dir)) {
            if f.extension().is_some_and(|e| e != "avpr") {
                found.push((rel(&data, &f), read(&f)));
            }
        }
    }
    for case in sorted_dir(&data.join("resolution/cases")) {
        for side in ["writer.avsc", "reader.avsc"] {
            let f = case.join(side);
            found.push((rel(&data, &f), read(&f)));
        }
    }

    // Distinct schemas (by their full JSON), with every source that has them.
    let mut distinct: BTreeMap<String, (Schema, Vec<String>)> = BTreeMap::new();
    let mut order = Vec::new();
    for (source, text) in found {
        let Ok(schema) = Schema::parse_str(&text) else {
            continue; // an invalid schema of the validity tables
        };
        let key = schema.to_json().to_string();
        let entry = distinct.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            (schema, Vec::new())
        });
        entry.1.push(source);
    }

    let mut out = String::new();
    let mut cases = String::new();
    for (i, key) in order.iter().enumerate() {
        let (schema, sources) = &distinct[key];
        let logical = key.contains("\"logicalType\"");
        let raw = DecimalType::Raw;
        let mut variants = vec![("raw", Temporal::Raw, false, raw)];
        if logical {
            variants.push(("chrono", Temporal::Chrono, true, raw));
            variants.push(("time", Temporal::Time, true, raw));
        }
        if key.contains("decimal\"") {
            variants.push(("bigdecimal", Temporal::Raw, false, DecimalType::BigDecimal));
        }
        for (variant, temporal, uuid, decimal) in variants {
            let module = format!("s{i}_{variant}");
            let generated = Config::new()
                .temporal(temporal)
                .uuid(uuid)
                .decimal(decimal)
                .map_type(MapType::IndexMap)
                .generate(&[("Root", schema)])
                .unwrap_or_else(|e| panic!("{sources:?}: {e}"));
            let root = &generated.roots[0];
            let _ = writeln!(out, "pub mod {module} {{\n{}}}\n", generated.code);
            let _ = writeln!(
                cases,
                "    crate::Case {{ sources: &{sources:?}, variant: {variant:?}, json: {key:?}, \
                 schema: <{module}::{root} as ::avrokit::AvroSchema>::schema, \
                 round_trip: crate::round_trip::<{module}::{root}>, \
                 resolve: crate::resolve::<{module}::{root}> }},"
            );
        }
    }
    let _ = writeln!(
        out,
        "/// Every generated root type.\npub const CASES: &[crate::Case] = &[\n{cases}];"
    );
    out.push_str(&idl_cases());
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("corpus.rs");
    std::fs::write(dest, out).unwrap();
}

/// A module per IDL file and protocol of Java's IDL tests (the copy in
/// `crates/avrokit-idl/tests/data`), generated through `generate_files` as `build.rs` users do,
/// and [`IDL_CASES`]: each generated type with the JSON of the type it comes from.
fn idl_cases() -> String {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrokit-idl/tests/data");
    println!("cargo:rerun-if-changed={}", data.display());
    let include = data.join("include");
    let mut files: Vec<PathBuf> = sorted_dir(&data.join("input"))
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "avdl" || e == "avpr"))
        .collect();
    files.extend(
        sorted_dir(&data.join("output"))
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "avpr")),
    );
    let mut out = String::new();
    let mut cases = String::new();
    for (i, file) in files.iter().enumerate() {
        let generated = Config::new()
            .import_dir(&include)
            .generate_files(&[file])
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // The source types, in the order `generate_files` takes them.
        let sources: Vec<Schema> = if file.extension().is_some_and(|e| e == "avpr") {
            avrokit::Protocol::parse_str(&std::fs::read_to_string(file).unwrap())
                .unwrap()
                .types()
        } else {
            let idl = avrokit_idl::IdlReader::new()
                .import_dir(&include)
                .parse_file(file)
                .unwrap();
            let mut v = idl.named_schemas();
            v.extend(
                idl.main_schema()
                    .filter(|m| m.root().name().is_none())
                    .cloned(),
            );
            v
        };
        assert_eq!(sources.len(), generated.roots.len(), "{}", file.display());
        let module = format!("idl{i}");
        let _ = writeln!(out, "pub mod {module} {{\n{}}}\n", generated.code);
        let source = rel(&data, file);
        for (root, schema) in generated.roots.iter().zip(&sources) {
            let json = schema.to_json().to_string();
            let _ = writeln!(
                cases,
                "    crate::IdlCase {{ source: {source:?}, json: {json:?}, \
                 schema: <{module}::{root} as ::avrokit::AvroSchema>::schema }},"
            );
        }
    }
    let _ = writeln!(
        out,
        "/// Every type generated from an IDL file or a protocol.\n\
         pub const IDL_CASES: &[crate::IdlCase] = &[\n{cases}];"
    );
    out
}

fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

fn rel(base: &Path, p: &Path) -> String {
    p.strip_prefix(base).unwrap_or(p).display().to_string()
}
