//! Java's IDL test suite (tests/data, from apache/avro lang/java/idl/src/test/idl): every input
//! with an expected output must give that output, compared as JSON values (key order aside).

use std::path::{Path, PathBuf};

use avrokit::Protocol;
use avrokit_idl::IdlReader;
use serde_json::Value;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn reader() -> IdlReader {
    IdlReader::new().import_dir(data().join("include"))
}

/// Every (input, expected output) pair.
fn cases() -> Vec<(PathBuf, PathBuf)> {
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(data().join("output")).unwrap() {
        let out = entry.unwrap().path();
        let stem = out.file_stem().unwrap().to_str().unwrap().to_owned();
        let input = data().join("input").join(format!("{stem}.avdl"));
        assert!(input.exists(), "no input for {}", out.display());
        cases.push((input, out));
    }
    cases.sort();
    cases
}

fn expected(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_java_case_gives_the_expected_output() {
    let cases = cases();
    assert!(cases.len() >= 9, "{} cases", cases.len());
    let mut failures = Vec::new();
    for (input, output) in &cases {
        match reader().parse_file(input) {
            Ok(idl) => {
                let got = idl.to_json().expect("a protocol or a main schema");
                let want = expected(output);
                if got != want {
                    failures.push(format!(
                        "{}:\n got  {}\n want {}",
                        input.display(),
                        serde_json::to_string_pretty(&got).unwrap(),
                        serde_json::to_string_pretty(&want).unwrap()
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", input.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn expected_protocols_round_trip_through_protocol() {
    for (_, output) in cases() {
        if output.extension().unwrap() != "avpr" {
            continue;
        }
        let want = expected(&output);
        let p = Protocol::parse_json(&want).unwrap_or_else(|e| panic!("{}: {e}", output.display()));
        assert_eq!(p.to_json(), want, "{}", output.display());
        // Java's text parses back to the same protocol.
        let again = Protocol::parse_str(&p.to_java_text()).unwrap();
        assert_eq!(again.to_json(), want);
        assert_eq!(again.md5(), p.md5());
    }
}
