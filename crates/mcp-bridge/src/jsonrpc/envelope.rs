//! Envelopes read without their tree: a plain request of the client, the
//! client's most common line, and a result response of the upstream server
//! ([`result_envelope`], for the rules over the raw text). The envelope as
//! a `Map` costs a score of allocations (its table, each name, `"2.0"`, the
//! method twice) only to be taken apart by `Message::classify`.
//!
//! [`plain_request`] answers only when the answer is certain; anything else
//! (`None`) goes to the full parse, which gives every error and every other
//! class. A line it takes is a message the full path reads as the same
//! `Message::Request`: `props::framing::decode_line` holds `decode` to a
//! model of the envelope rules on every line (proptest and the `decode`
//! fuzz target).

use super::depth::{exceeds_depth, PARSER_MAX_DEPTH};
use super::id::Id;
use super::message::Message;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// The members of a JSON-RPC envelope, as their JSON text, for the checks
/// that skip its tree (here, and `raw::read` for a result response);
/// the parse checks and skips the others. It allocates nothing: the names
/// and the texts are slices of the line. A member that comes twice fails
/// the parse (serde's derive refuses a field twice), and the line goes to
/// the full path, which takes its last value. A member that is `null` is
/// there (`Some("null")`), as in the full parse's `Map`: `"method":null`
/// makes a response invalid, where a missing `method` does not.
#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    pub jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    pub error: Option<&'a RawValue>,
}

impl<'a> Envelope<'a> {
    /// The envelope of a JSON object. serde's derive also reads a struct
    /// from a JSON array, by position: that is no envelope.
    pub(crate) fn read(text: &'a str) -> Option<Envelope<'a>> {
        if text.trim_start_matches([' ', '\t', '\n', '\r']).as_bytes().first() != Some(&b'{') {
            return None;
        }
        serde_json::from_str(text).ok()
    }
}

/// A member that is there, whatever its value: `Option`'s own reading
/// would take `null` for a missing member.
fn present<'de, D: serde::Deserializer<'de>>(member: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(member).map(Some)
}

/// The request of a line whose nesting was checked against a limit below
/// the parser's own (`decode` runs the depth pre-scan first): a JSON
/// object with `"jsonrpc":"2.0"` as written here, a valid id, a string
/// method and object params (a `result` or an `error` beside them is
/// ignored, as `classify` ignores it). `None` for every other line.
pub(crate) fn plain_request(line: &[u8]) -> Option<Message> {
    // The skipped members are not decoded: serde's skip checks neither
    // their UTF-8 nor their surrogate escapes, which the full parse
    // refuses. A line with either goes there.
    let text = std::str::from_utf8(line).ok()?;
    if has_surrogate_escape(line) {
        return None;
    }
    let envelope = Envelope::read(text)?;
    if envelope.jsonrpc?.get() != r#""2.0""# {
        return None;
    }
    let params = envelope.params?.get();
    if !params.starts_with('{') {
        return None;
    }
    let id = Id::from_value(serde_json::from_str(envelope.id?.get()).ok()?)?;
    let method: String = serde_json::from_str(envelope.method?.get()).ok()?;
    let params: Value = serde_json::from_str(params).ok()?;
    Some(Message::Request { id, method, params: Some(params) })
}

/// Whether the text has an escape `\uD800` to `\uDFFF`. In valid JSON a
/// backslash always starts an escape, so the scan goes from escape to
/// escape.
pub(crate) fn has_surrogate_escape(text: &[u8]) -> bool {
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &text[at.min(text.len())..]) {
        let escape = at + found;
        if text.get(escape + 1) == Some(&b'u') {
            let high = text.get(escape + 2).is_some_and(|b| matches!(b, b'd' | b'D'));
            let surrogate = text.get(escape + 3).is_some_and(|b| matches!(b, b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'));
            if high && surrogate {
                return true;
            }
            at = escape + 6;
        } else {
            at = escape + 2;
        }
    }
    false
}

/// A line that is a result response to one of the upstream client's
/// requests, read without its envelope's tree: its id, and where its
/// result is in the line; `None` when it is anything else, or when only
/// the full parse can tell.
pub(crate) fn result_envelope(line: &str) -> Option<(u64, usize, usize)> {
    let members = Envelope::read(line)?;
    if members.method.is_some() || members.error.is_some() {
        return None;
    }
    let jsonrpc = members.jsonrpc?.get();
    if jsonrpc != r#""2.0""# && parse(jsonrpc)?.as_str() != Some("2.0") {
        return None;
    }
    // The id as the full path reads it: a valid JSON-RPC id, then one of
    // the upstream client's, an unsigned integer. The text of a valid
    // JSON value that parses as a `u64` is exactly such an id: a string,
    // a fraction, an exponent, a minus sign or too many digits does not.
    let id = members.id?.get().parse::<u64>().ok()?;
    let result = members.result?.get();
    if exceeds_depth(line.as_bytes(), PARSER_MAX_DEPTH) || has_surrogate_escape(line.as_bytes()) {
        return None;
    }
    let start = (result.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(result.len()).filter(|&end| end <= line.len())?;
    Some((id, start, end))
}

fn parse(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(line: &str) -> Option<Message> {
        serde_json::from_str(line).ok().map(Message::classify)
    }

    /// The lines taken are read as the full parse reads them: names and
    /// values with escapes, other members skipped, a request's `result`
    /// ignored, an id's exact text.
    #[test]
    fn a_request_is_read_as_the_full_parse_reads_it() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#" {"params":{},"method":"t\u006fols/list","jsonrpc":"2.0","id":"a\"b"} "#,
            r#"{"jsonrpc":"2.0","\u0069d":123456789012345678901234567890,"method":"m","params":{"n":1.50,"e":1e400}}"#,
            r#"{"jsonrpc":"2.0","id":-7,"method":"m","params":{},"result":1,"x":[{"y":null}],"x":2}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"m","params":{},"error":null}"#,
        ] {
            let got = plain_request(line.as_bytes());
            assert!(matches!(got, Some(Message::Request { .. })), "{line}");
            assert_eq!(got, full(line), "{line}");
        }
    }

    /// Everything else is left to the full parse.
    #[test]
    fn anything_else_goes_to_the_full_parse() {
        for line in [
            r#"["2.0",1,"m",{}]"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{},"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"m","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7,"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"params":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"m","params":{}}"#,
            r#"{"jsonrpc":"2\u002e0","id":1,"method":"m","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{},"x":"\ud800"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}} x"#,
        ] {
            assert_eq!(plain_request(line.as_bytes()), None, "{line}");
        }
        let not_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{},\"x\":\"\xff\"}";
        assert_eq!(plain_request(not_utf8), None);
    }

    #[test]
    fn the_surrogate_scan_goes_from_escape_to_escape() {
        assert!(!has_surrogate_escape(br#""\\ud800""#));
        assert!(has_surrogate_escape(br#""\\\ud800""#));
        assert!(!has_surrogate_escape(br#""\u0041\n\"""#));
        assert!(has_surrogate_escape(br#""\uDbFF""#));
        assert!(!has_surrogate_escape(br#""\u""#));
    }
}
