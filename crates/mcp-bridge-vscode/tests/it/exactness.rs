//! Exactness of the rules whose effect a simple test does not see: where
//! the log level goes and when a change applies, the complete notification
//! of URL steps after every end of the rounds without a result, client
//! errors for sampling and roots, progress and cancellation, the wait of the
//! request-state warning, and the time limit of each class (behaviour spec,
//! "Forwarded requests (M1)", "Progress (M1)", "Logging (M3)", "Input
//! requests (M2)", "Error table").
//!
//! Each test runs the real binary against the scripted fake upstream
//! (tests/fake/upstream.py), compares whole messages, and bounds each wait.

mod shapes;
mod time_limits;

use crate::support::driver::{self, assert_never_answered, assert_no_panic, err, is_response, ok, Driver};
use crate::support::fake::{fake_upstream, form, input_required, url, Record};
use crate::support::{bridge_error, message};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// A client that declares every kind of input request.
fn all_caps() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
}

const STATE_TEXT: &str = "The upstream server did not accept the saved state of the request. The answer possibly came after the time limit of the state, or the server started again. Upstream message: state expired.";
/// The warning line of the request-state rule, up to its wait.
const STATE_WARNING: &str =
    "the upstream server did not accept the saved state of the request after the client's answers";
/// The reason of `notifications/cancelled` toward the upstream for a timeout.
const TIMED_OUT: &str = "the request timed out";
const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

// --- Helpers ---------------------------------------------------------------

fn timeout(id: Value, detail: &str) -> Value {
    err(id, bridge_error(-32603, &message("timeout"), "timeout", Some(detail)))
}

fn roots() -> Value {
    json!({"method": "roots/list"})
}

fn sampling() -> Value {
    json!({"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}})
}

/// The question of a roots request without params, as the client gets it.
fn roots_question(id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "roots/list", "params": {}})
}

/// The question of a URL step, as the client gets it.
fn url_question(id: &str, address: &str, elicitation_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create",
        "params": {"mode": "url", "message": "Sign in", "url": address, "elicitationId": elicitation_id}})
}

/// The Continue form of a URL that the user accepted ("The Continue form").
fn continue_question(id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "mode": "form",
        "message": "Complete the step in the web browser. Then select Continue.",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "continue": {"type": "string", "title": "Continue", "enum": ["Continue"], "default": "Continue"}
            },
            "required": ["continue"]
        }
    }})
}

fn complete(elicitation_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": elicitation_id}})
}

fn withdrawn(question: &str, reason: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": question, "reason": reason}})
}

fn script_call(id: Value, steps: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "script", "arguments": {"steps": steps}}})
}

fn script_prompt(id: Value, steps: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "prompts/get", "params": {"name": "script", "arguments": {"steps": steps}}})
}

fn answer(id: &str, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The result the fake's `echo` step gives for these input responses
/// (the JSON text with sorted keys, as Python's `json.dumps` writes it).
fn echo_text(responses: &str) -> Value {
    json!({"content": [{"type": "text", "text": responses}]})
}

/// Starts the bridge with the fake and a client of every input kind.
fn bridge(options: &[&str], fake: &[&str]) -> Driver {
    let mut bridge = Driver::start(options, &fake_upstream(fake));
    let init = bridge.initialize_with(all_caps());
    assert!(init.get("result").is_some(), "{init}");
    bridge
}

/// The `_meta` the upstream client adds to each request and stream of a
/// client that declared nothing, with a level.
fn meta_with_level(level: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "harness", "version": "1.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/logLevel": level
    })
}

// --- Logging (M3) ----------------------------------------------------------

