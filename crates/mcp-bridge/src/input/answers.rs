//! The shape of each answer of the client (behaviour spec, "Answers of
//! the client": "A result without the shape of the schema | The original
//! request fails with invalid_client_answer").
//!
//! An answer is held to the 2025-11-25 schema of its result, every member
//! the schema types: `ElicitResult`, `CreateMessageResult` or
//! `ListRootsResult`, from `answers.schema.json` (`super::shape`).

use super::shape;
use jsonschema::Validator;
use serde_json::Value;
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
static VALIDATORS: LazyLock<Option<Vec<Validator>>> =
    LazyLock::new(|| Kind::ALL.iter().map(|kind| shape::validator(SCHEMAS, kind.definition())).collect());

/// Whether the answer has the shape of the schema of its kind's result.
pub(crate) fn has_shape(kind: Kind, answer: &Value) -> bool {
    let index = Kind::ALL.iter().position(|k| *k == kind);
    let validator = VALIDATORS.as_ref().zip(index).and_then(|(all, i)| all.get(i));
    validator.is_some_and(|v| v.is_valid(answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let roots: Vec<&str> = Kind::ALL.iter().map(|k| k.definition()).collect();
        super::super::shape::spec::holds_the_specs_definitions("2025-11-25", "answers.schema.json", SCHEMAS, &roots);
    }
}
