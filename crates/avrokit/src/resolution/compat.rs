//! Reader/writer compatibility reports, like Java's `SchemaCompatibility`.
//!
//! The checker walks the same pairs as the plan compiler and asks the same questions of
//! [`super::rules`], but it goes on after a problem and reports every one, each with its path.
//! A reader is *compatible* with a writer when every datum the writer can write can be read:
//! then [`ResolvedPlan::compile`](super::ResolvedPlan::compile) succeeds and no datum fails
//! (except `bytes` promoted to `string` that are not UTF-8, which the specification's
//! promotion cannot represent).
//! The converse does not hold: a plan also compiles when only some data cannot be read (a
//! writer union branch or an enum symbol the reader lacks), and the checker reports those.

use std::collections::HashSet;
use std::fmt;

use super::rules::{self, Path};
use crate::json::default_to_value;
use crate::schema::{NodeId, NodeKind, Schema};

/// The kind of an [`Incompatibility`]; the first six are Java's `SchemaIncompatibilityType`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IncompatibilityKind {
    /// Named types (record, enum, fixed) whose names differ and no reader alias matches.
    NameMismatch,
    /// Fixed types of different sizes.
    FixedSizeMismatch,
    /// Writer enum symbols missing from the reader's enum, which has no default.
    MissingEnumSymbols,
    /// A reader field the writer lacks, without a default.
    ReaderFieldMissingDefaultValue,
    /// Types that neither match nor promote.
    TypeMismatch,
    /// A writer type (or writer union branch) that no branch of the reader's union can read.
    MissingUnionBranch,
    /// Two `decimal` logical types whose scale or precision differ.
    DecimalMismatch,
    /// A reader-only field whose default cannot be converted to a value of its type.
    InvalidDefault,
}

impl IncompatibilityKind {
    /// The name in Java's style: `NAME_MISMATCH`, `TYPE_MISMATCH`, ...
    pub fn as_str(&self) -> &'static str {
        match self {
            IncompatibilityKind::NameMismatch => "NAME_MISMATCH",
            IncompatibilityKind::FixedSizeMismatch => "FIXED_SIZE_MISMATCH",
            IncompatibilityKind::MissingEnumSymbols => "MISSING_ENUM_SYMBOLS",
            IncompatibilityKind::ReaderFieldMissingDefaultValue => {
                "READER_FIELD_MISSING_DEFAULT_VALUE"
            }
            IncompatibilityKind::TypeMismatch => "TYPE_MISMATCH",
            IncompatibilityKind::MissingUnionBranch => "MISSING_UNION_BRANCH",
            IncompatibilityKind::DecimalMismatch => "DECIMAL_MISMATCH",
            IncompatibilityKind::InvalidDefault => "INVALID_DEFAULT",
        }
    }
}

impl fmt::Display for IncompatibilityKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One reason a reader cannot read some writer data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incompatibility {
    kind: IncompatibilityKind,
    path: String,
    location: String,
    message: String,
}

impl Incompatibility {
    /// What is wrong.
    pub fn kind(&self) -> IncompatibilityKind {
        self.kind
    }

    /// Where, as a schema path: the root record's name, `.field` (reader field names), `[]`
    /// for array items, `{}` for map values and `[i]` for the writer's union branch `i`, e.g.
    /// `Order.items[].price`. Empty for a problem at the root of unnamed schemas.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Where, as Java's `SchemaCompatibility` reports it: a JSON pointer into the reader's
    /// schema (`/fields/0/type/items`), with the writer's branch index for a writer union, and
    /// `name`, `size` or `symbols` for the offending attribute.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// A description: `writer long cannot be read as int`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Incompatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if !self.path.is_empty() {
            write!(f, " at {}", self.path)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The result of [`check_compatibility`]: every incompatibility found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Compatibility {
    incompatibilities: Vec<Incompatibility>,
}

impl Compatibility {
    /// True when the reader can read every datum of the writer's schema.
    pub fn is_compatible(&self) -> bool {
        self.incompatibilities.is_empty()
    }

    /// Every incompatibility, in the order the schemas were walked.
    pub fn incompatibilities(&self) -> &[Incompatibility] {
        &self.incompatibilities
    }
}

impl fmt::Display for Compatibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_compatible() {
            return f.write_str("compatible");
        }
        for (i, inc) in self.incompatibilities.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{inc}")?;
        }
        Ok(())
    }
}

/// Both directions of [`check_mutual`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutualCompatibility {
    /// `a` reading data written with `b` (a is the reader).
    pub a_reads_b: Compatibility,
    /// `b` reading data written with `a`.
    pub b_reads_a: Compatibility,
}

