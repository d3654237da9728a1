//! The properties the fuzz targets check, shared with `crates/avrokit/tests/fuzz_regressions.rs`
//! (which includes this file with `#[path]`), so the committed corpus and every regression input
//! are replayed through exactly the same checks in CI, without libFuzzer.
//!
//! Each `check_*` function takes the raw fuzz input and panics when a property fails. Errors
//! from the library are fine (hostile input); panics, disagreements and broken round trips are
//! not. Each returns what it concluded about the input, so a regression test can assert that a
//! crashing input now gives a clean error (or is accepted, when it is valid).

use std::io::Read;

use avrokit::container::ReaderBuilder;
use avrokit::io::ReaderSource;
use avrokit::json::{to_json_string, JsonReader};
use avrokit::value::{read_value, read_value_resolved};
use avrokit::{
    from_datum_slice, to_datum_vec, Decoder, Error, Limits, ResolvedPlan, Schema, Value,
};

/// The fixed schema of `datum_fixed_schema` and `json_decode`: every primitive, every logical
/// type, enums, fixed, arrays, maps, unions, zero-byte items and recursion.
pub const RICH_SCHEMA: &str = include_str!("../schemas/rich.avsc");

/// Limits for every decoder the checks create: small enough that libFuzzer's RSS limit is
/// never what stops a hostile input.
pub fn limits() -> Limits {
    Limits::default()
        .with_max_alloc(16 << 20)
        .with_max_depth(128)
}

/// What a check made of its input.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The input was not even the right shape (not UTF-8, no separator, ...).
    Skipped,
    /// The library rejected the input with an error.
    Rejected(avrokit::ErrorKind),
    /// The library accepted the input, and every property held.
    Accepted,
}

impl Outcome {
    fn of<T>(r: &Result<T, Error>) -> Outcome {
        match r {
            Ok(_) => Outcome::Accepted,
            Err(e) => Outcome::Rejected(e.kind()),
        }
    }
}

/// The rich schema, parsed once.
pub fn rich_schema() -> Schema {
    static RICH: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();
    RICH.get_or_init(|| Schema::parse_str(RICH_SCHEMA).expect("the rich schema parses"))
        .clone()
}

/// An `io::Read` that hands out at most one byte per call, so every refill path of
/// `ReaderSource` is exercised.
pub struct OneByte<'a>(pub &'a [u8]);

impl Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match (self.0.split_first(), buf.is_empty()) {
            (Some((&b, rest)), false) => {
                buf[0] = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// Splits `data` at the first NUL byte (which valid schema JSON never contains).
pub fn split_nul(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = data.iter().position(|&b| b == 0)?;
    Some((&data[..at], &data[at + 1..]))
}

/// Equality of values that tells NaNs apart by their bits (and `0.0` from `-0.0`).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) | (Value::Record(x), Value::Record(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        (Value::Union(i, x), Value::Union(j, y)) => i == j && same(x, y),
        _ => a == b,
    }
}

#[track_caller]
fn assert_same(a: &Value, b: &Value, what: &str) {
    assert!(same(a, b), "{what}:\n left: {a:?}\nright: {b:?}");
}

/// Whether `e`, from writing `v`, is the one refusal a writer may make of a value a reader
/// accepted: a decimal with more digits than its schema's precision. Readers take those as they
/// are (Java's decoder does too), every writer refuses them (as Java's `DecimalConversion` does).
fn over_precise_decimal(e: &Error, v: &Value) -> bool {
    fn holds_decimal(v: &Value) -> bool {
        match v {
            Value::Decimal(_) => true,
            Value::Array(items) | Value::Record(items) => items.iter().any(holds_decimal),
            Value::Map(entries) => entries.iter().any(|(_, v)| holds_decimal(v)),
            Value::Union(_, v) => holds_decimal(v),
            _ => false,
        }
    }
    e.kind() == avrokit::ErrorKind::Data
        && e.to_string().contains("digits of its schema")
        && holds_decimal(v)
}

