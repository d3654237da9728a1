//! Arrow for Python: container files to pyarrow Tables and RecordBatch streams through
//! avrokit-arrow, and Arrow data (anything exporting the Arrow PyCapsule interface) back to
//! container files.
//!
//! Batches cross into Python by the Arrow C data interface (pyo3-arrow's PyCapsules), so
//! pyarrow and polars (any consumer of the interface) take them without a copy. The GIL is released while blocks are
//! read, decompressed and decoded (and while batches are encoded and compressed); a Python
//! file object as the source or sink takes it back for each `read`/`write` call only.

use std::io::{Cursor, Read};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use avrokit_arrow::{BatchEncoder, ReaderBuilder, AVRO_SCHEMA_KEY};
use pyo3::exceptions::{PyStopIteration, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyByteArray, PyBytes, PyCapsule, PyDict};
use pyo3_arrow::input::AnyRecordBatch;
use pyo3_arrow::{PyRecordBatch, PyRecordBatchReader, PySchema, PyTable};

use crate::container::builder;
use crate::errors::{arrow_err, avro_err};
use crate::pyio::{as_path, as_url, Input, PyFile};
use crate::remote::Upload;
use crate::schema::Schema;
use crate::shared::{Guard, Shared};

/// Where a container file is read from: bytes held by Python (read in place), or a stream.
enum Source {
    Bytes(PyBackedBytes),
    Stream(Input),
}

impl Source {
    /// `fo` as a source: `bytes` (not copied), another bytes-like object (copied), a URL (a
    /// HEAD now, then one streamed GET), a path, or a binary file object.
    fn open(fo: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Some(url) = as_url(fo)? {
            return Ok(Source::Stream(crate::remote::open(fo.py(), &url)?));
        }
        if let Ok(b) = fo.cast::<PyBytes>() {
            return Ok(Source::Bytes(b.clone().into()));
        }
        if let Ok(b) = fo.cast::<PyByteArray>() {
            return Ok(Source::Stream(Box::new(Cursor::new(b.to_vec()))));
        }
        if fo.get_type().name().is_ok_and(|n| n == "memoryview") {
            let b = fo.call_method0("tobytes")?;
            return Ok(Source::Bytes(b.cast_into::<PyBytes>()?.into()));
        }
        if let Some(path) = as_path(fo)? {
            let f = std::fs::File::open(&path).map_err(|e| {
                let kind = e.kind();
                let err = PyErr::from(e);
                if kind == std::io::ErrorKind::NotFound {
                    pyo3::exceptions::PyFileNotFoundError::new_err(format!("{path}: {err}"))
                } else {
                    pyo3::exceptions::PyOSError::new_err(format!("{path}: {err}"))
                }
            })?;
            return Ok(Source::Stream(Box::new(f)));
        }
        if fo.hasattr("read")? {
            return Ok(Source::Stream(Box::new(PyFile::new(fo.clone().unbind()))));
        }
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected a path, bytes or a binary file object, not {}",
            fo.get_type().name()?
        )))
    }

    /// The source as one stream (a streaming reader must own its input).
    fn into_stream(self) -> Input {
        match self {
            Source::Bytes(b) => Box::new(Cursor::new(b)),
            Source::Stream(s) => s,
        }
    }
}

/// The reading options of `read_arrow` and `arrow_reader`, checked.
fn reader_builder(
    columns: Option<Vec<String>>,
    reader_schema: Option<&Schema>,
    batch_size: usize,
    threads: Option<usize>,
    utf8_view: bool,
) -> PyResult<ReaderBuilder> {
    if batch_size == 0 {
        return Err(PyValueError::new_err("batch_size must be at least 1"));
    }
    // By default every core, as the CLI's read commands (and pyarrow's readers) do.
    let threads = match threads {
        Some(0) => return Err(PyValueError::new_err("threads must be at least 1")),
        Some(n) => n,
        None => default_threads(),
    };
    let mut b = ReaderBuilder::new()
        .with_batch_size(batch_size)
        .with_threads(threads)
        .with_utf8_view(utf8_view);
    if let Some(s) = reader_schema {
        b = b.with_reader_schema(s.core());
    }
    if let Some(c) = columns {
        b = b.with_projection(c);
    }
    Ok(b)
}

/// The decoding threads when the caller names none: the cores this process may use, at
/// most 8 (the CLI's default too).
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

fn collect<R: Read>(
    reader: avrokit_arrow::Result<avrokit_arrow::Reader<'_, R>>,
) -> avrokit_arrow::Result<(SchemaRef, Vec<RecordBatch>)> {
    let reader = reader?;
    let schema = reader.schema();
    let batches = reader.collect::<avrokit_arrow::Result<Vec<_>>>()?;
    Ok((schema, batches))
}

