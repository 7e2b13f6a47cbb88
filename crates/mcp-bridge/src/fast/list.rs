//! The list rules on the members of a raw list result (behaviour spec,
//! "Result rules (M1)": `nextCursor`, R6, `outputSchema`), for the lists
//! that are too big to build as a tree at speed: a `tools/list` of 2,000
//! tools took 24 ms on the full path, most of it in allocation (issue 15).
//!
//! Each tool is read once: its `inputSchema` into the members that R6 walks
//! (`fast::schema`), every other member kept as its text. Only when a repair
//! changed a schema is the `tools` array written again. A rule that gives a
//! warning, or removes a tool's member, leaves the list to the full path.

use super::schema::{self, Schema, SchemaSeed};
use super::tree::{
    first_key, leaves_are_other, raw_str, rest_of_object, write_array, write_object, AnyVisitor, First, Leaf, Members,
    Other, TypeMember,
};
use crate::translate::items::Trail;
use crate::translate::note::Note;
use crate::Profile;
use bytes::Bytes;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

/// What becomes of a member of the result.
pub enum Edit {
    Drop,
    Replace(Bytes),
}

/// The edits of the result's members, by name.
pub type Edits = Vec<(&'static str, Edit)>;

/// The list rules of `method` on `members`: the edits of the members, and
/// the notes, or `None` when the full path must apply them (a `nextCursor`
/// that gives a warning, an `outputSchema` that goes, a schema deeper than
/// the walk's limit).
pub fn rules(
    method: &str,
    members: &indexmap::IndexMap<String, &RawValue>,
    cursor: Option<&Value>,
    profile: &Profile,
) -> Option<(Edits, Vec<Note>)> {
    let mut edits = Vec::new();
    let mut notes = Vec::new();
    match members.get("nextCursor") {
        None => {}
        // The last page, in revision 2026-07-28: it goes without a note.
        Some(next) if next.get() == "null" => edits.push(("nextCursor", Edit::Drop)),
        Some(next) => {
            let next = raw_str(next)?;
            if cursor.and_then(Value::as_str) == Some(&*next) {
                return None;
            }
        }
    }
    if method == "tools/list" {
        if let Some(tools) = members.get("tools").filter(|t| t.get().starts_with('[')) {
            if let Some(text) = tools_list(tools, profile, &mut notes)? {
                edits.push(("tools", Edit::Replace(text.into())));
            }
        }
    }
    Some((edits, notes))
}

/// R6 on each tool, and the `outputSchema` check: the `tools` array written
/// again when a repair changed it, `Some(None)` when nothing changed.
fn tools_list(tools: &RawValue, profile: &Profile, notes: &mut Vec<Note>) -> Option<Option<Vec<u8>>> {
    let walk = profile.quirks.normalize_array_items;
    let drop = profile.quirks.drop_non_object_output_schema || profile.quirks.strict_legacy_results;
    if !walk && !drop {
        // No rule reads a tool: the list goes as it came.
        return Some(None);
    }
    let mut tools = ToolsSeed { walk }.deserialize(&mut serde_json::Deserializer::from_str(tools.get())).ok()?;
    let mut changed = false;
    for tool in &mut tools {
        let Tool::Object(members) = tool else { continue };
        if drop && members.get("outputSchema").is_some_and(|schema| !has_object_type(schema)) {
            return None;
        }
        let name = match members.get("name") {
            Some(ToolMember::Plain(name)) => raw_str(name),
            _ => None,
        };
        if let Some(ToolMember::Input(schema)) = members.get_mut("inputSchema") {
            changed |= schema::walk(schema, &mut Trail::new(name.as_deref(), notes));
        }
    }
    if !changed {
        return Some(None);
    }
    let mut out = Vec::with_capacity(tools.len() * 512);
    write_array(&mut out, &tools, write_tool);
    Some(Some(out))
}

/// The root of an `outputSchema` is an object with `type: "object"`, as
/// `translate::result` tests it on the tree.
fn has_object_type(schema: &ToolMember<'_>) -> bool {
    let ToolMember::Plain(raw) = schema else { return false };
    serde_json::from_str::<TypeMember>(raw.get()).is_ok_and(|t| t.0.as_ref().and_then(Value::as_str) == Some("object"))
}

/// A tool of the list.
enum Tool<'a> {
    Object(Members<'a, ToolMember<'a>>),
    Other(Other<'a>),
}

enum ToolMember<'a> {
    Plain(&'a RawValue),
    /// The `inputSchema`, read for R6.
    Input(Schema<'a>),
}

fn write_tool(out: &mut Vec<u8>, tool: &Tool<'_>) {
    match tool {
        Tool::Object(members) => write_object(out, members, |out, member| match member {
            ToolMember::Plain(raw) => out.extend_from_slice(raw.get().as_bytes()),
            ToolMember::Input(schema) => schema::write(schema, out),
        }),
        Tool::Other(other) => other.write(out),
    }
}

/// Reads the `tools` array; `walk` is whether R6 applies.
struct ToolsSeed {
    walk: bool,
}

impl<'de> DeserializeSeed<'de> for ToolsSeed {
    type Value = Vec<Tool<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ToolsSeed {
    type Value = Vec<Tool<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of tools")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut tools = Vec::new();
        while let Some(tool) = seq.next_element_seed(ToolSeed { walk: self.walk })? {
            tools.push(tool);
        }
        Ok(tools)
    }
}

#[derive(Clone, Copy)]
struct ToolSeed {
    walk: bool,
}

impl<'de> DeserializeSeed<'de> for ToolSeed {
    type Value = Tool<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tool<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ToolSeed {
    type Value = Tool<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tool")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tool<'de>, A::Error> {
        let first = match first_key(&mut map)? {
            First::Number(text) => return Ok(Tool::Other(Other::Leaf(Leaf::Number(text)))),
            First::Key(first) => first,
        };
        rest_of_object(map, first, |map, key| {
            if self.walk && key.as_str() == "inputSchema" {
                map.next_value_seed(SchemaSeed { depth: 0 }).map(ToolMember::Input)
            } else {
                map.next_value().map(ToolMember::Plain)
            }
        })
        .map(Tool::Object)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Tool<'de>, A::Error> {
        AnyVisitor.visit_seq(seq).map(Tool::Other)
    }

    leaves_are_other!(Tool::Other);
}
