//! The registry: every test, in registration (default run) order: WORKLOADS.md section 7, then
//! AVRO-3451, then the container files, then Avro to Arrow and back, then our realistic record
//! (not in Java's catalog). A new family is one file in `families/` and one line here.

use crate::families;
use crate::harness::Spec;

/// Every registered test.
pub fn registry() -> Vec<Spec> {
    let mut all = families::basic::specs();
    all.extend(families::record::specs());
    all.extend(families::generic::specs());
    all.extend(families::specific::specs());
    all.extend(families::reflect::specs());
    all.extend(families::avro3451::specs());
    all.extend(families::container::specs());
    all.extend(families::arrow::specs());
    all.extend(families::realistic::specs());
    all
}
