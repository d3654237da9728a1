//! Support for the codecs `#[derive(AvroSchema)]` generates. Not public API: it may change in
//! any release.

use std::borrow::Cow;

use super::{AvroDecode, AvroEncode};
pub use crate::decode::Decoder;
pub use crate::encode::Encoder;
pub use crate::error::Result;
use crate::error::{Error, ErrorKind};
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
    #[inline]
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

/// `bytes` with the fixed-size array of a `[u8; N]` under `serde_bytes`.
impl<'de, const N: usize> Bytes<'de> for [u8; N] {
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self
    }
    fn read<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<[u8; N]> {
        let at = dec.offset();
        let b = dec.read_bytes_ref()?;
        <[u8; N]>::try_from(&*b).map_err(|_| {
            Error::at(
                ErrorKind::Data,
                format!("{} bytes where the array holds {N}", b.len()),
                at,
            )
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

/// Reads a map into any map type through `read` for the values.
///
/// # Errors
/// Those of `read` (with the entry's key), the block checks'.
#[inline]
pub fn decode_map<'de, S: Source<'de>, K: From<String>, V, M: Default + Extend<(K, V)>>(
    dec: &mut Decoder<'de, S>,
    read: impl FnMut(&mut Decoder<'de, S>) -> Result<V>,
) -> Result<M> {
    let mut entries = Vec::new();
    dec.read_map(&mut entries, read)?;
    let mut out = M::default();
    out.extend(entries.into_iter().map(|(k, v)| (K::from(k), v)));
    Ok(out)
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
