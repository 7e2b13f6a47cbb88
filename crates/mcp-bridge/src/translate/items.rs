//! The items rule for array schemas, R6 (behaviour spec, "The items rule
//! for array schemas (R6)").
//!
//! The Copilot extension stops each chat request when a schema has
//! `type: "array"` and no `items` value that is true in JavaScript. The
//! walk repairs such schemas so that they accept the same arrays as before.

use super::note::{escape_token, Note};
use serde_json::{Map, Value};

/// The walk stops below this depth.
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// Keywords whose value is a map of schemas.
const SCHEMA_MAPS: [&str; 6] =
    ["properties", "patternProperties", "dependencies", "dependentSchemas", "$defs", "definitions"];
/// Keywords whose value is one schema.
const SCHEMA_ONE: [&str; 7] = ["additionalProperties", "not", "if", "then", "else", "contains", "items"];
/// Keywords whose value is an array of schemas.
const SCHEMA_LISTS: [&str; 4] = ["anyOf", "allOf", "oneOf", "prefixItems"];

/// Repairs every array schema within the inputSchema of one tool.
pub fn normalize_input_schema(schema: &mut Value, tool: &str, notes: &mut Vec<Note>) {
    walk(schema, tool, &mut String::new(), 0, notes);
}

fn walk(schema: &mut Value, tool: &str, pointer: &mut String, depth: usize, notes: &mut Vec<Note>) {
    let Value::Object(object) = schema else { return };
    if depth >= MAX_SCHEMA_DEPTH {
        notes.push(
            Note::info(format!("the schema is deeper than {MAX_SCHEMA_DEPTH} levels; the bridge did not examine it"))
                .for_tool(tool)
                .at(pointer),
        );
        return;
    }
    if let Some(text) = repair_items(object) {
        notes.push(Note::info(text).for_tool(tool).at(pointer));
    }
    let len = pointer.len();
    for key in SCHEMA_MAPS {
        if let Some(Value::Object(members)) = object.get_mut(key) {
            for (name, member) in members.iter_mut() {
                push(pointer, key);
                push(pointer, name);
                walk(member, tool, pointer, depth + 1, notes);
                pointer.truncate(len);
            }
        }
    }
    for key in SCHEMA_ONE {
        if let Some(member) = object.get_mut(key) {
            push(pointer, key);
            walk(member, tool, pointer, depth + 1, notes);
            pointer.truncate(len);
        }
    }
    for key in SCHEMA_LISTS {
        if let Some(Value::Array(members)) = object.get_mut(key) {
            for (index, member) in members.iter_mut().enumerate() {
                push(pointer, key);
                push(pointer, &index.to_string());
                walk(member, tool, pointer, depth + 1, notes);
                pointer.truncate(len);
            }
        }
    }
}

/// Repairs one schema whose `type` is the string `"array"`; returns what it
/// did. A type array such as `["array","null"]` stays as it is.
fn repair_items(object: &mut Map<String, Value>) -> Option<String> {
    if object.get("type").and_then(Value::as_str) != Some("array") {
        return None;
    }
    match object.get("items") {
        None => {
            object.insert("items".into(), Value::Object(Map::new()));
            Some("an array schema without items got items: {}".into())
        }
        Some(value) if is_empty_items(value) => {
            let text = format!("an array schema with items: {value} got items: {{}}");
            object.insert("items".into(), Value::Object(Map::new()));
            Some(text)
        }
        Some(Value::Bool(false)) => {
            object.insert("items".into(), Value::Object(Map::new()));
            if object.contains_key("maxItems") {
                return Some("an array schema with items: false got items: {}".into());
            }
            let max = object.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
            object.insert("maxItems".into(), Value::from(max));
            Some(format!("an array schema with items: false got items: {{}} and maxItems: {max}"))
        }
        Some(_) => None,
    }
}

/// `null`, a number with the value 0, or `""`: false in JavaScript.
fn is_empty_items(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

fn push(pointer: &mut String, token: &str) {
    pointer.push('/');
    pointer.push_str(&escape_token(token));
}
