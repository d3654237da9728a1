//! Schema resolution: reading data written with one schema (the writer's) as another (the
//! reader's), as the specification's "Schema Resolution" section describes.
//!
//! - [`ResolvedPlan::compile`] compiles a writer/reader pair once into a plan: promotions,
//!   skipped writer-only fields, reader-only fields' defaults (converted once, to a literal no
//!   front end owns, and to the `Value` the Value reader clones), enum
//!   symbol and union branch remaps are all decided there. The plan is `Clone` (an `Arc`),
//!   `Send + Sync`, and reused for every datum: nothing on the data path looks a name up.
//! - [`read_value_resolved`](crate::value::read_value_resolved) and
//!   [`from_datum_slice_resolved`](crate::value::from_datum_slice_resolved) read
//!   [`Value`](crate::Value)s in the reader's shape through a plan.
//! - [`ResolvingDecoder`] is the low-level, Java-style API: ask for the reader field order of a
//!   record, then read each field with `read_int`, `read_string`... (records of primitives,
//!   enums, fixed and nested records).
//! - [`ResolvedPlan::op`] and [`PlanOp`]: a read-only view of the compiled ops, for decoders
//!   outside this crate that write into their own output (avrokit-arrow's column decoders).
//! - [`check_compatibility`] reports every incompatibility between a reader and a writer
//!   schema with its path, like Java's `SchemaCompatibility`; [`check_mutual`] checks both
//!   directions.
//!
//! # Examples
//! ```
//! use avrokit::{Schema, Value};
//! use avrokit::resolution::{check_compatibility, ResolvedPlan};
//!
//! let v1 = Schema::parse_str(r#"{"type":"record","name":"User","fields":[
//!     {"name":"id","type":"int"}]}"#)?;
//! let v2 = Schema::parse_str(r#"{"type":"record","name":"User","fields":[
//!     {"name":"id","type":"long"},
//!     {"name":"email","type":["null","string"],"default":null}]}"#)?;
//! assert!(check_compatibility(&v2, &v1).is_compatible());
//!
//! let plan = ResolvedPlan::compile(&v1, &v2)?;
//! let old_bytes = avrokit::to_datum_vec(&Value::Record(vec![Value::Int(5)]), &v1)?;
//! let v = avrokit::value::from_datum_slice_resolved(&old_bytes, &plan)?;
//! assert_eq!(v, Value::Record(vec![
//!     Value::Long(5),
//!     Value::Union(0, Box::new(Value::Null)),
//! ]));
//! # Ok::<(), avrokit::Error>(())
//! ```
//!
//! # The rules, and the choices where the specification leaves room
//! - **Names.** Records, enums and fixed match when their unqualified names are equal, or when
//!   one of the reader's aliases names the writer's type (its fullname, or its unqualified
//!   name). Aliases of fields work the same way: a reader field reads the writer field of its
//!   own name, else the first unclaimed writer field one of its aliases names; name matches are
//!   made before alias matches and a writer field feeds one reader field only.
//! - **Unions.** A writer value read into a reader union takes the first reader branch of the
//!   same type with the writer's full name, else the first of the same type matching by
//!   unqualified name or alias, else the first branch it promotes to (so `int` into
//!   `["null","float","long"]` is a `float`, and `string` into `["bytes","string"]` stays a
//!   `string`). A writer union branch the reader cannot read is an error only for a datum that
//!   uses it; if no branch can be read the plan does not compile.
//! - **Enums.** A writer symbol missing from the reader takes the reader's enum default; with
//!   no default it is an error for a datum holding that symbol only.
//! - **Defaults.** A union field's default is for its first branch; a record default may omit
//!   fields that have their own default. Defaults take the reader's logical type (a
//!   `timestamp-millis` long default becomes [`Value::TimestampMillis`](crate::Value)).
//! - **Logical types.** Two `decimal`s match only when scale and precision are both equal (the
//!   specification's rule); a `decimal` and an unannotated `bytes`/`fixed` match, and other
//!   logical types never prevent a match: the reader's annotation decides how values look.
//! - **Promotions.** `int` and `long` to `float` or `double` round to the nearest value, as
//!   Java's widening conversions do. `bytes` read as `string` must be UTF-8: bytes that are not
//!   fail that datum with [`ErrorKind::Data`](crate::ErrorKind::Data) (the one way data can fail
//!   between schemas the checker calls compatible).
//! - **Failures.** A pair that cannot be resolved fails at compile time with
//!   [`ErrorKind::Resolution`](crate::ErrorKind::Resolution) and the path where the schemas
//!   disagree: `Order.items[].price: writer long cannot be read as int`. Paths name the root
//!   record, then `.field` (reader field names), `[]` for array items, `{}` for map values and
//!   `[i]` for the writer's union branch `i`.
//!
//! # Performance
//! When the two schemas have the same Parsing Canonical Form the plan reads with the reader's
//! schema directly, exactly as [`read_value`](crate::value::read_value) does. Otherwise each
//! record's fields are read in writer order, each straight into its reader position in a
//! vector sized once, and the defaults are cloned into theirs; writer-only fields of a
//! constant encoded size are skipped in one jump. (The serde reader instead pushes in writer
//! order and applies a few swaps computed at compile time.) Reader-only string fields cost
//! what cloning their default costs.
//!
//! # Error handling
//! Compile errors are [`ErrorKind::Resolution`](crate::ErrorKind::Resolution) with the schema
//! path where the schemas disagree as the error's [`path`](crate::Error::path). Errors while
//! reading carry the byte offset and the path of the value, as `read_value`'s do; a datum the
//! reader cannot represent (a writer union branch or enum symbol it lacks) is an
//! `ErrorKind::Resolution` error at the offset of that branch or symbol.
//!
//! # Limitations
//! - Only the reader's aliases are used (the specification: aliases rewrite the writer's schema
//!   with the reader's); the writer's own aliases play no part.
//! - [`ResolvingDecoder`] reads records of primitives, enums, fixed and records; use
//!   [`read_value_resolved`](crate::value::read_value_resolved) for arrays, maps and unions.

