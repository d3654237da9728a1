//! The adapters: how each library (or the machine's limit) runs a test, as [`Impl`]s the
//! harness times. One folder per side of the comparison, one file per API:
//!
//! - [`avrokit`]: avrokit's APIs (`Encoder`/`Decoder`, resolution, `Value`, serde, container);
//! - [`peers`]: the other Rust Avro libraries (`--compare`) and the sets of rows they add;
//! - [`limit`]: the reference loops and `memcpy`;
//! - [`workload`]: the library-neutral description of a workload that several adapters share;
//! - [`batches`]: what the `-arrow` adapters share: the batch size and the checks of batches
//!   and files.
//!
//! Adapters build on the harness, the data and the reference encoder, never on a family or on
//! each other across folders.
//!
//! [`Impl`]: crate::harness::Impl

pub mod avrokit;
pub mod batches;
pub mod limit;
pub mod peers;
pub mod workload;
