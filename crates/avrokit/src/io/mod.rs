//! Byte sources and sinks, varints, and decoding limits.
//!
//! - [`Source`]: where a [`Decoder`](crate::Decoder) reads from: a borrowed slice
//!   ([`SliceSource`], zero-copy) or any `io::Read` through a buffer ([`ReaderSource`]).
//! - [`Sink`]: where an [`Encoder`](crate::Encoder) writes to: a `Vec<u8>` (appended to
//!   directly), a [`BufferedSink`] over any `io::Write`, or a [`DirectSink`] that writes through.
//! - [`Limits`]: the bounds every decoder enforces on lengths, counts and nesting.
//! - [`read_ahead`]: asks the CPU for a block's bytes ahead of the record being decoded.

mod ahead;
mod limits;
mod sink;
mod source;
pub(crate) mod varint;

pub use ahead::read_ahead;
pub use limits::Limits;
pub(crate) use sink::flush_retrying;
pub use sink::{BlockingSink, BufferedSink, DirectSink, Sink};
#[doc(hidden)]
pub use source::CopySource;
pub use source::{ReaderSource, Reference, SliceSource, Source};
