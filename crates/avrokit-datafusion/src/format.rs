//! The table format: [`AvroFormat`] and its factory, [`AvroFormatFactory`].

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::Read;
use std::sync::Arc;

use async_trait::async_trait;
use avrokit::container::framing::{Header, HeaderDecoder};
use avrokit::Schema;
use avrokit_object_store::ObjectReaderBuilder;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::{GetExt, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSinkConfig, FileSource};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_expr::LexRequirement;
use datafusion::physical_plan::ExecutionPlan;
use futures::{StreamExt, TryStreamExt};
use object_store::{GetOptions, GetResultPayload, ObjectMeta, ObjectStore};

use crate::error::file_error;
use crate::options::AvroOptions;
use crate::schema::table_reader_schema;
use crate::sink::AvroSink;
use crate::source::AvroSource;
use crate::stats::count_rows;

/// The file extension of Avro container files, without the dot.
pub const AVRO_EXTENSION: &str = "avro";

/// How many files' headers are read at once when a table's schema is inferred.
const HEADER_CONCURRENCY: usize = 32;

/// Avro container files as a DataFusion table format, read by avrokit's columnar decoder.
///
/// - **Schema**: from the files' headers; files written with different schemas are read as
///   one reader schema (the user's, or one that resolves against all of them), by avrokit's
///   schema resolution.
/// - **Split scans**: a large file is cut into byte ranges, each read from the first sync
///   marker in it, so one file spreads over every target partition.
/// - **Pushdown**: only the projected columns are decoded (the others are skipped); a
///   `LIMIT` stops the scan.
/// - **Statistics**: each local file's row count, from its block headers.
/// - **Writes**: `COPY ... TO` and `INSERT INTO`, with any codec.
///
/// # Examples
/// ```no_run
/// use std::sync::Arc;
/// use datafusion::datasource::listing::ListingOptions;
/// use datafusion::prelude::SessionContext;
/// use avrokit_datafusion::AvroFormat;
/// # async fn f() -> datafusion::error::Result<()> {
/// let ctx = SessionContext::new();
/// let options = ListingOptions::new(Arc::new(AvroFormat::default())).with_file_extension(".avro");
/// ctx.register_listing_table("t", "data/", options, None, None).await?;
/// ctx.sql("SELECT count(*) FROM t").await?.show().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct AvroFormat {
    options: AvroOptions,
}

impl AvroFormat {
    /// A format with these options.
    pub fn new(options: AvroOptions) -> AvroFormat {
        AvroFormat { options }
    }

    /// Its options.
    pub fn options(&self) -> &AvroOptions {
        &self.options
    }
}

#[async_trait]
impl FileFormat for AvroFormat {
    fn get_ext(&self) -> String {
        AVRO_EXTENSION.to_owned()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        if compression.is_compressed() {
            // Avro compresses its blocks itself (the `codec` option); a compressed container
            // file could not be split or read by other Avro readers.
            return Err(DataFusionError::Configuration(
                "Avro files are not compressed whole: use the `codec` option for compressed blocks"
                    .to_owned(),
            ));
        }
        Ok(self.get_ext())
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        None
    }

