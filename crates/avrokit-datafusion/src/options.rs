//! How a table's files are read and written: [`AvroOptions`].

use std::collections::HashMap;

use avrokit::container::Codec;
use avrokit::{Limits, Schema};
use datafusion::error::{DataFusionError, Result};

/// Options of an Avro table: how its files are read (reader schema, string type, limits,
/// statistics) and how `COPY` and `INSERT` write them (codec).
///
/// In SQL they are `OPTIONS` of `CREATE EXTERNAL TABLE ... STORED AS AVRO` or of
/// `COPY ... STORED AS AVRO`, with or without the `format.` prefix:
///
/// | key | value |
/// |---|---|
/// | `reader_schema` | an Avro schema (JSON) to read every file as, by schema resolution |
/// | `utf8_view` | `true`: strings as `Utf8View` |
/// | `enum_as_string` | `true`: enums as their symbols' text (`Utf8`, or `Utf8View`), not dictionaries |
/// | `row_counts` | `false`: no row counts in the statistics |
/// | `mmap` | `false`: local files read through `read(2)`, not mapped |
/// | `codec` | `null`, `deflate`, `snappy`, `zstandard` (or `zstd`), `bzip2`, `xz` |
/// | `codec_level` | the codec's level |
///
/// # Examples
/// ```
/// use avrokit_datafusion::AvroOptions;
/// use avrokit::container::Codec;
/// let o = AvroOptions::default().with_codec(Codec::ZSTANDARD);
/// assert_eq!(o.codec(), Codec::ZSTANDARD);
/// ```
#[derive(Debug, Clone, Default)]
pub struct AvroOptions {
    reader_schema: Option<Schema>,
    utf8_view: bool,
    enum_as_string: bool,
    no_row_counts: bool,
    no_mmap: bool,
    codec: Codec,
    limits: Limits,
}

impl AvroOptions {
    /// Every file is read as this schema, resolved against the file's own (missing fields
    /// from their defaults, promotions, fields the file has and the schema lacks skipped).
    pub fn with_reader_schema(mut self, schema: Schema) -> AvroOptions {
        self.reader_schema = Some(schema);
        self
    }

    /// Strings as `Utf8View` rather than `Utf8`.
    pub fn with_utf8_view(mut self, yes: bool) -> AvroOptions {
        self.utf8_view = yes;
        self
    }

    /// Enums as the text of their symbols rather than `Dictionary(Int32, Utf8)`. Ballista 55
    /// loses dictionary types in remote shuffles (sorting an enum column after one fails), so
    /// tables queried on a cluster may want this.
    pub fn with_enum_as_string(mut self, yes: bool) -> AvroOptions {
        self.enum_as_string = yes;
        self
    }

    /// Whether the statistics carry each file's row count, read from its block headers
    /// (default on; only for files the store returns as local files, where reading the
    /// headers costs a few small reads; remote files report none).
    pub fn with_row_counts(mut self, yes: bool) -> AvroOptions {
        self.no_row_counts = !yes;
        self
    }

    /// Whether local files are mapped into memory and decoded in place (default on), rather
    /// than copied block by block into a buffer with `read(2)`. The map saves that copy: 12% of
    /// the CPU of a projected scan. Files in other stores are read with ranged GETs either
    /// way.
    ///
    /// Like every reader of mapped files (ripgrep, Polars), a scan assumes that no other
    /// process shrinks a file while it is read: on Linux, touching a page past a file's new end
    /// raises `SIGBUS`, which stops the process. Turn the map off for files that may be
    /// truncated while queried. Bytes changed in place are read as whatever they are by then:
    /// every length and count is checked against the map's size, as for any file.
    pub fn with_mmap(mut self, yes: bool) -> AvroOptions {
        self.no_mmap = !yes;
        self
    }

    /// The codec of the files `COPY` and `INSERT` write (default `null`).
    pub fn with_codec(mut self, codec: Codec) -> AvroOptions {
        self.codec = codec;
        self
    }

    /// The limits on untrusted input (allocation, nesting depth).
    pub fn with_limits(mut self, limits: Limits) -> AvroOptions {
        self.limits = limits;
        self
    }

    /// The reader schema, when one was given.
    pub fn reader_schema(&self) -> Option<&Schema> {
        self.reader_schema.as_ref()
    }

