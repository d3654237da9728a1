//! [`ResolvingDecoder`]: Java's `ResolvingDecoder` style of reading through a plan, one call per
//! field.
//!
//! For each record the plan keeps a flat program: the reader positions in the order to read
//! them (the writer's fields first, in writer order, then the reader-only fields), and per
//! position what to do: read the wire with a conversion (int to long, ...), serve a default
//! without touching the input, or descend into a nested record. Writer-only fields are skipped
//! before the field that follows them, or when the record ends.

use std::collections::HashMap;

use super::literal::Literal;
use super::ops::{Op, OpId, RecordOp, Skip, Step};
use super::{PlanInner, ResolvedPlan};
use crate::decode::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::io::{SliceSource, Source};
use crate::schema::{LogicalType, NodeId, NodeKind, Schema};

/// What to do for one reader field.
#[derive(Debug, Clone)]
pub(crate) enum Action {
    /// Read the writer's value from the input, converting it: a copy of the plan's op, always
    /// a scalar one (null to enum), so a read matches on it directly.
    Wire(Op),
    /// Serve the reader's default; the input is not touched.
    /// A scalar [`Literal`] (never an array, map, record or union).
    Default(Literal),
    /// A nested record: `read_field_order` descends into record `.0` of the program.
    Record(u32),
}

#[derive(Debug, Clone)]
pub(crate) struct FlatStep {
    /// Writer-only fields to skip before this one is read.
    before: Box<[Skip]>,
    action: Action,
    /// The reader field's name, for errors.
    name: Box<str>,
}

#[derive(Debug, Clone)]
pub(crate) struct FlatRecord {
    /// The reader record's name, for errors.
    name: Box<str>,
    /// Reader field positions, in the order the steps serve them.
    order: Box<[usize]>,
    steps: Box<[FlatStep]>,
    /// Writer-only fields after the last field read from the input.
    tail: Box<[Skip]>,
}

/// Every record of a plan in flat form.
#[derive(Debug, Clone)]
pub(crate) struct FlatProgram {
    records: Vec<FlatRecord>,
    root: u32,
    /// An empty record, current between datums: every typed read finds no step there.
    idle: u32,
}

const SCOPE: &str = "ResolvingDecoder reads records whose fields are primitives, enums, fixed \
                     and records";

impl FlatProgram {
    /// The program for a compiled plan, or why the plan is beyond the decoder's scope.
    pub(crate) fn build(ops: &[Op], root: OpId, reader: &Schema) -> Result<FlatProgram, Box<str>> {
        let mut b = Builder {
            ops,
            reader,
            records: Vec::new(),
            memo: HashMap::new(),
        };
        let Op::Record(rec) = &ops[root as usize] else {
            return Err(format!("{SCOPE}; the writer's schema is not a record read as one").into());
        };
        let root = b.record(root, rec, 0)?;
        let mut records = b.records;
        let idle = records.len() as u32;
        records.push(FlatRecord {
            name: "".into(),
            order: Box::new([]),
            steps: Box::new([]),
            tail: Box::new([]),
        });
        Ok(FlatProgram {
            records,
            root,
            idle,
        })
    }
}

/// How deep nested records may go in a flat program (records of records cannot recurse
/// without a union, array or map, so this only bounds absurd schemas).
const MAX_FLAT_DEPTH: usize = 512;

struct Builder<'a> {
    ops: &'a [Op],
    reader: &'a Schema,
    records: Vec<FlatRecord>,
    memo: HashMap<OpId, u32>,
}

