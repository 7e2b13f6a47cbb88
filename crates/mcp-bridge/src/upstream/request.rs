//! The message of a request to the upstream server: its params with the
//! request's `_meta` (behaviour spec, "Forwarded requests (M1)", "Meta
//! passthrough (M3)"), as its text written straight from its parts: the
//! line of a pipe, the body of a POST; as a `Value` when only
//! the message can give it.
//!
//! The text is what serializing the `Value` gives, byte for byte, without
//! building it: on each request the `Value` cost a clone of the params (a
//! big argument's too), of the client's information and of its
//! capabilities, and then their serialization. The members that are the
//! same on every request ([`FixedMeta`]) are serialized once per client.

use super::outgoing::UpstreamMethod;
use crate::jsonrpc::{self, Id, LoggingLevel};
use serde_json::{Map, Value};

/// The revision the upstream client speaks.
pub(crate) const PROTOCOL_VERSION: &str = "2026-07-28";
/// The `_meta` key of the log level that the client chose.
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// The keys of the upstream client in every `_meta` but the log level: the
/// version, the client and its capabilities, in this order; and the text
/// of these members (`"key":value,...`) for the lines of a pipe.
pub(super) struct FixedMeta {
    members: Map<String, Value>,
    text: Vec<u8>,
}

impl FixedMeta {
    pub(super) fn new(client_info: &Value, capabilities: &Value) -> FixedMeta {
        let mut members = Map::new();
        members.insert("io.modelcontextprotocol/protocolVersion".into(), Value::from(PROTOCOL_VERSION));
        members.insert("io.modelcontextprotocol/clientInfo".into(), client_info.clone());
        members.insert("io.modelcontextprotocol/clientCapabilities".into(), capabilities.clone());
        let mut text = Vec::with_capacity(256);
        for (i, (key, value)) in members.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            // A `Value` always serializes; should it not, the text is
            // empty and each request takes the message path.
            if member(&mut text, key, value).is_none() {
                text.clear();
                break;
            }
        }
        FixedMeta { members, text }
    }

    /// The `_meta` of the upstream client: the fixed members, then the log
    /// level when the client chose one.
    pub(super) fn base_meta(&self, level: Option<LoggingLevel>) -> Map<String, Value> {
        let mut meta = self.members.clone();
        if let Some(level) = level {
            meta.insert(LOG_LEVEL_KEY.into(), Value::from(level.name()));
        }
        meta
    }
}

/// The parts of one request.
pub(super) struct Parts<'a> {
    pub id: u64,
    pub method: UpstreamMethod,
    pub params: &'a Map<String, Value>,
    /// The passthrough keys of the client's `_meta`.
    pub meta: &'a Map<String, Value>,
    /// The request carries its id as its progress token.
    pub progress: bool,
    pub level: Option<LoggingLevel>,
}

/// The request as a message: the passthrough keys of the client, the
/// progress token, then the keys of the upstream client, which win; the
/// `_meta` takes the place of one in the params, else comes last.
pub(super) fn message(parts: &Parts<'_>, fixed: &FixedMeta) -> Value {
    let mut meta = parts.meta.clone();
    if parts.progress {
        // Each round has its own id, and the upstream server sends the
        // progress of the round with that id as the token.
        meta.insert("progressToken".into(), Value::from(parts.id));
    }
    meta.extend(fixed.base_meta(parts.level));
    let mut params = parts.params.clone();
    params.insert("_meta".into(), Value::Object(meta));
    jsonrpc::request(&Id::number(parts.id), parts.method.name(), Value::Object(params))
}

/// A request of a 2026-07-28 client of the face, relayed: its params
/// with its own `_meta` as they came, but the progress token, which is the
/// request's id upstream (the inbox routes progress by it).
pub(super) fn relayed(parts: &Parts<'_>) -> Value {
    let mut params = parts.params.clone();
    if parts.progress {
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            meta.insert("progressToken".into(), Value::from(parts.id));
        }
    }
    jsonrpc::request(&Id::number(parts.id), parts.method.name(), Value::Object(params))
}

