//! Random values of any schema, from a seed: `avrokit random`.
//!
//! The generator is PCG32 (O'Neill's `pcg32`, XSH-RR output), written out here rather than
//! taken from a crate so that a seed keeps producing the same file across dependency updates:
//! the output of `random --seed S` is part of the tool's contract.
//!
//! Values cover every type and logical type, with edge cases mixed in (integer extremes,
//! `-0.0`, NaN and the infinities, empty and non-ASCII strings with control characters).
//! Sizes are bounded (strings, bytes, arrays and maps hold at most a dozen items), and so is
//! recursion: past [`SOFT_DEPTH`] nested records, arrays, maps and unions, unions take their
//! `null` branch (or a branch that cannot nest) and arrays and maps are empty.

use avrokit::schema::{LogicalType, Node, NodeId, NodeKind};
use avrokit::value::{Decimal, Duration};
use avrokit::{Schema, Value};

/// Nesting past which the generator steers towards leaves.
const SOFT_DEPTH: usize = 6;
/// Nesting past which the schema is taken to have no finite value (a record that contains
/// itself without a union, array or map in between); the same bound readers enforce.
const HARD_DEPTH: usize = avrokit::Limits::DEFAULT_MAX_DEPTH;
/// Most items in an array or map.
const MAX_ITEMS: u64 = 4;
/// Most characters in a string, bytes in `bytes`.
const MAX_LEN: u64 = 12;

/// PCG32: 64-bit state, 32-bit output, one of 2^63 streams.
#[derive(Debug, Clone)]
pub struct Pcg32 {
    state: u64,
    inc: u64,
}

impl Pcg32 {
    const MULT: u64 = 6_364_136_223_846_793_005;

    /// The generator for `seed` on stream `stream` (the reference `pcg32_srandom_r`).
    pub fn new(seed: u64, stream: u64) -> Pcg32 {
        let mut r = Pcg32 {
            state: 0,
            inc: (stream << 1) | 1,
        };
        r.next_u32();
        r.state = r.state.wrapping_add(seed);
        r.next_u32();
        r
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(Self::MULT).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        xorshifted.rotate_right((old >> 59) as u32)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-high: the bias (at most n/2^64) is irrelevant
    /// for test data.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u32() as u8).collect()
    }
}

/// Characters strings are made of, beyond ASCII letters and digits: JSON escapes, control
/// characters (C0 and C1), the line separators JSON lines must escape, 2-, 3- and 4-byte UTF-8.
const SPECIAL_CHARS: [char; 14] = [
    ' ', '"', '\\', '/', '\n', '\t', '\u{1}', '\u{7f}', '\u{9f}', '\u{2028}', 'é', 'ß', '中', '😀',
];

/// Generates random values of one schema.
pub struct Generator<'s> {
    schema: &'s Schema,
    rng: Pcg32,
    seed: u64,
}

