//! Ballista's extension codecs with avrokit's Avro tables and scans in them:
//! [`AvroLogicalCodec`] (client to scheduler) and [`AvroPhysicalCodec`] (scheduler to
//! executors).
//!
//! Each wraps another codec (by default Ballista's own) and hands it everything that is not
//! avrokit's. avrokit's payloads start with a marker no protobuf message starts with (a first
//! byte of wire type 7, which protobuf does not have), so decoding tells them from the wrapped
//! codec's without guessing.

use std::sync::Arc;

use avrokit::container::Codec;
use avrokit::{Limits, Schema};
use avrokit_datafusion::{AvroFormat, AvroOptions, AvroSink, AvroSource};
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSink, FileSinkConfig};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion::physical_plan::{ExecutionPlan, PhysicalExpr};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::from_proto::{
    parse_protobuf_file_scan_config, parse_table_schema_from_proto,
};
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use prost::Message;

use crate::table::AvroTable;

/// The start of every avrokit payload: `0xFF` (a protobuf tag of wire type 7, which no
/// protobuf encoder writes), the name, and a version.
const MARKER: &[u8] = b"\xFFavrokit\x01";
/// After the marker: what the payload holds.
const KIND_TABLE: u8 = 1;
const KIND_SCAN: u8 = 2;
const KIND_SINK: u8 = 3;

/// The client's and the scheduler's codec: Avro tables (an [`AvroTable`]) travel as their
/// paths, partition columns and [`AvroOptions`]; the scheduler lists the files and plans the
/// scan itself. Everything else goes to the wrapped codec (Ballista's by default).
///
/// A DataFusion `ListingTable` of avrokit's format cannot travel: datafusion-proto encodes
/// listing tables itself and knows only DataFusion's formats. Register Avro tables with
/// [`register_avro`](crate::register_avro), which wraps them in an [`AvroTable`].
#[derive(Debug)]
pub struct AvroLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl AvroLogicalCodec {
    /// A codec that hands what is not avrokit's to `inner`.
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> AvroLogicalCodec {
        AvroLogicalCodec { inner }
    }
}

impl Default for AvroLogicalCodec {
    /// Over Ballista's own codec.
    fn default() -> AvroLogicalCodec {
        AvroLogicalCodec::new(Arc::new(BallistaLogicalExtensionCodec::default()))
    }
}

/// The wire form of an [`AvroTable`].
#[derive(Clone, PartialEq, prost::Message)]
struct TableNode {
    /// The table's URLs (a directory, a file, or a glob's prefix), in order.
    #[prost(string, repeated, tag = "1")]
    urls: Vec<String>,
    /// The glob of each URL, `""` for none (same length as `urls`).
    #[prost(string, repeated, tag = "2")]
    globs: Vec<String>,
    #[prost(string, tag = "3")]
    file_extension: String,
    /// The partition columns' names; their types are in the table schema the plan carries.
    #[prost(string, repeated, tag = "4")]
    partition_cols: Vec<String>,
    #[prost(message, optional, tag = "5")]
    options: Option<OptionsNode>,
}

/// The wire form of [`AvroOptions`].
#[derive(Clone, PartialEq, prost::Message)]
struct OptionsNode {
    /// The reader schema's JSON, when one was given.
    #[prost(string, optional, tag = "1")]
    reader_schema: Option<String>,
    #[prost(bool, tag = "2")]
    utf8_view: bool,
    #[prost(bool, tag = "3")]
    row_counts: bool,
    /// The codec of written files, by its Avro name.
    #[prost(string, tag = "4")]
    codec: String,
    /// The codec's level, for codecs that have levels.
    #[prost(sint32, optional, tag = "5")]
    codec_level: Option<i32>,
    #[prost(uint64, tag = "6")]
    max_alloc: u64,
    #[prost(uint64, tag = "7")]
    max_depth: u64,
    #[prost(bool, tag = "8")]
    enum_as_string: bool,
    /// Local files read through `read(2)` rather than mapped (false, the wire's default, is
    /// the options' default: mapped).
    #[prost(bool, tag = "9")]
    no_mmap: bool,
}

