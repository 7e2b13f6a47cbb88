//! Real third-party peers over Streamable HTTP (BRIEF.md, "Real peers for
//! tests"): the TypeScript SDK 1.32.2 client of tests/peers/node/client.mjs
//! (VS Code's stand-in, scenario `http`) drives the real bridge with a URL
//! upstream, in front of two independent 2026-07-28 HTTP servers with the
//! same surface: tests/peers/python/http_server.py (PyPI mcp==2.3.0 under
//! uvicorn) and tests/peers/node/http-server-v2.mjs
//! (@modelcontextprotocol/server 2.4.0 behind node:http). Each test compares
//! the exact JSON the bridge wrote ("wire") and checks that the SDK accepted
//! it.
//!
//! Both servers check the headers of the page themselves (Mcp-Method,
//! Mcp-Name, the Mcp-Param-Region of the x-mcp-header tool `region`, with
//! the Base64 sentinel decoded): a header the bridge got wrong fails the
//! call with -32020. The self-checks run the servers WITHOUT the bridge,
//! with the Python SDK's own 2026-07-28 HTTP client, so a broken peer is
//! told apart from a broken bridge.
//!
//! Each test names the rule of ../shared/spec/bridge-translation-rules.txt it
//! checks. `scripts/test` installs the peers and sets `MCP_BRIDGE_PEERS`; a
//! missing peer fails the test. Every run is bounded: the server must listen
//! in 30 s, the driver stops itself after 60 s and is killed after 90 s.

use crate::support::peers::*;
use crate::support::process::{run_bounded, Input};
use crate::support::served::Served;
use crate::support::{assert_json, repo_root};
use serde_json::{json, Value};
use std::process::Command;

/// The icons of the peers: a remote upstream keeps only the data: one.
fn https_icon() -> Value {
    json!({"src": "https://example.com/icon.png", "mimeType": "image/png"})
}

fn data_icon() -> Value {
    json!({"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16"]})
}

/// The Python HTTP peer, listening.
fn python_http() -> Served {
    let mut cmd = Command::new(peers().join("py/bin/python"));
    cmd.arg(repo_root().join("tests/peers/python/http_server.py"));
    Served::start(cmd, false)
}

/// The TypeScript v2 HTTP peer, listening.
fn ts_v2_http() -> Served {
    let adapter = peers().join("node/node_modules/@modelcontextprotocol/node/package.json");
    assert!(adapter.exists(), "the peer file {} is missing: run scripts/install-peers", adapter.display());
    let mut cmd = Command::new(node());
    cmd.arg(repo_root().join("tests/peers/node/http-server-v2.mjs"));
    Served::start(cmd, false)
}

/// The environment of the bridge (the driver passes its own on): a token
/// store of its own (a fresh `XDG_CONFIG_HOME`, never the user's) and no
/// VS Code sandbox.
fn isolated(cmd: &mut Command) -> &mut Command {
    let config = std::env::temp_dir().join(format!("mcp-bridge-http-peers-{}-config", std::process::id()));
    std::fs::create_dir_all(&config).expect("a config folder");
    cmd.env("XDG_CONFIG_HOME", config).env("SANDBOX_RUNTIME", "0")
}

/// Runs a scenario of tests/peers/node/client.mjs against the real bridge
/// with `bridge_args` and the upstream at `url`, and returns its document.
fn drive_url(scenario: &str, bridge_args: &[&str], url: &str) -> Value {
    let mut cmd = driver_command(scenario, bridge_args);
    isolated(&mut cmd).arg(url);
    run_driver(cmd)
}

