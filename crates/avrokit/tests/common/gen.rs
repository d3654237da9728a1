//! Random schemas and matching values for proptest.
//!
//! A schema is generated as a tree ([`G`]) and then built into a [`Model`]: named types get
//! unique names (`T0`, `T1`, ...) in a mix of namespaces and spellings (inherited, `namespace`
//! attribute, dotted fullname), references to earlier named types ([`G::Again`]) resolve to a
//! type that is already complete at that point, and union branches are de-duplicated the way
//! the specification requires (no nested unions, at most one branch of each unnamed kind, named
//! branches distinct by name). The model writes the schema JSON, its expected Parsing Canonical
//! Form, and gives a value strategy for any of its types.
//!
//! Values are generated in the form our decoder produces (logical types as their own `Value`
//! variants, fixed decimals with exactly the fixed's size), so a round trip must give back the
//! very same value.

use std::collections::HashSet;
use std::sync::Arc;

use avrokit::value::{Decimal, Duration};
use avrokit::Value;
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value as Json};

/// The primitive types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prim {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
}

impl Prim {
    pub fn name(self) -> &'static str {
        match self {
            Prim::Null => "null",
            Prim::Boolean => "boolean",
            Prim::Int => "int",
            Prim::Long => "long",
            Prim::Float => "float",
            Prim::Double => "double",
            Prim::Bytes => "bytes",
            Prim::String => "string",
        }
    }
}

/// Logical types on primitives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logical {
    Date,
    TimeMillis,
    TimeMicros,
    TimestampMillis,
    TimestampMicros,
    TimestampNanos,
    LocalTimestampMillis,
    LocalTimestampMicros,
    LocalTimestampNanos,
    /// `decimal` on `bytes`; `scale_written` false leaves the attribute out (scale 0).
    DecimalBytes {
        precision: u32,
        scale: u32,
        scale_written: bool,
    },
    BigDecimal,
    UuidString,
}

impl Logical {
    /// The annotated primitive.
    pub fn prim(self) -> Prim {
        match self {
            Logical::Date | Logical::TimeMillis => Prim::Int,
            Logical::TimeMicros
            | Logical::TimestampMillis
            | Logical::TimestampMicros
            | Logical::TimestampNanos
            | Logical::LocalTimestampMillis
            | Logical::LocalTimestampMicros
            | Logical::LocalTimestampNanos => Prim::Long,
            Logical::DecimalBytes { .. } | Logical::BigDecimal => Prim::Bytes,
            Logical::UuidString => Prim::String,
        }
    }

    /// The `logicalType` attribute.
    pub fn name(self) -> &'static str {
        match self {
            Logical::Date => "date",
            Logical::TimeMillis => "time-millis",
            Logical::TimeMicros => "time-micros",
            Logical::TimestampMillis => "timestamp-millis",
            Logical::TimestampMicros => "timestamp-micros",
            Logical::TimestampNanos => "timestamp-nanos",
            Logical::LocalTimestampMillis => "local-timestamp-millis",
            Logical::LocalTimestampMicros => "local-timestamp-micros",
            Logical::LocalTimestampNanos => "local-timestamp-nanos",
            Logical::DecimalBytes { .. } => "decimal",
            Logical::BigDecimal => "big-decimal",
            Logical::UuidString => "uuid",
        }
    }
}

/// Logical types on `fixed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixedLogical {
    Decimal { precision: u32, scale: u32 },
    Uuid,
    Duration,
}

