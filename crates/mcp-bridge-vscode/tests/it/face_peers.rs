//! The HTTP face (`mcp-bridge-vscode --listen`, issue "An HTTP face") with
//! real clients over HTTP in front of the real 2026-07-28 peers: the
//! TypeScript SDK 1.32.2 client of tests/peers/node/client-http.mjs over
//! Streamable HTTP (/mcp) and over HTTP+SSE (/sse), and the Python
//! `mcp==2.3.0` client of tests/peers/python/http_client.py in its legacy
//! mode over Streamable HTTP, through the face to the bundled demo server,
//! the Python servers of tests/peers/python (server.py, input_server.py,
//! live_server.py, and http_server.py as a URL upstream) and the
//! TypeScript SDK v2 servers (server-v2.mjs, input-server-v2.mjs).
//!
//! Each session of the face is a client of the behaviour spec, as a stdio
//! client is: the tests assert the exact results, the progress in its order
//! before its response, the questions of the input requests and their
//! answers, the list changes, the resource updates and the log messages,
//! and the HTTP exchanges of the transport (docs/decisions.md, "The HTTP
//! face"). Each test names the rule it checks.
//!
//! Every wait is bounded: the face's ready line 30 s, a client 90 s (its
//! own watchdog 60 s), the exit after SIGTERM 15 s; the drop of a face
//! kills its process group.

mod run;
mod upstreams;

use crate::support::peers::{accepted, refused, run_driver};
use crate::support::{assert_json, bridge_error, message};
use run::{assert_progress, assert_python_session, assert_session, client, client_command, names, python_client};
use run::{list_changed, older_client, progress, token_of, Face, Kind};
use serde_json::{json, Value};

fn demo() -> Vec<String> {
    vec![env!("CARGO_BIN_EXE_mcp-bridge-vscode").to_string(), "demo-server".to_string()]
}

fn demo_info() -> Value {
    json!({"name": "mcp-bridge-demo", "title": "mcp-bridge demo server", "version": env!("CARGO_PKG_VERSION")})
}

/// The tools of the demo server, in its order.
const DEMO_TOOLS: [&str; 6] = ["add", "tag_items", "list_primes", "slow_count", "ask_name", "add_tool"];

/// The form of `ask_name`, as the client's handler received it.
fn name_form() -> Value {
    json!({"mode": "form", "message": "What is your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}})
}

/// The scenario `demo` of client-http.mjs, whose form handler answered
/// `name`, as the face must give it on either transport:
/// - "The initialize result": the revision of the client, the demo's
///   capabilities, serverInfo and instructions from discover;
/// - "Result rules" and the "Text mirror": `add` gets `{"sum":5}` as text;
/// - "Progress (M1)": the three steps of `slow_count` with the SDK's
///   token, in order, before the result;
/// - "Input requests (M2)": the form of `ask_name` reaches the client as
///   `elicitation/create`, and its answer reaches the server;
/// - "Listen stream (M3)": the list change after the first acknowledgment,
///   and the one `add_tool` causes, after which `extra` is listed.
#[track_caller]
fn assert_demo(doc: &Value, kind: Kind, name: &str) {
    assert_session(doc, kind);
    assert_json(
        "initialize result",
        &doc["initialize"]["wire"],
        &json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "prompts": {}, "resources": {}, "completions": {}},
            "serverInfo": demo_info(),
            "instructions": "A demo server of revision 2026-07-28 that ships with mcp-bridge. Try `add`, `list_primes`, \
                `slow_count`, `ask_name` and `add_tool`; `tag_items` shows the schema repairs."
        }),
    );
    assert_eq!(names(accepted(doc, "tools/list")), DEMO_TOOLS, "{doc:#}");
    assert_json(
        "tools/call add",
        accepted(doc, "tools/call add"),
        &json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}, "isError": false}),
    );
    assert_json(
        "tools/call slow_count",
        accepted(doc, "tools/call slow_count"),
        &json!({"content": [{"type": "text", "text": "counted to 3"}], "isError": false}),
    );
    let steps: Vec<Value> =
        (1..=3).map(|i| json!({"progress": i, "total": 3, "message": format!("step {i} of 3")})).collect();
    assert_progress(doc, kind, "tools/call slow_count", &steps);
    assert_json(
        "tools/call ask_name",
        accepted(doc, "tools/call ask_name"),
        &json!({"content": [{"type": "text", "text": format!("Hello, {name}!")}], "isError": false}),
    );
    assert_json("the questions", &doc["questions"], &json!([{"method": "elicitation/create", "params": name_form()}]));
    assert_json(
        "tools/call add_tool",
        accepted(doc, "tools/call add_tool"),
        &json!({"content": [{"type": "text", "text": "added the tool extra"}], "isError": false}),
    );
    let mut after = DEMO_TOOLS.to_vec();
    after.push("extra");
    assert_eq!(names(accepted(doc, "tools/list after add_tool")), after, "{doc:#}");
    assert_json(
        "tools/call extra",
        accepted(doc, "tools/call extra"),
        &json!({"content": [{"type": "text", "text": "the extra tool ran"}], "isError": false}),
    );
    // "Lifecycle": ping gets {} from the bridge itself.
    assert_json("ping", accepted(doc, "ping"), &json!({}));
    let token = token_of(doc, "slow_count");
    let mut expected = vec![list_changed("tools")];
    expected.extend(steps.iter().map(|p| progress(&token, p)));
    expected.push(list_changed("tools"));
    assert_json("the notifications", &doc["notifications"], &json!(expected));
}