/// The steps that both peers answer alike, as the bridge must pass them on;
/// `form` is the requestedSchema of the form of `register` as the peer's SDK
/// writes it.
fn assert_common_http_results(doc: &Value, form: Value) {
    // "Result rules": each member as it came, without resultType, ttlMs,
    // cacheScope and the serverInfo _meta.
    assert_json(
        "tools/call echo",
        &accepted(doc, "tools/call echo")["content"],
        &json!([{"type": "text", "text": "hello http"}]),
    );
    // "Custom Headers from Tool Parameters": the server itself checks
    // Mcp-Param-Region against the body; with the sentinel for köln.
    assert_eq!(accepted_text(doc, "tools/call region"), "eu-west1: SELECT 1", "{doc:#}");
    assert_eq!(accepted_text(doc, "tools/call region non-ascii"), "köln: q", "{doc:#}");
    // "Icons of a remote upstream server": the resource links of a tools/call
    // result keep only the data: icons; a link left without icons loses them.
    assert_json(
        "tools/call linked",
        &accepted(doc, "tools/call linked")["content"],
        &json!([
            {"type": "text", "text": "two links"},
            {"type": "resource_link", "uri": "peer://static/readme", "name": "readme", "icons": [data_icon()]},
            {"type": "resource_link", "uri": "live://counter", "name": "counter"}
        ]),
    );
    assert_json(
        "prompts/get greet",
        accepted(doc, "prompts/get greet"),
        &json!({"description": "Greet someone by name.", "messages": [{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}]}),
    );
    assert_json(
        "resources/read readme",
        accepted(doc, "resources/read readme"),
        &json!({"contents": [{"uri": "peer://static/readme", "mimeType": "text/plain", "text": "This is the static readme of the peer."}]}),
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
    // "Progress (M1)": token 0, before the result; "Cancellation (M1)": the
    // canceled call got no response, and the server saw the cancellation
    // (the stream of the request closed).
    assert_eq!(accepted_text(doc, "tools/call slow"), "slept 0.3 s", "{doc:#}");
    let wait = step(doc, "tools/call wait");
    assert_eq!((wait["ok"].clone(), wait["answered"].clone()), (json!(false), json!(false)), "{wait:#}");
    assert_eq!(accepted_text(doc, "tools/call was_cancelled"), "cancelled k1", "{doc:#}");
    // "Input requests (M2)": the form of the MRTR round reaches the client as
    // elicitation/create, and its answer reaches the server.
    assert_eq!(accepted_text(doc, "tools/call register"), "registered Ada", "{doc:#}");
    let questions: Vec<Value> =
        doc["clientRequests"].as_array().into_iter().flatten().map(|q| json!([q["method"], q["params"]])).collect();
    assert_json(
        "the questions of the bridge",
        &json!(questions),
        &json!([["elicitation/create", {"mode": "form", "message": "What is your name?", "requestedSchema": form}]]),
    );
    // "Listen stream (M3)": the new tool is listed after the list change.
    assert_eq!(accepted_text(doc, "tools/call add_tool"), "added extra", "{doc:#}");
    let names: Vec<Value> = accepted(doc, "tools/list after add_tool")["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names.last(), Some(&json!("extra")), "{names:?}");
    assert_eq!(accepted_text(doc, "tools/call extra"), "I am extra", "{doc:#}");
    assert_json("resources/subscribe", accepted(doc, "resources/subscribe"), &json!({}));
    assert_eq!(accepted_text(doc, "tools/call touch"), "touched live://counter", "{doc:#}");
    assert_json("logging/setLevel", accepted(doc, "logging/setLevel"), &json!({}));
    assert_eq!(accepted_text(doc, "tools/call chatty"), "logged", "{doc:#}");
    assert_json("resources/unsubscribe", accepted(doc, "resources/unsubscribe"), &json!({}));

    // Every notification, in order: the progress of slow (token 0), the
    // progress of the canceled wait; then the events after the first
    // acknowledgment came first of all, the list change of add_tool and the
    // update of the subscribed URI; the log messages at or above warning,
    // without the _meta of the server ("Logging (M3)").
    let progress = |i: u32| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": i, "total": 3, "message": format!("step {i} of 3")}});
    let list_changed =
        |list: &str| json!({"jsonrpc": "2.0", "method": format!("notifications/{list}/list_changed"), "params": {}});
    let log = |level: &str| json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "logger": "chatty", "data": format!("{level} line")}});
    let wait_token = doc["sent"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["params"]["name"] == "wait")
        .map(|m| m["params"]["_meta"]["progressToken"].clone())
        .unwrap_or_default();
    let expected = json!([
        list_changed("tools"),
        list_changed("prompts"),
        list_changed("resources"),
        progress(0),
        progress(1),
        progress(2),
        progress(3),
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": wait_token, "progress": 0, "total": 1, "message": "waiting k1"}},
        list_changed("tools"),
        {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "live://counter"}},
        log("warning"),
        log("error"),
    ]);
    assert_json("the notifications", &doc["notifications"], &expected);
    assert_clean_exit(doc);
}

/// "The initialize result" over HTTP, and "Icons of a remote upstream
/// server": serverInfo keeps only the data: icon; the capabilities as the
/// server declared them.
fn assert_initialize(doc: &Value, expected: Value) {
    let init = &doc["initialize"];
    assert_eq!(init["ok"], true, "initialize failed:\n{doc:#}");
    assert_json("initialize result", &init["wire"], &expected);
}

