//! Source behaviour: interleaved reads through `into_parts`, zero-copy borrowing from slices,
//! offsets, and reader failures.

mod common;

use std::io::{self, Read};

use avrokit::io::Reference;
use avrokit::value::{read_value, write_value};
use avrokit::{Decoder, Encoder, ErrorKind, Value};
use common::{each_source, schema, Src, Trickle, CAPACITIES};

/// A stream of `n` datums of `{"id": long, "name": string}` followed by raw trailing bytes.
fn stream(n: usize) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut ends = Vec::new();
    let mut enc = Encoder::new(&mut out);
    for i in 0..n {
        enc.write_long(i as i64 * 1_000_003 - 7).unwrap();
        enc.write_string(&"x".repeat(i * 7 % 23)).unwrap();
        ends.push(enc.sink().len());
    }
    out.extend_from_slice(b"TRAILING, NOT AVRO");
    (out, ends)
}

#[test]
fn into_parts_hands_back_exactly_the_rest() {
    let (data, ends) = stream(12);
    for take in 0..=ends.len() {
        let consumed = if take == 0 { 0 } else { ends[take - 1] };
        let check = |what: &str, buffered: Vec<u8>, reader: &mut dyn Read| {
            let rest = common::read_rest(buffered, reader);
            assert_eq!(
                rest,
                &data[consumed..],
                "{what}: the rest after {take} datums"
            );
        };
        let read = |dec: &mut Decoder<'static, avrokit::io::ReaderSource<_>>| {
            for i in 0..take {
                assert_eq!(dec.read_long().unwrap(), i as i64 * 1_000_003 - 7);
                assert_eq!(dec.read_string().unwrap().len(), i * 7 % 23);
            }
            assert_eq!(dec.offset(), consumed as u64);
        };
        let mut dec = Decoder::from_reader(&data[..]);
        read(&mut dec);
        let (buffered, mut reader) = dec.into_parts();
        check("from_reader", buffered, &mut reader);

        for cap in CAPACITIES.into_iter().chain([3, 64, 100]) {
            let mut dec = Decoder::from_reader_with_capacity(cap, &data[..]);
            read(&mut dec);
            let (buffered, mut reader) = dec.into_parts();
            assert!(buffered.len() <= cap);
            check(&format!("capacity {cap}"), buffered, &mut reader);
        }

        let mut dec = Decoder::from_reader_with_capacity(16, Trickle::new(&data, 3));
        for i in 0..take {
            assert_eq!(dec.read_long().unwrap(), i as i64 * 1_000_003 - 7);
            dec.read_string().unwrap();
        }
        let (buffered, mut reader) = dec.into_parts();
        check("trickle", buffered, &mut reader);
    }
}

#[test]
fn decoding_resumes_from_the_parts() {
    // Decode some datums with one decoder, the rest with a new one over buffered ++ reader.
    let s = schema(
        r#"{"type":"record","name":"P","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}"#,
    );
    let values: Vec<Value> = (0..20)
        .map(|i| {
            Value::Record(vec![
                Value::Long(i * 99),
                Value::String("é".repeat(i as usize)),
            ])
        })
        .collect();
    let mut data = Vec::new();
    for v in &values {
        write_value(&mut Encoder::new(&mut data), v, &s).unwrap();
    }
    for split in [0, 1, 7, 19, 20] {
        for cap in [1, 7, 64, 1 << 16] {
            let mut first = Decoder::from_reader_with_capacity(cap, Trickle::new(&data, 5));
            let mut got = Vec::new();
            for _ in 0..split {
                got.push(read_value(&mut first, &s).unwrap());
            }
            let (buffered, reader) = first.into_parts();
            let mut second =
                Decoder::from_reader_with_capacity(cap, io::Cursor::new(buffered).chain(reader));
            while !second.is_empty().unwrap() {
                got.push(read_value(&mut second, &s).unwrap());
            }
            assert_eq!(got, values, "split {split}, capacity {cap}");
        }
    }
}

#[test]
fn the_slice_rest_is_the_unread_part() {
    let (data, ends) = stream(3);
    let mut dec = Decoder::from_slice(&data);
    dec.read_long().unwrap();
    dec.read_str().unwrap();
    assert_eq!(dec.rest(), &data[ends[0]..]);
    assert_eq!(dec.remaining(), Some((data.len() - ends[0]) as u64));
    assert_eq!(dec.source().position(), ends[0]);
    let reader = Decoder::from_reader(&data[..]);
    assert_eq!(reader.remaining(), None, "readers do not know what is left");
}

/// Borrows a string and bytes from `data` through a decoder that is gone by the time they are
/// used: this only compiles because `read_*_borrowed` return `&'de` references to the input.
fn borrow_both(data: &[u8]) -> (&str, &[u8], &[u8]) {
    let mut dec = Decoder::from_slice(data);
    let s = dec.read_str_borrowed().unwrap();
    let b = dec.read_bytes_borrowed().unwrap();
    let rest = dec.rest();
    drop(dec);
    (s, b, rest)
}

