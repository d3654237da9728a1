//! The `decimal` logical type (and the value `big-decimal` shares): an unscaled
//! two's-complement big-endian integer and a scale, with the rules every front end applies
//! when writing one: at most `precision` digits, and sign extension to the size of a `fixed`.

use std::fmt;

use crate::error::{Error, Result};

/// A decimal number: `unscaled × 10^-scale`, with the unscaled integer as two's-complement
/// big-endian bytes (the Avro encoding), so any precision fits.
///
/// Written to a `decimal` schema, a value of another scale is rescaled to the schema's
/// exactly ([`Decimal::rescale`]): one that would need rounding, or has more digits than the
/// schema's precision, is an error. With the `rust_decimal` and `bigdecimal` features it
/// converts from and to `rust_decimal::Decimal` and `bigdecimal::BigDecimal`.
///
/// # Examples
/// ```
/// use avrokit::value::Decimal;
/// let d = Decimal::from_i128(-12345, 2);
/// assert_eq!(d.to_string(), "-123.45");
/// assert_eq!(d.to_i128(), Some(-12345));
/// assert_eq!(d.unscaled(), &[0xcf, 0xc7]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Decimal {
    // A boxed slice, not a `Vec`: 8 bytes less keeps every `Value` at 32 bytes instead of 40.
    unscaled: Box<[u8]>,
    scale: u32,
}

impl Decimal {
    /// A decimal from its unscaled two's-complement big-endian bytes and its scale.
    pub fn new(unscaled: Vec<u8>, scale: u32) -> Decimal {
        Decimal {
            unscaled: unscaled.into_boxed_slice(),
            scale,
        }
    }

    /// A decimal from an unscaled integer, in the fewest bytes.
    pub fn from_i128(unscaled: i128, scale: u32) -> Decimal {
        let bytes = unscaled.to_be_bytes();
        let mut start = 0;
        // Drop leading bytes that only repeat the sign of the next one.
        while start < 15 {
            let b = bytes[start];
            let next_neg = bytes[start + 1] & 0x80 != 0;
            if (b == 0 && !next_neg) || (b == 0xff && next_neg) {
                start += 1;
            } else {
                break;
            }
        }
        Decimal {
            unscaled: bytes[start..].into(),
            scale,
        }
    }

    /// The unscaled integer's two's-complement big-endian bytes.
    pub fn unscaled(&self) -> &[u8] {
        &self.unscaled
    }

    /// The scale: digits after the decimal point.
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// The unscaled integer, if it fits in an `i128`.
    pub fn to_i128(&self) -> Option<i128> {
        let b = &self.unscaled;
        if b.is_empty() {
            return Some(0);
        }
        let neg = b[0] & 0x80 != 0;
        // Leading sign bytes beyond 16 are fine as long as they are only sign.
        let extra = b.len().saturating_sub(16);
        let fill = if neg { 0xff } else { 0 };
        if b[..extra].iter().any(|&x| x != fill) {
            return None;
        }
        let tail = &b[extra..];
        if extra > 0 && (tail[0] & 0x80 != 0) != neg {
            return None;
        }
        let mut buf = [fill; 16];
        buf[16 - tail.len()..].copy_from_slice(tail);
        Some(i128::from_be_bytes(buf))
    }
}

