//! Icons of a remote upstream server (behaviour spec, "Icons of a remote
//! upstream server (M4)").
//!
//! VS Code drops the `http:` and `https:` icons of a stdio server and gives
//! `file:` icons the trust of a local process. The icons of a remote server
//! must not get that trust, so for a remote upstream only the icons with a
//! `data:` URI stay (`IconRule::DataOnly`); a stdio upstream and the memory
//! link keep every icon (`IconRule::All`). An item left without an icon
//! loses its `icons` member.

use super::note::Note;
use crate::dialect::{Dialect, IconRule};
use crate::method::Method;
use serde_json::{Map, Value};

/// Applies the rule to a complete result of `method`: the items of the
/// four lists, the resource links in the content of a `tools/call` result
/// and in the messages of a `prompts/get` result. Returns how many icons it
/// removed, for [`removal_note`].
pub(crate) fn filter_icons(method: Method, result: &mut Value, dialect: &Dialect) -> usize {
    if !dialect.filters_icons(method) {
        return 0;
    }
    if let Some(member) = method.list_items() {
        return result.get_mut(member).and_then(Value::as_array_mut).into_iter().flatten().map(keep_data_icons).sum();
    }
    match method {
        Method::ToolsCall => {
            result.get_mut("content").and_then(Value::as_array_mut).into_iter().flatten().map(resource_link).sum()
        }
        Method::PromptsGet => result
            .get_mut("messages")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
            .map(|message| match message.get_mut("content") {
                Some(Value::Array(blocks)) => blocks.iter_mut().map(resource_link).sum(),
                Some(block) => resource_link(block),
                None => 0,
            })
            .sum(),
        _ => 0,
    }
}

/// The note of a result whose icons the rule removed: one per result, not
/// one per item, so that a long list gives one line. A person reading the
/// log or the `check` report then knows why an icon is missing in VS Code.
pub(crate) fn removal_note(removed: usize) -> Option<Note> {
    (removed > 0).then(|| {
        let (icons, are) = if removed == 1 { ("icon", "is") } else { ("icons", "are") };
        Note::info(format!(
            "the bridge removed {removed} {icons} that {are} not data: URIs (a remote server's icons reach the client only as data: URIs)"
        ))
    })
}

/// The `serverInfo` of the initialize result under the rule; returns how
/// many icons it removed.
pub(crate) fn filter_server_info(info: &mut Map<String, Value>, rule: IconRule) -> usize {
    if rule == IconRule::DataOnly {
        keep_data_icons_of(info)
    } else {
        0
    }
}

fn resource_link(block: &mut Value) -> usize {
    if block.get("type").and_then(Value::as_str) == Some("resource_link") {
        keep_data_icons(block)
    } else {
        0
    }
}

fn keep_data_icons(item: &mut Value) -> usize {
    match item {
        Value::Object(item) => keep_data_icons_of(item),
        _ => 0,
    }
}

/// Keeps the icons whose `src` is a `data:` URI; removes `icons` when none
/// is left. An `icons` member that is not an array has no icon to keep (it
/// counts as none removed). Returns how many icons it removed.
fn keep_data_icons_of(item: &mut Map<String, Value>) -> usize {
    let Some(icons) = item.get_mut("icons") else { return 0 };
    let mut removed = 0;
    if let Value::Array(list) = icons {
        let before = list.len();
        list.retain(is_data_icon);
        removed = before - list.len();
        if !list.is_empty() {
            return removed;
        }
    }
    item.shift_remove("icons");
    removed
}

