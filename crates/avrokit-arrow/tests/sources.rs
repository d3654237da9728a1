//! Every way in: whole files on one and several threads, byte-range splits, projection,
//! reader schemas (resolution), bare datums, single-object and Confluent messages.

mod common;

use arrow_array::{Array, RecordBatch};
use avrokit::container::{Codec, WriterBuilder};
use avrokit::{Schema, Value};
use avrokit_arrow::ReaderBuilder;
use common::*;

fn schema() -> Schema {
    Schema::parse_str(
        r#"{"type":"record","name":"E","namespace":"t","fields":[
            {"name":"id","type":"long"},
            {"name":"name","type":["null","string"]},
            {"name":"tags","type":{"type":"array","items":"string"}},
            {"name":"inner","type":{"type":"record","name":"I","fields":[
                {"name":"a","type":"int"},{"name":"b","type":"string"}]}}]}"#,
    )
    .unwrap()
}

fn record(i: i64) -> Value {
    Value::Record(vec![
        Value::Long(i),
        if i % 3 == 0 {
            Value::Union(0, Box::new(Value::Null))
        } else {
            Value::Union(1, Box::new(Value::String(format!("n{i}"))))
        },
        Value::Array((0..i % 4).map(|k| Value::String(format!("t{k}"))).collect()),
        Value::Record(vec![
            Value::Int(i as i32 * 2),
            Value::String("x".repeat(i as usize % 5)),
        ]),
    ])
}

fn file(n: i64, codec: Codec, block: u64) -> Vec<u8> {
    let mut w = WriterBuilder::new(&schema())
        .with_codec(codec)
        .with_block_records(block)
        .build(Vec::new())
        .unwrap();
    for i in 0..n {
        w.append(&record(i)).unwrap();
    }
    w.into_inner().unwrap()
}

fn all(b: ReaderBuilder, data: &[u8]) -> RecordBatch {
    let batches: Vec<_> = b
        .build_slice(data)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    concat(&batches).unwrap()
}

fn same(a: &RecordBatch, b: &RecordBatch) {
    assert_eq!(a.num_rows(), b.num_rows());
    assert_eq!(a.num_columns(), b.num_columns());
    for i in 0..a.num_columns() {
        assert_eq!(show(a.column(i)), show(b.column(i)), "column {i}");
    }
}

#[test]
fn threads_give_the_same_batches_in_order() {
    for codec in [Codec::Null, Codec::Snappy, Codec::DEFLATE] {
        let data = file(5000, codec, 97);
        let one = all(ReaderBuilder::new().with_batch_size(300), &data);
        assert_eq!(one.num_rows(), 5000);
        for threads in [2, 3, 8] {
            let many = all(
                ReaderBuilder::new()
                    .with_batch_size(300)
                    .with_threads(threads),
                &data,
            );
            same(&one, &many);
        }
    }
}

/// Streams (whose blocks are copied for the workers, where a slice's are borrowed) give the
/// same batches on several threads as on one.
#[test]
fn threads_read_streams_as_slices() {
    for codec in [Codec::Null, Codec::Snappy] {
        let data = file(3000, codec, 61);
        let one = all(ReaderBuilder::new().with_batch_size(250), &data);
        for threads in [2, 3] {
            let batches: Vec<_> = ReaderBuilder::new()
                .with_batch_size(250)
                .with_threads(threads)
                .build(std::io::Cursor::new(&data))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            same(&one, &concat(&batches).unwrap());
        }
    }
}

/// The batches before a bad block, then its error, then nothing: on every thread count, for a
/// block whose records do not decode and for a block whose sync marker is wrong.
#[test]
fn threads_stop_at_the_first_bad_block() {
    let data = file(4000, Codec::Null, 100);
    // Where the data and the sync marker of block 20 are.
    let (start, end) = {
        let mut r = avrokit::container::Reader::from_slice(&data).unwrap();
        for _ in 0..20 {
            r.next_raw_block().unwrap();
        }
        let b = r.next_raw_block().unwrap().unwrap();
        let start = b.data().as_ptr() as usize - data.as_ptr() as usize;
        (start, start + b.data().len())
    };
    let mut bad_data = data.clone();
    bad_data[start..end].fill(0xff);
    let mut bad_sync = data.clone();
    bad_sync[end + 3] ^= 0x55;
    for bad in [&bad_data, &bad_sync] {
        for threads in [1, 2, 3] {
            let mut r = ReaderBuilder::new()
                .with_batch_size(250)
                .with_threads(threads)
                .build_slice(bad)
                .unwrap();
            let mut rows = 0;
            let e = loop {
                match r.next() {
                    Some(Ok(b)) => rows += b.num_rows(),
                    Some(Err(e)) => break e,
                    None => panic!("no error on {threads} threads"),
                }
            };
            assert!(rows <= 2000, "{rows} rows before the error");
            assert!(!e.to_string().is_empty());
            assert!(r.next().is_none(), "{threads} threads");
        }
    }
}

