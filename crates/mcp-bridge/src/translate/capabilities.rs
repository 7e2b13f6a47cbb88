//! The capabilities of the client, translated for the upstream server
//! (behaviour spec, "The capabilities for the upstream server").
//!
//! The result always has the shape of the 2026-07-28 `ClientCapabilities`
//! schema: a member of the wrong shape is dropped, never passed on.

use serde_json::{Map, Value};

/// The key of the Tasks extension, which the bridge never declares.
pub(crate) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Translates the `capabilities` of a 2025-11-25 initialize request.
pub(crate) fn client_capabilities(client: &Value) -> Value {
    let mut out = Map::new();
    let Some(client) = client.as_object() else {
        return Value::Object(out);
    };
    if let Some(sampling) = client.get("sampling").and_then(Value::as_object) {
        // As declared: the bridge never adds `tools` or `context`, and it
        // drops them when they are not objects.
        let mut kept = sampling.clone();
        kept.retain(|k, v| !matches!(k.as_str(), "tools" | "context") || v.is_object());
        out.insert("sampling".into(), Value::Object(kept));
    }
    if let Some(elicitation) = client.get("elicitation").and_then(Value::as_object) {
        let modes: Map<String, Value> = elicitation
            .iter()
            .filter(|(k, v)| matches!(k.as_str(), "form" | "url") && v.is_object())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.insert("elicitation".into(), Value::Object(modes));
    }
    if client.get("roots").is_some_and(Value::is_object) {
        // Revision 2026-07-28 has no roots.listChanged.
        out.insert("roots".into(), Value::Object(Map::new()));
    }
    for key in ["experimental", "extensions"] {
        if let Some(members) = client.get(key).and_then(Value::as_object) {
            out.insert(key.into(), Value::Object(object_members(members, key == "extensions")));
        }
    }
    Value::Object(out)
}

/// The members that are objects; without the Tasks extension when asked.
pub(crate) fn object_members(members: &Map<String, Value>, drop_tasks: bool) -> Map<String, Value> {
    members
        .iter()
        .filter(|(k, v)| v.is_object() && !(drop_tasks && k.as_str() == TASKS_EXTENSION))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_capability_row_translates_as_the_table_says() {
        let cases = [
            (json!({}), json!({})),
            (json!(null), json!({})),
            (json!({"sampling": {}}), json!({"sampling": {}})),
            (json!({"sampling": {"tools": {}, "context": {}}}), json!({"sampling": {"tools": {}, "context": {}}})),
            (json!({"sampling": {"tools": true}}), json!({"sampling": {}})),
            (json!({"sampling": 1}), json!({})),
            (json!({"elicitation": {}}), json!({"elicitation": {}})),
            (json!({"elicitation": {"form": {}, "url": {}, "x": {}}}), json!({"elicitation": {"form": {}, "url": {}}})),
            (json!({"elicitation": {"form": true}}), json!({"elicitation": {}})),
            (json!({"roots": {"listChanged": true}}), json!({"roots": {}})),
            (json!({"roots": true}), json!({})),
            (json!({"tasks": {"list": {}}}), json!({})),
            (json!({"other": {}}), json!({})),
            (json!({"experimental": {"a": {}, "b": 1}}), json!({"experimental": {"a": {}}})),
            (
                json!({"extensions": {"io.modelcontextprotocol/tasks": {}, "com.example/x": {"k": 1}, "y": []}}),
                json!({"extensions": {"com.example/x": {"k": 1}}}),
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(client_capabilities(&input), expected, "{input}");
        }
    }
}
