//! Blocks compressed on several threads, written in order.
//!
//! The encoded records are cut into blocks by the container writer's own rule (a block ends
//! once its records reach the block size), so the blocks are the ones a single-threaded writer
//! makes. Each thread compresses whole blocks with a container writer of the same codec and
//! sync marker into memory (its one-block file is the header, then the block); the payload is
//! taken from there and handed, in order, to the real writer as a raw block. The bytes are
//! those of the single-threaded file.

use std::io::Write;

use avrokit::container::{Codec, RawBlock, WriterBuilder, WriterTemplate};

use crate::error::{Error, ErrorKind, Result};

/// Full blocks are compressed once this many per thread are waiting.
const BLOCKS_PER_THREAD: usize = 2;

/// The pending records and full blocks of a parallel writer.
pub(crate) struct Blocks {
    template: WriterTemplate,
    codec: Codec,
    threads: usize,
    block_size: usize,
    /// Encoded records of the block being filled, and their count.
    current: Vec<u8>,
    count: u64,
    /// Full blocks waiting to be compressed: encoded records and count.
    full: Vec<(Vec<u8>, u64)>,
}

impl Blocks {
    /// Blocks for `inner`'s file (its schema, codec, sync marker).
    pub(crate) fn new<W: Write>(
        inner: &avrokit::container::Writer<W>,
        threads: usize,
    ) -> Result<Blocks> {
        let template = WriterBuilder::new(inner.schema())
            .with_codec(inner.codec())
            .with_sync_marker(inner.sync_marker())
            .template()?;
        Ok(Blocks {
            template,
            codec: inner.codec(),
            threads,
            block_size: WriterBuilder::DEFAULT_BLOCK_SIZE,
            current: Vec::new(),
            count: 0,
            full: Vec::new(),
        })
    }

    /// Adds the records of `buf` (ending at `ends`); writes blocks once enough are full.
    pub(crate) fn append<W: Write>(
        &mut self,
        buf: &[u8],
        ends: &[usize],
        inner: &mut avrokit::container::Writer<W>,
    ) -> Result<()> {
        let mut start = 0;
        for &end in ends {
            self.current.extend_from_slice(&buf[start..end]);
            self.count += 1;
            start = end;
            if self.current.len() >= self.block_size {
                let block = std::mem::take(&mut self.current);
                self.full.push((block, self.count));
                self.count = 0;
            }
        }
        if self.full.len() >= self.threads * BLOCKS_PER_THREAD {
            self.flush(inner)?;
        }
        Ok(())
    }

    /// Writes every pending record.
    pub(crate) fn finish<W: Write>(
        &mut self,
        inner: &mut avrokit::container::Writer<W>,
    ) -> Result<()> {
        if self.count > 0 {
            let block = std::mem::take(&mut self.current);
            self.full.push((block, self.count));
            self.count = 0;
        }
        self.flush(inner)
    }

    /// Compresses the full blocks on the threads and writes them in order.
    fn flush<W: Write>(&mut self, inner: &mut avrokit::container::Writer<W>) -> Result<()> {
        if self.full.is_empty() {
            return Ok(());
        }
        let per = self.full.len().div_ceil(self.threads);
        let template = &self.template;
        let compressed: Vec<Result<Vec<Vec<u8>>>> = std::thread::scope(|s| {
            let jobs: Vec<_> = self
                .full
                .chunks(per)
                .map(|chunk| {
                    s.spawn(move || {
                        chunk
                            .iter()
                            .map(|(data, _)| compress(template, data))
                            .collect::<Result<Vec<_>>>()
                    })
                })
                .collect();
            jobs.into_iter()
                .map(|j| {
                    j.join().unwrap_or_else(|_| {
                        Err(Error::new(ErrorKind::Io, "a compression thread panicked"))
                    })
                })
                .collect()
        });
        let mut counts = self.full.iter().map(|(_, n)| *n);
        for payloads in compressed {
            for payload in payloads? {
                let count = counts.next().unwrap_or(0);
                inner.append_raw_block(&RawBlock::new(count, &payload, self.codec))?;
            }
        }
        self.full.clear();
        Ok(())
    }
}

/// The compressed payload of the block of records `data`: a one-block file is written into
/// memory, and the payload cut out of it (after the header, the block's count and size).
fn compress(template: &WriterTemplate, data: &[u8]) -> Result<Vec<u8>> {
    let mut w = template.build(Vec::new())?;
    w.append_encoded(data)?;
    let file = w.into_inner()?;
    let head = template.header_without_sync_marker().len() + 16;
    let mut rest = file.get(head..).unwrap_or_default();
    let _count = read_long(&mut rest)?;
    let size = usize::try_from(read_long(&mut rest)?).unwrap_or(usize::MAX);
    rest.get(..size)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| Error::new(ErrorKind::Io, "a compressed block is shorter than its size"))
}

/// A zigzag varint from the front of `bytes`.
fn read_long(bytes: &mut &[u8]) -> Result<i64> {
    let mut value: u64 = 0;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes
            .split_first()
            .ok_or_else(|| Error::new(ErrorKind::Io, "a block header ends early"))?;
        *bytes = rest;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok((value >> 1) as i64 ^ -((value & 1) as i64));
        }
    }
    Err(Error::new(
        ErrorKind::Io,
        "a block header's varint is too long",
    ))
}
