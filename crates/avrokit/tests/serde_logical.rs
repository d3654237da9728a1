//! Logical types through serde: uuid, chrono and time types written and read as the numbers and
//! strings Java uses (checked against the `Value` encoding and apache-avro's bytes), decimals,
//! defaults, resolution, and errors.
#![cfg(all(
    feature = "derive",
    feature = "uuid",
    feature = "chrono",
    feature = "time"
))]

use std::fmt::Debug;

use apache_avro::types::Value as A;
use apache_avro::writer::datum::GenericDatumWriter;
use avrokit::serde::{from_datum_slice, to_datum_vec, DePlan, SerPlan};
use avrokit::{AvroSchema, ErrorKind, Schema, Value};
use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Writes `v` with serde through `schema`, checks the bytes against the `Value` encoding of
/// `expect`, reads them back (every strict prefix failing with an EOF error), and returns them.
#[track_caller]
fn check<T>(schema: &Schema, v: &T, expect: &Value) -> Vec<u8>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let bytes = to_datum_vec(v, &SerPlan::compile(schema).unwrap()).unwrap();
    let reference = avrokit::to_datum_vec(expect, schema).unwrap();
    assert_eq!(
        bytes, reference,
        "serde and Value encodings differ for {v:?}"
    );
    let de = DePlan::compile(schema).unwrap();
    let back: T = from_datum_slice(&bytes, &de).unwrap();
    assert_eq!(&back, v);
    for n in 0..bytes.len() {
        let e = from_datum_slice::<T>(&bytes[..n], &de).expect_err("a strict prefix must fail");
        assert!(e.is_eof(), "prefix {n}: {e}");
    }
    bytes
}

/// apache-avro's encoding of `value` as `schema`.
fn apache_bytes(schema: &str, value: &A) -> Vec<u8> {
    let schema = apache_avro::Schema::parse_str(schema).unwrap();
    let writer = GenericDatumWriter::builder(&schema).build().unwrap();
    let mut out = Vec::new();
    writer.write_value_ref(&mut out, value).unwrap();
    out
}

fn micros(dt: &DateTime<Utc>) -> i64 {
    dt.timestamp_micros()
}

fn days(d: NaiveDate) -> i32 {
    (d - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap()).num_days() as i32
}

#[derive(Serialize, Deserialize, AvroSchema, Debug, PartialEq)]
struct Event {
    id: Uuid,
    at: DateTime<Utc>,
    day: NaiveDate,
}

const EVENT: &str = r#"{"type":"record","name":"Event","fields":[
    {"name":"id","type":{"type":"string","logicalType":"uuid"}},
    {"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},
    {"name":"day","type":{"type":"int","logicalType":"date"}}]}"#;

fn event() -> Event {
    Event {
        id: Uuid::parse_str("67e55044-10b1-426f-9247-bb680e5fe0c8").unwrap(),
        at: Utc.with_ymd_and_hms(2024, 2, 29, 23, 59, 58).unwrap()
            + chrono::Duration::nanoseconds(123_456_000),
        day: NaiveDate::from_ymd_opt(1969, 7, 20).unwrap(),
    }
}

