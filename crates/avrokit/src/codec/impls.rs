//! [`AvroEncode`] and [`AvroDecode`] for the standard types, each with the schema its
//! [`AvroSchema`](crate::AvroSchema) impl gives.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::Arc;

use super::__private::{borrow_failed, out_of_range};
use super::items::{
    decode_block_items, decode_fixed_items, decode_map, decode_map_with, encode_fixed_items,
    encode_map,
};
use super::{AvroDecode, AvroEncode, Resolver};
use crate::decode::{Decoder, RESERVE_MAX};
use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::{Reference, Sink, Source};
use crate::resolution::ops::Op;

impl AvroEncode for () {
    #[inline(always)]
    fn encode<S: Sink>(&self, _: &mut Encoder<S>) -> Result<()> {
        Ok(())
    }
}

impl<'de> AvroDecode<'de> for () {
    const ZERO_SIZE: bool = true;
    const RESOLVES: bool = true;
    #[inline(always)]
    fn decode<S: Source<'de>>(_: &mut Decoder<'de, S>) -> Result<()> {
        Ok(())
    }
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<()> {
        rs.read_null(dec, op)
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
    const RESOLVES: bool = true;
    #[inline(always)]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<bool> {
        dec.read_boolean()
    }
    #[inline(always)]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<bool> {
        rs.read_boolean(dec, op)
    }
    #[inline]
    fn decode_items_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        item: u32,
        zero_size_mem: Option<usize>,
        out: &mut Vec<bool>,
    ) -> Result<()> {
        if rs.is_plain(item, |op| matches!(op, Op::Boolean)) {
            return Self::decode_items(dec, out);
        }
        dec.read_array(|| zero_size_mem, out, |d| rs.read_boolean(d, item))
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
    #[inline]
    fn decode_items_resolved_into<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        item: u32,
        zero_size_mem: Option<usize>,
        out: &mut Vec<bool>,
    ) -> Result<()> {
        out.clear();
        Self::decode_items_resolved(dec, rs, item, zero_size_mem, out)
    }
}

/// Floats and doubles: little-endian on the wire, so arrays move in bulk (also when read
/// through a resolution whose items are the reader's own type, not promoted).
macro_rules! float {
    ($($t:ty, $write:ident, $read:ident, $plain:path;)*) => {$(
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
            const RESOLVES: bool = true;
            #[inline(always)]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<$t> {
                dec.$read()
            }
            #[inline(always)]
            fn decode_resolved<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                op: u32,
            ) -> Result<$t> {
                rs.$read(dec, op)
            }
            #[inline]
            fn decode_items_resolved<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                item: u32,
                zero_size_mem: Option<usize>,
                out: &mut Vec<$t>,
            ) -> Result<()> {
                if rs.is_plain(item, |op| matches!(op, $plain)) {
                    return Self::decode_items(dec, out);
                }
                dec.read_array(|| zero_size_mem, out, |d| rs.$read(d, item))
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
            #[inline]
            fn decode_items_resolved_into<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                item: u32,
                zero_size_mem: Option<usize>,
                out: &mut Vec<$t>,
            ) -> Result<()> {
                out.clear();
                Self::decode_items_resolved(dec, rs, item, zero_size_mem, out)
            }
        }
    )*};
}

float! {
    f32, write_float, read_float, Op::Float;
    f64, write_double, read_double, Op::Double;
}

