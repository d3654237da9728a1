//! `avrokit._avrokit`: the Rust half of the `avrokit` Python package.
//!
//! The Python package (`python/avrokit`) gives fastavro's API; this module does the work:
//! - [`schema`]: a parsed schema compiled into a [`plan::Plan`] once;
//! - [`read`]: Avro binary straight to Python objects through the plan;
//! - [`write`]: Python objects straight to Avro binary, fastavro's rules for unions;
//! - [`container`]: object container files (reader, writer, appending);
//! - [`arrow`]: container files to pyarrow Tables and batch streams, Arrow data back to files;
//! - [`pyio`]: paths, bytes and Python file objects as inputs and outputs;
//! - [`remote`]: object store URLs (`s3://...`) as inputs and outputs (the `object-store`
//!   feature);
//! - [`errors`]: `AvroError`, with the offset and path of every failure.

mod arrow;
mod container;
mod errors;
mod plan;
mod pyio;
mod read;
mod remote;
mod schema;
mod shared;
mod write;

use std::io::{Read, SeekFrom};

use avrokit::Decoder;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyBytes;

use crate::container::{read_opts, Decoding};
use crate::errors::{avro_err, to_py, AvroError, Fail};
use crate::pyio::PyFile;
use crate::read::Cx;
use crate::schema::Schema;
use crate::write::{write, WriteOpts, Wx};

fn write_opts(strict: bool, strict_allow_default: bool, disable_tuple_notation: bool) -> WriteOpts {
    WriteOpts {
        strict,
        strict_allow_default,
        disable_tuple_notation,
    }
}

/// Encodes one datum (no framing): the bytes `schemaless_writer` writes.
#[pyfunction]
#[pyo3(signature = (schema, datum, strict=false, strict_allow_default=false, disable_tuple_notation=false))]
fn encode_datum<'py>(
    py: Python<'py>,
    schema: &Schema,
    datum: &Bound<'py, PyAny>,
    strict: bool,
    strict_allow_default: bool,
    disable_tuple_notation: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let wx = Wx::new(
        py,
        &schema.plan,
        write_opts(strict, strict_allow_default, disable_tuple_notation),
    )?;
    let mut out = Vec::with_capacity(64);
    write(&wx, schema.plan.root, datum, &mut out, 0).map_err(|e| e.into_py(py))?;
    Ok(PyBytes::new(py, &out))
}

/// The compiled schema of any schema argument: a `Schema`, a schema `parse_schema` returned
/// (which carries one), or anything else `avrokit._compiled` accepts (dict, list, name, JSON).
fn compiled<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Schema>> {
    let py = obj.py();
    if let Ok(s) = obj.cast::<Schema>() {
        return Ok(s.clone());
    }
    if !obj.is_exact_instance_of::<pyo3::types::PyDict>() {
        if let Ok(a) = obj.getattr(intern!(py, "__avrokit__")) {
            if let Ok(s) = a.cast_into::<Schema>() {
                return Ok(s);
            }
        }
    }
    static COMPILE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let f = COMPILE.get_or_try_init(py, || -> PyResult<_> {
        Ok(py.import("avrokit")?.getattr("_compiled")?.unbind())
    })?;
    Ok(f.bind(py).call1((obj,))?.cast_into::<Schema>()?)
}

/// `schemaless_writer(fo, schema, record, *, strict=False, strict_allow_default=False,
/// disable_tuple_notation=False)`: writes one datum (no header, no framing) to a binary file
/// object.
#[pyfunction]
#[pyo3(signature = (fo, schema, record, *, strict=false, strict_allow_default=false, disable_tuple_notation=false))]
fn schemaless_writer(
    py: Python<'_>,
    fo: &Bound<'_, PyAny>,
    schema: &Bound<'_, PyAny>,
    record: &Bound<'_, PyAny>,
    strict: bool,
    strict_allow_default: bool,
    disable_tuple_notation: bool,
) -> PyResult<()> {
    let schema = compiled(schema)?;
    let b = encode_datum(
        py,
        schema.get(),
        record,
        strict,
        strict_allow_default,
        disable_tuple_notation,
    )?;
    fo.call_method1(intern!(py, "write"), (b,))?;
    Ok(())
}

