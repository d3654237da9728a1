//! The other Rust Avro libraries (`--compare`), each through its best public API for the job.
//!
//! - `apache-avro` 0.22: its generic [`Value`](apache_avro::types::Value) path
//!   (`GenericDatumWriter::write_value_ref` / `GenericDatumReader::read_value`, which resolves
//!   when given a reader schema) and its schema-aware serde path (`write_ser` / `read_deser`,
//!   which cannot resolve, so it reads with the writer schema).
//! - `serde_avro_fast` 2.1: serde only (`SerializerState` / `DeserializerState` over a slice); it
//!   has no schema resolution, so it reads writer-schema data into the reader-shaped type and
//!   lets serde do what resolution would (fields by name, `#[serde(default)]`, int into `i64`).
//!
//! A test's data is a stream of datums (WORKLOADS.md section 1: "datum stream"), so every routine
//! here writes or reads `n` datums back to back, and a read checks the input was consumed exactly.

use std::hint::black_box;
use std::io::BufRead;
use std::rc::Rc;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::harness::{reader, writer, Impl, Library, ReadFn, Side, WriteFn};
use crate::limit::check_consumed;

/// An `apache-avro` generic value.
pub type AValue = apache_avro::types::Value;

/// Builds an `apache-avro` record value from `(field, value)` pairs.
pub fn arecord(fields: impl IntoIterator<Item = (&'static str, AValue)>) -> AValue {
    AValue::Record(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn apache_schema(json: &str) -> Result<apache_avro::Schema, String> {
    apache_avro::Schema::parse_str(json).map_err(|e| format!("apache-avro rejects the schema: {e}"))
}

fn saf_schema(json: &str) -> Result<serde_avro_fast::Schema, String> {
    json.parse()
        .map_err(|e| format!("serde_avro_fast rejects the schema: {e}"))
}

/// `apache-avro` Value writes. Like Java's generic tests, the datum writer is created inside the
/// timed cycle; `validate` chooses whether it checks each value against the schema first.
pub fn apache_value_write(schema: &str, values: Vec<AValue>, validate: bool) -> Side<WriteFn> {
    let schema = match apache_schema(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    writer(move |out| {
        let w = GenericDatumWriter::builder(&schema)
            .validate(validate)
            .build()?;
        for v in &values {
            w.write_value_ref(out, v)?;
        }
        Ok(())
    })
}

/// How often a read routine builds its reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderLife {
    /// One reader per cycle.
    PerCycle,
    /// A new reader for every datum (GenericOneTime{Reader,}Use_).
    PerDatum,
}

/// `apache-avro` Value reads of `n` datums, resolving to `reader_schema` when given.
pub fn apache_value_read(
    schema: &str,
    reader_schema: Option<&str>,
    n: usize,
    life: ReaderLife,
) -> Side<ReadFn> {
    let (writer_schema, reader_schema) = match (
        apache_schema(schema),
        reader_schema.map(apache_schema).transpose(),
    ) {
        (Ok(w), Ok(r)) => (w, r),
        (Err(e), _) | (_, Err(e)) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut rest = input;
        let build = || {
            GenericDatumReader::builder(&writer_schema)
                .maybe_reader_schema(reader_schema.as_ref())
                .build()
        };
        let mut r = build()?;
        for _ in 0..n {
            if life == ReaderLife::PerDatum {
                r = build()?;
            }
            black_box(r.read_value(&mut rest)?);
        }
        check_consumed(rest.len())
    })
}

/// The `apache-avro` Value implementation of a test: writes `values` (if the test writes; the
/// writer validates each value, its default) and reads `n` datums.
pub fn apache_value(
    schema: &str,
    reader_schema: Option<&str>,
    values: Option<Vec<AValue>>,
    n: usize,
) -> Impl {
    let imp = Impl::new(Library::ApacheAvro, "Value").read(apache_value_read(
        schema,
        reader_schema,
        n,
        ReaderLife::PerCycle,
    ));
    match values {
        Some(values) => imp.write(apache_value_write(schema, values, true)),
        None => imp,
    }
}

/// `apache-avro` serde writes (schema-aware serializer, `human_readable` off as the crate
/// recommends). `block_size` sets its array/map block target (None: single blocks, as Java).
pub fn apache_serde_write<T: Serialize + 'static>(
    schema: &str,
    items: Rc<Vec<T>>,
    block_size: Option<usize>,
) -> Side<WriteFn> {
    let schema = match apache_schema(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    writer(move |out| {
        let w = GenericDatumWriter::builder(&schema)
            .maybe_target_block_size(block_size)
            .human_readable(false)
            .build()?;
        for item in items.iter() {
            w.write_ser(out, item)?;
        }
        Ok(())
    })
}

/// `apache-avro` serde reads of `n` datums as `R`, with the writer schema.
pub fn apache_serde_read<R: DeserializeOwned + 'static>(
    schema: &str,
    n: usize,
    life: ReaderLife,
) -> Side<ReadFn> {
    let schema = match apache_schema(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut rest = input;
        let build = || {
            GenericDatumReader::builder(&schema)
                .human_readable(false)
                .build()
        };
        let mut r = build()?;
        for _ in 0..n {
            if life == ReaderLife::PerDatum {
                r = build()?;
            }
            black_box(r.read_deser::<R>(&mut rest)?);
        }
        check_consumed(rest.len())
    })
}