/// The wire form of a scan of Avro files: DataFusion's file-scan config (files with their
/// byte ranges, projection, limit, statistics, orderings) and avrokit's options.
#[derive(Clone, PartialEq, prost::Message)]
struct ScanNode {
    #[prost(message, optional, tag = "1")]
    base_conf: Option<protobuf::FileScanExecConf>,
    #[prost(message, optional, tag = "2")]
    options: Option<OptionsNode>,
}

/// The wire form of a write of Avro files (`INSERT INTO` an Avro table): DataFusion's file-sink
/// config and avrokit's options; the input plan travels as the node's child.
#[derive(Clone, PartialEq, prost::Message)]
struct SinkNode {
    #[prost(message, optional, tag = "1")]
    config: Option<protobuf::FileSinkConfig>,
    #[prost(message, optional, tag = "2")]
    options: Option<OptionsNode>,
}

impl LogicalExtensionCodec for AvroLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some(body) = payload(buf, KIND_TABLE) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let node = TableNode::decode(body)
            .map_err(|e| wire_error(format!("Avro table {table_ref}: {e}")))?;
        Ok(Arc::new(decode_table(node, table_ref, schema)?))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(table) = node.downcast_ref::<AvroTable>() else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        let body = encode_table(table, table_ref)?;
        buf.extend_from_slice(MARKER);
        buf.push(KIND_TABLE);
        body.encode(buf)
            .map_err(|e| wire_error(format!("Avro table {table_ref}: {e}")))
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

fn encode_table(table: &AvroTable, table_ref: &TableReference) -> Result<TableNode> {
    let listing = table.listing_table();
    let lo = listing.options();
    if !lo.file_sort_order.is_empty() || lo.output_partitioning.is_some() {
        return Err(DataFusionError::NotImplemented(format!(
            "Avro table {table_ref}: a declared file sort order or output partitioning cannot \
             be sent to a Ballista cluster yet"
        )));
    }
    let (urls, globs) = listing
        .table_paths()
        .iter()
        .map(|p| {
            let glob = p.get_glob().as_ref().map(|g| g.as_str().to_owned());
            (p.get_url().as_str().to_owned(), glob.unwrap_or_default())
        })
        .unzip();
    Ok(TableNode {
        urls,
        globs,
        file_extension: lo.file_extension.clone(),
        partition_cols: lo
            .table_partition_cols
            .iter()
            .map(|(n, _)| n.clone())
            .collect(),
        options: Some(encode_options(table.options())?),
    })
}

fn decode_table(
    node: TableNode,
    table_ref: &TableReference,
    schema: SchemaRef,
) -> Result<AvroTable> {
    let what = || format!("Avro table {table_ref}");
    if node.globs.len() != node.urls.len() {
        return Err(wire_error(format!(
            "{}: {} URLs but {} globs",
            what(),
            node.urls.len(),
            node.globs.len()
        )));
    }
    let options = decode_options(node.options.as_ref(), &what())?;
    let mut urls = Vec::with_capacity(node.urls.len());
    for (url, glob) in node.urls.iter().zip(&node.globs) {
        let mut u = ListingTableUrl::parse(url)?;
        if !glob.is_empty() {
            u = u.with_glob(glob)?;
        }
        urls.push(u);
    }
    // The plan carries the table's schema: the file columns, then the partition columns.
    let mut partition_cols = Vec::with_capacity(node.partition_cols.len());
    for name in &node.partition_cols {
        let field = schema.field_with_name(name).map_err(|_| {
            wire_error(format!(
                "{}: partition column {name} is not in the table schema",
                what()
            ))
        })?;
        partition_cols.push((name.clone(), field.data_type().clone()));
    }
    let file_fields: Vec<_> = schema
        .fields()
        .iter()
        .filter(|f| !node.partition_cols.contains(f.name()))
        .cloned()
        .collect();
    let file_schema = Arc::new(
        datafusion::arrow::datatypes::Schema::new(file_fields)
            .with_metadata(schema.metadata().clone()),
    );
    let listing = ListingOptions::new(Arc::new(AvroFormat::new(options)))
        .with_file_extension(node.file_extension)
        .with_table_partition_cols(partition_cols);
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(listing)
        .with_schema(file_schema);
    AvroTable::try_new(ListingTable::try_new(config)?)
}

