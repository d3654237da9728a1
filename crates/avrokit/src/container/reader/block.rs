//! Records that borrow from their block: [`Block`], one decompressed block at a time, and
//! [`BlockRecords`], the iterator over its records ([`BlockRecordsInto`] reads them over one
//! value).
//!
//! The records of a block live in one buffer (the input slice for the `null` codec, else the
//! reader's decompression buffer) until the next block is loaded. A `Block` hands that buffer
//! out for its lifetime, so serde types with `&str`/`&[u8]`/`Cow` fields and generated codecs
//! over borrowed fields read without copying. The checks are the [`Reader`](super::Reader)'s:
//! the count against the bytes before the first record, the per-datum limits, record and
//! file offsets in errors, and the records using exactly the block's bytes.

use super::checks::{record_error, records_end_early};
use super::{Current, DatumReader};
use crate::codec::{AvroDecode, CodecPlan};
use crate::container::framing::BlockHeader;
use crate::decode::Decoder;
use crate::error::{Error, Result};
use crate::io::Limits;
use crate::schema::Schema;
use crate::serde::DePlan;
use crate::value::Value;

/// One data block of a container file, decompressed, whose records borrow from it.
///
/// Returned by [`Reader::next_block`](super::Reader::next_block) (one block at a time, on the
/// caller's thread) and given to the function of
/// [`Reader::par_blocks`](super::Reader::par_blocks) (blocks on several threads). The count
/// of records has been checked against the block's bytes; each record is checked as it is
/// read.
///
/// # Examples
/// ```
/// use avrokit::container::{Codec, Reader, WriterBuilder};
/// use avrokit::serde::{DePlan, SerPlan};
/// use avrokit::Schema;
///
/// #[derive(serde::Deserialize)]
/// struct Row<'a> {
///     name: &'a str, // borrowed from the decompressed block
///     n: i64,
/// }
///
/// let schema = Schema::parse_str(r#"{"type":"record","name":"Row","fields":[
///     {"name":"name","type":"string"},{"name":"n","type":"long"}]}"#)?;
/// let mut w = WriterBuilder::new(&schema).with_codec(Codec::DEFLATE).build(Vec::new())?;
/// let ser = SerPlan::compile(&schema)?;
/// for n in 0..3i64 {
///     #[derive(serde::Serialize)]
///     struct Out<'a> { name: &'a str, n: i64 }
///     w.append_serde(&Out { name: "abc", n }, &ser)?;
/// }
/// let file = w.into_inner()?;
///
/// let mut r = Reader::from_slice(&file)?;
/// let plan = DePlan::compile(r.schema())?;
/// let mut total = 0;
/// while let Some(block) = r.next_block()? {
///     for row in block.serde_iter::<Row>(&plan) {
///         let row = row?;
///         total += row.name.len() as i64 + row.n;
///     }
/// }
/// assert_eq!(total, 3 * 3 + 3);
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct Block<'b> {
    /// The whole block's bytes, decompressed.
    data: &'b [u8],
    header: BlockHeader,
    /// Where the records not read yet start in `data`, and the index of the first of them
    /// (both 0 but for the first block of a parallel read started inside a block).
    start: usize,
    first: u64,
    limits: Limits,
    /// The block is stored uncompressed, so record offsets are file offsets.
    in_file: bool,
    /// The file's (writer) schema.
    schema: &'b Schema,
    /// The reader's datum reader, for [`values`](Self::values) (none in [`par_blocks`](super::Reader::par_blocks)).
    datum: Option<&'b mut dyn DatumReader>,
}

