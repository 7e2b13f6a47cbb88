//! The face in front of the pinned 2026-07-28 peers of tests/peers: the
//! Python `mcp==2.3.0` servers (server.py, input_server.py, live_server.py
//! over stdio; http_server.py as a URL upstream) and the TypeScript SDK v2
//! servers (server-v2.mjs, input-server-v2.mjs), each with the TypeScript
//! SDK 1.32.2 client over both transports and, where it has `add`, the
//! Python client over Streamable HTTP.

use super::run::{assert_progress, assert_python_session, assert_session, client, gap, names, python_client};
use super::run::{list_changed, progress, token_of, Face, Kind};
use crate::support::assert_json;
use crate::support::peers::{accepted, node, peers, python_server, refused, ts_v2_server};
use crate::support::repo_root;
use crate::support::served::Served;
use serde_json::{json, Value};
use std::process::Command;

fn python_info() -> Value {
    json!({"name": "peer-python", "title": "Python peer (mcp 2.3.0)", "version": "1.2.3"})
}

fn ts_v2_info() -> Value {
    json!({"name": "peer-ts-v2", "title": "TypeScript v2 peer (@modelcontextprotocol/server 2.4.0)", "version": "4.5.6"})
}

/// The tools of server.py and server-v2.mjs, in their order.
const BASIC_TOOLS: [&str; 6] = ["echo", "add", "squares", "tags", "slow", "fail"];

/// A peer of tests/peers/python run with the venv of the peers.
fn python_peer(file: &str) -> Vec<String> {
    vec![
        peers().join("py/bin/python").display().to_string(),
        repo_root().join("tests/peers/python").join(file).display().to_string(),
    ]
}

/// The progress of `slow` with 3 steps: (0, 3) at once, then one a step.
fn slow_steps() -> Vec<Value> {
    (0..=3).map(|i| json!({"progress": i, "total": 3, "message": format!("step {i} of 3")})).collect()
}

/// The scenario `basic` of client-http.mjs through the face: the results
/// both peers give alike ("Result rules": each member as it came, without
/// the members of 2026-07-28), "Progress (M1)" of `slow` with the SDK's
/// token before its result, "Listen stream (M3)": the three list changes
/// after the first acknowledgment, and nothing else.
#[track_caller]
fn assert_basic(doc: &Value, kind: Kind, initialize: Value) {
    assert_session(doc, kind);
    assert_json("initialize result", &doc["initialize"]["wire"], &initialize);
    assert_eq!(names(accepted(doc, "tools/list")), BASIC_TOOLS, "{doc:#}");
    assert_progress(doc, kind, "tools/call slow", &slow_steps());
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
        "completion/complete prompt",
        accepted(doc, "completion/complete prompt"),
        &json!({"completion": {"values": ["Ada", "Alan"], "total": 2, "hasMore": false}}),
    );
    assert_json("ping", accepted(doc, "ping"), &json!({}));
    assert_json("the questions", &doc["questions"], &json!([]));
    let token = token_of(doc, "slow");
    let mut expected = gap();
    expected.extend(slow_steps().iter().map(|p| progress(&token, p)));
    assert_json("the notifications", &doc["notifications"], &json!(expected));
}

/// server.py's own results: `isError` always; the SDK's pretty text of
/// `add` (the "Text mirror" adds none); an error of a tool is a JSON-RPC
/// error with its code, message and data.
#[track_caller]
fn assert_python_basic(doc: &Value, kind: Kind) {
    assert_basic(
        doc,
        kind,
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "resources": {"listChanged": true, "subscribe": true}, "completions": {}},
            "serverInfo": python_info(),
            "instructions": "Test peer of mcp-bridge: the Python SDK mcp 2.3.0."
        }),
    );
    let text = |t: &str| json!({"content": [{"type": "text", "text": t}], "isError": false});
    assert_json("tools/call echo", accepted(doc, "tools/call echo"), &text("hello face"));
    assert_json(
        "tools/call add",
        accepted(doc, "tools/call add"),
        &json!({"content": [{"type": "text", "text": "{\n  \"sum\": 5\n}"}], "isError": false, "structuredContent": {"sum": 5}}),
    );
    assert_json("tools/call slow", accepted(doc, "tools/call slow"), &text("slept 0.2 s"));
    assert_json(
        "tools/call fail",
        refused(doc, "tools/call fail"),
        &json!({"code": -32001, "message": "peer failure", "data": {"peer": "python"}}),
    );
}

