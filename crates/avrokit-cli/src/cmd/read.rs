//! Commands that read a container file and print: `tojson`, `getschema`, `getmeta`, `count`,
//! `split-read`.

use std::io::{Read, Write};
use std::path::Path;

use avrokit::container::{Reader, ReaderBuilder};
use avrokit::json::append_json;
use avrokit::resolution::ResolvedPlan;
use avrokit::value::{read_value, read_value_resolved};

use super::{open_reader, threads_or_default};
use crate::cli::{CountArgs, GetmetaArgs, SplitReadArgs, TojsonArgs};
use crate::error::{CliError, CliResult, Context};
use crate::io::{input_len, is_std, name, read_schema, Output};
use crate::progress::Progress;

/// `tojson`: every record as one line of Avro JSON on stdout.
pub fn tojson(a: &TojsonArgs) -> CliResult<()> {
    let mut builder = ReaderBuilder::new();
    if let Some(p) = &a.reader_schema {
        builder = builder.with_reader_schema(&read_schema(p)?);
    }
    let progress = Progress::bytes(input_len(&a.file));
    let (mut reader, name) = open_reader(&a.file, builder, &progress)?;
    let mut out = Output::create(Path::new("-"))?;
    let threads = threads_or_default(a.threads.threads);
    write_json_lines(&mut reader, &name, &mut out, a.pretty, threads)?;
    out.commit()
}

/// Prints the reader's remaining records, one Avro JSON text per line, through one reused
/// line buffer; with several threads, each block is decoded and formatted on a worker and the
/// blocks' text is printed in file order.
fn write_json_lines<R: Read>(
    reader: &mut Reader<'_, R>,
    name: &str,
    out: &mut Output,
    pretty: bool,
    threads: usize,
) -> CliResult<()> {
    let schema = reader.reader_schema().clone();
    if threads <= 1 {
        let mut line = String::new();
        for value in reader {
            let value = value.at(name)?;
            line.clear();
            append_json(&mut line, &value, &schema, pretty).at(name)?;
            line.push('\n');
            out.write_all(line.as_bytes()).at(&out.name)?;
        }
        return Ok(());
    }
    let writer = reader.schema().clone();
    let plan = if schema == writer {
        None
    } else {
        Some(ResolvedPlan::compile(&writer, &schema).at(name)?)
    };
    let blocks = reader.par_blocks(threads, move |block| {
        // The text of the records before a bad one is printed, then the error, as the
        // sequential path does.
        let mut text = String::with_capacity(block.data().len() * 2);
        let records = block.records_with(|dec| match &plan {
            Some(p) => read_value_resolved(dec, p),
            None => read_value(dec, &writer),
        });
        for value in records {
            match value.and_then(|v| append_json(&mut text, &v, &schema, pretty)) {
                Ok(()) => text.push('\n'),
                Err(e) => return Ok((text, Some(e))),
            }
        }
        Ok((text, None))
    });
    for block in blocks {
        let (text, error) = block.at(name)?;
        out.write_all(text.as_bytes()).at(&out.name)?;
        if let Some(e) = error {
            return Err::<(), _>(e).at(name);
        }
    }
    Ok(())
}

/// `getschema`: the schema as embedded in the file, indented.
///
/// The embedded text is printed (re-indented), not the schema as avrokit understood it, so
/// attributes avrokit ignores are shown too; the reader has checked that it is a valid schema.
pub fn getschema(path: &Path) -> CliResult<()> {
    let (reader, name) = open_reader(path, ReaderBuilder::new(), &Progress::none())?;
    let raw = reader.metadata_value("avro.schema").unwrap_or_default();
    let json: serde_json::Value = serde_json::from_slice(raw)
        .map_err(|e| CliError::input(format!("avro.schema is not valid JSON: {e}"), &name))?;
    let text = serde_json::to_string_pretty(&json).expect("JSON values always serialize");
    let mut out = Output::create(Path::new("-"))?;
    writeln!(out, "{text}").at("<stdout>")?;
    out.commit()
}

