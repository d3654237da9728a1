//! Single-object encoding and Confluent framing: the upstream interop message (from Java's
//! `BinaryMessageEncoder`), round trips for `Value` and serde, resolution to an evolved reader
//! schema, every error path; and container files written and read with serde types.

use std::collections::HashMap;

use avrokit::container::Reader;
use avrokit::serde::{DePlan, SerPlan};
use avrokit::single_object::{
    from_confluent_slice, from_single_object_slice, from_single_object_slice_serde, header,
    split_confluent, split_single_object, to_confluent_vec, to_confluent_vec_serde,
    to_single_object_vec, to_single_object_vec_serde, ConfluentDecoder, SchemaLookup, SchemaStore,
    SingleObjectDecoder, SingleObjectEncoder, HEADER_LEN,
};
use avrokit::{json, ErrorKind, Schema, Value};
use serde::{Deserialize, Serialize};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/single_object");

fn interop() -> (Schema, Vec<u8>, serde_json::Value) {
    let schema =
        Schema::parse_str(&std::fs::read_to_string(format!("{DATA}/test_schema.avsc")).unwrap())
            .unwrap();
    let bin = std::fs::read(format!("{DATA}/test_message.bin")).unwrap();
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{DATA}/test_message.expected.json")).unwrap(),
    )
    .unwrap();
    (schema, bin, expected)
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct TestMessage {
    id: i64,
    name: String,
    tags: Vec<String>,
}

fn bill() -> TestMessage {
    TestMessage {
        id: 42,
        name: "Bill".into(),
        tags: vec!["dog_lover".into(), "cat_hater".into()],
    }
}

#[test]
fn interop_message_decodes_to_expected_json() {
    let (schema, bin, expected) = interop();
    assert_eq!(
        hex::encode(schema.fingerprint_rabin().to_le_bytes()),
        expected["fingerprint_le_hex"].as_str().unwrap()
    );
    assert_eq!(
        schema.canonical_form(),
        expected["schema_canonical_form"].as_str().unwrap()
    );
    let mut store = SchemaStore::new();
    store.add(&schema);
    let v = from_single_object_slice(&bin, &store, None).unwrap();
    assert_eq!(json::to_json_value(&v, &schema).unwrap(), expected["datum"]);

    let mut dec = SingleObjectDecoder::new(store);
    assert_eq!(dec.decode(&bin).unwrap(), v);
    assert_eq!(dec.decode_serde::<TestMessage>(&bin).unwrap(), bill());
}

#[test]
fn interop_message_is_reproduced_byte_for_byte() {
    let (schema, bin, expected) = interop();
    let v = json::from_json_value(&expected["datum"], &schema).unwrap();
    assert_eq!(to_single_object_vec(&v, &schema).unwrap(), bin);
    let plan = SerPlan::compile(&schema).unwrap();
    assert_eq!(to_single_object_vec_serde(&bill(), &plan).unwrap(), bin);
    assert_eq!(
        SingleObjectEncoder::new(&plan).encode(&bill()).unwrap(),
        bin
    );
    assert_eq!(&bin[..HEADER_LEN], header(&schema));
}

#[test]
fn value_and_serde_round_trips() {
    let (schema, _, _) = interop();
    let mut store = SchemaStore::new();
    store.add(&schema);
    let v = Value::Record(vec![
        Value::Long(-7),
        Value::String("é".into()),
        Value::Array(vec![]),
    ]);
    let msg = to_single_object_vec(&v, &schema).unwrap();
    assert_eq!(from_single_object_slice(&msg, &store, None).unwrap(), v);

    let ser = SerPlan::compile(&schema).unwrap();
    let de = DePlan::compile(&schema).unwrap();
    let enc = SingleObjectEncoder::new(&ser);
    let mut buf = Vec::new();
    let mut dec = SingleObjectDecoder::new(store);
    for i in 0..3 {
        let m = TestMessage {
            id: i,
            name: format!("n{i}"),
            tags: vec!["t".into(); i as usize],
        };
        enc.encode_into(&m, &mut buf).unwrap();
        assert_eq!(
            from_single_object_slice_serde::<TestMessage>(&buf, &de).unwrap(),
            m
        );
        assert_eq!(dec.decode_serde::<TestMessage>(&buf).unwrap(), m);
    }

    // Borrowed strings straight from the message.
    #[derive(Deserialize)]
    struct Borrowed<'a> {
        name: &'a str,
    }
    let msg = to_single_object_vec_serde(&bill(), &ser).unwrap();
    let b: Borrowed = dec.decode_serde(&msg).unwrap();
    assert_eq!(b.name, "Bill");
}