impl Decimal {
    /// The same number with `scale` digits after the point: exact, or an error.
    ///
    /// ```
    /// use avrokit::value::Decimal;
    /// let d = Decimal::from_i128(1250, 3); // 1.250
    /// assert_eq!(d.rescale(2)?, Decimal::from_i128(125, 2));
    /// assert_eq!(d.rescale(5)?, Decimal::from_i128(125_000, 5));
    /// assert!(d.rescale(1).is_err()); // 1.25 needs rounding to one digit
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Data`](crate::ErrorKind::Data) when digits other than zeros would be
    /// dropped (the number needs rounding), or when the scale grows by more than
    /// 4096 digits.
    pub fn rescale(&self, scale: u32) -> Result<Decimal> {
        if scale == self.scale {
            return Ok(self.clone());
        }
        let (neg, mut mag) = magnitude(&self.unscaled);
        if scale > self.scale {
            let k = (scale - self.scale) as usize;
            if k > MAX_TEXT_DIGITS {
                return Err(Error::data(format!(
                    "rescaling a decimal from scale {} to {scale} adds more than \
                     {MAX_TEXT_DIGITS} digits",
                    self.scale
                )));
            }
            for _ in 0..k {
                mag_mul_add(&mut mag, 10, 0);
            }
        } else {
            let mut k = self.scale - scale;
            while k > 0 && !mag.is_empty() {
                let mut trial = mag.clone();
                if mag_divrem(&mut trial, 10) != 0 {
                    return Err(needs_rounding(&self.to_string(), scale));
                }
                mag = trial;
                k -= 1;
            }
        }
        Ok(Decimal::new(twos_complement(neg, &mag), scale))
    }

    /// The exact decimal text, `-123.45` (digits after the point as the scale says); a scale
    /// beyond 4096 digits is written with an exponent (`12E-5000`).
    ///
    /// ```
    /// use avrokit::value::Decimal;
    /// assert_eq!(Decimal::from_i128(-5, 3).to_text(), "-0.005");
    /// let mut big = vec![0x01];
    /// big.extend([0u8; 16]); // 2^128
    /// assert_eq!(Decimal::new(big, 2).to_text(), "3402823669209384634633746074317682114.56");
    /// ```
    pub fn to_text(&self) -> String {
        to_text(&self.unscaled, self.scale)
    }
}

/// Exact: the mantissa and scale of a `rust_decimal::Decimal` (feature `rust_decimal`).
#[cfg(feature = "rust_decimal")]
impl From<rust_decimal::Decimal> for Decimal {
    fn from(d: rust_decimal::Decimal) -> Decimal {
        Decimal::from_i128(d.mantissa(), d.scale())
    }
}

/// A `rust_decimal::Decimal` of the same value and scale (feature `rust_decimal`).
///
/// # Errors
/// [`ErrorKind::Data`](crate::ErrorKind::Data) when the unscaled value needs more than 96 bits
/// or the scale is above 28 (rust_decimal's limits).
#[cfg(feature = "rust_decimal")]
impl TryFrom<&Decimal> for rust_decimal::Decimal {
    type Error = Error;

    fn try_from(d: &Decimal) -> Result<rust_decimal::Decimal> {
        let unscaled = d
            .to_i128()
            .ok_or_else(|| Error::data(format!("{d} does not fit in a rust_decimal::Decimal")))?;
        rust_decimal::Decimal::try_from_i128_with_scale(unscaled, d.scale)
            .map_err(|e| Error::data(format!("{d} does not fit in a rust_decimal::Decimal: {e}")))
    }
}

/// A `bigdecimal::BigDecimal` of the same value and scale (feature `bigdecimal`).
#[cfg(feature = "bigdecimal")]
impl From<&Decimal> for bigdecimal::BigDecimal {
    fn from(d: &Decimal) -> bigdecimal::BigDecimal {
        let int = bigdecimal::num_bigint::BigInt::from_signed_bytes_be(&d.unscaled);
        bigdecimal::BigDecimal::new(int, i64::from(d.scale))
    }
}

/// The unscaled integer and scale of a `bigdecimal::BigDecimal` (feature `bigdecimal`); a
/// negative scale (`1E+3`) becomes scale zero.
///
/// # Errors
/// [`ErrorKind::Data`](crate::ErrorKind::Data) when the scale does not fit in a `u32`, or a
/// negative one would add more than 4096 digits.
#[cfg(feature = "bigdecimal")]
impl TryFrom<&bigdecimal::BigDecimal> for Decimal {
    type Error = Error;

    fn try_from(d: &bigdecimal::BigDecimal) -> Result<Decimal> {
        let (int, exp) = d.as_bigint_and_exponent();
        if exp < 0 {
            if exp.unsigned_abs() > MAX_TEXT_DIGITS as u64 {
                return Err(Error::data(format!(
                    "the decimal {d} has more than {MAX_TEXT_DIGITS} digits"
                )));
            }
            let (int, _) = d.with_scale(0).into_bigint_and_exponent();
            return Ok(Decimal::new(int.to_signed_bytes_be(), 0));
        }
        let scale = u32::try_from(exp)
            .map_err(|_| Error::data(format!("the decimal {d} has a scale beyond u32")))?;
        Ok(Decimal::new(int.to_signed_bytes_be(), scale))
    }
}

