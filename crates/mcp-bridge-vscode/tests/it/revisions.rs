//! Every client in its own revision (issue "Every MCP client"): a client
//! that asks for 2024-11-05, 2025-03-26, 2025-06-18 or 2025-11-25 in
//! `initialize` gets that revision, and every line it gets is valid under
//! that revision's schema, strictly for the older ones (no member the
//! revision lacks: `support::schemas`). The scripted upstream sends every
//! kind of result, list item, content block, notification and input
//! request that the bridge knows, with the members of the newest
//! revisions. A few lines of each revision are pinned as golden fixtures
//! (tests/it/revisions/<revision>.jsonl; `UPDATE_FIXTURES=1` rewrites them).
//!
//! The child modules: `content` (every kind of content block in each
//! revision), `questions` (every kind of input request), `demo` (every
//! tool of the bundled demo server, through the bridge and in the
//! embedded mode), over `client` (a client of one revision that checks
//! every line both ways).

mod client;
mod content;
mod demo;
mod questions;

use crate::support::driver::{call_tool, Driver};
use crate::support::fake::{fake_upstream, input_required};
use crate::support::schemas::{self, REVISIONS};
use crate::support::{bridge_error, message};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;

const ICONS: &str = r#"[{"src": "data:image/png;base64,AA", "mimeType": "image/png"}]"#;

/// The upstream: a 2026-07-28 server with the members of every revision.
fn upstream() -> Vec<String> {
    let icons: Value = serde_json::from_str(ICONS).unwrap_or_default();
    let tools = json!({"tools": [
        {"name": "add", "title": "Add", "description": "Adds two numbers",
         "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
         "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}},
         "annotations": {"title": "Add", "readOnlyHint": true}, "icons": icons, "execution": {"taskSupport": "optional"}},
        {"name": "plain", "inputSchema": {"type": "object"}}
    ]});
    let capabilities = json!({"tools": {"listChanged": true}, "prompts": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true}, "completions": {}, "logging": {}});
    let info = json!({"name": "rich", "title": "Rich", "version": "1.0", "icons": icons,
        "description": "A server of every member", "websiteUrl": "https://example.com"});
    let prompts = json!({"prompts": [{"name": "p", "title": "P", "description": "d", "icons": icons,
        "arguments": [{"name": "x", "title": "X", "description": "dx", "required": true}]}]});
    let prompt = json!({"description": "d", "messages": [
        {"role": "user", "content": {"type": "resource_link", "uri": "file:///a.txt", "name": "a", "title": "A", "icons": icons}},
        {"role": "assistant", "content": {"type": "audio", "data": "AA", "mimeType": "audio/wav"}},
        {"role": "user", "content": {"type": "text", "text": "t", "annotations": {"audience": ["user"], "lastModified": "2025-01-01T00:00:00Z"}}},
        {"role": "user", "content": {"type": "image", "data": "AA", "mimeType": "image/png"}},
        {"role": "user", "content": {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "AAE="}}}
    ]});
    let resources = json!({"resources": [{"uri": "file:///a.txt", "name": "a", "title": "A", "icons": icons,
        "mimeType": "text/plain", "size": 2, "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"}}]});
    let templates =
        json!({"resourceTemplates": [{"uriTemplate": "file:///{x}", "name": "t", "title": "T", "icons": icons}]});
    let read = json!({"contents": [{"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hi"}]});
    let complete = json!({"completion": {"values": ["a"], "total": 1, "hasMore": false}});
    let answers = [
        ("prompts/list", prompts),
        ("prompts/get", prompt),
        ("resources/list", resources),
        ("resources/templates/list", templates),
        ("resources/read", read),
        ("completion/complete", complete),
    ];
    let mut options: Vec<String> = vec![
        "--tools-list".into(),
        tools.to_string(),
        "--capabilities".into(),
        capabilities.to_string(),
        "--server-info".into(),
        info.to_string(),
    ];
    for (method, result) in answers {
        options.push("--answer".into());
        options.push(format!("{method}={result}"));
    }
    let refs: Vec<&str> = options.iter().map(String::as_str).collect();
    fake_upstream(&refs)
}

/// A call result with every kind of content block (an embedded resource
/// with a text and one with a blob) and structured output.
fn rich_call() -> Value {
    let icons: Value = serde_json::from_str(ICONS).unwrap_or_default();
    json!({"content": [
        {"type": "text", "text": "{\"sum\":5}"},
        {"type": "image", "data": "AA", "mimeType": "image/png"},
        {"type": "audio", "data": "AA", "mimeType": "audio/wav", "annotations": {"priority": 1, "lastModified": "2025-01-01T00:00:00Z"}},
        {"type": "resource_link", "uri": "file:///a.txt", "name": "a", "title": "A", "icons": icons},
        {"type": "resource", "resource": {"uri": "file:///b.txt", "mimeType": "text/plain", "text": "b"}},
        {"type": "resource", "resource": {"uri": "file:///c.bin", "mimeType": "application/octet-stream", "blob": "AAE="},
         "annotations": {"audience": ["assistant"], "lastModified": "2025-01-01T00:00:00Z"}}
    ], "structuredContent": {"sum": 5}, "isError": false})
}