/// "Logging (M3)": "logging/setLevel sets the level of the client in each
/// state ... Thus each upstream request and each listen stream has this
/// level in its _meta." A level set in `initializing` (the setLevel answer
/// comes before the initialize result, which waits for a late discover)
/// goes with a later `tools/call` and with the `subscriptions/listen`
/// stream that `notifications/initialized` opens.
#[test]
fn a_level_set_during_initializing_goes_with_later_calls_and_the_listen_stream() {
    let record = Record::new("level-initializing");
    let caps = r#"{"tools":{"listChanged":true},"logging":{}}"#;
    let mut bridge = Driver::start(
        &[],
        &fake_upstream(&["--discover-delay-ms", "600", "--capabilities", caps, "--record", record.arg()]),
    );
    bridge.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "harness", "version": "1.0"}}}));
    // The next line is the answer to setLevel (Driver::request checks the
    // id): the initialize was still running.
    let set = bridge.request(json!(1), "logging/setLevel", json!({"level": "notice"}));
    assert_eq!(set, ok(json!(1), json!({})));
    let init = bridge.recv();
    assert_eq!(init["id"], 0, "{init}");
    assert_eq!(init["result"]["capabilities"]["tools"], json!({"listChanged": true}), "{init}");
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let response = bridge.request(json!(2), "tools/call", json!({"name": "echo"}));
    assert_eq!(response["result"]["content"], json!([{"type": "text", "text": "echo"}]), "{response}");
    let call = record.request("tools/call", |p| p["name"] == "echo");
    assert_eq!(call["params"]["_meta"], meta_with_level("notice"), "{call}");
    let listen = record.wait(1, "listen streams", |m| m["method"] == "subscriptions/listen");
    assert_eq!(
        listen[0]["params"],
        json!({"_meta": meta_with_level("notice"), "notifications": {"toolsListChanged": true}}),
        "{}",
        listen[0]
    );
}

