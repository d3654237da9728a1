//! Columnar conversions through avrokit-arrow: `toparquet`, `fromparquet`, `toarrow` (an
//! Arrow IPC file) and `fromarrow`.
//!
//! Avro is read straight into RecordBatches (avrokit-arrow's column decoders, blocks decoded
//! on several threads) and written from them; Parquet and Arrow IPC are the parquet and
//! arrow-ipc crates of the workspace's one Arrow release. The Avro schema travels with the
//! batches (`avro.schema` in the Arrow schema's metadata, which Parquet and Arrow IPC keep), so
//! a file converted back gets the schema it came from; a file from elsewhere gets one derived
//! from its Arrow types (avrokit-arrow's mapping, records named as arrow-avro names them).
//!
//! Memory stays bounded: one batch at a time, and for Parquet one row group being written.
//! Parquet and Arrow IPC files are read from their footer, so `-` (stdin) is first copied to a
//! temporary file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, Write};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef};
use avrokit::container::Codec;
use clap::builder::TypedValueParser as _;
use clap::Args;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;

use super::{codec_from_args, threads_or_default};
use crate::cli::CodecArgs;
use crate::error::{is_broken_pipe, CliError, CliResult, Context};
use crate::io::{check_output_not_input, input_len, is_std, name, open_input, read_schema, Output};
use crate::progress::Progress;

/// Options of the commands that read Avro into batches (`toparquet`, `toarrow`).
#[derive(Debug, Args)]
pub struct AvroInArgs {
    /// Only these columns: top-level field names, or dotted paths into nested records
    /// (`id,user.name`). The other fields are skipped, never decoded.
    #[arg(long, value_name = "A,B.C", value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// Read the records as this schema, resolved against the file's.
    #[arg(long, value_name = "FILE")]
    pub reader_schema: Option<PathBuf>,
    /// Rows per batch (and so per Arrow IPC record batch).
    #[arg(long, value_name = "ROWS", default_value_t = avrokit_arrow::DEFAULT_BATCH_SIZE,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    pub batch_size: usize,
    /// Threads decoding the Avro blocks (default: the number of CPUs, at most 8).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..).map(usize::from))]
    pub threads: Option<usize>,
    /// The Avro container file (`-`: stdin).
    pub input: PathBuf,
}

/// Options of the commands that write Avro from batches (`fromparquet`, `fromarrow`).
#[derive(Debug, Args)]
pub struct AvroOutArgs {
    /// Write the records with this Avro schema, checked against the input's columns (default:
    /// the `avro.schema` the input carries, else one derived from its Arrow types).
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    #[command(flatten)]
    pub codec: CodecArgs,
    /// Threads encoding the batches and compressing the Avro blocks (default: the number of
    /// CPUs, at most 8). The file holds the same blocks in the same order whatever the number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..).map(usize::from))]
    pub threads: Option<usize>,
    /// The container file to write (`-`: stdout).
    pub output: PathBuf,
}

/// `toparquet`
#[derive(Debug, Args)]
pub struct ToparquetArgs {
    /// Parquet compression: none, snappy or zstd.
    #[arg(long, value_name = "NAME", default_value = "snappy")]
    pub compression: String,
    /// zstd level (1-22; default 3).
    #[arg(long, value_name = "N")]
    pub level: Option<i32>,
    /// The most rows in a row group.
    #[arg(long, value_name = "ROWS", default_value_t = 1 << 20,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    pub row_group_size: usize,
    #[command(flatten)]
    pub avro: AvroInArgs,
    /// The Parquet file to write (`-`: stdout).
    pub output: PathBuf,
}

/// `toarrow`
#[derive(Debug, Args)]
pub struct ToarrowArgs {
    #[command(flatten)]
    pub avro: AvroInArgs,
    /// The Arrow IPC file to write (`-`: stdout).
    pub output: PathBuf,
}

/// `fromparquet`
#[derive(Debug, Args)]
pub struct FromparquetArgs {
    /// Rows per batch read from the Parquet file.
    #[arg(long, value_name = "ROWS", default_value_t = avrokit_arrow::DEFAULT_BATCH_SIZE,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    pub batch_size: usize,
    /// The Parquet file (`-`: stdin).
    pub input: PathBuf,
    #[command(flatten)]
    pub avro: AvroOutArgs,
}

