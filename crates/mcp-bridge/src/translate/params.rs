//! The params of a forwarded request (behaviour spec, "Forwarded requests
//! (M1)" and "Meta passthrough (M3)").

use super::meta;
use crate::profile::Profile;
use serde_json::{Map, Value};

/// A forwarded request after the params rules.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Forwarded {
    /// The params without `task` and `_meta`; `{}` when they were missing
    /// or not an object.
    pub params: Map<String, Value>,
    /// The client's progress token: any JSON value but null, an array and
    /// an object (the integer 0 is a token).
    pub progress_token: Option<Value>,
    /// The `_meta` keys of the client that may go to the upstream server.
    pub meta: Map<String, Value>,
}

/// Applies the params rules; every other member stays as it came.
pub(crate) fn forwarded(params: Option<Value>, profile: &Profile) -> Forwarded {
    let mut params = match params {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    params.shift_remove("task");
    let client_meta = match params.shift_remove("_meta") {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let progress_token = client_meta.get("progressToken").filter(|t| is_progress_token(t)).cloned();
    Forwarded { params, progress_token, meta: meta::passthrough(&client_meta, profile) }
}

/// Whether a value can be a progress token.
pub(crate) fn is_progress_token(value: &Value) -> bool {
    !matches!(value, Value::Null | Value::Array(_) | Value::Object(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{MetaPassthrough, Quirks};
    use serde_json::json;

    fn profile() -> Profile {
        let mut profile = Profile::vscode();
        profile.meta_passthrough =
            MetaPassthrough { keys: vec!["traceparent".into()], prefixes: vec!["vscode.".into()] };
        profile.quirks = Quirks::default();
        profile
    }

    #[test]
    fn each_params_rule_applies() {
        let cases = [
            (None, json!({}), None, json!({})),
            (Some(json!([1, 2])), json!({}), None, json!({})),
            (Some(json!("x")), json!({}), None, json!({})),
            (
                Some(json!({"name": "t", "task": {"ttl": 1}, "arguments": {"a": 1}, "_meta": {"progressToken": 0}})),
                json!({"name": "t", "arguments": {"a": 1}}),
                Some(json!(0)),
                json!({}),
            ),
            (Some(json!({"_meta": {"progressToken": null}})), json!({}), None, json!({})),
            (Some(json!({"_meta": {"progressToken": [1]}})), json!({}), None, json!({})),
            (Some(json!({"_meta": {"progressToken": "abc"}})), json!({}), Some(json!("abc")), json!({})),
            (Some(json!({"_meta": {"progressToken": 1.5}})), json!({}), Some(json!(1.5)), json!({})),
            (
                Some(
                    json!({"_meta": {"traceparent": "00-x", "tracestate": "a", "vscode.conversationId": "c", "vscode.mcp/x": 1,
                    "vscode.bad key": 1, "io.modelcontextprotocol/protocolVersion": "x"}}),
                ),
                json!({}),
                None,
                json!({"traceparent": "00-x", "vscode.conversationId": "c"}),
            ),
        ];
        for (input, params, token, meta) in cases {
            let got = forwarded(input.clone(), &profile());
            assert_eq!(Value::Object(got.params), params, "{input:?}");
            assert_eq!(got.progress_token, token, "{input:?}");
            assert_eq!(Value::Object(got.meta), meta, "{input:?}");
        }
    }
}
