//! Schemas and resolution plans, prepared once at init (outside the timed region).

use avrokit::resolution::ResolvedPlan;
use avrokit::Schema;

/// Parses a schema; the error says avrokit rejected it (the row then prints n/a).
pub fn parse(schema: &str) -> Result<Schema, String> {
    Schema::parse_str(schema).map_err(|e| format!("avrokit rejects the schema: {e}"))
}

/// Compiles a writer/reader resolution plan (once, at init: Java's resolver is built outside
/// the timed region at HEAD, and cached per schema pair inside its datum readers).
pub fn plan(writer: &str, reader: &str) -> Result<ResolvedPlan, String> {
    ResolvedPlan::compile(&parse(writer)?, &parse(reader)?)
        .map_err(|e| format!("avrokit cannot resolve the schemas: {e}"))
}
