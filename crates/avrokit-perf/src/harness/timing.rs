//! One test's life cycle and the timing loop.
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
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::harness::{Library, ReadFn, Side, Test, WriteFn};

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
