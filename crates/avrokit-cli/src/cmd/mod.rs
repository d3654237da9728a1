//! The subcommands: each takes its parsed arguments, streams through the library and returns
//! the exit code (0, or 1 for `compat` when incompatible) or a [`CliError`].

pub mod codegen;
pub mod columnar;
mod idl;
mod read;
mod schema;
pub mod sql;
mod write;

use std::io::Read;
use std::path::Path;

use avrokit::container::{Codec, Reader, ReaderBuilder, WriterBuilder};
use avrokit::Schema;

use crate::cli::Command;
use crate::error::{CliError, CliResult, Context};
use crate::io::{open_input, Input};
use crate::progress::Progress;

/// A container reader over any input.
pub type AnyReader = Reader<'static, Box<dyn Read>>;

/// Runs one subcommand and returns its exit code.
pub fn run(command: Command) -> CliResult<u8> {
    match command {
        Command::Tojson(a) => read::tojson(&a),
        Command::Getschema(a) => read::getschema(&a.file),
        Command::Getmeta(a) => read::getmeta(&a),
        Command::Count(a) => read::count(&a),
        Command::SplitRead(a) => read::split_read(&a),
        Command::Fromjson(a) => write::fromjson(&a),
        Command::Cat(a) => write::cat(&a),
        Command::Concat(a) => write::concat(&a),
        Command::Recodec(a) => write::recodec(&a),
        Command::Random(a) => write::random(&a),
        Command::Canonical(a) => schema::canonical(&a.schema),
        Command::Codegen(a) => codegen::codegen(&a),
        Command::Toparquet(a) => columnar::toparquet(&a),
        Command::Fromparquet(a) => columnar::fromparquet(&a),
        Command::Toarrow(a) => columnar::toarrow(&a),
        Command::Fromarrow(a) => columnar::fromarrow(&a),
        Command::Fingerprint(a) => schema::fingerprint(&a),
        // The only command whose answer is its exit code: 1 means incompatible.
        Command::Compat(a) => return schema::compat(&a),
        Command::Idl(a) => idl::idl(&a),
        Command::Idl2schemata(a) => idl::idl2schemata(&a),
        Command::Sql(a) => sql::sql(&a),
        Command::InternalPanic => panic!("requested by `avrokit internal-panic`"),
    }
    .map(|()| 0)
}

/// Opens a container file (`-`: stdin) with `builder`'s options; returns the reader and the
/// input's name for messages.
pub fn open_reader(
    path: &Path,
    builder: ReaderBuilder,
    progress: &Progress,
) -> CliResult<(AnyReader, String)> {
    let Input { reader, name } = open_input(path, progress)?;
    let r = builder.build(reader).at(&name)?;
    Ok((r, name))
}

/// `--threads`, or the number of CPUs (at most 8).
pub(crate) fn threads_or_default(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)))
}

/// The codec named on the command line, at `level` when given, checked by the library (so the
/// ranges stay the library's): a bad name or level is a usage error.
pub fn codec_from_args(name: &str, level: Option<i32>) -> CliResult<Codec> {
    let usage = |e: avrokit::Error| CliError::usage(e.message().to_owned(), "--codec");
    let codec = Codec::from_name(name).map_err(usage)?;
    let codec = match level {
        None => codec,
        Some(l) => codec
            .with_level(l)
            .map_err(|e| CliError::usage(e.message().to_owned(), "--level"))?,
    };
    // Building a writer into nothing runs the library's own checks: the codec is compiled in
    // and its level is in range.
    let probe = Schema::parse_str("\"null\"").expect("a valid schema");
    WriterBuilder::new(&probe)
        .with_codec(codec)
        .build(std::io::sink())
        .map_err(|e| CliError::usage(e.message().to_owned(), "--codec/--level"))?;
    Ok(codec)
}
