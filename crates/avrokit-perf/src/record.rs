//! Record tests (batch `-record`, WORKLOADS.md section 6.2): 41666 six-field records through the
//! raw `Encoder`/`Decoder` (Record), a schema-checked one (ValidatingRecord), and resolving
//! decoders (ResolvingRecord, RecordWithDefault, RecordWithOutOfOrder, RecordWithPromotion).

use std::hint::black_box;
use std::rc::Rc;

use avrokit::encode::ValidatingEncoder;
use avrokit::resolution::ResolvingDecoder;
use avrokit::{Decoder, Encoder, Schema};
use serde::{Deserialize, Serialize};

use crate::generic;
use crate::harness::{reader, writer, Ctx, Impl, Library, ReadFn, Side, Spec, Test};
use crate::limit::{self, check_consumed, RefDecoder};
use crate::peers::{self, arecord, AValue};
use crate::rng::JavaRandom;

/// RECORD_SCHEMA (name `R`).
pub const RECORD_SCHEMA: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"}]}"#;

/// RECORD_SCHEMA_WITH_DEFAULT (reader schema).
pub const RECORD_SCHEMA_WITH_DEFAULT: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"int"},{"name":"f5","type":"int"},{"name":"f6","type":"int"},
    {"name":"f7","type":"string","default":"undefined"},
    {"name":"f8","type":"string","default":"undefined"}]}"#;

/// RECORD_SCHEMA_WITH_OUT_OF_ORDER (reader schema).
pub const RECORD_SCHEMA_WITH_OUT_OF_ORDER: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f3","type":"double"},{"name":"f5","type":"int"},
    {"name":"f2","type":"double"},{"name":"f4","type":"int"},{"name":"f6","type":"int"}]}"#;

/// RECORD_SCHEMA_WITH_PROMOTION (reader schema).
pub const RECORD_SCHEMA_WITH_PROMOTION: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"f1","type":"double"},{"name":"f2","type":"double"},{"name":"f3","type":"double"},
    {"name":"f4","type":"long"},{"name":"f5","type":"long"},{"name":"f6","type":"long"}]}"#;

/// The record tests, in registration order.
pub fn specs() -> Vec<Spec> {
    let s = |flag, name, has_write, build| Spec {
        flag,
        name,
        batch: "-record",
        has_write,
        build,
    };
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

/// A record of RECORD_SCHEMA's shape: also the data of Generic and ReflectRecord. Serde names
/// it `R` because apache-avro's deserializer insists on the schema's record name.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "R")]
pub struct Rec {
    /// f1
    pub f1: f64,
    /// f2
    pub f2: f64,
    /// f3
    pub f3: f64,
    /// f4
    pub f4: i32,
    /// f5
    pub f5: i32,
    /// f6
    pub f6: i32,
}

impl Rec {
    /// Rec(r): three nextDouble() then three nextInt().
    pub fn random(r: &mut JavaRandom) -> Rec {
        Rec {
            f1: r.next_double(),
            f2: r.next_double(),
            f3: r.next_double(),
            f4: r.next_int(),
            f5: r.next_int(),
            f6: r.next_int(),
        }
    }

    /// Reference encoding.
    pub fn put(&self, out: &mut Vec<u8>) {
        limit::put_double(out, self.f1);
        limit::put_double(out, self.f2);
        limit::put_double(out, self.f3);
        limit::put_int(out, self.f4);
        limit::put_int(out, self.f5);
        limit::put_int(out, self.f6);
    }

    /// Reference decoding, folded to one number.
    pub fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let d = dec.double().to_bits() ^ dec.double().to_bits() ^ dec.double().to_bits();
        d ^ (dec.int() ^ dec.int() ^ dec.int()) as u64
    }

    /// The apache-avro record value.
    pub fn value(&self) -> AValue {
        arecord([
            ("f1", AValue::Double(self.f1)),
            ("f2", AValue::Double(self.f2)),
            ("f3", AValue::Double(self.f3)),
            ("f4", AValue::Int(self.f4)),
            ("f5", AValue::Int(self.f5)),
            ("f6", AValue::Int(self.f6)),
        ])
    }
}

