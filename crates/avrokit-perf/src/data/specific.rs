//! The data of the specific test (WORKLOADS.md section 6.5): FooBarSpecificRecord, generated
//! Java classes in Java; a serde derive struct here.

use serde::{Deserialize, Serialize};

use crate::data::basic::random_string;
use crate::reference::{self, RefDatum, RefDecoder};
use crate::rng::JavaRandom;

/// FOOBAR_SCHEMA.
pub const FOOBAR_SCHEMA: &str = r#"{"type":"record","name":"FooBarSpecificRecord",
  "namespace":"org.apache.avro","fields":[
  {"name":"id","type":"int"},
  {"name":"name","type":"string"},
  {"name":"nicknames","type":{"type":"array","items":"string"}},
  {"name":"relatedids","type":{"type":"array","items":"int"}},
  {"name":"typeEnum","type":["null",{"type":"enum","name":"TypeEnum","symbols":["a","b","c"]}],
   "default":null}]}"#;

/// The FooBar enum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, avrokit::AvroSchema)]
pub enum TypeEnum {
    /// a
    #[serde(rename = "a")]
    A,
    /// b
    #[serde(rename = "b")]
    B,
    /// c
    #[serde(rename = "c")]
    C,
}

/// FooBarSpecificRecord.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema, Default)]
#[serde(rename = "FooBarSpecificRecord")]
#[avro(namespace = "org.apache.avro")]
pub struct FooBar {
    /// id
    pub id: i32,
    /// name
    pub name: String,
    /// nicknames (always 2)
    pub nicknames: Vec<String>,
    /// relatedids (always 10)
    pub relatedids: Vec<i32>,
    /// typeEnum (never null in the data)
    #[serde(rename = "typeEnum")]
    pub type_enum: Option<TypeEnum>,
}

impl FooBar {
    /// One record in the 1.9+ call order (`old = false`: relatedids, nicknames, id, name, enum)
    /// or the 1.7.5-1.8.2 order (`old = true`: relatedids, id, name, nicknames, enum).
    pub fn random(r: &mut JavaRandom, old: bool) -> FooBar {
        let relatedids = (0..10).map(|_| r.next_int()).collect();
        let (id, name, nicknames);
        if old {
            id = r.next_int();
            name = random_string(r);
            nicknames = vec![random_string(r), random_string(r)];
        } else {
            nicknames = vec![random_string(r), random_string(r)];
            id = r.next_int();
            name = random_string(r);
        }
        let type_enum = Some(match r.next_int_bounded(3) {
            0 => TypeEnum::A,
            1 => TypeEnum::B,
            _ => TypeEnum::C,
        });
        FooBar {
            id,
            name,
            nicknames,
            relatedids,
            type_enum,
        }
    }
}

impl RefDatum for FooBar {
    fn put(&self, out: &mut Vec<u8>) {
        reference::put_int(out, self.id);
        reference::put_string(out, &self.name);
        reference::put_array_start(out, self.nicknames.len());
        self.nicknames
            .iter()
            .for_each(|s| reference::put_string(out, s));
        reference::put_array_end(out);
        reference::put_array_start(out, self.relatedids.len());
        self.relatedids
            .iter()
            .for_each(|&i| reference::put_int(out, i));
        reference::put_array_end(out);
        match self.type_enum {
            None => reference::put_int(out, 0),
            Some(e) => {
                reference::put_int(out, 1);
                reference::put_int(out, e as i32);
            }
        }
    }

    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let mut acc = dec.int() as u64 ^ dec.string().len() as u64;
        let mut n = dec.block_count();
        while n > 0 {
            for _ in 0..n {
                acc ^= dec.string().len() as u64;
            }
            n = dec.block_count();
        }
        let mut n = dec.block_count();
        while n > 0 {
            for _ in 0..n {
                acc ^= dec.int() as u64;
            }
            n = dec.block_count();
        }
        // Union branch, then the enum index.
        acc ^ dec.varint() ^ dec.varint()
    }
}

/// The FooBar data: `count` records, plus (1.9+) the extra record Java generates for reuse,
/// which consumes generator output but is never written.
pub fn foobar_data(count: usize, old: bool) -> Vec<FooBar> {
    let mut r = JavaRandom::perf();
    let data = (0..count).map(|_| FooBar::random(&mut r, old)).collect();
    if !old {
        FooBar::random(&mut r, old);
    }
    data
}
