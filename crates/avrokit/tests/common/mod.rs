//! Shared helpers for the integration tests: run one case through every source and every sink
//! (STYLE rule 21), compare values NaN-aware, and (in `gen`) random schemas and values.
//!
//! Sources: a borrowed slice; `from_reader_with_capacity(n)` for several small `n` (1 forces a
//! refill at every byte, 10 and 11 sit on the varint fast path's edge); a plain `from_reader`
//! (64 KiB buffer); a reader that hands out at most 3 bytes per `read` call; and one that
//! answers every other call with `ErrorKind::Interrupted`.
//!
//! Sinks: `Vec<u8>`; `Encoder::buffered_with_capacity(16, ..)`; `Encoder::direct(..)` over a
//! writer that takes at most 3 bytes per call (and is interrupted every other call); and
//! `Encoder::blocking(..)` with several block sizes, whose bytes differ but must decode to the
//! same value.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code, unused_macros, unused_imports)]

pub mod alloc;
pub mod gen;

use std::fmt;
use std::io::{self, Read, Write};

use avrokit::container::Codec;
use avrokit::io::{BufferedSink, Source};
use avrokit::value::{read_value, write_value};
use avrokit::{Decoder, Encoder, Error, ErrorKind, Result, Schema, Value};

/// Every container codec of this build. bzip2 at level 1 and xz at level 0 keep their
/// decoders' tables small (bzip2's 400 KB), so allocation bounds stay meaningful.
pub fn codecs() -> Vec<Codec> {
    [
        Codec::Null,
        Codec::DEFLATE,
        Codec::Snappy,
        Codec::ZSTANDARD,
        Codec::Bzip2 { level: 1 },
        Codec::Xz { level: 0 },
    ]
    .into_iter()
    .filter(Codec::is_enabled)
    .collect()
}

/// Buffer sizes for `Decoder::from_reader_with_capacity`.
pub const CAPACITIES: [usize; 5] = [1, 2, 5, 10, 11];

/// Block sizes for `Encoder::blocking`.
pub const BLOCK_SIZES: [usize; 3] = [1, 16, 1024];

/// Which source a result came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// `Decoder::from_slice`.
    Slice,
    /// `Decoder::from_reader_with_capacity(n, ..)`.
    Capacity(usize),
    /// `Decoder::from_reader` (64 KiB buffer).
    Reader,
    /// `Decoder::from_reader` over a reader returning at most `n` bytes per call.
    Trickle(usize),
    /// `Decoder::from_reader_with_capacity(4, ..)` over a reader interrupted every other call.
    Interrupted,
}

impl Src {
    /// True for the slice source, the only one that knows how many bytes are left.
    pub fn is_slice(self) -> bool {
        self == Src::Slice
    }
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Which sink a result came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Snk {
    /// `Encoder::new(&mut Vec<u8>)`.
    Vec,
    /// `Encoder::buffered_with_capacity(16, Vec<u8>)`.
    Buffered16,
    /// `Encoder::direct` over a writer taking at most 3 bytes per call.
    Direct,
    /// `Encoder::blocking(Vec<u8>, n)`.
    Blocking(usize),
    /// `Encoder::blocking(BufferedSink::with_capacity(16, Vec<u8>), 8)`.
    BlockingBuffered,
}

impl Snk {
    /// True when arrays and maps are written in sized blocks (other bytes than Java's encoder).
    pub fn is_blocking(self) -> bool {
        matches!(self, Snk::Blocking(_) | Snk::BlockingBuffered)
    }
}

impl fmt::Display for Snk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// A reader over a slice that returns at most `max` bytes per call, optionally answering every
/// other call with `ErrorKind::Interrupted` (which a source must retry).
pub struct Trickle<'a> {
    data: &'a [u8],
    max: usize,
    interrupt: bool,
    flip: bool,
    /// How many `read` calls were made.
    pub calls: usize,
}