/// A value decoded with `schema` must encode, and decode back to itself (unless it holds an
/// over-precise decimal, which no writer writes).
#[track_caller]
pub fn check_binary_round_trip(v: &Value, schema: &Schema) {
    let bytes = match to_datum_vec(v, schema) {
        Ok(bytes) => bytes,
        Err(e) if over_precise_decimal(&e, v) => return,
        Err(e) => panic!("a decoded value does not encode: {e}\n{v:?}"),
    };
    let back = from_datum_slice(&bytes, schema)
        .unwrap_or_else(|e| panic!("an encoded value does not decode: {e}\n{v:?}\n{bytes:02x?}"));
    assert_same(v, &back, "binary round trip");
}

/// Decodes one datum of `schema` from the front of `data`, from a slice and through a reader
/// that returns one byte per read: both must agree (the same value and the same number of bytes
/// read, or both an error). An accepted value must round-trip.
pub fn check_datum(schema: &Schema, data: &[u8]) -> Outcome {
    let mut slice = Decoder::from_slice(data).with_limits(limits());
    let from_slice = read_value(&mut slice, schema);
    let mut reader =
        Decoder::new(ReaderSource::with_capacity(64, OneByte(data))).with_limits(limits());
    let from_reader = read_value(&mut reader, schema);
    match (&from_slice, &from_reader) {
        (Ok(a), Ok(b)) => {
            assert_same(a, b, "slice and reader decoding disagree");
            assert_eq!(
                slice.offset(),
                reader.offset(),
                "slice and reader read different lengths"
            );
            check_binary_round_trip(a, schema);
        }
        (Err(_), Err(_)) => {}
        (a, b) => panic!("slice and reader decoding disagree:\n slice: {a:?}\nreader: {b:?}"),
    }
    Outcome::of(&from_slice)
}

/// Target `schema_parse`: the input as schema JSON. When it parses, the canonical form must be
/// a fixed point, fingerprints stable across a re-parse, and the schema written back as JSON
/// must parse to the same canonical form (and write back the same JSON).
pub fn check_schema_parse(data: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(data) else {
        return Outcome::Skipped;
    };
    let schema = match Schema::parse_str(text) {
        Ok(s) => s,
        Err(e) => return Outcome::Rejected(e.kind()),
    };
    let canonical = schema.canonical_form();
    let json = schema.to_json();
    // The specification's canonical form writes a named type of the null namespace by its bare
    // name, which a parser reads in the enclosing namespace when that is not null: Java's form
    // (and so every fingerprint) has the same flaw, so such schemas are exempt.
    if !null_namespace_inside_namespace(&json, "") {
        let again = Schema::parse_str(&canonical)
            .unwrap_or_else(|e| panic!("the canonical form does not parse: {e}\n{canonical}"));
        assert_eq!(
            again.canonical_form(),
            canonical,
            "canonical form is not idempotent"
        );
        assert_eq!(again.fingerprint_rabin(), schema.fingerprint_rabin());
        assert_eq!(again.fingerprint_md5(), schema.fingerprint_md5());
        assert_eq!(again.fingerprint_sha256(), schema.fingerprint_sha256());
    }

    let written = Schema::parse_json(&json)
        .unwrap_or_else(|e| panic!("the schema written back does not parse: {e}\n{json}"));
    assert_eq!(
        written.canonical_form(),
        canonical,
        "writing back changed the schema\n{json}"
    );
    assert_eq!(written.to_json(), json, "writing back is not idempotent");
    let text = schema.to_string();
    let reparsed = Schema::parse_str(&text)
        .unwrap_or_else(|e| panic!("the schema's text does not parse: {e}\n{text}"));
    assert_eq!(reparsed.canonical_form(), canonical);
    Outcome::Accepted
}

