//! Real peers in real processes: the TypeScript SDK 1.32.2 client (VS
//! Code's stand-in) drives the real bridge to a Python `mcp==2.3.0` server
//! and to a TypeScript SDK v2 (`@modelcontextprotocol/server@2.4.0`) server;
//! the legacy-only `server-everything` shows the discover failure.
//! `scripts/install-peers` installs the peers; a missing peer fails.

mod harness;

use harness::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

fn peers() -> PathBuf {
    let dir =
        std::env::var_os("MCP_BRIDGE_PEERS").map(PathBuf::from).unwrap_or_else(|| repo_root().join(".cache/peers"));
    assert!(
        dir.join("node/node_modules/@modelcontextprotocol/sdk").is_dir(),
        "the test peers are missing in {}: run scripts/install-peers",
        dir.display()
    );
    dir
}

fn python_server() -> Vec<String> {
    vec![
        peers().join("py/bin/python").display().to_string(),
        repo_root().join("tests/peers/python/server.py").display().to_string(),
    ]
}

fn ts_v2_server() -> Vec<String> {
    vec!["node".into(), repo_root().join("tests/peers/node/server-v2.mjs").display().to_string()]
}

/// Runs a scenario of the TypeScript SDK 1.x client against the bridge.
fn client(scenario: &str, upstream: &[String]) -> Value {
    let output = Command::new("node")
        .arg(repo_root().join("tests/peers/node/client.mjs"))
        .arg(scenario)
        .arg(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .arg("--")
        .args(upstream)
        .output()
        .expect("node runs the client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the client failed: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("the client printed no JSON ({e}): {stdout}"))
}

fn names(list: &Value, member: &str) -> Vec<String> {
    list["ok"][member]
        .as_array()
        .map(|items| items.iter().map(|i| i["name"].as_str().unwrap_or("").to_owned()).collect())
        .unwrap_or_default()
}

#[test]
fn the_typescript_client_uses_a_python_mcp_2_3_server_through_the_bridge() {
    let out = client("basic", &python_server());
    assert_eq!(out["connect"], json!({}), "{out}");
    assert_eq!(
        out["serverVersion"],
        json!({"name": "peer-python", "title": "Python peer (mcp 2.3.0)", "version": "1.2.3"})
    );
    assert_eq!(out["instructions"], "Test peer of mcp-bridge: the Python SDK mcp 2.3.0.");
    assert_eq!(
        out["serverCapabilities"],
        json!({"completions": {}, "prompts": {"listChanged": true}, "resources": {"subscribe": true, "listChanged": true}, "tools": {"listChanged": true}})
    );
    assert_eq!(names(&out["tools"], "tools"), ["echo", "add", "squares", "tags", "slow", "fail"]);
    let tools = out["tools"]["ok"]["tools"].as_array().cloned().unwrap_or_default();
    // R6: the array without items got items: {}; the array outputSchema is gone.
    assert_eq!(tools[3]["inputSchema"]["properties"]["tags"], json!({"type": "array", "items": {}}));
    assert_eq!(tools[2].get("outputSchema"), None);
    assert_eq!(out["echo"]["ok"], json!({"content": [{"type": "text", "text": "hi there"}], "isError": false}));
    assert_eq!(
        out["add"]["ok"],
        json!({"content": [{"type": "text", "text": "{\n  \"sum\": 5\n}"}], "structuredContent": {"sum": 5}, "isError": false})
    );
    assert_eq!(names(&out["prompts"], "prompts"), ["greet"]);
    assert_eq!(
        out["prompt"]["ok"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}])
    );
    assert_eq!(names(&out["resources"], "resources"), ["readme"]);
    assert_eq!(
        out["readme"]["ok"]["contents"],
        json!([{"uri": "peer://static/readme", "mimeType": "text/plain", "text": "This is the static readme of the peer."}])
    );
    assert_eq!(out["templates"]["ok"]["resourceTemplates"][0]["uriTemplate"], "peer://colors/{color}");
    assert_eq!(out["color"]["ok"]["contents"][0]["text"], "The color is red.");
    assert_eq!(
        out["completePrompt"]["ok"]["completion"],
        json!({"values": ["Ada", "Alan"], "total": 2, "hasMore": false})
    );
    assert_eq!(out["completeTemplate"]["ok"]["completion"]["values"], json!(["red"]));
}