/// server-v2.mjs's own results: no `isError` unless true; `add` with
/// `content: []` gets the "Text mirror"; a throwing tool is an isError
/// result.
#[track_caller]
fn assert_ts_v2_basic(doc: &Value, kind: Kind) {
    assert_basic(
        doc,
        kind,
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "resources": {"listChanged": true}, "completions": {}},
            "serverInfo": ts_v2_info(),
            "instructions": "Test peer of mcp-bridge: the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0)."
        }),
    );
    let text = |t: &str| json!({"content": [{"type": "text", "text": t}]});
    assert_json("tools/call echo", accepted(doc, "tools/call echo"), &text("hello face"));
    assert_json(
        "tools/call add",
        accepted(doc, "tools/call add"),
        &json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}}),
    );
    assert_json("tools/call slow", accepted(doc, "tools/call slow"), &text("slept 0.2 s"));
    assert_json(
        "tools/call fail",
        accepted(doc, "tools/call fail"),
        &json!({"content": [{"type": "text", "text": "peer failure"}], "isError": true}),
    );
}

/// The Python server through the face, one session on each transport
/// after the other, then SIGTERM: [`assert_python_basic`].
#[test]
fn the_python_server_through_the_face_on_both_transports_gives_the_exact_results() {
    let face = Face::command(&python_server());
    assert_python_basic(&client(&face, Kind::Streamable, "basic"), Kind::Streamable);
    assert_python_basic(&client(&face, Kind::Sse, "basic"), Kind::Sse);
    face.stop();
}

/// The TypeScript SDK v2 server through the face on both transports:
/// [`assert_ts_v2_basic`].
#[test]
fn the_typescript_v2_server_through_the_face_on_both_transports_gives_the_exact_results() {
    let face = Face::command(&ts_v2_server());
    assert_ts_v2_basic(&client(&face, Kind::Streamable, "basic"), Kind::Streamable);
    assert_ts_v2_basic(&client(&face, Kind::Sse, "basic"), Kind::Sse);
    face.stop();
}

/// The Python client (legacy mode, Streamable HTTP) through the face to
/// each stdio peer with `add`: its own text (Python) or the "Text mirror"
/// (TypeScript v2), as the SDK parsed them.
#[test]
fn the_python_2025_client_calls_add_on_the_python_and_typescript_servers_through_the_face() {
    let face = Face::command(&python_server());
    let doc = python_client(&face);
    let add = json!({"content": [{"type": "text", "text": "{\n  \"sum\": 5\n}"}], "structuredContent": {"sum": 5}, "isError": false});
    assert_python_session(&doc, python_info(), &BASIC_TOOLS, add, &["tools", "prompts", "resources"]);
    face.stop();
    let face = Face::command(&ts_v2_server());
    let doc = python_client(&face);
    let add = json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}});
    assert_python_session(&doc, ts_v2_info(), &BASIC_TOOLS, add, &["tools", "prompts", "resources"]);
    face.stop();
}

