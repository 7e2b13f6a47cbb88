//! Real third-party peers in real processes (BRIEF.md, "Real peers for tests").
//!
//! * VS Code's stand-in is the TypeScript SDK 1.32.2 client of
//!   tests/peers/node/client.mjs: it drives the real binary and prints every
//!   message it got, so each test compares the exact JSON the bridge wrote
//!   ("wire") and checks that the SDK accepted it.
//! * The upstream servers are tests/peers/python/server.py (PyPI mcp==2.3.0)
//!   and tests/peers/node/server-v2.mjs (@modelcontextprotocol/server@2.4.0),
//!   two independent 2026-07-28 servers with the same surface, and the
//!   legacy-only @modelcontextprotocol/server-everything@2026.8.31.
//! * The self-checks run the servers WITHOUT the bridge, with the 2026-07-28
//!   client of the Python SDK, so a broken peer is told apart from a broken
//!   bridge.
//!
//! Each test names the rule of ../shared/spec/bridge-translation-rules.txt it
//! checks. `scripts/test` installs the peers and sets `MCP_BRIDGE_PEERS`; a
//! missing peer fails the test. Every run is bounded: the driver stops itself
//! after 60 s and is killed after 90 s, the line driver of the bridge waits
//! 20 s a line.

use crate::support::driver::Driver;
use crate::support::peers::*;
use crate::support::{assert_json, bridge_error, message};
use serde_json::{json, Value};
use std::process::Command;
use std::time::Duration;

/// @modelcontextprotocol/server-everything@2026.8.31 over stdio: legacy only.
fn everything_server() -> Vec<String> {
    let index = peers().join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    vec![node(), index.display().to_string(), "stdio".to_string()]
}

/// The serverInfo of each peer (from `_meta["io.modelcontextprotocol/serverInfo"]`).
fn python_info() -> Value {
    json!({"name": "peer-python", "title": "Python peer (mcp 2.3.0)", "version": "1.2.3"})
}

fn ts_v2_info() -> Value {
    json!({"name": "peer-ts-v2", "title": "TypeScript v2 peer (@modelcontextprotocol/server 2.4.0)", "version": "4.5.6"})
}

const PYTHON_INSTRUCTIONS: &str = "Test peer of mcp-bridge: the Python SDK mcp 2.3.0.";
const TS_V2_INSTRUCTIONS: &str = "Test peer of mcp-bridge: the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0).";

/// The results that both peers give alike, as the bridge must pass them on
/// (Result rules: "Each other member of a result goes to the client without a
/// change"; "Removal of modern members": no resultType, ttlMs, cacheScope, nor
/// the serverInfo _meta).
fn assert_common_basic_results(doc: &Value) {
    assert_json(
        "prompts/list",
        accepted(doc, "prompts/list"),
        &json!({"prompts": [{"name": "greet", "description": "Greet someone by name.", "arguments": [{"name": "name", "required": true}]}]}),
    );
    assert_json(
        "prompts/get greet",
        accepted(doc, "prompts/get greet"),
        &json!({"description": "Greet someone by name.", "messages": [{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}]}),
    );
    assert_json(
        "resources/list",
        accepted(doc, "resources/list"),
        &json!({"resources": [{"uri": "peer://static/readme", "name": "readme", "description": "The static readme of the peer.", "mimeType": "text/plain"}]}),
    );
    assert_json(
        "resources/read readme",
        accepted(doc, "resources/read readme"),
        &json!({"contents": [{"uri": "peer://static/readme", "mimeType": "text/plain", "text": "This is the static readme of the peer."}]}),
    );
    assert_json(
        "resources/templates/list",
        accepted(doc, "resources/templates/list"),
        &json!({"resourceTemplates": [{"name": "color", "uriTemplate": "peer://colors/{color}", "description": "A color by name.", "mimeType": "text/plain"}]}),
    );
    assert_json(
        "resources/read color",
        accepted(doc, "resources/read color"),
        &json!({"contents": [{"uri": "peer://colors/blue", "mimeType": "text/plain", "text": "The color is blue."}]}),
    );
    assert_json(
        "completion/complete prompt",
        accepted(doc, "completion/complete prompt"),
        &json!({"completion": {"values": ["Ada", "Alan"], "total": 2, "hasMore": false}}),
    );
    assert_json(
        "completion/complete template",
        accepted(doc, "completion/complete template"),
        &json!({"completion": {"values": ["green"], "total": 1, "hasMore": false}}),
    );
    assert_json(
        "tools/call tags",
        &accepted(doc, "tools/call tags")["content"],
        &json!([{"type": "text", "text": "tags: a, b"}]),
    );
    // Lifecycle: ping gets {} in each state, from the bridge itself (2026-07-28 has no ping).
    assert_json("ping", accepted(doc, "ping"), &json!({}));
    // Cancellation: a stdio upstream's notifications that belong to no request do not reach the client.
    // Listen stream (M3): both peers declare the three list changes, so the acknowledgment of the
    // first stream gives one list change for each ("Events after a gap"), and nothing else comes.
    assert_json("notifications", &doc["notifications"], &json!(gap_events()));
    assert_json("requests of the bridge", &doc["clientRequests"], &json!([]));
    assert_clean_exit(doc);
}

