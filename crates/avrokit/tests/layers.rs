//! The crate's layers stay as `docs/ARCHITECTURE.md` draws them.
//!
//! Every path into another top-level module of `src/` (`use crate::json::...`,
//! `crate::value::Value` in code, `use crate::{io, schema}`, `super::super::serde`, `$crate::`
//! in macros, the crate root's re-exports such as `crate::Value`) is checked against the matrix
//! of the architecture document, which this test reads from there, so the document and the code
//! cannot drift apart. The matrix itself must be a strict stack: no module may reach, through
//! any chain of allowed uses, back to itself.
//!
//! Not counted: comments and string literals, and test code (`#[cfg(test)]` items and the files
//! they name), which may use anything. The few re-exports that keep an old public path alive
//! are listed in [`REEXPORTS`].

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Public paths kept by re-exporting from a higher layer: (file, module it names, why).
const REEXPORTS: &[(&str, &str, &str)] = &[(
    "value/mod.rs",
    "resolution",
    "`value::read_value_resolved` and friends stayed public when the plan's Value reader moved \
     into `resolution/`",
)];

/// What the crate root re-exports, by the module that defines it.
const ROOT_ITEMS: &[(&str, &str)] = &[
    ("Error", "error"),
    ("ErrorKind", "error"),
    ("Result", "error"),
    ("Limits", "io"),
    ("Schema", "schema"),
    ("Decoder", "decode"),
    ("Encoder", "encode"),
    ("Value", "value"),
    ("to_datum_vec", "value"),
    ("from_datum_slice", "value"),
    ("ResolvedPlan", "resolution"),
    ("ResolvingDecoder", "resolution"),
    ("check_compatibility", "resolution"),
    ("AvroSchema", "serde"),
    ("__private", "serde"),
    ("__codec", "codec"),
    ("AvroEncode", "codec"),
    ("AvroDecode", "codec"),
];

type Matrix = BTreeMap<String, BTreeSet<String>>;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The matrix between `<!-- layers:begin -->` and `<!-- layers:end -->` of the architecture
/// document: table rows `| `module` | `dep`, `dep` |`.
fn parse_matrix(doc: &str) -> Matrix {
    let start = doc
        .find("<!-- layers:begin -->")
        .expect("layers:begin marker");
    let end = doc.find("<!-- layers:end -->").expect("layers:end marker");
    let mut m = Matrix::new();
    for line in doc[start..end].lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let names = |cell: &str| -> Vec<String> {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect()
        };
        for module in names(cells[1]) {
            m.insert(module, names(cells[2]).into_iter().collect());
        }
    }
    m
}

/// A cycle in the matrix's allowed uses, if any (the modules along it).
fn find_cycle(m: &Matrix) -> Option<Vec<String>> {
    fn visit(
        m: &Matrix,
        n: &str,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|s| s == n) {
            let mut cycle = stack[i..].to_vec();
            cycle.push(n.to_owned());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.to_owned());
        for d in m.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, d, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    m.keys()
        .find_map(|n| visit(m, n, &mut Vec::new(), &mut done))
}

// ------------------------------------------------------------------------------ the scanner