/// How a named type spells its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameForm {
    /// `"name": "T3"`: the namespace is the enclosing one.
    Inherit,
    /// `"name": "T3", "namespace": ns`.
    Namespace(&'static str),
    /// `"name": "ns.T3"`.
    Dotted(&'static str),
}

/// A generated schema before names are assigned.
#[derive(Debug, Clone)]
pub enum G {
    Prim(Prim),
    Logical(Logical),
    Record {
        fields: Vec<G>,
        form: NameForm,
        doc: bool,
    },
    Enum {
        symbols: usize,
        form: NameForm,
    },
    Fixed {
        size: usize,
        logical: Option<FixedLogical>,
        form: NameForm,
    },
    Array(Box<G>),
    Map(Box<G>),
    Union(Vec<G>),
    /// A reference to a named type defined earlier (picked modulo the ones available).
    Again(usize),
    /// A recursive linked list: `record L { value: item, next: ["null", L] }`.
    List {
        item: Box<G>,
        form: NameForm,
    },
}

/// A built schema type.
#[derive(Debug, Clone, PartialEq)]
pub enum T {
    Prim(Prim),
    Logical(Logical),
    Named(usize),
    Array(Box<T>),
    Map(Box<T>),
    Union(Vec<T>),
}

/// A named type.
#[derive(Debug, Clone)]
pub struct Def {
    /// The simple name.
    pub name: String,
    /// The namespace ("" for none).
    pub namespace: String,
    pub form: NameForm,
    pub doc: Option<String>,
    pub kind: DefKind,
}

impl Def {
    pub fn fullname(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}.{}", self.namespace, self.name)
        }
    }
}

#[derive(Debug, Clone)]
pub enum DefKind {
    /// Fields in order; `list` marks the recursive linked list (fields `value` and `next`).
    Record {
        fields: Vec<(String, T)>,
        list: bool,
    },
    Enum(Vec<String>),
    Fixed {
        size: usize,
        logical: Option<FixedLogical>,
    },
}

/// A generated schema: its named types and its root type.
#[derive(Debug, Clone)]
pub struct Model {
    pub defs: Vec<Def>,
    pub root: T,
}

#[derive(PartialEq, Eq, Hash)]
enum Key {
    Prim(Prim),
    Array,
    Map,
    Named(usize),
}

struct Builder {
    defs: Vec<Def>,
    done: Vec<bool>,
}

impl Builder {
    fn start(&mut self, form: NameForm, ns: &str, doc: Option<String>) -> (usize, String) {
        let idx = self.defs.len();
        let namespace = match form {
            NameForm::Inherit => ns.to_owned(),
            NameForm::Namespace(n) | NameForm::Dotted(n) => n.to_owned(),
        };
        self.defs.push(Def {
            name: format!("T{idx}"),
            namespace: namespace.clone(),
            form,
            doc,
            kind: DefKind::Enum(Vec::new()),
        });
        self.done.push(false);
        (idx, namespace)
    }

    fn finish(&mut self, idx: usize, kind: DefKind) -> T {
        self.defs[idx].kind = kind;
        self.done[idx] = true;
        T::Named(idx)
    }

    /// A complete named type that can be referred to by fullname from namespace `ns`: one with
    /// no namespace can only be named from places with no namespace.
    fn again(&self, k: usize, ns: &str) -> T {
        let candidates: Vec<usize> = (0..self.defs.len())
            .filter(|&i| self.done[i] && (!self.defs[i].namespace.is_empty() || ns.is_empty()))
            .collect();
        if candidates.is_empty() {
            T::Prim(Prim::Null)
        } else {
            T::Named(candidates[k % candidates.len()])
        }
    }