/// `fromarrow`
#[derive(Debug, Args)]
pub struct FromarrowArgs {
    /// The Arrow IPC file (`-`: stdin).
    pub input: PathBuf,
    #[command(flatten)]
    pub avro: AvroOutArgs,
}

/// `toparquet`: an Avro container file into a Parquet file.
pub fn toparquet(a: &ToparquetArgs) -> CliResult<()> {
    let compression = parquet_compression(&a.compression, a.level)?;
    let props = WriterProperties::builder()
        .set_compression(compression)
        .set_max_row_group_row_count(Some(a.row_group_size))
        .build();
    check_output_not_input(std::slice::from_ref(&a.avro.input), &a.output)?;
    let progress = Progress::bytes(input_len(&a.avro.input));
    let (reader, in_name) = open_batches(&a.avro, &progress)?;
    let schema = reader.schema();
    parquet_can_hold(&schema).map_err(|what| CliError::input(what, &in_name))?;
    let out_name = name(&a.output, true);
    let (sink, partial) = send_output(&a.output)?;
    let mut writer = ArrowWriter::try_new(sink, schema, Some(props))
        .map_err(|e| parquet_error(&e, &out_name, "cannot write the batches as Parquet"))?;
    for batch in reader {
        let batch = batch.at(&in_name)?;
        writer
            .write(&batch)
            .map_err(|e| parquet_error(&e, &out_name, "cannot write Parquet"))?;
    }
    let mut sink = writer
        .into_inner()
        .map_err(|e| parquet_error(&e, &out_name, "cannot write Parquet"))?;
    sink.flush().at(&out_name)?;
    partial.keep();
    Ok(())
}

/// `toarrow`: an Avro container file into an Arrow IPC file.
pub fn toarrow(a: &ToarrowArgs) -> CliResult<()> {
    check_output_not_input(std::slice::from_ref(&a.avro.input), &a.output)?;
    let progress = Progress::bytes(input_len(&a.avro.input));
    let (reader, in_name) = open_batches(&a.avro, &progress)?;
    let out = Output::create(&a.output)?;
    let out_name = out.name.clone();
    let mut writer = arrow_ipc::writer::FileWriter::try_new(out, &reader.schema())
        .map_err(|e| arrow_error(&e, &out_name, "cannot write an Arrow IPC file"))?;
    for batch in reader {
        let batch = batch.at(&in_name)?;
        writer
            .write(&batch)
            .map_err(|e| arrow_error(&e, &out_name, "cannot write an Arrow IPC file"))?;
    }
    writer
        .finish()
        .map_err(|e| arrow_error(&e, &out_name, "cannot write an Arrow IPC file"))?;
    let out = writer
        .into_inner()
        .map_err(|e| arrow_error(&e, &out_name, "cannot write an Arrow IPC file"))?;
    out.commit()
}

/// `fromparquet`: a Parquet file into an Avro container file.
pub fn fromparquet(a: &FromparquetArgs) -> CliResult<()> {
    let codec = avro_codec(&a.avro.codec)?;
    check_output_not_input(std::slice::from_ref(&a.input), &a.avro.output)?;
    let Seekable { file, name, _spool } = open_seekable(&a.input)?;
    let not_parquet =
        |e: ParquetError| parquet_error(&e, &name, "not a Parquet file, or a damaged one");
    let len = file.metadata().at(&name)?.len();
    let builder = contained(&name, || {
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(not_parquet)
    })?;
    check_chunks(builder.metadata(), len).map_err(|what| CliError::input(what, &name))?;
    let rows = builder.metadata().file_metadata().num_rows();
    let progress = Progress::records(u64::try_from(rows).unwrap_or(0));
    let schema = builder.schema().clone();
    let mut reader = builder
        .with_batch_size(a.batch_size)
        .build()
        .map_err(not_parquet)?;
    let batches = contained_batches(&mut reader, &name, "bad Parquet data");
    write_avro(&a.avro, codec, &schema, batches, &progress, true)
}

