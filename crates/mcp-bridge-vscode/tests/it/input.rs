//! Input requests through the bridge (behaviour spec, "Input requests
//! (M2)", "Pending requests of the bridge"), driven line by line against
//! the scripted fake upstream.

use crate::support::driver::Driver;
use crate::support::fake::*;
use crate::support::*;
use serde_json::{json, Value};
use std::time::Duration;

const CAPS: &str = r#"{"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {"listChanged": true}}"#;

fn bridge_with(options: &[&str]) -> Driver {
    let mut bridge = Driver::start(options, &fake_upstream(&[]));
    let caps: Value = serde_json::from_str(CAPS).unwrap_or_default();
    let init = bridge.initialize_with(caps);
    assert!(init.get("result").is_some(), "{init}");
    bridge
}

fn call_script(bridge: &mut Driver, id: Value, steps: Value) {
    bridge.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "script", "arguments": {"steps": steps}}}));
}

fn answer(bridge: &mut Driver, id: &Value, result: Value) {
    bridge.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
}

fn echoed(response: &Value) -> Value {
    let text = response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {response}"));
    serde_json::from_str(text).unwrap_or(Value::Null)
}

#[test]
fn a_form_goes_to_the_client_and_the_answer_goes_back_on_the_retry() {
    let mut bridge = bridge_with(&[]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"who": form("Your name?")}))]));
    let question = bridge.recv();
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["id"], "b-1");
    assert_eq!(question["params"], form("Your name?")["params"]);
    answer(&mut bridge, &question["id"], json!({"action": "accept", "content": {"name": "Ada"}}));
    let response = bridge.recv();
    assert_eq!(response["id"], 1);
    assert_eq!(echoed(&response), json!({"who": {"action": "accept", "content": {"name": "Ada"}}}));
}

#[test]
fn form_content_that_is_not_valid_fails_with_invalid_client_answer() {
    let mut bridge = bridge_with(&[]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"who": form("Your name?")}))]));
    let question = bridge.recv();
    answer(&mut bridge, &question["id"], json!({"action": "accept", "content": {"name": 5}}));
    let response = bridge.recv();
    assert_eq!(
        response["error"],
        bridge_error(
            -32603,
            &message("invalid_client_answer"),
            "invalid_client_answer",
            Some("input request 'who': the content is not valid against the requestedSchema")
        )
    );
}

#[test]
fn an_error_or_an_invalid_line_as_answer_to_an_elicitation_gives_cancel() {
    let mut bridge = bridge_with(&[]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"a": form("A?"), "b": form("B?")}))]));
    let (qa, qb) = (bridge.recv(), bridge.recv());
    bridge.send(&json!({"jsonrpc": "2.0", "id": qa["id"], "error": {"code": -32000, "message": "no"}}));
    bridge.send_raw(format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{oops}}\n", qb["id"]).as_bytes());
    let response = bridge.recv();
    assert_eq!(echoed(&response), json!({"a": {"action": "cancel"}, "b": {"action": "cancel"}}));
}

#[test]
fn a_form_without_properties_becomes_the_continue_form() {
    let mut bridge = bridge_with(&[]);
    let empty = json!({"method": "elicitation/create", "params": {"message": "Go on?", "requestedSchema": {"type": "object", "properties": {}}}});
    call_script(&mut bridge, json!(1), json!([input_required(json!({"go": empty}))]));
    let question = bridge.recv();
    assert_eq!(question["params"]["message"], "Go on?");
    assert_eq!(question["params"]["requestedSchema"]["required"], json!(["continue"]));
    answer(&mut bridge, &question["id"], json!({"action": "accept", "content": {"continue": "Continue"}}));
    assert_eq!(echoed(&bridge.recv()), json!({"go": {"action": "accept", "content": {}}}));
}

