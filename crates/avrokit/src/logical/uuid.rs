//! The `uuid` logical type: 16 bytes on `fixed(16)`, the 8-4-4-4-12 hex text on `string`.

/// Parses the 8-4-4-4-12 hex form of a UUID (either case).
pub(crate) fn parse(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    // Every other position is a hex digit (a '-' elsewhere is not, so it cannot shift the
    // digit pairs past the end: found by fuzzing).
    let mut digits = b
        .iter()
        .enumerate()
        .filter(|&(i, _)| !matches!(i, 8 | 13 | 18 | 23))
        .map(|(_, &c)| (c as char).to_digit(16));
    let mut out = [0u8; 16];
    for o in &mut out {
        let hi = digits.next()??;
        let lo = digits.next()??;
        *o = (hi * 16 + lo) as u8;
    }
    Some(out)
}

/// The 8-4-4-4-12 lower-case hex form of a UUID, written on the stack.
pub(crate) fn text(u: &[u8; 16]) -> [u8; 36] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = [0u8; 36];
    let mut j = 0;
    for (i, b) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s[j] = b'-';
            j += 1;
        }
        s[j] = HEX[usize::from(b >> 4)];
        s[j + 1] = HEX[usize::from(b & 15)];
        j += 2;
    }
    s
}

/// The text of [`text`] as a `&str`.
pub(crate) fn as_str(t: &[u8; 36]) -> &str {
    // Only ASCII hex digits and '-' are ever written.
    std::str::from_utf8(t).unwrap_or_default()
}

/// The 8-4-4-4-12 lower-case hex form of a UUID.
pub(crate) fn format(u: &[u8; 16]) -> String {
    as_str(&text(u)).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_text_roundtrips() {
        let s = "123e4567-e89b-12d3-a456-426614174000";
        let u = parse(s).unwrap();
        assert_eq!(format(&u), s);
        assert_eq!(parse(&s.to_uppercase()), Some(u));
        assert!(parse("123e4567e89b12d3a456426614174000").is_none());
        assert!(parse("123e4567-e89b-12d3-a456-42661417400g").is_none());
        assert!(parse("123e4567-e89b-12d3-a456-4266141740000").is_none());
        assert!(parse("123e4567-e89b-12d3-a456--26614174000").is_none());
    }
}
