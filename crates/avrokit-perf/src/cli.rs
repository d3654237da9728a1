//! Command-line parsing, by hand: Java's single-dash flags (`-i`, `-REFnlfb`, `-c ntb`) do not
//! fit a derive-style parser, and there are few enough options to read them in one loop.

use std::time::Duration;

use crate::harness::timing::Plan;
use crate::harness::Spec;
use crate::report::Format;

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Indices into the registry, in run order.
    pub tests: Vec<usize>,
    /// Time read rows (`-noread` turns them off).
    pub read: bool,
    /// Time write rows (`-nowrite` turns them off).
    pub write: bool,
    /// COUNT.
    pub count: usize,
    /// Cycles and budgets.
    pub plan: Plan,
    /// Output format.
    pub format: Format,
    /// `-o FILE`: rows go there (banner and header stay on standard output).
    pub out_file: Option<String>,
    /// `--compare`: also run apache-avro and serde_avro_fast.
    pub compare: bool,
    /// `--foobar-1.8`: FooBar data in the 1.7.5-1.8.2 order.
    pub foobar_old: bool,
    /// `--quick`.
    pub quick: bool,
    /// `--threads N`: the worker threads of the multi-threaded rows (`-arrow`); by default
    /// the available cores, at least 2.
    pub threads: usize,
}

/// The result of parsing.
#[derive(Debug)]
pub enum Parsed {
    /// Run with these options.
    Run(Options),
    /// Print usage and exit 0.
    Help,
}

/// The usage text.
pub fn usage(registry: &[Spec]) -> String {
    let mut s = String::from(
        "Usage: avrokit-perf [options] [test flags...]\n\n\
         A port of Apache Avro Java's Perf tool (see crates/avrokit-perf/README.md).\n\n\
         Options:\n  \
         --quick           a few cycles per row: the whole suite in well under a minute\n  \
         --compare         also run apache-avro (Value and serde) and serde_avro_fast\n  \
         --cycles N        exactly N timed cycles per row (N/2 warm-up), no time cap\n  \
         --count N         COUNT, the base item count (default 250000, a multiple of 4)\n  \
         --budget SECS     stop timing a row after SECS of timed cycles (default 2)\n  \
         --threads N       worker threads of the multi-threaded -arrow rows (default: the\n                    \
         available cores, at least 2)\n  \
         --csv             CSV with a header and every column\n  \
         --json            one JSON object per measured row\n  \
         -c [SPEC]         Java's CSV rows: fields from ntebcm (name, time, entries/s,\n                    \
         bytes/s, bytes/cycle, min ns); all six without SPEC\n  \
         -o FILE           write rows to FILE\n  \
         -noread, -nowrite skip read / write rows\n  \
         --foobar-1.8      FooBar data in the 1.7.5-1.8.2 order (872990 bytes, as the Java\n                    \
         figures on this machine) instead of 1.9+ (867109)\n  \
         -h, --help        this text\n\nBatches:",
    );
    let mut batches: Vec<&str> = registry.iter().map(|s| s.batch).collect();
    batches.dedup();
    for b in batches {
        s.push_str(&format!("\n  {b:<17}"));
        for spec in registry.iter().filter(|s| s.batch == b) {
            s.push_str(&format!(" {} ({})", spec.flag, spec.name));
        }
    }
    s.push('\n');
    s
}

/// The available cores, at least 2 (so that the multi-threaded rows differ from the
/// one-thread rows even where the count is unknown or 1).
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
}

fn number<T: std::str::FromStr>(flag: &str, v: Option<&String>) -> Result<T, String> {
    v.and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{flag} needs a number"))
}

/// Parses the arguments (without the program name).
///
/// # Errors
/// An unknown argument, a missing or bad value, or a COUNT that is not a multiple of 4.
pub fn parse(args: &[String], registry: &[Spec]) -> Result<Parsed, String> {
    let mut tests = Vec::new();
    let mut add = |i: usize| {
        if !tests.contains(&i) {
            tests.push(i);
        }
    };
    let mut o = Options {
        tests: Vec::new(),
        read: true,
        write: true,
        count: 250_000,
        plan: Plan::default_run(),
        format: Format::Table,
        out_file: None,
        compare: false,
        foobar_old: false,
        quick: false,
        threads: default_threads(),
    };
    let (mut quick, mut cycles, mut budget) = (false, None, None);
    let mut it = args.iter().peekable();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "--quick" => quick = true,
            "--compare" => o.compare = true,
            "--cycles" => cycles = Some(number::<usize>(arg, it.next())?),
            "--count" => o.count = number(arg, it.next())?,
            "--budget" => budget = Some(number::<f64>(arg, it.next())?),
            "--threads" => {
                o.threads = number(arg, it.next())?;
                if o.threads == 0 {
                    return Err("--threads must be at least 1".into());
                }
            }
            "--csv" => o.format = Format::Csv,
            "--json" => o.format = Format::Json,
            "--foobar-1.8" => o.foobar_old = true,
            "-noread" => o.read = false,
            "-nowrite" => o.write = false,
            "-o" => o.out_file = Some(it.next().ok_or("-o needs a file name")?.clone()),
            "-c" => {
                // Java: the SPEC is optional; a following flag (or nothing) means all fields.
                let spec = match it.peek() {
                    Some(next) if !next.starts_with('-') => it.next().unwrap().clone(),
                    _ => "ntebcm".to_owned(),
                };
                if spec.is_empty() || !spec.chars().all(|c| "ntebcm".contains(c)) {
                    return Err(format!("-c: bad field spec {spec:?} (letters from ntebcm)"));
                }
                o.format = Format::JavaCsv(spec);
            }
            flag => {
                let batch: Vec<usize> = (0..registry.len())
                    .filter(|&i| registry[i].batch == flag)
                    .collect();
                if !batch.is_empty() {
                    batch.into_iter().for_each(&mut add);
                } else if let Some(i) = registry.iter().position(|s| s.flag == flag) {
                    add(i);
                } else {
                    return Err(format!("unknown argument {flag:?}"));
                }
            }
        }
    }
    if o.count == 0 || !o.count.is_multiple_of(4) {
        return Err(format!(
            "COUNT must be a positive multiple of 4, not {}",
            o.count
        ));
    }
    o.quick = quick;
    o.plan = match (quick, cycles) {
        (true, None) => Plan::quick(),
        (true, Some(n)) => Plan {
            cycles: n,
            ..Plan::quick()
        },
        (false, Some(n)) => Plan::exact(n),
        (false, None) => Plan::default_run(),
    };
    if let Some(secs) = budget {
        if !(secs > 0.0 && secs < 1e6) {
            return Err(format!(
                "--budget must be a positive number of seconds, not {secs}"
            ));
        }
        o.plan.budget = Duration::from_secs_f64(secs);
    }
    o.tests = if tests.is_empty() {
        (0..registry.len()).collect()
    } else {
        tests
    };
    Ok(Parsed::Run(o))
}
