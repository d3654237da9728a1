//! IDL text to tokens, as the ANTLR lexer of Java's `Idl.g4` splits it.
//!
//! Whitespace and comments are dropped, except `/** doc */` comments: each token keeps the doc
//! comments that precede it (after the previous token), for the parser to attach to the
//! declaration that starts at that token or to warn about.
//!
//! A word is one or more identifier parts (`[\p{XID_Start}_][\p{XID_Continue}]*`, optionally in
//! backticks) joined by `.` or `-`: `foo`, `avro.java.string`, `my-property`, `` `error` ``.
//! An unquoted word that is exactly a keyword is that keyword; quoted, it is a plain identifier.

use crate::error::{Error, Pos};

/// The keywords of the grammar. Any of them is also accepted where an identifier is expected.
const KEYWORDS: &[&str] = &[
    "protocol",
    "namespace",
    "import",
    "idl",
    "schema",
    "enum",
    "fixed",
    "error",
    "record",
    "array",
    "map",
    "union",
    "boolean",
    "int",
    "long",
    "float",
    "double",
    "string",
    "bytes",
    "null",
    "true",
    "false",
    "decimal",
    "date",
    "time_ms",
    "timestamp_ms",
    "local_timestamp_ms",
    "uuid",
    "void",
    "oneway",
    "throws",
];

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A word: an identifier or, when `keyword`, the keyword spelled `text`.
    Word {
        text: String,
        keyword: bool,
    },
    /// A string literal, unescaped.
    Str(String),
    /// An integer literal (its text, `_` removed).
    Int(String),
    /// A floating-point literal (its text), `NaN` and `Infinity` included.
    Float(String),
    /// One of `( ) { } [ ] : ; , @ = ? < >`.
    Punct(char),
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Word {
                text,
                keyword: true,
            } => format!("keyword '{text}'"),
            Tok::Word { text, .. } => format!("identifier '{text}'"),
            Tok::Str(s) => format!("string \"{}\"", s.escape_debug()),
            Tok::Int(s) | Tok::Float(s) => format!("number {s}"),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::Eof => "end of file".to_owned(),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) pos: Pos,
    /// Indices into [`Lexed::docs`] of the doc comments between the previous token and this one.
    pub(crate) docs: std::ops::Range<usize>,
}

/// A `/** ... */` comment: its text between the delimiters, and where it starts.
#[derive(Debug, Clone)]
pub(crate) struct DocComment {
    pub(crate) text: String,
    pub(crate) pos: Pos,
}

pub(crate) struct Lexed {
    pub(crate) tokens: Vec<Token>,
    pub(crate) docs: Vec<DocComment>,
}

struct Lexer<'s> {
    src: &'s str,
    /// Byte offset of the next character.
    at: usize,
    line: u32,
    column: u32,
    file: u32,
}

/// Splits `src` (of file number `file`) into tokens; at most `max_tokens` of them.
pub(crate) fn lex(src: &str, file: u32, max_tokens: usize) -> Result<Lexed, Error> {
    let mut lx = Lexer {
        src,
        at: 0,
        line: 1,
        column: 1,
        file,
    };
    let mut tokens = Vec::new();
    let mut docs = Vec::new();
    loop {
        let first_doc = docs.len();
        lx.skip_trivia(&mut docs)?;
        let pos = lx.pos();
        let Some(c) = lx.peek() else {
            tokens.push(Token {
                tok: Tok::Eof,
                pos,
                docs: first_doc..docs.len(),
            });
            break;
        };
        if tokens.len() >= max_tokens {
            return Err(Error::at(
                pos,
                format!("the file has more than {max_tokens} tokens (the configured limit)"),
            ));
        }
        let tok = match c {
            // The ASCII substitute character ends the input; anything after it is ignored.
            '\u{1a}' => {
                tokens.push(Token {
                    tok: Tok::Eof,
                    pos,
                    docs: first_doc..docs.len(),
                });
                break;
            }
            '"' => Tok::Str(lx.string()?),
            '(' | ')' | '{' | '}' | '[' | ']' | ':' | ';' | ',' | '@' | '=' | '?' | '<' | '>' => {
                lx.bump();
                Tok::Punct(c)
            }
            '0'..='9' | '-' | '+' | '.' => lx.number()?,
            '`' => lx.word()?,
            c if is_ident_start(c) => lx.word()?,
            c => {
                return Err(Error::at(
                    pos,
                    format!("unexpected character '{}'", c.escape_debug()),
                ))
            }
        };
        tokens.push(Token {
            tok,
            pos,
            docs: first_doc..docs.len(),
        });
    }
    Ok(Lexed { tokens, docs })
}

