//! The data of the apache-avro crate's container-file benchmark (AVRO-3451, WORKLOADS.md
//! section 12): one small and one big record, each written many times.

use serde::{Deserialize, Serialize};

use crate::reference::{self, RefDatum, RefDecoder};

/// The benchmark's small record schema.
pub const SMALL_SCHEMA: &str = r#"{"namespace":"test","type":"record","name":"Test",
  "fields":[{"type":{"type":"string"},"name":"field"}]}"#;

/// The benchmark's big record schema.
pub const BIG_SCHEMA: &str = r#"{"namespace":"my.example","type":"record","name":"userInfo","fields":[
  {"default":"NONE","type":"string","name":"username"},
  {"default":-1,"type":"int","name":"age"},
  {"default":"NONE","type":"string","name":"phone"},
  {"default":"NONE","type":"string","name":"housenum"},
  {"default":{},"type":{"fields":[
      {"default":"NONE","type":"string","name":"street"},
      {"default":"NONE","type":"string","name":"city"},
      {"default":"NONE","type":"string","name":"state_prov"},
      {"default":"NONE","type":"string","name":"country"},
      {"default":"NONE","type":"string","name":"zip"}],
   "type":"record","name":"mailing_address"},"name":"address"}]}"#;

/// The small record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema)]
#[serde(rename = "Test")]
#[avro(namespace = "test")]
pub struct Small {
    /// field
    pub field: String,
}

/// The small record, its string borrowed from the block being read (the zero-copy row).
#[derive(Debug, PartialEq, Deserialize, avrokit::AvroSchema)]
#[avro(namespace = "test", name = "Test")]
pub struct SmallRef<'a> {
    /// field
    pub field: &'a str,
}

/// The big record's address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema)]
#[serde(rename = "mailing_address")]
#[avro(namespace = "my.example")]
pub struct MailingAddress {
    /// street
    pub street: String,
    /// city
    pub city: String,
    /// state_prov
    pub state_prov: String,
    /// country
    pub country: String,
    /// zip
    pub zip: String,
}

/// The big record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, avrokit::AvroSchema)]
#[serde(rename = "userInfo")]
#[avro(namespace = "my.example")]
pub struct UserInfo {
    /// username
    pub username: String,
    /// age
    pub age: i32,
    /// phone
    pub phone: String,
    /// housenum
    pub housenum: String,
    /// address
    pub address: MailingAddress,
}

/// The big record's address, its strings borrowed from the block being read.
#[derive(Debug, PartialEq, Deserialize, avrokit::AvroSchema)]
#[avro(namespace = "my.example", name = "mailing_address")]
pub struct MailingAddressRef<'a> {
    /// street
    pub street: &'a str,
    /// city
    pub city: &'a str,
    /// state_prov
    pub state_prov: &'a str,
    /// country
    pub country: &'a str,
    /// zip
    pub zip: &'a str,
}

/// The big record, its strings borrowed from the block being read (the zero-copy row).
#[derive(Debug, PartialEq, Deserialize, avrokit::AvroSchema)]
#[avro(namespace = "my.example", name = "userInfo")]
pub struct UserInfoRef<'a> {
    /// username
    pub username: &'a str,
    /// age
    pub age: i32,
    /// phone
    pub phone: &'a str,
    /// housenum
    pub housenum: &'a str,
    /// address
    pub address: MailingAddressRef<'a>,
}

/// The benchmark's small record: field = "foo".
pub fn small() -> Small {
    Small {
        field: "foo".into(),
    }
}

/// The benchmark's big record.
pub fn big() -> UserInfo {
    UserInfo {
        username: "username".into(),
        age: 10,
        phone: "000000000".into(),
        housenum: "0000".into(),
        address: MailingAddress {
            street: "street".into(),
            city: "city".into(),
            state_prov: "state_prov".into(),
            country: "country".into(),
            zip: "zip".into(),
        },
    }
}

/// The reference datum encoding of one record (the container's block payload per record).
impl RefDatum for Small {
    fn put(&self, out: &mut Vec<u8>) {
        reference::put_string(out, &self.field);
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        dec.string().len() as u64
    }
}

impl RefDatum for UserInfo {
    fn put(&self, out: &mut Vec<u8>) {
        reference::put_string(out, &self.username);
        reference::put_int(out, self.age);
        let a = &self.address;
        for s in [
            &self.phone,
            &self.housenum,
            &a.street,
            &a.city,
            &a.state_prov,
            &a.country,
            &a.zip,
        ] {
            reference::put_string(out, s);
        }
    }
    fn get(dec: &mut RefDecoder<'_>) -> u64 {
        let mut acc = dec.string().len() as u64 ^ dec.int() as u64;
        for _ in 0..7 {
            acc ^= dec.string().len() as u64;
        }
        acc
    }
}
