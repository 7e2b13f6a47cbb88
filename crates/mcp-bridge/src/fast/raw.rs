//! The `type` of an object kept as its text, read without building the
//! rest of the value.

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;

/// The `type` of an object: its last `type` member, as the full parse keeps
/// it; `None` for a value that is no object. The other members are skipped
/// without being built.
pub struct TypeMember(pub Option<Value>);

impl<'de> Deserialize<'de> for TypeMember {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TypeVisitor)
    }
}

struct TypeVisitor;

impl<'de> Visitor<'de> for TypeVisitor {
    type Value = TypeMember;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TypeMember, A::Error> {
        let mut kind = None;
        while let Some(key) = map.next_key::<String>()? {
            if key.as_str() == "type" {
                kind = Some(map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(TypeMember(kind))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TypeMember, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(TypeMember(None))
    }

    fn visit_bool<E>(self, _: bool) -> Result<TypeMember, E> {
        Ok(TypeMember(None))
    }

    fn visit_str<E>(self, _: &str) -> Result<TypeMember, E> {
        Ok(TypeMember(None))
    }

    fn visit_unit<E>(self) -> Result<TypeMember, E> {
        Ok(TypeMember(None))
    }

    fn visit_u64<E>(self, _: u64) -> Result<TypeMember, E> {
        Ok(TypeMember(None))
    }

    fn visit_i64<E>(self, _: i64) -> Result<TypeMember, E> {
        Ok(TypeMember(None))
    }
}