/// "Input requests (M2)" through the face: the Python server's form,
/// sampling and roots (`Resolve` with `Elicit`, `Sample`, `ListRoots`)
/// reach the client's handlers as `elicitation/create`,
/// `sampling/createMessage` and `roots/list` on the request's stream (on
/// /sse, the one stream), and their answers reach the server: the form's
/// name, the model's text, the one file:// root.
#[test]
fn input_requests_of_the_python_server_reach_the_client_through_the_face_and_its_answers_come_back() {
    let face = Face::command(&python_peer("input_server.py"));
    for kind in [Kind::Streamable, Kind::Sse] {
        let doc = client(&face, kind, "input");
        assert_session(&doc, kind);
        assert_eq!(names(accepted(&doc, "tools/list")), ["register", "summarize", "roots"], "{doc:#}");
        let text = |t: &str| json!({"content": [{"type": "text", "text": t}], "isError": false, "structuredContent": {"result": t}});
        assert_json("register", accepted(&doc, "tools/call register"), &text("registered Ada"));
        assert_json("summarize", accepted(&doc, "tools/call summarize"), &text("model said: hi from the model"));
        assert_json("roots", accepted(&doc, "tools/call roots"), &text("file:///work/project"));
        assert_json(
            "the questions",
            &doc["questions"],
            &json!([
                {"method": "elicitation/create", "params": {"mode": "form", "message": "What is your name?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}}},
                {"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}], "maxTokens": 20}},
                {"method": "roots/list", "params": {}}
            ]),
        );
        assert_json("the notifications", &doc["notifications"], &json!(gap()));
    }
    face.stop();
}

/// "Input requests (M2)" with the TypeScript SDK v2 server
/// (`inputRequired.elicit`): the form reaches the client on both
/// transports and the accepted name reaches the server.
#[test]
fn a_form_of_the_typescript_v2_server_reaches_the_client_through_the_face_and_its_answer_comes_back() {
    let face = Face::command(&[node(), repo_root().join("tests/peers/node/input-server-v2.mjs").display().to_string()]);
    for kind in [Kind::Streamable, Kind::Sse] {
        let doc = client(&face, kind, "input");
        assert_session(&doc, kind);
        assert_eq!(names(accepted(&doc, "tools/list")), ["register"], "{doc:#}");
        assert_json(
            "register",
            accepted(&doc, "tools/call register"),
            &json!({"content": [{"type": "text", "text": "registered Ada"}]}),
        );
        assert_json(
            "the questions",
            &doc["questions"],
            &json!([{"method": "elicitation/create", "params": {"mode": "form", "message": "What is your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}]),
        );
        assert_json("the notifications", &doc["notifications"], &json!([list_changed("tools")]));
    }
    face.stop();
}

/// "Listen stream (M3)" and "Logging (M3)" through the face, with
/// live_server.py: the list change of `add_tool` (on /mcp, on the
/// session's GET stream), after which `extra` is listed; the log messages
/// at or above `warning` after logging/setLevel (on the stream of
/// `chatty`); the update of the subscribed resource; in this order.
#[test]
fn list_changes_log_messages_and_a_resource_update_of_the_python_server_reach_the_client_through_the_face() {
    let face = Face::command(&python_peer("live_server.py"));
    for kind in [Kind::Streamable, Kind::Sse] {
        let doc = client(&face, kind, "live");
        assert_session(&doc, kind);
        assert_json(
            "initialize result",
            &doc["initialize"]["wire"],
            &json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "resources": {"listChanged": true, "subscribe": true}},
                "serverInfo": {"name": "peer-python-live", "version": "1.0.0"}
            }),
        );
        let text = |t: &str| json!({"content": [{"type": "text", "text": t}], "isError": false});
        assert_json("add_tool", accepted(&doc, "tools/call add_tool"), &text("added extra"));
        assert_eq!(names(accepted(&doc, "tools/list after add_tool")), ["add_tool", "touch", "chatty", "extra"]);
        assert_json("extra", accepted(&doc, "tools/call extra"), &text("I am extra"));
        assert_json("setLevel", accepted(&doc, "logging/setLevel"), &json!({}));
        assert_json("chatty", accepted(&doc, "tools/call chatty"), &text("logged"));
        assert_json("subscribe", accepted(&doc, "resources/subscribe"), &json!({}));
        assert_json("touch", accepted(&doc, "tools/call touch"), &text("touched live://counter"));
        assert_json("unsubscribe", accepted(&doc, "resources/unsubscribe"), &json!({}));
        let log = |level: &str| json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "logger": "chatty", "data": format!("{level} line")}});
        let mut expected = gap();
        expected.extend([
            list_changed("tools"),
            log("warning"),
            log("error"),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "live://counter"}}),
        ]);
        assert_json("the notifications", &doc["notifications"], &json!(expected));
    }
    face.stop();
}

/// The Python HTTP peer, listening.
fn python_http() -> Served {
    let mut cmd = Command::new(peers().join("py/bin/python"));
    cmd.arg(repo_root().join("tests/peers/python/http_server.py"));
    Served::start(cmd, false)
}

/// The tools of http_server.py, in its order.
const HTTP_TOOLS: [&str; 12] = [
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
    "fail",
];