#[test]
fn http_python_mcp_2_3_server_through_the_bridge_gives_the_exact_results() {
    let server = python_http();
    let doc = drive_url("http", &[], &server.url("/mcp"));
    assert_initialize(
        &doc,
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "resources": {"listChanged": true, "subscribe": true}, "completions": {}},
            "serverInfo": {"name": "peer-python-http", "title": "Python HTTP peer (mcp 2.3.0)", "version": "2.3.0-http",
                           "icons": [data_icon()], "description": "The HTTP peer of mcp-bridge.", "websiteUrl": "https://example.com/peer"},
            "instructions": "Test peer of mcp-bridge over HTTP: the Python SDK mcp 2.3.0."
        }),
    );
    // The items of the four lists keep only the data: icons; an item left
    // without icons loses them.
    let tools = &accepted(&doc, "tools/list")["tools"];
    assert_json(
        "tools/list echo",
        &tools[0],
        &json!({"description": "Echo the text back.", "icons": [data_icon()],
        "inputSchema": {"type": "object", "properties": {"text": {"title": "Text", "type": "string"}}, "required": ["text"], "title": "echoArguments"}, "name": "echo"}),
    );
    assert_json(
        "tools/list add",
        &tools[1],
        &json!({"description": "Add two integers.",
        "inputSchema": {"type": "object", "properties": {"a": {"title": "A", "type": "integer"}, "b": {"title": "B", "type": "integer"}}, "required": ["a", "b"], "title": "addArguments"}, "name": "add",
        "outputSchema": {"properties": {"sum": {"title": "Sum", "type": "integer"}}, "required": ["sum"], "title": "Sum", "type": "object"}}),
    );
    assert_json(
        "tools/list region",
        &tools[9],
        &json!({"description": "Run a query in a region.",
        "inputSchema": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}, "query": {"type": "string"}}, "required": ["region", "query"]}, "name": "region"}),
    );
    let names: Vec<Value> = tools.as_array().into_iter().flatten().map(|t| t["name"].clone()).collect();
    assert_eq!(
        names,
        [
            "echo",
            "add",
            "slow",
            "wait",
            "was_cancelled",
            "register",
            "add_tool",
            "touch",
            "chatty",
            "region",
            "linked",
            "fail"
        ],
        "{tools:#}"
    );
    assert_json(
        "prompts/list",
        accepted(&doc, "prompts/list"),
        &json!({"prompts": [
            {"name": "greet", "description": "Greet someone by name.", "arguments": [{"name": "name", "required": true}], "icons": [data_icon()]},
            {"name": "linked", "description": "A message with a resource link.", "arguments": []}
        ]}),
    );
    assert_json(
        "resources/list",
        accepted(&doc, "resources/list"),
        &json!({"resources": [
            {"uri": "peer://static/readme", "name": "readme", "description": "The static readme of the peer.", "mimeType": "text/plain"},
            // MCPServer takes the docstring of the function: none here.
            {"uri": "live://counter", "name": "counter", "description": "", "mimeType": "text/plain", "icons": [data_icon()]}
        ]}),
    );
    assert_json(
        "resources/templates/list",
        accepted(&doc, "resources/templates/list"),
        &json!({"resourceTemplates": [{"name": "color", "uriTemplate": "peer://colors/{color}", "description": "A color by name.", "mimeType": "text/plain", "icons": [data_icon()]}]}),
    );
    assert_json(
        "tools/call add",
        accepted(&doc, "tools/call add"),
        &json!({"content": [{"type": "text", "text": "{\n  \"sum\": 5\n}"}], "isError": false, "structuredContent": {"sum": 5}}),
    );
    // "An error of the upstream server goes to the client with its code, its message and its data."
    assert_json(
        "tools/call fail",
        refused(&doc, "tools/call fail"),
        &json!({"code": -32001, "message": "peer failure", "data": {"peer": "python-http"}}),
    );
    // An HTTP 400 with a JSON-RPC error body is the server's answer, unchanged.
    assert_json(
        "resources/read unknown",
        refused(&doc, "resources/read unknown"),
        &json!({"code": -32602, "message": "Unknown resource: peer://nope", "data": {"uri": "peer://nope"}}),
    );
    assert_json(
        "prompts/get linked",
        accepted(&doc, "prompts/get linked"),
        &json!({"description": "A message with a resource link.", "messages": [{"role": "user", "content": {"type": "resource_link", "uri": "peer://static/readme", "name": "readme", "icons": [data_icon()]}}]}),
    );
    assert_common_http_results(
        &doc,
        json!({"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}),
    );
}

#[test]
fn http_typescript_sdk_v2_server_through_the_bridge_gives_the_exact_results() {
    let server = ts_v2_http();
    let doc = drive_url("http", &[], &server.url("/mcp"));
    assert_initialize(
        &doc,
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"resources": {"listChanged": true, "subscribe": true}, "logging": {}, "tools": {"listChanged": true}, "completions": {}, "prompts": {"listChanged": true}},
            "serverInfo": {"name": "peer-ts-v2-http", "title": "TypeScript v2 HTTP peer (@modelcontextprotocol/server 2.4.0)", "version": "2.4.0-http",
                           "icons": [data_icon()], "description": "The HTTP peer of mcp-bridge.", "websiteUrl": "https://example.com/peer"},
            "instructions": "Test peer of mcp-bridge over HTTP: the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0)."
        }),
    );
    let int = json!({"type": "integer", "minimum": -9007199254740991_i64, "maximum": 9007199254740991_i64});
    let draft = "https://json-schema.org/draft/2020-12/schema";
    let tools = &accepted(&doc, "tools/list")["tools"];
    assert_json(
        "tools/list echo",
        &tools[0],
        &json!({"name": "echo", "description": "Echo the text back.",
        "inputSchema": {"type": "object", "$schema": draft, "properties": {"text": {"type": "string"}}, "required": ["text"]}, "icons": [data_icon()]}),
    );
    assert_json(
        "tools/list add",
        &tools[1],
        &json!({"name": "add", "description": "Add two integers.",
        "inputSchema": {"type": "object", "$schema": draft, "properties": {"a": int, "b": int}, "required": ["a", "b"]},
        "outputSchema": {"$schema": draft, "type": "object", "properties": {"sum": int}, "required": ["sum"], "additionalProperties": false}}),
    );
    assert_json(
        "tools/list region",
        &tools[9],
        &json!({"name": "region", "description": "Run a query in a region.",
        "inputSchema": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}, "query": {"type": "string"}}, "required": ["region", "query"]}}),
    );
    let names: Vec<Value> = tools.as_array().into_iter().flatten().map(|t| t["name"].clone()).collect();
    assert_eq!(
        names,
        [
            "echo",
            "add",
            "slow",
            "wait",
            "was_cancelled",
            "register",
            "add_tool",
            "touch",
            "chatty",
            "region",
            "linked",
            "fail"
        ],
        "{tools:#}"
    );
    assert_json(
        "prompts/list",
        accepted(&doc, "prompts/list"),
        &json!({"prompts": [
            {"name": "greet", "description": "Greet someone by name.", "icons": [data_icon()], "arguments": [{"name": "name", "required": true}]},
            {"name": "linked", "description": "A message with a resource link."}
        ]}),
    );
    assert_json(
        "resources/list",
        accepted(&doc, "resources/list"),
        &json!({"resources": [
            {"name": "readme", "uri": "peer://static/readme", "description": "The static readme of the peer.", "mimeType": "text/plain"},
            {"name": "counter", "uri": "live://counter", "mimeType": "text/plain", "icons": [data_icon()]}
        ]}),
    );
    assert_json(
        "resources/templates/list",
        accepted(&doc, "resources/templates/list"),
        &json!({"resourceTemplates": [{"name": "color", "uriTemplate": "peer://colors/{color}", "description": "A color by name.", "mimeType": "text/plain", "icons": [data_icon()]}]}),
    );
    // The server sends content [] with structuredContent: the "Text mirror".
    assert_json(
        "tools/call add",
        accepted(&doc, "tools/call add"),
        &json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}}),
    );
    // McpServer turns a throwing tool into an isError result; it passes unchanged.
    assert_json(
        "tools/call fail",
        accepted(&doc, "tools/call fail"),
        &json!({"content": [{"type": "text", "text": "peer failure"}], "isError": true}),
    );
    assert_json(
        "resources/read unknown",
        refused(&doc, "resources/read unknown"),
        &json!({"code": -32602, "message": "Resource not found: peer://nope", "data": {"uri": "peer://nope"}}),
    );
    assert_json(
        "prompts/get linked",
        accepted(&doc, "prompts/get linked"),
        &json!({"messages": [{"role": "user", "content": {"type": "resource_link", "uri": "peer://static/readme", "name": "readme", "icons": [data_icon()]}}]}),
    );
    assert_common_http_results(
        &doc,
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "$schema": "https://json-schema.org/draft/2020-12/schema"}),
    );
}

