//! The `_meta` keys of the client that may reach the upstream server
//! (behaviour spec, "Meta passthrough (M3)"), and the grammar of keys
//! (2026-07-28 `basic/index.md`, `_meta`).

use crate::profile::Profile;
use serde_json::{Map, Value};

/// The keys the upstream client writes itself.
const CLIENT_KEYS: [&str; 5] = ["protocolVersion", "clientInfo", "clientCapabilities", "logLevel", "subscriptionId"];

/// The members of the client's `_meta` that pass every rule: the profile
/// allows the key, the key obeys the grammar, it is not a key of the
/// upstream client, and its prefix is not reserved. Each other key is
/// dropped, so one bad key never makes a request fail.
pub(crate) fn passthrough(meta: &Map<String, Value>, profile: &Profile) -> Map<String, Value> {
    meta.iter()
        .filter(|(key, _)| {
            profile.meta_passthrough.allows(key)
                && is_valid_key(key)
                && !is_client_key(key)
                && !has_reserved_prefix(key)
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn is_client_key(key: &str) -> bool {
    key == "progressToken"
        || key.strip_prefix("io.modelcontextprotocol/").is_some_and(|name| CLIENT_KEYS.contains(&name))
}

/// A prefix whose second label is `modelcontextprotocol` or `mcp`.
pub(crate) fn has_reserved_prefix(key: &str) -> bool {
    let Some((prefix, _)) = key.split_once('/') else {
        return false;
    };
    matches!(prefix.split('.').nth(1), Some("modelcontextprotocol" | "mcp"))
}

/// The grammar of a `_meta` key: an optional prefix of dot-separated
/// labels ending in `/`, then a name.
pub(crate) fn is_valid_key(key: &str) -> bool {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    prefix.is_none_or(|p| p.split('.').all(is_label)) && is_name(name)
}

fn is_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphabetic()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

fn is_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (None, _) => true,
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        (Some(_), None) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_grammar_of_the_spec() {
        let cases = [
            ("traceparent", true),
            ("vscode.conversationId", true),
            ("com.example/key", true),
            ("com.example/", true),
            ("a/b", true),
            ("1a/b", false),
            ("a-/b", false),
            ("a..b/c", false),
            ("-x", false),
            ("x_", false),
            ("a/b/c", false),
            ("", true),
        ];
        for (key, expected) in cases {
            assert_eq!(is_valid_key(key), expected, "{key}");
        }
    }

    #[test]
    fn reserved_prefixes_have_mcp_or_modelcontextprotocol_as_second_label() {
        let cases = [
            ("io.modelcontextprotocol/x", true),
            ("dev.mcp/x", true),
            ("vscode.mcp/x", true),
            ("com.mcp.tools/x", true),
            ("com.example.mcp/x", false),
            ("vscode.mcp", false),
            ("mcp/x", false),
        ];
        for (key, expected) in cases {
            assert_eq!(has_reserved_prefix(key), expected, "{key}");
        }
    }
}
