//! Fault injection with real processes: the real binary
//! between a counting client driver (`support::driver`) and the scripted
//! fake upstream (tests/fake/upstream.py), which misbehaves on command.
//!
//! Each scenario checks the exact error objects of the behaviour spec's
//! "Error table" with their ids, that every wait is bounded (a hang fails
//! the step), that the bridge's stderr has no panic, the exit code ("0 at
//! the end of stdin, 1 when the upstream command stops"), and, counted per
//! id over everything the bridge wrote until it exited, that every request
//! got exactly one response or, where the spec says so, none.

use crate::support::driver::*;
use crate::support::fake::{fake_upstream, Record};
use crate::support::{bridge_error, message};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The longest a bridge may take to exit once it should.
const EXIT: Duration = Duration::from_secs(10);

/// The debug line of the bridge for an upstream response it drops.
const DROPPED_UNKNOWN: &str = "dropped an upstream response with an unknown id";

fn text_response(id: Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
}

fn upstream_exited(id: Value) -> Value {
    err(id, bridge_error(-32603, &message("upstream_exited"), "upstream_exited", None))
}

/// The error of `closed`: the same message as `upstream_exited`, another cause.
fn closed(id: Value) -> Value {
    err(id, bridge_error(-32603, &message("closed"), "closed", None))
}

/// Whether the process runs: it exists and is not a zombie (a process
/// that ended and whose parent has not collected it yet).
fn process_runs(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state is the first field after the name, which ends with ")".
    stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
}

/// The responses whose id is `id`.
fn responses_to<'a>(messages: &'a [Value], id: &Value) -> Vec<&'a Value> {
    messages.iter().filter(|m| is_response(m) && &m["id"] == id).collect()
}

/// Every response in `messages` has an id of `ids`: nothing else was answered.
#[track_caller]
fn assert_only_answered(messages: &[Value], ids: &[Value]) {
    let known: std::collections::HashSet<String> = ids.iter().map(Value::to_string).collect();
    for (id, n) in responses_per_id(messages) {
        assert!(known.contains(&id), "a response ({n}) to {id}, which is no request of the client");
    }
}
fn ids(range: std::ops::Range<i64>) -> Vec<Value> {
    range.map(Value::from).collect()
}

/// Closes stdin, waits for the exit and checks the code and the stderr.
#[track_caller]
fn end_of_input(driver: &mut Driver, code: i32) {
    driver.close_stdin();
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(code), "exit code; stderr:\n{}", ended.stderr);
}

// --- Faults of the upstream server -----------------------------------------

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

/// Waits until `done` holds, at most [`STEP`].
#[track_caller]
fn wait_until(done: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + STEP;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not in {STEP:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

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

// --- Faults of the client ----------------------------------------------------

/// "Cancellation (M1)": "At the end of the input, the front end cancels
/// each request in flight. These requests get no response." Exit code 0.
/// Half of them are answered by the upstream within the grace, when its
/// stdin ends: those late answers are dropped too.
#[test]
fn closing_stdin_with_256_requests_in_flight_answers_none_of_them_and_exits_0() {
    let record = Record::new("close");
    let mut driver = Driver::start_env(
        &["--test-shutdown-grace-ms", "1000"],
        &fake_upstream(&["--record", record.arg()]),
        &[("MCP_BRIDGE_LOG", "debug")],
    );
    driver.initialize();
    let in_flight = ids(0..256);
    let burst: Vec<Value> = in_flight
        .iter()
        .map(|id| {
            let n = id.as_i64().unwrap_or(0);
            if n % 2 == 0 {
                call_tool(id.clone(), "stall", json!({}))
            } else {
                call_tool(id.clone(), "at-eof", json!({}))
            }
        })
        .collect();
    driver.send_burst(&burst);
    driver.assert_alive_amid("p1");
    // All 256 are upstream, so all are in flight at the end of the input.
    record.wait_calls(256);
    let started = Instant::now();
    driver.close_stdin();
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "exit code; stderr:\n{}", ended.stderr);
    assert!(started.elapsed() < EXIT);
    // The 128 answers of the grace reached the bridge, which dropped them.
    let dropped = ended.stderr.matches(DROPPED_UNKNOWN).count();
    assert_eq!(dropped, 128, "late answers the bridge read and dropped");
    assert_never_answered(&driver.seen, &in_flight);
    // The upstream got one cancellation per call before its stdin ended.
    assert_eq!(record.cancels().len(), 256, "notifications/cancelled upstream");
    assert_answered_once(&driver.seen, &[json!("init"), json!("p1")]);
    assert_only_answered(&driver.seen, &[json!("init"), json!("p1")]);
}

/// "A request above the limit of 256 requests in flight" gets
/// too_many_requests at once and in order; the 256 in flight are then all
/// answered, in the reverse order, each with its own content.
#[test]
fn three_hundred_requests_at_once_give_256_results_and_44_too_many_requests() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let burst: Vec<Value> = (0..300).map(|i| call_tool(json!(i), "gather", json!({"count": 256, "tag": i}))).collect();
    driver.send_burst(&burst);
    let all = ids(0..300);
    driver.wait_responses(&all, STEP);
    end_of_input(&mut driver, 0);
    let responses: Vec<&Value> = driver.seen.iter().filter(|m| is_response(m) && m["id"] != "init").collect();
    let refused: Vec<i64> =
        responses.iter().filter(|r| r.get("error").is_some()).filter_map(|r| r["id"].as_i64()).collect();
    assert_eq!(refused, (256..300).collect::<Vec<i64>>(), "the extra requests are refused in order");
    for id in 256..300 {
        assert_eq!(
            responses_to(&driver.seen, &json!(id)),
            vec![&err(json!(id), bridge_error(-32603, &message("too_many_requests"), "too_many_requests", None))]
        );
    }
    let answered: Vec<i64> =
        responses.iter().filter(|r| r.get("result").is_some()).filter_map(|r| r["id"].as_i64()).collect();
    assert_eq!(answered, (0..256).rev().collect::<Vec<i64>>(), "the upstream's reverse order");
    for id in 0..256 {
        assert_eq!(responses_to(&driver.seen, &json!(id)), vec![&text_response(json!(id), &format!("gather {id}"))]);
    }
    let mut everything = all.clone();
    everything.push(json!("init"));
    assert_answered_once(&driver.seen, &everything);
    assert_only_answered(&driver.seen, &everything);
}