/// A form of 2025-11-25: a default, a titled single-select.
fn rich_form() -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Who?", "requestedSchema": {
        "type": "object", "properties": {
            "name": {"type": "string", "title": "Name", "default": "Ada"},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}], "default": "s"},
            "ok": {"type": "boolean", "default": true}
        }, "required": ["name"]}}})
}

fn sampling() -> Value {
    json!({"method": "sampling/createMessage", "params": {"maxTokens": 5,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}})
}

/// The definition of the schema that a line of the bridge must match:
/// by the method of a request, of a notification, or of the request that
/// a response answers.
fn definition(message: &Value, asked: &HashMap<String, String>) -> String {
    if let Some(method) = message.get("method").and_then(Value::as_str) {
        let name = match method {
            "notifications/progress" => "ProgressNotification",
            "notifications/message" => "LoggingMessageNotification",
            "notifications/cancelled" => "CancelledNotification",
            "notifications/elicitation/complete" => "ElicitationCompleteNotification",
            "notifications/tools/list_changed" => "ToolListChangedNotification",
            "notifications/prompts/list_changed" => "PromptListChangedNotification",
            "notifications/resources/list_changed" => "ResourceListChangedNotification",
            "notifications/resources/updated" => "ResourceUpdatedNotification",
            "elicitation/create" => "ElicitRequest",
            "sampling/createMessage" => "CreateMessageRequest",
            "roots/list" => "ListRootsRequest",
            other => panic!("the client got a message of {other}: {message}"),
        };
        return name.into();
    }
    if message.get("error").is_some() {
        return "JSONRPCError".into();
    }
    let id = message["id"].to_string();
    let name = match asked.get(&id).map(String::as_str) {
        Some("initialize") => "InitializeResult",
        Some("tools/list") => "ListToolsResult",
        Some("tools/call") => "CallToolResult",
        Some("prompts/list") => "ListPromptsResult",
        Some("prompts/get") => "GetPromptResult",
        Some("resources/list") => "ListResourcesResult",
        Some("resources/templates/list") => "ListResourceTemplatesResult",
        Some("resources/read") => "ReadResourceResult",
        Some("completion/complete") => "CompleteResult",
        Some("logging/setLevel") => "EmptyResult",
        other => panic!("a response to {other:?}: {message}"),
    };
    name.into()
}

/// Checks one line of the bridge against `revision`: a result by its own
/// definition, a notification or a request whole (without the envelope
/// members that the older schemas leave to JSON-RPC).
#[track_caller]
fn check_line(revision: &str, message: &Value, asked: &HashMap<String, String>) {
    let name = definition(message, asked);
    let value = match message.get("result") {
        Some(result) if message.get("method").is_none() => result.clone(),
        _ => {
            let mut whole = message.clone();
            if revision != "2025-11-25" && name != "JSONRPCError" {
                whole.as_object_mut().map(|o| (o.shift_remove("jsonrpc"), o.shift_remove("id")));
            }
            whole
        }
    };
    if let Err(why) = schemas::check(revision, &name, &value) {
        panic!("{why}");
    }
}

/// One session of a client of `revision`: every request, every question
/// answered; returns each line the client got, with its text, and the
/// methods of the requests by id.
fn session(revision: &str) -> (Vec<(Value, String)>, HashMap<String, String>) {
    let mut bridge = Driver::start(&[], &upstream());
    let mut asked: HashMap<String, String> = HashMap::new();
    let mut lines = Vec::new();
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": revision, "capabilities": caps, "clientInfo": {"name": "old", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/list"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "p", "arguments": {"x": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "resources/templates/list"}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "file:///a.txt"}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "completion/complete",
            "params": {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "x", "value": ""}}}),
        call_tool(json!(9), "result", json!({"result": rich_call()})),
        json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call",
            "params": {"name": "progress", "arguments": {"count": 2}, "_meta": {"progressToken": "t"}}}),
        call_tool(json!(11), "log", json!({"level": "info", "data": "hello"})),
        call_tool(json!(12), "script", json!({"steps": [input_required(json!({"who": rich_form()}))]})),
        call_tool(json!(13), "script", json!({"steps": [input_required(json!({"llm": sampling()}))]})),
    ];
    for request in requests {
        let id = request["id"].clone();
        asked.insert(id.to_string(), request["method"].as_str().unwrap_or("").to_owned());
        bridge.send(&request);
        if id == json!(0) {
            // The client's next requests wait for the initialize result.
            let text = bridge.recv_text();
            lines.push((serde_json::from_str(&text).unwrap_or_default(), text));
            bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            continue;
        }
        loop {
            let text = bridge.recv_text();
            let message: Value = serde_json::from_str(&text).unwrap_or_default();
            lines.push((message.clone(), text));
            match message.get("method").and_then(Value::as_str) {
                Some("elicitation/create") => bridge.send(&json!({"jsonrpc": "2.0", "id": message["id"],
                    "result": {"action": "accept", "content": {"name": "Ada", "size": "l", "ok": true}}})),
                Some("sampling/createMessage") => bridge.send(&json!({"jsonrpc": "2.0", "id": message["id"],
                    "result": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}})),
                _ if message.get("id") == Some(&id) => break,
                _ => {}
            }
        }
    }
    (lines, asked)
}

