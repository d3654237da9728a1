//! Object container files for Python: the reader (records as Python objects, block by block,
//! the GIL released while a block decompresses) and the writer.

use std::io::{Read, Seek, SeekFrom, Write};
use std::sync::Arc;

use avrokit::container::{Codec, ReaderBuilder, Writer, WriterBuilder};
use avrokit::resolution::ResolvedPlan;
use avrokit::{Decoder, Limits};
use pyo3::exceptions::{PyStopIteration, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::errors::{avro_err, raise, to_py, FResult, Fail};
use crate::plan::Plan;
use crate::pyio::{as_path, as_url, open_input, Input, PyFile};
use crate::read::{read_root, Cx, ReadOpts, UnicodeErrors};
use crate::remote::Upload;
use crate::schema::Schema;
use crate::shared::{Guard, Shared};
use crate::write::{write, WriteOpts, Wx};

/// How records are turned into Python objects.
pub struct Decoding {
    /// The plan the Python values are built with (the reader schema's when one is given).
    pub plan: Arc<Plan>,
    /// Set when the reader schema differs from the writer's: each datum is read through it
    /// (as a core `Value`), re-encoded with the reader schema and built from that.
    pub resolved: Option<ResolvedPlan>,
    pub opts: ReadOpts,
}

impl Decoding {
    pub fn with_plan(plan: Arc<Plan>, resolved: Option<ResolvedPlan>, opts: ReadOpts) -> Decoding {
        Decoding {
            plan,
            resolved,
            opts,
        }
    }

    pub fn new(writer: Arc<Plan>, reader: Option<Arc<Plan>>, opts: ReadOpts) -> PyResult<Decoding> {
        let Some(r) = reader else {
            return Ok(Decoding {
                plan: writer,
                resolved: None,
                opts,
            });
        };
        if r.schema.to_json() == writer.schema.to_json() {
            return Ok(Decoding {
                plan: r,
                resolved: None,
                opts,
            });
        }
        // The plan compiles (or fails) by the resolution rules; when it turns out to be an
        // identity, the reader's plan reads the writer's bytes directly.
        let resolved = ResolvedPlan::compile(&writer.schema, &r.schema).map_err(avro_err)?;
        Ok(Decoding {
            plan: r,
            resolved: (!resolved.is_identity()).then_some(resolved),
            opts,
        })
    }

    /// Reads one datum from `dec`.
    #[inline]
    pub fn read<'py>(&self, cx: &Cx<'_, 'py>, dec: &mut Decoder<'_>) -> FResult<Bound<'py, PyAny>> {
        match &self.resolved {
            None => read_root(cx, dec),
            Some(plan) => {
                let v = avrokit::value::read_value_resolved(dec, plan)?;
                let bytes = avrokit::to_datum_vec(&v, &self.plan.schema)?;
                read_root(cx, &mut Decoder::from_slice(&bytes))
            }
        }
    }
}

pub fn read_opts(
    return_record_name: bool,
    return_record_name_override: bool,
    return_named_type: bool,
    return_named_type_override: bool,
    handle_unicode_errors: &str,
) -> PyResult<ReadOpts> {
    Ok(ReadOpts {
        return_record_name,
        return_record_name_override,
        return_named_type,
        return_named_type_override,
        unicode_errors: UnicodeErrors::parse(handle_unicode_errors)?,
    })
}

/// `(records, count, offset, size)` of one block.
type BlockTuple<'py> = (Bound<'py, PyList>, u64, u64, u64);

struct State {
    inner: avrokit::container::Reader<'static, Input>,
    /// The current block's (decompressed) bytes.
    buf: Vec<u8>,
    pos: usize,
    /// Records of the current block not read yet.
    left: u64,
    block_index: u64,
    block_offset: u64,
    block_count: u64,
    block_size: u64,
    done: bool,
}