/// `check <URL>` against a real server at a path and a query that stand for
/// keys: the TS v2 peer serves only its own path, so the bridge must post to
/// the URL as given; the report and the log never show the path or the query.
#[test]
fn check_against_the_typescript_v2_http_peer_at_a_secret_path_shows_neither_path_nor_query() {
    let mut cmd = Command::new(node());
    cmd.arg(repo_root().join("tests/peers/node/http-server-v2.mjs")).args(["--path", "/mcp/key-in-path-3b7c"]);
    let server = Served::start(cmd, false);
    let mut bridge_cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    isolated(&mut bridge_cmd).arg("check").arg(server.url("/mcp/key-in-path-3b7c?token=key-in-query-9d1e"));
    let done = run_bounded(bridge_cmd, Input::Closed, DRIVER_LIMIT);
    assert_eq!(done.status.code(), Some(0), "{}\n{}", done.stdout, done.stderr);
    for expected in [
        "Server: TypeScript v2 HTTP peer (@modelcontextprotocol/server 2.4.0) (peer-ts-v2-http 2.4.0-http)",
        "tools/list: 12 item(s)",
        "VS Code can use this server.",
    ] {
        assert!(done.stdout.contains(expected), "the report lacks {expected:?}:\n{}", done.stdout);
    }
    for secret in ["key-in-path-3b7c", "key-in-query-9d1e"] {
        assert!(
            !done.stdout.contains(secret) && !done.stderr.contains(secret),
            "{secret}:\n{}\n{}",
            done.stdout,
            done.stderr
        );
    }
}

