//! The result rules (behaviour spec, "Result rules (M1)"): what each result
//! loses or gains before the client gets it. Only the named members change;
//! every other member, and the order of the members, stay as they came.

use super::initialize::SERVER_INFO_KEY;
use super::items::normalize_input_schema;
use super::note::Note;
use crate::Profile;
use serde_json::{Map, Value};

/// The list results whose `nextCursor` must be a string.
const LIST_METHODS: [&str; 4] = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];

/// Whether a result asks for input (an `InputRequiredResult`); such a
/// result never goes to the client.
pub fn is_input_required(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// Applies every rule that concerns `method` to a complete result.
/// `request_cursor` is the `cursor` of the request, for the paging guard.
pub fn translate_result(
    method: &str,
    request_cursor: Option<&Value>,
    result: Value,
    profile: &Profile,
) -> (Value, Vec<Note>) {
    let mut notes = Vec::new();
    let Value::Object(mut result) = result else {
        return (result, notes);
    };
    remove_modern_members(&mut result);
    if LIST_METHODS.contains(&method) {
        next_cursor(&mut result, request_cursor, &mut notes);
    }
    match method {
        "tools/list" => tools_list(&mut result, profile, &mut notes),
        "tools/call" => tools_call(&mut result, profile),
        _ => {}
    }
    (Value::Object(result), notes)
}

/// `resultType`, `ttlMs`, `cacheScope`, the server information in `_meta`,
/// and a `_meta` left empty.
fn remove_modern_members(result: &mut Map<String, Value>) {
    for key in ["resultType", "ttlMs", "cacheScope"] {
        result.shift_remove(key);
    }
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.shift_remove(SERVER_INFO_KEY);
        if meta.is_empty() {
            result.shift_remove("_meta");
        }
    }
}

/// A `nextCursor` that is not a string goes: VS Code asks for the next page
/// while it is present, also when it is null. Beyond the spec: a cursor
/// equal to the request's own would make VS Code ask forever.
fn next_cursor(result: &mut Map<String, Value>, request_cursor: Option<&Value>, notes: &mut Vec<Note>) {
    match result.get("nextCursor") {
        None | Some(Value::String(_)) if result.get("nextCursor") == request_cursor && request_cursor.is_some() => {
            result.shift_remove("nextCursor");
            notes.push(Note::warn(
                "the server returned the cursor of the request as nextCursor; the bridge removed it so that the client does not ask forever",
            ));
        }
        None | Some(Value::String(_)) => {}
        Some(_) => {
            result.shift_remove("nextCursor");
        }
    }
}

fn tools_list(result: &mut Map<String, Value>, profile: &Profile, notes: &mut Vec<Note>) {
    let Some(Value::Array(tools)) = result.get_mut("tools") else { return };
    for tool in tools.iter_mut() {
        let Value::Object(tool) = tool else { continue };
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
        if profile.quirks.normalize_array_items {
            if let Some(schema) = tool.get_mut("inputSchema") {
                normalize_input_schema(schema, &name, notes);
            }
        }
        let drop_output = match tool.get("outputSchema") {
            Some(schema) if profile.quirks.strict_legacy_results && !is_object_schema(schema) => true,
            Some(schema) if profile.quirks.drop_non_object_output_schema && !has_object_type(schema) => true,
            _ => false,
        };
        if drop_output {
            tool.shift_remove("outputSchema");
            notes.push(
                Note::info("the outputSchema does not have type: \"object\" at its root; the bridge removed it")
                    .for_tool(&name),
            );
        }
    }
}

/// The root has `type: "object"`.
fn has_object_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// An object schema with `type: "object"`, as revision 2025-11-25 asks.
fn is_object_schema(schema: &Value) -> bool {
    schema.is_object() && has_object_type(schema)
}

fn tools_call(result: &mut Map<String, Value>, profile: &Profile) {
    if profile.quirks.strict_legacy_results && result.get("structuredContent").is_some_and(|s| !s.is_object()) {
        result.shift_remove("structuredContent");
    }
    if !result.get("content").is_some_and(Value::is_array) {
        result.insert("content".into(), Value::Array(Vec::new()));
    }
    let mirror = match result.get("structuredContent") {
        Some(Value::Null) | None => None,
        Some(structured) => Some(structured.to_string()),
    };
    let Some(text) = mirror else { return };
    if let Some(Value::Array(content)) = result.get_mut("content") {
        let has_text = content.iter().any(|block| block.get("type").and_then(Value::as_str) == Some("text"));
        if !has_text {
            let mut block = Map::new();
            block.insert("type".into(), Value::from("text"));
            block.insert("text".into(), Value::from(text));
            content.push(Value::Object(block));
        }
    }
}