/// The squares tool gives an array structuredContent. Result rules:
/// "structuredContent ... whatever its JSON type" is kept (VS Code and the MCP
/// Apps read it), and with content [] the "Text mirror" adds the serialized
/// value. The TypeScript SDK 1.x client itself refuses an array
/// structuredContent (zod: "expected record"), VS Code does not: the step
/// fails in the SDK, so the test reads the raw result.
fn assert_squares(doc: &Value, expected: Value) {
    let s = step(doc, "tools/call squares");
    assert_eq!(s["answered"], true, "{s:#}");
    assert_eq!(s["ok"], false, "the SDK 1.x client accepted an array structuredContent: {s:#}");
    assert!(s["sdkError"].as_str().unwrap_or("").contains("expected record"), "{s:#}");
    assert_json("tools/call squares", &s["wire"], &expected);
}

#[test]
fn basic_python_mcp_2_3_server_through_the_bridge_gives_the_exact_results() {
    let doc = drive("basic", &[], &python_server());
    // "The initialize result": protocolVersion of the profile, the capabilities
    // as the upstream declared them, serverInfo and instructions from discover.
    let init = &doc["initialize"];
    assert_eq!(init["ok"], true, "initialize failed:\n{doc:#}");
    assert_json(
        "initialize result",
        &init["wire"],
        &json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "resources": {"listChanged": true, "subscribe": true}, "completions": {}},
            "serverInfo": python_info(),
            "instructions": PYTHON_INSTRUCTIONS
        }),
    );
    assert_json("serverVersion (SDK)", &init["serverVersion"], &python_info());
    assert_eq!(init["instructions"], PYTHON_INSTRUCTIONS);

    // tools/list: R6 gives the tags array items: {}; drop_non_object_output_schema
    // removes the array outputSchema of squares; every other member as it came.
    assert_json(
        "tools/list",
        accepted(&doc, "tools/list"),
        &json!({"tools": [
            {"description": "Echo the text back.", "inputSchema": {"type": "object", "properties": {"text": {"title": "Text", "type": "string"}}, "required": ["text"], "title": "echoArguments"}, "name": "echo"},
            {"description": "Add two integers.", "inputSchema": {"type": "object", "properties": {"a": {"title": "A", "type": "integer"}, "b": {"title": "B", "type": "integer"}}, "required": ["a", "b"], "title": "addArguments"}, "name": "add",
             "outputSchema": {"properties": {"sum": {"title": "Sum", "type": "integer"}}, "required": ["sum"], "title": "Sum", "type": "object"}},
            {"description": "The squares of 1 to count, as an array.", "inputSchema": {"type": "object", "properties": {"count": {"title": "Count", "type": "integer"}}, "required": ["count"], "title": "squaresArguments"}, "name": "squares"},
            {"description": "Join tags.", "inputSchema": {"type": "object", "properties": {"tags": {"type": "array", "items": {}}}, "required": ["tags"]}, "name": "tags"},
            {"description": "Sleep for a while and report progress.", "inputSchema": {"type": "object", "properties": {"seconds": {"title": "Seconds", "type": "number"}, "steps": {"default": 2, "title": "Steps", "type": "integer"}}, "required": ["seconds"], "title": "slowArguments"}, "name": "slow"},
            {"description": "Fail with the given code and message.", "inputSchema": {"type": "object", "properties": {"code": {"title": "Code", "type": "integer"}, "message": {"title": "Message", "type": "string"}}, "required": ["code", "message"], "title": "failArguments"}, "name": "fail"}
        ]}),
    );
    assert_json(
        "tools/call echo",
        accepted(&doc, "tools/call echo"),
        &json!({"content": [{"type": "text", "text": "hello bridge"}], "isError": false}),
    );
    // The SDK wrote its own text block (indent 2): the "Text mirror" adds none.
    assert_json(
        "tools/call add",
        accepted(&doc, "tools/call add"),
        &json!({"content": [{"type": "text", "text": "{\n  \"sum\": 5\n}"}], "isError": false, "structuredContent": {"sum": 5}}),
    );
    assert_squares(
        &doc,
        json!({"content": [{"type": "text", "text": "[1,4,9]"}], "isError": false, "structuredContent": [1, 4, 9]}),
    );
    // "An error of the upstream server goes to the client with its code, its message and its data."
    assert_json(
        "tools/call fail",
        refused(&doc, "tools/call fail"),
        &json!({"code": -32001, "message": "peer failure", "data": {"peer": "python"}}),
    );
    assert_common_basic_results(&doc);
}

