//! Rust types from Avro schemas, protocols and IDL files, for `build.rs` (as `prost-build`
//! does for protobuf) and for `avrokit codegen`.
//!
//! ```no_run
//! // build.rs, in `fn main()`:
//! avrokit_codegen::Config::new()
//!     .import_dir("schemas/common") // where IDL imports are looked up
//!     .compile(
//!         &["schemas/user.avsc", "schemas/service.avpr", "schemas/orders.avdl"],
//!         std::env::var_os("OUT_DIR").unwrap(),
//!     )
//!     .unwrap();
//! // src/lib.rs: include!(concat!(env!("OUT_DIR"), "/avro_types.rs"));
//! ```
//!
//! Inputs are `.avsc` schemas, `.avpr` protocols and `.avdl` IDL files (read with
//! `avrokit-idl`, imports included); see [`Config::generate_files`]. Every named type they
//! define becomes a Rust type.
//!
//! The generated code derives `serde::Serialize`, `serde::Deserialize` and
//! `avrokit::AvroSchema`, so the types go straight to and from Avro with avrokit's serde path
//! (`Writer::append_serde`, `Reader::serde_iter`, `to_datum_vec`...), and `T::schema()` gives
//! back the schema they came from (docs, aliases, defaults, properties included). The crate
//! using it depends on `avrokit` (feature `derive`, plus `chrono`, `time`, `uuid`,
//! `rust_decimal` or `bigdecimal` when those mappings are on, and those crates), `serde` and `serde_bytes` (and `indexmap` with [`MapType::IndexMap`]).
//!
//! | Avro | Rust |
//! |---|---|
//! | `null`, `boolean`, `int`, `long`, `float`, `double`, `string` | `()`, `bool`, `i32`, `i64`, `f32`, `f64`, `String` |
//! | `bytes` | `serde_bytes::ByteBuf` |
//! | `record` | a struct, fields in schema order (`snake_case`, keywords as `r#type`; the Avro name kept with `#[serde(rename)]`) |
//! | `enum` | an enum of unit variants (`UpperCamelCase`, renamed to the symbols; the default symbol is `#[serde(other)]`) |
//! | `fixed` | a newtype of `[u8; N]` |
//! | `array`, `map` | `Vec<T>`, `HashMap<String, T>` (or [`MapType`]) |
//! | `["null", T]`, `[T, "null"]` | `Option<T>` |
//! | other unions | an enum with a variant per branch (`Option` of it when `null` is one) |
//! | `date`, `time-*`, `timestamp-*`, `local-timestamp-*` | `i32`/`i64`, or chrono's or time's types ([`Temporal`]) |
//! | `uuid` on `string` | `String`, or `uuid::Uuid` ([`Config::uuid`]) |
//! | `decimal`, `big-decimal` on `bytes` | `serde_bytes::ByteBuf`, or `rust_decimal::Decimal` / `bigdecimal::BigDecimal` ([`Config::decimal`]) |
//! | `decimal` on `fixed`, `duration` | the fixed's newtype |
//!
//! Each named type is emitted once, under its simple name in `UpperCamelCase` (with the
//! namespace in front when two types share a simple name); a type that holds itself through a
//! chain of records and unions is boxed there. Schema docs become rustdoc.

mod gen;
mod names;

use std::fmt;
use std::path::{Path, PathBuf};

use avrokit::{Protocol, Schema};
use avrokit_idl::IdlReader;

/// The Rust types for the date and time logical types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Temporal {
    /// The underlying `i32` or `i64` counts (no dependency).
    #[default]
    Raw,
    /// chrono's `NaiveDate`, `NaiveTime`, `DateTime<Utc>`, `NaiveDateTime` (avrokit feature
    /// `chrono`). Counts outside chrono's range fail to read.
    Chrono,
    /// time's `Date`, `Time`, `OffsetDateTime`, `PrimitiveDateTime` (avrokit feature `time`,
    /// time feature `serde`).
    Time,
}

/// The Rust type of `decimal` and `big-decimal` on `bytes` (a decimal `fixed` keeps its
/// newtype).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DecimalType {
    /// The unscaled two's-complement bytes, `serde_bytes::ByteBuf` (no dependency).
    #[default]
    Raw,
    /// `rust_decimal::Decimal` (avrokit feature `rust_decimal`): 96 bits of unscaled value,
    /// scale up to 28. Values are rescaled to the schema's scale when written (an error if
    /// that needs rounding); a decimal beyond rust_decimal's range fails to read.
    RustDecimal,
    /// `bigdecimal::BigDecimal` (avrokit feature `bigdecimal`): any size.
    BigDecimal,
}

