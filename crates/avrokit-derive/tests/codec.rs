//! The generated codecs (`AvroEncode`/`AvroDecode` from `#[derive(AvroSchema)]`): for every
//! shape, the bytes equal the serde front end's and the `Value` encoding's, they read back,
//! every truncation is an end-of-input error, and hostile input gives errors, not panics.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use avrokit::codec::{self, AvroDecodeOwned, CodecPlan};
use avrokit::container::{Reader, WriterBuilder};
use avrokit::io::BlockingSink;
use avrokit::serde::{DePlan, SerPlan, Serializer};
use avrokit::{AvroDecode, AvroEncode, AvroSchema, Decoder, Encoder, ErrorKind, Limits, Schema};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Checks `v` against the serde path and the `Value` encoding, and reads it back every way.
#[track_caller]
fn check<T>(v: &T) -> Vec<u8>
where
    T: AvroSchema + AvroEncode + AvroDecodeOwned + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let schema = T::schema();
    let bytes = codec::to_datum_vec(v).unwrap();
    let serde_bytes = avrokit::serde::to_datum_vec(v, &SerPlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(bytes, serde_bytes, "codec and serde bytes differ");
    let value = avrokit::from_datum_slice(&bytes, &schema).unwrap();
    assert_eq!(avrokit::to_datum_vec(&value, &schema).unwrap(), bytes);

    let back: T = codec::from_datum_slice(&bytes).unwrap();
    assert_eq!(&back, v);
    let back: T = codec::from_datum_reader(&bytes[..]).unwrap();
    assert_eq!(&back, v);
    let mut dec = Decoder::from_reader_with_capacity(1, &bytes[..]);
    let back = T::decode(&mut dec).unwrap();
    assert_eq!(&back, v);
    let serde_back: T =
        avrokit::serde::from_datum_slice(&bytes, &DePlan::compile(&schema).unwrap()).unwrap();
    assert_eq!(&serde_back, v);

    let plan = CodecPlan::<T>::new().unwrap();
    assert!(plan.is_exact());
    let mut into: T = codec::from_datum_slice(&bytes).unwrap();
    plan.decode_into(&mut into, &mut Decoder::from_slice(&bytes))
        .unwrap();
    assert_eq!(&into, v);

    for n in 0..bytes.len() {
        match codec::from_datum_slice::<T>(&bytes[..n]) {
            Ok(x) => panic!("prefix of {n} bytes read as {x:?}"),
            Err(e) => assert!(e.is_eof(), "prefix of {n} bytes: {e}"),
        }
    }
    bytes
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Prims {
    b: bool,
    i8: i8,
    i16: i16,
    i: i32,
    u8: u8,
    u16: u16,
    u32: u32,
    l: i64,
    u64: u64,
    f: f32,
    d: f64,
    s: String,
    c: char,
    unit: (),
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
struct Inner {
    name: String,
    score: f64,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename_all = "camelCase")]
struct Collections {
    floats: Vec<f32>,
    doubles: Vec<f64>,
    ints: Vec<i32>,
    longs: Vec<i64>,
    bools: Vec<bool>,
    strings: Vec<String>,
    blob: Vec<u8>,
    #[serde(with = "serde_bytes")]
    raw: Vec<u8>,
    blobs: Vec<Vec<u8>>,
    maybe_blob: Option<Vec<u8>>,
    id: [u8; 4],
    counts: HashMap<String, i64>,
    series: BTreeMap<String, Vec<f64>>,
    inners: Vec<Inner>,
    boxed: Box<Inner>,
    nested: Vec<Vec<i32>>,
    units: Vec<()>,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum Suit {
    Hearts,
    #[serde(rename = "SPADES")]
    Spades,
    Clubs,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
enum Shape {
    Empty,
    Count(i64),
    Label(String),
    Point { x: f64, y: f64 },
    Pair(i32, String),
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Node {
    value: i32,
    next: Option<Box<Node>>,
    children: Vec<Node>,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Millis(i64);

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Tagged {
    suit: Suit,
    shape: Shape,
    shapes: Vec<Shape>,
    maybe: Option<Suit>,
    at: Millis,
    #[serde(skip)]
    cache: u32,
    #[avro(schema = r#"["long","null"]"#)]
    null_second: Option<i64>,
    #[avro(logical_type = "timestamp-millis")]
    stamp: i64,
}

#[test]
fn primitives() {
    check(&Prims {
        b: true,
        i8: -8,
        i16: -1600,
        i: i32::MIN,
        u8: 200,
        u16: 60_000,
        u32: u32::MAX,
        l: i64::MAX,
        u64: 1 << 62,
        f: -1.5,
        d: f64::MIN_POSITIVE,
        s: "héllo".into(),
        c: 'ß',
        unit: (),
    });
}

fn collections() -> Collections {
    Collections {
        floats: (0..100).map(|i| i as f32 * 0.25).collect(),
        doubles: vec![1.0, -2.5, f64::MAX],
        ints: vec![0, -1, i32::MAX, i32::MIN],
        longs: vec![i64::MIN, 7],
        bools: vec![true, false, true],
        strings: vec!["a".into(), String::new()],
        blob: vec![0, 1, 255],
        raw: b"raw".to_vec(),
        blobs: vec![vec![1], vec![]],
        maybe_blob: Some(vec![9; 3]),
        id: *b"abcd",
        counts: [("x".to_owned(), 1), ("y".to_owned(), -2)].into(),
        series: [("s".to_owned(), vec![0.5])].into(),
        inners: vec![Inner {
            name: "i".into(),
            score: 2.0,
        }],
        boxed: Box::new(Inner::default()),
        nested: vec![vec![1, 2], vec![]],
        units: vec![(), ()],
    }
}

#[test]
fn collections_and_bytes() {
    check(&collections());
    let mut empty = collections();
    empty.floats.clear();
    empty.counts.clear();
    empty.maybe_blob = None;
    empty.units.clear();
    check(&empty);
}

#[test]
fn enums_unions_recursion_and_attributes() {
    let t = Tagged {
        suit: Suit::Spades,
        shape: Shape::Point { x: 1.0, y: -1.0 },
        shapes: vec![
            Shape::Empty,
            Shape::Count(-3),
            Shape::Label("l".into()),
            Shape::Pair(4, "p".into()),
        ],
        maybe: Some(Suit::Clubs),
        at: Millis(1_700_000_000_000),
        cache: 0,
        null_second: Some(5),
        stamp: 42,
    };
    let bytes = check(&t);
    // `["long","null"]`: `Some(5)` is branch 0 then 10; the byte after the millis newtype.
    let plain = Tagged {
        null_second: None,
        ..t.clone()
    };
    assert_ne!(codec::to_datum_vec(&plain).unwrap(), bytes);
    check(&plain);
    check(&Node {
        value: 1,
        next: Some(Box::new(Node {
            value: 2,
            next: None,
            children: vec![],
        })),
        children: vec![Node {
            value: 3,
            next: None,
            children: vec![],
        }],
    });
}

#[test]
fn skipped_fields_read_as_their_default() {
    let t = Tagged {
        suit: Suit::Hearts,
        shape: Shape::Empty,
        shapes: vec![],
        maybe: None,
        at: Millis(0),
        cache: 99,
        null_second: None,
        stamp: 0,
    };
    let bytes = codec::to_datum_vec(&t).unwrap();
    let back: Tagged = codec::from_datum_slice(&bytes).unwrap();
    assert_eq!(back.cache, 0);
}

#[derive(AvroSchema, Debug, PartialEq)]
struct Borrowed<'a> {
    name: &'a str,
    note: Cow<'a, str>,
    raw: &'a [u8],
    maybe: Option<&'a str>,
}

#[derive(AvroSchema, Serialize, Debug, PartialEq)]
#[serde(rename = "Borrowed")]
struct Owned {
    name: String,
    note: String,
    #[serde(with = "serde_bytes")]
    raw: Vec<u8>,
    maybe: Option<String>,
}

#[test]
fn borrowed_fields_point_into_the_input() {
    let owned = Owned {
        name: "n".into(),
        note: "note".into(),
        raw: vec![1, 2, 3],
        maybe: Some("m".into()),
    };
    let bytes = codec::to_datum_vec(&owned).unwrap();
    let b: Borrowed<'_> = codec::from_datum_slice(&bytes).unwrap();
    assert_eq!(
        (b.name, &*b.note, b.raw, b.maybe),
        ("n", "note", &[1u8, 2, 3][..], Some("m"))
    );
    assert!(matches!(b.note, Cow::Borrowed(_)));
    let range = bytes.as_ptr_range();
    assert!(range.contains(&b.name.as_ptr()) && range.contains(&b.raw.as_ptr()));
    assert_eq!(codec::to_datum_vec(&b).unwrap(), bytes);
    // A reader cannot lend its bytes: an error, not a copy behind the caller's back.
    let e = Borrowed::decode(&mut Decoder::from_reader(&bytes[..])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
}

#[test]
fn arrays_written_in_blocks_match_serde_and_read_back() {
    let c = collections();
    let schema = Collections::schema();
    let plan = SerPlan::compile(&schema).unwrap();
    for java in [false, true] {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let sink = |out| match java {
            true => BlockingSink::java_compatible(out, 64),
            false => BlockingSink::new(out, 16),
        };
        let mut enc = Encoder::new(sink(&mut a));
        c.encode(&mut enc).unwrap();
        enc.flush().unwrap();
        drop(enc);
        let mut ser = Serializer::new(sink(&mut b), &plan);
        ser.serialize(&c).unwrap();
        ser.flush().unwrap();
        drop(ser);
        assert_eq!(a, b, "java = {java}");
        let back: Collections = codec::from_datum_slice(&a).unwrap();
        assert_eq!(back, c);
    }
}

#[test]
fn decode_into_reuses_and_overwrites() {
    let mut v = collections();
    let mut other = collections();
    other.floats.truncate(3);
    other.strings = vec!["zz".into(); 5];
    other.counts.clear();
    other.boxed.name = "b".into();
    let bytes = codec::to_datum_vec(&other).unwrap();
    let cap = v.floats.capacity();
    v.decode_into(&mut Decoder::from_slice(&bytes)).unwrap();
    assert_eq!(v, other);
    assert_eq!(v.floats.capacity(), cap);
}

#[derive(AvroSchema, Debug, PartialEq)]
#[avro(name = "Keyed")]
struct KeyedRef<'a> {
    counts: BTreeMap<&'a str, i64>,
    notes: HashMap<Cow<'a, str>, &'a str>,
    // Values that are not read through the traits (null second): the derive's own map code.
    #[avro(schema = r#"{"type":"map","values":["int","null"]}"#)]
    late: BTreeMap<&'a str, Option<i32>>,
}

#[derive(AvroSchema, Serialize, Debug, PartialEq)]
#[serde(rename = "Keyed")]
struct Keyed {
    counts: BTreeMap<Box<str>, i64>,
    notes: HashMap<String, String>,
    #[avro(schema = r#"{"type":"map","values":["int","null"]}"#)]
    late: BTreeMap<String, Option<i32>>,
}

#[test]
fn map_keys_borrow_or_own_as_fields_do() {
    let keyed = Keyed {
        counts: [("b".into(), -2), ("a".into(), 1)].into_iter().collect(),
        notes: [("k".into(), "v".to_owned())].into_iter().collect(),
        late: [("x".into(), None), ("y".into(), Some(7))]
            .into_iter()
            .collect(),
    };
    let bytes = codec::to_datum_vec(&keyed).unwrap();
    let serde_bytes =
        avrokit::serde::to_datum_vec(&keyed, &SerPlan::compile(&Keyed::schema()).unwrap()).unwrap();
    assert_eq!(bytes, serde_bytes);
    // Owned keys of every pointer read back.
    let mut dec = Decoder::from_reader(&bytes[..]);
    let counts = BTreeMap::<Box<str>, i64>::decode(&mut dec).unwrap();
    assert_eq!(counts, keyed.counts);
    let notes = HashMap::<std::sync::Arc<str>, String>::decode(&mut dec).unwrap();
    assert_eq!(notes.get("k").map(String::as_str), Some("v"));
    assert_eq!(notes.len(), 1);
    let small = codec::to_datum_vec(&BTreeMap::from([("r", 3i32)])).unwrap();
    let rc: BTreeMap<std::rc::Rc<str>, i32> = codec::from_datum_reader(&small[..]).unwrap();
    assert_eq!(rc.get("r"), Some(&3));

    // Borrowed keys point into the input, through the traits and the derive's own map code.
    let b: KeyedRef<'_> = codec::from_datum_slice(&bytes).unwrap();
    assert_eq!(b.counts, BTreeMap::from([("a", 1), ("b", -2)]));
    assert_eq!(b.notes.get("k"), Some(&"v"));
    assert_eq!(b.late, BTreeMap::from([("x", None), ("y", Some(7))]));
    let range = bytes.as_ptr_range();
    assert!(b.counts.keys().all(|k| range.contains(&k.as_ptr())));
    assert!(b.late.keys().all(|k| range.contains(&k.as_ptr())));
    assert!(b.notes.keys().all(|k| matches!(k, Cow::Borrowed(_))));
    assert_eq!(codec::to_datum_vec(&b).unwrap(), bytes);
    // From a reader, a borrowed key is an error (not a hidden copy), and a `Cow` key copies.
    let e = KeyedRef::decode(&mut Decoder::from_reader(&bytes[..])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    let mut dec = Decoder::from_reader(&bytes[..]);
    BTreeMap::<String, i64>::decode(&mut dec).unwrap();
    let notes = HashMap::<Cow<'_, str>, String>::decode(&mut dec).unwrap();
    assert!(notes.keys().all(|k| matches!(k, Cow::Owned(_))));
    // A bad value names its key.
    let mut bad = codec::to_datum_vec(&BTreeMap::from([("key", "v")])).unwrap();
    let at = bad.len() - 2; // the value's one byte: not UTF-8
    bad[at] = 0xff;
    let e = codec::from_datum_slice::<BTreeMap<&str, &str>>(&bad).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    assert!(e.to_string().contains("key"), "{e}");
}

fn decode_err<T: for<'de> AvroDecode<'de> + Debug>(bytes: &[u8]) -> avrokit::Error {
    codec::from_datum_slice::<T>(bytes).unwrap_err()
}

#[test]
fn malformed_input_gives_errors() {
    // A huge array count: refused before anything is reserved.
    let e = decode_err::<Vec<f64>>(&[0xfe, 0xff, 0xff, 0xff, 0x0f]);
    assert!(e.is_eof(), "{e}");
    let e = decode_err::<Vec<()>>(&[0xfe, 0xff, 0xff, 0xff, 0x0f]);
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    let e = decode_err::<HashMap<String, i32>>(&[0xfe, 0xff, 0xff, 0xff, 0x0f]);
    assert!(e.is_eof(), "{e}");
    // Bad union and enum indexes.
    let e = decode_err::<Option<i32>>(&[0x04]);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    let e = decode_err::<Shape>(&[0x0a]);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    let e = decode_err::<Suit>(&[0x06]);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    // Invalid UTF-8, a bad boolean in a bulk array, an int out of range.
    let e = decode_err::<String>(&[0x02, 0xff]);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    let e = decode_err::<Vec<bool>>(&[0x04, 0x01, 0x02, 0x00]);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    assert!(e.to_string().contains("[1]"), "{e}");
    let e = decode_err::<i8>(&[0x80, 0x02]);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    // The path names the field.
    let mut bytes = codec::to_datum_vec(&Inner::default()).unwrap();
    bytes[0] = 0x02;
    bytes.insert(1, 0xc0);
    let e = decode_err::<Inner>(&bytes);
    assert!(e.to_string().contains("name"), "{e}");
    // Deep recursion is a limit, not a stack overflow.
    let mut deep = Vec::new();
    for _ in 0..100_000 {
        deep.extend_from_slice(&[0x02, 0x02]); // value 1, next: Some
    }
    deep.extend_from_slice(&[0x02, 0x00, 0x00]);
    let e = decode_err::<Node>(&deep);
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    // The allocation limit holds for bulk arrays.
    let bytes = codec::to_datum_vec(&vec![1.0f64; 64]).unwrap();
    let mut dec = Decoder::from_slice(&bytes).with_limits(Limits {
        max_alloc: 100,
        ..Limits::default()
    });
    let e = Vec::<f64>::decode(&mut dec).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
}

/// `items` as an array in blocks of about 8 bytes, each block with its byte size.
fn in_sized_blocks<T: AvroEncode + Clone>(items: &[T]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = Encoder::new(BlockingSink::new(&mut out, 8));
    items.to_vec().encode(&mut enc).unwrap();
    enc.flush().unwrap();
    drop(enc);
    out
}

/// Arrays of `int`s and `long`s are read a block at a time in one loop: every varint length,
/// blocks with byte sizes, slices and readers, the last items within 10 bytes of the end, and
/// errors that name the item.
#[test]
fn integer_arrays_read_in_bulk_as_item_by_item() {
    let mut longs = vec![
        0i64,
        -1,
        1,
        i64::MIN,
        i64::MAX,
        i32::MIN as i64,
        i32::MAX as i64,
    ];
    let mut ints = vec![0i32, -1, 1, i32::MIN, i32::MAX];
    for shift in 0..63 {
        longs.extend([1i64 << shift, -(1i64 << shift), (1i64 << shift) - 1]);
    }
    for shift in 0..31 {
        ints.extend([1i32 << shift, -(1i32 << shift), (1i32 << shift) - 1]);
    }
    let long_schema = Schema::parse_str(r#"{"type":"array","items":"long"}"#).unwrap();
    let int_schema = Schema::parse_str(r#"{"type":"array","items":"int"}"#).unwrap();
    for n in 0..longs.len() {
        let ls = &longs[..n];
        let is = &ints[..n.min(ints.len())];
        check(&ls.to_vec());
        check(&is.to_vec());
        check(&ls.iter().map(|&v| v as u32).collect::<Vec<u32>>());
        // The same items in blocks of about 8 bytes, each with its byte size.
        let bytes = in_sized_blocks(ls);
        assert!(
            n < 2 || bytes[0] & 1 == 1,
            "a sized block starts with a negative count"
        );
        assert_eq!(codec::from_datum_slice::<Vec<i64>>(&bytes).unwrap(), ls);
        assert_eq!(
            codec::from_datum_reader::<Vec<i64>, _>(&bytes[..]).unwrap(),
            ls
        );
        let value = avrokit::from_datum_slice(&bytes, &long_schema).unwrap();
        assert_eq!(
            avrokit::to_datum_vec(&value, &long_schema).unwrap(),
            codec::to_datum_vec(&ls.to_vec()).unwrap()
        );
        let bytes = in_sized_blocks(is);
        assert_eq!(codec::from_datum_slice::<Vec<i32>>(&bytes).unwrap(), is);
        assert!(avrokit::from_datum_slice(&bytes, &int_schema).is_ok());
    }
    // Narrow items: the failing item is named, with its offset.
    let bytes = codec::to_datum_vec(&vec![1i32, 2, 300, 4]).unwrap();
    let e = decode_err::<Vec<i8>>(&bytes);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    assert!(e.to_string().contains("[2]"), "{e}");
    assert!(e.to_string().contains("i8"), "{e}");
    let e = codec::from_datum_reader::<Vec<i8>, _>(&bytes[..]).unwrap_err();
    assert!(e.to_string().contains("[2]"), "{e}");
    // An int wider than 32 bits, a varint of 11 bytes, a cut varint.
    let mut bytes = vec![0x06, 0x02];
    bytes.extend([0x80, 0x80, 0x80, 0x80, 0x20]);
    bytes.extend([0x02, 0x00]);
    let e = decode_err::<Vec<i32>>(&bytes);
    assert!(
        e.to_string().contains("32 bits") && e.to_string().contains("[1]"),
        "{e}"
    );
    let mut bytes = vec![0x04, 0x02];
    bytes.extend([0xff; 10]);
    bytes.extend([0x01; 12]);
    let e = decode_err::<Vec<i64>>(&bytes);
    assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    assert!(e.to_string().contains("[1]"), "{e}");
    let e = decode_err::<Vec<i64>>(&[0x04, 0x02, 0xff, 0xff]);
    assert!(e.is_eof(), "{e}");
    // Reuse keeps the buffer and drops what the new array does not have.
    let mut out = vec![9i64; 100];
    let cap = out.capacity();
    let bytes = codec::to_datum_vec(&vec![5i64, 6]).unwrap();
    out.decode_into(&mut Decoder::from_slice(&bytes)).unwrap();
    assert_eq!(out, [5, 6]);
    assert_eq!(out.capacity(), cap);
}

/// A type with a field the codec cannot write: the plan reads it through serde.
#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
#[avro(no_codec)]
struct Opaque {
    x: i64,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq)]
struct Money {
    #[avro(logical_type = "decimal", precision = 4, scale = 2)]
    #[serde(with = "serde_bytes")]
    amount: Vec<u8>,
}

#[test]
fn types_without_a_codec_say_so_and_plans_use_serde() {
    let e = codec::to_datum_vec(&Opaque { x: 1 }).unwrap_err();
    assert!(e.to_string().contains("no generated codec"), "{e}");
    let e = codec::to_datum_vec(&Money { amount: vec![1] }).unwrap_err();
    assert!(e.to_string().contains("decimal"), "{e}");
    let plan = CodecPlan::<Opaque>::new().unwrap();
    assert!(!plan.is_exact());
    let v: Opaque = plan.decode(&mut Decoder::from_slice(&[0x04])).unwrap();
    assert_eq!(v, Opaque { x: 2 });
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
#[serde(rename = "Event")]
struct EventV1 {
    id: i32,
    name: String,
}

#[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Event {
    id: i64,
    name: String,
    #[serde(default)]
    #[avro(default = "7")]
    extra: i32,
}

#[test]
fn container_files_of_codec_types() {
    let events: Vec<Event> = (0..500)
        .map(|i| Event {
            id: i,
            name: format!("e{i}"),
            extra: i as i32 % 3,
        })
        .collect();
    let mut w = WriterBuilder::new(&Event::schema())
        .with_block_records(64)
        .build(Vec::new())
        .unwrap();
    let plan = CodecPlan::<Event>::reading(w.schema()).unwrap();
    for e in &events {
        w.append_codec(e, &plan).unwrap();
    }
    let file = w.into_inner().unwrap();
    let mut r = Reader::from_slice(&file).unwrap();
    let back = r
        .codec_iter::<Event>()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(back, events);
    let back = Reader::new(&file[..])
        .unwrap()
        .into_codec_iter::<Event>()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(back, events);
    // Over one reused record, across blocks (64 records each), as new records read them.
    let mut r = Reader::from_slice(&file).unwrap();
    let plan = r.codec_plan::<Event>().unwrap();
    let mut e = Event {
        id: -1,
        name: "a stale name, longer than any".into(),
        extra: -1,
    };
    let mut back = Vec::new();
    while let Some(read) = r.next_codec_into(&plan, &mut e) {
        read.unwrap();
        back.push(e.clone());
    }
    assert_eq!(back, events);
    assert_eq!(e, events[499], "the end leaves the last record in place");

    // A plan for another schema cannot write, and is refused by another file.
    let old_plan = CodecPlan::<EventV1>::reading(&Event::schema());
    assert!(old_plan.is_err(), "long to int is not a promotion");
    let mut w = WriterBuilder::new(&EventV1::schema())
        .build(Vec::new())
        .unwrap();
    assert!(w.append_codec(&events[0], &plan).is_err());
    let v1_plan = CodecPlan::<EventV1>::reading(w.schema()).unwrap();
    for e in &events[..10] {
        let old = EventV1 {
            id: e.id as i32,
            name: e.name.clone(),
        };
        w.append_codec(&old, &v1_plan).unwrap();
    }
    let file = w.into_inner().unwrap();

    // Old data read as the new type: resolved by the generated code (int -> long, the default).
    let mut r = Reader::from_slice(&file).unwrap();
    let plan = r.codec_plan::<Event>().unwrap();
    assert!(!plan.is_exact());
    assert!(plan.is_generated());
    let mut n = 0;
    while let Some(e) = r.next_codec(&plan) {
        let e = e.unwrap();
        assert_eq!((e.id, e.extra), (n, 7));
        n += 1;
    }
    assert_eq!(n, 10);
    // The same over a reused record: each takes the default again, over the last value.
    let mut r = Reader::from_slice(&file).unwrap();
    let mut e = events[3].clone();
    let mut n = 0;
    while let Some(read) = r.next_codec_into(&plan, &mut e) {
        read.unwrap();
        assert_eq!((e.id, e.name.as_str(), e.extra), (n, &*format!("e{n}"), 7));
        e.extra = 0;
        n += 1;
    }
    assert_eq!(n, 10);
    let other = CodecPlan::<Event>::new().unwrap();
    let e = Reader::from_slice(&file)
        .unwrap()
        .next_codec(&other)
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Schema);
    let mut reused = events[0].clone();
    let e = Reader::from_slice(&file)
        .unwrap()
        .next_codec_into(&other, &mut reused)
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Schema);
    assert_eq!(reused, events[0], "a refused plan leaves the value alone");
}

/// A plan compiled from another parse of the file's schema (`CodecPlan::new()`, from the
/// type) reads and writes that file too: its schema is matched by canonical form.
#[test]
fn a_plan_from_another_parse_of_the_schema_serves_the_file() {
    let events: Vec<Event> = (0..100)
        .map(|i| Event {
            id: i,
            name: format!("e{i}"),
            extra: 1,
        })
        .collect();
    let plan = CodecPlan::<Event>::new().unwrap();
    let mut w = WriterBuilder::new(&Event::schema())
        .with_block_records(16)
        .build(Vec::new())
        .unwrap();
    assert!(!plan.writer().same_arena(w.schema()));
    for e in &events {
        w.append_codec(e, &plan).unwrap();
    }
    let file = w.into_inner().unwrap();
    let mut r = Reader::from_slice(&file).unwrap();
    let mut back = Vec::new();
    while let Some(e) = r.next_codec(&plan) {
        back.push(e.unwrap());
    }
    assert_eq!(back, events);
}

#[test]
fn the_plan_decides_from_the_canonical_form() {
    // The same schema parsed from other text (a doc, spacing) is exact.
    let text = r#"{"type":"record","name":"Inner","doc":"x","fields":[
        {"name":"name","type":"string"},{"name":"score","type":"double"}]}"#;
    let plan = CodecPlan::<Inner>::reading(&Schema::parse_str(text).unwrap()).unwrap();
    assert!(plan.is_exact());
}

fn arb_inner() -> impl Strategy<Value = Inner> {
    (".*", any::<f64>()).prop_map(|(name, score)| Inner { name, score })
}

fn arb_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        any::<i64>().prop_map(Shape::Count),
        ".*".prop_map(Shape::Label),
        (any::<f64>(), any::<f64>()).prop_map(|(x, y)| Shape::Point { x, y }),
        (any::<i32>(), ".*").prop_map(|(a, b)| Shape::Pair(a, b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_records_match_serde(
        floats in prop::collection::vec(any::<f32>(), 0..40),
        longs in prop::collection::vec(any::<i64>(), 0..40),
        bools in prop::collection::vec(any::<bool>(), 0..10),
        inners in prop::collection::vec(arb_inner(), 0..4),
        shapes in prop::collection::vec(arb_shape(), 0..6),
        blob in prop::collection::vec(any::<u8>(), 0..20),
        counts in prop::collection::hash_map(".{0,4}", any::<i64>(), 0..4),
    ) {
        let c = Collections {
            floats: floats.iter().map(|f| if f.is_nan() { 0.0 } else { *f }).collect(),
            doubles: vec![],
            ints: longs.iter().map(|l| *l as i32).collect(),
            longs,
            bools,
            strings: inners.iter().map(|i| i.name.clone()).collect(),
            blob: blob.clone(),
            raw: blob.clone(),
            blobs: vec![blob],
            maybe_blob: None,
            id: [1, 2, 3, 4],
            counts,
            series: BTreeMap::new(),
            inners: inners.into_iter().map(|mut i| { if i.score.is_nan() { i.score = 0.0 }; i }).collect(),
            boxed: Box::default(),
            nested: vec![],
            units: vec![],
        };
        check(&c);
        let t = Tagged {
            suit: Suit::Clubs,
            shape: Shape::Empty,
            shapes: shapes.into_iter().map(|s| match s {
                Shape::Point { x, y } if x.is_nan() || y.is_nan() => Shape::Empty,
                s => s,
            }).collect(),
            maybe: None,
            at: Millis(1),
            cache: 0,
            null_second: None,
            stamp: 3,
        };
        check(&t);
    }

    #[test]
    fn random_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = codec::from_datum_slice::<Collections>(&data);
        let _ = codec::from_datum_slice::<Tagged>(&data);
        let _ = codec::from_datum_slice::<Node>(&data);
        let _ = Collections::decode(&mut Decoder::from_reader_with_capacity(1, &data[..]));
    }
}

/// Symbols map to variants whatever the variants' discriminants, with a skipped variant in
/// between, on the exact path and through a resolution that reorders the symbols; an index
/// past the symbols is an error on both.
#[test]
fn enum_symbols_map_to_their_variants() {
    #[derive(AvroSchema, Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
    enum Level {
        Low = 10,
        #[serde(skip)]
        #[allow(dead_code)]
        Hidden = 3,
        Mid = 7,
        High = 1,
    }
    let read = |bytes: &[u8]| codec::from_datum_slice::<Level>(bytes);
    assert_eq!(read(&[0x00]).unwrap(), Level::Low);
    assert_eq!(read(&[0x02]).unwrap(), Level::Mid);
    assert_eq!(read(&[0x04]).unwrap(), Level::High);
    for bad in [&[0x06][..], &[0x01], &[0xfe, 0xff, 0xff, 0xff, 0x0f]] {
        let e = read(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Data, "{e}");
    }
    assert!(read(&[0x06])
        .unwrap_err()
        .to_string()
        .contains("the enum has 3 symbols"));
    for v in [Level::Low, Level::Mid, Level::High] {
        assert_eq!(read(&codec::to_datum_vec(&v).unwrap()).unwrap(), v);
    }

    let writer = avrokit::Schema::parse_str(
        r#"{"type":"enum","name":"Level","symbols":["High","Low","Mid","Gone"]}"#,
    )
    .unwrap();
    let plan = CodecPlan::<Level>::reading(&writer).unwrap();
    assert!(!plan.is_exact());
    let resolve = |bytes: &[u8]| plan.decode(&mut Decoder::from_slice(bytes));
    assert_eq!(resolve(&[0x00]).unwrap(), Level::High);
    assert_eq!(resolve(&[0x02]).unwrap(), Level::Low);
    assert_eq!(resolve(&[0x04]).unwrap(), Level::Mid);
    // A writer symbol the reader lacks (no default), and an index past the writer's symbols.
    assert_eq!(resolve(&[0x06]).unwrap_err().kind(), ErrorKind::Resolution);
    assert_eq!(resolve(&[0x08]).unwrap_err().kind(), ErrorKind::Data);
}
