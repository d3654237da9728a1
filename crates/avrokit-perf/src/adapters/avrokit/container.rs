//! avrokit's object container files (`avrokit::container`), for the AVRO-3451 and the container
//! tests: one write cycle appends every record to a new writer over an empty buffer and finishes
//! the file; one read cycle opens a reader over the file avrokit wrote and reads every record.
//!
//! Two ways to prepare a file ([`Prep`]): `container` builds a `WriterBuilder` (which renders
//! the schema into the header) and a `Reader` (which parses it back) for every file;
//! `template, cache` prepares the header once (`WriterBuilder::template`, outside the timing,
//! as the peers parse their schema outside it) and reads through a `SchemaCache` seeded with the
//! schema, so that a file's header schema is recognised by its bytes instead of being parsed, as
//! many files of one schema allow.

use std::hint::black_box;
use std::rc::Rc;

use avrokit::container::{Codec, Reader, ReaderBuilder, SchemaCache, WriterBuilder};
use avrokit::serde::{DePlan, SerPlan};
use avrokit::{Schema, Value};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::schema::parse;
use crate::adapters::workload::{CodecName, ContainerFile};
use crate::harness::{check_count, reader, writer, Impl, Library, ReadFn, Side, WriteFn};

/// How a row prepares its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prep {
    /// A writer builder and a header parse for every file (`container`).
    PerFile,
    /// A header template rendered once, and a seeded schema cache (`template, cache`).
    Prepared,
}

impl Prep {
    /// The label in the row's name.
    pub fn label(self) -> &'static str {
        match self {
            Prep::PerFile => "container",
            Prep::Prepared => "template, cache",
        }
    }
}

/// The `Value (...)` row: `values` appended as generic Values, read back into new Values.
pub fn value_row(file: &ContainerFile, values: Rc<Vec<Value>>, count: usize, prep: Prep) -> Impl {
    let imp = Impl::new(Library::Avrokit, format!("Value ({})", prep.label()));
    match prep {
        Prep::PerFile => imp.own_input(write_values(file, values), read_values(count)),
        Prep::Prepared => imp.own_input(
            write_values_template(file, values),
            read_values_cached(file.schema, count),
        ),
    }
}

/// The `serde (...)` row: `items` appended through a serde plan compiled once, read back as
/// `T` through a plan compiled once.
pub fn serde_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize, prep: Prep) -> Impl
where
    T: Serialize + DeserializeOwned + 'static,
{
    let imp = Impl::new(Library::Avrokit, format!("serde ({})", prep.label()));
    match prep {
        Prep::PerFile => imp.own_input(
            write_serde(file, items),
            read_serde::<T>(file.schema, count),
        ),
        Prep::Prepared => imp.own_input(
            write_serde_template(file, items),
            read_serde_cached::<T>(file.schema, count),
        ),
    }
}

pub(super) fn codec(name: CodecName) -> Codec {
    match name {
        CodecName::Null => Codec::Null,
        CodecName::Deflate => Codec::Deflate { level: 6 },
        CodecName::Snappy => Codec::Snappy,
        CodecName::Zstandard => Codec::Zstandard { level: 3 },
        CodecName::Bzip2 => Codec::Bzip2 { level: 9 },
        CodecName::Xz => Codec::Xz { level: 6 },
    }
}

/// The builder of one file: the codec and the fixed sync marker.
pub(super) fn builder(schema: &Schema, codec: Codec, marker: [u8; 16]) -> WriterBuilder {
    WriterBuilder::new(schema)
        .with_codec(codec)
        .with_sync_marker(marker)
}