#[test]
fn batch_sizes_are_respected() {
    let data = file(1000, Codec::Null, 64);
    let r = ReaderBuilder::new()
        .with_batch_size(100)
        .build_slice(&data)
        .unwrap();
    let sizes: Vec<usize> = r.map(|b| b.unwrap().num_rows()).collect();
    assert_eq!(sizes, vec![100; 10]);
    let r = ReaderBuilder::new()
        .with_batch_size(100)
        .with_threads(2)
        .build_slice(&data)
        .unwrap();
    assert!(r.map(|b| b.unwrap().num_rows()).all(|n| n <= 100 && n > 0));
    // On threads, a batch is the blocks that fit it: no batch of a few rows left over.
    let data = file(5000, Codec::Null, 97);
    for threads in [2, 3] {
        let sizes: Vec<usize> = ReaderBuilder::new()
            .with_batch_size(300)
            .with_threads(threads)
            .build_slice(&data)
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .collect();
        assert_eq!(sizes.iter().sum::<usize>(), 5000);
        let (last, full) = sizes.split_last().unwrap();
        assert!(full.iter().all(|&n| n == 291), "{sizes:?}");
        assert!(*last <= 291);
    }
}

#[test]
fn splits_cover_every_record_once() {
    let data = file(3000, Codec::Snappy, 50);
    let whole = all(ReaderBuilder::new(), &data);
    let len = data.len() as u64;
    let mut parts = Vec::new();
    let step = len / 7 + 1;
    let mut start = 0;
    while start < len {
        let end = (start + step).min(len);
        let mut r = ReaderBuilder::new()
            .build_seekable(std::io::Cursor::new(&data))
            .unwrap();
        r.seek_split(start, end).unwrap();
        parts.extend(r.map(|b| b.unwrap()));
        start = end;
    }
    same(&whole, &concat(&parts).unwrap());
}

#[test]
fn projection_selects_nested_columns() {
    let data = file(200, Codec::Null, 30);
    let whole = all(ReaderBuilder::new(), &data);
    let p = all(
        ReaderBuilder::new().with_projection(["inner.b", "id"]),
        &data,
    );
    assert_eq!(p.num_columns(), 2);
    assert_eq!(p.schema().field(0).name(), "id");
    same(
        &RecordBatch::try_from_iter([("id", whole.column(0).clone())]).unwrap(),
        &RecordBatch::try_from_iter([("id", p.column(0).clone())]).unwrap(),
    );
    let inner = p
        .column(1)
        .as_any()
        .downcast_ref::<arrow_array::StructArray>()
        .unwrap();
    assert_eq!(inner.num_columns(), 1);
    let full_inner = whole
        .column(3)
        .as_any()
        .downcast_ref::<arrow_array::StructArray>()
        .unwrap();
    assert_eq!(show(inner.column(0)), show(full_inner.column(1)));
    let err = ReaderBuilder::new()
        .with_projection(["nope"])
        .build_slice(&data)
        .err()
        .unwrap();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn reader_schemas_resolve_as_the_core_does() {
    let data = file(50, Codec::Null, 10);
    let reader = Schema::parse_str(
        r#"{"type":"record","name":"E","namespace":"t","fields":[
            {"name":"inner","type":{"type":"record","name":"I","fields":[
                {"name":"b","type":"bytes"},{"name":"a","type":"double"}]}},
            {"name":"extra","type":"string","default":"dflt"},
            {"name":"id","type":"float"}]}"#,
    )
    .unwrap();
    let b = all(ReaderBuilder::new().with_reader_schema(&reader), &data);
    assert_eq!(b.num_columns(), 3);
    // The core's resolved values, row by row, against the columns.
    let plan = avrokit::ResolvedPlan::compile(&schema(), &reader).unwrap();
    let extra = show(b.column(1));
    let id = show(b.column(2));
    for (row, v) in avrokit::container::Reader::from_slice(&data)
        .unwrap()
        .enumerate()
    {
        let bytes = avrokit::to_datum_vec(&v.unwrap(), &schema()).unwrap();
        let r = avrokit::value::from_datum_slice_resolved(&bytes, &plan).unwrap();
        let Value::Record(f) = r else { panic!() };
        assert_eq!(f[1], Value::String("dflt".into()));
        assert_eq!(extra[row], "dflt");
        let Value::Float(x) = f[2] else { panic!() };
        assert_eq!(id[row].parse::<f32>().unwrap(), x);
    }
    let bad = Schema::parse_str(
        r#"{"type":"record","name":"E","namespace":"t","fields":[{"name":"id","type":"int"}]}"#,
    )
    .unwrap();
    let err = ReaderBuilder::new()
        .with_reader_schema(&bad)
        .build_slice(&data)
        .err()
        .unwrap();
    assert!(err.to_string().contains("long"), "{err}");
}

