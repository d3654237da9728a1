//! Schema commands: `canonical`, `fingerprint`, `compat`.

use std::io::Write;
use std::path::Path;

use avrokit::check_compatibility;

use crate::cli::{Algorithm, CompatArgs, FingerprintArgs};
use crate::error::{CliResult, Context};
use crate::io::{read_schema, Output};

/// `canonical`: the Parsing Canonical Form.
pub fn canonical(path: &Path) -> CliResult<()> {
    let schema = read_schema(path)?;
    print_line(&schema.canonical_form())
}

/// `fingerprint`: the fingerprint of the Parsing Canonical Form, in lowercase hex, and nothing
/// else on the line.
///
/// The Rabin (CRC-64-AVRO) fingerprint is printed as its 8 bytes in little-endian order, as
/// Java's `avro-tools fingerprint` prints `SchemaNormalization.parsingFingerprint` (which also
/// appends the file name: we do not, so that the output can be used as is) and as single-object
/// encoding stores it. The signed 64-bit number Java's `parsingFingerprint64` returns is the same
/// bytes read little-endian.
pub fn fingerprint(a: &FingerprintArgs) -> CliResult<()> {
    let schema = read_schema(&a.schema)?;
    let bytes: Vec<u8> = match a.algorithm {
        Algorithm::Rabin => schema.fingerprint_rabin().to_le_bytes().to_vec(),
        Algorithm::Md5 => schema.fingerprint_md5().to_vec(),
        Algorithm::Sha256 => schema.fingerprint_sha256().to_vec(),
    };
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    print_line(&hex)
}

/// `compat`: the compatibility report of a reader schema against a writer schema. Returns exit
/// code 0 when the reader can read everything the writer writes, 1 when not.
///
/// The first line is `compatible` or `incompatible`; each incompatibility follows on its own
/// line: kind, path (`Order.items[].price`), the location in the reader schema as a JSON
/// pointer (as Java's `SchemaCompatibility` gives it), and a description.
pub fn compat(a: &CompatArgs) -> CliResult<u8> {
    let reader = read_schema(&a.reader)?;
    let writer = read_schema(&a.writer)?;
    let report = check_compatibility(&reader, &writer);
    let mut out = Output::create(Path::new("-"))?;
    if report.is_compatible() {
        writeln!(out, "compatible").at("<stdout>")?;
        out.commit()?;
        return Ok(0);
    }
    writeln!(out, "incompatible").at("<stdout>")?;
    for inc in report.incompatibilities() {
        let path = if inc.path().is_empty() {
            "<root>"
        } else {
            inc.path()
        };
        let location = if inc.location().is_empty() {
            "/"
        } else {
            inc.location()
        };
        writeln!(
            out,
            "{} at {path} (reader schema {location}): {}",
            inc.kind(),
            crate::error::one_line(inc.message())
        )
        .at("<stdout>")?;
    }
    out.commit()?;
    Ok(1)
}

fn print_line(s: &str) -> CliResult<()> {
    let mut out = Output::create(Path::new("-"))?;
    writeln!(out, "{s}").at("<stdout>")?;
    out.commit()
}
