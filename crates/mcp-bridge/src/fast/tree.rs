//! The pieces of a big list that the fast path parses: member names and
//! leaves decoded, every other value kept as its JSON text in the line, and
//! the way each piece is written back (issue 15).
//!
//! The seeds here read one value with `deserialize_any`, so a value is
//! scanned once whatever it holds. With serde_json's `arbitrary_precision`,
//! `deserialize_any` gives a number as a map with one member named
//! [`NUMBER_TOKEN`] whose value is the number's text (an integer that fits
//! 64 bits comes to `visit_u64` or `visit_i64`); `serde_json::Value` reads
//! such a map as a number too, and so does [`first_key`].

use serde::de::{Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// The name of the one member through which serde_json's
/// `arbitrary_precision` gives a number to `visit_map`. The unit test
/// `a_number_comes_as_a_leaf_with_its_text` fails if serde_json changes it.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// The members of an object, in order. A name that comes twice is refused
/// ([`Members::unique`]): `serde_json::Map` keeps its first place and its
/// last value, a rare case that the full path keeps. A `Vec`, not a map:
/// the objects of a schema are small, and a hash per lookup took most of
/// the walk's time.
#[derive(Debug)]
pub struct Members<'a, V>(Vec<(Key<'a>, V)>);

impl<'a, V> Members<'a, V> {
    pub fn new() -> Self {
        // Room for the members of most objects of a schema: a small object
        // costs one allocation (8 was slower: bigger blocks).
        Members(Vec::with_capacity(4))
    }

    /// `{}`.
    pub fn empty() -> Self {
        Members(Vec::new())
    }

    /// Appends a member as it is read; [`Members::unique`] checks the names.
    pub fn push(&mut self, key: Key<'a>, value: V) {
        self.0.push((key, value));
    }

    /// The members once read, or an error when a name came twice.
    pub fn unique<E: serde::de::Error>(self) -> Result<Self, E> {
        let names = &self.0;
        let twice = if names.len() <= 16 {
            names.iter().enumerate().any(|(at, (name, _))| names[..at].iter().any(|(other, _)| other == name))
        } else {
            let mut sorted: Vec<&str> = names.iter().map(|(name, _)| name.as_str()).collect();
            sorted.sort_unstable();
            sorted.windows(2).any(|pair| pair[0] == pair[1])
        };
        if twice {
            return Err(E::custom("a member name twice"));
        }
        Ok(self)
    }

    pub fn get(&self, name: &str) -> Option<&V> {
        self.0.iter().find(|(key, _)| key.as_str() == name).map(|(_, value)| value)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut V> {
        self.0.iter_mut().find(|(key, _)| key.as_str() == name).map(|(_, value)| value)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Sets a member: in its place when it is there, else last.
    pub fn set(&mut self, key: Key<'a>, value: V) {
        match self.get_mut(key.as_str()) {
            Some(old) => *old = value,
            None => self.push(key, value),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &(Key<'a>, V)> {
        self.0.iter()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut (Key<'a>, V)> {
        self.0.iter_mut()
    }
}

/// A member name: borrowed from the line unless it had escapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key<'a>(Cow<'a, str>);

impl Key<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Writes the name as a JSON string. A name without escapes in valid
    /// JSON has no character that needs one, so it goes as it came.
    pub fn write(&self, out: &mut Vec<u8>) {
        match &self.0 {
            Cow::Borrowed(name) => {
                out.push(b'"');
                out.extend_from_slice(name.as_bytes());
                out.push(b'"');
            }
            Cow::Owned(name) => write_string(out, name),
        }
    }
}

impl Key<'static> {
    pub const fn named(name: &'static str) -> Self {
        Key(Cow::Borrowed(name))
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, name: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(name)))
            }
            fn visit_str<E>(self, name: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(name.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// A value that is no array and no object.
#[derive(Debug, Clone, PartialEq)]
pub enum Leaf<'a> {
    Null,
    Bool(bool),
    Str(Cow<'a, str>),
    /// The number's text, exactly as it came.
    Number(String),
}

impl Leaf<'_> {
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Leaf::Null => out.extend_from_slice(b"null"),
            Leaf::Bool(true) => out.extend_from_slice(b"true"),
            Leaf::Bool(false) => out.extend_from_slice(b"false"),
            Leaf::Str(text) => write_string(out, text),
            Leaf::Number(text) => out.extend_from_slice(text.as_bytes()),
        }
    }
}

/// The leaf as JSON text, as `serde_json::Value` displays it (for notes).
impl fmt::Display for Leaf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = Vec::new();
        self.write(&mut out);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

/// A value that no rule looks into.
#[derive(Debug)]
pub enum Other<'a> {
    Leaf(Leaf<'a>),
    Array(Vec<&'a RawValue>),
    Object(Members<'a, &'a RawValue>),
}

impl Other<'_> {
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Other::Leaf(leaf) => leaf.write(out),
            Other::Array(items) => write_array(out, items, |out, item| out.extend_from_slice(item.get().as_bytes())),
            Other::Object(members) => {
                write_object(out, members, |out, value| out.extend_from_slice(value.get().as_bytes()))
            }
        }
    }
}