    async fn infer_schema(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let reader = ObjectReaderBuilder::new().with_limits(self.options.limits());
        let paths: Vec<_> = objects.iter().map(|o| o.location.clone()).collect();
        let opens = paths.into_iter().map(|path| {
            let (reader, store) = (reader.clone(), Arc::clone(store));
            async move {
                let object = reader
                    .open(store, &path)
                    .await
                    .map_err(|e| file_error(&path, e))?;
                Ok::<_, DataFusionError>(object.schema().clone())
            }
        });
        let writers: Vec<Schema> = futures::stream::iter(opens)
            .buffered(HEADER_CONCURRENCY)
            .try_collect()
            .await?;
        let names: Vec<String> = objects.iter().map(|o| o.location.to_string()).collect();
        let schema = table_reader_schema(&writers, &names, self.options.reader_schema())?;
        arrow_schema(&schema, &self.options)
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let unknown = Statistics::new_unknown(&table_schema);
        if !self.options.row_counts() {
            return Ok(unknown);
        }
        // A HEAD for remote stores (no counts: a ranged GET per block is not cheap); the local
        // store opens the file.
        let head = GetOptions {
            head: true,
            ..GetOptions::default()
        };
        let got = store.get_opts(&object.location, head).await?;
        let GetResultPayload::File(mut file, _) = got.payload else {
            return Ok(unknown);
        };
        let len = object.size;
        let limits = self.options.limits();
        let counted = tokio::task::spawn_blocking(move || {
            let header = read_header(&mut file, limits).ok()?;
            let schema =
                Schema::parse_str(std::str::from_utf8(header.get("avro.schema")?).ok()?).ok()?;
            let compressed = !matches!(header.get("avro.codec"), None | Some(b"null"));
            count_rows(
                &mut file,
                len,
                &header,
                schema.min_encoded_size(),
                compressed,
                limits,
            )
        })
        .await
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
        let Some(c) = counted else {
            return Ok(unknown);
        };
        let Ok(rows) = usize::try_from(c.rows) else {
            return Ok(unknown);
        };
        // Only a checked count may answer `count(*)` without a scan (DataFusion does that
        // with exact counts); a compressed file's claimed count still helps planning.
        Ok(unknown.with_num_rows(if c.exact {
            Precision::Exact(rows)
        } else {
            Precision::Inexact(rows)
        }))
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(DataSourceExec::from_data_source(conf))
    }

    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        _state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if conf.insert_op != InsertOp::Append {
            return Err(DataFusionError::NotImplemented(format!(
                "{} into Avro tables: only appending (INSERT INTO, COPY) is supported",
                conf.insert_op
            )));
        }
        let sink = Arc::new(AvroSink::new(conf, self.options.clone()));
        Ok(Arc::new(DataSinkExec::new(input, sink, order_requirements)))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(AvroSource::new(table_schema, self.options.clone()))
    }
}

/// The Arrow schema avrokit-arrow reads `schema` as (with the Avro schema in its metadata,
/// so every scan of the table reads its files as that schema).
pub(crate) fn arrow_schema(schema: &Schema, options: &AvroOptions) -> Result<SchemaRef> {
    let decoder = avrokit_arrow::ReaderBuilder::new()
        .with_reader_schema(schema)
        .with_utf8_view(options.utf8_view())
        .with_enum_as_string(options.enum_as_string())
        .with_limits(options.limits())
        .build_decoder(schema)
        .map_err(|e| DataFusionError::Plan(format!("the table's Avro schema: {e}")))?;
    Ok(decoder.schema())
}

/// Reads a container file's header from the start of `file`.
pub(crate) fn read_header(file: &mut File, limits: avrokit::Limits) -> avrokit::Result<Header> {
    let mut dec = HeaderDecoder::new(limits);
    let mut buf = vec![0u8; 64 * 1024];
    while !dec.is_complete() {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        let mut piece = &buf[..n];
        while !piece.is_empty() && !dec.is_complete() {
            let used = dec.decode(piece)?;
            if used == 0 {
                break;
            }
            piece = &piece[used..];
        }
    }
    dec.finish()
}

/// Makes [`AvroFormat`]s for `CREATE EXTERNAL TABLE ... STORED AS AVRO` and
/// `COPY ... STORED AS AVRO`, from the statement's `OPTIONS` (see [`AvroOptions`]).
/// [`register_format`](crate::register_format) installs it in place of DataFusion's own.
#[derive(Debug, Clone, Default)]
pub struct AvroFormatFactory {
    options: AvroOptions,
}

impl AvroFormatFactory {
    /// A factory whose formats start from `options`; a statement's `OPTIONS` override them.
    pub fn new(options: AvroOptions) -> AvroFormatFactory {
        AvroFormatFactory { options }
    }
}

impl FileFormatFactory for AvroFormatFactory {
    fn create(
        &self,
        _state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let options = self.options.clone().apply(format_options)?;
        Ok(Arc::new(AvroFormat::new(options)))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(AvroFormat::new(self.options.clone()))
    }
}

impl GetExt for AvroFormatFactory {
    fn get_ext(&self) -> String {
        AVRO_EXTENSION.to_owned()
    }
}

impl fmt::Display for AvroFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("avrokit Avro")
    }
}
