//! Clients of 2026-07-28 at /mcp (docs/decisions.md, "The HTTP face",
//! "Clients of 2026-07-28"; the transport page of 2026-07-28): a POST
//! without a session whose request has the 2026-07-28 `_meta` (or is
//! `server/discover`) is relayed to the upstream as it came, over one
//! upstream connection that all such clients share, and its result goes
//! back untranslated with the client's id. A response first is the whole
//! answer, as JSON; progress first opens an SSE stream, whose close cancels
//! the request upstream. The header checks are in `modern_checks`.

use super::*;
use crate::support::driver::STEP as DRIVER_STEP;
use crate::support::fake::{fake_upstream, Record};
use crate::support::http::{receive, send_only, send_only_from, STEP};
use crate::support::process::read_lines;
use crate::support::{assert_json, bridge_error, message};
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::process::{Command, Stdio};

/// The revision of the upstream and of these clients.
pub(super) const REVISION: &str = "2026-07-28";

/// The `_meta` of a request of `revision`: the revision and the client's
/// capabilities, which every 2026-07-28 request carries.
pub(super) fn meta(revision: &str) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": revision, "io.modelcontextprotocol/clientCapabilities": {}})
}

/// A request of a 2026-07-28 client: `params` with the `_meta` of the
/// revision added to its own `_meta`.
pub(super) fn modern(id: Value, method: &str, mut params: Value) -> Value {
    let mut full = meta(REVISION);
    if let (Some(full), Some(own)) = (full.as_object_mut(), params["_meta"].as_object()) {
        full.extend(own.clone());
    }
    params["_meta"] = full;
    request(id, method, params)
}

/// The POST of `message` as a 2026-07-28 client sends it: its revision in
/// `MCP-Protocol-Version`, its method in `Mcp-Method`, and the name of a
/// `tools/call` or `prompts/get` (the uri of a `resources/read`) in
/// `Mcp-Name`.
pub(super) fn post(message: &Value) -> Req {
    let method = message["method"].as_str().unwrap_or_default();
    let req = Req::post(message).header("MCP-Protocol-Version", REVISION).header("Mcp-Method", method);
    let name = match method {
        "tools/call" | "prompts/get" => message["params"]["name"].as_str(),
        "resources/read" => message["params"]["uri"].as_str(),
        _ => None,
    };
    match name {
        Some(name) => req.header("Mcp-Name", name),
        None => req,
    }
}

/// A whole answer as JSON: `status`, `application/json`, and the body.
#[track_caller]
pub(super) fn json_answer(reply: &Reply, status: u16) -> Value {
    assert_eq!((reply.status, reply.header("content-type")), (status, Some("application/json")), "{reply}");
    reply.json()
}

