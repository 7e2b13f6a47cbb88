//! Icons of a remote upstream server (behaviour spec, "Icons of a remote
//! upstream server (M4)").
//!
//! VS Code drops the `http:` and `https:` icons of a stdio server and gives
//! `file:` icons the trust of a local process. The icons of a remote server
//! must not get that trust, so for a remote upstream only the icons with a
//! `data:` URI stay (`IconRule::DataOnly`); a stdio upstream and the memory
//! link keep every icon (`IconRule::All`). An item left without an icon
//! loses its `icons` member.

use serde_json::{Map, Value};

/// Which icons of the upstream server the client gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconRule {
    /// Every icon (a stdio upstream, the memory link).
    All,
    /// Only the icons with a `data:` URI (an upstream at a URL).
    DataOnly,
}

impl IconRule {
    /// The rule of an upstream that is remote or not.
    pub fn for_upstream(remote: bool) -> IconRule {
        if remote {
            IconRule::DataOnly
        } else {
            IconRule::All
        }
    }

    /// Whether the rule can change a result of `method`: the items of the
    /// four lists, the resource links of a `tools/call` result's content
    /// and of a `prompts/get` result's messages. [`filter_icons`] leaves
    /// every other result alone, and so can the fast path of results.
    pub fn applies_to(self, method: &str) -> bool {
        self == IconRule::DataOnly && (list_items(method).is_some() || matches!(method, "tools/call" | "prompts/get"))
    }
}

/// The member of each list result that holds its items.
fn list_items(method: &str) -> Option<&'static str> {
    match method {
        "tools/list" => Some("tools"),
        "prompts/list" => Some("prompts"),
        "resources/list" => Some("resources"),
        "resources/templates/list" => Some("resourceTemplates"),
        _ => None,
    }
}

/// Applies the rule to a complete result of `method`: the items of the
/// four lists, the resource links in the content of a `tools/call` result
/// and in the messages of a `prompts/get` result.
pub fn filter_icons(method: &str, result: &mut Value, rule: IconRule) {
    if !rule.applies_to(method) {
        return;
    }
    if let Some(member) = list_items(method) {
        for item in result.get_mut(member).and_then(Value::as_array_mut).into_iter().flatten() {
            keep_data_icons(item);
        }
        return;
    }
    match method {
        "tools/call" => {
            for block in result.get_mut("content").and_then(Value::as_array_mut).into_iter().flatten() {
                resource_link(block);
            }
        }
        "prompts/get" => {
            for message in result.get_mut("messages").and_then(Value::as_array_mut).into_iter().flatten() {
                match message.get_mut("content") {
                    Some(Value::Array(blocks)) => blocks.iter_mut().for_each(resource_link),
                    Some(block) => resource_link(block),
                    None => {}
                }
            }
        }
        _ => {}
    }
}

/// The `serverInfo` of the initialize result under the rule.
pub fn filter_server_info(info: &mut Map<String, Value>, rule: IconRule) {
    if rule == IconRule::DataOnly {
        keep_data_icons_of(info);
    }
}

fn resource_link(block: &mut Value) {
    if block.get("type").and_then(Value::as_str) == Some("resource_link") {
        keep_data_icons(block);
    }
}

fn keep_data_icons(item: &mut Value) {
    if let Value::Object(item) = item {
        keep_data_icons_of(item);
    }
}

/// Keeps the icons whose `src` is a `data:` URI; removes `icons` when none
/// is left. An `icons` member that is not an array has no icon to keep.
fn keep_data_icons_of(item: &mut Map<String, Value>) {
    let Some(icons) = item.get_mut("icons") else { return };
    if let Value::Array(list) = icons {
        list.retain(is_data_icon);
        if !list.is_empty() {
            return;
        }
    }
    item.shift_remove("icons");
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
    use serde_json::json;

    fn icons(srcs: &[&str]) -> Value {
        Value::Array(srcs.iter().map(|s| json!({"src": s, "mimeType": "image/png"})).collect())
    }

    #[test]
    fn a_remote_list_keeps_only_data_icons_and_an_item_without_one_loses_the_member() {
        for (method, member) in [
            ("tools/list", "tools"),
            ("prompts/list", "prompts"),
            ("resources/list", "resources"),
            ("resources/templates/list", "resourceTemplates"),
        ] {
            let mut result = json!({member: [
                {"name": "a", "icons": icons(&["https://x/a.png", "DATA:image/png;base64,AA", "file:///a.png"])},
                {"name": "b", "icons": icons(&["http://x/b.png"]), "other": 1},
                {"name": "c", "icons": []},
                {"name": "d"},
                {"name": "e", "icons": "not a list"}
            ], "nextCursor": "n"});
            filter_icons(method, &mut result, IconRule::DataOnly);
            assert_eq!(
                result,
                json!({member: [
                    {"name": "a", "icons": icons(&["DATA:image/png;base64,AA"])},
                    {"name": "b", "other": 1},
                    {"name": "c"},
                    {"name": "d"},
                    {"name": "e"}
                ], "nextCursor": "n"}),
                "{method}"
            );
        }
    }

    #[test]
    fn resource_links_of_calls_and_prompt_messages_keep_only_data_icons() {
        let link = |srcs: &[&str]| json!({"type": "resource_link", "uri": "u", "name": "n", "icons": icons(srcs)});
        let mut call = json!({"content": [link(&["https://x", "data:a"]), {"type": "text", "text": "t", "icons": icons(&["https://x"])}]});
        filter_icons("tools/call", &mut call, IconRule::DataOnly);
        assert_eq!(
            call,
            json!({"content": [link(&["data:a"]), {"type": "text", "text": "t", "icons": icons(&["https://x"])}]}),
            "only resource links are items with icons"
        );
        let mut prompt = json!({"messages": [
            {"role": "user", "content": link(&["https://x"])},
            {"role": "user", "content": [link(&["data:b", "file:///c"])]}
        ]});
        filter_icons("prompts/get", &mut prompt, IconRule::DataOnly);
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
        filter_icons("tools/list", &mut result, IconRule::All);
        assert_eq!(result, original);
        assert_eq!(IconRule::for_upstream(false), IconRule::All);
        assert_eq!(IconRule::for_upstream(true), IconRule::DataOnly);
    }

    #[test]
    fn the_server_info_keeps_only_data_icons_for_a_remote_upstream() {
        let mut info = json!({"name": "s", "version": "1", "icons": icons(&["https://x", "data:z"])});
        let Value::Object(map) = &mut info else { unreachable!("an object literal") };
        filter_server_info(map, IconRule::DataOnly);
        assert_eq!(info, json!({"name": "s", "version": "1", "icons": icons(&["data:z"])}));
        let mut info = json!({"name": "s", "version": "1", "icons": icons(&["https://x"])});
        let Value::Object(map) = &mut info else { unreachable!("an object literal") };
        filter_server_info(map, IconRule::DataOnly);
        assert_eq!(info, json!({"name": "s", "version": "1"}));
    }
}
