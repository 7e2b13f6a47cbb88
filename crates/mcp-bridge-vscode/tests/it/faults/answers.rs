//! Faults in what the upstream answers: partial lines, invalid JSON, lines
//! over the limit, unknown ids, late, doubled and malformed answers, floods
//! of notifications and answers out of order.

use super::*;

/// "Lines that are not valid" on the upstream side: a partial line at the
/// end of the output is still a frame; it is not JSON, its id is sniffed,
/// so its request fails once with invalid_response; then the child has
/// stopped: exit code 1.
#[test]
fn a_partial_line_then_the_exit_fails_the_request_once_with_invalid_response_and_exit_1() {
    let mut driver = Driver::start(&["--test-shutdown-grace-ms", "500"], &fake_upstream(&[]));
    driver.initialize();
    driver.send(&call_tool(json!("other"), "stall", json!({})));
    let response = driver.call(json!(1), "tools/call", json!({"name": "partial"}));
    assert_eq!(
        response,
        err(
            json!(1),
            json!({"code": -32603, "message": &message("invalid_response"), "data": {"cause": "invalid_response", "detail": "parse_error"}})
        )
    );
    let other = driver.response(&json!("other"));
    assert_eq!(other, upstream_exited(json!("other")));
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(1));
    assert_answered_once(&driver.seen, &[json!("init"), json!(1), json!("other")]);
    assert_only_answered(&driver.seen, &[json!("init"), json!(1), json!("other")]);
}

/// Error table, invalid_response ("zig-sdk cannot read the response, for
/// example a line longer than --max-line-bytes"): a line that is not JSON
/// and a line over the limit fail only the request whose id they carry;
/// the other requests in flight and the later ones are served.
#[test]
fn invalid_json_and_a_line_over_the_limit_fail_only_their_request_with_invalid_response() {
    let mut driver = Driver::start(&["--max-line-bytes", "4096"], &fake_upstream(&[]));
    driver.initialize();
    // Two requests that wait for each other stay in flight around the faults.
    driver.send(&call_tool(json!("g1"), "gather", json!({"count": 2, "tag": "one"})));
    let invalid = driver.call(json!("bad"), "tools/call", json!({"name": "invalid-json"}));
    assert_eq!(
        invalid,
        err(
            json!("bad"),
            json!({"code": -32603, "message": &message("invalid_response"), "data": {"cause": "invalid_response", "detail": "parse_error"}})
        )
    );
    let huge = driver.call(json!("huge"), "tools/call", json!({"name": "huge", "arguments": {"bytes": 100_000}}));
    assert_eq!(
        huge,
        err(
            json!("huge"),
            json!({"code": -32603, "message": &message("invalid_response"), "data": {"cause": "invalid_response", "detail": "line_too_long"}})
        )
    );
    driver.send(&call_tool(json!("g2"), "gather", json!({"count": 2, "tag": "two"})));
    assert_eq!(driver.response(&json!("g2")), text_response(json!("g2"), "gather two"));
    assert_eq!(driver.response(&json!("g1")), text_response(json!("g1"), "gather one"));
    let after = driver.call(json!("after"), "tools/call", json!({"name": "unknown-id"}));
    assert_eq!(after, text_response(json!("after"), "real"));
    end_of_input(&mut driver, 0);
    let all = [json!("init"), json!("g1"), json!("bad"), json!("huge"), json!("g2"), json!("after")];
    assert_answered_once(&driver.seen, &all);
    assert_only_answered(&driver.seen, &all);
}

/// "Pending requests"/`Client::dispatch`: a response with an id that no
/// request has is dropped; the real response still reaches its request,
/// once.
#[test]
fn a_response_with_an_unknown_id_is_dropped_and_the_real_one_answers_once() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let requests: Vec<Value> = (0..50).map(|i| call_tool(json!(i), "unknown-id", json!({}))).collect();
    driver.send_burst(&requests);
    let all = ids(0..50);
    driver.wait_responses(&all, STEP);
    for id in &all {
        assert_eq!(responses_to(&driver.seen, id), vec![&text_response(id.clone(), "real")]);
    }
    end_of_input(&mut driver, 0);
    let mut answered = all.clone();
    answered.push(json!("init"));
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
}