/// `fromarrow`: an Arrow IPC file into an Avro container file.
pub fn fromarrow(a: &FromarrowArgs) -> CliResult<()> {
    let codec = avro_codec(&a.avro.codec)?;
    check_output_not_input(std::slice::from_ref(&a.input), &a.avro.output)?;
    let Seekable {
        mut file,
        name,
        _spool,
    } = open_seekable(&a.input)?;
    let len = file.metadata().at(&name)?.len();
    check_ipc_footer(&mut file, len).map_err(|what| CliError::input(what, &name))?;
    let mut reader = contained(&name, || {
        arrow_ipc::reader::FileReader::try_new(file, None)
            .map_err(|e| arrow_error(&e, &name, "not an Arrow IPC file, or a damaged one"))
    })?;
    // The footer lists the batches, not their rows: the bar counts batches.
    let progress = Progress::batches(reader.num_batches() as u64);
    let schema = reader.schema();
    let batches = contained_batches(&mut reader, &name, "bad Arrow IPC data");
    write_avro(&a.avro, codec, &schema, batches, &progress, false)
}

/// Opens an Avro container file as a reader of batches.
fn open_batches(
    a: &AvroInArgs,
    progress: &Progress,
) -> CliResult<(avrokit_arrow::Reader<'static, Box<dyn io::Read>>, String)> {
    let mut builder = avrokit_arrow::ReaderBuilder::new()
        .with_batch_size(a.batch_size)
        .with_threads(threads_or_default(a.threads));
    if let Some(p) = &a.reader_schema {
        builder = builder.with_reader_schema(&read_schema(p)?);
    }
    if let Some(cols) = &a.columns {
        builder = builder.with_projection(cols);
    }
    let input = open_input(&a.input, progress)?;
    let reader = builder.build(input.reader).at(&input.name)?;
    Ok((reader, input.name))
}

/// Writes `batches` of `schema` as an Avro container file; `progress` counts rows, or batches
/// when `by_rows` is false.
fn write_avro(
    a: &AvroOutArgs,
    codec: Codec,
    schema: &SchemaRef,
    batches: impl Iterator<Item = CliResult<RecordBatch>>,
    progress: &Progress,
    by_rows: bool,
) -> CliResult<()> {
    let given = a.schema.as_deref().map(read_schema).transpose()?;
    let out = Output::create(&a.output)?;
    let out_name = out.name.clone();
    let mut writer = avrokit_arrow::Writer::with_options(out, schema, given.as_ref(), codec)
        .and_then(|w| w.with_threads(threads_or_default(a.threads)))
        .map_err(|e| {
            CliError::input(
                format!("cannot write these columns as Avro: {e}"),
                &out_name,
            )
        })?;
    for batch in batches {
        let batch = batch?;
        writer.write(&batch).at(&out_name)?;
        progress.inc(if by_rows { batch.num_rows() as u64 } else { 1 });
    }
    writer.finish().at(&out_name)?.commit()
}

thread_local! {
    /// Set while the parquet or arrow-ipc crate reads untrusted input: see [`contained`].
    static CONTAINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// True while a panic is contained by [`contained`]: the panic hook then stays silent and lets
/// it unwind to there, instead of reporting an internal error.
pub fn panic_is_contained() -> bool {
    CONTAINED.with(std::cell::Cell::get)
}

/// Runs `f`, which has the parquet or arrow-ipc crate decode `place`: those crates panic on
/// some damaged files (an out-of-range buffer slice, an `unwrap` on a bad child length) instead
/// of returning an error, and such a panic is bad input, not a bug of avrokit (exit 1).
fn contained<T>(place: &str, f: impl FnOnce() -> CliResult<T>) -> CliResult<T> {
    let was = CONTAINED.with(|c| c.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CONTAINED.with(|c| c.set(was));
    r.unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(CliError::input(
            format!("a damaged file: its reader gave up with {msg:?}"),
            place,
        ))
    })
}

/// The batches of `reader`, each read under [`contained`]; an error says `what`.
fn contained_batches<'a>(
    reader: &'a mut impl Iterator<Item = Result<RecordBatch, ArrowError>>,
    place: &'a str,
    what: &'a str,
) -> impl Iterator<Item = CliResult<RecordBatch>> + 'a {
    std::iter::from_fn(move || match contained(place, || Ok(reader.next())) {
        Ok(None) => None,
        Ok(Some(b)) => Some(b.map_err(|e| arrow_error(&e, place, what))),
        Err(e) => Some(Err(e)),
    })
}

