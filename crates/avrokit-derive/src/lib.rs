//! `#[derive(AvroSchema)]` for avrokit.
//!
//! This crate is an empty shell for now: the derive arrives with the serde front end.
