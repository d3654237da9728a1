//! The test families, one file per batch of WORKLOADS.md (plus the AVRO-3451, container and
//! Arrow batches): each registers its tests ([`Spec`](crate::harness::Spec)s) and builds them
//! from its data set and the adapters' rows. A family says *which* rows a test has; how each library
//! runs is the adapters' business.

pub mod arrow;
pub mod avro3451;
pub mod basic;
pub mod container;
pub mod generic;
pub mod realistic;
pub mod record;
pub mod reflect;
pub mod specific;
