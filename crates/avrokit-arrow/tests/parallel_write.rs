//! Batches encoded and blocks compressed on several threads give the single-threaded file,
//! byte for byte.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use avrokit::container::Codec;
use avrokit_arrow::{ReaderBuilder, Writer};

fn batches() -> Vec<RecordBatch> {
    // Uneven batch sizes, so blocks straddle batches.
    let mut out = Vec::new();
    let mut id = 0i64;
    for rows in [1, 7000, 333, 20000, 2, 15000] {
        let ids: Vec<i64> = (id..id + rows).collect();
        let names: Vec<String> = ids
            .iter()
            .map(|i| format!("name {}", i * 7919 % 1000))
            .collect();
        id += rows;
        out.push(
            RecordBatch::try_from_iter([
                ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
                ("name", Arc::new(StringArray::from(names)) as ArrayRef),
            ])
            .unwrap(),
        );
    }
    out
}

fn write(batches: &[RecordBatch], codec: Codec, threads: usize) -> (Vec<u8>, [u8; 16]) {
    let w = Writer::with_options(Vec::new(), &batches[0].schema(), None, codec).unwrap();
    let mut w = w.with_threads(threads).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    let file = w.finish().unwrap();
    let sync = avrokit::container::Reader::from_slice(&file)
        .unwrap()
        .sync_marker();
    (file, sync)
}

/// The first column (`id`) of every row of `file`.
fn ids_of(file: &[u8]) -> Vec<i64> {
    ReaderBuilder::new()
        .build_slice(file)
        .unwrap()
        .flat_map(|b| {
            let b = b.unwrap();
            let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            ids.values().to_vec()
        })
        .collect()
}

/// `file` with its sync marker `from` replaced by `to` wherever it occurs.
fn resync(file: &[u8], from: [u8; 16], to: [u8; 16]) -> Vec<u8> {
    let mut out = file.to_vec();
    let mut i = 0;
    while i + 16 <= out.len() {
        if out[i..i + 16] == from {
            out[i..i + 16].copy_from_slice(&to);
            i += 16;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn threads_write_the_single_threaded_file() {
    let batches = batches();
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    for codec in [Codec::DEFLATE, Codec::ZSTANDARD, Codec::Snappy, Codec::Null] {
        let (one, sync) = write(&batches, codec, 1);
        let mut r = avrokit::container::Reader::from_slice(&one).unwrap();
        let mut blocks = 0;
        while r.next_raw_block().unwrap().is_some() {
            blocks += 1;
        }
        assert!(blocks > 3, "{blocks} blocks: too few to share out");
        for threads in [2, 3, 8] {
            let (many, other) = write(&batches, codec, threads);
            assert_eq!(
                resync(&many, other, sync),
                one,
                "{codec:?} on {threads} threads"
            );
            let back: usize = ReaderBuilder::new()
                .build_slice(&many)
                .unwrap()
                .map(|b| b.unwrap().num_rows())
                .sum();
            assert_eq!(back, rows);
        }
    }
}

/// A value that does not fit, in the last thread's run of a batch: the error names its row in
/// the batch, and nothing of that batch reaches the file, as on one thread.
#[test]
fn a_bad_row_on_another_thread_writes_nothing_of_its_batch() {
    use arrow_schema::{DataType, Field, Schema};
    let avro = avrokit::Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[{"name":"id","type":"long"}]}"#,
    )
    .unwrap();
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
    let good = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int64Array::from_iter_values(0..5000)) as ArrayRef],
    )
    .unwrap();
    let bad_row = 4321;
    let ids: Vec<Option<i64>> = (0..5000).map(|i| (i != bad_row).then_some(i)).collect();
    let bad = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int64Array::from(ids)) as ArrayRef],
    )
    .unwrap();
    for threads in [1, 2, 4] {
        for codec in [Codec::Null, Codec::DEFLATE] {
            let w = Writer::with_options(Vec::new(), &schema, Some(&avro), codec).unwrap();
            let mut w = w.with_threads(threads).unwrap();
            w.write(&good).unwrap();
            let e = w.write(&bad).unwrap_err();
            assert!(e.to_string().contains(&format!("row {bad_row}")), "{e}");
            w.write(&good).unwrap();
            let file = w.finish().unwrap();
            let back = ids_of(&file);
            let want: Vec<i64> = (0..5000).chain(0..5000).collect();
            assert_eq!(back, want, "{threads} threads, {codec:?}");
        }
    }
}

/// A writer dropped without `finish` still writes every batch it took: on threads it holds
/// the last batch, and blocks waiting to be compressed, until the next call or the drop.
#[test]
fn a_dropped_writer_writes_what_it_holds() {
    let batches = batches();
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    for codec in [Codec::Null, Codec::Snappy, Codec::DEFLATE] {
        for threads in [1, 2, 3] {
            let mut file = Vec::new();
            {
                let w = Writer::with_options(&mut file, &batches[0].schema(), None, codec).unwrap();
                let mut w = w.with_threads(threads).unwrap();
                for b in &batches {
                    w.write(b).unwrap();
                }
            }
            let back = ids_of(&file);
            let want: Vec<i64> = (0..rows as i64).collect();
            assert!(
                back == want,
                "{codec:?} on {threads} threads: {} of {} rows read back",
                back.len(),
                want.len()
            );
        }
    }
}

/// A sink that takes `room` bytes, then fails.
struct Full {
    room: usize,
}

impl std::io::Write for Full {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::Error::other("disk full"));
        }
        let n = buf.len().min(self.room);
        self.room -= n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A sink that fails is reported, on threads too (where a batch reaches the sink one call
/// later): by a `write` or by `finish`, never passed over; and a writer dropped after it
/// does not panic.
#[test]
fn a_failing_sink_is_reported() {
    let batches = batches();
    for codec in [Codec::Null, Codec::Snappy] {
        let (whole, _) = write(&batches, codec, 1);
        for threads in [1, 2, 3] {
            for room in [0, 100, whole.len() / 3, whole.len() - 1] {
                let w = Writer::with_options(Full { room }, &batches[0].schema(), None, codec);
                let w = match w {
                    Ok(w) => w,
                    // Too little room for the header.
                    Err(e) => {
                        assert!(room < 1000 && e.to_string().contains("disk full"), "{e}");
                        continue;
                    }
                };
                let mut w = w.with_threads(threads).unwrap();
                let wrote = batches.iter().try_for_each(|b| w.write(b));
                let e = match wrote {
                    Err(e) => {
                        drop(w);
                        e
                    }
                    Ok(()) => w.finish().err().unwrap_or_else(|| {
                        panic!("{codec:?}, {threads} threads, {room} bytes: no error")
                    }),
                };
                assert!(e.to_string().contains("disk full"), "{e}");
            }
        }
    }
}
