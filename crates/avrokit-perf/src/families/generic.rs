//! Generic tests (batches `-generic` and `-generic-onetime`, WORKLOADS.md sections 6.3 and 6.4):
//! records through avrokit's generic `Value`, one datum at a time, 20833 per cycle. The tests
//! of plain records (Generic, GenericStrings, GenericNested_) also have an avrokit `serde` row,
//! the like-for-like match of the peers' serde rows.

use std::rc::Rc;

use avrokit::codec::AvroDecodeOwned;
use avrokit::AvroSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::adapters::avrokit::values::{to_values, ToValue};
use crate::adapters::avrokit::{codec as ak_codec, encoder, serde as ak_serde, value};
use crate::adapters::limit;
use crate::adapters::peers::{self, values::ToApache};
use crate::adapters::workload::ReaderLife;
use crate::data::generic::*;
use crate::data::record::*;
use crate::harness::{Ctx, Impl, Library, Spec, Test};
use crate::reference;

/// The generic and generic-onetime tests, in registration order.
pub fn specs() -> Vec<Spec> {
    let g = |flag, name, has_write, build| Spec::new(flag, name, "-generic", has_write, build);
    let o = |flag, name, build| Spec::new(flag, name, "-generic-onetime", false, build);
    vec![
        g("-G", "Generic", true, generic_test),
        g("-Gs", "GenericStrings", true, generic_strings_test),
        g("-Gn", "GenericNested_", true, generic_nested_test),
        g("-Gf", "GenericNestedFake_", true, generic_nested_fake_test),
        g(
            "-Gd",
            "GenericWithDefault_",
            false,
            generic_with_default_test,
        ),
        g(
            "-Go",
            "GenericWithOutOfOrder_",
            false,
            generic_with_out_of_order_test,
        ),
        g(
            "-Gp",
            "GenericWithPromotion_",
            false,
            generic_with_promotion_test,
        ),
        o("-Gotd", "GenericOneTimeDecoderUse_", onetime_decoder_test),
        o("-Gotr", "GenericOneTimeReaderUse_", onetime_reader_test),
        o("-Got", "GenericOneTimeUse_", onetime_use_test),
    ]
}

/// A test of plain records through avrokit's Value rows and its serde row, and every peer.
fn plain<T>(ctx: &Ctx, test: Test, schema: &str, items: Rc<Vec<T>>) -> Test
where
    T: ToValue + ToApache + Serialize + DeserializeOwned + ak_codec::Codec + Default + 'static,
{
    let n = items.len();
    let values = Rc::new(to_values(&items));
    let test = value::rows(test, schema, Some(values), n)
        .with(ak_serde::row::<T, T>(schema, Some(items.clone()), n))
        .with(ak_codec::row::<T, T>(schema, Some(items.clone()), n))
        .with(ak_codec::reused_row::<T>(schema, n));
    if ctx.compare {
        test.with_all(peers::all_peers::<T, T>(schema, items))
    } else {
        test
    }
}

fn generic_test(ctx: &Ctx) -> Test {
    let data = Rc::new(rec_data(ctx.count / 12));
    let test = Test::new("Generic", data.len(), rec_bytes(&data));
    let test = plain(ctx, test, RECORD_SCHEMA, data.clone());
    limit::with_datum_limit(test, data)
}

fn generic_strings_test(ctx: &Ctx) -> Test {
    let data = Rc::new(strings_data(ctx.count / 12));
    let test = Test::new("GenericStrings", data.len(), reference::encode_all(&data));
    plain(ctx, test, GENERIC_STRINGS, data)
}

fn generic_nested_test(ctx: &Ctx) -> Test {
    let data = rec_data(ctx.count / 12);
    let test = Test::new("GenericNested_", data.len(), rec_bytes(&data));
    let nested = Rc::new(data.iter().map(Nested::from).collect());
    plain(ctx, test, NESTED_RECORD_SCHEMA, nested)
}

/// GenericNestedFake_: the nested generic records, written and rebuilt by hand with raw
/// Encoder/Decoder calls (Java's measure of generic object handling without a datum writer).
fn generic_nested_fake_test(ctx: &Ctx) -> Test {
    let data = rec_data(ctx.count / 12);
    let n = data.len();
    let values = data.iter().map(|r| Nested::from(r).to_value()).collect();
    let mut test =
        Test::new("GenericNestedFake_", n, rec_bytes(&data)).with(encoder::nested_fake_row(values));
    if ctx.compare {
        for library in [Library::ApacheAvro, Library::SerdeAvroFast] {
            test = test.with(
                Impl::new(library, "-")
                    .not_applicable("no public raw per-primitive encoder/decoder"),
            );
        }
    }
    test
}

/// GenericWith*_: the Generic data read with a reader schema.
fn generic_resolving<R: DeserializeOwned + AvroSchema + AvroDecodeOwned + Default + 'static>(
    ctx: &Ctx,
    name: &'static str,
    reader_schema: &str,
) -> Test {
    let data = rec_data(ctx.count / 12);
    let n = data.len();
    // Java's datum reader (writer -> reader schema) is created once, with the test object.
    let mut test = value::resolved_rows(
        Test::new(name, n, rec_bytes(&data)),
        RECORD_SCHEMA,
        reader_schema,
        n,
    )
    .with(ak_codec::resolved_row::<R>(RECORD_SCHEMA, reader_schema, n))
    .with(ak_codec::resolved_reused_row::<R>(
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

fn generic_with_default_test(ctx: &Ctx) -> Test {
    generic_resolving::<RecWithDefault>(ctx, "GenericWithDefault_", RECORD_SCHEMA_WITH_DEFAULT)
}

fn generic_with_out_of_order_test(ctx: &Ctx) -> Test {
    generic_resolving::<RecOutOfOrder>(
        ctx,
        "GenericWithOutOfOrder_",
        RECORD_SCHEMA_WITH_OUT_OF_ORDER,
    )
}

fn generic_with_promotion_test(ctx: &Ctx) -> Test {
    generic_resolving::<RecPromoted>(ctx, "GenericWithPromotion_", RECORD_SCHEMA_WITH_PROMOTION)
}

/// The one-time tests: the Generic data, read only, with a reader per cycle or per datum.
fn onetime(ctx: &Ctx, name: &'static str, life: ReaderLife) -> Test {
    let data = rec_data(ctx.count / 12);
    let n = data.len();
    // avrokit's Value reader has no object to construct (the schema is the reader), so a new
    // reader per datum costs it nothing: these rows equal GenericRead for avrokit. The serde
    // and codec rows make a new deserializer or decoder as the peers make their readers.
    let mut test = value::rows(Test::new(name, n, rec_bytes(&data)), RECORD_SCHEMA, None, n)
        .with(ak_serde::onetime_row::<Rec>(RECORD_SCHEMA, n, life))
        .with(ak_codec::onetime_row::<Rec>(RECORD_SCHEMA, n, life));
    if ctx.compare {
        test = test.with_all(peers::onetime_peers::<Rec>(RECORD_SCHEMA, n, life));
    }
    test
}

fn onetime_decoder_test(ctx: &Ctx) -> Test {
    onetime(ctx, "GenericOneTimeDecoderUse_", ReaderLife::PerCycle)
}

fn onetime_reader_test(ctx: &Ctx) -> Test {
    onetime(ctx, "GenericOneTimeReaderUse_", ReaderLife::PerDatum)
}

fn onetime_use_test(ctx: &Ctx) -> Test {
    onetime(ctx, "GenericOneTimeUse_", ReaderLife::PerDatum)
}
