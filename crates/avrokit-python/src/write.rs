//! Python objects straight to Avro binary, through a [`Plan`], taking what fastavro's writer
//! takes: dicts (any mapping) for records and maps, any sequence (any iterable, in fact) for
//! arrays, symbols for enums, `(name, value)` tuples or fastavro's branch guessing for unions,
//! and `datetime`/`date`/`time`/`Decimal`/`UUID` (or their underlying values) for the logical
//! types. [`validate`] is fastavro's `validate`, which the branch guessing is built on.

use std::os::raw::c_char;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};

use crate::errors::{FResult, Fail};
use crate::plan::{Logical, PKind, PUnion, Plan};
use crate::read::{types, PyTypes};

/// Nesting deeper than this (a list that contains itself...) is an error, not a stack overflow.
const MAX_DEPTH: usize = 512;

/// Days from 0001-01-01 (ordinal 1) to 1970-01-01.
const DAYS_SHIFT: i64 = 719_163;

#[derive(Debug, Clone, Copy, Default)]
pub struct WriteOpts {
    pub strict: bool,
    pub strict_allow_default: bool,
    pub disable_tuple_notation: bool,
}

pub struct Wx<'a, 'py> {
    pub py: Python<'py>,
    pub plan: &'a Plan,
    pub opts: WriteOpts,
    pub types: &'a PyTypes,
}

impl<'a, 'py> Wx<'a, 'py> {
    pub fn new(py: Python<'py>, plan: &'a Plan, opts: WriteOpts) -> PyResult<Wx<'a, 'py>> {
        Ok(Wx {
            py,
            plan,
            opts,
            types: types(py)?,
        })
    }
}

// PyUnicode_AsUTF8AndSize is in the limited API from 3.10 only, but every CPython 3 exports
// it; abi3-py39 builds declare it themselves. It returns the string's cached UTF-8 form, where
// the limited API's alternative copies every string into a new bytes object.
extern "C" {
    fn PyUnicode_AsUTF8AndSize(o: *mut ffi::PyObject, size: *mut ffi::Py_ssize_t) -> *const c_char;
}

