//! The check of the `arrow_read` target, kept apart from `checks.rs` because it needs
//! avrokit-arrow: `crates/avrokit-arrow/tests/fuzz_corpus.rs` includes this file (`#[path]`)
//! to replay `corpus/arrow_read/` and `corpus/container_read/` in CI.

use avrokit::container::ReaderBuilder as CoreReader;
use avrokit::Limits;
use avrokit_arrow::ReaderBuilder;

/// What the check made of its input.
#[derive(Debug, PartialEq, Eq)]
pub enum ArrowOutcome {
    /// The core reader rejected the file: avrokit-arrow must then fail too, cleanly.
    Rejected,
    /// The file has no Arrow form (a recursive record, a `uuid` string that is not a uuid): a
    /// clean error.
    Unmappable,
    /// Read in full, with every property holding.
    Accepted,
}

fn limits() -> Limits {
    Limits::default()
        .with_max_alloc(16 << 20)
        .with_max_depth(128)
}

/// Rows read by avrokit-arrow from `builder` over `data` (optionally the split `range`),
/// or the error that ended the reading.
fn arrow_rows(
    builder: ReaderBuilder,
    data: &[u8],
    range: Option<(u64, u64)>,
) -> Result<usize, avrokit_arrow::Error> {
    let mut r = builder.build_seekable(std::io::Cursor::new(data))?;
    if let Some((a, b)) = range {
        r.seek_split(a, b)?;
    }
    let mut n = 0;
    for batch in r {
        n += batch?.num_rows();
    }
    Ok(n)
}

/// The input as a container file, read into RecordBatches under small limits, never
/// panicking. When the core reader reads every record of it, avrokit-arrow reads the same
/// number of rows, whole and in two splits, on one thread and on two, with and without a
/// projection of its first column; when the core reader fails, avrokit-arrow fails too.
pub fn check_arrow_read(data: &[u8]) -> ArrowOutcome {
    let core = CoreReader::new()
        .with_limits(limits())
        .build_slice(data)
        .and_then(|r| {
            let mut n = 0usize;
            for v in r {
                v?;
                n += 1;
            }
            Ok(n)
        });
    let base = ReaderBuilder::new()
        .with_limits(limits())
        .with_batch_size(7);
    let whole = arrow_rows(base.clone(), data, None);
    let records = match core {
        Err(_) => {
            assert!(
                whole.is_err(),
                "avrokit-arrow read {whole:?} rows of a file the core reader rejects"
            );
            return ArrowOutcome::Rejected;
        }
        Ok(n) => n,
    };
    let rows = match whole {
        Ok(n) => n,
        // Arrow types stricter than Avro's: no recursion, and a `uuid` string column is
        // `FixedSizeBinary(16)`, so its text must parse (the core reader hands out the text).
        Err(e) if e.to_string().contains("recursive") || e.to_string().contains("not a uuid") => {
            return ArrowOutcome::Unmappable
        }
        Err(e) => panic!("the core reader reads {records} records, avrokit-arrow fails: {e}"),
    };
    assert_eq!(rows, records, "rows against records");
    let threads = arrow_rows(base.clone().with_threads(2), data, None)
        .unwrap_or_else(|e| panic!("two threads fail where one reads: {e}"));
    assert_eq!(threads, records, "two threads");
    let mid = data.len() as u64 / 2;
    let halves = arrow_rows(base.clone(), data, Some((0, mid)))
        .and_then(|a| Ok(a + arrow_rows(base.clone(), data, Some((mid, data.len() as u64)))?))
        .unwrap_or_else(|e| panic!("a split fails where the whole file reads: {e}"));
    assert_eq!(halves, records, "two splits");
    // The first top-level field alone, when the schema is a record with fields.
    let schema = CoreReader::new()
        .with_limits(limits())
        .build_slice(data)
        .map(|r| r.schema().to_json())
        .expect("read above");
    if let Some(first) = schema["fields"]
        .as_array()
        .and_then(|f| f.first())
        .and_then(|f| f["name"].as_str())
    {
        let projected = arrow_rows(base.with_projection([first]), data, None)
            .unwrap_or_else(|e| panic!("a projection of {first} fails: {e}"));
        assert_eq!(projected, records, "projection of {first}");
    }
    ArrowOutcome::Accepted
}