/// "Logging (M3)": "A change of the level applies from the next round of a
/// request." Round 1 of a multi round-trip `tools/call` went out with the
/// old level; the client changes it while the question of round 1 waits;
/// round 2 carries the new one.
#[test]
fn a_change_of_the_level_applies_from_the_next_round_of_a_request() {
    let record = Record::new("level-rounds");
    let mut bridge = bridge(&[], &["--record", record.arg()]);
    assert_eq!(bridge.request(json!(1), "logging/setLevel", json!({"level": "error"})), ok(json!(1), json!({})));
    bridge.send(&script_call(json!(2), json!([input_required(json!({"who": form("Name?")})), "echo"])));
    let question = bridge.recv();
    assert_eq!(question["id"], "b-1", "{question}");
    assert_eq!(bridge.request(json!(3), "logging/setLevel", json!({"level": "debug"})), ok(json!(3), json!({})));
    bridge.send(&answer("b-1", json!({"action": "accept", "content": {"name": "Ada"}})));
    assert_eq!(bridge.recv(), ok(json!(2), echo_text(r#"{"who": {"action": "accept", "content": {"name": "Ada"}}}"#)));

    let first = record.request("tools/call", |p| p["name"] == "script" && p.get("requestState").is_none());
    let second = record.request("tools/call", |p| p["name"] == "script" && p["requestState"] == "1");
    assert_eq!(first["params"]["_meta"][LOG_LEVEL], "error", "round 1: {first}");
    assert_eq!(second["params"]["_meta"][LOG_LEVEL], "debug", "round 2: {second}");
}

// --- The complete notification when the rounds stop without a result ------

/// "When the rounds stop without a result, the client also gets the
/// notification for each URL that the user accepted", here after the
/// request-state rule on `tools/call` (the `reject` of round 2 after a
/// round with an accepted and a declined URL): the notification for the
/// accepted URL only goes out, before the `isError` result.
#[test]
fn the_request_state_rule_on_tools_call_completes_each_accepted_url_before_the_result() {
    let mut bridge = bridge(&[], &[]);
    let urls = json!({"a": url("https://example.com/a"), "b": url("https://example.com/b")});
    bridge.send(&script_call(json!(1), json!([input_required(urls), "reject"])));
    let (q1, q2) = (bridge.recv(), bridge.recv());
    let (qa, qb) = if q1["params"]["url"] == "https://example.com/a" { (q1, q2) } else { (q2, q1) };
    let (ida, idb) = (qa["id"].as_str().unwrap_or_default(), qb["id"].as_str().unwrap_or_default());
    let eid = qa["params"]["elicitationId"].as_str().unwrap_or_default().to_owned();
    assert_eq!(qa, url_question(ida, "https://example.com/a", &eid));
    let eid_b = qb["params"]["elicitationId"].as_str().unwrap_or_default().to_owned();
    assert_eq!(qb, url_question(idb, "https://example.com/b", &eid_b));
    assert_ne!(eid, eid_b, "each URL step has its own id");
    bridge.send(&answer(ida, json!({"action": "accept"})));
    bridge.send(&answer(idb, json!({"action": "decline"})));
    assert_eq!(bridge.recv(), complete(&eid));
    assert_eq!(
        bridge.recv(),
        ok(
            json!(1),
            json!({"content": [{"type": "text", "text": format!("{STATE_TEXT} Run the tool again.")}], "isError": true})
        )
    );
    bridge.assert_alive();
}

/// "When the rounds stop without a result, the client also gets the
/// notification ...", after the request-state rule on `prompts/get`: the
/// notification, then the error with the upstream code and data.
#[test]
fn the_request_state_rule_on_prompts_get_completes_the_accepted_url_before_the_error() {
    let mut bridge = bridge(&[], &[]);
    let steps = json!([input_required(json!({"login": url("https://example.com/login")})), "reject"]);
    bridge.send(&script_prompt(json!(1), steps));
    assert_eq!(bridge.recv(), url_question("b-1", "https://example.com/login", "elicitation-1"));
    bridge.send(&answer("b-1", json!({"action": "accept"})));
    assert_eq!(bridge.recv(), complete("elicitation-1"));
    assert_eq!(
        bridge.recv(),
        err(
            json!(1),
            json!({"code": -32602, "message": format!("{STATE_TEXT} Send the request again."), "data": {"reason": "expired"}})
        )
    );
    bridge.assert_alive();
}

/// "When the rounds stop without a result ... This occurs after an error":
/// an upstream error in round 2 goes to the client without a change
/// ("Error table"), after the notification of the accepted URL.
#[test]
fn an_upstream_error_in_a_later_round_completes_the_accepted_url_before_the_error() {
    let mut bridge = bridge(&[], &[]);
    let failure = json!({"code": -32001, "message": "the upstream failed", "data": {"n": 1}});
    let steps = json!([input_required(json!({"login": url("https://example.com/login")})), {"answer_error": failure}]);
    bridge.send(&script_call(json!(1), steps));
    assert_eq!(bridge.recv(), url_question("b-1", "https://example.com/login", "elicitation-1"));
    bridge.send(&answer("b-1", json!({"action": "accept"})));
    assert_eq!(bridge.recv(), complete("elicitation-1"));
    assert_eq!(bridge.recv(), err(json!(1), failure));
    bridge.assert_alive();
}

/// "... after the limit of the rounds": 11 rounds that ask for the same
/// URL. After its acceptance, each later round gets the Continue form
/// ("A later round asks again for a URL that the user accepted"), the step
/// stays open (no notification while each result still asks for it), and
/// the tenth result gives `too_many_rounds` after the notification.
#[test]
fn too_many_rounds_complete_the_accepted_url_before_the_error() {
    let mut bridge = bridge(&[], &[]);
    let ask = input_required(json!({"login": url("https://example.com/login")}));
    let steps: Vec<Value> = (0..11).map(|_| ask.clone()).collect();
    bridge.send(&script_call(json!(1), Value::Array(steps)));
    assert_eq!(bridge.recv(), url_question("b-1", "https://example.com/login", "elicitation-1"));
    bridge.send(&answer("b-1", json!({"action": "accept"})));
    for n in 2..=9 {
        let id = format!("b-{n}");
        assert_eq!(bridge.recv(), continue_question(&id), "round {n}");
        bridge.send(&answer(&id, json!({"action": "accept", "content": {"continue": "Continue"}})));
    }
    assert_eq!(bridge.recv(), complete("elicitation-1"));
    assert_eq!(
        bridge.recv(),
        err(json!(1), bridge_error(-32603, &message("too_many_rounds"), "too_many_rounds", None))
    );
    bridge.assert_alive();
}

/// "... the rounds stop without a result": the upstream process exits
/// during round 2. The notification of the accepted URL goes out before
/// `upstream_exited` ("Error table": each request in flight gets it); the
/// bridge then exits with 1 at the end of the input.
#[test]
fn the_loss_of_the_upstream_in_a_later_round_completes_the_accepted_url_before_the_error() {
    let mut bridge = bridge(&["--test-shutdown-grace-ms", "5000"], &[]);
    let steps = json!([input_required(json!({"login": url("https://example.com/login")})), "exit"]);
    bridge.send(&script_call(json!(1), steps));
    assert_eq!(bridge.recv(), url_question("b-1", "https://example.com/login", "elicitation-1"));
    bridge.send(&answer("b-1", json!({"action": "accept"})));
    assert_eq!(bridge.recv(), complete("elicitation-1"));
    assert_eq!(
        bridge.recv(),
        err(json!(1), bridge_error(-32603, &message("upstream_exited"), "upstream_exited", None))
    );
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(1));
}

/// "Cancellation (M1)": "At the end of the input, the front end cancels
/// each request in flight. These requests get no response." With "When the
/// rounds stop without a result ... after a cancellation": the input ends
/// while round 2 is in flight upstream; the client gets the notification of
/// the accepted URL, and no response; the exit code is 0.
#[test]
fn the_end_of_the_input_in_a_later_round_completes_the_accepted_url_and_gives_no_response() {
    let record = Record::new("end-of-input");
    let mut driver = Driver::start(&[], &fake_upstream(&["--record", record.arg()]));
    let init = driver.initialize_with(all_caps());
    assert!(init.get("result").is_some(), "{init}");
    let steps = json!([input_required(json!({"login": url("https://example.com/login")})), "stall"]);
    driver.send(&script_call(json!(1), steps));
    assert_eq!(driver.recv(), url_question("b-1", "https://example.com/login", "elicitation-1"));
    driver.send(&answer("b-1", json!({"action": "accept"})));
    // Round 2 reached the upstream, which never answers it.
    record.request("tools/call", |p| p["requestState"] == "1");
    driver.close_stdin();
    let ended = driver.wait_exit(Duration::from_secs(10));
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "stderr:\n{}", ended.stderr);
    let after: Vec<Value> = driver.seen.iter().skip_while(|m| m["id"] != "b-1").skip(1).cloned().collect();
    assert_eq!(after, vec![complete("elicitation-1")], "everything after the question; all: {:?}", driver.seen);
    assert_never_answered(&driver.seen, &[json!(1)]);
}

// --- Client errors for sampling and roots ----------------------------------

/// "An error of the client for a sampling or roots request also goes to the
/// original request without a change (M2)": also the code `-32042`, which
/// only an upstream error gets rewritten for, with its message and data.
#[test]
fn a_client_error_with_code_32042_for_sampling_and_roots_reaches_the_request_unchanged() {
    let mut bridge = bridge(&[], &[]);
    let sampling_error = json!({"code": -32042, "message": "The user must sign in first",
        "data": {"elicitations": [{"mode": "url", "url": "https://example.com/x", "elicitationId": "e-9"}]}});
    bridge.send(&script_call(json!(1), json!([input_required(json!({"s": sampling()}))])));
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "id": "b-1", "method": "sampling/createMessage", "params": sampling()["params"]})
    );
    bridge.send(&json!({"jsonrpc": "2.0", "id": "b-1", "error": sampling_error}));
    assert_eq!(bridge.recv(), err(json!(1), sampling_error));

    let roots_error = json!({"code": -32042, "message": "No roots for you", "data": {"why": ["policy", 7]}});
    bridge.send(&script_prompt(json!(2), json!([input_required(json!({"r": roots()}))])));
    assert_eq!(bridge.recv(), roots_question("b-2"));
    bridge.send(&json!({"jsonrpc": "2.0", "id": "b-2", "error": roots_error}));
    assert_eq!(bridge.recv(), err(json!(2), roots_error));
    bridge.assert_alive();
}

