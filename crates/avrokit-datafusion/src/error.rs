//! avrokit's errors as DataFusion's.

use datafusion::error::{DataFusionError, Result};

/// A planning error (a table that cannot be read as asked).
pub(crate) fn plan_error<T>(message: String) -> Result<T> {
    Err(DataFusionError::Plan(message))
}

/// An error reading or writing file `path`, keeping avrokit's error (its kind, offset and
/// path into the data) as the source.
pub(crate) fn file_error<E>(path: &impl std::fmt::Display, e: E) -> DataFusionError
where
    E: std::error::Error + Send + Sync + 'static,
{
    DataFusionError::External(Box::new(FileError {
        path: path.to_string(),
        source: Box::new(e),
    }))
}

/// An avrokit error and the file it happened in.
#[derive(Debug)]
pub struct FileError {
    path: String,
    source: Box<dyn std::error::Error + Send + Sync>,
}

impl FileError {
    /// The file (its object-store path).
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.source)
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.source.as_ref())
    }
}
