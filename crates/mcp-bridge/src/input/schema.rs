//! Form schemas: they must compile, and a form answer must be valid against
//! its `requestedSchema`. The validator is `jsonschema`, built without
//! network or file access: a form schema cannot make the bridge fetch.

use serde_json::Value;

/// Whether the schema compiles.
pub(crate) fn compiles(schema: &Value) -> bool {
    jsonschema::validator_for(schema).is_ok()
}

/// Whether the content is valid against the schema; a schema that does not
/// compile accepts nothing.
pub(crate) fn accepts(schema: &Value, content: &Value) -> bool {
    jsonschema::validator_for(schema).is_ok_and(|validator| validator.is_valid(content))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_compile_and_validate_form_content() {
        let schema =
            json!({"type": "object", "properties": {"name": {"type": "string", "minLength": 2}}, "required": ["name"]});
        assert!(compiles(&schema));
        assert!(accepts(&schema, &json!({"name": "Ada"})));
        assert!(!accepts(&schema, &json!({"name": "A"})));
        assert!(!accepts(&schema, &json!({})));
        assert!(!compiles(&json!({"type": "object", "properties": {"n": {"type": 5}}})));
        assert!(!compiles(&json!({"type": "object", "properties": {"n": {"$ref": "https://example.com/s.json"}}})));
    }
}