fn encode_options(o: &AvroOptions) -> Result<OptionsNode> {
    let codec = o.codec();
    let codec_level = match codec {
        Codec::Null | Codec::Snappy => None,
        Codec::Deflate { level } | Codec::Bzip2 { level } | Codec::Xz { level } => {
            Some(i32::try_from(level).map_err(|_| {
                wire_error(format!(
                    "the {} level {level} is out of range",
                    codec.name()
                ))
            })?)
        }
        Codec::Zstandard { level } => Some(level),
        // A codec of a later avrokit: refuse rather than drop its level.
        other => {
            return Err(wire_error(format!(
                "the {} codec cannot be sent to a cluster by this version",
                other.name()
            )))
        }
    };
    let limits = o.limits();
    Ok(OptionsNode {
        reader_schema: o.reader_schema().map(|s| s.to_string()),
        utf8_view: o.utf8_view(),
        enum_as_string: o.enum_as_string(),
        row_counts: o.row_counts(),
        no_mmap: !o.mmap(),
        codec: codec.name().to_owned(),
        codec_level,
        max_alloc: limits.max_alloc as u64,
        max_depth: limits.max_depth as u64,
    })
}

fn decode_options(node: Option<&OptionsNode>, what: &str) -> Result<AvroOptions> {
    let node = node.ok_or_else(|| wire_error(format!("{what}: no Avro options")))?;
    let mut codec = Codec::from_name(&node.codec)
        .map_err(|e| wire_error(format!("{what}: codec {:?}: {e}", node.codec)))?;
    if let Some(level) = node.codec_level {
        codec = codec
            .with_level(level)
            .map_err(|e| wire_error(format!("{what}: codec level {level}: {e}")))?;
    }
    let size = |v: u64, name: &str| {
        usize::try_from(v).map_err(|_| wire_error(format!("{what}: {name} {v} is too large")))
    };
    let limits = Limits::default()
        .with_max_alloc(size(node.max_alloc, "max_alloc")?)
        .with_max_depth(size(node.max_depth, "max_depth")?);
    let mut options = AvroOptions::default()
        .with_utf8_view(node.utf8_view)
        .with_enum_as_string(node.enum_as_string)
        .with_row_counts(node.row_counts)
        .with_mmap(!node.no_mmap)
        .with_codec(codec)
        .with_limits(limits);
    if let Some(json) = &node.reader_schema {
        let schema = Schema::parse_str(json)
            .map_err(|e| wire_error(format!("{what}: reader schema: {e}")))?;
        options = options.with_reader_schema(schema);
    }
    Ok(options)
}

/// The executors' and the scheduler's codec: scans of Avro files (a `DataSourceExec` of an
/// [`AvroSource`]) travel as DataFusion's file-scan config, with each file's byte range, and
/// the source's [`AvroOptions`]; writes (a `DataSinkExec` of an [`AvroSink`], from `INSERT
/// INTO` an Avro table) as DataFusion's file-sink config and the options. Everything else goes
/// to the wrapped codec (Ballista's by default).
#[derive(Debug)]
pub struct AvroPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl AvroPhysicalCodec {
    /// A codec that hands what is not avrokit's to `inner`.
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> AvroPhysicalCodec {
        AvroPhysicalCodec { inner }
    }
}

impl Default for AvroPhysicalCodec {
    /// Over Ballista's own codec.
    fn default() -> AvroPhysicalCodec {
        AvroPhysicalCodec::new(Arc::new(BallistaPhysicalExtensionCodec::default()))
    }
}

/// The sink of `plan`, when it is a write of Avro files.
fn avro_sink(plan: &dyn ExecutionPlan) -> Option<(&DataSinkExec, &AvroSink)> {
    let exec = plan.downcast_ref::<DataSinkExec>()?;
    let sink = exec.sink().downcast_ref::<AvroSink>()?;
    Some((exec, sink))
}

/// The file-scan config and Avro source of `plan`, when it is a scan of Avro files.
fn avro_scan(plan: &dyn ExecutionPlan) -> Option<(&FileScanConfig, &AvroSource)> {
    let exec = plan.downcast_ref::<DataSourceExec>()?;
    let conf = exec.data_source().downcast_ref::<FileScanConfig>()?;
    let source = conf.file_source().downcast_ref::<AvroSource>()?;
    Some((conf, source))
}