/// Decimal text (`-12.50`, `1e-3`, `+7`), with the scale the text has (a negative exponent
/// beyond its digits raises the scale; a positive one lowers it, down to zero).
impl std::str::FromStr for Decimal {
    type Err = Error;

    fn from_str(s: &str) -> Result<Decimal> {
        let t = parse_text(s)?;
        let scale = u32::try_from(t.scale.max(0))
            .map_err(|_| Error::data(format!("the decimal {s:?} has too many digits")))?;
        unscaled_at(&t, scale, s).map(|b| Decimal::new(b, scale))
    }
}

impl fmt::Display for Decimal {
    /// Exact decimal text for numbers that fit in an `i128`; otherwise the unscaled bytes in hex
    /// with the scale.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(n) = self.to_i128() else {
            write!(f, "0x")?;
            for b in self.unscaled.iter() {
                write!(f, "{b:02x}")?;
            }
            return write!(f, "e-{}", self.scale);
        };
        let digits = n.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let sign = if n < 0 { "-" } else { "" };
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            write!(f, "{sign}{int}.{frac}")
        } else {
            write!(f, "{sign}0.{}{digits}", "0".repeat(scale - digits.len()))
        }
    }
}

/// `b` without the leading bytes that only repeat the sign of the next one; zero is empty.
pub(crate) fn significant(b: &[u8]) -> &[u8] {
    let neg = b.first().is_some_and(|x| x & 0x80 != 0);
    let fill = if neg { 0xff } else { 0 };
    let mut start = 0;
    while start + 1 < b.len() && b[start] == fill && (b[start + 1] & 0x80 != 0) == neg {
        start += 1;
    }
    match &b[start..] {
        [0] => &[],
        sig => sig,
    }
}

/// Checks that the unscaled integer `b` has at most `precision` digits (Java's
/// `DecimalConversion` refuses more when writing), and returns its [`significant`] bytes.
///
/// # Errors
/// When it has more digits than the schema allows.
pub(crate) fn check_precision(b: &[u8], precision: u32) -> Result<&[u8]> {
    let sig = significant(b);
    let neg = sig.first().is_some_and(|x| x & 0x80 != 0);
    let fits = if sig.len() <= 16 {
        let mut buf = [if neg { 0xff } else { 0 }; 16];
        buf[16 - sig.len()..].copy_from_slice(sig);
        let v = i128::from_be_bytes(buf).unsigned_abs();
        precision >= 39 || v < 10u128.pow(precision)
    } else {
        magnitude_digits(sig, neg) <= precision as usize
    };
    if !fits {
        return Err(Error::data(format!(
            "the decimal's unscaled value has more than the {precision} digits of its schema"
        )));
    }
    Ok(sig)
}

/// The number of decimal digits of the magnitude of a big two's-complement integer.
fn magnitude_digits(sig: &[u8], neg: bool) -> usize {
    // Magnitude as big-endian base-2^32 limbs.
    let mut bytes = sig.to_vec();
    if neg {
        for x in bytes.iter_mut() {
            *x = !*x;
        }
        for x in bytes.iter_mut().rev() {
            let (v, carry) = x.overflowing_add(1);
            *x = v;
            if !carry {
                break;
            }
        }
    }
    let pad = (4 - bytes.len() % 4) % 4;
    let mut limbs: Vec<u32> = std::iter::repeat_n(0u8, pad)
        .chain(bytes)
        .collect::<Vec<u8>>()
        .chunks(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut n = 0;
    while limbs.iter().any(|&l| l != 0) {
        let mut rem = 0u64;
        for l in limbs.iter_mut() {
            let cur = (rem << 32) | u64::from(*l);
            *l = (cur / 10) as u32;
            rem = cur % 10;
        }
        n += 1;
    }
    n
}

/// A decimal's bytes sized for a `fixed`: on the stack up to 64 bytes.
pub(crate) enum FixedBytes {
    Stack([u8; 64], usize),
    Heap(Vec<u8>),
}

impl FixedBytes {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            FixedBytes::Stack(b, n) => &b[..*n],
            FixedBytes::Heap(v) => v,
        }
    }
}

