//! `COPY ... TO` and `INSERT INTO`: [`AvroSink`].

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use avrokit::container::WriterBuilder;
use avrokit_arrow::{BatchEncoder, AVRO_SCHEMA_KEY};
use avrokit_object_store::{ObjectWriter, UploadOptions};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::runtime::{JoinSet, SpawnedTask};
use datafusion::datasource::file_format::write::demux::DemuxedStreamReceiver;
use datafusion::datasource::file_format::write::get_writer_schema;
use datafusion::datasource::physical_plan::{FileSink, FileSinkConfig};
use datafusion::datasource::sink::DataSink;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use object_store::path::Path;
use object_store::ObjectStore;
use tokio::sync::mpsc::Receiver;

use crate::error::file_error;
use crate::options::AvroOptions;

/// Writes a query's batches as Avro container files, one per output file DataFusion's
/// demultiplexer opens, through avrokit's writer and a multipart upload: a file appears only
/// whole, and a failed write (a value that does not fit the schema, a store error) aborts
/// its upload, so no half-written file is left for readers to misread.
pub struct AvroSink {
    config: FileSinkConfig,
    options: AvroOptions,
}

impl AvroSink {
    /// A sink for `config`'s files, with `options`' codec.
    pub fn new(config: FileSinkConfig, options: AvroOptions) -> AvroSink {
        AvroSink { config, options }
    }

    /// The options it writes with (the codec); its file config is [`FileSink::config`].
    pub fn options(&self) -> &AvroOptions {
        &self.options
    }
}

impl fmt::Debug for AvroSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AvroSink")
            .field("url", &self.config.original_url)
            .field("codec", &self.options.codec())
            .finish()
    }
}

impl DisplayAs for AvroSink {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => write!(
                f,
                "AvroSink(url={}, codec={})",
                self.config.original_url,
                self.options.codec().name()
            ),
            DisplayFormatType::TreeRender => {
                writeln!(f, "format: avro")?;
                write!(f, "file={}", self.config.original_url)
            }
        }
    }
}

#[async_trait]
impl DataSink for AvroSink {
    fn schema(&self) -> &SchemaRef {
        self.config.output_schema()
    }

    async fn write_all(
        &self,
        data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> Result<u64> {
        FileSink::write_all(self, data, context).await
    }
}

#[async_trait]
impl FileSink for AvroSink {
    fn config(&self) -> &FileSinkConfig {
        &self.config
    }

    async fn spawn_writer_tasks_and_join(
        &self,
        _context: &Arc<TaskContext>,
        demux_task: SpawnedTask<Result<()>>,
        mut file_stream_rx: DemuxedStreamReceiver,
        object_store: Arc<dyn ObjectStore>,
    ) -> Result<u64> {
        let encoder = Arc::new(encoder_for(&get_writer_schema(&self.config))?);
        let mut tasks: JoinSet<Result<u64>> = JoinSet::new();
        while let Some((path, rx)) = file_stream_rx.recv().await {
            let (encoder, store) = (Arc::clone(&encoder), Arc::clone(&object_store));
            let builder =
                WriterBuilder::new(encoder.avro_schema()).with_codec(self.options.codec());
            tasks.spawn(write_file(encoder, store, path, builder, rx));
        }
        let mut rows = 0;
        let mut first_error = None;
        while let Some(done) = tasks.join_next().await {
            match done {
                Ok(Ok(n)) => rows += n,
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => {
                    first_error.get_or_insert(DataFusionError::ExecutionJoin(Box::new(e)));
                }
            }
        }
        demux_task
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
        match first_error {
            Some(e) => Err(e),
            None => Ok(rows),
        }
    }
}

/// The encoder of the files: the Avro schema the output's schema carries (an `INSERT INTO`
/// an Avro table writes its files as the table's Avro schema) when it still describes these
/// columns, else one derived from the Arrow types (a `COPY` of a projection or a
/// computation). Checked once: every column has an Avro counterpart.
fn encoder_for(schema: &SchemaRef) -> Result<BatchEncoder> {
    let fail = |e: avrokit_arrow::Error| DataFusionError::Plan(format!("writing Avro: {e}"));
    match BatchEncoder::new(schema) {
        Ok(e) => Ok(e),
        Err(_) if schema.metadata().contains_key(AVRO_SCHEMA_KEY) => {
            let mut bare = schema.as_ref().clone();
            bare.metadata.remove(AVRO_SCHEMA_KEY);
            BatchEncoder::new(&Arc::new(bare)).map_err(fail)
        }
        Err(e) => Err(fail(e)),
    }
}

/// Writes one file from its batches; on any error the upload is aborted, so the file does
/// not appear.
async fn write_file(
    encoder: Arc<BatchEncoder>,
    store: Arc<dyn ObjectStore>,
    path: Path,
    builder: WriterBuilder,
    mut rx: Receiver<datafusion::arrow::array::RecordBatch>,
) -> Result<u64> {
    let mut w = ObjectWriter::create(store, &path, builder, UploadOptions::default())
        .await
        .map_err(|e| file_error(&path, e))?;
    let mut buf = Vec::new();
    let mut rows = 0u64;
    while let Some(batch) = rx.recv().await {
        buf.clear();
        let ends = match encoder.encode(&batch, &mut buf) {
            Ok(ends) => ends,
            Err(e) => {
                let _ = w.abort().await;
                return Err(file_error(&path, e));
            }
        };
        let mut start = 0;
        for end in ends {
            // An upload error aborts the upload inside the writer.
            w.append_encoded(&buf[start..end])
                .await
                .map_err(|e| file_error(&path, e))?;
            start = end;
        }
        rows += batch.num_rows() as u64;
    }
    w.finish().await.map_err(|e| file_error(&path, e))?;
    Ok(rows)
}
