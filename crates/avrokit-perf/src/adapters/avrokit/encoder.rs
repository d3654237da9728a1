//! avrokit's low-level `Encoder` / `Decoder`: one call per value, as Java's Perf drives its
//! encoders and decoders in the basic and record tests; and the schema-checked
//! `ValidatingEncoder` of ValidatingRecord.

use std::hint::black_box;
use std::rc::Rc;

use avrokit::encode::ValidatingEncoder;
use avrokit::{Decoder, Encoder, Schema, Value};
use serde_bytes::ByteBuf;

use super::values::d_value;
use crate::data::record::{Rec, RECORD_SCHEMA};
use crate::harness::{check_consumed, reader, writer, Impl, Library, Side, WriteFn};

/// A value of the primitive stream tests, as avrokit's Encoder writes and its Decoder reads one.
pub trait EncoderDatum: 'static {
    /// One Encoder call.
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()>;
    /// One Decoder call; `scratch` is the reused holder of the Bytes test.
    fn read(dec: &mut Decoder<'_>, scratch: &mut Vec<u8>) -> avrokit::Result<()>;
}

impl EncoderDatum for i32 {
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_int(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        black_box(dec.read_int()?);
        Ok(())
    }
}

impl EncoderDatum for i64 {
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_long(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        black_box(dec.read_long()?);
        Ok(())
    }
}

impl EncoderDatum for f32 {
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_float(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        // Java throws FloatRead's results away and the JIT deletes much of the work; we keep
        // every value alive so the row measures decoding.
        black_box(dec.read_float()?);
        Ok(())
    }
}

impl EncoderDatum for f64 {
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_double(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        black_box(dec.read_double()?);
        Ok(())
    }
}

impl EncoderDatum for bool {
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_boolean(*self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        black_box(dec.read_boolean()?);
        Ok(())
    }
}

impl EncoderDatum for ByteBuf {
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_bytes(self)
    }
    fn read(dec: &mut Decoder<'_>, scratch: &mut Vec<u8>) -> avrokit::Result<()> {
        // Java copies each value into one reused buffer; so do we (borrowing would skip the copy).
        dec.read_bytes_into(scratch)?;
        black_box(&scratch);
        Ok(())
    }
}

impl EncoderDatum for String {
    fn write(&self, enc: &mut Encoder<&mut Vec<u8>>) -> avrokit::Result<()> {
        enc.write_string(self)
    }
    fn read(dec: &mut Decoder<'_>, _: &mut Vec<u8>) -> avrokit::Result<()> {
        // Java decodes into a reused Utf8 and then makes a java.lang.String: one validated
        // decode and one allocation per value, as here.
        black_box(dec.read_string()?);
        Ok(())
    }
}

/// The `Encoder` row of a primitive stream: one call per value each way.
pub fn stream_row<T: EncoderDatum>(data: Rc<Vec<T>>) -> Impl {
    let n = data.len();
    Impl::new(Library::Avrokit, "Encoder")
        .write(writer({
            let data = data.clone();
            move |out| {
                let mut enc = Encoder::new(out);
                for v in data.iter() {
                    v.write(&mut enc)?;
                }
                enc.flush()?;
                Ok(())
            }
        }))
        .read(reader(move |input| {
            let mut dec = Decoder::from_slice(input);
            let mut scratch = Vec::with_capacity(70);
            for _ in 0..n {
                T::read(&mut dec, &mut scratch)?;
            }
            check_consumed(dec.rest().len())
        }))
}

/// The Array test's `Encoder` row: one `Foo` of COUNT / 4 `Vals`, written and read block by
/// block.
pub fn array_row(data: Rc<Vec<f32>>) -> Impl {
    let groups = data.len() / 4;
    Impl::new(Library::Avrokit, "Encoder")
        .write(writer({
            let data = data.clone();
            move |out| {
                let mut enc = Encoder::new(out);
                enc.write_array_start(1)?;
                enc.start_item()?;
                enc.write_array_start(groups)?;
                for c in data.chunks_exact(4) {
                    enc.start_item()?;
                    for &f in c {
                        enc.write_float(f)?;
                    }
                }
                enc.write_array_end()?;
                enc.write_array_end()?;
                enc.flush()?;
                Ok(())
            }
        }))
        .read(reader(|input| {
            let mut dec = Decoder::from_slice(input);
            // As Java: the outer array is known to hold one item, read its inner array block by
            // block, then the outer array's end.
            dec.read_array_start()?;
            let mut n = dec.read_array_start()?;
            while n > 0 {
                for _ in 0..n {
                    for _ in 0..4 {
                        black_box(dec.read_float()?);
                    }
                }
                n = dec.array_next()?;
            }
            dec.array_next()?;
            check_consumed(dec.rest().len())
        }))
}

