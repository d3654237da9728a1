//! `avrokit-perf`: a port of Apache Avro Java's classic `Perf` tool (WORKLOADS.md in
//! `shared/perf`), measuring avrokit, and with `--compare` the other Rust Avro libraries, on
//! exactly the data Java's tool generates.
//!
//! ```text
//! cargo run --release -p avrokit-perf -- --quick --compare
//! cargo run --release -p avrokit-perf -- -basic -c nte
//! ```
//!
//! Layers, each importing only from the layers below it (README, "Layout"): this file and
//! [`registry`] (the list of tests) at the top; [`families`] (which rows each test has); the
//! [`adapters`] (how avrokit, the peers and the limit run a test); [`data`] (the data sets),
//! [`reference`] (the reference encoder) and [`rng`] (java.util.Random); and beside them
//! [`harness`] (a test's types and its timing), [`cli`], [`report`] (output) and [`java`]
//! (Java's figures on this machine).

#![forbid(unsafe_code)]

mod adapters;
mod cli;
mod data;
mod families;
mod harness;
mod java;
mod reference;
mod registry;
mod report;
mod rng;
#[cfg(test)]
mod tests;

use std::io::Write;
use std::process::ExitCode;

/// Parses the arguments, prints the banner and header, runs the tests.
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let registry = registry::registry();
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
    let all = run_tests(opts, registry, rows, &mut notes)?;
    // The summary goes with the table; machine-readable output keeps its rows alone.
    if let Some(summary) = report::summary(&all) {
        if opts.format.machine_readable() {
            eprintln!("\n{summary}");
        } else {
            writeln!(rows, "\n{summary}")?;
        }
    }
    rows.flush()
}

/// The whole run: for each selected test, init, its Read rows, its Write rows, reset; each
/// group printed as soon as it is measured.
///
/// Java first runs a compile pass over every test (one cycle each, so the JIT has seen all code
/// before any timing); Rust is compiled ahead of time, and the per-row warm-up covers caches.
///
/// # Errors
/// Only when writing the output fails; a failing test is reported on its row.
fn run_tests(
    opts: &cli::Options,
    registry: &[harness::Spec],
    rows_out: &mut dyn Write,
    notes: &mut dyn Write,
) -> std::io::Result<Vec<harness::timing::Row>> {
    let ctx = harness::Ctx {
        compare: opts.compare,
        foobar_old: opts.foobar_old,
        quick: opts.quick,
        threads: opts.threads,
        ..harness::Ctx::new(opts.count)
    };
    let mut all = Vec::new();
    for &i in &opts.tests {
        let spec = &registry[i];
        let mut test = (spec.build)(&ctx);
        let groups =
            harness::timing::run_test(&mut test, spec.has_write, &opts.plan, opts.read, opts.write);
        drop(test);
        for group in groups {
            report::print_group(&opts.format, &group, rows_out, notes)?;
            rows_out.flush()?;
            all.extend(group);
        }
    }
    Ok(all)
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