/// Reads an object container file. Iterating gives one record at a time; `next_block` gives
/// a whole block's records as a list.
#[pyclass(module = "avrokit._avrokit", frozen)]
pub struct Reader {
    state: Shared<State>,
    decoding: Decoding,
    limits: Limits,
    min_size: u64,
    #[pyo3(get)]
    writer_schema_json: String,
    #[pyo3(get)]
    codec: String,
    metadata: Vec<(String, Vec<u8>)>,
}

#[pymethods]
impl Reader {
    #[new]
    #[pyo3(signature = (fo, reader_schema=None, return_record_name=false, return_record_name_override=false, return_named_type=false, return_named_type_override=false, handle_unicode_errors="strict"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        fo: &Bound<'_, PyAny>,
        reader_schema: Option<&Schema>,
        return_record_name: bool,
        return_record_name_override: bool,
        return_named_type: bool,
        return_named_type_override: bool,
        handle_unicode_errors: &str,
    ) -> PyResult<Reader> {
        let opts = read_opts(
            return_record_name,
            return_record_name_override,
            return_named_type,
            return_named_type_override,
            handle_unicode_errors,
        )?;
        let input = open_input(fo)?;
        // The header may come from the network (a URL): without the GIL.
        let inner = py
            .detach(|| ReaderBuilder::new().build(input))
            .map_err(avro_err)?;
        let writer_schema_json = inner
            .metadata_value("avro.schema")
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        let writer = Arc::new(Plan::compile(py, inner.schema())?);
        let min_size = writer.root_node().min_size;
        let decoding = Decoding::new(writer, reader_schema.map(|s| s.plan.clone()), opts)?;
        Ok(Reader {
            codec: inner.codec().name().to_owned(),
            metadata: inner.metadata().to_vec(),
            limits: *inner.limits(),
            writer_schema_json,
            min_size,
            decoding,
            state: Shared::new(State {
                inner,
                buf: Vec::new(),
                pos: 0,
                left: 0,
                block_index: 0,
                block_offset: 0,
                block_count: 0,
                block_size: 0,
                done: false,
            }),
        })
    }

    /// The header's metadata, values as bytes.
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.metadata {
            d.set_item(k, PyBytes::new(py, v))?;
        }
        Ok(d)
    }

    /// The reader schema's JSON, when one was given.
    #[getter]
    fn reader_schema_json(&self) -> Option<String> {
        self.decoding
            .resolved
            .as_ref()
            .map(|_| self.decoding.plan.schema.to_json().to_string())
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut st = self.lock(py)?;
        let cx = Cx::new(py, &self.decoding.plan, self.decoding.opts)?;
        loop {
            if st.left > 0 {
                return self.next_record(&cx, &mut st).map_err(to_py);
            }
            if !self.next_block_into(py, &mut st)? {
                return Err(PyStopIteration::new_err(()));
            }
        }
    }

    /// The next block: `(records, count, offset, size)` where `offset` is the block's position
    /// in the file and `size` its stored (compressed) size; None at the end. Records of the
    /// current block not read yet are returned with it.
    fn next_block<'py>(&self, py: Python<'py>) -> PyResult<Option<BlockTuple<'py>>> {
        let mut st = self.lock(py)?;
        let cx = Cx::new(py, &self.decoding.plan, self.decoding.opts)?;
        if st.left == 0 && !self.next_block_into(py, &mut st)? {
            return Ok(None);
        }
        let list = PyList::empty(py);
        while st.left > 0 {
            list.append(self.next_record(&cx, &mut st).map_err(to_py)?)?;
        }
        Ok(Some((list, st.block_count, st.block_offset, st.block_size)))
    }
}

