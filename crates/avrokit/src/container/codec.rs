//! Block compression codecs.
//!
//! Each codec other than `null` sits behind a cargo feature of the same name (all on by
//! default). A codec whose feature is off is still recognised by name, so a file using it fails
//! with a clear "not enabled" error rather than "unknown codec".
//!
//! Decompression is bounded: a block never inflates beyond the limit the reader passes (its
//! [`Limits::max_alloc`](crate::Limits::max_alloc)), and output buffers grow only as output is
//! produced, so a decompression bomb is an [`ErrorKind::Limit`] error, not an out-of-memory abort.

use std::fmt;

use crate::error::{Error, ErrorKind, Result};

/// A block compression codec, named as the specification spells it.
///
/// # Examples
/// ```
/// use avrokit::container::Codec;
/// assert_eq!(Codec::from_name("deflate")?, Codec::Deflate { level: 6 });
/// assert_eq!(Codec::Zstandard { level: 3 }.name(), "zstandard");
/// assert!(Codec::from_name("lzo").is_err());
/// # Ok::<(), avrokit::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Codec {
    /// No compression.
    #[default]
    Null,
    /// Raw deflate (RFC 1951, no zlib header or checksum), level 0 to 9.
    Deflate {
        /// 0 (store) to 9 (best); 6 is zlib's default.
        level: u32,
    },
    /// Snappy raw blocks, each followed by the big-endian CRC32 of the uncompressed data.
    Snappy,
    /// Zstandard.
    Zstandard {
        /// zstd's levels: 1 to 22, or negative for faster modes; 3 is zstd's default.
        level: i32,
    },
    /// bzip2, block size 1 to 9 (×100 KB).
    Bzip2 {
        /// 1 to 9; 9 is bzip2's default.
        level: u32,
    },
    /// XZ (LZMA2 in the .xz container), preset 0 to 9.
    Xz {
        /// 0 to 9; 6 is xz's default.
        level: u32,
    },
}

impl Codec {
    /// `deflate` at level 6.
    pub const DEFLATE: Codec = Codec::Deflate { level: 6 };
    /// `zstandard` at level 3.
    pub const ZSTANDARD: Codec = Codec::Zstandard { level: 3 };
    /// `bzip2` at level 9.
    pub const BZIP2: Codec = Codec::Bzip2 { level: 9 };
    /// `xz` at preset 6.
    pub const XZ: Codec = Codec::Xz { level: 6 };

    /// Every codec name of the specification, in the order it lists them.
    pub const NAMES: [&'static str; 6] = ["null", "deflate", "bzip2", "snappy", "xz", "zstandard"];

    /// The codec's name as written in the `avro.codec` metadata.
    pub fn name(&self) -> &'static str {
        match self {
            Codec::Null => "null",
            Codec::Deflate { .. } => "deflate",
            Codec::Snappy => "snappy",
            Codec::Zstandard { .. } => "zstandard",
            Codec::Bzip2 { .. } => "bzip2",
            Codec::Xz { .. } => "xz",
        }
    }

    /// The codec with this `avro.codec` name, at its default level.
    ///
    /// # Errors
    /// [`ErrorKind::Container`] for a name the specification does not define.
    pub fn from_name(name: &str) -> Result<Codec> {
        Ok(match name {
            "null" => Codec::Null,
            "deflate" => Codec::DEFLATE,
            "snappy" => Codec::Snappy,
            "zstandard" => Codec::ZSTANDARD,
            "bzip2" => Codec::BZIP2,
            "xz" => Codec::XZ,
            _ => {
                return Err(Error::new(
                    ErrorKind::Container,
                    format!(
                        "unknown codec {name:?} (the specification's codecs are null, deflate, bzip2, snappy, xz and zstandard)"
                    ),
                ))
            }
        })
    }