/// The unscaled integer `b` sign-extended (or trimmed of sign bytes) to exactly `size` bytes,
/// for a `fixed`; `None` when it does not fit.
pub(crate) fn fit(b: &[u8], size: usize) -> Option<FixedBytes> {
    let sig = significant(b);
    if sig.len() > size {
        return None;
    }
    let fill = if sig.first().is_some_and(|x| x & 0x80 != 0) {
        0xff
    } else {
        0
    };
    let pad = size - sig.len();
    if size <= 64 {
        let mut out = [0u8; 64];
        out[..pad].fill(fill);
        out[pad..size].copy_from_slice(sig);
        Some(FixedBytes::Stack(out, size))
    } else {
        let mut out = vec![fill; pad];
        out.extend_from_slice(sig);
        Some(FixedBytes::Heap(out))
    }
}

/// Checks that the decimal `b` may be written to a node of `precision` and, for a `fixed`, of
/// `size` bytes, and returns the bytes to write: `b` itself for `bytes`, the sized bytes for a
/// `fixed`. Every front end writes decimals through this.
///
/// # Errors
/// Too many digits for the precision, or too many bytes for the fixed.
pub(crate) fn to_write(
    b: &[u8],
    precision: Option<u32>,
    size: Option<usize>,
) -> Result<Written<'_>> {
    if let Some(p) = precision {
        check_precision(b, p)?;
    }
    match size {
        None => Ok(Written::Bytes(b)),
        Some(size) => match fit(b, size) {
            Some(f) => Ok(Written::Fixed(f)),
            None => Err(Error::data(format!(
                "the decimal's unscaled value does not fit in a fixed of {size} bytes"
            ))),
        },
    }
}

/// What [`to_write`] says to write.
pub(crate) enum Written<'a> {
    Bytes(&'a [u8]),
    Fixed(FixedBytes),
}

impl Written<'_> {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Written::Bytes(b) => b,
            Written::Fixed(f) => f.as_slice(),
        }
    }
}

/// The most digits decimal text may have, in or out (a bound on the work hostile text or a
/// hostile scale can ask for: conversions are quadratic in the digits).
pub(crate) const MAX_TEXT_DIGITS: usize = 4096;
/// The most bytes of an unscaled integer turned into text (about 2466 digits).
const MAX_TEXT_BYTES: usize = 1024;

#[cold]
#[inline(never)]
fn needs_rounding(text: &str, scale: u32) -> Error {
    Error::data(format!(
        "the decimal {text} has more digits after the point than the scale {scale} of its \
         schema: it needs rounding"
    ))
}

/// Decimal text taken apart: the sign, the digits (ASCII, no leading zeros: empty for zero),
/// and the scale (digits after the point, less the exponent).
pub(crate) struct TextDecimal {
    neg: bool,
    digits: Vec<u8>,
    scale: i64,
}

/// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (digits on at least one side of the point).
///
/// # Errors
/// Other text, or more than [`MAX_TEXT_DIGITS`] digits.
pub(crate) fn parse_text(s: &str) -> Result<TextDecimal> {
    let bad = || Error::data(format!("{s:?} is not a decimal number"));
    let b = s.as_bytes();
    let mut i = 0;
    let neg = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let mut digits = Vec::new();
    let mut frac: i64 = 0;
    let mut seen = false;
    let mut point = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                seen = true;
                if !(digits.is_empty() && c == b'0') {
                    digits.push(c);
                }
                if point {
                    frac += 1;
                }
            }
            b'.' if !point => point = true,
            _ => break,
        }
        i += 1;
    }
    if !seen {
        return Err(bad());
    }
    let mut exp: i64 = 0;
    if i < b.len() {
        if b[i] != b'e' && b[i] != b'E' {
            return Err(bad());
        }
        let rest = &s[i + 1..];
        if rest.is_empty() || rest.len() > 12 {
            return Err(bad());
        }
        exp = rest.parse::<i64>().map_err(|_| bad())?;
        if rest.starts_with('+') && rest[1..].starts_with(['+', '-']) {
            return Err(bad());
        }
    }
    if digits.len() > MAX_TEXT_DIGITS {
        return Err(Error::data(format!(
            "the decimal text has more than {MAX_TEXT_DIGITS} digits"
        )));
    }
    Ok(TextDecimal {
        neg: neg && !digits.is_empty(),
        digits,
        scale: frac - exp,
    })
}