impl<'a> Trickle<'a> {
    pub fn new(data: &'a [u8], max: usize) -> Trickle<'a> {
        Trickle {
            data,
            max: max.max(1),
            interrupt: false,
            flip: false,
            calls: 0,
        }
    }

    pub fn interrupted(data: &'a [u8], max: usize) -> Trickle<'a> {
        Trickle {
            interrupt: true,
            ..Trickle::new(data, max)
        }
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.data
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupt {
            self.flip = !self.flip;
            if self.flip {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "try again"));
            }
        }
        let n = self.max.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// A writer that takes at most 3 bytes per `write` call and is interrupted every other call, so
/// only `write_all`-style loops get everything through.
#[derive(Default)]
pub struct TrickleWriter {
    pub data: Vec<u8>,
    flip: bool,
    pub flushes: usize,
}

impl Write for TrickleWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.flip = !self.flip;
        if self.flip && !buf.is_empty() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "try again"));
        }
        let n = buf.len().min(3);
        self.data.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flushes += 1;
        Ok(())
    }
}

/// Runs `$body` once per source over `$bytes`, with `$dec` bound to a `&mut Decoder<..>` of that
/// source, and returns `Vec<(Src, T)>` with the body's value for each source. An optional
/// `limits = L` sets the decoders' limits.
macro_rules! each_source {
    ($bytes:expr, |$dec:ident| $body:expr) => {
        each_source!($bytes, limits = ::avrokit::Limits::default(), |$dec| $body)
    };
    ($bytes:expr, limits = $limits:expr, |$dec:ident| $body:expr) => {{
        let bytes: &[u8] = $bytes;
        let limits: ::avrokit::Limits = $limits;
        let mut out = Vec::new();
        {
            let mut d = ::avrokit::Decoder::from_slice(bytes).with_limits(limits);
            let $dec = &mut d;
            out.push(($crate::common::Src::Slice, $body));
        }
        for cap in $crate::common::CAPACITIES {
            let mut d =
                ::avrokit::Decoder::from_reader_with_capacity(cap, bytes).with_limits(limits);
            let $dec = &mut d;
            out.push(($crate::common::Src::Capacity(cap), $body));
        }
        {
            let mut d = ::avrokit::Decoder::from_reader(bytes).with_limits(limits);
            let $dec = &mut d;
            out.push(($crate::common::Src::Reader, $body));
        }
        {
            let mut d = ::avrokit::Decoder::from_reader($crate::common::Trickle::new(bytes, 3))
                .with_limits(limits);
            let $dec = &mut d;
            out.push(($crate::common::Src::Trickle(3), $body));
        }
        {
            let mut d = ::avrokit::Decoder::from_reader_with_capacity(
                4,
                $crate::common::Trickle::interrupted(bytes, 2),
            )
            .with_limits(limits);
            let $dec = &mut d;
            out.push(($crate::common::Src::Interrupted, $body));
        }
        out
    }};
}

/// Runs `$body` (a `avrokit::Result<()>`) once per sink with `$enc` bound to a
/// `&mut Encoder<..>`, flushes, and returns `Vec<(Snk, avrokit::Result<Vec<u8>>)>` with the
/// bytes each sink produced.
macro_rules! each_sink {
    (|$enc:ident| $body:expr) => {{
        use ::avrokit::Encoder;
        let mut out: Vec<($crate::common::Snk, ::avrokit::Result<Vec<u8>>)> = Vec::new();
        {
            let mut v = Vec::new();
            let r: ::avrokit::Result<()> = {
                let mut e = Encoder::new(&mut v);
                let $enc = &mut e;
                $body
            };
            out.push(($crate::common::Snk::Vec, r.map(|()| v)));
        }
        {
            let mut e = Encoder::buffered_with_capacity(16, Vec::new());
            let r: ::avrokit::Result<()> = {
                let $enc = &mut e;
                $body
            };
            let r = r
                .and_then(|()| e.flush())
                .and_then(|()| e.into_inner().into_inner());
            out.push(($crate::common::Snk::Buffered16, r));
        }
        {
            let mut e = Encoder::direct($crate::common::TrickleWriter::default());
            let r: ::avrokit::Result<()> = {
                let $enc = &mut e;
                $body
            };
            let r = r
                .and_then(|()| e.flush())
                .map(|()| e.into_inner().into_inner().data);
            out.push(($crate::common::Snk::Direct, r));
        }
        for block in $crate::common::BLOCK_SIZES {
            let mut e = Encoder::blocking(Vec::new(), block);
            let r: ::avrokit::Result<()> = {
                let $enc = &mut e;
                $body
            };
            let r = r
                .and_then(|()| e.flush())
                .map(|()| e.into_inner().into_inner());
            out.push(($crate::common::Snk::Blocking(block), r));
        }
        {
            let mut e = Encoder::blocking(
                ::avrokit::io::BufferedSink::with_capacity(16, Vec::new()),
                8,
            );
            let r: ::avrokit::Result<()> = {
                let $enc = &mut e;
                $body
            };
            let r = r
                .and_then(|()| e.flush())
                .and_then(|()| e.into_inner().into_inner().into_inner());
            out.push(($crate::common::Snk::BlockingBuffered, r));
        }
        out
    }};
}