/// "Answer each client in its revision", "Send only what that revision
/// defines": each line of each session is valid under the client's
/// revision, and the revision of the initialize result is the client's.
#[test]
fn every_line_a_client_gets_is_valid_under_its_own_revision() {
    for revision in REVISIONS {
        let (lines, asked) = session(revision);
        assert_eq!(lines[0].0["result"]["protocolVersion"], revision, "{}", lines[0].1);
        for (message, _) in &lines {
            check_line(revision, message, &asked);
        }
        pinned(revision, &lines);
    }
}

/// What the older revisions cannot carry: a form before 2025-06-18 is
/// undeclared (the client cannot have declared elicitation), and so is
/// a URL step before 2025-11-25; a 2025-06-18 client gets the form in its
/// revision's terms and its answer goes to the server.
#[test]
fn a_question_the_revision_cannot_carry_is_undeclared_and_a_form_is_rewritten() {
    for revision in ["2024-11-05", "2025-03-26"] {
        let (lines, _) = session(revision);
        let call = lines.iter().find(|(m, _)| m["id"] == 12).map(|(m, _)| m.clone()).unwrap_or_default();
        let detail = "input request 'who': the client did not declare elicitation.form";
        assert_eq!(
            call["error"],
            bridge_error(-32603, &message("undeclared_input_request"), "undeclared_input_request", Some(detail)),
            "{revision}"
        );
    }
    let (lines, _) = session("2025-06-18");
    let question = lines.iter().find(|(m, _)| m["method"] == "elicitation/create").map(|(m, _)| m["params"].clone());
    assert_eq!(
        question,
        Some(json!({"message": "Who?", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "title": "Name"},
            "size": {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]},
            "ok": {"type": "boolean", "default": true}
        }, "required": ["name"]}}))
    );
    let answer = lines.iter().find(|(m, _)| m["id"] == 12).map(|(m, _)| m["result"]["content"][0]["text"].clone());
    let echoed = answer.and_then(|t| serde_json::from_str::<Value>(t.as_str().unwrap_or("")).ok());
    assert_eq!(echoed, Some(json!({"who": {"action": "accept", "content": {"name": "Ada", "size": "l", "ok": true}}})));
    let mut bridge = Driver::start(&[], &upstream());
    bridge.send_request(
        json!(0),
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {"url": {}}}, "clientInfo": {"name": "o", "version": "1"}}),
    );
    assert_eq!(bridge.recv()["result"]["protocolVersion"], "2025-06-18");
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let url = json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://example.com"}});
    let call = bridge.request(
        json!(1),
        "tools/call",
        json!({"name": "script", "arguments": {"steps": [input_required(json!({"u": url}))]}}),
    );
    assert_eq!(
        call["error"]["data"],
        json!({"cause": "undeclared_input_request", "detail": "input request 'u': the client did not declare elicitation.url"})
    );
}

/// A revision the bridge does not serve gets the profile's, 2025-11-25,
/// as the MCP lifecycle says a server answers.
#[test]
fn a_revision_the_bridge_does_not_serve_gets_2025_11_25() {
    for asked in ["2026-07-28", "2024-10-07", "draft"] {
        let mut bridge = Driver::start(&[], &upstream());
        bridge.send_request(
            json!(0),
            "initialize",
            json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        );
        assert_eq!(bridge.recv()["result"]["protocolVersion"], "2025-11-25", "{asked}");
    }
}

/// The schemas of tests/schemas are the spec's, when the spec is beside
/// the clone (CI has it; the published package does not need it).
#[test]
fn the_schemas_are_the_specs() {
    let spec = crate::support::repo_root().join("../shared/spec");
    if !spec.is_dir() {
        return;
    }
    for revision in REVISIONS {
        let folder = if revision == "2025-11-25" { spec.join(revision) } else { spec.join("older").join(revision) };
        let original = std::fs::read_to_string(folder.join("schema.json")).unwrap_or_default();
        assert!(original == schemas::schema_text(revision), "tests/schemas/{revision}.json is not the spec's");
    }
}

// --- The golden lines --------------------------------------------------------

/// The lines pinned for each revision: the initialize result, the lists of
/// tools and prompts, the call with every content block, the prompt.
const PINNED: [u64; 5] = [0, 2, 3, 4, 9];

fn golden(revision: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/revisions").join(format!("{revision}.jsonl"))
}

#[track_caller]
fn pinned(revision: &str, lines: &[(Value, String)]) {
    let got: Vec<&str> = PINNED
        .iter()
        .filter_map(|id| lines.iter().find(|(m, _)| m["id"] == *id && m.get("method").is_none()))
        .map(|(_, text)| text.as_str())
        .collect();
    let text = got.join("\n") + "\n";
    let path = golden(revision);
    if std::env::var_os("UPDATE_FIXTURES").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(text == want, "{revision}: the pinned lines differ\n--- expected\n{want}--- got\n{text}");
}
