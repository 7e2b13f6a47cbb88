//! The content blocks of a result for an older revision: a structured
//! result it cannot carry, the kinds of block it lacks, and the notes.

use super::table::{strip, strip_value, ANNOTATIONS, BLOCK_TYPES, RESOURCE_LINK, STRUCTURED_CONTENT};
use crate::gate::text;
use crate::profile::Revision;
use crate::translate::note::Note;
use serde_json::{Map, Value};

/// `structuredContent` where the revision cannot carry it: before
/// 2025-06-18 it does not exist, and 2025-06-18 takes only an object (the
/// TypeScript SDK 1.x refuses the whole result for any other value). The
/// member goes; its value stays for the model in a text block, unless a
/// text block holds the same JSON already (the text mirror, or the
/// server's own). A null carries nothing.
pub(super) fn structured_content(result: &mut Map<String, Value>, revision: Revision, notes: &mut Vec<Note>) {
    let (name, since) = STRUCTURED_CONTENT;
    let why = match result.get(name) {
        None => return,
        Some(_) if revision < since => format!("revision {revision} of the client has no {name}"),
        Some(value) if !value.is_object() => {
            format!("revision {revision} of the client takes only an object as {name}")
        }
        Some(_) => return,
    };
    let value = result.shift_remove(name).unwrap_or(Value::Null);
    if value.is_null() {
        return;
    }
    if !matches!(result.get("content"), Some(Value::Array(_))) {
        result.insert("content".into(), Value::Array(Vec::new()));
    }
    let Some(Value::Array(content)) = result.get_mut("content") else { return };
    if content.iter().any(|b| holds_json(b, &value)) {
        return;
    }
    let mut mirror = Map::new();
    mirror.insert("type".into(), Value::from("text"));
    mirror.insert("text".into(), Value::from(value.to_string()));
    content.push(Value::Object(mirror));
    notes.push(Note::info(format!("{why}; the bridge removed it, and a text block carries its value")));
}

/// Whether `block` is a text block whose text is the JSON of `value`.
fn holds_json(block: &Value, value: &Value) -> bool {
    let text = block.get("text").and_then(Value::as_str).filter(|_| block.get("type") == Some(&Value::from("text")));
    text.and_then(|t| serde_json::from_str::<Value>(t).ok()).is_some_and(|parsed| &parsed == value)
}

/// One content block: a type the revision lacks (`BLOCK_TYPES`) becomes a
/// text block that says what it was, and its kind comes back for the note;
/// the members of the others follow their tables.
pub(super) fn block(block: &mut Value, revision: Revision) -> Option<&'static str> {
    let Value::Object(object) = block else { return None };
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    let Some(&(kind, _)) = BLOCK_TYPES.iter().find(|(row, since)| *row == kind && revision < *since) else {
        if kind == "resource_link" {
            strip(object, &RESOURCE_LINK, revision);
        }
        block_members(object, revision);
        return None;
    };
    let text = match kind {
        // The server's texts in the bridge's sentence pass the gate: a line
        // break in a name must not forge a second link in the block.
        "resource_link" => {
            let uri = object.get("uri").and_then(Value::as_str).map(|uri| text::shown(uri, text::LINE));
            let name = object.get("name").and_then(Value::as_str).map(|name| text::shown(name, text::NAME));
            let text = match (name, uri) {
                (Some(name), Some(uri)) => format!("A link to the resource {name}: {uri}"),
                (None, Some(uri)) => format!("A link to the resource {uri}"),
                (Some(name), None) => format!("A link to the resource {name}"),
                (None, None) => "A link to a resource".to_owned(),
            };
            text
        }
        "audio" => {
            let mime = object.get("mimeType").and_then(Value::as_str).unwrap_or("audio");
            format!("An audio clip ({}) that this client cannot play", text::shown(mime, text::NAME))
        }
        kind => format!("A {kind} block that this client cannot show"),
    };
    let mut replaced = Map::new();
    replaced.insert("type".into(), Value::from("text"));
    replaced.insert("text".into(), Value::from(text));
    *object = replaced;
    Some(kind)
}

/// The members that every kind of block shares: its annotations.
pub(super) fn block_members(block: &mut Map<String, Value>, revision: Revision) {
    if let Some(annotations) = block.get_mut("annotations") {
        strip_value(annotations, &ANNOTATIONS, revision);
    }
}

/// One note per kind of block that became text, with the count: a result
/// of 20,000 links gives one line, not 20,000.
pub(super) fn conversion_notes(converted: &[&'static str], revision: Revision) -> Vec<Note> {
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for kind in converted {
        match kinds.iter_mut().find(|(k, _)| k == kind) {
            Some((_, count)) => *count += 1,
            None => kinds.push((kind, 1)),
        }
    }
    kinds
        .into_iter()
        .map(|(kind, count)| {
            let what = if count == 1 {
                let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
                format!("{article} {kind} block became a text block")
            } else {
                format!("{count} {kind} blocks became text blocks")
            };
            Note::info(format!("{what}: revision {revision} of the client has no {kind} blocks"))
        })
        .collect()
}