/// Integers: `int` or `long` on the wire, range-checked when read into a narrower type.
macro_rules! integer {
    ($($t:ty, $wire:ty, $write:ident, $read:ident, $reads:ident;)*) => {$(
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
            const RESOLVES: bool = true;
            #[inline(always)]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<$t> {
                let at = dec.offset();
                let v = dec.$read()?;
                <$t>::try_from(v).map_err(|_| out_of_range(stringify!($t), at))
            }
            #[inline(always)]
            fn decode_resolved<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                op: u32,
            ) -> Result<$t> {
                let at = dec.offset();
                let v = rs.$read(dec, op)?;
                <$t>::try_from(v).map_err(|_| out_of_range(stringify!($t), at))
            }
            #[inline]
            fn decode_items<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                out: &mut Vec<$t>,
            ) -> Result<()> {
                decode_block_items(dec, out, |d, n, out| {
                    // A count is a claim until its items are read (a reader source cannot
                    // check it against the bytes left), so the reservation is capped as the
                    // item-by-item loop's is.
                    out.reserve(n.min(RESERVE_MAX) as usize);
                    d.$reads(n, |v, at| {
                        out.push(<$t>::try_from(v).map_err(|_| out_of_range(stringify!($t), at))?);
                        Ok(())
                    })
                })
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

integer! {
    i8, i32, write_int, read_int, read_ints;
    i16, i32, write_int, read_int, read_ints;
    i32, i32, write_int, read_int, read_ints;
    u8, i32, write_int, read_int, read_ints;
    u16, i32, write_int, read_int, read_ints;
    i64, i64, write_long, read_long, read_longs;
    u32, i64, write_long, read_long, read_longs;
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
    const RESOLVES: bool = true;
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<u64> {
        let at = dec.offset();
        let v = dec.read_long()?;
        u64::try_from(v).map_err(|_| out_of_range("u64", at))
    }
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<u64> {
        let at = dec.offset();
        let v = rs.read_long(dec, op)?;
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
    const RESOLVES: bool = true;
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<char> {
        rs.string(dec, op)?;
        Self::decode(dec)
    }
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
    const RESOLVES: bool = true;
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<String> {
        dec.read_string()
    }
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<String> {
        rs.string(dec, op)?;
        dec.read_string()
    }
    #[inline]
    fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        dec.read_string_into(self)
    }
    #[inline]
    fn decode_resolved_into<S: Source<'de>>(
        &mut self,
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<()> {
        rs.string(dec, op)?;
        dec.read_string_into(self)
    }
}

impl<'de: 'a, 'a> AvroDecode<'de> for &'a str {
    const RESOLVES: bool = true;
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<&'a str> {
        rs.string(dec, op)?;
        Self::decode(dec)
    }
    // Always inlined into the record's generated code: left to the compiler, it stayed a call
    // per string, 17% of a borrowed read of the `-container` record; inlined, 7% faster.
    #[inline(always)]
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
    const RESOLVES: bool = true;
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<Cow<'a, str>> {
        rs.string(dec, op)?;
        Self::decode(dec)
    }
    /// Borrowed from a slice, owned from a reader.
    #[inline]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Cow<'a, str>> {
        Ok(match dec.read_str_ref()? {
            Reference::Borrowed(s) => Cow::Borrowed(s),
            Reference::Copied(s) => Cow::Owned(s.to_owned()),
        })
    }
}

// Boxed and shared strings (map keys among them): copied once from the input into their own
// allocation, with no `String` in between.
macro_rules! str_pointer {
    ($($p:ident)*) => {$(
        impl<'de> AvroDecode<'de> for $p<str> {
            const RESOLVES: bool = true;
            #[inline]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<$p<str>> {
                Ok($p::from(dec.read_str()?))
            }
            #[inline]
            fn decode_resolved<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                op: u32,
            ) -> Result<$p<str>> {
                rs.string(dec, op)?;
                Self::decode(dec)
            }
        }
    )*};
}

str_pointer! { Box Rc Arc }

/// `["null", T]`; when `T`'s own schema is a union, `["null", ...T's branches]` (a union cannot
/// hold a union), so `T`'s branch `i` is this one's `i + 1`.
impl<T: AvroEncode> AvroEncode for Option<T> {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        match self {
            None => enc.write_union_index(0),
            Some(v) => v.encode_branch(enc, 1),
        }
    }
}

/// Reads `Some` of the value of branch `i` (> 0) of an `Option<T>`'s union.
#[inline(always)]
fn some_branch<'de, T: AvroDecode<'de>, S: Source<'de>>(
    dec: &mut Decoder<'de, S>,
    i: u32,
    at: u64,
) -> Result<Option<T>> {
    if T::BRANCHES == 0 {
        if i == 1 {
            return Ok(Some(T::decode(dec)?));
        }
        return Err(super::__private::bad_union(i, 2, at));
    }
    if i > T::BRANCHES {
        return Err(super::__private::bad_union(i, T::BRANCHES as usize + 1, at));
    }
    T::decode_branch(dec, i - 1, at).map(Some)
}