/// Error table, timeout ("data.detail has the method and the limit"), and
/// "Timeouts are canceled upstream" with the reason `the request timed
/// out`; an answer that comes after the timeout is dropped, so the request
/// still has one response.
#[test]
fn an_upstream_that_stalls_gives_timeout_once_and_a_late_answer_after_the_timeout_is_dropped() {
    let record = Record::new("stall");
    let mut driver = Driver::start_env(
        &["--test-request-timeout-ms", "300"],
        &fake_upstream(&["--record", record.arg()]),
        &[("MCP_BRIDGE_LOG", "debug")],
    );
    driver.initialize();
    let mut burst: Vec<Value> = (0..10).map(|i| call_tool(json!(i), "stall", json!({}))).collect();
    burst.push(call_tool(json!("late"), "late", json!({"ms": 900})));
    driver.send_burst(&burst);
    let mut all = ids(0..10);
    all.push(json!("late"));
    driver.wait_responses(&all, STEP);
    let detail = "tools/call: no response in 300 ms";
    for id in &all {
        assert_eq!(
            responses_to(&driver.seen, id),
            vec![&err(id.clone(), bridge_error(-32603, &message("timeout"), "timeout", Some(detail)))]
        );
    }
    let cancels = record.wait_cancels(11);
    assert!(cancels.iter().all(|c| c["params"]["reason"] == "the request timed out"), "{cancels:?}");
    // The late answer comes 600 ms after the timeout: the bridge reads it
    // and drops it (its debug line), and the client gets nothing more.
    driver.wait_stderr(DROPPED_UNKNOWN, 1);
    let probe = driver.call(json!("probe"), "tools/call", json!({"name": "unknown-id"}));
    assert_eq!(probe, text_response(json!("probe"), "real"));
    end_of_input(&mut driver, 0);
    all.extend([json!("init"), json!("probe")]);
    assert_answered_once(&driver.seen, &all);
    assert_only_answered(&driver.seen, &all);
}