/// `read_arrow(fo, columns=None, reader_schema=None, batch_size=8192, threads=None,
/// utf8_view=False)`: a whole container file as a `pyarrow.Table`, decoded without the GIL.
#[pyfunction]
#[pyo3(signature = (fo, columns=None, reader_schema=None, batch_size=avrokit_arrow::DEFAULT_BATCH_SIZE, threads=None, utf8_view=false))]
pub fn read_arrow<'py>(
    py: Python<'py>,
    fo: &Bound<'py, PyAny>,
    columns: Option<Vec<String>>,
    reader_schema: Option<&Schema>,
    batch_size: usize,
    threads: Option<usize>,
    utf8_view: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let b = reader_builder(columns, reader_schema, batch_size, threads, utf8_view)?;
    let (schema, batches) = match Source::open(fo)? {
        Source::Bytes(bytes) => {
            let data: &[u8] = &bytes;
            py.detach(|| collect(b.build_slice(data)))
        }
        Source::Stream(input) => py.detach(|| collect(b.build(input))),
    }
    .map_err(arrow_err)?;
    PyTable::try_new(batches, schema)?.into_pyarrow(py)
}

type FileReader = avrokit_arrow::Reader<'static, Input>;

/// The batches of a container file, one at a time (`arrow_reader`): iterating gives
/// `pyarrow.RecordBatch`es of at most `batch_size` rows, decoded without the GIL; the object
/// also exports the Arrow C stream (`__arrow_c_stream__`), which hands the rest of the file
/// to its consumer (polars, `pyarrow.RecordBatchReader.from_stream`).
#[pyclass(module = "avrokit._avrokit", frozen)]
pub struct ArrowStream {
    /// None once the file is read to its end, closed, or handed to a C stream consumer.
    reader: Shared<Option<FileReader>>,
    schema: SchemaRef,
    #[pyo3(get)]
    writer_schema_json: String,
    #[pyo3(get)]
    reader_schema_json: String,
    #[pyo3(get)]
    codec: String,
}

#[pymethods]
impl ArrowStream {
    #[new]
    #[pyo3(signature = (fo, columns=None, reader_schema=None, batch_size=avrokit_arrow::DEFAULT_BATCH_SIZE, threads=None, utf8_view=false))]
    fn new(
        py: Python<'_>,
        fo: &Bound<'_, PyAny>,
        columns: Option<Vec<String>>,
        reader_schema: Option<&Schema>,
        batch_size: usize,
        threads: Option<usize>,
        utf8_view: bool,
    ) -> PyResult<ArrowStream> {
        let b = reader_builder(columns, reader_schema, batch_size, threads, utf8_view)?;
        let input = Source::open(fo)?.into_stream();
        let reader = py.detach(|| b.build(input)).map_err(arrow_err)?;
        Ok(ArrowStream {
            schema: reader.schema(),
            writer_schema_json: reader.avro_schema().to_json().to_string(),
            reader_schema_json: reader.reader_schema().to_json().to_string(),
            codec: reader.container().codec().name().to_owned(),
            reader: Shared::new(Some(reader)),
        })
    }

    /// The Arrow schema of the batches, as a `pyarrow.Schema`.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        PySchema::new(self.schema.clone()).into_pyarrow(py)
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut st = self.lock(py)?;
        let Some(reader) = st.as_mut() else {
            return Err(PyStopIteration::new_err(()));
        };
        match py.detach(|| reader.next()) {
            Some(Ok(batch)) => PyRecordBatch::new(batch).into_pyarrow(py),
            Some(Err(e)) => {
                *st = None;
                Err(arrow_err(e))
            }
            None => {
                *st = None;
                Err(PyStopIteration::new_err(()))
            }
        }
    }

    /// Hands the batches not read yet to a consumer of the Arrow C stream interface. Errors
    /// in the file then reach it as the stream's errors (messages as `AvroError`'s).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let reader = self.lock(py)?.take().ok_or_else(|| {
            pyo3::exceptions::PyIOError::new_err("the stream was read to its end or closed")
        })?;
        let stream = Batches {
            schema: self.schema.clone(),
            reader,
        };
        let out = Bound::new(py, PyRecordBatchReader::new(Box::new(stream)))?;
        out.call_method1("__arrow_c_stream__", (requested_schema,))
    }

    /// Stops reading: the file (and any decoding threads) are let go.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let r = self.lock(py)?.take();
        py.detach(move || drop(r));
        Ok(())
    }
}

