//! avrokit's Avro tables on a Ballista cluster inside the test: a scheduler and 2 executors
//! on 127.0.0.1. Every query's answer must equal local DataFusion's (avrokit-datafusion in a
//! plain session) and an answer computed from the files by avrokit's own reader.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use avrokit::container::{Codec, Reader, WriterBuilder};
use avrokit::{Schema, Value};
use avrokit_ballista::{register_avro, AvroLogicalCodec, AvroPhysicalCodec, Cluster, TaskRun};
use avrokit_datafusion::AvroOptions;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::display::array_value_to_string;
use datafusion::physical_plan::{displayable, ExecutionPlan};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};

const MIXED: &str = r#"{"type":"record","name":"Mixed","namespace":"t","fields":[
    {"name":"i","type":"int"},
    {"name":"l","type":"long"},
    {"name":"b","type":"boolean"},
    {"name":"s","type":"string"},
    {"name":"e","type":{"type":"enum","name":"Suit","symbols":["SPADES","HEARTS","DIAMONDS","CLUBS"]}},
    {"name":"u","type":["null","string"]},
    {"name":"n","type":{"type":"record","name":"Inner","fields":[
        {"name":"id","type":"long"},{"name":"label","type":"string"}]}}]}"#;
const SUITS: [&str; 4] = ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"];

const KEYS: &str = r#"{"type":"record","name":"Key","fields":[
    {"name":"key","type":"int"},{"name":"tag","type":"string"}]}"#;

/// The rows of the big file: enough bytes (some 2 MB) to be split into several byte ranges.
const BIG_ROWS: usize = 40_000;
/// The smallest file DataFusion splits, in the sessions of these tests.
const SPLIT_MIN: usize = 64 * 1024;

/// A seeded generator (splitmix64), so every run writes the same files.
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
        let len = 1 + self.below(max);
        (0..len)
            .map(|_| char::from(b'a' + self.below(26) as u8))
            .collect()
    }
}

fn mixed(rng: &mut Rng) -> Value {
    Value::Record(vec![
        Value::Int(rng.below(1000) as i32),
        Value::Long(rng.below(1 << 40) as i64 - (1 << 39)),
        Value::Boolean(rng.below(2) == 1),
        Value::String(rng.word(12)),
        Value::Enum(rng.below(4) as u32),
        if rng.below(3) == 0 {
            Value::Union(0, Box::new(Value::Null))
        } else {
            Value::Union(1, Box::new(Value::String(rng.word(6))))
        },
        Value::Record(vec![
            Value::Long(rng.below(10_000) as i64),
            Value::String(rng.word(4)),
        ]),
    ])
}

fn write_file(
    path: &Path,
    schema: &str,
    codec: Codec,
    rows: usize,
    block: u64,
    mut make: impl FnMut() -> Value,
) {
    let schema = Schema::parse_str(schema).unwrap();
    let mut w = WriterBuilder::new(&schema)
        .with_codec(codec)
        .with_block_records(block)
        .build(std::fs::File::create(path).unwrap())
        .unwrap();
    for _ in 0..rows {
        w.append(&make()).unwrap();
    }
    w.into_inner().unwrap();
}

/// The test data: table `t` (three small files of different codecs and one big one) and
/// table `k` (keys into `t.i`, with tags).
struct Data {
    t: PathBuf,
    k: PathBuf,
}

fn data(name: &str) -> Data {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("ballista")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    let t = root.join("t");
    std::fs::create_dir_all(&t).unwrap();
    let mut rng = Rng(5);
    for (file, codec, rows) in [
        ("a-null.avro", Codec::Null, 1500),
        ("b-deflate.avro", Codec::DEFLATE, 1200),
        ("c-snappy.avro", Codec::Snappy, 900),
        ("d-big.avro", Codec::Null, BIG_ROWS),
    ] {
        write_file(&t.join(file), MIXED, codec, rows, 400, || mixed(&mut rng));
    }
    let big = std::fs::metadata(t.join("d-big.avro")).unwrap().len();
    assert!(
        big > 8 * SPLIT_MIN as u64,
        "the big file has {big} bytes only"
    );
    let k = root.join("k.avro");
    let tags = ["x", "y", "z"];
    write_file(&k, KEYS, Codec::ZSTANDARD, 300, 100, || {
        Value::Record(vec![
            Value::Int(rng.below(1000) as i32),
            Value::String(tags[rng.below(3) as usize].to_owned()),
        ])
    });
    Data { t, k }
}