fn is_ident_start(c: char) -> bool {
    c == '_' || unicode_ident::is_xid_start(c)
}

fn is_ident_continue(c: char) -> bool {
    unicode_ident::is_xid_continue(c)
}

impl Lexer<'_> {
    fn pos(&self) -> Pos {
        Pos {
            file: self.file,
            line: self.line,
            column: self.column,
        }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.at..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.src[self.at..].chars().nth(n)
    }

    fn rest(&self) -> &str {
        &self.src[self.at..]
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    /// Skips whitespace and comments, collecting doc comments.
    fn skip_trivia(&mut self, docs: &mut Vec<DocComment>) -> Result<(), Error> {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\n' | '\r' | '\u{c}') => {
                    self.bump();
                }
                Some('/') if self.peek_at(1) == Some('/') => {
                    while let Some(c) = self.bump() {
                        if c == '\n' || (c == '\r' && self.peek() != Some('\n')) {
                            break;
                        }
                    }
                }
                Some('/') if self.peek_at(1) == Some('*') => {
                    let pos = self.pos();
                    let is_doc = self.rest().starts_with("/**") && !self.rest().starts_with("/**/");
                    let Some(len) = self.rest()[2..].find("*/") else {
                        return Err(Error::at(pos, "unterminated comment: no closing */"));
                    };
                    let end = self.at + 2 + len + 2;
                    let text = self.src[self.at..end].to_owned();
                    while self.at < end {
                        self.bump();
                    }
                    if is_doc {
                        docs.push(DocComment {
                            text: text[3..text.len() - 2].to_owned(),
                            pos,
                        });
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// A word (see the module docs); `NaN` and `Infinity` alone are numbers.
    fn word(&mut self) -> Result<Tok, Error> {
        let pos = self.pos();
        let mut text = String::new();
        let mut quoted = false;
        loop {
            if self.peek() == Some('`') {
                quoted = true;
                self.bump();
                self.ident_part(&mut text, pos)?;
                if self.bump() != Some('`') {
                    return Err(Error::at(pos, "unterminated `quoted identifier`"));
                }
            } else {
                self.ident_part(&mut text, pos)?;
            }
            // A `.` or `-` continues the word only when another part follows it.
            match (self.peek(), self.peek_at(1)) {
                (Some(sep @ ('.' | '-')), Some(next)) if next == '`' || is_ident_start(next) => {
                    self.bump();
                    text.push(sep);
                }
                _ => break,
            }
        }
        if !quoted {
            if text == "NaN" || text == "Infinity" {
                return Ok(Tok::Float(text));
            }
            if KEYWORDS.contains(&text.as_str()) {
                return Ok(Tok::Word {
                    text,
                    keyword: true,
                });
            }
        }
        Ok(Tok::Word {
            text,
            keyword: false,
        })
    }

    fn ident_part(&mut self, text: &mut String, pos: Pos) -> Result<(), Error> {
        match self.peek() {
            Some(c) if is_ident_start(c) => {
                text.push(c);
                self.bump();
            }
            _ => return Err(Error::at(pos, "expected an identifier")),
        }
        while let Some(c) = self.peek().filter(|&c| is_ident_continue(c)) {
            text.push(c);
            self.bump();
        }
        Ok(())
    }

    /// An integer or floating-point literal, as the grammar's `IntegerLiteral` and
    /// `FloatingPointLiteral` read them (longest match).
    fn number(&mut self) -> Result<Tok, Error> {
        let pos = self.pos();
        let start = self.at;
        let mut sign = None;
        if let Some(c @ ('-' | '+')) = self.peek() {
            sign = Some(c);
            self.bump();
            // `-NaN`, `+Infinity`...
            let rest = self.rest();
            for special in ["NaN", "Infinity"] {
                if rest.starts_with(special)
                    && !rest[special.len()..].starts_with(is_ident_continue)
                {
                    for _ in 0..special.len() {
                        self.bump();
                    }
                    return Ok(Tok::Float(self.src[start..self.at].to_owned()));
                }
            }
        }
        let bad = |msg: &str| Error::at(pos, msg.to_owned());
        let digits = |lx: &mut Self, hex: bool| {
            let mut n = 0;
            while let Some(c) = lx.peek() {
                if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
                    lx.bump();
                    n += 1;
                } else {
                    break;
                }
            }
            n
        };
        let mut is_float = false;
        if self.rest().starts_with("0x") || self.rest().starts_with("0X") {
            self.bump();
            self.bump();
            let int_digits = digits(self, true);
            let mut frac_digits = 0;
            if self.peek() == Some('.') {
                self.bump();
                frac_digits = digits(self, true);
                is_float = true;
            }
            if int_digits + frac_digits == 0 {
                return Err(bad("a hexadecimal literal needs digits after 0x"));
            }
            if matches!(self.peek(), Some('p' | 'P')) {
                self.exponent(pos)?;
                is_float = true;
                self.float_suffix();
            } else if is_float {
                return Err(bad(
                    "a hexadecimal floating-point literal needs a p exponent",
                ));
            }
        } else {
            let int_digits = digits(self, false);
            if self.peek() == Some('.') {
                self.bump();
                let frac = digits(self, false);
                if int_digits + frac == 0 {
                    return Err(bad("expected digits"));
                }
                is_float = true;
            } else if int_digits == 0 {
                return Err(bad(match sign {
                    Some(_) => "expected a number after the sign",
                    None => "unexpected '.'",
                }));
            }
            if matches!(self.peek(), Some('e' | 'E')) {
                self.exponent(pos)?;
                is_float = true;
            }
            if self.float_suffix() {
                is_float = true;
            }
        }
        if !is_float && matches!(self.peek(), Some('l' | 'L')) {
            self.bump();
        }
        if self
            .peek()
            .is_some_and(|c| is_ident_continue(c) || c == '.')
        {
            return Err(bad("malformed number"));
        }
        let text = &self.src[start..self.at];
        if is_float {
            return Ok(Tok::Float(text.to_owned()));
        }
        if sign == Some('+') {
            return Err(bad("an integer literal cannot start with '+'"));
        }
        Ok(Tok::Int(text.to_owned()))
    }

    fn exponent(&mut self, pos: Pos) -> Result<(), Error> {
        self.bump();
        if let Some('+' | '-') = self.peek() {
            self.bump();
        }
        if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return Err(Error::at(pos, "expected digits in the exponent"));
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        Ok(())
    }

    fn float_suffix(&mut self) -> bool {
        if let Some('f' | 'F' | 'd' | 'D') = self.peek() {
            self.bump();
            true
        } else {
            false
        }
    }

    /// A string literal, unescaped as Java's `StringEscapeUtils.unescapeJava` does.
    fn string(&mut self) -> Result<String, Error> {
        let pos = self.pos();
        self.bump();
        let mut out = String::new();
        // A pending high surrogate from a `\uD8xx` escape.
        let mut high: Option<u32> = None;
        loop {
            let c = self
                .bump()
                .ok_or_else(|| Error::at(pos, "unterminated string"))?;
            let unit = match c {
                '"' => break,
                '\n' | '\r' | '\u{8}' | '\u{c}' | '\t' => {
                    return Err(Error::at(
                        pos,
                        format!(
                            "a string may not contain a raw '{}': write it as an escape",
                            c.escape_debug()
                        ),
                    ))
                }
                '\\' => {
                    let e = self
                        .bump()
                        .ok_or_else(|| Error::at(pos, "unterminated string"))?;
                    match e {
                        'n' => Some('\n' as u32),
                        'r' => Some('\r' as u32),
                        'b' => Some(8),
                        'f' => Some(12),
                        't' => Some('\t' as u32),
                        '\\' | '\'' | '"' => Some(e as u32),
                        '0'..='7' => {
                            let mut v = e.to_digit(8).unwrap_or(0);
                            let max = if e <= '3' { 2 } else { 1 };
                            for _ in 0..max {
                                match self.peek().and_then(|c| c.to_digit(8)) {
                                    Some(d) => {
                                        v = v * 8 + d;
                                        self.bump();
                                    }
                                    None => break,
                                }
                            }
                            Some(v)
                        }
                        'u' => {
                            while self.peek() == Some('u') {
                                self.bump();
                            }
                            let mut v = 0;
                            for _ in 0..4 {
                                let d =
                                    self.bump().and_then(|c| c.to_digit(16)).ok_or_else(|| {
                                        Error::at(pos, "a \\u escape needs four hex digits")
                                    })?;
                                v = v * 16 + d;
                            }
                            Some(v)
                        }
                        other => {
                            return Err(Error::at(
                                pos,
                                format!("invalid escape '\\{}' in string", other.escape_debug()),
                            ))
                        }
                    }
                }
                c => {
                    if high.is_some() {
                        return Err(Error::at(pos, "a lone surrogate escape in string"));
                    }
                    out.push(c);
                    None
                }
            };
            if let Some(u) = unit {
                match (high.take(), u) {
                    (None, 0xD800..=0xDBFF) => high = Some(u),
                    (Some(h), 0xDC00..=0xDFFF) => {
                        let c = 0x10000 + ((h - 0xD800) << 10) + (u - 0xDC00);
                        out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                    }
                    (None, u) => match char::from_u32(u) {
                        Some(c) => out.push(c),
                        None => return Err(Error::at(pos, "a lone surrogate escape in string")),
                    },
                    (Some(_), _) => {
                        return Err(Error::at(pos, "a lone surrogate escape in string"));
                    }
                }
            }
        }
        if high.is_some() {
            return Err(Error::at(pos, "a lone surrogate escape in string"));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        lex(src, 0, 1000)
            .unwrap()
            .tokens
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    fn word(s: &str, keyword: bool) -> Tok {
        Tok::Word {
            text: s.into(),
            keyword,
        }
    }

    #[test]
    fn words_keywords_and_quoting() {
        assert_eq!(
            toks("record `record` avro.java.`string` my-prop time_ms?"),
            vec![
                word("record", true),
                word("record", false),
                word("avro.java.string", false),
                word("my-prop", false),
                word("time_ms", true),
                Tok::Punct('?'),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            toks("0x10 -1 010 12L 1.5 -Infinity NaN 1e3 2f .5"),
            vec![
                Tok::Int("0x10".into()),
                Tok::Int("-1".into()),
                Tok::Int("010".into()),
                Tok::Int("12L".into()),
                Tok::Float("1.5".into()),
                Tok::Float("-Infinity".into()),
                Tok::Float("NaN".into()),
                Tok::Float("1e3".into()),
                Tok::Float("2f".into()),
                Tok::Float(".5".into()),
                Tok::Eof
            ]
        );
        assert!(lex("+1", 0, 10).is_err());
        assert!(lex("1x", 0, 10).is_err());
    }

    #[test]
    fn strings_unescape_as_java() {
        assert_eq!(
            toks(r#""a\"b\\\n\t\101\u00e9\uD83D\uDE00""#),
            vec![Tok::Str("a\"b\\\n\tAé😀".into()), Tok::Eof]
        );
        assert!(lex("\"unterminated", 0, 10).is_err());
        assert!(lex("\"\\uD800\"", 0, 10).is_err());
        assert!(lex("\"tab\there\"", 0, 10).is_err());
    }

    #[test]
    fn doc_comments_attach_to_the_next_token() {
        let l = lex(
            "/* no */ /** one */ // x\n /**/ /** two */ a /***/ b",
            0,
            10,
        )
        .unwrap();
        assert_eq!(l.docs.len(), 3);
        assert_eq!(l.docs[0].text, " one ");
        assert_eq!(l.tokens[0].docs, 0..2);
        assert_eq!(l.tokens[1].docs, 2..3);
        assert_eq!(l.docs[2].text, "");
        assert_eq!(
            (l.tokens[0].pos.line, l.tokens[0].pos.column),
            (2, 18),
            "{:?}",
            l.tokens[0].pos
        );
    }
}
