//! The items rule for array schemas, R6 (behaviour spec, "The items rule
//! for array schemas (R6)").
//!
//! The Copilot extension of VS Code stops each chat request when a schema
//! has `type: "array"` and no `items` value that is true in JavaScript
//! (VS Code issue 339276): one bad tool blocks every tool of the server.
//! The walk repairs such schemas so that they accept the same arrays as
//! before, and gives one note for each repair.

use super::note::{push_index, push_name, Note};
use crate::gate::text;
use serde_json::{Map, Number, Value};
use std::fmt;

/// The number of schema levels the walk examines; the root is the first.
/// A schema below them gets a note and no change. The limit also bounds
/// the recursion, whatever the input.
pub(crate) const MAX_SCHEMA_DEPTH: usize = 64;

/// Where a keyword keeps its subschemas.
#[derive(Clone, Copy)]
pub(crate) enum Holds {
    /// A map of schemas, such as `properties`.
    Map,
    /// One schema, such as `not`.
    One,
    /// An array of schemas, such as `anyOf`.
    List,
    /// One schema, or an array of schemas: `items`, whose array form (the
    /// tuple form of drafts before 2020-12) is still common in tool schemas.
    OneOrList,
}

/// The keywords the walk goes through, and no other: a schema inside
/// `default`, `examples`, `const` or an unknown keyword is data, not a
/// schema, and must keep its value.
pub(crate) fn holds(keyword: &str) -> Option<Holds> {
    match keyword {
        "properties" | "patternProperties" | "dependencies" | "dependentSchemas" | "$defs" | "definitions" => {
            Some(Holds::Map)
        }
        "additionalProperties" | "not" | "if" | "then" | "else" | "contains" => Some(Holds::One),
        "items" => Some(Holds::OneOrList),
        "anyOf" | "allOf" | "oneOf" | "prefixItems" => Some(Holds::List),
        _ => None,
    }
}

/// Repairs every array schema within the `inputSchema` of one tool, and
/// appends one note per repair. Pointers are relative to `schema`.
pub(crate) fn normalize_input_schema(schema: &mut Value, tool: Option<&str>, notes: &mut Vec<Note>) {
    let mut walk = ItemsWalk { trail: Trail::new(tool, notes) };
    walk.schema(schema, 0);
}

/// The pointer of the schema being examined and the notes so far, for the
/// walk over a `Value` tree. Each step pushes its tokens and truncates them
/// again. (`raw::schema` keeps the tokens and writes a pointer only for a
/// note, with the same [`push_name`] and [`push_index`].)
struct Trail<'a> {
    tool: Option<&'a str>,
    notes: &'a mut Vec<Note>,
    pointer: String,
}

impl<'a> Trail<'a> {
    fn new(tool: Option<&'a str>, notes: &'a mut Vec<Note>) -> Self {
        Trail { tool, notes, pointer: String::new() }
    }

    /// Where the pointer is now, to [`Trail::back`] to.
    fn mark(&self) -> usize {
        self.pointer.len()
    }

    fn back(&mut self, mark: usize) {
        self.pointer.truncate(mark);
    }

    fn push(&mut self, token: &str) {
        push_name(&mut self.pointer, token);
    }

    fn push_index(&mut self, index: usize) {
        push_index(&mut self.pointer, index);
    }

    fn note(&mut self, text: String) {
        self.notes.push(Note::info(text).for_tool(self.tool).at(&self.pointer));
    }

    /// The note of a schema at [`MAX_SCHEMA_DEPTH`].
    fn too_deep(&mut self) {
        self.note(format!(
            "the schema is deeper than {MAX_SCHEMA_DEPTH} levels; the bridge did not examine it or its subschemas"
        ));
    }
}

struct ItemsWalk<'a> {
    trail: Trail<'a>,
}

impl ItemsWalk<'_> {
    /// `depth` is 0 for the root. Subschemas are visited in the order of
    /// their members, so that the notes read in the order of the document.
    fn schema(&mut self, schema: &mut Value, depth: usize) {
        // A boolean schema, or a value that is no schema at all, has no
        // array schema within it.
        let Value::Object(object) = schema else { return };
        if depth >= MAX_SCHEMA_DEPTH {
            return self.trail.too_deep();
        }
        let repaired = repair_items(object);
        if let Some(text) = &repaired {
            self.trail.note(text.clone());
        }
        let mark = self.trail.mark();
        for (keyword, value) in object.iter_mut() {
            // A repaired `items` is now `{}`: nothing to walk, and a walk
            // would give a depth note at the limit for the bridge's own
            // schema.
            if keyword == "items" && repaired.is_some() {
                continue;
            }
            match (holds(keyword), value) {
                (Some(Holds::Map), Value::Object(members)) => {
                    for (name, member) in members.iter_mut() {
                        self.trail.push(keyword);
                        self.trail.push(name);
                        self.schema(member, depth + 1);
                        self.trail.back(mark);
                    }
                }
                (Some(Holds::One | Holds::OneOrList), member @ Value::Object(_)) => {
                    self.trail.push(keyword);
                    self.schema(member, depth + 1);
                    self.trail.back(mark);
                }
                (Some(Holds::List | Holds::OneOrList), Value::Array(members)) => {
                    for (index, member) in members.iter_mut().enumerate() {
                        self.trail.push(keyword);
                        self.trail.push_index(index);
                        self.schema(member, depth + 1);
                        self.trail.back(mark);
                    }
                }
                _ => {}
            }
        }
    }
}