/// `src` with comments removed and the insides of string and char literals blanked, so only
/// code is left (lines kept, for messages).
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |out: &mut String, s: &[u8]| {
        for &c in s {
            out.push(if c == b'\n' { '\n' } else { ' ' });
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let n = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..n]);
            i += n;
        } else if rest.starts_with(b"/*") {
            let n = src[i + 2..].find("*/").map_or(rest.len(), |p| p + 4);
            blank(&mut out, &rest[..n]);
            i += n;
        } else if (rest.starts_with(b"r\"") || rest.starts_with(b"r#"))
            && (i == 0 || !is_ident(b[i - 1]))
        {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                out.push(b[i] as char);
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let n = src[i + body..]
                .find(&close)
                .map_or(rest.len(), |p| body + p + close.len());
            blank(&mut out, &rest[..n]);
            i += n;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let n = (j + 1).min(rest.len());
            blank(&mut out, &rest[..n]);
            i += n;
        } else if rest[0] == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), or else a lifetime.
            let n = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&c| c == b'\'').map(|p| p + 3)
            } else {
                let ch = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            match n {
                Some(n) => {
                    blank(&mut out, &rest[..n]);
                    i += n;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn ident_at(s: &str) -> &str {
    let n = s.bytes().take_while(|&c| is_ident(c)).count();
    &s[..n]
}

/// `code` without `#[cfg(test)]` items, and the names of the `mod x;` files they declare.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(code.len());
    let mut test_mods = Vec::new();
    let mut rest = code;
    while let Some(p) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..p]);
        let item = &rest[p..];
        // The item ends at its `;` or at the brace that closes its first `{`.
        let mut depth = 0usize;
        let mut end = item.len();
        for (k, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = k + 1;
                    let decl = item[..k].trim_end();
                    if let Some(m) = decl.rfind("mod ") {
                        test_mods.push(ident_at(&decl[m + 4..]).to_owned());
                    }
                    break;
                }
                _ => {}
            }
        }
        for c in item[..end].chars() {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    (out, test_mods)
}

/// For each line of `code`, how many inline modules (`mod x { ... }`) it sits in.
fn inline_depths(code: &str) -> Vec<usize> {
    let mut depths = Vec::new();
    let mut braces = 0usize;
    // The brace depth just inside each open inline module.
    let mut open: Vec<usize> = Vec::new();
    for line in code.lines() {
        depths.push(open.len());
        let t = line.trim();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        let mut opens_mod = t.starts_with("mod ") && t.ends_with('{');
        for c in line.chars() {
            match c {
                '{' => {
                    braces += 1;
                    if opens_mod {
                        open.push(braces);
                        opens_mod = false;
                    }
                }
                '}' => {
                    if open.last() == Some(&braces) {
                        open.pop();
                    }
                    braces = braces.saturating_sub(1);
                }
                _ => {}
            }
        }
    }
    depths
}