fn v1() -> Schema {
    Schema::parse_str(
        r#"{"type":"record","name":"User","fields":[
            {"name":"id","type":"int"},{"name":"name","type":"string"}]}"#,
    )
    .unwrap()
}

fn v2() -> Schema {
    Schema::parse_str(
        r#"{"type":"record","name":"User","fields":[
            {"name":"name","type":"string"},
            {"name":"id","type":"long"},
            {"name":"email","type":["null","string"],"default":null}]}"#,
    )
    .unwrap()
}

#[derive(Deserialize, Debug, PartialEq)]
struct UserV2 {
    name: String,
    id: i64,
    email: Option<String>,
}

#[test]
fn resolves_to_an_evolved_reader_schema() {
    let (w1, r2) = (v1(), v2());
    let msg = to_single_object_vec(
        &Value::Record(vec![Value::Int(9), Value::String("ann".into())]),
        &w1,
    )
    .unwrap();
    let mut store = SchemaStore::new();
    store.add(&w1);
    store.add(&r2);
    let expect = Value::Record(vec![
        Value::String("ann".into()),
        Value::Long(9),
        Value::Union(0, Box::new(Value::Null)),
    ]);
    assert_eq!(
        from_single_object_slice(&msg, &store, Some(&r2)).unwrap(),
        expect
    );

    let mut dec = SingleObjectDecoder::with_reader_schema(store, &r2);
    for _ in 0..2 {
        assert_eq!(dec.decode(&msg).unwrap(), expect);
        assert_eq!(
            dec.decode_serde::<UserV2>(&msg).unwrap(),
            UserV2 {
                name: "ann".into(),
                id: 9,
                email: None
            }
        );
    }
    // A message already of the reader's schema goes through the same decoder.
    let own = to_single_object_vec(&expect, &r2).unwrap();
    assert_eq!(dec.decode(&own).unwrap(), expect);

    // Schemas that cannot be resolved are a resolution error, not a panic.
    let int = Schema::parse_str(r#""int""#).unwrap();
    let mut bad = SingleObjectDecoder::with_reader_schema(SchemaStore::new(), &int);
    bad.add_schema(&w1);
    assert_eq!(bad.decode(&msg).unwrap_err().kind(), ErrorKind::Resolution);
}

#[test]
fn single_object_errors() {
    let (schema, bin, _) = interop();
    let mut store = SchemaStore::new();
    store.add(&schema);
    let mut dec = SingleObjectDecoder::new(store.clone());

    // Bad marker.
    for bad in [
        &[0xC3, 0x02][..],
        &[0x00],
        &[0xC4, 0x01, 0, 0, 0, 0, 0, 0, 0, 0],
    ] {
        let e = split_single_object(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Data, "{e}");
        assert!(e.message().contains("marker"), "{e}");
        assert_eq!(dec.decode(bad).unwrap_err().kind(), ErrorKind::Data);
    }
    // Short input: every strict prefix fails cleanly (header or datum truncated).
    for n in 0..bin.len() {
        let e = dec.decode(&bin[..n]).unwrap_err();
        assert!(e.is_eof(), "prefix {n}: {e}");
        let e = from_single_object_slice(&bin[..n], &store, None).unwrap_err();
        assert!(e.is_eof(), "prefix {n}: {e}");
    }
    // Unknown fingerprint.
    let mut other = bin.clone();
    other[2] ^= 1;
    let e = dec.decode(&other).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Schema);
    assert!(e.message().contains("fingerprint"), "{e}");
    assert_eq!(
        from_single_object_slice(&other, &SchemaStore::new(), None)
            .unwrap_err()
            .kind(),
        ErrorKind::Schema
    );
    // A serde plan of another schema.
    let e = from_single_object_slice_serde::<TestMessage>(&bin, &DePlan::compile(&v1()).unwrap())
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Schema);
    // Trailing bytes, with the offset counted from the start of the message.
    let mut long = bin.clone();
    long.push(0);
    let e = dec.decode(&long).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert_eq!(e.offset(), Some(bin.len() as u64));
    // The decoder is still usable after errors.
    assert!(dec.decode(&bin).is_ok());
}

