//! Blocks as stored in the file, taken without decoding them: [`RawBlock`].

use std::io::Read;

use super::checks::block_error;
use super::input::Input;
use super::records::BlockDecoding;
use super::Reader;
use crate::container::codec::{Codec, Decompressor};
use crate::container::framing::BlockHeader;
use crate::error::Result;
use crate::io::Limits;
use crate::schema::Schema;
use crate::value::{read_value, Value};

/// A data block as stored in the file: its framing and its (possibly compressed) payload.
///
/// Returned by [`Reader::next_raw_block`], for tools that count, copy or inspect blocks
/// without decoding them; [`Writer::append_raw_block`](crate::container::Writer::append_raw_block) writes
/// one into another file of the same codec and schema.
#[derive(Debug, Clone, Copy)]
pub struct RawBlock<'r> {
    header: BlockHeader,
    data: &'r [u8],
    codec: Codec,
}

impl<'r> RawBlock<'r> {
    /// A raw block of `count` objects whose payload, compressed with `codec`, is `data`.
    pub fn new(count: u64, data: &'r [u8], codec: Codec) -> RawBlock<'r> {
        RawBlock {
            header: BlockHeader {
                index: 0,
                offset: 0,
                count,
                size: data.len() as u64,
                data_offset: 0,
            },
            data,
            codec,
        }
    }

    /// The block's framing: index, file offset, object count, payload size.
    pub fn header(&self) -> &BlockHeader {
        &self.header
    }

    /// The number of objects in the block.
    pub fn count(&self) -> u64 {
        self.header.count
    }

    /// The payload as stored: compressed with [`codec`](Self::codec), without the sync marker.
    pub fn data(&self) -> &'r [u8] {
        self.data
    }

    /// The codec the payload is compressed with.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// Decompresses the payload into `out` (replacing its contents), never beyond
    /// `limits.max_alloc` bytes.
    ///
    /// # Errors
    /// A disabled codec, corrupt compressed data, or output over the limit.
    pub fn decompress_into(&self, out: &mut Vec<u8>, limits: &Limits) -> Result<()> {
        Decompressor::new(self.codec)?
            .decompress(self.data, out, limits.max_alloc)
            .map_err(|e| block_error(e, &self.header))
    }

    /// Decodes the block's records with `schema` (the file's schema), with the checks a
    /// [`Reader`] makes. A block owns everything it needs, so blocks taken from one reader can
    /// be decoded on several threads.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Codec, Reader, WriterBuilder};
    /// use avrokit::{Limits, Schema, Value};
    /// let schema = Schema::parse_str(r#""int""#)?;
    /// let mut w = WriterBuilder::new(&schema).with_codec(Codec::Snappy).with_block_records(2).build(Vec::new())?;
    /// for i in 0..5 {
    ///     w.append(&Value::Int(i))?;
    /// }
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let mut blocks = Vec::new();
    /// while let Some(b) = r.next_raw_block()? {
    ///     blocks.push((b.count(), b.data().to_vec()));
    /// }
    /// let decoded: Vec<Vec<Value>> = std::thread::scope(|s| {
    ///     let handles: Vec<_> = blocks
    ///         .iter()
    ///         .map(|(n, data)| s.spawn(|| {
    ///             avrokit::container::RawBlock::new(*n, data, Codec::Snappy)
    ///                 .decode(&schema, &Limits::default())
    ///         }))
    ///         .collect();
    ///     handles.into_iter().map(|h| h.join().unwrap()).collect::<Result<_, _>>()
    /// })?;
    /// assert_eq!(decoded.concat(), (0..5).map(Value::Int).collect::<Vec<_>>());
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`decompress_into`](Self::decompress_into), a count its bytes cannot hold,
    /// malformed records, or records that do not use exactly the block's bytes.
    pub fn decode(&self, schema: &Schema, limits: &Limits) -> Result<Vec<Value>> {
        let mut out = Vec::new();
        BlockDecoding::new(self.codec, schema.min_encoded_size(), *limits)?.decode(
            &self.header,
            self.data,
            &mut out,
            |dec| read_value(dec, schema),
        )?;
        Ok(out)
    }
}

impl<'a, R: Read> Reader<'a, R> {
    /// Reads the next block without decoding or decompressing it. Records of the current block
    /// not read yet are skipped. `None` at the end of the file (or split).
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, WriterBuilder};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""int""#)?;
    /// let mut w = WriterBuilder::new(&schema).with_block_records(2).build(Vec::new())?;
    /// for i in 0..5 {
    ///     w.append(&Value::Int(i))?;
    /// }
    /// let file = w.into_inner()?;
    /// let mut r = Reader::from_slice(&file)?;
    /// let mut counts = Vec::new();
    /// while let Some(block) = r.next_raw_block()? {
    ///     counts.push(block.count());
    /// }
    /// assert_eq!(counts, [2, 2, 1]);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A corrupt or truncated block framing (sync marker, sizes). The payload is not checked.
    pub fn next_raw_block(&mut self) -> Result<Option<RawBlock<'_>>> {
        self.cur.left = 0;
        if self.prefetch.has_block() {
            // The block after the current one was read ahead for decompression: it is next.
            match self.prefetch.take_raw() {
                Ok(Some((header, payload))) => {
                    self.raw = payload;
                    return Ok(Some(RawBlock {
                        header,
                        data: &self.raw,
                        codec: self.codec,
                    }));
                }
                Ok(None) => {}
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            }
        }
        let frame = match self.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => {
                self.done = true;
                return Ok(None);
            }
            Err(e) => {
                self.done = true;
                return Err(e);
            }
        };
        let (header, range) = frame;
        let data: &[u8] = match (&self.input, range) {
            (Input::Slice { data, .. }, Some((a, b))) => &data[a..b],
            _ => &self.raw,
        };
        Ok(Some(RawBlock {
            header,
            data,
            codec: self.codec,
        }))
    }
}