pub(crate) use {each_sink, each_source};

/// Value equality that compares floats by their bits: NaN equals NaN with the same payload, and
/// `-0.0` differs from `0.0`.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) | (Value::Record(x), Value::Record(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, a), (kb, b))| ka == kb && same_value(a, b))
        }
        (Value::Union(i, x), Value::Union(j, y)) => i == j && same_value(x, y),
        _ => a == b,
    }
}

/// Panics unless `same_value(actual, expected)`.
#[track_caller]
pub fn assert_same(actual: &Value, expected: &Value, context: &str) {
    assert!(
        same_value(actual, expected),
        "{context}:\n  actual:   {actual:?}\n  expected: {expected:?}"
    );
}

/// Parses a schema, panicking with the parser's error.
#[track_caller]
pub fn schema(json: &str) -> Schema {
    match Schema::parse_str(json) {
        Ok(s) => s,
        Err(e) => panic!("schema does not parse: {e}\n{json}"),
    }
}

/// What one source made of one input.
#[derive(Debug)]
pub struct Decoded<T> {
    pub src: Src,
    pub result: Result<T>,
    /// `Decoder::offset()` after the call.
    pub offset: u64,
}

/// `read_value` through every source.
pub fn decode_all(bytes: &[u8], schema: &Schema) -> Vec<Decoded<Value>> {
    decode_all_with(bytes, schema, avrokit::Limits::default())
}

/// `read_value` through every source with the given limits.
pub fn decode_all_with(
    bytes: &[u8],
    schema: &Schema,
    limits: avrokit::Limits,
) -> Vec<Decoded<Value>> {
    each_source!(bytes, limits = limits, |dec| {
        let result = read_value(dec, schema);
        (result, dec.offset())
    })
    .into_iter()
    .map(|(src, (result, offset))| Decoded {
        src,
        result,
        offset,
    })
    .collect()
}

/// `skip_value` of the schema's root through every source.
pub fn skip_all(bytes: &[u8], schema: &Schema) -> Vec<Decoded<()>> {
    skip_all_with(bytes, schema, avrokit::Limits::default())
}

/// `skip_value` through every source with the given limits.
pub fn skip_all_with(bytes: &[u8], schema: &Schema, limits: avrokit::Limits) -> Vec<Decoded<()>> {
    each_source!(bytes, limits = limits, |dec| {
        let result = dec.skip_value(schema, schema.root_id());
        (result, dec.offset())
    })
    .into_iter()
    .map(|(src, (result, offset))| Decoded {
        src,
        result,
        offset,
    })
    .collect()
}

/// Decodes `bytes` through every source: each must give the same value and consume every byte.
#[track_caller]
pub fn decode_ok(bytes: &[u8], schema: &Schema) -> Value {
    let all = each_source!(bytes, |dec| {
        let v = read_value(dec, schema);
        let end = dec.is_empty();
        (v, dec.offset(), end)
    });
    let mut first: Option<Value> = None;
    for (src, (v, offset, end)) in all {
        let v = v.unwrap_or_else(|e| panic!("{src}: {e} decoding {}", hex::encode(bytes)));
        assert_eq!(offset, bytes.len() as u64, "{src}: offset after the datum");
        assert!(end.expect("is_empty"), "{src}: bytes left after the datum");
        match &first {
            None => first = Some(v),
            Some(f) => assert_same(&v, f, &format!("{src} disagrees with the slice")),
        }
    }
    first.expect("at least one source")
}