/// A flood of notifications: "Progress (M1)" (the client's token, at most
/// 50 a second with nothing kept for the end, only before the response), "Cancellation (M1)" (the client never gets a notification
/// that belongs to no request, and requests of the upstream server are
/// dropped), "Logging (M3)" (log messages lose their _meta, in order).
#[test]
fn a_flood_of_notifications_keeps_the_order_the_throttle_and_one_response_per_request() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    assert_eq!(driver.call(json!("lvl"), "logging/setLevel", json!({"level": "info"}))["result"], json!({}));
    let count = 3000;
    let started = std::time::Instant::now();
    driver.send(&json!({"jsonrpc": "2.0", "id": "flood", "method": "tools/call",
        "params": {"name": "flood", "arguments": {"count": count}, "_meta": {"progressToken": 7}}}));
    driver.send(&call_tool(json!("quiet"), "flood", json!({"count": 500, "kinds": ["stray"]})));
    driver.send(&call_tool(json!("echo"), "unknown-id", json!({})));
    let all = [json!("flood"), json!("quiet"), json!("echo")];
    driver.wait_responses(&all, STEP);
    let seconds = started.elapsed().as_secs();
    assert_eq!(driver.response(&json!("flood")), text_response(json!("flood"), &format!("flooded {count}")));
    assert_eq!(driver.response(&json!("quiet")), text_response(json!("quiet"), "flooded 500"));
    assert_eq!(driver.response(&json!("echo")), text_response(json!("echo"), "real"));
    end_of_input(&mut driver, 0);

    let methods: std::collections::BTreeSet<&str> = driver.seen.iter().filter_map(|m| m["method"].as_str()).collect();
    assert_eq!(
        methods,
        ["notifications/message", "notifications/progress"].into_iter().collect(),
        "only progress and log messages reach the client"
    );
    let response_at = driver.seen.iter().position(|m| m["id"] == "flood").unwrap_or(0);
    let progress: Vec<&Value> = driver.seen.iter().filter(|m| m["method"] == "notifications/progress").collect();
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == 7 && p["params"]["total"] == count));
    assert!(
        driver.seen[response_at..].iter().all(|m| m["method"] != "notifications/progress"),
        "progress after the response"
    );
    let values: Vec<i64> = progress.iter().filter_map(|p| p["params"]["progress"].as_i64()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "progress out of order or twice");
    assert!(values.len() >= 50, "only {} progress notifications", values.len());
    assert_eq!(&values[..50], &(1..=50).collect::<Vec<i64>>()[..], "the first fifty pass");
    // The request lived at most `seconds` + 1 windows of the throttle, and
    // no window carries more than 50: none is kept for the end.
    let windows = usize::try_from(seconds + 1).unwrap_or(usize::MAX);
    assert!(values.len() <= 50 * windows, "{} progress notifications in {seconds} s", values.len());
    let logs: Vec<&Value> = driver.seen.iter().filter(|m| m["method"] == "notifications/message").collect();
    assert!(logs
        .iter()
        .all(|l| l["params"].as_object().map(|p| p.len()) == Some(3) && l["params"]["logger"] == "flood"));
    let data: Vec<i64> = logs.iter().filter_map(|l| l["params"]["data"].as_i64()).collect();
    assert!(data.windows(2).all(|w| w[0] < w[1]), "log messages out of order or twice");
    let mut answered = all.to_vec();
    answered.extend([json!("init"), json!("lvl")]);
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
}

/// Answers out of order: each response goes to its own request by the
/// upstream id, whatever the order ("Forwarded requests"); the client sees
/// the reverse order, each with its own content.
#[test]
fn answers_out_of_order_reach_their_own_requests() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    driver.send(&call_tool(json!("first"), "gather", json!({"count": 2, "tag": "first"})));
    driver.send(&call_tool(json!("second"), "gather", json!({"count": 2, "tag": "second"})));
    let a = driver.recv();
    let b = driver.recv();
    assert_eq!(
        (a, b),
        (text_response(json!("second"), "gather second"), text_response(json!("first"), "gather first"))
    );
    end_of_input(&mut driver, 0);
    let all = [json!("init"), json!("first"), json!("second")];
    assert_answered_once(&driver.seen, &all);
    assert_only_answered(&driver.seen, &all);
}

/// "Cancellation (M1)": a canceled request gets no response, and the
/// upstream gets notifications/cancelled with the reason `the client
/// canceled the request`. The upstream answers anyway after the cancel:
/// that late response has an id the bridge forgot, and is dropped.
#[test]
fn a_response_after_a_cancellation_is_dropped() {
    let record = Record::new("after-cancel");
    let mut driver =
        Driver::start_env(&[], &fake_upstream(&["--record", record.arg()]), &[("MCP_BRIDGE_LOG", "debug")]);
    driver.initialize();
    let canceled = ids(0..20);
    let burst: Vec<Value> = canceled.iter().map(|id| call_tool(id.clone(), "after-cancel", json!({}))).collect();
    driver.send_burst(&burst);
    // Each call is upstream before its cancel is sent.
    record.wait_calls(20);
    let cancels: Vec<Value> = canceled.iter().map(cancel).collect();
    driver.send_burst(&cancels);
    let upstream_cancels = record.wait_cancels(20);
    assert!(upstream_cancels.iter().all(|c| c["params"]["reason"] == "the client canceled the request"));
    // The fake answered each one as it read its cancel, before it reads
    // this request: the late responses were on the pipe before this one.
    let probe = driver.call(json!("probe"), "tools/call", json!({"name": "unknown-id"}));
    assert_eq!(probe, text_response(json!("probe"), "real"));
    // The 20 late answers, and the unknown id of the probe's tool.
    driver.wait_stderr(DROPPED_UNKNOWN, 21);
    driver.assert_alive_amid("p1");
    end_of_input(&mut driver, 0);
    assert_never_answered(&driver.seen, &canceled);
    let all = [json!("init"), json!("probe"), json!("p1")];
    assert_answered_once(&driver.seen, &all);
    assert_only_answered(&driver.seen, &all);
}

