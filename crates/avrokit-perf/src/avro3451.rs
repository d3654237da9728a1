//! The `apache-avro` crate's container-file benchmark (`examples/benchmark.rs`, used in the
//! AVRO-3451 discussion; WORKLOADS.md section 12), batch `-avro3451`.
//!
//! One cycle is one of the benchmark's "runs": create an object-container-file writer over an
//! empty in-memory buffer, append `count` copies of one record, flush (write rows); or open a
//! reader over the bytes one write produced and read all `count` records back (read rows). The
//! benchmark sums `runs` such cycles; we report the median cycle, and the `time` column is the
//! median times `runs`. Rows are named `Avro3451<Small|Big><count>x<runs>_Read/Write`.
//!
//! Each library writes its own container (the header holds its rendering of the schema) and
//! reads its own file back. Sync markers are fixed (not random) so that write digests repeat from
//! run to run; the marker's cost is not what the benchmark measures.
//!
//! avrokit has three rows: `Value (container)` builds a `WriterBuilder` (which renders the
//! schema into the header) and a `Reader` (which parses it back) for every file; the
//! `(template, cache)` rows prepare the header once (`WriterBuilder::template`, outside the
//! timing, as the peers parse their schema outside it) and read through a `SchemaCache` seeded
//! with the schema, so that a file's header schema is recognised by its bytes instead of being
//! parsed, as the benchmark's many files of one schema allow. `serde (template, cache)` writes
//! and reads the benchmark's structs through plans compiled once, as serde_avro_fast does.

use std::hint::black_box;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::harness::{reader, writer, Ctx, Impl, Library, ReadFn, Side, Spec, Test, WriteFn};
use avrokit::Value;

use crate::limit;
use crate::peers::{arecord, AValue};

const MARKER: [u8; 16] = *b"avrokit-perf-syn";

const SMALL_SCHEMA: &str = r#"{"namespace":"test","type":"record","name":"Test",
  "fields":[{"type":{"type":"string"},"name":"field"}]}"#;

const BIG_SCHEMA: &str = r#"{"namespace":"my.example","type":"record","name":"userInfo","fields":[
  {"default":"NONE","type":"string","name":"username"},
  {"default":-1,"type":"int","name":"age"},
  {"default":"NONE","type":"string","name":"phone"},
  {"default":"NONE","type":"string","name":"housenum"},
  {"default":{},"type":{"fields":[
      {"default":"NONE","type":"string","name":"street"},
      {"default":"NONE","type":"string","name":"city"},
      {"default":"NONE","type":"string","name":"state_prov"},
      {"default":"NONE","type":"string","name":"country"},
      {"default":"NONE","type":"string","name":"zip"}],
   "type":"record","name":"mailing_address"},"name":"address"}]}"#;

/// (name, count, runs, big), in the benchmark's row order.
const ROWS: [(&str, usize, usize, bool); 8] = [
    ("Avro3451Small10000x1_", 10_000, 1, false),
    ("Avro3451Big10000x1_", 10_000, 1, true),
    ("Avro3451Small1x100000_", 1, 100_000, false),
    ("Avro3451Small100x1000_", 100, 1_000, false),
    ("Avro3451Small10000x10_", 10_000, 10, false),
    ("Avro3451Big1x100000_", 1, 100_000, true),
    ("Avro3451Big100x1000_", 100, 1_000, true),
    ("Avro3451Big10000x10_", 10_000, 10, true),
];

/// The AVRO-3451 rows.
pub fn specs() -> Vec<Spec> {
    fn spec<const I: usize>() -> Spec {
        Spec {
            flag: ["-A1", "-A2", "-A3", "-A4", "-A5", "-A6", "-A7", "-A8"][I],
            name: ROWS[I].0,
            batch: "-avro3451",
            has_write: true,
            build: build::<I>,
        }
    }
    vec![
        spec::<0>(),
        spec::<1>(),
        spec::<2>(),
        spec::<3>(),
        spec::<4>(),
        spec::<5>(),
        spec::<6>(),
        spec::<7>(),
    ]
}

/// The small record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Test")]
pub struct Small {
    /// field
    pub field: String,
}

/// The big record's address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "mailing_address")]
pub struct MailingAddress {
    /// street
    pub street: String,
    /// city
    pub city: String,
    /// state_prov
    pub state_prov: String,
    /// country
    pub country: String,
    /// zip
    pub zip: String,
}

/// The big record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "userInfo")]
pub struct UserInfo {
    /// username
    pub username: String,
    /// age
    pub age: i32,
    /// phone
    pub phone: String,
    /// housenum
    pub housenum: String,
    /// address
    pub address: MailingAddress,
}

/// The benchmark's small record: field = "foo".
pub fn small() -> Small {
    Small {
        field: "foo".into(),
    }
}