impl<'de, T: AvroDecode<'de>> AvroDecode<'de> for Option<T> {
    const HAS_CODEC: bool = T::HAS_CODEC;
    const RESOLVES: bool = T::RESOLVES;
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<Option<T>> {
        let at = dec.offset();
        match rs.branch(dec, op)? {
            (0, op) => rs.read_null(dec, op).map(|()| None),
            (1, op) if T::BRANCHES == 0 => T::decode_resolved(dec, rs, op).map(Some),
            (i, op) if T::BRANCHES > 0 && i <= T::BRANCHES => {
                T::decode_resolved_branch(dec, rs, i - 1, op).map(Some)
            }
            (i, _) => Err(super::__private::bad_union(
                i,
                T::BRANCHES.max(1) as usize + 1,
                at,
            )),
        }
    }
    #[inline(always)]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Option<T>> {
        let at = dec.offset();
        match dec.read_union_index()? {
            0 => Ok(None),
            i => some_branch(dec, i, at),
        }
    }
    #[inline]
    fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
        let at = dec.offset();
        match dec.read_union_index()? {
            0 => *self = None,
            1 if T::BRANCHES == 0 => match self {
                Some(v) => v.decode_into(dec)?,
                None => *self = Some(T::decode(dec)?),
            },
            i => *self = some_branch(dec, i, at)?,
        }
        Ok(())
    }
    #[inline]
    fn decode_resolved_into<S: Source<'de>>(
        &mut self,
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<()> {
        let at = dec.offset();
        match rs.branch(dec, op)? {
            (0, op) => {
                rs.read_null(dec, op)?;
                *self = None;
            }
            (1, op) if T::BRANCHES == 0 => match self {
                Some(v) => v.decode_resolved_into(dec, rs, op)?,
                None => *self = Some(T::decode_resolved(dec, rs, op)?),
            },
            (i, op) if T::BRANCHES > 0 && i <= T::BRANCHES => {
                *self = Some(T::decode_resolved_branch(dec, rs, i - 1, op)?);
            }
            (i, _) => {
                return Err(super::__private::bad_union(
                    i,
                    T::BRANCHES.max(1) as usize + 1,
                    at,
                ))
            }
        }
        Ok(())
    }
}

/// Reads `T` one nesting level deeper and wraps it: pointers count a level, which bounds the
/// recursion of recursive types (a Rust type can only recur through a pointer or a collection,
/// and collections count one too).
#[inline(always)]
fn deeper<'de, S: Source<'de>, T, P>(
    dec: &mut Decoder<'de, S>,
    read: impl FnOnce(&mut Decoder<'de, S>) -> Result<T>,
    wrap: impl FnOnce(T) -> P,
) -> Result<P> {
    dec.enter()?;
    let v = read(dec)?;
    dec.leave();
    Ok(wrap(v))
}

// Pointers (`Box`, `Rc`, `Arc`): as what they point to. `ZERO_SIZE` keeps its default and
// `RESOLVES` is set, rather than forwarding `T`'s: forwarding would make the constants of a
// recursive type depend on themselves. A union's count is a literal, never its own
// dependency, so `BRANCHES` is forwarded. `$extra` holds what only one pointer does (a `Box`
// is read into in place).
macro_rules! pointer {
    ($($p:ident { $($extra:tt)* })*) => {$(
        impl<T: AvroEncode + ?Sized> AvroEncode for $p<T> {
            #[inline(always)]
            fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
                (**self).encode(enc)
            }
            #[inline]
            fn encode_branch<S: Sink>(&self, enc: &mut Encoder<S>, shift: u32) -> Result<()> {
                (**self).encode_branch(enc, shift)
            }
        }

        impl<'de, T: AvroDecode<'de>> AvroDecode<'de> for $p<T> {
            const RESOLVES: bool = true;
            const BRANCHES: u32 = T::BRANCHES;
            #[inline]
            fn decode_branch<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                index: u32,
                at: u64,
            ) -> Result<$p<T>> {
                deeper(dec, |d| T::decode_branch(d, index, at), $p::new)
            }
            #[inline]
            fn decode_resolved_branch<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                index: u32,
                op: u32,
            ) -> Result<$p<T>> {
                deeper(dec, |d| T::decode_resolved_branch(d, rs, index, op), $p::new)
            }
            #[inline]
            fn decode_resolved<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                op: u32,
            ) -> Result<$p<T>> {
                deeper(dec, |d| T::decode_resolved(d, rs, op), $p::new)
            }
            #[inline]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<$p<T>> {
                deeper(dec, T::decode, $p::new)
            }
            $($extra)*
        }
    )*};
}