#[test]
fn basic_typescript_sdk_v2_server_through_the_bridge_gives_the_exact_results() {
    let doc = drive("basic", &[], &ts_v2_server());
    let init = &doc["initialize"];
    assert_eq!(init["ok"], true, "initialize failed:\n{doc:#}");
    // "The initialize result": this server declares no resources.subscribe.
    assert_json(
        "initialize result",
        &init["wire"],
        &json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "resources": {"listChanged": true}, "completions": {}},
            "serverInfo": ts_v2_info(),
            "instructions": TS_V2_INSTRUCTIONS
        }),
    );
    assert_json("serverVersion (SDK)", &init["serverVersion"], &ts_v2_info());
    assert_eq!(init["instructions"], TS_V2_INSTRUCTIONS);

    let int = json!({"type": "integer", "minimum": -9007199254740991_i64, "maximum": 9007199254740991_i64});
    let draft = "https://json-schema.org/draft/2020-12/schema";
    assert_json(
        "tools/list",
        accepted(&doc, "tools/list"),
        &json!({"tools": [
            {"name": "echo", "description": "Echo the text back.", "inputSchema": {"type": "object", "$schema": draft, "properties": {"text": {"type": "string"}}, "required": ["text"]}},
            {"name": "add", "description": "Add two integers.", "inputSchema": {"type": "object", "$schema": draft, "properties": {"a": int, "b": int}, "required": ["a", "b"]},
             "outputSchema": {"$schema": draft, "type": "object", "properties": {"sum": int}, "required": ["sum"], "additionalProperties": false}},
            // drop_non_object_output_schema: the array outputSchema is gone.
            {"name": "squares", "description": "The squares of 1 to count, as an array.", "inputSchema": {"type": "object", "$schema": draft, "properties": {"count": int}, "required": ["count"]}},
            // R6: items: {} for the array without items.
            {"name": "tags", "description": "Join tags.", "inputSchema": {"type": "object", "properties": {"tags": {"type": "array", "items": {}}}, "required": ["tags"]}},
            {"name": "slow", "description": "Sleep for a while and report progress.", "inputSchema": {"type": "object", "$schema": draft, "properties": {"seconds": {"type": "number"}, "steps": int}, "required": ["seconds"]}},
            {"name": "fail", "description": "Fail with the given code and message.", "inputSchema": {"type": "object", "$schema": draft, "properties": {"code": int, "message": {"type": "string"}}, "required": ["code", "message"]}}
        ]}),
    );
    assert_json(
        "tools/call echo",
        accepted(&doc, "tools/call echo"),
        &json!({"content": [{"type": "text", "text": "hello bridge"}]}),
    );
    // The server sends content: [] with structuredContent: the "Text mirror"
    // adds one text block with the serialized structuredContent.
    assert_json(
        "tools/call add",
        accepted(&doc, "tools/call add"),
        &json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}}),
    );
    // The TS v2 SDK itself adds a text block for a non-object structuredContent.
    assert_squares(&doc, json!({"content": [{"type": "text", "text": "[1,4,9]"}], "structuredContent": [1, 4, 9]}));
    // McpServer turns a throwing tool into an isError result; it passes unchanged.
    assert_json(
        "tools/call fail",
        accepted(&doc, "tools/call fail"),
        &json!({"content": [{"type": "text", "text": "peer failure"}], "isError": true}),
    );
    assert_common_basic_results(&doc);
}