impl Reader {
    fn lock(&self, py: Python<'_>) -> PyResult<Guard<'_, State>> {
        self.state.lock(py, "reader")
    }

    fn next_record<'py>(&self, cx: &Cx<'_, 'py>, st: &mut State) -> FResult<Bound<'py, PyAny>> {
        let start = st.pos;
        let mut dec = Decoder::from_slice(&st.buf[start..]).with_limits(self.limits);
        let record = st.block_count - st.left;
        let v = self.decoding.read(cx, &mut dec).map_err(|e| {
            e.shift(start as u64).prefix(&format!(
                "block {} (at byte {}), record {record}: ",
                st.block_index, st.block_offset
            ))
        })?;
        st.pos = start + dec.offset() as usize;
        st.left -= 1;
        if st.left == 0 && st.pos != st.buf.len() {
            st.done = true;
            return Err(Fail::msg(format!(
                "invalid data: block {} (at byte {}): its {} records end at byte {} of its {} bytes",
                st.block_index,
                st.block_offset,
                st.block_count,
                st.pos,
                st.buf.len()
            )));
        }
        Ok(v)
    }

    /// Loads the next block into `st.buf`; false at the end.
    fn next_block_into(&self, py: Python<'_>, st: &mut State) -> PyResult<bool> {
        if st.done {
            return Ok(false);
        }
        let State { inner, buf, .. } = st;
        let limits = self.limits;
        // Reading the block (from a file, or the network for a URL) and decompressing it
        // need no Python: let other threads run meanwhile. A Python file object takes the
        // GIL back for each of its `read` calls.
        let next = py.detach(
            || -> avrokit::Result<Option<avrokit::container::BlockHeader>> {
                let Some(block) = inner.next_raw_block()? else {
                    return Ok(None);
                };
                if block.codec() == Codec::Null {
                    buf.clear();
                    buf.extend_from_slice(block.data());
                } else {
                    block.decompress_into(buf, &limits)?;
                }
                Ok(Some(*block.header()))
            },
        );
        let h = match next {
            Ok(Some(h)) => h,
            Ok(None) => {
                st.done = true;
                return Ok(false);
            }
            Err(e) => {
                st.done = true;
                return Err(avro_err(e));
            }
        };
        let len = st.buf.len() as u64;
        let fits = match len.checked_div(self.min_size) {
            Some(most) => h.count <= most,
            None => h.count <= limits.max_alloc as u64,
        };
        if !fits || (h.count == 0 && len > 0) {
            st.done = true;
            return Err(Fail::at(
                format!(
                    "invalid data: block {} claims {} records, which its {} bytes cannot hold",
                    h.index, h.count, len
                ),
                h.offset,
            )
            .into_py(py));
        }
        st.pos = 0;
        st.left = h.count;
        st.block_index = h.index;
        st.block_offset = h.offset;
        st.block_count = h.count;
        st.block_size = h.size;
        Ok(true)
    }
}

fn codec_of(name: &str, level: Option<i64>) -> PyResult<Codec> {
    let codec = Codec::from_name(name).map_err(avro_err)?;
    let Some(l) = level else { return Ok(codec) };
    let bad = || PyValueError::new_err(format!("compression level {l} is not valid for {name}"));
    Ok(match codec {
        Codec::Deflate { .. } => Codec::Deflate {
            level: u32::try_from(l).ok().filter(|l| *l <= 9).ok_or_else(bad)?,
        },
        Codec::Zstandard { .. } => Codec::Zstandard {
            level: i32::try_from(l).map_err(|_| bad())?,
        },
        Codec::Bzip2 { .. } => Codec::Bzip2 {
            level: u32::try_from(l)
                .ok()
                .filter(|l| (1..=9).contains(l))
                .ok_or_else(bad)?,
        },
        Codec::Xz { .. } => Codec::Xz {
            level: u32::try_from(l).ok().filter(|l| *l <= 9).ok_or_else(bad)?,
        },
        c => c,
    })
}

trait Sink: Write + Send {}
impl<T: Write + Send> Sink for T {}

/// A file opened for appending: read, written and sought.
trait AppendFile: Read + Write + Seek + Send {}
impl<T: Read + Write + Seek + Send> AppendFile for T {}

/// The core writer behind a [`ContainerWriter`]: a new file, or one opened for appending.
enum AnyWriter {
    New(Writer<Box<dyn Sink>>),
    Append(Writer<Box<dyn AppendFile>>),
}

macro_rules! with_writer {
    ($w:expr, $x:ident => $body:expr) => {
        match $w {
            AnyWriter::New($x) => $body,
            AnyWriter::Append($x) => $body,
        }
    };
}

/// Writes `records` to a container file at `fo` (a path, a URL, or a binary file object);
/// appends to it when `append` is set and the file already holds a header (the file's schema,
/// codec and sync marker are kept, as fastavro does). Returns the number of records written.
/// A URL's object appears only when every record was written; a failure aborts its upload.
#[pyfunction]
#[pyo3(signature = (fo, schema, records, codec="null", codec_compression_level=None, sync_interval=16000, metadata=None, sync_marker=None, append=false, strict=false, strict_allow_default=false, disable_tuple_notation=false))]
#[allow(clippy::too_many_arguments)]
pub fn write_container(
    py: Python<'_>,
    fo: &Bound<'_, PyAny>,
    schema: &Schema,
    records: &Bound<'_, PyAny>,
    codec: &str,
    codec_compression_level: Option<i64>,
    sync_interval: usize,
    metadata: Option<&Bound<'_, PyDict>>,
    sync_marker: Option<&[u8]>,
    append: bool,
    strict: bool,
    strict_allow_default: bool,
    disable_tuple_notation: bool,
) -> PyResult<u64> {
    let opts = WriteOpts {
        strict,
        strict_allow_default,
        disable_tuple_notation,
    };
    let b = builder(
        schema.core(),
        codec,
        codec_compression_level,
        sync_interval,
        metadata,
        sync_marker,
    )?;
    let (w, plan, upload) = open_writer(py, fo, schema, b, append)?;
    with_writer!(w, w => run_writer(py, w, &plan, records, opts, sync_interval, upload.as_ref()))
}

/// Opens the container writer for `fo` (a path, a URL or a binary file object). With `append`,
/// a file that already holds a header is continued with its own schema, codec and sync marker
/// (the plan returned is then compiled from the file's schema). For a URL, the upload the
/// writer writes into is returned too, to be committed or aborted.
fn open_writer(
    py: Python<'_>,
    fo: &Bound<'_, PyAny>,
    schema: &Schema,
    builder: WriterBuilder,
    append: bool,
) -> PyResult<(AnyWriter, Arc<Plan>, Option<Upload>)> {
    if let Some(url) = as_url(fo)? {
        if append {
            return Err(raise(
                format!("{url}: an object in a store cannot be appended to"),
                None,
                String::new(),
            ));
        }
        let upload = Upload::create(py, &url)?;
        let sink: Box<dyn Sink> = Box::new(upload.clone());
        let w = match builder.build(sink) {
            Ok(w) => w,
            Err(e) => {
                upload.abort(py);
                return Err(avro_err(e));
            }
        };
        return Ok((AnyWriter::New(w), schema.plan.clone(), Some(upload)));
    }
    let path = as_path(fo)?;
    let os_err =
        |p: &str, e: std::io::Error| pyo3::exceptions::PyOSError::new_err(format!("{p}: {e}"));
    if !append {
        let sink: Box<dyn Sink> = match &path {
            Some(p) => Box::new(std::fs::File::create(p).map_err(|e| os_err(p, e))?),
            None => Box::new(PyFile::new(fo.clone().unbind())),
        };
        let w = builder.build(sink).map_err(avro_err)?;
        return Ok((AnyWriter::New(w), schema.plan.clone(), None));
    }
    let mut file: Box<dyn AppendFile> = match &path {
        Some(p) => Box::new(
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(p)
                .map_err(|e| os_err(p, e))?,
        ),
        None => Box::new(PyFile::new(fo.clone().unbind())),
    };
    let io = |e: std::io::Error| avro_err(avrokit::Error::from(e));
    if file.seek(SeekFrom::End(0)).map_err(io)? == 0 {
        let w = builder.build(file).map_err(avro_err)?;
        return Ok((AnyWriter::Append(w), schema.plan.clone(), None));
    }
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let w = Writer::append_to(file).map_err(avro_err)?;
    let plan = Arc::new(Plan::compile(py, w.schema())?);
    Ok((AnyWriter::Append(w), plan, None))
}

/// The core writer's options from `writer`'s arguments (shared with `write_arrow`).
pub(crate) fn builder(
    schema: &avrokit::Schema,
    codec: &str,
    level: Option<i64>,
    sync_interval: usize,
    metadata: Option<&Bound<'_, PyDict>>,
    sync_marker: Option<&[u8]>,
) -> PyResult<WriterBuilder> {
    let mut b = WriterBuilder::new(schema)
        .with_codec(codec_of(codec, level)?)
        .with_block_size(sync_interval.max(1));
    if let Some(m) = metadata {
        for (k, v) in m.iter() {
            let k: String = k.extract()?;
            let v: Vec<u8> = if let Ok(s) = v.cast::<PyString>() {
                crate::write::str_bytes(s)?.to_vec()
            } else {
                v.extract::<Vec<u8>>()?
            };
            b = b.with_metadata(k, v);
        }
    }
    if let Some(s) = sync_marker {
        let s: [u8; 16] = s
            .try_into()
            .map_err(|_| PyValueError::new_err("sync_marker must be 16 bytes"))?;
        b = b.with_sync_marker(s);
    }
    Ok(b)
}

/// Writes every record of `records`, then finishes the file; with `upload` (a URL), commits
/// it, or aborts it on any failure.
fn run_writer<W: Write + Send>(
    py: Python<'_>,
    mut w: Writer<W>,
    plan: &Plan,
    records: &Bound<'_, PyAny>,
    opts: WriteOpts,
    sync_interval: usize,
    upload: Option<&Upload>,
) -> PyResult<u64> {
    let wx = Wx::new(py, plan, opts)?;
    let mut scratch = Vec::with_capacity(256);
    let mut pending = 0usize;
    let mut n = 0u64;
    let mut failure: Option<PyErr> = None;
    let iter = records.try_iter()?;
    for (i, rec) in iter.enumerate() {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        scratch.clear();
        if let Err(e) = write(&wx, plan.root, &rec, &mut scratch, 0) {
            failure = Some(e.prefix(&format!("record {i}: ")).into_py(py));
            break;
        }
        pending += scratch.len();
        let res = if pending >= sync_interval {
            // This record completes a block: compress and write it without the GIL.
            pending = 0;
            if let Err(e) = py.check_signals() {
                failure = Some(e);
                break;
            }
            let (w, s) = (&mut w, &scratch);
            py.detach(move || w.append_encoded(s))
        } else {
            w.append_encoded(&scratch)
        };
        if let Err(e) = res {
            failure = Some(avro_err(e));
            break;
        }
        n += 1;
    }
    if let Some(up) = upload {
        // An object appears whole or not at all.
        if let Some(e) = failure {
            up.abort(py);
            drop(w); // its last block goes nowhere: the upload is gone
            return Err(e);
        }
        if let Err(e) = py.detach(|| w.finish()) {
            up.abort(py);
            return Err(avro_err(e));
        }
        up.commit(py)?;
        return Ok(n);
    }
    // The records before a failure are kept: the file ends with a complete block either way.
    let finished = py.detach(|| w.finish());
    if let Some(e) = failure {
        return Err(e);
    }
    let mut sink = finished.map_err(avro_err)?;
    sink.flush()
        .map_err(|e| avro_err(avrokit::Error::from(e)))?;
    Ok(n)
}

/// fastavro's incremental `Writer`: `write(record)` one at a time, `flush()` to end the current
/// block, `close()` (or the end of a `with` block) to finish the file.
#[pyclass(module = "avrokit._avrokit", frozen)]
pub struct ContainerWriter {
    inner: Shared<Option<AnyWriter>>,
    plan: Arc<Plan>,
    opts: WriteOpts,
    /// The upload of a URL: committed by `close`, aborted by `close(failed=True)` or when
    /// the writer is dropped unclosed.
    upload: Option<Upload>,
}

#[pymethods]
impl ContainerWriter {
    #[new]
    #[pyo3(signature = (fo, schema, codec="null", codec_compression_level=None, sync_interval=16000, metadata=None, sync_marker=None, append=false, strict=false, strict_allow_default=false, disable_tuple_notation=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        fo: &Bound<'_, PyAny>,
        schema: &Schema,
        codec: &str,
        codec_compression_level: Option<i64>,
        sync_interval: usize,
        metadata: Option<&Bound<'_, PyDict>>,
        sync_marker: Option<&[u8]>,
        append: bool,
        strict: bool,
        strict_allow_default: bool,
        disable_tuple_notation: bool,
    ) -> PyResult<ContainerWriter> {
        let opts = WriteOpts {
            strict,
            strict_allow_default,
            disable_tuple_notation,
        };
        let b = builder(
            schema.core(),
            codec,
            codec_compression_level,
            sync_interval,
            metadata,
            sync_marker,
        )?;
        let (w, plan, upload) = open_writer(py, fo, schema, b, append)?;
        Ok(ContainerWriter {
            inner: Shared::new(Some(w)),
            plan,
            opts,
            upload,
        })
    }

