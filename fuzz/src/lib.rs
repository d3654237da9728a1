//! Support for the fuzz targets in `fuzz_targets/`: the checks live in `checks.rs`, which
//! `crates/avrokit/tests/fuzz_regressions.rs` also includes to replay the corpus in CI; the IDL
//! check lives in `idl.rs` (replayed by `crates/avrokit-idl/tests/fuzz_corpus.rs`), the
//! Avro-to-Arrow check in `arrow.rs` (replayed by `crates/avrokit-arrow/tests/fuzz_corpus.rs`).

pub mod arrow;
pub mod checks;
pub mod idl;
