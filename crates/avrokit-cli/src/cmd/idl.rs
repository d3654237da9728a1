//! IDL commands: `idl` and `idl2schemata`, as Java's `avro-tools` has them.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use avrokit_idl::{IdlFile, IdlReader};

use crate::cli::{Idl2schemataArgs, IdlArgs};
use crate::error::{CliError, CliResult, Context};
use crate::io::{is_std, Output};

/// Reads the IDL file (`-`: stdin) with its imports; prints the warnings on stderr.
fn read_idl(input: &Path, import_dirs: &[PathBuf]) -> CliResult<IdlFile> {
    let mut reader = IdlReader::new();
    for dir in import_dirs {
        reader = reader.import_dir(dir);
    }
    let parsed = if is_std(input) {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).at("<stdin>")?;
        reader.parse_str(&text, Some(Path::new(".")))
    } else {
        reader.parse_file(input)
    };
    let idl = parsed.map_err(|e| {
        let place = e
            .location()
            .map_or_else(|| input.display().to_string(), ToString::to_string);
        CliError::input(e.message().to_owned(), place)
    })?;
    let mut err = std::io::stderr().lock();
    for w in idl.warnings() {
        let _ = writeln!(
            err,
            "avrokit: warning: {}",
            w.to_string().replace('\n', " ")
        );
    }
    Ok(idl)
}

fn write_json(path: &Path, json: &serde_json::Value) -> CliResult<()> {
    let mut out = Output::create(path)?;
    let text = serde_json::to_string_pretty(json)
        .map_err(|e| CliError::input(e.to_string(), path.display().to_string()))?;
    writeln!(out, "{text}").at(&out.name.clone())?;
    out.commit()
}

/// `idl`: the protocol JSON, or the main schema of a file in schema syntax.
pub fn idl(a: &IdlArgs) -> CliResult<()> {
    let idl = read_idl(&a.input, &a.import_dirs)?;
    let json = idl.to_json().ok_or_else(|| {
        CliError::input(
            "the IDL file declares neither a protocol nor a main schema (`schema T;`)",
            a.input.display().to_string(),
        )
    })?;
    write_json(a.output.as_deref().unwrap_or(Path::new("-")), &json)
}

/// `idl2schemata`: one `NAME.avsc` per named type, each a standalone schema (the types it
/// uses written in full inside it).
pub fn idl2schemata(a: &Idl2schemataArgs) -> CliResult<()> {
    let idl = read_idl(&a.input, &a.import_dirs)?;
    let schemas = idl.named_schemas();
    // Files are named by simple name, as avro-tools names them; two types that share one
    // would overwrite each other, so that is refused before anything is written.
    let mut seen: HashMap<String, String> = HashMap::new();
    for s in &schemas {
        let Some(name) = s.root().name() else {
            continue;
        };
        if let Some(other) = seen.insert(name.name().to_owned(), name.fullname().to_owned()) {
            return Err(CliError::input(
                format!(
                    "the types {other} and {} would both be written to {}.avsc",
                    name.fullname(),
                    name.name()
                ),
                a.input.display().to_string(),
            ));
        }
    }
    std::fs::create_dir_all(&a.outdir).at(&a.outdir.display().to_string())?;
    for s in &schemas {
        let Some(name) = s.root().name() else {
            continue;
        };
        write_json(
            &a.outdir.join(format!("{}.avsc", name.name())),
            &s.to_json(),
        )?;
    }
    Ok(())
}
