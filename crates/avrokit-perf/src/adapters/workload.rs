//! What several adapters need to know about a workload, in terms neutral to every library: the
//! container file to produce, and how often a peer builds its reader.

/// A container codec, by its Avro name; each container adapter maps it to its library's codec
/// at that library's default level (deflate 6, zstandard 3, bzip2 9, xz 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodecName {
    /// `null`
    Null,
    /// `deflate`
    Deflate,
    /// `snappy`
    Snappy,
    /// `zstandard`
    Zstandard,
    /// `bzip2`
    Bzip2,
    /// `xz`
    Xz,
}

/// The container file one write cycle produces.
#[derive(Debug, Clone, Copy)]
pub struct ContainerFile {
    /// The schema (JSON).
    pub schema: &'static str,
    /// The block codec.
    pub codec: CodecName,
    /// A fixed sync marker, so that write digests repeat from run to run (the marker's cost is
    /// not what the container tests measure).
    pub marker: [u8; 16],
    /// Whether the peers' readers are handed the schema (parsed outside the timing) as reader
    /// schema, as the AVRO-3451 benchmark does; otherwise they read with the file's own.
    pub reader_schema: bool,
}

/// How often a read routine builds its reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReaderLife {
    /// One reader per cycle.
    PerCycle,
    /// A new reader for every datum (GenericOneTime{Reader,}Use_).
    PerDatum,
}
