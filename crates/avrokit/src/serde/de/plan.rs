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
    /// Per op, for records and enums: the address of the last serde name list (a struct's
    /// `FIELDS`, an enum's `VARIANTS`) the op was checked against, with the low bit set when the
    /// names did not match (see [`DeInner::names_in_order`]); 0 before any check.
    pub(super) names_checked: Box<[AtomicUsize]>,
}

impl DeInner {
    /// True when op `id` produces exactly the names serde expects, in the same order: the
    /// fields of a struct (`FIELDS`) for a record whose values arrive in that order (the
    /// writer does not move them), or the variants of a Rust enum (`VARIANTS`) for an enum.
    /// The visitor can then take a record's values as a sequence, without a key per field to
    /// match by name, and an enum's variant by its index. The answer is cached per op by the
    /// list's address, so the names are compared once per type, not per datum.
    #[inline]
    pub(super) fn names_in_order(&self, id: u32, names: &'static [&'static str]) -> bool {
        let Some(slot) = self.names_checked.get(id as usize) else {
            return false;
        };
        let key = names.as_ptr() as usize;
        let seen = slot.load(Ordering::Relaxed);
        if seen & !1 == key && key != 0 {
            return seen & 1 == 0;
        }
        self.check_names(id, names, slot)
    }

    #[cold]
    #[inline(never)]
    fn check_names(&self, id: u32, names: &'static [&'static str], slot: &AtomicUsize) -> bool {
        let p = self.plan.inner();
        let reader = match self.reader_of.get(id as usize) {
            Some(&r) if r != u32::MAX => p.reader.nodes().get(r as usize).map(|n| &n.kind),
            _ => None,
        };
        let same = match (&self.ops[id as usize], reader) {
            (Op::Record(rec), Some(NodeKind::Record(rr))) if rec.swaps.is_empty() => {
                rr.fields.len() == names.len()
                    && rr.fields.iter().zip(names).all(|(f, n)| *f.name == **n)
            }
            (Op::Enum(_), Some(NodeKind::Enum(re))) => {
                re.symbols.len() == names.len()
                    && re.symbols.iter().zip(names).all(|(s, n)| **s == **n)
            }
            _ => false,
        };
        // `&str`s are at least 2-byte aligned in a slice of them, so the low bit is free.
        let key = names.as_ptr() as usize;
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
        let names_checked = ops.iter().map(|_| AtomicUsize::new(0)).collect();
        DePlan {
            inner: Arc::new(DeInner {
                plan,
                ops,
                reader_of,
                names_checked,
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
