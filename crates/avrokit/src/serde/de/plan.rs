//! The plan serde reads with: [`DePlan`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::Result;
use crate::resolution::ops::{Op, Step};
use crate::resolution::{PlanInner, ResolvedPlan};
use crate::schema::{NodeKind, Schema};

/// A plan for reading Rust values with serde: data written with one schema (the writer's),
/// read in the shape of another (the reader's), or of the same one.
///
/// It wraps the [`ResolvedPlan`] of the pair, so promotions, reordered and skipped fields,
/// defaults, and enum and union remaps are all decided once, when the plan is built. Cheap to
/// clone (an `Arc`), `Send + Sync`.
///
/// # Examples
/// ```
/// use avrokit::{serde::DePlan, Schema};
/// let v1 = Schema::parse_str(r#"{"type":"record","name":"User","fields":[
///     {"name":"id","type":"int"}]}"#)?;
/// let v2 = Schema::parse_str(r#"{"type":"record","name":"User","fields":[
///     {"name":"email","type":["null","string"],"default":null},
///     {"name":"id","type":"long"}]}"#)?;
///
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct User { id: i64, email: Option<String> }
///
/// let plan = DePlan::resolving(&v1, &v2)?; // once, then reused for every datum
/// let user: User = avrokit::serde::from_datum_slice(&[0x0a], &plan)?;
/// assert_eq!(user, User { id: 5, email: None });
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Clone)]
pub struct DePlan {
    pub(super) inner: Arc<DeInner>,
}

pub(super) struct DeInner {
    pub(super) plan: ResolvedPlan,
    /// The plan's ops, copied here: one pointer hop less per value than through the plan.
    pub(super) ops: Box<[Op]>,
    /// The reader node each op produces (`u32::MAX` for ops that produce nothing).
    pub(super) reader_of: Box<[u32]>,
    /// Per op, for records: the address of the last struct field list (serde's `FIELDS`) the
    /// record was checked against, with the low bit set when the names did not match (see
    /// [`DeInner::fields_in_order`]); 0 before any check.
    pub(super) struct_fields: Box<[AtomicUsize]>,
}

impl DeInner {
    /// True when the record of op `id` has exactly the fields of a struct whose serde field
    /// list is `fields`, in the same order, and its values arrive in that order (no reordering
    /// by the writer): the struct's visitor can then take them as a sequence, without a key
    /// per field to match by name. The answer is cached per op by the list's address, so the
    /// names are compared once per type, not per datum.
    #[inline]
    pub(super) fn fields_in_order(&self, id: u32, fields: &'static [&'static str]) -> bool {
        let Some(slot) = self.struct_fields.get(id as usize) else {
            return false;
        };
        let key = fields.as_ptr() as usize;
        let seen = slot.load(Ordering::Relaxed);
        if seen & !1 == key && key != 0 {
            return seen & 1 == 0;
        }
        self.check_fields(id, fields, slot)
    }

    #[cold]
    #[inline(never)]
    fn check_fields(&self, id: u32, fields: &'static [&'static str], slot: &AtomicUsize) -> bool {
        let p = self.plan.inner();
        let same = match (&self.ops[id as usize], self.reader_of.get(id as usize)) {
            (Op::Record(rec), Some(&r)) if rec.swaps.is_empty() && r != u32::MAX => {
                match &p.reader.node(crate::schema::NodeId(r)).kind {
                    NodeKind::Record(rr) => {
                        rr.fields.len() == fields.len()
                            && rr.fields.iter().zip(fields).all(|(f, n)| *f.name == **n)
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        // `&str`s are at least 2-byte aligned in a slice of them, so the low bit is free.
        let key = fields.as_ptr() as usize;
        slot.store(key | usize::from(!same), Ordering::Relaxed);
        same
    }
}

impl DePlan {
    /// A plan for reading data written with `schema` as `schema`.
    ///
    /// # Examples
    /// ```
    /// let schema = avrokit::Schema::parse_str(r#""string""#)?;
    /// let plan = avrokit::serde::DePlan::compile(&schema)?;
    /// let s: &str = avrokit::serde::from_datum_slice(&[2, b'x'], &plan)?;
    /// assert_eq!(s, "x");
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// None in practice for a parsed schema (a schema always resolves against itself).
    pub fn compile(schema: &Schema) -> Result<DePlan> {
        Ok(DePlan::from_resolved(ResolvedPlan::compile(
            schema, schema,
        )?))
    }

    /// A plan for reading data written with `writer` as values of `reader`.
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`](crate::ErrorKind::Resolution) when the schemas cannot be resolved (see
    /// [`ResolvedPlan::compile`]).
    pub fn resolving(writer: &Schema, reader: &Schema) -> Result<DePlan> {
        Ok(DePlan::from_resolved(ResolvedPlan::compile(
            writer, reader,
        )?))
    }

    /// A plan from an already compiled [`ResolvedPlan`].
    pub fn from_resolved(plan: ResolvedPlan) -> DePlan {
        let reader_of = reader_nodes(plan.inner());
        let ops = plan.inner().ops.clone();
        let struct_fields = ops.iter().map(|_| AtomicUsize::new(0)).collect();
        DePlan {
            inner: Arc::new(DeInner {
                plan,
                ops,
                reader_of,
                struct_fields,
            }),
        }
    }

    /// The writer's schema.
    pub fn writer(&self) -> &Schema {
        self.inner.plan.writer()
    }

    /// The reader's schema.
    pub fn reader(&self) -> &Schema {
        self.inner.plan.reader()
    }
}

impl std::fmt::Debug for DePlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("DePlan").field(&self.inner.plan).finish()
    }
}

/// Walks the ops with the reader's schema to find the reader node of every op (the plan keeps
/// only what reading `Value`s needs; serde also wants union branch names and field names).
pub(super) fn reader_nodes(p: &PlanInner) -> Box<[u32]> {
    let mut out = vec![u32::MAX; p.ops.len()];
    let mut work = vec![(p.root, p.reader.root_id())];
    while let Some((op, r)) = work.pop() {
        let Some(slot) = out.get_mut(op as usize) else {
            continue;
        };
        if *slot != u32::MAX {
            continue;
        }
        *slot = r.0;
        let rk = &p.reader.node(r).kind;
        match (&p.ops[op as usize], rk) {
            (Op::Union(branches), _) => work.extend(branches.iter().map(|&b| (b, r))),
            (Op::Wrap { index, op }, NodeKind::Union(u)) => {
                if let Some(&b) = u.variants.get(*index as usize) {
                    work.push((*op, b));
                }
            }
            (Op::Array { item, .. }, NodeKind::Array(a)) => work.push((*item, a.items)),
            (Op::Map(v), NodeKind::Map(m)) => work.push((*v, m.values)),
            (Op::Record(rec), NodeKind::Record(rr)) => {
                for s in rec.steps.iter() {
                    if let Step::Read { op, to } = s {
                        if let Some(f) = rr.fields.get(*to as usize) {
                            work.push((*op, f.schema));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out.into()
}
