//! The specific test (flag `-Sf`, batch `-specific`, WORKLOADS.md section 6.5):
//! FooBarSpecificRecord, generated Java classes in Java; a serde derive struct here.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::basic::random_string;
use crate::harness::{Ctx, Spec, Test};
use crate::limit::{self, RefDecoder};
use crate::peers;
use crate::rng::JavaRandom;
use crate::typed;

/// FOOBAR_SCHEMA.
pub const FOOBAR_SCHEMA: &str = r#"{"type":"record","name":"FooBarSpecificRecord",
  "namespace":"org.apache.avro","fields":[
  {"name":"id","type":"int"},
  {"name":"name","type":"string"},
  {"name":"nicknames","type":{"type":"array","items":"string"}},
  {"name":"relatedids","type":{"type":"array","items":"int"}},
  {"name":"typeEnum","type":["null",{"type":"enum","name":"TypeEnum","symbols":["a","b","c"]}],
   "default":null}]}"#;

/// The specific test.
pub fn specs() -> Vec<Spec> {
    vec![Spec {
        flag: "-Sf",
        name: "FooBarSpecificRecordTest",
        batch: "-specific",
        has_write: true,
        build: foobar_test,
    }]
}

/// The FooBar enum.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "FooBarSpecificRecord")]
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

    /// Reference encoding.
    pub fn put(&self, out: &mut Vec<u8>) {
        limit::put_int(out, self.id);
        limit::put_string(out, &self.name);
        limit::put_array_start(out, self.nicknames.len());
        self.nicknames
            .iter()
            .for_each(|s| limit::put_string(out, s));
        limit::put_array_end(out);
        limit::put_array_start(out, self.relatedids.len());
        self.relatedids.iter().for_each(|&i| limit::put_int(out, i));
        limit::put_array_end(out);
        match self.type_enum {
            None => limit::put_int(out, 0),
            Some(e) => {
                limit::put_int(out, 1);
                limit::put_int(out, e as i32);
            }
        }
    }

    /// Reference decoding, folded to one number.
    pub fn get(dec: &mut RefDecoder<'_>) -> u64 {
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

fn foobar_test(ctx: &Ctx) -> Test {
    let data = Rc::new(foobar_data(ctx.count / 48, ctx.foobar_old));
    let n = data.len();
    let bytes = limit::encode(|out| data.iter().for_each(|f| f.put(out)));
    let mut test =
        Test::new("FooBarSpecificRecordTest", n, bytes).with(
            typed::avrokit_serde::<FooBar, FooBar>(FOOBAR_SCHEMA, Some(data.clone()), n),
        );
    let d = data.clone();
    test = limit::with_limit(
        test,
        move |out| d.iter().for_each(|f| f.put(out)),
        move |dec| (0..n).fold(0, |acc, _| acc ^ FooBar::get(dec)),
    );
    if ctx.compare {
        test = test.with_all(peers::serde_pair::<FooBar, FooBar>(
            FOOBAR_SCHEMA,
            Some(data),
            n,
        ));
    }
    test
}