/// "Pending requests"/`Client::dispatch`: a second response with the same
/// id is dropped ("already resolved"): each request is answered once, with
/// the first response.
#[test]
fn an_upstream_that_answers_twice_gets_its_first_answer_through_once() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let burst: Vec<Value> = (0..50).map(|i| call_tool(json!(i), "twice", json!({}))).collect();
    driver.send_burst(&burst);
    let all = ids(0..50);
    driver.wait_responses(&all, STEP);
    driver.assert_alive_amid("p1");
    end_of_input(&mut driver, 0);
    for id in &all {
        assert_eq!(responses_to(&driver.seen, id), vec![&text_response(id.clone(), "first")]);
    }
    let mut answered = all;
    answered.extend([json!("init"), json!("p1")]);
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
}

/// Error table, invalid_response: an upstream response that is JSON but
/// not a valid JSON-RPC response (an error that is not an object, both
/// result and error, another `jsonrpc`, neither result nor error) fails its
/// request at once, once; it must not wait for the time limit. A line of
/// JSON-RPC with the id as a string, or a float, belongs to no request: it
/// is dropped, and the real answer that follows still comes.
#[test]
fn malformed_upstream_responses_fail_their_request_once_with_invalid_response() {
    let mut driver = Driver::start(&["--test-request-timeout-ms", "5000"], &fake_upstream(&[]));
    driver.initialize();
    let shape = json!({"code": -32603, "message": &message("invalid_response"), "data": {"cause": "invalid_response", "detail": "invalid_request_shape"}});
    let failing = [
        r#"{"jsonrpc":"2.0","id":ID,"error":"oops"}"#,
        r#"{"jsonrpc":"2.0","id":ID,"error":{"message":"no code"}}"#,
        r#"{"jsonrpc":"2.0","id":ID,"result":{},"error":{"code":1,"message":"both"}}"#,
        r#"{"jsonrpc":"1.0","id":ID,"result":{}}"#,
        r#"{"id":ID,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":ID}"#,
    ];
    let mut outcomes = Vec::new();
    for (i, line) in failing.iter().enumerate() {
        let response = driver.call(json!(i), "tools/call", json!({"name": "line", "arguments": {"line": line}}));
        outcomes.push((line, response["error"].clone()));
    }
    let unexpected: Vec<_> = outcomes.iter().filter(|(_, error)| error != &shape).collect();
    assert!(unexpected.is_empty(), "these lines did not give invalid_response: {unexpected:#?}");
    let dropped = [r#"{"jsonrpc":"2.0","id":"ID","result":{}}"#, r#"{"jsonrpc":"2.0","id":ID.0,"result":{}}"#];
    for (i, line) in dropped.iter().enumerate() {
        let id = json!(100 + i);
        let args = json!({"line": line, "then_answer": true});
        let response = driver.call(id.clone(), "tools/call", json!({"name": "line", "arguments": args}));
        assert_eq!(response, text_response(id, "real"), "{line}");
    }
    end_of_input(&mut driver, 0);
    let mut all: Vec<Value> = ids(0..failing.len() as i64);
    all.extend([json!(100), json!(101), json!("init")]);
    assert_answered_once(&driver.seen, &all);
    assert_only_answered(&driver.seen, &all);
}