/// The unscaled integer of parsed text at `scale`: exact (dropping only zeros), or an error.
pub(crate) fn unscaled_at(t: &TextDecimal, scale: u32, text: &str) -> Result<Vec<u8>> {
    let mut digits: &[u8] = &t.digits;
    let mut zeros = 0usize;
    let want = i64::from(scale);
    if t.scale > want {
        let drop = usize::try_from(t.scale - want).unwrap_or(usize::MAX);
        let keep = digits.len().saturating_sub(drop);
        if digits[keep..].iter().any(|&d| d != b'0') {
            return Err(needs_rounding(text, scale));
        }
        digits = &digits[..keep];
    } else if t.scale < want && !digits.is_empty() {
        zeros = usize::try_from(want - t.scale).unwrap_or(usize::MAX);
        if zeros.saturating_add(digits.len()) > MAX_TEXT_DIGITS {
            return Err(Error::data(format!(
                "the decimal {text} at scale {scale} has more than {MAX_TEXT_DIGITS} digits"
            )));
        }
    }
    let mut mag = Vec::new();
    for &d in digits {
        mag_mul_add(&mut mag, 10, u32::from(d - b'0'));
    }
    for _ in 0..zeros {
        mag_mul_add(&mut mag, 10, 0);
    }
    Ok(twos_complement(t.neg, &mag))
}

/// The unscaled integer of decimal text at the schema's `scale`.
///
/// # Errors
/// Text that is not a number, or needs rounding to `scale`.
pub(crate) fn text_to_unscaled(text: &str, scale: u32) -> Result<Vec<u8>> {
    unscaled_at(&parse_text(text)?, scale, text)
}

/// The exact text of `unscaled × 10^-scale`; see [`Decimal::to_text`]. An unscaled integer of
/// more than 1024 bytes is written as hex (`0x…e-2`), as `Display` does.
pub(crate) fn to_text(unscaled: &[u8], scale: u32) -> String {
    if significant(unscaled).len() > MAX_TEXT_BYTES {
        return Decimal::new(unscaled.to_vec(), scale).to_string();
    }
    let (neg, mut mag) = magnitude(unscaled);
    // Base 10^9 limbs, least significant first.
    let mut limbs = Vec::new();
    while !mag.is_empty() {
        limbs.push(mag_divrem(&mut mag, 1_000_000_000));
    }
    let mut digits = String::new();
    if let Some((last, rest)) = limbs.split_last() {
        digits.push_str(&last.to_string());
        for l in rest.iter().rev() {
            digits.push_str(&format!("{l:09}"));
        }
    } else {
        digits.push('0');
    }
    let sign = if neg { "-" } else { "" };
    let scale = scale as usize;
    if scale == 0 {
        format!("{sign}{digits}")
    } else if scale > MAX_TEXT_DIGITS {
        format!("{sign}{digits}E-{scale}")
    } else if digits.len() > scale {
        let (int, frac) = digits.split_at(digits.len() - scale);
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}0.{}{digits}", "0".repeat(scale - digits.len()))
    }
}

/// The text the serde deserializer hands out for a decimal: [`to_text`] while the number has
/// at most 96 bits of unscaled magnitude and a scale of at most 28 (what `rust_decimal` holds
/// exactly); beyond that the exponent form `<unscaled>E-<scale>`, which `bigdecimal` reads
/// exactly and `rust_decimal` refuses, where its parser would round the plain form silently.
pub(crate) fn to_serde_text(unscaled: &[u8], scale: u32) -> String {
    let (_, mag) = magnitude(unscaled);
    if mag.len() <= 12 && scale <= 28 {
        return to_text(unscaled, scale);
    }
    let int = to_text(unscaled, 0);
    if significant(unscaled).len() > MAX_TEXT_BYTES {
        return int; // the hex form, which nothing takes for a number
    }
    format!("{int}E-{scale}")
}

/// The sign and magnitude (big-endian, no leading zero bytes: empty for zero) of a
/// two's-complement integer.
fn magnitude(b: &[u8]) -> (bool, Vec<u8>) {
    let neg = b.first().is_some_and(|x| x & 0x80 != 0);
    let mut m = b.to_vec();
    if neg {
        for x in m.iter_mut() {
            *x = !*x;
        }
        for x in m.iter_mut().rev() {
            let (v, carry) = x.overflowing_add(1);
            *x = v;
            if !carry {
                break;
            }
        }
    }
    let start = m.iter().position(|&x| x != 0).unwrap_or(m.len());
    m.drain(..start);
    (neg, m)
}

