//! The data sets as `apache-avro` generic values (records by field name), for its `Value`
//! rows; built at init, outside the timed region.

use serde_bytes::ByteBuf;

use crate::data::avro3451::{Small, UserInfo};
use crate::data::basic::Vals;
use crate::data::container::{Mixed, SYMBOLS};
use crate::data::generic::{Nested, Strings3, D};
use crate::data::realistic::{User, STATUS_SYMBOLS};
use crate::data::record::Rec;

/// An `apache-avro` generic value.
pub type AValue = apache_avro::types::Value;

/// Builds an `apache-avro` record value from `(field, value)` pairs.
pub fn arecord(fields: impl IntoIterator<Item = (&'static str, AValue)>) -> AValue {
    AValue::Record(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// An item as an `apache-avro` value of its schema.
pub trait ToApache {
    /// The value.
    fn to_apache(&self) -> AValue;
}

impl ToApache for i32 {
    fn to_apache(&self) -> AValue {
        AValue::Int(*self)
    }
}

impl ToApache for i64 {
    fn to_apache(&self) -> AValue {
        AValue::Long(*self)
    }
}

impl ToApache for f32 {
    fn to_apache(&self) -> AValue {
        AValue::Float(*self)
    }
}

impl ToApache for f64 {
    fn to_apache(&self) -> AValue {
        AValue::Double(*self)
    }
}

impl ToApache for bool {
    fn to_apache(&self) -> AValue {
        AValue::Boolean(*self)
    }
}

impl ToApache for ByteBuf {
    fn to_apache(&self) -> AValue {
        AValue::Bytes(self.to_vec())
    }
}

impl ToApache for String {
    fn to_apache(&self) -> AValue {
        AValue::String(self.clone())
    }
}

impl ToApache for Vals {
    fn to_apache(&self) -> AValue {
        arecord([
            ("f1", AValue::Float(self.f1)),
            ("f2", AValue::Float(self.f2)),
            ("f3", AValue::Float(self.f3)),
            ("f4", AValue::Float(self.f4)),
        ])
    }
}

impl ToApache for Rec {
    fn to_apache(&self) -> AValue {
        arecord([
            ("f1", AValue::Double(self.f1)),
            ("f2", AValue::Double(self.f2)),
            ("f3", AValue::Double(self.f3)),
            ("f4", AValue::Int(self.f4)),
            ("f5", AValue::Int(self.f5)),
            ("f6", AValue::Int(self.f6)),
        ])
    }
}

impl ToApache for Strings3 {
    fn to_apache(&self) -> AValue {
        arecord([
            ("f1", AValue::String(self.f1.clone())),
            ("f2", AValue::String(self.f2.clone())),
            ("f3", AValue::String(self.f3.clone())),
        ])
    }
}

impl ToApache for Nested {
    fn to_apache(&self) -> AValue {
        let d = |x: D| arecord([("dbl", AValue::Double(x.dbl))]);
        arecord([
            ("f1", d(self.f1)),
            ("f2", d(self.f2)),
            ("f3", d(self.f3)),
            ("f4", AValue::Int(self.f4)),
            ("f5", AValue::Int(self.f5)),
            ("f6", AValue::Int(self.f6)),
        ])
    }
}

impl ToApache for Small {
    fn to_apache(&self) -> AValue {
        arecord([("field", AValue::String(self.field.clone()))])
    }
}

impl ToApache for UserInfo {
    fn to_apache(&self) -> AValue {
        let s = |v: &String| AValue::String(v.clone());
        let a = &self.address;
        arecord([
            ("username", s(&self.username)),
            ("age", AValue::Int(self.age)),
            ("phone", s(&self.phone)),
            ("housenum", s(&self.housenum)),
            (
                "address",
                arecord([
                    ("street", s(&a.street)),
                    ("city", s(&a.city)),
                    ("state_prov", s(&a.state_prov)),
                    ("country", s(&a.country)),
                    ("zip", s(&a.zip)),
                ]),
            ),
        ])
    }
}

impl ToApache for Mixed {
    fn to_apache(&self) -> AValue {
        let r = self;
        arecord([
            ("i", AValue::Int(r.i)),
            ("l", AValue::Long(r.l)),
            ("d", AValue::Double(r.d)),
            ("f", AValue::Float(r.f)),
            ("b", AValue::Boolean(r.b)),
            ("s", AValue::String(r.s.clone())),
            ("by", AValue::Bytes(r.by.clone())),
            (
                "e",
                AValue::Enum(r.e as u32, SYMBOLS[r.e as usize].to_owned()),
            ),
            (
                "u",
                match &r.u {
                    None => AValue::Union(0, Box::new(AValue::Null)),
                    Some(s) => AValue::Union(1, Box::new(AValue::String(s.clone()))),
                },
            ),
            (
                "a",
                AValue::Array(r.a.iter().map(|&x| AValue::Long(x)).collect()),
            ),
            (
                "m",
                AValue::Map(
                    r.m.iter()
                        .map(|(k, &v)| (k.clone(), AValue::Int(v)))
                        .collect(),
                ),
            ),
            (
                "n",
                arecord([
                    ("id", AValue::Long(r.n.id)),
                    ("label", AValue::String(r.n.label.clone())),
                ]),
            ),
        ])
    }
}

/// `None` as the union's null branch, `Some` as its other branch.
fn optional(v: Option<AValue>) -> AValue {
    match v {
        None => AValue::Union(0, Box::new(AValue::Null)),
        Some(v) => AValue::Union(1, Box::new(v)),
    }
}

/// Its map is a `HashMap`, so the entries of `attrs` go out in the map's own order.
impl ToApache for User {
    fn to_apache(&self) -> AValue {
        let s = |v: &String| AValue::String(v.clone());
        let a = &self.address;
        let status = self.status as usize;
        arecord([
            ("id", AValue::Long(self.id)),
            ("name", s(&self.name)),
            ("email", optional(self.email.as_ref().map(s))),
            ("age", optional(self.age.map(AValue::Int))),
            (
                "status",
                AValue::Enum(status as u32, STATUS_SYMBOLS[status].to_owned()),
            ),
            (
                "address",
                arecord([
                    ("street", s(&a.street)),
                    ("city", s(&a.city)),
                    ("zip", optional(a.zip.as_ref().map(s))),
                ]),
            ),
            ("tags", AValue::Array(self.tags.iter().map(s).collect())),
            (
                "scores",
                AValue::Array(self.scores.iter().map(|&x| AValue::Int(x)).collect()),
            ),
            (
                "attrs",
                AValue::Map(self.attrs.iter().map(|(k, v)| (k.clone(), s(v))).collect()),
            ),
            ("balance", AValue::Double(self.balance)),
        ])
    }
}

/// Every item as an `apache-avro` value.
pub fn to_apache_values<T: ToApache>(items: &[T]) -> Vec<AValue> {
    items.iter().map(T::to_apache).collect()
}
