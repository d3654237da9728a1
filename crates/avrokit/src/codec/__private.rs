//! Support for the codecs `#[derive(AvroSchema)]` generates. Not public API: it may change in
//! any release.

use std::borrow::Cow;

use super::{AvroDecode, AvroEncode};
pub use super::{RecordSteps, Resolver};
pub use crate::decode::Decoder;
pub use crate::encode::Encoder;
pub use crate::error::Result;
use crate::error::{Error, ErrorKind};
/// The source of the decoder a reader-only field's default is read from.
pub use crate::io::CopySource as DefaultSource;
use crate::io::Reference;
pub use crate::io::{Sink, Source};

/// A union index beyond the `branches` of the type, read at `at`.
#[cold]
#[inline(never)]
pub fn bad_union(index: u32, branches: usize, at: u64) -> Error {
    Error::at(
        ErrorKind::Data,
        format!("union index {index} out of range: the union has {branches} branches"),
        at,
    )
}

/// An enum index beyond the `symbols` of the type, read at `at`.
#[cold]
#[inline(never)]
pub fn bad_enum(index: u32, symbols: usize, at: u64) -> Error {
    Error::at(
        ErrorKind::Data,
        format!("enum index {index} out of range: the enum has {symbols} symbols"),
        at,
    )
}

/// An integer read at `at` that does not fit the Rust type `ty`.
#[cold]
#[inline(never)]
pub fn out_of_range(ty: &'static str, at: u64) -> Error {
    Error::at(
        ErrorKind::Data,
        format!("integer out of range for {ty}"),
        at,
    )
}

/// A borrowed field (`&str`, `&[u8]`) read at `at` from a source that copies (a reader).
#[cold]
#[inline(never)]
pub fn borrow_failed(at: u64) -> Error {
    Error::at(
        ErrorKind::Data,
        "a borrowed field (&str, &[u8]) needs a slice source: a reader cannot lend its bytes",
        at,
    )
}

/// A value of an enum variant that the schema does not have (`#[serde(skip)]`).
#[cold]
#[inline(never)]
pub fn skipped_variant(variant: &'static str) -> Error {
    Error::new(
        ErrorKind::Data,
        format!("variant {variant} is skipped: the schema has no branch or symbol for it"),
    )
}

/// The error of a derived type without a codec (`what` says why).
#[cold]
#[inline(never)]
pub fn no_codec(what: &'static str) -> Error {
    Error::new(
        ErrorKind::Schema,
        format!("{what}; use the serde front end for this type"),
    )
}

/// Puts the field `name` on the error's path.
#[cold]
#[inline(never)]
pub fn in_field(e: Error, name: &'static str) -> Error {
    e.in_field(name)
}

/// `bytes` fields (the derive's `Vec<u8>`, `&[u8]`, `Cow<[u8]>`, `Box<[u8]>`, `serde_bytes`).
pub trait Bytes<'de>: Sized {
    /// The bytes to write.
    fn bytes(&self) -> &[u8];
    /// Reads the bytes.
    ///
    /// # Errors
    /// As [`Decoder::read_bytes_ref`], and borrowing from a reader.
    fn read<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Self>;
    /// Reads the bytes over `self`.
    ///
    /// # Errors
    /// As [`Bytes::read`].
    #[inline]
    fn read_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        *self = Self::read(dec)?;
        Ok(())
    }
    /// Reads the bytes written with another schema (`bytes` or `string`), as op `op` of `rs`.
    ///
    /// # Errors
    /// As [`Bytes::read`], and a plan that reads no bytes there.
    #[inline]
    fn read_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<Self> {
        rs.bytes(dec, op)?;
        Self::read(dec)
    }
    /// As [`Bytes::read_resolved`], over `self`.
    ///
    /// # Errors
    /// As [`Bytes::read_resolved`].
    #[inline]
    fn read_resolved_into<S: Source<'de>>(
        &mut self,
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<()> {
        rs.bytes(dec, op)?;
        self.read_into(dec)
    }
}

impl<'de> Bytes<'de> for Vec<u8> {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn read<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Vec<u8>> {
        Ok(dec.read_bytes_ref()?.to_vec())
    }
    #[inline]
    fn read_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        dec.read_bytes_into(self)
    }
}

