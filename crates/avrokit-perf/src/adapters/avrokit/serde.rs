//! avrokit's serde front end (`avrokit::serde`) as rows of the typed tests: derived structs and
//! `Vec`s written and read one datum at a time, as Java's specific and reflect datum writers and
//! readers do. The plans are compiled once per test (at init, outside the timed region), as
//! Java builds its datum writer and reader with the test object.

use std::hint::black_box;
use std::rc::Rc;

use avrokit::io::{BlockingSink, Sink};
use avrokit::serde::{DePlan, Deserializer, SerPlan, Serializer};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::schema::parse;
use crate::adapters::workload::ReaderLife;
use crate::harness::{check_consumed, reader, writer, Impl, Library, ReadFn, Side, WriteFn};

fn plans(schema: &str) -> Result<(SerPlan, DePlan), String> {
    let schema = parse(schema)?;
    let ser = SerPlan::compile(&schema).map_err(|e| format!("avrokit serde plan: {e}"))?;
    let de = DePlan::compile(&schema).map_err(|e| format!("avrokit serde plan: {e}"))?;
    Ok((ser, de))
}

/// Writes every item through a `Serializer` over the cycle's buffer; with `java_blocks`, over
/// a [`BlockingSink::java_compatible`] of that buffer size.
fn serde_write<T: Serialize + 'static>(
    plan: SerPlan,
    items: Rc<Vec<T>>,
    java_blocks: Option<usize>,
) -> Side<WriteFn> {
    fn run<T: Serialize, S: Sink>(sink: S, plan: &SerPlan, items: &[T]) -> avrokit::Result<()> {
        // A Serializer holds the plan (shared) and empty pools: building one costs no
        // allocation, so one per cycle over the harness's buffer is free.
        let mut ser = Serializer::new(sink, plan);
        for item in items {
            ser.serialize(item)?;
        }
        ser.flush()
    }
    writer(move |out| {
        match java_blocks {
            None => run(out, &plan, &items)?,
            Some(size) => run(BlockingSink::java_compatible(out, size), &plan, &items)?,
        }
        Ok(())
    })
}

/// Reads `n` datums, each a new `R`, and checks the input is consumed exactly.
fn serde_read<R: DeserializeOwned + 'static>(plan: DePlan, n: usize) -> Side<ReadFn> {
    reader(move |input| {
        let mut de = Deserializer::from_slice(input, &plan);
        for _ in 0..n {
            let r: R = de.deserialize()?;
            black_box(r);
        }
        check_consumed(de.decoder_mut().rest().len())
    })
}

/// A read-only `serde` row of a one-time test: the plan compiled once (as the peers parse their
/// schema once), a `Deserializer` per cycle or, over the rest of the input, per datum.
pub fn onetime_row<R: DeserializeOwned + 'static>(
    schema: &str,
    n: usize,
    life: ReaderLife,
) -> Impl {
    let imp = Impl::new(Library::Avrokit, "serde");
    let (_, plan) = match plans(schema) {
        Ok(p) => p,
        Err(e) => return imp.not_applicable(e),
    };
    if life == ReaderLife::PerCycle {
        return imp.read(serde_read::<R>(plan, n));
    }
    imp.read(reader(move |input| {
        let mut rest = input;
        for _ in 0..n {
            let mut de = Deserializer::from_slice(rest, &plan);
            let r: R = de.deserialize()?;
            black_box(r);
            rest = de.decoder_mut().rest();
        }
        check_consumed(rest.len())
    }))
}

/// avrokit's `serde` row: writes `items` as `T` (if given), reads `n` datums as `R`.
pub fn row<T, R>(schema: &str, items: Option<Rc<Vec<T>>>, n: usize) -> Impl
where
    T: Serialize + 'static,
    R: DeserializeOwned + 'static,
{
    let imp = Impl::new(Library::Avrokit, "serde");
    let (ser, de) = match plans(schema) {
        Ok(p) => p,
        Err(e) => return imp.not_applicable(e),
    };
    let imp = imp.read(serde_read::<R>(de, n));
    match items {
        Some(items) => imp.write(serde_write(ser, items, None)),
        None => imp,
    }
}

/// As [`row`], writing through [`BlockingSink::java_compatible`] with Java's
/// `buffer_size`: the blocks Java's BlockingBinaryEncoder writes.
pub fn blocked_row<T, R>(schema: &str, items: Rc<Vec<T>>, n: usize, buffer_size: usize) -> Impl
where
    T: Serialize + 'static,
    R: DeserializeOwned + 'static,
{
    let imp = Impl::new(Library::Avrokit, "serde (Java blocks)");
    let (ser, de) = match plans(schema) {
        Ok(p) => p,
        Err(e) => return imp.not_applicable(e),
    };
    imp.read(serde_read::<R>(de, n))
        .write(serde_write(ser, items, Some(buffer_size)))
}
