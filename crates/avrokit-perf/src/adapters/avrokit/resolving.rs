//! avrokit's Java-style `ResolvingDecoder` (`avrokit::resolution`) over the Rec stream of the
//! record tests: the reader's field order, then one typed read per field.

use std::hint::black_box;

use avrokit::resolution::ResolvingDecoder;
use avrokit::Decoder;

use super::schema::plan;
use crate::data::record::RECORD_SCHEMA;
use crate::harness::{check_consumed, reader, ReadFn, Side};

/// What a resolving read does at each reader field position.
#[derive(Debug, Clone, Copy)]
pub enum Field {
    /// `read_double`
    Double,
    /// `read_int`
    Int,
    /// `read_long`
    Long,
    /// `read_str`
    Str,
}

/// avrokit's Java-style `ResolvingDecoder` over a Rec stream, reading with `reader_schema`:
/// per record, the reader's field order, then one typed read per field (`kinds` by reader
/// position). The plan is compiled once; the decoder is built per cycle, as Java's is.
///
/// Java asks for the field order once per cycle and reuses it; avrokit's `read_field_order`
/// also starts the record, so it is called per record (it returns the plan's slice, no work).
pub fn read(reader_schema: &str, kinds: &'static [Field], n: usize) -> Side<ReadFn> {
    let plan = match plan(RECORD_SCHEMA, reader_schema) {
        Ok(p) => p,
        Err(e) => return Side::NotApplicable(e),
    };
    reader(move |input| {
        let mut dec = ResolvingDecoder::new(&plan, Decoder::from_slice(input))?;
        for _ in 0..n {
            for &pos in dec.read_field_order()? {
                match kinds[pos] {
                    Field::Double => {
                        black_box(dec.read_double()?);
                    }
                    Field::Int => {
                        black_box(dec.read_int()?);
                    }
                    Field::Long => {
                        black_box(dec.read_long()?);
                    }
                    Field::Str => {
                        black_box(dec.read_str()?);
                    }
                }
            }
        }
        dec.finish()?;
        check_consumed(dec.into_inner().rest().len())
    })
}

/// RECORD_SCHEMA's fields, read in their own order.
pub const REC_FIELDS: &[Field] = &[
    Field::Double,
    Field::Double,
    Field::Double,
    Field::Int,
    Field::Int,
    Field::Int,
];
