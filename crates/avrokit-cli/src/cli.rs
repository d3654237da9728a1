//! The command line: every subcommand and option (clap derive). Parsing only; the work is in
//! [`crate::cmd`].

use std::path::PathBuf;

use clap::builder::TypedValueParser as _;
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Apache Avro object container files: inspect, convert, generate, check.
///
/// Every FILE, INPUT, OUTPUT and SCHEMA may be `-` for stdin or stdout. Exit codes: 0 success,
/// 1 bad input (or, for `compat`, incompatible schemas), 2 bad usage, 70 internal error.
#[derive(Debug, Parser)]
#[command(
    name = "avrokit",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands, in the order of `avrokit help`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print every record as one line of Avro JSON (as Java's `avro-tools tojson`).
    Tojson(TojsonArgs),
    /// Write a container file from Avro JSON records, one per line.
    Fromjson(FromjsonArgs),
    /// Print the schema embedded in a container file.
    Getschema(FileArg),
    /// Print the header metadata: `key<TAB>value` per line.
    Getmeta(GetmetaArgs),
    /// Print the number of records.
    Count(CountArgs),
    /// Copy records of files with the same schema into one file (decoding them).
    Cat(CatArgs),
    /// Append the blocks of files with the same schema and codec, without decoding them.
    Concat(ConcatArgs),
    /// Rewrite a container file with another codec.
    Recodec(RecodecArgs),
    /// Write a container file of random records of a schema.
    Random(RandomArgs),
    /// Print a schema's Parsing Canonical Form.
    Canonical(SchemaArg),
    /// Print a schema's fingerprint (of its Parsing Canonical Form) in hex.
    Fingerprint(FingerprintArgs),
    /// Print the records of one byte range of a file (a Hadoop/Spark split) as Avro JSON.
    SplitRead(SplitReadArgs),
    /// Report whether data written with one schema can be read with another.
    Compat(CompatArgs),
    /// Convert an Avro IDL file to its protocol JSON (for the schema syntax, its main schema).
    Idl(IdlArgs),
    /// Write one `.avsc` file per named type of an Avro IDL file.
    Idl2schemata(Idl2schemataArgs),
    /// Generate Rust types (serde and `AvroSchema` derives) for schema (.avsc), protocol (.avpr)
    /// and IDL (.avdl) files.
    Codegen(crate::cmd::codegen::CodegenArgs),
    /// Convert a container file to a Parquet file (through Arrow RecordBatches).
    Toparquet(crate::cmd::columnar::ToparquetArgs),
    /// Convert a Parquet file to a container file.
    Fromparquet(crate::cmd::columnar::FromparquetArgs),
    /// Convert a container file to an Arrow IPC file.
    Toarrow(crate::cmd::columnar::ToarrowArgs),
    /// Convert an Arrow IPC file to a container file.
    Fromarrow(crate::cmd::columnar::FromarrowArgs),
    /// Run SQL over Avro files (DataFusion): `--table NAME=LOCATION`, then queries.
    Sql(crate::cmd::sql::SqlArgs),
    /// Panic on purpose, to test the internal-error report (exit code 70).
    #[command(hide = true)]
    InternalPanic,
}

/// One container file.
#[derive(Debug, Args)]
pub struct FileArg {
    /// The container file (`-`: stdin).
    pub file: PathBuf,
}

/// One schema file.
#[derive(Debug, Args)]
pub struct SchemaArg {
    /// The schema file, Avro JSON (`-`: stdin).
    pub schema: PathBuf,
}

/// `tojson`
#[derive(Debug, Args)]
pub struct TojsonArgs {
    /// Read the records as this schema, resolved against the file's (promotions, defaults,
    /// renamed types through aliases).
    #[arg(long, value_name = "FILE")]
    pub reader_schema: Option<PathBuf>,
    /// Indent each record over several lines (as `avro-tools tojson --pretty`).
    #[arg(long)]
    pub pretty: bool,
    #[command(flatten)]
    pub threads: ReadThreads,
    /// The container file (`-`: stdin).
    pub file: PathBuf,
}

/// `--threads` of the commands that decode every record.
#[derive(Debug, Args, Clone, Copy)]
pub struct ReadThreads {
    /// Threads decoding the blocks (default: the number of CPUs, at most 8). The output is the
    /// same, in the same order, whatever the number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..).map(usize::from))]
    pub threads: Option<usize>,
}

/// `count`
#[derive(Debug, Args)]
pub struct CountArgs {
    #[command(flatten)]
    pub threads: ReadThreads,
    /// The container file (`-`: stdin).
    pub file: PathBuf,
}

/// Codec options shared by the commands that write files.
#[derive(Debug, Args, Clone)]
pub struct CodecArgs {
    /// Compression codec: null, deflate, snappy, zstandard, bzip2 or xz.
    #[arg(long, value_name = "NAME")]
    pub codec: Option<String>,
    /// Compression level (deflate 0-9, zstandard 1-22 or negative, bzip2 1-9, xz 0-9).
    #[arg(
        long,
        value_name = "N",
        requires = "codec",
        allow_negative_numbers = true
    )]
    pub level: Option<i32>,
}

/// `--threads` of the commands that write compressed files.
#[derive(Debug, Args, Clone, Copy)]
pub struct WriteThreads {
    /// Threads compressing the blocks (default: the number of CPUs, at most 8). The file is the
    /// same, byte for byte, whatever the number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..).map(usize::from))]
    pub threads: Option<usize>,
}

