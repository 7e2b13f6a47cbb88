//! R6 on the text of a tool list (behaviour spec, "The items rule for
//! array schemas (R6)"): each schema is read once, where it is in the
//! text (`raw::scan`), and each repair becomes a patch at a byte offset;
//! the walk's keywords, its repair and its note are those of
//! `translate::items`, so that the two walks cannot differ.
//!
//! A repair is known only at the end of its schema object (`type` may come
//! last), after the notes of its subschemas: its note goes in before them,
//! at the place the object's first note would have had. The pointer of the
//! schema is kept as its tokens, and written out only for a note: most
//! subschemas need no repair, and writing each one's pointer was a
//! visible part of a big list's time.
//!
//! Refused (`None`), for the full path: a schema deeper than the walk's
//! limit (the full path gives its note), and an object the walk reads whose
//! member name comes twice (a `serde_json::Map` keeps the first place and
//! the last value, a rare case that the full path keeps).

use super::scan::{Step, Text};
use crate::translate::items::{holds, number_is_false_in_javascript, repair, Holds, Items, MAX_SCHEMA_DEPTH};
use crate::translate::note::{push_index, push_name, Note};
use std::borrow::Cow;

/// A change to the text: `start..end` becomes `patch`.
struct Edit {
    start: usize,
    end: usize,
    patch: Patch,
}

enum Patch {
    /// `{}`, in place of a value of `items`.
    EmptyObject,
    /// Members appended after the last one of an object: `maxItems` when
    /// there is one, then `items: {}` when it was missing (the order in
    /// which `translate::items` inserts them).
    Append { max_items: Option<usize>, items: bool },
}

/// The walk over the schemas of one text, and its patches.
pub(crate) struct TextWalk<'a> {
    text: Text<'a>,
    /// The member names of the objects being read, for the check of a name
    /// that comes twice; one stack for all, so that no object allocates.
    names: Vec<Cow<'a, str>>,
    /// The tokens of the pointer of the schema being read, from the root
    /// of its `inputSchema`.
    path: Vec<Token<'a>>,
    edits: Vec<Edit>,
}

/// A reference token of a pointer: a member name, or an index.
enum Token<'a> {
    Name(Cow<'a, str>),
    Index(usize),
}

impl<'a> TextWalk<'a> {
    pub(crate) fn new(text: Text<'a>) -> Self {
        TextWalk { text, names: Vec::new(), path: Vec::new(), edits: Vec::new() }
    }

