use std::collections::HashMap;

use avrokit::AvroSchema;

#[derive(AvroSchema, serde::Serialize)]
struct B {
    pair: (i32, i32),
    by_point: HashMap<Vec<u8>, i32>,
    #[serde(flatten)]
    rest: HashMap<String, i32>,
}

#[derive(AvroSchema, serde::Serialize)]
#[serde(tag = "kind")]
enum C {
    One { x: i32 },
}

fn main() {}
