//! Decoding Avro binary data straight into Arrow columns.
//!
//! A [`Target`] is the reader's side: the reader schema (after projection), its Arrow schema,
//! and fresh column builders on demand. A [`Program`] is one writer schema compiled against a
//! target through the core's [`ResolvedPlan`]. [`Rows`] holds the builders of one batch and
//! decodes datums into them.

mod column;
mod cursor;
mod program;
mod strings;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field, Schema as ArrowSchema, SchemaRef};
use avrokit::resolution::ResolvedPlan;
use avrokit::schema::NodeKind;
use avrokit::{Limits, Schema};

pub(crate) use column::{Col, Next};
pub(crate) use cursor::Cursor;
use program::{compile, read, Cx, RecordSrc, Src, Step};

use crate::error::{Error, Result};
use crate::mapping::{MapOptions, Mapper, AVRO_SCHEMA_KEY};

/// The column name of a top-level schema that is not a record.
pub const VALUE_COLUMN: &str = "value";

/// The reader's side of decoding: the schema values are read as, and its Arrow form.
#[derive(Clone)]
pub(crate) struct Target {
    pub(crate) reader: Schema,
    pub(crate) arrow: SchemaRef,
    pub(crate) limits: Limits,
    /// The root's Arrow field (a struct of the columns).
    root: Field,
    is_record: bool,
}

impl Target {
    pub(crate) fn new(reader: &Schema, opts: MapOptions, limits: Limits) -> Result<Target> {
        let mut mapper = Mapper::new(reader, opts);
        let is_record = matches!(reader.root().kind, NodeKind::Record(_));
        let fields = if is_record {
            match mapper.data_type(reader.root_id())? {
                DataType::Struct(f) => f,
                _ => unreachable_struct()?,
            }
        } else {
            vec![mapper.field(VALUE_COLUMN, reader.root_id())?].into()
        };
        // A top-level `null` column is not nullable, as arrow-avro has it.
        let fields: arrow_schema::Fields = fields
            .iter()
            .map(|f| match f.data_type() {
                DataType::Null => Arc::new(f.as_ref().clone().with_nullable(false)),
                _ => f.clone(),
            })
            .collect();
        let meta = HashMap::from([(AVRO_SCHEMA_KEY.to_owned(), reader.to_json().to_string())]);
        let arrow = Arc::new(ArrowSchema::new_with_metadata(fields.clone(), meta));
        Ok(Target {
            reader: reader.clone(),
            arrow,
            limits,
            root: Field::new("", DataType::Struct(fields), false),
            is_record,
        })
    }

    /// Empty builders for a batch.
    pub(crate) fn columns(&self) -> Result<Col> {
        if self.is_record {
            Col::new(&self.reader, self.reader.root_id(), &self.root)
        } else {
            let DataType::Struct(f) = self.root.data_type() else {
                return unreachable_struct();
            };
            let inner = Col::new(&self.reader, self.reader.root_id(), &f[0])?;
            Ok(Col::root_of(inner, &f[0]))
        }
    }

    /// Compiles data written with `writer` for this target.
    pub(crate) fn program(&self, writer: &Schema) -> Result<Program> {
        let plan = ResolvedPlan::compile(writer, &self.reader)?;
        let cols = self.columns()?;
        let src = if self.is_record {
            compile(&plan, plan.root_op(), self.reader.root_id(), &cols)?
        } else {
            let column::Kind::Struct { children, .. } = &cols.kind else {
                return unreachable_struct();
            };
            let inner = compile(&plan, plan.root_op(), self.reader.root_id(), &children[0])?;
            Src::Record(Box::new(RecordSrc::new(
                vec![Step::Read(0, inner)],
                Vec::new(),
                1,
            )))
        };
        Ok(Program { src: Arc::new(src) })
    }
}

#[cold]
fn unreachable_struct<T>() -> Result<T> {
    Err(Error::unsupported("internal: the root is not a struct"))
}

/// One writer schema compiled for a [`Target`]; cheap to clone and share between threads.
#[derive(Clone)]
pub(crate) struct Program {
    src: Arc<Src>,
}

/// The builders of one batch.
pub(crate) struct Rows {
    target: Target,
    cols: Col,
    rows: usize,
    cx: Cx,
}

impl Rows {
    pub(crate) fn new(target: &Target) -> Result<Rows> {
        Ok(Rows {
            cols: target.columns()?,
            cx: Cx {
                limits: target.limits,
            },
            target: target.clone(),
            rows: 0,
        })
    }

    /// Rows decoded since the last flush.
    pub(crate) fn len(&self) -> usize {
        self.rows
    }

    /// Decodes one datum from `cur` with `program`.
    ///
    /// On error the builders may hold part of the datum: the batch is unusable, and callers
    /// stop (as the core's readers do after an error).
    #[inline]
    pub(crate) fn decode(&mut self, program: &Program, cur: &mut Cursor) -> Result<()> {
        match &*program.src {
            // The root record's fields straight away: no dispatch to get there.
            Src::Record(r) => program::read_record(&mut self.cols, r, cur, &self.cx)?,
            src => read(&mut self.cols, src, cur, &self.cx)?,
        }
        self.rows += 1;
        Ok(())
    }

    /// The batch of the rows decoded since the last flush; `next` says how to size the
    /// builders for the batch after it.
    pub(crate) fn flush(&mut self, next: Next) -> Result<RecordBatch> {
        let n = std::mem::take(&mut self.rows);
        let columns = self.cols.finish_columns(next)?;
        let opts = RecordBatchOptions::new().with_row_count(Some(n));
        Ok(RecordBatch::try_new_with_options(
            self.target.arrow.clone(),
            columns,
            &opts,
        )?)
    }
}
