//! The time limit of each class of request, one class per test
//! (`--test-time-divisor 1000`; behaviour spec, "Forwarded requests (M1)").

use super::*;

/// "Forwarded requests (M1)", time limits: "The list requests and
/// completion/complete: 120 s", here 120 ms. Each gets `timeout` with the
/// method and the limit in `data.detail`, and the upstream gets
/// `notifications/cancelled` with the reason `the request timed out`; the
/// late answers are dropped.
#[test]
fn the_lists_and_completion_complete_time_out_at_the_list_limit() {
    let record = Record::new("limits-lists");
    let methods = ["tools/list", "prompts/list", "resources/list", "resources/templates/list", "completion/complete"];
    let mut fake = vec!["--record", record.arg()];
    let delays: Vec<String> = methods.iter().map(|m| format!("{m}=700")).collect();
    for delay in &delays {
        fake.extend(["--delay", delay.as_str()]);
    }
    let mut bridge = bridge(&["--test-time-divisor", "1000"], &fake);
    let start = Instant::now();
    for (i, method) in methods.iter().enumerate() {
        bridge.send(&json!({"jsonrpc": "2.0", "id": i, "method": method, "params": {}}));
    }
    let mut responses: Vec<Value> = (0..methods.len()).map(|_| bridge.recv()).collect();
    let elapsed = start.elapsed();
    responses.sort_by_key(|r| r["id"].as_u64());
    let expected: Vec<Value> =
        methods.iter().enumerate().map(|(i, m)| timeout(json!(i), &format!("{m}: no response in 120 ms"))).collect();
    assert_eq!(responses, expected);
    assert!(elapsed < Duration::from_millis(700), "the timeouts came before the late answers: {elapsed:?}");
    for method in methods {
        let upstream = record.request(method, |_| true);
        assert_eq!(record.cancel_of(&upstream["id"]), json!({"requestId": upstream["id"], "reason": TIMED_OUT}));
    }
    // The late answers come at 700 ms: dropped.
    bridge.expect_silence(Duration::from_millis(800));
    bridge.assert_alive();
}

/// "Forwarded requests (M1)", time limits: "The first round of prompts/get
/// and resources/read: 120 s", here 120 ms, with `timeout` and the detail,
/// and the upstream cancellation of each.
#[test]
fn the_first_round_of_prompts_get_and_resources_read_times_out_at_its_limit() {
    let record = Record::new("limits-first-round");
    let fake = ["--record", record.arg(), "--delay", "prompts/get=700", "--delay", "resources/read=700"];
    let mut bridge = bridge(&["--test-time-divisor", "1000"], &fake);
    let start = Instant::now();
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "greet"}}));
    bridge.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "fake://a"}}));
    let mut responses = vec![bridge.recv(), bridge.recv()];
    let elapsed = start.elapsed();
    responses.sort_by_key(|r| r["id"].as_u64());
    assert_eq!(
        responses,
        vec![
            timeout(json!(1), "prompts/get: no response in 120 ms"),
            timeout(json!(2), "resources/read: no response in 120 ms")
        ]
    );
    assert!(elapsed < Duration::from_millis(700), "{elapsed:?}");
    for method in ["prompts/get", "resources/read"] {
        let upstream = record.request(method, |_| true);
        assert_eq!(record.cancel_of(&upstream["id"]), json!({"requestId": upstream["id"], "reason": TIMED_OUT}));
    }
    bridge.assert_alive();
}

/// "Forwarded requests (M1)", time limits: "Each later round of prompts/get
/// and resources/read: 1 h", here 3600 ms: round 2 of a `prompts/get`
/// answered 600 ms late (beyond the 120 ms of the first round) is answered.
#[test]
fn a_later_round_of_prompts_get_has_the_long_limit() {
    let mut bridge = bridge(&["--test-time-divisor", "1000"], &[]);
    let steps = json!([input_required(json!({"r": roots()})), {"after_ms": 600, "then": "echo"}]);
    bridge.send(&script_prompt(json!(1), steps));
    assert_eq!(bridge.recv(), roots_question("b-1"));
    let start = Instant::now();
    bridge.send(&answer("b-1", json!({"roots": []})));
    assert_eq!(bridge.recv(), ok(json!(1), echo_text(r#"{"r": {"roots": []}}"#)));
    assert!(start.elapsed() >= Duration::from_millis(600), "round 2 was answered late: {:?}", start.elapsed());
}

/// "Forwarded requests (M1)", time limits: "Each round of tools/call: 1 h",
/// here 3600 ms: the `late` tool at 600 ms is answered, at 4500 ms it gets
/// `timeout` with `tools/call: no response in 3600 ms`, not before the
/// limit, and the upstream gets `notifications/cancelled` with the reason
/// `the request timed out`.
#[test]
fn tools_call_has_the_call_limit() {
    let record = Record::new("limits-call");
    let mut bridge = bridge(&["--test-time-divisor", "1000"], &["--record", record.arg()]);
    let start = Instant::now();
    bridge.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "late", "arguments": {"ms": 600}}}));
    bridge.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "late", "arguments": {"ms": 4500}}}));
    assert_eq!(bridge.recv(), ok(json!(1), json!({"content": [{"type": "text", "text": "late"}]})));
    assert_eq!(bridge.recv(), timeout(json!(2), "tools/call: no response in 3600 ms"));
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_millis(3600), "not before the limit: {elapsed:?}");
    assert!(elapsed < Duration::from_millis(4500), "before the late answer: {elapsed:?}");
    let upstream = record.request("tools/call", |p| p["arguments"]["ms"] == 4500);
    assert_eq!(record.cancel_of(&upstream["id"]), json!({"requestId": upstream["id"], "reason": TIMED_OUT}));
    bridge.assert_alive();
}

/// "Forwarded requests (M1)", time limits: "The answers of the client to
/// the input requests of one round: 1 h", here 3600 ms: a question without
/// an answer is withdrawn with `no answer in time`, and the request gets
/// `input_timeout`, no sooner than 3.6 s after it was sent.
#[test]
fn the_answers_of_the_client_have_the_input_limit() {
    let mut bridge = bridge(&["--test-time-divisor", "1000"], &[]);
    let start = Instant::now();
    bridge.send(&script_call(json!(1), json!([input_required(json!({"who": form("Name?")}))])));
    assert_eq!(bridge.recv()["id"], "b-1");
    assert_eq!(bridge.recv(), withdrawn("b-1", "no answer in time"));
    assert_eq!(bridge.recv(), err(json!(1), bridge_error(-32603, &message("input_timeout"), "input_timeout", None)));
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_millis(3600), "no sooner than 3.6 s: {elapsed:?}");
    assert!(elapsed < Duration::from_millis(7200), "the 3.6 s limit, not a longer one: {elapsed:?}");
    bridge.assert_alive();
}
