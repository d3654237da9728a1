//! Async container I/O over tokio's `AsyncRead` / `AsyncWrite` (the `tokio` feature):
//! [`AsyncReader`] and [`AsyncWriter`].
//!
//! Neither has a parser or an encoder of its own: the reader runs the sans-IO
//! [`framing`](super::framing) parsers and the blocking reader's block decoding, the writer
//! runs the blocking [`Writer`](super::Writer) over an in-memory staging buffer. Only the I/O
//! is async. [`SplitSeeker`](super::SplitSeeker) finds a split's first block for readers that
//! fetch byte ranges.

mod reader;
mod writer;

pub use reader::{AsyncReader, DEFAULT_OFFLOAD_THRESHOLD};
pub use writer::AsyncWriter;