/// What the `items` of an array schema is, as the rule reads it.
pub(crate) enum Items<'a> {
    Missing,
    False,
    /// `null`, `""` or a number JavaScript reads as 0; its JSON text.
    FalseInJavascript(&'a dyn fmt::Display),
    /// A value the rule keeps.
    Kept,
}

/// The repair of one array schema: `items` becomes `{}` (in its place, or
/// last when there was none), and `max_items`, when there is one, goes
/// last as `maxItems`. `text` is the note.
pub(crate) struct Repair {
    pub max_items: Option<usize>,
    pub text: String,
}

/// The rule for an array schema whose `type` is the string `"array"`, from
/// its `items`, whether it has `maxItems`, and the length of its
/// `prefixItems` array (0 without one). One function for both walks, so
/// that they cannot differ in a repair or in its note.
pub(crate) fn repair(items: Items<'_>, has_max_items: bool, prefix_items: usize) -> Option<Repair> {
    let (max_items, text) = match items {
        Items::Missing => (None, "an array schema without items got items: {}".to_owned()),
        // `items: false` forbids each item after `prefixItems`. With
        // `items: {}` the same limit must come from `maxItems`. A
        // `maxItems` of the server stays as it is (the spec: "without
        // maxItems").
        Items::False if has_max_items => {
            (None, "an array schema with items: false got items: {}; its maxItems stays".to_owned())
        }
        Items::False => (
            Some(prefix_items),
            format!("an array schema with items: false got items: {{}} and maxItems: {prefix_items}"),
        ),
        // The server's text of the value: a number can run to the length
        // of the line.
        Items::FalseInJavascript(value) => {
            let value = text::shown(&value.to_string(), text::DETAIL).to_string();
            (None, format!("an array schema with items: {value} got items: {{}}"))
        }
        Items::Kept => return None,
    };
    Some(Repair { max_items, text })
}

/// Repairs one schema whose `type` is the string `"array"`, and says what
/// it did. A type array such as `["array","null"]` stays as it is: the
/// spec names only the string. `items` keeps its place among the members;
/// a new `items` or `maxItems` goes last.
fn repair_items(object: &mut Map<String, Value>) -> Option<String> {
    if object.get("type").and_then(Value::as_str) != Some("array") {
        return None;
    }
    let items = match object.get("items") {
        None => Items::Missing,
        Some(Value::Bool(false)) => Items::False,
        Some(value) if is_false_in_javascript(value) => Items::FalseInJavascript(value),
        Some(_) => Items::Kept,
    };
    let prefix_items = object.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
    let repair = repair(items, object.contains_key("maxItems"), prefix_items)?;
    if let Some(max) = repair.max_items {
        object.insert("maxItems".into(), Value::from(max));
    }
    object.insert("items".into(), Value::Object(Map::new()));
    Some(repair.text)
}

/// `null`, `""`, or a number that JavaScript reads as 0: VS Code parses the
/// schema with `JSON.parse`, so `-0`, `0.0`, `0e5` and also `1e-400` (which
/// underflows to 0 in a double) are false there. A number too large for a
/// double gives `None` from `as_f64`, and is `Infinity`, true, in
/// JavaScript.
fn is_false_in_javascript(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Number(n) => number_is_false_in_javascript(n),
        _ => false,
    }
}

/// A number that JavaScript reads as 0 (see [`is_false_in_javascript`]).
pub(crate) fn number_is_false_in_javascript(number: &Number) -> bool {
    number.as_f64() == Some(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The note of a falsy `items` shows the server's text of its value
    /// through the gate: a number such as `0.000…` can run to the length
    /// of the line, and both paths of the result rules write this note.
    #[test]
    fn the_note_of_a_falsy_items_shows_its_value_within_the_bound() {
        let zero = format!("0.{}", "0".repeat(10_000));
        let text = repair(Items::FalseInJavascript(&zero), false, 0).map(|repair| repair.text);
        assert_eq!(text, Some(format!("an array schema with items: 0.{}… got items: {{}}", "0".repeat(198))));
        let text = repair(Items::FalseInJavascript(&"-0"), false, 0).map(|repair| repair.text);
        assert_eq!(text.as_deref(), Some("an array schema with items: -0 got items: {}"));
    }
}
