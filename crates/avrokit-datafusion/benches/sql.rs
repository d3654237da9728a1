//! avrokit-datafusion against DataFusion's built-in Avro format (arrow-avro), on a generated
//! table of the mixed record of `avrokit-perf -container` (every Avro type a column can be).
//!
//! ```sh
//! cargo bench -p avrokit-datafusion --profile sqlbench --bench sql -- [--mib 1024] [--runs 5] [--dir DIR]
//!     [--only TEXT] [--reader built-in|avrokit] [--explain] [--no-mmap]
//! ```
//!
//! `--only` keeps the rows whose table or query name contains `TEXT` (`--only eight`,
//! `--only "sum"`), and `--reader` times one side only: for profiling one scan. `--explain`
//! prints each query's `EXPLAIN ANALYZE` instead of timing it. `--no-mmap` has avrokit read
//! the files through `read(2)` (`AvroOptions::with_mmap(false)`) instead of mapping them.
//!
//! Two tables of the same records, `null` codec: one file (`one`), and the same rows in eight
//! files (`eight`). Per query, the median of `--runs` runs, each on a fresh session; the
//! ratios are built-in time / avrokit time. Statistics-answered `count(*)` is shown apart
//! from a scanned one (`row_counts` off), so the scan itself is compared too. Runs of the two
//! readers alternate, and each query's CPU time (user + system, all threads) is compared too:
//! on a machine shared with other work, wall times follow the others' load.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use avrokit::container::{Codec, WriterBuilder};
use avrokit::{Schema, Value};
use avrokit_datafusion::{register_avro_with, AvroOptions};
use datafusion::datasource::file_format::avro::AvroFormat as BuiltIn;
use datafusion::datasource::listing::ListingOptions;
use datafusion::prelude::{SessionConfig, SessionContext};

const MIXED: &str = r#"{"type":"record","name":"Mixed","namespace":"perf","fields":[
    {"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"d","type":"double"},
    {"name":"f","type":"float"},{"name":"b","type":"boolean"},{"name":"s","type":"string"},
    {"name":"by","type":"bytes"},
    {"name":"e","type":{"type":"enum","name":"Suit","symbols":["SPADES","HEARTS","DIAMONDS","CLUBS"]}},
    {"name":"u","type":["null","string"]},
    {"name":"a","type":{"type":"array","items":"long"}},
    {"name":"m","type":{"type":"map","values":"int"}},
    {"name":"n","type":{"type":"record","name":"Inner","fields":[
        {"name":"id","type":"long"},{"name":"label","type":"string"}]}}]}"#;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn word(&mut self, max: u64) -> String {
        let len = self.below(max + 1);
        (0..len)
            .map(|_| char::from(b'a' + self.below(26) as u8))
            .collect()
    }
}

fn record(rng: &mut Rng) -> Value {
    Value::Record(vec![
        Value::Int(rng.next() as i32),
        Value::Long(rng.next() as i64),
        Value::Double(rng.next() as f64 / u64::MAX as f64),
        Value::Float(rng.next() as f32 / u64::MAX as f32),
        Value::Boolean(rng.below(2) == 1),
        Value::String(rng.word(40)),
        Value::Bytes((0..rng.below(17)).map(|_| rng.next() as u8).collect()),
        Value::Enum(rng.below(4) as u32),
        if rng.below(2) == 0 {
            Value::Union(0, Box::new(Value::Null))
        } else {
            Value::Union(1, Box::new(Value::String(rng.word(20))))
        },
        Value::Array(
            (0..rng.below(6))
                .map(|_| Value::Long(rng.next() as i64))
                .collect(),
        ),
        Value::Map(
            (0..rng.below(4))
                .map(|k| {
                    (
                        format!("k{k}_{}", rng.below(100)),
                        Value::Int(rng.next() as i32),
                    )
                })
                .collect(),
        ),
        Value::Record(vec![
            Value::Long(rng.next() as i64),
            Value::String(rng.word(10)),
        ]),
    ])
}

