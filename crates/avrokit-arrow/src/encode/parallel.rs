//! Blocks compressed on several threads, written in order.
//!
//! The encoded records are cut into blocks by the container writer's own rule (a block ends
//! once its records reach the block size), so the blocks are the ones a single-threaded writer
//! makes. Each thread compresses whole blocks with the core's [`Compressor`] (what the writer
//! runs on a block), and the payloads are handed, in order, to the real writer as raw blocks.
//! The bytes are those of the single-threaded file.

use std::io::Write;

use avrokit::container::{Codec, Compressor, RawBlock, WriterBuilder};

use crate::error::{Error, ErrorKind, Result};

/// Full blocks are compressed once this many per thread are waiting.
const BLOCKS_PER_THREAD: usize = 2;

/// The pending records and full blocks of a parallel writer.
pub(crate) struct Blocks {
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
    /// Blocks for `inner`'s file (its codec).
    pub(crate) fn new<W: Write>(
        inner: &avrokit::container::Writer<W>,
        threads: usize,
    ) -> Result<Blocks> {
        // Checks the codec once, so that no thread meets a bad one.
        Compressor::new(inner.codec())?;
        Ok(Blocks {
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
        let codec = self.codec;
        let compressed: Vec<Result<Vec<Vec<u8>>>> = std::thread::scope(|s| {
            let jobs: Vec<_> = self
                .full
                .chunks(per)
                .map(|chunk| {
                    s.spawn(move || -> Result<Vec<Vec<u8>>> {
                        let mut compressor = Compressor::new(codec)?;
                        chunk
                            .iter()
                            .map(|(data, _)| {
                                let mut payload = Vec::new();
                                compressor.compress(data, &mut payload)?;
                                Ok(payload)
                            })
                            .collect()
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