    /// The same codec at compression `level` (deflate 0-9, zstandard its range, negative
    /// levels included, bzip2 1-9, xz 0-9), checked, and checked to be enabled in this build.
    ///
    /// # Examples
    /// ```
    /// use avrokit::container::Codec;
    /// assert_eq!(Codec::DEFLATE.with_level(9)?, Codec::Deflate { level: 9 });
    /// assert!(Codec::Snappy.with_level(1).is_err());
    /// assert!(Codec::DEFLATE.with_level(10).is_err());
    /// # Ok::<(), avrokit::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::Codec`] for a codec without levels (`null`, `snappy`), a level out of
    /// range, or a codec not built in.
    pub fn with_level(self, level: i32) -> Result<Codec> {
        let unsigned = || {
            u32::try_from(level).map_err(|_| {
                Error::new(
                    ErrorKind::Codec,
                    format!("the {} level must not be negative", self.name()),
                )
            })
        };
        let codec = match self {
            Codec::Deflate { .. } => Codec::Deflate { level: unsigned()? },
            Codec::Zstandard { .. } => Codec::Zstandard { level },
            Codec::Bzip2 { .. } => Codec::Bzip2 { level: unsigned()? },
            Codec::Xz { .. } => Codec::Xz { level: unsigned()? },
            Codec::Null | Codec::Snappy => {
                return Err(Error::new(
                    ErrorKind::Codec,
                    format!("the {} codec has no levels", self.name()),
                ))
            }
        };
        codec.check()?;
        Ok(codec)
    }

    /// True when this build of avrokit can read and write the codec (its cargo feature is on).
    pub fn is_enabled(&self) -> bool {
        match self {
            Codec::Null => true,
            Codec::Deflate { .. } => cfg!(feature = "deflate"),
            Codec::Snappy => cfg!(feature = "snappy"),
            Codec::Zstandard { .. } => cfg!(feature = "zstandard"),
            Codec::Bzip2 { .. } => cfg!(feature = "bzip2"),
            Codec::Xz { .. } => cfg!(feature = "xz"),
        }
    }

    /// True when both are the same codec, whatever their levels: blocks of one can be copied
    /// into a file of the other.
    pub fn same_format(&self, other: &Codec) -> bool {
        self.name() == other.name()
    }

    /// Checks the level and that the codec is enabled.
    pub(crate) fn check(&self) -> Result<()> {
        if !self.is_enabled() {
            return Err(not_enabled(self.name()));
        }
        let ok = match *self {
            Codec::Null | Codec::Snappy => true,
            Codec::Deflate { level } => level <= 9,
            Codec::Bzip2 { level } => (1..=9).contains(&level),
            Codec::Xz { level } => level <= 9,
            Codec::Zstandard { level } => zstd_level_ok(level),
        };
        if !ok {
            return Err(Error::new(
                ErrorKind::Codec,
                format!("{self} level out of range"),
            ));
        }
        Ok(())
    }
}

#[cfg(feature = "zstandard")]
fn zstd_level_ok(level: i32) -> bool {
    (zstd::zstd_safe::min_c_level()..=zstd::zstd_safe::max_c_level()).contains(&level)
}

#[cfg(not(feature = "zstandard"))]
fn zstd_level_ok(_: i32) -> bool {
    true
}

/// Shows the name and the level, e.g. `deflate (level 6)`.
impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Codec::Null | Codec::Snappy => f.pad(self.name()),
            Codec::Deflate { level } | Codec::Bzip2 { level } | Codec::Xz { level } => {
                f.pad(&format!("{} (level {level})", self.name()))
            }
            Codec::Zstandard { level } => f.pad(&format!("{} (level {level})", self.name())),
        }
    }
}

#[cold]
fn not_enabled(name: &str) -> Error {
    Error::new(
        ErrorKind::Codec,
        format!("the {name} codec is not enabled in this build (cargo feature `{name}`)"),
    )
}

#[cold]
#[allow(dead_code)] // unused when no compressing codec is built
fn codec_error(name: &str, what: impl fmt::Display) -> Error {
    Error::new(ErrorKind::Codec, format!("{name}: {what}"))
}

#[cold]
fn bomb(name: &str, max: usize) -> Error {
    Error::new(
        ErrorKind::Limit,
        format!("{name}: the block decompresses to more than the limit of {max} bytes"),
    )
}