/// The scalar visits of a visitor for which a scalar holds nothing that a
/// rule reads: each gives `$wrap(Other::Leaf(..))`.
macro_rules! leaves_are_other {
    ($wrap:path) => {
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok($wrap(Other::Leaf(Leaf::Null)))
        }

        fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<Self::Value, E> {
            Ok($wrap(Other::Leaf(Leaf::Bool(value))))
        }

        // An integer that fits 64 bits comes as such (any other number as
        // the map of `first_key`); its text is the one that came, since
        // JSON has no leading zeros and no `+`.
        fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Self::Value, E> {
            Ok($wrap(Other::Leaf(Leaf::Number(value.to_string()))))
        }

        fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Self::Value, E> {
            Ok($wrap(Other::Leaf(Leaf::Number(value.to_string()))))
        }

        fn visit_borrowed_str<E: serde::de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
            Ok($wrap(Other::Leaf(Leaf::Str(std::borrow::Cow::Borrowed(text)))))
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok($wrap(Other::Leaf(Leaf::Str(std::borrow::Cow::Owned(text.to_owned())))))
        }
    };
}
pub(crate) use leaves_are_other;

/// Reads any value as an [`Other`], in one scan: the visitor for a value
/// that holds nothing a rule reads.
pub struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = Other<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Other<'de>, A::Error> {
        match first_key(&mut map)? {
            First::Number(text) => Ok(Other::Leaf(Leaf::Number(text))),
            First::Key(first) => other_object(map, first).map(Other::Object),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Other<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Other::Array(items))
    }

    leaves_are_other!(std::convert::identity);
}

/// The first member of a map that `deserialize_any` gave: a number's text,
/// or the first name of an object (`None` for an empty one).
pub enum First<'de> {
    Number(String),
    Key(Option<Key<'de>>),
}

/// Reads the first name of a map. A number under `arbitrary_precision`
/// comes as the map `{NUMBER_TOKEN: "<text>"}`; its text is checked as a
/// number, as `serde_json::Value` does, and the map must end there.
pub fn first_key<'de, A: MapAccess<'de>>(map: &mut A) -> Result<First<'de>, A::Error> {
    let Some(key) = map.next_key::<Key<'de>>()? else { return Ok(First::Key(None)) };
    if key.as_str() != NUMBER_TOKEN {
        return Ok(First::Key(Some(key)));
    }
    let text: String = map.next_value()?;
    if text.parse::<serde_json::Number>().is_err() || map.next_key::<Key<'de>>()?.is_some() {
        return Err(A::Error::custom("not a number"));
    }
    Ok(First::Number(text))
}

/// The rest of an object whose first name was `first` (see [`first_key`]):
/// `value` reads the value of each name. The names are checked once read.
pub fn rest_of_object<'de, A: MapAccess<'de>, V>(
    mut map: A,
    first: Option<Key<'de>>,
    mut value: impl FnMut(&mut A, &Key<'de>) -> Result<V, A::Error>,
) -> Result<Members<'de, V>, A::Error> {
    let mut members = Members::new();
    let mut next = first;
    while let Some(key) = next {
        let read = value(&mut map, &key)?;
        members.push(key, read);
        next = map.next_key()?;
    }
    members.unique()
}

