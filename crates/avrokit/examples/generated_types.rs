//! Types generated from a schema: `generated/shop.rs` is what
//! `avrokit codegen examples/generated/shop.avdl --out examples/generated/shop.rs` writes (a
//! `build.rs` does the same with `avrokit_codegen::Config::compile`). The types derive serde
//! and `AvroSchema`, so they give back their schema and go through every typed path.
//!
//! `cargo run -p avrokit --example generated_types`

use avrokit::container::{Reader, WriterBuilder};
use avrokit::serde::SerPlan;
use avrokit::{AvroSchema, Schema};

#[allow(dead_code)]
mod shop {
    include!("generated/shop.rs");
}

use shop::{Change, ChangeWhat, Line, Order, Status};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The generated types' schema is the IDL's (canonical form and all).
    let from_idl = Schema::parse_str(
        r#"{"type":"record","name":"Line","namespace":"shop","fields":[
            {"name":"sku","type":"string"},{"name":"quantity","type":"int"}]}"#,
    )?;
    assert_eq!(Line::schema().canonical_form(), from_idl.canonical_form());
    println!("{}", Order::schema().to_json());

    let order = Order {
        id: 1,
        placed: 1_700_000_000_000,
        lines: vec![Line {
            sku: "A-1".into(),
            quantity: 2,
        }],
        coupon: None,
        status: Status::Open,
    };
    let mut w = WriterBuilder::new(&Order::schema()).build(Vec::new())?;
    let plan = SerPlan::compile(w.schema())?;
    w.append_serde(&order, &plan)?;
    let file = w.into_inner()?;
    let mut r = Reader::from_slice(&file)?;
    let plan = avrokit::serde::DePlan::compile(r.schema())?;
    let back: Vec<Order> = r.serde_iter(&plan).collect::<Result<_, _>>()?;
    assert_eq!(back, [order]);

    // A union of `int` and `string` is a Rust enum.
    let change = Change {
        order: 1,
        what: ChangeWhat::String("address".into()),
    };
    let bytes = avrokit::serde::to_datum_vec(&change, &SerPlan::compile(&Change::schema())?)?;
    println!("{change:?}: {bytes:02x?}");
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
