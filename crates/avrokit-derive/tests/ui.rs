//! The derive's compile errors (trybuild: slow, so few cases, one file each).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