    pub(crate) fn text(&self) -> Text<'a> {
        self.text
    }

    /// Reads the members of the object at `at` in order, with the check of
    /// a name that comes twice: `member` reads the value of each and gives
    /// the offset after it. The offset after the object.
    pub(crate) fn members(
        &mut self,
        at: usize,
        mut member: impl FnMut(&mut Self, &Cow<'a, str>, usize) -> Option<usize>,
    ) -> Option<usize> {
        if self.text.byte(at)? != b'{' {
            return None;
        }
        let base = self.names.len();
        let mut step = self.text.open(at)?;
        while let Step::Item(name_at) = step {
            let (name, value) = self.text.name(name_at)?;
            if self.names[base..].contains(&name) {
                return None;
            }
            let end = member(self, &name, value)?;
            self.names.push(name);
            step = self.text.next(end, b'}')?;
        }
        self.names.truncate(base);
        let Step::End(end) = step else { return None };
        Some(end)
    }

    /// Reads the items of the array at `at` in order: `item` reads each,
    /// with its index, and gives the offset after it. The offset after the
    /// array, and the number of items.
    fn items(
        &mut self,
        at: usize,
        mut item: impl FnMut(&mut Self, usize, usize) -> Option<usize>,
    ) -> Option<(usize, usize)> {
        let mut step = self.text.open(at)?;
        let mut count = 0;
        while let Step::Item(start) = step {
            let end = item(self, count, start)?;
            count += 1;
            step = self.text.next(end, b']')?;
        }
        let Step::End(end) = step else { return None };
        Some((end, count))
    }

    /// R6 on the value at `at`, a schema at `depth` (0 for the root), and
    /// on each subschema within it; each repair noted in `notes`, without
    /// a tool. The offset after the value.
    pub(crate) fn schema(&mut self, at: usize, depth: usize, notes: &mut Vec<Note>) -> Option<usize> {
        if self.text.byte(at)? != b'{' {
            // A boolean schema, or a value that is no schema at all.
            return self.text.value_end(at);
        }
        if depth >= MAX_SCHEMA_DEPTH {
            return None;
        }
        let first_note = notes.len();
        let mut object = ArraySchema::default();
        let end = self.members(at, |walk, keyword, value| {
            let end = match keyword.as_ref() {
                "type" => {
                    let end = walk.text.value_end(value)?;
                    object.is_array = walk.text.string(value).is_some_and(|(kind, _)| kind == "array");
                    end
                }
                "maxItems" => {
                    object.has_max_items = true;
                    walk.text.value_end(value)?
                }
                "items" if !matches!(walk.text.byte(value)?, b'{' | b'[') => {
                    let end = walk.text.value_end(value)?;
                    object.items = ItemsAt::Leaf(value, end);
                    end
                }
                name => match holds(name) {
                    Some(holds) => {
                        let (end, count) = walk.subschemas(keyword.clone(), holds, value, depth + 1, notes)?;
                        if name == "prefixItems" {
                            object.prefix_items = count;
                        }
                        if name == "items" {
                            object.items = ItemsAt::Kept;
                        }
                        end
                    }
                    None => walk.text.value_end(value)?,
                },
            };
            object.last_end = end;
            Some(end)
        })?;
        if object.is_array {
            self.repair(&object, first_note, notes)?;
        }
        Some(end)
    }

    /// The subschemas of `keyword`, whose value is at `at`, each a schema
    /// at `depth`. The offset after the value, and its number of items when
    /// it is an array.
    fn subschemas(
        &mut self,
        keyword: Cow<'a, str>,
        holds: Holds,
        at: usize,
        depth: usize,
        notes: &mut Vec<Note>,
    ) -> Option<(usize, usize)> {
        let mark = self.path.len();
        match (holds, self.text.byte(at)?) {
            (Holds::Map, b'{') => {
                let end = self.members(at, |walk, name, value| {
                    walk.path.push(Token::Name(keyword.clone()));
                    walk.path.push(Token::Name(name.clone()));
                    let end = walk.schema(value, depth, notes);
                    walk.path.truncate(mark);
                    end
                })?;
                Some((end, 0))
            }
            (Holds::One | Holds::OneOrList, b'{') => {
                self.path.push(Token::Name(keyword.clone()));
                let end = self.schema(at, depth, notes);
                self.path.truncate(mark);
                Some((end?, 0))
            }
            (Holds::List | Holds::OneOrList, b'[') => self.items(at, |walk, index, item| {
                walk.path.push(Token::Name(keyword.clone()));
                walk.path.push(Token::Index(index));
                let end = walk.schema(item, depth, notes);
                walk.path.truncate(mark);
                end
            }),
            _ => Some((self.text.value_end(at)?, 0)),
        }
    }

    /// `translate::items::repair` on an array schema that was read: its
    /// patches, and its note before those of its subschemas.
    fn repair(&mut self, object: &ArraySchema, first_note: usize, notes: &mut Vec<Note>) -> Option<()> {
        // The JSON text of a leaf `items`, for the rule and its note.
        let leaf;
        let items = match object.items {
            ItemsAt::Missing => Items::Missing,
            ItemsAt::Kept => Items::Kept,
            ItemsAt::Leaf(start, end) => {
                leaf = self.text.get(start, end)?;
                leaf_items(&leaf)
            }
        };
        let Some(repair) = repair(items, object.has_max_items, object.prefix_items) else { return Some(()) };
        if let ItemsAt::Leaf(start, end) = object.items {
            self.edits.push(Edit { start, end, patch: Patch::EmptyObject });
        }
        let missing = matches!(object.items, ItemsAt::Missing);
        if repair.max_items.is_some() || missing {
            let (at, max_items) = (object.last_end, repair.max_items);
            self.edits.push(Edit { start: at, end: at, patch: Patch::Append { max_items, items: missing } });
        }
        let note = Note { pointer: Some(self.pointer()), ..Note::info(repair.text) };
        notes.insert(first_note.min(notes.len()), note);
        Some(())
    }

    /// The RFC 6901 pointer of the schema being read, as
    /// `translate::items::Trail` writes it.
    fn pointer(&self) -> String {
        let mut pointer = String::new();
        for token in &self.path {
            match token {
                Token::Name(name) => push_name(&mut pointer, name),
                Token::Index(index) => push_index(&mut pointer, *index),
            }
        }
        pointer
    }

    /// Whether a patch was made.
    pub(crate) fn changed(&self) -> bool {
        !self.edits.is_empty()
    }

    /// The text up to `end`, with its patches.
    pub(crate) fn patched(mut self, end: usize) -> Vec<u8> {
        let bytes = self.text.bytes().get(..end).unwrap_or_default();
        // A repair is made at the end of its object, after those of its
        // subschemas; patches never overlap.
        self.edits.sort_by_key(|edit| edit.start);
        let mut out = Vec::with_capacity(bytes.len() + self.edits.len() * 16);
        let mut from = 0;
        for edit in &self.edits {
            out.extend_from_slice(bytes.get(from..edit.start).unwrap_or_default());
            match edit.patch {
                Patch::EmptyObject => out.extend_from_slice(b"{}"),
                Patch::Append { max_items, items } => {
                    if let Some(max) = max_items {
                        out.extend_from_slice(b",\"maxItems\":");
                        out.extend_from_slice(max.to_string().as_bytes());
                    }
                    if items {
                        out.extend_from_slice(b",\"items\":{}");
                    }
                }
            }
            from = edit.end;
        }
        out.extend_from_slice(bytes.get(from..).unwrap_or_default());
        out
    }
}

