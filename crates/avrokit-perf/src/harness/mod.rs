//! The harness's vocabulary: what a test is ([`Test`], built by a registered [`Spec`] from a
//! [`Ctx`]), the implementations it holds ([`Impl`]: one library's read and write routines, each
//! a [`Side`]), and the contract every routine keeps ([`check_consumed`], [`check_count`]). The
//! timing of those routines, and what a timed row shows, are in [`timing`].
//!
//! This module and [`timing`] import nothing from the rest of the crate: every adapter and
//! family builds on them.

pub mod timing;

use std::error::Error;
use std::rc::Rc;

/// What a benchmark closure returns; errors abort the row, never the run.
pub type BenchResult = Result<(), Box<dyn Error>>;
/// One write cycle: append the whole data set's encoding to the (cleared) buffer.
pub type WriteFn = Box<dyn FnMut(&mut Vec<u8>) -> BenchResult>;
/// One read cycle: decode the whole buffer, which must be consumed exactly.
pub type ReadFn = Box<dyn FnMut(&[u8]) -> BenchResult>;

/// The library a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// This project.
    Avrokit,
    /// The reference encoder's bare loops and a memcpy: the machine's limit.
    Limit,
    /// The `apache-avro` crate.
    ApacheAvro,
    /// The `serde_avro_fast` crate.
    SerdeAvroFast,
    /// The `arrow-avro` crate (the `-arrow` batch).
    ArrowAvro,
}

impl Library {
    /// The name printed in the `library` column and JSON key.
    pub fn name(self) -> &'static str {
        match self {
            Library::Avrokit => "avrokit",
            Library::ApacheAvro => "apache-avro",
            Library::SerdeAvroFast => "serde_avro_fast",
            Library::Limit => "limit",
            Library::ArrowAvro => "arrow-avro",
        }
    }

    /// Whether this row is another library (a peer the ratio column compares against).
    pub fn is_peer(self) -> bool {
        matches!(
            self,
            Library::ApacheAvro | Library::SerdeAvroFast | Library::ArrowAvro
        )
    }
}

/// One direction of one implementation: runnable, or why not.
pub enum Side<F> {
    /// Measured.
    Run(F),
    /// The library cannot express this test (or failed to set it up); the reason is printed.
    NotApplicable(String),
    /// Not provided (the test has no such direction, or the implementation left it out).
    Absent,
}

/// Wraps a write routine.
pub fn writer(f: impl FnMut(&mut Vec<u8>) -> BenchResult + 'static) -> Side<WriteFn> {
    Side::Run(Box::new(f))
}

/// Wraps a read routine.
pub fn reader(f: impl FnMut(&[u8]) -> BenchResult + 'static) -> Side<ReadFn> {
    Side::Run(Box::new(f))
}

/// One library's (or the limit's) way of running a test.
pub struct Impl {
    /// Which library.
    pub library: Library,
    /// Which API of that library (`Encoder`, `Value`, `serde`, `bare-varint`, ...).
    pub api: String,
    /// The API of the write rows, when it differs from `api`.
    pub write_api: Option<String>,
    /// The read routine.
    pub read: Side<ReadFn>,
    /// The write routine.
    pub write: Side<WriteFn>,
    /// The read input when it is not the test's reference bytes (container files, whose header
    /// differs per library).
    pub input: Option<Rc<Vec<u8>>>,
}

impl Impl {
    /// An implementation with no routines yet.
    pub fn new(library: Library, api: impl Into<String>) -> Self {
        Impl {
            library,
            api: api.into(),
            write_api: None,
            read: Side::Absent,
            write: Side::Absent,
            input: None,
        }
    }

    /// Sets the read routine.
    pub fn read(mut self, side: Side<ReadFn>) -> Self {
        self.read = side;
        self
    }

    /// Sets the write routine.
    pub fn write(mut self, side: Side<WriteFn>) -> Self {
        self.write = side;
        self
    }

    /// Labels the write rows with another API than the read rows.
    pub fn write_api(mut self, api: impl Into<String>) -> Self {
        self.write_api = Some(api.into());
        self
    }

    /// Marks both directions as not expressible with this library.
    pub fn not_applicable(self, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        self.read(Side::NotApplicable(reason.clone()))
            .write(Side::NotApplicable(reason))
    }

