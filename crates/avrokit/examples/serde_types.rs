//! Your own serde types against a schema you are given: structs, enums, options, maps and
//! borrowed strings, straight to and from Avro binary and container files (no `Value` on the
//! way).
//!
//! `cargo run -p avrokit --example serde_types`

use std::collections::HashMap;

use avrokit::container::{Codec, Reader, WriterBuilder};
use avrokit::serde::{from_datum_slice, to_datum_vec, DePlan, SerPlan};
use avrokit::Schema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Status {
    Active,
    Suspended,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Account<'a> {
    id: i64,
    // Borrowed from the input when reading from a slice.
    owner: &'a str,
    status: Status,
    email: Option<String>,
    tags: HashMap<String, i32>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Schema::parse_str(
        r#"{"type":"record","name":"Account","fields":[
            {"name":"id","type":"long"},
            {"name":"owner","type":"string"},
            {"name":"status","type":{"type":"enum","name":"Status","symbols":["Active","Suspended"]}},
            {"name":"email","type":["null","string"],"default":null},
            {"name":"tags","type":{"type":"map","values":"int"}}]}"#,
    )?;
    // Plans are compiled once and reused for every value.
    let ser = SerPlan::compile(&schema)?;
    let de = DePlan::compile(&schema)?;

    let account = Account {
        id: 7,
        owner: "ada",
        status: Status::Active,
        email: Some("ada@example.com".into()),
        tags: HashMap::from([("beta".to_owned(), 1)]),
    };
    let bytes = to_datum_vec(&account, &ser)?;
    let back: Account = from_datum_slice(&bytes, &de)?;
    assert_eq!(back, account);
    println!("{} bytes: {back:?}", bytes.len());

    // The same types in a container file.
    let mut w = WriterBuilder::new(&schema)
        .with_codec(Codec::Snappy)
        .build(Vec::new())?;
    for id in 0..3 {
        let a = Account {
            id,
            owner: "grace",
            status: Status::Suspended,
            email: None,
            tags: HashMap::new(),
        };
        w.append_serde(&a, &ser)?;
    }
    let file = w.into_inner()?;
    let mut r = Reader::from_slice(&file)?;
    let plan = DePlan::compile(r.schema())?;
    // `serde_iter` yields owned types; `next_block` + `Block::serde_iter` borrow from blocks.
    let ids: Vec<i64> = r
        .serde_iter::<Owned>(&plan)
        .map(|a| a.map(|a| a.id))
        .collect::<Result<_, _>>()?;
    assert_eq!(ids, [0, 1, 2]);
    println!("ids in the file: {ids:?}");

    // A value that does not fit the schema is an error with the path of the field.
    #[derive(Serialize)]
    struct Wrong {
        id: &'static str,
    }
    let e = to_datum_vec(&Wrong { id: "x" }, &ser).unwrap_err();
    println!("error: {e}");
    assert!(e.to_string().contains("id"));
    Ok(())
}

/// An owned twin of [`Account`] for iterators that outlive the input.
#[derive(Deserialize)]
struct Owned {
    id: i64,
}

#[test]
fn runs() {
    main().unwrap();
}
