//! The questions of the bridge to a client of an older revision: which
//! ones it can carry, and their params in its terms.

use super::blocks::block_members;
use super::table::{
    keep, lacks, strip, Since, AUDIO, BOOLEAN_PROPERTY, ENUM_PROPERTY, FORM, FORM_SCHEMA, MULTI_SELECT_ENUMS,
    NUMBER_PROPERTY, SAMPLING, SEVERAL_BLOCKS, STRING_PROPERTY, TITLED_ENUMS,
};
use crate::jsonrpc::ClientRequest;
use crate::profile::Revision;
use serde_json::{Map, Value};

/// Why a form cannot reach a client of `revision`, if it cannot: a
/// multi-select enum (an array property) exists only from 2025-11-25
/// (`MULTI_SELECT_ENUMS`). Every other form of 2025-11-25 has a form of
/// 2025-06-18 ([`question`]).
pub(crate) fn carries_form(schema: &Value, revision: Revision) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let multi = properties.is_some_and(|p| p.values().any(|s| s.get("type").and_then(Value::as_str) == Some("array")));
    if multi && lacks(MULTI_SELECT_ENUMS, revision) {
        return Err(format!("the client's revision {revision} has no multi-select enums"));
    }
    Ok(())
}

/// Why a sampling request cannot reach a client of `revision`, if it
/// cannot: before 2025-11-25 a message holds one content block, and before
/// 2025-03-26 there is no audio (`SEVERAL_BLOCKS`, `AUDIO`).
pub(crate) fn carries_sampling(params: &Map<String, Value>, revision: Revision) -> Result<(), String> {
    let messages = params.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let one_block = lacks(SEVERAL_BLOCKS, revision);
    for content in messages.iter().filter_map(|m| m.get("content")) {
        let blocks = match content {
            Value::Array(blocks) if one_block && blocks.len() != 1 => {
                return Err(format!("the client's revision {revision} takes one content block per sampling message"));
            }
            Value::Array(blocks) => blocks.as_slice(),
            block => std::slice::from_ref(block),
        };
        let audio = blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("audio"));
        if audio && lacks(AUDIO, revision) {
            return Err(format!("the client's revision {revision} has no audio content"));
        }
    }
    Ok(())
}

/// The params of a question to a client of `revision` (after the checks of
/// `carries_form` and `carries_sampling`).
pub(crate) fn question(method: ClientRequest, params: &mut Value, revision: Revision) {
    if revision == Revision::LATEST {
        return;
    }
    let Value::Object(params) = params else { return };
    match method {
        ClientRequest::ElicitationCreate => {
            keep(params, &FORM, revision);
            if let Some(Value::Object(schema)) = params.get_mut("requestedSchema") {
                keep(schema, &FORM_SCHEMA, revision);
                if let Some(Value::Object(properties)) = schema.get_mut("properties") {
                    properties.values_mut().for_each(|property| form_property(property, revision));
                }
            }
        }
        ClientRequest::SamplingCreateMessage => {
            strip(params, &SAMPLING, revision);
            let one_block = lacks(SEVERAL_BLOCKS, revision);
            if let Some(Value::Array(messages)) = params.get_mut("messages") {
                for content in messages.iter_mut().filter_map(|m| m.get_mut("content")) {
                    let only = match content {
                        Value::Array(blocks) if one_block => blocks.pop(),
                        _ => None,
                    };
                    if let Some(only) = only {
                        *content = only;
                    }
                    if let Value::Object(block) = content {
                        block_members(block, revision);
                    }
                }
            }
        }
        ClientRequest::RootsList => {}
    }
}

/// A property of a form as 2025-06-18 has it (its `PrimitiveSchemaDefinition`):
/// a titled single-select (`oneOf` of string `const` and `title`) becomes
/// an `enum` with `enumNames`, which takes the same answers; then each kind
/// keeps only the members that revision gives it (no `default` but on a
/// boolean, no `pattern`, a `format` of its four). The bridge holds the
/// answer to the server's own property in any case.
fn form_property(property: &mut Value, revision: Revision) {
    let Value::Object(property) = property else { return };
    let titled = property.get("oneOf").filter(|_| lacks(TITLED_ENUMS, revision));
    if let Some(Value::Array(choices)) = titled {
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
    let kept: &[Since] = match property.get("type").and_then(Value::as_str) {
        Some("string") if strings("enum") => {
            if !strings("enumNames") {
                property.shift_remove("enumNames");
            }
            &ENUM_PROPERTY
        }
        Some("string") => {
            let format = property.get("format").and_then(Value::as_str);
            if !format.is_some_and(|f| matches!(f, "date" | "date-time" | "email" | "uri")) {
                property.shift_remove("format");
            }
            &STRING_PROPERTY
        }
        Some("number" | "integer") => &NUMBER_PROPERTY,
        Some("boolean") => &BOOLEAN_PROPERTY,
        _ => return,
    };
    keep(property, kept, revision);
}
