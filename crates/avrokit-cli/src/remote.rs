//! Inputs and outputs that are object store URLs (`s3://bucket/key`, `gs://`, `az://`,
//! `http(s)://`, `file://`), through avrokit-object-store.
//!
//! A store is configured as object_store configures itself from the environment
//! (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ALLOW_HTTP`, `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`, ...). Inputs
//! are `Read + Seek` over ranged GETs with read-ahead (so split reading works on them too);
//! outputs are multipart uploads that appear only when the command succeeds and are aborted
//! otherwise. Requests run on one small tokio runtime, started on first use; each has the
//! library's timeout (30 s), so a store that stops answering is an error, not a hang.

use std::cell::RefCell;
use std::io::{self, Read, Seek, Write};
use std::path::Path;
use std::rc::Rc;
use std::sync::OnceLock;

use avrokit_object_store::blocking::{BlockingReader, BlockingUpload};
use avrokit_object_store::{is_url, store_from_url, ObjectReaderBuilder, UploadOptions};
use tokio::runtime::{Handle, Runtime};

use crate::error::{CliError, CliResult};

/// A readable, seekable input.
pub trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

/// True when `path` is a URL (`scheme://...`) rather than a file name.
pub fn is_remote(path: &Path) -> bool {
    path.to_str().is_some_and(is_url)
}

/// The runtime the requests run on: two worker threads, so that read-ahead and part uploads
/// progress while the command's thread decodes or encodes.
fn handle(place: &str) -> CliResult<Handle> {
    static RUNTIME: OnceLock<io::Result<Runtime>> = OnceLock::new();
    let rt = RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("avrokit-io")
            .enable_all()
            .build()
    });
    match rt {
        Ok(rt) => Ok(rt.handle().clone()),
        Err(e) => Err(CliError::input(
            format!("cannot start the I/O runtime: {e}"),
            place,
        )),
    }
}

fn url_of(path: &Path) -> &str {
    path.to_str().unwrap_or_default()
}

fn store_error(e: &avrokit_object_store::Error, place: &str) -> CliError {
    match e.kind() {
        avrokit_object_store::ErrorKind::Usage => CliError::usage(e.to_string(), place),
        _ => CliError::input(e.to_string(), place),
    }
}

/// Opens the object at the URL `path` for reading.
pub fn open(path: &Path) -> CliResult<Box<dyn ReadSeek>> {
    let url = url_of(path);
    let (store, object) = store_from_url(url).map_err(|e| store_error(&e, url))?;
    let reader = BlockingReader::open(store, &object, &ObjectReaderBuilder::new(), handle(url)?)
        .map_err(|e| store_error(&e, url))?;
    Ok(Box::new(reader))
}

/// The size of the object at the URL `path`, for the progress bar; `None` when unknown.
pub fn len(path: &Path) -> Option<u64> {
    let (store, object) = store_from_url(url_of(path)).ok()?;
    let h = handle(url_of(path)).ok()?;
    BlockingReader::open(store, &object, &ObjectReaderBuilder::new(), h)
        .ok()
        .map(|r| r.len())
}

/// A multipart upload to the URL `path`, shared between the output's buffer (which writes
/// into it) and the output (which commits it): see [`crate::io::Output`].
#[derive(Clone)]
pub struct Upload(Rc<RefCell<Option<BlockingUpload>>>);

impl Upload {
    /// Starts the upload.
    pub fn create(path: &Path) -> CliResult<Upload> {
        let url = url_of(path);
        let (store, object) = store_from_url(url).map_err(|e| store_error(&e, url))?;
        let up = BlockingUpload::create(store, &object, UploadOptions::new(), handle(url)?)
            .map_err(|e| store_error(&e, url))?;
        Ok(Upload(Rc::new(RefCell::new(Some(up)))))
    }

    /// Completes the upload (after the buffer in front of it was flushed): the object
    /// appears, whole.
    pub fn commit(&self, place: &str) -> CliResult<()> {
        match self.0.borrow_mut().take() {
            Some(up) => up.commit().map(|_| ()).map_err(|e| store_error(&e, place)),
            None => Err(CliError::input("the upload was already aborted", place)),
        }
    }

    /// Aborts the upload (a failed command): no object appears.
    pub fn abort(&self) {
        if let Some(up) = self.0.borrow_mut().take() {
            let _ = up.abort();
        }
    }
}

impl Write for Upload {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.0.borrow_mut().as_mut() {
            Some(up) => up.write(buf),
            None => Err(io::Error::other("the upload was aborted")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
