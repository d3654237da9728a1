//! Avro tables that can be sent to a Ballista cluster: [`AvroTable`], [`register_avro`].

use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;
use avrokit_datafusion::{avro_listing_table, AvroFormat, AvroOptions};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{ScanArgs, ScanResult, Session, TableProvider, TableProviderFactory};
use datafusion::common::{Constraints, Statistics};
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::listing_table_factory::ListingTableFactory;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{
    CreateExternalTable, Expr, LogicalPlan, TableProviderFilterPushDown, TableType,
};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;

/// A listing table of avrokit's Avro format, which [`AvroLogicalCodec`](crate::AvroLogicalCodec)
/// can send from a Ballista client to the scheduler. It behaves exactly as the listing table
/// it wraps (schema, scans, statistics, `INSERT INTO`).
///
/// DataFusion encodes a `ListingTable` itself and knows only its own formats, so a bare
/// listing table of avrokit's format cannot leave the client; this wrapper goes through the
/// extension codec instead.
#[derive(Debug)]
pub struct AvroTable {
    inner: ListingTable,
    options: AvroOptions,
}

impl AvroTable {
    /// Wraps `table`.
    ///
    /// # Errors
    /// A table whose format is not avrokit's [`AvroFormat`].
    pub fn try_new(table: ListingTable) -> Result<AvroTable> {
        let options = table
            .options()
            .format
            .downcast_ref::<AvroFormat>()
            .ok_or_else(|| {
                DataFusionError::Plan(format!(
                    "an AvroTable wraps listing tables of avrokit's Avro format, not of {:?}",
                    table.options().format
                ))
            })?
            .options()
            .clone();
        Ok(AvroTable {
            inner: table,
            options,
        })
    }

    /// The listing table it wraps.
    pub fn listing_table(&self) -> &ListingTable {
        &self.inner
    }

    /// The options its files are read (and written) with.
    pub fn options(&self) -> &AvroOptions {
        &self.options
    }
}

#[async_trait]
impl TableProvider for AvroTable {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.inner.constraints()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.inner.get_table_definition()
    }

    fn get_logical_plan(&'_ self) -> Option<Cow<'_, LogicalPlan>> {
        self.inner.get_logical_plan()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.inner.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: ScanArgs<'a>,
    ) -> Result<ScanResult> {
        self.inner.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.inner.statistics()
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner.insert_into(state, input, insert_op).await
    }
}

/// Registers the Avro files at `location` as table `name` in `ctx`, as
/// [`avrokit_datafusion::register_avro`] does, but as an [`AvroTable`], so that the table can
/// be queried through a Ballista session ([`remote_session`](crate::remote_session),
/// [`Cluster::session`](crate::Cluster::session)). It works in any session.
///
/// The location must name the same files on the client (which reads their headers for the
/// schema), the scheduler (which lists them and plans the scan) and the executors (which
/// read them): an object-store URL, or a local path on a shared or identical file system.
///
/// # Errors
/// As [`avrokit_datafusion::register_avro`].
pub async fn register_avro(ctx: &SessionContext, name: &str, location: &str) -> Result<()> {
    register_avro_with(ctx, name, location, AvroOptions::default()).await
}

/// [`register_avro`] with options (a reader schema, `Utf8View` strings, limits...); they
/// travel with the table to the scheduler and with its scans to the executors.
///
/// # Errors
/// As [`avrokit_datafusion::register_avro`].
pub async fn register_avro_with(
    ctx: &SessionContext,
    name: &str,
    location: &str,
    options: AvroOptions,
) -> Result<()> {
    let table = avro_listing_table(ctx, location, options).await?;
    ctx.register_table(name, Arc::new(AvroTable::try_new(table)?))?;
    Ok(())
}

/// Makes the tables of `CREATE EXTERNAL TABLE ... STORED AS AVRO` [`AvroTable`]s, so that
/// they can be queried on a cluster: DataFusion's listing-table factory, with the result
/// wrapped. The session's `AVRO` file format must be avrokit's
/// ([`avrokit_datafusion::register_format`]). [`remote_session`](crate::remote_session)
/// installs both.
#[derive(Debug, Default)]
pub struct AvroTableFactory {
    inner: ListingTableFactory,
}

#[async_trait]
impl TableProviderFactory for AvroTableFactory {
    async fn create(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<Arc<dyn TableProvider>> {
        let table = self.inner.create(state, cmd).await?;
        let listing = table.downcast_ref::<ListingTable>().ok_or_else(|| {
            DataFusionError::Plan(format!(
                "table {}: DataFusion's listing-table factory made no listing table",
                cmd.name
            ))
        })?;
        Ok(Arc::new(AvroTable::try_new(listing.clone())?))
    }
}
