//! Replays the `idl_parse` fuzz corpus (`fuzz/corpus/idl_parse/`) through the fuzz target's
//! check on stable Rust, so that CI runs every input the fuzzer kept.

#[path = "../../../fuzz/src/idl.rs"]
mod idl;

use std::path::Path;

#[test]
fn every_corpus_input_passes_the_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/idl_parse");
    let mut accepted = 0;
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        n += 1;
        if idl::check_idl_parse(&data) == idl::IdlOutcome::Accepted {
            accepted += 1;
        }
    }
    assert!(n >= 10, "{n} inputs in {}", dir.display());
    assert!(accepted > 0, "no input was accepted");
}
