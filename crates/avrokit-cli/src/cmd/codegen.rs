//! `codegen`: Rust types for schema, protocol and IDL files (the library entry point is
//! `avrokit_codegen`).

use std::io::Write;
use std::path::PathBuf;

use avrokit_codegen::{Config, DecimalType, MapType, Temporal};
use clap::{Args, ValueEnum};

use crate::error::{CliError, CliResult, Context};
use crate::io::Output;

/// `codegen`
#[derive(Debug, Args)]
pub struct CodegenArgs {
    /// Input files: `.avsc` schemas (a schema or a JSON array of schemas; they may refer to
    /// each other's named types), `.avpr` protocols and `.avdl` IDL files (with their
    /// imports). Every named type they define becomes a Rust type.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The Rust file to write (`-`: stdout).
    #[arg(long, short)]
    pub out: PathBuf,
    /// A directory to look IDL imports up in (repeatable).
    #[arg(long = "import-dir", value_name = "DIR")]
    pub import_dirs: Vec<PathBuf>,
    /// The Rust types of dates and times.
    #[arg(long, value_enum, default_value_t = TemporalArg::Raw)]
    pub temporal: TemporalArg,
    /// `uuid::Uuid` for `uuid` strings (else `String`).
    #[arg(long)]
    pub uuid: bool,
    /// The Rust type of decimals on `bytes` (a decimal fixed keeps its newtype).
    #[arg(long, value_enum, default_value_t = DecimalArg::Raw)]
    pub decimal: DecimalArg,
    /// The Rust type of maps.
    #[arg(long, value_enum, default_value_t = MapArg::Hash)]
    pub map: MapArg,
}

/// `--temporal`
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TemporalArg {
    /// The `i32` or `i64` counts.
    Raw,
    /// chrono's types (avrokit feature `chrono`).
    Chrono,
    /// time's types (avrokit feature `time`).
    Time,
}

/// `--decimal`
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DecimalArg {
    /// The unscaled bytes (`serde_bytes::ByteBuf`).
    Raw,
    /// `rust_decimal::Decimal` (avrokit feature `rust_decimal`).
    RustDecimal,
    /// `bigdecimal::BigDecimal` (avrokit feature `bigdecimal`).
    Bigdecimal,
}

/// `--map`
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum MapArg {
    /// `std::collections::HashMap`.
    Hash,
    /// `std::collections::BTreeMap`.
    Btree,
    /// `indexmap::IndexMap` (keeps the order of entries).
    Index,
}

/// Generates the code for `a.inputs` into `a.out`.
pub fn codegen(a: &CodegenArgs) -> CliResult<()> {
    let mut cfg = Config::new();
    cfg.temporal(match a.temporal {
        TemporalArg::Raw => Temporal::Raw,
        TemporalArg::Chrono => Temporal::Chrono,
        TemporalArg::Time => Temporal::Time,
    })
    .uuid(a.uuid)
    .decimal(match a.decimal {
        DecimalArg::Raw => DecimalType::Raw,
        DecimalArg::RustDecimal => DecimalType::RustDecimal,
        DecimalArg::Bigdecimal => DecimalType::BigDecimal,
    })
    .map_type(match a.map {
        MapArg::Hash => MapType::HashMap,
        MapArg::Btree => MapType::BTreeMap,
        MapArg::Index => MapType::IndexMap,
    });
    for d in &a.import_dirs {
        cfg.import_dir(d);
    }
    let generated = cfg
        .generate_files(&a.inputs)
        .map_err(|e| CliError::input(e.to_string(), "codegen"))?;
    let mut out = Output::create(&a.out)?;
    let name = out.name.clone();
    out.write_all(generated.code.as_bytes()).at(&name)?;
    out.commit()
}
