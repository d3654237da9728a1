//! Blocking adapters for synchronous code (a command-line tool, the columnar reader's
//! threads): [`BlockingReader`] (`Read + Seek` over ranged GETs) and [`BlockingUpload`]
//! (`Write` into a multipart upload). Both run their requests on a tokio runtime given by its
//! [`Handle`]; they block the calling thread, so call them from plain threads or
//! `spawn_blocking`, never from inside an async task (tokio panics on that).

use std::fmt;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use object_store::path::Path;
use object_store::{ObjectStore, PutResult};
use tokio::io::AsyncReadExt;
use tokio::runtime::Handle;

use crate::error::{Error, ErrorKind, Result};
use crate::read::ObjectReaderBuilder;
use crate::source::{RangeReader, Source};
use crate::upload::{Upload, UploadOptions};

/// An object as `Read + Seek`: sequential reads are served by a [`RangeReader`] (growing
/// GETs with read-ahead, which runs on the runtime while the caller works on what it got);
/// a seek elsewhere drops it, cancelling its fetches, and the next read starts a new one
/// with a small first GET. So the core's `ReaderBuilder::build_seekable` and `seek_split`,
/// and avrokit-arrow's reader, read remote files unchanged.
pub struct BlockingReader {
    src: Arc<Source>,
    handle: Handle,
    pos: u64,
    reader: Option<RangeReader>,
    /// The next GETs ask for the rest of the object at once ([`BlockingReader::with_whole_reads`]).
    whole: bool,
}

impl BlockingReader {
    /// HEADs the object at `path` and returns a reader at its start, with `options`'
    /// chunking, read-ahead and timeouts (its limits and schemas are not used here).
    ///
    /// # Errors
    /// A missing object, a failing store, or no answer within the timeout.
    pub fn open(
        store: Arc<dyn ObjectStore>,
        path: &Path,
        options: &ObjectReaderBuilder,
        handle: Handle,
    ) -> Result<BlockingReader> {
        let fetch = options.fetch_options();
        let src = handle.block_on(Source::open(store, path.clone(), fetch))?;
        Ok(BlockingReader::from_source(Arc::new(src), handle))
    }

    pub(crate) fn from_source(src: Arc<Source>, handle: Handle) -> BlockingReader {
        BlockingReader {
            src,
            handle,
            pos: 0,
            reader: None,
            whole: false,
        }
    }

    /// Makes the first read ask for everything from its position to the end of the object
    /// at once (one streamed GET, when that is at most the chunk size), rather than GETs that
    /// start at 256 KiB and double: for a caller that reads the object through, such as the
    /// core's sequential `Reader` or avrokit-arrow's `build`, a HEAD and one GET in all, as
    /// [`ObjectReaderBuilder::open_reader`] does. The GET stays at most the buffer size ahead
    /// of the reads (8 MiB by default). A seek elsewhere drops it; reads after the seek start
    /// small again.
    #[must_use]
    pub fn with_whole_reads(mut self) -> BlockingReader {
        self.whole = true;
        self
    }

    /// The object's size.
    pub fn len(&self) -> u64 {
        self.src.len()
    }

    /// True for an empty object.
    pub fn is_empty(&self) -> bool {
        self.src.len() == 0
    }
}

impl Read for BlockingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.pos >= self.src.len() {
            return Ok(0);
        }
        let (src, pos) = (&self.src, self.pos);
        let whole = &mut self.whole;
        let reader = self.reader.get_or_insert_with(|| {
            if std::mem::take(whole) {
                RangeReader::sized(src.clone(), pos..src.len(), src.len() - pos)
            } else {
                RangeReader::new(src.clone(), pos..src.len())
            }
        });
        let n = self.handle.block_on(reader.read(buf));
        match n {
            Ok(n) => {
                self.pos += n as u64;
                Ok(n)
            }
            Err(e) => {
                self.reader = None;
                Err(e)
            }
        }
    }
}

impl Seek for BlockingReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let len = self.src.len() as i128;
        let target = match to {
            SeekFrom::Start(n) => n as i128,
            SeekFrom::End(d) => len + d as i128,
            SeekFrom::Current(d) => self.pos as i128 + d as i128,
        };
        if target < 0 || target > u64::MAX as i128 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("seek to {target}, outside the object"),
            ));
        }
        let target = target as u64;
        if target != self.pos {
            self.reader = None;
            self.whole = false;
            self.pos = target;
        }
        Ok(self.pos)
    }
}

impl fmt::Debug for BlockingReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockingReader")
            .field("source", &self.src)
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

/// An object written through a multipart upload, as `Write`: parts upload on the runtime as
/// they fill (at most `max_concurrency` at once, the writer waiting beyond that), the object
/// appears whole at [`commit`](Self::commit), and a writer that fails or is dropped without
/// committing aborts the upload (dropping waits for the abort, within the timeout).
pub struct BlockingUpload {
    upload: Option<Upload>,
    handle: Handle,
    what: String,
}

impl BlockingUpload {
    /// Starts a multipart upload to `path`.
    ///
    /// # Errors
    /// The store refusing it, or no answer within the timeout.
    pub fn create(
        store: Arc<dyn ObjectStore>,
        path: &Path,
        options: UploadOptions,
        handle: Handle,
    ) -> Result<BlockingUpload> {
        let upload = handle.block_on(Upload::create(store.as_ref(), path, options))?;
        Ok(BlockingUpload {
            upload: Some(upload),
            handle,
            what: format!("{path} in {store}"),
        })
    }

    /// Uploads what is buffered and completes the upload: the object is then visible.
    ///
    /// # Errors
    /// A failed part or completion; the upload is then aborted and no object appears.
    pub fn commit(mut self) -> Result<PutResult> {
        let upload = self.upload.take().ok_or_else(|| self.poisoned())?;
        let handle = self.handle.clone();
        handle.block_on(upload.complete())
    }

    /// Aborts the upload: no object appears.
    ///
    /// # Errors
    /// The store failing the abort.
    pub fn abort(mut self) -> Result<()> {
        match self.upload.take() {
            Some(u) => self.handle.block_on(u.abort()),
            None => Ok(()),
        }
    }

    fn poisoned(&self) -> Error {
        Error::new(
            ErrorKind::Store,
            format!(
                "the upload of {} failed earlier and was aborted: nothing more can be written",
                self.what
            ),
        )
    }
}

impl Write for BlockingUpload {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(upload) = self.upload.as_mut() else {
            return Err(self.poisoned().into());
        };
        let r = self.handle.block_on(async {
            upload.write(buf);
            upload.wait_for_capacity().await
        });
        if let Err(e) = r {
            let upload = self.upload.take().expect("present");
            return Err(self.handle.block_on(upload.abort_after(e)).into());
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // Parts upload as they fill; the last one waits for `commit`.
        Ok(())
    }
}

impl Drop for BlockingUpload {
    fn drop(&mut self) {
        if let Some(u) = self.upload.take() {
            let _ = self.handle.block_on(u.abort());
        }
    }
}

impl fmt::Debug for BlockingUpload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockingUpload")
            .field("object", &self.what)
            .field("poisoned", &self.upload.is_none())
            .finish_non_exhaustive()
    }
}
