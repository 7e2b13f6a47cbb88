//! The schemas' real shapes: a definition of a revision's `schema.json`,
//! and the ones it refers to, compiled once. The input requests of the
//! upstream server are held to the 2026-07-28 `InputRequest`
//! (`requests.schema.json`), the answers of the client to the 2025-11-25
//! results (`answers.schema.json`). Each file holds the definitions as the
//! revision's `schema.json` has them, without their descriptions; a test
//! holds it to the spec's when the spec is beside the clone, and
//! `UPDATE_FIXTURES=1` writes it anew.

use jsonschema::Validator;
use serde_json::{json, Value};

/// A validator of `definition` among the `$defs` of `schemas` (the text of
/// one of the files above); `None` only if the file does not compile,
/// which each user's test rules out.
pub(crate) fn validator(schemas: &str, definition: &str) -> Option<Validator> {
    let schemas: Value = serde_json::from_str(schemas).ok()?;
    let root = json!({
        "$schema": schemas.get("$schema"),
        "$defs": schemas.get("$defs"),
        "$ref": format!("#/$defs/{definition}"),
    });
    jsonschema::validator_for(&root).ok()
}

#[cfg(test)]
pub(crate) mod spec {
    //! The test that a file holds the spec's definitions.

    use serde_json::{json, Value};
    use std::path::PathBuf;

    /// Holds `file` (under `src/input/`, with the text `ours`) to the
    /// definitions `roots` of the spec's `revision_path` (under
    /// `shared/spec/`) and those they refer to; writes it anew with
    /// `UPDATE_FIXTURES=1`. Without the spec beside the clone, the file
    /// stands for it.
    pub(crate) fn holds_the_specs_definitions(revision_path: &str, file: &str, ours: &str, roots: &[&str]) {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let spec = root.join("../../../shared/spec").join(revision_path).join("schema.json");
        let Ok(text) = std::fs::read_to_string(&spec) else { return };
        let spec: Value = serde_json::from_str(&text).unwrap_or_default();
        let want = subset(&spec, roots);
        let here = root.join("src/input").join(file);
        if std::env::var_os("UPDATE_FIXTURES").is_some() {
            let text = serde_json::to_string_pretty(&want).unwrap_or_default();
            std::fs::write(&here, text + "\n").unwrap_or_else(|e| panic!("{}: {e}", here.display()));
            return;
        }
        let ours: Value = serde_json::from_str(ours).unwrap_or_default();
        assert_eq!(ours, want, "{file} differs from the spec: run with UPDATE_FIXTURES=1");
    }

    /// The definitions `roots` and those they refer to.
    fn subset(spec: &Value, roots: &[&str]) -> Value {
        let defs = &spec["$defs"];
        let mut names: Vec<String> = roots.iter().map(|name| (*name).to_owned()).collect();
        let mut next = 0;
        while let Some(name) = names.get(next).cloned() {
            refs(&defs[&name], &mut names);
            next += 1;
        }
        names.sort();
        let kept: serde_json::Map<String, Value> =
            names.iter().map(|n| (n.clone(), without_descriptions(&defs[n]))).collect();
        json!({"$schema": spec["$schema"], "$defs": kept})
    }

    fn refs(schema: &Value, names: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value.as_str().and_then(|r| r.strip_prefix("#/$defs/"))) {
                        ("$ref", Some(name)) if !names.iter().any(|n| n == name) => names.push(name.to_owned()),
                        _ => refs(value, names),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| refs(item, names)),
            _ => {}
        }
    }

    /// The schema without its `description` keywords; a property named
    /// `description` stays.
    fn without_descriptions(schema: &Value) -> Value {
        match schema {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(key, _)| *key != "description")
                    .map(|(key, value)| {
                        let value = match (key.as_str(), value) {
                            ("properties" | "patternProperties", Value::Object(props)) => Value::Object(
                                props.iter().map(|(name, s)| (name.clone(), without_descriptions(s))).collect(),
                            ),
                            _ => without_descriptions(value),
                        };
                        (key.clone(), value)
                    })
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
            other => other.clone(),
        }
    }
}
