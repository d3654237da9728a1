//! Tables in a real S3-compatible server (moto's, on 127.0.0.1): the same answers as the same
//! files on the local disk, with the remote files split into byte ranges too, and `COPY` to
//! an `s3://` URL.
//!
//! Skipped with a message when moto's server cannot start, unless `CI` is set.

mod common;
#[path = "../../avrokit-object-store/tests/common/moto.rs"]
mod moto;

use std::sync::Arc;

use avrokit_datafusion::{avro_session, register_avro};
use common::*;
use datafusion::prelude::{SessionConfig, SessionContext};
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

fn session() -> SessionContext {
    let config = SessionConfig::new()
        .with_target_partitions(3)
        .set_usize("datafusion.optimizer.repartition_file_min_size", 1);
    avro_session(config).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_tables_answer_as_the_local_files() {
    let Some(m) = moto::moto() else { return };
    let bucket = m.bucket("df");
    let store: Arc<dyn ObjectStore> = Arc::new(
        AmazonS3Builder::new()
            .with_endpoint(m.endpoint())
            .with_bucket_name(&bucket)
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .with_allow_http(true)
            .build()
            .unwrap(),
    );
    let root = dir("s3");
    let (t, files) = mixed_table(&root);
    for f in &files {
        let key = Path::from(format!("t/{}", f.file_name().unwrap().to_str().unwrap()));
        store
            .put(&key, std::fs::read(f).unwrap().into())
            .await
            .unwrap();
    }
    let local = session();
    register_avro(&local, "t", &format!("{}/", t.display()))
        .await
        .unwrap();
    let remote = session();
    let url = url::Url::parse(&format!("s3://{bucket}")).unwrap();
    remote.register_object_store(&url, Arc::clone(&store));
    register_avro(&remote, "t", &format!("s3://{bucket}/t/"))
        .await
        .unwrap();
    let plan = plan(&remote, "SELECT sum(i) FROM t").await;
    assert!(plan.contains("file_groups={3 groups"), "{plan}");
    for sql in [
        "SELECT count(*), sum(i), count(u), sum(n.id) FROM t",
        "SELECT e, count(*) FROM t WHERE b GROUP BY e ORDER BY e",
        "SELECT l, s FROM t ORDER BY l LIMIT 5",
    ] {
        assert_eq!(rows(&remote, sql).await, rows(&local, sql).await, "{sql}");
    }

    // COPY to the store: a multipart upload, read back as a table.
    let copied = rows(
        &remote,
        &format!(
            "COPY (SELECT i, s FROM t WHERE i < 100) TO 's3://{bucket}/out/c.avro' STORED AS AVRO \
             OPTIONS ('codec' 'snappy')"
        ),
    )
    .await;
    register_avro(&remote, "c", &format!("s3://{bucket}/out/c.avro"))
        .await
        .unwrap();
    assert_eq!(rows(&remote, "SELECT count(*) FROM c").await, copied);
    assert_eq!(
        rows(&remote, "SELECT sum(i) FROM c").await,
        rows(&local, "SELECT sum(i) FROM t WHERE i < 100").await
    );
}
