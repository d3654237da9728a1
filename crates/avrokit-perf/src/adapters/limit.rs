//! The "limit" rows: a test's routines as bare loops over the reference encoder and decoder
//! (`bare-varint`: no error handling, no abstraction), and a `memcpy` of the encoded bytes, the
//! limit of any encoder or decoder that has to touch every byte once. They show how far each
//! row is from the machine, and never enter the `vs peers` ratio.

use std::hint::black_box;
use std::rc::Rc;

use crate::harness::{check_consumed, reader, writer, Impl, Library, Test};
use crate::reference::{RefDatum, RefDecoder};

/// Adds a test's two limit implementations: its write and read routines as bare reference
/// loops (`bare-varint`), and a copy of its encoded bytes (`memcpy`).
///
/// `write` and `read` are the test's routines over the reference encoder and decoder; `read` must
/// return something derived from every value it decodes, so it cannot be optimised away.
pub fn with_limit<W, R, T>(test: Test, mut write: W, mut read: R) -> Test
where
    W: FnMut(&mut Vec<u8>) + 'static,
    R: FnMut(&mut RefDecoder<'_>) -> T + 'static,
{
    let bare = Impl::new(Library::Limit, "bare-varint")
        .write(writer(move |out| {
            write(out);
            Ok(())
        }))
        .read(reader(move |input| {
            let mut dec = RefDecoder::new(input);
            black_box(read(&mut dec));
            check_consumed(dec.remaining())
        }));
    let source = test.bytes.clone();
    // Reading "by memcpy" copies the input into a buffer allocated once, outside the timing.
    let mut scratch = vec![0u8; source.len()];
    let copy = Impl::new(Library::Limit, "memcpy")
        .write(writer(move |out| {
            out.extend_from_slice(black_box(&source));
            Ok(())
        }))
        .read(reader(move |input| {
            scratch.copy_from_slice(black_box(input));
            black_box(&mut scratch);
            Ok(())
        }));
    test.with(bare).with(copy)
}

/// [`with_limit`] for a stream of datums: each written with [`RefDatum::put`], read back with
/// [`RefDatum::get`].
pub fn with_datum_limit<T: RefDatum + 'static>(test: Test, items: Rc<Vec<T>>) -> Test {
    let n = items.len();
    with_limit(
        test,
        move |out| items.iter().for_each(|v| v.put(out)),
        move |dec| (0..n).fold(0u64, |acc, _| acc ^ T::get(dec)),
    )
}