impl<'b> Block<'b> {
    /// A block whose count has already been checked against `data`.
    pub(super) fn new(
        data: &'b [u8],
        header: BlockHeader,
        limits: Limits,
        in_file: bool,
        schema: &'b Schema,
        datum: Option<&'b mut dyn DatumReader>,
    ) -> Block<'b> {
        Block {
            data,
            header,
            start: 0,
            first: 0,
            limits,
            in_file,
            schema,
            datum,
        }
    }

    /// The records of the current block from record `first` on, whose bytes start at `start`
    /// of the block's `data`: the first block of a parallel read begun part way through a
    /// block.
    pub(super) fn rest(mut self, start: usize, first: u64) -> Block<'b> {
        debug_assert!(start <= self.data.len() && first <= self.header.count);
        self.start = start;
        self.first = first;
        self
    }

    /// The block's framing: index, file offset, object count, stored size. The count is the
    /// whole block's, also when a parallel read began part way through it ([`count`](Self::count)
    /// is then the records not read yet).
    pub fn header(&self) -> &BlockHeader {
        &self.header
    }

    /// The number of records in the block: those not read yet when a parallel read began
    /// part way through it (see [`Reader::par_blocks`](super::Reader::par_blocks)).
    pub fn count(&self) -> u64 {
        self.header.count - self.first
    }

    /// The block's records as encoded, decompressed: from the first record not read yet when
    /// a parallel read began part way through it.
    pub fn data(&self) -> &'b [u8] {
        &self.data[self.start..]
    }

    /// The file's (writer) schema, which the records are encoded with.
    pub fn schema(&self) -> &'b Schema {
        self.schema
    }

    /// An iterator over the block's records, each read by `f` from a decoder positioned at
    /// it (`f` must read exactly one record). What `f` returns may borrow from the block.
    /// The iterator ends after the first error.
    pub fn records_with<T, F>(&self, f: F) -> BlockRecords<'b, F>
    where
        F: FnMut(&mut Decoder<'b>) -> Result<T>,
    {
        self.records(f, None)
    }

    fn records<F>(&self, f: F, error: Option<Error>) -> BlockRecords<'b, F> {
        let from = (self.start, self.first);
        BlockRecords::new(
            self.data,
            self.header,
            from,
            self.limits,
            self.in_file,
            f,
            error,
        )
    }

    /// The block's records as `T`s through `plan`, borrowing strings and bytes from the block
    /// where `T` does (`&str`, `&[u8]`, `Cow`). `plan`'s writer schema must be the file's
    /// (compile it from [`Reader::schema`](super::Reader::schema) or [`schema`](Self::schema)).
    pub fn serde_iter<'p, T>(
        &self,
        plan: &'p DePlan,
    ) -> BlockRecords<'b, impl FnMut(&mut Decoder<'b>) -> Result<T> + use<'b, 'p, T>>
    where
        T: serde::Deserialize<'b>,
    {
        let error = self.check_writer(plan.writer());
        self.records(
            move |dec: &mut Decoder<'b>| crate::serde::deserialize_from(dec, plan),
            error,
        )
    }

    /// The block's records as `T`s through `T`'s generated code (exactly, or through the
    /// plan's resolution; serde for a type without a codec, as `plan` decided), borrowing where `T`'s fields borrow. `plan` must be compiled for
    /// this file ([`Reader::codec_plan`](super::Reader::codec_plan)). For a type with a
    /// lifetime, compile the plan once at `'static` (`CodecPlan::<Row<'static>>::reading`):
    /// a plan is covariant in its type, so it then serves every block's lifetime.
    pub fn codec_iter<'p, T>(
        &self,
        plan: &'p CodecPlan<T>,
    ) -> BlockRecords<'b, impl FnMut(&mut Decoder<'b>) -> Result<T> + use<'b, 'p, T>>
    where
        T: AvroDecode<'b> + serde::Deserialize<'b>,
    {
        let error = self.check_writer(plan.writer());
        self.records(move |dec: &mut Decoder<'b>| plan.decode(dec), error)
    }

    /// The block's records read one after another over one `T` through `plan`: the lending
    /// form of [`codec_iter`](Self::codec_iter), for a loop that looks at each record and
    /// moves on. Each record is read over what the one before left in `T` (as
    /// [`Reader::next_codec_into`](super::Reader::next_codec_into) does), and its strings and
    /// bytes borrow from the block where `T`'s fields borrow. So a record of borrowed strings,
    /// vectors and `HashMap`s is read without allocating once they have grown: those keep
    /// their capacity. A `BTreeMap` is cleared and refilled, which frees and allocates its
    /// nodes. The plan is the one [`codec_iter`](Self::codec_iter) takes.
    ///
    /// # Examples
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use avrokit::codec::CodecPlan;
    /// use avrokit::container::{Reader, WriterBuilder};
    /// use avrokit::AvroSchema;
    ///
    /// #[derive(AvroSchema, serde::Deserialize, Default)]
    /// struct Row<'a> {
    ///     name: &'a str,  // borrowed from the block
    ///     tags: Vec<i64>, // its allocation kept from record to record
    /// }
    ///
    /// let mut w = WriterBuilder::new(&Row::schema()).build(Vec::new())?;
    /// let plan = CodecPlan::<Row>::new()?;
    /// for n in 0..4 {
    ///     w.append_codec(&Row { name: "r", tags: (0..n).collect() }, &plan)?;
    /// }
    /// let file = w.into_inner()?;
    ///
    /// let mut r = Reader::from_slice(&file)?;
    /// let plan = CodecPlan::<Row<'static>>::reading(r.schema())?;
    /// let mut total = 0;
    /// while let Some(block) = r.next_block()? {
    ///     let mut rows = block.codec_into(&plan);
    ///     let mut row = Row::default();
    ///     while let Some(read) = rows.next_into(&mut row) {
    ///         read?;
    ///         total += row.tags.len();
    ///     }
    /// }
    /// assert_eq!(total, 6);
    /// # }
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    pub fn codec_into<'p, T>(&self, plan: &'p CodecPlan<T>) -> BlockRecordsInto<'b, 'p, T>
    where
        T: AvroDecode<'b> + serde::Deserialize<'b>,
    {
        let error = self.check_writer(plan.writer());
        BlockRecordsInto {
            records: self.records((), error),
            plan,
        }
    }

    /// The block's records as [`Value`]s, read as the reader reads them (its reader schema or
    /// datum reader). In [`par_blocks`](super::Reader::par_blocks) there is
    /// no reader: use [`records_with`](Self::records_with) with the reading you want.
    pub fn values(
        &mut self,
    ) -> BlockRecords<'b, impl FnMut(&mut Decoder<'b>) -> Result<Value> + '_> {
        let error = self.datum.is_none().then(|| {
            Error::schema(
                "Block::values: a block of `par_blocks` has no datum reader (use `records_with`)",
            )
        });
        let (data, header, limits, in_file) = (self.data, self.header, self.limits, self.in_file);
        let from = (self.start, self.first);
        let mut datum = self.datum.as_deref_mut();
        let read = move |dec: &mut Decoder<'b>| match &mut datum {
            Some(d) => d.read_datum(dec),
            None => Err(Error::schema("Block::values: no datum reader")),
        };
        BlockRecords::new(data, header, from, limits, in_file, read, error)
    }

    /// The error of a plan whose writer schema is not the file's.
    fn check_writer(&self, writer: &Schema) -> Option<Error> {
        (!same_schema(writer, self.schema))
            .then(|| Error::schema("the plan's writer schema is not the file's schema"))
    }
}

