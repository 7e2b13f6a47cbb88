//! Faults of the upstream process: it exits, closes its pipes, stops
//! reading or stalls, or leaves a child behind that keeps its stdout open.

use super::*;

/// Error table, upstream_exited; "Architecture: upstream exit during
/// initialize": the initialize was a request in flight, so it gets
/// upstream_exited, and the bridge stays open in awaiting_initialize.
#[test]
fn upstream_exits_before_discover_initialize_gets_upstream_exited_and_the_bridge_stays_open() {
    let mut driver = Driver::start(&[], &fake_upstream(&["--discover", "exit"]));
    let response = driver.initialize_with(json!({}));
    assert_eq!(response, upstream_exited(json!("init")));
    driver.assert_alive_amid("p1");
    let early = driver.call(json!(1), "tools/list", json!({}));
    assert_eq!(early, err(json!(1), bridge_error(-32600, &message("not_initialized"), "not_initialized", None)));
    // The bridge was not in ready, so the end of stdin is a plain end: 0.
    end_of_input(&mut driver, 0);
    assert_answered_once(&driver.seen, &[json!("init"), json!("p1"), json!(1)]);
    assert_only_answered(&driver.seen, &[json!("init"), json!("p1"), json!(1)]);
}

/// Error table, upstream_exited: "Each request in flight and each later
/// request gets this error"; exit code 1 when the upstream command stops
/// (after the shutdown grace, without the end of stdin).
#[test]
fn upstream_exits_in_the_middle_of_a_request_every_request_in_flight_gets_upstream_exited_once_and_exit_1() {
    let mut driver = Driver::start(&["--test-shutdown-grace-ms", "1500"], &fake_upstream(&[]));
    driver.initialize();
    let stalled = ids(0..20);
    let burst: Vec<Value> = stalled.iter().map(|id| call_tool(id.clone(), "stall", json!({}))).collect();
    driver.send_burst(&burst);
    // It reports progress, logs, then exits without an answer.
    driver.send(&json!({"jsonrpc": "2.0", "id": "dies", "method": "tools/call",
        "params": {"name": "exit-after", "arguments": {"progress": 2}, "_meta": {"progressToken": "tok"}}}));
    let mut in_flight = stalled.clone();
    in_flight.push(json!("dies"));
    driver.wait_responses(&in_flight, STEP);
    for id in &in_flight {
        assert_eq!(responses_to(&driver.seen, id), vec![&upstream_exited(id.clone())]);
    }
    // A later request in the grace, and ping, which keeps its rule.
    let later = driver.call(json!("later"), "tools/list", json!({}));
    assert_eq!(later, upstream_exited(json!("later")));
    driver.assert_alive_amid("p1");
    // No end of stdin: the bridge exits by itself after the grace.
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(1), "stderr:\n{}", ended.stderr);
    // Progress of the dying request came only before its error.
    let error_at = driver.seen.iter().position(|m| m["id"] == "dies").unwrap_or(0);
    assert!(
        driver.seen[error_at..].iter().all(|m| m["params"]["progressToken"] != "tok"),
        "progress after the response"
    );
    in_flight.extend([json!("init"), json!("later"), json!("p1")]);
    assert_answered_once(&driver.seen, &in_flight);
    assert_only_answered(&driver.seen, &in_flight);
}

/// Error table, `closed`: "The upstream connection closed. When the child
/// process stopped, a forwarded request gets upstream_exited instead." A
/// child that closes its stdout during a call and keeps reading its stdin:
/// the call and a later request get `closed`, and the later one never
/// reaches the upstream. Then the end of the bridge's input is the end of
/// the child's input ("at the end of the input ... closes the upstream
/// client"): the child ends by itself, long before the grace of 30 s would
/// kill it, and the exit code is 0 (the upstream command did not stop).
#[test]
fn an_upstream_that_closes_its_stdout_gives_closed_and_the_end_of_input_ends_it_and_exits_0() {
    let record = Record::new("close-stdout");
    let upstream = fake_upstream(&["--record", record.arg(), "--pid-file", &record.pid_file()]);
    let mut driver = Driver::start(&["--test-shutdown-grace-ms", "30000"], &upstream);
    driver.initialize();
    let call = driver.call(json!(1), "tools/call", json!({"name": "close", "arguments": {"pipes": "stdout"}}));
    assert_eq!(call, closed(json!(1)));
    let later = driver.call(json!(2), "tools/list", json!({}));
    assert_eq!(later, closed(json!(2)));
    driver.assert_alive_amid("p1");
    let pid = record.pid();
    assert!(process_runs(pid), "the child lives on with its stdout closed");
    driver.close_stdin();
    let status = driver.wait_exit_alone(EXIT);
    assert!(!process_runs(pid), "the child still runs after the bridge exited");
    assert_eq!(status.code(), Some(0), "exit code at the end of stdin; stderr:\n{}", driver.stderr_text());
    assert_eq!(record.count("tools/list"), 0, "a request after the loss reached the upstream");
    assert_no_panic(&driver.wait_exit(EXIT));
    let ids = [json!("init"), json!(1), json!(2), json!("p1")];
    assert_answered_once(&driver.seen, &ids);
    assert_only_answered(&driver.seen, &ids);
}

