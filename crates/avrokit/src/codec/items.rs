//! Collections: bulk arrays of fixed-width items, and maps, over the decoder's checked block
//! skeleton ([`Decoder::next_block`]).

use std::mem::size_of;

use super::{AvroDecode, AvroEncode};
use crate::decode::{Blocks, Decoder, ItemCost};
use crate::encode::Encoder;
use crate::error::{Error, Result};
use crate::io::{Sink, Source};

/// What an item of `T` costs when items take no bytes on the wire, for the block checks.
#[inline(always)]
pub(crate) fn zero_size_mem<'de, T: AvroDecode<'de>>() -> Option<usize> {
    T::ZERO_SIZE.then_some(size_of::<T>())
}

/// Items staged on the stack per bulk write: 256 bytes of floats, 512 of doubles.
const CHUNK: usize = 64;

/// Writes the items of an array of fixed-width values in bulk: `N`-byte encodings built in a
/// stack buffer, handed to the sink a chunk at a time (one copy into a `Vec<u8>`).
#[inline(always)]
pub(crate) fn encode_fixed_items<T: Copy, S: Sink, const N: usize>(
    items: &[T],
    enc: &mut Encoder<S>,
    bytes: impl Fn(T) -> [u8; N],
) -> Result<()> {
    enc.sink_mut().reserve(items.len() * N);
    let mut buf = [[0u8; N]; CHUNK];
    for chunk in items.chunks(CHUNK) {
        for (b, &v) in buf.iter_mut().zip(chunk) {
            *b = bytes(v);
        }
        let run = buf[..chunk.len()].as_flattened();
        enc.sink_mut().write_items(run, N)?;
    }
    Ok(())
}

/// Reads an array of fixed-width values in bulk: per block, the count is checked by the block
/// skeleton, then the block's `count * N` bytes are one checked take, converted in a loop the
/// compiler turns into a copy on little-endian hosts.
#[inline(always)]
pub(crate) fn decode_fixed_items<'de, T, S: Source<'de>, const N: usize>(
    dec: &mut Decoder<'de, S>,
    out: &mut Vec<T>,
    value: impl Fn([u8; N]) -> Result<T>,
) -> Result<()> {
    decode_block_items(dec, out, |dec, count, out| {
        // `next_block` bounded `count * size_of::<T>()` by the allocation limit, so this
        // neither overflows nor reserves more than the limit (and `read_fixed_ref` checks
        // the bytes are there before anything is reserved).
        let len = (count as usize).saturating_mul(N);
        let at = dec.offset();
        let bytes = dec.read_fixed_ref(len)?;
        out.reserve(count as usize);
        for (i, c) in bytes.chunks_exact(N).enumerate() {
            let mut a = [0u8; N];
            a.copy_from_slice(c);
            match value(a) {
                Ok(v) => out.push(v),
                Err(e) => return Err(at_offset(e, at + (i * N) as u64)),
            }
        }
        Ok(())
    })
}

/// Reads an array a block at a time: per block, after the block skeleton's checks,
/// `block` reads the block's `count` items into `out` in one go (a bulk copy of fixed-width
/// items, or one loop over the source for `int`s and `long`s, [`Decoder::read_ints`]) instead
/// of a decode call per item. Errors get the index of the item `out` would have held next.
#[inline(always)]
pub(crate) fn decode_block_items<'de, T, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    out: &mut Vec<T>,
    mut block: impl FnMut(&mut Decoder<'de, S>, u64, &mut Vec<T>) -> Result<()>,
) -> Result<()> {
    dec.enter()?;
    let mut blocks = Blocks::default();
    loop {
        let count = dec.next_block(&mut blocks, || ItemCost {
            zero_size_mem: None,
            mem: size_of::<T>(),
        })?;
        if count == 0 {
            break;
        }
        if let Err(e) = block(dec, count, out) {
            return Err(in_index(e, out.len()));
        }
    }
    dec.leave();
    Ok(())
}

#[cold]
#[inline(never)]
fn at_offset(e: Error, at: u64) -> Error {
    e.at_offset(at)
}

#[cold]
#[inline(never)]
fn in_index(e: Error, index: usize) -> Error {
    e.in_index(index as u64)
}

/// Writes a map of `len` entries.
#[inline]
pub(crate) fn encode_map<'a, V: AvroEncode + 'a, S: Sink>(
    enc: &mut Encoder<S>,
    len: usize,
    entries: impl Iterator<Item = (&'a str, &'a V)>,
) -> Result<()> {
    enc.write_map_start(len)?;
    for (k, v) in entries {
        enc.start_item()?;
        enc.write_string(k)?;
        v.encode(enc)?;
    }
    enc.write_map_end()
}

/// Reads a map, one nesting level deep, handing each entry to `put`. Keys are read as `K`
/// reads a string, so `&str` and `Cow<str>` keys borrow from the input as fields do.
#[inline]
pub(crate) fn decode_map<'de, K, V, S>(
    dec: &mut Decoder<'de, S>,
    put: impl FnMut(K, V),
) -> Result<()>
where
    K: AvroDecode<'de> + AsRef<str>,
    V: AvroDecode<'de>,
    S: Source<'de>,
{
    decode_map_with(dec, V::decode, put)
}

/// As [`decode_map`], each value read by `value`.
#[inline]
pub(crate) fn decode_map_with<'de, K, V, S>(
    dec: &mut Decoder<'de, S>,
    mut value: impl FnMut(&mut Decoder<'de, S>) -> Result<V>,
    mut put: impl FnMut(K, V),
) -> Result<()>
where
    K: AvroDecode<'de> + AsRef<str>,
    S: Source<'de>,
{
    dec.enter()?;
    let mut blocks = Blocks::default();
    loop {
        let count = dec.next_block(&mut blocks, || ItemCost {
            zero_size_mem: None,
            mem: size_of::<(K, V)>(),
        })?;
        if count == 0 {
            break;
        }
        for _ in 0..count {
            let key = K::decode(dec)?;
            match value(dec) {
                Ok(v) => put(key, v),
                Err(e) => return Err(in_key(e, key.as_ref())),
            }
        }
    }
    dec.leave();
    Ok(())
}

#[cold]
#[inline(never)]
fn in_key(e: Error, key: &str) -> Error {
    e.in_key(key)
}
