//! `avrokit._avrokit.Schema`: a parsed schema and its compiled plan, plus the schema tools
//! (canonical form, fingerprints, compatibility).

use std::sync::{Arc, Mutex};

use avrokit::resolution::ResolvedPlan;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::container::Decoding;
use crate::errors::avro_err;
use crate::plan::Plan;
use crate::read::ReadOpts;

/// A parsed, compiled Avro schema. Build it from JSON text (`Schema(text)`); the Python
/// `parse_schema` does that once and keeps it with the dict it returns.
#[pyclass(module = "avrokit._avrokit", frozen)]
pub struct Schema {
    pub plan: Arc<Plan>,
    /// Resolution plans from this (writer) schema to the reader schemas it was read with, so
    /// that a loop of `schemaless_reader(fo, w, r)` compiles its plan once.
    resolved: Mutex<Vec<(Arc<Plan>, Option<ResolvedPlan>)>>,
}

impl Schema {
    pub fn from_core(py: Python<'_>, s: &avrokit::Schema) -> PyResult<Schema> {
        Ok(Schema {
            plan: Arc::new(Plan::compile(py, s)?),
            resolved: Mutex::new(Vec::new()),
        })
    }

    /// How data of this schema is read as `reader`'s.
    pub fn decoding_for(&self, reader: &Arc<Plan>, opts: ReadOpts) -> PyResult<Decoding> {
        if let Ok(cache) = self.resolved.lock() {
            if let Some((_, r)) = cache.iter().find(|(p, _)| Arc::ptr_eq(p, reader)) {
                return Ok(Decoding::with_plan(reader.clone(), r.clone(), opts));
            }
        }
        let d = Decoding::new(self.plan.clone(), Some(reader.clone()), opts)?;
        if let Ok(mut cache) = self.resolved.lock() {
            if cache.len() >= 16 {
                cache.remove(0);
            }
            cache.push((reader.clone(), d.resolved.clone()));
        }
        Ok(d)
    }

    pub fn core(&self) -> &avrokit::Schema {
        &self.plan.schema
    }
}

#[pymethods]
impl Schema {
    #[new]
    fn new(py: Python<'_>, json: &str) -> PyResult<Schema> {
        let s = avrokit::Schema::parse_str(json).map_err(avro_err)?;
        Schema::from_core(py, &s)
    }

    /// Parses schemas that may refer to each other's named types (in any order).
    #[staticmethod]
    fn parse_many(py: Python<'_>, jsons: Vec<String>) -> PyResult<Vec<Schema>> {
        let refs: Vec<&str> = jsons.iter().map(String::as_str).collect();
        let all = avrokit::Schema::parse_many(&refs).map_err(avro_err)?;
        all.iter().map(|s| Schema::from_core(py, s)).collect()
    }

    /// The schema as JSON text, with everything kept (docs, aliases, defaults, properties).
    fn to_json(&self) -> String {
        self.core().to_json().to_string()
    }

    /// The Parsing Canonical Form of the specification.
    fn canonical_form(&self) -> String {
        self.core().canonical_form()
    }

    /// The fingerprint of the canonical form: `"CRC-64-AVRO"` (8 bytes, little-endian, as
    /// single-object encoding writes it), `"MD5"` (16 bytes) or `"SHA-256"` (32 bytes).
    #[pyo3(signature = (algorithm = "CRC-64-AVRO"))]
    fn fingerprint<'py>(&self, py: Python<'py>, algorithm: &str) -> PyResult<Bound<'py, PyBytes>> {
        let s = self.core();
        Ok(match algorithm.to_ascii_uppercase().as_str() {
            "CRC-64-AVRO" | "RABIN" | "CRC64" => {
                PyBytes::new(py, &s.fingerprint_rabin().to_le_bytes())
            }
            "MD5" => PyBytes::new(py, &s.fingerprint_md5()),
            "SHA-256" | "SHA256" => PyBytes::new(py, &s.fingerprint_sha256()),
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "unknown fingerprint algorithm {algorithm:?} (CRC-64-AVRO, MD5 or SHA-256)"
                )))
            }
        })
    }

    /// The fullnames of the named types this schema's arena defines.
    fn named_types(&self) -> Vec<String> {
        self.core()
            .nodes()
            .iter()
            .filter_map(|n| n.name().map(|n| n.fullname().to_owned()))
            .collect()
    }

    /// The fewest bytes a datum of this schema takes.
    fn min_size(&self) -> u64 {
        self.plan.root_node().min_size
    }

    fn __repr__(&self) -> String {
        format!("Schema({})", self.to_json())
    }
}

/// Whether data written with `writer` can be read with `reader`: `(compatible, [(kind, path,
/// message), ...])`, every incompatibility found, like Java's `SchemaCompatibility`.
#[pyfunction]
pub fn check_compatibility<'py>(
    py: Python<'py>,
    reader: &Schema,
    writer: &Schema,
) -> PyResult<Bound<'py, PyTuple>> {
    let c = avrokit::check_compatibility(reader.core(), writer.core());
    let list = PyList::empty(py);
    for i in c.incompatibilities() {
        list.append((i.kind().as_str(), i.path(), i.message()))?;
    }
    PyTuple::new(
        py,
        [
            c.is_compatible().into_pyobject(py)?.to_owned().into_any(),
            list.into_any(),
        ],
    )
}

/// What an IDL file defines, as JSON text: `(protocol, main_schema, named_schemas,
/// warnings)`. `protocol` is set for a file in protocol syntax, `main_schema` for one in
/// schema syntax that declares `schema T;`; `named_schemas` are every named type defined or
/// imported, in definition order. Give `text` (imports looked up in `base_dir`, then in
/// `import_dirs`) or `path`.
#[pyfunction]
#[pyo3(signature = (text=None, path=None, import_dirs=Vec::new(), base_dir=None))]
pub fn parse_idl(
    py: Python<'_>,
    text: Option<String>,
    path: Option<std::path::PathBuf>,
    import_dirs: Vec<std::path::PathBuf>,
    base_dir: Option<std::path::PathBuf>,
) -> PyResult<IdlParts> {
    let mut reader = avrokit_idl::IdlReader::new();
    for d in import_dirs {
        reader = reader.import_dir(d);
    }
    let file = match (&text, &path) {
        (Some(t), None) => py.detach(|| reader.parse_str(t, base_dir.as_deref())),
        (None, Some(p)) => py.detach(|| reader.parse_file(p)),
        _ => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "give either the IDL text or its path",
            ))
        }
    }
    .map_err(|e| crate::errors::AvroError::new_err(e.to_string()))?;
    Ok((
        file.protocol().map(|p| p.to_json().to_string()),
        file.main_schema().map(|s| s.to_json().to_string()),
        file.named_schemas()
            .iter()
            .map(|s| s.to_json().to_string())
            .collect(),
        file.warnings().iter().map(|w| w.to_string()).collect(),
    ))
}

/// `parse_idl`'s result.
type IdlParts = (Option<String>, Option<String>, Vec<String>, Vec<String>);
