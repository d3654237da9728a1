use avrokit::AvroSchema;

// Stand-ins: the derive knows these types by name.
pub struct Utc;
pub struct DateTime<Tz>(Tz);
pub struct NaiveTime;

#[derive(AvroSchema)]
struct A {
    #[avro(logical_type = "date")]
    at: DateTime<Utc>,
    #[avro(logical_type = "timestamp-millis")]
    t: Option<NaiveTime>,
    #[avro(logical_type = "timestamp-micros")]
    small: i32,
    #[avro(logical_type = "uuid")]
    ratio: f64,
    #[avro(fixed_name = "Md5")]
    not_fixed: Vec<i64>,
    #[avro(fixed_name = "1bad")]
    digest: [u8; 16],
}

fn main() {}
