//! The data sets as avrokit generic [`Value`]s (records by field position), for the `Value`
//! rows; built at init, outside the timed region.

use avrokit::Value;

use crate::data::avro3451::{Small, UserInfo};
use crate::data::container::Mixed;
use crate::data::generic::{Nested, Strings3};
use crate::data::realistic::User;
use crate::data::record::Rec;

/// An item as an avrokit `Value` of its schema.
pub trait ToValue {
    /// The value.
    fn to_value(&self) -> Value;
}

impl ToValue for Rec {
    fn to_value(&self) -> Value {
        Value::Record(vec![
            Value::Double(self.f1),
            Value::Double(self.f2),
            Value::Double(self.f3),
            Value::Int(self.f4),
            Value::Int(self.f5),
            Value::Int(self.f6),
        ])
    }
}

impl ToValue for Strings3 {
    fn to_value(&self) -> Value {
        Value::Record(vec![
            Value::String(self.f1.clone()),
            Value::String(self.f2.clone()),
            Value::String(self.f3.clone()),
        ])
    }
}

/// NESTED_RECORD_SCHEMA's `D` record.
pub fn d_value(x: f64) -> Value {
    Value::Record(vec![Value::Double(x)])
}

impl ToValue for Nested {
    fn to_value(&self) -> Value {
        Value::Record(vec![
            d_value(self.f1.dbl),
            d_value(self.f2.dbl),
            d_value(self.f3.dbl),
            Value::Int(self.f4),
            Value::Int(self.f5),
            Value::Int(self.f6),
        ])
    }
}

impl ToValue for Small {
    fn to_value(&self) -> Value {
        Value::Record(vec![Value::String(self.field.clone())])
    }
}

impl ToValue for UserInfo {
    fn to_value(&self) -> Value {
        let s = |v: &String| Value::String(v.clone());
        let a = &self.address;
        Value::Record(vec![
            s(&self.username),
            Value::Int(self.age),
            s(&self.phone),
            s(&self.housenum),
            Value::Record(vec![
                s(&a.street),
                s(&a.city),
                s(&a.state_prov),
                s(&a.country),
                s(&a.zip),
            ]),
        ])
    }
}

impl ToValue for Mixed {
    fn to_value(&self) -> Value {
        let r = self;
        Value::Record(vec![
            Value::Int(r.i),
            Value::Long(r.l),
            Value::Double(r.d),
            Value::Float(r.f),
            Value::Boolean(r.b),
            Value::String(r.s.clone()),
            Value::Bytes(r.by.clone()),
            Value::Enum(r.e as u32),
            match &r.u {
                None => Value::Union(0, Box::new(Value::Null)),
                Some(s) => Value::Union(1, Box::new(Value::String(s.clone()))),
            },
            Value::Array(r.a.iter().map(|&x| Value::Long(x)).collect()),
            Value::Map(
                r.m.iter()
                    .map(|(k, &v)| (k.clone(), Value::Int(v)))
                    .collect(),
            ),
            Value::Record(vec![Value::Long(r.n.id), Value::String(r.n.label.clone())]),
        ])
    }
}

/// `None` as the union's null branch, `Some` as its other branch.
fn optional(v: Option<Value>) -> Value {
    match v {
        None => Value::Union(0, Box::new(Value::Null)),
        Some(v) => Value::Union(1, Box::new(v)),
    }
}

impl ToValue for User {
    fn to_value(&self) -> Value {
        let s = |v: &String| Value::String(v.clone());
        let a = &self.address;
        Value::Record(vec![
            Value::Long(self.id),
            s(&self.name),
            optional(self.email.as_ref().map(s)),
            optional(self.age.map(Value::Int)),
            Value::Enum(self.status as u32),
            Value::Record(vec![
                s(&a.street),
                s(&a.city),
                optional(a.zip.as_ref().map(s)),
            ]),
            Value::Array(self.tags.iter().map(s).collect()),
            Value::Array(self.scores.iter().map(|&x| Value::Int(x)).collect()),
            Value::Map(self.attrs.iter().map(|(k, v)| (k.clone(), s(v))).collect()),
            Value::Double(self.balance),
        ])
    }
}

/// Every item as a `Value`.
pub fn to_values<T: ToValue>(items: &[T]) -> Vec<Value> {
    items.iter().map(T::to_value).collect()
}