/// "Cancellation (M1)": canceling every request in flight answers none of
/// them, sends one notifications/cancelled upstream for each, and frees
/// every place: 256 new requests then fit and are all answered.
#[test]
fn canceling_everything_answers_nothing_and_frees_every_place() {
    let record = Record::new("cancel-all");
    let mut driver = Driver::start(&[], &fake_upstream(&["--record", record.arg()]));
    driver.initialize();
    let canceled = ids(0..256);
    let burst: Vec<Value> = canceled.iter().map(|id| call_tool(id.clone(), "stall", json!({}))).collect();
    driver.send_burst(&burst);
    driver.assert_alive_amid("p1");
    let cancels: Vec<Value> = canceled.iter().map(cancel).collect();
    driver.send_burst(&cancels);
    let upstream = record.wait_cancels(256);
    assert_eq!(upstream.len(), 256, "one cancellation upstream per request");
    assert!(upstream.iter().all(|c| c["params"]["reason"] == "the client canceled the request"));
    let calls: std::collections::BTreeSet<String> =
        record.messages().iter().filter(|m| m["method"] == "tools/call").map(|m| m["id"].to_string()).collect();
    let canceled_upstream: std::collections::BTreeSet<String> =
        upstream.iter().map(|c| c["params"]["requestId"].to_string()).collect();
    assert_eq!(calls, canceled_upstream, "each upstream call is canceled once");
    // Every place is free again.
    let again: Vec<Value> =
        (1000..1256).map(|i| call_tool(json!(i), "gather", json!({"count": 256, "tag": i}))).collect();
    driver.send_burst(&again);
    let later = ids(1000..1256);
    driver.wait_responses(&later, STEP);
    for id in 1000..1256 {
        assert_eq!(responses_to(&driver.seen, &json!(id)), vec![&text_response(json!(id), &format!("gather {id}"))]);
    }
    end_of_input(&mut driver, 0);
    assert_never_answered(&driver.seen, &canceled);
    let mut answered = later;
    answered.extend([json!("init"), json!("p1")]);
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
}

