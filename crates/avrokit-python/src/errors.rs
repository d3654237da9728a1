//! `avrokit.AvroError` and the error paths of the decoders and encoders.
//!
//! A failure deep inside a datum unwinds as a [`Fail`], which collects the path (`.field`,
//! `[3]`, `["key"]`) on its way out; only at the top is it turned into a Python exception whose
//! message names the kind, the path and the byte offset, as the core's errors do.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

create_exception!(
    avrokit,
    AvroError,
    PyValueError,
    "Malformed Avro data, an invalid schema, or a value that does not fit its schema.\n\n\
     A `ValueError`, as fastavro's errors are. `offset` is the byte offset where the problem \
     was found (or None), `path` the place in the datum (`.field[2]`, or '')."
);

/// A failure on the way out of a datum.
pub struct Fail(Box<FailInner>);

struct FailInner {
    message: String,
    offset: Option<u64>,
    /// Innermost segment first.
    path: Vec<Seg>,
    /// A Python exception raised by a callback (a constructor, `__iter__`, a file's `read`).
    cause: Option<PyErr>,
    /// The input ended inside the datum.
    eof: bool,
}

enum Seg {
    Field(Py<PyString>),
    Index(usize),
    Key(String),
}

pub type FResult<T> = Result<T, Fail>;

impl Fail {
    #[cold]
    #[inline(never)]
    pub fn msg(message: impl Into<String>) -> Fail {
        Fail(Box::new(FailInner {
            message: message.into(),
            offset: None,
            path: Vec::new(),
            cause: None,
            eof: false,
        }))
    }

    /// The input ended inside the datum.
    pub fn is_eof(&self) -> bool {
        self.0.eof
    }

    #[cold]
    #[inline(never)]
    pub fn at(message: impl Into<String>, offset: u64) -> Fail {
        let mut f = Fail::msg(message);
        f.0.offset = Some(offset);
        f
    }

    #[cold]
    #[inline(never)]
    pub fn field(mut self, name: &Py<PyString>) -> Fail {
        self.0.path.push(Seg::Field(name.clone_ref_unchecked()));
        self
    }

    #[cold]
    #[inline(never)]
    pub fn index(mut self, i: usize) -> Fail {
        self.0.path.push(Seg::Index(i));
        self
    }

    #[cold]
    #[inline(never)]
    pub fn key(mut self, k: &str) -> Fail {
        self.0.path.push(Seg::Key(k.to_owned()));
        self
    }

    /// Adds `base` to the offset (a datum decoded from the middle of a block).
    pub fn shift(mut self, base: u64) -> Fail {
        if let Some(o) = &mut self.0.offset {
            *o += base;
        }
        self
    }

    pub fn prefix(mut self, p: &str) -> Fail {
        self.0.message = format!("{p}{}", self.0.message);
        self
    }

    fn path_string(&self, py: Python<'_>) -> String {
        let mut s = String::new();
        for seg in self.0.path.iter().rev() {
            match seg {
                Seg::Field(n) => {
                    s.push('.');
                    s.push_str(&n.bind(py).to_string_lossy());
                }
                Seg::Index(i) => s.push_str(&format!("[{i}]")),
                Seg::Key(k) => s.push_str(&format!("[{k:?}]")),
            }
        }
        s
    }

    /// The Python exception: `AvroError(message at path (byte offset N))`, with the Python
    /// cause chained.
    pub fn into_py(self, py: Python<'_>) -> PyErr {
        if let Some(cause) = &self.0.cause {
            if !is_exception(py, cause) {
                // KeyboardInterrupt, SystemExit...: not ours to wrap.
                return cause.clone_ref(py);
            }
        }
        let path = self.path_string(py);
        let mut text = self.0.message.clone();
        if !path.is_empty() {
            text.push_str(" at ");
            text.push_str(&path);
        }
        if let Some(o) = self.0.offset {
            text.push_str(&format!(" (byte offset {o})"));
        }
        let err = AvroError::new_err(text);
        let value = err.value(py);
        let _ = value.setattr("offset", self.0.offset);
        let _ = value.setattr("path", path);
        if let Some(cause) = self.0.cause {
            value.setattr("__cause__", cause.value(py)).ok();
        }
        err
    }
}

trait CloneRefUnchecked {
    fn clone_ref_unchecked(&self) -> Self;
}

impl CloneRefUnchecked for Py<PyString> {
    fn clone_ref_unchecked(&self) -> Self {
        // Only ever called with the GIL held (on the error path of code that holds it).
        Python::attach(|py| self.clone_ref(py))
    }
}

impl From<avrokit::Error> for Fail {
    #[cold]
    fn from(e: avrokit::Error) -> Fail {
        let mut message = format!("{}: {}", e.kind(), e.message());
        let path = e.path();
        if !path.is_empty() {
            message.push_str(&format!(" (in {path})"));
        }
        Fail(Box::new(FailInner {
            message,
            offset: e.offset(),
            path: Vec::new(),
            cause: None,
            eof: e.is_eof(),
        }))
    }
}

impl From<PyErr> for Fail {
    #[cold]
    fn from(e: PyErr) -> Fail {
        let message = Python::attach(|py| {
            let v = e.value(py);
            let t = v
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            format!("{t}: {v}")
        });
        Fail(Box::new(FailInner {
            message,
            offset: None,
            path: Vec::new(),
            cause: Some(e),
            eof: false,
        }))
    }
}

fn is_exception(py: Python<'_>, e: &PyErr) -> bool {
    e.is_instance_of::<pyo3::exceptions::PyException>(py)
}

thread_local! {
    /// The exception a Python file object raised inside an I/O call of the core (which can
    /// only carry an `io::Error`): re-raised, or chained, when that call's error comes out.
    static PENDING: std::cell::RefCell<Option<PyErr>> = const { std::cell::RefCell::new(None) };
}

/// Keeps the exception a file object raised, for [`avro_err`].
pub fn stash(e: &PyErr) {
    Python::attach(|py| PENDING.with(|p| *p.borrow_mut() = Some(e.clone_ref(py))));
}

/// A core error as `AvroError` (its Display names kind, path and offset). An exception a file
/// object raised on the way is chained as its cause, or re-raised as it is when it is not an
/// `Exception` (KeyboardInterrupt...).
#[cold]
pub fn avro_err(e: avrokit::Error) -> PyErr {
    raise(e.to_string(), e.offset(), e.path())
}

/// An avrokit-arrow error as `AvroError`, as [`avro_err`] does for the core's: the message
/// names the block, record, byte offset and column path; `offset` and `path` hold the last two.
#[cold]
pub fn arrow_err(e: avrokit_arrow::Error) -> PyErr {
    raise(e.to_string(), e.offset(), e.path())
}

/// An `AvroError` with `text`, `offset` and `path` (a file object's pending exception chained).
#[cold]
pub fn raise(text: String, offset: Option<u64>, path: String) -> PyErr {
    let err = AvroError::new_err(text);
    Python::attach(|py| {
        let cause = PENDING.with(|p| p.borrow_mut().take());
        if let Some(c) = &cause {
            if !is_exception(py, c) {
                return c.clone_ref(py);
            }
        }
        {
            let v = err.value(py);
            let _ = v.setattr("offset", offset);
            let _ = v.setattr("path", path);
            if let Some(c) = &cause {
                let _ = v.setattr("__cause__", c.value(py));
            }
        }
        err
    })
}

/// A `Fail` as a Python exception.
pub fn to_py(e: Fail) -> PyErr {
    Python::attach(|py| e.into_py(py))
}
