//! Keeps the layers of the README's "Layout" section true: every `crate::` and `super::` path
//! outside test code is read from the sources, resolved to the module it names, and checked
//! against the allowed matrix; and the module graph has no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What each top-level module may import (besides itself). The crate root (`main.rs`) may
/// import anything.
const ALLOWED: &[(&str, &[&str])] = &[
    ("registry", &["families", "harness"]),
    (
        "families",
        &["adapters", "data", "reference", "harness", "rng"],
    ),
    ("adapters", &["data", "reference", "harness"]),
    ("data", &["reference", "rng"]),
    ("reference", &[]),
    ("rng", &[]),
    ("harness", &[]),
    ("cli", &["harness", "report"]),
    ("report", &["harness", "java"]),
    ("java", &[]),
];

/// Adapter folders that must not import each other: each library's adapters stand alone.
const SEPARATE: &[&str] = &["adapters::avrokit", "adapters::peers", "adapters::limit"];

/// Every source file as (module path, text before its first `#[cfg(test)]`).
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            if path.is_dir() {
                let mut p = prefix.to_vec();
                p.push(name);
                walk(&path, &p, out);
                continue;
            }
            let mut p = prefix.to_vec();
            if name != "mod" && name != "main" {
                p.push(name);
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap().to_owned();
            out.insert(p.join("::"), code);
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut out,
    );
    out.retain(|m, _| !m.starts_with("tests"));
    out
}

/// The modules a file's code names through `crate::` or `super::` paths (comments skipped).
fn imports(module: &str, code: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
        for (marker, base) in [("crate::", Vec::new()), ("super::", parent(module))] {
            for (at, _) in line.match_indices(marker) {
                if at > 0 && line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = &line[at + marker.len()..];
                assert!(
                    !rest.starts_with('{'),
                    "{module}: `{marker}{{...}}`: one `use` per module, so the layers can be read"
                );
                let mut path = base.clone();
                let mut best = None;
                for seg in rest.split("::") {
                    let seg: String = seg
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if seg.is_empty() {
                        break;
                    }
                    path.push(seg);
                    if known.contains(&path.join("::")) {
                        best = Some(path.join("::"));
                    }
                }
                if let Some(target) = best {
                    if target != module {
                        found.insert(target);
                    }
                }
            }
        }
    }
    found
}

/// The module `super` names from `module`'s file.
fn parent(module: &str) -> Vec<String> {
    let mut p: Vec<String> = module.split("::").map(str::to_owned).collect();
    p.pop();
    p
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap()
}

#[test]
fn imports_follow_the_layers() {
    let modules = modules();
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut graph = BTreeMap::new();
    let mut wrong = Vec::new();
    for (module, code) in &modules {
        let targets = imports(module, code, &known);
        for target in &targets {
            if module.is_empty() || top(module) == top(target) {
                let apart = |m: &str| SEPARATE.iter().find(|s| m.starts_with(*s));
                if let (Some(a), Some(b)) = (apart(module), apart(target)) {
                    if a != b {
                        wrong.push(format!("{module} -> {target}: adapters stand alone"));
                    }
                }
                continue;
            }
            let ok = allowed
                .get(top(module))
                .unwrap_or_else(|| {
                    panic!("{module}: a new top-level module needs a row in ALLOWED")
                })
                .contains(&top(target));
            if !ok {
                wrong.push(format!("{module} -> {target}"));
            }
        }
        graph.insert(module.clone(), targets);
    }
    assert!(wrong.is_empty(), "imports against the layers: {wrong:#?}");
    // No cycle, even inside a layer: repeatedly drop the modules that import nothing left.
    while !graph.is_empty() {
        let leaves: Vec<String> = graph
            .iter()
            .filter(|(_, t)| t.iter().all(|t| !graph.contains_key(t)))
            .map(|(m, _)| m.clone())
            .collect();
        assert!(
            !leaves.is_empty(),
            "an import cycle among {:?}",
            graph.keys()
        );
        for leaf in leaves {
            graph.remove(&leaf);
        }
    }
}

/// The checker sees what it must: a path into another layer is found and resolved.
#[test]
fn the_checker_finds_imports() {
    let known: BTreeSet<String> = [
        "harness",
        "adapters::avrokit::schema",
        "adapters::avrokit::value",
    ]
    .map(String::from)
    .into();
    let code =
        "use crate::harness::{check_consumed, Impl};\nuse super::schema::plan;\n// crate::data";
    let found = imports("adapters::avrokit::value", code, &known);
    assert_eq!(
        found,
        ["adapters::avrokit::schema", "harness"]
            .map(String::from)
            .into()
    );
}