impl<'de> Bytes<'de> for Box<[u8]> {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn read<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Box<[u8]>> {
        Ok(dec.read_bytes_ref()?.to_vec().into_boxed_slice())
    }
}

impl<'de: 'a, 'a> Bytes<'de> for &'a [u8] {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self
    }
    // Always inlined, as `&str`'s decode is (see there): 5% on the same read.
    #[inline(always)]
    fn read<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<&'a [u8]> {
        let at = dec.offset();
        match dec.read_bytes_ref()? {
            Reference::Borrowed(b) => Ok(b),
            Reference::Copied(_) => Err(borrow_failed(at)),
        }
    }
}

impl<'de: 'a, 'a> Bytes<'de> for Cow<'a, [u8]> {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn read<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Cow<'a, [u8]>> {
        Ok(match dec.read_bytes_ref()? {
            Reference::Borrowed(b) => Cow::Borrowed(b),
            Reference::Copied(b) => Cow::Owned(b.to_vec()),
        })
    }
}

/// Writes `bytes`.
///
/// # Errors
/// When the sink fails.
#[inline(always)]
pub fn write_bytes<S: Sink>(enc: &mut Encoder<S>, b: &[u8]) -> Result<()> {
    enc.write_bytes(b)
}

/// Writes an `["null", T]` union (`null_second`: `[T, "null"]`) through `write` for `T`.
///
/// # Errors
/// Those of `write`, or the sink's.
#[inline(always)]
pub fn encode_option<S: Sink, T>(
    enc: &mut Encoder<S>,
    v: &Option<T>,
    null_second: bool,
    write: impl FnOnce(&mut Encoder<S>, &T) -> Result<()>,
) -> Result<()> {
    match v {
        None => enc.write_union_index(u32::from(null_second)),
        Some(v) => {
            enc.write_union_index(u32::from(!null_second))?;
            write(enc, v)
        }
    }
}