#[test]
fn slice_reads_borrow_from_the_input() {
    let data = [0x06, b'f', b'o', b'o', 0x04, 0xff, 0x00, 0x2a];
    let (s, b, rest) = borrow_both(&data);
    assert_eq!((s, b, rest), ("foo", &[0xff, 0x00][..], &[0x2a][..]));
    let range = data.as_ptr_range();
    assert!(
        range.contains(&s.as_ptr()),
        "the string points into the input"
    );
    assert!(
        range.contains(&b.as_ptr()),
        "the bytes point into the input"
    );

    // Borrowed strings outlive later reads from the same decoder.
    let data = [0x02, b'a', 0x02, b'b', 0x02, b'c'];
    let mut dec = Decoder::from_slice(&data);
    let kept: Vec<&str> = (0..3).map(|_| dec.read_str_borrowed().unwrap()).collect();
    assert_eq!(kept, ["a", "b", "c"]);

    // The generic accessors say which kind of reference they give.
    let mut dec = Decoder::from_slice(&data);
    assert!(matches!(
        dec.read_str_ref().unwrap(),
        Reference::Borrowed("a")
    ));
    assert!(matches!(
        dec.read_bytes_ref().unwrap(),
        Reference::Borrowed(b"b")
    ));
    assert!(matches!(
        dec.read_fixed_ref(2).unwrap(),
        Reference::Borrowed(&[0x02, b'c'])
    ));
    let mut dec = Decoder::from_reader(&data[..]);
    assert!(matches!(
        dec.read_str_ref().unwrap(),
        Reference::Copied("a")
    ));
    assert!(matches!(
        dec.read_bytes_ref().unwrap(),
        Reference::Copied(b"b")
    ));
    assert!(matches!(
        dec.read_fixed_ref(2).unwrap(),
        Reference::Copied(&[0x02, b'c'])
    ));
}

#[test]
fn into_reuses_the_callers_buffers() {
    let data = [0x06, b'f', b'o', b'o', 0x04, 0xff, 0x00];
    for (src, (s, b)) in each_source!(&data, |dec| {
        let mut s = String::with_capacity(64);
        let mut b = vec![9; 3];
        dec.read_string_into(&mut s).unwrap();
        dec.read_bytes_into(&mut b).unwrap();
        (s, b)
    }) {
        assert_eq!(s, "foo", "{src}");
        assert_eq!(b, [0xff, 0x00], "{src}: replaced, not appended");
    }
}

#[test]
fn offsets_count_consumed_bytes_on_every_source() {
    let (data, ends) = stream(6);
    for (src, offsets) in each_source!(&data, |dec| {
        let mut offsets = Vec::new();
        for _ in 0..ends.len() {
            dec.read_long().unwrap();
            dec.skip_bytes().unwrap();
            offsets.push(dec.offset() as usize);
        }
        offsets
    }) {
        assert_eq!(offsets, ends, "{src}");
    }
}

#[test]
fn is_empty_reports_the_end_on_every_source() {
    for (src, r) in each_source!(&[0x02, 0x04], |dec| {
        let a = dec.is_empty().unwrap();
        let x = dec.read_long().unwrap();
        let b = dec.is_empty().unwrap();
        let y = dec.read_long().unwrap();
        let c = dec.is_empty().unwrap();
        let after = dec.read_long().unwrap_err();
        (a, x, b, y, c, after.is_eof(), after.offset())
    }) {
        assert_eq!(r, (false, 1, false, 2, true, true, Some(2)), "{src}");
    }
    for (src, empty) in each_source!(&[], |dec| dec.is_empty().unwrap()) {
        assert!(empty, "{src}");
    }
}

/// A reader that serves `data` and then fails with `kind`.
struct FailAfter<'a> {
    data: &'a [u8],
    kind: io::ErrorKind,
}

impl Read for FailAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.data.is_empty() {
            return Err(io::Error::new(self.kind, "the disk is on fire"));
        }
        let n = buf.len().min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[test]
fn reader_failures_are_io_errors_with_an_offset() {
    let data = [0x02, 0x06, b'a'];
    for cap in [1, 2, 64] {
        let mut dec = Decoder::from_reader_with_capacity(
            cap,
            FailAfter {
                data: &data,
                kind: io::ErrorKind::Other,
            },
        );
        assert_eq!(dec.read_long().unwrap(), 1);
        let e = dec.read_string().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Io, "capacity {cap}: {e}");
        assert!(e.to_string().contains("the disk is on fire"), "{e}");
        assert_eq!(
            e.offset(),
            Some(3),
            "capacity {cap}: where the reader failed"
        );
        assert!(
            std::error::Error::source(&e).is_some(),
            "the io::Error is the source"
        );
    }
    // A reader's own UnexpectedEof is an end of input.
    let mut dec = Decoder::from_reader(FailAfter {
        data: &[0x80],
        kind: io::ErrorKind::UnexpectedEof,
    });
    let e = dec.read_long().unwrap_err();
    assert!(e.is_eof(), "{e}");
}

#[test]
fn interrupted_reads_are_retried() {
    let data: Vec<u8> = (0..200u8).flat_map(|i| [0x02, b'a' + i % 26]).collect();
    let mut r = Trickle::interrupted(&data, 1);
    {
        let mut dec = Decoder::from_reader_with_capacity(1, &mut r);
        for i in 0..200u8 {
            assert_eq!(dec.read_str().unwrap().as_bytes(), [b'a' + i % 26]);
        }
        assert!(dec.is_empty().unwrap());
    }
    assert!(
        r.calls >= 800,
        "every byte took an interrupted call and a real one"
    );
    assert!(r.rest().is_empty());
}

#[test]
fn every_source_is_exercised() {
    // Guards the harness itself: all the sources of STYLE rule 21 are there.
    let srcs: Vec<Src> = each_source!(&[], |dec| dec.offset())
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    assert!(srcs.contains(&Src::Slice));
    assert!(srcs.contains(&Src::Capacity(1)));
    assert!(srcs.contains(&Src::Reader));
    assert!(srcs.contains(&Src::Trickle(3)));
    assert!(srcs.contains(&Src::Interrupted));
}