    fn build(&mut self, g: &G, ns: &str) -> T {
        match g {
            G::Prim(p) => T::Prim(*p),
            G::Logical(l) => T::Logical(*l),
            G::Record { fields, form, doc } => {
                let doc = doc.then(|| "a \"generated\" record".to_owned());
                let (idx, ns) = self.start(*form, ns, doc);
                let fields = fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (format!("f{i}"), self.build(f, &ns)))
                    .collect();
                self.finish(
                    idx,
                    DefKind::Record {
                        fields,
                        list: false,
                    },
                )
            }
            G::Enum { symbols, form } => {
                let (idx, _) = self.start(*form, ns, None);
                let symbols = (0..*symbols).map(|i| format!("S{i}")).collect();
                self.finish(idx, DefKind::Enum(symbols))
            }
            G::Fixed {
                size,
                logical,
                form,
            } => {
                let (idx, _) = self.start(*form, ns, None);
                self.finish(
                    idx,
                    DefKind::Fixed {
                        size: *size,
                        logical: *logical,
                    },
                )
            }
            G::Array(g) => T::Array(Box::new(self.build(g, ns))),
            G::Map(g) => T::Map(Box::new(self.build(g, ns))),
            G::Union(branches) => {
                let mut seen = HashSet::new();
                let mut out = Vec::new();
                for b in branches {
                    let key = match b {
                        G::Union(_) => continue,
                        G::Again(k) => match self.again(*k, ns) {
                            T::Named(i) => Key::Named(i),
                            _ => Key::Prim(Prim::Null),
                        },
                        G::Prim(p) => Key::Prim(*p),
                        G::Logical(l) => Key::Prim(l.prim()),
                        G::Array(_) => Key::Array,
                        G::Map(_) => Key::Map,
                        // A new named type: its name is new too; a later reference to it
                        // must count as a repeat.
                        G::Record { .. } | G::Enum { .. } | G::Fixed { .. } | G::List { .. } => {
                            let t = self.build(b, ns);
                            if let T::Named(i) = t {
                                seen.insert(Key::Named(i));
                            }
                            out.push(t);
                            continue;
                        }
                    };
                    if seen.insert(key) {
                        out.push(self.build(b, ns));
                    }
                }
                if out.is_empty() {
                    out.push(T::Prim(Prim::Null));
                }
                T::Union(out)
            }
            G::Again(k) => self.again(*k, ns),
            G::List { item, form } => {
                let (idx, ns) = self.start(*form, ns, None);
                let item = self.build(item, &ns);
                let next = T::Union(vec![T::Prim(Prim::Null), T::Named(idx)]);
                self.finish(
                    idx,
                    DefKind::Record {
                        fields: vec![("value".to_owned(), item), ("next".to_owned(), next)],
                        list: true,
                    },
                )
            }
        }
    }
}

impl Model {
    /// Names the types of a generated tree.
    pub fn build(g: &G) -> Model {
        let mut b = Builder {
            defs: Vec::new(),
            done: Vec::new(),
        };
        let root = b.build(g, "");
        Model { defs: b.defs, root }
    }

    /// The schema JSON.
    pub fn json(&self) -> Json {
        let mut emitted = vec![false; self.defs.len()];
        self.json_of(&self.root, &mut emitted)
    }

    /// The schema JSON as text.
    pub fn json_string(&self) -> String {
        self.json().to_string()
    }

