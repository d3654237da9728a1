//! `fo` as an object store URL (`s3://bucket/key`, `gs://`, `az://`, `http(s)://`,
//! `file://`), through avrokit-object-store (the `object-store` feature).
//!
//! A store is configured from the environment as the `avrokit` CLI's are (object_store's
//! `from_env`: `AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_REGION`, `AWS_ALLOW_HTTP`, `GOOGLE_*`, `AZURE_*`...), read when each file is opened.
//! - Inputs are avrokit-object-store's `BlockingReader` (`Read + Seek`) with whole reads: a
//!   HEAD, then one GET streamed into the decoder, at most 8 MiB ahead of it.
//! - Outputs are multipart uploads: parts upload as they fill, the object appears only at
//!   [`Upload::commit`], and a failure (or a writer dropped unfinished) aborts the upload.
//!
//! Requests run on one small tokio runtime (two threads), started on first use and started
//! anew in a child process after `fork` (the parent's threads are not there). Every wait for
//! the network happens with the GIL released; every request has the library's timeout (30 s,
//! around object_store's own retries), so a store that stops answering is an error, not a
//! hang. Failures are `AvroError`s whose message starts with the URL.

#[cfg(feature = "object-store")]
use pyo3::prelude::*;

#[cfg(feature = "object-store")]
use crate::errors::raise;

/// A failure of the store at `url` as an `AvroError`: the URL, then the store's message
/// (which names the request and the byte range); `offset` is the byte offset in the object
/// when known.
#[cfg(feature = "object-store")]
#[cold]
fn store_err(url: &str, e: &avrokit_object_store::Error) -> PyErr {
    let path = e.avro_error().map(|a| a.path()).unwrap_or_default();
    let text = e.to_string();
    // Errors about the URL itself (a bad scheme...) already start with it.
    let text = if text.starts_with(url) {
        text
    } else {
        format!("{url}: {text}")
    };
    raise(text, e.offset(), path)
}

#[cfg(feature = "object-store")]
mod imp {
    use std::io::{self, Read};
    use std::sync::{Arc, Mutex, PoisonError};

    use avrokit_object_store::blocking::{BlockingReader, BlockingUpload};
    use avrokit_object_store::{store_from_url, ObjectReaderBuilder, UploadOptions};
    use pyo3::prelude::*;
    use tokio::runtime::{Handle, Runtime};

    use super::store_err;
    use crate::errors::raise;
    use crate::pyio::Input;

    /// The runtime the requests run on: two worker threads, so that the GET streaming ahead
    /// and part uploads progress while Python's thread decodes or encodes.
    fn handle() -> PyResult<Handle> {
        static RUNTIME: Mutex<Option<(u32, Runtime)>> = Mutex::new(None);
        let mut rt = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
        let pid = std::process::id();
        match rt.take() {
            Some((p, r)) if p == pid => {
                let h = r.handle().clone();
                *rt = Some((p, r));
                return Ok(h);
            }
            // A child process after `fork`: the parent's worker threads are not here, so its
            // runtime can neither run nor be dropped (dropping waits for them): leak it.
            Some((_, r)) => std::mem::forget(r),
            None => {}
        }
        let r = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("avrokit-io")
            .enable_all()
            .build()
            .map_err(|e| {
                raise(
                    format!("cannot start the I/O runtime: {e}"),
                    None,
                    String::new(),
                )
            })?;
        let h = r.handle().clone();
        *rt = Some((pid, r));
        Ok(h)
    }

    /// Opens the object at `url` for reading from its start to its end (a HEAD now, one
    /// streamed GET on the first read), without the GIL.
    pub fn open(py: Python<'_>, url: &str) -> PyResult<Input> {
        let h = handle()?;
        py.detach(|| {
            let (store, object) = store_from_url(url)?;
            let r = BlockingReader::open(store, &object, &ObjectReaderBuilder::new(), h)?;
            Ok(Box::new(r.with_whole_reads()) as Input)
        })
        .map_err(|e| store_err(url, &e))
    }

    /// The object's first four bytes are the container magic; false for a missing object.
    pub fn is_avro(py: Python<'_>, url: &str) -> PyResult<bool> {
        let h = handle()?;
        py.detach(|| {
            let (store, object) = store_from_url(url)?;
            let mut r = match BlockingReader::open(store, &object, &ObjectReaderBuilder::new(), h) {
                Ok(r) => r,
                Err(e) if e.is_not_found() => return Ok(false),
                Err(e) => return Err(e),
            };
            let mut head = [0u8; 4];
            let mut got = 0;
            while got < 4 {
                match r.read(&mut head[got..]) {
                    Ok(0) => return Ok(false),
                    Ok(n) => got += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(avrokit::Error::from(e).into()),
                }
            }
            Ok(&head == b"Obj\x01")
        })
        .map_err(|e| store_err(url, &e))
    }

