//! Setting up a DataFusion session for Avro: [`register_format`], [`register_avro`],
//! [`avro_session`], and object stores from URLs ([`UrlStoreRegistry`]).

use std::sync::Arc;

use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use object_store::ObjectStore;
use url::Url;

use crate::format::{AvroFormat, AvroFormatFactory};
use crate::options::AvroOptions;

/// Makes avrokit's format the one `STORED AS AVRO` (in `CREATE EXTERNAL TABLE` and `COPY`)
/// and `.avro` files use in `ctx`, in place of DataFusion's own.
///
/// # Errors
/// None in practice (the registration replaces any earlier one).
pub fn register_format(ctx: &SessionContext) -> Result<()> {
    let factory = Arc::new(AvroFormatFactory::default());
    ctx.state_ref().write().register_file_format(factory, true)
}

/// A session with avrokit's Avro format registered ([`register_format`]) and object stores
/// made on first use from their URLs (`s3://`, `gs://`, `az://`, `http(s)://`), configured
/// from the environment ([`UrlStoreRegistry`]).
///
/// # Errors
/// A runtime that cannot be built.
///
/// # Examples
/// ```no_run
/// # async fn f() -> datafusion::error::Result<()> {
/// let ctx = avrokit_datafusion::avro_session(Default::default())?;
/// ctx.sql("CREATE EXTERNAL TABLE t STORED AS AVRO LOCATION 's3://bucket/events/'").await?;
/// ctx.sql("SELECT count(*) FROM t").await?.show().await?;
/// # Ok(()) }
/// ```
pub fn avro_session(config: SessionConfig) -> Result<SessionContext> {
    let runtime = RuntimeEnvBuilder::new()
        .with_object_store_registry(Arc::new(UrlStoreRegistry::default()))
        .build_arc()?;
    let ctx = SessionContext::new_with_config_rt(config, runtime);
    register_format(&ctx)?;
    Ok(ctx)
}

/// Registers the Avro files at `location` as table `name`: a file, a directory (every
/// `.avro` file under it), a glob, or an object-store URL of any of these. The schema comes
/// from the files' headers (see [`AvroFormat`]).
///
/// The store of a URL is made from the environment (as by [`UrlStoreRegistry`]) unless
/// `ctx` already has one for it.
///
/// # Errors
/// A location that does not parse, a store that cannot be made, files that cannot be read
/// or whose schemas cannot be read as one.
///
/// # Examples
/// ```no_run
/// # async fn f() -> datafusion::error::Result<()> {
/// use datafusion::prelude::SessionContext;
/// let ctx = SessionContext::new();
/// avrokit_datafusion::register_avro(&ctx, "events", "data/events/").await?;
/// ctx.sql("SELECT kind, count(*) FROM events GROUP BY kind").await?.show().await?;
/// # Ok(()) }
/// ```
pub async fn register_avro(ctx: &SessionContext, name: &str, location: &str) -> Result<()> {
    register_avro_with(ctx, name, location, AvroOptions::default()).await
}

/// [`register_avro`] with options (a reader schema, `Utf8View` strings, limits...).
///
/// # Errors
/// As [`register_avro`].
pub async fn register_avro_with(
    ctx: &SessionContext,
    name: &str,
    location: &str,
    options: AvroOptions,
) -> Result<()> {
    let table = avro_listing_table(ctx, location, options).await?;
    ctx.register_table(name, Arc::new(table))?;
    Ok(())
}

/// The table [`register_avro_with`] registers, made but not registered: for callers that
/// wrap it in a table provider of their own (avrokit-ballista's, which its codecs can send
/// to a cluster) or register it under several names. As there, the store of a URL is made
/// from the environment and registered in `ctx` unless `ctx` already has one for it.
///
/// # Errors
/// As [`register_avro`].
pub async fn avro_listing_table(
    ctx: &SessionContext,
    location: &str,
    options: AvroOptions,
) -> Result<ListingTable> {
    let url = ListingTableUrl::parse(location)?;
    let store_url = url.object_store();
    if ctx.runtime_env().object_store(&store_url).is_err() {
        let store = store_for(store_url.as_ref())?;
        ctx.register_object_store(store_url.as_ref(), store);
    }
    // A directory holds Avro files among others; a named file or glob is taken as given.
    let extension = if url.is_collection() { ".avro" } else { "" };
    let listing =
        ListingOptions::new(Arc::new(AvroFormat::new(options))).with_file_extension(extension);
    let config = ListingTableConfig::new(url)
        .with_listing_options(listing)
        .infer_schema(&ctx.state())
        .await?;
    ListingTable::try_new(config)
}

/// The store for `url`, made from the environment by avrokit-object-store.
fn store_for(url: &Url) -> Result<Arc<dyn ObjectStore>> {
    avrokit_object_store::store_from_url(url.as_str())
        .map(|(store, _)| store)
        .map_err(|e| DataFusionError::External(Box::new(e)))
}

/// DataFusion's store registry, which also makes a store the first time a URL of an
/// unregistered bucket or host is used, configured from the environment as the `avrokit`
/// CLI does (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_REGION`, `AWS_ALLOW_HTTP`,
/// `GOOGLE_*`, `AZURE_*`...). Stores registered by hand take precedence.
#[derive(Debug, Default)]
pub struct UrlStoreRegistry {
    inner: DefaultObjectStoreRegistry,
}

impl ObjectStoreRegistry for UrlStoreRegistry {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.inner.register_store(url, store)
    }

    fn deregister_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        self.inner.deregister_store(url)
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        if let Ok(s) = self.inner.get_store(url) {
            return Ok(s);
        }
        let store = store_for(url)?;
        self.inner.register_store(url, Arc::clone(&store));
        Ok(store)
    }
}