/// "Cancellation (M1)": "The client of zig-sdk then sends
/// notifications/cancelled to the upstream server", also when the server
/// is busy: it stops reading for 1.5 s while 250 calls of 2 KiB fill the
/// pipe and the write queue, and the client cancels them all. Every call
/// that reached the upstream gets its cancellation once, after the call;
/// a call whose line never went out gets none.
#[test]
fn a_busy_upstream_gets_the_cancellation_of_every_call_that_reached_it() {
    let record = Record::new("cancel-busy");
    let mut driver = Driver::start(&[], &fake_upstream(&["--record", record.arg()]));
    driver.initialize();
    driver.send(&call_tool(json!("pause"), "pause", json!({"ms": 1500})));
    record.wait_calls(1);
    let canceled = ids(0..250);
    let padding = "x".repeat(2048);
    let burst: Vec<Value> =
        canceled.iter().map(|id| call_tool(id.clone(), "stall", json!({"padding": padding}))).collect();
    driver.send_burst(&burst);
    driver.assert_alive_amid("p1");
    driver.send_burst(&canceled.iter().map(cancel).collect::<Vec<_>>());
    assert_eq!(driver.response(&json!("pause")), text_response(json!("pause"), "paused"));
    // A request queued after everything: its answer means that the fake
    // has read every line before it, the cancellations that waited too.
    let last = driver.call(json!("last"), "tools/list", json!({}));
    assert_eq!(last["id"], "last", "{last}");
    let messages = record.messages();
    let calls: Vec<String> = messages
        .iter()
        .filter(|m| m["method"] == "tools/call" && m["params"]["name"] == "stall")
        .map(|m| m["id"].to_string())
        .collect();
    let cancels = record.wait_cancels(calls.len());
    let canceled_upstream: Vec<String> = cancels.iter().map(|c| c["params"]["requestId"].to_string()).collect();
    let sorted = |mut ids: Vec<String>| {
        ids.sort();
        ids
    };
    assert_eq!(sorted(canceled_upstream.clone()), sorted(calls.clone()), "each call that went out is canceled once");
    for id in &calls {
        let call_at = messages.iter().position(|m| m["method"] == "tools/call" && &m["id"].to_string() == id);
        let cancel_at = messages
            .iter()
            .position(|m| m["method"] == "notifications/cancelled" && &m["params"]["requestId"].to_string() == id);
        assert!(call_at < cancel_at || cancel_at.is_none(), "the cancellation of {id} came before its call");
    }
    assert!(cancels.iter().all(|c| c["params"]["reason"] == "the client canceled the request"));
    end_of_input(&mut driver, 0);
    assert_never_answered(&driver.seen, &canceled);
}

/// "Pending requests of the bridge": "The reader drops an answer whose id
/// is unknown, numeric, null or already resolved, with only a debug line.
/// The client gets no answer for it." A withdrawn question gets
/// notifications/cancelled with the reason of the event, and its late
/// answer is dropped.
#[test]
fn answers_to_unknown_or_resolved_bridge_ids_get_no_answer() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    let init = driver.initialize_with(json!({"elicitation": {"form": {}}}));
    assert!(init.get("result").is_some(), "{init}");
    let form = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}});
    let steps = json!([{"resultType": "input_required", "inputRequests": {"who": form}}]);
    // Answers to questions the bridge never asked, before any question.
    let strays = [
        json!({"jsonrpc": "2.0", "id": "b-1", "result": {"action": "decline"}}),
        json!({"jsonrpc": "2.0", "id": "b-999", "result": {}}),
        json!({"jsonrpc": "2.0", "id": "b-", "error": {"code": -1, "message": "no"}}),
        json!({"jsonrpc": "2.0", "id": "b-x", "result": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        json!({"jsonrpc": "2.0", "id": null, "result": {}}),
    ];
    driver.send_burst(&strays);
    driver.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"b-77\",\"result\":{oops}\n");
    driver.assert_alive_amid("p1");

    driver.send(&call_tool(json!("ask"), "script", json!({"steps": steps})));
    let question = driver.recv();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let qid = question["id"].clone();
    assert_eq!(qid, "b-1", "the stray answers took no id");
    // Unknown ids around the real answer, then the answer twice and an
    // error for the same id: only the first counts.
    driver.send_burst(&[
        json!({"jsonrpc": "2.0", "id": "b-2", "result": {"action": "decline"}}),
        json!({"jsonrpc": "2.0", "id": qid, "result": {"action": "accept", "content": {"name": "Ada"}}}),
        json!({"jsonrpc": "2.0", "id": qid, "result": {"action": "decline"}}),
        json!({"jsonrpc": "2.0", "id": qid, "error": {"code": -32000, "message": "late"}}),
    ]);
    driver.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"b-1\",\"result\":{oops}\n");
    let answer = driver.response(&json!("ask"));
    // The fake echoes the inputResponses it got as JSON text.
    let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default();
    let echoed: Value = serde_json::from_str(text).unwrap_or_default();
    assert_eq!(echoed, json!({"who": {"action": "accept", "content": {"name": "Ada"}}}), "{answer}");
    assert_eq!(answer, text_response(json!("ask"), text));

    // A question withdrawn by the cancel of its request; its late answer is dropped.
    driver.send(&call_tool(json!("gone"), "script", json!({"steps": steps})));
    let question = driver.recv();
    let qid = question["id"].clone();
    assert_eq!(qid, "b-2", "{question}");
    driver.cancel(&json!("gone"));
    let withdrawn = driver.recv();
    assert_eq!(
        withdrawn,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "b-2", "reason": "the client canceled the request"}})
    );
    driver.send(&json!({"jsonrpc": "2.0", "id": qid, "result": {"action": "accept", "content": {"name": "Late"}}}));
    driver.assert_alive_amid("p2");
    end_of_input(&mut driver, 0);
    assert_never_answered(&driver.seen, &[json!("gone")]);
    let all = [json!("init"), json!("p1"), json!("ask"), json!("p2")];
    assert_answered_once(&driver.seen, &all);
    assert_only_answered(&driver.seen, &all);
}