#[test]
fn the_typescript_client_uses_a_typescript_sdk_v2_server_through_the_bridge() {
    let out = client("basic", &ts_v2_server());
    assert_eq!(out["connect"], json!({}), "{out}");
    assert_eq!(
        out["serverVersion"],
        json!({"name": "peer-ts-v2", "title": "TypeScript v2 peer", "version": "2.4.0-peer"})
    );
    assert_eq!(out["instructions"], "TS v2 peer.");
    assert_eq!(names(&out["tools"], "tools"), ["echo", "add"]);
    assert_eq!(out["echo"]["ok"], json!({"content": [{"type": "text", "text": "hi there"}]}));
    // The server sends content: []; the text mirror gives the model the result.
    assert_eq!(
        out["add"]["ok"],
        json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}})
    );
    assert_eq!(
        out["prompt"]["ok"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}])
    );
    assert_eq!(out["readme"]["ok"]["contents"][0]["text"], "Static text");
    assert_eq!(out["templates"]["ok"]["resourceTemplates"][0]["uriTemplate"], "peer://colors/{color}");
    assert_eq!(out["color"]["ok"]["contents"][0]["text"], "color red");
    assert_eq!(out["completePrompt"]["ok"]["completion"]["values"], json!(["Ada", "Alan"]));
    assert_eq!(out["completeTemplate"]["ok"]["completion"]["values"], json!(["red"]));
}

#[test]
fn structured_results_progress_and_upstream_errors_reach_the_typescript_client() {
    let out = client("results", &python_server());
    assert_eq!(out["tags"]["ok"]["content"], json!([{"type": "text", "text": "tags: a, b"}]));
    assert_eq!(
        out["progress"],
        json!([
            {"progress": 0, "total": 3, "message": "step 0 of 3"},
            {"progress": 1, "total": 3, "message": "step 1 of 3"},
            {"progress": 2, "total": 3, "message": "step 2 of 3"},
            {"progress": 3, "total": 3, "message": "step 3 of 3"}
        ])
    );
    assert_eq!(out["slow"]["ok"]["content"], json!([{"type": "text", "text": "slept 0.3 s"}]));
    assert_eq!(out["fail"]["error"]["code"], -32001);
    assert_eq!(out["fail"]["error"]["data"], json!({"peer": "python"}));
    // The bridge keeps an array structuredContent (the MCP Apps read it);
    // the TypeScript SDK 1.x client itself refuses it, unlike VS Code.
    assert!(
        out["squares"]["error"]["message"].as_str().unwrap_or("").contains("structuredContent"),
        "{}",
        out["squares"]
    );
}

#[test]
fn the_stop_button_cancels_the_call_and_the_connection_goes_on() {
    let out = client("cancel", &python_server());
    assert_eq!(out["slow"]["error"]["message"], "MCP error -32001: user pressed stop", "{out}");
    assert!(out["abortedAfterMs"].as_u64().unwrap_or(u64::MAX) < 5000, "{out}");
    assert_eq!(out["echo"]["ok"]["content"], json!([{"type": "text", "text": "still here"}]));
}

#[test]
fn progress_with_token_0_and_an_array_result_from_the_python_server_on_the_wire() {
    let mut bridge = Bridge::start(&[], &python_server());
    bridge.initialize();
    bridge.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 0.1, "steps": 1}, "_meta": {"progressToken": 0}}}));
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 0, "total": 1, "message": "step 0 of 1"}})
    );
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 1, "total": 1, "message": "step 1 of 1"}})
    );
    assert_eq!(bridge.recv()["id"], 7);
    let squares = bridge.request(json!(8), "tools/call", json!({"name": "squares", "arguments": {"count": 3}}));
    assert_eq!(squares["result"]["structuredContent"], json!([1, 4, 9]));
    assert_eq!(squares["result"]["content"], json!([{"type": "text", "text": "[1,4,9]"}]));
}

#[test]
fn a_canceled_call_to_the_python_server_gets_no_response() {
    let mut bridge = Bridge::start(&[], &python_server());
    bridge.initialize();
    bridge.send(&json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 20}}}));
    std::thread::sleep(Duration::from_millis(500));
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "long"}}));
    bridge.expect_silence(Duration::from_millis(500));
    bridge.assert_alive();
}

#[test]
fn a_legacy_only_server_fails_initialize_with_discover_failed_and_the_bridge_stays_open() {
    let everything = peers().join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let upstream = vec!["node".to_string(), everything.display().to_string(), "stdio".to_string()];
    let mut bridge = Bridge::start(&["--discover-timeout", "10"], &upstream);
    let response = bridge.request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
    );
    let error = &response["error"];
    assert_eq!(
        error["message"],
        "The upstream server did not answer server/discover. It is not an MCP server of revision 2026-07-28, or it does not respond. See the Output channel of the server."
    );
    assert_eq!(error["data"]["cause"], "discover_failed");
    assert!(error["code"].is_i64(), "{response}");
    assert!(error["data"]["detail"].is_string(), "{response}");
    bridge.assert_alive();
}
