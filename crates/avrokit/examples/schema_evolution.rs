//! Schema evolution: data written with an old schema, read with a new one (a new field with a
//! default, a renamed field known by its alias, an `int` promoted to `long`), after checking
//! that the two are compatible.
//!
//! `cargo run -p avrokit --example schema_evolution`

use avrokit::container::{ReaderBuilder, WriterBuilder};
use avrokit::resolution::check_compatibility;
use avrokit::{Schema, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let v1 = Schema::parse_str(
        r#"{"type":"record","name":"User","fields":[
            {"name":"name","type":"string"},
            {"name":"visits","type":"int"}]}"#,
    )?;
    let v2 = Schema::parse_str(
        r#"{"type":"record","name":"User","fields":[
            {"name":"full_name","type":"string","aliases":["name"]},
            {"name":"visits","type":"long"},
            {"name":"email","type":["null","string"],"default":null}]}"#,
    )?;

    // v2 reads v1's data; v1 cannot read v2's (it has no `full_name`).
    let forward = check_compatibility(&v2, &v1);
    println!("v2 reads v1: {forward}");
    assert!(forward.is_compatible());
    let backward = check_compatibility(&v1, &v2);
    println!("v1 reads v2: {backward}");
    assert!(!backward.is_compatible());

    let mut w = WriterBuilder::new(&v1).build(Vec::new())?;
    w.append(&Value::Record(vec![
        Value::String("Ada".into()),
        Value::Int(3),
    ]))?;
    let file = w.into_inner()?;

    // The resolution plan is compiled once, when the reader opens.
    let r = ReaderBuilder::new()
        .with_reader_schema(&v2)
        .build_slice(&file)?;
    for user in r {
        let user = user?;
        println!("{user:?}");
        assert_eq!(
            user,
            Value::Record(vec![
                Value::String("Ada".into()),
                Value::Long(3),
                Value::Union(0, Box::new(Value::Null)),
            ])
        );
    }
    Ok(())
}

#[test]
fn runs() {
    main().unwrap();
}