#[test]
fn datums_and_messages_make_one_batch() {
    let s = schema();
    let from_file = all(ReaderBuilder::new(), &file(20, Codec::Null, 100));
    // Bare datums, one by one and as one stream.
    let datums: Vec<Vec<u8>> = (0..20)
        .map(|i| avrokit::to_datum_vec(&record(i), &s).unwrap())
        .collect();
    let mut dec = ReaderBuilder::new().build_decoder(&s).unwrap();
    for d in &datums {
        dec.decode(d).unwrap();
    }
    same(&from_file, &dec.flush().unwrap());
    assert_eq!(dec.decode_stream(&datums.concat()).unwrap(), 20);
    same(&from_file, &dec.flush().unwrap());
    // Single-object and Confluent framing.
    let mut store = avrokit::single_object::SchemaStore::new();
    store.add(&s);
    for i in 0..20 {
        let msg = avrokit::single_object::to_single_object_vec(&record(i), &s).unwrap();
        dec.decode_single_object(&msg, &store).unwrap();
    }
    same(&from_file, &dec.flush().unwrap());
    for i in 0..20 {
        let msg = avrokit::single_object::to_confluent_vec(&record(i), &s, 7).unwrap();
        dec.decode_confluent(&msg, |id| (id == 7).then(|| s.clone()))
            .unwrap();
    }
    same(&from_file, &dec.flush().unwrap());
    // A datum with bytes left over is an error.
    let mut long = datums[1].clone();
    long.push(0);
    assert!(dec.decode(&long).is_err());
    assert!(dec.decode_confluent(&[0, 0, 0, 0, 9, 0], |_| None).is_err());
}

#[test]
fn an_empty_projection_reads_row_counts_only() {
    let data = file(200, Codec::Snappy, 30);
    for threads in [1, 2] {
        let b = all(
            ReaderBuilder::new()
                .with_threads(threads)
                .with_projection(Vec::<String>::new()),
            &data,
        );
        assert_eq!(
            (b.num_columns(), b.num_rows()),
            (0, 200),
            "{threads} threads"
        );
    }
}

/// Arrays written in blocks with byte sizes (as Java's blocking encoder writes them): read
/// item by item when selected, skipped a block at a time when not, and both land alike.
#[test]
fn blocked_arrays_are_read_and_skipped_alike() {
    let schema = schema();
    let mut bytes = Vec::new();
    {
        let mut enc = avrokit::Encoder::blocking(&mut bytes, 4);
        for i in 0..100 {
            avrokit::value::write_value(&mut enc, &record(i), &schema).unwrap();
        }
        enc.flush().unwrap();
    }
    let mut plain = Vec::new();
    for i in 0..100 {
        plain.extend(avrokit::to_datum_vec(&record(i), &schema).unwrap());
    }
    assert_ne!(bytes, plain, "the blocking encoder wrote byte sizes");
    let read = |b: ReaderBuilder, data: &[u8]| {
        let mut dec = b.build_decoder(&schema).unwrap();
        assert_eq!(dec.decode_stream(data).unwrap(), 100);
        dec.flush().unwrap()
    };
    let whole = read(ReaderBuilder::new(), &bytes);
    same(&whole, &read(ReaderBuilder::new(), &plain));
    let projected = read(
        ReaderBuilder::new().with_projection(["inner", "id"]),
        &bytes,
    );
    assert_eq!(show(projected.column(0)), show(whole.column(0)));
    assert_eq!(show(projected.column(1)), show(whole.column(3)));
}