#[test]
fn urls_follow_the_url_rule_and_get_an_elicitation_id() {
    let mut bridge = bridge_with(&[]);
    let requests = json!({
        "https": url("https://example.com/login"),
        "loopback": url("http://127.0.0.1:8080/cb"),
        "plain": url("http://example.com/login"),
        "userinfo": url("http://user@localhost/"),
        "backslash": url("https://example.com\\@evil.com/")
    });
    call_script(&mut bridge, json!(1), json!([input_required(requests)]));
    let (q1, q2) = (bridge.recv(), bridge.recv());
    assert_eq!(q1["params"]["url"], "https://example.com/login");
    assert_eq!(q1["params"]["elicitationId"], "elicitation-1");
    assert_eq!(q2["params"]["url"], "http://127.0.0.1:8080/cb");
    assert_eq!(q2["params"]["elicitationId"], "elicitation-2");
    answer(&mut bridge, &q1["id"], json!({"action": "accept"}));
    answer(&mut bridge, &q2["id"], json!({"action": "decline"}));
    // The accepted URL is complete once the next result no longer asks for it.
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": "elicitation-1"}})
    );
    let response = bridge.recv();
    assert_eq!(
        echoed(&response),
        json!({"backslash": {"action": "decline"}, "https": {"action": "accept"}, "loopback": {"action": "decline"}, "plain": {"action": "decline"}, "userinfo": {"action": "decline"}})
    );
}

#[test]
fn a_url_asked_again_after_acceptance_becomes_the_continue_form() {
    let mut bridge = bridge_with(&[]);
    let ask = input_required(json!({"login": url("https://example.com/login")}));
    call_script(&mut bridge, json!(1), json!([ask.clone(), ask]));
    let first = bridge.recv();
    answer(&mut bridge, &first["id"], json!({"action": "accept"}));
    let again = bridge.recv();
    assert_eq!(again["params"]["message"], "Complete the step in the web browser. Then select Continue.");
    answer(&mut bridge, &again["id"], json!({"action": "accept", "content": {"continue": "Continue"}}));
    assert_eq!(bridge.recv()["params"], json!({"elicitationId": "elicitation-1"}));
    assert_eq!(echoed(&bridge.recv()), json!({"login": {"action": "accept"}}));
}

#[test]
fn more_than_ten_rounds_give_too_many_rounds() {
    let mut bridge = bridge_with(&[]);
    let steps: Vec<Value> = (0..11).map(|_| input_required(json!({"r": {"method": "roots/list"}}))).collect();
    call_script(&mut bridge, json!(1), Value::Array(steps));
    for _ in 0..9 {
        let question = bridge.recv();
        assert_eq!(question["method"], "roots/list");
        answer(&mut bridge, &question["id"], json!({"roots": [{"uri": "file:///work"}, {"uri": "https://x"}]}));
    }
    let response = bridge.recv();
    assert_eq!(response["error"], bridge_error(-32603, &message("too_many_rounds"), "too_many_rounds", None));
}

#[test]
fn roots_keep_only_file_uris_and_sampling_errors_go_to_the_request() {
    let mut bridge = bridge_with(&[]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"r": {"method": "roots/list"}}))]));
    let question = bridge.recv();
    answer(
        &mut bridge,
        &question["id"],
        json!({"roots": [{"uri": "file:///work", "name": "w"}, {"uri": "https://x"}]}),
    );
    assert_eq!(echoed(&bridge.recv()), json!({"r": {"roots": [{"uri": "file:///work", "name": "w"}]}}));
    let sampling = json!({"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}});
    call_script(&mut bridge, json!(2), json!([input_required(json!({"s": sampling}))]));
    let question = bridge.recv();
    assert_eq!(question["method"], "sampling/createMessage");
    let refusal = json!({"code": -32000, "message": "The user refused", "data": {"x": 1}});
    bridge.send(&json!({"jsonrpc": "2.0", "id": question["id"], "error": refusal}));
    assert_eq!(bridge.recv()["error"], refusal);
}

#[test]
fn an_upstream_invalid_params_after_a_state_round_follows_the_request_state_rule() {
    let mut bridge = bridge_with(&[]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"r": {"method": "roots/list"}})), "reject"]));
    let question = bridge.recv();
    answer(&mut bridge, &question["id"], json!({"roots": []}));
    let response = bridge.recv();
    assert_eq!(
        response["result"],
        json!({"content": [{"type": "text", "text": "The upstream server did not accept the saved state of the request. The answer possibly came after the time limit of the state, or the server started again. Upstream message: state expired. Run the tool again."}], "isError": true})
    );
}

#[test]
fn a_cancel_withdraws_the_questions_and_a_late_answer_is_dropped() {
    let mut bridge = bridge_with(&[]);
    call_script(&mut bridge, json!("c"), json!([input_required(json!({"who": form("Name?")}))]));
    let question = bridge.recv();
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c"}}));
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": question["id"], "reason": "the client canceled the request"}})
    );
    answer(&mut bridge, &question["id"], json!({"action": "accept", "content": {"name": "late"}}));
    bridge.expect_silence(Duration::from_millis(300));
    bridge.assert_alive();
}