/// The answers of the demo server itself over stdio to `messages`, one a
/// line, each within the driver's step: what the face must relay as it is.
#[track_caller]
fn demo_itself(messages: &[Value]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .arg("demo-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the demo server starts");
    let lines = read_lines(child.stdout.take().expect("stdout is piped"));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut answers = Vec::new();
    for message in messages {
        writeln!(stdin, "{message}").expect("a line to the demo");
        let line = match lines.recv_timeout(DRIVER_STEP) {
            Ok(line) => line,
            Err(e) => {
                let _ = child.kill();
                panic!("no answer of the demo to {message} in {DRIVER_STEP:?}: {e}")
            }
        };
        answers.push(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")));
    }
    let _ = child.kill();
    let _ = child.wait();
    answers
}

/// The upstream request that the face relayed for a call of `tool`.
#[track_caller]
fn relayed(record: &Record, tool: &str) -> Value {
    record.request("tools/call", |params| params["name"] == tool)
}

/// `server/discover` gets JSON (200): the upstream's result as the fake
/// wrote it, untranslated (no initialize result of an older revision),
/// with the client's id. The upstream got the request with the client's
/// own params. The demo's discover through the face is what the demo
/// itself answers.
#[test]
fn discover_is_the_upstreams_result_with_the_clients_id() {
    let record = Record::new("modern-discover");
    let face = Face::start(&[], &fake_upstream(&["--record", record.arg()]));
    let discover = modern(json!("d-1"), "server/discover", json!({}));
    let expected = json!({"jsonrpc": "2.0", "id": "d-1", "result": {"resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}, "prompts": {}, "resources": {}, "completions": {}, "logging": {}},
        "instructions": "fake instructions", "ttlMs": 1000, "cacheScope": "public",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake-upstream", "version": "0.0.1"}}}});
    assert_json("discover", &json_answer(&face.send(post(&discover)), 200), &expected);
    let upstream = record.request("server/discover", |_| true);
    assert_json("the upstream's params", &upstream["params"], &discover["params"]);
    drop(face);
    let face = Face::start(&[], &demo());
    let discover = modern(json!(41), "server/discover", json!({}));
    let itself = demo_itself(std::slice::from_ref(&discover));
    assert_json("the demo's discover", &json_answer(&face.send(post(&discover)), 200), &itself[0]);
}

/// tools/list and a call whose first event is their response get it as
/// JSON (200), exactly as the demo itself answers: the result of
/// 2026-07-28 (`resultType`, a structured result without a text mirror).
#[test]
fn a_response_first_is_the_whole_answer_as_json() {
    let face = Face::start(&[], &demo());
    let list = modern(json!(1), "tools/list", json!({}));
    let add = modern(json!("add-2"), "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
    let itself = demo_itself(&[list.clone(), add.clone()]);
    assert_json("tools/list", &json_answer(&face.send(post(&list)), 200), &itself[0]);
    let expected = json!({"jsonrpc": "2.0", "id": "add-2", "result": {"resultType": "complete",
        "content": [], "structuredContent": {"sum": 5}, "isError": false}});
    assert_json("the demo's add", &itself[1], &expected);
    assert_json("add", &json_answer(&face.send(post(&add)), 200), &expected);
}

/// A call with a progress token whose first event is progress gets an
/// SSE stream: each progress with the client's own token, then the
/// response, then the end of the stream.
#[test]
fn progress_first_opens_a_stream_with_the_clients_token() {
    let face = Face::start(&[], &demo());
    let params = json!({"name": "slow_count", "arguments": {"steps": 2, "delay_ms": 10},
        "_meta": {"progressToken": "client-token"}});
    let mut events = sse(face.send(post(&modern(json!(5), "tools/call", params))));
    for step in [1.0, 2.0] {
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
            "progressToken": "client-token", "progress": step, "total": 2.0, "message": format!("step {step} of 2")}});
        assert_json("progress", &events.message(), &progress);
    }
    let response = json!({"jsonrpc": "2.0", "id": 5, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": "counted to 2"}], "isError": false}});
    assert_json("the response", &events.message(), &response);
    events.assert_end();
}

/// An `InputRequiredResult` goes back untranslated (no elicitation of an
/// older revision), with the client's id; the client's retry with its
/// `inputResponses` completes.
#[test]
fn an_input_required_result_goes_back_as_it_is_and_the_retry_completes() {
    let face = Face::start(&[], &demo());
    let ask = modern(json!("ask-1"), "tools/call", json!({"name": "ask_name", "arguments": {}}));
    let expected = json!({"jsonrpc": "2.0", "id": "ask-1", "result": {"resultType": "input_required",
        "inputRequests": {"name": {"method": "elicitation/create", "params": {"mode": "form",
            "message": "What is your name?", "requestedSchema": {"type": "object",
                "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}}}}}});
    assert_json("the input request", &json_answer(&face.send(post(&ask)), 200), &expected);
    let answers = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    let retry =
        modern(json!("ask-2"), "tools/call", json!({"name": "ask_name", "arguments": {}, "inputResponses": answers}));
    let done = json!({"jsonrpc": "2.0", "id": "ask-2", "result": {"resultType": "complete",
        "content": [{"type": "text", "text": "Hello, Ada!"}], "isError": false}});
    assert_json("the retry", &json_answer(&face.send(post(&retry)), 200), &done);
}

/// A client that closes its connection cancels its request upstream (the
/// transport's own signal): a call that stalls (the fake's script tool, a
/// step 30 s late) before its first event, and a call whose SSE stream is
/// open (the fake's flood of progress until a cancel). Each time the fake
/// gets notifications/cancelled for the upstream request, which carried
/// the client's params (the progress token the upstream request's own).
#[test]
fn closing_the_connection_of_a_call_cancels_it_upstream() {
    let record = Record::new("modern-cancel");
    let face = Face::start(&[], &fake_upstream(&["--record", record.arg()]));
    let params = json!({"name": "script", "arguments": {"steps": [{"after_ms": 30000, "then": "echo"}]}});
    let stalled = modern(json!("stalled"), "tools/call", params);
    let connection = send_only(face.port, &[post(&stalled).header("Host", &face.host())]);
    let upstream = relayed(&record, "script");
    assert_json("the relayed call", &upstream["params"], &stalled["params"]);
    drop(connection);
    let cancel = record.cancel_of(&upstream["id"]);
    assert_eq!(cancel, json!({"requestId": upstream["id"], "reason": "the client canceled the request"}));
    let flood = modern(
        json!(7),
        "tools/call",
        json!({"name": "flood", "arguments": {"count": 1_000_000, "kinds": ["progress"], "until_cancel": true},
            "_meta": {"progressToken": "mine"}}),
    );
    let mut events = sse(face.send(post(&flood)));
    let first = events.message();
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": "mine", "progress": 1, "total": 1_000_000}});
    assert_json("the first progress", &first, &progress);
    let upstream = relayed(&record, "flood");
    assert_ne!(upstream["params"]["_meta"]["progressToken"], "mine", "{upstream}");
    drop(events);
    let canceled = || record.cancels().iter().any(|c| c["params"]["requestId"] == upstream["id"]);
    assert!(eventually(STEP, canceled), "no notifications/cancelled for {upstream} in {STEP:?}");
}

/// `subscriptions/listen` is relayed event by event: first the
/// acknowledgment with the client's id as its subscription id, then the
/// list change that a call of `add_tool` makes, each with that id.
#[test]
fn subscriptions_listen_is_relayed_with_the_clients_id() {
    let face = Face::start(&[], &demo());
    let listen = modern(json!("sub-1"), "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let mut events = sse(face.send(post(&listen)));
    let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {
        "notifications": {"toolsListChanged": true}, "_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"}}});
    assert_json("the acknowledgment", &events.message(), &ack);
    let add_tool = modern(json!(2), "tools/call", json!({"name": "add_tool", "arguments": {}}));
    let added = json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": "added the tool extra"}], "isError": false}});
    assert_json("add_tool", &json_answer(&face.send(post(&add_tool)), 200), &added);
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"}}});
    assert_json("the list change", &events.message(), &changed);
}

/// "Each client's address holds at most 64 of the shared connection's 256
/// places": 64 calls of 127.0.0.1 that stall upstream (the fake's stall)
/// hold its share; the 65th gets -32603 too_many_requests at once, as JSON
/// with its id. Another loopback address (127.0.0.2) is the same machine,
/// so it is refused too (a process may pick any 127.x.y.z); once one of
/// the 64 goes away, the loopback is served again. The face cannot tell
/// two clients behind one address apart, and a test has only the
/// loopback: other hosts are in the unit test of `face::pool`.
#[test]
fn one_client_address_holds_at_most_64_places() {
    let record = Record::new("modern-share");
    let face = Face::start(&[], &fake_upstream(&["--record", record.arg()]));
    let host = face.host();
    let stall = |id: u64| post(&modern(json!(id), "tools/call", json!({"name": "stall", "arguments": {}})));
    let mut held: Vec<TcpStream> =
        (1..=64).map(|id| send_only(face.port, &[stall(id).header("Host", &host)])).collect();
    record.wait_calls(64);
    let refused = json!({"jsonrpc": "2.0", "id": 65,
        "error": bridge_error(-32603, &message("too_many_requests"), "too_many_requests", None)});
    assert_json("the 65th", &json_answer(&face.send(stall(65)), 200), &refused);
    let list = |id: u64| post(&modern(json!(id), "tools/list", json!({}))).header("Host", &host);
    let listed = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "method": "tools/list",
            "params": {"_meta": meta(REVISION)}}})
    };
    let other = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
    let refused = json!({"jsonrpc": "2.0", "id": 66,
        "error": bridge_error(-32603, &message("too_many_requests"), "too_many_requests", None)});
    let reply = receive(send_only_from(other, face.port, &[list(66)]), &list(66));
    assert_json("another loopback address", &json_answer(&reply, 200), &refused);
    drop(held.pop());
    let mut last = None;
    let again = eventually(STEP, || {
        let reply = face.send(list(67));
        let served = reply.status == 200 && reply.json() == listed(67);
        last = Some(reply);
        served
    });
    assert!(again, "127.0.0.1 was not served after one of its calls ended: {last:?}");
}