impl PhysicalExtensionCodec for AvroPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(body) = payload(buf, KIND_SINK) {
            return decode_sink(body, inputs);
        }
        let Some(body) = payload(buf, KIND_SCAN) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        let node = ScanNode::decode(body).map_err(|e| wire_error(format!("Avro scan: {e}")))?;
        let conf = node
            .base_conf
            .as_ref()
            .ok_or_else(|| wire_error("Avro scan: no file-scan config".to_owned()))?;
        let options = decode_options(node.options.as_ref(), "Avro scan")?;
        let table_schema = parse_table_schema_from_proto(conf)?;
        let source = Arc::new(AvroSource::new(table_schema, options));
        let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
        let conf = parse_protobuf_file_scan_config(conf, &decode_ctx, proto_converter, source)?;
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        if let Some((exec, sink)) = avro_sink(node.as_ref()) {
            if exec.sort_order().is_some() {
                return Err(DataFusionError::NotImplemented(
                    "writing Avro files in a required order on a Ballista cluster".to_owned(),
                ));
            }
            let node = SinkNode {
                config: Some(protobuf::FileSinkConfig::try_from(sink.config())?),
                options: Some(encode_options(sink.options())?),
            };
            buf.extend_from_slice(MARKER);
            buf.push(KIND_SINK);
            return node
                .encode(buf)
                .map_err(|e| wire_error(format!("Avro sink: {e}")));
        }
        let Some((conf, source)) = avro_scan(node.as_ref()) else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let scan = ScanNode {
            base_conf: Some(serialize_file_scan_config(conf, self, proto_converter)?),
            options: Some(encode_options(source.options())?),
        };
        buf.extend_from_slice(MARKER);
        buf.push(KIND_SCAN);
        scan.encode(buf)
            .map_err(|e| wire_error(format!("Avro scan: {e}")))
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx<
            '_,
        >,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx<
            '_,
        >,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

fn decode_sink(body: &[u8], inputs: &[Arc<dyn ExecutionPlan>]) -> Result<Arc<dyn ExecutionPlan>> {
    let node = SinkNode::decode(body).map_err(|e| wire_error(format!("Avro sink: {e}")))?;
    let config = node
        .config
        .as_ref()
        .ok_or_else(|| wire_error("Avro sink: no file-sink config".to_owned()))?;
    let config = FileSinkConfig::try_from(config)?;
    let options = decode_options(node.options.as_ref(), "Avro sink")?;
    let [input] = inputs else {
        return Err(wire_error(format!(
            "Avro sink: {} inputs, not one",
            inputs.len()
        )));
    };
    let sink = Arc::new(AvroSink::new(config, options));
    Ok(Arc::new(DataSinkExec::new(Arc::clone(input), sink, None)))
}

/// The body of an avrokit payload of `kind`, or `None` when `buf` is not one (it is the
/// wrapped codec's).
fn payload(buf: &[u8], kind: u8) -> Option<&[u8]> {
    match buf.strip_prefix(MARKER)? {
        [k, body @ ..] if *k == kind => Some(body),
        _ => None,
    }
}