/// The fewest two's-complement bytes of `±mag` (zero is one zero byte).
fn twos_complement(neg: bool, mag: &[u8]) -> Vec<u8> {
    if mag.is_empty() {
        return vec![0];
    }
    let mut out = Vec::with_capacity(mag.len() + 1);
    out.push(0);
    out.extend_from_slice(mag);
    if neg {
        for x in out.iter_mut() {
            *x = !*x;
        }
        for x in out.iter_mut().rev() {
            let (v, carry) = x.overflowing_add(1);
            *x = v;
            if !carry {
                break;
            }
        }
    }
    significant(&out).to_vec()
}

/// `mag = mag × m + a` on a big-endian magnitude.
fn mag_mul_add(mag: &mut Vec<u8>, m: u32, a: u32) {
    let mut carry = u64::from(a);
    for x in mag.iter_mut().rev() {
        let v = u64::from(*x) * u64::from(m) + carry;
        *x = v as u8;
        carry = v >> 8;
    }
    while carry > 0 {
        mag.insert(0, carry as u8);
        carry >>= 8;
    }
}

/// `mag /= d`, returning the remainder; leading zero bytes are dropped.
fn mag_divrem(mag: &mut Vec<u8>, d: u32) -> u32 {
    let mut rem = 0u64;
    for x in mag.iter_mut() {
        let cur = (rem << 8) | u64::from(*x);
        *x = (cur / u64::from(d)) as u8;
        rem = cur % u64::from(d);
    }
    let start = mag.iter().position(|&x| x != 0).unwrap_or(mag.len());
    mag.drain(..start);
    rem as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_bytes_are_minimal_and_roundtrip() {
        for (n, bytes) in [
            (0i128, vec![0u8]),
            (127, vec![0x7f]),
            (128, vec![0x00, 0x80]),
            (-1, vec![0xff]),
            (-128, vec![0x80]),
            (-129, vec![0xff, 0x7f]),
        ] {
            let d = Decimal::from_i128(n, 0);
            assert_eq!(d.unscaled(), &bytes[..], "{n}");
            assert_eq!(d.to_i128(), Some(n));
        }
        assert_eq!(Decimal::from_i128(i128::MIN, 0).to_i128(), Some(i128::MIN));
        assert_eq!(Decimal::from_i128(i128::MAX, 0).to_i128(), Some(i128::MAX));
    }

    #[test]
    fn decimal_text() {
        assert_eq!(Decimal::from_i128(5, 3).to_string(), "0.005");
        assert_eq!(Decimal::from_i128(-5, 1).to_string(), "-0.5");
        assert_eq!(Decimal::from_i128(1234, 0).to_string(), "1234");
    }

    fn fitted(b: &[u8], size: usize) -> Option<Vec<u8>> {
        fit(b, size).map(|f| f.as_slice().to_vec())
    }

    #[test]
    fn fit_sign_extends_and_checks_size() {
        assert_eq!(fitted(&[0xfe], 4), Some(vec![0xff, 0xff, 0xff, 0xfe]));
        assert_eq!(fitted(&[0x01, 0x11, 0x70], 2), None); // 70000
        assert_eq!(fitted(&[0, 0, 0x05], 1), Some(vec![0x05]));
        assert_eq!(fitted(&[0xff, 0x80], 1), Some(vec![0x80]));
        assert_eq!(fitted(&[0x00, 0x80], 1), None, "128 needs two bytes");
        assert_eq!(fitted(&[], 2), Some(vec![0, 0]));
        assert_eq!(fitted(&[0], 0), Some(vec![]));
        assert_eq!(fitted(&[0xff], 0), None, "-1 is not zero");
        assert_eq!(fitted(&[0x80], 3), Some(vec![0xff, 0xff, 0x80]));
        let big = fitted(&[0x80], 100).unwrap();
        assert_eq!(big.len(), 100);
        assert!(big[..99].iter().all(|&b| b == 0xff) && big[99] == 0x80);
    }

    #[test]
    fn precision() {
        assert_eq!(check_precision(&[0x00, 0x00, 0x7f], 3).unwrap(), &[0x7f]);
        assert_eq!(check_precision(&[0xff, 0x80], 3).unwrap(), &[0x80]);
        assert!(check_precision(&[0x03, 0xe8], 3).is_err()); // 1000
        assert!(check_precision(&[0x03, 0xe7], 3).is_ok()); // 999
        assert!(check_precision(&[0xfc, 0x19], 3).is_ok()); // -999
        assert!(check_precision(&[0xfc, 0x18], 3).is_err()); // -1000
        assert!(check_precision(&[], 1).is_ok());
        let mut big = vec![0x01];
        big.extend([0u8; 20]); // 2^160: 49 digits
        assert!(check_precision(&big, 49).is_ok());
        assert!(check_precision(&big, 48).is_err());
        assert!(to_write(&[0x03, 0xe8], Some(3), None).is_err());
        assert!(to_write(&[0x03, 0xe8], Some(4), Some(1)).is_err());
        assert_eq!(
            to_write(&[0x03, 0xe8], Some(4), Some(3))
                .unwrap()
                .as_slice(),
            &[0, 0x03, 0xe8]
        );
    }

    #[test]
    fn text_converts_exactly_or_fails() {
        let at = |t: &str, s: u32| text_to_unscaled(t, s).map(|b| Decimal::new(b, s).to_i128());
        assert_eq!(at("123.45", 2).unwrap(), Some(12_345));
        assert_eq!(at("-123.45", 4).unwrap(), Some(-1_234_500));
        assert_eq!(at("-0.5", 1).unwrap(), Some(-5));
        assert_eq!(at("1.2300", 2).unwrap(), Some(123), "zeros drop");
        assert_eq!(at("1e3", 0).unwrap(), Some(1000));
        assert_eq!(at("12E-1", 1).unwrap(), Some(12));
        assert_eq!(at("+.5", 1).unwrap(), Some(5));
        assert_eq!(at("7.", 0).unwrap(), Some(7));
        assert_eq!(at("-0.000", 2).unwrap(), Some(0));
        assert_eq!(at("0", 30).unwrap(), Some(0));
        assert!(at("1.25", 1).is_err(), "needs rounding");
        assert!(at("0.001", 2).is_err());
        for bad in [
            "", "-", ".", "1.2.3", "1e", "1e+", "abc", "1 ", "--1", "1e++2", "NaN",
        ] {
            assert!(parse_text(bad).is_err(), "{bad:?}");
        }
        assert!(
            at("1e999999999", 0).is_err(),
            "too many digits, not a huge allocation"
        );
        assert!(at("1", 100_000).is_err());
        let e = at("1.25", 1).unwrap_err();
        assert!(e.to_string().contains("needs rounding"), "{e}");
    }

    #[test]
    fn text_of_any_size_and_sign() {
        assert_eq!(to_text(&[], 0), "0");
        assert_eq!(to_text(&[0xff], 2), "-0.01");
        assert_eq!(to_text(&[0x80], 0), "-128");
        let n = i128::MIN;
        assert_eq!(
            to_text(Decimal::from_i128(n, 0).unscaled(), 3),
            format!("{}.{}", &n.to_string()[..37], &n.to_string()[37..])
        );
        let mut big = vec![0x80];
        big.extend([0u8; 20]); // -2^167
        let text = to_text(&big, 0);
        assert_eq!(text, "-187072209578355573530071658587684226515959365500928");
        // Back again.
        assert_eq!(text_to_unscaled(&text, 0).unwrap(), big);
        assert_eq!(to_text(&[1], 5000), "1E-5000");
    }

    #[test]
    fn rescale_is_exact() {
        let d = Decimal::from_i128(-1200, 2);
        assert_eq!(d.rescale(0).unwrap(), Decimal::from_i128(-12, 0));
        assert_eq!(d.rescale(4).unwrap(), Decimal::from_i128(-120_000, 4));
        assert!(Decimal::from_i128(-1201, 2).rescale(1).is_err());
        assert_eq!(
            Decimal::from_i128(0, 9).rescale(0).unwrap().to_i128(),
            Some(0)
        );
        assert!(Decimal::from_i128(1, 0).rescale(10_000).is_err());
        let parsed: Decimal = "-12.50".parse().unwrap();
        assert_eq!(parsed, Decimal::from_i128(-1250, 2));
        let parsed: Decimal = "5e2".parse().unwrap();
        assert_eq!(parsed, Decimal::from_i128(500, 0));
    }
}
