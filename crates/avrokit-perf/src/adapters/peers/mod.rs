//! The other Rust Avro libraries (`--compare`), each through its best public API for the job:
//! [`apache`] (`apache-avro` 0.22, Value and serde) and [`saf`] (`serde_avro_fast` 2.1, serde).
//! [`values`] turns the data sets into apache-avro values. [`arrow_avro`] (`arrow-avro` 59.3,
//! RecordBatches) is the peer of the `-arrow` batch.
//!
//! The functions here are the sets of peer rows a test adds, one per kind of workload; a test's
//! data is a stream of datums (WORKLOADS.md section 1: "datum stream") or a container file, so
//! every routine writes or reads `n` datums back to back, and a read checks the input was
//! consumed exactly.

pub mod apache;
pub mod arrow_avro;
pub mod saf;
pub mod values;

use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::adapters::workload::{ContainerFile, ReaderLife};
use crate::data::record::RECORD_SCHEMA_WITH_PROMOTION;
use crate::harness::{Impl, Library};
use values::{to_apache_values, ToApache};

/// The two serde implementations (`apache-avro`, `serde_avro_fast`) of a test: write `items` as
/// `T` (if given), read `n` datums as `R`.
pub fn serde_pair<T, R>(schema: &str, items: Option<Rc<Vec<T>>>, n: usize) -> Vec<Impl>
where
    T: Serialize + 'static,
    R: DeserializeOwned + 'static,
{
    let mut apache = Impl::new(Library::ApacheAvro, "serde").read(apache::serde_read::<R>(
        schema,
        n,
        ReaderLife::PerCycle,
    ));
    let mut saf = Impl::new(Library::SerdeAvroFast, "serde").read(saf::read::<R>(schema, n));
    if let Some(items) = items {
        apache = apache.write(apache::serde_write(schema, items.clone(), None));
        saf = saf.write(saf::write(schema, items));
    }
    vec![apache, saf]
}

/// Every peer of a typical test: `apache-avro` Value, `apache-avro` serde, `serde_avro_fast`;
/// each writes `items` (as `T`, or as apache-avro values of them) and reads them back as `R`.
pub fn all_peers<T, R>(schema: &str, items: Rc<Vec<T>>) -> Vec<Impl>
where
    T: Serialize + ToApache + 'static,
    R: DeserializeOwned + 'static,
{
    let n = items.len();
    let values = to_apache_values(&items);
    let mut peers = vec![apache::value_row(schema, None, Some(values), n)];
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
    let mut peers = vec![apache::value_row(schema, Some(reader_schema), None, n)];
    peers.extend(serde_pair::<(), R>(schema, None, n));
    peers
}

/// [`read_peers`] of the record and generic resolution tests (Rec data written with
/// RECORD_SCHEMA): apache-avro's serde path cannot read the promotion.
pub fn resolution_peers<R: DeserializeOwned + 'static>(
    schema: &str,
    reader_schema: &str,
    n: usize,
) -> Vec<Impl> {
    let peers = read_peers::<R>(schema, reader_schema, n);
    if reader_schema == RECORD_SCHEMA_WITH_PROMOTION {
        without_apache_serde(peers, NO_SERDE_PROMOTION)
    } else {
        peers
    }
}

/// Marks the apache-avro serde implementation among `peers` as not applicable.
fn without_apache_serde(peers: Vec<Impl>, reason: &str) -> Vec<Impl> {
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
const NO_SERDE_PROMOTION: &str =
    "its serde deserializer cannot resolve, and does not widen an Avro int into i64";

/// Every peer of the GenericOneTime tests: each reads `n` datums with a reader built as often
/// as `life` says.
pub fn onetime_peers<R: DeserializeOwned + 'static>(
    schema: &str,
    n: usize,
    life: ReaderLife,
) -> Vec<Impl> {
    vec![
        Impl::new(Library::ApacheAvro, "Value").read(apache::value_read(schema, None, n, life)),
        Impl::new(Library::ApacheAvro, "serde").read(apache::serde_read::<R>(schema, n, life)),
        Impl::new(Library::SerdeAvroFast, "serde").read(saf::read_with::<R>(schema, n, life)),
    ]
}

/// Every peer of a container test: each writes its own container `file` of `items` and reads
/// its own file back.
pub fn container_peers<T>(file: &ContainerFile, items: Rc<Vec<T>>) -> Vec<Impl>
where
    T: Serialize + DeserializeOwned + ToApache + 'static,
{
    let count = items.len();
    let values = Rc::new(to_apache_values(&items));
    vec![
        apache::container_value_row(file, values, count),
        apache::container_serde_row(file, items.clone(), count),
        saf::container_row(file, items, count),
    ]
}