/// `serde_avro_fast` writes. The serializer config (its reusable buffers) lives for one cycle.
pub fn saf_write<T: Serialize + 'static>(schema: &str, items: Rc<Vec<T>>) -> Side<WriteFn> {
    let schema = match saf_schema(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    writer(move |out| {
        let mut config = serde_avro_fast::ser::SerializerConfig::new(&schema);
        let mut state = serde_avro_fast::ser::SerializerState::from_writer(out, &mut config);
        for item in items.iter() {
            item.serialize(state.serializer())?;
        }
        Ok(())
    })
}

/// `serde_avro_fast` reads of `n` datums as `R` from one slice deserializer state.
pub fn saf_read<R: DeserializeOwned + 'static>(schema: &str, n: usize) -> Side<ReadFn> {
    saf_read_with::<R>(schema, n, ReaderLife::PerCycle)
}

/// As [`saf_read`]; with [`ReaderLife::PerDatum`] a new deserializer state (its "reader") is
/// built for every datum, over the rest of the input.
pub fn saf_read_with<R: DeserializeOwned + 'static>(
    schema: &str,
    n: usize,
    life: ReaderLife,
) -> Side<ReadFn> {
    let schema = match saf_schema(schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut state = serde_avro_fast::de::DeserializerState::from_slice(input, &schema);
        for _ in 0..n {
            if life == ReaderLife::PerDatum {
                let consumed = input.len() - state.fill_buf()?.len();
                state =
                    serde_avro_fast::de::DeserializerState::from_slice(&input[consumed..], &schema);
            }
            black_box(R::deserialize(state.deserializer())?);
        }
        check_consumed(state.fill_buf()?.len())
    })
}

/// The two serde implementations (`apache-avro`, `serde_avro_fast`) of a test: write `items` as
/// `T` (if given), read `n` datums as `R`.
pub fn serde_pair<T, R>(schema: &str, items: Option<Rc<Vec<T>>>, n: usize) -> Vec<Impl>
where
    T: Serialize + 'static,
    R: DeserializeOwned + 'static,
{
    let mut apache = Impl::new(Library::ApacheAvro, "serde").read(apache_serde_read::<R>(
        schema,
        n,
        ReaderLife::PerCycle,
    ));
    let mut saf = Impl::new(Library::SerdeAvroFast, "serde").read(saf_read::<R>(schema, n));
    if let Some(items) = items {
        apache = apache.write(apache_serde_write(schema, items.clone(), None));
        saf = saf.write(saf_write(schema, items));
    }
    vec![apache, saf]
}

/// Every peer of a typical test: `apache-avro` Value, `apache-avro` serde, `serde_avro_fast`;
/// each writes `items` (as `T`, or converted by `to_value`) and reads them back as `R`.
pub fn all_peers<T, R>(
    schema: &str,
    items: Rc<Vec<T>>,
    to_value: impl Fn(&T) -> AValue,
) -> Vec<Impl>
where
    T: Serialize + 'static,
    R: DeserializeOwned + 'static,
{
    let n = items.len();
    let values = items.iter().map(to_value).collect();
    let mut peers = vec![apache_value(schema, None, Some(values), n)];
    peers.extend(serde_pair::<T, R>(schema, Some(items), n));
    peers
}

/// Every peer of a read-only test of `n` datums written with `schema`: `apache-avro` Value
/// resolving to `reader_schema`, and both serde paths reading into the reader-shaped `R`.
pub fn read_peers<R: DeserializeOwned + 'static>(
    schema: &str,
    reader_schema: &str,
    n: usize,
) -> Vec<Impl> {
    let mut peers = vec![apache_value(schema, Some(reader_schema), None, n)];
    peers.extend(serde_pair::<(), R>(schema, None, n));
    peers
}

/// Marks the apache-avro serde implementation among `peers` as not applicable.
pub fn without_apache_serde(peers: Vec<Impl>, reason: &str) -> Vec<Impl> {
    peers
        .into_iter()
        .map(|p| {
            if p.library == Library::ApacheAvro && p.api == "serde" {
                Impl::new(p.library, p.api).not_applicable(reason)
            } else {
                p
            }
        })
        .collect()
}

/// Why apache-avro's serde path cannot run the promotion tests.
pub const NO_SERDE_PROMOTION: &str =
    "its serde deserializer cannot resolve, and does not widen an Avro int into i64";
