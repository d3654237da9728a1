//! [`AsyncWriter`]: container files to a `tokio::io::AsyncWrite`.

use std::fmt;
use std::future::poll_fn;
use std::pin::Pin;
use std::task::Poll;

use tokio::io::AsyncWrite;

use crate::container::framing::SYNC_SIZE;
use crate::container::writer::poisoned_error;
use crate::container::{Codec, Writer, WriterBuilder, WriterTemplate};
use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::schema::Schema;
use crate::serde::SerPlan;
use crate::value::Value;

/// Writes an Avro object container file to a [`tokio::io::AsyncWrite`].
///
/// Records are encoded and blocks compressed by the blocking [`Writer`] itself, into an
/// in-memory staging buffer that receives whole blocks only; this writer then sends those
/// bytes to the sink. So the two writers share every line of the encoding, blocking and
/// compression code and write the same bytes, and the guarantees carry over:
///
/// - **A failed write poisons the writer.** Any sink error (a failing `poll_write`,
///   `poll_flush` or `poll_shutdown`, or a `poll_write` returning `Ok(0)`) is returned by the
///   call that wrote, and every later call fails, whatever the sink does next.
/// - **`Interrupted` is retried**, and short writes are continued.
/// - **What reached the sink reads back as whole blocks**: a reader returns the records of the
///   complete blocks in it and then reports the end of input inside the next one
///   ([`ErrorKind::Eof`]); it never misreads a partial block.
/// - **[`finish`](Self::finish) is explicit**, and only it makes the file complete.
/// - **Cancellation is safe**: a call whose future is dropped while it waits on the sink
///   keeps what it sent; the next call continues from the first byte not yet sent.
///
/// # The last sync marker, and dropping without `finish`
/// Every block (and the header) ends with the file's 16-byte sync marker. This writer holds
/// the marker of the last block it wrote back until the next block or `finish`, so the sink
/// of a writer without errors always ends 16 bytes short of a complete file until `finish`
/// sends them. (After a sink error the sink may end anywhere, a block boundary included, as
/// with the blocking writer: the error is what tells.) A writer cannot
/// write when it is dropped (that would need an `.await`), so dropping it without `finish`
/// loses the records not yet written as a block, and leaves the sink *visibly* incomplete:
/// readers return the records of every block but the last one, then an
/// [`ErrorKind::Eof`] error in its sync marker. A file cut at a block boundary cannot be told
/// from a shorter complete one, and that is why the marker is held: an unfinished file never
/// looks finished.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> avrokit::Result<()> {
/// use avrokit::container::{Codec, Reader, WriterBuilder};
/// use avrokit::{Schema, Value};
/// let schema = Schema::parse_str(r#""long""#)?;
/// let mut w = WriterBuilder::new(&schema)
///     .with_codec(Codec::Snappy)
///     .build_async(Vec::new()) // any tokio::io::AsyncWrite + Unpin
///     .await?;
/// for i in 0..3 {
///     w.append(&Value::Long(i)).await?;
/// }
/// let file = w.finish().await?;
/// let back = Reader::from_slice(&file)?.collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(back, [Value::Long(0), Value::Long(1), Value::Long(2)]);
/// # Ok(())
/// # }
/// ```
pub struct AsyncWriter<W> {
    /// The blocking writer over the staging buffer: header and whole blocks, of which all but
    /// the last `SYNC_SIZE` bytes (once sent) have been sent.
    inner: Writer<Vec<u8>>,
    sink: W,
    /// How many bytes at the front of the staging buffer already reached the sink (kept in
    /// the writer, not the future, so that a `send` cancelled half-way resumes where it was
    /// instead of sending bytes twice).
    sent: usize,
    /// Bytes that reached the sink.
    written: u64,
    poisoned: bool,
}

impl WriterBuilder {
    /// Writes the header to `sink` and returns an [`AsyncWriter`] (see
    /// [`build`](Self::build) for the options).
    ///
    /// # Errors
    /// As [`build`](Self::build): a reserved or repeated metadata key, a codec that is not
    /// enabled or has a bad level, or a failing sink (which poisons nothing: there is no
    /// writer yet).
    pub async fn build_async<W: AsyncWrite + Unpin>(self, sink: W) -> Result<AsyncWriter<W>> {
        self.template()?.build_async(sink).await
    }
}

impl WriterTemplate {
    /// Writes the header to `sink` and returns an [`AsyncWriter`] (see
    /// [`build`](Self::build)).
    ///
    /// # Errors
    /// A failing sink.
    pub async fn build_async<W: AsyncWrite + Unpin>(&self, sink: W) -> Result<AsyncWriter<W>> {
        let mut w = AsyncWriter {
            inner: self.build(Vec::new())?,
            sink,
            sent: 0,
            written: 0,
            poisoned: false,
        };
        w.send(false).await.map_err(|e| {
            Error::with_source(
                ErrorKind::Io,
                format!("writing the container header failed: {e}"),
                e,
            )
        })?;
        Ok(w)
    }
}

impl<W: AsyncWrite + Unpin> AsyncWriter<W> {
    /// The schema records are written with.
    pub fn schema(&self) -> &Schema {
        self.inner.schema()
    }

    /// The codec of the file's blocks.
    pub fn codec(&self) -> Codec {
        self.inner.codec()
    }

    /// The file's sync marker.
    pub fn sync_marker(&self) -> [u8; SYNC_SIZE] {
        self.inner.sync_marker()
    }

