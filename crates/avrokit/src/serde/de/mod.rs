//! The serde `Deserializer`: Avro binary straight to Rust values, through a compiled
//! writer × reader plan.
//!
//! See the [module docs](super) for the mapping between Rust and Avro types.
//!
//! One role per file: `plan.rs` builds the [`DePlan`], `op.rs` deserializes the value of one
//! plan op, `branch.rs` its out-of-line paths (unions, enums, variants, logical types read as
//! text or tuples), `access.rs` walks records, arrays and maps, and `value.rs` hands a reader
//! field's default to serde. This file is the driver: the [`Deserializer`] and the
//! `from_datum_*` functions.

mod access;
mod branch;
mod op;
mod plan;
mod value;

use std::io::Read;

use ::serde::de::{self, DeserializeOwned};

use self::op::OpDe;
pub use self::plan::DePlan;
use crate::decode::Decoder;
use crate::error::{Error, Result};
use crate::io::{ReaderSource, SliceSource, Source};

/// Reads Rust values from Avro datums through a [`DePlan`], one after another.
///
/// Over a slice ([`Deserializer::from_slice`]) strings and bytes borrow from the input:
/// `&'de str`, `&'de [u8]` (with `serde_bytes`) and `Cow<'de, str>` (with `#[serde(borrow)]`)
/// cost no copy. Over a reader ([`Deserializer::from_reader`]) they are copied (the reader
/// is buffered internally: do not add a `BufReader`).
///
/// # Examples
/// ```
/// use avrokit::{serde::{DePlan, Deserializer}, Schema};
/// let plan = DePlan::compile(&Schema::parse_str(r#""long""#)?)?;
/// let mut de = Deserializer::from_slice(&[2, 4, 6], &plan);
/// let mut sum = 0i64;
/// while !de.is_empty()? {
///     sum += de.deserialize::<i64>()?;
/// }
/// assert_eq!(sum, 6);
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct Deserializer<'de, S: Source<'de>> {
    dec: Decoder<'de, S>,
    plan: DePlan,
}

impl<'de> Deserializer<'de, SliceSource<'de>> {
    /// A deserializer over a slice holding one or more datums; strings and bytes borrow from it.
    pub fn from_slice(bytes: &'de [u8], plan: &DePlan) -> Self {
        Deserializer::new(Decoder::from_slice(bytes), plan)
    }
}

impl<R: Read> Deserializer<'static, ReaderSource<R>> {
    /// A deserializer over any `io::Read` (buffered internally, 64 KiB).
    pub fn from_reader(reader: R, plan: &DePlan) -> Self {
        Deserializer::new(Decoder::from_reader(reader), plan)
    }
}

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// A deserializer over a decoder (to choose its [`Limits`](crate::Limits) or source).
    pub fn new(dec: Decoder<'de, S>, plan: &DePlan) -> Self {
        Deserializer {
            dec,
            plan: plan.clone(),
        }
    }

    /// Reads the next datum as a `T`.
    ///
    /// # Errors
    /// Malformed or truncated data ([`ErrorKind::Eof`](crate::ErrorKind::Eof)), data the type cannot hold, or a datum
    /// the reader's schema cannot represent; the error has the byte offset and the path of the
    /// value.
    #[inline]
    pub fn deserialize<T: de::Deserialize<'de>>(&mut self) -> Result<T> {
        deserialize_from(&mut self.dec, &self.plan)
    }

    /// True when the input has no byte left.
    ///
    /// # Errors
    /// When the reader fails.
    pub fn is_empty(&mut self) -> Result<bool> {
        self.dec.is_empty()
    }

    /// The decoder, to read other data in between.
    pub fn decoder_mut(&mut self) -> &mut Decoder<'de, S> {
        &mut self.dec
    }

    /// Returns the decoder.
    pub fn into_decoder(self) -> Decoder<'de, S> {
        self.dec
    }
}

/// Reads one datum as a `T` from a decoder the caller keeps: what [`Deserializer::deserialize`]
/// does, for callers that only lend a decoder (the container reader's `next_with` hook).
#[inline]
pub(crate) fn deserialize_from<'de, S: Source<'de>, T: de::Deserialize<'de>>(
    dec: &mut Decoder<'de, S>,
    plan: &DePlan,
) -> Result<T> {
    let p = &*plan.inner;
    let pi = p.plan.inner();
    let de = OpDe {
        dec: &mut *dec,
        p,
        op: pi.root,
    };
    match T::deserialize(de) {
        Ok(v) => Ok(v),
        Err(e) => {
            let e = e.or_offset(dec.offset());
            Err(match pi.reader.root().name() {
                Some(n) => e.in_field(n.name().to_owned()),
                None => e,
            })
        }
    }
}

/// Decodes one datum from `bytes`, which must hold exactly that datum. Strings and bytes in
/// `T` may borrow from `bytes`.
///
/// # Examples
/// ```
/// let plan = avrokit::serde::DePlan::compile(&avrokit::Schema::parse_str(
///     r#"{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}"#)?)?;
/// #[derive(serde::Deserialize)]
/// struct R<'a> { s: &'a str }
/// let bytes = [4, b'h', b'i'];
/// let r: R = avrokit::serde::from_datum_slice(&bytes, &plan)?;
/// assert_eq!(r.s, "hi");
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`Deserializer::deserialize`], and bytes left over after the datum.
pub fn from_datum_slice<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    plan: &DePlan,
) -> Result<T> {
    let mut de = Deserializer::from_slice(bytes, plan);
    let v = de.deserialize()?;
    de.dec.expect_end()?;
    Ok(v)
}

/// Decodes one datum from a reader (buffered internally; bytes read ahead are dropped, use a
/// [`Deserializer`] to read several datums).
///
/// # Examples
/// ```
/// let plan = avrokit::serde::DePlan::compile(&avrokit::Schema::parse_str(r#""int""#)?)?;
/// let v: i32 = avrokit::serde::from_datum_reader(&[0x03][..], &plan)?;
/// assert_eq!(v, -2);
/// # Ok::<(), avrokit::Error>(())
/// ```
///
/// # Errors
/// As [`Deserializer::deserialize`], and a failing reader.
pub fn from_datum_reader<R: Read, T: DeserializeOwned>(reader: R, plan: &DePlan) -> Result<T> {
    Deserializer::from_reader(reader, plan).deserialize()
}
impl de::Error for Error {
    #[cold]
    fn custom<T: std::fmt::Display>(msg: T) -> Error {
        Error::data(msg.to_string())
    }
}