impl Builder<'_> {
    fn record(&mut self, id: OpId, rec: &RecordOp, depth: usize) -> Result<u32, Box<str>> {
        if let Some(&i) = self.memo.get(&id) {
            return Ok(i);
        }
        if depth > MAX_FLAT_DEPTH {
            return Err(format!("{SCOPE}, nested at most {MAX_FLAT_DEPTH} deep").into());
        }
        let NodeKind::Record(rr) = &self.reader.node(rec.reader).kind else {
            return Err(SCOPE.into());
        };
        let mut order = Vec::with_capacity(rec.len as usize);
        let mut steps = Vec::with_capacity(rec.len as usize);
        let mut skips: Vec<Skip> = Vec::new();
        for (k, step) in rec.steps.iter().enumerate() {
            match step {
                Step::Skip(s) => skips.push(*s),
                Step::Read { op, to } => {
                    let action = self.action(*op, depth).map_err(|why| {
                        format!(
                            "{SCOPE}; field {}.{} is {why}",
                            rr.name.name(),
                            rec.names[k]
                        )
                    })?;
                    order.push(*to as usize);
                    steps.push(FlatStep {
                        before: std::mem::take(&mut skips).into(),
                        action,
                        name: rec.names[k].clone(),
                    });
                }
            }
        }
        for d in rec.defaults.iter() {
            let Some(field) = rr.fields.get(d.pos as usize) else {
                return Err(SCOPE.into());
            };
            let action = self
                .default_action(&d.literal, field.schema, depth)
                .map_err(|why| {
                    format!(
                        "{SCOPE}; the default of {}.{} is {why}",
                        rr.name.name(),
                        field.name
                    )
                })?;
            order.push(d.pos as usize);
            steps.push(FlatStep {
                before: Box::new([]),
                action,
                name: field.name.as_str().into(),
            });
        }
        let i = self.records.len() as u32;
        self.records.push(FlatRecord {
            name: rr.name.name().into(),
            order: order.into(),
            steps: steps.into(),
            tail: skips.into(),
        });
        self.memo.insert(id, i);
        Ok(i)
    }

    fn action(&mut self, id: OpId, depth: usize) -> Result<Action, String> {
        match &self.ops[id as usize] {
            Op::Record(rec) => self
                .record(id, rec, depth + 1)
                .map(Action::Record)
                .map_err(String::from),
            Op::Array { .. } => Err("an array".into()),
            Op::Map(_) => Err("a map".into()),
            Op::Union(_) | Op::Wrap { .. } => Err("a union".into()),
            Op::Fail(_) | Op::Pending => Err("unreadable".into()),
            scalar => Ok(Action::Wire(scalar.clone())),
        }
    }

    fn default_action(&mut self, l: &Literal, ty: NodeId, depth: usize) -> Result<Action, String> {
        let node = self.reader.node(ty);
        Ok(match l {
            Literal::Record(fields) => return self.default_record(fields, ty, depth + 1),
            // As before literals: no typed read hands a big-decimal out as one.
            Literal::Bytes(_) if node.logical == Some(LogicalType::BigDecimal) => {
                return Err("a big-decimal".into())
            }
            Literal::Array(_) => return Err("an array".into()),
            Literal::Map(_) => return Err("a map".into()),
            Literal::Union(..) => return Err("a union".into()),
            l => Action::Default(l.clone()),
        })
    }

    /// A record served entirely from a default value.
    fn default_record(
        &mut self,
        fields: &[Literal],
        ty: NodeId,
        depth: usize,
    ) -> Result<Action, String> {
        if depth > MAX_FLAT_DEPTH {
            return Err(format!("nested deeper than {MAX_FLAT_DEPTH}"));
        }
        let NodeKind::Record(rr) = &self.reader.node(ty).kind else {
            return Err("not a record".into());
        };
        let mut steps = Vec::with_capacity(fields.len());
        for (v, f) in fields.iter().zip(&rr.fields) {
            steps.push(FlatStep {
                before: Box::new([]),
                action: self.default_action(v, f.schema, depth)?,
                name: f.name.as_str().into(),
            });
        }
        let i = self.records.len() as u32;
        self.records.push(FlatRecord {
            name: rr.name.name().into(),
            order: (0..steps.len()).collect(),
            steps: steps.into(),
            tail: Box::new([]),
        });
        Ok(Action::Record(i))
    }
}