#[test]
fn a_legacy_only_upstream_fails_initialize_with_discover_failed_for_the_sdk_client() {
    // Error table, discover_failed: "The upstream code, else -32603";
    // server-everything answers server/discover with -32601 "Method not found".
    let doc = drive("initialize", &["--discover-timeout", "20"], &everything_server());
    let init = &doc["initialize"];
    assert_eq!(init["ok"], false, "{doc:#}");
    assert_json(
        "the initialize error",
        &init["error"],
        &json!({"code": -32601, "message": &message("discover_failed"), "data": {"cause": "discover_failed", "detail": "Method not found"}}),
    );
    // The error is the only message; then the SDK closes stdin and the bridge exits 0.
    assert_eq!(doc["received"].as_array().map(Vec::len), Some(1), "{doc:#}");
    assert_clean_exit(&doc);
}

#[test]
fn after_a_failed_discover_the_bridge_stays_open_and_initialize_can_be_sent_again() {
    // "When a step fails, the front end stops the upstream server and sets the
    // state awaiting_initialize. Then it sends the error. The bridge stays open,
    // and the client can send initialize again."
    let mut bridge = Driver::start(&["--discover-timeout", "20"], &everything_server());
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
    let expected_error = json!({"code": -32601, "message": &message("discover_failed"), "data": {"cause": "discover_failed", "detail": "Method not found"}});
    let first = bridge.request(json!(1), "initialize", params.clone());
    assert_json("the first initialize", &first, &json!({"jsonrpc": "2.0", "id": 1, "error": expected_error}));
    // ping answers {} in each state.
    assert_json(
        "ping",
        &bridge.request(json!(2), "ping", json!({})),
        &json!({"jsonrpc": "2.0", "id": 2, "result": {}}),
    );
    // A forwarded request before ready, without the modern _meta: not_initialized.
    let early = bridge.request(json!(3), "tools/list", json!({}));
    assert_json(
        "tools/list in awaiting_initialize",
        &early["error"],
        &bridge_error(-32600, &message("not_initialized"), "not_initialized", None),
    );
    // A second initialize is a new first initialize: it starts the upstream again.
    let second = bridge.request(json!(4), "initialize", params);
    assert_json("the second initialize", &second, &json!({"jsonrpc": "2.0", "id": 4, "error": expected_error}));
    bridge.assert_alive();
    // The exit code is 0 at the end of stdin.
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(15)).status.code(), Some(0));
}

/// The events after the acknowledgment of the first listen stream, for a
/// peer that declares the three list changes and no subscribed URI.
fn gap_events() -> Vec<Value> {
    ["tools", "prompts", "resources"]
        .iter()
        .map(|list| json!({"jsonrpc": "2.0", "method": format!("notifications/{list}/list_changed"), "params": {}}))
        .collect()
}

/// Only the messages of `doc` that are not events of the listen stream.
fn without_list_changes(messages: &Value) -> Vec<Value> {
    let is_event = |m: &&Value| m["method"].as_str().is_some_and(|m| m.ends_with("/list_changed"));
    messages.as_array().map(|all| all.iter().filter(|m| !is_event(m)).cloned().collect()).unwrap_or_default()
}

