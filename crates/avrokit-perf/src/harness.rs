//! The harness: the test registry, one test's life cycle, and the timing loop.
//!
//! # Timing convention (HEAD / Avro 1.9+)
//! As in Java's Perf since 1.9.0, construction happens **outside** the timed region: the output
//! buffer (capacity encodedSize, allocated once per row and cleared before each cycle, so its
//! pages are already mapped as Java's freshly zeroed array is) and the input slice are ready
//! before the clock starts. What Java creates *inside* the timed region stays inside ours: the
//! generic writer of the Generic write tests, the new generic reader of ExtendedEnum and
//! UnchangedUnion, the reader per datum of GenericOneTime{Reader,}Use_. An avrokit `Encoder` or
//! `Decoder` over a slice costs nothing to build, so creating it inside the closure is harmless.
//!
//! One **cycle** is one call of a test's read or write routine over the whole data set. Each row
//! runs warm-up cycles (up to CYCLES/2, within a small time budget), then up to CYCLES timed
//! cycles, each timed on its own with `Instant`; a row stops early once its time budget is spent
//! (never before a few repetitions). The row reports the **median** cycle, which shrugs off the
//! noise of a shared 2-core machine far better than Java's sum over all cycles. The first cycle
//! of every write row is kept: its bytes are hashed (SHA-256) and compared with the reference
//! encoder's bytes.

use std::error::Error;
use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// What a benchmark closure returns; errors abort the row, never the run.
pub type BenchResult = Result<(), Box<dyn Error>>;
/// One write cycle: append the whole data set's encoding to the (cleared) buffer.
pub type WriteFn = Box<dyn FnMut(&mut Vec<u8>) -> BenchResult>;
/// One read cycle: decode the whole buffer, which must be consumed exactly.
pub type ReadFn = Box<dyn FnMut(&[u8]) -> BenchResult>;

/// The library a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// This project.
    Avrokit,
    /// The reference encoder's bare loops and a memcpy: the machine's limit.
    Limit,
    /// The `apache-avro` crate.
    ApacheAvro,
    /// The `serde_avro_fast` crate.
    SerdeAvroFast,
}

impl Library {
    /// The name printed in the `library` column and JSON key.
    pub fn name(self) -> &'static str {
        match self {
            Library::Avrokit => "avrokit",
            Library::ApacheAvro => "apache-avro",
            Library::SerdeAvroFast => "serde_avro_fast",
            Library::Limit => "limit",
        }
    }

    /// Whether this row is another library (a peer the ratio column compares against).
    pub fn is_peer(self) -> bool {
        matches!(self, Library::ApacheAvro | Library::SerdeAvroFast)
    }
}

/// One direction of one implementation: runnable, or why not.
pub enum Side<F> {
    /// Measured.
    Run(F),
    /// The library cannot express this test (or failed to set it up); the reason is printed.
    NotApplicable(String),
    /// Not provided (the test has no such direction, or the implementation left it out).
    Absent,
}

/// Wraps a write routine.
pub fn writer(f: impl FnMut(&mut Vec<u8>) -> BenchResult + 'static) -> Side<WriteFn> {
    Side::Run(Box::new(f))
}

/// Wraps a read routine.
pub fn reader(f: impl FnMut(&[u8]) -> BenchResult + 'static) -> Side<ReadFn> {
    Side::Run(Box::new(f))
}

/// One library's (or the limit's) way of running a test.
pub struct Impl {
    /// Which library.
    pub library: Library,
    /// Which API of that library (`Encoder`, `Value`, `serde`, `bare-varint`, ...).
    pub api: String,
    /// The API of the write rows, when it differs from `api`.
    pub write_api: Option<String>,
    /// The read routine.
    pub read: Side<ReadFn>,
    /// The write routine.
    pub write: Side<WriteFn>,
    /// The read input when it is not the test's reference bytes (container files, whose header
    /// differs per library).
    pub input: Option<Rc<Vec<u8>>>,
}

impl Impl {
    /// An implementation with no routines yet.
    pub fn new(library: Library, api: impl Into<String>) -> Self {
        Impl {
            library,
            api: api.into(),
            write_api: None,
            read: Side::Absent,
            write: Side::Absent,
            input: None,
        }
    }

    /// Sets the read routine.
    pub fn read(mut self, side: Side<ReadFn>) -> Self {
        self.read = side;
        self
    }

    /// Sets the write routine.
    pub fn write(mut self, side: Side<WriteFn>) -> Self {
        self.write = side;
        self
    }

    /// Labels the write rows with another API than the read rows.
    pub fn write_api(mut self, api: impl Into<String>) -> Self {
        self.write_api = Some(api.into());
        self
    }