/// The Map test's `Encoder` row: COUNT / 4 entries, every key "foo".
pub fn map_row(data: Rc<Vec<f32>>) -> Impl {
    let groups = data.len() / 4;
    Impl::new(Library::Avrokit, "Encoder")
        .write(writer({
            let data = data.clone();
            move |out| {
                let mut enc = Encoder::new(out);
                enc.write_map_start(groups)?;
                for c in data.chunks_exact(4) {
                    enc.start_item()?;
                    enc.write_string("foo")?;
                    for &f in c {
                        enc.write_float(f)?;
                    }
                }
                enc.write_map_end()?;
                enc.flush()?;
                Ok(())
            }
        }))
        .read(reader(|input| {
            let mut dec = Decoder::from_slice(input);
            // Java reads each key into one reused Utf8 holder.
            let mut key = String::new();
            let mut n = dec.read_map_start()?;
            while n > 0 {
                for _ in 0..n {
                    dec.read_string_into(&mut key)?;
                    black_box(&key);
                    for _ in 0..4 {
                        black_box(dec.read_float()?);
                    }
                }
                n = dec.map_next()?;
            }
            check_consumed(dec.rest().len())
        }))
}

/// avrokit's raw write of a Rec stream: three write_double, three write_int per record.
pub fn record_row(data: Rc<Vec<Rec>>) -> Impl {
    let n = data.len();
    Impl::new(Library::Avrokit, "Encoder")
        .write(writer(move |out| {
            let mut enc = Encoder::new(out);
            for r in data.iter() {
                enc.write_double(r.f1)?;
                enc.write_double(r.f2)?;
                enc.write_double(r.f3)?;
                enc.write_int(r.f4)?;
                enc.write_int(r.f5)?;
                enc.write_int(r.f6)?;
            }
            enc.flush()?;
            Ok(())
        }))
        .read(reader(move |input| {
            let mut dec = Decoder::from_slice(input);
            for _ in 0..n {
                black_box(dec.read_double()?);
                black_box(dec.read_double()?);
                black_box(dec.read_double()?);
                black_box(dec.read_int()?);
                black_box(dec.read_int()?);
                black_box(dec.read_int()?);
            }
            check_consumed(dec.rest().len())
        }))
}

/// ValidatingRecord's write: avrokit's `ValidatingEncoder`, every call checked against the
/// schema, as Java's ValidatingEncoder does.
pub fn validating_write(data: Rc<Vec<Rec>>) -> Side<WriteFn> {
    let schema = Schema::parse_str(RECORD_SCHEMA).expect("RECORD_SCHEMA parses");
    writer(move |out| {
        let mut enc = ValidatingEncoder::new(out, &schema);
        for r in data.iter() {
            enc.write_double(r.f1)?;
            enc.write_double(r.f2)?;
            enc.write_double(r.f3)?;
            enc.write_int(r.f4)?;
            enc.write_int(r.f5)?;
            enc.write_int(r.f6)?;
        }
        enc.flush()?;
        Ok(())
    })
}

/// GenericNestedFake_: the nested generic records, written and rebuilt by hand with raw
/// Encoder/Decoder calls (Java's measure of generic object handling without a datum writer);
/// `values` are the records as NESTED_RECORD_SCHEMA `Value`s.
pub fn nested_fake_row(values: Vec<Value>) -> Impl {
    let n = values.len();
    let values = Rc::new(values);
    Impl::new(Library::Avrokit, "Encoder + Value")
        .write(writer(move |out| {
            let mut enc = Encoder::new(out);
            for v in values.iter() {
                let Value::Record(fields) = v else {
                    return Err("not a record".into());
                };
                for f in &fields[..3] {
                    match f {
                        Value::Record(d) => match d[..] {
                            [Value::Double(x)] => enc.write_double(x)?,
                            _ => return Err("not a D record".into()),
                        },
                        _ => return Err("not a D record".into()),
                    }
                }
                for f in &fields[3..] {
                    match f {
                        Value::Int(i) => enc.write_int(*i)?,
                        _ => return Err("not an int".into()),
                    }
                }
            }
            enc.flush()?;
            Ok(())
        }))
        .read(reader(move |input| {
            let mut dec = Decoder::from_slice(input);
            for _ in 0..n {
                let r = Value::Record(vec![
                    d_value(dec.read_double()?),
                    d_value(dec.read_double()?),
                    d_value(dec.read_double()?),
                    Value::Int(dec.read_int()?),
                    Value::Int(dec.read_int()?),
                    Value::Int(dec.read_int()?),
                ]);
                black_box(r);
            }
            check_consumed(dec.rest().len())
        }))
}
