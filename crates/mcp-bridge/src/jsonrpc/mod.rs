//! The JSON-RPC 2.0 envelope over `serde_json::Value`, the ids, and the
//! error table.
//!
//! Only the envelope is typed: `params`, `result` and `error` stay `Value`
//! so that no member is lost on the way through the bridge. With the
//! `arbitrary_precision` feature of `serde_json`, an id such as
//! `12345678901234567890123` or `-0` keeps its exact text.

mod cause;
mod depth;
mod envelope;
mod id;
mod level;
mod message;
pub(crate) mod reason;
mod text;
mod to_client;

pub(crate) use cause::{code, fail, format_limit, no_response};
pub use cause::{BridgeError, Cause};
pub(crate) use depth::{exceeds_depth, skip_string, PARSER_MAX_DEPTH};
pub(crate) use envelope::{plain_request, result_envelope};
pub(crate) use id::{Id, IdKey};
pub(crate) use level::LoggingLevel;
pub(crate) use message::Message;
pub(crate) use text::{append_json, json_line};
pub(crate) use to_client::{ClientNotification, ClientRequest};

use serde_json::{Map, Value};

/// An envelope with its members in order. The values move in: `json!`
/// would deep-copy them, which for a 16 MiB result is most of the cost.
fn envelope<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut map = Map::with_capacity(N + 1);
    map.insert("jsonrpc".into(), Value::from("2.0"));
    for (key, value) in members {
        map.insert(key.into(), value);
    }
    Value::Object(map)
}

/// A result response (the raw path's properties and the tests build the
/// full path's response with it).
#[cfg(any(test, feature = "props"))]
pub(crate) fn result_response(id: &Id, result: Value) -> Value {
    envelope([("id", id.as_value().clone()), ("result", result)])
}

/// A result response as its line, with room for the `\n`: the bytes of
/// [`result_response`], written straight from the id and the result. The
/// envelope as a `Map` cost six allocations on every response (its table,
/// its keys, `"2.0"`, a copy of the id), only to be serialized.
pub(crate) fn result_line(id: &Id, result: &Value) -> Vec<u8> {
    let mut line = Vec::with_capacity(128);
    line.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    crate::jsonrpc::append_json(&mut line, id.as_value());
    line.extend_from_slice(b",\"result\":");
    crate::jsonrpc::append_json(&mut line, result);
    line.extend_from_slice(b"}");
    line.reserve_exact(1);
    line
}

/// An error response; `id` is `None` for the id `null`.
pub(crate) fn error_response(id: Option<&Id>, error: Value) -> Value {
    let id = id.map_or(Value::Null, |id| id.as_value().clone());
    envelope([("id", id), ("error", error)])
}

/// A request.
pub(crate) fn request(id: &Id, method: &str, params: Value) -> Value {
    envelope([("id", id.as_value().clone()), ("method", Value::from(method)), ("params", params)])
}

/// A notification.
pub(crate) fn notification(method: &str, params: Value) -> Value {
    envelope([("method", Value::from(method)), ("params", params)])
}

/// The error of `server/discover`: cause `discover_failed`, the upstream
/// code (but `-32042` becomes `-32603`), and the upstream message or the
/// time limit in `data.detail`.
pub(crate) fn discover_failed(upstream_code: Option<i64>, detail: String) -> BridgeError {
    let mut err = BridgeError::new(Cause::DiscoverFailed).with_detail(detail);
    if let Some(c) = upstream_code.filter(|&c| c != code::URL_ELICITATION_REQUIRED) {
        err.code = c;
    }
    err
}

/// An upstream error on its way to the client: unchanged, except that
/// `-32042` becomes `-32603` with the upstream message and without data
/// (behaviour spec, "Error table").
pub(crate) fn upstream_error_for_client(error: Value) -> Value {
    let is_url_required = error.get("code").and_then(Value::as_i64) == Some(code::URL_ELICITATION_REQUIRED);
    if !is_url_required {
        return error;
    }
    let mut out = Map::new();
    out.insert("code".into(), Value::from(code::INTERNAL_ERROR));
    out.insert("message".into(), error.get("message").cloned().unwrap_or(Value::from("")));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `result_line` writes the bytes of the envelope it replaces: member
    /// order, the id's exact text (a 25-digit integer, an escaped string)
    /// and the result's numbers as sent.
    #[test]
    fn a_result_line_is_the_result_response_serialized() {
        let ids = [
            Some(Id::number(7)),
            Id::from_value(serde_json::from_str("1234567890123456789012345").unwrap_or_default()),
            Some(Id::string("a\"b\u{1}é")),
        ];
        let results = [json!({}), serde_json::from_str(r#"{"z":1.50,"a":[1e400,{"k":"\u00e9"}]}"#).unwrap_or_default()];
        assert_eq!(ids.iter().flatten().count(), ids.len(), "each id is valid");
        for id in ids.iter().flatten() {
            for result in &results {
                let line = result_line(id, result);
                assert_eq!(line, crate::jsonrpc::json_line(&result_response(id, result.clone())), "{id} {result}");
                assert!(line.capacity() > line.len(), "room for the newline");
            }
        }
    }

    /// "Lines that are not valid": a response with the id null or an id
    /// that is not a string or an integer, and an error response without
    /// an id, get no answer; a result response without an id is not on
    /// that list, and is not a valid message.
    #[test]
    fn a_result_response_without_an_id_is_invalid_and_only_the_listed_ones_go_unanswered() {
        assert_eq!(Message::classify(json!({"jsonrpc": "2.0", "result": {}})), Message::Invalid { id: None });
        for unanswered in [
            json!({"jsonrpc": "2.0", "id": null, "result": {}}),
            json!({"jsonrpc": "2.0", "id": 1.5, "result": {}}),
            json!({"jsonrpc": "2.0", "id": [1], "result": {}}),
            json!({"jsonrpc": "2.0", "error": {"code": 1, "message": "m"}}),
        ] {
            assert_eq!(Message::classify(unanswered.clone()), Message::Unanswerable, "{unanswered}");
        }
    }

    #[test]
    fn an_error_response_needs_an_integer_code_and_a_string_message() {
        let valid = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "m", "data": [1]}});
        assert_eq!(
            Message::classify(valid),
            Message::Response { id: Id::number(1), outcome: Err(json!({"code": -32000, "message": "m", "data": [1]})) }
        );
        for error in [
            json!("oops"),
            json!({"message": "no code"}),
            json!({"code": "1", "message": "m"}),
            json!({"code": 1.5, "message": "m"}),
            json!({"code": 1}),
            json!({"code": 1, "message": 2}),
        ] {
            let message = json!({"jsonrpc": "2.0", "id": 1, "error": error});
            assert_eq!(Message::classify(message.clone()), Message::Invalid { id: Some(Id::number(1)) }, "{message}");
            for id in [None, Some(json!(null)), Some(json!(1.5))] {
                let mut message = json!({"jsonrpc": "2.0", "error": error});
                if let Some(id) = id {
                    message["id"] = id;
                }
                assert_eq!(Message::classify(message.clone()), Message::Unanswerable, "{message}");
            }
        }
    }
}