/// Makes room in `out` for more output without going past `max + 1` bytes in all (one byte over
/// is how an over-long stream shows itself). Growth doubles, from 32 KiB, so a small block pays
/// for no large buffer.
#[allow(dead_code)] // unused when only the null and snappy codecs are built
fn grow(out: &mut Vec<u8>, max: usize, name: &str) -> Result<()> {
    if out.len() > max {
        return Err(bomb(name, max));
    }
    if out.len() == out.capacity() {
        let room = (max + 1 - out.len()).min(out.len().max(32 * 1024));
        out.try_reserve_exact(room).map_err(|_| {
            Error::new(
                ErrorKind::Limit,
                format!("{name}: cannot allocate {room} bytes"),
            )
        })?;
    }
    Ok(())
}

/// Compresses block payloads, reusing the codec's state from block to block: what the
/// container [`Writer`](super::Writer) runs on each block, for callers that compress blocks
/// themselves (on other threads, say) and hand them over with
/// [`Writer::append_raw_block`](super::Writer::append_raw_block).
///
/// ```
/// use avrokit::container::{Codec, Compressor};
/// let mut c = Compressor::new(Codec::Null)?;
/// let mut out = Vec::new();
/// c.compress(b"records", &mut out)?;
/// assert_eq!(out, b"records");
/// # Ok::<(), avrokit::Error>(())
/// ```
pub struct Compressor {
    codec: Codec,
    #[cfg(feature = "deflate")]
    deflate: Option<libdeflater::Compressor>,
    /// Boxed: snap's encoder holds a 2 KiB table inline, which every move of a `Writer`
    /// (built, returned, consumed) would otherwise copy.
    #[cfg(feature = "snappy")]
    snappy: Option<Box<snap::raw::Encoder>>,
    #[cfg(feature = "zstandard")]
    zstd: Option<zstd::zstd_safe::CCtx<'static>>,
}

impl Compressor {
    /// A compressor for `codec`.
    ///
    /// # Errors
    /// When the codec is not enabled or its level is out of range.
    pub fn new(codec: Codec) -> Result<Compressor> {
        codec.check()?;
        Ok(Compressor::unchecked(codec))
    }

    /// A compressor for a codec already [checked](Codec::check). Allocates nothing: each
    /// codec's state is created by the first block that needs it.
    pub(crate) fn unchecked(codec: Codec) -> Compressor {
        Compressor {
            codec,
            #[cfg(feature = "deflate")]
            deflate: None,
            #[cfg(feature = "snappy")]
            snappy: None,
            #[cfg(feature = "zstandard")]
            zstd: None,
        }
    }

