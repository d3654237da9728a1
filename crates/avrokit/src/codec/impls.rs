//! [`AvroEncode`] and [`AvroDecode`] for the standard types, each with the schema its
//! [`AvroSchema`](crate::AvroSchema) impl gives.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::Arc;

use super::__private::{borrow_failed, out_of_range};
use super::items::{decode_fixed_items, decode_map, encode_fixed_items, encode_map};
use super::{AvroDecode, AvroEncode};
use crate::decode::Decoder;
use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::{Reference, Sink, Source};

impl AvroEncode for () {
    #[inline(always)]
    fn encode<S: Sink>(&self, _: &mut Encoder<S>) -> Result<()> {
        Ok(())
    }
}

impl<'de> AvroDecode<'de> for () {
    const ZERO_SIZE: bool = true;
    #[inline(always)]
    fn decode<S: Source<'de>>(_: &mut Decoder<'de, S>) -> Result<()> {
        Ok(())
    }
}

impl AvroEncode for bool {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        enc.write_boolean(*self)
    }
    #[inline]
    fn encode_items<S: Sink>(items: &[bool], enc: &mut Encoder<S>) -> Result<()> {
        encode_fixed_items(items, enc, |b| [u8::from(b)])
    }
}

impl<'de> AvroDecode<'de> for bool {
    #[inline(always)]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<bool> {
        dec.read_boolean()
    }
    #[inline]
    fn decode_items<S: Source<'de>>(dec: &mut Decoder<'de, S>, out: &mut Vec<bool>) -> Result<()> {
        decode_fixed_items(dec, out, |[b]| match b {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Error::new(
                ErrorKind::Data,
                "boolean byte is neither 0 nor 1",
            )),
        })
    }
    #[inline]
    fn decode_items_into<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        out: &mut Vec<bool>,
    ) -> Result<()> {
        out.clear();
        Self::decode_items(dec, out)
    }
}

/// Floats and doubles: little-endian on the wire, so arrays move in bulk.
macro_rules! float {
    ($($t:ty, $write:ident, $read:ident;)*) => {$(
        impl AvroEncode for $t {
            #[inline(always)]
            fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
                enc.$write(*self)
            }
            #[inline]
            fn encode_items<S: Sink>(items: &[$t], enc: &mut Encoder<S>) -> Result<()> {
                encode_fixed_items(items, enc, <$t>::to_le_bytes)
            }
        }

        impl<'de> AvroDecode<'de> for $t {
            #[inline(always)]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<$t> {
                dec.$read()
            }
            #[inline]
            fn decode_items<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                out: &mut Vec<$t>,
            ) -> Result<()> {
                decode_fixed_items(dec, out, |b| Ok(<$t>::from_le_bytes(b)))
            }
            #[inline]
            fn decode_items_into<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                out: &mut Vec<$t>,
            ) -> Result<()> {
                out.clear();
                Self::decode_items(dec, out)
            }
        }
    )*};
}

float! {
    f32, write_float, read_float;
    f64, write_double, read_double;
}

/// Integers: `int` or `long` on the wire, range-checked when read into a narrower type.
macro_rules! integer {
    ($($t:ty, $wire:ty, $write:ident, $read:ident;)*) => {$(
        impl AvroEncode for $t {
            #[inline(always)]
            fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
                enc.$write(<$wire>::from(*self))
            }
            #[inline]
            fn encode_items<S: Sink>(items: &[$t], enc: &mut Encoder<S>) -> Result<()> {
                // At least a byte each: one reservation for the common small values.
                enc.sink_mut().reserve(items.len());
                for &v in items {
                    enc.start_item()?;
                    enc.$write(<$wire>::from(v))?;
                }
                Ok(())
            }
        }

        impl<'de> AvroDecode<'de> for $t {
            #[inline(always)]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<$t> {
                let at = dec.offset();
                let v = dec.$read()?;
                <$t>::try_from(v).map_err(|_| out_of_range(stringify!($t), at))
            }
        }
    )*};
}

integer! {
    i8, i32, write_int, read_int;
    i16, i32, write_int, read_int;
    i32, i32, write_int, read_int;
    u8, i32, write_int, read_int;
    u16, i32, write_int, read_int;
    i64, i64, write_long, read_long;
    u32, i64, write_long, read_long;
}

impl AvroEncode for u64 {
    #[inline]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        match i64::try_from(*self) {
            Ok(v) => enc.write_long(v),
            Err(_) => Err(Error::new(
                ErrorKind::Data,
                "u64 value does not fit in an Avro long",
            )),
        }
    }
}

impl<'de> AvroDecode<'de> for u64 {
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<u64> {
        let at = dec.offset();
        let v = dec.read_long()?;
        u64::try_from(v).map_err(|_| out_of_range("u64", at))
    }
}

impl AvroEncode for char {
    #[inline]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        enc.write_string(self.encode_utf8(&mut [0; 4]))
    }
}

impl<'de> AvroDecode<'de> for char {
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<char> {
        let at = dec.offset();
        let s = dec.read_str()?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(Error::at(
                ErrorKind::Data,
                "a char is a string of one character",
                at,
            )),
        }
    }
}

impl AvroEncode for str {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        enc.write_string(self)
    }
}

impl AvroEncode for String {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        enc.write_string(self)
    }
}

impl<'de> AvroDecode<'de> for String {
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<String> {
        dec.read_string()
    }
    #[inline]
    fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        dec.read_string_into(self)
    }
}

impl<'de: 'a, 'a> AvroDecode<'de> for &'a str {
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<&'a str> {
        let at = dec.offset();
        match dec.read_str_ref()? {
            Reference::Borrowed(s) => Ok(s),
            Reference::Copied(_) => Err(borrow_failed(at)),
        }
    }
}