/// One path into another module: (line, the top-level module it names).
fn uses(code: &str, module_path: &[&str]) -> Vec<(usize, String)> {
    let own = module_path.first().copied().unwrap_or("");
    let mut found = Vec::new();
    let inline = inline_depths(code);
    for (n, line) in code.lines().enumerate() {
        let mut k = 0;
        while k < line.len() {
            let at = &line[k..];
            let before_ok = k == 0 || {
                let c = line.as_bytes()[k - 1];
                !is_ident(c) || c == b'$'
            };
            let before_ok = before_ok && !(k > 0 && line.as_bytes()[k - 1] == b':');
            let mut push = |top: &str| {
                if !top.is_empty() && top != own && top != "self" && top != "super" {
                    found.push((n + 1, top.to_owned()));
                }
            };
            if before_ok && at.starts_with("crate::") {
                let after = &at["crate::".len()..];
                if let Some(group) = after.strip_prefix('{') {
                    for name in top_level_names(group) {
                        push(&name);
                    }
                } else {
                    push(ident_at(after));
                }
                k += "crate::".len();
            } else if before_ok && at.starts_with("super::") {
                let mut supers = 0;
                let mut after = at;
                while let Some(a) = after.strip_prefix("super::") {
                    supers += 1;
                    after = a;
                }
                let depth = module_path.len() + inline.get(n).copied().unwrap_or(0);
                let base = depth.saturating_sub(supers);
                if base == 0 {
                    if let Some(group) = after.strip_prefix('{') {
                        for name in top_level_names(group) {
                            push(&name);
                        }
                    } else {
                        push(ident_at(after));
                    }
                }
                k += at.len() - after.len();
            } else {
                k += at.chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    found
}

/// The first name of each item of a `{a::b, c, d::{e, f}}` group (up to its closing brace).
fn top_level_names(group: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut depth = 0;
    let mut expecting = true;
    let mut k = 0;
    while k < group.len() {
        let c = group.as_bytes()[k];
        match c {
            b'{' => depth += 1,
            b'}' if depth == 0 => break,
            b'}' => depth -= 1,
            b',' if depth == 0 => expecting = true,
            c if expecting && depth == 0 && is_ident(c) => {
                let name = ident_at(&group[k..]);
                names.push(name.to_owned());
                expecting = false;
                k += name.len();
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    names
}

/// The module path of a file under `src/`: `value/decode.rs` is `value::decode`,
/// `value/mod.rs` is `value`, `lib.rs` is the root.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" {
            parts.push(stem.to_owned());
        }
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every use of a module the matrix does not allow: `file:line: a uses b`.
fn violations(files: &[(String, String)], matrix: &Matrix) -> Vec<String> {
    let roots: BTreeMap<&str, &str> = ROOT_ITEMS.iter().copied().collect();
    let mut test_files = BTreeSet::new();
    let mut scanned = Vec::new();
    for (rel, src) in files {
        let (code, test_mods) = without_tests(&code_only(src));
        let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
        let here = module_path(Path::new(rel));
        for m in test_mods {
            // `mod tests;` in `value/mod.rs` is `value/tests.rs`; in `value/decode.rs` it is
            // `value/decode/tests.rs`.
            let base = if rel.ends_with("mod.rs") || rel == "lib.rs" {
                dir.to_path_buf()
            } else {
                dir.join(here.last().map_or("", String::as_str))
            };
            test_files.insert(base.join(format!("{m}.rs")).to_string_lossy().into_owned());
            test_files.insert(base.join(&m).join("mod.rs").to_string_lossy().into_owned());
        }
        scanned.push((rel.clone(), code, here));
    }
    let mut bad = Vec::new();
    for (rel, code, here) in &scanned {
        if test_files.contains(rel) || here.is_empty() {
            continue;
        }
        let path: Vec<&str> = here.iter().map(String::as_str).collect();
        let Some(allowed) = matrix.get(path[0]) else {
            bad.push(format!("{rel}: module `{}` is not in the matrix", path[0]));
            continue;
        };
        for (line, target) in uses(code, &path) {
            let target = match roots.get(target.as_str()) {
                Some(m) => (*m).to_owned(),
                None if matrix.contains_key(&target) => target,
                None => {
                    bad.push(format!(
                        "{rel}:{line}: `crate::{target}` is neither a module of the matrix nor \
                         a known root re-export"
                    ));
                    continue;
                }
            };
            if target == path[0] || allowed.contains(&target) {
                continue;
            }
            let reexport = REEXPORTS
                .iter()
                .any(|(f, m, _)| *f == rel.as_str() && *m == target)
                && code
                    .lines()
                    .nth(line - 1)
                    .is_some_and(|l| l.trim_start().starts_with("pub use"));
            if !reexport {
                bad.push(format!("{rel}:{line}: `{}` uses `{target}`", path[0]));
            }
        }
    }
    bad
}

#[test]
fn the_code_keeps_the_layers_of_the_architecture_document() {
    let doc_path = crate_dir().join("../../docs/ARCHITECTURE.md");
    let doc =
        fs::read_to_string(&doc_path).unwrap_or_else(|e| panic!("{}: {e}", doc_path.display()));
    let matrix = parse_matrix(&doc);
    assert!(
        matrix.len() >= 10,
        "the matrix has too few rows: {matrix:?}"
    );
    assert_eq!(
        find_cycle(&matrix),
        None,
        "the matrix is not a strict stack"
    );
    for deps in matrix.values() {
        for d in deps {
            assert!(matrix.contains_key(d), "`{d}` is used but has no row");
        }
    }

    let src = crate_dir().join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).expect("under src").to_string_lossy();
            (
                rel.replace('\\', "/"),
                fs::read_to_string(p).expect("reads"),
            )
        })
        .collect();
    // Every top-level module has a row.
    for (rel, _) in &files {
        let top = module_path(Path::new(rel));
        if let Some(top) = top.first() {
            assert!(matrix.contains_key(top), "`{top}` ({rel}) has no row");
        }
    }
    let bad = violations(&files, &matrix);
    assert!(
        bad.is_empty(),
        "uses the layers forbid:\n{}",
        bad.join("\n")
    );
}

// ------------------------------------------------------------------ the scanner can fail

fn small_matrix() -> Matrix {
    parse_matrix(
        "<!-- layers:begin -->\n\
         | module | may use |\n|---|---|\n\
         | `error` | |\n\
         | `value` | `error` |\n\
         | `json` | `error`, `value` |\n\
         <!-- layers:end -->",
    )
}

fn check(file: &str, src: &str) -> Vec<String> {
    violations(&[(file.to_owned(), src.to_owned())], &small_matrix())
}

#[test]
fn a_forbidden_use_is_found_in_every_spelling() {
    let m = small_matrix();
    assert_eq!(m["json"].len(), 2);
    assert!(m["error"].is_empty());
    for src in [
        "use crate::json::Thing;",
        "use crate::{error::Error, json};",
        "use crate::{error::{Error, Result}, json::{a, b}};",
        "fn f() { let x = crate::json::read(); }",
        "macro_rules! m { () => { $crate::json::x() } }",
        "fn f() -> crate::json::T { todo!() }",
    ] {
        let bad = check("value/decode.rs", src);
        assert_eq!(bad.len(), 1, "{src}: {bad:?}");
        assert!(bad[0].contains("`value` uses `json`"), "{bad:?}");
    }
    // `super::super::json` from `value/a/b.rs` is the crate's `json`; from `value/mod.rs` one
    // `super` is enough.
    assert_eq!(
        check("value/a/b.rs", "use super::super::super::json::X;").len(),
        1
    );
    assert_eq!(check("value/mod.rs", "use super::json::X;").len(), 1);
    assert!(check("value/a/b.rs", "use super::super::decode::X;").is_empty());
    // Inside an inline module, one more `super` is needed to leave the file's module.
    assert!(check(
        "value/mod.rs",
        "pub mod inner {\n    pub use super::decode::X;\n}"
    )
    .is_empty());
    assert_eq!(
        check(
            "value/mod.rs",
            "mod inner {\n    use super::super::json::X;\n}"
        )
        .len(),
        1
    );
    // The root's re-exports count as their module.
    let bad = check("error.rs", "fn f(v: crate::Value) {}");
    assert_eq!(bad.len(), 1, "{bad:?}");
    // A name the test does not know is an error, not a pass.
    assert_eq!(check("value/x.rs", "use crate::nowhere::X;").len(), 1);
    // So is a module without a row.
    assert_eq!(check("serde/x.rs", "use crate::value::X;").len(), 1);
}

#[test]
fn allowed_uses_comments_strings_and_tests_pass() {
    for src in [
        "use crate::error::Error;\nuse crate::value::Value;",
        "// use crate::serde::X;\n/// [`x`](crate::serde::X)\nfn f() {}",
        "/* crate::serde::X */ fn f() { let s = \"crate::serde::X\"; let r = r#\"crate::serde\"#; }",
        "fn f<'a>(c: char) -> bool { c == '\"' }\nuse crate::value::V;",
        "#[cfg(test)]\nmod tests {\n    use crate::serde::X;\n}\nuse crate::error::E;",
        "#[cfg(test)]\nmod tests;",
        "use self::inner::X; use super::sibling::Y;",
    ] {
        assert_eq!(check("json/read.rs", src), Vec::<String>::new(), "{src}");
    }
    // A file named by `#[cfg(test)] mod tests;` is test code.
    let files = [
        (
            "value/mod.rs".to_owned(),
            "#[cfg(test)]\nmod tests;".to_owned(),
        ),
        (
            "value/tests.rs".to_owned(),
            "use crate::json::X;".to_owned(),
        ),
        (
            "value/decode.rs".to_owned(),
            "use crate::json::X;".to_owned(),
        ),
    ];
    let bad = violations(&files, &small_matrix());
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].starts_with("value/decode.rs:1"), "{bad:?}");
}

#[test]
fn a_cycle_in_the_matrix_is_found() {
    let mut m = small_matrix();
    assert_eq!(find_cycle(&m), None);
    m.get_mut("error").unwrap().insert("json".to_owned());
    let cycle = find_cycle(&m).expect("a cycle");
    assert_eq!(cycle.first(), cycle.last());
    assert!(cycle.contains(&"json".to_owned()), "{cycle:?}");
}
