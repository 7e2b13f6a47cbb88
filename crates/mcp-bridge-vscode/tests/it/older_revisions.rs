//! Clients of the older revisions (docs/decisions.md, "Revisions of the
//! client"), against the real binary: what each revision can carry of a
//! result and of a question, the capabilities the upstream server sees,
//! the batches of 2025-03-26, the notes of converted blocks, the shape of
//! an input request, and the embedded mode's lines that rmcp cannot read.
//! Each test names the rule it checks; the scripted fake upstream
//! (tests/fake/upstream.py) or the bundled demo server stands upstream.

mod batches;
mod embedded;
mod notes;
mod sampling;
mod shapes;
mod structured;

use crate::support::driver::Driver;
use crate::support::fake::{fake_upstream, input_required};
use crate::support::schemas;
use serde_json::{json, Value};

/// Initializes `bridge` as a client of `revision` that declares
/// `capabilities`; the revision negotiated is the client's.
#[track_caller]
fn initialize_as(bridge: &mut Driver, revision: &str, capabilities: Value) {
    let params = json!({"protocolVersion": revision, "capabilities": capabilities,
        "clientInfo": {"name": "older", "version": "1"}});
    let init = bridge.request(json!("init"), "initialize", params);
    assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

/// The bridge in front of `upstream`, initialized by a client of
/// `revision` that declares `capabilities`.
#[track_caller]
fn client_of(revision: &str, capabilities: Value, upstream: &[String]) -> Driver {
    let mut bridge = Driver::start(&[], upstream);
    initialize_as(&mut bridge, revision, capabilities);
    bridge
}

/// [`client_of`] in front of the scripted fake with `options`.
#[track_caller]
fn fake_client(revision: &str, capabilities: Value, options: &[&str]) -> Driver {
    client_of(revision, capabilities, &fake_upstream(options))
}

/// The params of a call of the fake's `result` tool, which answers
/// `result` (a 2026-07-28 result) as it is.
fn answers(result: Value) -> Value {
    json!({"name": "result", "arguments": {"result": result}})
}

/// The params of a call of the fake's `script` tool, whose first round
/// asks `requests` and whose second answers the answers it got.
fn asks(requests: Value) -> Value {
    json!({"name": "script", "arguments": {"steps": [input_required(requests)]}})
}

/// The next message, which must be the response to `id`: a question (or
/// anything else) before it fails the test.
#[track_caller]
fn next_response(bridge: &mut Driver, id: &Value) -> Value {
    let message = bridge.recv();
    assert!(message.get("method").is_none(), "a message before the response to {id}: {message}");
    assert_eq!(&message["id"], id, "{message}");
    message
}

/// The number of stderr lines that contain `text`.
fn lines_with(stderr: &str, text: &str) -> usize {
    stderr.lines().filter(|line| line.contains(text)).count()
}

/// The warning of a result whose content is not an array, which every
/// revision's full path logs before the response goes.
const SENTINEL: &str = "the content of the result is not an array; the bridge replaced it with []";

/// The bridge's stderr with every line of the requests answered so far:
/// a last call's warning, [`SENTINEL`], is logged after their notes and
/// before its own response, and the log keeps the order of its lines
/// (log/pipe.rs), so once the warning is there, so is every line before
/// it. Once per bridge.
#[track_caller]
fn log_so_far(bridge: &mut Driver) -> String {
    let sentinel = json!({"resultType": "complete", "content": "not an array"});
    let response = bridge.call(json!("sentinel"), "tools/call", answers(sentinel));
    assert_eq!(response["result"], json!({"content": []}), "{response}");
    bridge.wait_stderr(SENTINEL, 1);
    let stderr = bridge.stderr_text();
    assert_eq!(lines_with(&stderr, SENTINEL), 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// `value` is a valid `definition` of `revision` (strictly, for the
/// revisions before 2025-11-25: `support::schemas`).
#[track_caller]
fn valid(revision: &str, definition: &str, value: &Value) {
    if let Err(why) = schemas::check(revision, definition, value) {
        panic!("{why}");
    }
}

/// A request or notification of the bridge as the older schemas define
/// it: without the members they leave to JSON-RPC.
fn without_envelope(message: &Value) -> Value {
    let mut whole = message.clone();
    whole.as_object_mut().map(|o| (o.shift_remove("jsonrpc"), o.shift_remove("id")));
    whole
}
