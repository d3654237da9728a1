//! [`Error`]: what went wrong talking to the store, or in the file read from it.

use std::fmt;
use std::ops::Range;
use std::time::Duration;

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The store failed a request (after its own retries): network, permissions, a missing
    /// object ([`Error::is_not_found`]), a rejected upload.
    Store,
    /// A request got no complete answer within the configured time.
    Timeout,
    /// The store answered a ranged GET with fewer (or more) bytes than asked for inside the
    /// object, or the object changed while it was read (its ETag or version moved).
    Inconsistent,
    /// The container file itself: its header, framing, codec or data (see
    /// [`avro_error`](Error::avro_error) for avrokit's kind and offset).
    Avro,
    /// Reading RecordBatches (the `arrow` feature).
    Columnar,
    /// The object is smaller than a container header, or an argument is out of range.
    Usage,
}

/// An error from reading or writing an Avro file in an object store: the object (and byte
/// range) concerned, what happened, and the underlying error as the [`source`](std::error::Error::source).
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    offset: Option<u64>,
    not_found: bool,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            offset: None,
            not_found: false,
            source: None,
        }
    }

    pub(crate) fn store(what: String, range: Option<&Range<u64>>, e: object_store::Error) -> Error {
        let not_found = matches!(e, object_store::Error::NotFound { .. });
        Error {
            kind: ErrorKind::Store,
            message: format!("{what}{}: {e}", bytes(range)),
            offset: range.map(|r| r.start),
            not_found,
            source: Some(Box::new(e)),
        }
    }

    pub(crate) fn timeout(what: String, range: Option<&Range<u64>>, after: Duration) -> Error {
        Error {
            kind: ErrorKind::Timeout,
            message: format!(
                "{what}{}: no complete answer within {:.1} s",
                bytes(range),
                after.as_secs_f64()
            ),
            offset: range.map(|r| r.start),
            not_found: false,
            source: None,
        }
    }

    pub(crate) fn at(mut self, offset: u64) -> Error {
        self.offset = Some(offset);
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The byte offset in the object where it happened, when known.
    pub fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// The message, without the source's.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True when the object does not exist.
    pub fn is_not_found(&self) -> bool {
        self.not_found
    }

    /// avrokit's error, for [`ErrorKind::Avro`] (its kind, offset and path).
    pub fn avro_error(&self) -> Option<&avrokit::Error> {
        self.source.as_ref()?.downcast_ref()
    }
}

/// ` (bytes a..b)`, or nothing.
fn bytes(range: Option<&Range<u64>>) -> String {
    range.map_or(String::new(), |r| {
        format!(" (bytes {}..{})", r.start, r.end)
    })
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<avrokit::Error> for Error {
    fn from(e: avrokit::Error) -> Error {
        Error {
            kind: ErrorKind::Avro,
            message: e.to_string(),
            offset: e.offset(),
            not_found: false,
            source: Some(Box::new(e)),
        }
    }
}

#[cfg(feature = "arrow")]
impl From<avrokit_arrow::Error> for Error {
    fn from(e: avrokit_arrow::Error) -> Error {
        Error {
            kind: ErrorKind::Columnar,
            message: e.to_string(),
            offset: e.offset(),
            not_found: false,
            source: Some(Box::new(e)),
        }
    }
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        let kind = match e.kind {
            ErrorKind::Timeout => std::io::ErrorKind::TimedOut,
            ErrorKind::Inconsistent => std::io::ErrorKind::UnexpectedEof,
            _ if e.not_found => std::io::ErrorKind::NotFound,
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, e)
    }
}