impl MutualCompatibility {
    /// True when each schema can read every datum of the other ("full" compatibility).
    pub fn is_compatible(&self) -> bool {
        self.a_reads_b.is_compatible() && self.b_reads_a.is_compatible()
    }
}

/// Checks whether `reader` can read every datum written with `writer`, and reports every
/// incompatibility with its path and kind.
///
/// # Examples
/// ```
/// use avrokit::Schema;
/// use avrokit::resolution::{check_compatibility, IncompatibilityKind};
/// let writer = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
///     {"name":"a","type":"long"},{"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}}]}"#)?;
/// let reader = Schema::parse_str(r#"{"type":"record","name":"R","fields":[
///     {"name":"a","type":"int"},{"name":"e","type":{"type":"enum","name":"E","symbols":["X"]}},
///     {"name":"b","type":"string"}]}"#)?;
/// let c = check_compatibility(&reader, &writer);
/// let found: Vec<_> = c.incompatibilities().iter().map(|i| (i.kind(), i.path())).collect();
/// assert_eq!(found, [
///     (IncompatibilityKind::TypeMismatch, "R.a"),
///     (IncompatibilityKind::MissingEnumSymbols, "R.e"),
///     (IncompatibilityKind::ReaderFieldMissingDefaultValue, "R.b"),
/// ]);
/// # Ok::<(), avrokit::Error>(())
/// ```
pub fn check_compatibility(reader: &Schema, writer: &Schema) -> Compatibility {
    let mut c = Checker {
        writer,
        reader,
        visited: HashSet::new(),
        path: Path::root(reader),
        location: Vec::new(),
        out: Vec::new(),
        depth: 0,
    };
    c.check(writer.root_id(), reader.root_id());
    Compatibility {
        incompatibilities: c.out,
    }
}

/// Checks both directions: `a` reading `b`'s data and `b` reading `a`'s ("full" or mutual
/// compatibility).
///
/// # Examples
/// ```
/// use avrokit::Schema;
/// use avrokit::resolution::check_mutual;
/// let a = Schema::parse_str(r#"{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}"#)?;
/// let b = Schema::parse_str(r#"{"type":"record","name":"R","fields":[{"name":"x","type":"long"}]}"#)?;
/// let m = check_mutual(&a, &b);
/// assert!(m.b_reads_a.is_compatible()); // int promotes to long
/// assert!(!m.a_reads_b.is_compatible()); // long does not narrow to int
/// assert!(!m.is_compatible());
/// # Ok::<(), avrokit::Error>(())
/// ```
pub fn check_mutual(a: &Schema, b: &Schema) -> MutualCompatibility {
    MutualCompatibility {
        a_reads_b: check_compatibility(a, b),
        b_reads_a: check_compatibility(b, a),
    }
}

/// As in the compiler: bounds pathological pairs so the walk stays on the stack.
const MAX_CHECK_DEPTH: usize = 512;

struct Checker<'a> {
    writer: &'a Schema,
    reader: &'a Schema,
    /// Pairs already checked (or being checked): each is reported once, and recursive
    /// schemas terminate.
    visited: HashSet<(NodeId, NodeId)>,
    path: Path,
    location: Vec<String>,
    out: Vec<Incompatibility>,
    depth: usize,
}