// --- Progress and cancellation ---------------------------------------------

/// "Progress (M1)": "Progress goes out only before the response, and never
/// after a cancellation", and "Cancellation (M1)": "A canceled request gets
/// no response." The upstream floods progress until it gets the
/// cancellation, then answers anyway. The client sends `ping` right after
/// its `notifications/cancelled`: the bridge reads lines in order and its
/// output is FIFO, so no progress of that request may come after the
/// ping's response. The late answer is dropped, and the bridge keeps
/// serving.
#[test]
fn no_progress_after_a_cancellation_in_a_flood_and_no_response() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    driver.initialize();
    let flood = json!("flood");
    let arguments = json!({"kinds": ["progress"], "count": 1_000_000, "until_cancel": true});
    driver.send_request(
        flood.clone(),
        "tools/call",
        json!({"name": "flood", "arguments": arguments, "_meta": {"progressToken": "tok"}}),
    );
    let is_progress = |m: &Value| m["method"] == "notifications/progress" && m["params"]["progressToken"] == "tok";
    driver.wait_for(is_progress, "the first progress of the flood");
    driver.send_burst(&[driver::cancel(&flood), driver::request(json!("fence"), "ping", json!({}))]);
    assert_eq!(driver.response(&json!("fence")), ok(json!("fence"), json!({})));
    // The fake answers the flood at the cancellation, before it reads the
    // next request: the answer of this one comes after that late answer.
    let after = driver.call(
        json!("after"),
        "tools/call",
        json!({"name": "result", "arguments": {"result": {"content": [{"type": "text", "text": "after"}]}}}),
    );
    assert_eq!(after, ok(json!("after"), json!({"content": [{"type": "text", "text": "after"}]})));
    driver.assert_alive_amid("alive");
    driver.close_stdin();
    let ended = driver.wait_exit(Duration::from_secs(10));
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "stderr:\n{}", ended.stderr);

    let fence = driver.seen.iter().position(|m| is_response(m) && m["id"] == "fence").unwrap_or(usize::MAX);
    let before = driver.seen[..fence].iter().filter(|m| is_progress(m)).count();
    let late: Vec<&Value> = driver.seen[fence..].iter().filter(|m| is_progress(m)).collect();
    assert!(before >= 1, "progress before the cancellation");
    assert!(late.is_empty(), "{} progress after the cancellation and the ping's response: {:?}", late.len(), late);
    assert_never_answered(&driver.seen, &[flood]);
}

