//! Live updates with real peers (behaviour spec, "Listen stream (M3)" and
//! "Logging (M3)"): the TypeScript SDK 1.32.2 client, VS Code's stand-in,
//! drives the real bridge in front of a Python `mcp==2.3.0` server whose
//! tools change the tool list, update a resource and log
//! (tests/peers/python/live_server.py, scenario `live` of client.mjs).

use crate::support::peers::*;
use crate::support::{assert_json, repo_root};
use serde_json::json;

fn live_server() -> Vec<String> {
    vec![
        peers().join("py/bin/python").display().to_string(),
        repo_root().join("tests/peers/python/live_server.py").display().to_string(),
    ]
}

#[test]
fn a_python_server_that_changes_its_tools_and_a_resource_and_logs_reaches_the_sdk_client() {
    let doc = drive("live", &[], &live_server());
    let caps = &doc["initialize"]["wire"]["capabilities"];
    assert_json(
        "the capabilities",
        caps,
        &json!({"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "resources": {"listChanged": true, "subscribe": true}}),
    );
    assert_eq!(caps.get("logging"), None, "the Python server does not declare logging, so neither does the bridge");

    assert_eq!(accepted_text(&doc, "tools/call add_tool"), "added extra");
    let names: Vec<&str> = accepted(&doc, "tools/list")["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(names.contains(&"extra"), "the new tool is listed: {names:?}");
    assert_eq!(accepted_text(&doc, "tools/call extra"), "I am extra");
    assert_json("subscribe", accepted(&doc, "resources/subscribe"), &json!({}));
    assert_eq!(accepted_text(&doc, "tools/call touch"), "touched live://counter");
    assert_json("setLevel", accepted(&doc, "logging/setLevel"), &json!({}));
    assert_eq!(accepted_text(&doc, "tools/call chatty"), "logged");
    assert_json("unsubscribe", accepted(&doc, "resources/unsubscribe"), &json!({}));

    // Every notification, in order: the events after the first acknowledgment, the change of the
    // tool list, the update of the subscribed resource, and the messages at or above warning,
    // without the upstream _meta. No update after the unsubscribe.
    let list_changed =
        |list: &str| json!({"jsonrpc": "2.0", "method": format!("notifications/{list}/list_changed"), "params": {}});
    let log = |level: &str| json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "logger": "chatty", "data": format!("{level} line")}});
    let expected = json!([
        list_changed("tools"),
        list_changed("prompts"),
        list_changed("resources"),
        list_changed("tools"),
        {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "live://counter"}},
        log("warning"),
        log("error"),
    ]);
    assert_json("the notifications", &doc["notifications"], &expected);
    assert_clean_exit(&doc);
}
