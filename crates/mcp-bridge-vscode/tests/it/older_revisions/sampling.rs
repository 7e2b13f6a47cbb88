//! Sampling for the older revisions: the capabilities the upstream server
//! sees (`sampling.tools` and `sampling.context` only from 2025-11-25), the
//! input requests that need them, and the blocks of a question as the
//! client's revision has them.

use super::{asks, fake_client, next_response, valid, without_envelope};
use crate::support::fake::Record;
use crate::support::{assert_json, bridge_error, message};
use serde_json::{json, Value};

/// The `_meta` key that carries the client's capabilities upstream.
const CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// A sampling request with `tools`.
fn with_tools() -> Value {
    json!({"method": "sampling/createMessage", "params": {"maxTokens": 5,
        "messages": [{"role": "user", "content": {"type": "text", "text": "add 2 and 2"}}],
        "tools": [{"name": "add", "inputSchema": {"type": "object"}}]}})
}

/// A sampling request with a `tool_use` block and its `tool_result`, one
/// block per message (as every older revision can carry).
fn with_tool_blocks() -> Value {
    json!({"method": "sampling/createMessage", "params": {"maxTokens": 5, "messages": [
        {"role": "user", "content": {"type": "text", "text": "add 2 and 2"}},
        {"role": "assistant", "content": {"type": "tool_use", "id": "u1", "name": "add", "input": {"a": 2, "b": 2}}},
        {"role": "user", "content": {"type": "tool_result", "toolUseId": "u1",
            "content": [{"type": "text", "text": "4"}]}}
    ]}})
}

/// The client capabilities of every request that reached the upstream
/// with them (at least the calls of the test).
#[track_caller]
fn upstream_capabilities(record: &Record, calls: usize) -> Vec<Value> {
    record.wait(calls, "calls", |m| m["method"] == "tools/call");
    let seen: Vec<Value> = record
        .messages()
        .iter()
        .filter_map(|m| m.pointer("/params/_meta").and_then(|meta| meta.get(CAPABILITIES)).cloned())
        .collect();
    assert!(seen.len() >= calls, "{seen:?}");
    seen
}

/// The capabilities that a 2025-06-18 client declares beyond its revision.
fn beyond_2025_06_18() -> Value {
    json!({"sampling": {"tools": {}, "context": {}}})
}

/// Rule: "the client's capabilities reach the upstream server only as its
/// revision can declare them (... `sampling.tools` and `sampling.context`
/// from 2025-11-25)" (decisions.md, "Revisions of the client",
/// "Questions"): a 2025-06-18 client that declares them anyway is seen
/// upstream with `sampling` alone, on each request.
#[test]
fn sampling_tools_is_not_declared_upstream_for_a_2025_06_18_client() {
    let record = Record::new("sampling-tools");
    let mut bridge = fake_client("2025-06-18", beyond_2025_06_18(), &["--record", record.arg()]);
    let response = bridge.call(json!(1), "tools/call", json!({"name": "stray", "arguments": {}}));
    assert_json("the call", &response["result"], &json!({"content": []}));
    for capabilities in upstream_capabilities(&record, 1) {
        assert_json("what the upstream saw", &capabilities, &json!({"sampling": {}}));
    }
}

/// Rule: "...: a sampling request with tools or `tool_use`/`tool_result`
/// blocks for an older client too" is undeclared (decisions.md, "Revisions
/// of the client", "Questions"; behaviour spec, "Checks before the client
/// gets a question": "sampling with tools needs sampling.tools"): a
/// 2025-06-18 client that declares `sampling.tools` anyway gets -32603
/// `undeclared_input_request` for a sampling request with `tools`, and no
/// question.
#[test]
fn a_sampling_request_with_tools_is_undeclared_for_a_2025_06_18_client() {
    undeclared_for_2025_06_18(with_tools());
}

/// Rule: the same for a sampling request with `tool_use` and `tool_result`
/// blocks (and no `tools`).
#[test]
fn a_sampling_request_with_tool_blocks_is_undeclared_for_a_2025_06_18_client() {
    undeclared_for_2025_06_18(with_tool_blocks());
}

#[track_caller]
fn undeclared_for_2025_06_18(request: Value) {
    let mut bridge = fake_client("2025-06-18", beyond_2025_06_18(), &[]);
    let detail = "input request 'llm': sampling with tools needs sampling.tools, and the client did not declare it";
    let want = bridge_error(-32603, &message("undeclared_input_request"), "undeclared_input_request", Some(detail));
    bridge.send_request(json!(1), "tools/call", asks(json!({"llm": request})));
    let response = next_response(&mut bridge, &json!(1));
    assert_json("the call", &response["error"], &want);
    bridge.assert_alive();
    assert!(bridge.seen.iter().all(|m| m.get("method").is_none()), "a question reached the client: {:?}", bridge.seen);
}

/// Rule: the same ("from 2025-11-25") for a 2025-11-25 client, which can
/// declare them: the upstream sees `sampling.tools` and `sampling.context`,
/// and the sampling request with tools reaches the client as it is.
#[test]
fn a_2025_11_25_client_keeps_sampling_tools_upstream() {
    let record = Record::new("sampling-tools-latest");
    let declared = json!({"sampling": {"tools": {}, "context": {}}});
    let mut bridge = fake_client("2025-11-25", declared.clone(), &["--record", record.arg()]);
    bridge.send_request(json!(1), "tools/call", asks(json!({"llm": with_tools()})));
    let question = bridge.recv();
    assert_eq!(question["method"], "sampling/createMessage", "{question}");
    assert_json("the question", &question["params"], &with_tools()["params"]);
    for capabilities in upstream_capabilities(&record, 1) {
        assert_json("what the upstream saw", &capabilities, &declared);
    }
}

/// A sampling question of one text block with every annotation.
fn annotated() -> Value {
    json!({"method": "sampling/createMessage", "params": {"maxTokens": 5, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "hi",
            "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"}}
    ]}]}})
}

/// Rule: "Only what the revision defines: ... `annotations.lastModified`
/// of a sampling question's blocks" (decisions.md, "Revisions of the
/// client"): the question that reaches a 2025-03-26 or
/// 2024-11-05 client has no `lastModified` and is a valid
/// `CreateMessageRequest` of its revision; a 2025-06-18 client keeps it.
#[test]
fn a_sampling_question_has_no_last_modified_before_2025_06_18() {
    for (revision, annotations) in [
        ("2024-11-05", json!({"audience": ["user"], "priority": 0.5})),
        ("2025-03-26", json!({"audience": ["user"], "priority": 0.5})),
        ("2025-06-18", json!({"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"})),
    ] {
        let mut bridge = fake_client(revision, json!({"sampling": {}}), &[]);
        bridge.send_request(json!(1), "tools/call", asks(json!({"llm": annotated()})));
        let question = bridge.recv();
        assert_eq!(question["method"], "sampling/createMessage", "{revision}: {question}");
        let want = json!({"maxTokens": 5, "messages": [{"role": "user",
            "content": {"type": "text", "text": "hi", "annotations": annotations}}]});
        assert_json(revision, &question["params"], &want);
        valid(revision, "CreateMessageRequest", &without_envelope(&question));
        bridge.send(&json!({"jsonrpc": "2.0", "id": question["id"],
            "result": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}}));
        let response = next_response(&mut bridge, &json!(1));
        // The script's next round echoes the answers it got.
        let echoed: Value =
            serde_json::from_str(response["result"]["content"][0]["text"].as_str().unwrap_or("")).unwrap_or_default();
        let answer = json!({"llm": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}});
        assert_json(revision, &echoed, &answer);
    }
}
