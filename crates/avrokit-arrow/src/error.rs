//! One error type for the crate: what went wrong, where (byte offset, column path), and the
//! underlying avrokit or Arrow error when there is one.

use std::fmt;

use arrow_schema::ArrowError;

/// The broad category of an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// From avrokit (schema, container, codec, resolution...): the kind avrokit gave it.
    Avro(avrokit::ErrorKind),
    /// Malformed Avro data met while decoding into columns.
    Data,
    /// The input ended inside a datum.
    Eof,
    /// A configured limit was exceeded.
    Limit,
    /// An Avro type, or an Arrow type, that has no counterpart on the other side.
    Unsupported,
    /// A value or an Arrow schema that does not fit the Avro schema it is written with.
    Mismatch,
    /// From Arrow.
    Arrow,
    /// Reading or writing failed.
    Io,
}

struct Inner {
    kind: ErrorKind,
    message: String,
    offset: Option<u64>,
    /// Outermost segment first once finished; pushed innermost first while unwinding.
    path: Vec<String>,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// The error of every fallible operation of this crate.
pub struct Error(Box<Inner>);

/// `Result<T, avrokit_arrow::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    #[cold]
    #[inline(never)]
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(Inner {
            kind,
            message: message.into(),
            offset: None,
            path: Vec::new(),
            source: None,
        }))
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn at(kind: ErrorKind, message: impl Into<String>, offset: u64) -> Error {
        let mut e = Error::new(kind, message);
        e.0.offset = Some(offset);
        e
    }

    #[cold]
    pub(crate) fn unsupported(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unsupported, message)
    }

    #[cold]
    pub(crate) fn mismatch(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Mismatch, message)
    }

    /// Pushes a path segment (a field name, `[]`, `{}`) while unwinding.
    #[cold]
    #[inline(never)]
    pub(crate) fn in_field(mut self, segment: &str) -> Error {
        self.0.path.push(segment.to_owned());
        self
    }

    /// Adds `base` to the offset (offsets inside a block become offsets in the file's block).
    #[cold]
    pub(crate) fn shifted(mut self, base: u64) -> Error {
        if let Some(o) = &mut self.0.offset {
            *o += base;
        }
        self
    }

    #[cold]
    pub(crate) fn context(mut self, what: impl fmt::Display) -> Error {
        self.0.message = format!("{what}: {}", self.0.message);
        self
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The byte offset where decoding failed (within the block's data for a container file,
    /// within the datum or message otherwise), when known.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// What went wrong, without the offset and path.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The column path where decoding failed (`order.items[].price`), empty at the top.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in self.0.path.iter().rev() {
            if !out.is_empty() && !seg.starts_with('[') && !seg.starts_with('{') {
                out.push('.');
            }
            out.push_str(seg);
        }
        out
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)?;
        let path = self.path();
        if !path.is_empty() {
            write!(f, " (at {path})")?;
        }
        if let Some(o) = self.0.offset {
            write!(f, " at byte {o}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: {self})", self.0.kind)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<avrokit::Error> for Error {
    #[cold]
    fn from(e: avrokit::Error) -> Error {
        let mut out = Error::new(ErrorKind::Avro(e.kind()), e.to_string());
        out.0.offset = e.offset();
        out.0.source = Some(Box::new(e));
        out
    }
}

impl From<ArrowError> for Error {
    #[cold]
    fn from(e: ArrowError) -> Error {
        let mut out = Error::new(ErrorKind::Arrow, e.to_string());
        out.0.source = Some(Box::new(e));
        out
    }
}

impl From<std::io::Error> for Error {
    #[cold]
    fn from(e: std::io::Error) -> Error {
        let mut out = Error::new(ErrorKind::Io, e.to_string());
        out.0.source = Some(Box::new(e));
        out
    }
}

impl From<Error> for ArrowError {
    fn from(e: Error) -> ArrowError {
        ArrowError::ExternalError(Box::new(e))
    }
}
