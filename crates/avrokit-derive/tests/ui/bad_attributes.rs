use avrokit::AvroSchema;

#[derive(AvroSchema)]
#[avro(namespace = "ok", colour = "red")]
struct A {
    #[avro(logical_type = "timestamp-hours")]
    at: i64,
    #[avro(logical_type = "decimal")]
    price: Vec<u8>,
}

fn main() {}