/// The demo through the face over Streamable HTTP: the results, progress,
/// the form and the list changes of [`assert_demo`], each request on its
/// own SSE stream and the list changes on the session's GET stream
/// (docs/decisions.md, "Responses", "The session's stream"); then
/// "Ready and gone": SIGTERM, exit 0.
#[test]
fn the_demo_through_the_face_over_streamable_http_gives_results_progress_a_form_and_list_changes() {
    let face = Face::command(&demo());
    assert_demo(&client(&face, Kind::Streamable, "demo"), Kind::Streamable, "Ada");
    face.stop();
}

/// The same session over HTTP+SSE (/sse, the endpoint event, every answer
/// on the one stream): the same values as over Streamable HTTP.
#[test]
fn the_demo_through_the_face_over_http_sse_gives_results_progress_a_form_and_list_changes() {
    let face = Face::command(&demo());
    assert_demo(&client(&face, Kind::Sse, "demo"), Kind::Sse, "Ada");
    face.stop();
}

/// The Python `mcp==2.3.0` client in its legacy mode (initialize of
/// 2025-11-25) over Streamable HTTP: a session, the demo's tools, and
/// `add` with the "Text mirror" ({"sum":5}).
#[test]
fn the_python_2025_client_calls_add_on_the_demo_through_the_face() {
    let face = Face::command(&demo());
    let doc = python_client(&face);
    assert_python_session(
        &doc,
        demo_info(),
        &DEMO_TOOLS,
        json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}, "isError": false}),
        &["tools"],
    );
    face.stop();
}

/// Two clients at once on one face with `--child-per-session`
/// (docs/decisions.md, "One upstream for every session": a server that
/// keeps state per client): a Streamable HTTP client whose form answers
/// "Ada" and an HTTP+SSE client whose form answers "Grace" run the demo
/// scenario while both sessions are open. Each gets its own session id,
/// its own form and greeting, its own progress (both with the same
/// token), and only its own upstream's list changes, though both use the
/// same request ids.
#[test]
fn two_clients_at_once_on_one_face_each_get_their_own_answers() {
    let face = Face::command_per_session(&demo());
    let meeting = std::env::temp_dir().join(format!("mcp-bridge-face-pair-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&meeting);
    std::fs::create_dir_all(&meeting).expect("a folder for the two clients");
    let pair = |me: &str, other: &str| format!("{}:{me}:{other}", meeting.display());
    let (a, b) = (pair("a", "b"), pair("b", "a"));
    let ada = client_command(&face, Kind::Streamable, "demo", &["--name", "Ada", "--pair", &a]);
    let grace = client_command(&face, Kind::Sse, "demo", &["--name", "Grace", "--pair", &b]);
    let (ada, grace) = std::thread::scope(|scope| {
        let ada = scope.spawn(|| run_driver(ada));
        let grace = scope.spawn(|| run_driver(grace));
        (ada.join(), grace.join())
    });
    let _ = std::fs::remove_dir_all(&meeting);
    let (ada, grace) = (ada.expect("the Streamable HTTP client"), grace.expect("the HTTP+SSE client"));
    assert_demo(&ada, Kind::Streamable, "Ada");
    assert_demo(&grace, Kind::Sse, "Grace");
    assert_ne!(ada["sessionId"], grace["sessionId"], "two clients share a session");
    assert_eq!(token_of(&ada, "slow_count"), token_of(&grace, "slow_count"), "the same token in both sessions");
    face.stop();
}

/// Requests at once in one session (docs/decisions.md, "Responses": a
/// stream per request on /mcp; on /sse the one stream): two `slow_count`
/// with progress, `ask_name` with its form and `add`, all in flight
/// together. "Progress (M1)": each call gets exactly its own progress, in
/// order, before its own response; "Input requests (M2)": the one form is
/// asked and its answer reaches its call; each result is its own.
#[test]
fn requests_at_once_in_one_session_each_get_their_own_progress_form_and_result() {
    let face = Face::command(&demo());
    for kind in [Kind::Streamable, Kind::Sse] {
        let doc = client(&face, kind, "concurrent");
        assert_session(&doc, kind);
        let counted =
            |n: u32| json!({"content": [{"type": "text", "text": format!("counted to {n}")}], "isError": false});
        let steps = |n: u32| -> Vec<Value> {
            (1..=n).map(|i| json!({"progress": i, "total": n, "message": format!("step {i} of {n}")})).collect()
        };
        assert_json("slow_count a", accepted(&doc, "tools/call slow_count a"), &counted(3));
        assert_progress(&doc, kind, "tools/call slow_count a", &steps(3));
        assert_json("slow_count b", accepted(&doc, "tools/call slow_count b"), &counted(4));
        assert_progress(&doc, kind, "tools/call slow_count b", &steps(4));
        assert_json(
            "ask_name",
            accepted(&doc, "tools/call ask_name"),
            &json!({"content": [{"type": "text", "text": "Hello, Ada!"}], "isError": false}),
        );
        assert_json(
            "the questions",
            &doc["questions"],
            &json!([{"method": "elicitation/create", "params": name_form()}]),
        );
        assert_json(
            "add",
            accepted(&doc, "tools/call add"),
            &json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}, "isError": false}),
        );
        // The list change of the gap, and the 7 progress of the steps above: nothing else.
        let came = doc["notifications"].as_array().cloned().unwrap_or_default();
        assert_eq!(came.first(), Some(&list_changed("tools")), "{came:#?}");
        assert_eq!(came.len(), 1 + 3 + 4, "{came:#?}");
    }
    face.stop();
}

