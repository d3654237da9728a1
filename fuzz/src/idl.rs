//! The check of the `idl_parse` target, kept apart from `checks.rs` because it needs
//! avrokit-idl: `crates/avrokit-idl/tests/fuzz_corpus.rs` includes this file (`#[path]`) to
//! replay `corpus/idl_parse/` in CI.

use avrokit::{Protocol, Schema};
use avrokit_idl::{IdlLimits, IdlReader};

/// What the check made of its input.
#[derive(Debug, PartialEq, Eq)]
pub enum IdlOutcome {
    /// Not UTF-8.
    Skipped,
    /// The reader rejected the text with an error.
    Rejected,
    /// The reader accepted the text, and every property held.
    Accepted,
}

/// Reads the input as IDL text (no imports are found: there are no import directories and no
/// base directory) under small limits. An accepted protocol writes back to JSON that parses to
/// the same protocol, whose Java text parses back with the same MD5; an accepted main schema
/// writes back to JSON with the same canonical form.
pub fn check_idl_parse(data: &[u8]) -> IdlOutcome {
    let Ok(text) = std::str::from_utf8(data) else {
        return IdlOutcome::Skipped;
    };
    let limits = IdlLimits {
        max_file_size: 1 << 20,
        max_tokens: 1 << 16,
        max_depth: 64,
        max_files: 1,
    };
    let idl = match IdlReader::new().limits(limits).parse_str(text, None) {
        Ok(idl) => idl,
        Err(e) => {
            // Every error says where it is, but those about the whole input.
            let _ = e.to_string();
            return IdlOutcome::Rejected;
        }
    };
    if let Some(p) = idl.protocol() {
        let json = p.to_json();
        let again = Protocol::parse_json(&json)
            .unwrap_or_else(|e| panic!("the protocol written back does not parse: {e}\n{json}"));
        assert_eq!(
            again.to_json(),
            json,
            "writing the protocol back changed it"
        );
        let java = p.to_java_text();
        let from_java = Protocol::parse_str(&java)
            .unwrap_or_else(|e| panic!("the protocol's Java text does not parse: {e}\n{java}"));
        assert_eq!(from_java.md5(), p.md5(), "{java}");
    }
    if let Some(s) = idl.main_schema() {
        let json = s.to_json();
        let again = Schema::parse_json(&json)
            .unwrap_or_else(|e| panic!("the main schema written back does not parse: {e}\n{json}"));
        assert_eq!(again.canonical_form(), s.canonical_form());
    }
    for s in idl.named_schemas() {
        let _ = s.canonical_form();
    }
    IdlOutcome::Accepted
}
