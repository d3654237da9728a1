//! Names, namespaces and fullnames of named types.

use std::fmt;

/// The fullname of a named type (record, enum, fixed), split into namespace and simple name.
///
/// # Examples
/// ```
/// use avrokit::schema::Name;
/// let n = Name::new("a.b.Point");
/// assert_eq!(n.name(), "Point");
/// assert_eq!(n.namespace(), Some("a.b"));
/// assert_eq!(n.fullname(), "a.b.Point");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name {
    /// `namespace.name`, or just `name` in the null namespace.
    full: String,
    /// Byte index where the simple name starts in `full`.
    split: usize,
}

impl Name {
    /// A name from a fullname (`"a.b.Point"`) or a simple name in the null namespace.
    /// This does not validate; the schema parser does.
    pub fn new(fullname: &str) -> Name {
        let split = fullname.rfind('.').map(|i| i + 1).unwrap_or(0);
        Name {
            full: fullname.to_owned(),
            split,
        }
    }

    /// A name from a simple name and an optional namespace (an empty namespace is the null one).
    /// If `name` already contains a dot it is a fullname and `namespace` is ignored, as the
    /// specification says.
    pub fn with_namespace(name: &str, namespace: Option<&str>) -> Name {
        match namespace {
            Some(ns) if !ns.is_empty() && !name.contains('.') => Name {
                full: format!("{ns}.{name}"),
                split: ns.len() + 1,
            },
            _ => Name::new(name),
        }
    }

    /// The simple name.
    pub fn name(&self) -> &str {
        &self.full[self.split..]
    }

    /// The namespace, `None` for the null namespace.
    pub fn namespace(&self) -> Option<&str> {
        if self.split == 0 {
            None
        } else {
            Some(&self.full[..self.split - 1])
        }
    }

    /// The fullname.
    pub fn fullname(&self) -> &str {
        &self.full
    }

    /// True when `s` is a valid simple name (also the rule for field names and enum symbols):
    /// `[A-Za-z_][A-Za-z0-9_]*`, ASCII only, as the specification writes it.
    ///
    /// # Examples
    /// ```
    /// use avrokit::schema::Name;
    /// assert!(Name::is_valid_simple_name("_Point3"));
    /// assert!(!Name::is_valid_simple_name("3d"));
    /// assert!(!Name::is_valid_simple_name("a.b"));
    /// assert!(!Name::is_valid_simple_name(""));
    /// ```
    pub fn is_valid_simple_name(s: &str) -> bool {
        let mut bytes = s.bytes();
        match bytes.next() {
            Some(b) if b.is_ascii_alphabetic() || b == b'_' => {}
            _ => return false,
        }
        bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
    }

    /// True when `s` is a valid non-empty namespace: simple names separated by single dots.
    ///
    /// The empty string (the null namespace, allowed as a `namespace` attribute) is *not*
    /// accepted here, since it may not appear as part of a dotted sequence (`a..b`, `.a`).
    ///
    /// # Examples
    /// ```
    /// use avrokit::schema::Name;
    /// assert!(Name::is_valid_namespace("org.apache.avro"));
    /// assert!(!Name::is_valid_namespace("org..avro"));
    /// assert!(!Name::is_valid_namespace(""));
    /// ```
    pub fn is_valid_namespace(s: &str) -> bool {
        s.split('.').all(Name::is_valid_simple_name)
    }

    /// True when `s` is a valid name attribute: a simple name, or a fullname whose namespace
    /// part is a valid namespace.
    ///
    /// # Examples
    /// ```
    /// use avrokit::schema::Name;
    /// assert!(Name::is_valid_fullname("a.b.C"));
    /// assert!(Name::is_valid_fullname("C"));
    /// assert!(!Name::is_valid_fullname(".C"));
    /// assert!(!Name::is_valid_fullname("a.b."));
    /// ```
    pub fn is_valid_fullname(s: &str) -> bool {
        Name::is_valid_namespace(s)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.full)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_names() {
        for ok in ["a", "A", "_", "_1", "abc_DEF_123", "record", "int"] {
            assert!(Name::is_valid_simple_name(ok), "{ok}");
        }
        for bad in ["", "1", "1a", "a-b", "a.b", "a b", "é", "a$", " a"] {
            assert!(!Name::is_valid_simple_name(bad), "{bad}");
        }
    }

    #[test]
    fn namespaces() {
        for ok in ["a", "a.b", "org.apache.avro", "_._"] {
            assert!(Name::is_valid_namespace(ok), "{ok}");
        }
        for bad in ["", ".", "a.", ".a", "a..b", "a.1b", "a.b-c"] {
            assert!(!Name::is_valid_namespace(bad), "{bad}");
        }
    }

    #[test]
    fn split_and_join() {
        let n = Name::with_namespace("X", Some("org.foo"));
        assert_eq!((n.name(), n.namespace()), ("X", Some("org.foo")));
        let n = Name::with_namespace("a.b.X", Some("ignored"));
        assert_eq!((n.name(), n.namespace()), ("X", Some("a.b")));
        let n = Name::with_namespace("X", Some(""));
        assert_eq!((n.name(), n.namespace(), n.fullname()), ("X", None, "X"));
        let n = Name::with_namespace("X", None);
        assert_eq!(n.namespace(), None);
    }
}