/// Every record of the `.avro` files under `path` (a file or a directory), read by avrokit's
/// reader as values.
fn records(path: &Path) -> Vec<Vec<Value>> {
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut f: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        f.sort();
        f
    } else {
        vec![path.to_owned()]
    };
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        for v in Reader::from_slice(&bytes).unwrap() {
            match v.unwrap() {
                Value::Record(fields) => out.push(fields),
                other => panic!("{}: not a record: {other:?}", f.display()),
            }
        }
    }
    out
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => i64::from(*i),
        Value::Long(l) => *l,
        other => panic!("not an integer: {other:?}"),
    }
}

fn string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => panic!("not a string: {other:?}"),
    }
}

/// The queries, each with its answer computed from the records (in the query's order; a
/// query without `ORDER BY` is compared as a sorted set of rows).
fn queries(data: &Data) -> Vec<(&'static str, Vec<Vec<String>>)> {
    let t = records(&data.t);
    let k = records(&data.k);
    let mut queries = Vec::new();

    let sum_i: i64 = t.iter().map(|r| int(&r[0])).sum();
    let sum_l: i64 = t.iter().map(|r| int(&r[1])).sum();
    queries.push(("SELECT count(*) FROM t", vec![vec![t.len().to_string()]]));
    queries.push((
        "SELECT sum(i), sum(l), count(u) FROM t",
        vec![vec![
            sum_i.to_string(),
            sum_l.to_string(),
            t.iter()
                .filter(|r| !matches!(&r[5], Value::Union(0, _)))
                .count()
                .to_string(),
        ]],
    ));

    let mut groups: BTreeMap<&str, (u64, i64)> = BTreeMap::new();
    for r in t.iter().filter(|r| r[2] == Value::Boolean(true)) {
        let Value::Enum(e) = r[4] else {
            panic!("not an enum: {:?}", r[4])
        };
        let g = groups.entry(SUITS[e as usize]).or_default();
        g.0 += 1;
        g.1 += int(&r[0]);
    }
    // No `ORDER BY e`: Ballista 55 hands dictionary columns (avrokit-arrow reads enums as
    // dictionaries) to other executors as their value type, so sorting them after a remote
    // shuffle read fails ("RowConverter column schema mismatch, expected Dictionary(Int32,
    // Utf8) got Utf8"), with DataFusion's own CSV tables too; see the README.
    queries.push((
        "SELECT e, count(*), sum(i) FROM t WHERE b GROUP BY e",
        groups
            .iter()
            .map(|(e, (n, s))| vec![e.to_string(), n.to_string(), s.to_string()])
            .collect(),
    ));

    let mut projected: Vec<(i64, String)> = t
        .iter()
        .filter(|r| int(&r[0]) < 7)
        .map(|r| nested(r))
        .collect();
    projected.sort();
    queries.push((
        "SELECT n.id, n.label FROM t WHERE i < 7 ORDER BY n.id, n.label",
        projected
            .iter()
            .map(|(id, label)| vec![id.to_string(), label.clone()])
            .collect(),
    ));

    let mut joined: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    for key in &k {
        for r in t.iter().filter(|r| int(&r[0]) == int(&key[0])) {
            let g = joined.entry(string(&key[1])).or_default();
            g.0 += 1;
            g.1 += nested(r).0;
        }
    }
    queries.push((
        "SELECT k.tag, count(*), sum(n.id) FROM t JOIN k ON t.i = k.key GROUP BY k.tag ORDER BY k.tag",
        joined
            .iter()
            .map(|(tag, (n, s))| vec![tag.clone(), n.to_string(), s.to_string()])
            .collect(),
    ));
    queries
}

/// The nested record `n` of a record of `t`: `(id, label)`.
fn nested(r: &[Value]) -> (i64, String) {
    match &r[6] {
        Value::Record(f) => (int(&f[0]), string(&f[1])),
        other => panic!("not a record: {other:?}"),
    }
}

