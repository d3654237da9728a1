//! Doc comment text, cleaned up as Java's `IdlReader.stripIndents` does.
//!
//! The text between `/**` and `*/` is trimmed; then, when every line starts with the same one
//! or two stars (after indentation), the stars, the indentation before them and one space after
//! them go; otherwise, when the lines after the first share an indentation, it goes.

/// Java's `\h`: horizontal whitespace.
fn is_h(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\u{a0}' | '\u{1680}' | '\u{180e}' | '\u{2000}'
            ..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// Lines of `s`, each with the line break that ends it (`""` for the last).
fn lines(s: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' if matches!(chars.peek(), Some((_, '\n'))) => {
                chars.next();
                i + 2
            }
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        out.push((&s[start..i], &s[i..end]));
        start = end;
    }
    out.push((&s[start..], ""));
    out
}

fn strip_one_h(s: &str) -> &str {
    match s.chars().next() {
        Some(c) if is_h(c) => &s[c.len_utf8()..],
        _ => s,
    }
}

/// The documentation of a doc comment whose text (between `/**` and `*/`) is `raw`.
pub(crate) fn doc_text(raw: &str) -> String {
    // Java's `String.trim`: every character up to U+0020 counts as space.
    let text = raw.trim_matches(|c: char| c <= ' ');
    let lines = lines(text);
    for stars in ["**", "*"] {
        let first_ok = lines[0].0.starts_with(stars);
        if first_ok
            && lines[1..]
                .iter()
                .all(|(l, _)| l.trim_start_matches(is_h).starts_with(stars))
        {
            let mut out = String::with_capacity(text.len());
            for (i, (line, brk)) in lines.iter().enumerate() {
                let line = if i == 0 {
                    line
                } else {
                    line.trim_start_matches(is_h)
                };
                out.push_str(strip_one_h(&line[stars.len()..]));
                out.push_str(brk);
            }
            return out;
        }
    }
    if lines.len() > 1 {
        let second = lines[1].0;
        let indent_len = second.len() - second.trim_start_matches(is_h).len();
        let mut indent = &second[..indent_len];
        loop {
            if lines[2..].iter().all(|(l, _)| l.starts_with(indent)) {
                break;
            }
            let mut cut = indent.chars();
            cut.next_back();
            indent = cut.as_str();
        }
        let mut out = String::with_capacity(text.len());
        for (i, (line, brk)) in lines.iter().enumerate() {
            out.push_str(if i == 0 { line } else { &line[indent.len()..] });
            out.push_str(brk);
        }
        return out;
    }
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::doc_text;

    #[test]
    fn stars_and_indents_as_java_strips_them() {
        // Cases from Java's TestIdlReader.testDocCommentsAndWarnings / stripIndents tests.
        assert_eq!(doc_text(" Single line "), "Single line");
        assert_eq!(doc_text("\n * A\n * B\n "), "A\nB");
        assert_eq!(doc_text("\n *  A\n *\n * B"), " A\n\nB");
        assert_eq!(doc_text("\n ** A\n ** B\n "), "A\nB");
        assert_eq!(doc_text("\n ** A\n * B\n "), "* A\nB");
        assert_eq!(doc_text("A\n    B\n    C"), "A\nB\nC");
        assert_eq!(doc_text("A\n    B\n  C"), "A\n  B\nC");
        assert_eq!(doc_text("A\nB"), "A\nB");
        assert_eq!(doc_text("\r\n * A\r\n * B"), "A\r\nB");
    }
}