impl Checker<'_> {
    fn report(&mut self, kind: IncompatibilityKind, attr: Option<&str>, message: String) {
        let mut location = String::new();
        for seg in self.location.iter().map(String::as_str).chain(attr) {
            location.push('/');
            location.push_str(seg);
        }
        if location.is_empty() {
            location.push('/');
        }
        self.out.push(Incompatibility {
            kind,
            path: self.path.as_str().to_owned(),
            location,
            message,
        });
    }

    fn check(&mut self, w: NodeId, r: NodeId) {
        if !self.visited.insert((w, r)) {
            return;
        }
        if self.depth >= MAX_CHECK_DEPTH {
            self.report(
                IncompatibilityKind::TypeMismatch,
                None,
                format!("the schemas nest deeper than {MAX_CHECK_DEPTH} levels"),
            );
            return;
        }
        self.depth += 1;
        self.check_pair(w, r);
        self.depth -= 1;
    }

    fn check_pair(&mut self, w: NodeId, r: NodeId) {
        let (writer, reader) = (self.writer, self.reader);
        let (wn, rn) = (writer.node(w), reader.node(r));

        if let NodeKind::Union(wu) = &wn.kind {
            for (i, &b) in wu.variants.iter().enumerate() {
                self.path.push_branch(i);
                self.location.push(i.to_string());
                match &rn.kind {
                    NodeKind::Union(ru) => {
                        match rules::select_branch(writer, b, reader, &ru.variants) {
                            Some(j) => self.check(b, ru.variants[j]),
                            None => self.report(
                                IncompatibilityKind::MissingUnionBranch,
                                None,
                                format!(
                                    "reader union lacks writer type {}",
                                    rules::describe(writer.node(b))
                                ),
                            ),
                        }
                    }
                    _ => self.check(b, r),
                }
                self.location.pop();
                self.path.pop();
            }
            return;
        }

        if let NodeKind::Union(ru) = &rn.kind {
            match rules::select_branch(writer, w, reader, &ru.variants) {
                Some(j) => {
                    self.location.push(j.to_string());
                    self.check(w, ru.variants[j]);
                    self.location.pop();
                }
                None => self.report(
                    IncompatibilityKind::MissingUnionBranch,
                    None,
                    format!("reader union lacks writer type {}", rules::describe(wn)),
                ),
            }
            return;
        }

        if !rules::same_type(&wn.kind, &rn.kind) {
            if !rules::promotable(&wn.kind, &rn.kind) {
                self.report(
                    IncompatibilityKind::TypeMismatch,
                    None,
                    rules::mismatch_message(wn, rn, rules::Mismatch::Type),
                );
            }
            return;
        }

        let is_named = matches!(
            rn.kind,
            NodeKind::Record(_) | NodeKind::Enum(_) | NodeKind::Fixed(_)
        );
        if is_named && !rules::names_match(wn, rn) {
            self.report(
                IncompatibilityKind::NameMismatch,
                Some("name"),
                rules::mismatch_message(wn, rn, rules::Mismatch::Name),
            );
        }
        if !rules::decimals_match(wn, rn) {
            self.report(
                IncompatibilityKind::DecimalMismatch,
                None,
                rules::mismatch_message(wn, rn, rules::Mismatch::Decimal),
            );
        }

        match (&wn.kind, &rn.kind) {
            (NodeKind::Fixed(wf), NodeKind::Fixed(rf)) if wf.size != rf.size => self.report(
                IncompatibilityKind::FixedSizeMismatch,
                Some("size"),
                format!(
                    "writer fixed {} has size {}, reader fixed {} has size {}",
                    wf.name, wf.size, rf.name, rf.size
                ),
            ),
            (NodeKind::Enum(we), NodeKind::Enum(re)) => {
                let missing: Vec<&str> = we
                    .symbols
                    .iter()
                    .zip(rules::enum_table(&we.symbols, re))
                    .filter(|(_, m)| m.is_none())
                    .map(|(s, _)| s.as_str())
                    .collect();
                if !missing.is_empty() {
                    self.report(
                        IncompatibilityKind::MissingEnumSymbols,
                        Some("symbols"),
                        format!(
                            "reader enum {} lacks writer symbols [{}] and has no default",
                            re.name,
                            missing.join(", ")
                        ),
                    );
                }
            }
            (NodeKind::Array(wa), NodeKind::Array(ra)) => {
                self.path.push_items();
                self.location.push("items".to_owned());
                self.check(wa.items, ra.items);
                self.location.pop();
                self.path.pop();
            }
            (NodeKind::Map(wm), NodeKind::Map(rm)) => {
                self.path.push_values();
                self.location.push("values".to_owned());
                self.check(wm.values, rm.values);
                self.location.pop();
                self.path.pop();
            }
            (NodeKind::Record(wr), NodeKind::Record(rr)) => {
                let matches = rules::match_fields(wr, rr);
                for (pos, (rf, m)) in rr.fields.iter().zip(matches).enumerate() {
                    self.path.push_field(&rf.name);
                    self.location.push("fields".to_owned());
                    self.location.push(pos.to_string());
                    match (m, &rf.default) {
                        (Some(wi), _) => {
                            self.location.push("type".to_owned());
                            self.check(wr.fields[wi].schema, rf.schema);
                            self.location.pop();
                        }
                        (None, None) => self.report(
                            IncompatibilityKind::ReaderFieldMissingDefaultValue,
                            None,
                            format!(
                                "the writer's record {} has no field \"{}\" and the reader's \
                                 field has no default",
                                wr.name, rf.name
                            ),
                        ),
                        (None, Some(json)) => {
                            if let Err(why) = default_to_value(json, reader, rf.schema) {
                                self.report(
                                    IncompatibilityKind::InvalidDefault,
                                    Some("default"),
                                    format!("invalid default: {why}"),
                                );
                            }
                        }
                    }
                    self.location.pop();
                    self.location.pop();
                    self.path.pop();
                }
            }
            _ => {}
        }
    }
}