/// True when `a` is `b`: the same node of the same arena, or the same canonical form.
fn same_schema(a: &Schema, b: &Schema) -> bool {
    (a.same_arena(b) && a.root_id() == b.root_id()) || a.canonical_form() == b.canonical_form()
}

/// The records of one [`Block`], read by a function from the block's bytes.
///
/// Yields `Result<T>`; after the first error (a malformed record, or records that do not use
/// exactly the block's bytes) it ends.
pub struct BlockRecords<'b, F> {
    data: &'b [u8],
    cur: Current,
    limits: Limits,
    in_file: bool,
    f: F,
    /// An error to give before any record (a plan for another schema).
    error: Option<Error>,
}

impl<'b, F> BlockRecords<'b, F> {
    /// The records of block `header` in `data`, from record `from.1` at byte `from.0` on.
    fn new(
        data: &'b [u8],
        header: BlockHeader,
        (start, first): (usize, u64),
        limits: Limits,
        in_file: bool,
        f: F,
        error: Option<Error>,
    ) -> BlockRecords<'b, F> {
        BlockRecords {
            data,
            cur: Current {
                in_input: false,
                pos: start,
                end: data.len(),
                left: header.count - first,
                record: first,
                header,
                ahead: start,
            },
            limits,
            in_file,
            f,
            error,
        }
    }

    /// Records not read yet.
    pub fn remaining(&self) -> u64 {
        self.cur.left
    }

    /// Reads the next record with `read` (given the decoder at it and the iterator's function),
    /// checking it as every record is checked; `None` after the last record or an error.
    #[inline]
    fn step<T>(
        &mut self,
        read: impl FnOnce(&mut Decoder<'b>, &mut F) -> Result<T>,
    ) -> Option<Result<T>> {
        if let Some(e) = self.error.take() {
            self.cur.left = 0;
            return Some(Err(e));
        }
        if self.cur.left == 0 {
            return None;
        }
        crate::io::read_ahead(self.data, self.cur.pos, &mut self.cur.ahead);
        // Not a copy of the whole `Current`: see `Cursor::read` (the stores of the last
        // record's step would stall it). The error paths read `self.cur`, still as it was.
        let data: &'b [u8] = self.data;
        let mut dec = Decoder::from_slice(&data[self.cur.pos..]).with_limits(self.limits);
        // The result is returned as it came (not taken apart and rebuilt), so that a large `T`
        // is written once, in place, rather than copied out of it and back.
        let v = read(&mut dec, &mut self.f);
        if let Err(e) = v {
            let e = record_error(e, &self.cur, self.in_file);
            self.cur.left = 0;
            return Some(Err(e));
        }
        self.cur.pos += dec.offset() as usize;
        self.cur.left -= 1;
        self.cur.record += 1;
        if self.cur.left == 0 && self.cur.pos != self.cur.end {
            return Some(Err(records_end_early(
                &self.cur.header,
                self.cur.pos,
                self.cur.end,
            )));
        }
        Some(v)
    }
}