/// `getmeta`: every header entry as `key<TAB>value`, or one key's raw value.
///
/// A value is printed as text when it is UTF-8, else with one character per byte (byte `0xNN`
/// as U+00NN, the corpus's rule). Control characters (U+0000-U+001F, U+007F-U+009F) are then
/// written as `\u00NN` so that each entry stays on one line (a pretty-printed `avro.schema`
/// holds newlines); a backslash is printed as is.
pub fn getmeta(a: &GetmetaArgs) -> CliResult<()> {
    let (reader, name) = open_reader(&a.file, ReaderBuilder::new(), &Progress::none())?;
    let mut out = Output::create(Path::new("-"))?;
    if let Some(key) = &a.key {
        let Some(v) = reader.metadata_value(key) else {
            return Err(CliError::input(format!("no metadata key {key:?}"), name));
        };
        out.write_all(v).at("<stdout>")?;
        out.write_all(b"\n").at("<stdout>")?;
        return out.commit();
    }
    let mut line = String::new();
    for (k, v) in reader.metadata() {
        line.clear();
        escape_into(&mut line, k);
        line.push('\t');
        match std::str::from_utf8(v) {
            Ok(s) => escape_into(&mut line, s),
            Err(_) => {
                let latin1: String = v.iter().map(|&b| char::from(b)).collect();
                escape_into(&mut line, &latin1);
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes()).at("<stdout>")?;
    }
    out.commit()
}

/// Appends `s` with control characters as `\u00NN`.
fn escape_into(out: &mut String, s: &str) {
    use std::fmt::Write as _;
    for c in s.chars() {
        if c.is_control() {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
}

/// `count`: the number of records.
///
/// Records are skipped, not decoded (no values are built), but every one is still walked, so
/// a block whose count does not match its bytes is reported rather than trusted.
pub fn count(a: &CountArgs) -> CliResult<()> {
    let progress = Progress::bytes(input_len(&a.file));
    let (mut reader, name) = open_reader(&a.file, ReaderBuilder::new(), &progress)?;
    let schema = reader.schema().clone();
    let threads = threads_or_default(a.threads.threads);
    let mut n: u64 = 0;
    if threads <= 1 {
        let root = schema.root_id();
        while let Some(r) = reader.next_with(|dec| dec.skip_value(&schema, root)) {
            r.at(&name)?;
            n += 1;
        }
    } else {
        let counts = reader.par_blocks(threads, move |block| {
            let root = schema.root_id();
            let mut n = 0u64;
            for r in block.records_with(|dec| dec.skip_value(&schema, root)) {
                r?;
                n += 1;
            }
            Ok(n)
        });
        for c in counts {
            n += c.at(&name)?;
        }
    }
    drop(progress);
    let mut out = Output::create(Path::new("-"))?;
    writeln!(out, "{n}").at("<stdout>")?;
    out.commit()
}

/// `split-read`: the records of the blocks whose sync marker starts in `[start, end)`.
pub fn split_read(a: &SplitReadArgs) -> CliResult<()> {
    if is_std(&a.file) {
        return Err(CliError::usage(
            "split-read needs a file it can seek in, not stdin",
            "<stdin>",
        ));
    }
    if a.start > a.end {
        return Err(CliError::usage(
            format!("--start {} is after --end {}", a.start, a.end),
            "arguments",
        ));
    }
    let name = name(&a.file, false);
    let file = crate::io::open_seekable(&a.file)?;
    let mut reader = ReaderBuilder::new().build_seekable(file).at(&name)?;
    reader.seek_split(a.start, a.end).at(&name)?;
    let mut out = Output::create(Path::new("-"))?;
    let threads = threads_or_default(a.threads.threads);
    write_json_lines(&mut reader, &name, &mut out, false, threads)?;
    out.commit()
}
