//! The generated types of the interop corpus: their schemas are their sources', and container
//! files read into them and written back give the same bytes.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use avrokit::Schema;
use avrokit_codegen_tests::CASES;

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
                Err(e) => bad.push(format!("{source} ({}): {e}", case.variant)),
            }
        }
    }
    println!("{files} file round trips, {records} records, {exact} byte-identical to the file");
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

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    let text = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()));
    format!("panicked: {}", text.unwrap_or_default())
}