impl ArrowStream {
    fn lock(&self, py: Python<'_>) -> PyResult<Guard<'_, Option<FileReader>>> {
        self.reader.lock(py, "Arrow reader")
    }
}

/// The reader as an Arrow `RecordBatchReader`, for the C stream export.
struct Batches {
    schema: SchemaRef,
    reader: FileReader,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        // The message, not `ExternalError`'s "External error: " wrapping of it.
        self.reader
            .next()
            .map(|r| r.map_err(|e| ArrowError::InvalidArgumentError(e.to_string())))
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// `write_arrow(data, fo, schema=None, codec="null", codec_compression_level=None,
/// sync_interval=16000, metadata=None, sync_marker=None)`: writes Arrow data (anything with
/// `__arrow_c_stream__` or `__arrow_c_array__`) to a container file at `fo` (a path, a URL or
/// a binary file object). Returns the number of records written. A URL's object appears only
/// when everything was written; a failure aborts its upload.
#[pyfunction]
#[pyo3(signature = (data, fo, schema=None, codec="null", codec_compression_level=None, sync_interval=16000, metadata=None, sync_marker=None))]
#[allow(clippy::too_many_arguments)]
pub fn write_arrow(
    py: Python<'_>,
    data: AnyRecordBatch,
    fo: &Bound<'_, PyAny>,
    schema: Option<&Schema>,
    codec: &str,
    codec_compression_level: Option<i64>,
    sync_interval: usize,
    metadata: Option<&Bound<'_, PyDict>>,
    sync_marker: Option<&[u8]>,
) -> PyResult<u64> {
    let stream = data.into_reader()?;
    let arrow_schema = stream.schema();
    let encoder = match schema {
        Some(s) => BatchEncoder::with_avro_schema(&arrow_schema, s.core()),
        None => derived_encoder(&arrow_schema),
    }
    .map_err(arrow_err)?;
    let b = builder(
        encoder.avro_schema(),
        codec,
        codec_compression_level,
        sync_interval,
        metadata,
        sync_marker,
    )?;
    let mut upload = None;
    let sink: Box<dyn std::io::Write + Send> = if let Some(url) = as_url(fo)? {
        let up = Upload::create(py, &url)?;
        upload = Some(up.clone());
        Box::new(up)
    } else {
        match as_path(fo)? {
            Some(p) => Box::new(
                std::fs::File::create(&p)
                    .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{p}: {e}")))?,
            ),
            None => Box::new(PyFile::new(fo.clone().unbind())),
        }
    };
    let mut w = match b.build(sink) {
        Ok(w) => w,
        Err(e) => {
            if let Some(up) = &upload {
                up.abort(py);
            }
            return Err(avro_err(e));
        }
    };
    let mut stream = stream;
    // Every batch is encoded and its records appended (full blocks compressed and written)
    // without the GIL; a Python file object takes it back for each write.
    let mut buf = Vec::new();
    let mut n = 0u64;
    let failure = py.detach(|| -> Result<(), WriteFailure> {
        for batch in &mut stream {
            let batch = batch.map_err(WriteFailure::Input)?;
            buf.clear();
            let ends = encoder
                .encode(&batch, &mut buf)
                .map_err(WriteFailure::Arrow)?;
            let mut start = 0;
            for end in ends {
                w.append_encoded(&buf[start..end])
                    .map_err(WriteFailure::Avro)?;
                start = end;
                n += 1;
            }
        }
        Ok(())
    });
    if let Some(up) = upload {
        // A URL's object appears whole or not at all.
        if let Err(e) = failure {
            up.abort(py);
            drop(w);
            return Err(e.into_py());
        }
        if let Err(e) = py.detach(|| w.finish()) {
            up.abort(py);
            return Err(avro_err(e));
        }
        up.commit(py)?;
        return Ok(n);
    }
    // What was written before a failure stays a readable file of complete blocks.
    let finished = py.detach(|| w.finish());
    failure.map_err(WriteFailure::into_py)?;
    finished.map_err(avro_err)?;
    Ok(n)
}

/// The encoder for a stream given no Avro schema: the one in the Arrow schema's `avro.schema`
/// metadata (data read by `read_arrow`), unless the columns no longer fit it (a selection, a
/// renamed or added column), then the one derived from the Arrow types.
fn derived_encoder(schema: &SchemaRef) -> avrokit_arrow::Result<BatchEncoder> {
    if schema.metadata().contains_key(AVRO_SCHEMA_KEY) {
        if let Ok(e) = BatchEncoder::new(schema) {
            return Ok(e);
        }
    }
    BatchEncoder::with_avro_schema(schema, &avrokit_arrow::derive_avro_schema(schema)?)
}

/// A failure while writing, raised once the GIL is held again.
enum WriteFailure {
    /// The Arrow stream failed (its producer's error).
    Input(ArrowError),
    Arrow(avrokit_arrow::Error),
    Avro(avrokit::Error),
}

impl WriteFailure {
    fn into_py(self) -> PyErr {
        match self {
            WriteFailure::Input(e) => {
                crate::errors::AvroError::new_err(format!("reading the Arrow input: {e}"))
            }
            WriteFailure::Arrow(e) => arrow_err(e),
            WriteFailure::Avro(e) => avro_err(e),
        }
    }
}