#[test]
fn a_block_size_that_its_items_do_not_fill_is_an_error() {
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[
            {"name":"tags","type":{"type":"array","items":"string"}},
            {"name":"n","type":"int"}]}"#,
    )
    .unwrap();
    // One block of -1 item, size 3: "ab" (3 bytes), the end, then n = 1.
    let good = [0x01, 0x06, 0x04, b'a', b'b', 0x00, 0x02];
    let mut dec = ReaderBuilder::new().build_decoder(&schema).unwrap();
    dec.decode(&good).unwrap();
    assert_eq!(dec.flush().unwrap().num_rows(), 1);
    // The same item under a size of 2.
    let bad = [0x01, 0x04, 0x04, b'a', b'b', 0x00, 0x02];
    let mut dec = ReaderBuilder::new().build_decoder(&schema).unwrap();
    let e = dec.decode(&bad).unwrap_err();
    assert!(e.to_string().contains("block byte size 2"), "{e}");
    assert_eq!(e.offset(), Some(0), "{e}");
}

/// A block of floats or doubles that claims more items than the bytes left hold is an
/// error (the values are taken as one run, checked before anything is copied), and the
/// decoder goes on with the next datum.
#[test]
fn a_block_of_floats_longer_than_the_data_is_an_error() {
    for (t, size) in [("float", 4usize), ("double", 8)] {
        let schema = Schema::parse_str(&format!(
            r#"{{"type":"record","name":"R","fields":[{{"name":"v","type":{{"type":"array","items":"{t}"}}}}]}}"#
        ))
        .unwrap();
        // Three items claimed; the data holds two and a half (more bytes than items, so the
        // count alone passes).
        let mut datum = Vec::new();
        long(3, &mut datum);
        datum.extend(std::iter::repeat_n(0x3f, size * 5 / 2));
        let mut dec = ReaderBuilder::new().build_decoder(&schema).unwrap();
        let e = dec.decode(&datum).unwrap_err();
        assert!(e.to_string().contains("end of"), "{t}: {e}");
        let mut good = Vec::new();
        long(2, &mut good);
        good.extend_from_slice(&vec![0; size * 2]);
        long(0, &mut good);
        dec.decode(&good).unwrap();
        let batch = dec.flush().unwrap();
        assert_eq!(batch.num_rows(), 1, "{t}");
        assert_eq!(show(batch.column(0)), ["[0.0, 0.0]"], "{t}");
    }
}

#[test]
fn enums_read_as_strings_on_request() {
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[
            {"name":"e","type":{"type":"enum","name":"Suit","symbols":["SPADES","HEARTS","CLUBS"]}},
            {"name":"o","type":["null","Suit"]}]}"#,
    )
    .unwrap();
    let mut w = WriterBuilder::new(&schema).build(Vec::new()).unwrap();
    for i in 0..50u32 {
        let o = match i % 4 {
            0 => Value::Union(0, Box::new(Value::Null)),
            _ => Value::Union(1, Box::new(Value::Enum(i % 3))),
        };
        w.append(&Value::Record(vec![Value::Enum(i % 3), o]))
            .unwrap();
    }
    let data = w.into_inner().unwrap();
    let dict = all(ReaderBuilder::new(), &data);
    for (view, dt) in [
        (false, arrow_schema::DataType::Utf8),
        (true, arrow_schema::DataType::Utf8View),
    ] {
        let text = all(
            ReaderBuilder::new()
                .with_enum_as_string(true)
                .with_utf8_view(view)
                .with_threads(2),
            &data,
        );
        for c in 0..2 {
            assert_eq!(text.schema().field(c).data_type(), &dt);
            assert_eq!(text.column(c).data_type(), &dt);
            assert_eq!(show(text.column(c)), show(dict.column(c)), "column {c}");
        }
        assert_eq!(text.column(1).null_count(), 13);
        assert_eq!(show(text.column(0))[..3], ["SPADES", "HEARTS", "CLUBS"]);
    }
}

