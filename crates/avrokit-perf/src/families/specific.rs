//! The specific test (flag `-Sf`, batch `-specific`, WORKLOADS.md section 6.5):
//! FooBarSpecificRecord, generated Java classes in Java; a serde derive struct here.

use std::rc::Rc;

use crate::adapters::avrokit::codec as ak_codec;
use crate::adapters::avrokit::serde as ak_serde;
use crate::adapters::limit;
use crate::adapters::peers;
use crate::data::specific::{foobar_data, FooBar, FOOBAR_SCHEMA};
use crate::harness::{Ctx, Spec, Test};
use crate::reference;

/// The specific test.
pub fn specs() -> Vec<Spec> {
    vec![Spec::new(
        "-Sf",
        "FooBarSpecificRecordTest",
        "-specific",
        true,
        foobar_test,
    )]
}

fn foobar_test(ctx: &Ctx) -> Test {
    let data = Rc::new(foobar_data(ctx.count / 48, ctx.foobar_old));
    let n = data.len();
    let bytes = reference::encode_all(&data);
    let mut test = Test::new("FooBarSpecificRecordTest", n, bytes)
        .with(ak_serde::row::<FooBar, FooBar>(
            FOOBAR_SCHEMA,
            Some(data.clone()),
            n,
        ))
        .with(ak_codec::row::<FooBar, FooBar>(
            FOOBAR_SCHEMA,
            Some(data.clone()),
            n,
        ))
        .with(ak_codec::reused_row::<FooBar>(FOOBAR_SCHEMA, n));
    test = limit::with_datum_limit(test, data.clone());
    if ctx.compare {
        test = test.with_all(peers::serde_pair::<FooBar, FooBar>(
            FOOBAR_SCHEMA,
            Some(data),
            n,
        ));
    }
    test
}
