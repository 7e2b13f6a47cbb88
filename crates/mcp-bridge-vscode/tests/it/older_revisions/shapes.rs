//! Input requests held to the 2026-07-28 `InputRequest` schema (behaviour
//! spec, "Checks before the client gets a question": the first check, "The
//! input request has the shape of the schema"; decisions.md, "Input
//! requests"), for a client of each revision.

use super::{asks, fake_client};
use crate::support::schemas::REVISIONS;
use crate::support::{bridge_error, message};
use serde_json::{json, Value};

/// A form whose one property has `schema`.
fn form(schema: Value) -> Value {
    json!({"method": "elicitation/create", "params": {"message": "Where?",
        "requestedSchema": {"type": "object", "properties": {"p": schema}}}})
}

/// The input requests of the attack, with what each is.
fn not_the_shape() -> [(&'static str, Value); 3] {
    [
        ("a nested object", form(json!({"type": "object", "properties": {"street": {"type": "string"}}}))),
        ("an anyOf property", form(json!({"anyOf": [{"type": "string"}, {"type": "null"}]}))),
        (
            "a resource_link block in a sampling message",
            json!({"method": "sampling/createMessage", "params": {"maxTokens": 5, "messages": [{"role": "user",
                "content": {"type": "resource_link", "uri": "file:///etc/passwd", "name": "passwd"}}]}}),
        ),
    ]
}

/// Rule: "The input request has the shape of the schema", the first check
/// (`invalid_input_request`), "for every revision of the client: a form
/// takes only primitive properties (no nested object, no `anyOf`), a
/// sampling message only text, image, audio, `tool_use` and `tool_result`
/// blocks" (decisions.md, "Input requests"): a form with a nested-object
/// property, a form
/// with an `anyOf` property and a sampling message with a `resource_link`
/// block to file:///etc/passwd each fail the call with -32603, in each of
/// the four revisions, and no question reaches the client. The client
/// declares elicitation and sampling; before 2025-06-18 its revision
/// cannot declare elicitation, and the shape is checked first all the same.
#[test]
fn an_input_request_without_the_schemas_shape_fails_the_call_in_every_revision() {
    let detail = "input request 'q': the input request does not have the shape of the schema";
    let want = bridge_error(-32603, &message("invalid_input_request"), "invalid_input_request", Some(detail));
    // Every case is run, and every one that differs is named at the end.
    let mut wrong = Vec::new();
    for revision in REVISIONS {
        for (what, request) in not_the_shape() {
            let mut bridge = fake_client(revision, json!({"elicitation": {}, "sampling": {}}), &[]);
            bridge.send_request(json!(1), "tools/call", asks(json!({"q": request})));
            // The next message: a question before the response is wrong too.
            let next = bridge.recv();
            if next != json!({"jsonrpc": "2.0", "id": 1, "error": want}) {
                wrong.push(format!("{revision}, {what}: {next}"));
                continue;
            }
            bridge.assert_alive();
            let questions: Vec<&Value> = bridge
                .seen
                .iter()
                .filter(|m| matches!(m["method"].as_str(), Some("elicitation/create" | "sampling/createMessage")))
                .collect();
            if !questions.is_empty() {
                wrong.push(format!("{revision}, {what}: a question reached the client: {questions:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "expected {want}\n{}", wrong.join("\n"));
}
