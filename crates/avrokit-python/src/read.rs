//! Avro binary straight to Python objects, through a [`Plan`]: no intermediate `Value` tree.
//!
//! Values are what fastavro gives for the same data: dicts for records and maps, lists for
//! arrays, `str` symbols for enums, `bytes` for bytes and fixed, the bare branch value for
//! unions (or a `(name, value)` tuple under the `return_record_name` family of options), and
//! `datetime`/`date`/`time`/`Decimal`/`UUID` for the logical types fastavro converts.

use std::os::raw::c_char;

use avrokit::Decoder;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyList, PyTuple, PyTzInfo};

use crate::errors::{FResult, Fail};
use crate::plan::{Logical, PKind, Plan};

/// The reading options of fastavro's `reader`/`schemaless_reader`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOpts {
    pub return_record_name: bool,
    pub return_record_name_override: bool,
    pub return_named_type: bool,
    pub return_named_type_override: bool,
    /// `errors` argument of UTF-8 decoding: `strict` (null), `ignore` or `replace`.
    pub unicode_errors: UnicodeErrors,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UnicodeErrors {
    #[default]
    Strict,
    Ignore,
    Replace,
}

impl UnicodeErrors {
    pub fn parse(s: &str) -> PyResult<UnicodeErrors> {
        match s {
            "strict" => Ok(UnicodeErrors::Strict),
            "ignore" => Ok(UnicodeErrors::Ignore),
            "replace" => Ok(UnicodeErrors::Replace),
            _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "handle_unicode_errors must be 'strict', 'ignore' or 'replace', not {s:?}"
            ))),
        }
    }

    fn as_ptr(self) -> *const c_char {
        match self {
            UnicodeErrors::Strict => std::ptr::null(),
            UnicodeErrors::Ignore => c"ignore".as_ptr(),
            UnicodeErrors::Replace => c"replace".as_ptr(),
        }
    }
}

/// The Python classes the logical types build, imported once per interpreter.
pub struct PyTypes {
    pub datetime: Py<PyAny>,
    pub date: Py<PyAny>,
    pub time: Py<PyAny>,
    pub utc: Py<PyTzInfo>,
    pub decimal: Py<PyAny>,
    pub decimal_context: Py<PyAny>,
    pub uuid: Py<PyAny>,
    pub mapping: Py<PyAny>,
    pub sequence: Py<PyAny>,
    pub numbers_integral: Py<PyAny>,
    pub numbers_real: Py<PyAny>,
    pub bytes_io: Py<PyAny>,
}

static TYPES: PyOnceLock<PyTypes> = PyOnceLock::new();

pub fn types(py: Python<'_>) -> PyResult<&'static PyTypes> {
    TYPES.get_or_try_init(py, || {
        let dt = py.import("datetime")?;
        let dec = py.import("decimal")?;
        let abc = py.import("collections.abc")?;
        let numbers = py.import("numbers")?;
        Ok(PyTypes {
            datetime: dt.getattr("datetime")?.unbind(),
            date: dt.getattr("date")?.unbind(),
            time: dt.getattr("time")?.unbind(),
            utc: dt
                .getattr("timezone")?
                .getattr("utc")?
                .cast_into::<PyTzInfo>()?
                .unbind(),
            decimal: dec.getattr("Decimal")?.unbind(),
            decimal_context: dec.getattr("Context")?.unbind(),
            uuid: py.import("uuid")?.getattr("UUID")?.unbind(),
            mapping: abc.getattr("Mapping")?.unbind(),
            sequence: abc.getattr("Sequence")?.unbind(),
            numbers_integral: numbers.getattr("Integral")?.unbind(),
            numbers_real: numbers.getattr("Real")?.unbind(),
            bytes_io: py.import("io")?.getattr("BytesIO")?.unbind(),
        })
    })
}

/// Everything a datum's decoding needs.
pub struct Cx<'a, 'py> {
    pub py: Python<'py>,
    pub plan: &'a Plan,
    pub opts: ReadOpts,
    pub types: &'a PyTypes,
    /// Any `return_*` option set: unions need a look at them.
    wrap: bool,
}

impl<'a, 'py> Cx<'a, 'py> {
    pub fn new(py: Python<'py>, plan: &'a Plan, opts: ReadOpts) -> PyResult<Cx<'a, 'py>> {
        Ok(Cx {
            py,
            plan,
            opts,
            types: types(py)?,
            wrap: opts.return_record_name || opts.return_named_type,
        })
    }
}

/// Reads one datum of the plan's root.
#[inline]
pub fn read_root<'py>(cx: &Cx<'_, 'py>, dec: &mut Decoder<'_>) -> FResult<Bound<'py, PyAny>> {
    read(cx, cx.plan.root, dec)
}