impl<'s> Generator<'s> {
    /// A generator for `schema` seeded with `seed`.
    pub fn new(schema: &'s Schema, seed: u64) -> Generator<'s> {
        Generator {
            schema,
            rng: Pcg32::new(seed, 0xda7a),
            seed,
        }
    }

    /// A sync marker derived from the seed (from its own stream, so that values do not depend
    /// on whether it is asked for).
    pub fn sync_marker(&self) -> [u8; 16] {
        let mut r = Pcg32::new(self.seed, 0x5ec);
        let mut m = [0u8; 16];
        m.iter_mut().for_each(|b| *b = r.next_u32() as u8);
        m
    }

    /// The next random value of the schema.
    ///
    /// # Errors
    /// A schema with no value to generate: a record containing itself with no union, array
    /// or map in between, an enum without symbols, a union without branches.
    pub fn value(&mut self) -> Result<Value, String> {
        self.node(self.schema.root_id(), 0)
    }

    fn node(&mut self, id: NodeId, depth: usize) -> Result<Value, String> {
        if depth > HARD_DEPTH {
            return Err(format!(
                "the schema has no finite value within {HARD_DEPTH} levels of nesting (a record containing itself without a union, array or map in between?)"
            ));
        }
        let node = self.schema.node(id);
        if let Some(logical) = node.logical {
            return Ok(self.logical(logical, node));
        }
        let r = &mut self.rng;
        Ok(match node.kind() {
            NodeKind::Null => Value::Null,
            NodeKind::Boolean => Value::Boolean(r.one_in(2)),
            NodeKind::Int => Value::Int(self.int()),
            NodeKind::Long => Value::Long(self.long()),
            NodeKind::Float => Value::Float(self.double() as f32),
            NodeKind::Double => Value::Double(self.double()),
            NodeKind::Bytes => {
                let n = r.below(MAX_LEN + 1) as usize;
                Value::Bytes(r.bytes(n))
            }
            NodeKind::String => Value::String(self.string()),
            NodeKind::Fixed(f) => Value::Fixed(r.bytes(f.size)),
            NodeKind::Enum(e) => {
                if e.symbols.is_empty() {
                    return Err(format!("enum {} has no symbols", e.name));
                }
                Value::Enum(r.below(e.symbols.len() as u64) as u32)
            }
            NodeKind::Array(a) => {
                let n = self.items(depth);
                let items = a.items;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.node(items, depth + 1)?);
                }
                Value::Array(v)
            }
            NodeKind::Map(m) => {
                let n = self.items(depth);
                let values = m.values;
                let mut v = Vec::with_capacity(n);
                for i in 0..n {
                    // The index keeps keys unique: a map with a repeated key has no faithful
                    // JSON form, nor a Python dict.
                    let key = format!("k{i}{}", self.string());
                    v.push((key, self.node(values, depth + 1)?));
                }
                Value::Map(v)
            }
            NodeKind::Record(rec) => {
                let mut v = Vec::with_capacity(rec.fields.len());
                for f in &rec.fields {
                    v.push(self.node(f.schema, depth + 1)?);
                }
                Value::Record(v)
            }
            NodeKind::Union(u) => {
                if u.variants.is_empty() {
                    return Err("a union without branches has no values".to_owned());
                }
                let i = if depth >= SOFT_DEPTH {
                    self.leaf_branch(&u.variants)
                } else {
                    r.below(u.variants.len() as u64) as usize
                };
                Value::Union(i as u32, Box::new(self.node(u.variants[i], depth + 1)?))
            }
        })
    }

    /// The branch to take when deep: `null`, else one that cannot nest, else the first.
    fn leaf_branch(&self, variants: &[NodeId]) -> usize {
        let kinds: Vec<&NodeKind> = variants
            .iter()
            .map(|&v| self.schema.node(v).kind())
            .collect();
        if let Some(i) = kinds.iter().position(|k| matches!(k, NodeKind::Null)) {
            return i;
        }
        kinds
            .iter()
            .position(|k| {
                !matches!(
                    k,
                    NodeKind::Record(_)
                        | NodeKind::Array(_)
                        | NodeKind::Map(_)
                        | NodeKind::Union(_)
                )
            })
            .unwrap_or(0)
    }

    /// How many items an array or map gets: none once deep.
    fn items(&mut self, depth: usize) -> usize {
        if depth >= SOFT_DEPTH {
            0
        } else {
            self.rng.below(MAX_ITEMS + 1) as usize
        }
    }

    fn int(&mut self) -> i32 {
        let r = &mut self.rng;
        if r.one_in(8) {
            [0, 1, -1, i32::MIN, i32::MAX][r.below(5) as usize]
        } else if r.one_in(2) {
            r.below(201) as i32 - 100
        } else {
            r.next_u32() as i32
        }
    }

    fn long(&mut self) -> i64 {
        let r = &mut self.rng;
        if r.one_in(8) {
            [0, 1, -1, i64::MIN, i64::MAX][r.below(5) as usize]
        } else if r.one_in(2) {
            r.below(20_001) as i64 - 10_000
        } else {
            r.next_u64() as i64
        }
    }

    fn double(&mut self) -> f64 {
        let r = &mut self.rng;
        if r.one_in(32) {
            const SPECIAL: [f64; 8] = [
                0.0,
                -0.0,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE,
                f64::MAX,
                1.0,
            ];
            return SPECIAL[r.below(SPECIAL.len() as u64) as usize];
        }
        let magnitude = 10f64.powi(r.below(13) as i32 - 6);
        (r.unit() * 2.0 - 1.0) * magnitude
    }

    fn string(&mut self) -> String {
        const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let r = &mut self.rng;
        let n = r.below(MAX_LEN + 1);
        (0..n)
            .map(|_| {
                if r.one_in(6) {
                    SPECIAL_CHARS[r.below(SPECIAL_CHARS.len() as u64) as usize]
                } else {
                    char::from(ALNUM[r.below(ALNUM.len() as u64) as usize])
                }
            })
            .collect()
    }

    fn logical(&mut self, logical: LogicalType, node: &Node) -> Value {
        let r = &mut self.rng;
        match logical {
            LogicalType::Decimal { precision, .. } => {
                let scale = match logical {
                    LogicalType::Decimal { scale, .. } => scale,
                    _ => 0,
                };
                // |unscaled| < 10^precision, and it must fit a fixed's bytes.
                let mut max = 10u128.pow(precision.min(38)) - 1;
                if let NodeKind::Fixed(f) = node.kind() {
                    if f.size < 16 {
                        max = max.min((1u128 << (8 * f.size).saturating_sub(1)) - 1);
                    }
                }
                let max = max.min(u64::MAX as u128) as u64;
                let magnitude = if max == u64::MAX {
                    r.next_u64() >> 1
                } else {
                    r.below(max + 1)
                };
                let unscaled = if r.one_in(2) {
                    -(magnitude as i128)
                } else {
                    magnitude as i128
                };
                Value::Decimal(Decimal::from_i128(unscaled, scale))
            }
            LogicalType::BigDecimal => {
                let unscaled = r.next_u64() as i64;
                let scale = r.below(10) as u32;
                Value::BigDecimal(Decimal::from_i128(i128::from(unscaled), scale))
            }
            LogicalType::Uuid => {
                let mut u = [0u8; 16];
                u.copy_from_slice(&r.bytes(16));
                Value::Uuid(u)
            }
            LogicalType::Date => Value::Date(r.below(200_001) as i32 - 100_000),
            LogicalType::TimeMillis => Value::TimeMillis(r.below(86_400_000) as i32),
            LogicalType::TimeMicros => Value::TimeMicros(r.below(86_400_000_000) as i64),
            LogicalType::TimestampMillis => Value::TimestampMillis(self.timestamp(1_000)),
            LogicalType::TimestampMicros => Value::TimestampMicros(self.timestamp(1_000_000)),
            LogicalType::TimestampNanos => Value::TimestampNanos(self.timestamp(1_000_000_000)),
            LogicalType::LocalTimestampMillis => Value::LocalTimestampMillis(self.timestamp(1_000)),
            LogicalType::LocalTimestampMicros => {
                Value::LocalTimestampMicros(self.timestamp(1_000_000))
            }
            LogicalType::LocalTimestampNanos => {
                Value::LocalTimestampNanos(self.timestamp(1_000_000_000))
            }
            LogicalType::Duration => Value::Duration(Duration {
                months: r.next_u32(),
                days: r.next_u32(),
                millis: r.next_u32(),
            }),
        }
    }

    /// A timestamp between 1900 and 2100, in units of `per_second`.
    fn timestamp(&mut self, per_second: i64) -> i64 {
        const SPAN: u64 = 200 * 365 * 86_400;
        let secs = self.rng.below(SPAN) as i64 - 70 * 365 * 86_400;
        secs * per_second + self.rng.below(per_second as u64) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference `pcg32` demo's first outputs for seed 42, stream 54.
    #[test]
    fn pcg32_matches_the_reference() {
        let mut r = Pcg32::new(42, 54);
        let got: Vec<u32> = (0..6).map(|_| r.next_u32()).collect();
        assert_eq!(
            got,
            [0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e]
        );
    }

    #[test]
    fn every_value_encodes() {
        let schema = Schema::parse_str(
            r#"{"type":"record","name":"L","fields":[
                {"name":"v","type":"long"},
                {"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":40,"scale":3}},
                {"name":"f","type":{"type":"fixed","name":"F","size":3,"logicalType":"decimal","precision":9}},
                {"name":"next","type":["null","L"]}]}"#,
        )
        .unwrap();
        let mut g = Generator::new(&schema, 7);
        for _ in 0..500 {
            let v = g.value().unwrap();
            avrokit::to_datum_vec(&v, &schema).unwrap();
        }
    }

    #[test]
    fn a_record_that_contains_itself_is_an_error() {
        let schema =
            Schema::parse_str(r#"{"type":"record","name":"R","fields":[{"name":"r","type":"R"}]}"#);
        if let Ok(schema) = schema {
            assert!(Generator::new(&schema, 1).value().is_err());
        }
    }
}
