//! R6 on the text of an `inputSchema` (behaviour spec, "The items rule for
//! array schemas (R6)"): the schema is read once into the members that the
//! walk goes through (`translate::items::holds`), every other member kept as
//! its text; the walk and the repair are those of `translate::items`, which
//! gives each repair and its note; the schema is written again only when a
//! repair changed it.
//!
//! A schema deeper than the walk's limit is refused (`Err`): the full path
//! gives its note, and such a schema is rare.

use super::tree::{
    first_key, leaves_are_other, other_object, raw_str, rest_of_object, write_array, write_object, AnyVisitor, First,
    Key, Leaf, Members, Other,
};
use crate::translate::items::number_is_false_in_javascript;
use crate::translate::items::{holds, repair, Holds, Items, Repair, Trail, MAX_SCHEMA_DEPTH};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// A value where the walk expects a schema.
#[derive(Debug)]
pub enum Schema<'a> {
    Object(Members<'a, Member<'a>>),
    /// No object, so no schema the walk examines.
    Other(Other<'a>),
}

/// A member of a schema object.
#[derive(Debug)]
pub enum Member<'a> {
    /// A keyword the walk does not go through, as its text.
    Plain(&'a RawValue),
    /// A map of subschemas (`properties`).
    Map(Members<'a, Schema<'a>>),
    /// One subschema (`not`, or `items` as an object).
    One(Schema<'a>),
    /// Subschemas in an array (`anyOf`, or `items` as an array).
    List(Vec<Schema<'a>>),
    /// A keyword of the walk whose value holds no subschema.
    Other(Other<'a>),
}

/// Reads a schema at `depth` (0 for the root).
pub struct SchemaSeed {
    pub depth: usize,
}

impl<'de> DeserializeSeed<'de> for SchemaSeed {
    type Value = Schema<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Schema<'de>, D::Error> {
        deserializer.deserialize_any(SchemaVisitor { depth: self.depth })
    }
}

struct SchemaVisitor {
    depth: usize,
}

impl<'de> Visitor<'de> for SchemaVisitor {
    type Value = Schema<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a schema")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Schema<'de>, A::Error> {
        match first_key(&mut map)? {
            First::Number(text) => Ok(Schema::Other(Other::Leaf(Leaf::Number(text)))),
            First::Key(first) => schema_object(map, first, self.depth),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Schema<'de>, A::Error> {
        AnyVisitor.visit_seq(seq).map(Schema::Other)
    }

    leaves_are_other!(Schema::Other);
}

/// The rest of a schema object at `depth` whose first name was `first`.
fn schema_object<'de, A: MapAccess<'de>>(
    map: A,
    first: Option<Key<'de>>,
    depth: usize,
) -> Result<Schema<'de>, A::Error> {
    rest_of_object(map, first, |map, key| match holds(key.as_str()) {
        None => map.next_value().map(Member::Plain),
        // The subschemas of this keyword are below the limit: the full path
        // gives the note.
        Some(_) if depth + 1 >= MAX_SCHEMA_DEPTH => Err(A::Error::custom("too deep")),
        Some(holds) => map.next_value_seed(MemberSeed { holds, depth: depth + 1 }),
    })
    .map(Schema::Object)
}

/// Reads the value of a keyword of the walk; its subschemas are at `depth`.
struct MemberSeed {
    holds: Holds,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for MemberSeed {
    type Value = Member<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Member<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MemberSeed {
    type Value = Member<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a keyword's value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Member<'de>, A::Error> {
        let first = match first_key(&mut map)? {
            First::Number(text) => return Ok(Member::Other(Other::Leaf(Leaf::Number(text)))),
            First::Key(first) => first,
        };
        match self.holds {
            Holds::Map => {
                let depth = self.depth;
                rest_of_object(map, first, |map, _| map.next_value_seed(SchemaSeed { depth })).map(Member::Map)
            }
            // The object is the subschema.
            Holds::One | Holds::OneOrList => schema_object(map, first, self.depth).map(Member::One),
            Holds::List => other_object(map, first).map(|members| Member::Other(Other::Object(members))),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Member<'de>, A::Error> {
        match self.holds {
            Holds::List | Holds::OneOrList => {
                let mut schemas = Vec::new();
                while let Some(schema) = seq.next_element_seed(SchemaSeed { depth: self.depth })? {
                    schemas.push(schema);
                }
                Ok(Member::List(schemas))
            }
            Holds::Map | Holds::One => AnyVisitor.visit_seq(seq).map(Member::Other),
        }
    }

    leaves_are_other!(Member::Other);
}

/// Repairs every array schema within `schema` and notes each repair in
/// `trail`, as `translate::items` does on a tree. Whether anything changed.
pub fn walk(schema: &mut Schema<'_>, trail: &mut Trail<'_>) -> bool {
    let Schema::Object(members) = schema else { return false };
    let repaired = repair_items(members).map(|repair| trail.note(repair.text)).is_some();
    let mut changed = repaired;
    let mark = trail.mark();
    for (keyword, member) in members.iter_mut() {
        // A repaired `items` is now `{}`.
        if repaired && keyword.as_str() == "items" {
            continue;
        }
        match member {
            Member::Map(schemas) => {
                for (name, schema) in schemas.iter_mut() {
                    trail.push(keyword.as_str());
                    trail.push(name.as_str());
                    changed |= walk(schema, trail);
                    trail.back(mark);
                }
            }
            Member::One(schema) => {
                trail.push(keyword.as_str());
                changed |= walk(schema, trail);
                trail.back(mark);
            }
            Member::List(schemas) => {
                for (index, schema) in schemas.iter_mut().enumerate() {
                    trail.push(keyword.as_str());
                    trail.push_index(index);
                    changed |= walk(schema, trail);
                    trail.back(mark);
                }
            }
            Member::Plain(_) | Member::Other(_) => {}
        }
    }
    changed
}

/// `translate::items::repair` on the members of one schema object.
fn repair_items(members: &mut Members<'_, Member<'_>>) -> Option<Repair> {
    let is_array = match members.get("type") {
        Some(Member::Plain(raw)) => raw_str(raw).as_deref() == Some("array"),
        _ => false,
    };
    if !is_array {
        return None;
    }
    let items = match members.get("items") {
        None => Items::Missing,
        Some(Member::Other(Other::Leaf(Leaf::Bool(false)))) => Items::False,
        Some(Member::Other(Other::Leaf(leaf))) if is_false_in_javascript(leaf) => Items::FalseInJavascript(leaf),
        Some(_) => Items::Kept,
    };
    let prefix_items = match members.get("prefixItems") {
        Some(Member::List(schemas)) => schemas.len(),
        _ => 0,
    };
    let repair = repair(items, members.contains_key("maxItems"), prefix_items)?;
    if let Some(max) = repair.max_items {
        members.set(Key::named("maxItems"), Member::Other(Other::Leaf(Leaf::Number(max.to_string()))));
    }
    members.set(Key::named("items"), Member::One(Schema::Object(Members::empty())));
    Some(repair)
}

/// `translate::items::is_false_in_javascript` on a leaf.
fn is_false_in_javascript(leaf: &Leaf<'_>) -> bool {
    match leaf {
        Leaf::Null => true,
        Leaf::Str(text) => text.is_empty(),
        Leaf::Number(text) => text.parse().is_ok_and(|number| number_is_false_in_javascript(&number)),
        Leaf::Bool(_) => false,
    }
}

/// Writes the schema as JSON.
pub fn write(schema: &Schema<'_>, out: &mut Vec<u8>) {
    match schema {
        Schema::Object(members) => write_object(out, members, |out, member| write_member(member, out)),
        Schema::Other(other) => other.write(out),
    }
}

fn write_member(member: &Member<'_>, out: &mut Vec<u8>) {
    match member {
        Member::Plain(raw) => out.extend_from_slice(raw.get().as_bytes()),
        Member::Map(schemas) => write_object(out, schemas, |out, schema| write(schema, out)),
        Member::One(schema) => write(schema, out),
        Member::List(schemas) => write_array(out, schemas, |out, schema| write(schema, out)),
        Member::Other(other) => other.write(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translate::items::normalize_input_schema;
    use crate::translate::note::Note;
    use serde_json::Value;

    /// The schema after the raw walk, and its notes; `None` when it was
    /// refused.
    fn raw_walk(text: &str) -> Option<(Value, Vec<Note>, bool)> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let mut schema = SchemaSeed { depth: 0 }.deserialize(&mut deserializer).ok()?;
        let mut notes = Vec::new();
        let changed = walk(&mut schema, &mut Trail::new(Some("t"), &mut notes));
        let mut out = Vec::new();
        write(&schema, &mut out);
        Some((serde_json::from_slice(&out).ok()?, notes, changed))
    }

    fn tree_walk(text: &str) -> (Value, Vec<Note>) {
        let mut schema: Value = serde_json::from_str(text).unwrap_or_default();
        let mut notes = Vec::new();
        normalize_input_schema(&mut schema, Some("t"), &mut notes);
        (schema, notes)
    }

    /// R6 on text gives the schema and the notes of R6 on the tree.
    #[test]
    fn the_raw_walk_repairs_as_the_tree_walk_does() {
        for text in [
            r#"{"type":"array"}"#,
            r#"{"type":"array","items":null}"#,
            r#"{"type":"array","items":0.0}"#,
            r#"{"type":"array","items":1e-400}"#,
            r#"{"type":"array","items":1}"#,
            r#"{"type":"array","items":""}"#,
            r#"{"type":"array","items":false,"prefixItems":[{},{"type":"array"}]}"#,
            r#"{"type":"array","items":false,"maxItems":3}"#,
            r#"{"type":"\u0061rray","items":[{"type":"array"},true,3]}"#,
            r#"{"type":["array","null"]}"#,
            r#"{"properties":{"a/b~":{"type":"array"},"n":5},"anyOf":{"x":1},"not":[1],"items":{"type":"array"}}"#,
            r#"{"additionalProperties":{"type":"array","items":{"type":"array"}},"$defs":{"d":{"type":"array"}}}"#,
            r#"{"default":{"type":"array"},"const":[{"type":"array"}],"x-type":"array"}"#,
            r#"{"type":"string","anyOf":[{"type":"array"},null,{"items":[{"type":"array"}]}]}"#,
            r#"true"#,
            r#"[{"type":"array"}]"#,
        ] {
            let (value, notes) = tree_walk(text);
            let Some((raw_value, raw_notes, changed)) = raw_walk(text) else { panic!("refused: {text}") };
            assert_eq!(raw_value, value, "{text}");
            assert_eq!(raw_notes, notes, "{text}");
            assert_eq!(changed, !notes.is_empty(), "{text}");
        }
    }

    /// A name twice is left to the full path.
    #[test]
    fn a_member_twice_is_refused() {
        assert!(raw_walk(r#"{"properties":{"a":{"type":"object"}},"properties":{"b":{"type":"array"}}}"#).is_none());
        assert!(raw_walk(r#"{"properties":{"a":{"type":"object"},"a":{"type":"array"}}}"#).is_none());
    }

    /// A subschema at the walk's limit goes to the full path, which gives
    /// the note; one level less is walked here.
    #[test]
    fn a_schema_at_the_limit_is_refused() {
        let nested =
            |levels: usize| format!("{}{{\"type\":\"array\"}}{}", r#"{"not":"#.repeat(levels), "}".repeat(levels));
        assert!(raw_walk(&nested(MAX_SCHEMA_DEPTH)).is_none());
        let (_, notes, _) = raw_walk(&nested(MAX_SCHEMA_DEPTH - 1)).unwrap_or_default();
        assert_eq!(notes, tree_walk(&nested(MAX_SCHEMA_DEPTH - 1)).1);
        assert_eq!(notes.len(), 1);
    }
}
