//! Ranged GETs of one object: [`Source`] (one request, with a timeout and checks) and
//! [`RangeReader`] (a byte range as a `tokio::io::AsyncRead`, with bounded read-ahead).

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::task::JoinHandle;

use crate::error::{Error, ErrorKind, Result};

/// How an object is fetched: chunk sizes, read-ahead, timeouts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FetchOptions {
    pub(crate) first_chunk: usize,
    pub(crate) chunk: usize,
    pub(crate) read_ahead: usize,
    pub(crate) timeout: Duration,
    pub(crate) pin_version: bool,
}

/// One object of a store, as found by a HEAD request: what every ranged GET of it needs.
pub(crate) struct Source {
    pub(crate) store: Arc<dyn ObjectStore>,
    pub(crate) path: Path,
    pub(crate) meta: ObjectMeta,
    pub(crate) options: FetchOptions,
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("store", &self.store.to_string())
            .field("path", &self.path)
            .field("size", &self.meta.size)
            .finish_non_exhaustive()
    }
}

impl Source {
    /// HEADs `path` (within the timeout).
    pub(crate) async fn open(
        store: Arc<dyn ObjectStore>,
        path: Path,
        options: FetchOptions,
    ) -> Result<Source> {
        let what = format!("HEAD {path} in {store}");
        let head = store.get_opts(&path, GetOptions::new().with_head(true));
        let meta = match tokio::time::timeout(options.timeout, head).await {
            Ok(Ok(r)) => r.meta,
            Ok(Err(e)) => return Err(Error::store(what, None, e)),
            Err(_) => return Err(Error::timeout(what, None, options.timeout)),
        };
        Ok(Source {
            store,
            path,
            meta,
            options,
        })
    }

    pub(crate) fn len(&self) -> u64 {
        self.meta.size
    }

    /// The bytes `range` (which must lie inside the object), in one GET that must complete
    /// within the timeout and return exactly those bytes of the version HEAD saw.
    pub(crate) fn fetch(
        &self,
        range: Range<u64>,
    ) -> impl Future<Output = Result<Bytes>> + Send + 'static {
        let store = self.store.clone();
        let path = self.path.clone();
        let mut options = GetOptions::new().with_range(Some(GetRange::Bounded(range.clone())));
        if self.options.pin_version {
            // A ranged read of an object rewritten meanwhile would splice two files: pin the
            // version HEAD saw (the store refuses the GET when it moved).
            options.if_match = self.meta.e_tag.clone();
            options.version = self.meta.version.clone();
        }
        let timeout = self.options.timeout;
        async move {
            let what = || format!("GET {path} in {store}");
            let get = async {
                let r = store.get_opts(&path, options).await?;
                r.bytes().await
            };
            let bytes = match tokio::time::timeout(timeout, get).await {
                Ok(Ok(b)) => b,
                Ok(Err(e)) => return Err(Error::store(what(), Some(&range), e)),
                Err(_) => return Err(Error::timeout(what(), Some(&range), timeout)),
            };
            let want = range.end - range.start;
            if bytes.len() as u64 != want {
                return Err(Error::new(
                    ErrorKind::Inconsistent,
                    format!(
                        "{} (bytes {}..{}): the store returned {} bytes instead of {want}",
                        what(),
                        range.start,
                        range.end,
                        bytes.len()
                    ),
                )
                .at(range.start + (bytes.len() as u64).min(want)));
            }
            Ok(bytes)
        }
    }
}

/// A fetch running as its own task (so that read-ahead progresses while the reader decodes),
/// cancelled when dropped.
struct Fetch {
    range: Range<u64>,
    task: JoinHandle<Result<Bytes>>,
}

impl Drop for Fetch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Bytes `[start, end)` of an object as a [`tokio::io::AsyncRead`], fetched with ranged GETs
/// of growing size (the first small, so that a reader that only wants a few bytes after a
/// seek pays little; then doubling up to the chunk size), with up to `read_ahead` further
/// chunks in flight while the current one is consumed.
///
/// Memory: at most `read_ahead + 1` chunks. Each GET must complete within the timeout; a
/// failed or short GET is an `io::Error` whose source is an [`Error`] naming the object and
/// the range. It needs a tokio runtime with the time driver (the fetches are spawned tasks).
pub struct RangeReader {
    src: Arc<Source>,
    /// The unread rest of the current chunk.
    cur: Bytes,
    /// Fetches in flight, in order.
    inflight: VecDeque<Fetch>,
    /// Where the next fetch starts, and the end of the range.
    next: u64,
    end: u64,
    next_len: usize,
    failed: bool,
}

impl RangeReader {
    pub(crate) fn new(src: Arc<Source>, range: Range<u64>) -> RangeReader {
        let end = range.end.min(src.len());
        RangeReader {
            next_len: src.options.first_chunk.min(src.options.chunk).max(1),
            src,
            cur: Bytes::new(),
            inflight: VecDeque::new(),
            next: range.start.min(end),
            end,
            failed: false,
        }
    }

    /// Starts fetches until `read_ahead + 1` are in flight (or the range is all asked for).
    fn schedule(&mut self) -> std::io::Result<()> {
        while self.inflight.len() <= self.src.options.read_ahead && self.next < self.end {
            let handle = tokio::runtime::Handle::try_current().map_err(|_| {
                std::io::Error::other("reading from an object store needs a tokio runtime")
            })?;
            let to = self.end.min(self.next + self.next_len as u64);
            let range = self.next..to;
            let task = handle.spawn(self.src.fetch(range.clone()));
            self.inflight.push_back(Fetch { range, task });
            self.next = to;
            self.next_len = self.next_len.saturating_mul(2).min(self.src.options.chunk);
        }
        Ok(())
    }

    fn poll_chunk(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.schedule()?;
        let Some(front) = self.inflight.front_mut() else {
            return Poll::Ready(Ok(()));
        };
        let r = match Pin::new(&mut front.task).poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(r) => r,
        };
        let range = front.range.clone();
        self.inflight.pop_front();
        match r {
            Ok(Ok(bytes)) => {
                self.cur = bytes;
                self.schedule()?;
                Poll::Ready(Ok(()))
            }
            Ok(Err(e)) => Poll::Ready(Err(e.into())),
            Err(join) => Poll::Ready(Err(std::io::Error::other(format!(
                "fetching bytes {}..{} of {} failed: {join}",
                range.start, range.end, self.src.path
            )))),
        }
    }
}

impl AsyncRead for RangeReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.failed {
            return Poll::Ready(Err(std::io::Error::other(
                "an earlier fetch of this object failed",
            )));
        }
        if this.cur.is_empty() {
            match this.poll_chunk(cx) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(e)) => {
                    this.failed = true;
                    this.inflight.clear();
                    return Poll::Ready(Err(e));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        let n = this.cur.len().min(buf.remaining());
        buf.put_slice(&this.cur.split_to(n));
        Poll::Ready(Ok(()))
    }
}

impl fmt::Debug for RangeReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RangeReader")
            .field("path", &self.src.path)
            .field("next", &self.next)
            .field("end", &self.end)
            .field("in_flight", &self.inflight.len())
            .finish_non_exhaustive()
    }
}
