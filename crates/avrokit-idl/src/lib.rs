//! # avrokit-idl: Avro IDL for avrokit
//!
//! Reads Avro IDL 1.12 (`.avdl`) files into an [`avrokit::Protocol`] (a file in protocol
//! syntax) or a main [`avrokit::Schema`] with its named types (a file in schema syntax), as
//! Java's `avro-tools idl` does:
//!
//! - protocols, and the schema syntax (`namespace x.y;`, `schema T;`);
//! - imports of IDL, protocol (`.avpr`) and schema (`.avsc`) files, looked up relative to the
//!   importing file first, then in each import directory ([`IdlReader::import_dir`]); a file is
//!   read once however often it is imported;
//! - `/** doc */` comments as `doc` (and a [`Warning`] for each doc comment that documents
//!   nothing), annotations (`@namespace`, `@aliases`, `@order`, any other as a property);
//! - the logical-type shorthands (`date`, `time_ms`, `timestamp_ms`, `local_timestamp_ms`,
//!   `uuid`, `decimal(p, s)`), `T?` for a union with null, defaults;
//! - errors, messages, `throws` and `oneway`; backticks to use a keyword as a name.
//!
//! Every error names the file, line and column. Input is bounded ([`IdlLimits`]: file size,
//! tokens, nesting depth, number of files) and never makes the reader panic.
//!
//! # Example
//! ```
//! use avrokit_idl::IdlReader;
//! let idl = IdlReader::new().parse_str(r#"
//!     @namespace("demo")
//!     protocol Echo {
//!       /** A ping. */
//!       record Ping { long time = 0; string? text = null; }
//!       Ping echo(Ping ping) throws Failure;
//!       error Failure { string why; }
//!     }"#, None)?;
//! let protocol = idl.protocol().unwrap();
//! assert_eq!(protocol.fullname(), "demo.Echo");
//! assert_eq!(protocol.types()[0].root().name().unwrap().fullname(), "demo.Ping");
//! assert_eq!(protocol.to_json()["types"][0]["doc"], "A ping.");
//! # Ok::<(), avrokit_idl::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod doc;
mod error;
mod lexer;
mod parser;
mod reader;

use std::path::{Path, PathBuf};

use avrokit::{Protocol, Schema};

pub use crate::error::{Error, Location, Warning};

/// Bounds on what one [`IdlReader::parse_file`] call reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdlLimits {
    /// Largest file read, in bytes (IDL, protocol and schema files alike).
    pub max_file_size: u64,
    /// Most tokens in one IDL file.
    pub max_tokens: usize,
    /// Deepest nesting of types and JSON values, and of imports.
    pub max_depth: usize,
    /// Most files read (the main file and every import).
    pub max_files: usize,
}

impl Default for IdlLimits {
    /// 64 MiB files, 4 million tokens a file, 128 levels, 4096 files.
    fn default() -> Self {
        IdlLimits {
            max_file_size: 64 << 20,
            max_tokens: 4 << 20,
            max_depth: 128,
            max_files: 4096,
        }
    }
}

/// Reads IDL files. See the [crate docs](crate) for an example.
#[derive(Debug, Clone, Default)]
pub struct IdlReader {
    import_dirs: Vec<PathBuf>,
    limits: IdlLimits,
}

/// What an IDL file defines.
#[derive(Debug, Clone)]
pub struct IdlFile {
    protocol: Option<Protocol>,
    main_schema: Option<Schema>,
    named: Vec<Schema>,
    warnings: Vec<Warning>,
    files: Vec<PathBuf>,
}

impl IdlReader {
    /// A reader with no import directories and the default limits.
    pub fn new() -> IdlReader {
        IdlReader::default()
    }

    /// Adds a directory where imports are looked for when they are not found relative to the
    /// importing file (Java looks on the class path). Directories are tried in order.
    pub fn import_dir(mut self, dir: impl Into<PathBuf>) -> IdlReader {
        self.import_dirs.push(dir.into());
        self
    }

    /// Sets the limits.
    pub fn limits(mut self, limits: IdlLimits) -> IdlReader {
        self.limits = limits;
        self
    }

    /// Reads the IDL file at `path` and everything it imports.
    ///
    /// # Errors
    /// An [`Error`] naming the file, line and column: a syntax error, an undefined or twice
    /// defined type, an import that cannot be found or read, an invalid default...
    pub fn parse_file(&self, path: impl AsRef<Path>) -> Result<IdlFile, Error> {
        reader::read(self, reader::Input::File(path.as_ref()))
    }

    /// Reads IDL text. Its imports are looked up in `dir` (when given), then in the import
    /// directories.
    ///
    /// # Errors
    /// As [`IdlReader::parse_file`]; positions in the text are reported in a file `<input>`.
    pub fn parse_str(&self, text: &str, dir: Option<&Path>) -> Result<IdlFile, Error> {
        reader::read(self, reader::Input::Text(text, dir))
    }
}

impl IdlFile {
    /// The protocol, for a file in protocol syntax.
    pub fn protocol(&self) -> Option<&Protocol> {
        self.protocol.as_ref()
    }

    /// The main schema (`schema T;`), for a file in schema syntax that declares one.
    pub fn main_schema(&self) -> Option<&Schema> {
        self.main_schema.as_ref()
    }

    /// Every named type the file defines or imports, in definition order (for a protocol, its
    /// types).
    pub fn named_schemas(&self) -> Vec<Schema> {
        match &self.protocol {
            Some(p) => p.types(),
            None => self.named.clone(),
        }
    }

    /// Every file read: the main file (when read from a file) and each import, in the order
    /// they were read, as found (relative to the importing file or in an import directory).
    /// A build script reruns when one of them changes.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Doc comments out of place, and the like.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// What `avro-tools idl` writes: the protocol JSON, or the main schema's.
    pub fn to_json(&self) -> Option<serde_json::Value> {
        match (&self.protocol, &self.main_schema) {
            (Some(p), _) => Some(p.to_json()),
            (None, Some(s)) => Some(s.to_json()),
            (None, None) => None,
        }
    }
}