/// A low-level reader of records through a [`ResolvedPlan`], one call per field, like Java's
/// `ResolvingDecoder`.
///
/// For each record, ask once for the order of the reader's fields with
/// [`read_field_order`](Self::read_field_order), then read them in that order with the typed
/// reads ([`read_int`](Self::read_int), [`read_str`](Self::read_str), ...), each of the reader
/// field's type. The decoder applies promotions (a `read_long` of a field the writer wrote as
/// an int), skips writer-only fields, and serves reader-only fields from their defaults
/// without touching the input. For a field that is itself a record, call `read_field_order`
/// again to descend into it; the nested record ends when its last field is read.
///
/// # Scope
/// The reader's root must be a record (read from a writer record), and every field read or
/// defaulted must be a primitive, an enum, a fixed or a record of those. Writer-only fields of
/// any type are fine (they are skipped). [`ResolvingDecoder::new`] refuses other plans; read
/// them with [`read_value_resolved`](crate::value::read_value_resolved).
///
/// # Performance
/// A typed read checks the next step, reads (or serves the default) and steps forward: about
/// 25 instructions per field over the bare [`Decoder`] call, measured with callgrind on Java
/// Perf's six-field records, plus about 80 per record for `read_field_order` and the record's
/// end.
///
/// # Examples
/// ```
/// use avrokit::{Decoder, Encoder, Schema};
/// use avrokit::resolution::{ResolvedPlan, ResolvingDecoder};
/// let writer = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
///     {"name":"a","type":"int"},{"name":"gone","type":"string"},{"name":"b","type":"double"}]}"#)?;
/// let reader = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
///     {"name":"b","type":"double"},{"name":"a","type":"long"},
///     {"name":"c","type":"string","default":"none"}]}"#)?;
/// let plan = ResolvedPlan::compile(&writer, &reader)?;
///
/// let mut bytes = Vec::new();
/// let mut enc = Encoder::new(&mut bytes);
/// enc.write_int(7)?;
/// enc.write_string("skipped")?;
/// enc.write_double(0.5)?;
///
/// let mut dec = ResolvingDecoder::new(&plan, Decoder::from_slice(&bytes))?;
/// let (mut a, mut b, mut c) = (0, 0.0, String::new());
/// for &pos in dec.read_field_order()? {
///     match pos {
///         0 => b = dec.read_double()?,
///         1 => a = dec.read_long()?,
///         _ => c = dec.read_str()?.to_owned(),
///     }
/// }
/// assert_eq!((a, b, c.as_str()), (7, 0.5, "none"));
/// dec.finish()?;
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct ResolvingDecoder<'p, 'de, S: Source<'de> = SliceSource<'de>> {
    dec: Decoder<'de, S>,
    plan: &'p PlanInner,
    prog: &'p FlatProgram,
    /// The record being read (the program's empty `idle` record between datums) and the
    /// position of the next step in it. Kept out of `parents` so a typed read reaches its step
    /// in two loads.
    cur: &'p FlatRecord,
    pos: usize,
    /// The records `cur` is nested in, with their positions, outermost first.
    parents: Vec<(&'p FlatRecord, usize)>,
    /// Writer-only fields at the end of records just finished, skipped before the next read
    /// (not at once, so that a string just read can still be borrowed from the input).
    pending: Vec<&'p [Skip]>,
}

impl<'p, 'de, S: Source<'de>> ResolvingDecoder<'p, 'de, S> {
    /// A resolving decoder reading data of `plan`'s writer schema from `dec`.
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`] when the plan is beyond this decoder's scope (see the
    /// type's docs).
    pub fn new(plan: &'p ResolvedPlan, dec: Decoder<'de, S>) -> Result<Self> {
        let inner = plan.inner();
        let prog = match &inner.flat {
            Ok(p) => p,
            Err(why) => return Err(Error::new(ErrorKind::Resolution, why.to_string())),
        };
        Ok(ResolvingDecoder {
            dec,
            plan: inner,
            prog,
            cur: &prog.records[prog.idle as usize],
            pos: 0,
            parents: Vec::new(),
            pending: Vec::new(),
        })
    }

    /// The underlying decoder (its offset, limits, ...).
    #[inline]
    pub fn decoder(&self) -> &Decoder<'de, S> {
        &self.dec
    }

    /// Takes the underlying decoder back. Call [`finish`](Self::finish) first so the trailing
    /// writer-only fields of the last datum are skipped.
    pub fn into_inner(self) -> Decoder<'de, S> {
        self.dec
    }

    /// Starts the next record: the reader's root record between datums, or the nested record
    /// that is the next field. Returns the reader's field positions in the order they are to
    /// be read: the fields the writer wrote, in writer order, then the reader-only fields.
    ///
    /// # Errors
    /// When the next field is not a record, input errors while skipping writer-only fields,
    /// or nesting beyond the decoder's depth limit.
    pub fn read_field_order(&mut self) -> Result<&'p [usize]> {
        self.settle()?;
        let rec: &'p FlatRecord = if self.is_idle() {
            &self.prog.records[self.prog.root as usize]
        } else {
            let Some(step) = self.cur.steps.get(self.pos) else {
                return Err(no_record("read_field_order"));
            };
            let Action::Record(i) = step.action else {
                return Err(self.wrong_read("read_field_order", step));
            };
            self.skip_all(&step.before)?;
            self.parents.push((self.cur, self.pos));
            &self.prog.records[i as usize]
        };
        self.dec.enter()?;
        self.cur = rec;
        self.pos = 0;
        if rec.steps.is_empty() {
            // Nothing to read: the writer's fields (if any) are all skipped now.
            self.complete();
            self.settle()?;
        }
        Ok(&rec.order)
    }

    /// Ends the current datum: skips the writer-only fields that follow the last field read.
    ///
    /// # Errors
    /// When fields of the current record are still unread, or input errors while skipping.
    pub fn finish(&mut self) -> Result<()> {
        self.settle()?;
        if let Some(step) = self.cur.steps.get(self.pos) {
            return Err(Error::new(
                ErrorKind::Data,
                format!(
                    "record {} is not finished: field {} is next",
                    self.cur.name, step.name
                ),
            ));
        }
        Ok(())
    }

    #[inline]
    fn is_idle(&self) -> bool {
        std::ptr::eq(self.cur, &self.prog.records[self.prog.idle as usize])
    }

    /// Reads a `null` field.
    ///
    /// # Errors
    /// When the next field is not a null in the reader's schema.
    #[inline]
    pub fn read_null(&mut self) -> Result<()> {
        let step = self.step("read_null")?;
        match &step.action {
            Action::Wire(Op::Null) => self.skip_all(&step.before)?,
            Action::Default(Literal::Null) => {}
            _ => return Err(self.wrong_read("read_null", step)),
        }
        self.done()
    }

    // The fixed-size reads are `#[inline(always)]`: as calls, their prologue, epilogue and
    // result passing cost about 25 instructions per field more (callgrind, six-field records).

    /// Reads a `boolean` field.
    ///
    /// # Errors
    /// When the next field is not a boolean in the reader's schema, or on bad input.
    #[inline(always)]
    pub fn read_boolean(&mut self) -> Result<bool> {
        let step = self.step("read_boolean")?;
        let v = match &step.action {
            Action::Wire(Op::Boolean) => {
                self.skip_all(&step.before)?;
                self.dec.read_boolean().map_err(|e| in_step(e, step))?
            }
            Action::Default(Literal::Boolean(v)) => *v,
            _ => return Err(self.wrong_read("read_boolean", step)),
        };
        self.done()?;
        Ok(v)
    }

    /// Reads an `int` field.
    ///
    /// # Errors
    /// When the next field is not an int in the reader's schema, or on bad input.
    #[inline(always)]
    pub fn read_int(&mut self) -> Result<i32> {
        let step = self.step("read_int")?;
        let v = match &step.action {
            Action::Wire(Op::Int(_)) => {
                self.skip_all(&step.before)?;
                self.dec.read_int().map_err(|e| in_step(e, step))?
            }
            Action::Default(Literal::Int(v)) => *v,
            _ => return Err(self.wrong_read("read_int", step)),
        };
        self.done()?;
        Ok(v)
    }

    /// Reads a `long` field (the writer may have written an int).
    ///
    /// # Errors
    /// When the next field is not a long in the reader's schema, or on bad input.
    #[inline(always)]
    pub fn read_long(&mut self) -> Result<i64> {
        let step = self.step("read_long")?;
        let v = match &step.action {
            Action::Wire(c @ (Op::Long(_) | Op::IntToLong(_))) => {
                self.skip_all(&step.before)?;
                let r = if matches!(c, Op::Long(_)) {
                    self.dec.read_long()
                } else {
                    self.dec.read_int().map(i64::from)
                };
                r.map_err(|e| in_step(e, step))?
            }
            Action::Default(Literal::Long(v)) => *v,
            _ => return Err(self.wrong_read("read_long", step)),
        };
        self.done()?;
        Ok(v)
    }

    /// Reads a `float` field (the writer may have written an int or a long).
    ///
    /// # Errors
    /// When the next field is not a float in the reader's schema, or on bad input.
    #[inline(always)]
    pub fn read_float(&mut self) -> Result<f32> {
        let step = self.step("read_float")?;
        let v = match &step.action {
            Action::Wire(c @ (Op::Float | Op::IntToFloat | Op::LongToFloat)) => {
                self.skip_all(&step.before)?;
                let r = match c {
                    Op::IntToFloat => self.dec.read_int().map(|v| v as f32),
                    Op::LongToFloat => self.dec.read_long().map(|v| v as f32),
                    _ => self.dec.read_float(),
                };
                r.map_err(|e| in_step(e, step))?
            }
            Action::Default(Literal::Float(v)) => *v,
            _ => return Err(self.wrong_read("read_float", step)),
        };
        self.done()?;
        Ok(v)
    }

    /// Reads a `double` field (the writer may have written an int, a long or a float).
    ///
    /// # Errors
    /// When the next field is not a double in the reader's schema, or on bad input.
    #[inline(always)]
    pub fn read_double(&mut self) -> Result<f64> {
        let step = self.step("read_double")?;
        let v = match &step.action {
            Action::Wire(
                c @ (Op::Double | Op::FloatToDouble | Op::IntToDouble | Op::LongToDouble),
            ) => {
                self.skip_all(&step.before)?;
                let r = match c {
                    Op::FloatToDouble => self.dec.read_float().map(f64::from),
                    Op::IntToDouble => self.dec.read_int().map(f64::from),
                    Op::LongToDouble => self.dec.read_long().map(|v| v as f64),
                    _ => self.dec.read_double(),
                };
                r.map_err(|e| in_step(e, step))?
            }
            Action::Default(Literal::Double(v)) => *v,
            _ => return Err(self.wrong_read("read_double", step)),
        };
        self.done()?;
        Ok(v)
    }

    /// Reads an enum field: the symbol's index in the **reader's** enum (a writer symbol the
    /// reader lacks becomes the reader's enum default).
    ///
    /// # Errors
    /// When the next field is not an enum in the reader's schema, on bad input, or
    /// [`ErrorKind::Resolution`] for a writer symbol the reader lacks with no default.
    #[inline]
    pub fn read_enum(&mut self) -> Result<u32> {
        let step = self.step("read_enum")?;
        let v = match &step.action {
            Action::Wire(Op::Enum(e)) => {
                self.skip_all(&step.before)?;
                e.read(&mut self.dec, self.plan)
                    .map_err(|err| in_step(err, step))?
            }
            Action::Default(Literal::Enum(v)) => *v,
            _ => return Err(self.wrong_read("read_enum", step)),
        };
        self.done()?;
        Ok(v)
    }

    /// Reads a `string` field (the writer may have written bytes; they are checked to be
    /// UTF-8), borrowed from the input, the decoder's scratch buffer or the plan's default.
    ///
    /// # Errors
    /// When the next field is not a string in the reader's schema, or on bad input.
    #[inline]
    pub fn read_str(&mut self) -> Result<&str> {
        let step = self.step("read_str")?;
        match &step.action {
            Action::Wire(Op::String(_)) => {
                self.skip_all(&step.before)?;
                self.advance();
                self.dec.read_str().map_err(|e| in_step(e, step))
            }
            Action::Default(Literal::String(s)) => {
                self.advance();
                Ok(s)
            }
            _ => Err(self.wrong_read("read_str", step)),
        }
    }

    /// Reads a `string` field into `out`, replacing its contents (reusing its allocation).
    ///
    /// # Errors
    /// As [`read_str`](Self::read_str).
    pub fn read_string_into(&mut self, out: &mut String) -> Result<()> {
        let s = self.read_str()?;
        out.clear();
        out.push_str(s);
        self.settle()
    }

    /// Reads a `bytes` field (the writer may have written a string), borrowed from the input,
    /// the decoder's scratch buffer or the plan's default.
    ///
    /// # Errors
    /// When the next field is not bytes in the reader's schema, or on bad input.
    #[inline]
    pub fn read_bytes(&mut self) -> Result<&[u8]> {
        let step = self.step("read_bytes")?;
        match &step.action {
            Action::Wire(Op::Bytes(_)) => {
                self.skip_all(&step.before)?;
                self.advance();
                self.dec.read_bytes().map_err(|e| in_step(e, step))
            }
            Action::Default(Literal::Bytes(b)) => {
                self.advance();
                Ok(b)
            }
            _ => Err(self.wrong_read("read_bytes", step)),
        }
    }

    /// Reads a `fixed` field (its size is the reader's), borrowed like
    /// [`read_bytes`](Self::read_bytes).
    ///
    /// # Errors
    /// When the next field is not a fixed in the reader's schema, or on bad input.
    #[inline]
    pub fn read_fixed(&mut self) -> Result<&[u8]> {
        let step = self.step("read_fixed")?;
        match &step.action {
            Action::Wire(Op::Fixed { size, .. }) => {
                self.skip_all(&step.before)?;
                self.advance();
                self.dec.read_fixed(*size).map_err(|e| in_step(e, step))
            }
            Action::Default(Literal::Fixed(b)) => {
                self.advance();
                Ok(b)
            }
            _ => Err(self.wrong_read("read_fixed", step)),
        }
    }

    /// The next step, after skipping what the last one left pending.
    // Inlined into each typed read: as calls, `step` and `done` cost more than the read
    // itself (about 60 instructions per field, measured with callgrind).
    #[inline(always)]
    fn step(&mut self, what: &'static str) -> Result<&'p FlatStep> {
        if !self.pending.is_empty() {
            self.settle()?;
        }
        match self.cur.steps.get(self.pos) {
            Some(s) => Ok(s),
            None => Err(no_record(what)),
        }
    }

    /// A value of the current step was read: move on, and skip at once what follows it (the
    /// value is not borrowed).
    #[inline(always)]
    fn done(&mut self) -> Result<()> {
        self.advance();
        if self.pending.is_empty() {
            Ok(())
        } else {
            self.settle()
        }
    }

    /// Moves past the current step, finishing the records it ends.
    #[inline(always)]
    fn advance(&mut self) {
        self.pos += 1;
        if self.pos == self.cur.steps.len() {
            self.complete();
        }
    }

    /// The current record has no step left: leave it (and every parent it was the last field
    /// of), leaving their trailing skips pending.
    #[inline(never)]
    fn complete(&mut self) {
        while self.pos >= self.cur.steps.len() && !self.is_idle() {
            if !self.cur.tail.is_empty() {
                self.pending.push(&self.cur.tail);
            }
            self.dec.leave();
            match self.parents.pop() {
                Some((rec, pos)) => {
                    self.cur = rec;
                    self.pos = pos + 1;
                }
                None => {
                    self.cur = &self.prog.records[self.prog.idle as usize];
                    self.pos = 0;
                }
            }
        }
    }

    /// Skips the writer-only fields left pending, innermost record first.
    #[inline(never)]
    fn settle(&mut self) -> Result<()> {
        let mut i = 0;
        while i < self.pending.len() {
            let skips = self.pending[i];
            self.skip_all(skips)?;
            i += 1;
        }
        self.pending.clear();
        Ok(())
    }

    #[inline(always)]
    fn skip_all(&mut self, skips: &[Skip]) -> Result<()> {
        for s in skips {
            super::ops::skip(&mut self.dec, self.plan, *s)?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn wrong_read(&self, what: &str, step: &FlatStep) -> Error {
        let rec = &self.cur.name;
        let expected = match &step.action {
            Action::Record(_) => "read_field_order",
            Action::Wire(op) => match op {
                Op::Null => "read_null",
                Op::Boolean => "read_boolean",
                Op::Int(_) => "read_int",
                Op::IntToLong(_) | Op::Long(_) => "read_long",
                Op::IntToFloat | Op::LongToFloat | Op::Float => "read_float",
                Op::IntToDouble | Op::LongToDouble | Op::FloatToDouble | Op::Double => {
                    "read_double"
                }
                Op::Bytes(_) => "read_bytes",
                Op::String(_) => "read_str",
                Op::Fixed { .. } => "read_fixed",
                Op::Enum(_) => "read_enum",
                _ => "a scalar read",
            },
            Action::Default(l) => match l {
                Literal::Null => "read_null",
                Literal::Boolean(_) => "read_boolean",
                Literal::Int(_) => "read_int",
                Literal::Long(_) => "read_long",
                Literal::Float(_) => "read_float",
                Literal::Double(_) => "read_double",
                Literal::Bytes(_) => "read_bytes",
                Literal::String(_) => "read_str",
                Literal::Fixed(_) => "read_fixed",
                Literal::Enum(_) => "read_enum",
                // `default_action` serves these as records or refuses them.
                Literal::Array(_) | Literal::Map(_) | Literal::Record(_) | Literal::Union(..) => {
                    "read_field_order"
                }
            },
        };
        Error::new(
            ErrorKind::Data,
            format!(
                "{what} called for field {rec}.{}, which is read with {expected}",
                step.name
            ),
        )
        .or_offset(self.dec.offset())
    }
}

#[cold]
#[inline(never)]
fn in_step(e: Error, step: &FlatStep) -> Error {
    e.in_field(step.name.to_string())
}

#[cold]
#[inline(never)]
fn no_record(what: &str) -> Error {
    Error::new(
        ErrorKind::Data,
        format!("{what} called outside a record: call read_field_order first"),
    )
}