/// Reads one value of node `id`.
pub fn read<'py>(cx: &Cx<'_, 'py>, id: u32, dec: &mut Decoder<'_>) -> FResult<Bound<'py, PyAny>> {
    let py = cx.py;
    let node = cx.plan.node(id);
    let v: Bound<'py, PyAny> = match &node.kind {
        PKind::Null => py.None().into_bound(py),
        PKind::Boolean => pyo3::types::PyBool::new(py, dec.read_boolean()?)
            .to_owned()
            .into_any(),
        PKind::Int => {
            let v = dec.read_int()?;
            match node.logical {
                Logical::None => v
                    .into_pyobject(py)
                    .unwrap_or_else(|e| match e {})
                    .into_any(),
                logical => read_logical_int(cx, logical, v, dec.offset())?,
            }
        }
        PKind::Long => {
            let v = dec.read_long()?;
            match node.logical {
                Logical::None => v
                    .into_pyobject(py)
                    .unwrap_or_else(|e| match e {})
                    .into_any(),
                logical => read_logical_long(cx, logical, v, dec.offset())?,
            }
        }
        PKind::Float => PyFloat::new(py, f64::from(dec.read_float()?)).into_any(),
        PKind::Double => PyFloat::new(py, dec.read_double()?).into_any(),
        PKind::Bytes => {
            let at = dec.offset();
            let b = dec.read_bytes_borrowed()?;
            match node.logical {
                Logical::Decimal { precision, scale } => {
                    decimal(cx, b, precision, scale).map_err(|e| Fail::from(e).shift(at))?
                }
                _ => PyBytes::new(py, b).into_any(),
            }
        }
        PKind::String => {
            let at = dec.offset();
            let b = dec.read_bytes_borrowed()?;
            let s = utf8(py, b, cx.opts.unicode_errors).map_err(|e| Fail::from(e).shift(at))?;
            match node.logical {
                Logical::Uuid => cx
                    .types
                    .uuid
                    .bind(py)
                    .call1((s,))
                    .map_err(|e| Fail::from(e).shift(at))?,
                _ => s,
            }
        }
        PKind::Fixed(size) => {
            let at = dec.offset();
            let b = dec.read_fixed(*size)?;
            match node.logical {
                Logical::Decimal { precision, scale } => {
                    decimal(cx, b, precision, scale).map_err(|e| Fail::from(e).shift(at))?
                }
                _ => PyBytes::new(py, b).into_any(),
            }
        }
        PKind::Enum(e) => {
            let at = dec.offset();
            let i = dec.read_enum()?;
            match e.symbols.get(i as usize) {
                Some(s) => s.bind(py).clone().into_any(),
                None => {
                    return Err(Fail::at(
                        format!(
                            "invalid data: enum index {i} out of range (0..{})",
                            e.symbols.len()
                        ),
                        at,
                    ))
                }
            }
        }
        PKind::Array(items) => {
            dec.enter()?;
            let items = *items;
            let min = cx.plan.node(items).min_size;
            let mut out: Vec<Bound<'py, PyAny>> = Vec::new();
            let mut n = dec.read_array_start()?;
            while n > 0 {
                check_count(dec, n, min)?;
                out.reserve(n.min(1 << 16) as usize);
                for _ in 0..n {
                    let i = out.len();
                    out.push(read(cx, items, dec).map_err(|e| e.index(i))?);
                }
                n = dec.array_next()?;
            }
            dec.leave();
            PyList::new(py, out)?.into_any()
        }
        PKind::Map(values) => {
            dec.enter()?;
            let values = *values;
            let min = cx.plan.node(values).min_size + 1;
            let d = PyDict::new(py);
            let mut n = dec.read_map_start()?;
            while n > 0 {
                check_count(dec, n, min)?;
                for _ in 0..n {
                    let at = dec.offset();
                    let kb = dec.read_bytes_borrowed()?;
                    let k = utf8(py, kb, cx.opts.unicode_errors)
                        .map_err(|e| Fail::from(e).shift(at))?;
                    let v =
                        read(cx, values, dec).map_err(|e| e.key(&String::from_utf8_lossy(kb)))?;
                    d.set_item(k, v)?;
                }
                n = dec.map_next()?;
            }
            dec.leave();
            d.into_any()
        }
        PKind::Record(r) => {
            dec.enter()?;
            let d = PyDict::new(py);
            for f in &r.fields {
                let v = read(cx, f.node, dec).map_err(|e| e.field(&f.name))?;
                d.set_item(f.name.bind(py), v)?;
            }
            dec.leave();
            d.into_any()
        }
        PKind::Union(u) => {
            let at = dec.offset();
            let i = dec.read_union_index()? as usize;
            let Some(&b) = u.branches.get(i) else {
                return Err(Fail::at(
                    format!(
                        "invalid data: union branch {i} out of range (0..{})",
                        u.branches.len()
                    ),
                    at,
                ));
            };
            dec.enter()?;
            let v = read(cx, b, dec).map_err(|e| e.index(i))?;
            dec.leave();
            if cx.wrap {
                let bn = cx.plan.node(b);
                let is_record = matches!(bn.kind, PKind::Record(_));
                let o = &cx.opts;
                let named = if o.return_named_type_override && u.single_named {
                    false
                } else if o.return_named_type && bn.is_named {
                    true
                } else if o.return_record_name_override && u.single_record {
                    false
                } else {
                    o.return_record_name && is_record
                };
                if named {
                    return Ok(
                        PyTuple::new(py, [bn.name.bind(py).clone().into_any(), v])?.into_any()
                    );
                }
            }
            v
        }
    };
    Ok(v)
}