/// `schemaless_reader(fo, writer_schema, reader_schema=None, return_record_name=False,
/// return_record_name_override=False, handle_unicode_errors="strict", return_named_type=False,
/// return_named_type_override=False)`: reads one datum written by `schemaless_writer` from a
/// binary file object or bytes. A seekable file is left just after the datum (a stream that
/// cannot seek is read to its end).
#[pyfunction]
#[pyo3(signature = (fo, writer_schema, reader_schema=None, return_record_name=false, return_record_name_override=false, handle_unicode_errors="strict", return_named_type=false, return_named_type_override=false))]
#[allow(clippy::too_many_arguments)]
fn schemaless_reader<'py>(
    py: Python<'py>,
    fo: &Bound<'py, PyAny>,
    writer_schema: &Bound<'py, PyAny>,
    reader_schema: Option<&Bound<'py, PyAny>>,
    return_record_name: bool,
    return_record_name_override: bool,
    handle_unicode_errors: &str,
    return_named_type: bool,
    return_named_type_override: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let opts = read_opts(
        return_record_name,
        return_record_name_override,
        return_named_type,
        return_named_type_override,
        handle_unicode_errors,
    )?;
    let w = compiled(writer_schema)?;
    let reader_schema = reader_schema.filter(|r| !r.is_none() && !r.is(writer_schema));
    let d = match reader_schema {
        None => Decoding::new(w.get().plan.clone(), None, opts)?,
        Some(r) => w.get().decoding_for(&compiled(r)?.get().plan, opts)?,
    };
    let cx = Cx::new(py, &d.plan, opts)?;
    if let Ok(b) = fo.cast::<PyBytes>() {
        return d
            .read(&cx, &mut Decoder::from_slice(b.as_bytes()))
            .map_err(|e| e.into_py(py));
    }
    if fo.get_type().is(cx.types.bytes_io.bind(py)) {
        // The common case (a message wrapped in BytesIO): one read, one seek back if the
        // message held more than the datum.
        let rest = fo.call_method0(intern!(py, "read"))?;
        let rest = rest.cast::<PyBytes>()?;
        let mut dec = Decoder::from_slice(rest.as_bytes());
        let v = d.read(&cx, &mut dec).map_err(|e| e.into_py(py))?;
        let left = rest.as_bytes().len() - dec.offset() as usize;
        if left > 0 {
            fo.call_method1(intern!(py, "seek"), (-(left as i64), 1))?;
        }
        return Ok(v);
    }
    let seekable = fo
        .call_method0("seekable")
        .and_then(|s| s.is_truthy())
        .unwrap_or(false);
    let mut file = PyFile::new(fo.clone().unbind());
    let mut data = Vec::new();
    let mut chunk = if seekable { 4096 } else { usize::MAX };
    let mut at_end = false;
    loop {
        if !at_end {
            if chunk == usize::MAX {
                file.read_to_end(&mut data)
                    .map_err(|e| avro_err(e.into()))?;
                at_end = true;
            } else {
                let before = data.len();
                data.resize(before + chunk, 0);
                let mut got = 0;
                while got < chunk {
                    let n = file
                        .read(&mut data[before + got..])
                        .map_err(|e| avro_err(e.into()))?;
                    if n == 0 {
                        at_end = true;
                        break;
                    }
                    got += n;
                }
                data.truncate(before + got);
                chunk = chunk.saturating_mul(4).min(1 << 26);
            }
        }
        let mut dec = Decoder::from_slice(&data);
        match d.read(&cx, &mut dec) {
            Ok(v) => {
                let used = dec.offset() as usize;
                if seekable && used < data.len() {
                    let back = (data.len() - used) as i64;
                    std::io::Seek::seek(&mut file, SeekFrom::Current(-back))
                        .map_err(|e| avro_err(e.into()))?;
                }
                return Ok(v);
            }
            Err(e) if !at_end && is_eof(&e) => continue,
            Err(e) => return Err(e.into_py(py)),
        }
    }
}

fn is_eof(e: &Fail) -> bool {
    e.is_eof()
}