    /// Appends the compressed form of `input` to `out`.
    ///
    /// # Errors
    /// When the codec fails.
    pub fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        match self.codec {
            Codec::Null => {
                out.extend_from_slice(input);
                Ok(())
            }
            #[cfg(feature = "deflate")]
            Codec::Deflate { level } => {
                let c = match &mut self.deflate {
                    Some(c) => c,
                    None => {
                        let lvl = libdeflater::CompressionLvl::new(level as i32)
                            .map_err(|_| codec_error("deflate", format!("level {level}")))?;
                        self.deflate.insert(libdeflater::Compressor::new(lvl))
                    }
                };
                // One call over the whole block, into room for its worst case.
                let start = out.len();
                out.resize(start + c.deflate_compress_bound(input.len()), 0);
                let n = c
                    .deflate_compress(input, &mut out[start..])
                    .map_err(|e| codec_error("deflate", e))?;
                out.truncate(start + n);
                Ok(())
            }
            #[cfg(feature = "snappy")]
            Codec::Snappy => {
                let enc = self
                    .snappy
                    .get_or_insert_with(|| Box::new(snap::raw::Encoder::new()));
                let start = out.len();
                out.resize(start + snap::raw::max_compress_len(input.len()), 0);
                let n = enc
                    .compress(input, &mut out[start..])
                    .map_err(|e| codec_error("snappy", e))?;
                out.truncate(start + n);
                out.extend_from_slice(&crc32fast::hash(input).to_be_bytes());
                Ok(())
            }
            #[cfg(feature = "zstandard")]
            Codec::Zstandard { level } => {
                use zstd::zstd_safe::{CCtx, CParameter, InBuffer, OutBuffer, ResetDirective};
                let cctx = self.zstd.get_or_insert_with(CCtx::create);
                cctx.reset(ResetDirective::SessionOnly)
                    .and_then(|_| cctx.set_parameter(CParameter::CompressionLevel(level)))
                    .map_err(|c| codec_error("zstandard", zstd::zstd_safe::get_error_name(c)))?;
                // Tell zstd the size so that the frame header records it, as zstd-jni does.
                cctx.set_pledged_src_size(Some(input.len() as u64))
                    .map_err(|c| codec_error("zstandard", zstd::zstd_safe::get_error_name(c)))?;
                out.reserve(zstd::zstd_safe::compress_bound(input.len()));
                let mut inb = InBuffer::around(input);
                loop {
                    if out.len() == out.capacity() {
                        out.reserve(out.capacity().max(64));
                    }
                    let pos = out.len();
                    let mut outb = OutBuffer::around_pos(out, pos);
                    let left = cctx
                        .compress_stream2(
                            &mut outb,
                            &mut inb,
                            zstd::zstd_safe::zstd_sys::ZSTD_EndDirective::ZSTD_e_end,
                        )
                        .map_err(|c| {
                            codec_error("zstandard", zstd::zstd_safe::get_error_name(c))
                        })?;
                    if left == 0 {
                        return Ok(());
                    }
                }
            }
            #[cfg(feature = "bzip2")]
            Codec::Bzip2 { level } => {
                use bzip2::{Action, Compress, Compression, Status};
                let mut c = Compress::new(Compression::new(level), 30);
                out.reserve(input.len() / 2 + 64);
                loop {
                    if out.len() == out.capacity() {
                        out.reserve(out.capacity().max(64));
                    }
                    let consumed = c.total_in() as usize;
                    let st = c
                        .compress_vec(&input[consumed..], out, Action::Finish)
                        .map_err(|e| codec_error("bzip2", e))?;
                    if st == Status::StreamEnd {
                        return Ok(());
                    }
                }
            }
            #[cfg(feature = "xz")]
            Codec::Xz { level } => {
                use liblzma::stream::{Action, Check, Filters, LzmaOptions, Status, Stream};
                // A dictionary larger than the block buys nothing, yet the encoder allocates
                // several times its size and every reader allocates all of it: cap it at the
                // block's size (liblzma's minimum is 4 KiB).
                let mut opts = LzmaOptions::new_preset(level).map_err(|e| codec_error("xz", e))?;
                let dict = (input.len() as u64)
                    .next_power_of_two()
                    .clamp(4096, 1 << 26) as u32;
                let mut filters = Filters::new();
                filters.lzma2(opts.dict_size(dict));
                let mut s = Stream::new_stream_encoder(&filters, Check::Crc64)
                    .map_err(|e| codec_error("xz", e))?;
                out.reserve(input.len() / 2 + 64);
                loop {
                    if out.len() == out.capacity() {
                        out.reserve(out.capacity().max(64));
                    }
                    let consumed = s.total_in() as usize;
                    let st = s
                        .process_vec(&input[consumed..], out, Action::Finish)
                        .map_err(|e| codec_error("xz", e))?;
                    if st == Status::StreamEnd {
                        return Ok(());
                    }
                }
            }
            #[allow(unreachable_patterns)]
            _ => Err(not_enabled(self.codec.name())),
        }
    }
}

/// Decompresses blocks, reusing the codec's state from block to block.
pub(crate) struct Decompressor {
    codec: Codec,
    #[cfg(feature = "deflate")]
    inflate: Option<libdeflater::Decompressor>,
    /// The size of the last block inflated: the first guess at the next one's.
    #[cfg(feature = "deflate")]
    inflated: usize,
    #[cfg(feature = "snappy")]
    snappy: Option<snap::raw::Decoder>,
    #[cfg(feature = "zstandard")]
    zstd: Option<zstd::zstd_safe::DCtx<'static>>,
}

impl Decompressor {
    /// A decompressor for `codec`.
    ///
    /// # Errors
    /// When the codec is not enabled.
    pub(crate) fn new(codec: Codec) -> Result<Decompressor> {
        if !codec.is_enabled() {
            return Err(not_enabled(codec.name()));
        }
        Ok(Decompressor {
            codec,
            #[cfg(feature = "deflate")]
            inflate: None,
            #[cfg(feature = "deflate")]
            inflated: 0,
            #[cfg(feature = "snappy")]
            snappy: None,
            #[cfg(feature = "zstandard")]
            zstd: None,
        })
    }