/// The face with a URL upstream (docs/decisions.md, "One upstream
/// connection per session": an HTTP client per session), in front of
/// http_server.py, scenario `http`: "The initialize result" with "Icons
/// of a remote upstream server" (only the data: icon), the pretty text of
/// `add`, the progress of `slow`, a canceled `wait` that the server saw
/// canceled, the form of `register`, the list change of `add_tool` and the
/// update of a subscribed resource, each as exact values, on each
/// transport.
#[track_caller]
fn assert_url_session(doc: &Value, kind: Kind) {
    assert_session(doc, kind);
    assert_json(
        "initialize result",
        &doc["initialize"]["wire"],
        &json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "prompts": {"listChanged": true}, "resources": {"listChanged": true, "subscribe": true}, "completions": {}},
            "serverInfo": {"name": "peer-python-http", "title": "Python HTTP peer (mcp 2.3.0)", "version": "2.3.0-http",
                "icons": [{"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16"]}],
                "description": "The HTTP peer of mcp-bridge.", "websiteUrl": "https://example.com/peer"},
            "instructions": "Test peer of mcp-bridge over HTTP: the Python SDK mcp 2.3.0."
        }),
    );
    let text = |t: &str| json!({"content": [{"type": "text", "text": t}], "isError": false});
    assert_json(
        "tools/call add",
        accepted(doc, "tools/call add"),
        &json!({"content": [{"type": "text", "text": "{\n  \"sum\": 5\n}"}], "isError": false, "structuredContent": {"sum": 5}}),
    );
    assert_json("tools/call slow", accepted(doc, "tools/call slow"), &text("slept 0.2 s"));
    assert_progress(doc, kind, "tools/call slow", &slow_steps());
    // "Cancellation (M1)": the SDK cancels `wait` at its one progress; it
    // gets no response, and the server saw the cancellation.
    let wait = &doc["steps"]["tools/call wait"];
    assert_eq!((&wait["ok"], &wait["answered"]), (&json!(false), &json!(false)), "{wait:#}");
    let waiting = json!({"progress": 0, "total": 1, "message": "waiting k1"});
    assert_json("the progress of wait", &wait["progress"], &json!([waiting]));
    assert_json("tools/call was_cancelled", accepted(doc, "tools/call was_cancelled"), &text("cancelled k1"));
    assert_json("tools/call register", accepted(doc, "tools/call register"), &text("registered Ada"));
    assert_json(
        "the questions",
        &doc["questions"],
        &json!([{"method": "elicitation/create", "params": {"mode": "form", "message": "What is your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}}}]),
    );
    assert_json("tools/call add_tool", accepted(doc, "tools/call add_tool"), &text("added extra"));
    let mut after = HTTP_TOOLS.to_vec();
    after.push("extra");
    assert_eq!(names(accepted(doc, "tools/list after add_tool")), after, "{doc:#}");
    assert_json("tools/call extra", accepted(doc, "tools/call extra"), &text("I am extra"));
    assert_json("resources/subscribe", accepted(doc, "resources/subscribe"), &json!({}));
    assert_json("tools/call touch", accepted(doc, "tools/call touch"), &text("touched live://counter"));
    assert_json("resources/unsubscribe", accepted(doc, "resources/unsubscribe"), &json!({}));
    let token = token_of(doc, "slow");
    let mut expected = gap();
    expected.extend(slow_steps().iter().map(|p| progress(&token, p)));
    expected.push(progress(&token_of(doc, "wait"), &waiting));
    expected.push(list_changed("tools"));
    expected.push(
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "live://counter"}}),
    );
    assert_json("the notifications", &doc["notifications"], &json!(expected));
}

/// The URL upstream over Streamable HTTP: [`assert_url_session`]; then the
/// Python client's session on the same face: `add` with its own text.
#[test]
fn a_url_upstream_through_the_face_over_streamable_http_and_the_python_client() {
    let server = python_http();
    let face = Face::url(&server.url("/mcp"));
    assert_url_session(&client(&face, Kind::Streamable, "http"), Kind::Streamable);
    let doc = python_client(&face);
    let add = json!({"content": [{"type": "text", "text": "{\n  \"sum\": 5\n}"}], "structuredContent": {"sum": 5}, "isError": false});
    let mut tools = HTTP_TOOLS.to_vec();
    // The server keeps the tool that the first session added.
    tools.push("extra");
    let info = json!({"name": "peer-python-http", "title": "Python HTTP peer (mcp 2.3.0)", "version": "2.3.0-http",
        "icons": [{"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16"]}],
        "description": "The HTTP peer of mcp-bridge.", "websiteUrl": "https://example.com/peer"});
    assert_python_session(&doc, info, &tools, add, &["tools", "prompts", "resources"]);
    face.stop();
}

/// The URL upstream over HTTP+SSE: [`assert_url_session`].
#[test]
fn a_url_upstream_through_the_face_over_http_sse() {
    let server = python_http();
    let face = Face::url(&server.url("/mcp"));
    assert_url_session(&client(&face, Kind::Sse, "http"), Kind::Sse);
    face.stop();
}