/// Reads an `["null", T]` union (`null_second`: `[T, "null"]`) through `read` for `T`.
///
/// # Errors
/// Those of `read`, a bad union index, end of input.
#[inline(always)]
pub fn decode_option<'de, S: Source<'de>, T>(
    dec: &mut Decoder<'de, S>,
    null_second: bool,
    read: impl FnOnce(&mut Decoder<'de, S>) -> Result<T>,
) -> Result<Option<T>> {
    let at = dec.offset();
    let i = dec.read_union_index()?;
    if i > 1 {
        return Err(bad_union(i, 2, at));
    }
    if (i == 1) == null_second {
        Ok(None)
    } else {
        read(dec).map(Some)
    }
}

/// As [`decode_option`], for data of another writer schema: op `op` of `rs` is the reader
/// union's.
///
/// # Errors
/// Those of `read`, a bad union index, a writer branch the type lacks, end of input.
#[inline(always)]
pub fn decode_option_resolved<'de, S: Source<'de>, T>(
    dec: &mut Decoder<'de, S>,
    rs: &Resolver,
    op: u32,
    null_second: bool,
    read: impl FnOnce(&mut Decoder<'de, S>, &Resolver, u32) -> Result<T>,
) -> Result<Option<T>> {
    let at = dec.offset();
    let (i, inner) = rs.branch(dec, op)?;
    if i > 1 {
        return Err(bad_union(i, 2, at));
    }
    if (i == 1) == null_second {
        rs.read_null(dec, inner).map(|()| None)
    } else {
        read(dec, rs, inner).map(Some)
    }
}

/// Writes an array through `write` for the items.
///
/// # Errors
/// Those of `write`, or the sink's.
#[inline]
pub fn encode_array<S: Sink, T>(
    enc: &mut Encoder<S>,
    items: &[T],
    mut write: impl FnMut(&mut Encoder<S>, &T) -> Result<()>,
) -> Result<()> {
    enc.write_array_start(items.len())?;
    for item in items {
        enc.start_item()?;
        write(enc, item)?;
    }
    enc.write_array_end()
}

/// Reads an array through `read` for items that take at least a byte each (bytes, unions),
/// with the decoder's block checks.
///
/// # Errors
/// Those of `read` (with the item's index), the block checks'.
#[inline]
pub fn decode_array<'de, S: Source<'de>, T>(
    dec: &mut Decoder<'de, S>,
    read: impl FnMut(&mut Decoder<'de, S>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    dec.read_array(|| None, &mut out, read)?;
    Ok(out)
}

/// As [`decode_array`], for data of another writer schema (op `op` of `rs`).
///
/// # Errors
/// As [`decode_array`], and a writer item the type cannot hold.
#[inline]
pub fn decode_array_resolved<'de, S: Source<'de>, T>(
    dec: &mut Decoder<'de, S>,
    rs: &Resolver,
    op: u32,
    mut read: impl FnMut(&mut Decoder<'de, S>, &Resolver, u32) -> Result<T>,
) -> Result<Vec<T>> {
    let (item, zero_size_mem) = rs.array(dec, op, std::mem::size_of::<T>())?;
    let mut out = Vec::new();
    dec.read_array(|| zero_size_mem, &mut out, |d| read(d, rs, item))?;
    Ok(out)
}

/// Writes a map through `write` for the values.
///
/// # Errors
/// Those of `write`, or the sink's.
#[inline]
pub fn encode_map<'a, S: Sink, K: AsRef<str> + 'a, V: 'a>(
    enc: &mut Encoder<S>,
    len: usize,
    entries: impl Iterator<Item = (&'a K, &'a V)>,
    mut write: impl FnMut(&mut Encoder<S>, &V) -> Result<()>,
) -> Result<()> {
    enc.write_map_start(len)?;
    for (k, v) in entries {
        enc.start_item()?;
        enc.write_string(k.as_ref())?;
        write(enc, v)?;
    }
    enc.write_map_end()
}

/// Reads a map into any map type through `read` for the values. Keys are read as `K` reads a
/// string (`&str` and `Cow<str>` borrow from the input).
///
/// # Errors
/// Those of `read` (with the entry's key), the block checks'.
#[inline]
pub fn decode_map<'de, S, K, V, M>(
    dec: &mut Decoder<'de, S>,
    read: impl FnMut(&mut Decoder<'de, S>) -> Result<V>,
) -> Result<M>
where
    S: Source<'de>,
    K: AvroDecode<'de> + AsRef<str>,
    M: Default + Extend<(K, V)>,
{
    let mut out = M::default();
    super::items::decode_map_with(dec, read, |k: K, v| out.extend(std::iter::once((k, v))))?;
    Ok(out)
}

/// As [`decode_map`], for data of another writer schema (op `op` of `rs`).
///
/// # Errors
/// As [`decode_map`], and a writer value the type cannot hold.
#[inline]
pub fn decode_map_resolved<'de, S, K, V, M>(
    dec: &mut Decoder<'de, S>,
    rs: &Resolver,
    op: u32,
    mut read: impl FnMut(&mut Decoder<'de, S>, &Resolver, u32) -> Result<V>,
) -> Result<M>
where
    S: Source<'de>,
    K: AvroDecode<'de> + AsRef<str>,
    M: Default + Extend<(K, V)>,
{
    let values = rs.map(dec, op)?;
    decode_map(dec, |d| read(d, rs, values))
}

/// A reader field the resolution neither read nor defaulted: the plan and the type disagree.
#[cold]
#[inline(never)]
pub fn unfilled(name: &'static str) -> Error {
    Error::new(
        ErrorKind::Schema,
        format!("internal: the resolution gave field `{name}` no value"),
    )
}

/// A reader field position the type does not have: the plan and the type disagree.
#[cold]
#[inline(never)]
pub fn no_field(pos: u32) -> Error {
    Error::new(
        ErrorKind::Schema,
        format!("internal: the resolution reads field {pos}, which the type does not have"),
    )
}

/// A reader branch or symbol index the type does not have: the plan and the type disagree.
#[cold]
#[inline(never)]
pub fn no_variant(index: u32) -> Error {
    Error::new(
        ErrorKind::Schema,
        format!("internal: the resolution gives branch or symbol {index}, which the type lacks"),
    )
}

/// Whether items of `T` take no bytes, for the derive's `ZERO_SIZE`.
#[inline(always)]
pub const fn zero_size<'de, T: AvroDecode<'de>>() -> bool {
    T::ZERO_SIZE
}

/// Encodes through the trait (so the derive's code names one path).
///
/// # Errors
/// As [`AvroEncode::encode`].
#[inline(always)]
pub fn encode<S: Sink, T: AvroEncode + ?Sized>(enc: &mut Encoder<S>, v: &T) -> Result<()> {
    v.encode(enc)
}
