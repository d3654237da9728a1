//! What the `-arrow` adapters share, in terms neutral to both libraries: the batch size, and
//! the checks every row passes once at init (outside the timing) before it is timed: the
//! batches a reader returns hold the file's record count and equal the other library's
//! batches wherever the two type mappings agree; a file a writer produces carries exactly the
//! reference datums.
//!
//! Batches are compared column by column, with the field metadata left out of the types
//! (arrow-avro keeps Avro names and enum symbols there; avrokit-arrow does not), and the values
//! compared logically (`ArrayData` equality), across batch boundaries wherever they fall: the
//! two readers cut their batches at different rows. On the data sets of the `-arrow` batch the
//! two mappings agree everywhere (`families::arrow`'s tests keep that true), so no difference
//! is excused; the mapping differences that exist elsewhere (unions other than `["null", T]`,
//! records of no fields, arrays of nullable items...) are listed by the differential test,
//! `crates/avrokit-arrow/tests/differential.rs`.

use arrow_array::{Array, RecordBatch};
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, Fields, UnionFields};

/// Rows per batch for both readers (avrokit-arrow's default; arrow-avro's is 1024).
pub const BATCH_SIZE: usize = 8192;

/// The rows of `batches`.
pub fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

/// An error unless `batches` hold `count` rows.
pub fn check_rows(batches: &[RecordBatch], count: usize) -> Result<(), String> {
    match rows(batches) {
        n if n == count => Ok(()),
        n => Err(format!("{n} rows in the batches, expected {count}")),
    }
}

/// An error naming the first difference between two readings of one file: the number of rows
/// or columns, a column's name, type (field metadata aside) or nullability, or the first row
/// whose value differs.
pub fn compare(ours: &[RecordBatch], theirs: &[RecordBatch]) -> Result<(), String> {
    let (na, nb) = (rows(ours), rows(theirs));
    if na != nb {
        return Err(format!("rows: {na} here, {nb} in the other reading"));
    }
    let (Some(a), Some(b)) = (ours.first(), theirs.first()) else {
        return Ok(());
    };
    let (fa, fb) = (a.schema(), b.schema());
    if fa.fields().len() != fb.fields().len() {
        return Err(format!(
            "columns: {} here, {} in the other reading",
            fa.fields().len(),
            fb.fields().len()
        ));
    }
    for (x, y) in fa.fields().iter().zip(fb.fields()) {
        let (x, y) = (strip_field(x), strip_field(y));
        if x != y {
            return Err(format!("column {}: {x:?} here, {y:?} there", x.name()));
        }
    }
    let a = stripped(ours)?;
    let b = stripped(theirs)?;
    // Walk both lists of batches at once, comparing the overlap of the current two batches.
    let (mut i, mut j, mut off_a, mut off_b, mut row) = (0, 0, 0, 0, 0);
    while i < a.len() && j < b.len() {
        let len_a = a[i].first().map_or(ours[i].num_rows(), ArrayData::len);
        let len_b = b[j].first().map_or(theirs[j].num_rows(), ArrayData::len);
        let n = (len_a - off_a).min(len_b - off_b);
        for (c, (x, y)) in a[i].iter().zip(&b[j]).enumerate() {
            let (x, y) = (x.slice(off_a, n), y.slice(off_b, n));
            if x != y {
                let at = (0..n)
                    .find(|&r| x.slice(r, 1) != y.slice(r, 1))
                    .unwrap_or(0);
                return Err(format!(
                    "column {} differs at row {}",
                    fa.field(c).name(),
                    row + at
                ));
            }
        }
        row += n;
        off_a += n;
        off_b += n;
        if off_a == len_a {
            (i, off_a) = (i + 1, 0);
        }
        if off_b == len_b {
            (j, off_b) = (j + 1, 0);
        }
    }
    Ok(())
}

/// Every column of every batch, with the field metadata taken out of its type.
fn stripped(batches: &[RecordBatch]) -> Result<Vec<Vec<ArrayData>>, String> {
    batches
        .iter()
        .map(|b| {
            b.columns()
                .iter()
                .map(|c| strip_data(&c.to_data()))
                .collect()
        })
        .collect()
}

fn strip_field(f: &Field) -> Field {
    Field::new(f.name(), strip_type(f.data_type()), f.is_nullable())
}

/// A data type without field metadata, at any depth.
fn strip_type(dt: &DataType) -> DataType {
    match dt {
        DataType::List(x) => DataType::List(strip_field(x).into()),
        DataType::LargeList(x) => DataType::LargeList(strip_field(x).into()),
        DataType::FixedSizeList(x, n) => DataType::FixedSizeList(strip_field(x).into(), *n),
        DataType::Struct(fs) => {
            DataType::Struct(fs.iter().map(|x| strip_field(x)).collect::<Fields>())
        }
        DataType::Map(x, sorted) => DataType::Map(strip_field(x).into(), *sorted),
        DataType::Union(u, mode) => {
            let fields = u.iter().map(|(id, f)| (id, strip_field(f).into()));
            DataType::Union(fields.collect::<UnionFields>(), *mode)
        }
        DataType::Dictionary(k, v) => DataType::Dictionary(k.clone(), Box::new(strip_type(v))),
        d => d.clone(),
    }
}

/// `data` with its type, and its children's, stripped of field metadata.
fn strip_data(data: &ArrayData) -> Result<ArrayData, String> {
    let children = data
        .child_data()
        .iter()
        .map(strip_data)
        .collect::<Result<Vec<_>, _>>()?;
    data.clone()
        .into_builder()
        .data_type(strip_type(data.data_type()))
        .child_data(children)
        .build()
        .map_err(|e| format!("a column without its field metadata is not valid: {e}"))
}

/// The datums of a container file, in order, every block decompressed (read with avrokit's
/// container reader, which checks the header, the counts and the sync markers).
pub fn file_datums(file: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let mut r = avrokit::container::Reader::from_slice(file).map_err(|e| e.to_string())?;
    let limits = avrokit::Limits::default();
    let (mut out, mut buf, mut records) = (Vec::new(), Vec::new(), 0);
    while let Some(block) = r.next_raw_block().map_err(|e| e.to_string())? {
        records += block.count() as usize;
        block
            .decompress_into(&mut buf, &limits)
            .map_err(|e| e.to_string())?;
        out.extend_from_slice(&buf);
    }
    Ok((out, records))
}

/// An error unless `file` is a container file of exactly `count` records whose datums are
/// `datums`, byte for byte.
pub fn check_file(file: &[u8], datums: &[u8], count: usize) -> Result<(), String> {
    let (got, records) = file_datums(file).map_err(|e| format!("reading it back: {e}"))?;
    if records != count {
        return Err(format!(
            "the file holds {records} records, expected {count}"
        ));
    }
    if got != datums {
        let at = got.iter().zip(datums).position(|(a, b)| a != b);
        return Err(format!(
            "its datums differ from the reference ({} bytes, expected {}; first difference at \
             byte {})",
            got.len(),
            datums.len(),
            at.unwrap_or(got.len().min(datums.len()))
        ));
    }
    Ok(())
}