#[test]
fn uuid_and_chrono_need_no_attributes() {
    let schema = Event::schema();
    assert_eq!(
        schema.canonical_form(),
        Schema::parse_str(EVENT).unwrap().canonical_form()
    );
    assert_eq!(
        schema.to_json(),
        Schema::parse_str(EVENT).unwrap().to_json(),
        "logical types are part of the derived schema"
    );
    let e = event();
    let expect = Value::Record(vec![
        Value::Uuid(*e.id.as_bytes()),
        Value::TimestampMicros(micros(&e.at)),
        Value::Date(days(e.day)),
    ]);
    let bytes = check(&schema, &e, &expect);
    // The uuid is its 36-character text on the wire, as Java writes it.
    assert_eq!(bytes[0], 72);
    assert_eq!(&bytes[1..37], e.id.to_string().as_bytes());

    // apache-avro's bytes for the same datum read back as the same value.
    let theirs = apache_bytes(
        EVENT,
        &A::Record(vec![
            (
                "id".into(),
                A::Uuid(apache_avro::Uuid::from_bytes(*e.id.as_bytes())),
            ),
            ("at".into(), A::TimestampMicros(micros(&e.at))),
            ("day".into(), A::Date(days(e.day))),
        ]),
    );
    assert_eq!(theirs, bytes);
    let back: Event = from_datum_slice(&theirs, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(back, e);
}

#[derive(Serialize, Deserialize, AvroSchema, Debug, PartialEq)]
#[avro(namespace = "t")]
struct Chrono {
    date: NaiveDate,
    time: NaiveTime,
    instant: DateTime<Utc>,
    local: NaiveDateTime,
    #[avro(logical_type = "timestamp-millis")]
    millis: DateTime<Utc>,
    #[avro(logical_type = "timestamp-nanos")]
    nanos: Option<DateTime<Utc>>,
    #[avro(logical_type = "time-millis")]
    time_ms: NaiveTime,
    #[avro(logical_type = "local-timestamp-millis")]
    local_ms: NaiveDateTime,
    dates: Vec<NaiveDate>,
    maybe: Option<DateTime<Utc>>,
}

#[test]
fn chrono_types_and_precision_overrides() {
    let schema = Chrono::schema();
    let j = schema.to_json();
    let lt = |i: usize| {
        let t = &j["fields"][i]["type"];
        let t = if t.is_array() { &t[1] } else { t };
        (t["type"].clone(), t["logicalType"].clone())
    };
    let expected = [
        ("int", "date"),
        ("long", "time-micros"),
        ("long", "timestamp-micros"),
        ("long", "local-timestamp-micros"),
        ("long", "timestamp-millis"),
        ("long", "timestamp-nanos"),
        ("int", "time-millis"),
        ("long", "local-timestamp-millis"),
    ];
    for (i, (t, l)) in expected.iter().enumerate() {
        assert_eq!(
            lt(i),
            (serde_json::json!(t), serde_json::json!(l)),
            "field {i}"
        );
    }
    assert_eq!(j["fields"][8]["type"]["items"]["logicalType"], "date");

    let date = NaiveDate::from_ymd_opt(2262, 4, 11).unwrap();
    let time = NaiveTime::from_hms_micro_opt(13, 14, 15, 161_718).unwrap();
    let local = NaiveDate::from_ymd_opt(1901, 12, 13)
        .unwrap()
        .and_hms_nano_opt(20, 45, 52, 999_999_000)
        .unwrap();
    let instant =
        Utc.with_ymd_and_hms(1960, 1, 1, 0, 0, 0).unwrap() - chrono::Duration::microseconds(1);
    let millis = Utc.timestamp_millis_opt(1_700_000_000_123).unwrap();
    let nanos = Utc.timestamp_nanos(1_700_000_000_123_456_789);
    let v = Chrono {
        date,
        time,
        instant,
        local,
        millis,
        nanos: Some(nanos),
        time_ms: NaiveTime::from_hms_milli_opt(0, 0, 0, 1).unwrap(),
        local_ms: NaiveDate::from_ymd_opt(2000, 1, 1)
            .unwrap()
            .and_hms_milli_opt(0, 0, 0, 5)
            .unwrap(),
        dates: vec![date, NaiveDate::from_ymd_opt(-44, 3, 15).unwrap()],
        maybe: None,
    };
    let local_micros = local.and_utc().timestamp_micros();
    let expect = Value::Record(vec![
        Value::Date(days(date)),
        Value::TimeMicros(47_655_161_718),
        Value::TimestampMicros(micros(&instant)),
        Value::LocalTimestampMicros(local_micros),
        Value::TimestampMillis(1_700_000_000_123),
        Value::Union(
            1,
            Box::new(Value::TimestampNanos(1_700_000_000_123_456_789)),
        ),
        Value::TimeMillis(1),
        Value::LocalTimestampMillis(946_684_800_005),
        Value::Array(vec![
            Value::Date(days(date)),
            Value::Date(days(NaiveDate::from_ymd_opt(-44, 3, 15).unwrap())),
        ]),
        Value::Union(0, Box::new(Value::Null)),
    ]);
    check(&schema, &v, &expect);
}

#[test]
fn precision_is_truncated_like_java() {
    // Nanoseconds written as micros round down (towards the past, also before 1970).
    let schema = Schema::parse_str(r#"{"type":"long","logicalType":"timestamp-micros"}"#).unwrap();
    let plan = SerPlan::compile(&schema).unwrap();
    let before = Utc.timestamp_nanos(-1_500);
    let bytes = to_datum_vec(&before, &plan).unwrap();
    assert_eq!(
        avrokit::from_datum_slice(&bytes, &schema).unwrap(),
        Value::TimestampMicros(-2)
    );
    let back: DateTime<Utc> = from_datum_slice(&bytes, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(back, Utc.timestamp_nanos(-2_000));

    // An offset other than UTC is converted; a fixed-offset DateTime reads back as the instant.
    let paris: DateTime<FixedOffset> = "2024-06-01T12:00:00+02:00".parse().unwrap();
    let bytes = to_datum_vec(&paris, &plan).unwrap();
    assert_eq!(
        avrokit::from_datum_slice(&bytes, &schema).unwrap(),
        Value::TimestampMicros(paris.timestamp_micros())
    );
    let back: DateTime<FixedOffset> =
        from_datum_slice(&bytes, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(back, paris);
}

#[derive(Serialize, Deserialize, AvroSchema, Debug, PartialEq)]
struct TimeCrate {
    date: time::Date,
    time: time::Time,
    instant: time::OffsetDateTime,
    local: time::PrimitiveDateTime,
    #[avro(logical_type = "timestamp-nanos")]
    nanos: time::OffsetDateTime,
    maybe: Option<time::OffsetDateTime>,
}

#[test]
fn time_crate_types() {
    use time::macros::{date, datetime, offset, time};
    let schema = TimeCrate::schema();
    let j = schema.to_json();
    assert_eq!(j["fields"][0]["type"]["logicalType"], "date");
    assert_eq!(j["fields"][1]["type"]["logicalType"], "time-micros");
    assert_eq!(j["fields"][2]["type"]["logicalType"], "timestamp-micros");
    assert_eq!(
        j["fields"][3]["type"]["logicalType"],
        "local-timestamp-micros"
    );
    assert_eq!(j["fields"][4]["type"]["logicalType"], "timestamp-nanos");

    let instant = datetime!(2024-02-29 23:59:58.25).assume_offset(offset!(-05:30));
    let nanos = datetime!(1969-12-31 23:59:59.999_999_999).assume_utc();
    let local = datetime!(2038-01-19 03:14:08.000_001);
    let v = TimeCrate {
        date: date!(0001 - 01 - 01),
        time: time!(23:59:59.999_999),
        instant,
        local,
        nanos,
        maybe: Some(instant),
    };
    let expect = Value::Record(vec![
        Value::Date(-719_162),
        Value::TimeMicros(86_399_999_999),
        Value::TimestampMicros((instant.unix_timestamp_nanos() / 1000) as i64),
        Value::LocalTimestampMicros((local.assume_utc().unix_timestamp_nanos() / 1000) as i64),
        Value::TimestampNanos(-1),
        Value::Union(
            1,
            Box::new(Value::TimestampMicros(
                (instant.unix_timestamp_nanos() / 1000) as i64,
            )),
        ),
    ]);
    // `OffsetDateTime` compares instants: the UTC value read back equals the -05:30 one.
    check(&schema, &v, &expect);

    // chrono and time write the same bytes for the same dates and times.
    let c = Event {
        id: Uuid::nil(),
        at: Utc.timestamp_nanos(instant.unix_timestamp_nanos() as i64),
        day: NaiveDate::from_ymd_opt(1, 1, 1).unwrap(),
    };
    let ev = Schema::parse_str(EVENT).unwrap();
    let plan = SerPlan::compile(&ev).unwrap();
    #[derive(Serialize)]
    struct TimeEvent {
        id: Uuid,
        at: time::OffsetDateTime,
        day: time::Date,
    }
    let t = TimeEvent {
        id: Uuid::nil(),
        at: instant,
        day: date!(0001 - 01 - 01),
    };
    assert_eq!(
        to_datum_vec(&c, &plan).unwrap(),
        to_datum_vec(&t, &plan).unwrap()
    );
}

#[test]
fn uuid_as_fixed_and_as_text() {
    let fixed = Schema::parse_str(r#"{"type":"fixed","name":"Id","size":16,"logicalType":"uuid"}"#)
        .unwrap();
    let id = Uuid::new_v4();
    check(&fixed, &id, &Value::Uuid(*id.as_bytes()));
    let bytes = to_datum_vec(&id, &SerPlan::compile(&fixed).unwrap()).unwrap();
    assert_eq!(bytes, id.as_bytes());
    // The text form writes the same 16 bytes, and a String reads them as text.
    let de = DePlan::compile(&fixed).unwrap();
    let text = id.to_string();
    assert_eq!(
        to_datum_vec(&text, &SerPlan::compile(&fixed).unwrap()).unwrap(),
        bytes
    );
    assert_eq!(from_datum_slice::<String>(&bytes, &de).unwrap(), text);
    let bad = to_datum_vec("not-a-uuid", &SerPlan::compile(&fixed).unwrap()).unwrap_err();
    assert_eq!(bad.kind(), ErrorKind::Data);

    // A uuid string reads as a String too, and an Option<Uuid> through a union.
    let string = Schema::parse_str(r#"{"type":"string","logicalType":"uuid"}"#).unwrap();
    let sbytes = to_datum_vec(&id, &SerPlan::compile(&string).unwrap()).unwrap();
    // 16 bytes given as a sequence (a Vec<u8> without serde_bytes) are the same uuid.
    assert_eq!(
        to_datum_vec(&id.as_bytes().to_vec(), &SerPlan::compile(&string).unwrap()).unwrap(),
        sbytes
    );
    assert_eq!(
        from_datum_slice::<String>(&sbytes, &DePlan::compile(&string).unwrap()).unwrap(),
        text
    );
    let opt = Schema::parse_str(r#"["null",{"type":"string","logicalType":"uuid"}]"#).unwrap();
    check(
        &opt,
        &Some(id),
        &Value::Union(1, Box::new(Value::Uuid(*id.as_bytes()))),
    );
    check(&opt, &None::<Uuid>, &Value::Union(0, Box::new(Value::Null)));
    // An upper-case uuid written by another tool reads as the same Uuid.
    let upper = to_datum_vec(&text.to_uppercase(), &SerPlan::compile(&string).unwrap()).unwrap();
    assert_eq!(
        from_datum_slice::<Uuid>(&upper, &DePlan::compile(&string).unwrap()).unwrap(),
        id
    );
}

#[test]
fn plain_integers_and_strings_still_work() {
    // Integers keep writing and reading the count; a String field reads the text form.
    let schema = Schema::parse_str(EVENT).unwrap();
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Raw {
        id: String,
        at: i64,
        day: i32,
    }
    let raw = Raw {
        id: "67e55044-10b1-426f-9247-bb680e5fe0c8".into(),
        at: 1_000_001,
        day: -1,
    };
    let bytes = to_datum_vec(&raw, &SerPlan::compile(&schema).unwrap()).unwrap();
    let de = DePlan::compile(&schema).unwrap();
    assert_eq!(from_datum_slice::<Raw>(&bytes, &de).unwrap(), raw);
    #[derive(Deserialize, Debug, PartialEq)]
    struct Text {
        id: String,
        at: String,
        day: String,
    }
    assert_eq!(
        from_datum_slice::<Text>(&bytes, &de).unwrap(),
        Text {
            id: raw.id.clone(),
            at: "1970-01-01T00:00:01.000001Z".into(),
            day: "1969-12-31".into(),
        }
    );
    let e: Event = from_datum_slice(&bytes, &de).unwrap();
    assert_eq!(e.at, Utc.timestamp_nanos(1_000_001_000));
    // serde_json::Value (deserialize_any) sees the numbers.
    let any: serde_json::Value = from_datum_slice(&bytes, &de).unwrap();
    assert_eq!(any["at"], 1_000_001);
}

#[test]
fn bad_text_is_a_data_error_with_a_path() {
    let schema = Schema::parse_str(EVENT).unwrap();
    #[derive(Serialize)]
    struct Bad<'a> {
        id: &'a str,
        at: &'a str,
        day: &'a str,
    }
    let plan = SerPlan::compile(&schema).unwrap();
    for (at, day) in [
        ("2024-13-01T00:00:00Z", "2024-01-01"),
        ("2024-01-01T00:00:00Z", "2023-02-29"),
        ("yesterday", "2024-01-01"),
        ("2024-01-01T00:00:00Z", "+99999999-01-01"),
    ] {
        let e = to_datum_vec(&Bad { id: "x", at, day }, &plan).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Data, "{at} {day}: {e}");
        let msg = e.to_string();
        assert!(
            msg.contains("Event.at") || msg.contains("Event.day"),
            "{msg}"
        );
    }
}

#[test]
fn defaults_and_resolution() {
    // A reader-only field with a timestamp default, and a writer plain long read as a
    // timestamp.
    let writer = Schema::parse_str(
        r#"{"type":"record","name":"Event","fields":[{"name":"at","type":"long"}]}"#,
    )
    .unwrap();
    let reader = Schema::parse_str(
        r#"{"type":"record","name":"Event","fields":[
            {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
            {"name":"day","type":{"type":"int","logicalType":"date"},"default":19000},
            {"name":"id","type":{"type":"string","logicalType":"uuid"},
             "default":"00000000-0000-0000-0000-000000000001"},
            {"name":"maybe","type":["null",{"type":"long","logicalType":"timestamp-micros"}],
             "default":null}]}"#,
    )
    .unwrap();
    #[derive(Deserialize, Debug, PartialEq)]
    struct Read {
        at: DateTime<Utc>,
        day: NaiveDate,
        id: Uuid,
        maybe: Option<DateTime<Utc>>,
    }
    let bytes = avrokit::to_datum_vec(&Value::Record(vec![Value::Long(1_500)]), &writer).unwrap();
    let r: Read = from_datum_slice(&bytes, &DePlan::resolving(&writer, &reader).unwrap()).unwrap();
    assert_eq!(
        r,
        Read {
            at: Utc.timestamp_millis_opt(1_500).unwrap(),
            day: NaiveDate::from_ymd_opt(2022, 1, 8).unwrap(),
            id: Uuid::from_u128(1),
            maybe: None,
        }
    );
    #[derive(Deserialize, Debug, PartialEq)]
    struct ReadTime {
        at: time::OffsetDateTime,
        day: time::Date,
    }
    let r: ReadTime =
        from_datum_slice(&bytes, &DePlan::resolving(&writer, &reader).unwrap()).unwrap();
    assert_eq!(r.day, time::macros::date!(2022 - 01 - 08));
    assert_eq!(r.at.unix_timestamp_nanos(), 1_500_000_000);
}

#[derive(Serialize, Deserialize, AvroSchema, Debug, PartialEq, Default)]
struct WithDefaults {
    #[serde(default)]
    at: DateTime<Utc>,
    #[serde(default)]
    day: NaiveDate,
    #[serde(default)]
    id: Uuid,
}

#[test]
fn serde_defaults_of_logical_fields_become_avro_defaults() {
    let j = WithDefaults::schema().to_json();
    assert_eq!(j["fields"][0]["default"], 0);
    assert_eq!(
        j["fields"][1]["default"],
        days(NaiveDate::default()),
        "NaiveDate::default() as days"
    );
    assert_eq!(j["fields"][2]["default"], Uuid::nil().to_string());
    // A reader with those defaults fills a record written without the fields.
    let writer =
        Schema::parse_str(r#"{"type":"record","name":"WithDefaults","fields":[]}"#).unwrap();
    let r: WithDefaults = from_datum_slice(
        &[],
        &DePlan::resolving(&writer, &WithDefaults::schema()).unwrap(),
    )
    .unwrap();
    assert_eq!(r, WithDefaults::default());
}

#[derive(Serialize, Deserialize, AvroSchema, Debug, PartialEq)]
struct Money {
    #[avro(logical_type = "decimal", precision = 5, scale = 2)]
    #[serde(with = "serde_bytes")]
    amount: Vec<u8>,
    #[avro(logical_type = "decimal", precision = 9, scale = 3)]
    exact: [u8; 4],
}

#[test]
fn decimals_are_checked_and_sign_extended() {
    let schema = Money::schema();
    let j = schema.to_json();
    assert_eq!(j["fields"][1]["type"]["type"], "fixed");
    assert_eq!(j["fields"][1]["type"]["name"], "Money_exact");
    assert_eq!(j["fields"][1]["type"]["precision"], 9);
    let m = Money {
        amount: vec![0x86, 0xa0], // -31072
        exact: [0xff, 0xff, 0xff, 0x85],
    };
    check(
        &schema,
        &m,
        &Value::Record(vec![
            Value::Decimal(avrokit::value::Decimal::from_i128(-31_072, 2)),
            Value::Decimal(avrokit::value::Decimal::from_i128(-123, 3)),
        ]),
    );
    let plan = SerPlan::compile(&schema).unwrap();
    // 100000 has six digits: too many for precision 5.
    let too_big = Money {
        amount: vec![0x01, 0x86, 0xa0],
        exact: [0; 4],
    };
    let e = to_datum_vec(&too_big, &plan).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert!(e.to_string().contains("5 digits"), "{e}");

    // A short unscaled value is sign-extended to the fixed's size.
    let fixed = Schema::parse_str(
        r#"{"type":"fixed","name":"D","size":4,"logicalType":"decimal","precision":9}"#,
    )
    .unwrap();
    let plan = SerPlan::compile(&fixed).unwrap();
    assert_eq!(
        to_datum_vec(serde_bytes::Bytes::new(&[0x80]), &plan).unwrap(),
        [0xff, 0xff, 0xff, 0x80]
    );
    assert_eq!(
        to_datum_vec(&vec![0x00u8, 0x00, 0x00, 0x00, 0x7f], &plan).unwrap(),
        [0, 0, 0, 0x7f]
    );
    // An optional decimal takes the fixed branch whatever its length.
    let opt = Schema::parse_str(
        r#"["null",{"type":"fixed","name":"D","size":4,"logicalType":"decimal","precision":9}]"#,
    )
    .unwrap();
    assert_eq!(
        to_datum_vec(
            &Some(serde_bytes::Bytes::new(&[0x01, 0x00])),
            &SerPlan::compile(&opt).unwrap()
        )
        .unwrap(),
        [2, 0, 0, 1, 0]
    );
    assert_eq!(
        to_datum_vec(serde_bytes::Bytes::new(&[0x3b, 0x9a, 0xca, 0x00]), &plan)
            .unwrap_err()
            .kind(),
        ErrorKind::Data,
        "10^9 has ten digits"
    );
}

#[test]
#[should_panic(expected = "cannot annotate long")]
fn a_logical_type_that_does_not_fit_panics() {
    // The derive rejects this for types it knows (see the ui tests); for others the schema
    // build says so.
    type Stamp = i64;
    #[derive(AvroSchema)]
    struct S {
        #[allow(dead_code)]
        #[avro(logical_type = "date")]
        at: Stamp,
    }
    let _ = S::schema();
}
