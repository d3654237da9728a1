//! Files, imports and the shared name table; then the protocol or schemas, built by avrokit.
//!
//! Every file read (the main one and its imports, recursively) adds its named types to one
//! table, in the order Java's `ParseContext` keeps them. Types from `.avsc` and `.avpr` imports
//! are split into one standalone definition per named type, so that each type is defined once in
//! the final document whichever file it came from. An identical redefinition is ignored, a
//! different one is an error. Once everything is read, references are checked (with their
//! position), and the whole is handed to avrokit's schema and protocol parsers, whose errors are
//! mapped back to the declaration they are about.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use avrokit::{Protocol, Schema};
use serde_json::{Map, Value};

use crate::error::{location, Error, Pos, Warning};
use crate::lexer::lex;
use crate::parser::{ImportKind, Item, Parser};
use crate::{IdlFile, IdlReader};

pub(crate) enum Input<'a> {
    File(&'a Path),
    Text(&'a str, Option<&'a Path>),
}

struct Def {
    fullname: String,
    json: Value,
    pos: Pos,
    field_pos: Vec<Pos>,
}

struct Msg {
    name: String,
    json: Value,
    pos: Pos,
    param_pos: Vec<Pos>,
}

/// What one IDL file yields to the file importing it.
struct FileOut {
    protocol: Option<crate::parser::ProtocolDecl>,
    main_schema: Option<(Value, Pos)>,
    messages: Vec<Msg>,
}

struct Ctx<'r> {
    reader: &'r IdlReader,
    files: Vec<PathBuf>,
    /// Files read so far (canonical paths), each read once.
    read: HashSet<PathBuf>,
    defs: Vec<Def>,
    by_name: HashMap<String, usize>,
    refs: Vec<crate::parser::Ref>,
    stray_docs: Vec<Pos>,
    depth: usize,
    /// Every file read, in the order read (for [`IdlFile::files`]).
    read_paths: Vec<PathBuf>,
}

pub(crate) fn read(reader: &IdlReader, input: Input<'_>) -> Result<IdlFile, Error> {
    let mut ctx = Ctx {
        reader,
        files: Vec::new(),
        read: HashSet::new(),
        defs: Vec::new(),
        by_name: HashMap::new(),
        refs: Vec::new(),
        stray_docs: Vec::new(),
        depth: 0,
        read_paths: Vec::new(),
    };
    let result = ctx.run(input);
    result.map_err(|e| e.locate(&ctx.files))
}