/// A client of the first revision of each transport: 2024-11-05 over
/// HTTP+SSE and 2025-03-26 over Streamable HTTP. The session is of the
/// revision the client asked for, and the rules of that revision apply
/// ("The initialize result", the revision tables): no `title`, no
/// `structuredContent` (2025-06-18), no progress `message` at 2024-11-05,
/// no `completions` at 2024-11-05; a form, which neither revision can
/// ask, fails with `undeclared_input_request`; the list changes come.
#[test]
fn a_client_of_the_first_revision_of_each_transport_gets_a_session_of_its_revision() {
    for (kind, revision) in [(Kind::Sse, "2024-11-05"), (Kind::Streamable, "2025-03-26")] {
        // A face each: the demo's `add_tool` changes its one child's list.
        let face = Face::command(&demo());
        let doc = older_client(&face, kind, "demo", revision);
        assert_session(&doc, kind);
        let mut capabilities = json!({"tools": {"listChanged": true}, "prompts": {}, "resources": {}});
        if revision != "2024-11-05" {
            capabilities["completions"] = json!({});
        }
        assert_json(
            "initialize result",
            &doc["initialize"]["wire"],
            &json!({
                "protocolVersion": revision,
                "capabilities": capabilities,
                "serverInfo": {"name": "mcp-bridge-demo", "version": env!("CARGO_PKG_VERSION")},
                "instructions": "A demo server of revision 2026-07-28 that ships with mcp-bridge. Try `add`, `list_primes`, \
                    `slow_count`, `ask_name` and `add_tool`; `tag_items` shows the schema repairs."
            }),
        );
        assert_eq!(names(accepted(&doc, "tools/list")), DEMO_TOOLS, "{doc:#}");
        assert_json(
            "tools/call add",
            accepted(&doc, "tools/call add"),
            &json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "isError": false}),
        );
        let steps: Vec<Value> = (1..=3)
            .map(|i| match revision {
                "2024-11-05" => json!({"progress": i, "total": 3}),
                _ => json!({"progress": i, "total": 3, "message": format!("step {i} of 3")}),
            })
            .collect();
        assert_progress(&doc, kind, "tools/call slow_count", &steps);
        assert_json(
            "tools/call ask_name",
            refused(&doc, "tools/call ask_name"),
            &bridge_error(
                -32603,
                &message("undeclared_input_request"),
                "undeclared_input_request",
                Some("input request 'name': the client did not declare elicitation.form"),
            ),
        );
        assert_json("the questions", &doc["questions"], &json!([]));
        let mut after = DEMO_TOOLS.to_vec();
        after.push("extra");
        assert_eq!(names(accepted(&doc, "tools/list after add_tool")), after, "{doc:#}");
        let token = token_of(&doc, "slow_count");
        let mut expected = vec![list_changed("tools")];
        expected.extend(steps.iter().map(|p| progress(&token, p)));
        expected.push(list_changed("tools"));
        assert_json("the notifications", &doc["notifications"], &json!(expected));
        face.stop();
    }
}
