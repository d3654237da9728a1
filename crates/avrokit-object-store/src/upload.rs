//! A multipart upload with bounded parts in flight, aborted on any failure: [`Upload`], and
//! its options, [`UploadOptions`].

use std::time::Duration;

use object_store::path::Path;
use object_store::{MultipartUpload, ObjectStore, PutMultipartOptions, PutPayload, PutResult};
use tokio::task::JoinSet;

use crate::error::{Error, Result};

/// The default size of one uploaded part (8 MiB; S3 wants at least 5 MiB but for the last).
pub const DEFAULT_PART_SIZE: usize = 8 << 20;
/// The default number of parts uploading at once.
pub const DEFAULT_MAX_CONCURRENCY: usize = 4;

/// Options for writing an object through a multipart upload.
#[derive(Debug, Clone, Copy)]
pub struct UploadOptions {
    pub(crate) part_size: usize,
    pub(crate) max_concurrency: usize,
    pub(crate) timeout: Duration,
}

impl Default for UploadOptions {
    fn default() -> UploadOptions {
        UploadOptions::new()
    }
}

impl UploadOptions {
    /// 8 MiB parts, 4 at once, 30 s per request.
    pub fn new() -> UploadOptions {
        UploadOptions {
            part_size: DEFAULT_PART_SIZE,
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            timeout: crate::read::DEFAULT_TIMEOUT,
        }
    }

    /// The size of every part but the last (at least 1 byte; S3 and GCS refuse parts under
    /// 5 MiB). Memory is bounded by `(max_concurrency + 1) × part_size`.
    #[must_use]
    pub fn with_part_size(mut self, bytes: usize) -> UploadOptions {
        self.part_size = bytes.max(1);
        self
    }

    /// How many parts may upload at once (at least 1): writing waits when that many are in
    /// flight.
    #[must_use]
    pub fn with_max_concurrency(mut self, parts: usize) -> UploadOptions {
        self.max_concurrency = parts.max(1);
        self
    }

    /// The longest one request may take (a part, the completion, the abort): a store that
    /// stops answering gives an [`ErrorKind::Timeout`](crate::ErrorKind::Timeout) error.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> UploadOptions {
        self.timeout = timeout;
        self
    }
}

/// A multipart upload: bytes are cut into parts, which upload as tasks of the runtime (at
/// most `max_concurrency` at once); the object appears only when [`complete`](Self::complete)
/// succeeds, and any failure aborts the upload, so that no part of it stays behind.
pub(crate) struct Upload {
    upload: Box<dyn MultipartUpload>,
    parts: JoinSet<Result<()>>,
    buf: Vec<u8>,
    opts: UploadOptions,
    what: String,
    /// Bytes handed to parts so far (for messages).
    sent: u64,
}

impl Upload {
    pub(crate) async fn create(
        store: &dyn ObjectStore,
        path: &Path,
        opts: UploadOptions,
    ) -> Result<Upload> {
        let what = format!("multipart upload of {path} to {store}");
        let start = store.put_multipart_opts(path, PutMultipartOptions::default());
        let upload = match tokio::time::timeout(opts.timeout, start).await {
            Ok(Ok(u)) => u,
            Ok(Err(e)) => return Err(Error::store(format!("starting the {what}"), None, e)),
            Err(_) => {
                return Err(Error::timeout(
                    format!("starting the {what}"),
                    None,
                    opts.timeout,
                ))
            }
        };
        Ok(Upload {
            upload,
            parts: JoinSet::new(),
            buf: Vec::new(),
            opts,
            what,
            sent: 0,
        })
    }

    /// Buffers `bytes`, starting the upload of every part they fill. Must run inside the
    /// runtime (parts are spawned); call [`wait_for_capacity`](Self::wait_for_capacity) after
    /// it to bound memory.
    pub(crate) fn write(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.buf.capacity() == 0 {
                self.buf.reserve_exact(self.opts.part_size);
            }
            let n = (self.opts.part_size - self.buf.len()).min(bytes.len());
            self.buf.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.buf.len() == self.opts.part_size {
                self.put_part();
            }
        }
    }

    fn put_part(&mut self) {
        let part = std::mem::take(&mut self.buf);
        let range = self.sent..self.sent + part.len() as u64;
        self.sent = range.end;
        let fut = self.upload.put_part(PutPayload::from(part));
        let (timeout, what) = (self.opts.timeout, self.what.clone());
        self.parts.spawn(async move {
            match tokio::time::timeout(timeout, fut).await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(Error::store(
                    format!("uploading a part of the {what}"),
                    Some(&range),
                    e,
                )),
                Err(_) => Err(Error::timeout(
                    format!("uploading a part of the {what}"),
                    Some(&range),
                    timeout,
                )),
            }
        });
    }

    /// Waits until fewer than `limit` parts are in flight; the first failed part's error.
    async fn wait_for(&mut self, limit: usize) -> Result<()> {
        while self.parts.len() >= limit.max(1) {
            match self.parts.join_next().await {
                Some(Ok(Ok(()))) => {}
                Some(Ok(Err(e))) => return Err(e),
                Some(Err(join)) => {
                    return Err(Error::new(
                        crate::ErrorKind::Store,
                        format!("a part of the {} failed: {join}", self.what),
                    ))
                }
                None => break,
            }
        }
        Ok(())
    }

    /// Waits while `max_concurrency` parts are in flight.
    pub(crate) async fn wait_for_capacity(&mut self) -> Result<()> {
        self.wait_for(self.opts.max_concurrency).await
    }

    /// Uploads the last part, waits for every part and completes the upload: the object is
    /// then visible, whole. On any failure the upload is aborted, and the error returned.
    pub(crate) async fn complete(mut self) -> Result<PutResult> {
        if !self.buf.is_empty() || self.sent == 0 {
            // An empty object still needs one (empty) part.
            self.put_part();
        }
        if let Err(e) = self.wait_for(0).await {
            return Err(self.abort_after(e).await);
        }
        let what = format!("completing the {}", self.what);
        let timeout = self.opts.timeout;
        match tokio::time::timeout(timeout, self.upload.complete()).await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(e)) => {
                let e = Error::store(what, None, e);
                Err(self.abort_after(e).await)
            }
            Err(_) => {
                let e = Error::timeout(what, None, timeout);
                Err(self.abort_after(e).await)
            }
        }
    }

    /// Aborts after `e`, and returns `e` (with the abort's failure in its message, if any).
    pub(crate) async fn abort_after(self, e: Error) -> Error {
        match self.abort().await {
            Ok(()) => e,
            Err(a) => Error::new(
                e.kind(),
                format!("{e}; aborting the upload failed too: {a}"),
            ),
        }
    }

    /// Cancels the parts in flight and aborts the upload, removing the parts already stored.
    pub(crate) async fn abort(mut self) -> Result<()> {
        self.parts.shutdown().await;
        let what = format!("aborting the {}", self.what);
        match tokio::time::timeout(self.opts.timeout, self.upload.abort()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Error::store(what, None, e)),
            Err(_) => Err(Error::timeout(what, None, self.opts.timeout)),
        }
    }
}