/// A builder per file (default 64 KiB blocks) appending every value.
fn write_values(file: &ContainerFile, values: Rc<Vec<Value>>) -> Side<WriteFn> {
    let schema = match parse(file.schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    let (codec, marker) = (codec(file.codec), file.marker);
    writer(move |out| {
        let mut w = builder(&schema, codec, marker).build(out)?;
        for v in values.iter() {
            w.append(v)?;
        }
        w.into_inner()?;
        Ok(())
    })
}

/// As [`write_values`], through a header prepared once (outside the timing).
fn write_values_template(file: &ContainerFile, values: Rc<Vec<Value>>) -> Side<WriteFn> {
    let template = match parse(file.schema).and_then(|s| {
        builder(&s, codec(file.codec), file.marker)
            .template()
            .map_err(|e| e.to_string())
    }) {
        Ok(t) => t,
        Err(e) => return Side::NotApplicable(e),
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

/// A builder per file appending every item through a serde plan compiled once.
fn write_serde<T: Serialize + 'static>(file: &ContainerFile, items: Rc<Vec<T>>) -> Side<WriteFn> {
    let prepared = parse(file.schema).and_then(|s| {
        let plan = SerPlan::compile(&s).map_err(|e| e.to_string())?;
        Ok((s, plan))
    });
    let (schema, plan) = match prepared {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e),
    };
    let (codec, marker) = (codec(file.codec), file.marker);
    writer(move |out| {
        let mut w = builder(&schema, codec, marker).build(out)?;
        for r in items.iter() {
            w.append_serde(r, &plan)?;
        }
        w.into_inner()?;
        Ok(())
    })
}

/// As [`write_serde`], over a header prepared once.
fn write_serde_template<T: Serialize + 'static>(
    file: &ContainerFile,
    items: Rc<Vec<T>>,
) -> Side<WriteFn> {
    let prepared = parse(file.schema).and_then(|s| {
        let plan = SerPlan::compile(&s).map_err(|e| e.to_string())?;
        let template = builder(&s, codec(file.codec), file.marker)
            .template()
            .map_err(|e| e.to_string())?;
        Ok((plan, template))
    });
    let (plan, template) = match prepared {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e),
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

/// A reader over the slice, every record into a new Value. The file's schema is the reader's,
/// so no resolution is set up (as apache-avro skips it for equal schemas).
fn read_values(count: usize) -> Side<ReadFn> {
    reader(move |input| {
        let mut n = 0;
        for v in Reader::from_slice(input)? {
            black_box(v?);
            n += 1;
        }
        check_count(n, count)
    })
}

/// A schema cache seeded with the schema (parsed outside the timing), so that the header's
/// schema text is matched by its bytes instead of being parsed for every file.
pub(super) fn seeded_cache(schema: &str) -> Result<(Schema, SchemaCache), String> {
    let schema = parse(schema)?;
    let cache = SchemaCache::new();
    cache.insert(&schema);
    Ok((schema, cache))
}

/// As [`read_values`], through a [`seeded_cache`].
fn read_values_cached(schema: &str, count: usize) -> Side<ReadFn> {
    let cache = match seeded_cache(schema) {
        Ok((_, c)) => c,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let r = ReaderBuilder::new()
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

/// Every record as a `T`, through a plan compiled once, outside the timing, from the schema
/// avrokit writes.
fn read_serde<T: DeserializeOwned + 'static>(schema: &str, count: usize) -> Side<ReadFn> {
    let plan = match parse(schema).and_then(|s| DePlan::compile(&s).map_err(|e| e.to_string())) {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut r = Reader::from_slice(input)?;
        let mut n = 0;
        for v in r.serde_iter::<T>(&plan) {
            black_box(v?);
            n += 1;
        }
        check_count(n, count)
    })
}

/// As [`read_serde`], with the plan compiled from the schema a [`seeded_cache`] gives the
/// reader, so that the plan is the file's (a pointer comparison).
fn read_serde_cached<T: DeserializeOwned + 'static>(schema: &str, count: usize) -> Side<ReadFn> {
    let prepared = seeded_cache(schema).and_then(|(s, cache)| {
        let plan = DePlan::compile(&s).map_err(|e| e.to_string())?;
        Ok((plan, cache))
    });
    let (plan, cache) = match prepared {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut r = ReaderBuilder::new()
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