#[test]
fn confluent_round_trip() {
    let (w1, r2) = (v1(), v2());
    let registry: HashMap<u32, Schema> = HashMap::from([(1, w1.clone()), (2, r2.clone())]);
    let v = Value::Record(vec![Value::Int(3), Value::String("bo".into())]);
    let msg = to_confluent_vec(&v, &w1, 1).unwrap();
    assert_eq!(&msg[..5], [0, 0, 0, 0, 1]);
    assert_eq!(split_confluent(&msg).unwrap().0, 1);
    assert_eq!(from_confluent_slice(&msg, &registry, None).unwrap(), v);

    #[derive(Serialize)]
    struct UserV1<'a> {
        id: i32,
        name: &'a str,
    }
    let ser = SerPlan::compile(&w1).unwrap();
    let msg2 = to_confluent_vec_serde(&UserV1 { id: 3, name: "bo" }, &ser, 1).unwrap();
    assert_eq!(msg2, msg);

    let mut dec = ConfluentDecoder::with_reader_schema(&registry, &r2);
    let want = UserV2 {
        name: "bo".into(),
        id: 3,
        email: None,
    };
    assert_eq!(dec.decode_serde::<UserV2>(&msg).unwrap(), want);
    assert_eq!(
        dec.decode(&msg).unwrap(),
        Value::Record(vec![
            Value::String("bo".into()),
            Value::Long(3),
            Value::Union(0, Box::new(Value::Null)),
        ])
    );
    assert_eq!(
        from_confluent_slice(&msg, &registry, Some(&r2)).unwrap(),
        dec.decode(&msg).unwrap()
    );
}

/// Counts lookups, to show the decoder asks once per id.
struct Counting(HashMap<u32, Schema>, std::cell::Cell<u32>);

impl SchemaLookup for Counting {
    fn schema(&self, id: u32) -> avrokit::Result<Schema> {
        self.1.set(self.1.get() + 1);
        self.0.schema(id)
    }
}

#[test]
fn confluent_errors_and_lookup_caching() {
    let w1 = v1();
    let v = Value::Record(vec![Value::Int(3), Value::String("bo".into())]);
    let msg = to_confluent_vec(&v, &w1, 7).unwrap();
    let lookup = Counting(HashMap::from([(7, w1.clone())]), Default::default());
    let mut dec = ConfluentDecoder::new(lookup);
    for _ in 0..3 {
        assert_eq!(dec.decode(&msg).unwrap(), v);
    }
    assert_eq!(dec.lookup().1.get(), 1);

    // Bad magic byte.
    let mut bad = msg.clone();
    bad[0] = 1;
    let e = dec.decode(&bad).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Data);
    assert!(e.message().contains("magic"), "{e}");
    // Unknown id: an error each time (failures are not cached).
    let unknown = to_confluent_vec(&v, &w1, 8).unwrap();
    for _ in 0..2 {
        let e = dec.decode(&unknown).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Schema);
        assert!(e.message().contains("registry id 8"), "{e}");
    }
    // Short input.
    for n in 0..msg.len() {
        let e = dec.decode(&msg[..n]).unwrap_err();
        assert!(e.is_eof(), "prefix {n}: {e}");
    }
    // Trailing bytes.
    let mut long = msg.clone();
    long.push(0);
    assert_eq!(dec.decode(&long).unwrap_err().kind(), ErrorKind::Data);
}

