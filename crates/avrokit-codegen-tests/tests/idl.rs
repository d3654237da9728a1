//! Types generated from Java's IDL test files and protocols (imports included) give back the
//! schemas they come from.

use std::panic::catch_unwind;

use avrokit::Schema;
use avrokit_codegen_tests::IDL_CASES;

#[test]
fn idl_types_have_their_sources_canonical_form() {
    assert!(IDL_CASES.len() > 40, "only {} IDL cases", IDL_CASES.len());
    let mut bad = Vec::new();
    let mut full = 0;
    let mut partial = Vec::new();
    for case in IDL_CASES {
        let source = Schema::parse_str(case.json).unwrap();
        let generated = match catch_unwind(case.schema) {
            Ok(s) => s,
            Err(_) => {
                bad.push(format!(
                    "{}: schema() panicked for {}",
                    case.source, case.json
                ));
                continue;
            }
        };
        if generated.canonical_form() != source.canonical_form() {
            bad.push(format!(
                "{}: canonical form\n  {}\nis not\n  {}",
                case.source,
                generated.canonical_form(),
                source.canonical_form()
            ));
        } else if generated.to_json() == source.to_json() {
            full += 1;
        } else {
            partial.push(format!("{}: {}", case.source, generated.to_json()));
        }
    }
    println!(
        "{} IDL types, {full} with the full schema equal",
        IDL_CASES.len()
    );
    // (Java's `error` types come back as records: the derive has no `error`.)
    for p in &partial {
        println!("  canonical form only: {p}");
    }
    assert!(
        bad.is_empty(),
        "{} of {}:\n{}",
        bad.len(),
        IDL_CASES.len(),
        bad.join("\n")
    );
}