pub(crate) mod compat;
pub(crate) mod compile;
mod decoder;
pub(crate) mod literal;
pub(crate) mod ops;
pub(crate) mod rules;
/// Reading [`Value`](crate::Value)s through a plan; public as `avrokit::value::*`.
pub(crate) mod value;
mod view;

use std::fmt;
use std::sync::Arc;

pub use compat::{
    check_compatibility, check_mutual, Compatibility, Incompatibility, IncompatibilityKind,
    MutualCompatibility,
};
pub use decoder::ResolvingDecoder;
pub use view::{FieldStep, PlanOp, PlanOpId, RecordView, MISSING_SYMBOL};

use crate::error::Result;
use crate::schema::Schema;
use ops::{Op, OpId};

/// A writer/reader schema pair compiled once for reading: see the [module docs](self).
///
/// Cheap to clone (an `Arc`), `Send + Sync`, and holding both schemas. The functions that read
/// through a plan take only the plan, so a plan cannot be rebuilt per datum by accident.
///
/// # Examples
/// ```
/// use avrokit::{Schema, Value};
/// use avrokit::resolution::ResolvedPlan;
/// let writer = Schema::parse_str(r#"{"type":"enum","name":"C","symbols":["R","G","B"]}"#)?;
/// let reader = Schema::parse_str(r#"{"type":"enum","name":"C","symbols":["B","G","R"]}"#)?;
/// let plan = ResolvedPlan::compile(&writer, &reader)?;
/// // "R" is symbol 0 for the writer and 2 for the reader.
/// assert_eq!(avrokit::value::from_datum_slice_resolved(&[0x00], &plan)?, Value::Enum(2));
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Clone)]
pub struct ResolvedPlan {
    inner: Arc<PlanInner>,
}

/// What a plan holds; the interpreters read it directly.
pub(crate) struct PlanInner {
    pub(crate) writer: Schema,
    pub(crate) reader: Schema,
    pub(crate) ops: Box<[Op]>,
    pub(crate) root: OpId,
    /// Same Parsing Canonical Form: read with the reader's schema directly.
    pub(crate) identity: bool,
    /// The program of [`ResolvingDecoder`], or why this pair is beyond its scope.
    pub(crate) flat: std::result::Result<decoder::FlatProgram, Box<str>>,
}

impl ResolvedPlan {
    /// Compiles the pair: data written with `writer`, read as `reader`.
    ///
    /// # Examples
    /// ```
    /// use avrokit::{ErrorKind, Schema};
    /// use avrokit::resolution::ResolvedPlan;
    /// let writer = Schema::parse_str(r#"{"type":"record","name":"Order","fields":[
    ///     {"name":"items","type":{"type":"array","items":{"type":"record","name":"Item",
    ///         "fields":[{"name":"price","type":"long"}]}}}]}"#)?;
    /// let reader = Schema::parse_str(r#"{"type":"record","name":"Order","fields":[
    ///     {"name":"items","type":{"type":"array","items":{"type":"record","name":"Item",
    ///         "fields":[{"name":"price","type":"int"}]}}}]}"#)?;
    /// let err = ResolvedPlan::compile(&writer, &reader).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Resolution);
    /// assert_eq!(err.path(), "Order.items[].price");
    /// assert_eq!(err.message(), "writer long cannot be read as int");
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`](crate::ErrorKind::Resolution), with the path where the schemas
    /// disagree, when some datum of the writer's schema cannot be read as the reader's whatever
    /// its value: types that neither match nor promote, named types whose names differ, fixed
    /// sizes or decimal parameters that differ, a reader-only field without a default (or with
    /// a default that cannot be converted), or a writer union none of whose branches can be
    /// read. Problems that depend on the value (a writer union branch or enum symbol the reader
    /// lacks) are reported when such a datum is read.
    pub fn compile(writer: &Schema, reader: &Schema) -> Result<ResolvedPlan> {
        let compiled = compile::compile(writer, reader).map_err(|e| e.into_error())?;
        let identity = writer.canonical_form() == reader.canonical_form();
        let ops: Box<[Op]> = compiled.ops.into();
        let flat = decoder::FlatProgram::build(&ops, compiled.root, reader);
        Ok(ResolvedPlan {
            inner: Arc::new(PlanInner {
                writer: writer.clone(),
                reader: reader.clone(),
                ops,
                root: compiled.root,
                identity,
                flat,
            }),
        })
    }

    /// The writer's schema.
    #[inline]
    pub fn writer(&self) -> &Schema {
        &self.inner.writer
    }

    /// The reader's schema: the shape of the values read through this plan.
    #[inline]
    pub fn reader(&self) -> &Schema {
        &self.inner.reader
    }

    /// True when both schemas have the same Parsing Canonical Form, so reading through the plan
    /// is plain reading with the reader's schema.
    #[inline]
    pub fn is_identity(&self) -> bool {
        self.inner.identity
    }

    #[inline]
    pub(crate) fn inner(&self) -> &PlanInner {
        &self.inner
    }
}

impl fmt::Debug for ResolvedPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResolvedPlan")
            .field("writer", &self.inner.writer.canonical_form())
            .field("reader", &self.inner.reader.canonical_form())
            .field("ops", &self.inner.ops.len())
            .field("identity", &self.inner.identity)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_is_send_sync_clone() {
        fn check<T: Send + Sync + Clone + 'static>() {}
        check::<ResolvedPlan>();
    }
}
