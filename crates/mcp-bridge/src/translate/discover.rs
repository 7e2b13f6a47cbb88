//! The initialize result made from the discover result (behaviour spec,
//! "The initialize result").

use super::capabilities::object_members;
use super::icons::{filter_server_info, removal_note};
use super::note::Note;
use crate::dialect::Dialect;
use crate::profile::Profile;
use serde_json::{Map, Value};

/// The key of the server information in the `_meta` of a result.
pub(crate) const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// The capabilities of the upstream server that a 2025-11-25 client can use.
const SERVER_CAPABILITIES: [&str; 7] =
    ["tools", "prompts", "resources", "completions", "logging", "experimental", "extensions"];

/// Makes the initialize result, and the note of the icons that the rule
/// removed from the server information, if it removed any.
/// `fallback_name` names the server when the discover result has no valid
/// server information; `dialect` is what the client reads: its revision
/// and the icon rule of the upstream.
pub(crate) fn initialize_result(
    discover: &Value,
    profile: &Profile,
    fallback_name: &str,
    dialect: &Dialect,
) -> (Value, Option<Note>) {
    let mut out = Map::new();
    out.insert("protocolVersion".into(), Value::from(dialect.revision.as_str()));
    out.insert("capabilities".into(), Value::Object(server_capabilities(discover.get("capabilities"))));
    let info = discover
        .get("_meta")
        .and_then(|m| m.get(SERVER_INFO_KEY))
        .and_then(server_info)
        .unwrap_or_else(|| fallback_info(fallback_name, &profile.version));
    let mut info = info;
    let note = removal_note(filter_server_info(&mut info, dialect.icons));
    out.insert("serverInfo".into(), Value::Object(info));
    if let Some(instructions) = discover.get("instructions").filter(|v| v.is_string()) {
        out.insert("instructions".into(), instructions.clone());
    }
    super::revision::initialize(&mut out, dialect.revision);
    (Value::Object(out), note)
}

/// The capabilities of the initialize result: the listed members when they
/// are objects, as the upstream server declared them; never `tasks`, and
/// never the Tasks extension.
pub(crate) fn server_capabilities(upstream: Option<&Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(upstream) = upstream.and_then(Value::as_object) else {
        return out;
    };
    for key in SERVER_CAPABILITIES {
        match upstream.get(key).and_then(Value::as_object) {
            Some(members) if key == "extensions" => {
                out.insert(key.into(), Value::Object(object_members(members, true)));
            }
            Some(members) => {
                out.insert(key.into(), Value::Object(members.clone()));
            }
            None => {}
        }
    }
    out
}

/// The server information when it is valid with a non-empty name: the
/// members `name`, `title`, `version`, `icons`, `description` and
/// `websiteUrl`. An optional member of the wrong type is left out.
pub(crate) fn server_info(info: &Value) -> Option<Map<String, Value>> {
    let info = info.as_object()?;
    let name = info.get("name")?.as_str().filter(|n| !n.is_empty())?;
    let version = info.get("version")?.as_str()?;
    let mut out = Map::new();
    out.insert("name".into(), Value::from(name));
    for key in ["title", "version", "icons", "description", "websiteUrl"] {
        let value = match key {
            "version" => Some(Value::from(version)),
            "icons" => info.get(key).filter(|v| is_icon_list(v)).cloned(),
            _ => info.get(key).filter(|v| v.is_string()).cloned(),
        };
        if let Some(value) = value {
            out.insert(key.into(), value);
        }
    }
    Some(out)
}

fn is_icon_list(value: &Value) -> bool {
    value.as_array().is_some_and(|icons| icons.iter().all(|icon| icon.get("src").is_some_and(Value::is_string)))
}

fn fallback_info(name: &str, version: &str) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("name".into(), Value::from(name));
    out.insert("version".into(), Value::from(version));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Quirks, Revision};
    use serde_json::json;

    fn profile() -> Profile {
        let mut profile = Profile::vscode();
        profile.version = "9.9.9".into();
        profile.quirks = Quirks::default();
        profile
    }

    #[test]
    fn each_initialize_result_row_follows_the_table() {
        let cases = [
            (
                json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": false}},
                       "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "up", "version": "1.0", "title": "Up", "x": 1}}, "instructions": "hi", "ttlMs": 5}),
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": false}},
                       "serverInfo": {"name": "up", "title": "Up", "version": "1.0"}, "instructions": "hi"}),
            ),
            (
                json!({"capabilities": {"tasks": {}, "logging": {}, "completions": {}, "prompts": true, "extensions": {"io.modelcontextprotocol/tasks": {}, "a.b/c": {}}, "experimental": {"e": {}}}}),
                json!({"protocolVersion": "2025-11-25", "capabilities": {"completions": {}, "logging": {}, "experimental": {"e": {}}, "extensions": {"a.b/c": {}}},
                       "serverInfo": {"name": "fallback", "version": "9.9.9"}}),
            ),
            (
                json!({"capabilities": [], "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "", "version": "1"}}, "instructions": 3}),
                json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "fallback", "version": "9.9.9"}}),
            ),
            (
                json!({"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "n"}}}),
                json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "fallback", "version": "9.9.9"}}),
            ),
            (
                json!({"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "n", "version": "2", "icons": [{"src": "data:x"}], "description": "d", "websiteUrl": "https://e", "title": 5}}}),
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                       "serverInfo": {"name": "n", "version": "2", "icons": [{"src": "data:x"}], "description": "d", "websiteUrl": "https://e"}}),
            ),
        ];
        for (discover, expected) in cases {
            let dialect = Dialect::new(&profile(), Revision::LATEST, false);
            assert_eq!(initialize_result(&discover, &profile(), "fallback", &dialect).0, expected, "{discover}");
        }
    }
}