/// `closed`, and the choice "Upstream loss in ready" (the bridge keeps
/// answering for the grace, then exits with 1): a child that closes both
/// pipes and sleeps gets no end of input it could read, so the end of the
/// bridge kills it; nothing is left running.
#[test]
fn an_upstream_that_closes_both_pipes_gives_closed_and_is_killed_when_the_bridge_ends() {
    let record = Record::new("close-both");
    let upstream = fake_upstream(&["--record", record.arg(), "--pid-file", &record.pid_file()]);
    let mut driver = Driver::start(&["--test-shutdown-grace-ms", "500"], &upstream);
    driver.initialize();
    let call = driver.call(json!(1), "tools/call", json!({"name": "close", "arguments": {"pipes": "both"}}));
    assert_eq!(call, closed(json!(1)));
    let pid = record.pid();
    let status = driver.wait_exit_alone(EXIT);
    assert!(!process_runs(pid), "the child still runs after the bridge exited");
    assert_eq!(status.code(), Some(1), "the bridge ends itself after the loss; stderr:\n{}", driver.stderr_text());
    assert_no_panic(&driver.wait_exit(EXIT));
    assert_answered_once(&driver.seen, &[json!("init"), json!(1)]);
}

/// `closed` for a child that closes its stdin and keeps its stdout: the
/// next write fails, and every request in flight (the call that closed it,
/// which the child never answers) and the one that found the pipe broken
/// get `closed` at once, not at their time limit. The end of the input
/// then kills the child after the grace, and the exit code is 0.
#[test]
fn an_upstream_that_closes_its_stdin_fails_the_requests_in_flight_with_closed_at_the_next_write() {
    let record = Record::new("close-stdin");
    let upstream = fake_upstream(&["--record", record.arg(), "--pid-file", &record.pid_file()]);
    let mut driver = Driver::start(&["--test-shutdown-grace-ms", "3000"], &upstream);
    driver.initialize();
    driver.send(&call_tool(json!(1), "close", json!({"pipes": "stdin"})));
    // The fake reads no more: the call is recorded once its stdin is closed.
    record.wait_calls(1);
    let pid = record.pid();
    wait_until(|| std::fs::read_link(format!("/proc/{pid}/fd/0")).is_err(), "the child closes its stdin");
    let later = driver.call(json!(2), "tools/list", json!({}));
    assert_eq!(later, closed(json!(2)));
    assert_eq!(driver.response(&json!(1)), closed(json!(1)));
    assert!(process_runs(pid), "the child lives on with its stdin closed");
    driver.close_stdin();
    let status = driver.wait_exit_alone(EXIT);
    assert!(!process_runs(pid), "the child still runs after the bridge exited");
    assert_eq!(status.code(), Some(0), "exit code at the end of stdin; stderr:\n{}", driver.stderr_text());
    assert_no_panic(&driver.wait_exit(EXIT));
    let ids = [json!("init"), json!(1), json!(2)];
    assert_answered_once(&driver.seen, &ids);
    assert_only_answered(&driver.seen, &ids);
}

/// "Pending requests of the bridge": on the loss of the upstream server the
/// questions of the bridge are withdrawn with the reason `the upstream
/// server stopped`, the original request gets upstream_exited once, a late
/// answer to the question is dropped, and the bridge exits with 1.
#[test]
fn the_upstream_stops_while_a_question_waits_the_question_is_withdrawn_and_the_request_fails_once() {
    let mut driver = Driver::start(&["--test-shutdown-grace-ms", "1500"], &fake_upstream(&[]));
    let init = driver.initialize_with(json!({"elicitation": {"form": {}}}));
    assert!(init.get("result").is_some(), "{init}");
    let form = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}});
    let steps = json!([{"resultType": "input_required", "inputRequests": {"who": form}}]);
    driver.send(&call_tool(json!("ask"), "script", json!({"steps": steps})));
    let question = driver.recv();
    assert_eq!((question["id"].clone(), question["method"].clone()), (json!("b-1"), json!("elicitation/create")));
    let dies = driver.call(json!("dies"), "tools/call", json!({"name": "exit"}));
    assert_eq!(dies, upstream_exited(json!("dies")));
    driver.wait_for(|m| m["method"] == "notifications/cancelled", "the withdrawal of b-1");
    let withdrawn: Vec<&Value> = driver.seen.iter().filter(|m| m["method"] == "notifications/cancelled").collect();
    assert_eq!(
        withdrawn,
        vec![
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "b-1", "reason": "the upstream server stopped"}})
        ]
    );
    assert_eq!(driver.response(&json!("ask")), upstream_exited(json!("ask")));
    driver.send(&json!({"jsonrpc": "2.0", "id": "b-1", "result": {"action": "accept", "content": {"name": "Late"}}}));
    driver.assert_alive_amid("p1");
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(1));
    let all = [json!("init"), json!("ask"), json!("dies"), json!("p1")];
    assert_answered_once(&driver.seen, &all);
    assert_only_answered(&driver.seen, &all);
}