    /// Marks both directions as not expressible with this library.
    pub fn not_applicable(self, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        self.read(Side::NotApplicable(reason.clone()))
            .write(Side::NotApplicable(reason))
    }

    /// Reads this input instead of the test's reference bytes.
    pub fn input(mut self, bytes: Vec<u8>) -> Self {
        self.input = Some(Rc::new(bytes));
        self
    }
}

/// A test after init(): its data set is inside the implementations' closures, and `bytes` is
/// the reference encoding of that data (the read rows' input, bytes/cycle).
pub struct Test {
    /// Row name stem (`Int`, `GenericNested_`); rows append `Read` / `Write`.
    pub name: &'static str,
    /// Entries per cycle.
    pub count: usize,
    /// The reference encoding (Java's bytes).
    pub bytes: Vec<u8>,
    /// Implementations, avrokit first.
    pub impls: Vec<Impl>,
    /// Cycles of this test when it fixes its own (the AVRO-3451 `runs`).
    pub cycles: Option<usize>,
    /// Whether write rows must reproduce `bytes` (false where each library writes its own
    /// container format).
    pub output_is_reference: bool,
    /// bytes/cycle of every row when it is not the bytes written or read (the container rows
    /// report the uncompressed datum size).
    pub bytes_per_cycle: Option<usize>,
}

impl Test {
    /// A test with its reference bytes and no implementations yet.
    pub fn new(name: &'static str, count: usize, bytes: Vec<u8>) -> Self {
        Test {
            name,
            count,
            bytes,
            impls: Vec::new(),
            cycles: None,
            output_is_reference: true,
            bytes_per_cycle: None,
        }
    }

    /// Adds an implementation.
    pub fn with(mut self, imp: Impl) -> Self {
        self.impls.push(imp);
        self
    }

    /// Adds several implementations.
    pub fn with_all(mut self, imps: impl IntoIterator<Item = Impl>) -> Self {
        self.impls.extend(imps);
        self
    }
}

/// What building a test needs to know.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// COUNT (default 250000).
    pub count: usize,
    /// Build the other libraries' implementations too.
    pub compare: bool,
    /// Generate FooBar in the 1.7.5-1.8.2 call order (872990 bytes) instead of 1.9+ (867109).
    pub foobar_old: bool,
    /// `--quick`: families that scale their data set down may do so.
    pub quick: bool,
}

impl Ctx {
    /// COUNT 250000, no comparison, 1.9+ FooBar order.
    pub fn new(count: usize) -> Self {
        Ctx {
            count,
            compare: false,
            foobar_old: false,
            quick: false,
        }
    }
}

/// A registered test: its flag, batch and constructor.
pub struct Spec {
    /// Command-line flag (`-i`).
    pub flag: &'static str,
    /// Test name, the row name stem.
    pub name: &'static str,
    /// Batch flag of its family (`-basic`).
    pub batch: &'static str,
    /// Whether the test has a write side (read-only tests print only a Read row).
    pub has_write: bool,
    /// init(): generate the data and the reference bytes, build the implementations.
    pub build: fn(&Ctx) -> Test,
}

/// Every test in registration (default run) order: WORKLOADS.md section 7, then AVRO-3451.
pub fn registry() -> Vec<Spec> {
    let mut all = crate::basic::specs();
    all.extend(crate::record::specs());
    all.extend(crate::generic::specs());
    all.extend(crate::specific::specs());
    all.extend(crate::reflect::specs());
    all.extend(crate::avro3451::specs());
    all.extend(crate::container::specs());
    all
}

/// How many cycles to run and for how long.
#[derive(Debug, Clone)]
pub struct Plan {
    /// CYCLES: timed cycles per row (at most).
    pub cycles: usize,
    /// Warm-up cycles per row (at most).
    pub warmup: usize,
    /// Stop timing a row once this much time went into timed cycles...
    pub budget: Duration,
    /// ...and warming up once this much went into warm-up cycles...
    pub warm_budget: Duration,
    /// ...but never before this many timed cycles.
    pub min_reps: usize,
    /// Whether a test's own cycle count (AVRO-3451 runs) may exceed `cycles`.
    pub own_cycles: bool,
}

impl Plan {
    /// Java's defaults (800 cycles, 400 warm-up), capped at 2 s of timed cycles per row so that
    /// slow peers do not stretch a full run to an hour.
    pub fn default_run() -> Self {
        Plan {
            cycles: 800,
            warmup: 400,
            budget: Duration::from_secs(2),
            warm_budget: Duration::from_millis(500),
            min_reps: 5,
            own_cycles: true,
        }
    }