impl AvroEncode for Cow<'_, str> {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        enc.write_string(self)
    }
}

impl<'de: 'a, 'a> AvroDecode<'de> for Cow<'a, str> {
    /// Borrowed from a slice, owned from a reader.
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Cow<'a, str>> {
        Ok(match dec.read_str_ref()? {
            Reference::Borrowed(s) => Cow::Borrowed(s),
            Reference::Copied(s) => Cow::Owned(s.to_owned()),
        })
    }
}

impl<T: AvroEncode> AvroEncode for Option<T> {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        match self {
            None => enc.write_union_index(0),
            Some(v) => {
                enc.write_union_index(1)?;
                v.encode(enc)
            }
        }
    }
}

impl<'de, T: AvroDecode<'de>> AvroDecode<'de> for Option<T> {
    #[inline(always)]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Option<T>> {
        let at = dec.offset();
        match dec.read_union_index()? {
            0 => Ok(None),
            1 => Ok(Some(T::decode(dec)?)),
            i => Err(super::__private::bad_union(i, 2, at)),
        }
    }
    #[inline]
    fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        let at = dec.offset();
        match dec.read_union_index()? {
            0 => *self = None,
            1 => match self {
                Some(v) => v.decode_into(dec)?,
                None => *self = Some(T::decode(dec)?),
            },
            i => return Err(super::__private::bad_union(i, 2, at)),
        }
        Ok(())
    }
}

/// Pointers: as what they point to. `Box` counts a nesting level when read, which bounds the
/// recursion of recursive types (a Rust type can only recur through a pointer or a collection,
/// and collections count one too).
impl<T: AvroEncode + ?Sized> AvroEncode for Box<T> {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        (**self).encode(enc)
    }
}

// `ZERO_SIZE` stays false for pointers: forwarding `T`'s would make the constant of a recursive
// type depend on itself.
impl<'de, T: AvroDecode<'de>> AvroDecode<'de> for Box<T> {
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Box<T>> {
        dec.enter()?;
        let v = T::decode(dec)?;
        dec.leave();
        Ok(Box::new(v))
    }
    #[inline]
    fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        dec.enter()?;
        (**self).decode_into(dec)?;
        dec.leave();
        Ok(())
    }
}

macro_rules! shared {
    ($($p:ident),*) => {$(
        impl<T: AvroEncode + ?Sized> AvroEncode for $p<T> {
            #[inline(always)]
            fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
                (**self).encode(enc)
            }
        }

        impl<'de, T: AvroDecode<'de>> AvroDecode<'de> for $p<T> {
            #[inline]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<$p<T>> {
                dec.enter()?;
                let v = T::decode(dec)?;
                dec.leave();
                Ok($p::new(v))
            }
        }
    )*};
}

shared!(Rc, Arc);

impl<T: AvroEncode + ?Sized> AvroEncode for &T {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        (**self).encode(enc)
    }
}

impl<T: AvroEncode> AvroEncode for [T] {
    #[inline]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        enc.write_array_start(self.len())?;
        T::encode_items(self, enc)?;
        enc.write_array_end()
    }
}

impl<T: AvroEncode> AvroEncode for Vec<T> {
    #[inline]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        self.as_slice().encode(enc)
    }
}

impl<'de, T: AvroDecode<'de>> AvroDecode<'de> for Vec<T> {
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        T::decode_items(dec, &mut out)?;
        Ok(out)
    }
    #[inline]
    fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        T::decode_items_into(dec, self)
    }
}

impl<T: AvroEncode> AvroEncode for VecDeque<T> {
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        let (a, b) = self.as_slices();
        enc.write_array_start(self.len())?;
        T::encode_items(a, enc)?;
        T::encode_items(b, enc)?;
        enc.write_array_end()
    }
}

impl<'de, T: AvroDecode<'de>> AvroDecode<'de> for VecDeque<T> {
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<VecDeque<T>> {
        Vec::<T>::decode(dec).map(VecDeque::from)
    }
}

/// `[u8; N]` is a `fixed` of N bytes.
impl<const N: usize> AvroEncode for [u8; N] {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        enc.write_fixed(self)
    }
}

impl<'de, const N: usize> AvroDecode<'de> for [u8; N] {
    const ZERO_SIZE: bool = N == 0;
    #[inline(always)]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<[u8; N]> {
        let b = dec.read_fixed_ref(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(&b);
        Ok(out)
    }
}

/// Maps with string keys: `HashMap` and `BTreeMap` (the key bounds beyond `From<String>`, the
/// hasher's).
macro_rules! map {
    ($($map:ident [$($h:ident)?] [$($kb:path),+] [$($hb:path)?];)*) => {$(
        impl<K: AsRef<str>, V: AvroEncode $(, $h)?> AvroEncode for $map<K, V $(, $h)?> {
            #[inline]
            fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
                encode_map(enc, self.len(), self.iter().map(|(k, v)| (k.as_ref(), v)))
            }
        }

        impl<'de, K, V $(, $h)?> AvroDecode<'de> for $map<K, V $(, $h)?>
        where
            K: From<String> $(+ $kb)+,
            V: AvroDecode<'de>,
            $($h: $hb + Default,)?
        {
            #[inline]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Self> {
                let mut out = Self::default();
                out.decode_into(dec)?;
                Ok(out)
            }
            #[inline]
            fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
                self.clear();
                decode_map(dec, |k: String, v| {
                    self.insert(K::from(k), v);
                })
            }
        }
    )*};
}

map! {
    HashMap [H] [Eq, Hash] [BuildHasher];
    BTreeMap [] [Ord] [];
}
