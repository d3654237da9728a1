//! avrokit's container files through generated codecs, for the container and AVRO-3451 tests: the
//! `codec` row (`append_codec` / `next_codec`, a new record each time), `codec (borrowed)` (read
//! only: `Reader::next_block` and `Block::codec_iter` over a type whose strings and bytes borrow
//! from the decompressed block), `codec (borrowed, reused)` (read only: `Block::codec_into`, the
//! same type read over one record per block), `codec (reused)` (read only: `next_codec_into`, one
//! record overwritten by each), `codec (threads: N)` (read only: `par_codec_iter`, blocks decoded
//! on N threads, in file order), `codec batches (threads: N)` (read only: `par_codec_batches`, each
//! block decoded on any of N threads over an earlier block's records, lent out whole) and the
//! `codec only` limit row (read only: every block decompressed into one reused buffer, nothing
//! decoded: what a compressed read is held to). The `codec` and `codec (borrowed)` rows prepare
//! their files either way a [`Prep`] says: per file, or through a header template and a seeded
//! schema cache.
//!
//! Rows on worker threads are named `(threads: N)`; the report never counts them in the
//! `vs peers` ratio, the peers being single-threaded.

use std::borrow::Cow;
use std::hint::black_box;
use std::rc::Rc;

use avrokit::codec::{AvroDecode, AvroDecodeOwned, AvroEncode, CodecPlan};
use avrokit::container::{Block, Reader, ReaderBuilder, SchemaCache};
use avrokit::serde::AvroSchema;
use avrokit::Limits;
use serde::de::DeserializeOwned;

use super::container::{builder, codec, seeded_cache, Prep};
use super::schema::parse;
use crate::adapters::workload::ContainerFile;
use crate::harness::{check_count, reader, writer, Impl, Library, ReadFn, Side, WriteFn};

/// Reads every record of one block through a plan compiled at `'static`, returning how many:
/// the block-lifetime view of a borrowing type `B` (see [`borrowed_reader`]).
pub type PerBlock<B> = fn(&Block<'_>, &CodecPlan<B>) -> avrokit::Result<usize>;

/// A [`PerBlock`] function for a type of one lifetime parameter that borrows from the block:
/// the plan, compiled once at `'static`, serves every block's lifetime because `CodecPlan` is
/// covariant.
#[macro_export]
macro_rules! borrowed_reader {
    ($ty:ident) => {{
        fn per_block(
            block: &avrokit::container::Block<'_>,
            plan: &avrokit::codec::CodecPlan<$ty<'static>>,
        ) -> avrokit::Result<usize> {
            let mut n = 0;
            for v in block.codec_iter(plan) {
                std::hint::black_box(v?);
                n += 1;
            }
            Ok(n)
        }
        per_block as $crate::adapters::avrokit::container_typed::PerBlock<$ty<'static>>
    }};
    ($ty:ident, reused) => {{
        fn per_block(
            block: &avrokit::container::Block<'_>,
            plan: &avrokit::codec::CodecPlan<$ty<'static>>,
        ) -> avrokit::Result<usize> {
            let mut n = 0;
            let mut rows = block.codec_into(plan);
            let mut v = $ty::default();
            while let Some(read) = rows.next_into(&mut v) {
                read?;
                std::hint::black_box(&v);
                n += 1;
            }
            Ok(n)
        }
        per_block as $crate::adapters::avrokit::container_typed::PerBlock<$ty<'static>>
    }};
}
pub use borrowed_reader;

/// The `codec (...)` row: `items` appended through `T`'s generated code, read back as new
/// `T`s.
pub fn codec_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize, prep: Prep) -> Impl
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + 'static,
{
    let name = match prep {
        Prep::PerFile => "codec".to_owned(),
        Prep::Prepared => format!("codec ({})", prep.label()),
    };
    Impl::new(Library::Avrokit, name).own_input(
        write_codec(file, items, prep),
        match opener::<T>(file.schema, prep) {
            Ok(open) => reader(move |input| {
                let (mut r, plan) = open.open(input)?;
                let mut n = 0;
                while let Some(v) = r.next_codec(&plan) {
                    black_box(v?);
                    n += 1;
                }
                check_count(n, count)
            }),
            Err(e) => Side::NotApplicable(e),
        },
    )
}

/// The `codec (borrowed...)` read row: every block's records as `B`s borrowing from the block
/// (`per_block`, made by [`borrowed_reader`]: `label` is `borrowed`, or `borrowed, reused` for
/// its `reused` form). The file is the one the `codec` row writes, from `items`.
pub fn borrowed_row<T, B>(
    file: &ContainerFile,
    items: Rc<Vec<T>>,
    count: usize,
    prep: Prep,
    (label, per_block): (&str, PerBlock<B>),
) -> Impl
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + 'static,
    B: AvroSchema + AvroDecode<'static> + 'static,
{
    let name = match prep {
        Prep::PerFile => format!("codec ({label})"),
        Prep::Prepared => format!("codec ({label}, {})", prep.label()),
    };
    read_only(
        name,
        write_codec(file, items, prep),
        match opener::<B>(file.schema, prep) {
            Ok(open) => reader(move |input| {
                let (mut r, plan) = open.open(input)?;
                let mut n = 0;
                while let Some(block) = r.next_block()? {
                    n += per_block(&block, &plan)?;
                }
                check_count(n, count)
            }),
            Err(e) => Side::NotApplicable(e),
        },
    )
}

