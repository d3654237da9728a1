//! [`CodecPlan`]: how data written with one schema is read into a codec type, decided once.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use super::{AvroDecode, AvroEncode, Resolver};
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
/// on the wire), `T`'s generated code reads and writes the data. Otherwise the data is resolved
/// against `T`'s schema by the specification's rules (promotions, defaults, reordered, added
/// and removed fields, enum symbols and union branches remapped), through a resolution plan
/// compiled here once that drives the same generated field code: each record walks the
/// writer's fields in the plan's order and reads each with its field type's code. Such a plan
/// cannot write. Types without a generated codec (see the [module docs](super)) are read
/// through the serde front end instead, which needs `T` to implement `serde::Deserialize`.
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
/// // Data written when `x` was an int: the generated code reads it through a resolution.
/// let old = Schema::parse_str(r#"{"type":"record","name":"P","fields":[
///     {"name":"x","type":"int"},{"name":"tag","type":["null","string"]}]}"#)?;
/// let plan = CodecPlan::<P>::reading(&old)?;
/// assert!(!plan.is_exact());
/// assert!(plan.is_generated());
/// let p: P = plan.decode(&mut avrokit::Decoder::from_slice(&[0x04, 0x00]))?;
/// assert_eq!(p, P { x: 2, tag: None });
/// # }
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct CodecPlan<T> {
    writer: Schema,
    how: How,
    _type: PhantomData<fn() -> T>,
}

/// How a [`CodecPlan`] reads, decided when it is compiled.
#[derive(Clone)]
enum How {
    /// The writer schema is the type's own: its generated code reads (and writes) the data.
    Exact,
    /// The generated code reads the data through a resolution.
    Resolved(Arc<Resolver>),
    /// The serde front end reads it (a type without a generated codec).
    Serde(DePlan),
}

impl<T> Clone for CodecPlan<T> {
    fn clone(&self) -> Self {
        CodecPlan {
            writer: self.writer.clone(),
            how: self.how.clone(),
            _type: PhantomData,
        }
    }
}

impl<T> fmt::Debug for CodecPlan<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodecPlan")
            .field("type", &std::any::type_name::<T>())
            .field("exact", &self.is_exact())
            .field("generated", &self.is_generated())
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
        let same = writer.canonical_form() == own.canonical_form();
        let generated = <T as AvroDecode<'static>>::HAS_CODEC;
        let how = if same && generated {
            How::Exact
        } else if generated && <T as AvroDecode<'static>>::RESOLVES {
            How::Resolved(Arc::new(Resolver::new(writer, &own)?))
        } else if same {
            How::Serde(DePlan::compile(writer)?)
        } else {
            How::Serde(DePlan::resolving(writer, &own)?)
        };
        Ok(CodecPlan {
            writer: writer.clone(),
            how,
            _type: PhantomData,
        })
    }
}

impl<T> CodecPlan<T> {
    /// The writer schema: the schema of the data read (and written).
    pub fn writer(&self) -> &Schema {
        &self.writer
    }

    /// True when the writer schema is `T`'s own and `T`'s generated code reads and writes the
    /// data; false when the plan resolves (it can then only read).
    pub fn is_exact(&self) -> bool {
        matches!(self.how, How::Exact)
    }

    /// True when `T`'s generated code reads the data, exactly or through a resolution; false
    /// when the serde front end does (a type without a generated codec).
    pub fn is_generated(&self) -> bool {
        !matches!(self.how, How::Serde(_))
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
        if !self.is_exact() {
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
        match &self.how {
            How::Exact => super::decode_top(dec),
            How::Resolved(rs) => {
                dec.enter()?;
                let v = T::decode_resolved(dec, rs, rs.root())?;
                dec.leave();
                Ok(v)
            }
            How::Serde(plan) => crate::serde::deserialize_from(dec, plan),
        }
    }

    /// Reads one datum over `value`, reusing its allocations on the generated path, whether
    /// exact or through the resolution (defaults are read into the fields they replace).
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
        match &self.how {
            How::Exact => {
                dec.enter()?;
                value.decode_into(dec)?;
                dec.leave();
                Ok(())
            }
            How::Resolved(rs) => {
                dec.enter()?;
                value.decode_resolved_into(dec, rs, rs.root())?;
                dec.leave();
                Ok(())
            }
            How::Serde(plan) => {
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