/// The line of [`message`] (without its `\n`), or `None` when only the
/// message gives it: the client's `_meta` holds a key that the upstream
/// client writes (the map then keeps that key's place), or the fixed text
/// is missing.
pub(super) fn line(parts: &Parts<'_>, fixed: &FixedMeta) -> Option<Vec<u8>> {
    let written_by_us = |key: &str| {
        (parts.progress && key == "progressToken") || key == LOG_LEVEL_KEY || fixed.members.contains_key(key)
    };
    if fixed.text.is_empty() || parts.meta.keys().any(|key| written_by_us(key)) {
        return None;
    }
    let mut out = Vec::with_capacity(160 + fixed.text.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    serde_json::to_writer(&mut out, &parts.id).ok()?;
    out.extend_from_slice(b",\"method\":");
    serde_json::to_writer(&mut out, parts.method.name()).ok()?;
    out.extend_from_slice(b",\"params\":{");
    let mut meta_written = false;
    for (i, (key, value)) in parts.params.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if key == "_meta" {
            write_meta(&mut out, parts, fixed)?;
            meta_written = true;
        } else {
            member(&mut out, key, value)?;
        }
    }
    if !meta_written {
        if !parts.params.is_empty() {
            out.push(b',');
        }
        write_meta(&mut out, parts, fixed)?;
    }
    out.extend_from_slice(b"}}");
    // Room for the `\n` that the writer adds.
    out.reserve_exact(1);
    Some(out)
}

/// `"_meta":{...}`: the passthrough keys, the progress token, the fixed
/// keys, the log level.
fn write_meta(out: &mut Vec<u8>, parts: &Parts<'_>, fixed: &FixedMeta) -> Option<()> {
    out.extend_from_slice(b"\"_meta\":{");
    for (key, value) in parts.meta {
        member(out, key, value)?;
        out.push(b',');
    }
    if parts.progress {
        out.extend_from_slice(b"\"progressToken\":");
        serde_json::to_writer(&mut *out, &parts.id).ok()?;
        out.push(b',');
    }
    out.extend_from_slice(&fixed.text);
    if let Some(level) = parts.level {
        out.push(b',');
        member(out, LOG_LEVEL_KEY, &Value::from(level.name()))?;
    }
    out.push(b'}');
    Some(())
}

/// `"key":value` as serde_json writes a member of an object.
fn member(out: &mut Vec<u8>, key: &str, value: &Value) -> Option<()> {
    serde_json::to_writer(&mut *out, key).ok()?;
    out.push(b':');
    serde_json::to_writer(&mut *out, value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::Method;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    /// The line is the serialized message, byte for byte, in each case the
    /// rules of `_meta` order differently; or the message path takes it.
    #[test]
    fn the_line_is_the_serialized_message() {
        let fixed = FixedMeta::new(&json!({"name": "VS Code", "version": "1.1\u{e9}"}), &json!({"elicitation": {}}));
        let params = [
            json!({}),
            json!({"name": "echo", "arguments": {"text": "h\"i\n\u{1F600}", "n": 1.50, "big": 123456789012345678901234567890u128}}),
            json!({"_meta": null, "name": "t"}),
            json!({"name": "t", "_meta": {"x": 1}, "cursor": "c"}),
            json!({"cursor": "abc", "inputResponses": {"k": {"action": "accept"}}, "requestState": "s"}),
        ];
        let metas = [
            (json!({}), true),
            (json!({"traceparent": "00-a", "vscode.conversationId": "c"}), true),
            (json!({"progressToken": 3}), false),
            (json!({"io.modelcontextprotocol/clientInfo": {}}), false),
            (json!({"io.modelcontextprotocol/logLevel": "debug"}), false),
        ];
        for params in &params {
            for (meta, has_line) in &metas {
                for progress in [false, true] {
                    for level in [None, Some(LoggingLevel::Warning)] {
                        let (params, meta) = (map(params.clone()), map(meta.clone()));
                        let method = UpstreamMethod::Forwarded(Method::ToolsCall);
                        let parts = Parts { id: 42, method, params: &params, meta: &meta, progress, level };
                        let want = serde_json::to_vec(&message(&parts, &fixed)).unwrap_or_default();
                        let case = format!("{params:?} {meta:?} progress {progress} level {level:?}");
                        match line(&parts, &fixed) {
                            Some(got) => {
                                assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want), "{case}");
                            }
                            // Only a key of the upstream client in the
                            // client's `_meta` takes the message path.
                            None => assert!(!has_line, "{case}"),
                        }
                    }
                }
            }
        }
    }
}