/// Reads the three events after the first acknowledgment of the listen
/// stream, which come at once after `notifications/initialized`.
fn take_gap_events(bridge: &mut Driver) {
    for expected in gap_events() {
        assert_json("an event after the first acknowledgment", &bridge.recv(), &expected);
    }
}

/// Progress (M1): token 0 is a token; the bridge keys progress by request,
/// and sends it with the client's token, only before the response.
fn assert_progress_with_token_zero(doc: &Value) {
    let result = json!({"content": [{"type": "text", "text": "slept 0.6 s"}]});
    for name in ["slow first", "slow second"] {
        let wire = accepted(doc, name);
        assert_json(name, &wire["content"], &result["content"]);
    }
    let progress = |i: u32| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": i, "total": 3, "message": format!("step {i} of 3")}});
    let expected: Vec<Value> = (0..=3).chain(0..=3).map(progress).collect();
    let progress_only = without_list_changes(&doc["notifications"]);
    assert_json("the progress notifications", &Value::Array(progress_only), &Value::Array(expected));
    // The order on the wire: each request's 4 progress, then its response.
    let order: Vec<String> = without_list_changes(&doc["received"])
        .iter()
        .skip(1) // the initialize result
        .map(|m| match m.get("method") {
            Some(method) => method.as_str().unwrap_or("?").to_string(),
            None => format!("response {}", m["id"]),
        })
        .collect();
    let p = "notifications/progress".to_string();
    let ids: Vec<Value> = doc["sent"]
        .as_array()
        .map(|sent| sent.iter().filter(|m| m["method"] == "tools/call").map(|m| m["id"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(ids.len(), 2, "{doc:#}");
    let expected_order = [
        vec![p.clone(), p.clone(), p.clone(), p.clone(), format!("response {}", ids[0])],
        vec![p.clone(), p.clone(), p.clone(), p, format!("response {}", ids[1])],
    ]
    .concat();
    assert_eq!(order, expected_order, "{doc:#}");
    assert_clean_exit(doc);
}

#[test]
fn progress_with_token_0_in_every_request_reaches_the_client_from_the_python_server() {
    assert_progress_with_token_zero(&drive("progress", &[], &python_server()));
}

#[test]
fn progress_with_token_0_in_every_request_reaches_the_client_from_the_typescript_v2_server() {
    assert_progress_with_token_zero(&drive("progress", &[], &ts_v2_server()));
}

/// Cancellation (M1): the client's notifications/cancelled cancels the
/// request in flight; a canceled request gets no response; the connection goes on.
fn assert_cancel(doc: &Value) {
    let cancelled = step(doc, "slow cancelled");
    assert_eq!(cancelled["ok"], false, "{doc:#}");
    let slow_id = doc["sent"]
        .as_array()
        .and_then(|sent| sent.iter().find(|m| m["method"] == "tools/call" && m["params"]["name"] == "slow"))
        .map(|m| m["id"].clone())
        .unwrap_or_else(|| panic!("the driver sent no slow call:\n{doc:#}"));
    let sent_cancel = doc["sent"].as_array().is_some_and(|sent| {
        sent.iter().any(|m| m["method"] == "notifications/cancelled" && m["params"]["requestId"] == slow_id)
    });
    assert!(sent_cancel, "the SDK sent no notifications/cancelled:\n{doc:#}");
    let answered = doc["received"]
        .as_array()
        .is_some_and(|received| received.iter().any(|m| m.get("method").is_none() && m["id"] == slow_id));
    assert!(!answered, "the canceled request got a response:\n{doc:#}");
    assert_json(
        "tools/call echo after the cancellation",
        &accepted(doc, "tools/call echo")["content"],
        &json!([{"type": "text", "text": "still here"}]),
    );
    assert_clean_exit(doc);
}

#[test]
fn the_stop_button_cancels_a_python_tool_call_and_the_connection_goes_on() {
    assert_cancel(&drive("cancel", &[], &python_server()));
}

#[test]
fn the_stop_button_cancels_a_typescript_v2_tool_call_and_the_connection_goes_on() {
    assert_cancel(&drive("cancel", &[], &ts_v2_server()));
}

#[test]
fn raw_lines_progress_token_0_then_the_result_from_the_python_server() {
    // Progress (M1), on the exact lines: token 0, the upstream's progress,
    // total and message, no _meta; the response after the last progress.
    let mut bridge = Driver::start(&[], &python_server());
    bridge.initialize();
    take_gap_events(&mut bridge);
    bridge.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 0.1, "steps": 1}, "_meta": {"progressToken": 0}}}));
    for i in 0..=1 {
        assert_json(
            "progress",
            &bridge.recv(),
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": i, "total": 1, "message": format!("step {i} of 1")}}),
        );
    }
    assert_json(
        "the result",
        &bridge.recv(),
        &json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "slept 0.1 s"}], "isError": false}}),
    );
    // A request without a progress token gets no progress.
    let plain =
        bridge.request(json!(8), "tools/call", json!({"name": "slow", "arguments": {"seconds": 0.1, "steps": 1}}));
    assert_json(
        "no progress without a token",
        &plain["result"]["content"],
        &json!([{"type": "text", "text": "slept 0.1 s"}]),
    );
    bridge.assert_alive();
}

