//! The shape of each answer of the client (behaviour spec, "Answers of
//! the client": "A result without the shape of the schema | The original
//! request fails with invalid_client_answer").
//!
//! An answer is held to the 2025-11-25 schema of its result, every member
//! the schema types: `ElicitResult`, `CreateMessageResult` or
//! `ListRootsResult`. `answers.schema.json` holds those definitions and the
//! ones they refer to, as the revision's `schema.json` has them without
//! their descriptions; a test holds the file to the spec's when the spec
//! is beside the clone, and `UPDATE_FIXTURES=1` writes it anew.

use jsonschema::Validator;
use serde_json::{json, Value};
use std::sync::LazyLock;

/// The definitions of the answers' schemas.
const SCHEMAS: &str = include_str!("answers.schema.json");

/// What a question asks of the client, for the shape of its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Elicitation,
    Sampling,
    Roots,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Elicitation, Kind::Sampling, Kind::Roots];

    /// The name of the result's definition in the schema.
    fn definition(self) -> &'static str {
        match self {
            Kind::Elicitation => "ElicitResult",
            Kind::Sampling => "CreateMessageResult",
            Kind::Roots => "ListRootsResult",
        }
    }
}

/// One validator per kind, in the order of [`Kind::ALL`]; compiled once.
/// `None` only if the file above did not compile, which a test rules out.
static VALIDATORS: LazyLock<Option<Vec<Validator>>> = LazyLock::new(|| {
    let schemas: Value = serde_json::from_str(SCHEMAS).ok()?;
    Kind::ALL
        .iter()
        .map(|kind| {
            let root = json!({
                "$schema": schemas.get("$schema"),
                "$defs": schemas.get("$defs"),
                "$ref": format!("#/$defs/{}", kind.definition()),
            });
            jsonschema::validator_for(&root).ok()
        })
        .collect()
});

/// Whether the answer has the shape of the schema of its kind's result.
pub(crate) fn has_shape(kind: Kind, answer: &Value) -> bool {
    let index = Kind::ALL.iter().position(|k| *k == kind);
    let validator = VALIDATORS.as_ref().zip(index).and_then(|(all, i)| all.get(i));
    validator.is_some_and(|v| v.is_valid(answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn every_schema_compiles() {
        assert_eq!(VALIDATORS.as_ref().map(Vec::len), Some(3));
    }

    /// "Each kind | A result without the shape of the schema": the members
    /// that the schema types, one case per member.
    #[test]
    fn answers_are_held_to_the_schema_of_their_result() {
        let text = json!({"type": "text", "text": "hi"});
        for (kind, answer, valid) in [
            (
                Kind::Elicitation,
                json!({"action": "accept", "content": {"a": "x", "b": 1, "c": true, "d": ["y"]}}),
                true,
            ),
            (Kind::Elicitation, json!({"action": "decline"}), true),
            (Kind::Elicitation, json!({"action": "accept", "content": {"a": {"nested": 1}}}), false),
            (Kind::Elicitation, json!({"action": "accept", "content": {"a": [1]}}), false),
            (Kind::Elicitation, json!({"action": "accept", "content": {"a": null}}), false),
            (Kind::Elicitation, json!({"action": "accept", "content": []}), false),
            (Kind::Elicitation, json!({"action": "maybe"}), false),
            (Kind::Elicitation, json!({"action": "cancel", "_meta": 5}), false),
            (Kind::Elicitation, json!({}), false),
            (Kind::Roots, json!({"roots": [{"uri": "file:///a", "name": "a", "_meta": {}}]}), true),
            (Kind::Roots, json!({"roots": []}), true),
            (Kind::Roots, json!({"roots": [{"uri": "file:///a", "name": 5}]}), false),
            (Kind::Roots, json!({"roots": [{"uri": "file:///a", "name": null}]}), false),
            (Kind::Roots, json!({"roots": [{"uri": "file:///a", "_meta": 5}]}), false),
            (Kind::Roots, json!({"roots": [{"name": "a"}]}), false),
            (Kind::Roots, json!({"roots": {}}), false),
            (Kind::Roots, json!({"roots": [], "_meta": []}), false),
            (Kind::Sampling, json!({"role": "assistant", "model": "m", "content": text}), true),
            (
                Kind::Sampling,
                json!({"role": "assistant", "model": "m", "content": [text], "stopReason": "endTurn"}),
                true,
            ),
            (Kind::Sampling, json!({"role": "assistant", "model": "m", "content": {"type": "text"}}), false),
            (Kind::Sampling, json!({"role": "assistant", "model": "m", "content": {"type": "text", "text": 5}}), false),
            (Kind::Sampling, json!({"role": "robot", "model": "m", "content": text}), false),
            (Kind::Sampling, json!({"role": "assistant", "model": 5, "content": text}), false),
            (Kind::Sampling, json!({"role": "assistant", "model": "m", "content": text, "stopReason": 1}), false),
            (Kind::Sampling, json!({"role": "assistant", "model": "m"}), false),
        ] {
            assert_eq!(has_shape(kind, &answer), valid, "{kind:?}: {answer}");
        }
    }

    /// The definitions of the file are the spec's, without descriptions.
    #[test]
    fn the_schemas_are_the_definitions_of_the_spec() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let spec = root.join("../../../shared/spec/2025-11-25/schema.json");
        let Ok(text) = std::fs::read_to_string(&spec) else {
            // The spec is not beside the clone: the file stands for it.
            return;
        };
        let spec: Value = serde_json::from_str(&text).unwrap_or_default();
        let want = subset(&spec);
        let here = root.join("src/input/answers.schema.json");
        if std::env::var_os("UPDATE_FIXTURES").is_some() {
            let text = serde_json::to_string_pretty(&want).unwrap_or_default();
            std::fs::write(&here, text + "\n").unwrap_or_else(|e| panic!("{}: {e}", here.display()));
            return;
        }
        let ours: Value = serde_json::from_str(SCHEMAS).unwrap_or_default();
        assert_eq!(ours, want, "answers.schema.json differs from the spec: run with UPDATE_FIXTURES=1");
    }

    /// The three results' definitions and those they refer to.
    fn subset(spec: &Value) -> Value {
        let defs = &spec["$defs"];
        let mut names: Vec<String> = Kind::ALL.iter().map(|k| k.definition().to_owned()).collect();
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
