//! Python file objects as `io::Read`/`io::Write`/`io::Seek`, and the `fo` argument (a path, a
//! URL, a bytes-like object, or a binary file object) as an input.

use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// A binary file object: anything with `read` (and `write`, `seek`, `tell` where used).
/// Short reads are fine; an empty read is the end.
pub struct PyFile {
    obj: Py<PyAny>,
}

impl PyFile {
    pub fn new(obj: Py<PyAny>) -> PyFile {
        PyFile { obj }
    }
}

fn io_err(e: PyErr) -> io::Error {
    crate::errors::stash(&e);
    io::Error::other(e)
}

impl Read for PyFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            let got = obj.call_method1("read", (buf.len(),)).map_err(io_err)?;
            if let Ok(b) = got.cast::<PyBytes>() {
                let b = b.as_bytes();
                if b.len() > buf.len() {
                    return Err(io::Error::other(
                        "read() returned more bytes than asked for",
                    ));
                }
                buf[..b.len()].copy_from_slice(b);
                return Ok(b.len());
            }
            if let Ok(b) = got.cast::<PyByteArray>() {
                let v = b.to_vec();
                if v.len() > buf.len() {
                    return Err(io::Error::other(
                        "read() returned more bytes than asked for",
                    ));
                }
                buf[..v.len()].copy_from_slice(&v);
                return Ok(v.len());
            }
            if got.is_none() {
                // A non-blocking stream with nothing available: no progress is an error here,
                // not a busy loop.
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    "read() returned None",
                ));
            }
            Err(io::Error::other(format!(
                "read() returned {}, not bytes (is the file open in binary mode?)",
                got.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            )))
        })
    }
}

impl Write for PyFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            let n = obj
                .call_method1("write", (PyBytes::new(py, buf),))
                .map_err(io_err)?;
            // Raw files may write less; buffered ones return the length (or None).
            Ok(n.extract::<usize>().unwrap_or(buf.len()).min(buf.len()))
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            if obj.hasattr("flush").unwrap_or(false) {
                obj.call_method0("flush").map_err(io_err)?;
            }
            Ok(())
        })
    }
}

impl Seek for PyFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            let (off, whence): (i64, i32) = match pos {
                SeekFrom::Start(n) => (n as i64, 0),
                SeekFrom::Current(n) => (n, 1),
                SeekFrom::End(n) => (n, 2),
            };
            obj.call_method1("seek", (off, whence)).map_err(io_err)?;
            obj.call_method0("tell")
                .and_then(|t| t.extract::<u64>())
                .map_err(io_err)
        })
    }
}

/// The input of a reader.
pub type Input = Box<dyn Read + Send>;

/// Opens `fo`: a path (`str` or `os.PathLike`), a URL (`str`: see [`crate::remote`]), a
/// bytes-like object (copied), or a binary file object.
pub fn open_input(fo: &Bound<'_, PyAny>) -> PyResult<Input> {
    if let Some(url) = as_url(fo)? {
        return crate::remote::open(fo.py(), &url);
    }
    if let Ok(b) = fo.cast::<PyBytes>() {
        return Ok(Box::new(Cursor::new(b.as_bytes().to_vec())));
    }
    if let Ok(b) = fo.cast::<PyByteArray>() {
        return Ok(Box::new(Cursor::new(b.to_vec())));
    }
    if fo.get_type().name().is_ok_and(|n| n == "memoryview") {
        let b = fo.call_method0("tobytes")?;
        return Ok(Box::new(Cursor::new(
            b.cast::<PyBytes>()?.as_bytes().to_vec(),
        )));
    }
    if let Some(path) = as_path(fo)? {
        let f = File::open(&path)
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{path}: {e}")))?;
        return Ok(Box::new(f));
    }
    if fo.hasattr("read")? {
        return Ok(Box::new(PyFile::new(fo.clone().unbind())));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "expected a path, bytes or a binary file object, not {}",
        fo.get_type().name()?
    )))
}

/// `fo` as an object store URL (`s3://bucket/key`...), if it is a `str` that is one.
pub fn as_url(fo: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if let Ok(s) = fo.cast::<PyString>() {
        let s = crate::write::str_of(s)?;
        if crate::remote::is_url(s) {
            return Ok(Some(s.to_owned()));
        }
    }
    Ok(None)
}

/// `fo` as a filesystem path, if it is one (a URL is not: ask [`as_url`] first).
pub fn as_path(fo: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    if let Ok(s) = fo.cast::<PyString>() {
        return Ok(Some(crate::write::str_of(s)?.to_owned()));
    }
    if fo.hasattr("__fspath__")? {
        let p = fo.call_method0("__fspath__")?;
        if let Ok(s) = p.cast::<PyString>() {
            return Ok(Some(crate::write::str_of(s)?.to_owned()));
        }
    }
    Ok(None)
}
