//! `serde_avro_fast` 2.1: serde only (`SerializerState` / `DeserializerState` over a slice, and
//! its object container file writer and reader). It has no schema resolution, so it reads
//! writer-schema data into the reader-shaped type and lets serde do what resolution would
//! (fields by name, `#[serde(default)]`, int into `i64`).

use std::hint::black_box;
use std::io::BufRead;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_avro_fast::object_container_file_encoding::{Compression, CompressionLevel};

use crate::adapters::workload::{CodecName, ContainerFile, ReaderLife};
use crate::harness::{
    check_consumed, check_count, reader, writer, Impl, Library, ReadFn, Side, WriteFn,
};

fn parse(json: &str) -> Result<serde_avro_fast::Schema, String> {
    json.parse()
        .map_err(|e| format!("serde_avro_fast rejects the schema: {e}"))
}

/// `serde_avro_fast` writes. The serializer config (its reusable buffers) lives for one cycle.
pub fn write<T: Serialize + 'static>(schema: &str, items: Rc<Vec<T>>) -> Side<WriteFn> {
    let schema = match parse(schema) {
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
pub fn read<R: DeserializeOwned + 'static>(schema: &str, n: usize) -> Side<ReadFn> {
    read_with::<R>(schema, n, ReaderLife::PerCycle)
}

/// As [`read`]; with [`ReaderLife::PerDatum`] a new deserializer state (its "reader") is
/// built for every datum, over the rest of the input.
pub fn read_with<R: DeserializeOwned + 'static>(
    schema: &str,
    n: usize,
    life: ReaderLife,
) -> Side<ReadFn> {
    let schema = match parse(schema) {
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

fn compression(name: CodecName) -> Result<Compression, String> {
    let level = CompressionLevel::default();
    Ok(match name {
        CodecName::Null => Compression::Null,
        CodecName::Deflate => Compression::Deflate { level },
        CodecName::Snappy => Compression::Snappy,
        CodecName::Zstandard => Compression::Zstandard { level },
        CodecName::Bzip2 => {
            return Err(
                "serde_avro_fast 2.1's bzip2 writer emits truncated blocks (neither it nor \
                        avrokit reads them back: \"compressed data ends early\")"
                    .into(),
            )
        }
        CodecName::Xz => {
            return Err(
                "xz needs its `xz` feature (xz2/lzma-sys), which links liblzma a second \
                        time beside avrokit's liblzma-sys: cargo refuses two `links = \"lzma\"`"
                    .into(),
            )
        }
    })
}

/// The container `serde (container)` row: its object container file writer and reader, one
/// each per file.
pub fn container_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize) -> Impl
where
    T: Serialize + DeserializeOwned + 'static,
{
    let imp = Impl::new(Library::SerdeAvroFast, "serde (container)");
    match compression(file.codec) {
        Ok(c) => imp.own_input(container_write(file, c, items), container_read::<T>(count)),
        Err(why) => imp.not_applicable(why),
    }
}

fn container_write<T: Serialize + 'static>(
    file: &ContainerFile,
    compression: Compression,
    items: Rc<Vec<T>>,
) -> Side<WriteFn> {
    let schema = match parse(file.schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    let marker = file.marker;
    writer(move |out| {
        let mut config = serde_avro_fast::ser::SerializerConfig::new(&schema);
        let mut w =
            serde_avro_fast::object_container_file_encoding::WriterBuilder::new(&mut config)
                .compression(compression)
                .sync_marker(marker)
                .build(out)?;
        w.serialize_all(items.iter())?;
        w.into_inner()?;
        Ok(())
    })
}

fn container_read<T: DeserializeOwned + 'static>(count: usize) -> Side<ReadFn> {
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
