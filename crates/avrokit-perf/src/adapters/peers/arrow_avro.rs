//! `arrow-avro` 59.3 (the Arrow project's Avro reader and writer, the one DataFusion 55 reads
//! Avro with), for the `-arrow` batch: `reader::ReaderBuilder` over a container file (its
//! reader is single-threaded; a one-column projection through `with_projection`, by field
//! index, which prunes its reader schema), and `writer::AvroWriter` (null codec). Both readers
//! get batches of the same size.
//!
//! Every row is checked once at init, outside the timing, as avrokit-arrow's are: a read row's
//! batches must hold the file's record count, a write row's file must carry exactly the
//! reference datums; arrow-avro's read batches are the reference avrokit-arrow's rows are
//! compared with.

use std::hint::black_box;
use std::rc::Rc;

use arrow_array::RecordBatch;
use arrow_avro::reader::ReaderBuilder;
use arrow_avro::writer::AvroWriter;

use crate::adapters::batches::{check_file, check_rows, BATCH_SIZE};
use crate::harness::{check_count, reader, writer, BenchResult, Impl, Library};

/// The index of `column` among the top-level fields of `file`'s schema, as arrow-avro maps it.
fn column_index(file: &[u8], column: &str) -> Result<usize, String> {
    let r = ReaderBuilder::new()
        .build(file)
        .map_err(|e| format!("arrow-avro: {e}"))?;
    r.schema()
        .index_of(column)
        .map_err(|e| format!("arrow-avro: {e}"))
}

fn options(projection: Option<usize>) -> ReaderBuilder {
    let b = ReaderBuilder::new().with_batch_size(BATCH_SIZE);
    match projection {
        Some(i) => b.with_projection(vec![i]),
        None => b,
    }
}

/// The batches of `file`, every column or only `column` (untimed: the reference of the checks).
///
/// # Errors
/// arrow-avro's error, as text.
pub fn decode(file: &[u8], column: Option<&str>) -> Result<Vec<RecordBatch>, String> {
    let projection = column.map(|c| column_index(file, c)).transpose()?;
    options(projection)
        .build(file)
        .and_then(|r| r.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("arrow-avro: {e}"))
}

/// A read row: `file` (of `count` records) decoded into batches, every column or only
/// `column`; checked once: the batches hold `count` rows.
pub fn read_row(file: &Rc<Vec<u8>>, count: usize, column: Option<&'static str>) -> Impl {
    let api = match column {
        None => "Reader".to_owned(),
        Some(c) => format!("Reader, projection {c}"),
    };
    let mut imp = Impl::new(Library::ArrowAvro, api);
    imp.input = Some(file.clone());
    let projection = match column.map(|c| column_index(file, c)).transpose() {
        Ok(p) => p,
        Err(e) => return imp.not_applicable(e),
    };
    let check = decode(file, column).and_then(|b| check_rows(&b, count));
    imp.read(reader(move |input| {
        if let Err(e) = &check {
            return Err(format!("check: {e}").into());
        }
        let mut n = 0;
        for batch in options(projection).build(input)? {
            n += black_box(batch?).num_rows();
        }
        check_count(n, count)
    }))
}

/// Adds the write row to `imp`: `batches` (of `count` records) encoded by a new `AvroWriter` per cycle into
/// a container file (null codec, the Avro schema from the batches' `avro.schema` metadata);
/// checked once: the file's datums are `datums`.
pub fn with_write(imp: Impl, batches: Rc<Vec<RecordBatch>>, datums: &[u8], count: usize) -> Impl {
    let write = move |out: &mut Vec<u8>| -> BenchResult {
        let Some(first) = batches.first() else {
            return Err("no batches to write".into());
        };
        let mut w = AvroWriter::new(out, first.schema().as_ref().clone())?;
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
    imp.write_api("AvroWriter").write(writer(move |out| {
        if let Err(e) = &check {
            return Err(format!("check: {e}").into());
        }
        write(out)
    }))
}
