//! `avrokit`: the command-line tool of the avrokit Avro library.
//!
//! Layering, as ripgrep's: [`cli`] only parses arguments; [`cmd`] runs one subcommand against
//! the library, streaming (one block and one record in memory at a time); [`io`] opens inputs
//! and outputs (`-` for stdin/stdout); [`error`] turns every failure into one stderr line and
//! an exit code; [`progress`] draws bars when stderr is a terminal; [`random`] generates values.
//!
//! Exit codes: 0 success, 1 bad input (and incompatible schemas for `compat`), 2 bad usage,
//! 70 internal error (a panic, reported on one line instead of a backtrace).
#![forbid(unsafe_code)]

mod cli;
mod cmd;
mod error;
mod io;
mod progress;
mod random;
mod remote;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::error::{one_line, EXIT_INTERNAL};

fn main() -> ExitCode {
    install_panic_hook();
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => return usage_error(&e),
    };
    match cmd::run(args.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if !matches!(e, error::CliError::BrokenPipe) {
                let _ = writeln!(std::io::stderr().lock(), "{e}");
            }
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Reports a command-line parsing failure. Help and version requests print as clap prints them
/// (stdout, code 0), as does the help shown when no subcommand is given; a usage error becomes
/// one line, as every other error, with code 2.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::from(e.exit_code() as u8);
    }
    let text = e.render().to_string();
    // The message is everything before the usage line, less clap's tips.
    let what: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("Usage: "))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect();
    let what = what.join(" ");
    let what = what.strip_prefix("error: ").unwrap_or(&what);
    let usage = text
        .lines()
        .find_map(|l| l.strip_prefix("Usage: "))
        .unwrap_or("avrokit --help");
    let _ = writeln!(
        std::io::stderr().lock(),
        "{}",
        one_line(&format!("avrokit: error: {what} (usage: {usage})"))
    );
    ExitCode::from(error::EXIT_USAGE as u8)
}

/// Replaces Rust's panic report (message, note about backtraces, exit 101) with one line and
/// exit code 70, so that a bug is told apart from bad input (1) and bad usage (2), and a
/// script reading stderr never gets a multi-line dump.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if cmd::columnar::panic_is_contained() {
            return; // bad input met inside the parquet or arrow-ipc crate: reported as such
        }
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "panic".to_owned()
        };
        let place = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_else(|| "unknown location".to_owned());
        let _ = writeln!(
            std::io::stderr().lock(),
            "{}",
            one_line(&format!(
                "avrokit: internal error: {msg} ({place}); this is a bug in avrokit"
            ))
        );
        std::process::exit(EXIT_INTERNAL);
    }));
}