// --- Self-checks of the peers, without the bridge ---------------------------------

fn assert_modern_http_peer(doc: &Value, name: &str) {
    // mode="auto" sends server/discover; a fallback to initialize would give 2025-11-25.
    assert_eq!(doc["protocolVersion"], "2026-07-28", "{doc:#}");
    assert_eq!(doc["serverInfo"]["name"], name, "{doc:#}");
    assert_json("the serverInfo icons", &doc["serverInfo"]["icons"], &json!([https_icon(), data_icon()]));
    let steps = &doc["steps"];
    let text = |step: &str| steps[step]["content"][0]["text"].clone();
    assert_eq!(text("tools/call echo"), "hello peer", "{doc:#}");
    assert_json("add", &steps["tools/call add"]["structuredContent"], &json!({"sum": 5}));
    assert_eq!(steps["prompts/get greet"]["messages"][0]["content"]["text"], "Hello, Ada!", "{doc:#}");
    assert_eq!(steps["resources/read color"]["contents"][0]["text"], "The color is blue.", "{doc:#}");
    assert_json("completion", &steps["completion/complete prompt"]["completion"]["values"], &json!(["Ada", "Alan"]));
    // The SDK's own client sends Mcp-Param-Region; the server accepts it.
    assert_eq!(text("tools/call region"), "eu-west1: q", "{doc:#}");
    assert_eq!(text("tools/call slow"), "slept 0.2 s", "{doc:#}");
    assert_json(
        "progress",
        &doc["progress"],
        &json!([[0.0, 2.0, "step 0 of 2"], [1.0, 2.0, "step 1 of 2"], [2.0, 2.0, "step 2 of 2"]]),
    );
    assert_eq!(text("tools/call register"), "registered Ada", "{doc:#}");
    assert_eq!(text("tools/call chatty"), "logged", "{doc:#}");
    assert_json(
        "logs",
        &doc["logs"],
        &json!([{"level": "warning", "logger": "chatty", "data": "warning line"}, {"level": "error", "logger": "chatty", "data": "error line"}]),
    );
}

#[test]
fn peer_self_check_the_python_http_server_serves_the_sdk_http_client_directly() {
    let server = python_http();
    assert_modern_http_peer(&modern_check_url(&server.url("/mcp")), "peer-python-http");
}

#[test]
fn peer_self_check_the_typescript_v2_http_server_serves_the_sdk_http_client_directly() {
    let server = ts_v2_http();
    assert_modern_http_peer(&modern_check_url(&server.url("/mcp")), "peer-ts-v2-http");
}
