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

/// `Protocol.getMD5()` of each file as computed by Java (Apache Avro 1.8.2 from Debian's
/// libavro-java, whose `Protocol.toJson` is the same as 1.12's): the MD5 of the protocol's
/// compact JSON as Jackson writes it.
const JAVA_MD5: &[(&str, &str)] = &[
    ("output/baseball.avpr", "d456f630bca31943937328ec75621e66"),
    ("output/comments.avpr", "251cdbb1bb12f7b250a0cfbdb7860074"),
    ("output/echo.avpr", "114d8da4866739f3bdc07ec9dc0984d5"),
    ("output/import.avpr", "c20af829826890e47844e4ae912ab1e0"),
    ("output/namespaces.avpr", "4a30a610cb28dbe76e56d74eba7c0373"),
    (
        "output/reservedwords.avpr",
        "93cfd93b177dbea415926b7ecbcbaa10",
    ),
    ("output/simple.avpr", "33f5a6f15ad5a7f4b98a1c98ce497da0"),
    ("output/uuid.avpr", "ca523209ec46ad268f6f9cd987c0ffd6"),
    ("input/bar.avpr", "3513d00e6247eaa3be97422c5ca418eb"),
    (
        "include/OnTheClasspath.avpr",
        "aa18be266d7b7327769acf7f983a1e67",
    ),
];

#[test]
fn protocol_md5_is_javas() {
    let mut wrong = Vec::new();
    for (file, java) in JAVA_MD5 {
        let text = std::fs::read_to_string(data().join(file)).unwrap();
        let p = Protocol::parse_str(&text).unwrap();
        let hex: String = p.md5().iter().map(|b| format!("{b:02x}")).collect();
        if hex != *java {
            wrong.push(format!("{file}: {hex} != {java}\n  {}", p.to_java_text()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn idl_protocols_have_javas_md5() {
    // The protocol read from IDL is the one Java writes, so its MD5 is Java's too.
    for (file, java) in JAVA_MD5.iter().filter(|(f, _)| f.starts_with("output/")) {
        let stem = Path::new(file).file_stem().unwrap().to_str().unwrap();
        let idl = reader()
            .parse_file(data().join(format!("input/{stem}.avdl")))
            .unwrap();
        let hex: String = idl
            .protocol()
            .unwrap()
            .md5()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            &hex,
            java,
            "{stem}: {}",
            idl.protocol().unwrap().to_java_text()
        );
    }
}
