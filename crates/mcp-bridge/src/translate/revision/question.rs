//! The questions of the bridge to a client of an older revision: which
//! ones it can carry, and their params in its terms.

use super::blocks::block_members;
use super::table::{strip, ELICITATION, SAMPLING};
use crate::profile::Revision::{self, V2025_03_26, V2025_11_25};
use serde_json::{Map, Value};

/// Why a form cannot reach a client of `revision`, if it cannot: a
/// multi-select enum (an array property) exists only from 2025-11-25.
/// Every other form of 2025-11-25 has a form of 2025-06-18 ([`question`]).
pub(crate) fn carries_form(schema: &Value, revision: Revision) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let multi = properties.is_some_and(|p| p.values().any(|s| s.get("type").and_then(Value::as_str) == Some("array")));
    if revision < V2025_11_25 && multi {
        return Err(format!("the client's revision {revision} has no multi-select enums"));
    }
    Ok(())
}

/// Why a sampling request cannot reach a client of `revision`, if it
/// cannot: before 2025-11-25 a message holds one content block, and before
/// 2025-03-26 there is no audio.
pub(crate) fn carries_sampling(params: &Map<String, Value>, revision: Revision) -> Result<(), String> {
    let messages = params.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for content in messages.iter().filter_map(|m| m.get("content")) {
        let blocks = match content {
            Value::Array(blocks) if revision < V2025_11_25 && blocks.len() != 1 => {
                return Err(format!("the client's revision {revision} takes one content block per sampling message"));
            }
            Value::Array(blocks) => blocks.as_slice(),
            block => std::slice::from_ref(block),
        };
        let audio = blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("audio"));
        if audio && revision < V2025_03_26 {
            return Err(format!("the client's revision {revision} has no audio content"));
        }
    }
    Ok(())
}

/// The params of a question to a client of `revision` (after the checks of
/// `carries_form` and `carries_sampling`).
pub(crate) fn question(method: &str, params: &mut Value, revision: Revision) {
    if revision == Revision::LATEST {
        return;
    }
    let Value::Object(params) = params else { return };
    match method {
        "elicitation/create" => {
            strip(params, &ELICITATION, revision);
            // 2025-06-18's form takes these members only; the bridge holds
            // the answer to the server's whole schema in any case.
            params.retain(|key, _| matches!(key.as_str(), "message" | "requestedSchema" | "_meta"));
            if let Some(Value::Object(schema)) = params.get_mut("requestedSchema") {
                schema.retain(|key, _| matches!(key.as_str(), "type" | "properties" | "required"));
                if let Some(Value::Object(properties)) = schema.get_mut("properties") {
                    properties.values_mut().for_each(form_property);
                }
            }
        }
        "sampling/createMessage" => {
            strip(params, &SAMPLING, revision);
            if let Some(Value::Array(messages)) = params.get_mut("messages") {
                for content in messages.iter_mut().filter_map(|m| m.get_mut("content")) {
                    if let Value::Array(blocks) = content {
                        if let Some(only) = blocks.pop() {
                            *content = only;
                        }
                    }
                    if let Value::Object(block) = content {
                        block_members(block, revision);
                    }
                }
            }
        }
        _ => {}
    }
}

/// A property of a form as 2025-06-18 has it (its `PrimitiveSchemaDefinition`):
/// a titled single-select (`oneOf` of string `const` and `title`) becomes
/// an `enum` with `enumNames`, which takes the same answers; then each kind
/// keeps only the members that revision gives it (no `default` but on a
/// boolean, no `pattern`, a `format` of its four). The bridge holds the
/// answer to the server's own property in any case.
fn form_property(property: &mut Value) {
    let Value::Object(property) = property else { return };
    if let Some(Value::Array(choices)) = property.get("oneOf") {
        let text = |choice: &Value, key: &str| choice.get(key).filter(|v| v.is_string()).cloned();
        let consts: Option<Vec<Value>> = choices.iter().map(|c| text(c, "const")).collect();
        let titles: Option<Vec<Value>> = choices.iter().map(|c| text(c, "title")).collect();
        if let (Some(consts), Some(titles)) = (consts, titles) {
            property.insert("enum".into(), Value::Array(consts));
            property.insert("enumNames".into(), Value::Array(titles));
        }
    }
    let strings =
        |key: &str| property.get(key).and_then(Value::as_array).is_some_and(|a| a.iter().all(Value::is_string));
    let kept: &[&str] = match property.get("type").and_then(Value::as_str) {
        Some("string") if strings("enum") => {
            if !strings("enumNames") {
                property.shift_remove("enumNames");
            }
            &["type", "title", "description", "enum", "enumNames"]
        }
        Some("string") => {
            let format = property.get("format").and_then(Value::as_str);
            if !format.is_some_and(|f| matches!(f, "date" | "date-time" | "email" | "uri")) {
                property.shift_remove("format");
            }
            &["type", "title", "description", "minLength", "maxLength", "format"]
        }
        Some("number" | "integer") => &["type", "title", "description", "minimum", "maximum"],
        Some("boolean") => &["type", "title", "description", "default"],
        _ => return,
    };
    property.retain(|key, _| kept.contains(&key.as_str()));
}