    /// Replaces `out`'s contents with the decompressed form of `input`, one compressed block of
    /// no more than `max` bytes of output.
    ///
    /// Bytes after the end of a deflate, bzip2 or xz stream are ignored, as Java's readers
    /// ignore them: avro-py's deflate writer leaves three bytes of zlib's checksum there.
    ///
    /// # Errors
    /// [`ErrorKind::Codec`] for corrupt or truncated input (and a snappy checksum mismatch),
    /// [`ErrorKind::Limit`] when the output would exceed `max` bytes.
    pub(crate) fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, max: usize) -> Result<()> {
        // Deflate reuses what `out` holds as room (see `inflate`).
        #[cfg(feature = "deflate")]
        if let Codec::Deflate { .. } = self.codec {
            return self.inflate(input, out, max);
        }
        out.clear();
        match self.codec {
            Codec::Null => {
                if input.len() > max {
                    return Err(bomb("null", max));
                }
                out.extend_from_slice(input);
                Ok(())
            }
            #[cfg(feature = "snappy")]
            Codec::Snappy => {
                let Some((data, crc)) = input.split_last_chunk::<4>() else {
                    return Err(codec_error("snappy", "block shorter than its 4-byte CRC32"));
                };
                let n = snap::raw::decompress_len(data).map_err(|e| codec_error("snappy", e))?;
                if n > max {
                    return Err(bomb("snappy", max));
                }
                // A snappy element expands at most 64 bytes out of 3 in (a 2-byte-offset copy),
                // so a claimed length beyond that ratio is a lie: refuse it before allocating.
                if n > data.len().saturating_mul(22).saturating_add(64) {
                    return Err(codec_error(
                        "snappy",
                        format!(
                            "{} compressed bytes cannot hold the {n} bytes they claim",
                            data.len()
                        ),
                    ));
                }
                out.resize(n, 0);
                let dec = self.snappy.get_or_insert_with(snap::raw::Decoder::new);
                let got = dec
                    .decompress(data, out)
                    .map_err(|e| codec_error("snappy", e))?;
                out.truncate(got);
                if crc32fast::hash(out) != u32::from_be_bytes(*crc) {
                    return Err(codec_error(
                        "snappy",
                        "CRC32 checksum mismatch: the block is corrupt",
                    ));
                }
                Ok(())
            }
            #[cfg(feature = "zstandard")]
            Codec::Zstandard { .. } => {
                use zstd::zstd_safe::{get_error_name, DCtx, InBuffer, OutBuffer, ResetDirective};
                let dctx = self.zstd.get_or_insert_with(DCtx::create);
                dctx.reset(ResetDirective::SessionOnly)
                    .map_err(|c| codec_error("zstandard", get_error_name(c)))?;
                let mut inb = InBuffer::around(input);
                let mut frame_done = false;
                loop {
                    if frame_done && inb.pos() == input.len() {
                        break;
                    }
                    grow(out, max, "zstandard")?;
                    let (in0, out0) = (inb.pos(), out.len());
                    let pos = out.len();
                    let mut outb = OutBuffer::around_pos(out, pos);
                    let hint = dctx
                        .decompress_stream(&mut outb, &mut inb)
                        .map_err(|c| codec_error("zstandard", get_error_name(c)))?;
                    frame_done = hint == 0;
                    if !frame_done
                        && inb.pos() == in0
                        && out.len() == out0
                        && out.len() < out.capacity()
                    {
                        return Err(codec_error("zstandard", "the compressed data ends early"));
                    }
                }
                if out.len() > max {
                    return Err(bomb("zstandard", max));
                }
                Ok(())
            }
            #[cfg(feature = "bzip2")]
            Codec::Bzip2 { .. } => {
                use bzip2::{Decompress, Status};
                let mut d = Decompress::new(false);
                loop {
                    grow(out, max, "bzip2")?;
                    let (in0, out0) = (d.total_in(), d.total_out());
                    let st = d
                        .decompress_vec(&input[in0 as usize..], out)
                        .map_err(|e| codec_error("bzip2", e))?;
                    if st == Status::StreamEnd {
                        break;
                    }
                    if d.total_in() == in0 && d.total_out() == out0 && out.len() < out.capacity() {
                        return Err(codec_error("bzip2", "the compressed data ends early"));
                    }
                }
                if out.len() > max {
                    return Err(bomb("bzip2", max));
                }
                Ok(())
            }
            #[cfg(feature = "xz")]
            Codec::Xz { .. } => {
                use liblzma::stream::{Action, Status, Stream};
                // liblzma allocates the dictionary the stream header asks for up front: bound
                // it by the output limit (plus room for real files' dictionaries) so a hostile
                // header cannot make it allocate gigabytes.
                let memlimit = (max as u64).max(64 << 20).saturating_add(16 << 20);
                let mut s =
                    Stream::new_stream_decoder(memlimit, 0).map_err(|e| codec_error("xz", e))?;
                loop {
                    grow(out, max, "xz")?;
                    let (in0, out0) = (s.total_in(), s.total_out());
                    let rest = &input[in0 as usize..];
                    let action = if rest.is_empty() {
                        Action::Finish
                    } else {
                        Action::Run
                    };
                    let st = s
                        .process_vec(rest, out, action)
                        .map_err(|e| codec_error("xz", e))?;
                    if st == Status::StreamEnd {
                        break;
                    }
                    if s.total_in() == in0 && s.total_out() == out0 && out.len() < out.capacity() {
                        return Err(codec_error("xz", "the compressed data ends early"));
                    }
                }
                if out.len() > max {
                    return Err(bomb("xz", max));
                }
                Ok(())
            }
            #[allow(unreachable_patterns)]
            _ => Err(not_enabled(self.codec.name())),
        }
    }
}

