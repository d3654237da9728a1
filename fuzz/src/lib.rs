//! Support for the fuzz targets in `fuzz_targets/`: the checks live in `checks.rs`, which
//! `crates/avrokit/tests/fuzz_regressions.rs` also includes to replay the corpus in CI.

pub mod checks;
