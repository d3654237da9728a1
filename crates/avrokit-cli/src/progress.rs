//! Progress bars on stderr, for long work, and only when stderr is a terminal: piped or
//! redirected stderr (scripts, CI, tests) never sees escape codes.

use std::io::{IsTerminal, Read};

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar, or nothing when stderr is not a terminal. Cleared from the screen when
/// dropped, so an error line printed afterwards stands alone.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar over `total` bytes of input (a spinner when the size is unknown).
    pub fn bytes(total: Option<u64>) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = match total {
            Some(n) => ProgressBar::new(n).with_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
            None => ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bytes}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        Progress(Some(bar))
    }

    /// A bar over `total` records.
    pub fn records(total: u64) -> Progress {
        Progress::counting(total, "records")
    }

    /// A bar over `total` record batches.
    pub fn batches(total: u64) -> Progress {
        Progress::counting(total, "batches")
    }

    fn counting(total: u64, unit: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new(total).with_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} {unit} ({{eta}})"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Progress(Some(bar))
    }

    /// No progress reporting.
    pub fn none() -> Progress {
        Progress(None)
    }

    /// Counts the bytes read through `r` on the bar.
    pub fn wrap(&self, r: Box<dyn Read>) -> Box<dyn Read> {
        match &self.0 {
            Some(bar) => Box::new(bar.wrap_read(r)),
            None => r,
        }
    }

    /// Advances a record bar by `n`.
    #[inline]
    pub fn inc(&self, n: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(n);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
