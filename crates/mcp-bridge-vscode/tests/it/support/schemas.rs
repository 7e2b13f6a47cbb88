//! The schemas of the MCP revisions that clients ask for, copied from the
//! spec into tests/schemas/ (`schemas::the_copies_are_the_specs` holds them
//! to ../shared when it is beside the clone), and the check of a message
//! against one definition of a revision.
//!
//! No definition of the older schemas sets `additionalProperties`, so a
//! member that a revision lacks would validate. For the revisions before
//! 2025-11-25 the check is strict: an object schema that lists its
//! properties takes no other member (but `_meta`, which the spec's rules of
//! `_meta` govern, and the JSON Schemas of a tool, which are the server's).
//! So "send only what that revision defines" is what is checked.

use jsonschema::Validator;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The revisions whose schemas are here, oldest first.
pub const REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The members under which a schema is not a protocol object of the spec.
const OPEN: [&str; 3] = ["inputSchema", "outputSchema", "structuredContent"];

/// The text of a revision's schema.
pub fn schema_text(revision: &str) -> String {
    let path = super::repo_root().join("tests/schemas").join(format!("{revision}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The validators made so far, by revision and definition.
type Made = Mutex<HashMap<(String, String), Arc<Validator>>>;

fn validators() -> &'static Made {
    static MADE: OnceLock<Made> = OnceLock::new();
    MADE.get_or_init(Mutex::default)
}

/// Checks `value` against `definition` of `revision`; the errors as text.
pub fn check(revision: &str, definition: &str, value: &Value) -> Result<(), String> {
    let key = (revision.to_owned(), definition.to_owned());
    let validator = {
        let mut made = validators().lock().unwrap_or_else(|p| p.into_inner());
        match made.get(&key) {
            Some(validator) => validator.clone(),
            None => {
                let validator = Arc::new(make(revision, definition)?);
                made.insert(key, validator.clone());
                validator
            }
        }
    };
    let errors: Vec<String> = validator.iter_errors(value).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("not a valid {definition} of {revision}: {}\n{value}", errors.join("; ")))
    }
}

fn make(revision: &str, definition: &str) -> Result<Validator, String> {
    let mut schema: Value = serde_json::from_str(&schema_text(revision)).map_err(|e| e.to_string())?;
    let defs = if schema.get("$defs").is_some() { "$defs" } else { "definitions" };
    if schema[defs].get(definition).is_none() {
        return Err(format!("revision {revision} has no {definition}"));
    }
    if revision != "2025-11-25" {
        strict(&mut schema);
    }
    schema["$ref"] = json!(format!("#/{defs}/{definition}"));
    jsonschema::validator_for(&schema).map_err(|e| format!("the schema of {revision}: {e}"))
}

/// Every object schema with `properties` takes only them (and `_meta`).
fn strict(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            let lists = object.get("properties").is_some_and(Value::is_object);
            if lists && !object.contains_key("additionalProperties") {
                if let Some(Value::Object(properties)) = object.get_mut("properties") {
                    properties.entry("_meta").or_insert_with(|| json!({"type": "object"}));
                }
                object.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (key, value) in object.iter_mut() {
                if key == "properties" {
                    if let Value::Object(properties) = value {
                        strict_properties(properties);
                    }
                } else {
                    strict(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strict),
        _ => {}
    }
}

fn strict_properties(properties: &mut Map<String, Value>) {
    for (name, schema) in properties.iter_mut() {
        if !OPEN.contains(&name.as_str()) && name != "_meta" {
            strict(schema);
        }
    }
}