    /// Appends one record.
    fn write(&self, py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<()> {
        let wx = Wx::new(py, &self.plan, self.opts)?;
        let mut out = Vec::with_capacity(128);
        write(&wx, self.plan.root, record, &mut out, 0).map_err(|e| e.into_py(py))?;
        let mut g = self.lock(py)?;
        let w = g.as_mut().ok_or_else(closed)?;
        if self.upload.is_some() {
            // A record that completes a block may wait for a part upload: not with the GIL.
            return py
                .detach(|| with_writer!(w, w => w.append_encoded(&out)))
                .map_err(avro_err);
        }
        with_writer!(w, w => w.append_encoded(&out)).map_err(avro_err)
    }

    /// Ends the current block and flushes the file.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let mut g = self.lock(py)?;
        let w = g.as_mut().ok_or_else(closed)?;
        py.detach(|| with_writer!(w, w => w.flush()))
            .map_err(avro_err)
    }

    /// Writes what is pending and finishes the file (the file object is left open); a URL's
    /// object then appears. With `failed` (the end of a `with` block that raised), a URL's
    /// upload is aborted instead: no object appears (a file is finished as without it).
    #[pyo3(signature = (failed=false))]
    fn close(&self, py: Python<'_>, failed: bool) -> PyResult<()> {
        let mut g = self.lock(py)?;
        let Some(w) = g.take() else { return Ok(()) };
        let Some(up) = &self.upload else {
            return py
                .detach(|| with_writer!(w, w => w.finish().map(|_| ())))
                .map_err(avro_err);
        };
        if failed {
            up.abort(py);
            drop(w);
            return Ok(());
        }
        if let Err(e) = py.detach(|| with_writer!(w, w => w.finish().map(|_| ()))) {
            up.abort(py);
            return Err(avro_err(e));
        }
        up.commit(py)
    }
}

impl Drop for ContainerWriter {
    /// A URL's upload not closed is aborted before the writer goes (which would otherwise
    /// write its last block into the upload, with the GIL held).
    fn drop(&mut self) {
        if let Some(up) = &self.upload {
            let _ = Python::try_attach(|py| up.abort(py));
        }
    }
}

impl ContainerWriter {
    fn lock(&self, py: Python<'_>) -> PyResult<Guard<'_, Option<AnyWriter>>> {
        self.inner.lock(py, "writer")
    }
}

fn closed() -> PyErr {
    PyValueError::new_err("the writer is closed")
}
