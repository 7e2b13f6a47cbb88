//! A message of a peer, classified by its envelope.

use super::id::Id;
use serde_json::Value;

/// One message of a peer, classified by its envelope.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    /// A request: it has a `method` and a valid id.
    Request { id: Id, method: String, params: Option<Value> },
    /// A notification: it has a `method` and no `id` member.
    Notification { method: String, params: Option<Value> },
    /// A response with a valid id: `Ok(result)` or `Err(error)`.
    Response { id: Id, outcome: Result<Value, Value> },
    /// A response that has no answer: a null or invalid id, or an error
    /// response without an id (behaviour spec, "Lines that are not valid").
    /// A result response without an id is not one of them: it is
    /// `Invalid`, and gets `-32600` with the id null.
    Unanswerable,
    /// Valid JSON that is not a valid JSON-RPC 2.0 message. The id is the
    /// request's when it is valid, so the error goes to the right request.
    Invalid { id: Option<Id> },
}

impl Message {
    /// Classifies a parsed value. Never fails: each shape has a class.
    pub(crate) fn classify(value: Value) -> Message {
        let Value::Object(mut obj) = value else {
            return Message::Invalid { id: None };
        };
        let id_member = obj.remove("id");
        let has_id = id_member.is_some();
        let valid_id = id_member.and_then(Id::from_value);
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Message::Invalid { id: valid_id };
        }
        if let Some(method) = obj.get("method") {
            let Some(method) = method.as_str().map(str::to_owned) else {
                return Message::Invalid { id: valid_id };
            };
            let params = obj.remove("params");
            return match (has_id, valid_id) {
                (false, _) => Message::Notification { method, params },
                (true, Some(id)) => Message::Request { id, method, params },
                (true, None) => Message::Invalid { id: None },
            };
        }
        let outcome = match (obj.remove("result"), obj.remove("error")) {
            (Some(_), None) if !has_id => return Message::Invalid { id: None },
            (Some(result), None) => Ok(result),
            (None, Some(error)) if is_error_object(&error) => Err(error),
            // An error response without a valid id gets no answer, whatever
            // its error ("Lines that are not valid").
            (None, Some(_)) if valid_id.is_none() => return Message::Unanswerable,
            _ => return Message::Invalid { id: valid_id },
        };
        match valid_id {
            Some(id) => Message::Response { id, outcome },
            None => Message::Unanswerable,
        }
    }
}

/// A JSON-RPC 2.0 error object: an object with an integer `code` and a
/// string `message`. Anything else cannot be read as an error, and must not
/// reach a peer as one.
fn is_error_object(error: &Value) -> bool {
    error.get("code").and_then(Value::as_i64).is_some() && error.get("message").is_some_and(Value::is_string)
}
