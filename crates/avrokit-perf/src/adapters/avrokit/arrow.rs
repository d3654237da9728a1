//! avrokit's Arrow crate (`avrokit-arrow`), for the `-arrow` batch: a container file decoded
//! into RecordBatches (`ReaderBuilder::build_slice`, on one thread or on N, all columns or
//! one), and RecordBatches encoded into a container file (`Writer`, null codec).
//!
//! Every row is checked once at init, outside the timing (see [`crate::adapters::batches`]): a
//! read row's batches must hold the file's record count and equal the other library's batches
//! (passed in as `expect`), a write row's file must carry exactly the reference datums. A row
//! that fails its check is still listed, and fails with the reason instead of being timed.
//! Each timed read counts the rows it decoded; batches are dropped as they come.
//!
//! Rows on worker threads are named `(threads: N)`; the report keeps them out of the
//! `vs peers` ratio, arrow-avro's reader being single-threaded.

use std::hint::black_box;
use std::rc::Rc;

use arrow_array::RecordBatch;
use avrokit::serde::SerPlan;
use avrokit_arrow::{ReaderBuilder, Writer};
use serde::Serialize;

use super::container::{builder, codec};
use super::schema::parse;
use crate::adapters::batches::{check_file, check_rows, compare, BATCH_SIZE};
use crate::adapters::workload::ContainerFile;
use crate::harness::{check_count, reader, writer, BenchResult, Impl, Library};

/// The container file of `items`, written once by avrokit's container writer (blocks of
/// 64 KiB): the one file both libraries' read rows decode.
///
/// # Errors
/// The schema does not parse, or an item does not fit it.
pub fn container_file<T: Serialize>(file: &ContainerFile, items: &[T]) -> Result<Vec<u8>, String> {
    let schema = parse(file.schema)?;
    let plan = SerPlan::compile(&schema).map_err(|e| e.to_string())?;
    let write = || -> Result<Vec<u8>, avrokit::Error> {
        let mut w = builder(&schema, codec(file.codec), file.marker).build(Vec::new())?;
        for item in items {
            w.append_serde(item, &plan)?;
        }
        w.into_inner()
    };
    write().map_err(|e| format!("avrokit cannot write the file: {e}"))
}

fn options(threads: usize, column: Option<&str>) -> ReaderBuilder {
    let b = ReaderBuilder::new()
        .with_batch_size(BATCH_SIZE)
        .with_threads(threads);
    match column {
        Some(c) => b.with_projection([c]),
        None => b,
    }
}

/// The batches of `file`, decoded on `threads` threads, with every column or only `column`
/// (untimed: the reference of the checks).
///
/// # Errors
/// avrokit-arrow's error, as text.
pub fn decode(
    file: &[u8],
    threads: usize,
    column: Option<&str>,
) -> Result<Vec<RecordBatch>, String> {
    options(threads, column)
        .build_slice(file)
        .and_then(|r| r.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("avrokit-arrow: {e}"))
}

/// The API name of a read row.
fn read_api(threads: usize, column: Option<&str>) -> String {
    match (threads, column) {
        (1, None) => "arrow".into(),
        (1, Some(c)) => format!("arrow, projection {c}"),
        (n, None) => format!("arrow (threads: {n})"),
        (n, Some(c)) => format!("arrow, projection {c} (threads: {n})"),
    }
}

/// A read row: `file` (of `count` records) decoded into batches on `threads` threads, with
/// every column or only `column`; checked once against `expect` (the other library's batches
/// of the same file and projection), when there are any.
pub fn read_row(
    file: &Rc<Vec<u8>>,
    count: usize,
    threads: usize,
    column: Option<&'static str>,
    expect: Option<&[RecordBatch]>,
) -> Impl {
    let check = decode(file, threads, column).and_then(|ours| {
        check_rows(&ours, count)?;
        match expect {
            Some(theirs) => compare(&ours, theirs).map_err(|e| format!("vs arrow-avro: {e}")),
            None => Ok(()),
        }
    });
    let mut imp = Impl::new(Library::Avrokit, read_api(threads, column));
    imp.input = Some(file.clone());
    imp.read(reader(move |input| {
        if let Err(e) = &check {
            return Err(format!("check: {e}").into());
        }
        let mut n = 0;
        for batch in options(threads, column).build_slice(input)? {
            n += black_box(batch?).num_rows();
        }
        check_count(n, count)
    }))
}

/// Adds the write row to `imp`: `batches` (of `count` records) encoded on `threads` threads by
/// a new `Writer` per cycle into a container file with the null codec; checked once: the
/// file's datums are `datums`.
pub fn with_write(
    imp: Impl,
    batches: Rc<Vec<RecordBatch>>,
    datums: &[u8],
    count: usize,
    threads: usize,
) -> Impl {
    let write = move |out: &mut Vec<u8>| -> BenchResult {
        let Some(first) = batches.first() else {
            return Err("no batches to write".into());
        };
        let mut w = Writer::new(out, &first.schema())?.with_threads(threads)?;
        for b in batches.iter() {
            w.write(b)?;
        }
        w.finish()?;
        Ok(())
    };
    let mut file = Vec::new();
    let check = write(&mut file)
        .map_err(|e| e.to_string())
        .and_then(|()| check_file(&file, datums, count));
    drop(file);
    let api = if threads > 1 {
        format!("arrow Writer (threads: {threads})")
    } else {
        "arrow Writer".to_owned()
    };
    imp.write_api(api).write(writer(move |out| {
        if let Err(e) = &check {
            return Err(format!("check: {e}").into());
        }
        write(out)
    }))
}