/// The Rust type of Avro maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MapType {
    /// `std::collections::HashMap`.
    #[default]
    HashMap,
    /// `std::collections::BTreeMap` (keys sorted).
    BTreeMap,
    /// `indexmap::IndexMap` (entries in the order read, so a map is written back as it came).
    IndexMap,
}

/// What the generator makes of the schemas; see the [crate docs](crate).
#[derive(Debug, Clone)]
pub struct Config {
    temporal: Temporal,
    uuid: bool,
    decimal: DecimalType,
    map: MapType,
    derives: Vec<String>,
    import_dirs: Vec<PathBuf>,
    out_file: String,
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

/// The code for a set of schemas.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The Rust source: items only, for `include!` or a module file.
    pub code: String,
    /// The Rust type of each input schema's root, in input order: for
    /// [`generate_files`](Config::generate_files), an `.avsc`'s root, and each type of a
    /// protocol or IDL file.
    pub roots: Vec<String>,
}

impl Config {
    /// The defaults: date and time counts as integers, `String` uuids, decimals as their
    /// bytes, `HashMap`s, and
    /// `Debug, Clone, PartialEq` derived besides serde and `AvroSchema`.
    pub fn new() -> Config {
        Config {
            temporal: Temporal::Raw,
            uuid: false,
            decimal: DecimalType::Raw,
            map: MapType::HashMap,
            derives: vec!["Debug".into(), "Clone".into(), "PartialEq".into()],
            import_dirs: Vec::new(),
            out_file: "avro_types.rs".into(),
        }
    }

    /// The Rust types of date and time logical types.
    pub fn temporal(&mut self, temporal: Temporal) -> &mut Config {
        self.temporal = temporal;
        self
    }

    /// `uuid::Uuid` for `uuid` strings.
    pub fn uuid(&mut self, on: bool) -> &mut Config {
        self.uuid = on;
        self
    }

    /// The Rust type of decimals on `bytes`.
    pub fn decimal(&mut self, decimal: DecimalType) -> &mut Config {
        self.decimal = decimal;
        self
    }

    /// The Rust type of maps.
    pub fn map_type(&mut self, map: MapType) -> &mut Config {
        self.map = map;
        self
    }

    /// The derives besides serde's and `AvroSchema` (paths, like `"Debug"` or
    /// `"::core::hash::Hash"`); enums and fixed types also get `Copy, Eq, Hash`.
    pub fn derives<S: AsRef<str>>(&mut self, derives: &[S]) -> &mut Config {
        self.derives = derives.iter().map(|d| d.as_ref().to_owned()).collect();
        self
    }

    /// A directory where IDL imports are looked up (after the importing file's own).
    pub fn import_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Config {
        self.import_dirs.push(dir.into());
        self
    }

    /// The name of the file [`compile`](Self::compile) writes (default `avro_types.rs`).
    pub fn out_file(&mut self, name: impl Into<String>) -> &mut Config {
        self.out_file = name.into();
        self
    }

    /// The code for parsed schemas, each with the name its root type gets when the root is not
    /// a named type (a union, array, map or primitive).
    ///
    /// ```
    /// let schema = avrokit::Schema::parse_str(
    ///     r#"{"type":"record","name":"P","fields":[{"name":"type","type":["null","long"]}]}"#,
    /// )?;
    /// let out = avrokit_codegen::Config::new().generate(&[("p", &schema)])?;
    /// assert!(out.code.contains("pub r#type: ::std::option::Option<i64>,"));
    /// assert_eq!(out.roots, ["P"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A named type defined twice differently, or a schema no Rust type stands for (an enum
    /// without symbols, a union of only `null`).
    pub fn generate(&self, schemas: &[(&str, &Schema)]) -> Result<Generated, Error> {
        gen::Gen::new(self).run(schemas)
    }

    /// The code for schema files:
    ///
    /// - `.avsc`: a schema, or a JSON array of schemas. All `.avsc` inputs are parsed
    ///   together, so they may refer to each other's named types in any order. A root that is
    ///   not a named type is named after its file.
    /// - `.avpr`: a protocol; every named type it defines (also those first defined in a
    ///   message) gets a Rust type. Messages themselves have none (there is no RPC here).
    /// - `.avdl`: Avro IDL, read by `avrokit-idl` with the [import directories](Self::import_dir)
    ///   (imports are looked up relative to the importing file first): every named type it
    ///   defines or imports, and a main schema (`schema T;`) that is not a named type, named
    ///   after its file.
    ///
    /// A type defined by several inputs is emitted once (the definitions must be the same).
    /// [`Generated::roots`] lists, in input order, an `.avsc`'s root type, then each type of a
    /// protocol or IDL file.
    ///
    /// # Errors
    /// An unreadable or invalid file (IDL errors name the file, line and column), and the
    /// errors of [`generate`](Self::generate).
    pub fn generate_files<P: AsRef<Path>>(&self, paths: &[P]) -> Result<Generated, Error> {
        self.generate_files_reading(paths, &mut Vec::new())
    }