    fn json_of(&self, t: &T, emitted: &mut [bool]) -> Json {
        match t {
            T::Prim(p) => json!(p.name()),
            T::Logical(l) => {
                let mut o = json!({"type": l.prim().name(), "logicalType": l.name()});
                if let Logical::DecimalBytes {
                    precision,
                    scale,
                    scale_written,
                } = l
                {
                    o["precision"] = json!(precision);
                    if *scale_written {
                        o["scale"] = json!(scale);
                    }
                }
                o
            }
            T::Array(t) => json!({"type": "array", "items": self.json_of(t, emitted)}),
            T::Map(t) => json!({"type": "map", "values": self.json_of(t, emitted)}),
            T::Union(ts) => Json::Array(ts.iter().map(|t| self.json_of(t, emitted)).collect()),
            T::Named(i) => {
                let def = &self.defs[*i];
                if emitted[*i] {
                    return json!(def.fullname());
                }
                emitted[*i] = true;
                let mut o = serde_json::Map::new();
                let kind = match def.kind {
                    DefKind::Record { .. } => "record",
                    DefKind::Enum(_) => "enum",
                    DefKind::Fixed { .. } => "fixed",
                };
                o.insert("type".into(), json!(kind));
                match def.form {
                    NameForm::Inherit => {
                        o.insert("name".into(), json!(def.name));
                    }
                    NameForm::Namespace(ns) => {
                        o.insert("name".into(), json!(def.name));
                        o.insert("namespace".into(), json!(ns));
                    }
                    NameForm::Dotted(_) => {
                        o.insert("name".into(), json!(def.fullname()));
                    }
                }
                if let Some(doc) = &def.doc {
                    o.insert("doc".into(), json!(doc));
                    // A custom property: kept by the parser, dropped by the canonical form.
                    o.insert("x-generated".into(), json!({"by": "proptest", "n": [1, 2]}));
                }
                match &def.kind {
                    DefKind::Record { fields, .. } => {
                        let fields: Vec<Json> = fields
                            .iter()
                            .map(
                                |(name, t)| json!({"name": name, "type": self.json_of(t, emitted)}),
                            )
                            .collect();
                        o.insert("fields".into(), Json::Array(fields));
                    }
                    DefKind::Enum(symbols) => {
                        o.insert("symbols".into(), json!(symbols));
                    }
                    DefKind::Fixed { size, logical } => {
                        o.insert("size".into(), json!(size));
                        match logical {
                            None => {}
                            Some(FixedLogical::Decimal { precision, scale }) => {
                                o.insert("logicalType".into(), json!("decimal"));
                                o.insert("precision".into(), json!(precision));
                                o.insert("scale".into(), json!(scale));
                            }
                            Some(FixedLogical::Uuid) => {
                                o.insert("logicalType".into(), json!("uuid"));
                            }
                            Some(FixedLogical::Duration) => {
                                o.insert("logicalType".into(), json!("duration"));
                            }
                        }
                    }
                }
                Json::Object(o)
            }
        }
    }

    /// The Parsing Canonical Form, written independently of the library from the
    /// specification's rules: primitives as bare names, logical types stripped, fullnames,
    /// only `name, type, fields, symbols, items, values, size` in that order, no whitespace,
    /// a named type in full the first time and by fullname after.
    pub fn canonical(&self) -> String {
        let mut emitted = vec![false; self.defs.len()];
        let mut out = String::new();
        self.pcf(&self.root, &mut emitted, &mut out);
        out
    }