/// One datum from its Avro JSON encoding (one line of `json_writer`'s output).
#[pyfunction]
#[pyo3(signature = (text, writer_schema, reader_schema=None))]
fn json_decode<'py>(
    py: Python<'py>,
    text: &str,
    writer_schema: &Schema,
    reader_schema: Option<&Schema>,
) -> PyResult<Bound<'py, PyAny>> {
    let v = avrokit::json::from_json_str(text, writer_schema.core()).map_err(avro_err)?;
    let bytes = avrokit::to_datum_vec(&v, writer_schema.core()).map_err(avro_err)?;
    let d = Decoding::new(
        writer_schema.plan.clone(),
        reader_schema.map(|s| s.plan.clone()),
        Default::default(),
    )?;
    let cx = Cx::new(py, &d.plan, d.opts)?;
    d.read(&cx, &mut Decoder::from_slice(&bytes)).map_err(to_py)
}

/// One datum in Avro's JSON encoding (one line, no newline).
#[pyfunction]
#[pyo3(signature = (schema, datum, strict=false, strict_allow_default=false, disable_tuple_notation=false))]
fn json_encode(
    py: Python<'_>,
    schema: &Schema,
    datum: &Bound<'_, PyAny>,
    strict: bool,
    strict_allow_default: bool,
    disable_tuple_notation: bool,
) -> PyResult<String> {
    let b = encode_datum(
        py,
        schema,
        datum,
        strict,
        strict_allow_default,
        disable_tuple_notation,
    )?;
    let v = avrokit::from_datum_slice(b.as_bytes(), schema.core()).map_err(avro_err)?;
    avrokit::json::to_json_string(&v, schema.core(), false).map_err(avro_err)
}

/// fastavro's `validate`: whether `datum` fits `schema` (without writing it). With `raise_errors`
/// a misfit raises `AvroError` naming the place, else False is returned.
#[pyfunction]
#[pyo3(signature = (datum, schema, strict=false, disable_tuple_notation=false))]
fn validate(
    py: Python<'_>,
    datum: &Bound<'_, PyAny>,
    schema: &Schema,
    strict: bool,
    disable_tuple_notation: bool,
) -> PyResult<bool> {
    let wx = Wx::new(
        py,
        &schema.plan,
        write_opts(strict, false, disable_tuple_notation),
    )?;
    write::validate(&wx, schema.plan.root, datum, 0).map_err(|e| e.into_py(py))
}

/// Whether `fo` (a path, a URL or a binary file object) starts with the container file magic.
/// A missing file or object is not one; a store that fails otherwise raises `AvroError`.
#[pyfunction]
fn is_avro(fo: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let Some(url) = pyio::as_url(fo)? {
        return remote::is_avro(fo.py(), &url);
    }
    let head: Vec<u8> = if let Some(p) = pyio::as_path(fo)? {
        let mut f = match std::fs::File::open(&p) {
            Ok(f) => f,
            Err(_) => return Ok(false),
        };
        let mut b = [0u8; 4];
        match f.read_exact(&mut b) {
            Ok(()) => b.to_vec(),
            Err(_) => return Ok(false),
        }
    } else {
        let b = fo.call_method1("read", (4,))?;
        b.extract::<Vec<u8>>().unwrap_or_default()
    };
    Ok(head == b"Obj\x01")
}

#[pymodule]
fn _avrokit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("AvroError", py.get_type::<AvroError>())?;
    m.add_class::<Schema>()?;
    m.add_class::<container::Reader>()?;
    m.add_class::<container::ContainerWriter>()?;
    m.add_function(wrap_pyfunction!(container::write_container, m)?)?;
    m.add_function(wrap_pyfunction!(schema::check_compatibility, m)?)?;
    m.add_function(wrap_pyfunction!(schema::parse_idl, m)?)?;
    m.add_class::<arrow::ArrowStream>()?;
    m.add_function(wrap_pyfunction!(arrow::read_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::write_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(encode_datum, m)?)?;
    m.add_function(wrap_pyfunction!(schemaless_writer, m)?)?;
    m.add_function(wrap_pyfunction!(schemaless_reader, m)?)?;
    m.add_function(wrap_pyfunction!(json_decode, m)?)?;
    m.add_function(wrap_pyfunction!(json_encode, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(is_avro, m)?)?;
    m.add("OBJECT_STORE", remote::ENABLED)?;
    Ok(())
}