/// Skips `bytes` through every source: each must succeed and consume every byte.
#[track_caller]
pub fn skip_ok(bytes: &[u8], schema: &Schema) {
    for d in skip_all(bytes, schema) {
        if let Err(e) = d.result {
            panic!(
                "{}: skip_value failed: {e} on {}",
                d.src,
                hex::encode(bytes)
            );
        }
        assert_eq!(
            d.offset,
            bytes.len() as u64,
            "{}: skip_value consumed",
            d.src
        );
    }
}

/// `write_value` through every sink.
pub fn encode_all(value: &Value, schema: &Schema) -> Vec<(Snk, Result<Vec<u8>>)> {
    each_sink!(|enc| write_value(enc, value, schema))
}

/// Encodes through every sink. Non-blocking sinks must give identical bytes (returned);
/// blocking sinks must give bytes that decode (through every source) to the same value as the
/// plain bytes, and that `skip_value` skips exactly.
#[track_caller]
pub fn encode_ok(value: &Value, schema: &Schema) -> Vec<u8> {
    let all = encode_all(value, schema);
    let plain = match &all[0] {
        (Snk::Vec, Ok(b)) => b.clone(),
        (s, Err(e)) => panic!("{s}: {e} encoding {value:?}"),
        _ => unreachable!("the Vec sink comes first"),
    };
    let expected = decode_ok(&plain, schema);
    for (snk, r) in all {
        let bytes = r.unwrap_or_else(|e| panic!("{snk}: {e} encoding {value:?}"));
        if snk.is_blocking() {
            let v = decode_ok(&bytes, schema);
            assert_same(
                &v,
                &expected,
                &format!("{snk} bytes {}", hex::encode(&bytes)),
            );
            skip_ok(&bytes, schema);
        } else {
            assert_eq!(
                hex::encode(&bytes),
                hex::encode(&plain),
                "{snk} differs from Vec"
            );
        }
    }
    plain
}

/// The full round trip: every sink, every source, the value comes back the same and
/// `skip_value` consumes exactly the datum. Returns the plain bytes.
#[track_caller]
pub fn roundtrip(value: &Value, schema: &Schema) -> Vec<u8> {
    let bytes = encode_ok(value, schema);
    let back = decode_ok(&bytes, schema);
    assert_same(
        &back,
        value,
        &format!("round trip of {}", hex::encode(&bytes)),
    );
    skip_ok(&bytes, schema);
    assert_eq!(
        avrokit::to_datum_vec(value, schema).expect("to_datum_vec"),
        bytes
    );
    let direct = avrokit::from_datum_slice(&bytes, schema).expect("from_datum_slice");
    assert_same(&direct, value, "from_datum_slice");
    bytes
}

/// Checks that an error is of `kind`, with an offset inside an input of `len` bytes.
#[track_caller]
pub fn assert_err(e: &Error, kinds: &[ErrorKind], len: usize, context: &str) {
    assert!(
        kinds.contains(&e.kind()),
        "{context}: expected {kinds:?}, got {:?}: {e}",
        e.kind()
    );
    if let Some(off) = e.offset() {
        assert!(
            off <= len as u64,
            "{context}: offset {off} beyond the {len}-byte input: {e}"
        );
    }
}

/// Decodes hex with optional spaces.
pub fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(s).expect("valid hex")
}

/// The LEB128 varint of the zigzag encoding of `n`, written the slow obvious way, as a reference
/// independent of the library.
pub fn reference_long(n: i64) -> Vec<u8> {
    let mut z = ((n as i128) * 2).unsigned_abs();
    if n < 0 {
        z -= 1;
    }
    let mut out = Vec::new();
    loop {
        let byte = (z % 128) as u8;
        z /= 128;
        if z == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

/// Reads the rest of a source-backed decoder's input into a vector, for `into_parts` checks.
pub fn read_rest(mut buffered: Vec<u8>, mut reader: impl Read) -> Vec<u8> {
    reader.read_to_end(&mut buffered).expect("read the rest");
    buffered
}
