//! The CLI's error type and its exit-code contract.
//!
//! Every failure is reported as exactly one line on stderr,
//! `avrokit: error: <what> (<where>)`, and mapped to an exit code:
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success (also: stdout closed early by the reader, e.g. `| head`) |
//! | 1 | bad input: a malformed file, schema or JSON line, an I/O failure; `compat`: incompatible |
//! | 2 | bad usage: unknown options, bad option values (clap reports these itself) |
//! | 70 | an internal error (a panic): a bug in avrokit (`EX_SOFTWARE` of sysexits.h) |

use std::fmt;
use std::io;

/// Exit code for bad input and failed I/O.
pub const EXIT_INPUT: i32 = 1;
/// Exit code for bad usage (the same code clap uses for its own usage errors).
pub const EXIT_USAGE: i32 = 2;
/// Exit code for an internal error (a panic), distinct from Rust's default 101.
pub const EXIT_INTERNAL: i32 = 70;

/// A failed command: what went wrong, where, and the exit code it maps to.
#[derive(Debug)]
pub enum CliError {
    /// A reportable failure.
    Failed {
        /// What went wrong.
        what: String,
        /// Where: a file name, a line number, a byte offset.
        place: String,
        /// The process exit code.
        code: i32,
    },
    /// Stdout was closed by its reader (`EPIPE`): stop quietly and exit 0, as `cat` and
    /// ripgrep do, since whoever closed the pipe has all it wanted.
    BrokenPipe,
}

/// `Result<T, CliError>`.
pub type CliResult<T> = Result<T, CliError>;

impl CliError {
    /// Bad input (exit 1) at `place`.
    pub fn input(what: impl Into<String>, place: impl Into<String>) -> CliError {
        CliError::Failed {
            what: what.into(),
            place: place.into(),
            code: EXIT_INPUT,
        }
    }

    /// Bad usage (exit 2), e.g. options that contradict each other.
    pub fn usage(what: impl Into<String>, place: impl Into<String>) -> CliError {
        CliError::Failed {
            what: what.into(),
            place: place.into(),
            code: EXIT_USAGE,
        }
    }

    /// An avrokit library error found while working on `place`. The byte offset, when the
    /// library knows it, joins the place (`data.avro, byte 1234`).
    pub fn avro(err: &avrokit::Error, place: &str) -> CliError {
        if is_broken_pipe(err) {
            return CliError::BrokenPipe;
        }
        let mut what = format!("{}: {}", err.kind(), err.message());
        let path = err.path();
        if !path.is_empty() {
            what.push_str(" at ");
            what.push_str(&path);
        }
        if let Some(src) = std::error::Error::source(err) {
            let s = src.to_string();
            if !what.contains(&s) {
                what.push_str(": ");
                what.push_str(&s);
            }
        }
        let place = match err.offset() {
            Some(off) => format!("{place}, byte {off}"),
            None => place.to_owned(),
        };
        CliError::input(what, place)
    }

    /// An I/O error while working on `place`.
    pub fn io(err: &io::Error, place: &str) -> CliError {
        if err.kind() == io::ErrorKind::BrokenPipe {
            return CliError::BrokenPipe;
        }
        CliError::input(err.to_string(), place)
    }

    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Failed { code, .. } => *code,
            CliError::BrokenPipe => 0,
        }
    }
}

/// True when the error, or any error it wraps, is a broken pipe.
pub(crate) fn is_broken_pipe(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<io::Error>() {
            if io.kind() == io::ErrorKind::BrokenPipe {
                return true;
            }
        }
        cur = e.source();
    }
    false
}

/// The single line printed on stderr (without the newline). Line breaks inside messages are
/// flattened so that the one-line contract holds whatever a library message contains.
impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Failed { what, place, .. } => {
                let line = format!("avrokit: error: {what} ({place})");
                f.write_str(&one_line(&line))
            }
            CliError::BrokenPipe => f.write_str("avrokit: broken pipe"),
        }
    }
}

/// Replaces line breaks with spaces.
pub fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if matches!(c, '\n' | '\r') { ' ' } else { c })
        .collect()
}

/// Adds the place to library and I/O errors: `reader.schema().at(path)?`-style context.
pub trait Context<T> {
    /// Converts the error, saying which file (or line) it concerns.
    fn at(self, place: &str) -> CliResult<T>;
}

impl<T> Context<T> for Result<T, avrokit::Error> {
    fn at(self, place: &str) -> CliResult<T> {
        self.map_err(|e| CliError::avro(&e, place))
    }
}

impl<T> Context<T> for Result<T, io::Error> {
    fn at(self, place: &str) -> CliResult<T> {
        self.map_err(|e| CliError::io(&e, place))
    }
}