    /// Bytes that reached the sink so far. Until [`finish`](Self::finish), the last block's
    /// sync marker is held back, so this is 16 bytes short of a block boundary.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// Blocks written so far (to the staging buffer: all but the last reached the sink).
    pub fn blocks_written(&self) -> u64 {
        self.inner.blocks_written()
    }

    /// Records appended but not yet written as a block.
    pub fn pending_records(&self) -> u64 {
        self.inner.pending_records()
    }

    /// True after a sink error: nothing more can be written.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        &self.sink
    }

    /// Appends one record, checked against the schema; a full block is sent to the sink.
    ///
    /// # Errors
    /// As [`Writer::append`]; a sink error poisons the writer.
    pub async fn append(&mut self, value: &Value) -> Result<()> {
        self.check_poisoned()?;
        self.inner.append(value)?;
        self.send(false).await
    }

    /// Appends one serde value through `plan` (see [`Writer::append_serde`]).
    ///
    /// # Errors
    /// As [`Writer::append_serde`]; a sink error poisons the writer.
    pub async fn append_serde<T: serde::Serialize + ?Sized>(
        &mut self,
        value: &T,
        plan: &SerPlan,
    ) -> Result<()> {
        self.check_poisoned()?;
        self.inner.append_serde(value, plan)?;
        self.send(false).await
    }

    /// Appends one record encoded by `f` (see [`Writer::append_with`]).
    ///
    /// # Errors
    /// As [`Writer::append_with`]; a sink error poisons the writer.
    pub async fn append_with(
        &mut self,
        f: impl FnOnce(&mut Encoder<&mut Vec<u8>>) -> Result<()>,
    ) -> Result<()> {
        self.check_poisoned()?;
        self.inner.append_with(f)?;
        self.send(false).await
    }

    /// Appends one record already encoded with the file's schema (not checked).
    ///
    /// # Errors
    /// A poisoned writer or a sink error.
    pub async fn append_encoded(&mut self, datum: &[u8]) -> Result<()> {
        self.check_poisoned()?;
        self.inner.append_encoded(datum)?;
        self.send(false).await
    }

    /// Writes the pending records as a block, sends it and flushes the sink. The last sync
    /// marker is still held back: only [`finish`](Self::finish) completes the file.
    ///
    /// # Errors
    /// A poisoned writer, a compression error, or a sink error (which poisons the writer).
    pub async fn flush(&mut self) -> Result<()> {
        self.check_poisoned()?;
        self.inner.flush()?;
        self.send(false).await?;
        self.flush_sink().await
    }

    /// Writes the pending records, sends the rest of the file (the held-back sync marker
    /// included), flushes the sink, shuts it down (`poll_shutdown`: for an object store's
    /// upload writer, this is what completes the upload) and returns it.
    ///
    /// # Errors
    /// As [`flush`](Self::flush), and a failing shutdown.
    pub async fn finish(mut self) -> Result<W> {
        self.check_poisoned()?;
        self.inner.flush()?;
        self.send(true).await?;
        self.flush_sink().await?;
        let sink = &mut self.sink;
        let r = poll_fn(|cx| retrying(|| Pin::new(&mut *sink).poll_shutdown(cx))).await;
        self.account(r.map(|()| 0), "shutting the sink down")?;
        Ok(self.sink)
    }

    fn check_poisoned(&self) -> Result<()> {
        if self.poisoned {
            return Err(poisoned_error());
        }
        Ok(())
    }

    /// Sends the staged bytes, all of them (`all`) or all but the last sync marker.
    async fn send(&mut self, all: bool) -> Result<()> {
        let keep = if all { 0 } else { SYNC_SIZE };
        let staged = self.inner.sink_mut();
        let (sink, sent, written) = (&mut self.sink, &mut self.sent, &mut self.written);
        let r = poll_fn(|cx| {
            while *sent + keep < staged.len() {
                let upto = staged.len() - keep;
                match retrying(|| Pin::new(&mut *sink).poll_write(cx, &staged[*sent..upto])) {
                    Poll::Ready(Ok(0)) => {
                        return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()))
                    }
                    Poll::Ready(Ok(n)) => {
                        *sent += n;
                        *written += n as u64;
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
            Poll::Ready(Ok(()))
        })
        .await;
        if r.is_ok() {
            staged.drain(..*sent);
            *sent = 0;
        }
        self.account(r.map(|()| 0), "writing to the sink")
    }

    async fn flush_sink(&mut self) -> Result<()> {
        let sink = &mut self.sink;
        let r = poll_fn(|cx| retrying(|| Pin::new(&mut *sink).poll_flush(cx))).await;
        self.account(r.map(|()| 0), "flushing the sink")
    }

    /// Counts bytes sent, or poisons the writer on an error.
    fn account(&mut self, r: std::io::Result<usize>, what: &str) -> Result<()> {
        match r {
            Ok(n) => {
                self.written += n as u64;
                Ok(())
            }
            Err(e) => {
                self.poisoned = true;
                Err(Error::with_source(
                    ErrorKind::Io,
                    format!(
                        "{what} failed at byte {} of the file: {e}; the writer is poisoned and the output may end inside a block",
                        self.written
                    ),
                    e,
                ))
            }
        }
    }
}

/// Calls `f` again while it returns `Interrupted`.
fn retrying<T>(mut f: impl FnMut() -> Poll<std::io::Result<T>>) -> Poll<std::io::Result<T>> {
    loop {
        match f() {
            Poll::Ready(Err(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

impl<W> fmt::Debug for AsyncWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncWriter")
            .field("inner", &self.inner)
            .field("bytes_written", &self.written)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}
