//! The list rules on the members of a raw list result (behaviour spec,
//! "Result rules (M1)": `nextCursor`, R6, `outputSchema`), for the lists
//! that are too big to build as a tree at speed: on the full path a long
//! `tools/list` spends most of its time in allocation.
//!
//! Each tool is read once, where it is in the text: its `inputSchema` walked
//! by R6 (`raw::schema`), every other member skipped. Only when a repair
//! changed a schema is the `tools` array copied, with its patches. A rule
//! that gives a warning, or removes a tool's member, leaves the list to the
//! full path.

use super::edit::{Edit, Edits, Members};
use super::scan::{Step, Text};
use super::schema::TextWalk;
use crate::method::Method;
use crate::profile::Quirks;
use crate::translate::note::Note;
use serde_json::Value;

/// The list rules on `members`: the edits of the members, or `None` when
/// the full path must apply them (a `nextCursor` that gives a warning).
/// `tools` is the `tools` array once R6 repaired it (see [`tools`]).
pub(crate) fn rules(members: &Members<'_>, cursor: Option<&Value>, tools: Option<Vec<u8>>) -> Option<Edits> {
    let mut edits = Vec::new();
    match members.get("nextCursor") {
        None => {}
        // The last page, in revision 2026-07-28: it goes without a note.
        Some("null") => edits.push(("nextCursor", Edit::Drop)),
        Some(next) => {
            let (next, _) = Text::new(next).string(0)?;
            if cursor.and_then(Value::as_str) == Some(&*next) {
                return None;
            }
        }
    }
    if let Some(text) = tools {
        edits.push(("tools", Edit::Replace(text.into())));
    }
    Some(edits)
}

/// The rules that read each tool of a result of `method`, `None` when no
/// rule reads a tool (then the list goes as it came).
pub(crate) fn tool_rules(method: Method, quirks: Quirks) -> Option<ToolRules> {
    let rules = ToolRules {
        walk: quirks.normalize_array_items,
        drop: quirks.drop_non_object_output_schema || quirks.strict_legacy_results,
    };
    (method == Method::ToolsList && (rules.walk || rules.drop)).then_some(rules)
}

/// R6 on each tool of the `tools` array at the start of `text`, and the
/// `outputSchema` check; the notes in `notes`. The offset after the array,
/// and the array with its repairs when there was one. `None` when the full
/// path must apply them (an `outputSchema` that goes, a schema deeper than
/// the walk's limit, a member name twice).
pub(crate) fn tools(text: &str, rules: ToolRules, notes: &mut Vec<Note>) -> Option<(usize, Option<Vec<u8>>)> {
    let mut walk = TextWalk::new(Text::new(text));
    let mut step = walk.text().open(0)?;
    while let Step::Item(at) = step {
        let end = match walk.text().byte(at)? {
            b'{' => tool(&mut walk, at, rules, notes)?,
            _ => walk.text().value_end(at)?,
        };
        step = walk.text().next(end, b']')?;
    }
    let Step::End(end) = step else { return None };
    Some((end, walk.changed().then(|| walk.patched(end))))
}

/// Which rules read a tool.
#[derive(Clone, Copy)]
pub(crate) struct ToolRules {
    /// R6 on the `inputSchema`.
    walk: bool,
    /// An `outputSchema` whose root is no object schema goes (the full path
    /// removes it, with a warning).
    drop: bool,
}

/// The rules on the tool object at `at`; the offset after it. Its name may
/// come after its `inputSchema`: the notes get it once the tool is read.
fn tool(walk: &mut TextWalk<'_>, at: usize, rules: ToolRules, notes: &mut Vec<Note>) -> Option<usize> {
    let first = notes.len();
    let mut name = None;
    let end = walk.members(at, |walk, key, value| {
        let text = walk.text();
        match key.as_ref() {
            "name" => {
                if text.byte(value)? != b'"' {
                    return text.value_end(value);
                }
                let (string, end) = text.string(value)?;
                name = Some(string);
                Some(end)
            }
            "inputSchema" if rules.walk => walk.schema(value, 0, notes),
            "outputSchema" if rules.drop => {
                let end = text.value_end(value)?;
                has_object_type(text.get(value, end)?).then_some(end)
            }
            _ => text.value_end(value),
        }
    })?;
    if let Some(name) = name {
        for note in notes.get_mut(first..).unwrap_or_default() {
            note.tool = Some(name.clone().into_owned());
        }
    }
    Some(end)
}

/// The root of an `outputSchema` is an object with `type: "object"`, as
/// `translate::result` tests it on the tree.
fn has_object_type(schema: &str) -> bool {
    Text::new(schema).type_of(0).is_some_and(|(kind, _)| kind.as_deref() == Some("object"))
}
