//! `apache-avro` 0.22: its generic [`Value`](apache_avro::types::Value) path
//! (`GenericDatumWriter::write_value_ref` / `GenericDatumReader::read_value`, which resolves
//! when given a reader schema), its schema-aware serde path (`write_ser` / `read_deser`, which
//! cannot resolve, so it reads with the writer schema), and its container `Writer` / `Reader`.

use std::hint::black_box;
use std::rc::Rc;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use apache_avro::Codec;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::values::AValue;
use crate::adapters::workload::{CodecName, ContainerFile, ReaderLife};
use crate::harness::{
    check_consumed, check_count, reader, writer, Impl, Library, ReadFn, Side, WriteFn,
};

fn parse(json: &str) -> Result<apache_avro::Schema, String> {
    apache_avro::Schema::parse_str(json).map_err(|e| format!("apache-avro rejects the schema: {e}"))
}

/// `apache-avro` Value writes. Like Java's generic tests, the datum writer is created inside the
/// timed cycle; `validate` chooses whether it checks each value against the schema first.
pub fn value_write(schema: &str, values: Vec<AValue>, validate: bool) -> Side<WriteFn> {
    let schema = match parse(schema) {
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

/// `apache-avro` Value reads of `n` datums, resolving to `reader_schema` when given.
pub fn value_read(
    schema: &str,
    reader_schema: Option<&str>,
    n: usize,
    life: ReaderLife,
) -> Side<ReadFn> {
    let (writer_schema, reader_schema) = match (parse(schema), reader_schema.map(parse).transpose())
    {
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
pub fn value_row(
    schema: &str,
    reader_schema: Option<&str>,
    values: Option<Vec<AValue>>,
    n: usize,
) -> Impl {
    let imp = Impl::new(Library::ApacheAvro, "Value").read(value_read(
        schema,
        reader_schema,
        n,
        ReaderLife::PerCycle,
    ));
    match values {
        Some(values) => imp.write(value_write(schema, values, true)),
        None => imp,
    }
}

/// `apache-avro` serde writes (schema-aware serializer, `human_readable` off as the crate
/// recommends). `block_size` sets its array/map block target (None: single blocks, as Java).
pub fn serde_write<T: Serialize + 'static>(
    schema: &str,
    items: Rc<Vec<T>>,
    block_size: Option<usize>,
) -> Side<WriteFn> {
    let schema = match parse(schema) {
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
pub fn serde_read<R: DeserializeOwned + 'static>(
    schema: &str,
    n: usize,
    life: ReaderLife,
) -> Side<ReadFn> {
    let schema = match parse(schema) {
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

fn codec(name: CodecName) -> Codec {
    match name {
        CodecName::Null => Codec::Null,
        CodecName::Deflate => Codec::Deflate(Default::default()),
        CodecName::Snappy => Codec::Snappy,
        CodecName::Zstandard => Codec::Zstandard(Default::default()),
        CodecName::Bzip2 => Codec::Bzip2(Default::default()),
        CodecName::Xz => Codec::Xz(Default::default()),
    }
}

/// The container `Value (Writer)` row: a `Writer` per file appending every value, and a
/// `Reader` per file.
pub fn container_value_row(file: &ContainerFile, values: Rc<Vec<AValue>>, count: usize) -> Impl {
    Impl::new(Library::ApacheAvro, "Value (Writer)").own_input(
        container_write_values(file, values),
        container_read_values(file, count),
    )
}

/// The container `serde (Writer)` row: `extend_ser` into a `Writer` per file, and
/// `into_deser_iter` over a `Reader` per file.
pub fn container_serde_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize) -> Impl
where
    T: Serialize + DeserializeOwned + 'static,
{
    Impl::new(Library::ApacheAvro, "serde (Writer)").own_input(
        container_write_serde(file, items),
        container_read_serde::<T>(count),
    )
}

fn container_write_values(file: &ContainerFile, values: Rc<Vec<AValue>>) -> Side<WriteFn> {
    let schema = match parse(file.schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    let (codec, marker) = (codec(file.codec), file.marker);
    writer(move |out| {
        let mut w = apache_avro::Writer::builder()
            .schema(&schema)
            .writer(out)
            .codec(codec)
            .marker(marker)
            .build()?;
        w.extend_from_slice(&values)?;
        w.flush()?;
        Ok(())
    })
}

fn container_write_serde<T: Serialize + 'static>(
    file: &ContainerFile,
    items: Rc<Vec<T>>,
) -> Side<WriteFn> {
    let schema = match parse(file.schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    let (codec, marker) = (codec(file.codec), file.marker);
    writer(move |out| {
        let mut w = apache_avro::Writer::builder()
            .schema(&schema)
            .writer(out)
            .codec(codec)
            .marker(marker)
            .human_readable(false)
            .build()?;
        w.extend_ser(items.iter())?;
        w.flush()?;
        Ok(())
    })
}

/// The reader parses the header (and the writer schema in it); with
/// [`ContainerFile::reader_schema`] it is also given the schema, parsed once outside the timing,
/// as reader schema (as the AVRO-3451 benchmark does).
fn container_read_values(file: &ContainerFile, count: usize) -> Side<ReadFn> {
    let reader_schema = if file.reader_schema {
        match parse(file.schema) {
            Ok(s) => Some(s),
            Err(e) => return Side::NotApplicable(e),
        }
    } else {
        None
    };
    reader(move |input| {
        let reader = apache_avro::Reader::builder(input)
            .maybe_reader_schema(reader_schema.as_ref())
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
fn container_read_serde<T: DeserializeOwned + 'static>(count: usize) -> Side<ReadFn> {
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