/// `count` x Rec(r) from a fresh generator.
pub fn rec_data(count: usize) -> Vec<Rec> {
    let mut r = JavaRandom::perf();
    (0..count).map(|_| Rec::random(&mut r)).collect()
}

/// The reference bytes of a Rec stream.
pub fn rec_bytes(data: &[Rec]) -> Vec<u8> {
    limit::encode(|out| data.iter().for_each(|r| r.put(out)))
}

/// avrokit's raw write of a Rec stream: three write_double, three write_int per record.
fn avrokit_raw(data: Rc<Vec<Rec>>) -> Impl {
    let n = data.len();
    Impl::new(Library::Avrokit, "Encoder")
        .write(writer(move |out| {
            let mut enc = Encoder::new(out);
            for r in data.iter() {
                enc.write_double(r.f1)?;
                enc.write_double(r.f2)?;
                enc.write_double(r.f3)?;
                enc.write_int(r.f4)?;
                enc.write_int(r.f5)?;
                enc.write_int(r.f6)?;
            }
            enc.flush()?;
            Ok(())
        }))
        .read(reader(move |input| {
            let mut dec = Decoder::from_slice(input);
            for _ in 0..n {
                black_box(dec.read_double()?);
                black_box(dec.read_double()?);
                black_box(dec.read_double()?);
                black_box(dec.read_int()?);
                black_box(dec.read_int()?);
                black_box(dec.read_int()?);
            }
            check_consumed(dec.rest().len())
        }))
}

fn record_test(ctx: &Ctx) -> Test {
    let data = Rc::new(rec_data(ctx.count / 6));
    let n = data.len();
    let mut test = Test::new("Record", n, rec_bytes(&data)).with(avrokit_raw(data.clone()));
    let d = data.clone();
    test = limit::with_limit(
        test,
        move |out| d.iter().for_each(|r| r.put(out)),
        move |dec| (0..n).fold(0, |acc, _| acc ^ Rec::get(dec)),
    );
    if ctx.compare {
        test = test.with_all(peers::all_peers::<Rec, Rec>(
            RECORD_SCHEMA,
            data,
            Rec::value,
        ));
    }
    test
}

/// What a resolving read does at each reader field position.
#[derive(Debug, Clone, Copy)]
enum Field {
    Double,
    Int,
    Long,
    Str,
}

use Field::{Double as D, Int as I, Long as L, Str as S};

/// avrokit's Java-style `ResolvingDecoder` over a Rec stream, reading with `reader_schema`:
/// per record, the reader's field order, then one typed read per field (`kinds` by reader
/// position). The plan is compiled once; the decoder is built per cycle, as Java's is.
///
/// Java asks for the field order once per cycle and reuses it; avrokit's `read_field_order`
/// also starts the record, so it is called per record (it returns the plan's slice, no work).
fn avrokit_resolving(reader_schema: &str, kinds: &'static [Field], n: usize) -> Side<ReadFn> {
    let plan = match generic::plan(RECORD_SCHEMA, reader_schema) {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut dec = ResolvingDecoder::new(&plan, Decoder::from_slice(input))?;
        for _ in 0..n {
            for &pos in dec.read_field_order()? {
                match kinds[pos] {
                    Field::Double => {
                        black_box(dec.read_double()?);
                    }
                    Field::Int => {
                        black_box(dec.read_int()?);
                    }
                    Field::Long => {
                        black_box(dec.read_long()?);
                    }
                    Field::Str => {
                        black_box(dec.read_str()?);
                    }
                }
            }
        }
        dec.finish()?;
        check_consumed(dec.into_inner().rest().len())
    })
}

const REC_FIELDS: &[Field] = &[D, D, D, I, I, I];

