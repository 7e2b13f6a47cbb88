//! Results and answers of the client without the shape of their schema:
//! they fail their request and never reach the upstream.

use super::*;

fn not_an_object(id: Value) -> Value {
    err(
        id,
        bridge_error(
            -32603,
            &message("invalid_input_request"),
            "invalid_input_request",
            Some("the result is not an object"),
        ),
    )
}

fn not_the_shape(id: Value, key: &str) -> Value {
    let detail = format!("input request '{key}': the answer does not have the shape of the schema");
    err(id, bridge_error(-32603, &message("invalid_client_answer"), "invalid_client_answer", Some(&detail)))
}

/// "Checks before the client gets a question", the checks of the whole
/// round: "The result is an object. | invalid_input_request | the result
/// is not an object". A result that is not an object is neither complete
/// nor an input request, so every forwarded method takes this check, on
/// the first round and on a later one; nothing of it reaches the client.
#[test]
fn a_result_that_is_not_an_object_fails_its_request_with_invalid_input_request() {
    let answers = ["--answer", "tools/list=5", "--answer", "prompts/list=[1]", "--answer", "resources/list=null"];
    let mut bridge = bridge(&[], &answers);
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "result", "arguments": {"result": "not an object"}}}));
    assert_eq!(bridge.recv(), not_an_object(json!(1)));
    for (id, method) in [(2, "tools/list"), (3, "prompts/list"), (4, "resources/list")] {
        bridge.send(&json!({"jsonrpc": "2.0", "id": id, "method": method}));
        assert_eq!(bridge.recv(), not_an_object(json!(id)), "{method}");
    }
    // A later round: the client answers a form, then the result is `true`.
    bridge.send(&script_call(json!(5), json!([input_required(json!({"who": form("Name?")})), {"verbatim": true}])));
    let question = bridge.recv();
    assert_eq!(question["id"], "b-1");
    bridge.send(&answer("b-1", json!({"action": "decline"})));
    assert_eq!(bridge.recv(), not_an_object(json!(5)));
    bridge.assert_alive();
}

/// "Answers of the client": "Each kind | A result without the shape of the
/// schema | The original request fails with invalid_client_answer", held
/// to every member that the 2025-11-25 schema of the result types: a root
/// whose `name` is `5` or `null`, a root `_meta` of `5`, a form's content
/// with an object value (`ElicitResult.content` takes strings, numbers,
/// booleans and string arrays only), a sampling text block whose text is
/// a number. None of them reaches the upstream: it gets no second round.
#[test]
fn answers_without_the_shape_of_their_result_fail_the_request_and_never_reach_the_upstream() {
    let record = Record::new("answer-shapes");
    let mut bridge = bridge(&[], &["--record", record.arg()]);
    let name = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}});
    let cases = [
        (roots(), json!({"roots": [{"uri": "file:///w", "name": 5}]})),
        (roots(), json!({"roots": [{"uri": "file:///w", "name": null}]})),
        (roots(), json!({"roots": [{"uri": "file:///w", "_meta": 5}]})),
        (name, json!({"action": "accept", "content": {"name": {"first": "Ada"}}})),
        (sampling(), json!({"role": "assistant", "model": "m", "content": {"type": "text", "text": 5}})),
    ];
    for (n, (request, bad)) in cases.into_iter().enumerate() {
        let id = json!(n + 1);
        bridge.send(&script_call(id.clone(), json!([input_required(json!({"k": request})), "echo"])));
        let question = bridge.recv();
        let question_id = question["id"].as_str().unwrap_or_default().to_owned();
        bridge.send(&answer(&question_id, bad.clone()));
        assert_eq!(bridge.recv(), not_the_shape(id, "k"), "answer {bad}");
    }
    // Each call reached the upstream once: no round with an answer followed.
    let calls = record.wait(5, "calls", |m| m["method"] == "tools/call");
    assert!(calls.iter().all(|c| c["params"].get("inputResponses").is_none()), "{calls:?}");
    bridge.assert_alive();
}

/// "Progress (M1)": the bridge sends the progress, total and message of
/// the upstream server; progress whose members do not have the types of
/// `ProgressNotification` (a `progress` that is a string) is no progress,
/// and the client gets none of it, only the result.
#[test]
fn progress_without_the_shape_of_its_schema_does_not_reach_the_client() {
    let mut bridge = bridge(&[], &[]);
    let bad = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":ID,"progress":"half"}}"#;
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "line",
        "arguments": {"line": bad, "then_answer": true}, "_meta": {"progressToken": "tok"}}}));
    assert_eq!(bridge.recv(), ok(json!(1), json!({"content": [{"type": "text", "text": "real"}]})));
    bridge.assert_alive();
}
