//! GETs of one object: [`Source`] (one request, with a timeout and checks, whole or streamed)
//! and [`RangeReader`] (a byte range as a `tokio::io::AsyncRead`: streamed GETs, each at most
//! a bounded number of bytes ahead of the reader).

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, GetResultPayload, ObjectMeta, ObjectStore};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use crate::error::{Error, ErrorKind, Result};

/// How an object is fetched: GET sizes, read-ahead, buffering, timeouts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FetchOptions {
    /// The first GET after a seek, and the least one fetched for a header or a split seek.
    pub(crate) first_chunk: usize,
    /// The largest GET.
    pub(crate) chunk: usize,
    /// GETs in flight beyond the one being read.
    pub(crate) read_ahead: usize,
    /// The bytes one GET may receive ahead of the reader (at most `u32::MAX`).
    pub(crate) buffer: usize,
    pub(crate) timeout: Duration,
    pub(crate) pin_version: bool,
}

/// The largest piece read at once from a local file (object_store's own stream of a file
/// reads 8 KiB pieces, each on the blocking pool).
const FILE_PIECE: usize = 1 << 20;

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
        let options = self.get_options(&range);
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

    /// The options of a GET of `range`, pinned to the version HEAD saw unless told otherwise:
    /// a ranged read of an object rewritten meanwhile would splice two files (the store
    /// refuses the GET when it moved).
    fn get_options(&self, range: &Range<u64>) -> GetOptions {
        // The whole object is asked for without a range: some servers (moto) answer a ranged
        // GET by copying the object first. Its length is checked all the same.
        let whole = range.start == 0 && range.end == self.len();
        let mut options =
            GetOptions::new().with_range((!whole).then(|| GetRange::Bounded(range.clone())));
        if self.options.pin_version {
            options.if_match = self.meta.e_tag.clone();
            options.version = self.meta.version.clone();
        }
        options
    }

    fn what(&self) -> String {
        format!("GET {} in {}", self.path, self.store)
    }

    /// Streams the bytes `range` to `tx` in order, as they arrive, never more than `room`'s
    /// permits ahead of the consumer (who gives a piece's permits back when it takes it), and
    /// ends with an error on `tx` if the bytes cannot all be had. See [`RangeReader`] for
    /// the timeouts and when a broken stream is resumed.
    async fn stream(
        self: Arc<Self>,
        range: Range<u64>,
        room: Arc<Semaphore>,
        cap: usize,
        tx: UnboundedSender<Result<Bytes>>,
    ) {
        let mut at = range.start;
        while at < range.end {
            let start = at;
            match self
                .stream_once(start..range.end, &room, cap, &tx, &mut at)
                .await
            {
                Ok(()) => {}
                // The body broke after some bytes arrived (a dropped connection, or the
                // client's own request timeout on a long read): ask again for the rest, pinned
                // to the same version. Without progress since the last request, give up.
                Err((e, true)) if at > start => drop(e),
                Err((e, _)) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
            if tx.is_closed() {
                return;
            }
        }
    }

    /// One GET of `range`, streamed to `tx` (advancing `at`); stops early, without error, when
    /// the consumer is gone. The error says whether it may be resumed (a broken body).
    async fn stream_once(
        &self,
        range: Range<u64>,
        room: &Semaphore,
        cap: usize,
        tx: &UnboundedSender<Result<Bytes>>,
        at: &mut u64,
    ) -> std::result::Result<(), (Error, bool)> {
        let timeout = self.options.timeout;
        let get = self.store.get_opts(&self.path, self.get_options(&range));
        let r = match tokio::time::timeout(timeout, get).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err((Error::store(self.what(), Some(&range), e), false)),
            Err(_) => return Err((Error::timeout(self.what(), Some(&range), timeout), false)),
        };
        // Gives a piece to the consumer once there is room for it: false when it is gone.
        let deliver = |piece: Bytes| async move {
            let want = piece.len().min(cap) as u32;
            match room.acquire_many(want).await {
                Ok(p) => p.forget(),
                Err(_) => return false,
            }
            tx.send(Ok(piece)).is_ok()
        };
        match r.payload {
            GetResultPayload::File(mut file, local) => {
                use std::io::{Read, Seek, SeekFrom};
                let first = *at;
                while *at < range.end {
                    let (n, from) = ((range.end - *at).min(FILE_PIECE as u64), *at);
                    let read = tokio::task::spawn_blocking(move || {
                        let mut buf = Vec::with_capacity(n as usize);
                        let r = (if from == first {
                            file.seek(SeekFrom::Start(from)).map(drop)
                        } else {
                            Ok(())
                        })
                        .and_then(|()| (&mut file).take(n).read_to_end(&mut buf));
                        (file, buf, r)
                    });
                    let piece = match tokio::time::timeout(timeout, read).await {
                        Ok(Ok((f, buf, Ok(_)))) => {
                            file = f;
                            Bytes::from(buf)
                        }
                        Ok(Ok((_, _, Err(e)))) => {
                            let e = object_store::Error::Generic {
                                store: "LocalFileSystem",
                                source: format!("reading {}: {e}", local.display()).into(),
                            };
                            return Err((
                                Error::store(self.what(), Some(&(from..range.end)), e),
                                false,
                            ));
                        }
                        Ok(Err(join)) => {
                            return Err((
                                Error::new(
                                    ErrorKind::Store,
                                    format!(
                                        "{} (bytes {from}..{}): {join}",
                                        self.what(),
                                        range.end
                                    ),
                                )
                                .at(from),
                                false,
                            ))
                        }
                        Err(_) => {
                            return Err((
                                Error::timeout(self.what(), Some(&(from..range.end)), timeout),
                                false,
                            ))
                        }
                    };
                    if piece.is_empty() {
                        break;
                    }
                    *at += piece.len() as u64;
                    if !deliver(piece).await {
                        return Ok(());
                    }
                }
            }
            GetResultPayload::Stream(mut body) => loop {
                let piece = match tokio::time::timeout(timeout, body.next()).await {
                    Ok(None) => break,
                    Ok(Some(Ok(piece))) => piece,
                    Ok(Some(Err(e))) => {
                        return Err((Error::store(self.what(), Some(&(*at..range.end)), e), true))
                    }
                    Err(_) => {
                        return Err((
                            Error::timeout(self.what(), Some(&(*at..range.end)), timeout),
                            false,
                        ))
                    }
                };
                if piece.len() as u64 > range.end - *at {
                    return Err((
                        self.wrong_length(&range, *at - range.start + piece.len() as u64),
                        false,
                    ));
                }
                *at += piece.len() as u64;
                if !deliver(piece).await {
                    return Ok(());
                }
            },
        }
        if *at < range.end {
            return Err((self.wrong_length(&range, *at - range.start), false));
        }
        Ok(())
    }

    /// The store answered the GET of `range` with `got` bytes.
    #[cold]
    fn wrong_length(&self, range: &Range<u64>, got: u64) -> Error {
        let want = range.end - range.start;
        Error::new(
            ErrorKind::Inconsistent,
            format!(
                "{} (bytes {}..{}): the store returned {got} bytes instead of {want}",
                self.what(),
                range.start,
                range.end,
            ),
        )
        .at(range.start + got.min(want))
    }
}

