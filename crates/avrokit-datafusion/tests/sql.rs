//! SQL over Avro tables, checked against independent answers: fastavro computing the same
//! queries over the same files (tests/python/answers.py), DataFusion's built-in Avro format
//! (arrow-avro), and the interop corpus' expected records.

mod common;

use std::path::Path;
use std::sync::Arc;

use avrokit_datafusion::{avro_session, register_avro, register_avro_with, AvroOptions};
use common::*;
use datafusion::datasource::file_format::avro::AvroFormat as BuiltInAvro;
use datafusion::datasource::listing::ListingOptions;
use datafusion::prelude::{SessionConfig, SessionContext};

/// The queries of the fastavro comparison, by answer name.
const QUERIES: [(&str, &str); 8] = [
    ("count", "SELECT count(*) FROM t"),
    ("sum_i", "SELECT sum(i) FROM t"),
    (
        "group_by",
        "SELECT e, count(*), sum(i) FROM t WHERE b GROUP BY e ORDER BY e",
    ),
    (
        "nested",
        "SELECT sum(n.id), count(*) FROM t WHERE n.label LIKE 'a%'",
    ),
    (
        "nulls_and_lengths",
        "SELECT count(u), max(character_length(s)) FROM t",
    ),
    ("array", "SELECT sum(cardinality(a)) FROM t"),
    (
        "join",
        "SELECT k.tag, count(*) FROM t JOIN k ON t.i = k.key GROUP BY k.tag ORDER BY k.tag",
    ),
    ("order_limit", "SELECT l, s FROM t ORDER BY l, i LIMIT 3"),
];

fn session(partitions: usize) -> SessionContext {
    let config = SessionConfig::new()
        .with_target_partitions(partitions)
        .set_usize("datafusion.optimizer.repartition_file_min_size", 1);
    avro_session(config).unwrap()
}

