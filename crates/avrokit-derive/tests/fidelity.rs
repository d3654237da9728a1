//! The attributes generated code uses to give back its schema exactly: `schema` (union order,
//! nested logical types and properties), `order`, `doc`, `alias`, `props`, `enum_default`,
//! namespaced fixed newtypes and the empty union.

use avrokit::{AvroSchema, Schema};
use serde::{Deserialize, Serialize};

/// Ignored: the exact doc is below.
#[derive(Serialize, Deserialize, AvroSchema)]
#[avro(
    namespace = "x",
    doc = " Exact  doc ",
    alias = "x.Old",
    props = r#"{"k":[1]}"#
)]
#[allow(dead_code)]
struct R {
    #[avro(
        schema = r#"{"type":"array","items":["long","null"],"p":1}"#,
        order = "descending"
    )]
    a: Vec<Option<i64>>,
    #[avro(alias = "bee", props = r#"{"q":true}"#, doc = "B.", default = "null")]
    b: Option<Md5>,
    #[avro(schema = r#"{"type":"long","logicalType":"timestamp-millis"}"#)]
    c: i64,
    e: E,
    n: Option<Never>,
}

#[derive(Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "", doc = "A hash.", props = r#"{"logicalType":"uuid"}"#)]
#[allow(dead_code)]
struct Md5(#[serde(with = "serde_bytes")] [u8; 16]);

#[derive(Serialize, Deserialize, AvroSchema)]
#[avro(namespace = "x", enum_default = "A")]
#[allow(dead_code)]
enum E {
    A,
    B,
}

#[derive(Serialize, Deserialize, AvroSchema)]
#[allow(dead_code)]
enum Never {}

#[test]
fn the_schema_is_exactly_the_attributes() {
    let want = Schema::parse_str(
        r#"{"type":"record","name":"R","namespace":"x","doc":" Exact  doc ","aliases":["x.Old"],
        "k":[1],"fields":[
          {"name":"a","type":{"type":"array","items":["long","null"],"p":1},"order":"descending"},
          {"name":"b","type":["null",{"type":"fixed","name":"Md5","namespace":"","doc":"A hash.",
            "size":16,"logicalType":"uuid"}],"doc":"B.","default":null,"aliases":["bee"],"q":true},
          {"name":"c","type":{"type":"long","logicalType":"timestamp-millis"}},
          {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}},
          {"name":"n","type":["null"]}]}"#,
    )
    .unwrap();
    assert_eq!(R::schema().to_json(), want.to_json());
}

#[test]
#[should_panic(expected = "does not fit the Rust type")]
fn a_schema_of_another_shape_panics() {
    #[derive(AvroSchema)]
    #[allow(dead_code)]
    struct Bad {
        #[avro(schema = r#"{"type":"array","items":"string"}"#)]
        a: Vec<i64>,
    }
    let _ = Bad::schema();
}