#[test]
fn container_serde_round_trip() {
    let (schema, _, _) = interop();
    let items: Vec<TestMessage> = (0..1000)
        .map(|i| TestMessage {
            id: i,
            name: format!("name {i}"),
            tags: (0..i % 4).map(|t| format!("t{t}")).collect(),
        })
        .collect();
    let mut w = avrokit::container::WriterBuilder::new(&schema)
        .with_block_records(100)
        .build(Vec::new())
        .unwrap();
    let ser = SerPlan::compile(w.schema()).unwrap();
    for it in &items {
        w.append_serde(it, &ser).unwrap();
    }
    // A value that does not fit leaves nothing behind and the writer usable.
    assert!(w.append_serde(&("x", 1), &ser).is_err());
    // A plan of another schema is refused.
    let other = SerPlan::compile(&v1()).unwrap();
    assert_eq!(
        w.append_serde(&items[0], &other).unwrap_err().kind(),
        ErrorKind::Schema
    );
    // A plan compiled from an equal schema parsed apart is accepted, again and again, and
    // remembering it does not let another schema through.
    let reparsed = avrokit::Schema::parse_str(&w.schema().to_json().to_string()).unwrap();
    let equal = SerPlan::compile(&reparsed).unwrap();
    let mut extra = Vec::new();
    for it in items.iter().take(3) {
        w.append_serde(it, &equal).unwrap();
        extra.push(it);
    }
    assert_eq!(
        w.append_serde(&items[0], &other).unwrap_err().kind(),
        ErrorKind::Schema
    );
    let file = w.into_inner().unwrap();

    // Structs, through next_serde and serde_iter.
    let mut r = Reader::from_slice(&file).unwrap();
    let de = DePlan::compile(r.schema()).unwrap();
    let first = r.next_serde::<TestMessage>(&de).unwrap().unwrap();
    assert_eq!(first, items[0]);
    let rest: Vec<TestMessage> = r.serde_iter(&de).collect::<Result<_, _>>().unwrap();
    let expected: Vec<&TestMessage> = items[1..].iter().chain(extra.iter().copied()).collect();
    assert_eq!(rest.iter().collect::<Vec<_>>(), expected);
    assert!(r.next_serde::<TestMessage>(&de).is_none());

    // Values, matching the serde encoding.
    let values: Vec<Value> = Reader::new(&file[..])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(values.len(), items.len() + extra.len());
    assert_eq!(
        values[5],
        Value::Record(vec![
            Value::Long(5),
            Value::String("name 5".into()),
            Value::Array(vec![Value::String("t0".into())]),
        ])
    );

    // A plan of another writer schema is refused; a resolving plan from the file's works.
    let mut r = Reader::new(&file[..]).unwrap();
    let wrong = DePlan::compile(&v1()).unwrap();
    assert_eq!(
        r.next_serde::<TestMessage>(&wrong)
            .unwrap()
            .unwrap_err()
            .kind(),
        ErrorKind::Schema
    );
    let evolved = Schema::parse_str(
        r#"{"type":"record","namespace":"org.apache.avro","name":"TestMessage","fields":[
            {"name":"id","type":"long"},
            {"name":"extra","type":"string","default":"d"}]}"#,
    )
    .unwrap();
    #[derive(Deserialize, Debug, PartialEq)]
    struct Slim {
        id: i64,
        extra: String,
    }
    let plan = DePlan::resolving(r.schema(), &evolved).unwrap();
    let slim: Vec<Slim> = r.serde_iter(&plan).collect::<Result<_, _>>().unwrap();
    assert_eq!(slim.len(), items.len() + extra.len());
    assert_eq!(
        slim[3],
        Slim {
            id: 3,
            extra: "d".into()
        }
    );
}