    fn pcf(&self, t: &T, emitted: &mut [bool], out: &mut String) {
        let q = |s: &str| serde_json::to_string(s).expect("a string");
        match t {
            T::Prim(p) => out.push_str(&q(p.name())),
            T::Logical(l) => out.push_str(&q(l.prim().name())),
            T::Array(t) => {
                out.push_str(r#"{"type":"array","items":"#);
                self.pcf(t, emitted, out);
                out.push('}');
            }
            T::Map(t) => {
                out.push_str(r#"{"type":"map","values":"#);
                self.pcf(t, emitted, out);
                out.push('}');
            }
            T::Union(ts) => {
                out.push('[');
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.pcf(t, emitted, out);
                }
                out.push(']');
            }
            T::Named(i) => {
                let def = &self.defs[*i];
                if emitted[*i] {
                    out.push_str(&q(&def.fullname()));
                    return;
                }
                emitted[*i] = true;
                out.push_str(&format!(r#"{{"name":{},"type":"#, q(&def.fullname())));
                match &def.kind {
                    DefKind::Record { fields, .. } => {
                        out.push_str(r#""record","fields":["#);
                        for (k, (name, t)) in fields.iter().enumerate() {
                            if k > 0 {
                                out.push(',');
                            }
                            out.push_str(&format!(r#"{{"name":{},"type":"#, q(name)));
                            self.pcf(t, emitted, out);
                            out.push('}');
                        }
                        out.push_str("]}");
                    }
                    DefKind::Enum(symbols) => {
                        let s: Vec<String> = symbols.iter().map(|s| q(s)).collect();
                        out.push_str(&format!(r#""enum","symbols":[{}]}}"#, s.join(",")));
                    }
                    DefKind::Fixed { size, .. } => {
                        out.push_str(&format!(r#""fixed","size":{size}}}"#));
                    }
                }
            }
        }
    }
}

/// The largest decimal precision a fixed of `size` bytes can hold (as the specification and
/// apache-avro compute it).
pub fn max_precision(size: usize) -> u32 {
    (2f64.powi(8 * size as i32 - 1) - 1.0).log10().floor() as u32
}

/// An unscaled decimal value of at most `precision` digits, of every magnitude up to that.
fn unscaled_within(precision: u32) -> impl Strategy<Value = i128> {
    (any::<i128>(), 1..=precision.min(38)).prop_map(|(v, digits)| v % 10i128.pow(digits))
}

fn name_form() -> impl Strategy<Value = NameForm> {
    prop_oneof![
        4 => Just(NameForm::Inherit),
        1 => select(vec!["n1", "org.example"]).prop_map(NameForm::Namespace),
        1 => select(vec!["n2", "org.other"]).prop_map(NameForm::Dotted),
    ]
}

fn prim() -> impl Strategy<Value = Prim> {
    select(vec![
        Prim::Null,
        Prim::Boolean,
        Prim::Int,
        Prim::Long,
        Prim::Float,
        Prim::Double,
        Prim::Bytes,
        Prim::String,
    ])
}

fn logical() -> impl Strategy<Value = Logical> {
    prop_oneof![
        select(vec![
            Logical::Date,
            Logical::TimeMillis,
            Logical::TimeMicros,
            Logical::TimestampMillis,
            Logical::TimestampMicros,
            Logical::TimestampNanos,
            Logical::LocalTimestampMillis,
            Logical::LocalTimestampMicros,
            Logical::LocalTimestampNanos,
            Logical::BigDecimal,
            Logical::UuidString,
        ]),
        (1u32..=40)
            .prop_flat_map(|p| (Just(p), 0..=p, any::<bool>()))
            .prop_map(|(precision, scale, w)| Logical::DecimalBytes {
                precision,
                scale,
                scale_written: w || scale != 0,
            }),
    ]
}

fn fixed() -> impl Strategy<Value = G> {
    prop_oneof![
        3 => (0usize..20, name_form()).prop_map(|(size, form)| G::Fixed { size, logical: None, form }),
        1 => name_form().prop_map(|form| G::Fixed { size: 16, logical: Some(FixedLogical::Uuid), form }),
        1 => name_form().prop_map(|form| G::Fixed { size: 12, logical: Some(FixedLogical::Duration), form }),
        1 => (1usize..=16)
            .prop_flat_map(|size| (Just(size), 1..=max_precision(size)))
            .prop_flat_map(|(size, p)| (Just(size), Just(p), 0..=p, name_form()))
            .prop_map(|(size, precision, scale, form)| G::Fixed {
                size,
                logical: Some(FixedLogical::Decimal { precision, scale }),
                form,
            }),
    ]
}

/// Random schema trees.
pub fn arb_g() -> impl Strategy<Value = G> {
    let leaf = prop_oneof![
        5 => prim().prop_map(G::Prim),
        3 => logical().prop_map(G::Logical),
        2 => (1usize..6, name_form()).prop_map(|(symbols, form)| G::Enum { symbols, form }),
        2 => fixed(),
        6 => any::<usize>().prop_map(G::Again),
    ];
    leaf.prop_recursive(5, 40, 5, |inner| {
        prop_oneof![
            4 => (vec(inner.clone(), 0..5), name_form(), any::<bool>())
                .prop_map(|(fields, form, doc)| G::Record { fields, form, doc }),
            2 => inner.clone().prop_map(|g| G::Array(Box::new(g))),
            2 => inner.clone().prop_map(|g| G::Map(Box::new(g))),
            3 => vec(inner.clone(), 1..5).prop_map(G::Union),
            1 => (inner, name_form()).prop_map(|(g, form)| G::List { item: Box::new(g), form }),
        ]
    })
}

/// Random schemas: mostly records of several fields (as real schemas are, and so that later
/// fields can refer to types defined in earlier ones), sometimes any type at all.
pub fn arb_model() -> impl Strategy<Value = Arc<Model>> {
    let root = prop_oneof![
        1 => arb_g(),
        3 => (vec(arb_g(), 1..7), name_form(), any::<bool>())
            .prop_map(|(fields, form, doc)| G::Record { fields, form, doc }),
    ];
    root.prop_map(|g| Arc::new(Model::build(&g)))
}

/// Random schemas with a value of each.
pub fn arb_case() -> impl Strategy<Value = (Arc<Model>, Value)> {
    arb_model().prop_flat_map(|m| {
        let v = value_strategy(&m, &m.root);
        (Just(m), v)
    })
}

fn int() -> BoxedStrategy<i32> {
    prop_oneof![
        3 => any::<i32>(),
        1 => select(vec![0, -1, 1, 63, -64, 64, -65, 8191, -8192, 8192, i32::MIN, i32::MAX]),
    ]
    .boxed()
}

fn long() -> BoxedStrategy<i64> {
    prop_oneof![
        3 => any::<i64>(),
        1 => int().prop_map(i64::from),
        1 => select(vec![i64::MIN, i64::MAX, 1 << 62, -(1 << 62), (1 << 35) - 1]),
    ]
    .boxed()
}

fn float() -> BoxedStrategy<f32> {
    prop_oneof![
        3 => any::<f32>(),
        1 => any::<u32>().prop_map(f32::from_bits),
        1 => select(vec![
            0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE,
            f32::from_bits(0x7fc0_0000), f32::from_bits(0xffc0_0001), f32::from_bits(0x7f80_0001),
        ]),
    ]
    .boxed()
}

fn double() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => any::<f64>(),
        1 => any::<u64>().prop_map(f64::from_bits),
        1 => select(vec![
            0.0f64, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE,
            f64::from_bits(0x7ff8_0000_0000_0000), f64::from_bits(0xfff0_0000_0000_0001),
        ]),
    ]
    .boxed()
}

fn text(max: usize) -> BoxedStrategy<String> {
    prop_oneof![
        3 => proptest::string::string_regex(&format!("[a-z]{{0,{max}}}")).expect("regex"),
        2 => proptest::string::string_regex(&format!("(?s).{{0,{max}}}")).expect("regex"),
    ]
    .boxed()
}

/// Values of type `t` of model `m`, in the form the decoder gives back.
pub fn value_strategy(m: &Arc<Model>, t: &T) -> BoxedStrategy<Value> {
    match t {
        T::Prim(p) => match p {
            Prim::Null => Just(Value::Null).boxed(),
            Prim::Boolean => any::<bool>().prop_map(Value::Boolean).boxed(),
            Prim::Int => int().prop_map(Value::Int).boxed(),
            Prim::Long => long().prop_map(Value::Long).boxed(),
            Prim::Float => float().prop_map(Value::Float).boxed(),
            Prim::Double => double().prop_map(Value::Double).boxed(),
            Prim::Bytes => vec(any::<u8>(), 0..12).prop_map(Value::Bytes).boxed(),
            Prim::String => text(10).prop_map(Value::String).boxed(),
        },
        T::Logical(l) => match *l {
            Logical::Date => int().prop_map(Value::Date).boxed(),
            Logical::TimeMillis => int().prop_map(Value::TimeMillis).boxed(),
            Logical::TimeMicros => long().prop_map(Value::TimeMicros).boxed(),
            Logical::TimestampMillis => long().prop_map(Value::TimestampMillis).boxed(),
            Logical::TimestampMicros => long().prop_map(Value::TimestampMicros).boxed(),
            Logical::TimestampNanos => long().prop_map(Value::TimestampNanos).boxed(),
            Logical::LocalTimestampMillis => long().prop_map(Value::LocalTimestampMillis).boxed(),
            Logical::LocalTimestampMicros => long().prop_map(Value::LocalTimestampMicros).boxed(),
            Logical::LocalTimestampNanos => long().prop_map(Value::LocalTimestampNanos).boxed(),
            // Non-empty two's-complement bytes (apache-avro cannot write empty ones) within the
            // precision, which every writer requires, sometimes with redundant sign bytes.
            Logical::DecimalBytes {
                precision, scale, ..
            } => (unscaled_within(precision), 0usize..3)
                .prop_map(move |(v, pad)| {
                    let min = Decimal::from_i128(v, 0);
                    let fill = if v < 0 { 0xff } else { 0 };
                    let mut b = vec![fill; pad];
                    b.extend_from_slice(min.unscaled());
                    Value::Decimal(Decimal::new(b, scale))
                })
                .boxed(),
            // Minimal two's-complement bytes: what apache-avro (num-bigint) writes too.
            Logical::BigDecimal => (any::<i64>(), 0u32..20)
                .prop_map(|(n, s)| Value::BigDecimal(Decimal::from_i128(i128::from(n), s)))
                .boxed(),
            Logical::UuidString => any::<[u8; 16]>().prop_map(Value::Uuid).boxed(),
        },
        T::Array(t) => vec(value_strategy(m, t), 0..4)
            .prop_map(Value::Array)
            .boxed(),
        T::Map(t) => btree_map(text(6), value_strategy(m, t), 0..4)
            .prop_map(|entries| Value::Map(entries.into_iter().collect()))
            .boxed(),
        T::Union(ts) => {
            let branches: Vec<BoxedStrategy<Value>> = ts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    value_strategy(m, t)
                        .prop_map(move |v| Value::Union(i as u32, Box::new(v)))
                        .boxed()
                })
                .collect();
            proptest::strategy::Union::new(branches).boxed()
        }
        T::Named(i) => match &m.defs[*i].kind {
            DefKind::Record {
                fields,
                list: false,
            } => {
                let fields: Vec<BoxedStrategy<Value>> =
                    fields.iter().map(|(_, t)| value_strategy(m, t)).collect();
                fields.prop_map(Value::Record).boxed()
            }
            DefKind::Record { fields, list: true } => vec(value_strategy(m, &fields[0].1), 1..4)
                .prop_map(|items| {
                    let mut next = Value::Union(0, Box::new(Value::Null));
                    let mut items = items.into_iter().rev();
                    let last = items.next().expect("one item at least");
                    let mut node = Value::Record(vec![last, next]);
                    for item in items {
                        next = Value::Union(1, Box::new(node));
                        node = Value::Record(vec![item, next]);
                    }
                    node
                })
                .boxed(),
            DefKind::Enum(symbols) => (0..symbols.len() as u32).prop_map(Value::Enum).boxed(),
            DefKind::Fixed { size, logical } => match *logical {
                None => vec(any::<u8>(), *size).prop_map(Value::Fixed).boxed(),
                Some(FixedLogical::Decimal { precision, scale }) => {
                    let size = *size;
                    unscaled_within(precision)
                        .prop_map(move |v| {
                            let b = v.to_be_bytes()[16 - size..].to_vec();
                            Value::Decimal(Decimal::new(b, scale))
                        })
                        .boxed()
                }
                Some(FixedLogical::Uuid) => any::<[u8; 16]>().prop_map(Value::Uuid).boxed(),
                Some(FixedLogical::Duration) => any::<(u32, u32, u32)>()
                    .prop_map(|(months, days, millis)| {
                        Value::Duration(Duration {
                            months,
                            days,
                            millis,
                        })
                    })
                    .boxed(),
            },
        },
    }
}