async fn tables(ctx: &SessionContext, t: &Path, k: &Path, options: AvroOptions) {
    let t = format!("{}/", t.display());
    register_avro_with(ctx, "t", &t, options.clone())
        .await
        .unwrap();
    register_avro_with(ctx, "k", k.to_str().unwrap(), options)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_over_every_codec_match_fastavro() {
    let root = dir("fastavro");
    let (t, t_files) = mixed_table(&root);
    let k = keys_file(&root);
    if !fastavro_ready() {
        return;
    }
    let answers = fastavro_answers(&t_files, std::slice::from_ref(&k));
    // One partition and several (split scans); with row counts from the statistics and
    // without (a scan for `count(*)`); files mapped and read through `read(2)`.
    for (partitions, row_counts, mmap) in [(1, true, true), (4, true, true), (3, false, false)] {
        let ctx = session(partitions);
        let options = AvroOptions::default()
            .with_row_counts(row_counts)
            .with_mmap(mmap);
        tables(&ctx, &t, &k, options).await;
        for (name, sql) in QUERIES {
            assert_eq!(
                rows(&ctx, sql).await,
                answer(&answers, name),
                "{sql} with {partitions} partitions, row counts {row_counts}, mmap {mmap}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_in_format_gives_the_same_answers() {
    let root = dir("builtin");
    let (t, _) = mixed_table(&root);
    let ours = session(2);
    register_avro(&ours, "t", &format!("{}/", t.display()))
        .await
        .unwrap();
    let theirs = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
    let listing = ListingOptions::new(Arc::new(BuiltInAvro)).with_file_extension(".avro");
    theirs
        .register_listing_table("t", format!("{}/", t.display()), listing, None, None)
        .await
        .unwrap();
    for sql in [
        "SELECT count(*), sum(i), min(l), max(l), sum(d) > 0 FROM t",
        "SELECT i, l, d, b, s, u FROM t WHERE i < 20 ORDER BY l",
        "SELECT b, count(*), avg(i) FROM t GROUP BY b ORDER BY b",
        "SELECT n.id, n.label FROM t WHERE n.id < 100 ORDER BY n.id, n.label",
    ] {
        assert_eq!(rows(&ours, sql).await, rows(&theirs, sql).await, "{sql}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_file_is_split_across_partitions_and_each_record_read_once() {
    let root = dir("split");
    let big = root.join("big.avro");
    let mut rng = Rng::new(3);
    write_file(
        &big,
        MIXED,
        avrokit::container::Codec::Snappy,
        30_000,
        500,
        || mixed(&mut rng),
    );
    let sql = "SELECT count(*), sum(i), sum(n.id), count(u) FROM t";
    let mut answers = Vec::new();
    for (partitions, mmap) in [(1, true), (4, true), (4, false)] {
        let ctx = session(partitions);
        let options = AvroOptions::default()
            .with_row_counts(false)
            .with_mmap(mmap);
        register_avro_with(&ctx, "t", big.to_str().unwrap(), options)
            .await
            .unwrap();
        let p = plan(&ctx, sql).await;
        assert!(
            p.contains(&format!("file_groups={{{partitions} group")) || partitions == 1,
            "{partitions} partitions: {p}"
        );
        answers.push(rows(&ctx, sql).await);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0], answers[2]);
    assert_eq!(answers[0][0][0], "30000");

    // DataFusion's built-in format reads the same file on one partition, whatever the target.
    let theirs = SessionContext::new_with_config(
        SessionConfig::new()
            .with_target_partitions(4)
            .set_usize("datafusion.optimizer.repartition_file_min_size", 1),
    );
    let listing = ListingOptions::new(Arc::new(BuiltInAvro)).with_file_extension(".avro");
    theirs
        .register_listing_table("t", big.to_str().unwrap(), listing, None, None)
        .await
        .unwrap();
    let p = plan(&theirs, "SELECT sum(i) FROM t").await;
    assert!(p.contains("file_groups={1 group"), "{p}");
    assert_eq!(
        rows(&theirs, sql).await,
        answers[0],
        "the built-in format's answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_counts_answer_count_star_without_a_scan_only_when_checked() {
    let root = dir("stats");
    let (t, _) = mixed_table(&root);
    let ctx = session(2);
    let null = t.join("part-null.avro");
    let deflate = t.join("part-deflate.avro");
    register_avro(&ctx, "plain", null.to_str().unwrap())
        .await
        .unwrap();
    register_avro(&ctx, "packed", deflate.to_str().unwrap())
        .await
        .unwrap();
    // An uncompressed file's counts are checked against its block sizes: exact, so
    // DataFusion answers from them. A compressed file's are only claims: it is scanned.
    let p = plan(&ctx, "SELECT count(*) FROM plain").await;
    assert!(!p.contains("DataSourceExec"), "{p}");
    let p = plan(&ctx, "SELECT count(*) FROM packed").await;
    assert!(p.contains("DataSourceExec"), "{p}");
    assert_eq!(rows(&ctx, "SELECT count(*) FROM plain").await, [["2000"]]);
    assert_eq!(rows(&ctx, "SELECT count(*) FROM packed").await, [["2000"]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn projection_and_limit_are_pushed_into_the_scan() {
    let root = dir("pushdown");
    let (t, _) = mixed_table(&root);
    let ctx = session(1);
    register_avro(&ctx, "t", &format!("{}/", t.display()))
        .await
        .unwrap();
    let p = plan(&ctx, "SELECT s, i FROM t LIMIT 7").await;
    assert!(p.contains("projection=[s, i]"), "{p}");
    assert!(p.contains("limit=7"), "{p}");
    assert!(p.contains("reader=avrokit"), "{p}");
    let got = rows(&ctx, "SELECT s, i FROM t LIMIT 7").await;
    assert_eq!(got.len(), 7);

    // A glob: the deflate, null and snappy files.
    register_avro(&ctx, "g", &format!("{}/part-[dns]*.avro", t.display()))
        .await
        .unwrap();
    assert_eq!(rows(&ctx, "SELECT count(*) FROM g").await, [["6000"]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_of_different_writer_schemas_read_as_one_table() {
    let root = dir("evolution");
    let old = r#"{"type":"record","name":"R","fields":[
        {"name":"id","type":"int"},{"name":"name","type":"string"}]}"#;
    let new = r#"{"type":"record","name":"R","fields":[
        {"name":"id","type":"long"},{"name":"name","type":"string"},
        {"name":"score","type":"double"}]}"#;
    let codec = avrokit::container::Codec::Null;
    let mut n = 0;
    write_file(&root.join("a.avro"), old, codec, 10, 4, || {
        n += 1;
        avrokit::Value::Record(vec![
            avrokit::Value::Int(n),
            avrokit::Value::String(format!("old{n}")),
        ])
    });
    let mut m = 100;
    write_file(&root.join("b.avro"), new, codec, 5, 4, || {
        m += 1;
        avrokit::Value::Record(vec![
            avrokit::Value::Long(m),
            avrokit::Value::String(format!("new{m}")),
            avrokit::Value::Double(m as f64 / 2.0),
        ])
    });
    let ctx = session(2);
    register_avro(&ctx, "t", &format!("{}/", root.display()))
        .await
        .unwrap();
    // `id` promoted to long, `score` null where the old files lack it.
    assert_eq!(
        rows(
            &ctx,
            "SELECT count(*), sum(id), count(score), sum(score), arrow_typeof(min(id)) FROM t"
        )
        .await,
        [[
            "15",
            &(55 + 101 + 102 + 103 + 104 + 105).to_string(),
            "5",
            "257.5",
            "Int64"
        ]]
    );

    // A reader schema that cannot read a file names it.
    let ctx = session(1);
    let bad = avrokit::Schema::parse_str(
        r#"{"type":"record","name":"R","fields":[{"name":"id","type":"boolean"}]}"#,
    )
    .unwrap();
    let e = register_avro_with(
        &ctx,
        "t",
        &format!("{}/", root.display()),
        AvroOptions::default().with_reader_schema(bad),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(e.contains("a.avro") || e.contains("b.avro"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_interop_corpus_reads_as_its_expected_records() {
    let corpus = interop_dir().join("data");
    let manifest = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).unwrap();
    let mut checked = 0;
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, records) = (cols[0], cols[3]);
        let path = corpus.join(file.strip_prefix("data/").unwrap_or(file));
        let ctx = session(2);
        if let Err(e) = register_avro(&ctx, "t", path.to_str().unwrap()).await {
            // Arrow has no recursive types: those files cannot be tables.
            let e = e.to_string();
            assert!(e.contains("recursive"), "{file}: {e}");
            continue;
        }
        let count = rows(&ctx, "SELECT count(*) FROM t").await;
        assert_eq!(count, [[records]], "{file}");
        let all = ctx.sql("SELECT * FROM t").await.unwrap().collect().await;
        let all = all.unwrap_or_else(|e| panic!("{file}: {e}"));
        let n: usize = all.iter().map(|b| b.num_rows()).sum();
        assert_eq!(n.to_string(), records, "{file}");
        // Per column, the nulls where the expected records have them.
        let expected = path.with_extension("jsonl");
        let Ok(jsonl) = std::fs::read_to_string(&expected) else {
            continue;
        };
        let recs: Vec<serde_json::Value> = jsonl
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        if let Some(b) = all.first() {
            for (c, field) in b.schema().fields().iter().enumerate() {
                let Some(_) = recs.first().and_then(|r| r.get(field.name())) else {
                    continue;
                };
                let want = recs.iter().filter(|r| r[field.name()].is_null()).count();
                let got: usize = all.iter().map(|b| b.column(c).logical_null_count()).sum();
                assert_eq!(got, want, "{file}: nulls of {}", field.name());
            }
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} files checked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_files_give_query_errors() {
    let corpus = interop_dir().join("malformed");
    let mut n = 0;
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "avro") {
            continue;
        }
        n += 1;
        let ctx = session(2);
        // Either the table cannot be made (a bad header) or reading it fails.
        if register_avro(&ctx, "t", path.to_str().unwrap())
            .await
            .is_err()
        {
            continue;
        }
        let e = error(&ctx, "SELECT * FROM t").await;
        assert!(!e.is_empty(), "{}", path.display());
    }
    assert!(n >= 15);

    // A file cut in the middle of a block: `count(*)` scans (its row counts do not hold
    // together) and fails, whatever the partitioning.
    let root = dir("truncated");
    let whole = root.join("whole.avro");
    let mut rng = Rng::new(5);
    write_file(
        &whole,
        MIXED,
        avrokit::container::Codec::Null,
        3000,
        200,
        || mixed(&mut rng),
    );
    let bytes = std::fs::read(&whole).unwrap();
    let cut = root.join("cut.avro");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    for (partitions, mmap) in [(1, true), (3, true), (3, false)] {
        let ctx = session(partitions);
        let options = AvroOptions::default().with_mmap(mmap);
        register_avro_with(&ctx, "t", cut.to_str().unwrap(), options)
            .await
            .unwrap();
        let e = error(&ctx, "SELECT count(*) FROM t").await;
        assert!(e.contains("cut.avro"), "{e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_and_insert_write_avro_that_reads_back() {
    let root = dir("writes");
    let (t, _) = mixed_table(&root);
    let ctx = session(2);
    register_avro(&ctx, "t", &format!("{}/", t.display()))
        .await
        .unwrap();
    let out = root.join("copy.avro");
    let copied = rows(
        &ctx,
        &format!(
            "COPY (SELECT i, s, u, a, n FROM t WHERE b) TO '{}' STORED AS AVRO \
             OPTIONS ('codec' 'zstd', 'codec_level' '5')",
            out.display()
        ),
    )
    .await;
    let expected = rows(&ctx, "SELECT count(*) FROM t WHERE b").await;
    assert_eq!(copied, expected);
    // The file is read by the core reader (zstandard blocks) and as a table, equal to its
    // source.
    let file = std::fs::read(&out).unwrap();
    let reader = avrokit::container::Reader::from_slice(&file).unwrap();
    assert_eq!(reader.codec().name(), "zstandard");
    assert_eq!(reader.count().to_string(), expected[0][0]);
    register_avro(&ctx, "c", out.to_str().unwrap())
        .await
        .unwrap();
    let q = |table: &str| {
        format!("SELECT sum(i), count(u), sum(n.id), sum(cardinality(a)) FROM {table}")
    };
    assert_eq!(
        rows(&ctx, &q("c")).await,
        rows(&ctx, &format!("{} WHERE b", q("t"))).await
    );
    // fastavro, an independent reader, reads the same records.
    if fastavro_ready() {
        let script = "import fastavro, sys\n\
            rs = list(fastavro.reader(open(sys.argv[1], 'rb')))\n\
            print(len(rs), sum(r['i'] for r in rs), sum(r['n']['id'] for r in rs))";
        let py = std::process::Command::new("python3")
            .args(["-c", script, out.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            py.status.success(),
            "{}",
            String::from_utf8_lossy(&py.stderr)
        );
        let ours = rows(&ctx, "SELECT count(*), sum(i), sum(n.id) FROM c").await;
        assert_eq!(
            String::from_utf8_lossy(&py.stdout).trim(),
            ours[0].join(" ")
        );
    }

    // INSERT INTO an external table over a directory: each insert adds a file.
    let dest = root.join("dest");
    std::fs::create_dir_all(&dest).unwrap();
    rows(
        &ctx,
        &format!(
            "CREATE EXTERNAL TABLE d (x BIGINT NOT NULL, y VARCHAR) STORED AS AVRO LOCATION '{}/'",
            dest.display()
        ),
    )
    .await;
    rows(&ctx, "INSERT INTO d VALUES (1, 'a'), (2, NULL)").await;
    rows(
        &ctx,
        "INSERT INTO d SELECT CAST(i AS BIGINT), s FROM t WHERE i < 3",
    )
    .await;
    let want = rows(&ctx, "SELECT count(*) + 2, sum(i) + 3 FROM t WHERE i < 3").await;
    assert_eq!(rows(&ctx, "SELECT count(*), sum(x) FROM d").await, want);
    // The one NULL inserted reads back as NULL (the column is `["null", "string"]`).
    assert_eq!(
        rows(&ctx, "SELECT count(*) FROM d WHERE y IS NULL").await,
        [["1"]]
    );
    // Each insert wrote whole files (one per output partition that had rows), each a
    // container file the core reader reads to the end.
    let mut total = 0;
    let mut files = 0;
    for f in std::fs::read_dir(&dest).unwrap() {
        let bytes = std::fs::read(f.unwrap().path()).unwrap();
        let r = avrokit::container::Reader::from_slice(&bytes).unwrap();
        total += r.count();
        files += 1;
    }
    assert!(files >= 2, "{files} files");
    assert_eq!(total.to_string(), want[0][0]);
}