/// A `str`'s UTF-8 bytes, borrowed from the string object.
#[inline]
pub fn str_bytes<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a [u8]> {
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str`; the returned buffer is owned by it and lives as long as it
    // does (the borrow of `s` bounds the slice). Null means an exception is set.
    unsafe {
        let p = PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut len);
        if p.is_null() {
            return Err(PyErr::fetch(s.py()));
        }
        Ok(std::slice::from_raw_parts(p as *const u8, len as usize))
    }
}

/// A `str` as `&str` (its cached UTF-8 form).
#[inline]
pub fn str_of<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    std::str::from_utf8(str_bytes(s)?)
        .map_err(|e| pyo3::exceptions::PyUnicodeError::new_err(e.to_string()))
}

#[inline(always)]
pub fn put_long(out: &mut Vec<u8>, v: i64) {
    let mut n = ((v << 1) ^ (v >> 63)) as u64;
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

#[inline(always)]
fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_long(out, b.len() as i64);
    out.extend_from_slice(b);
}

#[cold]
#[inline(never)]
fn mismatch(obj: &Bound<'_, PyAny>, what: &str) -> Fail {
    let ty = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    let repr = obj
        .repr()
        .map(|r| r.to_string_lossy().chars().take(80).collect::<String>())
        .unwrap_or_default();
    Fail::msg(format!("{repr} (type {ty}) is not a valid {what}"))
}

fn int_of(obj: &Bound<'_, PyAny>, what: &str) -> FResult<i64> {
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().map_err(|_| {
            Fail::msg(format!(
                "{} is out of range for {what}",
                obj.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        });
    }
    match obj.extract::<i64>() {
        Ok(v) if !obj.is_instance_of::<PyFloat>() => Ok(v),
        _ => Err(mismatch(obj, what)),
    }
}

/// Writes `obj` as a value of node `id`.
pub fn write(
    wx: &Wx<'_, '_>,
    id: u32,
    obj: &Bound<'_, PyAny>,
    out: &mut Vec<u8>,
    depth: usize,
) -> FResult<()> {
    if depth > MAX_DEPTH {
        return Err(Fail::msg(format!(
            "value nested deeper than {MAX_DEPTH} levels"
        )));
    }
    let node = wx.plan.node(id);
    match &node.kind {
        PKind::Null => {}
        PKind::Boolean => out.push(obj.is_truthy()? as u8),
        PKind::Int => {
            let v = match node.logical {
                Logical::None => int_of(obj, "int")?,
                l => prepare_int(wx, l, obj)?,
            };
            let v =
                i32::try_from(v).map_err(|_| Fail::msg(format!("{v} is out of range for int")))?;
            put_long(out, i64::from(v));
        }
        PKind::Long => {
            let v = match node.logical {
                Logical::None => int_of(obj, "long")?,
                l => prepare_long(wx, l, obj)?,
            };
            put_long(out, v);
        }
        PKind::Float => out.extend_from_slice(&(float_of(obj)? as f32).to_le_bytes()),
        PKind::Double => out.extend_from_slice(&float_of(obj)?.to_le_bytes()),
        PKind::Bytes => {
            if let Ok(b) = obj.cast::<PyBytes>() {
                put_bytes(out, b.as_bytes());
            } else if let Logical::Decimal { precision, scale } = node.logical {
                if obj.is_instance(wx.types.decimal.bind(wx.py))? {
                    let b = decimal_bytes(obj, precision, scale, None)?;
                    put_bytes(out, &b);
                } else {
                    put_bytes(out, &bytes_like(obj, "bytes")?);
                }
            } else {
                put_bytes(out, &bytes_like(obj, "bytes")?);
            }
        }
        PKind::String => {
            if let Ok(s) = obj.cast::<PyString>() {
                put_bytes(out, str_bytes(s)?);
            } else if node.logical == Logical::Uuid && obj.is_instance(wx.types.uuid.bind(wx.py))? {
                let s = obj.str()?;
                put_bytes(out, str_bytes(&s)?);
            } else {
                return Err(mismatch(obj, "string"));
            }
        }
        PKind::Fixed(size) => {
            let b: Vec<u8> = match node.logical {
                Logical::Decimal { precision, scale }
                    if obj.is_instance(wx.types.decimal.bind(wx.py))? =>
                {
                    decimal_bytes(obj, precision, scale, Some(*size))?
                }
                _ => bytes_like(obj, "fixed")?,
            };
            if b.len() != *size {
                return Err(Fail::msg(format!(
                    "fixed of size {size} given {} bytes",
                    b.len()
                )));
            }
            out.extend_from_slice(&b);
        }
        PKind::Enum(e) => {
            let i = obj
                .cast::<PyString>()
                .ok()
                .and_then(|s| str_of(s).ok().and_then(|s| e.index.get(s).copied()));
            match i {
                Some(i) => put_long(out, i64::from(i)),
                None => {
                    return Err(Fail::msg(format!(
                        "{} is not a symbol of the enum {}",
                        obj.repr().map(|r| r.to_string()).unwrap_or_default(),
                        node.name
                    )))
                }
            }
        }
        PKind::Array(items) => {
            let items = *items;
            if let Ok(l) = obj.cast::<PyList>() {
                write_items(wx, items, l.len(), l.iter(), out, depth)?;
            } else if let Ok(t) = obj.cast::<PyTuple>() {
                write_items(wx, items, t.len(), t.iter(), out, depth)?;
            } else if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyDict>() {
                return Err(mismatch(obj, "array"));
            } else {
                let v: Vec<Bound<'_, PyAny>> = obj
                    .try_iter()
                    .map_err(|_| mismatch(obj, "array"))?
                    .collect::<PyResult<_>>()?;
                write_items(wx, items, v.len(), v.into_iter(), out, depth)?;
            }
        }
        PKind::Map(values) => {
            let values = *values;
            let write_entry =
                |k: &Bound<'_, PyAny>, v: &Bound<'_, PyAny>, out: &mut Vec<u8>| -> FResult<()> {
                    let ks = k
                        .cast::<PyString>()
                        .map_err(|_| mismatch(k, "map key (str)"))?;
                    put_bytes(out, str_bytes(ks)?);
                    write(wx, values, v, out, depth + 1).map_err(|e| e.key(&ks.to_string_lossy()))
                };
            if let Ok(d) = obj.cast::<PyDict>() {
                if !d.is_empty() {
                    put_long(out, d.len() as i64);
                    for (k, v) in d.iter() {
                        write_entry(&k, &v, out)?;
                    }
                }
            } else if obj.is_instance(wx.types.mapping.bind(wx.py))? {
                let items: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> = obj
                    .call_method0("items")?
                    .try_iter()?
                    .map(|kv| kv.and_then(|kv| kv.extract()))
                    .collect::<PyResult<_>>()?;
                if !items.is_empty() {
                    put_long(out, items.len() as i64);
                    for (k, v) in &items {
                        write_entry(k, v, out)?;
                    }
                }
            } else {
                return Err(mismatch(obj, "map"));
            }
            out.push(0);
        }
        PKind::Record(r) => {
            let dict = obj.cast::<PyDict>().ok();
            if dict.is_none() && !obj.is_instance(wx.types.mapping.bind(wx.py))? {
                return Err(mismatch(obj, &format!("record {}", node.name)));
            }
            if wx.opts.strict || wx.opts.strict_allow_default {
                let n = obj.len()?;
                let mut known = 0;
                for f in &r.fields {
                    if obj.contains(f.name.bind(wx.py))? {
                        known += 1;
                    }
                }
                if n > known {
                    return Err(Fail::msg(format!(
                        "record {} has {} fields the schema does not know",
                        node.name,
                        n - known
                    )));
                }
            }
            for f in &r.fields {
                let name = f.name.bind(wx.py);
                let value = match dict {
                    Some(d) => d.get_item(name)?,
                    None => match obj.get_item(name) {
                        Ok(v) => Some(v),
                        Err(e) if e.is_instance_of::<pyo3::exceptions::PyKeyError>(wx.py) => None,
                        Err(e) => return Err(e.into()),
                    },
                };
                match value {
                    Some(v) => {
                        write(wx, f.node, &v, out, depth + 1).map_err(|e| e.field(&f.name))?
                    }
                    None => {
                        if wx.opts.strict || (wx.opts.strict_allow_default && f.default.is_none()) {
                            return Err(Fail::msg(format!(
                                "field {name} is specified in the schema but missing from the record"
                            )));
                        }
                        if let Some(d) = &f.default {
                            out.extend_from_slice(d);
                        } else if f.nullable {
                            write(wx, f.node, &wx.py.None().into_bound(wx.py), out, depth + 1)
                                .map_err(|e| e.field(&f.name))?;
                        } else {
                            return Err(Fail::msg(format!("no value and no default for {name}"))
                                .field(&f.name));
                        }
                    }
                }
            }
        }
        PKind::Union(u) => {
            let (i, v) = pick_branch(wx, u, obj, depth)?;
            put_long(out, i as i64);
            write(wx, u.branches[i], &v, out, depth + 1).map_err(|e| e.index(i))?;
        }
    }
    Ok(())
}

fn write_items<'py>(
    wx: &Wx<'_, 'py>,
    items: u32,
    len: usize,
    iter: impl Iterator<Item = Bound<'py, PyAny>>,
    out: &mut Vec<u8>,
    depth: usize,
) -> FResult<()> {
    if len > 0 {
        put_long(out, len as i64);
        for (i, item) in iter.enumerate() {
            write(wx, items, &item, out, depth + 1).map_err(|e| e.index(i))?;
        }
    }
    out.push(0);
    Ok(())
}

fn float_of(obj: &Bound<'_, PyAny>) -> FResult<f64> {
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(f.value());
    }
    if obj.is_instance_of::<PyString>() {
        // fastavro's record writer passes float and double fields through float(), so "NaN"
        // and "1.5" are accepted there.
        return Ok(obj
            .py()
            .get_type::<PyFloat>()
            .call1((obj,))?
            .extract::<f64>()?);
    }
    obj.extract::<f64>()
        .map_err(|_| mismatch(obj, "float or double"))
}

fn bytes_like(obj: &Bound<'_, PyAny>, what: &str) -> FResult<Vec<u8>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    Err(mismatch(obj, what))
}

/// The `int` value of `obj` for an int-based logical type (fastavro's `prepare_*`).
fn prepare_int(wx: &Wx<'_, '_>, l: Logical, obj: &Bound<'_, PyAny>) -> FResult<i64> {
    let py = wx.py;
    match l {
        Logical::Date => {
            if obj.is_instance(wx.types.date.bind(py))? {
                let ord: i64 = obj.call_method0("toordinal")?.extract()?;
                return Ok(ord - DAYS_SHIFT);
            }
            if obj.is_instance_of::<PyString>() {
                let d = wx
                    .types
                    .date
                    .bind(py)
                    .call_method1("fromisoformat", (obj,))?;
                let ord: i64 = d.call_method0("toordinal")?.extract()?;
                return Ok(ord - DAYS_SHIFT);
            }
            int_of(obj, "date (int)")
        }
        Logical::TimeMillis => {
            if obj.is_instance(wx.types.time.bind(py))? {
                return Ok(time_units(obj, 1000)?);
            }
            int_of(obj, "time-millis (int)")
        }
        _ => int_of(obj, "int"),
    }
}

fn time_units(obj: &Bound<'_, PyAny>, per_second: i64) -> PyResult<i64> {
    let h: i64 = obj.getattr("hour")?.extract()?;
    let m: i64 = obj.getattr("minute")?.extract()?;
    let s: i64 = obj.getattr("second")?.extract()?;
    let us: i64 = obj.getattr("microsecond")?.extract()?;
    Ok(((h * 60 + m) * 60 + s) * per_second + us / (1_000_000 / per_second))
}

/// The `long` value of `obj` for a long-based logical type.
fn prepare_long(wx: &Wx<'_, '_>, l: Logical, obj: &Bound<'_, PyAny>) -> FResult<i64> {
    let py = wx.py;
    let per_second = match l {
        Logical::TimeMicros => {
            if obj.is_instance(wx.types.time.bind(py))? {
                return Ok(time_units(obj, 1_000_000)?);
            }
            return int_of(obj, "time-micros (long)");
        }
        Logical::TimestampMillis | Logical::LocalTimestampMillis => 1000,
        Logical::TimestampMicros | Logical::LocalTimestampMicros => 1_000_000,
        _ => return int_of(obj, "long"),
    };
    if !obj.is_instance(wx.types.datetime.bind(py))? {
        return int_of(obj, "timestamp (long)");
    }
    let local = matches!(
        l,
        Logical::LocalTimestampMillis | Logical::LocalTimestampMicros
    );
    let aware = !local && !obj.getattr("tzinfo")?.is_none();
    // Days, seconds and microseconds since the epoch: from the fields for naive and local
    // values (a naive datetime is taken as UTC, see the README), by subtraction for aware ones.
    let (days, secs, us) = if aware {
        let off = obj.call_method0("utcoffset")?;
        let (d, s, u) = civil_parts(obj)?;
        let off_s: i64 = if off.is_none() {
            0
        } else {
            let od: i64 = off.getattr("days")?.extract()?;
            let os: i64 = off.getattr("seconds")?.extract()?;
            od * 86_400 + os
        };
        (d, s - off_s, u)
    } else {
        civil_parts(obj)?
    };
    let total_s = days * 86_400 + secs;
    Ok(total_s * per_second + us / (1_000_000 / per_second))
}

/// (days since 1970-01-01, seconds into the day, microseconds) of a date-time's fields.
fn civil_parts(obj: &Bound<'_, PyAny>) -> PyResult<(i64, i64, i64)> {
    let y: i64 = obj.getattr("year")?.extract()?;
    let mo: i64 = obj.getattr("month")?.extract()?;
    let d: i64 = obj.getattr("day")?.extract()?;
    let h: i64 = obj.getattr("hour")?.extract()?;
    let mi: i64 = obj.getattr("minute")?.extract()?;
    let s: i64 = obj.getattr("second")?.extract()?;
    let us: i64 = obj.getattr("microsecond")?.extract()?;
    Ok((days_from_civil(y, mo, d), (h * 60 + mi) * 60 + s, us))
}

pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A `Decimal` as the two's-complement big-endian bytes of its unscaled value (fastavro's
/// `prepare_bytes_decimal` / `prepare_fixed_decimal`, with their checks).
fn decimal_bytes(
    obj: &Bound<'_, PyAny>,
    precision: u32,
    scale: u32,
    size: Option<usize>,
) -> FResult<Vec<u8>> {
    let t = obj.call_method0("as_tuple")?;
    let sign: i64 = t.get_item(0)?.extract()?;
    let digits: Vec<u8> = t.get_item(1)?.extract()?;
    let exp = t.get_item(2)?;
    let exp: i64 = exp
        .extract()
        .map_err(|_| Fail::msg("a Decimal NaN or infinity cannot be written as a decimal"))?;
    if digits.len() > precision as usize {
        return Err(Fail::msg(
            "The decimal precision is bigger than allowed by schema",
        ));
    }
    let delta = exp + i64::from(scale);
    if delta < 0 {
        return Err(Fail::msg(
            "Scale provided in schema does not match the decimal",
        ));
    }
    // Digits times 10**delta, in a Python int (any size), then its bytes.
    let py = obj.py();
    let mut text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    if text.is_empty() {
        text.push('0');
    }
    text.extend(std::iter::repeat_n('0', delta as usize));
    if sign == 1 {
        text.insert(0, '-');
    }
    let int = py.get_type::<PyInt>().call1((text,))?;
    let nbytes = match size {
        Some(s) => s,
        None => {
            let bits: usize = int.call_method0("bit_length")?.extract()?;
            (bits + 8) / 8
        }
    };
    let kwargs = PyDict::new(py);
    kwargs.set_item("signed", true)?;
    let b = int
        .call_method("to_bytes", (nbytes, "big"), Some(&kwargs))
        .map_err(|_| Fail::msg(format!("the decimal does not fit in fixed({nbytes})")))?;
    Ok(b.cast::<PyBytes>()
        .map_err(PyErr::from)?
        .as_bytes()
        .to_vec())
}

/// The union branch for `obj` and the value to write there: fastavro's rules.
fn pick_branch<'py>(
    wx: &Wx<'_, 'py>,
    u: &PUnion,
    obj: &Bound<'py, PyAny>,
    depth: usize,
) -> FResult<(usize, Bound<'py, PyAny>)> {
    let plan = wx.plan;
    if let Ok(t) = obj.cast::<PyTuple>() {
        if !wx.opts.disable_tuple_notation {
            if t.len() != 2 {
                return Err(Fail::msg(format!(
                    "a union's (name, value) tuple has {} items",
                    t.len()
                )));
            }
            let name = t.get_item(0)?;
            let value = t.get_item(1)?;
            for (i, &b) in u.branches.iter().enumerate() {
                if PyAnyMethods::eq(&name, plan.node(b).name.bind(wx.py))? {
                    return Ok((i, value));
                }
            }
            return Err(Fail::msg(format!(
                "provided union type name {} not found in the union",
                name.repr()?
            )));
        }
    }
    let null_branch = u
        .branches
        .iter()
        .position(|&b| matches!(plan.node(b).kind, PKind::Null));
    if obj.is_none() {
        if let Some(i) = null_branch {
            return Ok((i, obj.clone()));
        }
    }
    // One branch besides null: fastavro would validate the value against it and then write it;
    // writing it straight away fails where that validation would (a little more is accepted:
    // see the README).
    if let (Some(n), 2) = (null_branch, u.branches.len()) {
        if !obj.is_none() {
            return Ok((1 - n, obj.clone()));
        }
    }
    if u.branches.len() == 1 {
        return Ok((0, obj.clone()));
    }
    let mut best: Option<usize> = None;
    let mut most_fields: i64 = -1;
    let mut could_be_float = false;
    for (i, &b) in u.branches.iter().enumerate() {
        let bn = plan.node(b);
        if could_be_float {
            if matches!(bn.kind, PKind::Double) {
                best = Some(i);
                break;
            }
            continue;
        }
        if !validate(wx, b, obj, depth + 1)? {
            continue;
        }
        match &bn.kind {
            PKind::Record(r) => {
                let mut n = 0;
                for f in &r.fields {
                    if obj.contains(f.name.bind(wx.py))? {
                        n += 1;
                    }
                }
                if n > most_fields {
                    best = Some(i);
                    most_fields = n;
                }
            }
            PKind::Float => {
                best = Some(i);
                could_be_float = true;
            }
            _ => {
                best = Some(i);
                break;
            }
        }
    }
    match best {
        Some(i) => Ok((i, obj.clone())),
        None => Err(mismatch(obj, "value of any branch of the union")),
    }
}

/// fastavro's `validate` of `obj` against node `id` (logical values count as their underlying
/// type's), without raising: true when it fits.
pub fn validate(wx: &Wx<'_, '_>, id: u32, obj: &Bound<'_, PyAny>, depth: usize) -> FResult<bool> {
    if depth > MAX_DEPTH {
        return Err(Fail::msg(format!(
            "value nested deeper than {MAX_DEPTH} levels"
        )));
    }
    let py = wx.py;
    let node = wx.plan.node(id);
    let t = wx.types;
    Ok(match &node.kind {
        PKind::Null => obj.is_none(),
        PKind::Boolean => obj.is_instance_of::<PyBool>(),
        PKind::String => {
            obj.is_instance_of::<PyString>()
                || (node.logical == Logical::Uuid && obj.is_instance(t.uuid.bind(py))?)
        }
        PKind::Bytes => {
            obj.is_instance_of::<PyBytes>()
                || obj.is_instance_of::<PyByteArray>()
                || (matches!(node.logical, Logical::Decimal { .. })
                    && obj.is_instance(t.decimal.bind(py))?)
        }
        PKind::Int | PKind::Long => {
            let logical_ok = match node.logical {
                Logical::Date => obj.is_instance(t.date.bind(py))?,
                Logical::TimeMillis | Logical::TimeMicros => obj.is_instance(t.time.bind(py))?,
                Logical::TimestampMillis
                | Logical::TimestampMicros
                | Logical::LocalTimestampMillis
                | Logical::LocalTimestampMicros => obj.is_instance(t.datetime.bind(py))?,
                _ => false,
            };
            if logical_ok {
                true
            } else if obj.is_instance_of::<PyBool>() {
                false
            } else if obj.is_instance_of::<PyInt>()
                || obj.is_instance(t.numbers_integral.bind(py))?
            {
                match obj.extract::<i64>() {
                    Ok(v) => matches!(node.kind, PKind::Long) || i32::try_from(v).is_ok(),
                    Err(_) => false,
                }
            } else {
                false
            }
        }
        PKind::Float | PKind::Double => {
            !obj.is_instance_of::<PyBool>()
                && (obj.is_instance_of::<PyFloat>()
                    || obj.is_instance_of::<PyInt>()
                    || obj.is_instance(t.numbers_real.bind(py))?)
        }
        PKind::Fixed(size) => {
            (obj.cast::<PyBytes>()
                .is_ok_and(|b| b.as_bytes().len() == *size))
                || (matches!(node.logical, Logical::Decimal { .. })
                    && obj.is_instance(t.decimal.bind(py))?)
        }
        PKind::Enum(e) => obj
            .cast::<PyString>()
            .ok()
            .and_then(|s| str_of(s).ok().map(|s| e.index.contains_key(s)))
            .unwrap_or(false),
        PKind::Array(items) => {
            if obj.is_instance_of::<PyString>() {
                return Ok(false);
            }
            let seq = obj.is_instance_of::<PyList>()
                || obj.is_instance_of::<PyTuple>()
                || obj.is_instance(t.sequence.bind(py))?
                || obj.get_type().name().is_ok_and(|n| n == "array");
            if !seq {
                return Ok(false);
            }
            for item in obj.try_iter()? {
                if !validate(wx, *items, &item?, depth + 1)? {
                    return Ok(false);
                }
            }
            true
        }
        PKind::Map(values) => {
            let Ok(d) = obj.cast::<PyDict>() else {
                if !obj.is_instance(t.mapping.bind(py))? {
                    return Ok(false);
                }
                let d = PyDict::new(py);
                d.update(obj.cast::<pyo3::types::PyMapping>().map_err(PyErr::from)?)?;
                return validate(wx, id, d.as_any(), depth);
            };
            for (k, v) in d.iter() {
                if !k.is_instance_of::<PyString>() || !validate(wx, *values, &v, depth + 1)? {
                    return Ok(false);
                }
            }
            true
        }
        PKind::Record(r) => {
            let is_dict = obj.is_instance_of::<PyDict>();
            if !is_dict && !obj.is_instance(t.mapping.bind(py))? {
                return Ok(false);
            }
            if let Some(ty) = get(obj, &PyString::intern(py, "-type"))? {
                if !ty.eq(node.name.bind(py))? {
                    return Ok(false);
                }
            }
            for f in &r.fields {
                let v = match get(obj, f.name.bind(py))? {
                    Some(v) => v,
                    None if f.default.is_some() || f.nullable => {
                        if wx.opts.strict {
                            return Ok(false);
                        }
                        continue;
                    }
                    None => {
                        if wx.opts.strict {
                            return Ok(false);
                        }
                        py.None().into_bound(py)
                    }
                };
                if !validate(wx, f.node, &v, depth + 1)? {
                    return Ok(false);
                }
            }
            true
        }
        PKind::Union(u) => {
            if let Ok(tu) = obj.cast::<PyTuple>() {
                if !wx.opts.disable_tuple_notation && tu.len() == 2 {
                    let name = tu.get_item(0)?;
                    for &b in &u.branches {
                        if PyAnyMethods::eq(&name, wx.plan.node(b).name.bind(py))? {
                            return validate(wx, b, &tu.get_item(1)?, depth + 1);
                        }
                    }
                    return Ok(false);
                }
            }
            for &b in &u.branches {
                if validate(wx, b, obj, depth + 1)? {
                    return Ok(true);
                }
            }
            false
        }
    })
}

fn get<'py>(
    obj: &Bound<'py, PyAny>,
    key: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    if let Ok(d) = obj.cast::<PyDict>() {
        return d.get_item(key);
    }
    match obj.get_item(key) {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyKeyError>(obj.py()) => Ok(None),
        Err(e) => Err(e),
    }
}
