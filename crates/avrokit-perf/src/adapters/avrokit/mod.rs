//! avrokit's adapters, one file per API it measures: [`encoder`] (`Encoder`/`Decoder`, one call
//! per value), [`resolving`] (`ResolvingDecoder`), [`value`] (generic `Value`s, plain and
//! resolved), [`serde`] (derived structs through `avrokit::serde`), [`container`] (object
//! container files), [`container_typed`] (container files through generated codecs: borrowed,
//! threaded, and the codec-only limit), [`arrow`] (container files to RecordBatches and back,
//! through `avrokit-arrow`). [`values`] turns the data sets into `Value`s; [`schema`] parses
//! schemas and compiles resolution plans once, at init.

pub mod arrow;
pub mod codec;
pub mod container;
pub mod container_typed;
pub mod encoder;
pub mod resolving;
pub mod schema;
pub mod serde;
pub mod value;
pub mod values;
