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

/// The input on which the two readers once disagreed: an array block of 5,589,281 empty
/// records under a byte size of 2. Both now refuse it, with the same message.
#[test]
fn a_block_size_its_items_do_not_fill_is_refused_by_both_readers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus/arrow_read/block-size-its-zero-byte-items-do-not-fill.avro");
    let data = std::fs::read(path).unwrap();
    let core = avrokit::container::Reader::from_slice(&data)
        .unwrap()
        .find_map(|r| r.err())
        .expect("the core reader refuses it");
    let arrow = avrokit_arrow::ReaderBuilder::new()
        .build_slice(&data)
        .unwrap()
        .find_map(|r| r.err())
        .expect("avrokit-arrow refuses it");
    for e in [core.to_string(), arrow.to_string()] {
        assert!(
            e.contains("block byte size 2, but its items took 0 bytes"),
            "{e}"
        );
    }
}
