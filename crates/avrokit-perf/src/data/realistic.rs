//! The data of the realistic test (batch `-realistic`; ours, not in Java's catalog): issue 12's
//! held-back "realistic record", a `User` with strings, optional fields, an enum, a nested
//! record, arrays and a map, drawn from the seeded `java.util.Random` port.
//!
//! Shape of the draws: strings of 5 to 40 lowercase letters (a 5-digit zip), each optional
//! field null with probability 1/3, 0 to 5 items in each array and in the map.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::reference::{self, RefDatum, RefDecoder};
use crate::rng::JavaRandom;

/// The `User` record's schema (its derived schema is this one, checked by a test).
pub const SCHEMA: &str = r#"{"type":"record","name":"User","fields":[
  {"name":"id","type":"long"},
  {"name":"name","type":"string"},
  {"name":"email","type":["null","string"]},
  {"name":"age","type":["null","int"]},
  {"name":"status","type":{"type":"enum","name":"Status","symbols":["ACTIVE","INACTIVE","SUSPENDED"]}},
  {"name":"address","type":{"type":"record","name":"Address","fields":[
    {"name":"street","type":"string"},
    {"name":"city","type":"string"},
    {"name":"zip","type":["null","string"]}]}},
  {"name":"tags","type":{"type":"array","items":"string"}},
  {"name":"scores","type":{"type":"array","items":"int"}},
  {"name":"attrs","type":{"type":"map","values":"string"}},
  {"name":"balance","type":"double"}]}"#;

/// The enum's symbols.
pub const STATUS_SYMBOLS: [&str; 3] = ["ACTIVE", "INACTIVE", "SUSPENDED"];

/// The account status: a unit enum (serde's unit variants, the derive's Avro enum).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, avrokit::AvroSchema,
)]
pub enum Status {
    /// ACTIVE
    #[default]
    #[serde(rename = "ACTIVE")]
    Active,
    /// INACTIVE
    #[serde(rename = "INACTIVE")]
    Inactive,
    /// SUSPENDED
    #[serde(rename = "SUSPENDED")]
    Suspended,
}

/// The nested record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, avrokit::AvroSchema)]
pub struct Address {
    /// street
    pub street: String,
    /// city
    pub city: String,
    /// `["null","string"]`
    pub zip: Option<String>,
}

/// The realistic record. The map is a `BTreeMap`: every library accepts it through serde, and
/// its order is fixed, so every serde writer emits the same bytes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, avrokit::AvroSchema)]
pub struct User {
    /// id
    pub id: i64,
    /// name, 5..=40 chars
    pub name: String,
    /// `["null","string"]`
    pub email: Option<String>,
    /// `["null","int"]`
    pub age: Option<i32>,
    /// enum of 3 symbols
    pub status: Status,
    /// nested record
    pub address: Address,
    /// 0..=5 strings
    pub tags: Vec<String>,
    /// 0..=5 ints
    pub scores: Vec<i32>,
    /// 0..=5 strings by key
    pub attrs: BTreeMap<String, String>,
    /// double
    pub balance: f64,
}

/// `min..=max` lowercase letters.
fn text(r: &mut JavaRandom, min: i32, max: i32) -> String {
    let len = min + r.next_int_bounded(max - min + 1);
    (0..len)
        .map(|_| char::from(b'a' + r.next_int_bounded(26) as u8))
        .collect()
}

/// `Some` two times in three.
fn maybe<T>(r: &mut JavaRandom, f: impl FnOnce(&mut JavaRandom) -> T) -> Option<T> {
    (r.next_int_bounded(3) != 0).then(|| f(r))
}

/// 0..=5.
fn items(r: &mut JavaRandom) -> i32 {
    r.next_int_bounded(6)
}

/// One user, its fields drawn in declaration order.
fn user(r: &mut JavaRandom) -> User {
    let id = r.next_long();
    let name = text(r, 5, 40);
    let email = maybe(r, |r| format!("{}@{}.com", text(r, 5, 20), text(r, 5, 15)));
    let age = maybe(r, |r| 18 + r.next_int_bounded(80));
    let status =
        [Status::Active, Status::Inactive, Status::Suspended][r.next_int_bounded(3) as usize];
    let address = Address {
        street: text(r, 5, 40),
        city: text(r, 5, 20),
        zip: maybe(r, |r| format!("{:05}", r.next_int_bounded(100_000))),
    };
    let tags = (0..items(r)).map(|_| text(r, 5, 15)).collect();
    let scores = (0..items(r)).map(|_| r.next_int_bounded(100_000)).collect();
    let attrs = (0..items(r))
        .map(|_| (text(r, 5, 12), text(r, 5, 40)))
        .collect();
    let balance = r.next_double() * 10_000.0;
    User {
        id,
        name,
        email,
        age,
        status,
        address,
        tags,
        scores,
        attrs,
        balance,
    }
}

/// `n` users from the seeded generator.
pub fn generate(n: usize) -> Vec<User> {
    let mut r = JavaRandom::perf();
    (0..n).map(|_| user(&mut r)).collect()
}

fn put_optional_string(out: &mut Vec<u8>, v: &Option<String>) {
    match v {
        None => reference::put_int(out, 0),
        Some(s) => {
            reference::put_int(out, 1);
            reference::put_string(out, s);
        }
    }
}

fn get_optional_string(dec: &mut RefDecoder<'_>) -> u64 {
    if dec.int() == 1 {
        dec.string().len() as u64
    } else {
        0
    }
}

/// The reference datum encoding: single-block arrays and map, the map in key order.
impl RefDatum for User {
    fn put(&self, out: &mut Vec<u8>) {
        reference::put_long(out, self.id);
        reference::put_string(out, &self.name);
        put_optional_string(out, &self.email);
        match self.age {
            None => reference::put_int(out, 0),
            Some(a) => {
                reference::put_int(out, 1);
                reference::put_int(out, a);
            }
        }
        reference::put_int(out, self.status as i32);
        reference::put_string(out, &self.address.street);
        reference::put_string(out, &self.address.city);
        put_optional_string(out, &self.address.zip);
        self.tags.put(out);
        self.scores.put(out);
        reference::put_array_start(out, self.attrs.len());
        for (k, v) in &self.attrs {
            reference::put_string(out, k);
            reference::put_string(out, v);
        }
        reference::put_array_end(out);
        reference::put_double(out, self.balance);
    }

    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let mut acc = dec.long() as u64 ^ dec.string().len() as u64;
        acc ^= get_optional_string(dec);
        if dec.int() == 1 {
            acc ^= dec.int() as u64;
        }
        acc ^= dec.int() as u64 ^ dec.string().len() as u64 ^ dec.string().len() as u64;
        acc ^= get_optional_string(dec);
        acc ^= Vec::<String>::get(dec) ^ Vec::<i32>::get(dec);
        let mut n = dec.block_count();
        while n > 0 {
            for _ in 0..n {
                acc ^= dec.string().len() as u64 ^ dec.string().len() as u64;
            }
            n = dec.block_count();
        }
        acc ^ dec.double().to_bits()
    }
}