    /// A multipart upload to a URL, shared by the container writer that writes into it and
    /// the code that commits or aborts it.
    #[derive(Clone)]
    pub struct Upload(Arc<Shared>);

    struct Shared {
        url: String,
        /// None once committed or aborted.
        up: Mutex<Option<BlockingUpload>>,
    }

    impl Upload {
        /// Starts a multipart upload to `url`, without the GIL.
        pub fn create(py: Python<'_>, url: &str) -> PyResult<Upload> {
            let h = handle()?;
            let up = py
                .detach(|| {
                    let (store, object) = store_from_url(url)?;
                    BlockingUpload::create(store, &object, UploadOptions::new(), h)
                })
                .map_err(|e| store_err(url, &e))?;
            Ok(Upload(Arc::new(Shared {
                url: url.to_owned(),
                up: Mutex::new(Some(up)),
            })))
        }

        fn take(&self) -> Option<BlockingUpload> {
            self.0
                .up
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
        }

        /// Uploads the last part and completes the upload (after the writer in front of it
        /// finished): the object appears, whole. A failure aborts it.
        pub fn commit(&self, py: Python<'_>) -> PyResult<()> {
            let up = self.take().ok_or_else(|| {
                raise(
                    format!("{}: the upload was aborted", self.0.url),
                    None,
                    String::new(),
                )
            })?;
            py.detach(|| up.commit())
                .map(|_| ())
                .map_err(|e| store_err(&self.0.url, &e))
        }

        /// Aborts the upload: no object appears (the store's error, if any, is dropped: the
        /// write's own failure is the one to report).
        pub fn abort(&self, py: Python<'_>) {
            if let Some(up) = self.take() {
                py.detach(|| drop(up.abort()));
            }
        }
    }

    impl io::Write for Upload {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let mut up = self.0.up.lock().unwrap_or_else(PoisonError::into_inner);
            match up.as_mut() {
                Some(u) => u.write(buf),
                None => Err(io::Error::other(format!(
                    "{}: the upload was aborted",
                    self.0.url
                ))),
            }
        }

        fn flush(&mut self) -> io::Result<()> {
            // Parts upload as they fill; the last one waits for `commit`.
            Ok(())
        }
    }

    impl Drop for Shared {
        /// An upload neither committed nor aborted (a writer dropped unfinished) is aborted,
        /// with the GIL released while the store answers.
        fn drop(&mut self) {
            let mut up = self
                .up
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if up.is_some() {
                let _ = Python::try_attach(|py| py.detach(|| drop(up.take())));
                drop(up);
            }
        }
    }
}

#[cfg(not(feature = "object-store"))]
mod imp {
    //! Without the `object-store` feature: a URL is an error that says so, never a file name.

    use std::convert::Infallible;
    use std::io;

    use pyo3::prelude::*;

    use crate::errors::raise;
    use crate::pyio::Input;

    fn missing(url: &str) -> PyErr {
        raise(
            format!(
                "{url}: this build of avrokit reads and writes no URLs (it was built without \
                 the `object-store` feature)"
            ),
            None,
            String::new(),
        )
    }

    pub fn open(_py: Python<'_>, url: &str) -> PyResult<Input> {
        Err(missing(url))
    }

    pub fn is_avro(_py: Python<'_>, url: &str) -> PyResult<bool> {
        Err(missing(url))
    }

    /// No upload can exist without the feature. The never-type field is private so that the
    /// callers' code after `Upload::create` does not read as unreachable to rustc (an empty
    /// enum would make every use of an upload an `unreachable_code` warning in this build).
    #[derive(Clone)]
    pub struct Upload(Infallible);

    impl Upload {
        pub fn create(_py: Python<'_>, url: &str) -> PyResult<Upload> {
            Err(missing(url))
        }

        pub fn commit(&self, _py: Python<'_>) -> PyResult<()> {
            match self.0 {}
        }

        pub fn abort(&self, _py: Python<'_>) {
            match self.0 {}
        }
    }

    impl io::Write for Upload {
        fn write(&mut self, _buf: &[u8]) -> io::Result<usize> {
            match self.0 {}
        }

        fn flush(&mut self) -> io::Result<()> {
            match self.0 {}
        }
    }
}

pub use imp::{is_avro, open, Upload};

/// Whether this build reads and writes URLs (the `object-store` feature).
pub const ENABLED: bool = cfg!(feature = "object-store");

/// True when `s` is a URL (`scheme://...`) rather than a file name: the rule of
/// avrokit-object-store's `is_url` (and of the CLI), kept here for builds without it.
pub fn is_url(s: &str) -> bool {
    match s.split_once("://") {
        Some((scheme, _)) => {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}