pointer! {
    Box {
        #[inline]
        fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
            deeper(dec, |d| (**self).decode_into(d), |()| ())
        }
        #[inline]
        fn decode_resolved_into<S: Source<'de>>(
            &mut self,
            dec: &mut Decoder<'de, S>,
            rs: &Resolver,
            op: u32,
        ) -> Result<()> {
            deeper(dec, |d| (**self).decode_resolved_into(d, rs, op), |()| ())
        }
    }
    Rc {}
    Arc {}
}

impl<T: AvroEncode + ?Sized> AvroEncode for &T {
    #[inline(always)]
    fn encode<S: Sink>(&self, enc: &mut Encoder<S>) -> Result<()> {
        (**self).encode(enc)
    }
    #[inline]
    fn encode_branch<S: Sink>(&self, enc: &mut Encoder<S>, shift: u32) -> Result<()> {
        (**self).encode_branch(enc, shift)
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
    // Not `T`'s: a recursive type's constant would depend on itself.
    const RESOLVES: bool = true;
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<Vec<T>> {
        let (item, zero_size_mem) = rs.array(dec, op, std::mem::size_of::<T>())?;
        let mut out = Vec::new();
        T::decode_items_resolved(dec, rs, item, zero_size_mem, &mut out)?;
        Ok(out)
    }
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
    #[inline]
    fn decode_resolved_into<S: Source<'de>>(
        &mut self,
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<()> {
        let (item, zero_size_mem) = rs.array(dec, op, std::mem::size_of::<T>())?;
        T::decode_items_resolved_into(dec, rs, item, zero_size_mem, self)
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
    const RESOLVES: bool = true;
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<VecDeque<T>> {
        Vec::<T>::decode_resolved(dec, rs, op).map(VecDeque::from)
    }
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
    const RESOLVES: bool = true;
    #[inline]
    fn decode_resolved<S: Source<'de>>(
        dec: &mut Decoder<'de, S>,
        rs: &Resolver,
        op: u32,
    ) -> Result<[u8; N]> {
        rs.fixed(dec, op, N)?;
        Self::decode(dec)
    }
    #[inline(always)]
    fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<[u8; N]> {
        let b = dec.read_fixed_ref(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(&b);
        Ok(out)
    }
}

/// Maps with string keys: `HashMap` and `BTreeMap`. A key is any string type that reads as a
/// field would (`String`, `Box<str>`, `Rc<str>`, `Arc<str>`, and `&str` or `Cow<str>`, which
/// borrow from the input); the bounds after that are the map's own.
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
            K: AvroDecode<'de> + AsRef<str> $(+ $kb)+,
            V: AvroDecode<'de>,
            $($h: $hb + Default,)?
        {
            const RESOLVES: bool = true;
            #[inline]
            fn decode<S: Source<'de>>(dec: &mut Decoder<'de, S>) -> Result<Self> {
                let mut out = Self::default();
                out.decode_into(dec)?;
                Ok(out)
            }
            #[inline]
            fn decode_resolved<S: Source<'de>>(
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                op: u32,
            ) -> Result<Self> {
                let values = rs.map(dec, op)?;
                let mut out = Self::default();
                decode_map_with(
                    dec,
                    |d| V::decode_resolved(d, rs, values),
                    |k: K, v| {
                        out.insert(k, v);
                    },
                )?;
                Ok(out)
            }
            #[inline]
            fn decode_into<S: Source<'de>>(&mut self, dec: &mut Decoder<'de, S>) -> Result<()> {
                self.clear();
                decode_map(dec, |k: K, v| {
                    self.insert(k, v);
                })
            }
            #[inline]
            fn decode_resolved_into<S: Source<'de>>(
                &mut self,
                dec: &mut Decoder<'de, S>,
                rs: &Resolver,
                op: u32,
            ) -> Result<()> {
                let values = rs.map(dec, op)?;
                self.clear();
                decode_map_with(
                    dec,
                    |d| V::decode_resolved(d, rs, values),
                    |k: K, v| {
                        self.insert(k, v);
                    },
                )
            }
        }
    )*};
}

map! {
    HashMap [H] [Eq, Hash] [BuildHasher];
    BTreeMap [] [Ord] [];
}