    /// [`generate_files`](Self::generate_files), adding the files IDL imports read to `read`.
    fn generate_files_reading<P: AsRef<Path>>(
        &self,
        paths: &[P],
        read: &mut Vec<PathBuf>,
    ) -> Result<Generated, Error> {
        let paths: Vec<&Path> = paths.iter().map(AsRef::as_ref).collect();
        let kind = |p: &Path| match p.extension().and_then(|e| e.to_str()) {
            Some("avdl") => Input::Idl,
            Some("avpr") => Input::Protocol,
            _ => Input::Schema,
        };
        // The `.avsc` inputs, parsed together.
        let schema_paths: Vec<&Path> = paths
            .iter()
            .copied()
            .filter(|p| kind(p) == Input::Schema)
            .collect();
        let mut texts = Vec::new();
        for p in &schema_paths {
            texts.push(read_text(p)?);
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut parsed = Schema::parse_many(&refs)
            .map_err(|e| {
                Error::new(match schema_input(&e) {
                    Some(i) if i < schema_paths.len() => {
                        format!("{}: {}", schema_paths[i].display(), e.message())
                    }
                    _ if schema_paths.len() == 1 => {
                        format!("{}: {e}", schema_paths[0].display())
                    }
                    _ => e.to_string(),
                })
            })?
            .into_iter();

        let mut inputs: Vec<(String, Schema)> = Vec::new();
        for p in &paths {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("Root");
            match kind(p) {
                Input::Schema => {
                    let s = parsed.next().ok_or_else(|| {
                        Error::new("internal: a schema input was not parsed".into())
                    })?;
                    inputs.push((stem.to_owned(), s));
                }
                Input::Protocol => {
                    let protocol = Protocol::parse_str(&read_text(p)?)
                        .map_err(|e| Error::new(format!("{}: {e}", p.display())))?;
                    for s in protocol.types() {
                        inputs.push((stem.to_owned(), s));
                    }
                }
                Input::Idl => {
                    let mut reader = IdlReader::new();
                    for d in &self.import_dirs {
                        reader = reader.import_dir(d);
                    }
                    // The IDL error already names the file, line and column.
                    let idl = reader
                        .parse_file(p)
                        .map_err(|e| Error::new(e.to_string()))?;
                    read.extend(idl.files().iter().skip(1).cloned());
                    for s in idl.named_schemas() {
                        inputs.push((stem.to_owned(), s));
                    }
                    if let Some(main) = idl.main_schema() {
                        if main.root().name().is_none() {
                            inputs.push((stem.to_owned(), main.clone()));
                        }
                    }
                }
            }
        }
        let refs: Vec<(&str, &Schema)> = inputs.iter().map(|(n, s)| (n.as_str(), s)).collect();
        self.generate(&refs)
    }

    /// Generates the code for schema, protocol and IDL files into `out_dir` (for `build.rs`:
    /// `OUT_DIR`), in the file named by [`out_file`](Self::out_file), and tells cargo to rerun
    /// the build script when an input or a file an IDL input imports changes. Returns the file
    /// written.
    ///
    /// # Errors
    /// As [`generate_files`](Self::generate_files), and a failed write.
    pub fn compile<P: AsRef<Path>>(
        &self,
        paths: &[P],
        out_dir: impl AsRef<Path>,
    ) -> Result<PathBuf, Error> {
        let mut imports = Vec::new();
        let out = self.generate_files_reading(paths, &mut imports)?;
        for p in paths
            .iter()
            .map(AsRef::as_ref)
            .chain(imports.iter().map(PathBuf::as_path))
        {
            println!("cargo:rerun-if-changed={}", p.display());
        }
        let file = out_dir.as_ref().join(&self.out_file);
        std::fs::write(&file, out.code)
            .map_err(|e| Error::new(format!("{}: {e}", file.display())))?;
        Ok(file)
    }
}

/// What an input file holds, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    Schema,
    Protocol,
    Idl,
}

fn read_text(p: &Path) -> Result<String, Error> {
    std::fs::read_to_string(p).map_err(|e| Error::new(format!("{}: {e}", p.display())))
}

/// Which input of several a schema error is about (`$[1].fields...`).
fn schema_input(e: &avrokit::Error) -> Option<usize> {
    let m = e.message();
    let at = m.find("$[")? + 2;
    let end = m[at..].find(']')? + at;
    m[at..end].parse().ok()
}

/// What went wrong generating code: which file or type, and why.
#[derive(Debug, Clone)]
pub struct Error {
    message: String,
}

impl Error {
    fn new(message: String) -> Error {
        Error { message }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