impl Decompressor {
    /// Inflates a raw deflate block whole, in one call (libdeflate's way: several times
    /// faster than a streaming inflater). The output size is not recorded in Avro's blocks, so
    /// it is guessed (from the last block's and from four times the input), and the block is
    /// inflated again into twice the room while it does not fit, up to `max` bytes.
    #[cfg(feature = "deflate")]
    fn inflate(&mut self, input: &[u8], out: &mut Vec<u8>, max: usize) -> Result<()> {
        use libdeflater::DecompressionError;
        let d = self
            .inflate
            .get_or_insert_with(libdeflater::Decompressor::new);
        let mut room = (self.inflated + self.inflated / 4)
            .max(input.len().saturating_mul(4))
            .max(64 * 1024)
            .min(max);
        loop {
            // The bytes left from the last block are overwritten, never read: only new room
            // is zeroed.
            if out.len() < room {
                out.try_reserve(room - out.len()).map_err(|_| {
                    Error::new(
                        ErrorKind::Limit,
                        format!("deflate: cannot allocate {room} bytes"),
                    )
                })?;
                out.resize(room, 0);
            }
            match d.deflate_decompress(input, &mut out[..room]) {
                Ok(n) => {
                    out.truncate(n);
                    self.inflated = n;
                    return Ok(());
                }
                Err(DecompressionError::InsufficientSpace) if room < max => {
                    room = room.saturating_mul(2).min(max);
                }
                Err(DecompressionError::InsufficientSpace) => {
                    out.clear();
                    return Err(bomb("deflate", max));
                }
                Err(DecompressionError::BadData) => {
                    out.clear();
                    return Err(codec_error(
                        "deflate",
                        "the compressed data is corrupt or ends early",
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Codec> {
        vec![
            Codec::Null,
            Codec::Deflate { level: 0 },
            Codec::DEFLATE,
            Codec::Snappy,
            Codec::ZSTANDARD,
            Codec::Zstandard { level: -3 },
            Codec::BZIP2,
            Codec::Bzip2 { level: 1 },
            Codec::XZ,
            Codec::Xz { level: 0 },
        ]
        .into_iter()
        .filter(Codec::is_enabled)
        .collect()
    }

    #[test]
    fn round_trips() {
        let mut data = Vec::new();
        for i in 0..100_000u32 {
            data.extend_from_slice(&(i % 251).to_le_bytes());
        }
        for codec in all() {
            for input in [&b""[..], b"a", &data] {
                let mut c = Compressor::new(codec).unwrap();
                let mut d = Decompressor::new(codec).unwrap();
                let mut z = vec![1, 2, 3];
                // Twice, to exercise reused state.
                for _ in 0..2 {
                    z.truncate(3);
                    c.compress(input, &mut z).unwrap();
                    let mut out = vec![9; 10];
                    d.decompress(&z[3..], &mut out, 1 << 20).unwrap();
                    assert_eq!(out, input, "{codec}");
                }
            }
        }
    }

    #[test]
    fn bombs_are_limit_errors() {
        let zeros = vec![0u8; 4 << 20];
        for codec in all() {
            let mut z = Vec::new();
            Compressor::new(codec)
                .unwrap()
                .compress(&zeros, &mut z)
                .unwrap();
            let mut out = Vec::new();
            let e = Decompressor::new(codec)
                .unwrap()
                .decompress(&z, &mut out, 1 << 20)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Limit, "{codec}: {e}");
            assert!(
                out.capacity() <= (2 << 20) + 64,
                "{codec}: {}",
                out.capacity()
            );
            // Exactly at the limit is fine.
            Decompressor::new(codec)
                .unwrap()
                .decompress(&z, &mut out, 4 << 20)
                .unwrap();
        }
    }

    #[test]
    fn truncated_input_is_an_error() {
        let data: Vec<u8> = (0..5000u32)
            .flat_map(|i| (i * 7919).to_le_bytes())
            .collect();
        for codec in all().into_iter().filter(|c| *c != Codec::Null) {
            let mut z = Vec::new();
            Compressor::new(codec)
                .unwrap()
                .compress(&data, &mut z)
                .unwrap();
            let mut out = Vec::new();
            let mut d = Decompressor::new(codec).unwrap();
            for cut in [0, 1, z.len() / 2, z.len() - 1] {
                assert!(
                    d.decompress(&z[..cut], &mut out, 1 << 20).is_err(),
                    "{codec} cut {cut}"
                );
            }
        }
    }

    /// Deflate blocks carry no output size: the inflater's guesses must neither lose bytes nor
    /// keep stale ones, from small blocks to ones expanding a thousandfold, in any order.
    #[cfg(feature = "deflate")]
    #[test]
    fn deflate_sizes_in_any_order() {
        let text: Vec<u8> = (0..300_000u32)
            .map(|i| b"avro"[(i % 7 % 4) as usize])
            .collect();
        let noise: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let zeros = vec![0u8; 3 << 20];
        let blocks: [&[u8]; 7] = [b"x", &zeros, b"", &noise, &text, &zeros[..70_000], b"y"];
        let mut c = Compressor::new(Codec::DEFLATE).unwrap();
        let mut d = Decompressor::new(Codec::DEFLATE).unwrap();
        let mut out = Vec::new();
        for b in blocks.iter().chain(blocks.iter().rev()) {
            let mut z = Vec::new();
            c.compress(b, &mut z).unwrap();
            d.decompress(&z, &mut out, 8 << 20).unwrap();
            assert!(out == *b, "a block of {} bytes", b.len());
            // What a writer may leave after the stream (avro-py: zlib's checksum) is ignored.
            z.extend_from_slice(&[1, 2, 3]);
            d.decompress(&z, &mut out, 8 << 20).unwrap();
            assert!(out == *b, "a block of {} bytes, trailing bytes", b.len());
        }
    }

    /// A compressor is a few pointers: writers (which hold one) move cheaply.
    #[test]
    fn compressors_hold_no_tables_inline() {
        assert!(std::mem::size_of::<Compressor>() <= 64);
    }

    #[test]
    fn bad_levels() {
        assert!(Compressor::new(Codec::Deflate { level: 10 }).is_err());
        assert!(Compressor::new(Codec::Bzip2 { level: 0 }).is_err());
        assert!(Compressor::new(Codec::Xz { level: 10 }).is_err());
        assert!(Compressor::new(Codec::Zstandard { level: 1000 }).is_err());
    }
}
