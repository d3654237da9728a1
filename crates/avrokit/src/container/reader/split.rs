//! Split reading: restricting a [`Reader`] to the blocks of one byte range.

use std::io::Read;

use super::Reader;
use crate::container::framing::{BlockDecoder, SYNC_SIZE};
use crate::container::{SeekStep, SplitSeeker};
use crate::error::Result;

impl<'a, R: Read> Reader<'a, R> {
    /// Restricts the reader to the blocks of the byte range `[start, end)`: those whose
    /// preceding sync marker starts in the range (see [Split reading](Self#split-reading)).
    /// The reader moves to the first such block; iteration stops at the first block past it.
    ///
    /// A sync marker is recognised by its 16 bytes and confirmed by the block after it being
    /// framed consistently (its size leads to another sync marker, or the file ends right after
    /// the marker), so marker bytes that happen to occur inside data are not taken for one.
    /// (A corrupt block right after a genuine marker is thus indistinguishable from such data:
    /// the range skips it, while reading the whole file reports it.)
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::{Reader, WriterBuilder};
    /// use avrokit::{Schema, Value};
    /// let schema = Schema::parse_str(r#""long""#)?;
    /// let mut w = WriterBuilder::new(&schema).with_block_records(10).build(Vec::new())?;
    /// for i in 0..1000 {
    ///     w.append(&Value::Long(i))?;
    /// }
    /// let file = w.into_inner()?;
    ///
    /// let mut total = 0;
    /// for range in [0..700, 700..1500, 1500..file.len() as u64] {
    ///     let mut r = Reader::from_slice(&file)?;
    ///     r.seek_split(range.start, range.end)?;
    ///     total += r.count();
    /// }
    /// assert_eq!(total, 1000);
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// A reader built over an `io::Read` that cannot seek ([`ReaderBuilder::build`](crate::container::ReaderBuilder::build)), or a
    /// failing reader.
    pub fn seek_split(&mut self, start: u64, end: u64) -> Result<()> {
        self.cur.left = 0;
        self.prefetch.reset();
        self.done = false;
        self.split_end = Some(end);
        let header_marker = self.header.len() - SYNC_SIZE as u64;
        let found = if start <= header_marker {
            // The header's marker is known: never search the header itself, whose metadata
            // may contain the marker bytes (Avro C 1.5.4 wrote them as `avro.sync`).
            Some(header_marker)
        } else {
            self.find_marker(start, end)?
        };
        match found {
            Some(p) if p < end => {
                let at = p + SYNC_SIZE as u64;
                self.input.position(at)?;
                self.framer = BlockDecoder::at(self.header.sync_marker(), at, self.limits);
            }
            _ => self.done = true,
        }
        Ok(())
    }

    /// The first confirmed sync marker starting in `[from, end)`, found by the sans-IO
    /// [`SplitSeeker`] (the one readers that fetch byte ranges use) over positioned reads.
    fn find_marker(&mut self, from: u64, end: u64) -> Result<Option<u64>> {
        let len = self.input.len()?;
        let mut seeker = SplitSeeker::new(
            &self.header,
            &self.schema,
            self.codec,
            self.limits,
            len,
            from,
            end,
        );
        let mut buf = Vec::new();
        loop {
            match seeker.step() {
                SeekStep::Read { offset, len } => {
                    buf.resize(len, 0);
                    let n = self.input.read_at(offset, &mut buf)?;
                    seeker.feed(&buf[..n]);
                }
                SeekStep::Done(first) => return Ok(first.map(|at| at - SYNC_SIZE as u64)),
            }
        }
    }
}