    /// True when strings are read as `Utf8View`.
    pub fn utf8_view(&self) -> bool {
        self.utf8_view
    }

    /// True when enums are read as strings.
    pub fn enum_as_string(&self) -> bool {
        self.enum_as_string
    }

    /// True when local files are mapped into memory ([`with_mmap`](Self::with_mmap)).
    pub fn mmap(&self) -> bool {
        !self.no_mmap
    }

    /// True when statistics carry row counts.
    pub fn row_counts(&self) -> bool {
        !self.no_row_counts
    }

    /// The codec written files use.
    pub fn codec(&self) -> Codec {
        self.codec
    }

    /// The limits on untrusted input.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// These options with the `OPTIONS` of a SQL statement applied (keys as in the table
    /// above).
    ///
    /// # Errors
    /// An unknown key, or a value that does not parse (a bad schema, codec or level).
    pub fn apply(mut self, options: &HashMap<String, String>) -> Result<AvroOptions> {
        let mut level = None;
        for (key, value) in options {
            let k = key.strip_prefix("format.").unwrap_or(key);
            match k {
                "reader_schema" => {
                    let s = Schema::parse_str(value).map_err(|e| {
                        config_error(format!("option {key}: not a valid Avro schema: {e}"))
                    })?;
                    self.reader_schema = Some(s);
                }
                "utf8_view" => self.utf8_view = parse_bool(key, value)?,
                "enum_as_string" => self.enum_as_string = parse_bool(key, value)?,
                "row_counts" => self.no_row_counts = !parse_bool(key, value)?,
                "mmap" => self.no_mmap = !parse_bool(key, value)?,
                "codec" => {
                    let name = if value.eq_ignore_ascii_case("zstd") {
                        "zstandard"
                    } else {
                        value.as_str()
                    };
                    self.codec = Codec::from_name(&name.to_ascii_lowercase())
                        .map_err(|e| config_error(format!("option {key}: {}", e.message())))?;
                }
                "codec_level" => {
                    let l: i32 = value.parse().map_err(|_| {
                        config_error(format!("option {key}: {value:?} is not an integer"))
                    })?;
                    level = Some(l);
                }
                _ => {
                    return Err(config_error(format!(
                        "unknown Avro option {key:?} (known: reader_schema, utf8_view, \
                         enum_as_string, row_counts, mmap, codec, codec_level)"
                    )))
                }
            }
        }
        if let Some(l) = level {
            self.codec = self
                .codec
                .with_level(l)
                .map_err(|e| config_error(format!("option codec_level: {}", e.message())))?;
        }
        Ok(self)
    }
}

fn parse_bool(key: &str, value: &str) -> Result<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(config_error(format!(
            "option {key}: {value:?} is not true or false"
        ))),
    }
}

fn config_error(message: String) -> DataFusionError {
    DataFusionError::Configuration(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> Result<AvroOptions> {
        let m = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        AvroOptions::default().apply(&m)
    }

    #[test]
    fn sql_options_parse_with_or_without_prefix() {
        let o = opts(&[
            ("format.codec", "zstd"),
            ("codec_level", "7"),
            ("utf8_view", "TRUE"),
            ("format.enum_as_string", "true"),
            ("row_counts", "false"),
            ("format.mmap", "false"),
            ("reader_schema", r#""long""#),
        ])
        .unwrap();
        assert_eq!(o.codec(), Codec::Zstandard { level: 7 });
        assert!(o.utf8_view() && o.enum_as_string() && !o.row_counts() && !o.mmap());
        assert!(AvroOptions::default().mmap());
        assert_eq!(o.reader_schema().unwrap().canonical_form(), r#""long""#);
    }

    #[test]
    fn bad_options_say_which() {
        for (pairs, says) in [
            (&[("codec", "lz4")][..], "unknown codec"),
            (
                &[("codec", "snappy"), ("codec_level", "3")][..],
                "no levels",
            ),
            (
                &[("codec", "deflate"), ("codec_level", "x")][..],
                "not an integer",
            ),
            (&[("reader_schema", "{")][..], "not a valid Avro schema"),
            (&[("utf8_view", "yes")][..], "not true or false"),
            (&[("colour", "red")][..], "unknown Avro option"),
        ] {
            let e = opts(pairs).unwrap_err().to_string();
            assert!(e.contains(says), "{pairs:?}: {e}");
        }
    }
}
