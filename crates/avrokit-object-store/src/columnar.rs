//! RecordBatches from remote files and splits (the `arrow` feature): avrokit-arrow's reader
//! over a [`BlockingReader`].

use std::ops::Range;

use arrow_array::RecordBatch;
use futures::Stream;
use tokio::runtime::Handle;

use crate::blocking::BlockingReader;
use crate::error::{Error, Result};
use crate::read::AvroObject;

/// How many decoded batches may wait for the consumer of [`AvroObject::batches`].
const QUEUED_BATCHES: usize = 2;

impl AvroObject {
    /// avrokit-arrow's reader of the whole file, or of the split `range` (the same blocks as
    /// [`split_reader`](Self::split_reader): the reader's `seek_split` over ranged GETs),
    /// for synchronous callers: it blocks on `handle`'s runtime for its bytes (see
    /// [`blocking`](crate::blocking) for where it may run). `builder` sets batch size,
    /// projection, reader schema, threads and limits.
    ///
    /// # Errors
    /// A failing store, a malformed header, a projection or reader schema that does not fit.
    pub fn blocking_batches(
        &self,
        builder: avrokit_arrow::ReaderBuilder,
        range: Option<Range<u64>>,
        handle: Handle,
    ) -> Result<avrokit_arrow::Reader<'static, BlockingReader>> {
        let input = BlockingReader::from_source(self.source().clone(), handle);
        let mut reader = builder.build_seekable(input)?;
        if let Some(r) = range {
            reader.seek_split(r.start, r.end)?;
        }
        Ok(reader)
    }

    /// The file's (or the split `range`'s) RecordBatches as a stream, in file order, ending
    /// after the first error.
    ///
    /// Decoding is CPU work: avrokit-arrow's reader runs on tokio's blocking pool
    /// (`spawn_blocking`), fetching its bytes through the runtime, and hands batches over a
    /// channel holding at most two, so a slow consumer stops the reading rather than piling
    /// up batches. Dropping the stream stops the reader at its next batch. Must be called
    /// inside a tokio runtime.
    pub fn batches(
        &self,
        builder: avrokit_arrow::ReaderBuilder,
        range: Option<Range<u64>>,
    ) -> impl Stream<Item = Result<RecordBatch>> + Send + 'static {
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<RecordBatch>>(QUEUED_BATCHES);
        let file = self.clone();
        let handle = Handle::current();
        tokio::task::spawn_blocking(move || {
            let reader = match file.blocking_batches(builder, range, handle) {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    return;
                }
            };
            for batch in reader {
                let failed = batch.is_err();
                if tx.blocking_send(batch.map_err(Error::from)).is_err() || failed {
                    return;
                }
            }
        });
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (b, rx)) })
    }
}