/// A block count can only be as large as the bytes left can hold (a value that takes no bytes
/// still costs memory: those are bounded by the decoder's allocation limit).
#[inline]
fn check_count(dec: &mut Decoder<'_>, n: u64, min: u64) -> FResult<()> {
    if min == 0 {
        dec.check_zero_size_items(n, std::mem::size_of::<usize>())?;
    } else {
        dec.check_items(n, min, std::mem::size_of::<usize>())?;
    }
    Ok(())
}

/// UTF-8 bytes to `str`, through CPython's own decoder (which validates once).
#[inline]
pub fn utf8<'py>(py: Python<'py>, b: &[u8], errors: UnicodeErrors) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `b` is a live slice for the duration of the call; CPython copies it. The errors
    // pointer is null or a NUL-terminated static string. The result is a new reference (or
    // null with an exception set), which `from_owned_ptr_or_err` takes over.
    unsafe {
        let p = ffi::PyUnicode_DecodeUTF8(
            b.as_ptr() as *const c_char,
            b.len() as ffi::Py_ssize_t,
            errors.as_ptr(),
        );
        Bound::from_owned_ptr_or_err(py, p)
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, u8, u8) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn read_logical_int<'py>(
    cx: &Cx<'_, 'py>,
    logical: Logical,
    v: i32,
    at: u64,
) -> FResult<Bound<'py, PyAny>> {
    let py = cx.py;
    match logical {
        Logical::Date => {
            let (y, m, d) = civil_from_days(i64::from(v));
            if !(1..=9999).contains(&y) {
                return Err(Fail::at(
                    format!("date {v} (days since 1970-01-01) is out of Python's range"),
                    at,
                ));
            }
            Ok(cx.types.date.bind(py).call1((y, m, d))?)
        }
        Logical::TimeMillis => time_of(cx, i64::from(v), 3_600_000, 60_000, 1000, at),
        _ => Ok(v
            .into_pyobject(py)
            .unwrap_or_else(|e| match e {})
            .into_any()),
    }
}

