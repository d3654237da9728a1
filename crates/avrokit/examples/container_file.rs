//! Write an object container file of generic `Value`s and read it back.
//!
//! `cargo run -p avrokit --example container_file`

use std::fs::File;
use std::io::{BufReader, BufWriter};

use avrokit::container::{Codec, Reader, WriterBuilder};
use avrokit::{Schema, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"Reading","namespace":"demo","fields":[
            {"name":"sensor","type":"string"},
            {"name":"celsius","type":"double"},
            {"name":"note","type":["null","string"],"default":null}]}"#,
    )?;
    let path = std::env::temp_dir().join(format!("avrokit-example-{}.avro", std::process::id()));

    // Write: records are encoded into a block buffer and compressed a block at a time.
    let mut writer = WriterBuilder::new(&schema)
        .with_codec(Codec::DEFLATE)
        .build(BufWriter::new(File::create(&path)?))?;
    for i in 0..1000 {
        writer.append(&Value::Record(vec![
            Value::String(format!("s{}", i % 10)),
            Value::Double(20.0 + f64::from(i % 7)),
            // A bare value takes the union branch of its kind.
            if i % 100 == 0 {
                Value::String("hourly".into())
            } else {
                Value::Null
            },
        ]))?;
    }
    writer.into_inner()?; // flushes the last block

    // Read: the file's own schema comes from its header.
    let reader = Reader::new(BufReader::new(File::open(&path)?))?;
    println!("schema: {}", reader.schema().canonical_form());
    let mut count = 0;
    let mut notes = 0;
    for record in reader {
        let Value::Record(fields) = record? else {
            return Err("not a record".into());
        };
        count += 1;
        if matches!(&fields[2], Value::Union(1, _)) {
            notes += 1;
        }
    }
    println!("{count} records, {notes} with a note");
    assert_eq!((count, notes), (1000, 10));
    std::fs::remove_file(&path)?;
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
