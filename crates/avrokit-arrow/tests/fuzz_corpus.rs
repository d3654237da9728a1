//! Replays the `arrow_read` fuzz corpus (`fuzz/corpus/arrow_read/`), and every input the
//! `container_read` target kept, through the `arrow_read` check on stable Rust: avrokit-arrow
//! never panics on them, and reads exactly the records the core reader reads.

#[path = "../../../fuzz/src/arrow.rs"]
mod arrow;

use std::path::Path;

#[test]
fn every_corpus_input_passes_the_arrow_check() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let (mut n, mut accepted, mut rejected) = (0, 0, 0);
    for target in ["arrow_read", "container_read"] {
        for entry in std::fs::read_dir(fuzz.join(target)).unwrap() {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            n += 1;
            match arrow::check_arrow_read(&data) {
                arrow::ArrowOutcome::Accepted => accepted += 1,
                arrow::ArrowOutcome::Rejected => rejected += 1,
                arrow::ArrowOutcome::Unmappable => {}
            }
        }
    }
    assert!(n >= 500, "{n} inputs");
    assert!(
        accepted > 20 && rejected > 20,
        "{accepted} accepted, {rejected} rejected"
    );
}