fn read_logical_long<'py>(
    cx: &Cx<'_, 'py>,
    logical: Logical,
    v: i64,
    at: u64,
) -> FResult<Bound<'py, PyAny>> {
    let py = cx.py;
    let micros = match logical {
        Logical::TimeMicros => return time_of(cx, v, 3_600_000_000, 60_000_000, 1_000_000, at),
        Logical::TimestampMillis | Logical::LocalTimestampMillis => i128::from(v) * 1000,
        Logical::TimestampMicros | Logical::LocalTimestampMicros => i128::from(v),
        _ => {
            return Ok(v
                .into_pyobject(py)
                .unwrap_or_else(|e| match e {})
                .into_any())
        }
    };
    let days = micros.div_euclid(86_400_000_000);
    let rest = micros.rem_euclid(86_400_000_000) as i64;
    let (y, m, d) = civil_from_days(days as i64);
    if !(1..=9999).contains(&y) || days.abs() > 10_000_000 {
        return Err(Fail::at(
            format!("timestamp {v} is out of Python's datetime range"),
            at,
        ));
    }
    let (hh, mm, ss, us) = (
        (rest / 3_600_000_000) as u8,
        (rest / 60_000_000 % 60) as u8,
        (rest / 1_000_000 % 60) as u8,
        (rest % 1_000_000) as u32,
    );
    let cls = cx.types.datetime.bind(py);
    let dt = if matches!(logical, Logical::TimestampMillis | Logical::TimestampMicros) {
        cls.call1((y, m, d, hh, mm, ss, us, cx.types.utc.bind(py)))?
    } else {
        cls.call1((y, m, d, hh, mm, ss, us))?
    };
    Ok(dt)
}

/// `time-millis`/`time-micros` as fastavro computes them (truncating division for the hour,
/// floored remainders for the rest), so out-of-day values fail where fastavro's do.
fn time_of<'py>(
    cx: &Cx<'_, 'py>,
    v: i64,
    per_hour: i64,
    per_minute: i64,
    per_second: i64,
    at: u64,
) -> FResult<Bound<'py, PyAny>> {
    let h = v / per_hour;
    let m = (v / per_minute).rem_euclid(60);
    let s = (v / per_second).rem_euclid(60);
    let frac = v.rem_euclid(per_second) * (1_000_000 / per_second);
    if !(0..24).contains(&h) {
        return Err(Fail::at(format!("time {v} is not within a day"), at));
    }
    Ok(cx.types.time.bind(cx.py).call1((h, m, s, frac))?)
}

/// A decimal's two's-complement big-endian unscaled bytes as `Decimal`, as fastavro builds it
/// (`Context(prec=precision).create_decimal(unscaled).scaleb(-scale)`).
fn decimal<'py>(
    cx: &Cx<'_, 'py>,
    b: &[u8],
    precision: u32,
    scale: u32,
) -> PyResult<Bound<'py, PyAny>> {
    let py = cx.py;
    if b.len() <= 16 {
        let mut v: i128 = if b.first().is_some_and(|&x| x & 0x80 != 0) {
            -1
        } else {
            0
        };
        for &x in b {
            v = (v << 8) | i128::from(x);
        }
        let digits = v.unsigned_abs().checked_ilog10().map_or(1, |d| d + 1);
        if digits <= precision {
            // Exact: the digits fit the context, so no rounding happens.
            let text = format!("{v}E-{scale}");
            return cx.types.decimal.bind(py).call1((text,));
        }
    }
    let int = py
        .get_type::<pyo3::types::PyInt>()
        .call_method1("from_bytes", (PyBytes::new(py, b), "big"))?;
    let int = if b.first().is_some_and(|&x| x & 0x80 != 0) {
        // from_bytes(..., signed=True) without keyword arguments: subtract 2**(8*len).
        let modulus = 1i64
            .into_pyobject(py)?
            .call_method1("__lshift__", (8 * b.len(),))?;
        int.call_method1("__sub__", (modulus,))?
    } else {
        int
    };
    let ctx = cx.types.decimal_context.bind(py).call0()?;
    ctx.setattr("prec", precision)?;
    let d = ctx.call_method1("create_decimal", (int,))?;
    d.call_method1("scaleb", (-(scale as i64), ctx))
}