/// Error table, timeout: "The request had no response in its time limit."
/// An upstream that stops reading its stdin fills the pipe and the
/// bridge's write queue (256 lines); each request must still get its
/// timeout, once, in a bounded time, and a cancel must still free its
/// place.
#[test]
fn an_upstream_that_stops_reading_still_gives_every_request_its_timeout() {
    let mut driver = Driver::start(&["--test-request-timeout-ms", "500"], &fake_upstream(&["--deaf"]));
    driver.initialize();
    // 256 requests of 4 KiB: about 1 MiB, far more than a pipe holds.
    let pad = "x".repeat(4096);
    let burst: Vec<Value> = (0..256).map(|i| call_tool(json!(i), "echo", json!({"pad": pad}))).collect();
    driver.send_burst(&burst);
    let all = ids(0..256);
    driver.wait_responses(&all, STEP);
    let detail = "tools/call: no response in 500 ms";
    for id in &all {
        assert_eq!(
            responses_to(&driver.seen, id),
            vec![&err(id.clone(), bridge_error(-32603, &message("timeout"), "timeout", Some(detail)))]
        );
    }
    driver.assert_alive_amid("p1");
    end_of_input(&mut driver, 0);
    let mut answered = all;
    answered.extend([json!("init"), json!("p1")]);
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
}

/// Exit codes: 0 at the end of stdin, also when the upstream command leaves
/// a process behind that keeps the upstream's stdout open (a wrapper such
/// as `sh -c` or `npx` whose child ignores the end of its stdin). The child
/// is killed after the grace; the bridge must not wait for the pipe.
#[test]
fn the_end_of_the_input_exits_0_even_when_a_grandchild_keeps_the_upstream_stdout_open() {
    let fake = fake_upstream(&["--linger"]).join(" ");
    let upstream = vec!["sh".to_string(), "-c".to_string(), format!("{fake}; true")];
    let mut driver = Driver::start(&["--test-shutdown-grace-ms", "300"], &upstream);
    driver.initialize();
    driver.assert_alive_amid("p1");
    end_of_input(&mut driver, 0);
    assert_answered_once(&driver.seen, &[json!("init"), json!("p1")]);
}

/// Error table, discover_failed: an upstream that stalls before its
/// discover answer fails the initialize once, with the limit in
/// `data.detail`; the bridge stays open (awaiting_initialize), and exits 0
/// at the end of stdin.
#[test]
fn an_upstream_that_stalls_on_discover_fails_initialize_once_and_the_bridge_stays_open() {
    let mut driver = Driver::start(&["--discover-timeout", "1"], &fake_upstream(&["--discover", "stall"]));
    let response = driver.initialize_with(json!({}));
    assert_eq!(
        response,
        err(
            json!("init"),
            bridge_error(-32603, &message("discover_failed"), "discover_failed", Some("no response in 1 s"))
        )
    );
    driver.assert_alive_amid("p1");
    end_of_input(&mut driver, 0);
    assert_answered_once(&driver.seen, &[json!("init"), json!("p1")]);
    assert_only_answered(&driver.seen, &[json!("init"), json!("p1")]);
}

/// "Message of the client / What the front end does": after the loss of
/// the upstream server the state is `closing` ("The input ended, or the
/// upstream server stopped"), where "the request gets -32603" (the cause
/// upstream_exited), whatever its method; only ping, logging/setLevel and
/// server/discover keep their rules.
#[test]
fn after_the_loss_of_the_upstream_every_request_gets_upstream_exited_except_ping_set_level_and_discover() {
    let mut driver = Driver::start(&["--test-shutdown-grace-ms", "3000"], &fake_upstream(&[]));
    driver.initialize();
    assert_eq!(driver.call(json!("dies"), "tools/call", json!({"name": "exit"})), upstream_exited(json!("dies")));
    assert_eq!(driver.call(json!(1), "tools/list", json!({})), upstream_exited(json!(1)));
    assert_eq!(driver.call(json!(2), "logging/setLevel", json!({"level": "info"}))["result"], json!({}));
    assert_eq!(
        driver.call(json!(3), "server/discover", json!({})),
        err(json!(3), bridge_error(-32601, &message("method_not_found"), "method_not_found", None))
    );
    driver.assert_alive_amid("p1");
    let init =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
    assert_eq!(driver.call(json!(4), "initialize", init), upstream_exited(json!(4)));
    assert_eq!(driver.call(json!(5), "tasks/list", json!({})), upstream_exited(json!(5)));
    end_of_input(&mut driver, 1);
}