/// `fromjson`
#[derive(Debug, Args)]
pub struct FromjsonArgs {
    /// The schema of the records.
    #[arg(long, value_name = "FILE")]
    pub schema: PathBuf,
    #[command(flatten)]
    pub codec: CodecArgs,
    #[command(flatten)]
    pub threads: WriteThreads,
    /// Size of a block's encoded records before compression.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    pub block_size: Option<u64>,
    /// Avro JSON records, one per line (`-`: stdin). Blank lines are skipped.
    pub input: PathBuf,
    /// The container file to write (`-`: stdout).
    pub output: PathBuf,
}

/// `getmeta`
#[derive(Debug, Args)]
pub struct GetmetaArgs {
    /// Print only this key's value, exactly its bytes, followed by a newline.
    #[arg(long, value_name = "KEY")]
    pub key: Option<String>,
    /// The container file (`-`: stdin).
    pub file: PathBuf,
}

/// `cat`
#[derive(Debug, Args)]
pub struct CatArgs {
    /// Skip this many records (counted over all inputs).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
    /// Copy at most this many records.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    #[command(flatten)]
    pub codec: CodecArgs,
    #[command(flatten)]
    pub threads: WriteThreads,
    /// Input files, then the output file (`-`: stdin for one input, stdout for the output).
    #[arg(required = true, num_args = 2.., value_name = "FILES")]
    pub files: Vec<PathBuf>,
}

/// `concat`
#[derive(Debug, Args)]
pub struct ConcatArgs {
    /// Input files, then the output file (`-`: stdin for one input, stdout for the output).
    #[arg(required = true, num_args = 2.., value_name = "FILES")]
    pub files: Vec<PathBuf>,
}

/// `recodec`
#[derive(Debug, Args)]
pub struct RecodecArgs {
    /// The new codec: null, deflate, snappy, zstandard, bzip2 or xz.
    #[arg(long, value_name = "NAME")]
    pub codec: String,
    /// Compression level (see `fromjson --level`).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub level: Option<i32>,
    #[command(flatten)]
    pub threads: WriteThreads,
    /// The container file (`-`: stdin).
    pub input: PathBuf,
    /// The container file to write (`-`: stdout).
    pub output: PathBuf,
}

/// `random`
#[derive(Debug, Args)]
pub struct RandomArgs {
    /// The schema of the records.
    #[arg(long, value_name = "FILE")]
    pub schema: PathBuf,
    /// How many records.
    #[arg(long, value_name = "N")]
    pub count: u64,
    /// Seed of the generator: the same seed, schema and options give the same file, byte for
    /// byte (the sync marker is derived from it too). Default: from the clock.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub codec: CodecArgs,
    #[command(flatten)]
    pub threads: WriteThreads,
    /// The container file to write (`-`: stdout).
    pub output: PathBuf,
}

/// Fingerprint algorithms.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Algorithm {
    /// CRC-64-AVRO, printed as its 8 little-endian bytes (as Java's `avro-tools fingerprint`
    /// and single-object encoding write it).
    Rabin,
    /// MD5 (16 bytes).
    Md5,
    /// SHA-256 (32 bytes).
    Sha256,
}

/// `fingerprint`
#[derive(Debug, Args)]
pub struct FingerprintArgs {
    /// The fingerprint algorithm.
    #[arg(long, value_enum, default_value_t = Algorithm::Rabin)]
    pub algorithm: Algorithm,
    /// The schema file, Avro JSON (`-`: stdin).
    pub schema: PathBuf,
}

/// `split-read`
#[derive(Debug, Args)]
pub struct SplitReadArgs {
    /// First byte of the range.
    #[arg(long, value_name = "N")]
    pub start: u64,
    /// End of the range (exclusive).
    #[arg(long, value_name = "N")]
    pub end: u64,
    #[command(flatten)]
    pub threads: ReadThreads,
    /// The container file (must be seekable: not `-`).
    pub file: PathBuf,
}

/// `compat`
#[derive(Debug, Args)]
pub struct CompatArgs {
    /// The reader's schema.
    #[arg(long, value_name = "R.avsc")]
    pub reader: PathBuf,
    /// The writer's schema.
    #[arg(long, value_name = "W.avsc")]
    pub writer: PathBuf,
}

/// `idl`
#[derive(Debug, Args)]
pub struct IdlArgs {
    /// Where imports are looked for when not found next to the importing file (repeatable).
    #[arg(long = "import-dir", value_name = "DIR")]
    pub import_dirs: Vec<PathBuf>,
    /// The IDL file (`-`: stdin, its imports relative to the current directory).
    pub input: PathBuf,
    /// The JSON output (`-` or absent: stdout).
    pub output: Option<PathBuf>,
}

/// `idl2schemata`
#[derive(Debug, Args)]
pub struct Idl2schemataArgs {
    /// Where imports are looked for when not found next to the importing file (repeatable).
    #[arg(long = "import-dir", value_name = "DIR")]
    pub import_dirs: Vec<PathBuf>,
    /// The IDL file (`-`: stdin, its imports relative to the current directory).
    pub input: PathBuf,
    /// The directory to write `NAME.avsc` files into (created if missing).
    pub outdir: PathBuf,
}
