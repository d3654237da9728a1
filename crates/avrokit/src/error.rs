//! One error type for the whole crate.
//!
//! [`Error`] is the size of a pointer: everything lives behind a `Box`, so a `Result<T, Error>` on
//! the hot path costs no more than the `T`. Constructors are `#[cold]` and take `&'static str` or
//! owned strings built only on the error path. An error carries:
//! - a [`ErrorKind`] that callers can match on (`is_eof()` for "the input ended early"),
//! - the byte offset into the source where decoding failed, when known,
//! - a schema or JSON path (`Order.items[3].price`, `$.fields[2].type`), pushed while unwinding.

use std::borrow::Cow;
use std::fmt;

/// The broad category of an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The underlying reader or writer failed.
    Io,
    /// The input ended before the datum or file did.
    Eof,
    /// A schema is invalid (bad JSON, unknown type, duplicate name, bad default, ...).
    Schema,
    /// Encoded data is malformed (bad varint, invalid UTF-8, union index out of range, ...), or a
    /// value does not match the schema it is written with.
    Data,
    /// A configured limit was exceeded (allocation size, nesting depth, ...).
    Limit,
    /// A writer schema and a reader schema cannot be resolved against each other.
    Resolution,
    /// A container file is malformed (magic, sync marker, codec, block framing).
    Container,
    /// A codec failed to compress or decompress.
    Codec,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Io => "I/O error",
            ErrorKind::Eof => "unexpected end of input",
            ErrorKind::Schema => "invalid schema",
            ErrorKind::Data => "invalid data",
            ErrorKind::Limit => "limit exceeded",
            ErrorKind::Resolution => "schemas cannot be resolved",
            ErrorKind::Container => "invalid container file",
            ErrorKind::Codec => "codec error",
        })
    }
}

/// A path element pushed while an error unwinds through nested values or schema JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// `.name` (record field, JSON object key) or a leading type name.
    Name(Cow<'static, str>),
    /// `[i]` (array item, union branch, JSON array index).
    Index(u64),
    /// `["key"]` (map entry).
    Key(String),
}

