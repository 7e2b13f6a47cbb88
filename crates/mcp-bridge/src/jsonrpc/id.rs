//! Request ids: a string or an integer, kept exactly as sent.

use crate::gate::text;
use serde_json::Value;

/// A valid request id: a JSON string or an integer. The value is kept as
/// it came, so `1` and `"1"` stay different and a 25-digit integer comes
/// back with all its digits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Id(Value);

/// A hashable key of an id: its JSON text. `1` and `"1"` have different keys.
pub(crate) type IdKey = String;

impl Id {
    /// An id from a value, when the value is a string or an integer.
    /// A number with a fraction or an exponent is not an integer.
    pub(crate) fn from_value(value: Value) -> Option<Id> {
        match &value {
            Value::String(_) => Some(Id(value)),
            // `as_str` is the number's text as sent (`arbitrary_precision`):
            // no formatting, no allocation.
            Value::Number(n) if is_integer_text(n.as_str()) => Some(Id(value)),
            _ => None,
        }
    }

    /// A string id.
    pub(crate) fn string(s: impl Into<String>) -> Id {
        Id(Value::String(s.into()))
    }

    /// An integer id.
    pub(crate) fn number(n: u64) -> Id {
        Id(Value::from(n))
    }

    /// The id as JSON.
    pub(crate) fn as_value(&self) -> &Value {
        &self.0
    }

    /// The string, for a string id.
    pub(crate) fn as_str(&self) -> Option<&str> {
        self.0.as_str()
    }

    /// The key of the id in a table: its JSON text, as [`Display`] writes
    /// it.
    ///
    /// [`Display`]: std::fmt::Display
    pub(crate) fn key(&self) -> IdKey {
        self.to_string()
    }
}

/// The id's JSON text. A number's text is written as it came, in one
/// piece (`Value`'s own `Display` formats it through the serializer, which
/// grew a key's `String` three times on each request); only a
/// string goes through the serializer, for its quotes and escapes. Log
/// lines write it where it goes, with no key built for them.
impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Value::Number(n) => f.write_str(n.as_str()),
            other => other.fmt(f),
        }
    }
}

/// An id as a log line shows it, through the gate of outside text: a
/// string in quotes, a number as its digits, each within the bound of a
/// name (a client can send an integer of a hundred thousand digits).
pub(crate) struct Shown<'a>(&'a Id);

impl Id {
    /// The id for a log line.
    pub(crate) fn shown(&self) -> Shown<'_> {
        Shown(self)
    }
}

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 .0 {
            Value::String(s) => write!(f, "\"{}\"", text::shown(s, text::NAME)),
            // An integer of any length: its digits, within the bound too.
            Value::Number(n) => write!(f, "{}", text::shown(n.as_str(), text::NAME)),
            _ => std::fmt::Display::fmt(self.0, f),
        }
    }
}

/// Whether the text of a JSON number is an integer: digits with an
/// optional minus sign, no fraction and no exponent.
pub(crate) fn is_integer_text(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_strings_or_integers_only() {
        let parse = |t: &str| Id::from_value(serde_json::from_str(t).unwrap_or(Value::Null));
        assert!(parse("\"a\"").is_some());
        assert!(parse("7").is_some());
        assert!(parse("-0").is_some());
        assert!(parse("123456789012345678901234567890").is_some());
        assert!(parse("1.5").is_none());
        assert!(parse("1e3").is_none());
        assert!(parse("true").is_none());
        assert!(parse("null").is_none());
        assert!(parse("{}").is_none());
    }

    #[test]
    fn ids_keep_their_exact_text() {
        let id = Id::from_value(serde_json::from_str("123456789012345678901234567890").unwrap_or(Value::Null));
        assert_eq!(id.map(|i| i.key()).as_deref(), Some("123456789012345678901234567890"));
        assert_ne!(Id::string("1").key(), Id::number(1).key());
        // The log lines show the key's text.
        for id in [Id::string("a\"b"), Id::number(7), Id::from_value(json!(-12)).unwrap_or(Id::number(0))] {
            assert_eq!(id.to_string(), id.key());
            assert_eq!(id.key(), id.as_value().to_string());
        }
        assert_eq!(Id::string("a\"b").key(), r#""a\"b""#);
        assert_eq!(Id::number(1).as_value(), &json!(1));
    }
}