/// Checks that every column chunk the footer lists lies inside the file, before the parquet
/// crate allocates a buffer of the size it claims.
fn check_chunks(meta: &parquet::file::metadata::ParquetMetaData, len: u64) -> Result<(), String> {
    for (i, rg) in meta.row_groups().iter().enumerate() {
        for c in rg.columns() {
            let (start, size) = c.byte_range();
            if start.checked_add(size).is_none_or(|end| end > len) {
                return Err(format!(
                    "a damaged Parquet file: row group {i}, column {} claims bytes {start}..+{size} of a {len}-byte file",
                    c.column_path()
                ));
            }
        }
    }
    Ok(())
}

/// Checks an Arrow IPC file's trailer and footer before the arrow-ipc crate reads them: it
/// allocates the footer length the trailer claims, and each record batch's claimed size, before
/// reading (up to 2 GiB and beyond), and panics on negative sizes. Everything claimed must lie
/// inside the file. A file without the trailer's magic is left to the crate's own error.
fn check_ipc_footer(file: &mut File, len: u64) -> Result<(), String> {
    use std::io::{Read, SeekFrom};
    const TRAILER: u64 = 10;
    let damaged = |what: String| format!("a damaged Arrow IPC file: {what}");
    let io = |e: io::Error| damaged(format!("cannot read its footer ({e})"));
    if len < TRAILER {
        return Ok(());
    }
    let mut trailer = [0u8; TRAILER as usize];
    file.seek(SeekFrom::Start(len - TRAILER)).map_err(io)?;
    file.read_exact(&mut trailer).map_err(io)?;
    if &trailer[4..] != b"ARROW1" {
        file.rewind().map_err(io)?;
        return Ok(());
    }
    let claimed = i32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    // The file starts with the 6-byte magic and 2 bytes of padding.
    let room = len.saturating_sub(TRAILER + 8);
    let footer_len = u64::try_from(claimed)
        .ok()
        .filter(|&n| n <= room)
        .ok_or_else(|| {
            damaged(format!(
                "its footer claims {claimed} bytes, of a {len}-byte file"
            ))
        })?;
    let footer_start = len - TRAILER - footer_len;
    let mut footer = vec![0u8; footer_len as usize];
    file.seek(SeekFrom::Start(footer_start)).map_err(io)?;
    file.read_exact(&mut footer).map_err(io)?;
    file.rewind().map_err(io)?;
    // An unreadable footer is the crate's to report; only the sizes it lists are checked here.
    let Ok(footer) = arrow_ipc::root_as_footer(&footer) else {
        return Ok(());
    };
    let lists = [
        ("record batch", footer.recordBatches()),
        ("dictionary", footer.dictionaries()),
    ];
    for (kind, blocks) in lists {
        for (i, b) in blocks.iter().flatten().enumerate() {
            let (offset, meta, body) = (b.offset(), i64::from(b.metaDataLength()), b.bodyLength());
            let end = [offset, meta, body]
                .into_iter()
                .try_fold(0u64, |sum, n| sum.checked_add(u64::try_from(n).ok()?));
            if end.is_none_or(|end| end > footer_start) {
                return Err(damaged(format!(
                    "{kind} {i} claims bytes {offset}..+{meta}+{body}, past the data's end at {footer_start}"
                )));
            }
        }
    }
    Ok(())
}

/// The Avro codec of `--codec`/`--level` (default `null`): checked before any input is read.
fn avro_codec(a: &CodecArgs) -> CliResult<Codec> {
    match &a.codec {
        Some(n) => codec_from_args(n, a.level),
        None => Ok(Codec::Null),
    }
}

/// Refuses the Arrow types that Parquet cannot hold, naming the column, before the parquet
/// crate is given them (it panics on some). Arrow IPC (`toarrow`) holds them all.
fn parquet_can_hold(schema: &arrow_schema::Schema) -> Result<(), String> {
    use arrow_schema::{DataType, IntervalUnit};
    fn check(path: &str, t: &DataType) -> Result<(), String> {
        let refuse = |why: &str| {
            Err(format!(
                "column {path}: {why} has no Parquet form (toarrow writes it to an Arrow IPC file)"
            ))
        };
        match t {
            DataType::Union(..) => refuse("a union of several non-null types (an Arrow union)"),
            DataType::Interval(IntervalUnit::MonthDayNano) => {
                refuse("a duration (an Arrow month-day-nano interval)")
            }
            DataType::Struct(f) if f.is_empty() => refuse("a record with no fields"),
            DataType::Struct(fields) => fields
                .iter()
                .try_for_each(|f| check(&format!("{path}.{}", f.name()), f.data_type())),
            DataType::List(f)
            | DataType::LargeList(f)
            | DataType::FixedSizeList(f, _)
            | DataType::Map(f, _) => check(&format!("{path}[]"), f.data_type()),
            DataType::Dictionary(_, v) => check(path, v),
            _ => Ok(()),
        }
    }
    if schema.fields().is_empty() {
        return Err(
            "a top-level record with no fields has no Parquet form (its row count would be lost)"
                .into(),
        );
    }
    schema
        .fields()
        .iter()
        .try_for_each(|f| check(f.name(), f.data_type()))
}

