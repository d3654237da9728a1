//! Property tests over random schemas and values: every sink and every source give the value
//! back, `skip_value` consumes exactly the datum, and the schema survives `to_json` (same
//! Parsing Canonical Form, which also matches one computed independently from the
//! specification's rules).

mod common;

use avrokit::{Decoder, Schema, Value};
use common::gen::{arb_case, arb_model, Model};
use common::{assert_same, roundtrip, schema, skip_ok};
use proptest::prelude::*;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 2_000,
        ..ProptestConfig::default()
    }
}

/// The schema of a model, checked against the model's own canonical form.
fn parsed(model: &Model) -> Schema {
    let json = model.json_string();
    let s = schema(&json);
    assert_eq!(
        s.canonical_form(),
        model.canonical(),
        "canonical form of {json}"
    );
    s
}

proptest! {
    #![proptest_config(config(192))]

    #[test]
    fn values_roundtrip_through_every_sink_and_source((model, value) in arb_case()) {
        let s = parsed(&model);
        roundtrip(&value, &s);
    }

    #[test]
    fn skip_value_consumes_exactly_one_datum((model, values) in arb_model().prop_flat_map(|m| {
        let v = proptest::collection::vec(common::gen::value_strategy(&m, &m.root), 1..4);
        (Just(m), v)
    })) {
        let s = parsed(&model);
        let mut bytes = Vec::new();
        let mut ends = Vec::new();
        for v in &values {
            bytes.extend(avrokit::to_datum_vec(v, &s).unwrap());
            ends.push(bytes.len() as u64);
        }
        bytes.extend([0xde, 0xad]);
        // Skip and read alternately: each call must stop exactly at the datum's end.
        let mut dec = Decoder::from_slice(&bytes);
        for (i, v) in values.iter().enumerate() {
            if i % 2 == 0 {
                dec.skip_value(&s, s.root_id()).unwrap();
            } else {
                let back = avrokit::value::read_value(&mut dec, &s).unwrap();
                assert_same(&back, v, "read after skip");
            }
            prop_assert_eq!(dec.offset(), ends[i]);
        }
        prop_assert_eq!(dec.rest(), &[0xde, 0xad][..]);
        skip_ok(&bytes[..ends[0] as usize], &s);
    }

    #[test]
    fn to_json_reparses_to_the_same_schema(model in arb_model()) {
        let s = parsed(&model);
        let written = s.to_json();
        let again = Schema::parse_str(&written.to_string())
            .unwrap_or_else(|e| panic!("to_json does not parse back: {e}\n{written}"));
        prop_assert_eq!(again.canonical_form(), s.canonical_form());
        prop_assert_eq!(again.fingerprint_rabin(), s.fingerprint_rabin());
        // Writing is stable: the reparsed schema writes the same JSON.
        prop_assert_eq!(again.to_json(), written);
        prop_assert!(again == s);
    }
}

#[test]
fn a_long_recursive_list_roundtrips() {
    let s = schema(
        r#"{"type":"record","name":"L","namespace":"x","fields":[
            {"name":"v","type":{"type":"array","items":"int"}},{"name":"next","type":["null","x.L"]}]}"#,
    );
    let mut v = Value::Record(vec![
        Value::Array(vec![]),
        Value::Union(0, Box::new(Value::Null)),
    ]);
    for i in 0..100 {
        v = Value::Record(vec![
            Value::Array((0..i % 5).map(Value::Int).collect()),
            Value::Union(1, Box::new(v)),
        ]);
    }
    roundtrip(&v, &s);
}

#[test]
fn large_collections_span_many_blocks() {
    // Big enough that blocking sinks write many blocks and 1-byte readers refill often.
    let s =
        schema(r#"{"type":"map","values":{"type":"array","items":["null","string","double"]}}"#);
    let v = Value::Map(
        (0..40)
            .map(|i| {
                let items = (0..i)
                    .map(|j| match j % 3 {
                        0 => Value::Union(0, Box::new(Value::Null)),
                        1 => Value::Union(1, Box::new(Value::String("s".repeat(j)))),
                        _ => Value::Union(2, Box::new(Value::Double(j as f64 / 7.0))),
                    })
                    .collect();
                (format!("key{i}"), Value::Array(items))
            })
            .collect(),
    );
    roundtrip(&v, &s);
}

#[test]
fn maps_of_tiny_entries_in_many_blocks() {
    // Each entry takes 2 bytes, so a blocking sink puts most in blocks of their own and the last
    // block holds far fewer bytes than the map holds entries: a decoder that checked the total
    // entry count (not the block's) against the bytes left would reject this valid data.
    let s = schema(r#"{"type":"map","values":"null"}"#);
    let v = Value::Map(
        (b'a'..=b'z')
            .map(|c| (char::from(c).to_string(), Value::Null))
            .collect(),
    );
    roundtrip(&v, &s);
    let s = schema(r#"{"type":"array","items":{"type":"map","values":"boolean"}}"#);
    let one = Value::Map(vec![("".into(), Value::Boolean(true)); 10]);
    roundtrip(&Value::Array(vec![one.clone(), one]), &s);
}

/// Counts the references to already-defined named types in a model (depth-first, as written).
fn references(model: &Model) -> usize {
    use common::gen::{DefKind, T};
    fn walk(m: &Model, t: &T, seen: &mut Vec<bool>, refs: &mut usize) {
        match t {
            T::Named(i) if seen[*i] => *refs += 1,
            T::Named(i) => {
                seen[*i] = true;
                if let DefKind::Record { fields, .. } = &m.defs[*i].kind {
                    for (_, t) in fields {
                        walk(m, t, seen, refs);
                    }
                }
            }
            T::Array(t) | T::Map(t) => walk(m, t, seen, refs),
            T::Union(ts) => ts.iter().for_each(|t| walk(m, t, seen, refs)),
            T::Prim(_) | T::Logical(_) => {}
        }
    }
    let mut refs = 0;
    walk(
        model,
        &model.root,
        &mut vec![false; model.defs.len()],
        &mut refs,
    );
    refs
}

#[test]
fn the_generators_cover_what_they_claim() {
    use common::gen::{DefKind, NameForm};
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut refs, mut lists, mut unions, mut namespaces, mut logical, mut bytes) =
        (0, 0, 0, 0, 0, 0);
    for _ in 0..300 {
        let (model, value) = arb_case().new_tree(&mut runner).unwrap().current();
        let json = model.json_string();
        bytes += avrokit::to_datum_vec(&value, &schema(&json)).unwrap().len();
        // Lists refer to themselves once each; count the other references separately.
        let list_count = model
            .defs
            .iter()
            .filter(|d| matches!(d.kind, DefKind::Record { list: true, .. }))
            .count();
        refs += references(&model) - list_count;
        lists += list_count;
        namespaces += model
            .defs
            .iter()
            .filter(|d| d.form != NameForm::Inherit)
            .count();
        unions += usize::from(json.contains("[\"") || json.contains("[{"));
        logical += usize::from(json.contains("logicalType"));
    }
    assert!(refs > 150, "references to earlier named types: {refs}");
    assert!(lists > 60, "recursive lists: {lists}");
    assert!(unions > 200, "schemas with unions: {unions}");
    assert!(
        namespaces > 150,
        "named types with their own namespace: {namespaces}"
    );
    assert!(logical > 120, "schemas with logical types: {logical}");
    assert!(bytes > 300 * 25, "average datum size: {}", bytes / 300);
}