/// Appends the encoding of the long `v`.
fn long(v: i64, out: &mut Vec<u8>) {
    avrokit::Encoder::new(out).write_long(v).unwrap();
}

/// Arrays of every number type, strings and bytes, each in two blocks (a count, then a
/// negative count with a byte size), and an `int` array read as `long`s: the values of
/// every item, each in its place.
#[test]
fn arrays_of_numbers_and_text_in_several_blocks() {
    let types = ["int", "long", "float", "double", "string", "bytes", "int"];
    let fields = |types: &[&str]| {
        let f: Vec<String> = types
            .iter()
            .enumerate()
            .map(|(i, t)| format!(r#"{{"name":"f{i}","type":{{"type":"array","items":"{t}"}}}}"#))
            .collect();
        format!(
            r#"{{"type":"record","name":"R","fields":[{}]}}"#,
            f.join(",")
        )
    };
    let writer = Schema::parse_str(&fields(&types)).unwrap();
    let mut reader_types = types;
    reader_types[6] = "long";
    let reader = Schema::parse_str(&fields(&reader_types)).unwrap();
    // The number behind item k of row r (every other one negative), and its encoding.
    let value = |r: i64, k: i64| (r * 1000 + k) * if k % 2 == 0 { 1 } else { -37 };
    let item = |t: &str, r: i64, k: i64, out: &mut Vec<u8>| {
        let v = value(r, k);
        match t {
            "int" | "long" => long(v, out),
            "float" => out.extend_from_slice(&(v as f32 * 0.5).to_le_bytes()),
            "double" => out.extend_from_slice(&(v as f64 * 0.25).to_le_bytes()),
            _ => {
                let s = format!("x{v}");
                long(s.len() as i64, out);
                out.extend_from_slice(s.as_bytes());
            }
        }
    };
    let mut dec = ReaderBuilder::new()
        .with_reader_schema(&reader)
        .build_decoder(&writer)
        .unwrap();
    let rows = 4i64;
    for r in 0..rows {
        let mut datum = Vec::new();
        for t in types {
            // Row r has r items in the first block and 2 in the second.
            if r > 0 {
                long(r, &mut datum);
                (0..r).for_each(|k| item(t, r, k, &mut datum));
            }
            let mut second = Vec::new();
            (r..r + 2).for_each(|k| item(t, r, k, &mut second));
            long(-2, &mut datum);
            long(second.len() as i64, &mut datum);
            datum.extend_from_slice(&second);
            long(0, &mut datum);
        }
        dec.decode(&datum).unwrap();
    }
    let batch = dec.flush().unwrap();
    assert_eq!(batch.num_rows(), rows as usize);
    let want = |c: usize, r: i64| -> String {
        let items: Vec<String> = (0..r + 2)
            .map(|k| {
                let v = value(r, k);
                match c {
                    0 | 1 | 6 => v.to_string(),
                    2 => format!("{:?}", v as f32 * 0.5),
                    3 => format!("{:?}", v as f64 * 0.25),
                    4 => format!("x{v}"),
                    _ => format!("x{v}")
                        .bytes()
                        .map(|b| format!("{b:02x}"))
                        .collect(),
                }
            })
            .collect();
        format!("[{}]", items.join(", "))
    };
    for c in 0..types.len() {
        let got = show(batch.column(c));
        for r in 0..rows {
            assert_eq!(got[r as usize], want(c, r), "column {c}, row {r}");
        }
    }
    assert_eq!(
        batch.schema().field(6).data_type(),
        batch.schema().field(1).data_type()
    );
    // Every array of one row empty but the strings, whose one item is cut short: the error
    // names the item's place.
    let mut dec = ReaderBuilder::new().build_decoder(&writer).unwrap();
    let mut datum = vec![0, 0, 0, 0];
    long(1, &mut datum);
    long(10, &mut datum);
    datum.extend_from_slice(b"abc");
    let e = dec.decode(&datum).unwrap_err().to_string();
    assert!(e.contains("f4") && e.contains("[]"), "{e}");
}