/// The rest of an object whose first name was `first`, each value as text.
pub fn other_object<'de, A: MapAccess<'de>>(
    map: A,
    first: Option<Key<'de>>,
) -> Result<Members<'de, &'de RawValue>, A::Error> {
    rest_of_object(map, first, |map, _| map.next_value())
}

/// Writes a string as serde_json writes it.
fn write_string(out: &mut Vec<u8>, text: &str) {
    // Serializing a `str` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(out, text);
}

/// `[a,b]`, each item written by `write`.
pub fn write_array<T>(out: &mut Vec<u8>, items: &[T], mut write: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(b']');
}

/// `{"a":x,"b":y}`, each value written by `write`.
pub fn write_object<V>(out: &mut Vec<u8>, members: &Members<'_, V>, mut write: impl FnMut(&mut Vec<u8>, &V)) {
    out.push(b'{');
    for (index, (key, value)) in members.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        key.write(out);
        out.push(b':');
        write(out, value);
    }
    out.push(b'}');
}

/// The string a raw value holds, or `None` when it holds no string.
pub fn raw_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    if !text.starts_with('"') {
        return None;
    }
    match serde_json::from_str::<&str>(text) {
        Ok(borrowed) => Some(Cow::Borrowed(borrowed)),
        Err(_) => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
    }
}

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
        while let Some(key) = map.next_key::<Key<'de>>()? {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn any(text: &str) -> Option<String> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let other = deserializer.deserialize_any(AnyVisitor).ok()?;
        deserializer.end().ok()?;
        let mut out = Vec::new();
        other.write(&mut out);
        String::from_utf8(out).ok()
    }

    /// The seed gives the same JSON as the full parse, in one scan.
    #[test]
    fn a_number_comes_as_a_leaf_with_its_text() {
        assert_eq!(any("1.50e+3"), Some("1.50e+3".into()));
        assert_eq!(any("-0"), Some("-0".into()));
        assert_eq!(any("0"), Some("0".into()));
        assert_eq!(any("-12"), Some("-12".into()));
        assert_eq!(any("18446744073709551615"), Some("18446744073709551615".into()));
        assert_eq!(any("123456789012345678901234567890"), Some("123456789012345678901234567890".into()));
        // A map with the token's name is read the way `Value` reads it.
        assert_eq!(any(r#"{"$serde_json::private::Number":"7"}"#), Some("7".into()));
        assert_eq!(any(r#"{"$serde_json::private::Number":"x"}"#), None);
        assert_eq!(any(r#"{"$serde_json::private::Number":"7","a":1}"#), None);
    }

    #[test]
    fn other_values_are_written_as_the_full_path_writes_them() {
        assert_eq!(
            any(r#" { "a" : [1 , 2], "b":null, "c":{"x" : 1} } "#),
            Some(r#"{"a":[1 , 2],"b":null,"c":{"x" : 1}}"#.into())
        );
        // A name twice is left to the full path, in a small object and in
        // a big one.
        assert_eq!(any(r#"{"a":1,"b":2,"a":3}"#), None);
        let big: Vec<String> = (0..40).map(|i| format!("\"k{}\":{i}", i % 39)).collect();
        assert_eq!(any(&format!("{{{}}}", big.join(","))), None);
        let big: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        assert!(any(&format!("{{{}}}", big.join(","))).is_some());
        assert_eq!(any(r#"[ "x" , true ]"#), Some(r#"["x",true]"#.into()));
        assert_eq!(any(r#""t\u0065xt\n""#), Some(r#""text\n""#.into()));
        assert_eq!(any(r#"{"k\u0065y":false}"#), Some(r#"{"key":false}"#.into()));
        assert_eq!(any("{}"), Some("{}".into()));
        assert_eq!(any("[]"), Some("[]".into()));
    }

    #[test]
    fn a_raw_string_is_decoded() {
        let raw =
            |text: &str| serde_json::from_str::<&RawValue>(text).ok().and_then(|r| raw_str(r).map(Cow::into_owned));
        assert_eq!(raw(r#""array""#), Some("array".into()));
        assert_eq!(raw(r#""\u0061rray""#), Some("array".into()));
        assert_eq!(raw("1"), None);
        assert_eq!(raw("null"), None);
    }
}