/// True when the schema JSON defines a named type of the null namespace inside a named type
/// whose namespace is not null (`enclosing`: the namespace names are read in).
fn null_namespace_inside_namespace(json: &serde_json::Value, enclosing: &str) -> bool {
    match json {
        serde_json::Value::Array(branches) => branches
            .iter()
            .any(|b| null_namespace_inside_namespace(b, enclosing)),
        serde_json::Value::Object(o) => {
            let mut ns = enclosing.to_owned();
            if let Some(name) = o.get("name").and_then(|n| n.as_str()) {
                if o.contains_key("symbols") || o.contains_key("size") || o.contains_key("fields") {
                    ns = match (name.rfind('.'), o.get("namespace")) {
                        (Some(dot), _) => name[..dot].to_owned(),
                        (None, Some(serde_json::Value::String(n))) => n.clone(),
                        (None, _) => enclosing.to_owned(),
                    };
                    if ns.is_empty() && !enclosing.is_empty() {
                        return true;
                    }
                }
            }
            let fields = o.get("fields").and_then(|f| f.as_array());
            fields
                .into_iter()
                .flatten()
                .filter_map(|f| f.get("type"))
                .chain(["type", "items", "values"].iter().filter_map(|k| o.get(*k)))
                .any(|t| null_namespace_inside_namespace(t, &ns))
        }
        _ => false,
    }
}

/// Target `datum_fixed_schema`: the input as one datum of [`RICH_SCHEMA`].
pub fn check_datum_fixed_schema(data: &[u8]) -> Outcome {
    check_datum(&rich_schema(), data)
}

/// Target `datum_fuzzed_schema`: schema JSON, a NUL byte, then the datum bytes.
pub fn check_datum_fuzzed_schema(data: &[u8]) -> Outcome {
    let Some((schema, datum)) = split_nul(data) else {
        return Outcome::Skipped;
    };
    let Ok(schema) = std::str::from_utf8(schema) else {
        return Outcome::Skipped;
    };
    match Schema::parse_str(schema) {
        Ok(schema) => check_datum(&schema, datum),
        Err(e) => Outcome::Rejected(e.kind()),
    }
}

/// Target `resolved`: writer schema JSON, NUL, reader schema JSON, NUL, datum bytes. The plan
/// may fail to compile; a datum read through it must be a valid value of the reader's schema,
/// and reading from a slice and through a one-byte reader must agree.
pub fn check_resolved(data: &[u8]) -> Outcome {
    let Some((writer, rest)) = split_nul(data) else {
        return Outcome::Skipped;
    };
    let Some((reader, datum)) = split_nul(rest) else {
        return Outcome::Skipped;
    };
    let (Ok(writer), Ok(reader)) = (std::str::from_utf8(writer), std::str::from_utf8(reader))
    else {
        return Outcome::Skipped;
    };
    let (writer, reader) = match (Schema::parse_str(writer), Schema::parse_str(reader)) {
        (Ok(w), Ok(r)) => (w, r),
        (Err(e), _) | (_, Err(e)) => return Outcome::Rejected(e.kind()),
    };
    let plan = match ResolvedPlan::compile(&writer, &reader) {
        Ok(p) => p,
        Err(e) => return Outcome::Rejected(e.kind()),
    };
    let mut slice = Decoder::from_slice(datum).with_limits(limits());
    let from_slice = read_value_resolved(&mut slice, &plan);
    let mut one =
        Decoder::new(ReaderSource::with_capacity(64, OneByte(datum))).with_limits(limits());
    let from_reader = read_value_resolved(&mut one, &plan);
    match (&from_slice, &from_reader) {
        (Ok(a), Ok(b)) => {
            assert_same(a, b, "resolved slice and reader decoding disagree");
            assert_eq!(
                slice.offset(),
                one.offset(),
                "slice and reader read different lengths"
            );
            check_binary_round_trip(a, &reader);
        }
        (Err(_), Err(_)) => {}
        (a, b) => panic!("resolved decoding disagrees:\n slice: {a:?}\nreader: {b:?}"),
    }
    Outcome::of(&from_slice)
}