fn validating_record_test(ctx: &Ctx) -> Test {
    let data = Rc::new(rec_data(ctx.count / 6));
    let n = data.len();
    // Writes go through avrokit's ValidatingEncoder (every call checked against the schema, as
    // Java's ValidatingEncoder does); reads through its ResolvingDecoder over an identity plan,
    // which checks every typed read against the schema like Java's ValidatingDecoder.
    let schema = Schema::parse_str(RECORD_SCHEMA).expect("RECORD_SCHEMA parses");
    let wdata = data.clone();
    let avrokit = Impl::new(Library::Avrokit, "ResolvingDecoder (checked)")
        .write_api("ValidatingEncoder")
        .write(writer(move |out| {
            let mut enc = ValidatingEncoder::new(out, &schema);
            for r in wdata.iter() {
                enc.write_double(r.f1)?;
                enc.write_double(r.f2)?;
                enc.write_double(r.f3)?;
                enc.write_int(r.f4)?;
                enc.write_int(r.f5)?;
                enc.write_int(r.f6)?;
            }
            enc.flush()?;
            Ok(())
        }))
        .read(avrokit_resolving(RECORD_SCHEMA, REC_FIELDS, n));
    let mut test = Test::new("ValidatingRecord", n, rec_bytes(&data)).with(avrokit);
    if ctx.compare {
        // The peers' schema-driven paths check every value against the schema already.
        test = test.with_all(peers::all_peers::<Rec, Rec>(
            RECORD_SCHEMA,
            data,
            Rec::value,
        ));
    }
    test
}

/// A read-only resolution test over the Rec stream; the peers read into `R`.
fn resolving<R: serde::de::DeserializeOwned + 'static>(
    ctx: &Ctx,
    name: &'static str,
    reader_schema: &str,
    kinds: &'static [Field],
) -> Test {
    let data = rec_data(ctx.count / 6);
    let n = data.len();
    let avrokit = Impl::new(Library::Avrokit, "ResolvingDecoder").read(avrokit_resolving(
        reader_schema,
        kinds,
        n,
    ));
    let mut test = Test::new(name, n, rec_bytes(&data)).with(avrokit);
    if ctx.compare {
        let mut peers = peers::read_peers::<R>(RECORD_SCHEMA, reader_schema, n);
        if reader_schema == RECORD_SCHEMA_WITH_PROMOTION {
            peers = peers::without_apache_serde(peers, peers::NO_SERDE_PROMOTION);
        }
        test = test.with_all(peers);
    }
    test
}

fn resolving_record_test(ctx: &Ctx) -> Test {
    resolving::<Rec>(ctx, "ResolvingRecord", RECORD_SCHEMA, REC_FIELDS)
}

/// RecordWithDefault's reader shape: f7 and f8 take their default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "R")]
pub struct RecWithDefault {
    /// f1
    pub f1: f64,
    /// f2
    pub f2: f64,
    /// f3
    pub f3: f64,
    /// f4
    pub f4: i32,
    /// f5
    pub f5: i32,
    /// f6
    pub f6: i32,
    /// f7, default "undefined"
    #[serde(default = "undefined")]
    pub f7: String,
    /// f8, default "undefined"
    #[serde(default = "undefined")]
    pub f8: String,
}

fn undefined() -> String {
    "undefined".to_owned()
}

fn record_with_default_test(ctx: &Ctx) -> Test {
    resolving::<RecWithDefault>(
        ctx,
        "RecordWithDefault",
        RECORD_SCHEMA_WITH_DEFAULT,
        &[D, D, D, I, I, I, S, S],
    )
}

/// RecordWithOutOfOrder's reader shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "R")]
pub struct RecOutOfOrder {
    /// f1
    pub f1: f64,
    /// f3
    pub f3: f64,
    /// f5
    pub f5: i32,
    /// f2
    pub f2: f64,
    /// f4
    pub f4: i32,
    /// f6
    pub f6: i32,
}

fn record_with_out_of_order_test(ctx: &Ctx) -> Test {
    resolving::<RecOutOfOrder>(
        ctx,
        "RecordWithOutOfOrder",
        RECORD_SCHEMA_WITH_OUT_OF_ORDER,
        &[D, D, I, D, I, I],
    )
}

/// RecordWithPromotion's reader shape: the ints become longs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "R")]
pub struct RecPromoted {
    /// f1
    pub f1: f64,
    /// f2
    pub f2: f64,
    /// f3
    pub f3: f64,
    /// f4
    pub f4: i64,
    /// f5
    pub f5: i64,
    /// f6
    pub f6: i64,
}

fn record_with_promotion_test(ctx: &Ctx) -> Test {
    resolving::<RecPromoted>(
        ctx,
        "RecordWithPromotion",
        RECORD_SCHEMA_WITH_PROMOTION,
        &[D, D, D, L, L, L],
    )
}
