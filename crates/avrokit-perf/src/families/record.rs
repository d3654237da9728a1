//! Record tests (batch `-record`, WORKLOADS.md section 6.2): 41666 six-field records through the
//! raw `Encoder`/`Decoder` (Record), a schema-checked one (ValidatingRecord), and resolving
//! decoders (ResolvingRecord, RecordWithDefault, RecordWithOutOfOrder, RecordWithPromotion).

use std::rc::Rc;

use avrokit::codec::AvroDecodeOwned;
use avrokit::AvroSchema;
use serde::de::DeserializeOwned;

use crate::adapters::avrokit::resolving::{self, Field, REC_FIELDS};
use crate::adapters::avrokit::{codec, encoder};
use crate::adapters::limit;
use crate::adapters::peers;
use crate::data::record::*;
use crate::harness::{Ctx, Impl, Library, Spec, Test};

use Field::{Double as D, Int as I, Long as L, Str as S};

/// The record tests, in registration order.
pub fn specs() -> Vec<Spec> {
    let s = |flag, name, has_write, build| Spec::new(flag, name, "-record", has_write, build);
    vec![
        s("-R", "Record", true, record_test),
        s("-Rv", "ValidatingRecord", true, validating_record_test),
        s("-Rr", "ResolvingRecord", false, resolving_record_test),
        s("-Rd", "RecordWithDefault", false, record_with_default_test),
        s(
            "-Ro",
            "RecordWithOutOfOrder",
            false,
            record_with_out_of_order_test,
        ),
        s(
            "-Rp",
            "RecordWithPromotion",
            false,
            record_with_promotion_test,
        ),
    ]
}

fn record_test(ctx: &Ctx) -> Test {
    let data = Rc::new(rec_data(ctx.count / 6));
    let n = data.len();
    let mut test = Test::new("Record", n, rec_bytes(&data))
        .with(encoder::record_row(data.clone()))
        .with(codec::row::<Rec, Rec>(RECORD_SCHEMA, Some(data.clone()), n));
    test = limit::with_datum_limit(test, data.clone());
    if ctx.compare {
        test = test.with_all(peers::all_peers::<Rec, Rec>(RECORD_SCHEMA, data));
    }
    test
}

fn validating_record_test(ctx: &Ctx) -> Test {
    let data = Rc::new(rec_data(ctx.count / 6));
    let n = data.len();
    // Writes go through avrokit's ValidatingEncoder (every call checked against the schema, as
    // Java's ValidatingEncoder does); reads through its ResolvingDecoder over an identity plan,
    // which checks every typed read against the schema like Java's ValidatingDecoder.
    let avrokit = Impl::new(Library::Avrokit, "ResolvingDecoder (checked)")
        .write_api("ValidatingEncoder")
        .write(encoder::validating_write(data.clone()))
        .read(resolving::read(RECORD_SCHEMA, REC_FIELDS, n));
    // The generated codec of `Rec` is checked once, when the row is built, to have the test's
    // schema as its own: its code then makes no call the schema does not allow, so it needs no
    // check per call (Java's SpecificRecord over a ValidatingDecoder checks per call).
    let mut test = Test::new("ValidatingRecord", n, rec_bytes(&data))
        .with(avrokit)
        .with(codec::row::<Rec, Rec>(RECORD_SCHEMA, Some(data.clone()), n));
    if ctx.compare {
        // The peers' schema-driven paths check every value against the schema already.
        test = test.with_all(peers::all_peers::<Rec, Rec>(RECORD_SCHEMA, data));
    }
    test
}

/// A read-only resolution test over the Rec stream; the peers read into `R`.
fn resolving<R: DeserializeOwned + AvroSchema + AvroDecodeOwned + Default + 'static>(
    ctx: &Ctx,
    name: &'static str,
    reader_schema: &str,
    kinds: &'static [Field],
) -> Test {
    let data = rec_data(ctx.count / 6);
    let n = data.len();
    let avrokit = Impl::new(Library::Avrokit, "ResolvingDecoder").read(resolving::read(
        reader_schema,
        kinds,
        n,
    ));
    let mut test = Test::new(name, n, rec_bytes(&data))
        .with(avrokit)
        .with(codec::resolved_row::<R>(RECORD_SCHEMA, reader_schema, n))
        .with(codec::resolved_reused_row::<R>(
            RECORD_SCHEMA,
            reader_schema,
            n,
        ));
    if ctx.compare {
        test = test.with_all(peers::resolution_peers::<R>(
            RECORD_SCHEMA,
            reader_schema,
            n,
        ));
    }
    test
}

fn resolving_record_test(ctx: &Ctx) -> Test {
    resolving::<Rec>(ctx, "ResolvingRecord", RECORD_SCHEMA, REC_FIELDS)
}

fn record_with_default_test(ctx: &Ctx) -> Test {
    resolving::<RecWithDefault>(
        ctx,
        "RecordWithDefault",
        RECORD_SCHEMA_WITH_DEFAULT,
        &[D, D, D, I, I, I, S, S],
    )
}

fn record_with_out_of_order_test(ctx: &Ctx) -> Test {
    resolving::<RecOutOfOrder>(
        ctx,
        "RecordWithOutOfOrder",
        RECORD_SCHEMA_WITH_OUT_OF_ORDER,
        &[D, D, I, D, I, I],
    )
}

fn record_with_promotion_test(ctx: &Ctx) -> Test {
    resolving::<RecPromoted>(
        ctx,
        "RecordWithPromotion",
        RECORD_SCHEMA_WITH_PROMOTION,
        &[D, D, D, L, L, L],
    )
}