/// Records read from one container file at most. A block of records that take no bytes (a
/// `null` schema) may claim up to `max_alloc` of them in a few bytes, validly: reading them all
/// is linear in that count, not in the input, so the target stops early instead.
const MAX_RECORDS: usize = 100_000;

/// What reading a container file gave: the number of records read, the first few of them,
/// and how reading ended.
struct ReadAll {
    count: usize,
    first: Vec<Value>,
    end: Result<(), Error>,
}

/// Reads the records of a container file, stopping at the first error (or at
/// [`MAX_RECORDS`]).
fn read_all<R: Read>(reader: Result<avrokit::container::Reader<'_, R>, Error>) -> ReadAll {
    let mut out = ReadAll {
        count: 0,
        first: Vec::new(),
        end: Ok(()),
    };
    let reader = match reader {
        Ok(r) => r,
        Err(e) => {
            out.end = Err(e);
            return out;
        }
    };
    for v in reader.take(MAX_RECORDS) {
        match v {
            Ok(v) => {
                out.count += 1;
                // Keep memory bounded: past a few records only the count is compared.
                if out.first.len() < 64 {
                    out.first.push(v);
                }
            }
            Err(e) => {
                out.end = Err(e);
                break;
            }
        }
    }
    out
}

/// Target `container_read`: the input as an object container file, read in memory and through
/// a one-byte reader; both must yield the same records and both fail or both succeed.
pub fn check_container_read(data: &[u8]) -> Outcome {
    let builder = ReaderBuilder::new().with_limits(limits());
    let a = read_all(builder.clone().build_slice(data));
    let b = read_all(builder.with_buffer_capacity(7).build(OneByte(data)));
    assert_eq!(
        a.count, b.count,
        "slice and stream read different numbers of records:\n slice: {:?}\nstream: {:?}",
        a.end, b.end
    );
    for (x, y) in a.first.iter().zip(&b.first) {
        assert_same(x, y, "slice and stream container reading disagree");
    }
    assert_eq!(
        a.end.is_ok(),
        b.end.is_ok(),
        "slice and stream container reading disagree:\n slice: {:?}\nstream: {:?}",
        a.end,
        b.end
    );
    Outcome::of(&a.end)
}

/// Target `json_decode`: the input as Avro JSON text of [`RICH_SCHEMA`]. An accepted value must
/// write back to JSON that reads as the same value, and encode to binary and back.
pub fn check_json_decode(data: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(data) else {
        return Outcome::Skipped;
    };
    let schema = rich_schema();
    check_json(&schema, text)
}

/// Reads one value of `schema` from JSON `text` (with the fuzz limits) and checks the round
/// trips of an accepted value.
pub fn check_json(schema: &Schema, text: &str) -> Outcome {
    let read = |text: &str| -> Result<Option<Value>, Error> {
        let mut r = JsonReader::new(text, schema).with_limits(limits());
        let v = r.read_value()?;
        r.end()?;
        Ok(v)
    };
    let v = match read(text) {
        Ok(Some(v)) => v,
        Ok(None) => return Outcome::Skipped,
        Err(e) => return Outcome::Rejected(e.kind()),
    };
    for pretty in [false, true] {
        let out = match to_json_string(&v, schema, pretty) {
            Ok(out) => out,
            Err(e) if over_precise_decimal(&e, &v) => return Outcome::Accepted,
            Err(e) => panic!("a value read from JSON does not write: {e}\n{v:?}"),
        };
        let back = read(&out)
            .unwrap_or_else(|e| panic!("written JSON does not read back: {e}\n{out}"))
            .expect("written JSON holds a value");
        assert_same(&v, &back, "JSON round trip");
    }
    check_binary_round_trip(&v, schema);
    Outcome::Accepted
}
