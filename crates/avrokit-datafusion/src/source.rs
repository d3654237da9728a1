//! Scanning Avro files: [`AvroSource`] (DataFusion's `FileSource`) and its file opener.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use avrokit::Schema;
use avrokit_arrow::AVRO_SCHEMA_KEY;
use avrokit_object_store::ObjectReaderBuilder;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileOpenFuture, FileOpener, FileScanConfig, FileSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::{DataFusionError, Result};
use datafusion::physical_expr_adapter::BatchAdapterFactory;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion::physical_plan::{DisplayFormatType, PhysicalExpr};
use futures::{StreamExt, TryStreamExt};
use object_store::{GetOptions, GetResultPayload, ObjectStore};

use crate::error::file_error;
use crate::mapped::MappedBatches;
use crate::options::AvroOptions;

/// Reads the files of an Avro table: each file, or byte-range split of a file, through
/// avrokit-arrow's columnar decoder, as the table's reader schema, decoding only the
/// projected columns.
#[derive(Clone)]
pub struct AvroSource {
    table_schema: TableSchema,
    /// The Avro schema the files are read as: the one the table's schema was inferred from
    /// (kept in its metadata), else the given one, else each file's own.
    reader_schema: Option<Schema>,
    options: AvroOptions,
    batch_size: Option<usize>,
    projection: SplitProjection,
    metrics: ExecutionPlanMetricsSet,
}

impl AvroSource {
    /// A source for a table of `table_schema`, read with `options`.
    pub fn new(table_schema: impl Into<TableSchema>, options: AvroOptions) -> AvroSource {
        let table_schema = table_schema.into();
        let reader_schema = table_schema
            .file_schema()
            .metadata()
            .get(AVRO_SCHEMA_KEY)
            .and_then(|json| Schema::parse_str(json).ok())
            .or_else(|| options.reader_schema().cloned());
        AvroSource {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            reader_schema,
            options,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// The options it reads with.
    pub fn options(&self) -> &AvroOptions {
        &self.options
    }

    /// The file columns the scan decodes, in the order it outputs them.
    fn projected_file_schema(&self) -> Result<SchemaRef> {
        Ok(Arc::new(
            self.table_schema
                .file_schema()
                .project(&self.projection.file_indices)?,
        ))
    }
}

impl fmt::Debug for AvroSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AvroSource")
            .field("file_indices", &self.projection.file_indices)
            .field("batch_size", &self.batch_size)
            .finish()
    }
}

impl FileSource for AvroSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        _base_config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let projected = self.projected_file_schema()?;
        let columns: Vec<String> = projected
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let all_columns = columns.len() == self.table_schema.file_schema().fields().len();
        let opener = Arc::new(AvroOpener {
            store: object_store,
            reader_schema: self.reader_schema.clone(),
            columns: (!all_columns).then_some(columns),
            projected,
            options: self.options.clone(),
            batch_size: self.batch_size.unwrap_or(avrokit_arrow::DEFAULT_BATCH_SIZE),
        });
        ProjectionOpener::try_new(
            self.projection.clone(),
            opener,
            self.table_schema.file_schema(),
        )
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        let mut s = self.clone();
        s.batch_size = Some(batch_size);
        Arc::new(s)
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let mut s = self.clone();
        let merged = self.projection.source.try_merge(projection)?;
        s.projection = SplitProjection::new(self.table_schema.file_schema(), &merged);
        Ok(Some(Arc::new(s)))
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "avro"
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, ", reader=avrokit")
            }
            DisplayFormatType::TreeRender => Ok(()),
        }
    }

    // Byte-range splits are safe: a split reads the blocks whose preceding sync marker lies
    // in it (the `split-read` rule), so the splits of a file give each record once.
    fn supports_repartitioning(&self) -> bool {
        true
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }
}

/// The batches of a local file, mapped or read through `read(2)`.
type LocalBatches = Box<
    dyn Iterator<Item = avrokit_arrow::Result<datafusion::arrow::record_batch::RecordBatch>> + Send,
>;

/// Opens one file or split of a scan.
struct AvroOpener {
    store: Arc<dyn ObjectStore>,
    reader_schema: Option<Schema>,
    /// The columns to decode, by name (`None`: all of them).
    columns: Option<Vec<String>>,
    /// The schema the batches are handed on with.
    projected: SchemaRef,
    options: AvroOptions,
    batch_size: usize,
}

impl AvroOpener {
    fn builder(&self) -> avrokit_arrow::ReaderBuilder {
        let mut b = avrokit_arrow::ReaderBuilder::new()
            .with_batch_size(self.batch_size)
            .with_utf8_view(self.options.utf8_view())
            .with_enum_as_string(self.options.enum_as_string())
            .with_limits(self.options.limits());
        if let Some(s) = &self.reader_schema {
            b = b.with_reader_schema(s);
        }
        if let Some(c) = &self.columns {
            b = b.with_projection(c);
        }
        b
    }
}

impl FileOpener for AvroOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let store = Arc::clone(&self.store);
        let builder = self.builder();
        let projected = Arc::clone(&self.projected);
        let limits = self.options.limits();
        let mmap = self.options.mmap();
        let range: Option<Range<u64>> = file
            .range
            .as_ref()
            .map(|r| r.start.max(0) as u64..r.end.max(0) as u64);
        Ok(Box::pin(async move {
            let path = file.object_meta.location.clone();
            let adapter = move |schema: &SchemaRef| {
                BatchAdapterFactory::new(Arc::clone(&projected)).make_adapter(schema)
            };
            // The local store hands over the file itself: read it in place (mapped, unless
            // the options say not to), with no ranged GETs. Any other store gets ranged GETs,
            // with read-ahead, on tokio's blocking pool (avrokit-object-store).
            let head = GetOptions {
                head: true,
                ..GetOptions::default()
            };
            let got = store.get_opts(&path, head).await?;
            if let GetResultPayload::File(f, _) = got.payload {
                let (batches, schema): (LocalBatches, SchemaRef) = if mmap {
                    let batches = MappedBatches::open(&f, builder, range)
                        .map_err(|e| file_error(&path, e))?;
                    let schema = batches.schema();
                    (Box::new(batches), schema)
                } else {
                    let mut reader = builder
                        .build_seekable(f)
                        .map_err(|e| file_error(&path, e))?;
                    if let Some(r) = &range {
                        reader
                            .seek_split(r.start, r.end)
                            .map_err(|e| file_error(&path, e))?;
                    }
                    let schema = reader.schema();
                    (Box::new(reader), schema)
                };
                let adapt = adapter(&schema)?;
                let stream = futures::stream::iter(batches).map(move |b| {
                    let b = b.map_err(|e| file_error(&path, e))?;
                    adapt.adapt_batch(&b)
                });
                return Ok(stream.boxed());
            }
            let object = ObjectReaderBuilder::new()
                .with_limits(limits)
                .open(Arc::clone(&store), &path)
                .await
                .map_err(|e| file_error(&path, e))?;
            let batches = object.batches(builder, range);
            let mut batches = Box::pin(batches);
            // The first batch gives the schema to adapt from (all batches share it).
            let Some(first) = batches.next().await else {
                return Ok(futures::stream::empty().boxed());
            };
            let first = first.map_err(|e| file_error(&path, e))?;
            let adapt = adapter(&first.schema())?;
            let rest = batches.map_err(move |e| file_error(&path, e));
            let stream = futures::stream::once(async { Ok(first) })
                .chain(rest)
                .map(move |b: Result<_, DataFusionError>| adapt.adapt_batch(&b?));
            Ok(stream.boxed())
        }))
    }
}
