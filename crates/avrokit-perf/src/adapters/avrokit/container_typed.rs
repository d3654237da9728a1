//! avrokit's container files through generated codecs, for the container tests: the `codec`
//! row (`append_codec` / `codec_iter`, a new record each time), `codec (borrowed)` (read only:
//! `Reader::next_block` and `Block::codec_iter` over a type whose strings and bytes borrow
//! from the decompressed block), `codec (threads: N)` (read only: `par_codec_iter`, blocks
//! decoded on N threads, in file order) and the `codec only` limit row (read only: every
//! block decompressed into one reused buffer, nothing decoded: what a compressed read is held
//! to).
//!
//! Rows on worker threads are named `(threads: N)`; the report never counts them in the
//! `vs peers` ratio, the peers being single-threaded.

use std::hint::black_box;
use std::rc::Rc;

use avrokit::codec::{AvroDecodeOwned, AvroEncode, CodecPlan};
use avrokit::container::{Reader, ReaderBuilder};
use avrokit::serde::AvroSchema;
use avrokit::Limits;
use serde::de::DeserializeOwned;

use super::container::{builder, codec};
use super::schema::parse;
use crate::adapters::workload::ContainerFile;
use crate::data::container::{Mixed, MixedRef};
use crate::harness::{check_count, reader, writer, Impl, Library, ReadFn, Side, WriteFn};

/// The `codec` row: `items` appended through `T`'s generated code, read back as new `T`s.
pub fn codec_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize) -> Impl
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + 'static,
{
    Impl::new(Library::Avrokit, "codec").own_input(
        write_codec(file, items),
        reader(move |input| {
            let mut r = Reader::from_slice(input)?;
            let mut n = 0;
            for v in r.codec_iter::<T>()? {
                black_box(v?);
                n += 1;
            }
            check_count(n, count)
        }),
    )
}

/// The `codec (borrowed)` read row: every block's records as [`MixedRef`]s borrowing from
/// the block. The file is the one the `codec` row writes, from `items`.
pub fn borrowed_row(file: &ContainerFile, items: Rc<Vec<Mixed>>, count: usize) -> Impl {
    read_only(
        "codec (borrowed)",
        write_codec(file, items),
        reader(move |input| {
            let mut r = Reader::from_slice(input)?;
            // At 'static, the plan serves every block's lifetime.
            let plan = CodecPlan::<MixedRef<'static>>::reading(r.schema())?;
            let mut n = 0;
            while let Some(block) = r.next_block()? {
                for v in block.codec_iter(&plan) {
                    black_box(v?);
                    n += 1;
                }
            }
            check_count(n, count)
        }),
    )
}

/// The `codec (threads: N)` read row: `par_codec_iter` on `threads` threads.
pub fn threads_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize, threads: usize) -> Impl
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + Send + 'static,
{
    read_only(
        format!("codec (threads: {threads})"),
        write_codec(file, items),
        reader(move |input| {
            let mut r = Reader::from_slice(input)?;
            let mut n = 0;
            for v in r.par_codec_iter::<T>(threads)? {
                black_box(v?);
                n += 1;
            }
            check_count(n, count)
        }),
    )
}

/// The `codec only` limit row: every block of avrokit's file decompressed, nothing decoded.
pub fn codec_only_row<T>(file: &ContainerFile, items: Rc<Vec<T>>) -> Impl
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + 'static,
{
    let mut imp = Impl::new(Library::Limit, "codec only").own_input(
        write_codec(file, items),
        reader(|input| {
            let mut r = ReaderBuilder::new()
                .with_decompress_ahead(false)
                .build_slice(input)?;
            let limits = Limits::default();
            let mut buf = Vec::new();
            while let Some(b) = r.next_raw_block()? {
                b.decompress_into(&mut buf, &limits)?;
                black_box(&buf);
            }
            Ok(())
        }),
    );
    imp.write = Side::Absent;
    imp
}

/// A read-only row over the file `write` produces once.
fn read_only(api: impl Into<String>, write: Side<WriteFn>, read: Side<ReadFn>) -> Impl {
    let mut imp = Impl::new(Library::Avrokit, api).own_input(write, read);
    imp.write = Side::Absent;
    imp
}

/// A builder per file appending every item through `T`'s generated code.
fn write_codec<T>(file: &ContainerFile, items: Rc<Vec<T>>) -> Side<WriteFn>
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + 'static,
{
    let schema = match parse(file.schema) {
        Ok(s) => s,
        Err(e) => return Side::NotApplicable(e),
    };
    if schema.canonical_form() != T::schema().canonical_form() {
        return Side::NotApplicable("the type's schema is not the test's".into());
    }
    let plan = match CodecPlan::<T>::reading(&schema) {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e.to_string()),
    };
    let (codec, marker) = (codec(file.codec), file.marker);
    writer(move |out| {
        let mut w = builder(&schema, codec, marker).build(out)?;
        for r in items.iter() {
            w.append_codec(r, &plan)?;
        }
        w.into_inner()?;
        Ok(())
    })
}