    /// Exactly `cycles` timed cycles and `cycles / 2` warm-up cycles, no time cap (`--cycles`).
    pub fn exact(cycles: usize) -> Self {
        Plan {
            cycles,
            warmup: cycles / 2,
            budget: Duration::MAX,
            warm_budget: Duration::MAX,
            min_reps: cycles,
            own_cycles: false,
        }
    }

    /// `--quick`: a few cycles per row, tight budgets; the whole suite with `--compare` runs in
    /// well under a minute.
    pub fn quick() -> Self {
        Plan {
            cycles: 15,
            warmup: 3,
            budget: Duration::from_millis(30),
            warm_budget: Duration::from_millis(8),
            min_reps: 3,
            own_cycles: false,
        }
    }

    /// Timed cycles for a test (its own count, when it has one).
    pub fn cycles_for(&self, test: &Test) -> usize {
        match test.cycles {
            Some(own) if self.own_cycles => own,
            Some(own) => own.min(self.cycles),
            None => self.cycles,
        }
    }
}

/// The result of timing one row.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Median seconds per cycle.
    pub median: f64,
    /// Fastest cycle, seconds.
    pub min: f64,
    /// Timed cycles.
    pub reps: usize,
    /// Bytes one write cycle produced, or the read input's length.
    pub bytes: usize,
    /// Hex SHA-256 of one write cycle's bytes (write rows only).
    pub sha256: Option<String>,
    /// Whether one write cycle's bytes equal the reference bytes (write rows of tests whose
    /// output must be the reference).
    pub same_bytes: Option<bool>,
}

/// What a row shows.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Timed.
    Measured(Measurement),
    /// Not expressible with this library.
    NotApplicable(String),
    /// The routine returned an error.
    Failed(String),
}

/// One printed row.
#[derive(Debug, Clone)]
pub struct Row {
    /// `IntRead`, `GenericNested_Write`, ...
    pub test: String,
    /// Library name.
    pub library: Library,
    /// API of that library.
    pub api: String,
    /// Entries per cycle.
    pub count: usize,
    /// Nominal cycles of the row (Java's CYCLES), for the `time` column.
    pub cycles: usize,
    /// Result.
    pub outcome: Outcome,
}

impl Row {
    /// The measurement, if the row ran.
    pub fn measured(&self) -> Option<&Measurement> {
        match &self.outcome {
            Outcome::Measured(m) => Some(m),
            _ => None,
        }
    }

    /// Entries per second, if the row ran.
    pub fn entries_per_sec(&self) -> Option<f64> {
        self.measured().map(|m| self.count as f64 / m.median)
    }
}

/// Runs one test: every implementation's Read row, then every Write row (Java's order: reads
/// first), each a group the report compares within.
pub fn run_test(
    test: &mut Test,
    has_write: bool,
    plan: &Plan,
    read: bool,
    write: bool,
) -> Vec<Vec<Row>> {
    let cycles = plan.cycles_for(test);
    let per_cycle = test.bytes_per_cycle;
    // Rows in one order (avrokit, limit, peers) whatever order the family module added them in.
    test.impls.sort_by_key(|imp| imp.library as u8);
    let mut groups = Vec::new();
    if read {
        let name = format!("{}Read", test.name);
        let rows = test
            .impls
            .iter_mut()
            .map(|imp| {
                let input: &[u8] = imp.input.as_deref().map_or(&test.bytes, |v| v);
                let outcome = match &mut imp.read {
                    Side::Run(f) => time_read(f, input, plan, cycles),
                    other => not_run(other),
                };
                let outcome = with_bytes(outcome, per_cycle);
                Row {
                    test: name.clone(),
                    library: imp.library,
                    api: imp.api.clone(),
                    count: test.count,
                    cycles,
                    outcome,
                }
            })
            .collect();
        groups.push(rows);
    }
    if write && has_write {
        let name = format!("{}Write", test.name);
        let reference = test.output_is_reference.then_some(&test.bytes[..]);
        let rows = test
            .impls
            .iter_mut()
            .map(|imp| {
                let outcome = match &mut imp.write {
                    Side::Run(f) => time_write(f, reference, plan, cycles),
                    other => not_run(other),
                };
                let outcome = with_bytes(outcome, per_cycle);
                Row {
                    test: name.clone(),
                    library: imp.library,
                    api: imp.write_api.clone().unwrap_or_else(|| imp.api.clone()),
                    count: test.count,
                    cycles,
                    outcome,
                }
            })
            .collect();
        groups.push(rows);
    }
    groups
}

