//! Stores from URLs, configured from the environment: [`store_from_url`].

use std::sync::Arc;

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreScheme};
use url::Url;

use crate::error::{Error, ErrorKind, Result};

/// True when `s` looks like a URL this crate opens (`scheme://...`), rather than a local path.
pub fn is_url(s: &str) -> bool {
    match s.split_once("://") {
        Some((scheme, _)) => {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// The store and the object path of `url`, configured as object_store's builders configure
/// themselves from the environment (`from_env`):
///
/// - `s3://bucket/key` (and `s3a://`, `https://s3.<region>.amazonaws.com/...`): `AWS_*`
///   variables (`AWS_ENDPOINT_URL` or `AWS_ENDPOINT`, `AWS_ACCESS_KEY_ID`,
///   `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ALLOW_HTTP`, ...);
/// - `gs://bucket/key`: `GOOGLE_*` (`GOOGLE_SERVICE_ACCOUNT`, ...);
/// - `az://container/key`, `abfs://`, `adl://`: `AZURE_*` (`AZURE_STORAGE_ACCOUNT_NAME`, ...);
/// - `http://` and `https://` (any other host): a plain HTTP server (WebDAV for writes);
/// - `file:///absolute/path`: the local file system; `memory:///key`: a new, empty
///   in-memory store.
///
/// # Errors
/// A malformed URL, a scheme whose store is not compiled in (the `aws`, `gcp`, `azure`,
/// `http` features), or a builder refusing its configuration (a missing bucket, ...).
pub fn store_from_url(url: &str) -> Result<(Arc<dyn ObjectStore>, Path)> {
    let bad = |m: String| Error::new(ErrorKind::Usage, format!("{url}: {m}"));
    let parsed = Url::parse(url).map_err(|e| bad(format!("not a valid URL: {e}")))?;
    let (scheme, path) = ObjectStoreScheme::parse(&parsed).map_err(|_| {
        // object_store's message ("Unable to recognise URL") does not say what would be
        // recognised; a user who typed `s4://` or `file://relative` needs to see it.
        const KNOWN: &str = "s3://bucket/key, s3a://, gs://bucket/key, az://container/key, \
                             abfs(s)://, adl://, http(s)://host/path, file:///absolute/path, \
                             memory:///key";
        let scheme = parsed.scheme();
        let known = [
            "s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl", "http", "https", "file",
            "memory",
        ];
        if matches!(scheme, "file" | "memory") {
            bad(format!(
                "a {scheme}:// URL has no host, only an absolute path \
                 ({scheme}:///dir/x.avro); the forms known are {KNOWN}"
            ))
        } else if known.contains(&scheme) {
            bad(format!(
                "a {scheme}:// URL needs a bucket or host; the forms known are {KNOWN}"
            ))
        } else {
            bad(format!(
                "unknown URL scheme `{scheme}://`; the forms known are {KNOWN}"
            ))
        }
    })?;
    #[allow(unused_variables)] // without the HTTP stores' features
    let built = |r: object_store::Result<Arc<dyn ObjectStore>>| {
        r.map_err(|e| Error::store(format!("configuring the store for {url}"), None, e))
    };
    let store: Arc<dyn ObjectStore> = match scheme {
        ObjectStoreScheme::Local => Arc::new(object_store::local::LocalFileSystem::new()),
        ObjectStoreScheme::Memory => Arc::new(object_store::memory::InMemory::new()),
        #[cfg(feature = "aws")]
        ObjectStoreScheme::AmazonS3 => built(
            object_store::aws::AmazonS3Builder::from_env()
                .with_url(url)
                .build()
                .map(|s| Arc::new(s) as _),
        )?,
        #[cfg(feature = "gcp")]
        ObjectStoreScheme::GoogleCloudStorage => built(
            object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_url(url)
                .build()
                .map(|s| Arc::new(s) as _),
        )?,
        #[cfg(feature = "azure")]
        ObjectStoreScheme::MicrosoftAzure => built(
            object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_url(url)
                .build()
                .map(|s| Arc::new(s) as _),
        )?,
        #[cfg(feature = "http")]
        ObjectStoreScheme::Http => {
            let base = &parsed[..url::Position::BeforePath];
            let client =
                object_store::ClientOptions::new().with_allow_http(parsed.scheme() == "http");
            built(
                object_store::http::HttpBuilder::new()
                    .with_url(base)
                    .with_client_options(client)
                    .build()
                    .map(|s| Arc::new(s) as _),
            )?
        }
        #[allow(unreachable_patterns)]
        other => return Err(bad(format!("the {other:?} store is not compiled in"))),
    };
    Ok((store, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_paths_are_told_apart() {
        assert!(is_url("s3://b/k"));
        assert!(is_url("file:///tmp/x.avro"));
        assert!(!is_url("/tmp/x.avro"));
        assert!(!is_url("data/a://b"));
        assert!(!is_url("-"));
    }

    #[test]
    fn bad_urls_are_usage_errors() {
        let e = store_from_url("s3//nope").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage);
        let e = store_from_url("ftp://host/x").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage, "{e}");
        assert!(
            e.to_string()
                .starts_with("ftp://host/x: unknown URL scheme `ftp://`"),
            "{e}"
        );
        let e = store_from_url("file://relative/x").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Usage, "{e}");
        assert!(e.to_string().contains("file:///absolute/path"), "{e}");
    }

    #[test]
    fn file_urls_open_the_local_store() {
        let (store, path) = store_from_url("file:///tmp/some/file.avro").unwrap();
        assert_eq!(path.as_ref(), "tmp/some/file.avro");
        assert!(store.to_string().contains("LocalFileSystem"));
    }
}