/// The benchmark's big record.
pub fn big() -> UserInfo {
    UserInfo {
        username: "username".into(),
        age: 10,
        phone: "000000000".into(),
        housenum: "0000".into(),
        address: MailingAddress {
            street: "street".into(),
            city: "city".into(),
            state_prov: "state_prov".into(),
            country: "country".into(),
            zip: "zip".into(),
        },
    }
}

fn small_ak(s: &Small) -> Value {
    Value::Record(vec![Value::String(s.field.clone())])
}

fn big_ak(u: &UserInfo) -> Value {
    let s = |v: &String| Value::String(v.clone());
    let a = &u.address;
    Value::Record(vec![
        s(&u.username),
        Value::Int(u.age),
        s(&u.phone),
        s(&u.housenum),
        Value::Record(vec![
            s(&a.street),
            s(&a.city),
            s(&a.state_prov),
            s(&a.country),
            s(&a.zip),
        ]),
    ])
}

fn small_value(s: &Small) -> AValue {
    arecord([("field", AValue::String(s.field.clone()))])
}

fn big_value(u: &UserInfo) -> AValue {
    let s = |v: &String| AValue::String(v.clone());
    let a = &u.address;
    arecord([
        ("username", s(&u.username)),
        ("age", AValue::Int(u.age)),
        ("phone", s(&u.phone)),
        ("housenum", s(&u.housenum)),
        (
            "address",
            arecord([
                ("street", s(&a.street)),
                ("city", s(&a.city)),
                ("state_prov", s(&a.state_prov)),
                ("country", s(&a.country)),
                ("zip", s(&a.zip)),
            ]),
        ),
    ])
}

/// The reference datum encoding of one record (the container's block payload per record).
pub fn put_small(s: &Small, out: &mut Vec<u8>) {
    limit::put_string(out, &s.field);
}

/// The reference datum encoding of the big record.
pub fn put_big(u: &UserInfo, out: &mut Vec<u8>) {
    limit::put_string(out, &u.username);
    limit::put_int(out, u.age);
    let a = &u.address;
    for s in [
        &u.phone,
        &u.housenum,
        &a.street,
        &a.city,
        &a.state_prov,
        &a.country,
        &a.zip,
    ] {
        limit::put_string(out, s);
    }
}

fn build<const I: usize>(ctx: &Ctx) -> Test {
    let (name, count, runs, is_big) = ROWS[I];
    if is_big {
        let codecs = Codecs {
            put: put_big,
            avrokit: big_ak,
            apache: big_value,
        };
        container_test(ctx, name, count, runs, BIG_SCHEMA, big(), codecs)
    } else {
        let codecs = Codecs {
            put: put_small,
            avrokit: small_ak,
            apache: small_value,
        };
        container_test(ctx, name, count, runs, SMALL_SCHEMA, small(), codecs)
    }
}

/// How one record type is encoded and converted for each library.
struct Codecs<T> {
    /// Reference datum encoding.
    put: fn(&T, &mut Vec<u8>),
    /// avrokit's generic value.
    avrokit: fn(&T) -> Value,
    /// apache-avro's generic value.
    apache: fn(&T) -> AValue,
}

/// One row: `count` clones of `record`. The test's reference bytes are the datum stream (what
/// the container blocks carry); every library reads the container its own writer produced.
fn container_test<T>(
    ctx: &Ctx,
    name: &'static str,
    count: usize,
    runs: usize,
    schema: &str,
    record: T,
    codecs: Codecs<T>,
) -> Test
where
    T: Clone + Serialize + DeserializeOwned + 'static,
{
    let items = Rc::new(vec![record; count]);
    let bytes = limit::encode(|out| items.iter().for_each(|r| (codecs.put)(r, out)));
    let ak_values: Rc<Vec<Value>> = Rc::new(items.iter().map(codecs.avrokit).collect());
    let mut test = Test::new(name, count, bytes)
        .with(with_own_input(
            Impl::new(Library::Avrokit, "Value (container)"),
            avrokit_write(schema, ak_values.clone()),
            avrokit_read(count),
        ))
        .with(with_own_input(
            Impl::new(Library::Avrokit, "Value (template, cache)"),
            avrokit_write_template(schema, ak_values),
            avrokit_read_cached(schema, count),
        ))
        .with(with_own_input(
            Impl::new(Library::Avrokit, "serde (template, cache)"),
            avrokit_write_serde(schema, items.clone()),
            avrokit_read_serde::<T>(schema, count),
        ));
    test.cycles = Some(runs);
    test.output_is_reference = false;
    if ctx.compare {
        let values: Rc<Vec<AValue>> = Rc::new(items.iter().map(codecs.apache).collect());
        test = test
            .with(with_own_input(
                Impl::new(Library::ApacheAvro, "Value (Writer)"),
                apache_write_values(schema, values),
                apache_read_values(schema, count),
            ))
            .with(with_own_input(
                Impl::new(Library::ApacheAvro, "serde (Writer)"),
                apache_write_serde(schema, items.clone()),
                apache_read_serde::<T>(count),
            ))
            .with(with_own_input(
                Impl::new(Library::SerdeAvroFast, "serde (container)"),
                saf_write_serde(schema, items),
                saf_read_serde::<T>(count),
            ));
    }
    test
}

