//! Opening inputs and outputs: paths, with `-` for stdin and stdout.
//!
//! Inputs are handed to the library unbuffered (its container reader buffers by itself);
//! outputs go through one 64 KiB `BufWriter`. An output file is removed again when the command
//! fails before [`Output::commit`], so a failed run leaves no half-written file behind.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{CliError, CliResult, Context};
use crate::progress::Progress;
use crate::remote::{self, ReadSeek};

/// Size of the output buffer.
const OUT_BUF: usize = 64 * 1024;

/// Largest schema file read (schemas are read whole; data never is).
const MAX_SCHEMA_FILE: u64 = 64 << 20;

/// True when `path` means stdin or stdout.
pub fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How a path is named in messages: `<stdin>`/`<stdout>` for `-`.
pub fn name(path: &Path, stdout: bool) -> String {
    if is_std(path) {
        if stdout { "<stdout>" } else { "<stdin>" }.to_owned()
    } else {
        path.display().to_string()
    }
}

/// An opened input: the reader (with progress reporting when enabled) and its name.
pub struct Input {
    /// The bytes.
    pub reader: Box<dyn Read>,
    /// The name for messages.
    pub name: String,
}

/// Opens an input path (`-`: stdin), its bytes counted by `progress`.
pub fn open_input(path: &Path, progress: &Progress) -> CliResult<Input> {
    let name = name(path, false);
    let reader: Box<dyn Read> = if is_std(path) {
        Box::new(io::stdin().lock())
    } else if remote::is_remote(path) {
        Box::new(remote::open(path)?)
    } else {
        Box::new(File::open(path).at(&name)?)
    };
    Ok(Input {
        reader: progress.wrap(reader),
        name,
    })
}

/// Opens an input that can seek (for split reading): a file or an object store URL.
pub fn open_seekable(path: &Path) -> CliResult<Box<dyn ReadSeek>> {
    if remote::is_remote(path) {
        return remote::open(path);
    }
    Ok(Box::new(File::open(path).at(&name(path, false))?))
}

/// The length of a file, `None` for stdin or when unknown (for the progress bar).
pub fn input_len(path: &Path) -> Option<u64> {
    if is_std(path) {
        return None;
    }
    if remote::is_remote(path) {
        return remote::len(path);
    }
    std::fs::metadata(path).ok().map(|m| m.len())
}

/// Reads a schema file (`-`: stdin) as text.
pub fn read_schema_text(path: &Path) -> CliResult<String> {
    let name = name(path, false);
    let mut text = String::new();
    let r: Box<dyn Read> = if is_std(path) {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(path).at(&name)?)
    };
    // Bounded: a schema is small, and a mistaken path to a huge data file must not exhaust
    // memory.
    let n = r
        .take(MAX_SCHEMA_FILE + 1)
        .read_to_string(&mut text)
        .map_err(|e| CliError::input(format!("cannot read the schema: {e}"), &name))?;
    if n as u64 > MAX_SCHEMA_FILE {
        return Err(CliError::input(
            format!("schema file larger than {MAX_SCHEMA_FILE} bytes"),
            &name,
        ));
    }
    Ok(text)
}

/// Reads and parses a schema file.
pub fn read_schema(path: &Path) -> CliResult<avrokit::Schema> {
    let text = read_schema_text(path)?;
    avrokit::Schema::parse_str(&text).at(&name(path, false))
}

/// A buffered output: stdout, a file that is removed unless [`commit`](Self::commit)ted, or
/// an object store URL whose multipart upload completes at `commit` and is aborted otherwise.
pub struct Output {
    inner: Option<BufWriter<Box<dyn Write>>>,
    /// The file to remove on failure (`None` for stdout, and once committed).
    file: Option<PathBuf>,
    /// The upload to complete at commit, or abort on failure.
    upload: Option<remote::Upload>,
    /// The name for messages.
    pub name: String,
}

impl Output {
    /// Creates (truncates) the output file, or takes stdout for `-`.
    pub fn create(path: &Path) -> CliResult<Output> {
        let name = name(path, true);
        let mut upload = None;
        let (w, file): (Box<dyn Write>, _) = if is_std(path) {
            (Box::new(io::stdout().lock()), None)
        } else if remote::is_remote(path) {
            let u = remote::Upload::create(path)?;
            upload = Some(u.clone());
            (Box::new(u), None)
        } else {
            let f = File::create(path).at(&name)?;
            (Box::new(f), Some(path.to_owned()))
        };
        Ok(Output {
            inner: Some(BufWriter::with_capacity(OUT_BUF, w)),
            file,
            upload,
            name,
        })
    }

    /// Flushes and keeps the output.
    pub fn commit(mut self) -> CliResult<()> {
        let mut w = self.inner.take().expect("output present until committed");
        let r = w.flush();
        // Drop the writer before deciding about the file, so it is closed either way.
        drop(w);
        r.at(&self.name)?;
        self.file = None;
        match self.upload.take() {
            Some(u) => u.commit(&self.name),
            None => Ok(()),
        }
    }
}

impl Write for Output {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner
            .as_mut()
            .expect("output present until committed")
            .write(buf)
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner
            .as_mut()
            .expect("output present until committed")
            .write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner
            .as_mut()
            .expect("output present until committed")
            .flush()
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(u) = self.upload.take() {
            // Not committed: drop the buffer unflushed, and abort the upload.
            if let Some(w) = self.inner.take() {
                drop(w.into_parts());
            }
            u.abort();
        }
        if let Some(path) = self.file.take() {
            // Not committed: the command failed. Drop the buffer unflushed and remove the
            // partial file; a failure to remove it changes nothing about the error reported.
            if let Some(w) = self.inner.take() {
                let (inner, _) = w.into_parts();
                drop(inner);
            }
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Refuses an output path that is also an input: creating the output would truncate the input
/// before it is read.
pub fn check_output_not_input(inputs: &[PathBuf], output: &Path) -> CliResult<()> {
    if is_std(output) {
        return Ok(());
    }
    let Ok(out) = output.canonicalize() else {
        return Ok(()); // does not exist yet: cannot be an input
    };
    for input in inputs.iter().filter(|p| !is_std(p)) {
        if input.canonicalize().is_ok_and(|p| p == out) {
            return Err(CliError::usage(
                "the output file is also an input (it would be truncated before it is read)",
                output.display().to_string(),
            ));
        }
    }
    Ok(())
}

/// Refuses reading stdin more than once.
pub fn check_one_stdin(inputs: &[&Path]) -> CliResult<()> {
    if inputs.iter().filter(|p| is_std(p)).count() > 1 {
        return Err(CliError::usage(
            "`-` (stdin) is given more than once",
            "arguments",
        ));
    }
    Ok(())
}