fn wire_error(message: String) -> DataFusionError {
    DataFusionError::Internal(format!("avrokit-ballista: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_survive_the_wire() {
        let schema = Schema::parse_str(
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"long","default":7}]}"#,
        )
        .unwrap();
        let o = AvroOptions::default()
            .with_reader_schema(schema.clone())
            .with_utf8_view(true)
            .with_enum_as_string(true)
            .with_row_counts(false)
            .with_mmap(false)
            .with_codec(Codec::Zstandard { level: -3 })
            .with_limits(Limits::default().with_max_alloc(1 << 20).with_max_depth(9));
        let node =
            OptionsNode::decode(encode_options(&o).unwrap().encode_to_vec().as_slice()).unwrap();
        let back = decode_options(Some(&node), "t").unwrap();
        // All of it, defaults included (equality compares canonical forms only).
        assert_eq!(
            back.reader_schema().map(Schema::to_json),
            Some(schema.to_json())
        );
        assert!(back.utf8_view() && back.enum_as_string() && !back.row_counts() && !back.mmap());
        assert_eq!(back.codec(), Codec::Zstandard { level: -3 });
        assert_eq!(back.limits().max_alloc, 1 << 20);
        assert_eq!(back.limits().max_depth, 9);
        for c in [
            Codec::Null,
            Codec::Snappy,
            Codec::Deflate { level: 2 },
            Codec::Xz { level: 1 },
        ] {
            let n = encode_options(&AvroOptions::default().with_codec(c)).unwrap();
            let back = decode_options(Some(&n), "t").unwrap();
            assert_eq!(back.codec(), c);
            assert!(back.mmap(), "the default survives too");
        }
    }

    #[test]
    fn bad_options_say_what_is_wrong() {
        let mut n = encode_options(&AvroOptions::default()).unwrap();
        n.codec = "lz4".to_owned();
        let e = decode_options(Some(&n), "Avro table t")
            .unwrap_err()
            .to_string();
        assert!(e.contains("Avro table t") && e.contains("lz4"), "{e}");
        let mut n = encode_options(&AvroOptions::default()).unwrap();
        n.reader_schema = Some("{".to_owned());
        let e = decode_options(Some(&n), "t").unwrap_err().to_string();
        assert!(e.contains("reader schema"), "{e}");
        let e = decode_options(None, "t").unwrap_err().to_string();
        assert!(e.contains("no Avro options"), "{e}");
    }

    #[test]
    fn tables_survive_the_wire_with_globs_partitions_and_options() {
        use datafusion::arrow::datatypes::{DataType, Field};
        let file_schema = datafusion::arrow::datatypes::Schema::new(vec![Field::new(
            "a",
            DataType::Int64,
            false,
        )])
        .with_metadata([("avro.schema".to_owned(), r#""long""#.to_owned())].into());
        let urls = vec![
            ListingTableUrl::parse("/data/events/*.avro").unwrap(),
            ListingTableUrl::parse("s3://bucket/more/").unwrap(),
        ];
        let options = AvroOptions::default().with_codec(Codec::Deflate { level: 3 });
        let listing = ListingOptions::new(Arc::new(AvroFormat::new(options)))
            .with_file_extension(".avro")
            .with_table_partition_cols(vec![("day".to_owned(), DataType::Utf8)]);
        let config = ListingTableConfig::new_with_multi_paths(urls.clone())
            .with_listing_options(listing)
            .with_schema(Arc::new(file_schema));
        let table = AvroTable::try_new(ListingTable::try_new(config).unwrap()).unwrap();
        let codec = AvroLogicalCodec::default();
        let name = TableReference::bare("t");
        let provider: Arc<dyn TableProvider> = Arc::new(table);
        let mut buf = Vec::new();
        codec
            .try_encode_table_provider(&name, Arc::clone(&provider), &mut buf)
            .unwrap();
        let back = codec
            .try_decode_table_provider(&buf, &name, provider.schema(), &TaskContext::default())
            .unwrap();
        let back = back.downcast_ref::<AvroTable>().expect("not an AvroTable");
        assert_eq!(back.schema(), provider.schema());
        assert_eq!(back.listing_table().table_paths(), &urls);
        assert_eq!(
            back.listing_table().table_paths()[0]
                .get_glob()
                .as_ref()
                .map(|g| g.as_str()),
            urls[0].get_glob().as_ref().map(|g| g.as_str())
        );
        let lo = back.listing_table().options();
        assert_eq!(lo.file_extension, ".avro");
        assert_eq!(
            lo.table_partition_cols,
            vec![("day".to_owned(), DataType::Utf8)]
        );
        assert_eq!(back.options().codec(), Codec::Deflate { level: 3 });
        // Another codec's payload goes to the wrapped codec (which has no tables to decode).
        let e = codec
            .try_decode_table_provider(
                b"\x0a\x00",
                &name,
                provider.schema(),
                &TaskContext::default(),
            )
            .unwrap_err();
        assert!(!e.to_string().contains("avrokit"), "{e}");
    }

    #[test]
    fn payloads_are_told_from_protobuf() {
        let mut buf = MARKER.to_vec();
        buf.push(KIND_SCAN);
        buf.extend_from_slice(b"body");
        assert_eq!(payload(&buf, KIND_SCAN), Some(&b"body"[..]));
        assert_eq!(payload(&buf, KIND_TABLE), None);
        // Any protobuf message: its first byte is a tag of wire type 0 to 5.
        let proto = protobuf::FileScanExecConf::default().encode_to_vec();
        assert_eq!(payload(&proto, KIND_SCAN), None);
        assert_eq!(payload(&[], KIND_SCAN), None);
    }
}
