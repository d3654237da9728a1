//! Writing container files to a store: [`ObjectWriter`].

use std::fmt;
use std::io::Write;
use std::sync::{Arc, Mutex};

use avrokit::container::{Codec, Writer, WriterBuilder};
use avrokit::serde::SerPlan;
use avrokit::{Schema, Value};
use object_store::path::Path;
use object_store::{ObjectStore, PutResult};

use crate::error::{Error, ErrorKind, Result};
use crate::upload::{Upload, UploadOptions};

/// The blocking writer's sink: whole blocks (and the header) staged for the upload.
#[derive(Clone, Default)]
struct Staging(Arc<Mutex<Vec<u8>>>);

impl Staging {
    fn take(&self) -> Vec<u8> {
        match self.0.lock() {
            Ok(mut v) => std::mem::take(&mut *v),
            Err(p) => std::mem::take(&mut *p.into_inner()),
        }
    }
}

impl Write for Staging {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self.0.lock() {
            Ok(mut v) => v.extend_from_slice(buf),
            Err(p) => p.into_inner().extend_from_slice(buf),
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes an Avro container file to an object store through a multipart upload.
///
/// Records are encoded and blocks compressed by the core's blocking
/// [`Writer`](avrokit::container::Writer) (the same bytes as a local file), and the file's
/// bytes go to the store in parts as they fill, at most
/// [`with_max_concurrency`](UploadOptions::with_max_concurrency) at once, so memory stays at
/// about `(max_concurrency + 1) × part size` whatever the file's size.
///
/// - **The object appears only when [`finish`](Self::finish) succeeds**, whole: until then
///   readers see the previous object, or none.
/// - **A failed upload is aborted**: the first part, completion or store error aborts it
///   (removing the parts already stored) and poisons the writer; every later call fails.
/// - An encoding error (a value that does not match the schema) is returned and writes
///   nothing, as with the core writer; the upload goes on.
/// - **Dropped without `finish` or [`abort`](Self::abort)**, the writer cannot wait (that
///   needs an `.await`): it spawns the abort on the current tokio runtime, if there is one.
///   Call `abort` to know it is done.
///
/// # Examples
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use avrokit::container::{Codec, WriterBuilder};
/// use avrokit::{Schema, Value};
/// use avrokit_object_store::{ObjectReaderBuilder, ObjectWriter, UploadOptions};
/// use futures::TryStreamExt;
/// use object_store::{memory::InMemory, path::Path, ObjectStore};
///
/// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
/// let path = Path::from("out/longs.avro");
/// let schema = Schema::parse_str(r#""long""#)?;
/// let builder = WriterBuilder::new(&schema).with_codec(Codec::Snappy);
/// let mut w = ObjectWriter::create(store.clone(), &path, builder, UploadOptions::new()).await?;
/// for i in 0..1000 {
///     w.append(&Value::Long(i)).await?;
/// }
/// w.finish().await?;
///
/// let file = ObjectReaderBuilder::new().open(store, &path).await?;
/// let back: Vec<Value> = file.reader().await?.into_stream().try_collect().await?;
/// assert_eq!(back.len(), 1000);
/// # Ok(())
/// # }
/// ```
pub struct ObjectWriter {
    inner: Writer<Staging>,
    stage: Staging,
    upload: Option<Upload>,
    written: u64,
}

impl ObjectWriter {
    /// Starts a multipart upload to `path` and writes the header (of `builder`'s options:
    /// schema, codec, block size, metadata) into it.
    ///
    /// # Errors
    /// The store refusing the upload, or `builder`'s options (a bad codec level, a reserved
    /// metadata key).
    pub async fn create(
        store: Arc<dyn ObjectStore>,
        path: &Path,
        builder: WriterBuilder,
        options: UploadOptions,
    ) -> Result<ObjectWriter> {
        let stage = Staging::default();
        // Check the options before starting an upload that would only be aborted.
        let inner = builder.build(stage.clone())?;
        let upload = Upload::create(store.as_ref(), path, options).await?;
        let mut w = ObjectWriter {
            inner,
            stage,
            upload: Some(upload),
            written: 0,
        };
        w.pump().await?;
        Ok(w)
    }