#[test]
fn raw_lines_a_canceled_call_to_the_python_server_gets_no_response() {
    // Cancellation (M1): "A canceled request gets no response", also with a string id.
    let mut bridge = Driver::start(&[], &python_server());
    bridge.initialize();
    take_gap_events(&mut bridge);
    bridge.send(&json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 20}}}));
    std::thread::sleep(Duration::from_millis(500));
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "long", "reason": "test"}}));
    bridge.expect_silence(Duration::from_millis(700));
    bridge.assert_alive();
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(15)).status.code(), Some(0));
}

// --- Self-checks of the peers, without the bridge --------------------------------

fn assert_modern_peer(doc: &Value, info: Value) {
    // mode="auto" sends server/discover; a fallback to initialize would give 2025-11-25.
    assert_eq!(doc["protocolVersion"], "2026-07-28", "{doc:#}");
    assert_json("serverInfo", &doc["serverInfo"], &info);
    let steps = &doc["steps"];
    assert_json("echo", &steps["tools/call echo"]["content"], &json!([{"type": "text", "text": "hello peer"}]));
    assert_json("add", &steps["tools/call add"]["structuredContent"], &json!({"sum": 5}));
    assert_eq!(steps["prompts/get greet"]["messages"][0]["content"]["text"], "Hello, Ada!", "{doc:#}");
    assert_eq!(
        steps["resources/read readme"]["contents"][0]["text"], "This is the static readme of the peer.",
        "{doc:#}"
    );
    assert_eq!(steps["resources/read color"]["contents"][0]["text"], "The color is blue.", "{doc:#}");
    assert_json("completion", &steps["completion/complete prompt"]["completion"]["values"], &json!(["Ada", "Alan"]));
    assert_json("completion", &steps["completion/complete template"]["completion"]["values"], &json!(["green"]));
    let names: Vec<&str> = steps["tools/list"]["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["echo", "add", "squares", "tags", "slow", "fail"], "{doc:#}");
}

#[test]
fn peer_self_check_the_python_server_serves_a_2026_07_28_client_directly() {
    assert_modern_peer(&modern_check(&python_server()), python_info());
}

#[test]
fn peer_self_check_the_typescript_v2_server_serves_a_2026_07_28_client_directly() {
    assert_modern_peer(&modern_check(&ts_v2_server()), ts_v2_info());
}

#[test]
fn peer_self_check_server_everything_answers_server_discover_with_method_not_found() {
    // What the bridge sees from a legacy-only server: the TS SDK 1.x answers
    // -32601 without data, and serves requests before initialize.
    let upstream = everything_server();
    let mut cmd = Command::new(&upstream[0]);
    cmd.args(&upstream[1..]);
    let mut server = Driver::spawn(cmd);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "self-check", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let discover = server.request(json!(1), "server/discover", json!({"_meta": meta}));
    assert_json(
        "server/discover",
        &discover,
        &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}),
    );
}
