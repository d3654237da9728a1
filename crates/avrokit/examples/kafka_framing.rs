//! Messages of one datum each, as Kafka and other queues carry them: the Confluent
//! schema-registry framing (`00`, a 4-byte schema id, the datum) and Avro's single-object
//! encoding (`C3 01`, the schema's 8-byte fingerprint, the datum).
//!
//! `cargo run -p avrokit --example kafka_framing`

use std::collections::HashMap;

use avrokit::serde::{DePlan, SerPlan};
use avrokit::single_object::{
    split_confluent, ConfluentDecoder, SchemaStore, SingleObjectDecoder, SingleObjectEncoder,
};
use avrokit::Schema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Click<'a> {
    page: &'a str,
    millis: i64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"Click","fields":[
            {"name":"page","type":"string"},{"name":"millis","type":"long"}]}"#,
    )?;
    let plan = SerPlan::compile(&schema)?;
    let click = Click {
        page: "/home",
        millis: 1_700_000_000_000,
    };

    // Confluent framing: the registry id is what the producer registered the schema under.
    let msg = avrokit::single_object::to_confluent_vec_serde(&click, &plan, 42)?;
    let (id, datum) = split_confluent(&msg)?;
    println!("confluent: id {id}, {} datum bytes", datum.len());
    assert_eq!(id, 42);
    // A consumer looks the id up (here a map; a registry client implements `SchemaLookup`).
    let registry = HashMap::from([(42u32, schema.clone())]);
    let mut consumer = ConfluentDecoder::new(&registry);
    let back: Click = consumer.decode_serde(&msg)?; // `page` borrows from `msg`
    assert_eq!(back, click);

    // Single-object encoding: the header is computed once per encoder.
    let encoder = SingleObjectEncoder::new(&plan);
    let msg = encoder.encode(&click)?;
    assert_eq!(&msg[..2], &[0xC3, 0x01]);
    println!(
        "single object: {} bytes, header {:02x?}",
        msg.len(),
        encoder.header()
    );
    let mut store = SchemaStore::new();
    store.add(&schema);
    let mut decoder = SingleObjectDecoder::new(store);
    let back: Click = decoder.decode_serde(&msg)?;
    assert_eq!(back, click);
    // The generic path gives a `Value`.
    println!("{:?}", decoder.decode(&msg)?);

    // A plan for the same schema reads the datum alone, without framing.
    let datum: Click = avrokit::serde::from_datum_slice(&msg[10..], &DePlan::compile(&schema)?)?;
    assert_eq!(datum, click);
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
