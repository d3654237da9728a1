//! Compiling a writer/reader schema pair into ops.
//!
//! The walk visits each (writer node, reader node) pair once: its op slot is reserved before
//! its children are compiled, so a recursive reference finds the slot and the plan gets a cycle
//! instead of recursing forever.
//!
//! A pair that cannot be resolved is an error for its parent, and so on up to the root (a
//! compile error), except below a writer union: there the failing branch becomes a
//! [`Op::Fail`] and only a datum that uses that branch fails, as the specification says ("if
//! none match, an error is signalled" when such a value is read). A writer union whose
//! branches all fail is itself a failure.

use std::collections::HashMap;

use super::literal::FieldDefault;
use super::ops::{
    BytesOut, EnumOp, FailOp, FixedOut, IntOut, LongOut, Op, OpId, RecordOp, Skip, Step, StringOut,
    NO_SYMBOL,
};
use super::rules::{self, Path, Shallow};
use crate::decode::fixed_size;
use crate::error::{Error, ErrorKind};
use crate::schema::{NodeId, NodeKind, Schema};

/// How deep the walk over a schema pair may go. Each level descends one level in both schemas,
/// whose depth the parser bounds; this bounds pathological pairs (a deeply unrolled reader
/// matched against a recursive writer through aliases) so the walk stays on the stack.
const MAX_COMPILE_DEPTH: usize = 512;

/// A compile failure: where the schemas disagree, and how.
#[derive(Debug, Clone)]
pub(crate) struct ResolveError {
    pub(crate) path: String,
    pub(crate) message: String,
}

impl ResolveError {
    /// The public error: kind `Resolution`, the schema path as the error's path.
    pub(crate) fn into_error(self) -> Error {
        let e = Error::new(ErrorKind::Resolution, self.message);
        if self.path.is_empty() {
            e
        } else {
            e.in_field(self.path)
        }
    }

    /// `path: message`, for messages carried to read time.
    fn display(&self) -> String {
        if self.path.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.path, self.message)
        }
    }
}

/// The ops of a compiled pair and the root op.
pub(crate) struct Compiled {
    pub(crate) ops: Vec<Op>,
    pub(crate) root: OpId,
}

/// Compiles `writer` x `reader`.
pub(crate) fn compile(writer: &Schema, reader: &Schema) -> Result<Compiled, ResolveError> {
    let mut c = Compiler {
        writer,
        reader,
        ops: Vec::new(),
        memo: HashMap::new(),
        path: Path::root(reader),
        depth: 0,
    };
    let root = c.resolve(writer.root_id(), reader.root_id())?;
    debug_assert!(!c.ops.iter().any(|op| matches!(op, Op::Pending)));
    Ok(Compiled { ops: c.ops, root })
}

fn fail_op(e: &ResolveError) -> Op {
    Op::Fail(Box::new(FailOp {
        message: e.display().into(),
    }))
}

enum Memo {
    /// Compiled, or being compiled (the slot holds `Op::Pending` until it is done).
    Op(OpId),
    /// Failed; the slot holds an `Op::Fail`.
    Failed(OpId, ResolveError),
}

struct Compiler<'a> {
    writer: &'a Schema,
    reader: &'a Schema,
    ops: Vec<Op>,
    memo: HashMap<(NodeId, NodeId), Memo>,
    path: Path,
    depth: usize,
}