/// What R6 reads of one schema object.
#[derive(Default)]
struct ArraySchema {
    /// `type` is the string `"array"`.
    is_array: bool,
    /// What `items` is.
    items: ItemsAt,
    has_max_items: bool,
    /// The number of items of `prefixItems`, when it is an array.
    prefix_items: usize,
    /// The offset after the value of the last member.
    last_end: usize,
}

/// The `items` of a schema object, as the rule reads it.
#[derive(Default, Clone, Copy)]
enum ItemsAt {
    #[default]
    Missing,
    /// An object or an array: the rule keeps it.
    Kept,
    /// Any other value, at `start..end` in the text.
    Leaf(usize, usize),
}

/// What the rule makes of an `items` that is no object and no array, from
/// its JSON text: `false`, a value false in JavaScript, or one it keeps.
fn leaf_items<'v>(value: &'v &str) -> Items<'v> {
    match *value {
        "false" => Items::False,
        "null" | "\"\"" => Items::FalseInJavascript(value),
        _ if value.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']) => {
            match value.parse::<serde_json::Number>() {
                Ok(number) if number_is_false_in_javascript(&number) => Items::FalseInJavascript(value),
                _ => Items::Kept,
            }
        }
        _ => Items::Kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::translate::items::normalize_input_schema;
    use crate::translate::note::Note;
    use serde_json::Value;

    /// The schema after the walk on text, and its notes; `None` when it
    /// was refused.
    fn text_walk(text: &str) -> Option<(Value, Vec<Note>, bool)> {
        let mut walk = TextWalk::new(Text::new(text));
        let mut notes = Vec::new();
        let end = walk.schema(0, 0, &mut notes)?;
        for note in &mut notes {
            note.tool = Some("t".into());
        }
        assert_eq!(end, text.len(), "{text}");
        let changed = walk.changed();
        Some((serde_json::from_slice(&walk.patched(end)).ok()?, notes, changed))
    }

    fn tree_walk(text: &str) -> (Value, Vec<Note>) {
        let mut schema: Value = serde_json::from_str(text).unwrap_or_default();
        let mut notes = Vec::new();
        normalize_input_schema(&mut schema, Some("t"), &mut notes);
        (schema, notes)
    }

    /// R6 on text gives the schema and the notes of R6 on the tree, in the
    /// same order, with each new member where the tree walk puts it.
    #[test]
    fn the_text_walk_repairs_as_the_tree_walk_does() {
        for text in [
            r#"{"type":"array"}"#,
            r#"{ "type" : "array" , "description" : "x" }"#,
            r#"{"type":"array","items":null}"#,
            r#"{"type":"array","items":0.0}"#,
            r#"{"type":"array","items":-0}"#,
            r#"{"type":"array","items":1e-400}"#,
            r#"{"type":"array","items":1}"#,
            r#"{"type":"array","items":""}"#,
            r#"{"type":"array","items":"\u0000"}"#,
            r#"{"type":"array","items":true}"#,
            r#"{"type":"array","items":false,"prefixItems":[{},{"type":"array"}]}"#,
            r#"{"items":false,"prefixItems":[{},{"type":"array"}],"type":"array","x":1}"#,
            r#"{"type":"array","items":false,"maxItems":3}"#,
            r#"{"type":"array","items":false}"#,
            r#"{"type":"array","prefixItems":{"a":1},"items":false}"#,
            r#"{"type":"\u0061rray","items":[{"type":"array"},true,3]}"#,
            r#"{"type":["array","null"]}"#,
            r#"{"properties":{"a/b~":{"type":"array"},"n":5},"anyOf":{"x":1},"not":[1],"items":{"type":"array"}}"#,
            r#"{"additionalProperties":{"type":"array","items":{"type":"array"}},"$defs":{"d":{"type":"array"}}}"#,
            r#"{"default":{"type":"array"},"const":[{"type":"array"}],"x-type":"array"}"#,
            r#"{"type":"string","anyOf":[{"type":"array"},null,{"items":[{"type":"array"}]}]}"#,
            r#"{"properties":{"p":{"type":"array"}},"type":"array"}"#,
            r#"{"pr\u006fperties":{"p":{"type":"array"}}}"#,
            r#"{}"#,
            r#"true"#,
            r#"[{"type":"array"}]"#,
        ] {
            let (value, notes) = tree_walk(text);
            let Some((text_value, text_notes, changed)) = text_walk(text) else { panic!("refused: {text}") };
            assert_eq!(serde_json::to_string(&text_value).ok(), serde_json::to_string(&value).ok(), "{text}");
            assert_eq!(text_notes, notes, "{text}");
            assert_eq!(changed, !notes.is_empty(), "{text}");
        }
    }

    /// A name twice in an object the walk reads is left to the full path;
    /// elsewhere it is data, kept as it came.
    #[test]
    fn a_member_twice_is_refused() {
        assert!(text_walk(r#"{"properties":{"a":{"type":"object"}},"properties":{"b":{"type":"array"}}}"#).is_none());
        assert!(text_walk(r#"{"properties":{"a":{"type":"object"},"a":{"type":"array"}}}"#).is_none());
        assert!(text_walk(r#"{"type":"object","t\u0079pe":"array"}"#).is_none());
        assert!(text_walk(r#"{"default":{"a":1,"a":2},"properties":{"a":{"b":1},"b":{"b":2}}}"#).is_some());
    }

    /// A subschema at the walk's limit goes to the full path, which gives
    /// the note; one level less is walked here.
    #[test]
    fn a_schema_at_the_limit_is_refused() {
        let nested =
            |levels: usize| format!("{}{{\"type\":\"array\"}}{}", r#"{"not":"#.repeat(levels), "}".repeat(levels));
        assert!(text_walk(&nested(MAX_SCHEMA_DEPTH)).is_none());
        let (_, notes, _) = text_walk(&nested(MAX_SCHEMA_DEPTH - 1)).unwrap_or_default();
        assert_eq!(notes, tree_walk(&nested(MAX_SCHEMA_DEPTH - 1)).1);
        assert_eq!(notes.len(), 1);
    }

    /// The patched text keeps every byte that no repair changed.
    #[test]
    fn the_rest_of_the_text_stays_as_it_came() {
        let text = r#"{ "type" : "array" , "items" : null , "x" : "\u00e9" }"#;
        let mut walk = TextWalk::new(Text::new(text));
        let mut notes = Vec::new();
        assert_eq!(walk.schema(0, 0, &mut notes), Some(text.len()));
        let patched = String::from_utf8(walk.patched(text.len())).unwrap_or_default();
        assert_eq!(patched, r#"{ "type" : "array" , "items" : {} , "x" : "\u00e9" }"#);
    }
}