/// A GET streaming as its own task (so that bytes arrive while the reader decodes), cancelled
/// when dropped.
struct Fetch {
    range: Range<u64>,
    rx: UnboundedReceiver<Result<Bytes>>,
    /// The bytes the task may still send before the consumer takes some.
    room: Arc<Semaphore>,
    cap: usize,
    /// The bytes taken so far.
    got: u64,
    task: JoinHandle<()>,
}

impl Drop for Fetch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Bytes `[start, end)` of an object as a [`tokio::io::AsyncRead`], fetched with GETs whose
/// bodies are streamed: each runs as its own task and hands its bytes over as they arrive,
/// at most the buffer size (8 MiB by default) ahead of the reader; past that it stops reading
/// the connection, so TCP holds the server back. Up to `read_ahead` further GETs run while
/// one is read.
///
/// How the range is cut into GETs: a reader of a whole file or an explicit range asks for all
/// of it at once (in GETs of at most the chunk size, 1 GiB by default); a split's reader asks
/// for its split and a little more, then for the rest of its last block in GETs that start
/// small (256 KiB) and double; after a seek ([`crate::blocking::BlockingReader`]) GETs also
/// start small and double up to the chunk size, so a reader that wants a few bytes pays
/// little.
///
/// Memory: at most `read_ahead + 1` GETs' buffers, plus the piece being read. Timeouts: each
/// GET must answer within the timeout, and each piece of its body must arrive within the
/// timeout once the reader is waiting for it (a reader that does not read does not time
/// out). A body that breaks after some bytes arrived (a dropped connection, the HTTP client's
/// own request timeout on a long read) is asked for again from where it broke, pinned to the
/// same version, as long as each new request brings bytes. A failed, short or stalled GET is
/// an `io::Error` whose source is an [`Error`] naming the object and the range. It needs a
/// tokio runtime with the time driver (the GETs are spawned tasks).
pub struct RangeReader {
    src: Arc<Source>,
    /// The unread rest of the current piece.
    cur: Bytes,
    /// GETs in flight, in order.
    inflight: VecDeque<Fetch>,
    /// Where the next GET starts, and the end of the range.
    next: u64,
    end: u64,
    next_len: u64,
    /// GETs after the first start at `first_chunk` (a split's tail) instead of growing on.
    restart: bool,
    /// GETs that start here or later wait until nothing else is in flight.
    eager_end: u64,
    failed: bool,
}

