//! Rust types as the source of the schema: `#[derive(AvroSchema)]` gives `T::schema()` and a
//! generated codec (field by field, no serde visitor), which the container reader and writer
//! use when the file's schema is the type's. Decimal and date types map to logical types.
//!
//! `cargo run -p avrokit --example derived_types`

use avrokit::codec::CodecPlan;
use avrokit::container::{Reader, WriterBuilder};
use avrokit::serde::{DePlan, SerPlan};
use avrokit::AvroSchema;
use serde::{Deserialize, Serialize};

/// An order line.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[avro(namespace = "shop")]
struct Line {
    sku: String,
    quantity: i32,
    /// The unit price in cents.
    cents: i64,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[avro(namespace = "shop")]
struct Order {
    id: i64,
    lines: Vec<Line>,
    coupon: Option<String>,
}

/// With the `rust_decimal` feature, a decimal field with its precision and scale.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[avro(namespace = "shop")]
struct Invoice {
    order: i64,
    #[avro(logical_type = "decimal", precision = 12, scale = 2)]
    total: rust_decimal::Decimal,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", Order::schema().to_json());
    let order = Order {
        id: 1,
        lines: vec![Line {
            sku: "A-1".into(),
            quantity: 2,
            cents: 250,
        }],
        coupon: None,
    };

    // The generated codec, through a container file.
    let mut w = WriterBuilder::new(&Order::schema()).build(Vec::new())?;
    let plan = CodecPlan::<Order>::reading(w.schema())?;
    w.append_codec(&order, &plan)?;
    w.append_codec(
        &Order {
            id: 2,
            coupon: Some("WELCOME".into()),
            ..order.clone()
        },
        &plan,
    )?;
    let file = w.into_inner()?;
    let mut r = Reader::from_slice(&file)?;
    let orders: Vec<Order> = r.codec_iter::<Order>()?.collect::<Result<_, _>>()?;
    assert_eq!(orders.len(), 2);
    assert_eq!(orders[0], order);
    println!("{orders:?}");

    // Decimals go through serde: values are rescaled to the schema's scale exactly, and one
    // that would need rounding is an error.
    let schema = Invoice::schema();
    let ser = SerPlan::compile(&schema)?;
    let invoice = Invoice {
        order: 1,
        total: "5.0".parse()?,
    };
    let bytes = avrokit::serde::to_datum_vec(&invoice, &ser)?;
    let back: Invoice = avrokit::serde::from_datum_slice(&bytes, &DePlan::compile(&schema)?)?;
    assert_eq!(back.total.to_string(), "5.00");
    let rounding = Invoice {
        order: 2,
        total: "0.125".parse()?,
    };
    let e = avrokit::serde::to_datum_vec(&rounding, &ser).unwrap_err();
    println!("error: {e}");
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