/// The records of one [`Block`] read over one value, made by [`Block::codec_into`].
///
/// After the first error (a malformed record, or records that do not use exactly the block's
/// bytes) [`next_into`](Self::next_into) returns `None`.
pub struct BlockRecordsInto<'b, 'p, T> {
    records: BlockRecords<'b, ()>,
    plan: &'p CodecPlan<T>,
}

impl<'b, T> BlockRecordsInto<'b, '_, T>
where
    T: AvroDecode<'b> + serde::Deserialize<'b>,
{
    /// Reads the next record over `value`; `None` after the last record, with `value`
    /// untouched.
    ///
    /// # Errors
    /// A malformed record, with its record index and offset, as
    /// [`BlockRecords`] gives it; `value` then holds a valid value, partly overwritten.
    #[inline]
    pub fn next_into(&mut self, value: &mut T) -> Option<Result<()>> {
        let plan = self.plan;
        self.records.step(|dec, _| plan.decode_into(value, dec))
    }

    /// Records not read yet.
    pub fn remaining(&self) -> u64 {
        self.records.remaining()
    }
}

impl<'b, T, F> Iterator for BlockRecords<'b, F>
where
    F: FnMut(&mut Decoder<'b>) -> Result<T>,
{
    type Item = Result<T>;

    #[inline]
    fn next(&mut self) -> Option<Result<T>> {
        self.step(|dec, f| f(dec))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.cur.left).unwrap_or(usize::MAX);
        (
            n.min(1),
            Some(n.saturating_add(self.error.is_some() as usize)),
        )
    }
}
