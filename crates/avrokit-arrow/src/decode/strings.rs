//! String columns out of their builders, validated once per batch.
//!
//! `StringArray::try_new` checks that the offsets rise (`OffsetBuffer::new`), that the values
//! are UTF-8, and then that every offset falls on a character boundary: three passes, two of
//! them per value. The decoder's offsets rise by construction (each is the values buffer's
//! length after an append, or the one before for a null), so when the whole values buffer is
//! ASCII (one word-at-a-time pass), every offset is a boundary and the array is built without
//! the other passes: callgrind counted about 140 instructions a row of the AVRO-3451 Big record
//! (8 short strings) in them. Anything not ASCII, or not shaped as the decoder leaves it, takes
//! `try_new`.
#![allow(unsafe_code)]

use arrow_array::StringArray;
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use crate::error::{Error, ErrorKind, Result};

/// The string array of a batch: `offsets` (from 0, never falling, one more than the values)
/// into `values`, with `nulls` when nullable.
pub(crate) fn utf8_array(
    offsets: Vec<i32>,
    values: Vec<u8>,
    nulls: Option<NullBuffer>,
) -> Result<StringArray> {
    // What the decoder's builders guarantee, checked in O(1); rising offsets are checked by
    // the debug assertion (they are by construction: see the module documentation).
    let shaped = offsets.first() == Some(&0)
        && offsets
            .last()
            .is_some_and(|&end| usize::try_from(end).ok() == Some(values.len()))
        && nulls.as_ref().is_none_or(|n| n.len() + 1 == offsets.len());
    debug_assert!(offsets.windows(2).all(|w| w[0] <= w[1]));
    if shaped && values.is_ascii() {
        // SAFETY: the offsets start at 0, never fall (every push is the values buffer's length
        // after an append, or the last offset again) and end at the values' length, so they
        // are valid offsets into `values`; there is a validity bit for every value.
        let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
        // SAFETY: the offsets are valid (above) and every byte is ASCII, so every value is
        // valid UTF-8 and every offset a character boundary; `nulls` has one bit per value.
        return Ok(unsafe { StringArray::new_unchecked(offsets, Buffer::from_vec(values), nulls) });
    }
    StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        nulls,
    )
    .map_err(|e| {
        Error::new(
            ErrorKind::Data,
            format!("a string is not valid UTF-8 ({e})"),
        )
    })
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use arrow_buffer::NullBuffer;

    use super::utf8_array;

    /// ASCII takes the unchecked path, anything else the checked one: both give the strings;
    /// bytes that are not UTF-8, and offsets that cut a character, are errors.
    #[test]
    fn strings_are_checked_once() {
        let a = utf8_array(vec![0, 2, 2, 5], b"abcde".to_vec(), None).unwrap();
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            [Some("ab"), Some(""), Some("cde")]
        );
        let nulls = NullBuffer::from(vec![true, false, true]);
        let a = utf8_array(vec![0, 2, 2, 5], b"abcde".to_vec(), Some(nulls)).unwrap();
        assert_eq!(
            a.iter().collect::<Vec<_>>(),
            [Some("ab"), None, Some("cde")]
        );
        let e = "é";
        let a = utf8_array(vec![0, 1, 3], format!("a{e}").into_bytes(), None).unwrap();
        assert_eq!(a.value(1), e);
        assert!(utf8_array(vec![0, 2], vec![b'a', 0xff], None).is_err());
        assert!(utf8_array(vec![0, 2, 3], format!("a{e}").into_bytes(), None).is_err());
        // Not shaped as the decoder leaves builders: the checked path says what is wrong.
        assert!(utf8_array(vec![0, 9], b"abc".to_vec(), None).is_err());
        let one = NullBuffer::from(vec![true]);
        assert!(utf8_array(vec![0, 1, 2], b"ab".to_vec(), Some(one)).is_err());
        assert_eq!(utf8_array(vec![0], Vec::new(), None).unwrap().len(), 0);
    }
}