/// The Parquet compression named on the command line.
fn parquet_compression(name: &str, level: Option<i32>) -> CliResult<Compression> {
    let no_level = |c: Compression| match level {
        None => Ok(c),
        Some(_) => Err(CliError::usage(
            format!("the {name} compression has no levels"),
            "--level",
        )),
    };
    match name {
        "none" | "uncompressed" => no_level(Compression::UNCOMPRESSED),
        "snappy" => no_level(Compression::SNAPPY),
        "zstd" | "zstandard" => {
            let level = ZstdLevel::try_new(level.unwrap_or(3))
                .map_err(|e| CliError::usage(e.to_string(), "--level"))?;
            Ok(Compression::ZSTD(level))
        }
        other => Err(CliError::usage(
            format!("unknown Parquet compression {other:?} (none, snappy or zstd)"),
            "--compression",
        )),
    }
}

impl<T> Context<T> for Result<T, avrokit_arrow::Error> {
    fn at(self, place: &str) -> CliResult<T> {
        self.map_err(|e| {
            if is_broken_pipe(&e) {
                return CliError::BrokenPipe;
            }
            CliError::input(e.to_string(), place)
        })
    }
}

/// A Parquet error: `what`, then the parquet crate's message.
fn parquet_error(e: &ParquetError, place: &str, what: &str) -> CliError {
    if is_broken_pipe(e) {
        return CliError::BrokenPipe;
    }
    CliError::input(format!("{what}: {e}"), place)
}

/// An Arrow error: `what`, then the arrow crate's message.
fn arrow_error(e: &ArrowError, place: &str, what: &str) -> CliError {
    if is_broken_pipe(e)
        || matches!(e, ArrowError::IoError(_, io) if io.kind() == io::ErrorKind::BrokenPipe)
    {
        return CliError::BrokenPipe;
    }
    CliError::input(format!("{what}: {e}"), place)
}

/// An output the Parquet writer can own (it must be `Send`): a file, removed again unless
/// [`Partial::keep`] is called, or stdout.
fn send_output(path: &Path) -> CliResult<(Box<dyn Write + Send>, Partial)> {
    if is_std(path) {
        return Ok((Box::new(io::stdout()), Partial(None)));
    }
    let file = File::create(path).at(&name(path, true))?;
    Ok((Box::new(file), Partial(Some(path.to_owned()))))
}

/// A file being written, removed when dropped before [`keep`](Self::keep): a failed command
/// leaves no half-written file behind.
struct Partial(Option<PathBuf>);

impl Partial {
    fn keep(mut self) {
        self.0 = None;
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = fs::remove_file(p);
        }
    }
}

/// A file open for random access, and its name for messages.
struct Seekable {
    file: File,
    name: String,
    /// The temporary copy of stdin, removed when done.
    _spool: Partial,
}

/// Opens `path` for random access; stdin is first copied to a temporary file.
fn open_seekable(path: &Path) -> CliResult<Seekable> {
    let name = name(path, false);
    if !is_std(path) {
        let file = File::open(path).at(&name)?;
        return Ok(Seekable {
            file,
            name,
            _spool: Partial(None),
        });
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp =
        std::env::temp_dir().join(format!("avrokit-stdin-{}-{nanos:08x}", std::process::id()));
    let tmp_name = tmp.display().to_string();
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&tmp)
        .at(&tmp_name)?;
    let spool = Partial(Some(tmp));
    io::copy(&mut io::stdin().lock(), &mut file)
        .map_err(|e| CliError::input(format!("copying stdin to {tmp_name} failed: {e}"), &name))?;
    file.rewind().at(&tmp_name)?;
    Ok(Seekable {
        file,
        name,
        _spool: spool,
    })
}
