//! Meta passthrough (behaviour spec, "Meta passthrough (M3)"), as a table,
//! checked on what the upstream server received: the fake upstream's
//! `echo` tool returns the line it read.

use crate::support::driver::Driver;
use crate::support::fake::fake_upstream;
use serde_json::{json, Map, Value};

/// The `_meta` the upstream server received for a `tools/call` whose
/// `_meta` is `meta`; the request itself must succeed.
fn received_meta(bridge: &mut Driver, id: u64, meta: Value) -> Map<String, Value> {
    let response = bridge.request(json!(id), "tools/call", json!({"name": "echo", "arguments": {}, "_meta": meta}));
    let raw = response["result"]["structuredContent"]["raw"].as_str().unwrap_or_else(|| panic!("no echo: {response}"));
    let line: Value = serde_json::from_str(raw).unwrap_or_else(|e| panic!("the upstream read no JSON ({e}): {raw}"));
    line["params"]["_meta"].as_object().cloned().unwrap_or_default()
}

#[test]
fn each_client_meta_key_passes_only_when_every_rule_allows_it() {
    // (key, passes, the rule that decides)
    let cases = [
        ("traceparent", true, "the profile allows traceparent"),
        ("tracestate", true, "the profile allows tracestate"),
        ("vscode.conversationId", true, "the profile allows the prefix vscode."),
        ("vscode.requestId", true, "the profile allows the prefix vscode."),
        ("vscode.chat/session", true, "a prefix of labels and a name obey the grammar"),
        ("vscode.chat/", true, "an empty name obeys the grammar"),
        ("baggage", false, "the vscode profile does not allow baggage"),
        ("com.example/key", false, "the profile does not allow other prefixes"),
        ("other", false, "the profile does not allow other keys"),
        ("vscode.mcp/x", false, "a second label mcp is reserved"),
        ("vscode.modelcontextprotocol/x", false, "a second label modelcontextprotocol is reserved"),
        ("vscode.bad key", false, "a space breaks the grammar"),
        ("vscode.x_", false, "a name ends with a letter or digit"),
        ("vscode.-a/b", false, "a label starts with a letter"),
        ("vscode.a-/b", false, "a label ends with a letter or digit"),
        ("vscode..a/b", false, "an empty label breaks the grammar"),
        ("vscode.a/b/c", false, "a name has no slash"),
        ("io.modelcontextprotocol/logLevel", false, "a key of the upstream client"),
        ("io.modelcontextprotocol/subscriptionId", false, "a key of the upstream client"),
    ];
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize();
    for (i, (key, passes, rule)) in cases.iter().enumerate() {
        let value = json!({"nested": [1, "two"], "n": i});
        let meta = received_meta(&mut bridge, i as u64 + 1, json!({ *key: value }));
        let expected = passes.then_some(&value);
        assert_eq!(meta.get(*key), expected, "{key}: {rule}; the upstream received {meta:?}");
    }
    // Together: one key that is not valid makes nothing fail, and the others still pass.
    let all: Map<String, Value> = cases.iter().map(|(key, _, _)| (key.to_string(), json!(key))).collect();
    let meta = received_meta(&mut bridge, 100, Value::Object(all));
    let passed: Vec<&str> =
        meta.keys().map(String::as_str).filter(|k| !k.starts_with("io.modelcontextprotocol/")).collect();
    let expected: Vec<&str> = cases.iter().filter(|(_, passes, _)| *passes).map(|(key, _, _)| *key).collect();
    assert_eq!(passed, expected);
    // The keys of the upstream client are the bridge's own, never the client's values.
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert_eq!(meta.get("io.modelcontextprotocol/logLevel"), None, "no level without logging/setLevel");
}

#[test]
fn the_progress_token_of_the_client_stays_with_the_bridge() {
    // "The progress token stays with the bridge for the progress rule": the upstream server gets
    // the id of the round as its token, never the client's token.
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize();
    let meta = received_meta(&mut bridge, 1, json!({"progressToken": "client-token"}));
    let token = meta.get("progressToken").cloned().unwrap_or(Value::Null);
    assert!(token.is_u64(), "the upstream token is the id of the round: {meta:?}");
}

#[test]
fn after_logging_set_level_each_request_carries_the_level() {
    // "Logging (M3)": the level of logging/setLevel goes into the _meta of each later request.
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize();
    assert!(received_meta(&mut bridge, 1, json!({})).get("io.modelcontextprotocol/logLevel").is_none());
    assert_eq!(bridge.request(json!(2), "logging/setLevel", json!({"level": "error"}))["result"], json!({}));
    assert_eq!(received_meta(&mut bridge, 3, json!({}))["io.modelcontextprotocol/logLevel"], "error");
    assert_eq!(bridge.request(json!(4), "logging/setLevel", json!({"level": "debug"}))["result"], json!({}));
    assert_eq!(received_meta(&mut bridge, 5, json!({}))["io.modelcontextprotocol/logLevel"], "debug");
}