/// Sets a measured row's bytes/cycle to the test's own figure, if it has one.
fn with_bytes(mut outcome: Outcome, per_cycle: Option<usize>) -> Outcome {
    if let (Outcome::Measured(m), Some(n)) = (&mut outcome, per_cycle) {
        m.bytes = n;
    }
    outcome
}

fn not_run<F>(side: &Side<F>) -> Outcome {
    match side {
        Side::Run(_) => unreachable!("runnable sides are timed"),
        Side::NotApplicable(why) => Outcome::NotApplicable(format!("n/a: {why}")),
        Side::Absent => Outcome::NotApplicable("n/a: not implemented for this library".into()),
    }
}

/// Runs `cycle` through warm-up and timing; returns the per-cycle times of the timed part.
fn time_cycles(
    plan: &Plan,
    cycles: usize,
    mut cycle: impl FnMut() -> Result<Duration, Box<dyn Error>>,
) -> Result<Vec<Duration>, Box<dyn Error>> {
    let warm_start = Instant::now();
    for _ in 0..plan.warmup.min(cycles / 2) {
        cycle()?;
        if warm_start.elapsed() >= plan.warm_budget {
            break;
        }
    }
    let min_reps = plan.min_reps.min(cycles).max(1);
    let mut times = Vec::with_capacity(cycles.min(100_000));
    let mut spent = Duration::ZERO;
    for _ in 0..cycles.max(1) {
        let t = cycle()?;
        spent += t;
        times.push(t);
        if spent >= plan.budget && times.len() >= min_reps {
            break;
        }
    }
    Ok(times)
}

fn summarize(
    mut times: Vec<Duration>,
    bytes: usize,
    sha256: Option<String>,
    same_bytes: Option<bool>,
) -> Outcome {
    times.sort_unstable();
    let median = times[times.len() / 2].as_secs_f64();
    Outcome::Measured(Measurement {
        median,
        min: times[0].as_secs_f64(),
        reps: times.len(),
        bytes,
        sha256,
        same_bytes,
    })
}

fn time_write(f: &mut WriteFn, reference: Option<&[u8]>, plan: &Plan, cycles: usize) -> Outcome {
    // The first cycle is the check: keep its bytes, hash them, compare them with the reference.
    let mut out = Vec::with_capacity(reference.map_or(0, <[u8]>::len));
    if let Err(e) = f(&mut out) {
        return Outcome::Failed(format!("failed: {e}"));
    }
    let sha = hex::encode(Sha256::digest(&out));
    let same = reference.map(|r| out == r);
    let len = out.len();
    let times = time_cycles(plan, cycles, || {
        out.clear();
        let start = Instant::now();
        f(&mut out)?;
        let t = start.elapsed();
        black_box(&out);
        Ok(t)
    });
    match times {
        Ok(times) => summarize(times, len, Some(sha), same),
        Err(e) => Outcome::Failed(format!("failed: {e}")),
    }
}

fn time_read(f: &mut ReadFn, input: &[u8], plan: &Plan, cycles: usize) -> Outcome {
    let times = time_cycles(plan, cycles, || {
        let start = Instant::now();
        f(black_box(input))?;
        Ok(start.elapsed())
    });
    match times {
        Ok(times) => summarize(times, input.len(), None, None),
        Err(e) => Outcome::Failed(format!("failed: {e}")),
    }
}

/// The whole run: for each selected test, init, its Read rows, its Write rows, reset; each
/// group printed as soon as it is measured.
///
/// Java first runs a compile pass over every test (one cycle each, so the JIT has seen all code
/// before any timing); Rust is compiled ahead of time, and the per-row warm-up covers caches.
///
/// # Errors
/// Only when writing the output fails; a failing test is reported on its row.
pub fn run(
    opts: &crate::cli::Options,
    registry: &[Spec],
    rows_out: &mut dyn std::io::Write,
    notes: &mut dyn std::io::Write,
) -> std::io::Result<Vec<Row>> {
    let ctx = Ctx {
        compare: opts.compare,
        foobar_old: opts.foobar_old,
        quick: opts.quick,
        ..Ctx::new(opts.count)
    };
    let mut all = Vec::new();
    for &i in &opts.tests {
        let spec = &registry[i];
        let mut test = (spec.build)(&ctx);
        let groups = run_test(&mut test, spec.has_write, &opts.plan, opts.read, opts.write);
        drop(test);
        for group in groups {
            crate::report::print_group(&opts.format, &group, rows_out, notes)?;
            rows_out.flush()?;
            all.extend(group);
        }
    }
    Ok(all)
}
