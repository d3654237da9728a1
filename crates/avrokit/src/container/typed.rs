//! Container files of codec types ([`crate::codec`]): records read and written by the code
//! `#[derive(AvroSchema)]` generates, through a [`CodecPlan`] compiled once per file.

use std::io::{Read, Write};

use super::{Reader, Writer};
use crate::codec::{AvroDecodeOwned, AvroEncode, CodecPlan};
use crate::error::{Error, Result};
use crate::serde::AvroSchema;

impl<'a, R: Read> Reader<'a, R> {
    /// A plan reading this file's records into `T`: `T`'s generated code, exactly when the
    /// file's schema is `T`'s own (by canonical form), else through a resolution compiled here
    /// (see [`CodecPlan`]). Compiled once, for [`next_codec`](Self::next_codec).
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`](crate::ErrorKind) when the file's schema cannot be read as
    /// `T`'s.
    pub fn codec_plan<T: AvroSchema + crate::codec::AvroDecode<'static>>(
        &self,
    ) -> Result<CodecPlan<T>> {
        CodecPlan::reading(self.schema())
    }

    /// Reads the next record as a `T` through `plan`; `None` at the end of the file (or of
    /// the split). Strings and bytes are copied out of the block.
    ///
    /// `plan` must be compiled for this file ([`codec_plan`](Self::codec_plan) or
    /// `CodecPlan::reading(r.schema())`), so that the check is a pointer compare (a plan from
    /// another parse of the same schema is compared by canonical form once).
    ///
    /// # Examples
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use avrokit::container::{Reader, WriterBuilder};
    /// use avrokit::codec::CodecPlan;
    /// use avrokit::AvroSchema;
    /// #[derive(AvroSchema, serde::Deserialize, Debug, PartialEq)]
    /// struct P { x: i64, tag: Option<String> }
    ///
    /// let mut w = WriterBuilder::new(&P::schema()).build(Vec::new())?;
    /// let plan = CodecPlan::<P>::reading(w.schema())?;
    /// w.append_codec(&P { x: 1, tag: None }, &plan)?;
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let plan = r.codec_plan::<P>()?;
    /// assert_eq!(r.next_codec(&plan).transpose()?, Some(P { x: 1, tag: None }));
    /// assert!(r.next_codec(&plan).is_none());
    /// # }
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A plan for another writer schema ([`ErrorKind::Schema`](crate::ErrorKind)), a corrupt
    /// or truncated file, or data the type cannot hold, with the block and record named.
    pub fn next_codec<T>(&mut self, plan: &CodecPlan<T>) -> Option<Result<T>>
    where
        T: AvroDecodeOwned + serde::de::DeserializeOwned,
    {
        if !self.is_file_schema(plan.writer()) {
            return Some(Err(Error::schema(
                "next_codec: the plan's writer schema is not the file's schema",
            )));
        }
        self.next_with(|dec| plan.decode(dec))
    }

    /// Reads the next record over `value` through `plan`, reusing its strings, vectors and
    /// nested values (Java's `DataFileReader.next(reuse)`); `None` at the end of the file (or
    /// of the split), with `value` untouched. The plan may resolve another writer schema: its
    /// defaults are read into the fields they replace too.
    ///
    /// `plan` must be compiled for this file, as for [`next_codec`](Self::next_codec).
    ///
    /// # Examples
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use avrokit::container::{Reader, WriterBuilder};
    /// use avrokit::codec::CodecPlan;
    /// use avrokit::AvroSchema;
    /// #[derive(AvroSchema, serde::Deserialize, Debug, PartialEq, Default)]
    /// struct P { x: i64, tags: Vec<String> }
    ///
    /// let mut w = WriterBuilder::new(&P::schema()).build(Vec::new())?;
    /// let plan = CodecPlan::<P>::reading(w.schema())?;
    /// for x in 0..3 {
    ///     w.append_codec(&P { x, tags: vec!["t".repeat(x as usize)] }, &plan)?;
    /// }
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let plan = r.codec_plan::<P>()?;
    /// let mut p = P::default();
    /// let mut sum = 0;
    /// while let Some(read) = r.next_codec_into(&plan, &mut p) {
    ///     read?;
    ///     sum += p.x;
    /// }
    /// assert_eq!((sum, p.tags), (3, vec!["tt".to_owned()]));
    /// # }
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`next_codec`](Self::next_codec); `value` then holds a valid value, partly
    /// overwritten.
    pub fn next_codec_into<T>(&mut self, plan: &CodecPlan<T>, value: &mut T) -> Option<Result<()>>
    where
        T: AvroDecodeOwned + serde::de::DeserializeOwned,
    {
        if !self.is_file_schema(plan.writer()) {
            return Some(Err(Error::schema(
                "next_codec_into: the plan's writer schema is not the file's schema",
            )));
        }
        self.next_with(|dec| plan.decode_into(value, dec))
    }

    /// An iterator over the remaining records as `T`s, through a plan compiled here once
    /// (see [`next_codec`](Self::next_codec)).
    ///
    /// # Errors
    /// [`ErrorKind::Resolution`](crate::ErrorKind) when the file's schema cannot be read as
    /// `T`'s; then the iterator's items are the errors of [`next_codec`](Self::next_codec).
    pub fn codec_iter<'r, T>(
        &'r mut self,
    ) -> Result<impl Iterator<Item = Result<T>> + use<'r, 'a, R, T>>
    where
        T: AvroSchema + AvroDecodeOwned + serde::de::DeserializeOwned,
    {
        let plan = self.codec_plan::<T>()?;
        Ok(std::iter::from_fn(move || {
            self.next_with(|dec| plan.decode(dec))
        }))
    }

    /// As [`codec_iter`](Self::codec_iter), owning the reader.
    ///
    /// # Errors
    /// As [`codec_iter`](Self::codec_iter).
    pub fn into_codec_iter<T>(mut self) -> Result<impl Iterator<Item = Result<T>> + use<'a, R, T>>
    where
        T: AvroSchema + AvroDecodeOwned + serde::de::DeserializeOwned,
    {
        let plan = self.codec_plan::<T>()?;
        Ok(std::iter::from_fn(move || {
            self.next_with(|dec| plan.decode(dec))
        }))
    }
}

impl<W: Write> Writer<W> {
    /// Appends one record written by `T`'s generated code straight into the block buffer.
    ///
    /// `plan` must be an exact plan for this file's schema: `CodecPlan::reading(w.schema())`
    /// (a pointer compare per record) on a file created with `T`'s schema.
    ///
    /// # Errors
    /// A plan of another schema, or one that is not exact ([`ErrorKind::Schema`](crate::ErrorKind));
    /// the errors of [`AvroEncode::encode`] (nothing of the record is kept); a poisoned writer
    /// or a sink error while writing a full block.
    pub fn append_codec<T: AvroEncode>(&mut self, value: &T, plan: &CodecPlan<T>) -> Result<()> {
        if !plan.is_exact() || !self.is_file_schema(plan.writer()) {
            return Err(Error::schema(
                "append_codec: the plan is not the file's schema as the type's own",
            ));
        }
        self.append_with(|enc| value.encode(enc))
    }
}
