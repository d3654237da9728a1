//! `sql`: SQL over Avro files with DataFusion, through avrokit-datafusion.

use std::io::{Read, Write};
use std::path::PathBuf;

use avrokit_datafusion::{avro_session, register_avro};
use clap::{Args, ValueEnum};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::error::{CliError, CliResult};

/// `sql`
#[derive(Debug, Args)]
pub struct SqlArgs {
    /// The query (several, separated by `;`, run in turn). Without one, queries are read from
    /// stdin.
    pub query: Option<String>,
    /// A table: `NAME=LOCATION`, where the location is a container file, a directory of them,
    /// a glob, or a URL (`s3://bucket/prefix/`, `gs://`, `az://`, `http(s)://`, `file://`).
    /// Repeatable. `CREATE EXTERNAL TABLE ... STORED AS AVRO` works too.
    #[arg(long = "table", value_name = "NAME=LOCATION")]
    pub tables: Vec<String>,
    /// How results are printed.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Threads (and target partitions) the queries run on (default: the number of CPUs).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// `sql --format`
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// An aligned text table.
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON object per row.
    Jsonl,
}

pub fn sql(a: &SqlArgs) -> CliResult<()> {
    let text = match &a.query {
        Some(q) => q.clone(),
        None => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| CliError::input(format!("cannot read the queries: {e}"), "stdin"))?;
            s
        }
    };
    let statements = split_statements(&text);
    if statements.is_empty() {
        return Err(CliError::usage("no query given", "sql"));
    }
    let threads = crate::cmd::threads_or_default(a.threads);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name("avrokit-sql")
        .enable_all()
        .build()
        .map_err(|e| CliError::input(format!("cannot start the query runtime: {e}"), "sql"))?;
    runtime.block_on(async {
        let config = SessionConfig::new().with_target_partitions(threads);
        let ctx = avro_session(config).map_err(|e| CliError::input(e.to_string(), "sql"))?;
        for t in &a.tables {
            let Some((name, location)) = t.split_once('=') else {
                return Err(CliError::usage(
                    format!("{t:?} is not NAME=LOCATION"),
                    "--table",
                ));
            };
            let location = local_location(location);
            register_avro(&ctx, name, &location)
                .await
                .map_err(|e| CliError::input(e.to_string(), format!("--table {name}")))?;
        }
        let mut out = std::io::stdout().lock();
        for (i, q) in statements.iter().enumerate() {
            let batches = run(&ctx, q)
                .await
                .map_err(|e| CliError::input(e, format!("query {}", i + 1)))?;
            print(&mut out, &batches, a.format)?;
        }
        out.flush().map_err(|e| CliError::io(&e, "stdout"))
    })
}

/// A location as DataFusion takes it: a URL as given; a local directory with the trailing
/// `/` that marks it as one.
fn local_location(location: &str) -> String {
    if avrokit_object_store::is_url(location) {
        return location.to_owned();
    }
    let p = PathBuf::from(location);
    if p.is_dir() && !location.ends_with('/') {
        format!("{location}/")
    } else {
        location.to_owned()
    }
}

async fn run(ctx: &SessionContext, query: &str) -> Result<Vec<RecordBatch>, String> {
    let df = ctx.sql(query).await.map_err(|e| e.to_string())?;
    df.collect().await.map_err(|e| e.to_string())
}

fn print(out: &mut impl Write, batches: &[RecordBatch], format: OutputFormat) -> CliResult<()> {
    let place = "stdout";
    let fail = |e: datafusion::arrow::error::ArrowError| CliError::input(e.to_string(), place);
    match format {
        OutputFormat::Table => {
            if batches.iter().all(|b| b.num_columns() == 0) {
                return Ok(());
            }
            let table = pretty_format_batches(batches).map_err(fail)?;
            writeln!(out, "{table}").map_err(|e| CliError::io(&e, place))
        }
        OutputFormat::Csv => {
            let mut w = datafusion::arrow::csv::WriterBuilder::new()
                .with_header(true)
                .build(&mut *out);
            for b in batches {
                w.write(b).map_err(fail)?;
            }
            Ok(())
        }
        OutputFormat::Jsonl => {
            let mut w = datafusion::arrow::json::LineDelimitedWriter::new(&mut *out);
            for b in batches {
                w.write(b).map_err(fail)?;
            }
            w.finish().map_err(fail)
        }
    }
}

/// The statements of `text`, split at the `;` outside quotes and comments; empty ones
/// dropped.
fn split_statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    cur.push(c);
                }
                '-' if chars.peek() == Some(&'-') => {
                    // A comment to the end of the line.
                    for c in chars.by_ref() {
                        if c == '\n' {
                            cur.push('\n');
                            break;
                        }
                    }
                }
                ';' => out.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            },
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::split_statements;

    #[test]
    fn statements_split_outside_quotes_and_comments() {
        let got = split_statements(
            "SELECT ';' FROM t; -- a comment; with a semicolon\nSELECT \"a;b\" FROM u;;  ",
        );
        assert_eq!(got, ["SELECT ';' FROM t", "SELECT \"a;b\" FROM u"]);
    }
}
