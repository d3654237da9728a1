//! The data sets, one file per test family: the item types (serde derives, the shape every
//! library reads and writes), their schemas, the generators that draw them from the seeded
//! `java.util.Random` port in Java's call order, and their reference encoding
//! ([`RefDatum`](crate::reference::RefDatum)).
//!
//! Data knows nothing of the libraries: how avrokit and the peers represent these items (their
//! `Value`s) is in their adapters.

pub mod avro3451;
pub mod basic;
pub mod container;
pub mod generic;
pub mod realistic;
pub mod record;
pub mod reflect;
pub mod specific;
pub mod strings;
pub mod vectors;