impl Compiler<'_> {
    fn error(&self, message: String) -> ResolveError {
        ResolveError {
            path: self.path.as_str().to_owned(),
            message,
        }
    }

    /// The op reading writer node `w` as reader node `r`.
    fn resolve(&mut self, w: NodeId, r: NodeId) -> Result<OpId, ResolveError> {
        match self.memo.get(&(w, r)) {
            Some(Memo::Op(id)) => return Ok(*id),
            Some(Memo::Failed(_, e)) => return Err(e.clone()),
            None => {}
        }
        if self.depth >= MAX_COMPILE_DEPTH {
            return Err(self.error(format!(
                "the schemas nest deeper than {MAX_COMPILE_DEPTH} levels"
            )));
        }
        let Ok(slot) = OpId::try_from(self.ops.len()) else {
            return Err(self.error("the schemas are too large to resolve".to_owned()));
        };
        self.ops.push(Op::Pending);
        self.memo.insert((w, r), Memo::Op(slot));
        self.depth += 1;
        let built = self.build(w, r);
        self.depth -= 1;
        match built {
            Ok(op) => {
                self.ops[slot as usize] = op;
                Ok(slot)
            }
            Err(e) => {
                // Anything compiled meanwhile that refers to this pair (a recursive reference)
                // now fails when it reaches it, with the same message.
                self.ops[slot as usize] = fail_op(&e);
                self.memo.insert((w, r), Memo::Failed(slot, e.clone()));
                Err(e)
            }
        }
    }

    fn build(&mut self, w: NodeId, r: NodeId) -> Result<Op, ResolveError> {
        let (writer, reader) = (self.writer, self.reader);
        let (wn, rn) = (writer.node(w), reader.node(r));

        // A writer union: each branch on its own; one the reader cannot read fails only when a
        // datum uses it.
        if let NodeKind::Union(wu) = &wn.kind {
            let mut branches = Vec::with_capacity(wu.variants.len());
            let mut first_err = None;
            let mut any_ok = wu.variants.is_empty();
            for (i, &b) in wu.variants.iter().enumerate() {
                self.path.push_branch(i);
                let res = self.resolve(b, r);
                self.path.pop();
                match res {
                    Ok(op) => {
                        any_ok = true;
                        branches.push(op);
                    }
                    Err(e) => {
                        branches.push(self.failed_slot(b, r, &e)?);
                        first_err.get_or_insert(e);
                    }
                }
            }
            return match (any_ok, first_err) {
                (false, Some(e)) => Err(e),
                _ => Ok(Op::Union(branches.into())),
            };
        }

        // A reader union around a writer non-union: the branch the rules select.
        if let NodeKind::Union(ru) = &rn.kind {
            let Some(j) = rules::select_branch(writer, w, reader, &ru.variants) else {
                let names: Vec<String> = ru
                    .variants
                    .iter()
                    .map(|&b| rules::describe(reader.node(b)))
                    .collect();
                return Err(self.error(format!(
                    "writer {} cannot be read as any branch of the reader's union [{}]",
                    rules::describe(wn),
                    names.join(", ")
                )));
            };
            let op = self.resolve(w, ru.variants[j])?;
            return Ok(Op::Wrap {
                index: j as u32,
                op,
            });
        }

        if let Shallow::No(why) = rules::shallow(wn, rn) {
            return Err(self.error(rules::mismatch_message(wn, rn, why)));
        }
        let logical = rn.logical;
        Ok(match (&wn.kind, &rn.kind) {
            (NodeKind::Null, NodeKind::Null) => Op::Null,
            (NodeKind::Boolean, NodeKind::Boolean) => Op::Boolean,
            (NodeKind::Int, NodeKind::Int) => Op::Int(IntOut::of(logical)),
            (NodeKind::Int, NodeKind::Long) => Op::IntToLong(LongOut::of(logical)),
            (NodeKind::Int, NodeKind::Float) => Op::IntToFloat,
            (NodeKind::Int, NodeKind::Double) => Op::IntToDouble,
            (NodeKind::Long, NodeKind::Long) => Op::Long(LongOut::of(logical)),
            (NodeKind::Long, NodeKind::Float) => Op::LongToFloat,
            (NodeKind::Long, NodeKind::Double) => Op::LongToDouble,
            (NodeKind::Float, NodeKind::Float) => Op::Float,
            (NodeKind::Float, NodeKind::Double) => Op::FloatToDouble,
            (NodeKind::Double, NodeKind::Double) => Op::Double,
            (NodeKind::Bytes | NodeKind::String, NodeKind::Bytes) => {
                Op::Bytes(BytesOut::of(logical))
            }
            (NodeKind::Bytes | NodeKind::String, NodeKind::String) => {
                Op::String(StringOut::of(logical))
            }
            (NodeKind::Fixed(_), NodeKind::Fixed(rf)) => Op::Fixed {
                size: rf.size,
                out: FixedOut::of(logical, rf.size),
            },
            (NodeKind::Enum(we), NodeKind::Enum(re)) => {
                let table = rules::enum_table(&we.symbols, re)
                    .into_iter()
                    .map(|m| m.unwrap_or(NO_SYMBOL))
                    .collect();
                Op::Enum(Box::new(EnumOp { writer: w, table }))
            }
            (NodeKind::Array(wa), NodeKind::Array(ra)) => {
                self.path.push_items();
                let item = self.resolve(wa.items, ra.items);
                self.path.pop();
                Op::Array {
                    item: item?,
                    zero_size_items: fixed_size(writer, wa.items) == Some(0),
                }
            }
            (NodeKind::Map(wm), NodeKind::Map(rm)) => {
                self.path.push_values();
                let values = self.resolve(wm.values, rm.values);
                self.path.pop();
                Op::Map(values?)
            }
            (NodeKind::Record(_), NodeKind::Record(_)) => self.record(w, r)?,
            // `shallow` said Same or Promote, and every such pair is listed above.
            _ => return Err(self.error(rules::mismatch_message(wn, rn, rules::Mismatch::Type))),
        })
    }

    /// The `Op::Fail` slot of a pair that failed to resolve (one is made when the failure came
    /// before a slot was reserved, as for the depth limit).
    fn failed_slot(
        &mut self,
        w: NodeId,
        r: NodeId,
        e: &ResolveError,
    ) -> Result<OpId, ResolveError> {
        if let Some(Memo::Failed(slot, _)) = self.memo.get(&(w, r)) {
            return Ok(*slot);
        }
        let Ok(slot) = OpId::try_from(self.ops.len()) else {
            return Err(e.clone());
        };
        self.ops.push(fail_op(e));
        Ok(slot)
    }

    fn record(&mut self, w: NodeId, r: NodeId) -> Result<Op, ResolveError> {
        let (writer, reader) = (self.writer, self.reader);
        let (NodeKind::Record(wr), NodeKind::Record(rr)) =
            (&writer.node(w).kind, &reader.node(r).kind)
        else {
            return Err(self.error("internal: not a record pair".to_owned()));
        };
        let matches = rules::match_fields(wr, rr);
        let mut reader_pos_of: Vec<Option<u32>> = vec![None; wr.fields.len()];
        for (pos, m) in matches.iter().enumerate() {
            if let Some(wi) = *m {
                reader_pos_of[wi] = Some(pos as u32);
            }
        }

        let mut steps = Vec::with_capacity(wr.fields.len());
        let mut names: Vec<Box<str>> = Vec::with_capacity(wr.fields.len());
        for (wf, to) in wr.fields.iter().zip(&reader_pos_of) {
            match *to {
                Some(to) => {
                    let rf = &rr.fields[to as usize];
                    self.path.push_field(&rf.name);
                    let op = self.resolve(wf.schema, rf.schema);
                    self.path.pop();
                    steps.push(Step::Read { op: op?, to });
                    names.push(rf.name.as_str().into());
                }
                None => {
                    let skip = match fixed_size(writer, wf.schema) {
                        Some(n) => Skip::Raw(n),
                        None => Skip::Node(wf.schema),
                    };
                    steps.push(Step::Skip(skip));
                    names.push(wf.name.as_str().into());
                }
            }
        }

        let mut defaults = Vec::new();
        for (pos, (rf, m)) in rr.fields.iter().zip(&matches).enumerate() {
            if m.is_some() {
                continue;
            }
            self.path.push_field(&rf.name);
            let default = match &rf.default {
                Some(json) => FieldDefault::from_json(json, reader, pos as u32, rf.schema)
                    .map_err(|why| self.error(format!("invalid default: {why}"))),
                None => Err(self.error(format!(
                    "the writer's record {} has no field \"{}\" and the reader's field has no \
                     default",
                    wr.name, rf.name
                ))),
            };
            self.path.pop();
            defaults.push(default?);
        }

        // The reader position of each value in push order (reads in writer order, then the
        // defaults), turned into the swaps that put every value in its place.
        let mut targets: Vec<u32> = steps
            .iter()
            .filter_map(|s| match s {
                Step::Read { to, .. } => Some(*to),
                Step::Skip(_) => None,
            })
            .chain(defaults.iter().map(|d| d.pos))
            .collect();
        let mut swaps = Vec::new();
        for i in 0..targets.len() {
            while targets[i] as usize != i {
                let j = targets[i] as usize;
                targets.swap(i, j);
                swaps.push((i as u32, j as u32));
            }
        }
        Ok(Op::Record(Box::new(RecordOp {
            reader: r,
            names: names.into(),
            steps: steps.into(),
            defaults: defaults.into(),
            len: rr.fields.len() as u32,
            swaps: swaps.into(),
        })))
    }
}
