//! The generated types of the interop corpus: their schemas are their sources', and container
//! files read into them and written back give the same bytes.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use avrokit::Schema;
use avrokit_codegen_tests::{CASES, NO_CODEC_INSIDE};

fn data() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../avrokit/tests/data"
    ))
}

#[test]
fn schemas_are_their_sources() {
    let mut bad = Vec::new();
    for case in CASES {
        let source = Schema::parse_str(case.json).unwrap();
        let generated = match catch_unwind(case.schema) {
            Ok(s) => s,
            Err(e) => {
                bad.push(format!(
                    "{:?} ({}): {}",
                    case.sources,
                    case.variant,
                    panic_text(&e)
                ));
                continue;
            }
        };
        if generated.canonical_form() != source.canonical_form() {
            bad.push(format!(
                "{:?} ({}): canonical form\n  {}\nis not\n  {}",
                case.sources,
                case.variant,
                generated.canonical_form(),
                source.canonical_form()
            ));
        } else if generated.to_json() != source.to_json() {
            bad.push(format!(
                "{:?} ({}): full schema\n  {}\nis not\n  {}",
                case.sources,
                case.variant,
                generated.to_json(),
                source.to_json()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {}:\n{}",
        bad.len(),
        CASES.len(),
        bad.join("\n")
    );
}

#[test]
fn container_files_round_trip_byte_for_byte() {
    let mut bad = Vec::new();
    let mut limited = Vec::new();
    let (mut files, mut exact, mut records) = (0, 0, 0);
    for case in CASES {
        for source in case.sources.iter().filter(|s| s.ends_with(".avro")) {
            let file = std::fs::read(data().join(source)).unwrap();
            files += 1;
            let rt = catch_unwind(AssertUnwindSafe(|| (case.round_trip)(&file)))
                .unwrap_or_else(|e| Err(panic_text(&e)));
            match rt {
                Ok(rt) => {
                    records += rt.records;
                    if rt.written != rt.canonical {
                        bad.push(format!(
                            "{source} ({}): written back differently",
                            case.variant
                        ));
                    } else if rt.original == rt.canonical {
                        exact += 1;
                    }
                }
                Err(e) if e.starts_with(NO_CODEC_INSIDE) => limited.push(source.to_string()),
                Err(e) => bad.push(format!("{source} ({}): {e}", case.variant)),
            }
        }
    }
    println!("{files} file round trips, {records} records, {exact} byte-identical to the file");
    // The codec's one documented limit, met by one schema (an `IndexMap` field behind a
    // `Vec`): at most its copies.
    println!("the codec's documented limit: {limited:?}");
    assert!(limited.len() <= 2, "{limited:?}");
    assert!(
        bad.is_empty(),
        "{} of {files}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn every_container_file_has_a_generated_type() {
    let mut on_disk = Vec::new();
    for dir in std::fs::read_dir(data().join("interop/data")).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "avro") {
                on_disk.push(f.strip_prefix(data()).unwrap().display().to_string());
            }
        }
    }
    let covered: Vec<&str> = CASES
        .iter()
        .flat_map(|c| c.sources.iter().copied())
        .collect();
    let missing: Vec<&String> = on_disk
        .iter()
        .filter(|f| !covered.contains(&f.as_str()))
        .collect();
    assert!(
        on_disk.len() > 100,
        "only {} container files found",
        on_disk.len()
    );
    assert!(missing.is_empty(), "no generated type for {missing:?}");
}

/// Every schema-resolution case of the corpus, read into the generated type of its reader
/// schema through that type's `CodecPlan` (its generated code, resolving the case's writer
/// schema): the records equal what the resolving `Value` reader reads, and a case that must fail
/// fails.
#[test]
fn resolution_cases_read_through_the_generated_code() {
    let mut bad = Vec::new();
    let (mut cases, mut read, mut generated, mut records) = (0, 0, 0, 0);
    for case in CASES.iter().filter(|c| c.variant == "raw") {
        for source in case.sources.iter().filter(|s| s.ends_with("/reader.avsc")) {
            let dir = data().join(source).parent().unwrap().to_path_buf();
            let file = std::fs::read(dir.join("input.avro")).unwrap();
            let must_fail = dir.join("expected.error").exists();
            cases += 1;
            let got = catch_unwind(AssertUnwindSafe(|| (case.resolve)(&file)))
                .unwrap_or_else(|e| Err(panic_text(&e)));
            match (got, must_fail) {
                (Ok(r), false) => {
                    records += r.records;
                    read += 1;
                    generated += usize::from(r.generated);
                    if r.codec != r.value {
                        bad.push(format!("{source}: the generated code read other records"));
                    }
                    if r.reused != r.codec {
                        bad.push(format!("{source}: a reused record read other records"));
                    }
                }
                (Err(e), false) => bad.push(format!("{source}: {e}")),
                (Ok(_), true) => bad.push(format!("{source}: read, but the case must fail")),
                (Err(e), true) if e.contains("panicked") => bad.push(format!("{source}: {e}")),
                (Err(_), true) => {}
            }
        }
    }
    println!(
        "{cases} resolution cases, {read} read ({records} records), {generated} of them by \
         generated code (the others' types have no codec: byte buffers, IndexMaps)"
    );
    assert!(cases >= 40, "only {cases} resolution cases found");
    assert!(
        generated * 4 >= read * 3,
        "only {generated} of {read} cases went through the generated code"
    );
    assert!(
        bad.is_empty(),
        "{} of {cases}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    let text = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()));
    format!("panicked: {}", text.unwrap_or_default())
}
