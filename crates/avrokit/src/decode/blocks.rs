//! The block skeleton of arrays and maps, shared by every reader of collections.
//!
//! An array or a map is a run of blocks, each a count then that many items, ending with a count
//! of 0. The count comes from the input, so it is checked before anything is reserved for it:
//! items that take at least a byte must fit in the bytes left, items that take none (null,
//! empty records) draw on the budget of the whole top-level value, and the items read so far
//! must fit in the allocation limit. Every front end (values, resolved values, serde) reads its
//! collections through [`Decoder::next_block`] or the loops built on it here, so those checks
//! exist once.
//!
//! # Performance
//! The loops are `#[inline(always)]` and take the item reader as a closure, so each caller
//! compiles to the loop it would write by hand; only errors (naming the index or key of the
//! failing item) are out of line.

use std::mem::size_of;

use super::Decoder;
use crate::error::{Error, Result};
use crate::io::Source;

/// The most items reserved at once from a block's count: a count is only a claim until its
/// items are read, so memory follows the items actually read.
pub(crate) const RESERVE_MAX: u64 = 4096;

/// What the items of a collection cost, which bounds the counts the input may claim.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ItemCost {
    /// For items that take no bytes on the wire: what one costs in memory, counted against the
    /// value's budget for such items. `None` when every item takes at least one byte.
    pub(crate) zero_size_mem: Option<usize>,
    /// What one item costs in memory once read (all of a collection's items together must fit
    /// in the allocation limit).
    pub(crate) mem: usize,
}

/// Where a collection's reading is: the items of the blocks read so far.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Blocks {
    seen: u64,
    /// Where the current block's items start and the byte size its header gave, checked when
    /// the next header is read.
    sized: Option<(u64, u64)>,
}

impl Blocks {
    /// The items of all blocks read so far, the current one included.
    #[inline(always)]
    pub(crate) fn seen(&self) -> u64 {
        self.seen
    }
}

