//! Request ids: a string or an integer, kept exactly as sent.

use serde_json::Value;

/// A valid request id: a JSON string or an integer. The value is kept as
/// it came, so `1` and `"1"` stay different and a 25-digit integer comes
/// back with all its digits.
#[derive(Debug, Clone, PartialEq)]
pub struct Id(Value);

/// A hashable key of an id: its JSON text. `1` and `"1"` have different keys.
pub type IdKey = String;

impl Id {
    /// An id from a value, when the value is a string or an integer.
    /// A number with a fraction or an exponent is not an integer.
    pub fn from_value(value: Value) -> Option<Id> {
        match &value {
            Value::String(_) => Some(Id(value)),
            Value::Number(n) if is_integer_text(&n.to_string()) => Some(Id(value)),
            _ => None,
        }
    }

    /// A string id.
    pub fn string(s: impl Into<String>) -> Id {
        Id(Value::String(s.into()))
    }

    /// An integer id.
    pub fn number(n: u64) -> Id {
        Id(Value::from(n))
    }

    /// The id as JSON.
    pub fn as_value(&self) -> &Value {
        &self.0
    }

    /// The string, for a string id.
    pub fn as_str(&self) -> Option<&str> {
        self.0.as_str()
    }

    /// The key of the id in a table.
    pub fn key(&self) -> IdKey {
        self.0.to_string()
    }
}

/// Whether the text of a JSON number is an integer: digits with an
/// optional minus sign, no fraction and no exponent.
pub fn is_integer_text(text: &str) -> bool {
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
        assert_eq!(Id::number(1).as_value(), &json!(1));
    }
}
