//! The result rules (behaviour spec, "Result rules (M1)"): what each
//! complete result loses or gains before the client of revision 2025-11-25
//! gets it. Only the members that a rule names change; every other member,
//! and the order of the members, stay as they came.

use super::discover::SERVER_INFO_KEY;
use super::items::normalize_input_schema;
use super::note::Note;
use crate::dialect::Dialect;
use crate::method::Method;
use crate::profile::Quirks;
use serde_json::{Map, Value};

/// The members of revision 2026-07-28 that every result loses: the result
/// type, and the caching hints that revision 2025-11-25 does not have.
pub(crate) const MODERN_MEMBERS: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// Whether a result asks for input (an `InputRequiredResult`). Such a
/// result never goes to the client: the caller does the rounds of the
/// section "Input requests" instead of calling [`translate_result`].
pub(crate) fn is_input_required(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// Applies every result rule that concerns `method` to a complete result,
/// then keeps what the client's revision defines (`revision`), and returns
/// the notes of the rules for the caller to log.
///
/// `request_cursor` is the `cursor` of the request's params, for the guard
/// against endless paging. A method without rules of its own only loses
/// the modern members. A result that is not an object has no members to
/// change, and comes back as it came (the front end refuses it before:
/// `check_object`).
pub(crate) fn translate_result(
    method: Method,
    request_cursor: Option<&Value>,
    result: Value,
    dialect: &Dialect,
) -> (Value, Vec<Note>) {
    let mut notes = Vec::new();
    let Value::Object(mut result) = result else {
        return (result, notes);
    };
    remove_modern_members(&mut result);
    if method.is_list() {
        next_cursor(&mut result, request_cursor, &mut notes);
    }
    match method {
        Method::ToolsList => tools_list(&mut result, dialect.quirks, &mut notes),
        Method::ToolsCall => tools_call(&mut result, dialect.quirks, &mut notes),
        _ => {}
    }
    super::revision::result(method, &mut result, dialect.revision, &mut notes);
    (Value::Object(result), notes)
}

/// `resultType`, `ttlMs`, `cacheScope`, the server information in `_meta`,
/// and a `_meta` that is then empty. An empty `_meta` of the server also
/// goes: it carries nothing, and the spec's test is the state after the
/// removal. A `_meta` that is not an object is not the bridge's business.
fn remove_modern_members(result: &mut Map<String, Value>) {
    for key in MODERN_MEMBERS {
        result.shift_remove(key);
    }
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.shift_remove(SERVER_INFO_KEY);
        if meta.is_empty() {
            result.shift_remove("_meta");
        }
    }
}

/// VS Code asks for the next page while `nextCursor` is present, also when
/// it is null, so a `nextCursor` that is not a string goes. A null is how
/// revision 2026-07-28 may say "last page", so it goes without a note.
///
/// Beyond the spec: a `nextCursor` equal to the cursor of the request would
/// make VS Code ask for the same page forever. It goes too, with a warning,
/// and the client stops at this page. Only that one-step loop is visible
/// here; the result of one request is all this function sees.
fn next_cursor(result: &mut Map<String, Value>, request_cursor: Option<&Value>, notes: &mut Vec<Note>) {
    let warning = match result.get("nextCursor") {
        None => return,
        Some(Value::String(next)) if request_cursor.and_then(Value::as_str) == Some(next.as_str()) => Some(
            "the nextCursor of the result is the cursor of the request; the bridge removed it, \
             so that the client does not ask for the same page forever",
        ),
        Some(Value::String(_)) => return,
        Some(Value::Null) => None,
        Some(_) => Some(
            "the nextCursor of the result is not a string; the bridge removed it, so the client stops at this page",
        ),
    };
    result.shift_remove("nextCursor");
    if let Some(warning) = warning {
        notes.push(Note::warn(warning));
    }
}

/// R6 for each `inputSchema`, and the `outputSchema` rules, tool by tool.
/// A tool that is not an object, or a `tools` that is not an array, stays
/// as it is: there is nothing a rule could name in it.
fn tools_list(result: &mut Map<String, Value>, quirks: Quirks, notes: &mut Vec<Note>) {
    let Some(Value::Array(tools)) = result.get_mut("tools") else { return };
    for tool in tools.iter_mut() {
        let Value::Object(tool) = tool else { continue };
        let name = tool.get("name").and_then(Value::as_str).map(str::to_owned);
        if quirks.normalize_array_items {
            if let Some(schema) = tool.get_mut("inputSchema") {
                normalize_input_schema(schema, name.as_deref(), notes);
            }
        }
        // drop_non_object_output_schema: the root lacks `type: "object"`.
        // strict_legacy_results: the root is not an object schema, which in
        // revision 2025-11-25 means an object with `type: "object"`. Both
        // tests are thus the same, and one note covers either quirk.
        let drop = quirks.drop_non_object_output_schema || quirks.strict_legacy_results;
        if drop && tool.get("outputSchema").is_some_and(|schema| !has_object_type(schema)) {
            tool.shift_remove("outputSchema");
            notes.push(
                Note::info("the outputSchema does not have type: \"object\" at its root; the bridge removed it")
                    .for_tool(name.as_deref()),
            );
        }
    }
}

/// The root is an object with `type: "object"`.
fn has_object_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The rules in the order of the spec's table: content, text mirror, then
/// the strict rule. The mirror comes before the strict rule so that a
/// structuredContent that the strict rule removes still reaches the model
/// as text.
fn tools_call(result: &mut Map<String, Value>, quirks: Quirks, notes: &mut Vec<Note>) {
    content(result, notes);
    text_mirror(result);
    if quirks.strict_legacy_results && result.get("structuredContent").is_some_and(|s| !s.is_object()) {
        result.shift_remove("structuredContent");
        notes.push(Note::info(
            "the structuredContent is not an object; the bridge removed it, as strict_legacy_results asks",
        ));
    }
}

/// Revision 2025-11-25 requires a content array. A missing one is added at
/// the end; a value that is not an array is replaced in its place, with a
/// warning, because its value is lost.
fn content(result: &mut Map<String, Value>, notes: &mut Vec<Note>) {
    match result.get("content") {
        Some(Value::Array(_)) => return,
        Some(_) => notes.push(Note::warn("the content of the result is not an array; the bridge replaced it with []")),
        None => {}
    }
    result.insert("content".into(), Value::Array(Vec::new()));
}

/// A client that reads only `content` still gets the structured result: a
/// text block with the serialized structuredContent, whatever its JSON type,
/// unless a text block is there already. The serialization keeps member
/// order and the text of numbers (`preserve_order`, `arbitrary_precision`).
fn text_mirror(result: &mut Map<String, Value>) {
    // The text block check comes first: serializing a large structured
    // result only to throw the text away is the cost of a big result.
    let has_text = |content: &Vec<Value>| content.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("text"));
    if result.get("content").and_then(Value::as_array).is_none_or(has_text) {
        return;
    }
    let text = match result.get("structuredContent") {
        None | Some(Value::Null) => return,
        Some(structured) => structured.to_string(),
    };
    let Some(Value::Array(content)) = result.get_mut("content") else { return };
    let mut block = Map::new();
    block.insert("type".into(), Value::from("text"));
    block.insert("text".into(), Value::from(text));
    content.push(Value::Object(block));
}
