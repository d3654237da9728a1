//! The small serializers inside compound values: map keys (written, or captured as a field
//! name), the `u8`s of a byte sequence, and the integers of a `time` tuple.

use ::serde::ser::{self, Serialize};

use crate::encode::Encoder;
use crate::error::{Error, Result};
use crate::io::Sink;

/// Writes a map key: strings, and integers and chars as their text.
pub(super) struct KeySer<'a, S: Sink> {
    pub(super) enc: &'a mut Encoder<S>,
}

/// Captures a map key naming a record field.
pub(super) struct KeyCapture<'a> {
    pub(super) out: &'a mut String,
}

/// Reads one `u8` of a byte sequence.
pub(super) struct ByteSer;

/// Reads one integer of a tuple (the components of a `time` crate date or time).
pub(super) struct IntCapture;

#[cold]
#[inline(never)]
pub(super) fn bad_key() -> Error {
    Error::data("map keys must be strings (or integers, or chars)")
}

#[cold]
#[inline(never)]
pub(super) fn not_a_byte() -> Error {
    Error::data("expected a byte (u8) in a sequence written as bytes or fixed")
}

/// Implements every `Serializer` method not listed as an error.
macro_rules! reject_rest {
    ($err:expr) => {
        fn serialize_bool(self, _: bool) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_f32(self, _: f32) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_f64(self, _: f64) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_none(self) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_unit(self) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err($err)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
            Err($err)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
            Err($err)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err($err)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err($err)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err($err)
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
            Err($err)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err($err)
        }
    };
}

macro_rules! key_text_impl {
    ($self:ident, $write:expr) => {
        type Ok = ();
        type Error = Error;
        type SerializeSeq = ser::Impossible<(), Error>;
        type SerializeTuple = ser::Impossible<(), Error>;
        type SerializeTupleStruct = ser::Impossible<(), Error>;
        type SerializeTupleVariant = ser::Impossible<(), Error>;
        type SerializeMap = ser::Impossible<(), Error>;
        type SerializeStruct = ser::Impossible<(), Error>;
        type SerializeStructVariant = ser::Impossible<(), Error>;

        fn serialize_str($self, v: &str) -> Result<()> {
            $write($self, v)
        }
        fn serialize_char($self, v: char) -> Result<()> {
            $write($self, v.encode_utf8(&mut [0; 4]))
        }
        fn serialize_i8($self, v: i8) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_i16($self, v: i16) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_i32($self, v: i32) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_i64($self, v: i64) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_u8($self, v: u8) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_u16($self, v: u16) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_u32($self, v: u32) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_u64($self, v: u64) -> Result<()> {
            $write($self, itoa::Buffer::new().format(v))
        }
        fn serialize_unit_variant($self, _: &'static str, _: u32, v: &'static str) -> Result<()> {
            $write($self, v)
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>($self, _: &'static str, v: &T) -> Result<()> {
            v.serialize($self)
        }
        reject_rest!(bad_key());
    };
}

impl<S: Sink> ser::Serializer for KeySer<'_, S> {
    key_text_impl!(self, |s: Self, v: &str| s.enc.write_string(v));
}

impl ser::Serializer for KeyCapture<'_> {
    key_text_impl!(self, |s: Self, v: &str| {
        s.out.push_str(v);
        Ok(())
    });
}

/// `ByteSer` answers with the byte rather than writing it.
impl ser::Serializer for ByteSer {
    type Ok = u8;
    type Error = Error;
    type SerializeSeq = ser::Impossible<u8, Error>;
    type SerializeTuple = ser::Impossible<u8, Error>;
    type SerializeTupleStruct = ser::Impossible<u8, Error>;
    type SerializeTupleVariant = ser::Impossible<u8, Error>;
    type SerializeMap = ser::Impossible<u8, Error>;
    type SerializeStruct = ser::Impossible<u8, Error>;
    type SerializeStructVariant = ser::Impossible<u8, Error>;

    #[inline(always)]
    fn serialize_u8(self, v: u8) -> Result<u8> {
        Ok(v)
    }
    fn serialize_i8(self, v: i8) -> Result<u8> {
        Ok(v as u8)
    }
    fn serialize_i16(self, v: i16) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_i32(self, v: i32) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_i64(self, v: i64) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_u16(self, v: u16) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_u32(self, v: u32) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_u64(self, v: u64) -> Result<u8> {
        u8::try_from(v).map_err(|_| not_a_byte())
    }
    fn serialize_char(self, _: char) -> Result<u8> {
        Err(not_a_byte())
    }
    fn serialize_str(self, _: &str) -> Result<u8> {
        Err(not_a_byte())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<u8> {
        Err(not_a_byte())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<u8> {
        v.serialize(self)
    }
    reject_rest!(not_a_byte());
}

#[cold]
#[inline(never)]
pub(super) fn not_an_integer() -> Error {
    Error::data("expected an integer in a tuple written as a date or time")
}

impl ser::Serializer for IntCapture {
    type Ok = i64;
    type Error = Error;
    type SerializeSeq = ser::Impossible<i64, Error>;
    type SerializeTuple = ser::Impossible<i64, Error>;
    type SerializeTupleStruct = ser::Impossible<i64, Error>;
    type SerializeTupleVariant = ser::Impossible<i64, Error>;
    type SerializeMap = ser::Impossible<i64, Error>;
    type SerializeStruct = ser::Impossible<i64, Error>;
    type SerializeStructVariant = ser::Impossible<i64, Error>;

    fn serialize_i8(self, v: i8) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<i64> {
        Ok(v)
    }
    fn serialize_u8(self, v: u8) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<i64> {
        i64::try_from(v).map_err(|_| not_an_integer())
    }
    fn serialize_char(self, _: char) -> Result<i64> {
        Err(not_an_integer())
    }
    fn serialize_str(self, _: &str) -> Result<i64> {
        Err(not_an_integer())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<i64> {
        Err(not_an_integer())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<i64> {
        v.serialize(self)
    }
    reject_rest!(not_an_integer());
}