/// Runs the write routine once to produce this library's own container file, which becomes the
/// input of its read rows.
fn with_own_input(imp: Impl, mut write: Side<WriteFn>, read: Side<ReadFn>) -> Impl {
    let Side::Run(w) = &mut write else {
        return imp.write(write).read(read);
    };
    let mut file = Vec::new();
    if let Err(e) = w(&mut file) {
        return imp.not_applicable(format!("writing the container failed: {e}"));
    }
    imp.input(file).write(write).read(read)
}

/// avrokit's container writer (null codec, default 64 KiB blocks) appending every record.
fn avrokit_write(schema: &str, values: Rc<Vec<Value>>) -> Side<WriteFn> {
    let schema = match avrokit::Schema::parse_str(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    writer(move |out| {
        let mut w = avrokit::container::WriterBuilder::new(&schema)
            .with_sync_marker(MARKER)
            .build(out)?;
        for v in values.iter() {
            w.append(v)?;
        }
        w.into_inner()?;
        Ok(())
    })
}

/// As [`avrokit_write`], through a header prepared once (outside the timing).
fn avrokit_write_template(schema: &str, values: Rc<Vec<Value>>) -> Side<WriteFn> {
    let template = match avrokit::Schema::parse_str(schema).and_then(|s| {
        avrokit::container::WriterBuilder::new(&s)
            .with_sync_marker(MARKER)
            .template()
    }) {
        Ok(t) => t,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    writer(move |out| {
        let mut w = template.build(out)?;
        for v in values.iter() {
            w.append(v)?;
        }
        w.into_inner()?;
        Ok(())
    })
}

/// The benchmark's structs through a serde plan compiled once, over a prepared header.
fn avrokit_write_serde<T: Serialize + 'static>(schema: &str, items: Rc<Vec<T>>) -> Side<WriteFn> {
    let prepared = avrokit::Schema::parse_str(schema).and_then(|s| {
        let plan = avrokit::serde::SerPlan::compile(&s)?;
        let template = avrokit::container::WriterBuilder::new(&s)
            .with_sync_marker(MARKER)
            .template()?;
        Ok((plan, template))
    });
    let (plan, template) = match prepared {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    writer(move |out| {
        let mut w = template.build(out)?;
        for r in items.iter() {
            w.append_serde(r, &plan)?;
        }
        w.into_inner()?;
        Ok(())
    })
}

/// A schema cache seeded with the schema (parsed outside the timing), so that the header's
/// schema text is matched by its bytes instead of being parsed for every file.
fn seeded_cache(
    schema: &str,
) -> avrokit::Result<(avrokit::Schema, avrokit::container::SchemaCache)> {
    let schema = avrokit::Schema::parse_str(schema)?;
    let cache = avrokit::container::SchemaCache::new();
    cache.insert(&schema);
    Ok((schema, cache))
}

/// As [`avrokit_read`], through a [`seeded_cache`].
fn avrokit_read_cached(schema: &str, count: usize) -> Side<ReadFn> {
    let cache = match seeded_cache(schema) {
        Ok((_, c)) => c,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    reader(move |input| {
        let r = avrokit::container::ReaderBuilder::new()
            .with_schema_cache(&cache)
            .build_slice(input)?;
        let mut n = 0;
        for v in r {
            black_box(v?);
            n += 1;
        }
        check_count(n, count)
    })
}

/// The benchmark's structs through a plan compiled once from the schema a [`seeded_cache`]
/// gives the reader, so that the plan is the file's (a pointer comparison).
fn avrokit_read_serde<T: DeserializeOwned + 'static>(schema: &str, count: usize) -> Side<ReadFn> {
    let prepared = seeded_cache(schema).and_then(|(s, cache)| {
        let plan = avrokit::serde::DePlan::compile(&s)?;
        Ok((plan, cache))
    });
    let (plan, cache) = match prepared {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    reader(move |input| {
        let mut r = avrokit::container::ReaderBuilder::new()
            .with_schema_cache(&cache)
            .build_slice(input)?;
        let mut n = 0;
        for v in r.serde_iter::<T>(&plan) {
            black_box(v?);
            n += 1;
        }
        check_count(n, count)
    })
}

/// avrokit's container reader over a slice, every record into a new Value. The file's schema
/// is the reader's, so no resolution is set up (as apache-avro skips it for equal schemas).
fn avrokit_read(count: usize) -> Side<ReadFn> {
    reader(move |input| {
        let mut n = 0;
        for v in avrokit::container::Reader::from_slice(input)? {
            black_box(v?);
            n += 1;
        }
        check_count(n, count)
    })
}

fn apache_write_values(schema: &str, values: Rc<Vec<AValue>>) -> Side<WriteFn> {
    let schema = match apache_avro::Schema::parse_str(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    writer(move |out| {
        let mut w = apache_avro::Writer::builder()
            .schema(&schema)
            .writer(out)
            .marker(MARKER)
            .build()?;
        w.extend_from_slice(&values)?;
        w.flush()?;
        Ok(())
    })
}

fn apache_write_serde<T: Serialize + 'static>(schema: &str, items: Rc<Vec<T>>) -> Side<WriteFn> {
    let schema = match apache_avro::Schema::parse_str(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    writer(move |out| {
        let mut w = apache_avro::Writer::builder()
            .schema(&schema)
            .writer(out)
            .marker(MARKER)
            .human_readable(false)
            .build()?;
        w.extend_ser(items.iter())?;
        w.flush()?;
        Ok(())
    })
}

/// As the benchmark: the reader parses the header (and the writer schema in it) and is given
/// the same schema, parsed once outside the timing, as reader schema.
fn apache_read_values(schema: &str, count: usize) -> Side<ReadFn> {
    let schema = match apache_avro::Schema::parse_str(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    reader(move |input| {
        let reader = apache_avro::Reader::builder(input)
            .reader_schema(&schema)
            .build()?;
        let mut n = 0;
        for v in reader {
            black_box(v?);
            n += 1;
        }
        check_count(n, count)
    })
}

/// The serde reader cannot take a reader schema (it would panic if the schemas differed), so it
/// reads with the writer schema from the header.
fn apache_read_serde<T: DeserializeOwned + 'static>(count: usize) -> Side<ReadFn> {
    reader(move |input| {
        let reader = apache_avro::Reader::builder(input)
            .human_readable(false)
            .build()?;
        let mut n = 0;
        for v in reader.into_deser_iter::<T>() {
            black_box(v?);
            n += 1;
        }
        check_count(n, count)
    })
}

fn saf_write_serde<T: Serialize + 'static>(schema: &str, items: Rc<Vec<T>>) -> Side<WriteFn> {
    let schema: serde_avro_fast::Schema = match schema.parse() {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(format!("{e}")),
    };
    writer(move |out| {
        let mut config = serde_avro_fast::ser::SerializerConfig::new(&schema);
        let mut w =
            serde_avro_fast::object_container_file_encoding::WriterBuilder::new(&mut config)
                .sync_marker(MARKER)
                .build(out)?;
        w.serialize_all(items.iter())?;
        w.into_inner()?;
        Ok(())
    })
}

fn saf_read_serde<T: DeserializeOwned + 'static>(count: usize) -> Side<ReadFn> {
    reader(move |input| {
        let mut reader =
            serde_avro_fast::object_container_file_encoding::Reader::from_slice(input)?;
        let mut n = 0;
        for v in reader.deserialize::<T>() {
            black_box(v?);
            n += 1;
        }
        check_count(n, count)
    })
}

fn check_count(n: usize, count: usize) -> crate::harness::BenchResult {
    if n == count {
        Ok(())
    } else {
        Err(format!("read {n} records, expected {count}").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Ctx;

    /// Every avrokit row writes the same file (a template is the builder's header, byte for
    /// byte), and every row reads back `count` records from it.
    #[test]
    fn avrokit_rows_agree() {
        let ctx = Ctx {
            compare: true,
            ..Ctx::new(100)
        };
        for spec in specs() {
            let mut test = (spec.build)(&ctx);
            let files: Vec<Rc<Vec<u8>>> = test
                .impls
                .iter()
                .filter(|i| i.library == Library::Avrokit)
                .map(|i| i.input.clone().expect("an avrokit file"))
                .collect();
            assert_eq!(files.len(), 3, "{}", spec.name);
            assert!(files.iter().all(|f| *f == files[0]), "{}", spec.name);
            let back = avrokit::container::Reader::from_slice(&files[0])
                .and_then(|r| r.collect::<avrokit::Result<Vec<_>>>())
                .unwrap();
            assert_eq!(back.len(), test.count, "{}", spec.name);
            for imp in test.impls.iter_mut() {
                let what = format!("{} {} {}", spec.name, imp.library.name(), imp.api);
                let file = imp.input.clone().expect(&what);
                if let Side::Run(read) = &mut imp.read {
                    read(&file).unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                if let Side::Run(write) = &mut imp.write {
                    let mut out = Vec::new();
                    write(&mut out).unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert!(out == *file, "{what}: writes differ from run to run");
                }
            }
        }
    }
}