impl<'de, S: Source<'de>> Decoder<'de, S> {
    /// Reads the next block header of a collection and checks its count against the input left
    /// and the limits, with `items` (called only for a block that is not the last). Returns the
    /// block's item count: 0 at the end of the collection.
    ///
    /// # Errors
    /// End of input, a count or size that is not valid, or a count the input or the limits
    /// cannot hold.
    #[inline(always)]
    pub(crate) fn next_block(
        &mut self,
        blocks: &mut Blocks,
        items: impl FnOnce() -> ItemCost,
    ) -> Result<u64> {
        if let Some((start, size)) = blocks.sized.take() {
            self.check_block_size(start, size)?;
        }
        let (count, size) = self.read_block_header()?;
        if count != 0 {
            self.check_block(items(), blocks.seen, count)?;
            // Cannot overflow: the check bounds `seen + count` by the allocation limit.
            blocks.seen += count;
            if let Some(size) = size {
                blocks.sized = Some((self.offset(), size));
            }
        }
        Ok(count)
    }

    /// A block's byte size against the bytes its items took: a reader that skips the block by
    /// its size must land where this one, which read the items, does (found by fuzzing: a
    /// size that its zero-byte items did not fill).
    #[inline(always)]
    fn check_block_size(&self, start: u64, size: u64) -> Result<()> {
        let took = self.offset().wrapping_sub(start);
        if took == size {
            Ok(())
        } else {
            Err(block_size_mismatch(start, size, took))
        }
    }

    #[inline]
    fn check_block(&mut self, items: ItemCost, seen: u64, count: u64) -> Result<()> {
        match items.zero_size_mem {
            Some(mem) => self.check_zero_size_items(count, mem)?,
            None => self.check_items(count, 1, 0)?,
        }
        self.check_items(seen.saturating_add(count), 0, items.mem)
    }

    /// The loop of the readers that append an array's items or a map's entries to `out`:
    /// each block's count checked against `cost` (see [`Decoder::next_block`]), room reserved
    /// for its items (at most [`RESERVE_MAX`] at a time), and `item` run once per item.
    #[inline(always)]
    fn append_blocks<T>(
        &mut self,
        cost: impl Fn() -> ItemCost,
        out: &mut Vec<T>,
        mut item: impl FnMut(&mut Self, &mut Vec<T>) -> Result<()>,
    ) -> Result<()> {
        self.enter()?;
        let mut blocks = Blocks::default();
        loop {
            let count = self.next_block(&mut blocks, &cost)?;
            if count == 0 {
                break;
            }
            out.reserve(count.min(RESERVE_MAX) as usize);
            for _ in 0..count {
                item(self, out)?;
            }
        }
        self.leave();
        Ok(())
    }

    /// Reads an array, one nesting level deep, appending its items to `out` with `read`.
    /// `zero_size_mem` says what an item costs when the items take no bytes on the wire
    /// (see [`ItemCost`]); it is asked once per block.
    ///
    /// # Errors
    /// As [`Decoder::next_block`], and those of `read`, with the index of the failing item.
    #[inline(always)]
    pub(crate) fn read_array<T>(
        &mut self,
        zero_size_mem: impl Fn() -> Option<usize>,
        out: &mut Vec<T>,
        mut read: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<()> {
        let cost = || array_items::<T>(&zero_size_mem);
        self.append_blocks(cost, out, |dec, out| match read(dec) {
            Ok(v) => {
                out.push(v);
                Ok(())
            }
            Err(e) => Err(in_index(e, out.len())),
        })
    }

    /// As [`Decoder::read_array`], each item read in its place: `blank()` is pushed and `into`
    /// reads over it. A reader that builds its values where they go (the `Value` reader's
    /// leaves) then never returns one: a value returned and pushed is written piecewise and
    /// read back whole at once, a load the CPU cannot forward from those stores.
    ///
    /// # Errors
    /// As [`Decoder::read_array`]; the failing item's slot is removed.
    #[inline(always)]
    pub(crate) fn read_array_in_place<T>(
        &mut self,
        zero_size_mem: impl Fn() -> Option<usize>,
        out: &mut Vec<T>,
        blank: impl Fn() -> T,
        mut into: impl FnMut(&mut Self, &mut T) -> Result<()>,
    ) -> Result<()> {
        let cost = || array_items::<T>(&zero_size_mem);
        self.append_blocks(cost, out, |dec, out| {
            out.push(blank());
            let n = out.len() - 1;
            match out.last_mut().map_or(Ok(()), |slot| into(dec, slot)) {
                Ok(()) => Ok(()),
                Err(e) => {
                    out.truncate(n);
                    Err(in_index(e, n))
                }
            }
        })
    }

    /// Reads a map, one nesting level deep, appending its entries to `out`, each value read in
    /// its place, as [`Decoder::read_array_in_place`] reads items.
    ///
    /// # Errors
    /// As [`Decoder::next_block`], a key that is not a valid string, and the errors of `into`,
    /// with the key of the failing entry; the failing entry is removed.
    #[inline(always)]
    pub(crate) fn read_map_in_place<T>(
        &mut self,
        out: &mut Vec<(String, T)>,
        blank: impl Fn() -> T,
        mut into: impl FnMut(&mut Self, &mut T) -> Result<()>,
    ) -> Result<()> {
        self.append_blocks(map_items::<T>, out, |dec, out| {
            // Not `read_string`: a call more to it here made LLVM stop inlining it into other
            // callers (10% more instructions in a loop of `read_string`, callgrind).
            let key = dec.read_str()?.to_owned();
            out.push((key, blank()));
            let n = out.len() - 1;
            if let Some((k, slot)) = out.last_mut() {
                if let Err(e) = into(dec, slot) {
                    let e = in_key(e, k);
                    out.truncate(n);
                    return Err(e);
                }
            }
            Ok(())
        })
    }

    /// Reads an array over the items of `out`, reusing them: `into` overwrites an existing
    /// item, `read` makes the items beyond them, and `out` is cut to the array's length.
    ///
    /// # Errors
    /// As [`Decoder::read_array`]; `out` then holds the items before the failing one.
    #[inline(always)]
    pub(crate) fn read_array_into<T>(
        &mut self,
        zero_size_mem: impl Fn() -> Option<usize>,
        out: &mut Vec<T>,
        mut into: impl FnMut(&mut Self, &mut T) -> Result<()>,
        mut read: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<()> {
        self.enter()?;
        let mut blocks = Blocks::default();
        let mut n = 0usize;
        loop {
            let count = self.next_block(&mut blocks, || array_items::<T>(&zero_size_mem))?;
            if count == 0 {
                break;
            }
            for _ in 0..count {
                let res = match out.get_mut(n) {
                    Some(s) => into(self, s),
                    None => {
                        if out.len() == out.capacity() {
                            out.reserve(count.min(RESERVE_MAX) as usize);
                        }
                        read(self).map(|v| out.push(v))
                    }
                };
                if let Err(e) = res {
                    out.truncate(n);
                    return Err(in_index(e, n));
                }
                n += 1;
            }
        }
        out.truncate(n);
        self.leave();
        Ok(())
    }

    /// Reads a map over the entries of `out`, reusing their keys and values as
    /// [`Decoder::read_array_into`] does.
    ///
    /// # Errors
    /// As [`Decoder::next_block`], a key that is not a valid string, and the errors of `read`
    /// and `into`, with the key of the failing entry; `out` then holds the entries before the
    /// failing one.
    #[inline(always)]
    pub(crate) fn read_map_into<T>(
        &mut self,
        out: &mut Vec<(String, T)>,
        mut into: impl FnMut(&mut Self, &mut T) -> Result<()>,
        mut read: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<()> {
        self.enter()?;
        let mut blocks = Blocks::default();
        let mut n = 0usize;
        loop {
            let count = self.next_block(&mut blocks, map_items::<T>)?;
            if count == 0 {
                break;
            }
            for _ in 0..count {
                let res = match out.get_mut(n) {
                    Some((k, s)) => match self.read_string_into(k) {
                        Ok(()) => into(self, s).map_err(|e| in_key(e, k)),
                        Err(e) => Err(e),
                    },
                    None => {
                        if out.len() == out.capacity() {
                            out.reserve(count.min(RESERVE_MAX) as usize);
                        }
                        match self.read_str().map(str::to_owned) {
                            Ok(key) => match read(self) {
                                Ok(v) => {
                                    out.push((key, v));
                                    Ok(())
                                }
                                Err(e) => Err(in_key(e, &key)),
                            },
                            Err(e) => Err(e),
                        }
                    }
                };
                if let Err(e) = res {
                    out.truncate(n);
                    return Err(e);
                }
                n += 1;
            }
        }
        out.truncate(n);
        self.leave();
        Ok(())
    }
}

/// The bounds of array items of type `T`.
#[inline(always)]
fn array_items<T>(zero_size_mem: &impl Fn() -> Option<usize>) -> ItemCost {
    ItemCost {
        zero_size_mem: zero_size_mem(),
        mem: size_of::<T>(),
    }
}

/// The bounds of map entries with values of type `T`: a key takes at least its length byte.
#[inline(always)]
fn map_items<T>() -> ItemCost {
    ItemCost {
        zero_size_mem: None,
        mem: size_of::<(String, T)>(),
    }
}

#[cold]
#[inline(never)]
fn in_index(e: Error, index: usize) -> Error {
    e.in_index(index as u64)
}

#[cold]
#[inline(never)]
fn in_key(e: Error, key: &str) -> Error {
    e.in_key(key)
}

#[cold]
#[inline(never)]
fn block_size_mismatch(start: u64, size: u64, took: u64) -> Error {
    Error::at(
        crate::error::ErrorKind::Data,
        format!("block byte size {size}, but its items took {took} bytes"),
        start,
    )
}
