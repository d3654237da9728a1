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
//! avrokit has three rows (see [`crate::adapters::avrokit::container`]): `Value (container)`
//! builds a writer and a reader for every file; the `(template, cache)` rows prepare the header
//! once and recognise a file's header schema by its bytes, as the benchmark's many files of one
//! schema allow. `serde (template, cache)` writes and reads the benchmark's structs through
//! plans compiled once, as serde_avro_fast does.

use std::rc::Rc;

use avrokit::codec::{AvroDecode, AvroDecodeOwned, AvroEncode};
use avrokit::serde::AvroSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::adapters::avrokit::container::{serde_row, value_row, Prep};
use crate::adapters::avrokit::container_typed::{
    borrowed_reader, borrowed_row, codec_row, PerBlock,
};
use crate::adapters::avrokit::values::{to_values, ToValue};
use crate::adapters::peers::{self, values::ToApache};
use crate::adapters::workload::{CodecName, ContainerFile};
use crate::data::avro3451::{big, small, SmallRef, UserInfoRef, BIG_SCHEMA, SMALL_SCHEMA};
use crate::harness::{Ctx, Spec, Test};
use crate::reference::{self, RefDatum};

const MARKER: [u8; 16] = *b"avrokit-perf-syn";

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
        let flag = ["-A1", "-A2", "-A3", "-A4", "-A5", "-A6", "-A7", "-A8"][I];
        Spec::new(flag, ROWS[I].0, "-avro3451", true, build::<I>)
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

fn build<const I: usize>(ctx: &Ctx) -> Test {
    let (name, count, runs, is_big) = ROWS[I];
    if is_big {
        let per_block = borrowed_reader!(UserInfoRef);
        container_test(ctx, name, count, runs, BIG_SCHEMA, big(), per_block)
    } else {
        let per_block = borrowed_reader!(SmallRef);
        container_test(ctx, name, count, runs, SMALL_SCHEMA, small(), per_block)
    }
}

/// One row: `count` clones of `record`. The test's reference bytes are the datum stream (what
/// the container blocks carry); every library reads the container its own writer produced.
/// `per_block` reads a block's records as `B`, the record type that borrows from the block.
fn container_test<T, B>(
    ctx: &Ctx,
    name: &'static str,
    count: usize,
    runs: usize,
    schema: &'static str,
    record: T,
    per_block: PerBlock<B>,
) -> Test
where
    T: Clone
        + RefDatum
        + ToValue
        + ToApache
        + Serialize
        + DeserializeOwned
        + AvroSchema
        + AvroEncode
        + AvroDecodeOwned
        + 'static,
    B: AvroSchema + AvroDecode<'static> + 'static,
{
    let file = ContainerFile {
        schema,
        codec: CodecName::Null,
        marker: MARKER,
        reader_schema: true,
    };
    let items = Rc::new(vec![record; count]);
    let values = Rc::new(to_values(&items));
    let mut test = Test::new(name, count, reference::encode_all(&items))
        .with(value_row(&file, values.clone(), count, Prep::PerFile))
        .with(value_row(&file, values, count, Prep::Prepared))
        .with(serde_row(&file, items.clone(), count, Prep::Prepared))
        .with(codec_row(&file, items.clone(), count, Prep::Prepared))
        .with(borrowed_row(
            &file,
            items.clone(),
            count,
            Prep::Prepared,
            ("borrowed", per_block),
        ));
    test.cycles = Some(runs);
    test.output_is_reference = false;
    if ctx.compare {
        test = test.with_all(peers::container_peers(&file, items));
    }
    test
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::avro3451::{Small, UserInfo};
    use crate::harness::{Library, Side};

    /// The records in a container file (read by avrokit as `T`), in their reference encoding.
    fn records_in<T: RefDatum + DeserializeOwned>(schema: &str, file: &[u8]) -> Vec<u8> {
        let plan =
            avrokit::serde::DePlan::compile(&avrokit::Schema::parse_str(schema).unwrap()).unwrap();
        let mut r = avrokit::container::Reader::from_slice(file).unwrap();
        let items = r
            .serde_iter::<T>(&plan)
            .collect::<avrokit::Result<Vec<_>>>()
            .unwrap();
        reference::encode_all(&items)
    }

    /// Every avrokit row writes the same file (a template is the builder's header, byte for
    /// byte); every library's file holds the reference records, and every row reads back
    /// `count` records from its own file.
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
            assert_eq!(files.len(), 5, "{}", spec.name);
            assert!(files.iter().all(|f| *f == files[0]), "{}", spec.name);
            let back = avrokit::container::Reader::from_slice(&files[0])
                .and_then(|r| r.collect::<avrokit::Result<Vec<_>>>())
                .unwrap();
            assert_eq!(back.len(), test.count, "{}", spec.name);
            for imp in test.impls.iter_mut() {
                let what = format!("{} {} {}", spec.name, imp.library.name(), imp.api);
                let file = imp.input.clone().expect(&what);
                // Whoever wrote the file, it holds the reference records.
                let records = if spec.name.contains("Big") {
                    records_in::<UserInfo>(BIG_SCHEMA, &file)
                } else {
                    records_in::<Small>(SMALL_SCHEMA, &file)
                };
                assert!(
                    records == test.bytes,
                    "{what}: records differ from the reference"
                );
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