struct Inner {
    kind: ErrorKind,
    message: Cow<'static, str>,
    offset: Option<u64>,
    /// Innermost segment first: segments are pushed while unwinding.
    path: Vec<Segment>,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// The error type of every fallible avrokit operation.
///
/// # Examples
/// ```
/// use avrokit::{Decoder, ErrorKind};
/// let mut dec = Decoder::from_slice(&[0x80]); // a varint that never ends
/// let err = dec.read_long().unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Eof);
/// assert!(err.is_eof());
/// assert_eq!(err.offset(), Some(1));
/// ```
pub struct Error(Box<Inner>);

/// `Result<T, avrokit::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    #[cold]
    #[inline(never)]
    pub(crate) fn new(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Error {
        Error(Box::new(Inner {
            kind,
            message: message.into(),
            offset: None,
            path: Vec::new(),
            source: None,
        }))
    }

    /// An error at a byte offset of the input.
    #[cold]
    #[inline(never)]
    pub(crate) fn at(kind: ErrorKind, message: impl Into<Cow<'static, str>>, offset: u64) -> Error {
        let mut e = Error::new(kind, message);
        e.0.offset = Some(offset);
        e
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn eof(offset: u64) -> Error {
        Error::at(ErrorKind::Eof, "unexpected end of input", offset)
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn schema(message: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::Schema, message)
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn data(message: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::Data, message)
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn io(err: std::io::Error) -> Error {
        if err.kind() == std::io::ErrorKind::UnexpectedEof {
            let mut e = Error::new(ErrorKind::Eof, "unexpected end of input");
            e.0.source = Some(Box::new(err));
            return e;
        }
        let mut e = Error::new(ErrorKind::Io, err.to_string());
        e.0.source = Some(Box::new(err));
        e
    }

    /// Wraps a foreign error (codec, JSON parser, ...) as the cause of an avrokit error.
    #[cold]
    #[inline(never)]
    pub(crate) fn with_source(
        kind: ErrorKind,
        message: impl Into<Cow<'static, str>>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        let mut e = Error::new(kind, message);
        e.0.source = Some(Box::new(source));
        e
    }

    /// Sets the byte offset if none is set yet (the innermost offset is the most precise).
    #[cold]
    #[must_use]
    pub(crate) fn or_offset(mut self, offset: u64) -> Error {
        if self.0.offset.is_none() {
            self.0.offset = Some(offset);
        }
        self
    }

    /// Puts `context` (what the failing part belongs to: a container block, a record) before
    /// the message; kind, offset, path and cause are kept.
    #[cold]
    #[must_use]
    pub(crate) fn in_context(mut self, context: impl fmt::Display) -> Error {
        self.0.message = format!("{context}: {}", self.0.message).into();
        self
    }

    /// Gives the error another kind and message (an end of input inside data known to be
    /// complete is corruption); offset, path and cause are kept.
    #[cold]
    #[must_use]
    pub(crate) fn recast(
        mut self,
        kind: ErrorKind,
        message: impl Into<Cow<'static, str>>,
    ) -> Error {
        self.0.kind = kind;
        self.0.message = message.into();
        self
    }

    /// Sets the byte offset, replacing any (an offset within a part mapped to the whole).
    #[cold]
    #[must_use]
    pub(crate) fn at_offset(mut self, offset: u64) -> Error {
        self.0.offset = Some(offset);
        self
    }

    /// Pushes `.name` onto the path (call while unwinding, innermost first).
    #[cold]
    #[must_use]
    pub(crate) fn in_field(mut self, name: impl Into<Cow<'static, str>>) -> Error {
        self.0.path.push(Segment::Name(name.into()));
        self
    }

    /// Pushes `[index]` onto the path.
    #[cold]
    #[must_use]
    pub(crate) fn in_index(mut self, index: u64) -> Error {
        self.0.path.push(Segment::Index(index));
        self
    }

    /// Renames the outermost path segment `.from` to `.to`, if that is what it is (a protocol
    /// message's parameters are parsed as the fields of a record, and reported as `request`).
    #[cold]
    #[must_use]
    pub(crate) fn rename_outer_field(mut self, from: &str, to: &'static str) -> Error {
        if let Some(Segment::Name(n)) = self.0.path.last_mut() {
            if n == from {
                *n = Cow::Borrowed(to);
            }
        }
        self
    }

    /// Pushes `["key"]` onto the path.
    #[cold]
    #[must_use]
    pub(crate) fn in_key(mut self, key: &str) -> Error {
        self.0.path.push(Segment::Key(key.to_owned()));
        self
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// True when the input ended early: a truncated datum or file.
    pub fn is_eof(&self) -> bool {
        self.0.kind == ErrorKind::Eof
    }

    /// The byte offset into the input where the error was found, when known.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// The message, without kind, offset or path.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The path to the failing value or schema element, outermost first, e.g.
    /// `Order.items[3].price` or `$.fields[1].type`; empty when there is none.
    pub fn path(&self) -> String {
        let mut s = String::new();
        for seg in self.0.path.iter().rev() {
            match seg {
                Segment::Name(n) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(n);
                }
                Segment::Index(i) => {
                    s.push('[');
                    s.push_str(&i.to_string());
                    s.push(']');
                }
                Segment::Key(k) => {
                    s.push_str("[\"");
                    s.push_str(k);
                    s.push_str("\"]");
                }
            }
        }
        s
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.kind, self.0.message)?;
        let path = self.path();
        if !path.is_empty() {
            write!(f, " at {path}")?;
        }
        if let Some(off) = self.0.offset {
            write!(f, " (byte offset {off})")?;
        }
        if let Some(src) = &self.0.source {
            let s = src.to_string();
            if !self.0.message.contains(&s) {
                write!(f, ": {s}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("message", &self.0.message)
            .field("offset", &self.0.offset)
            .field("path", &self.path())
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_ref()
            .map(|e| e.as_ref() as &(dyn std::error::Error + 'static))
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Error {
        Error::io(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_pointer() {
        assert_eq!(std::mem::size_of::<Error>(), std::mem::size_of::<usize>());
        assert_eq!(
            std::mem::size_of::<Result<()>>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn path_is_built_innermost_first() {
        let e = Error::data("expected double, found string")
            .in_field("price")
            .in_index(3)
            .in_field("items")
            .in_field("Order");
        assert_eq!(e.path(), "Order.items[3].price");
        let shown = e.to_string();
        assert!(shown.contains("Order.items[3].price"), "{shown}");
    }

    #[test]
    fn innermost_offset_wins() {
        let e = Error::eof(7).or_offset(2);
        assert_eq!(e.offset(), Some(7));
        assert!(e.is_eof());
    }
}
