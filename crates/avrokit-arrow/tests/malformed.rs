//! Bad input: every file of the malformed corpus that the core rejects is rejected here too,
//! with an error (never a panic); every prefix of a valid file is an error or its full reading.

mod common;

use avrokit_arrow::ReaderBuilder;
use common::*;

fn read(data: &[u8], threads: usize) -> Result<usize, avrokit_arrow::Error> {
    let r = ReaderBuilder::new()
        .with_threads(threads)
        .build_slice(data)?;
    let mut rows = 0;
    for b in r {
        rows += b?.num_rows();
    }
    Ok(rows)
}

#[test]
fn the_malformed_corpus_is_rejected() {
    let dir = interop_dir().join("malformed");
    let files = avro_files(&dir);
    assert!(!files.is_empty());
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let core = avrokit::container::Reader::from_slice(&data)
            .and_then(|r| r.collect::<Result<Vec<_>, _>>());
        for threads in [1, 2] {
            let ours = read(&data, threads);
            if core.is_err() {
                let e = ours.expect_err(&path.display().to_string());
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

#[test]
fn every_prefix_of_a_file_is_an_error_or_whole() {
    let path = interop_dir().join("data/fastavro/events-null.avro");
    let data = std::fs::read(path).unwrap();
    let full = read(&data, 1).unwrap();
    for n in (0..data.len()).step_by(7) {
        match read(&data[..n], 1) {
            Ok(rows) => assert!(rows <= full),
            Err(e) => assert!(!e.message().is_empty()),
        }
    }
}

#[test]
fn lying_counts_and_lengths_are_errors() {
    use avrokit::Schema;
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[
            {"name":"a","type":{"type":"array","items":"long"}},
            {"name":"s","type":"string"},
            {"name":"m","type":{"type":"map","values":"null"}}]}"#,
    )
    .unwrap();
    let cases: &[&[u8]] = &[
        &[0xfe, 0xff, 0xff, 0xff, 0x0f], // an array of 2^31 items in 5 bytes
        &[0x00, 0xfe, 0xff, 0xff, 0xff, 0x0f], // a string of 2^31 bytes
        &[0x00, 0x01],                   // a negative string length
        &[
            0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ], // map count
        &[
            0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ], // varint
    ];
    for bytes in cases {
        let mut dec = ReaderBuilder::new().build_decoder(&schema).unwrap();
        let e = dec.decode(bytes).expect_err(&format!("{bytes:02x?}"));
        assert!(e.offset().is_some(), "{e}");
    }
}
