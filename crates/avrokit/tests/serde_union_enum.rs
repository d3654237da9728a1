//! A Rust enum standing for an Avro union whose branches include an enum or a string: the
//! branch picks the variant (by the branch's name), both with a plain and a resolving plan.

use avrokit::serde::{from_datum_slice, to_datum_vec, DePlan, SerPlan};
use avrokit::Schema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum Suit {
    #[serde(rename = "HEARTS")]
    Hearts,
    #[serde(rename = "SPADES")]
    Spades,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct R {
    x: i32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum U {
    Suit(Suit),
    #[serde(rename = "string")]
    Str(String),
    #[serde(rename = "int")]
    I(i32),
    #[serde(rename = "a.R")]
    R(R),
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Top {
    u: U,
    o: Option<U>,
    n: Option<String>,
    m: Option<Suit>,
}

const SCHEMA: &str = r#"{"type":"record","name":"Top","namespace":"a","fields":[
  {"name":"u","type":[{"type":"enum","name":"Suit","symbols":["HEARTS","SPADES"]},"string","int",
    {"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}]},
  {"name":"o","type":["Suit","null","string","int","R"]},
  {"name":"n","type":["string","null"]},
  {"name":"m","type":["Suit","null"]}
]}"#;

fn round_trip(v: Top) {
    let schema = Schema::parse_str(SCHEMA).unwrap();
    let bytes = to_datum_vec(&v, &SerPlan::compile(&schema).unwrap()).unwrap();
    for plan in [
        DePlan::compile(&schema).unwrap(),
        DePlan::resolving(&schema, &schema).unwrap(),
    ] {
        let back: Top = from_datum_slice(&bytes, &plan).unwrap_or_else(|e| panic!("{v:?}: {e}"));
        assert_eq!(back, v);
    }
}

#[test]
fn union_enums_with_enum_and_string_branches() {
    for u in [
        U::Suit(Suit::Spades),
        U::Str("hi".into()),
        U::I(3),
        U::R(R { x: 1 }),
    ] {
        round_trip(Top {
            u,
            o: None,
            n: Some("x".into()),
            m: Some(Suit::Hearts),
        });
    }
    for o in [U::Suit(Suit::Hearts), U::Str("s".into()), U::R(R { x: 2 })] {
        round_trip(Top {
            u: U::I(1),
            o: Some(o),
            n: None,
            m: None,
        });
    }
}