/// Writes the two tables (once: kept in `dir` for later runs).
fn generate(dir: &Path, mib: u64) -> (PathBuf, PathBuf) {
    let one = dir.join(format!("one-{mib}"));
    let eight = dir.join(format!("eight-{mib}"));
    let done = dir.join(format!("done-{mib}"));
    if done.exists() {
        return (one, eight);
    }
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&eight);
    std::fs::create_dir_all(&one).unwrap();
    std::fs::create_dir_all(&eight).unwrap();
    let schema = Schema::parse_str(MIXED).unwrap();
    let target = mib * 1024 * 1024;
    let open = |p: PathBuf| {
        WriterBuilder::new(&schema)
            .with_codec(Codec::Null)
            .build(std::io::BufWriter::new(std::fs::File::create(p).unwrap()))
            .unwrap()
    };
    let mut single = open(one.join("all.avro"));
    let mut parts: Vec<_> = (0..8)
        .map(|i| open(eight.join(format!("part-{i}.avro"))))
        .collect();
    let mut rng = Rng(2026);
    let mut rows = 0u64;
    let mut bytes = 0u64;
    let mut datum = Vec::new();
    while bytes < target {
        let v = record(&mut rng);
        datum.clear();
        datum.extend(avrokit::to_datum_vec(&v, &schema).unwrap());
        bytes += datum.len() as u64;
        single.append_encoded(&datum).unwrap();
        parts[(rows % 8) as usize].append_encoded(&datum).unwrap();
        rows += 1;
    }
    single.into_inner().unwrap();
    for p in parts {
        p.into_inner().unwrap();
    }
    std::fs::write(&done, rows.to_string()).unwrap();
    eprintln!("generated {rows} records, {} MiB of datums", bytes >> 20);
    (one, eight)
}

/// `--no-mmap`: avrokit reads through `read(2)`.
static NO_MMAP: AtomicBool = AtomicBool::new(false);

#[derive(Clone, Copy, PartialEq)]
enum Reader {
    Avrokit { row_counts: bool },
    BuiltIn,
}

async fn session(reader: Reader, table: &Path, partitions: usize) -> SessionContext {
    let config = SessionConfig::new().with_target_partitions(partitions);
    let ctx = SessionContext::new_with_config(config);
    let location = format!("{}/", table.display());
    match reader {
        Reader::Avrokit { row_counts } => {
            let options = AvroOptions::default()
                .with_row_counts(row_counts)
                .with_mmap(!NO_MMAP.load(Ordering::Relaxed));
            register_avro_with(&ctx, "t", &location, options)
                .await
                .unwrap();
        }
        Reader::BuiltIn => {
            let listing = ListingOptions::new(Arc::new(BuiltIn)).with_file_extension(".avro");
            ctx.register_listing_table("t", location, listing, None, None)
                .await
                .unwrap();
        }
    }
    ctx
}

/// The process's CPU time so far (user + system, all threads), from `/proc/self/stat`, in
/// clock ticks of 10 ms; `None` where there is no such file. On a shared machine wall times
/// swing with the others' load, CPU times much less.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces): utime
    // and stime are the 12th and 13th of them.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut f = rest.split(' ').skip(11);
    let ticks: u64 = f.next()?.parse::<u64>().ok()? + f.next()?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// The median time of `sql` on each of `readers`, their runs alternating (one run of each in
/// turn), so that a change in the machine's load falls on all of them alike: wall time, and
/// CPU time (see [`cpu_time`]).
async fn time(
    readers: &[Reader],
    table: &Path,
    partitions: usize,
    sql: &str,
    runs: usize,
) -> Vec<(Duration, Option<Duration>)> {
    let mut times = vec![Vec::with_capacity(runs); readers.len()];
    let mut cpus = vec![Vec::with_capacity(runs); readers.len()];
    let mut answer: Option<String> = None;
    for _ in 0..runs {
        for (i, &reader) in readers.iter().enumerate() {
            let ctx = session(reader, table, partitions).await;
            let (start, cpu) = (Instant::now(), cpu_time());
            let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
            times[i].push(start.elapsed());
            if let (Some(a), Some(b)) = (cpu, cpu_time()) {
                cpus[i].push(b - a);
            }
            let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
                .unwrap()
                .to_string();
            if let Some(a) = &answer {
                assert_eq!(a, &text, "{sql}: readers or runs disagree");
            }
            answer = Some(text);
        }
    }
    let median = |mut t: Vec<Duration>| {
        t.sort();
        t.get(t.len() / 2).copied()
    };
    times
        .into_iter()
        .zip(cpus)
        .map(|(t, c)| (median(t).unwrap_or_default(), median(c)))
        .collect()
}

fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (mut mib, mut runs) = (1024u64, 5usize);
    let mut dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sql-bench");
    let (mut only, mut side): (Option<String>, Option<String>) = (None, None);
    let mut explain = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--mib" => mib = args.next().unwrap().parse().unwrap(),
            "--runs" => runs = args.next().unwrap().parse().unwrap(),
            "--dir" => dir = PathBuf::from(args.next().unwrap()),
            "--only" => only = args.next(),
            "--reader" => side = args.next(),
            "--explain" => explain = true,
            "--no-mmap" => NO_MMAP.store(true, Ordering::Relaxed),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    std::fs::create_dir_all(&dir).unwrap();
    let (one, eight) = generate(&dir, mib);
    let parts = std::thread::available_parallelism().map_or(2, |n| n.get());
    let queries = [
        ("count(*)", "SELECT count(*) FROM t"),
        ("sum(i)", "SELECT sum(i) FROM t"),
        (
            "filter + group by",
            "SELECT e, count(*), sum(i) FROM t WHERE b AND i > 0 GROUP BY e ORDER BY e",
        ),
    ];
    println!("{mib} MiB table, median of {runs} runs, {parts} target partitions; seconds");
    println!(
        "| table | query | built-in | avrokit | built-in / avrokit | CPU time, built-in / avrokit | avrokit, count(*) scanned |"
    );
    println!("|---|---|---|---|---|---|---|");
    let keep = |table: &str, query: &str| {
        only.as_deref()
            .is_none_or(|o| table.contains(o) || query.contains(o))
    };
    let wanted = |r: &Reader| match side.as_deref() {
        None => true,
        Some("built-in") => *r == Reader::BuiltIn,
        Some(_) => *r != Reader::BuiltIn,
    };
    type Timed = (Duration, Option<Duration>);
    let cell = |t: Option<&Timed>| t.map_or("-".to_owned(), |t| secs(t.0));
    let ratio = |a: Option<Duration>, b: Option<Duration>| match (a, b) {
        (Some(a), Some(b)) if !b.is_zero() => {
            format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64())
        }
        _ => "-".to_owned(),
    };
    let wall = |t: Option<&Timed>| t.map(|t| t.0);
    let cpu = |t: Option<&Timed>| t.and_then(|t| t.1);
    for (name, table) in [("one file", &one), ("eight files", &eight)] {
        for (q, sql) in queries {
            if !keep(name, q) {
                continue;
            }
            let mut readers = vec![Reader::BuiltIn, Reader::Avrokit { row_counts: true }];
            if q == "count(*)" {
                readers.push(Reader::Avrokit { row_counts: false });
            }
            readers.retain(wanted);
            if explain {
                for &r in &readers {
                    let ctx = session(r, table, parts).await;
                    let plan = ctx.sql(&format!("EXPLAIN ANALYZE {sql}")).await.unwrap();
                    let text = datafusion::arrow::util::pretty::pretty_format_batches(
                        &plan.collect().await.unwrap(),
                    )
                    .unwrap()
                    .to_string();
                    let who = match r {
                        Reader::BuiltIn => "built-in",
                        Reader::Avrokit { row_counts: true } => "avrokit",
                        Reader::Avrokit { row_counts: false } => "avrokit, no row counts",
                    };
                    println!("{name}, {q}, {who}:\n{text}");
                }
                continue;
            }
            let times = time(&readers, table, parts, sql, runs).await;
            let of = |r: Reader| readers.iter().position(|x| *x == r).map(|i| &times[i]);
            let theirs = of(Reader::BuiltIn);
            let ours = of(Reader::Avrokit { row_counts: true });
            let scanned = match of(Reader::Avrokit { row_counts: false }) {
                Some(t) => format!(
                    "{} ({}; CPU {})",
                    secs(t.0),
                    ratio(wall(theirs), Some(t.0)),
                    ratio(cpu(theirs), t.1)
                ),
                None => String::new(),
            };
            println!(
                "| {name} | {q} | {} | {} | {} | {} | {scanned} |",
                cell(theirs),
                cell(ours),
                ratio(wall(theirs), wall(ours)),
                ratio(cpu(theirs), cpu(ours)),
            );
        }
    }
    if side.as_deref() == Some("built-in") || !keep("one file", "split") {
        return;
    }
    // One large file: split scans over `parts` partitions against one.
    println!();
    println!("| one file, avrokit | 1 partition | {parts} partitions | speedup |");
    println!("|---|---|---|---|");
    let ours = [Reader::Avrokit { row_counts: true }];
    for (q, sql) in queries.iter().skip(1) {
        // Alternating, one run each, then the median of each.
        let (mut single, mut split) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            single.push(time(&ours, &one, 1, sql, 1).await[0].0);
            split.push(time(&ours, &one, parts, sql, 1).await[0].0);
        }
        single.sort();
        split.sort();
        let (single, split) = (single[runs / 2], split[runs / 2]);
        println!(
            "| {q} | {} | {} | {:.2}x |",
            secs(single),
            secs(split),
            single.as_secs_f64() / split.as_secs_f64()
        );
    }
}