// --- The request-state warning ---------------------------------------------

/// "The request-state rule": "It writes a warning line with the time of the
/// wait for the answers." The client answers round 1 about 300 ms after
/// the question; the upstream rejects round 2 1500 ms after it arrives.
/// The wait of the line (`waited=<n> ms`) covers only the wait for the
/// client: at least the client's delay, below the upstream's.
#[test]
fn the_request_state_warning_gives_the_wait_for_the_client_in_ms() {
    let mut driver = Driver::start(&[], &fake_upstream(&[]));
    let init = driver.initialize_with(all_caps());
    assert!(init.get("result").is_some(), "{init}");
    let steps = json!([input_required(json!({"who": form("Name?")})), {"after_ms": 1500, "then": "reject"}]);
    driver.send(&script_call(json!(1), steps));
    let question = driver.recv();
    assert_eq!(question["id"], "b-1", "{question}");
    let asked = Instant::now();
    // The client's delay is the quantity under test.
    std::thread::sleep(Duration::from_millis(300));
    let delay = asked.elapsed();
    driver.send(&answer("b-1", json!({"action": "accept", "content": {"name": "Ada"}})));
    let upstream_start = Instant::now();
    assert_eq!(
        driver.response(&json!(1)),
        ok(
            json!(1),
            json!({"content": [{"type": "text", "text": format!("{STATE_TEXT} Run the tool again.")}], "isError": true})
        )
    );
    assert!(upstream_start.elapsed() >= Duration::from_millis(1500), "the upstream rejected late");
    driver.wait_stderr(STATE_WARNING, 1);
    let stderr = driver.stderr_text();
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains(STATE_WARNING)).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    // The fields of the request's span (its id and method) end the line.
    let prefix = format!("[mcp-bridge-vscode] WARN {STATE_WARNING} waited=");
    let waited = lines[0]
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(" ms id=1 method=tools/call"))
        .and_then(|n| n.parse::<u128>().ok())
        .unwrap_or_else(|| panic!("the warning line is not {prefix}<n> ms id=1 method=tools/call: {}", lines[0]));
    assert!(waited >= delay.as_millis(), "waited={waited} ms, but the client took {} ms", delay.as_millis());
    assert!(waited < 1500, "waited={waited} ms also counts the upstream's 1500 ms");
}