/// "Lines that are not valid": huge lines (line_too_long, the id from
/// either end, else null) and deep lines (too_deep, without parsing them)
/// between valid requests; every line gets exactly its one answer, in the
/// order of the lines, and the valid ones are served.
#[test]
fn huge_and_deep_lines_between_valid_ones_each_get_their_one_answer() {
    let limit = 65_536;
    let mut driver = Driver::start(&["--max-line-bytes", &limit.to_string()], &fake_upstream(&[]));
    driver.initialize();
    let pad = "x".repeat(1 << 20);
    let deep = "[".repeat(60_000);
    let ping = |id: &str| format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"ping\"}}\n");
    let lines: Vec<String> = vec![
        ping("v1"),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":\"h-head\",\"method\":\"tools/call\",\"params\":{{\"p\":\"{pad}\"}}}}\n"),
        ping("v2"),
        format!("{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"p\":\"{pad}\"}},\"id\":\"h-tail\"}}\n"),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":\"d-open\",\"method\":\"ping\",\"params\":{deep}\n"),
        ping("v3"),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"d-closed\",\"method\":\"ping\",\"params\":{{\"a\":{}{}}}}}\n",
            "[".repeat(5000),
            "]".repeat(5000)
        ),
        format!("{{\"p\":\"{pad}\"}}\n"),
        format!("{deep}\n"),
        ping("v4"),
        format!("{pad}\n"),
        ping("v5"),
    ];
    let mut bytes = Vec::new();
    for line in &lines {
        bytes.extend_from_slice(line.as_bytes());
    }
    driver.send_raw(&bytes);
    driver.send(&call_tool(json!("v6"), "unknown-id", json!({})));
    let too_long =
        bridge_error(-32600, &message("line_too_long"), "line_too_long", Some(&format!("limit: {limit} bytes")));
    let too_deep = bridge_error(-32600, &message("too_deep"), "too_deep", Some("limit: 64 levels"));
    let ok = |id: &str| json!({"jsonrpc": "2.0", "id": id, "result": {}});
    let expected = vec![
        ok("v1"),
        err(json!("h-head"), too_long.clone()),
        ok("v2"),
        err(json!("h-tail"), too_long.clone()),
        err(json!("d-open"), too_deep.clone()),
        ok("v3"),
        err(json!("d-closed"), too_deep.clone()),
        err(json!(null), too_long.clone()),
        err(json!(null), too_deep),
        ok("v4"),
        err(json!(null), too_long),
        ok("v5"),
        text_response(json!("v6"), "real"),
    ];
    let got: Vec<Value> = expected.iter().map(|_| driver.recv()).collect();
    assert_eq!(got, expected);
    end_of_input(&mut driver, 0);
    let counts = responses_per_id(&driver.seen);
    assert_eq!(counts.get("null"), Some(&3), "three lines without an id");
    for id in ["v1", "v2", "v3", "v4", "v5", "v6", "h-head", "h-tail", "d-open", "d-closed", "init"] {
        assert_eq!(counts.get(&json!(id).to_string()), Some(&1), "{id}");
    }
    assert_eq!(counts.len(), 12, "{counts:?}");
}

/// The same at the default limit of 64 MiB: a line of exactly one byte
/// over `--max-line-bytes` (67108864) gets line_too_long with its id, and
/// the next line is served.
#[test]
fn a_line_one_byte_over_the_default_limit_gets_line_too_long_and_the_next_is_served() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let limit = 64 * 1024 * 1024;
    let head = "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"ping\",\"params\":{\"p\":\"";
    let tail = "\"}}";
    let mut line = String::with_capacity(limit + 2);
    line.push_str(head);
    line.push_str(&"x".repeat(limit + 1 - head.len() - tail.len()));
    line.push_str(tail);
    assert_eq!(line.len(), limit + 1);
    line.push('\n');
    line.push_str("{\"jsonrpc\":\"2.0\",\"id\":\"next\",\"method\":\"ping\"}\n");
    driver.send_raw(line.as_bytes());
    assert_eq!(
        driver.recv(),
        err(
            json!("big"),
            bridge_error(-32600, &message("line_too_long"), "line_too_long", Some("limit: 67108864 bytes"))
        )
    );
    assert_eq!(driver.recv(), json!({"jsonrpc": "2.0", "id": "next", "result": {}}));
    end_of_input(&mut driver, 0);
    assert_answered_once(&driver.seen, &[json!("init"), json!("big"), json!("next")]);
    assert_only_answered(&driver.seen, &[json!("init"), json!("big"), json!("next")]);
}