#[test]
fn no_answer_in_the_limit_gives_input_timeout_and_withdraws_the_question() {
    let mut bridge = bridge_with(&["--test-input-timeout-ms", "300"]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"who": form("Name?")}))]));
    let question = bridge.recv();
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": question["id"], "reason": "no answer in time"}})
    );
    assert_eq!(bridge.recv()["error"], bridge_error(-32603, &message("input_timeout"), "input_timeout", None));
}

#[test]
fn at_the_end_of_the_input_open_questions_are_withdrawn_with_their_reason() {
    let mut bridge = bridge_with(&[]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"who": form("Name?")}))]));
    let question = bridge.recv();
    bridge.close_stdin();
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": question["id"], "reason": "the client closed the connection"}})
    );
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(0));
}

#[test]
fn a_cancel_after_an_accepted_url_completes_the_url_step() {
    let mut bridge = bridge_with(&[]);
    let ask = input_required(json!({"login": url("https://example.com/login")}));
    call_script(&mut bridge, json!("c"), json!([ask.clone(), ask]));
    let first = bridge.recv();
    answer(&mut bridge, &first["id"], json!({"action": "accept"}));
    let again = bridge.recv();
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c"}}));
    assert_eq!(bridge.recv()["params"], json!({"requestId": again["id"], "reason": "the client canceled the request"}));
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": "elicitation-1"}})
    );
    bridge.expect_silence(Duration::from_millis(300));
}

#[test]
fn seventeen_input_requests_in_one_round_fail_before_any_question() {
    let mut bridge = bridge_with(&[]);
    let requests: serde_json::Map<String, Value> = (0..17).map(|i| (format!("k{i:02}"), form("Name?"))).collect();
    call_script(&mut bridge, json!(1), json!([input_required(Value::Object(requests))]));
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "id": 1, "error": bridge_error(
            -32603,
            &message("too_many_input_requests"),
            "too_many_input_requests",
            Some("17 input requests in one round, limit: 16")
        )})
    );
}

#[test]
fn a_late_answer_after_the_time_limit_is_dropped() {
    let mut bridge = bridge_with(&["--test-input-timeout-ms", "200"]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"who": form("Name?")}))]));
    let question = bridge.recv();
    assert_eq!(bridge.recv()["params"]["reason"], "no answer in time");
    assert_eq!(bridge.recv()["error"]["data"]["cause"], "input_timeout");
    answer(&mut bridge, &question["id"], json!({"action": "accept", "content": {"name": "late"}}));
    bridge.expect_silence(Duration::from_millis(300));
    bridge.assert_alive();
}

#[test]
fn the_request_state_rule_for_another_method_gives_the_upstream_code_and_data() {
    let mut bridge = bridge_with(&[]);
    let steps = json!([input_required(json!({"r": {"method": "roots/list"}})), "reject"]);
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "script", "arguments": {"steps": steps}}}));
    let question = bridge.recv();
    answer(&mut bridge, &question["id"], json!({"roots": []}));
    assert_eq!(
        bridge.recv()["error"],
        json!({
            "code": -32602,
            "message": "The upstream server did not accept the saved state of the request. The answer possibly came after the time limit of the state, or the server started again. Upstream message: state expired. Send the request again.",
            "data": {"reason": "expired"}
        })
    );
}

/// A broken line of the client whose params hold `"id":"b-1"` is not an
/// answer to the question b-1 ("only an id of the top-level object
/// counts"): the line gets `-32700` with the id null, the question stays
/// open, and the user's real answer goes to the server.
#[test]
fn a_nested_bridge_id_in_a_broken_line_does_not_settle_the_question() {
    let mut bridge = bridge_with(&[]);
    call_script(&mut bridge, json!(1), json!([input_required(json!({"who": form("Your name?")}))]));
    let question = bridge.recv();
    assert_eq!(question["id"], "b-1");
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{\"ref\":{\"id\":\"b-1\"}\n");
    assert_eq!(bridge.recv(), error_response(json!(null), -32700, &message("parse_error"), "parse_error", None));
    answer(&mut bridge, &question["id"], json!({"action": "accept", "content": {"name": "Ada"}}));
    let response = bridge.recv();
    assert_eq!(response["id"], 1);
    assert_eq!(echoed(&response), json!({"who": {"action": "accept", "content": {"name": "Ada"}}}));
}
