//! Commands that write a container file: `fromjson`, `cat`, `concat`, `recodec`, `random`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use avrokit::container::{Codec, Reader, ReaderBuilder, Writer, WriterBuilder};
use avrokit::json::from_json_str;
use avrokit::value::read_value;
use avrokit::Schema;

use super::{codec_from_args, open_reader, threads_or_default, AnyReader};
use crate::cli::{CatArgs, CodecArgs, ConcatArgs, FromjsonArgs, RandomArgs, RecodecArgs};
use crate::error::{CliError, CliResult, Context};
use crate::io::{
    check_one_stdin, check_output_not_input, input_len, name, open_input, read_schema, Input,
    Output,
};
use crate::progress::Progress;
use crate::random::Generator;

/// The codec of `--codec`/`--level`, if given.
fn codec_option(a: &CodecArgs) -> CliResult<Option<Codec>> {
    a.codec
        .as_deref()
        .map(|n| codec_from_args(n, a.level))
        .transpose()
}

/// The metadata entries of a file that are not the specification's (`avro.*`), to carry over
/// into a file derived from it.
fn user_metadata<R: Read>(reader: &Reader<'_, R>) -> Vec<(String, Vec<u8>)> {
    reader
        .metadata()
        .iter()
        .filter(|(k, _)| !k.starts_with("avro."))
        .cloned()
        .collect()
}

/// Starts a container file at `output`, its blocks compressed on `threads` threads.
fn create_writer(
    output: &Path,
    schema: &Schema,
    (codec, threads): (Codec, usize),
    metadata: Vec<(String, Vec<u8>)>,
    tune: impl FnOnce(WriterBuilder) -> WriterBuilder,
) -> CliResult<(Writer<Output>, String)> {
    let out = Output::create(output)?;
    let out_name = out.name.clone();
    let mut builder = WriterBuilder::new(schema)
        .with_codec(codec)
        .with_threads(threads);
    for (k, v) in metadata {
        builder = builder.with_metadata(k, v);
    }
    let writer = tune(builder).build(out).at(&out_name)?;
    Ok((writer, out_name))
}

/// Ends the container file and keeps it.
fn finish_writer(writer: Writer<Output>, out_name: &str) -> CliResult<()> {
    writer.into_inner().at(out_name)?.commit()
}

/// `fromjson`: Avro JSON records, one per line, into a container file.
pub fn fromjson(a: &FromjsonArgs) -> CliResult<()> {
    let schema = read_schema(&a.schema)?;
    let codec = codec_option(&a.codec)?.unwrap_or(Codec::Null);
    check_output_not_input(std::slice::from_ref(&a.input), &a.output)?;
    let progress = Progress::bytes(input_len(&a.input));
    let Input { reader, name } = open_input(&a.input, &progress)?;
    let mut lines = BufReader::with_capacity(64 * 1024, reader);
    let block_size = a.block_size;
    let (mut writer, out_name) = create_writer(
        &a.output,
        &schema,
        (codec, threads_or_default(a.threads.threads)),
        Vec::new(),
        |b| match block_size {
            Some(n) => b.with_block_size(usize::try_from(n).unwrap_or(usize::MAX)),
            None => b,
        },
    )?;
    let mut line = String::new();
    let mut lineno: u64 = 0;
    loop {
        line.clear();
        lineno += 1;
        let n = lines
            .read_line(&mut line)
            .map_err(|e| CliError::io(&e, &format!("{name}, line {lineno}")))?;
        if n == 0 {
            break;
        }
        if line.trim().is_empty() {
            continue;
        }
        let value = from_json_str(&line, &schema).at(&format!("{name}, line {lineno}"))?;
        writer.append(&value).at(&out_name)?;
    }
    finish_writer(writer, &out_name)
}