fn config() -> SessionConfig {
    SessionConfig::new()
        .with_target_partitions(4)
        .set_usize("datafusion.optimizer.repartition_file_min_size", SPLIT_MIN)
}

/// `rows` as they are when `ordered`, else sorted.
fn in_order(mut rows: Vec<Vec<String>>, ordered: bool) -> Vec<Vec<String>> {
    if !ordered {
        rows.sort();
    }
    rows
}

async fn rows(ctx: &SessionContext, sql: &str) -> Vec<Vec<String>> {
    let batches = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    to_rows(&batches)
}

fn to_rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            out.push(
                b.columns()
                    .iter()
                    .map(|c| {
                        if c.is_null(r) {
                            "null".to_owned()
                        } else {
                            array_value_to_string(c, r).unwrap()
                        }
                    })
                    .collect(),
            );
        }
    }
    out
}

async fn local(data: &Data) -> SessionContext {
    let ctx = SessionContext::new_with_config(config());
    let t = format!("{}/", data.t.display());
    avrokit_datafusion::register_avro(&ctx, "t", &t)
        .await
        .unwrap();
    avrokit_datafusion::register_avro(&ctx, "k", data.k.to_str().unwrap())
        .await
        .unwrap();
    ctx
}

/// The byte ranges of the big file that the scans of `runs` read, sorted, without repeats.
fn big_ranges(runs: &[TaskRun]) -> Vec<(u64, u64)> {
    let mut ranges: Vec<(u64, u64)> = runs
        .iter()
        .flat_map(|r| {
            r.plan.match_indices("d-big.avro:").map(|(at, m)| {
                let text: String = r.plan[at + m.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let (start, end) = text
                    .split_once("..")
                    .unwrap_or_else(|| panic!("not a byte range: {text:?}"));
                (start.parse().unwrap(), end.parse().unwrap())
            })
        })
        .collect();
    ranges.sort();
    ranges.dedup();
    ranges
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn queries_on_a_cluster_match_local_datafusion_and_the_files() {
    let data = data("queries");
    let cluster = Cluster::start(2, 2).await.unwrap();
    let remote = cluster.session(config()).await.unwrap();
    register_avro(&remote, "t", &format!("{}/", data.t.display()))
        .await
        .unwrap();
    register_avro(&remote, "k", data.k.to_str().unwrap())
        .await
        .unwrap();
    let local = local(&data).await;

    let mut sum_tasks = Vec::new();
    for (sql, answer) in queries(&data) {
        let before = cluster.tasks().len();
        let ordered = sql.contains("ORDER BY");
        let here = in_order(rows(&local, sql).await, ordered);
        let on_cluster = in_order(rows(&remote, sql).await, ordered);
        assert_eq!(on_cluster, here, "{sql}: cluster vs local DataFusion");
        assert_eq!(
            on_cluster,
            in_order(answer, ordered),
            "{sql}: cluster vs avrokit's reader"
        );
        let tasks = cluster.tasks();
        assert!(tasks.len() > before, "{sql}: no task ran on the executors");
        if sql.starts_with("SELECT sum(i)") {
            sum_tasks = tasks[before..].to_vec();
        }
        eprintln!(
            "{sql}: {} tasks, on executors {:?}",
            tasks.len() - before,
            tasks[before..]
                .iter()
                .map(|t| cluster
                    .executor_ids()
                    .iter()
                    .position(|e| *e == t.executor_id))
                .collect::<Vec<_>>()
        );
    }

    // `CREATE EXTERNAL TABLE ... STORED AS AVRO` makes a table that travels too.
    let ddl = format!(
        "CREATE EXTERNAL TABLE t2 STORED AS AVRO LOCATION '{}/'",
        data.t.display()
    );
    remote.sql(&ddl).await.unwrap().collect().await.unwrap();
    let sql = "SELECT e, count(*), sum(n.id) FROM t2 GROUP BY e";
    assert_eq!(
        in_order(rows(&remote, sql).await, false),
        in_order(rows(&local, &sql.replace("t2", "t")).await, false)
    );

    // Enums as strings: the `ORDER BY e` that Ballista's dictionary shuffle breaks (see the
    // group-by query above) works, and gives the files' answer in order.
    let ddl = format!(
        "CREATE EXTERNAL TABLE t3 STORED AS AVRO LOCATION '{}/' OPTIONS ('enum_as_string' 'true')",
        data.t.display()
    );
    remote.sql(&ddl).await.unwrap().collect().await.unwrap();
    let sql = "SELECT e, count(*), sum(i), arrow_typeof(e) FROM t3 WHERE b GROUP BY e ORDER BY e";
    let mut groups: BTreeMap<&str, (u64, i64)> = BTreeMap::new();
    for r in records(&data.t)
        .iter()
        .filter(|r| r[2] == Value::Boolean(true))
    {
        let Value::Enum(e) = r[4] else {
            panic!("not an enum: {:?}", r[4])
        };
        let g = groups.entry(SUITS[e as usize]).or_default();
        g.0 += 1;
        g.1 += int(&r[0]);
    }
    let expected: Vec<Vec<String>> = groups
        .iter()
        .map(|(e, (n, s))| vec![e.to_string(), n.to_string(), s.to_string(), "Utf8".into()])
        .collect();
    assert_eq!(rows(&remote, sql).await, expected, "{sql}");

    // Options travel with the table: a reader schema with a field the files lack (read as its
    // default) and without the others, and strings as Utf8View.
    let reader = Schema::parse_str(
        r#"{"type":"record","name":"Mixed","namespace":"t","fields":[
            {"name":"i","type":"int"},
            {"name":"extra","type":"long","default":42},
            {"name":"s","type":"string"}]}"#,
    )
    .unwrap();
    let options = AvroOptions::default()
        .with_reader_schema(reader)
        .with_utf8_view(true);
    let location = format!("{}/", data.t.display());
    avrokit_ballista::register_avro_with(&remote, "r", &location, options.clone())
        .await
        .unwrap();
    avrokit_datafusion::register_avro_with(&local, "r", &location, options)
        .await
        .unwrap();
    let sql = "SELECT sum(i), sum(extra), max(s), arrow_typeof(max(s)) FROM r";
    let all = records(&data.t);
    let here = rows(&local, sql).await;
    assert_eq!(rows(&remote, sql).await, here, "{sql}");
    assert_eq!(here[0][1], (42 * all.len()).to_string());
    assert_eq!(here[0][3], "Utf8View");

    // INSERT INTO an Avro table: the executors write the file, which then reads back, on the
    // cluster and with avrokit's reader.
    let out = data.k.parent().unwrap().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::copy(&data.k, out.join("first.avro")).unwrap();
    register_avro(&remote, "o", &format!("{}/", out.display()))
        .await
        .unwrap();
    let inserted = rows(
        &remote,
        "INSERT INTO o SELECT key, tag FROM k WHERE key < 500",
    )
    .await;
    let keys = records(&data.k);
    let small = keys.iter().filter(|r| int(&r[0]) < 500).count();
    assert_eq!(inserted, vec![vec![small.to_string()]]);
    assert!(
        cluster.tasks().iter().any(|t| t.plan.contains("AvroSink(")),
        "no executor ran the write"
    );
    let written = records(&out);
    assert_eq!(written.len(), keys.len() + small);
    let sql = "SELECT tag, count(*), sum(key) FROM o GROUP BY tag ORDER BY tag";
    let mut answer: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    for r in &written {
        let g = answer.entry(string(&r[1])).or_default();
        g.0 += 1;
        g.1 += int(&r[0]);
    }
    let answer: Vec<Vec<String>> = answer
        .iter()
        .map(|(tag, (n, s))| vec![tag.clone(), n.to_string(), s.to_string()])
        .collect();
    assert_eq!(rows(&remote, sql).await, answer, "{sql}");

    // A bare listing table of avrokit's format cannot leave the client: a query error, not a
    // panic or a wrong answer.
    avrokit_datafusion::register_avro(&remote, "bare", data.k.to_str().unwrap())
        .await
        .unwrap();
    let e = match remote.sql("SELECT count(*) FROM bare").await {
        Ok(df) => df.collect().await.map(|_| ()).unwrap_err(),
        Err(e) => e,
    };
    assert!(e.to_string().contains("unknown file format"), "{e}");

    // The sum's scan read the big file in byte ranges that cover it exactly, in several
    // tasks, on more than one executor.
    let ranges = big_ranges(&sum_tasks);
    assert!(ranges.len() >= 2, "the big file was not split: {ranges:?}");
    let len = std::fs::metadata(data.t.join("d-big.avro")).unwrap().len();
    assert_eq!(ranges.first().map(|r| r.0), Some(0), "{ranges:?}");
    assert_eq!(ranges.last().map(|r| r.1), Some(len), "{ranges:?}");
    assert!(
        ranges.windows(2).all(|w| w[0].1 == w[1].0),
        "the ranges do not tile the file: {ranges:?}"
    );
    let scanners: std::collections::BTreeSet<&str> = sum_tasks
        .iter()
        .filter(|t| t.plan.contains("d-big.avro:"))
        .map(|t| t.executor_id.as_str())
        .collect();
    assert_eq!(
        scanners.len(),
        2,
        "the big file was read by {scanners:?} only"
    );
    // Every executor ran tasks.
    let tasks = cluster.tasks();
    for id in cluster.executor_ids() {
        assert!(
            tasks.iter().any(|t| &t.executor_id == id),
            "executor {id} ran no task"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_survive_the_codecs_with_their_splits_and_options() {
    let data = data("codecs");
    let ctx = SessionContext::new_with_config(config());
    let options = AvroOptions::default()
        .with_utf8_view(true)
        .with_row_counts(false)
        .with_codec(Codec::Zstandard { level: 5 });
    avrokit_ballista::register_avro_with(&ctx, "t", &format!("{}/", data.t.display()), options)
        .await
        .unwrap();
    let sql = "SELECT e, count(*), sum(n.id) FROM t WHERE i < 500 GROUP BY e ORDER BY e";
    let expected = rows(&ctx, sql).await;

    // The logical plan, through the client's codec, is planned again on "the scheduler".
    let logical_codec = AvroLogicalCodec::default();
    let plan = ctx.sql(sql).await.unwrap().into_optimized_plan().unwrap();
    let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &logical_codec).unwrap();
    let back =
        logical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &logical_codec)
            .unwrap();
    assert_eq!(format!("{plan}"), format!("{back}"));
    let df = ctx.execute_logical_plan(back).await.unwrap();
    assert_eq!(to_rows(&df.collect().await.unwrap()), expected);

    // The physical plan, through the executors' codec: the same scans, ranges and options.
    let physical_codec = AvroPhysicalCodec::default();
    let plan = ctx
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let shown = displayable(plan.as_ref()).indent(true).to_string();
    assert!(
        shown.contains("d-big.avro:0.."),
        "the big file is not split:\n{shown}"
    );
    let bytes =
        physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &physical_codec).unwrap();
    let back: Arc<dyn ExecutionPlan> =
        physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &physical_codec)
            .unwrap();
    assert_eq!(shown, displayable(back.as_ref()).indent(true).to_string());
    let scan = find_scan(&back).expect("no Avro scan in the decoded plan");
    let o = scan.options();
    assert!(o.utf8_view() && !o.row_counts());
    assert_eq!(o.codec(), Codec::Zstandard { level: 5 });
    let batches = datafusion::physical_plan::collect(back, ctx.task_ctx())
        .await
        .unwrap();
    assert_eq!(to_rows(&batches), expected);
}

fn find_scan(plan: &Arc<dyn ExecutionPlan>) -> Option<avrokit_datafusion::AvroSource> {
    use datafusion::datasource::physical_plan::FileScanConfig;
    use datafusion::datasource::source::DataSourceExec;
    if let Some(exec) = plan.downcast_ref::<DataSourceExec>() {
        let conf = exec.data_source().downcast_ref::<FileScanConfig>()?;
        return conf
            .file_source()
            .downcast_ref::<avrokit_datafusion::AvroSource>()
            .cloned();
    }
    plan.children().into_iter().find_map(find_scan)
}