    /// Sets both routines, running `write` once first: the file it writes becomes the input of
    /// `read` (each library reads the container file its own writer produced).
    pub fn own_input(self, mut write: Side<WriteFn>, read: Side<ReadFn>) -> Self {
        let Side::Run(w) = &mut write else {
            return self.write(write).read(read);
        };
        let mut file = Vec::new();
        if let Err(e) = w(&mut file) {
            return self.not_applicable(format!("writing the container failed: {e}"));
        }
        Impl {
            input: Some(Rc::new(file)),
            ..self
        }
        .write(write)
        .read(read)
    }
}

/// A test after init(): its data set is inside the implementations' closures, and `bytes` is
/// the reference encoding of that data (the read rows' input, bytes/cycle).
pub struct Test {
    /// Row name stem (`Int`, `GenericNested_`); rows append `Read` / `Write`.
    pub name: &'static str,
    /// Entries per cycle.
    pub count: usize,
    /// The reference encoding (Java's bytes).
    pub bytes: Vec<u8>,
    /// Implementations, avrokit first.
    pub impls: Vec<Impl>,
    /// Cycles of this test when it fixes its own (the AVRO-3451 `runs`).
    pub cycles: Option<usize>,
    /// Whether write rows must reproduce `bytes` (false where each library writes its own
    /// container format).
    pub output_is_reference: bool,
    /// bytes/cycle of every row when it is not the bytes written or read (the container rows
    /// report the uncompressed datum size).
    pub bytes_per_cycle: Option<usize>,
}

impl Test {
    /// A test with its reference bytes and no implementations yet.
    pub fn new(name: &'static str, count: usize, bytes: Vec<u8>) -> Self {
        Test {
            name,
            count,
            bytes,
            impls: Vec::new(),
            cycles: None,
            output_is_reference: true,
            bytes_per_cycle: None,
        }
    }

    /// Adds an implementation.
    pub fn with(mut self, imp: Impl) -> Self {
        self.impls.push(imp);
        self
    }

    /// Adds several implementations.
    pub fn with_all(mut self, imps: impl IntoIterator<Item = Impl>) -> Self {
        self.impls.extend(imps);
        self
    }
}

/// What building a test needs to know.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// COUNT (default 250000).
    pub count: usize,
    /// Build the other libraries' implementations too.
    pub compare: bool,
    /// Generate FooBar in the 1.7.5-1.8.2 call order (872990 bytes) instead of 1.9+ (867109).
    pub foobar_old: bool,
    /// `--quick`: families that scale their data set down may do so.
    pub quick: bool,
    /// The worker threads of the multi-threaded rows (`--threads`; by default the available
    /// cores, at least 2).
    pub threads: usize,
}

impl Ctx {
    /// COUNT 250000, no comparison, 1.9+ FooBar order, 2 threads.
    pub fn new(count: usize) -> Self {
        Ctx {
            count,
            compare: false,
            foobar_old: false,
            quick: false,
            threads: 2,
        }
    }
}

/// A registered test: its flag, batch and constructor.
pub struct Spec {
    /// Command-line flag (`-i`).
    pub flag: &'static str,
    /// Test name, the row name stem.
    pub name: &'static str,
    /// Batch flag of its family (`-basic`).
    pub batch: &'static str,
    /// Whether the test has a write side (read-only tests print only a Read row).
    pub has_write: bool,
    /// init(): generate the data and the reference bytes, build the implementations.
    pub build: fn(&Ctx) -> Test,
}

impl Spec {
    /// A registered test of batch `batch`.
    pub fn new(
        flag: &'static str,
        name: &'static str,
        batch: &'static str,
        has_write: bool,
        build: fn(&Ctx) -> Test,
    ) -> Self {
        Spec {
            flag,
            name,
            batch,
            has_write,
            build,
        }
    }
}

/// An error unless the reader consumed its whole input.
pub fn check_consumed(remaining: usize) -> BenchResult {
    if remaining == 0 {
        Ok(())
    } else {
        Err(format!("{remaining} bytes left unread").into())
    }
}

/// An error unless a container reader returned the `count` records written.
pub fn check_count(n: usize, count: usize) -> BenchResult {
    if n == count {
        Ok(())
    } else {
        Err(format!("read {n} records, expected {count}").into())
    }
}
