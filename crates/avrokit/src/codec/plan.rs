//! [`CodecPlan`]: how data written with one schema is read into a codec type, decided once.

use std::fmt;
use std::marker::PhantomData;

use super::{AvroDecode, AvroEncode};
use crate::decode::Decoder;
use crate::encode::Encoder;
use crate::error::{Error, Result};
use crate::io::{Sink, Source};
use crate::schema::Schema;
use crate::serde::{AvroSchema, DePlan};

/// Reading data written with a writer schema into `T`, and writing `T` with it, decided once
/// when the plan is compiled.
///
/// When the writer schema has the Parsing Canonical Form of `T`'s own schema (the same bytes
/// on the wire), `T`'s generated code reads and writes the data. Otherwise the data is read
/// through the serde front end, resolved against `T`'s schema by the specification's rules
/// (promotions, defaults, reordered, added and removed fields), which needs `T` to implement
/// `serde::Deserialize` too; such a plan cannot write.
///
/// Compile a plan once per reader, writer or topic and reuse it for every datum: the check
/// costs a schema's canonical form, which no datum pays.
///
/// # Examples
/// ```
/// # #[cfg(feature = "derive")] {
/// use avrokit::codec::CodecPlan;
/// use avrokit::{AvroSchema, Schema};
///
/// #[derive(AvroSchema, serde::Deserialize, Debug, PartialEq)]
/// struct P { x: i64, tag: Option<String> }
///
/// let plan = CodecPlan::<P>::new()?;
/// assert!(plan.is_exact());
/// let mut bytes = Vec::new();
/// plan.encode(&P { x: 1, tag: None }, &mut avrokit::Encoder::new(&mut bytes))?;
///
/// // Data written when `x` was an int: read through the resolving serde path.
/// let old = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"x","type":"int"},{"name":"tag","type":["null","string"]}]}"#)?;
/// let plan = CodecPlan::<P>::reading(&old)?;
/// assert!(!plan.is_exact());
/// let p: P = plan.decode(&mut avrokit::Decoder::from_slice(&[0x04, 0x00]))?;
/// assert_eq!(p, P { x: 2, tag: None });
/// # }
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct CodecPlan<T> {
    writer: Schema,
    /// `None`: the generated code reads the writer's data; else serde reads it through this
    /// plan (resolving, or for a type without a generated codec).
    resolved: Option<DePlan>,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for CodecPlan<T> {
    fn clone(&self) -> Self {
        CodecPlan {
            writer: self.writer.clone(),
            resolved: self.resolved.clone(),
            _type: PhantomData,
        }
    }
}

impl<T> fmt::Debug for CodecPlan<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodecPlan")
            .field("type", &std::any::type_name::<T>())
            .field("exact", &self.resolved.is_none())
            .finish()
    }
}

impl<T: AvroSchema + AvroDecode<'static>> CodecPlan<T> {
    /// A plan for `T`'s own schema: the generated code reads and writes.
    ///
    /// # Errors
    /// Only for a type without a generated codec, whose serde plan does not compile.
    pub fn new() -> Result<CodecPlan<T>> {
        CodecPlan::reading(&T::schema())
    }

    /// A plan reading data written with `writer` into `T` (and writing `T` with `writer`,
    /// when they are the same schema).
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`](crate::ErrorKind) when the schemas differ and cannot be
    /// resolved.
    pub fn reading(writer: &Schema) -> Result<CodecPlan<T>> {
        let own = T::schema();
        let resolved = if writer.canonical_form() != own.canonical_form() {
            Some(DePlan::resolving(writer, &own)?)
        } else if !<T as AvroDecode<'static>>::HAS_CODEC {
            Some(DePlan::compile(writer)?)
        } else {
            None
        };
        Ok(CodecPlan {
            writer: writer.clone(),
            resolved,
            _type: PhantomData,
        })
    }
}

impl<T> CodecPlan<T> {
    /// The writer schema: the schema of the data read (and written).
    pub fn writer(&self) -> &Schema {
        &self.writer
    }

    /// True when `T`'s generated code reads (and writes) the data; false when it goes through
    /// the resolving serde path.
    pub fn is_exact(&self) -> bool {
        self.resolved.is_none()
    }

    /// Writes `value` with the writer schema.
    ///
    /// # Errors
    /// [`ErrorKind::Schema`](crate::ErrorKind) for a plan that resolves (its writer schema is
    /// not `T`'s), and the errors of [`AvroEncode::encode`].
    #[inline]
    pub fn encode<S: Sink>(&self, value: &T, enc: &mut Encoder<S>) -> Result<()>
    where
        T: AvroEncode,
    {
        if self.resolved.is_some() {
            return Err(not_exact());
        }
        value.encode(enc)
    }

    /// Reads one datum written with the writer schema.
    ///
    /// # Errors
    /// As [`AvroDecode::decode`], or the serde front end's errors for a resolving plan.
    #[inline]
    pub fn decode<'de, S: Source<'de>>(&self, dec: &mut Decoder<'de, S>) -> Result<T>
    where
        T: AvroDecode<'de> + serde::Deserialize<'de>,
    {
        match &self.resolved {
            None => super::decode_top(dec),
            Some(plan) => crate::serde::deserialize_from(dec, plan),
        }
    }

    /// Reads one datum over `value`, reusing its allocations on the generated path.
    ///
    /// # Errors
    /// As [`CodecPlan::decode`].
    #[inline]
    pub fn decode_into<'de, S: Source<'de>>(
        &self,
        value: &mut T,
        dec: &mut Decoder<'de, S>,
    ) -> Result<()>
    where
        T: AvroDecode<'de> + serde::Deserialize<'de>,
    {
        match &self.resolved {
            None => {
                dec.enter()?;
                value.decode_into(dec)?;
                dec.leave();
                Ok(())
            }
            Some(plan) => {
                *value = crate::serde::deserialize_from(dec, plan)?;
                Ok(())
            }
        }
    }
}

#[cold]
#[inline(never)]
fn not_exact() -> Error {
    Error::schema("the codec plan's writer schema is not the type's own: it can only read")
}
