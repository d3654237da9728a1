//! What a [`Reader`] reads from: a slice, or a buffered stream that may seek.

use std::io::{self, Read, SeekFrom};

use crate::error::{Error, ErrorKind, Result};
use crate::io::{ReaderSource, Source};

pub(super) type SeekFn<R> = fn(&mut R, SeekFrom) -> io::Result<u64>;

/// The first size of a stream's buffer: a small file costs no large buffer, and a large one
/// reaches the full capacity after a few reads that fill it.
pub(super) const FIRST_BUFFER: usize = 8 * 1024;

/// An `io::Read` through the io module's buffered [`ReaderSource`], and an optional way to
/// seek it.
pub(super) struct Stream<R> {
    /// Its buffer starts at `FIRST_BUFFER` (or `capacity`) and grows up to `capacity`.
    src: ReaderSource<R>,
    seek: Option<SeekFn<R>>,
    /// True once `read_at` or `len` has moved the inner reader away from where `src` is.
    displaced: bool,
}

impl<R: Read> Stream<R> {
    pub(super) fn new(inner: R, capacity: usize, seek: Option<SeekFn<R>>) -> Stream<R> {
        Stream {
            src: ReaderSource::with_growing_capacity(FIRST_BUFFER, capacity, inner),
            seek,
            displaced: false,
        }
    }

    /// The bytes buffered, reading more when none is left: empty at the end of the input.
    #[inline]
    pub(super) fn fill_buf(&mut self) -> Result<&[u8]> {
        self.src.fill_buf()
    }

    /// Marks `n` buffered bytes as read.
    #[inline]
    pub(super) fn consume(&mut self, n: usize) {
        self.src.consume(n);
    }

    fn seek_fn(&self) -> Result<SeekFn<R>> {
        self.seek.ok_or_else(|| {
            Error::new(
                ErrorKind::Container,
                "split reading needs a slice or a seekable reader (ReaderBuilder::build_seekable)",
            )
        })
    }

    pub(super) fn len(&mut self) -> Result<u64> {
        let seek = self.seek_fn()?;
        self.displaced = true;
        seek(self.src.get_mut(), SeekFrom::End(0)).map_err(Error::io)
    }

    /// Reads at `offset` until `out` is full or the input ends; leaves the stream anywhere
    /// (call `position` afterwards).
    pub(super) fn read_at(&mut self, offset: u64, out: &mut [u8]) -> Result<usize> {
        let seek = self.seek_fn()?;
        self.displaced = true;
        let inner = self.src.get_mut();
        seek(inner, SeekFrom::Start(offset)).map_err(Error::io)?;
        let mut n = 0;
        while n < out.len() {
            match inner.read(&mut out[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(e).or_offset(offset + n as u64)),
            }
        }
        Ok(n)
    }

    /// Continues reading from `offset`.
    pub(super) fn position(&mut self, offset: u64) -> Result<()> {
        if !self.displaced && self.src.offset() == offset {
            // Already there (say, the first split of a stream that cannot seek): no seek.
            return Ok(());
        }
        let seek = self.seek_fn()?;
        seek(self.src.get_mut(), SeekFrom::Start(offset)).map_err(Error::io)?;
        self.src.restart_at(offset);
        self.displaced = false;
        Ok(())
    }
}

pub(super) enum Input<'a, R> {
    Slice { data: &'a [u8], pos: usize },
    Stream(Stream<R>),
}

impl<R: Read> Input<'_, R> {
    pub(super) fn len(&mut self) -> Result<u64> {
        match self {
            Input::Slice { data, .. } => Ok(data.len() as u64),
            Input::Stream(s) => s.len(),
        }
    }

    pub(super) fn read_at(&mut self, offset: u64, out: &mut [u8]) -> Result<usize> {
        match self {
            Input::Slice { data, .. } => {
                let start = (offset.min(data.len() as u64)) as usize;
                let n = out.len().min(data.len() - start);
                out[..n].copy_from_slice(&data[start..start + n]);
                Ok(n)
            }
            Input::Stream(s) => s.read_at(offset, out),
        }
    }

    pub(super) fn position(&mut self, offset: u64) -> Result<()> {
        match self {
            Input::Slice { data, pos } => {
                *pos = (offset.min(data.len() as u64)) as usize;
                Ok(())
            }
            Input::Stream(s) => s.position(offset),
        }
    }
}
