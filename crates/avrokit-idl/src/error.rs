//! Errors and warnings, with the file, line and column they are about.

use std::fmt;
use std::path::{Path, PathBuf};

/// A place in an IDL file: the file (an index into the reader's file list), 1-based line and
/// column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) file: u32,
    pub(crate) line: u32,
    pub(crate) column: u32,
}

/// Where an error or warning is: file, line and column (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file, as it was given or found (`<input>` for text without a file).
    pub file: PathBuf,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1, in characters.
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// An IDL file that cannot be read: a syntax error, an unknown type, a bad import, an invalid
/// schema... Displayed as `file:line:column: message`.
#[derive(Debug)]
pub struct Error {
    message: String,
    /// Unresolved position; [`Error::locate`] turns it into a [`Location`].
    pos: Option<Pos>,
    location: Option<Location>,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    pub(crate) fn at(pos: Pos, message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            pos: Some(pos),
            location: None,
            source: None,
        }
    }

    pub(crate) fn nowhere(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            pos: None,
            location: None,
            source: None,
        }
    }

    pub(crate) fn in_file(file: &Path, message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            pos: None,
            location: Some(Location {
                file: file.to_owned(),
                line: 0,
                column: 0,
            }),
            source: None,
        }
    }

    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        self.source = Some(Box::new(source));
        self
    }

    /// Gives a position to an error that has none yet.
    pub(crate) fn or_at(mut self, pos: Pos) -> Error {
        if self.pos.is_none() && self.location.is_none() {
            self.pos = Some(pos);
        }
        self
    }

    /// Resolves the position against the reader's file list.
    pub(crate) fn locate(mut self, files: &[PathBuf]) -> Error {
        if let Some(pos) = self.pos.take() {
            self.location = Some(location(pos, files));
        }
        self
    }

    /// The message, without the location.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where the error is, when it is about a place in a file. A line of 0 means the whole file.
    pub fn location(&self) -> Option<&Location> {
        self.location.as_ref()
    }
}

pub(crate) fn location(pos: Pos, files: &[PathBuf]) -> Location {
    Location {
        file: files
            .get(pos.file as usize)
            .cloned()
            .unwrap_or_else(|| PathBuf::from("<input>")),
        line: pos.line,
        column: pos.column,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(l) if l.line == 0 => write!(f, "{}: {}", l.file.display(), self.message),
            Some(l) => write!(f, "{l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Something legal but probably not meant, such as a doc comment that documents nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where it is.
    pub location: Location,
    /// What it is.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: warning: {}", self.location, self.message)
    }
}