/// Where a file's relative imports are looked up first.
fn dir_of(path: &Path) -> PathBuf {
    path.parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

impl Ctx<'_> {
    fn run(&mut self, input: Input<'_>) -> Result<IdlFile, Error> {
        let top = match input {
            Input::File(path) => {
                let text = self.read_text(path, None)?;
                self.mark_read(path);
                self.read_paths.push(path.to_owned());
                let file = self.add_file(path.to_owned());
                self.idl(&text, file, Some(dir_of(path)))?
            }
            Input::Text(text, dir) => {
                let file = self.add_file(PathBuf::from("<input>"));
                self.idl(text, file, dir.map(Path::to_path_buf))?
            }
        };
        self.check_refs()?;
        let mut warnings: Vec<Warning> = self
            .stray_docs
            .iter()
            .map(|&pos| Warning {
                location: location(pos, &self.files),
                message: "Ignoring out-of-place documentation comment. Did you mean to use a \
                          multiline comment ( /* ... */ ) instead?"
                    .to_owned(),
            })
            .collect();
        warnings.sort_by(|a, b| {
            (&a.location.file, a.location.line, a.location.column).cmp(&(
                &b.location.file,
                b.location.line,
                b.location.column,
            ))
        });
        match top.protocol {
            Some(decl) => {
                let protocol = self.build_protocol(decl, top.messages)?;
                Ok(IdlFile {
                    protocol: Some(protocol),
                    main_schema: None,
                    named: Vec::new(),
                    warnings,
                    files: std::mem::take(&mut self.read_paths),
                })
            }
            None => {
                let (main_schema, named) = self.build_schemas(top.main_schema)?;
                Ok(IdlFile {
                    protocol: None,
                    main_schema,
                    named,
                    warnings,
                    files: std::mem::take(&mut self.read_paths),
                })
            }
        }
    }

    fn add_file(&mut self, path: PathBuf) -> u32 {
        self.files.push(path);
        (self.files.len() - 1) as u32
    }

    fn mark_read(&mut self, path: &Path) -> bool {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        self.read.insert(key)
    }

    /// A whole file as UTF-8 text, within the size limit.
    fn read_text(&self, path: &Path, at: Option<Pos>) -> Result<String, Error> {
        let fail = |msg: String| match at {
            Some(pos) => Error::at(pos, msg),
            None => Error::in_file(path, msg),
        };
        let max = self.reader.limits.max_file_size;
        let file = std::fs::File::open(path)
            .map_err(|e| fail(format!("cannot open {}: {e}", path.display())).with_source(e))?;
        let meta = file
            .metadata()
            .map_err(|e| fail(format!("cannot read {}: {e}", path.display())).with_source(e))?;
        if !meta.is_file() {
            return Err(fail(format!("{} is not a file", path.display())));
        }
        let mut bytes = Vec::new();
        file.take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| fail(format!("cannot read {}: {e}", path.display())).with_source(e))?;
        if bytes.len() as u64 > max {
            return Err(fail(format!(
                "{} is larger than {max} bytes (the configured limit)",
                path.display()
            )));
        }
        let bytes = bytes
            .strip_prefix(b"\xEF\xBB\xBF")
            .map(<[u8]>::to_vec)
            .unwrap_or(bytes);
        String::from_utf8(bytes)
            .map_err(|e| fail(format!("{} is not UTF-8 text: {e}", path.display())))
    }

    /// Finds an import: relative to the importing file's directory, then in each import
    /// directory.
    fn find_import(&self, name: &str, dir: Option<&Path>, pos: Pos) -> Result<PathBuf, Error> {
        let candidates = dir
            .into_iter()
            .chain(self.reader.import_dirs.iter().map(PathBuf::as_path));
        for base in candidates {
            let path = base.join(name);
            if path.is_file() {
                return Ok(path);
            }
        }
        let mut msg = format!("cannot find the import \"{name}\"");
        match dir {
            Some(dir) => msg.push_str(&format!(" (looked in {}", dir.display())),
            None => msg.push_str(" (looked"),
        }
        for d in &self.reader.import_dirs {
            msg.push_str(&format!(", {}", d.display()));
        }
        msg.push_str(" and the import directories)");
        Err(Error::at(pos, msg))
    }

    /// Reads one IDL file's text: its types go to the table, its messages and declaration come
    /// back.
    fn idl(&mut self, text: &str, file: u32, dir: Option<PathBuf>) -> Result<FileOut, Error> {
        let limits = self.reader.limits;
        let lexed = lex(text, file, limits.max_tokens)?;
        let parsed = Parser::new(&lexed.tokens, &lexed.docs, limits.max_depth).parse_file()?;
        self.refs.extend(parsed.refs);
        self.stray_docs.extend(parsed.stray_docs);
        let is_protocol = parsed.protocol.is_some();
        let mut messages: Vec<Msg> = Vec::new();
        for item in parsed.items {
            match item {
                Item::Type(def) => self.add_def(Def {
                    fullname: def.fullname,
                    json: def.json,
                    pos: def.pos,
                    field_pos: def.field_pos,
                })?,
                Item::Message(m) => put_message(
                    &mut messages,
                    Msg {
                        name: m.name,
                        json: m.json,
                        pos: m.pos,
                        param_pos: m.param_pos,
                    },
                ),
                Item::Import { kind, path, pos } => {
                    let found = self.find_import(&path, dir.as_deref(), pos)?;
                    if !self.mark_read(&found) {
                        continue;
                    }
                    if self.read.len() > limits.max_files {
                        return Err(Error::at(
                            pos,
                            format!(
                                "more than {} files imported (the configured limit)",
                                limits.max_files
                            ),
                        ));
                    }
                    let imported = self.import(kind, &found, pos)?;
                    if is_protocol {
                        for m in imported {
                            put_message(&mut messages, m);
                        }
                    }
                }
            }
        }
        Ok(FileOut {
            protocol: parsed.protocol,
            main_schema: parsed.main_schema,
            messages,
        })
    }

    /// Reads an imported file; returns its messages.
    fn import(&mut self, kind: ImportKind, path: &Path, pos: Pos) -> Result<Vec<Msg>, Error> {
        let text = self.read_text(path, Some(pos))?;
        self.read_paths.push(path.to_owned());
        match kind {
            ImportKind::Idl => {
                self.depth += 1;
                if self.depth > self.reader.limits.max_depth {
                    return Err(Error::at(
                        pos,
                        format!(
                            "imports nested deeper than {} levels",
                            self.reader.limits.max_depth
                        ),
                    ));
                }
                let file = self.add_file(path.to_owned());
                let out = self.idl(&text, file, Some(dir_of(path)))?;
                self.depth -= 1;
                Ok(if out.protocol.is_some() {
                    out.messages
                } else {
                    Vec::new()
                })
            }
            ImportKind::Protocol => {
                let bad = |e: avrokit::Error| {
                    Error::at(pos, format!("cannot import {}: {e}", path.display())).with_source(e)
                };
                let protocol = Protocol::parse_str(&text).map_err(bad)?;
                for t in protocol.types() {
                    self.flatten(&t.to_json(), None, pos, 0)?;
                }
                let mut messages = Vec::new();
                for m in protocol.messages() {
                    let json = self.message_json(&protocol, m, pos)?;
                    messages.push(Msg {
                        name: m.name.clone(),
                        json,
                        pos,
                        param_pos: Vec::new(),
                    });
                }
                Ok(messages)
            }
            ImportKind::Schema => {
                let json: Value = serde_json::from_str(&text).map_err(|e| {
                    Error::at(pos, format!("cannot import {}: {e}", path.display())).with_source(e)
                })?;
                self.flatten(&json, None, pos, 0)?;
                Ok(Vec::new())
            }
        }
    }

    /// An imported protocol's message as JSON with fullnames (the imported protocol's
    /// namespace is not the importing one's).
    fn message_json(
        &mut self,
        protocol: &Protocol,
        m: &avrokit::schema::Message,
        pos: Pos,
    ) -> Result<Value, Error> {
        let mut mm = Map::new();
        if let Some(doc) = &m.doc {
            mm.insert("doc".into(), doc.as_str().into());
        }
        for (k, v) in &m.props {
            mm.insert(k.clone(), v.clone());
        }
        let mut request = Vec::new();
        for f in &m.request {
            let mut fm = Map::new();
            fm.insert("name".into(), f.name.as_str().into());
            let ty = self.flatten(&protocol.schema(f.schema).to_json(), None, pos, 0)?;
            fm.insert("type".into(), ty);
            if let Some(doc) = &f.doc {
                fm.insert("doc".into(), doc.as_str().into());
            }
            if let Some(d) = &f.default {
                fm.insert("default".into(), d.clone());
            }
            if !f.aliases.is_empty() {
                fm.insert("aliases".into(), f.aliases.clone().into());
            }
            for (k, v) in &f.props {
                fm.insert(k.clone(), v.clone());
            }
            request.push(Value::Object(fm));
        }
        mm.insert("request".into(), Value::Array(request));
        if m.one_way {
            mm.insert("response".into(), "null".into());
            mm.insert("one-way".into(), true.into());
        } else {
            let response = self.flatten(&protocol.schema(m.response).to_json(), None, pos, 0)?;
            mm.insert("response".into(), response);
            if !m.errors.is_empty() {
                let errors = m
                    .errors
                    .iter()
                    .filter_map(|&e| protocol.schema(e).root().name().map(|n| n.to_string()))
                    .map(Value::String)
                    .collect();
                mm.insert("errors".into(), Value::Array(errors));
            }
        }
        Ok(Value::Object(mm))
    }

    /// Moves every named type defined in imported schema JSON into the table as a standalone
    /// definition, and returns the JSON with each definition replaced by a reference.
    fn flatten(
        &mut self,
        json: &Value,
        ns: Option<&str>,
        pos: Pos,
        depth: usize,
    ) -> Result<Value, Error> {
        if depth > self.reader.limits.max_depth {
            return Err(Error::at(
                pos,
                format!(
                    "the imported schema nests deeper than {} levels",
                    self.reader.limits.max_depth
                ),
            ));
        }
        let obj = match json {
            Value::Array(items) => {
                return items
                    .iter()
                    .map(|v| self.flatten(v, ns, pos, depth + 1))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array)
            }
            Value::Object(obj) => obj,
            other => return Ok(other.clone()),
        };
        let ty = obj.get("type").and_then(Value::as_str).unwrap_or_default();
        let mut out = obj.clone();
        match ty {
            "record" | "error" | "enum" | "fixed" => {
                let Some(name) = obj.get("name").and_then(Value::as_str) else {
                    return Err(Error::at(
                        pos,
                        format!("an imported {ty} has no \"name\" string"),
                    ));
                };
                let (simple, space) = match name.rfind('.') {
                    Some(dot) => (&name[dot + 1..], Some(&name[..dot])),
                    None => match obj.get("namespace") {
                        Some(Value::String(s)) if s.is_empty() => (name, None),
                        Some(Value::String(s)) => (name, Some(s.as_str())),
                        _ => (name, ns),
                    },
                };
                out.insert("name".into(), simple.into());
                out.insert("namespace".into(), space.unwrap_or_default().into());
                if let Some(Value::Array(fields)) = obj.get("fields") {
                    let mut new_fields = Vec::with_capacity(fields.len());
                    for f in fields {
                        let mut f = f.clone();
                        if let Some(t) = f.get("type") {
                            let t = self.flatten(t, space, pos, depth + 1)?;
                            f["type"] = t;
                        }
                        new_fields.push(f);
                    }
                    out.insert("fields".into(), Value::Array(new_fields));
                }
                let fullname = match space {
                    Some(s) => format!("{s}.{simple}"),
                    None => simple.to_owned(),
                };
                self.add_def(Def {
                    fullname: fullname.clone(),
                    json: Value::Object(out),
                    pos,
                    field_pos: Vec::new(),
                })?;
                // A null-namespace type is found by its simple name from any namespace.
                Ok(Value::String(if space.is_none() {
                    simple.to_owned()
                } else {
                    fullname
                }))
            }
            "array" | "map" => {
                let key = if ty == "array" { "items" } else { "values" };
                if let Some(child) = obj.get(key) {
                    let child = self.flatten(child, ns, pos, depth + 1)?;
                    out.insert(key.into(), child);
                }
                Ok(Value::Object(out))
            }
            _ => Ok(Value::Object(out)),
        }
    }

    fn add_def(&mut self, def: Def) -> Result<(), Error> {
        if let Some(&i) = self.by_name.get(&def.fullname) {
            if self.defs[i].json == def.json {
                return Ok(());
            }
            return Err(Error::at(
                def.pos,
                format!(
                    "\"{}\" is already defined (at {}): a name may be defined only once",
                    def.fullname,
                    location(self.defs[i].pos, &self.files)
                ),
            ));
        }
        self.by_name.insert(def.fullname.clone(), self.defs.len());
        self.defs.push(def);
        Ok(())
    }

    fn check_refs(&self) -> Result<(), Error> {
        for r in &self.refs {
            let Some(&i) = self.by_name.get(&r.fullname) else {
                return Err(Error::at(
                    r.pos,
                    format!("undefined type \"{}\"", r.fullname),
                ));
            };
            if r.is_error && self.defs[i].json.get("type") != Some(&Value::from("error")) {
                return Err(Error::at(
                    r.pos,
                    format!(
                        "\"{}\" is not an error type: only errors can be thrown",
                        r.fullname
                    ),
                ));
            }
        }
        Ok(())
    }

    fn build_protocol(
        &self,
        decl: crate::parser::ProtocolDecl,
        messages: Vec<Msg>,
    ) -> Result<Protocol, Error> {
        let mut m = Map::new();
        m.insert("protocol".into(), decl.name.into());
        if let Some(ns) = decl.namespace {
            m.insert("namespace".into(), ns.into());
        }
        if let Some(doc) = decl.doc {
            m.insert("doc".into(), doc.into());
        }
        for (k, v) in decl.props {
            m.insert(k, v);
        }
        let types = self.defs.iter().map(|d| d.json.clone()).collect();
        m.insert("types".into(), Value::Array(types));
        let mut mm = Map::new();
        for msg in &messages {
            mm.insert(msg.name.clone(), msg.json.clone());
        }
        m.insert("messages".into(), Value::Object(mm));
        Protocol::parse_json(&Value::Object(m)).map_err(|e| self.map_error(e, &messages))
    }

    fn build_schemas(
        &self,
        main: Option<(Value, Pos)>,
    ) -> Result<(Option<Schema>, Vec<Schema>), Error> {
        let mut texts = Vec::with_capacity(self.defs.len() + 1);
        // The main schema goes last, so that input `i` is definition `i`; a placeholder keeps
        // the error paths indexed when there is a single input.
        for d in &self.defs {
            texts.push(d.json.to_string());
        }
        texts.push(
            main.as_ref()
                .map_or_else(|| "\"null\"".to_owned(), |(v, _)| v.to_string()),
        );
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut schemas = Schema::parse_many(&refs).map_err(|e| {
            let path = e.path();
            let pos = index_after(&path, "$[").and_then(|(i, rest)| match self.defs.get(i) {
                Some(d) => Some(field_pos(d, rest)),
                None => main.as_ref().map(|(_, p)| *p),
            });
            core_error(e, pos)
        })?;
        let main_schema = schemas.pop().filter(|_| main.is_some());
        Ok((main_schema, schemas))
    }

    /// Maps an error of avrokit's protocol parser to the declaration it is about.
    fn map_error(&self, e: avrokit::Error, messages: &[Msg]) -> Error {
        let path = e.path();
        let pos = if let Some((i, rest)) = index_after(&path, "$.types[") {
            self.defs.get(i).map(|d| field_pos(d, rest))
        } else if let Some(rest) = path.strip_prefix("$.messages.") {
            let name = rest.split(['.', '[']).next().unwrap_or_default();
            messages.iter().find(|m| m.name == name).map(|m| {
                match index_after(&rest[name.len()..], ".request[") {
                    Some((j, _)) => m.param_pos.get(j).copied().unwrap_or(m.pos),
                    None => m.pos,
                }
            })
        } else {
            None
        };
        core_error(e, pos)
    }
}