/// Bad lines of the client in the middle of requests in flight: a parse
/// error and a shape error each get their one answer, and do not disturb
/// the requests in flight (each answered once).
#[test]
fn bad_lines_during_requests_in_flight_do_not_disturb_them() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let mut burst = Vec::new();
    for i in 0..100 {
        burst.extend(line(&call_tool(json!(i), "gather", json!({"count": 100, "tag": i}))));
        if i % 10 == 0 {
            burst.extend(format!("{{\"jsonrpc\":\"2.0\",\"id\":\"bad-{i}\",oops}}\n").into_bytes());
            burst.extend(format!("{{\"jsonrpc\":\"1.0\",\"id\":\"shape-{i}\",\"method\":\"ping\"}}\n").into_bytes());
        }
    }
    driver.send_raw(&burst);
    let all = ids(0..100);
    driver.wait_responses(&all, STEP);
    end_of_input(&mut driver, 0);
    let mut answered = all.clone();
    answered.push(json!("init"));
    for i in (0..100).step_by(10) {
        let bad = json!(format!("bad-{i}"));
        let shape = json!(format!("shape-{i}"));
        assert_eq!(
            responses_to(&driver.seen, &bad),
            vec![&err(bad.clone(), bridge_error(-32700, &message("parse_error"), "parse_error", None))]
        );
        assert_eq!(
            responses_to(&driver.seen, &shape),
            vec![&err(
                shape.clone(),
                bridge_error(-32600, &message("invalid_request_shape"), "invalid_request_shape", None)
            )]
        );
        answered.extend([bad, shape]);
    }
    for i in 0..100 {
        assert_eq!(responses_to(&driver.seen, &json!(i)), vec![&text_response(json!(i), &format!("gather {i}"))]);
    }
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
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

/// "Pending requests of the bridge": "The reader puts each answer into the
/// table at once, also at the limit of requests in flight." 256 requests
/// each wait for an answer of the client; a 257th is refused; the 256
/// answers all get through, and each request is answered once.
#[test]
fn answers_of_the_client_get_through_at_the_limit_of_requests_in_flight() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    let init = driver.initialize_with(json!({"elicitation": {"form": {}}}));
    assert!(init.get("result").is_some(), "{init}");
    let form = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}});
    let steps = json!([{"resultType": "input_required", "inputRequests": {"who": form}}]);
    let burst: Vec<Value> = (0..256).map(|i| call_tool(json!(i), "script", json!({"steps": steps}))).collect();
    driver.send_burst(&burst);
    let deadline = Instant::now() + STEP;
    let questions = loop {
        let questions: Vec<Value> =
            driver.seen.iter().filter(|m| m["method"] == "elicitation/create").map(|m| m["id"].clone()).collect();
        if questions.len() == 256 {
            break questions;
        }
        assert!(Instant::now() < deadline, "{} of 256 questions came", questions.len());
        driver.drain_for(Duration::from_millis(50));
    };
    let extra = driver.call(json!("extra"), "tools/call", json!({"name": "unknown-id"}));
    assert_eq!(
        extra,
        err(json!("extra"), bridge_error(-32603, &message("too_many_requests"), "too_many_requests", None))
    );
    let answers: Vec<Value> = questions
        .iter()
        .map(|q| json!({"jsonrpc": "2.0", "id": q, "result": {"action": "accept", "content": {"name": q}}}))
        .collect();
    driver.send_burst(&answers);
    let all = ids(0..256);
    driver.wait_responses(&all, STEP);
    for id in &all {
        let response = responses_to(&driver.seen, id)[0].clone();
        let text = response["result"]["content"][0]["text"].as_str().unwrap_or_default();
        let echoed: Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(echoed["who"]["action"], "accept", "{response}");
    }
    end_of_input(&mut driver, 0);
    let mut answered = all;
    answered.extend([json!("init"), json!("extra")]);
    assert_answered_once(&driver.seen, &answered);
    assert_only_answered(&driver.seen, &answered);
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