    /// The schema records are written with.
    pub fn schema(&self) -> &Schema {
        self.inner.schema()
    }

    /// The codec of the file's blocks.
    pub fn codec(&self) -> Codec {
        self.inner.codec()
    }

    /// Bytes of the file handed to the upload so far (whole blocks and the header).
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// Records appended but not yet in a block.
    pub fn pending_records(&self) -> u64 {
        self.inner.pending_records()
    }

    /// True after an upload error (the upload is then aborted).
    pub fn is_poisoned(&self) -> bool {
        self.upload.is_none()
    }

    /// Appends one record, checked against the schema; a full block goes to the upload.
    ///
    /// # Errors
    /// A value that does not match the schema (nothing is written), or an upload failure
    /// (the upload is aborted and the writer poisoned).
    pub async fn append(&mut self, value: &Value) -> Result<()> {
        self.check()?;
        self.inner.append(value)?;
        self.pump().await
    }

    /// Appends one serde value through `plan` (see
    /// [`Writer::append_serde`](avrokit::container::Writer::append_serde)).
    ///
    /// # Errors
    /// As [`append`](Self::append).
    pub async fn append_serde<T: serde::Serialize + ?Sized>(
        &mut self,
        value: &T,
        plan: &SerPlan,
    ) -> Result<()> {
        self.check()?;
        self.inner.append_serde(value, plan)?;
        self.pump().await
    }

    /// Appends one record already encoded with the file's schema (not checked).
    ///
    /// # Errors
    /// An upload failure.
    pub async fn append_encoded(&mut self, datum: &[u8]) -> Result<()> {
        self.check()?;
        self.inner.append_encoded(datum)?;
        self.pump().await
    }

    /// Writes the pending records as a block and hands it to the upload (the object is
    /// still not visible: only [`finish`](Self::finish) makes it so).
    ///
    /// # Errors
    /// An upload failure, or a compression error.
    pub async fn flush(&mut self) -> Result<()> {
        self.check()?;
        self.inner.flush()?;
        self.pump().await
    }

    /// Writes the pending records and completes the upload: the object is then visible,
    /// whole. Returns its ETag and version.
    ///
    /// # Errors
    /// A compression or upload failure; the upload is then aborted and no object appears.
    pub async fn finish(mut self) -> Result<PutResult> {
        self.check()?;
        if let Err(e) = self.inner.flush() {
            return Err(self.fail(e.into()).await);
        }
        self.pump().await?;
        let upload = self.upload.take().expect("checked");
        upload.complete().await
    }

    /// Aborts the upload: no object appears and the parts already uploaded are removed.
    ///
    /// # Errors
    /// The store failing the abort (the upload was already aborted after an earlier error:
    /// that is not one).
    pub async fn abort(mut self) -> Result<()> {
        match self.upload.take() {
            Some(u) => u.abort().await,
            None => Ok(()),
        }
    }

    fn check(&self) -> Result<()> {
        if self.upload.is_none() {
            return Err(Error::new(
                ErrorKind::Store,
                "the upload failed earlier and was aborted: nothing more can be written",
            ));
        }
        Ok(())
    }

    /// Moves the staged bytes into the upload and waits while it is at its concurrency.
    async fn pump(&mut self) -> Result<()> {
        let bytes = self.stage.take();
        let Some(upload) = self.upload.as_mut() else {
            return self.check();
        };
        upload.write(&bytes);
        self.written += bytes.len() as u64;
        if let Err(e) = upload.wait_for_capacity().await {
            return Err(self.fail(e).await);
        }
        Ok(())
    }

    /// Aborts the upload after `e` and poisons the writer.
    async fn fail(&mut self, e: Error) -> Error {
        match self.upload.take() {
            Some(u) => u.abort_after(e).await,
            None => e,
        }
    }
}

impl Drop for ObjectWriter {
    fn drop(&mut self) {
        if let Some(u) = self.upload.take() {
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                handle.spawn(async move {
                    let _ = u.abort().await;
                });
            }
        }
    }
}

impl fmt::Debug for ObjectWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectWriter")
            .field("codec", &self.codec())
            .field("bytes_written", &self.written)
            .field("poisoned", &self.is_poisoned())
            .finish_non_exhaustive()
    }
}