impl RangeReader {
    /// A reader of `range` whose GETs start small and double up to the chunk size (a read
    /// after a seek).
    pub(crate) fn new(src: Arc<Source>, range: Range<u64>) -> RangeReader {
        let first = src.options.first_chunk as u64;
        let mut r = RangeReader::sized(src, range, first);
        r.restart = false;
        r.eager_end = r.end;
        r
    }

    /// A reader of `range` that asks for its first `first` bytes at once (in GETs of at most
    /// the chunk size), then for more, if it gets that far, one GET at a time, starting small.
    pub(crate) fn sized(src: Arc<Source>, range: Range<u64>, first: u64) -> RangeReader {
        let end = range.end.min(src.len());
        let next = range.start.min(end);
        RangeReader {
            next_len: first.max(1),
            restart: true,
            eager_end: next.saturating_add(first),
            src,
            cur: Bytes::new(),
            inflight: VecDeque::new(),
            next,
            end,
            failed: false,
        }
    }

    /// Starts GETs until `read_ahead + 1` are in flight (or the range is all asked for); past
    /// `eager_end`, only when none is.
    fn schedule(&mut self) -> std::io::Result<()> {
        let o = self.src.options;
        while self.inflight.len() <= o.read_ahead
            && self.next < self.end
            && (self.next < self.eager_end || self.inflight.is_empty())
        {
            let handle = tokio::runtime::Handle::try_current().map_err(|_| {
                std::io::Error::other("reading from an object store needs a tokio runtime")
            })?;
            let len = self.next_len.min(o.chunk as u64).max(1);
            let to = self.end.min(self.next.saturating_add(len));
            let range = self.next..to;
            let cap = (o.buffer as u64).min(to - self.next).max(1) as usize;
            let room = Arc::new(Semaphore::new(cap));
            let (tx, rx) = unbounded_channel();
            let task = handle.spawn(
                self.src
                    .clone()
                    .stream(range.clone(), room.clone(), cap, tx),
            );
            self.inflight.push_back(Fetch {
                range,
                rx,
                room,
                cap,
                got: 0,
                task,
            });
            self.next = to;
            self.next_len = if !self.restart {
                self.next_len.saturating_mul(2)
            } else if self.next >= self.eager_end {
                self.restart = false;
                o.first_chunk as u64
            } else {
                self.next_len
            };
        }
        Ok(())
    }

    /// The next piece into `cur` (left empty at the end of the range).
    fn poll_piece(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        loop {
            self.schedule()?;
            let Some(front) = self.inflight.front_mut() else {
                return Poll::Ready(Ok(()));
            };
            match front.rx.poll_recv(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(piece))) => {
                    front.room.add_permits(piece.len().min(front.cap));
                    front.got += piece.len() as u64;
                    if !piece.is_empty() {
                        self.cur = piece;
                        return Poll::Ready(Ok(()));
                    }
                }
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e.into())),
                Poll::Ready(None) => {
                    let (range, got) = (front.range.clone(), front.got);
                    if got != range.end - range.start {
                        // The task ended without saying why (it panicked).
                        return Poll::Ready(Err(std::io::Error::other(format!(
                            "fetching bytes {}..{} of {} stopped after {got} bytes",
                            range.start, range.end, self.src.path
                        ))));
                    }
                    self.inflight.pop_front();
                }
            }
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
            match this.poll_piece(cx) {
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