/// How a read row opens a file and gets its plan: per file (`Reader::from_slice`, a plan
/// compiled from the file's schema), or through a seeded cache and a plan compiled once,
/// outside the timing, from the cached schema (so it is the file's by a pointer compare).
enum Opener<T> {
    PerFile,
    Prepared(SchemaCache, CodecPlan<T>),
}

fn opener<T: AvroSchema + AvroDecode<'static>>(
    schema: &str,
    prep: Prep,
) -> Result<Opener<T>, String> {
    Ok(match prep {
        Prep::PerFile => Opener::PerFile,
        Prep::Prepared => {
            let (s, cache) = seeded_cache(schema)?;
            let plan = CodecPlan::reading(&s).map_err(|e| e.to_string())?;
            Opener::Prepared(cache, plan)
        }
    })
}

/// A reader over a file and the plan for its records.
type Opened<'a, T> = (Reader<'a, &'a [u8]>, Cow<'a, CodecPlan<T>>);

impl<T: AvroSchema + AvroDecode<'static>> Opener<T> {
    /// A reader over `input` and the plan for its records.
    fn open<'a>(&'a self, input: &'a [u8]) -> avrokit::Result<Opened<'a, T>> {
        Ok(match self {
            Opener::PerFile => {
                let r = Reader::from_slice(input)?;
                let plan = CodecPlan::reading(r.schema())?;
                (r, Cow::Owned(plan))
            }
            Opener::Prepared(cache, plan) => (
                ReaderBuilder::new()
                    .with_schema_cache(cache)
                    .build_slice(input)?,
                Cow::Borrowed(plan),
            ),
        })
    }
}

/// The `codec (threads: N)` rows: written with the blocks compressed on `threads` threads
/// (`WriterBuilder::with_threads`), read with `par_codec_iter` on `threads` threads.
pub fn threads_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize, threads: usize) -> Impl
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + Send + 'static,
{
    Impl::new(Library::Avrokit, format!("codec (threads: {threads})")).own_input(
        write_codec_on(file, items, Prep::PerFile, threads),
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

/// The `codec (reused)` read row: `next_codec_into`, every record read over one `T` on the
/// caller's thread (Java's `DataFileReader.next(reuse)`).
pub fn reused_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize) -> Impl
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + Default + 'static,
{
    read_only(
        "codec (reused)",
        write_codec(file, items, Prep::PerFile),
        reader(move |input| {
            let mut r = Reader::from_slice(input)?;
            let plan = CodecPlan::<T>::reading(r.schema())?;
            let mut v = T::default();
            let mut n = 0;
            while let Some(read) = r.next_codec_into(&plan, &mut v) {
                read?;
                black_box(&v);
                n += 1;
            }
            check_count(n, count)
        }),
    )
}

/// The `codec batches (threads: N)` read row: `par_codec_batches` on `threads` threads, each
/// block decoded over an earlier block's records and lent out whole.
pub fn batches_row<T>(file: &ContainerFile, items: Rc<Vec<T>>, count: usize, threads: usize) -> Impl
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + DeserializeOwned + Send + 'static,
{
    read_only(
        format!("codec batches (threads: {threads})"),
        write_codec(file, items, Prep::PerFile),
        reader(move |input| {
            let mut r = Reader::from_slice(input)?;
            let mut batches = r.par_codec_batches::<T>(threads)?;
            let mut n = 0;
            while let Some(batch) = batches.next_batch() {
                for v in batch? {
                    black_box(v);
                    n += 1;
                }
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
        write_codec(file, items, Prep::PerFile),
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

/// A writer per file (a builder, or a header template prepared once outside the timing)
/// appending every item through `T`'s generated code.
fn write_codec<T>(file: &ContainerFile, items: Rc<Vec<T>>, prep: Prep) -> Side<WriteFn>
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + 'static,
{
    write_codec_on(file, items, prep, 1)
}

/// As [`write_codec`], the blocks compressed on `threads` threads (`with_threads`).
fn write_codec_on<T>(
    file: &ContainerFile,
    items: Rc<Vec<T>>,
    prep: Prep,
    threads: usize,
) -> Side<WriteFn>
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
    match prep {
        Prep::PerFile => writer(move |out| {
            let mut w = builder(&schema, codec, marker)
                .with_threads(threads)
                .build(out)?;
            for r in items.iter() {
                w.append_codec(r, &plan)?;
            }
            w.into_inner()?;
            Ok(())
        }),
        Prep::Prepared => {
            let template = match builder(&schema, codec, marker)
                .with_threads(threads)
                .template()
            {
                Ok(t) => t,
                Err(e) => return Side::NotApplicable(e.to_string()),
            };
            writer(move |out| {
                let mut w = template.build(out)?;
                for r in items.iter() {
                    w.append_codec(r, &plan)?;
                }
                w.into_inner()?;
                Ok(())
            })
        }
    }
}