/// Splits `INPUT... OUTPUT` and checks the inputs against the output.
fn inputs_and_output(files: &[PathBuf]) -> CliResult<(&[PathBuf], &Path)> {
    let (output, inputs) = files.split_last().expect("clap requires two files or more");
    check_one_stdin(&inputs.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
    check_output_not_input(inputs, output)?;
    Ok((inputs, output))
}

/// One progress bar over the bytes of every input.
fn progress_over(inputs: &[PathBuf]) -> Progress {
    let total = inputs
        .iter()
        .map(|p| input_len(p))
        .try_fold(0u64, |acc, n| n.map(|n| acc + n));
    Progress::bytes(total)
}

/// Copies records of `reader` to `writer` without re-encoding them: each is decoded with the
/// reader's schema (so corrupt data is reported, not copied) and its bytes appended as they
/// are. First skips `skip` records; copies at most `limit`. Returns the numbers skipped and
/// copied.
fn copy_records(
    reader: &mut AnyReader,
    name: &str,
    writer: &mut Writer<Output>,
    out_name: &str,
    mut skip: u64,
    limit: u64,
) -> CliResult<(u64, u64)> {
    let schema = reader.schema().clone();
    let root = schema.root_id();
    let mut skipped = 0;
    while skip > 0 {
        match reader.next_with(|dec| dec.skip_value(&schema, root)) {
            None => return Ok((skipped, 0)),
            Some(r) => r.at(name)?,
        }
        skip -= 1;
        skipped += 1;
    }
    let mut copied = 0;
    // The record's bytes are copied out of the block (the decoder's slice cannot leave the
    // closure), into one buffer reused for every record.
    let mut datum = Vec::new();
    while copied < limit {
        let step = reader.next_with(|dec| {
            let start = dec.rest();
            read_value(dec, &schema)?;
            let used = start.len() - dec.rest().len();
            datum.clear();
            datum.extend_from_slice(&start[..used]);
            Ok(())
        });
        match step {
            None => break,
            Some(r) => r.at(name)?,
        }
        writer.append_encoded(&datum).at(out_name)?;
        copied += 1;
    }
    Ok((skipped, copied))
}

/// Checks that an input has the first input's schema.
fn check_same_schema(
    reader: &AnyReader,
    schema: &Schema,
    name: &str,
    first: &str,
) -> CliResult<()> {
    if reader.schema().canonical_form() != schema.canonical_form() {
        return Err(CliError::input(
            format!("the schema differs from the first input's ({first}): their Parsing Canonical Forms differ"),
            name,
        ));
    }
    Ok(())
}

/// `cat`: the records of several files of one schema into one file.
///
/// The output takes the first input's schema, user metadata and (unless `--codec`) codec.
/// `--offset` and `--limit` count records over all inputs together.
pub fn cat(a: &CatArgs) -> CliResult<()> {
    let (inputs, output) = inputs_and_output(&a.files)?;
    let codec = codec_option(&a.codec)?;
    let progress = progress_over(inputs);
    let (first, first_name) = open_reader(&inputs[0], ReaderBuilder::new(), &progress)?;
    let schema = first.schema().clone();
    let codec = codec.unwrap_or(first.codec());
    let threads = threads_or_default(a.threads.threads);
    let (mut writer, out_name) = create_writer(
        output,
        &schema,
        (codec, threads),
        user_metadata(&first),
        |b| b,
    )?;
    let mut skip = a.offset;
    let mut left = a.limit.unwrap_or(u64::MAX);
    let mut first = Some(first);
    for path in inputs {
        if left == 0 {
            break;
        }
        let (mut reader, name) = match first.take() {
            Some(r) => (r, first_name.clone()),
            None => open_reader(path, ReaderBuilder::new(), &progress)?,
        };
        check_same_schema(&reader, &schema, &name, &first_name)?;
        let (skipped, copied) =
            copy_records(&mut reader, &name, &mut writer, &out_name, skip, left)?;
        skip -= skipped;
        left -= copied;
    }
    finish_writer(writer, &out_name)
}

/// `concat`: the blocks of several files, appended without decoding or recompressing.
///
/// Every input must have the first one's schema (Parsing Canonical Form) and codec; the output
/// takes the first input's codec and user metadata, and a new sync marker.
pub fn concat(a: &ConcatArgs) -> CliResult<()> {
    let (inputs, output) = inputs_and_output(&a.files)?;
    let progress = progress_over(inputs);
    let (first, first_name) = open_reader(&inputs[0], ReaderBuilder::new(), &progress)?;
    let schema = first.schema().clone();
    let (mut writer, out_name) =
        // Blocks are copied, not compressed: no threads.
        create_writer(output, &schema, (first.codec(), 1), user_metadata(&first), |b| b)?;
    let mut first = Some(first);
    for path in inputs {
        let (mut reader, name) = match first.take() {
            Some(r) => (r, first_name.clone()),
            None => open_reader(path, ReaderBuilder::new(), &progress)?,
        };
        check_same_schema(&reader, &schema, &name, &first_name)?;
        if !reader.codec().same_format(&writer.codec()) {
            return Err(CliError::input(
                format!(
                    "the codec is {}, the first input's ({first_name}) is {}: blocks can only be appended between files of one codec (use `cat` or `recodec`)",
                    reader.codec().name(),
                    writer.codec().name()
                ),
                name,
            ));
        }
        writer.append_blocks_from(&mut reader).at(&name)?;
    }
    finish_writer(writer, &out_name)
}

/// `recodec`: the same records and user metadata with another codec.
pub fn recodec(a: &RecodecArgs) -> CliResult<()> {
    let codec = codec_from_args(&a.codec, a.level)?;
    check_output_not_input(std::slice::from_ref(&a.input), &a.output)?;
    let progress = Progress::bytes(input_len(&a.input));
    let (mut reader, name) = open_reader(&a.input, ReaderBuilder::new(), &progress)?;
    let schema = reader.schema().clone();
    let threads = threads_or_default(a.threads.threads);
    let (mut writer, out_name) = create_writer(
        &a.output,
        &schema,
        (codec, threads),
        user_metadata(&reader),
        |b| b,
    )?;
    copy_records(&mut reader, &name, &mut writer, &out_name, 0, u64::MAX)?;
    finish_writer(writer, &out_name)
}

/// `random`: `--count` random records of a schema.
pub fn random(a: &RandomArgs) -> CliResult<()> {
    let schema = read_schema(&a.schema)?;
    let schema_name = name(&a.schema, false);
    let codec = codec_option(&a.codec)?.unwrap_or(Codec::Null);
    let seed = a.seed.unwrap_or_else(clock_seed);
    let mut generator = Generator::new(&schema, seed);
    let sync = generator.sync_marker();
    let threads = threads_or_default(a.threads.threads);
    let (mut writer, out_name) =
        create_writer(&a.output, &schema, (codec, threads), Vec::new(), |b| {
            b.with_sync_marker(sync)
        })?;
    let progress = Progress::records(a.count);
    for i in 0..a.count {
        let value = generator
            .value()
            .map_err(|what| CliError::input(what, &schema_name))?;
        writer.append(&value).at(&out_name)?;
        if i % 1024 == 1023 {
            progress.inc(1024);
        }
    }
    drop(progress);
    finish_writer(writer, &out_name)
}

/// A seed from the clock, for `random` without `--seed`.
fn clock_seed() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    t.as_secs() ^ u64::from(t.subsec_nanos()).rotate_left(32) ^ u64::from(std::process::id())
}