/// A `data:` URI; the scheme ignores the case (RFC 3986, section 3.1).
fn is_data_icon(icon: &Value) -> bool {
    icon.get("src")
        .and_then(Value::as_str)
        .and_then(|src| src.get(..5))
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Profile, Revision};
    use serde_json::json;

    /// The dialect of VS Code toward a remote upstream, or a stdio one.
    fn upstream(remote: bool) -> Dialect {
        Dialect::new(&Profile::vscode(), Revision::LATEST, remote)
    }

    fn icons(srcs: &[&str]) -> Value {
        Value::Array(srcs.iter().map(|s| json!({"src": s, "mimeType": "image/png"})).collect())
    }

    #[test]
    fn a_remote_list_keeps_only_data_icons_and_an_item_without_one_loses_the_member() {
        for (method, member) in [
            (Method::ToolsList, "tools"),
            (Method::PromptsList, "prompts"),
            (Method::ResourcesList, "resources"),
            (Method::ResourcesTemplatesList, "resourceTemplates"),
        ] {
            let mut result = json!({member: [
                {"name": "a", "icons": icons(&["https://x/a.png", "DATA:image/png;base64,AA", "file:///a.png"])},
                {"name": "b", "icons": icons(&["http://x/b.png"]), "other": 1},
                {"name": "c", "icons": []},
                {"name": "d"},
                {"name": "e", "icons": "not a list"}
            ], "nextCursor": "n"});
            let removed = filter_icons(method, &mut result, &upstream(true));
            assert_eq!(removed, 3, "two icons of a, one of b: {method:?}");
            assert_eq!(
                result,
                json!({member: [
                    {"name": "a", "icons": icons(&["DATA:image/png;base64,AA"])},
                    {"name": "b", "other": 1},
                    {"name": "c"},
                    {"name": "d"},
                    {"name": "e"}
                ], "nextCursor": "n"}),
                "{method:?}"
            );
        }
    }

    #[test]
    fn resource_links_of_calls_and_prompt_messages_keep_only_data_icons() {
        let link = |srcs: &[&str]| json!({"type": "resource_link", "uri": "u", "name": "n", "icons": icons(srcs)});
        let mut call = json!({"content": [link(&["https://x", "data:a"]), {"type": "text", "text": "t", "icons": icons(&["https://x"])}]});
        assert_eq!(filter_icons(Method::ToolsCall, &mut call, &upstream(true)), 1);
        assert_eq!(
            call,
            json!({"content": [link(&["data:a"]), {"type": "text", "text": "t", "icons": icons(&["https://x"])}]}),
            "only resource links are items with icons"
        );
        let mut prompt = json!({"messages": [
            {"role": "user", "content": link(&["https://x"])},
            {"role": "user", "content": [link(&["data:b", "file:///c"])]}
        ]});
        assert_eq!(filter_icons(Method::PromptsGet, &mut prompt, &upstream(true)), 2);
        assert_eq!(
            prompt,
            json!({"messages": [
                {"role": "user", "content": {"type": "resource_link", "uri": "u", "name": "n"}},
                {"role": "user", "content": [link(&["data:b"])]}
            ]})
        );
    }

    #[test]
    fn a_stdio_upstream_keeps_every_icon() {
        let original = json!({"tools": [{"name": "a", "icons": icons(&["https://x", "file:///y"])}]});
        let mut result = original.clone();
        assert_eq!(filter_icons(Method::ToolsList, &mut result, &upstream(false)), 0);
        assert_eq!(result, original);
    }

    #[test]
    fn the_server_info_keeps_only_data_icons_for_a_remote_upstream() {
        let mut info = json!({"name": "s", "version": "1", "icons": icons(&["https://x", "data:z"])});
        let Value::Object(map) = &mut info else { unreachable!("an object literal") };
        assert_eq!(filter_server_info(map, IconRule::DataOnly), 1);
        assert_eq!(info, json!({"name": "s", "version": "1", "icons": icons(&["data:z"])}));
        let mut info = json!({"name": "s", "version": "1", "icons": icons(&["https://x"])});
        let Value::Object(map) = &mut info else { unreachable!("an object literal") };
        filter_server_info(map, IconRule::DataOnly);
        assert_eq!(info, json!({"name": "s", "version": "1"}));
    }

    #[test]
    fn a_removal_gives_one_note_per_result_and_none_gives_no_note() {
        assert_eq!(removal_note(0), None);
        let text = |n| removal_note(n).map(|note| note.to_string());
        assert_eq!(
            text(1).as_deref(),
            Some("the bridge removed 1 icon that is not data: URIs (a remote server's icons reach the client only as data: URIs)")
        );
        assert!(text(3).is_some_and(|t| t.starts_with("the bridge removed 3 icons that")));
    }
}
