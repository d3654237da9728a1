//! `avrokit-perf`: a port of Apache Avro Java's classic `Perf` tool (WORKLOADS.md in
//! `shared/perf`), measuring avrokit, and with `--compare` the other Rust Avro libraries, on
//! exactly the data Java's tool generates.
//!
//! ```text
//! cargo run --release -p avrokit-perf -- --quick --compare
//! cargo run --release -p avrokit-perf -- -basic -c nte
//! ```
//!
//! Modules: [`rng`] (java.util.Random), one module per test family ([`basic`], [`record`],
//! [`generic`], [`specific`], [`reflect`], [`avro3451`]) holding its data generators, reference
//! encodings and implementations, [`limit`] (the reference encoder and the limit rows),
//! [`peers`] (apache-avro and serde_avro_fast), [`harness`] (registry and timing), [`report`]
//! (output), [`cli`], and [`java`] (Java's figures on this machine).

#![forbid(unsafe_code)]

mod avro3451;
mod basic;
mod cli;
mod container;
mod generic;
mod harness;
mod java;
mod limit;
mod peers;
mod record;
mod reflect;
mod report;
mod rng;
mod specific;
#[cfg(test)]
mod tests;
mod typed;

use std::io::Write;
use std::process::ExitCode;

/// Parses the arguments, prints the banner and header, runs the tests.
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let registry = harness::registry();
    let opts = match cli::parse(&args, &registry) {
        Ok(cli::Parsed::Run(opts)) => opts,
        Ok(cli::Parsed::Help) => {
            print!("{}", cli::usage(&registry));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("{e}\n\n{}", cli::usage(&registry));
            return ExitCode::FAILURE;
        }
    };
    match run(&opts, &registry) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("avrokit-perf: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(opts: &cli::Options, registry: &[harness::Spec]) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    let mut stderr = std::io::stderr();
    // Machine-readable output keeps standard output for rows; the banner goes to stderr.
    let banner: &mut dyn Write = if opts.format.machine_readable() {
        &mut stderr
    } else {
        &mut stdout
    };
    write_banner(banner, opts, registry)?;
    match &opts.format {
        report::Format::Table => writeln!(banner, "{}", report::table_header())?,
        report::Format::Csv if opts.out_file.is_none() => {
            writeln!(banner, "{}", report::CSV_HEADER)?
        }
        _ => {}
    }
    let mut file;
    let rows: &mut dyn Write = match &opts.out_file {
        Some(path) => {
            file = std::io::BufWriter::new(std::fs::File::create(path)?);
            if opts.format == report::Format::Csv {
                writeln!(file, "{}", report::CSV_HEADER)?;
            }
            &mut file
        }
        None => &mut stdout,
    };
    let mut notes = std::io::stderr();
    harness::run(opts, registry, rows, &mut notes)?;
    rows.flush()
}

/// Java's banner (`Executing tests:` ...), plus our timing convention.
fn write_banner(
    out: &mut dyn Write,
    opts: &cli::Options,
    registry: &[harness::Spec],
) -> std::io::Result<()> {
    let names: Vec<&str> = opts.tests.iter().map(|&i| registry[i].name).collect();
    writeln!(out, "Executing tests: \n[{}]", names.join(", "))?;
    writeln!(out, " readTests:{}", opts.read)?;
    writeln!(out, " writeTests:{}", opts.write)?;
    writeln!(out, " cycles={}", opts.plan.cycles)?;
    writeln!(out, " count={}K", opts.count / 1000)?;
    if let Some(path) = &opts.out_file {
        writeln!(out, " Writing to: {path}")?;
    }
    if let report::Format::JavaCsv(spec) = &opts.format {
        writeln!(out, " CSV format: {spec}")?;
    }
    writeln!(
        out,
        " timing: HEAD/1.9+ convention (construction outside the timed region); median cycle of \
         up to {} after up to {} warm-up, at most {:.2} s of timed cycles per row",
        opts.plan.cycles,
        opts.plan.warmup,
        opts.plan.budget.as_secs_f64().min(1e9)
    )?;
    writeln!(out, " compare: {}", opts.compare)
}