/// A message replaces one of the same name in place (as Java's `LinkedHashMap.putAll`).
fn put_message(messages: &mut Vec<Msg>, m: Msg) {
    match messages.iter_mut().find(|x| x.name == m.name) {
        Some(slot) => *slot = m,
        None => messages.push(m),
    }
}

/// `n` and the rest of `path` after `prefix` `n` `]`.
fn index_after<'p>(path: &'p str, prefix: &str) -> Option<(usize, &'p str)> {
    let rest = path.strip_prefix(prefix)?;
    let end = rest.find(']')?;
    Some((rest[..end].parse().ok()?, &rest[end + 1..]))
}

/// The position of a definition, or of its field when the path goes into one.
fn field_pos(d: &Def, rest: &str) -> Pos {
    index_after(rest, ".fields[")
        .and_then(|(j, _)| d.field_pos.get(j).copied())
        .unwrap_or(d.pos)
}

fn core_error(e: avrokit::Error, pos: Option<Pos>) -> Error {
    let path = e.path();
    let mut msg = e.message().to_owned();
    if !path.is_empty() {
        msg.push_str(&format!(" (in the schema JSON at {path})"));
    }
    let err = Error::nowhere(msg).with_source(e);
    match pos {
        Some(p) => err.or_at(p),
        None => err,
    }
}
