//! Attacks on the shared child and `/health` (docs/decisions.md, "One
//! upstream for every session", "The loss of the shared child",
//! "Health"): what one session, or an unauthenticated prober, can do to
//! another session's work or to the face. Each test names the rule it
//! holds the face to.

use super::*;
use crate::support::fake::{fake_upstream, form, input_required, Record};
use crate::support::http::{assert_refused, Next};
use std::time::{Duration, Instant};

mod health;
mod listen;

fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The messages of a stream within `wait` (priming events skipped).
fn messages_within(events: &mut crate::support::http::Events, wait: Duration) -> Vec<Value> {
    let deadline = Instant::now() + wait;
    let mut found = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return found;
        }
        match events.next_within(left) {
            Next::Event(event) if event.data.is_empty() => {}
            Next::Event(event) => found.push(serde_json::from_str(&event.data).unwrap_or(Value::Null)),
            Next::End | Next::Quiet => return found,
        }
    }
}

/// The log messages among `messages`.
fn logs(messages: &[Value]) -> Vec<&Value> {
    messages.iter().filter(|m| m["method"] == "notifications/message").collect()
}

// --- Cancellation, progress, input rounds: each session's own.

/// "cancellation ... stay each session's": sessions A and B both call
/// `after-cancel` with the client id 7; A cancels its 7. Exactly one
/// `notifications/cancelled` reaches the child, for A's upstream request;
/// B's call stays in flight and is canceled only by B's own cancel.
#[test]
fn attack_a_cancel_with_the_same_client_id_reaches_only_its_own_sessions_request() {
    let record = Record::new("cancel");
    let face = Face::start(&[], &fake_upstream(&["--record", record.arg()]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let mut a_call = a.stream(&face, &call(json!(7), "after-cancel", json!({"who": "a"})));
    let mut b_call = b.stream(&face, &call(json!(7), "after-cancel", json!({"who": "b"})));
    let a_up = record.request("tools/call", |p| p["arguments"]["who"] == "a")["id"].clone();
    let b_up = record.request("tools/call", |p| p["arguments"]["who"] == "b")["id"].clone();
    assert_ne!(a_up, b_up, "the upstream ids are the shared connection's, one per request");
    assert_accepted(&a.post(&face, &notification("notifications/cancelled", json!({"requestId": 7}))));
    assert_eq!(record.cancel_of(&a_up)["requestId"], a_up);
    a_call.assert_end();
    std::thread::sleep(Duration::from_millis(300));
    let cancels = record.cancels();
    assert!(
        cancels.iter().all(|c| c["params"]["requestId"] != b_up),
        "A's cancel of its id 7 canceled B's request with the same client id: {cancels:?}"
    );
    assert!(matches!(b_call.next_within(Duration::from_millis(200)), Next::Quiet), "B's call ended on A's cancel");
    assert_accepted(&b.post(&face, &notification("notifications/cancelled", json!({"requestId": 7}))));
    assert_eq!(record.cancel_of(&b_up)["requestId"], b_up);
    b_call.assert_end();
}

/// "progress tokens ... stay each session's": A and B run floods of
/// progress at once, both with the progressToken "same" (A 40 steps, B
/// 45): each stream carries only its own flood's progress (its `total`),
/// all of it, then its own result.
#[test]
fn attack_the_same_progress_token_in_two_sessions_carries_each_sessions_own_progress() {
    let face = Face::start(&[], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let flood = |id: u64, count: u64| {
        let mut message =
            call(json!(id), "flood", json!({"count": count, "kinds": ["progress"], "until_cancel": true}));
        message["params"]["_meta"] = json!({"progressToken": "same"});
        message
    };
    let mut a_stream = a.stream(&face, &flood(1, 40));
    let mut b_stream = b.stream(&face, &flood(1, 45));
    for (name, events, count) in [("A", &mut a_stream, 40), ("B", &mut b_stream, 45)] {
        let got = messages_within(events, Duration::from_secs(3));
        let progress: Vec<&Value> = got.iter().filter(|m| m["method"] == "notifications/progress").collect();
        let foreign: Vec<&&Value> = progress.iter().filter(|p| p["params"]["total"] != count).collect();
        assert!(foreign.is_empty(), "session {name} got another session's progress: {foreign:?}");
        assert_eq!(progress.len() as u64, count, "session {name}: its own progress, all of it");
        assert!(progress.iter().all(|p| p["params"]["progressToken"] == "same"), "{progress:?}");
        let last = got.last().cloned().unwrap_or(Value::Null);
        assert_eq!(last["result"]["content"][0]["text"], format!("flooded {count}"), "session {name}: {last}");
    }
}

/// "input-request rounds ... stay each session's": B's call asks a
/// question (elicitation/create on B's stream); A POSTs an answer with
/// the question's id in its own session. B's round goes on waiting, and
/// completes with B's own answer only.
#[test]
fn attack_an_answer_posted_in_another_session_does_not_complete_the_round() {
    let face = Face::start(&[], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({"elicitation": {}}));
    let b = Session::open(&face, "2025-11-25", json!({"elicitation": {}}));
    let steps = json!({"steps": [input_required(json!({"who": form("Your name?")})), "echo"]});
    let mut b_call = b.stream(&face, &call(json!(3), "script", steps));
    let question = b_call.any_message();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let forged =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "mallory"}}});
    let reply = a.post(&face, &forged);
    assert!(reply.status == 202 || reply.status >= 400, "{reply}");
    assert!(
        matches!(b_call.next_within(Duration::from_millis(500)), Next::Quiet),
        "A's answer with B's question id ended B's round"
    );
    let own =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "bob"}}});
    assert_accepted(&b.post(&face, &own));
    let result = b_call.any_message();
    let text = result["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert!(text.contains("bob") && !text.contains("mallory"), "B's round took A's answer: {result}");
    // A's own session still serves.
    let pong = a.answer(&face, &request(json!(9), "ping", json!({})));
    assert_eq!(pong["result"], json!({}), "{pong}");
}

// --- Log messages: the sole waiter's, else nobody's.

/// "a log message ... reaches a session only while that session alone
/// has requests in flight (else the face's debug log)": A waits on
/// `stall` while B's `log` call runs: the message goes to neither.
#[test]
fn attack_a_log_message_while_two_sessions_wait_goes_to_neither() {
    let face = Face::start(&[], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let mut a_get = a.listen(&face);
    let mut b_get = b.listen(&face);
    let _a_call = a.stream(&face, &call(json!(1), "stall", json!({})));
    let answer = b.answer(&face, &call(json!(2), "log", json!({"level": "error", "data": "b-secret"})));
    assert!(answer.get("result").is_some(), "{answer}");
    for (name, get) in [("A", &mut a_get), ("B", &mut b_get)] {
        let got = messages_within(get, Duration::from_millis(500));
        assert!(logs(&got).is_empty(), "a log message while both waited reached {name}: {got:?}");
    }
    // Alone, B gets its own.
    let _ = b.answer(&face, &call(json!(3), "log", json!({"level": "error", "data": "b-own"})));
    drop(_a_call);
    let got = messages_within(&mut b_get, Duration::from_millis(500));
    assert!(logs(&got).is_empty() || logs(&got).iter().all(|l| l["params"]["data"] == "b-own"), "{got:?}");
}

/// Log messages stay each session's: B (level debug) floods log messages
/// while A (no `logging/setLevel`: "the requests have no level, and the
/// upstream server sends no log messages") waits on `stall`; B cancels.
/// The child's log lines of B's flood that the face reads after B's
/// cancel must not reach A, which never asked for a log message and
/// whose requests the messages are not.
#[test]
fn attack_log_messages_of_a_canceled_request_do_not_reach_another_session() {
    let face = Face::start(&[], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let level = b.answer(&face, &request(json!(1), "logging/setLevel", json!({"level": "debug"})));
    assert_eq!(level["result"], json!({}), "{level}");
    let mut a_get = a.listen(&face);
    let _a_call = a.stream(&face, &call(json!(1), "stall", json!({})));
    let flood = json!({"count": 200000, "kinds": ["log"], "until_cancel": true, "level": "info"});
    let mut b_call = b.stream(&face, &call(json!(2), "flood", flood));
    std::thread::sleep(Duration::from_millis(300));
    assert_accepted(&b.post(&face, &notification("notifications/cancelled", json!({"requestId": 2}))));
    b_call.assert_end();
    let got = messages_within(&mut a_get, Duration::from_millis(1500));
    let leaked = logs(&got);
    assert!(
        leaked.is_empty(),
        "log messages of session B's canceled flood reached session A (no level, its requests not theirs): \
         {} of them, first {:?}",
        leaked.len(),
        leaked.first()
    );
}

// --- Floods and bad answers: one session's, never another's.

/// "a flood past its places stays its own": a session of 2025-03-26
/// sends one batch of 257 `stall` calls (its 256 places and one more,
/// which gets too_many_requests); another session's call on the same
/// child is answered within 2 s, and so is a third session's.
#[test]
fn attack_a_session_that_fills_its_256_places_does_not_stall_another() {
    let face = Face::start(&[], &fake_upstream(&[]));
    let flooder = Session::open(&face, "2025-03-26", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let batch: Vec<Value> = (0..257).map(|i| call(json!(i), "stall", json!({}))).collect();
    let mut flooded = flooder.stream(&face, &Value::Array(batch));
    let refused = flooded.any_message();
    assert_eq!(refused["error"]["data"]["cause"], "too_many_requests", "the 257th call: {refused}");
    for id in 1..4 {
        let started = Instant::now();
        let answer = b.answer(&face, &call(json!(id), "echo", json!({})));
        assert_eq!(answer["result"]["content"][0]["text"], "echo", "{answer}");
        assert!(started.elapsed() < Duration::from_secs(2), "B waited {:?} behind A's flood", started.elapsed());
    }
    let c = Session::open(&face, "2025-06-18", json!({}));
    let answer = c.answer(&face, &call(json!(1), "echo", json!({})));
    assert_eq!(answer["result"]["content"][0]["text"], "echo", "{answer}");
}

/// "What a session does wrong (a bad line ...) stays its own": the child
/// answers A's call with a line over `--max-line-bytes`, then with a
/// line whose envelope is broken but names A's id: each fails only A's
/// call (invalid_response); B's calls before, between and after are
/// answered.
#[test]
fn attack_a_huge_or_malformed_answer_fails_only_its_own_request() {
    let face = Face::start(&["--max-line-bytes", "100000"], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let mut b_waits = b.stream(&face, &call(json!(1), "late", json!({"ms": 600})));
    let huge = a.answer(&face, &call(json!(2), "huge", json!({"bytes": 300000})));
    assert_eq!(huge["error"]["data"]["cause"], "invalid_response", "A's huge answer: {huge}");
    let line = json!({"line": "{\"jsonrpc\":\"2.0\",\"id\":ID,\"result\":5,\"error\":{}}"});
    let bad = a.answer(&face, &call(json!(3), "line", line));
    assert_eq!(bad["error"]["data"]["cause"], "invalid_response", "A's malformed answer: {bad}");
    let late = b_waits.any_message();
    assert_eq!(late["result"]["content"][0]["text"], "late", "B's call in flight meanwhile: {late}");
    let echo = b.answer(&face, &call(json!(4), "echo", json!({})));
    assert_eq!(echo["result"]["content"][0]["text"], "echo", "{echo}");
}

// --- The loss of the shared child, and many sessions.

/// "The loss of the shared child fails every request in flight with
/// upstream_exited; every session then ends after the grace (404); the
/// next session starts a new child": 20 sessions each have a `stall`
/// call in flight when the child is killed (SIGKILL).
#[test]
fn attack_the_shared_child_killed_under_twenty_sessions() {
    let face = Face::start(&["--test-shutdown-grace-ms", "200"], &fake_upstream(&[]));
    let sessions: Vec<Session> = (0..20).map(|_| Session::open(&face, "2025-11-25", json!({}))).collect();
    let first = face.children();
    assert_eq!(first.len(), 1, "one child for 20 sessions: {first:?}");
    let mut calls: Vec<_> = sessions.iter().map(|s| s.stream(&face, &call(json!(1), "stall", json!({})))).collect();
    std::thread::sleep(Duration::from_millis(200));
    let killed = std::process::Command::new("kill").args(["-KILL", &first[0].to_string()]).status();
    assert!(killed.is_ok_and(|s| s.success()), "kill the shared child");
    for (i, events) in calls.iter_mut().enumerate() {
        let answer = events.any_message();
        assert_eq!(answer["error"]["data"]["cause"], "upstream_exited", "session {i}'s call in flight: {answer}");
        events.assert_end();
    }
    let ping = request(json!(2), "ping", json!({}));
    for (i, session) in sessions.iter().enumerate() {
        let gone = eventually(Duration::from_secs(3), || session.post(&face, &ping).status == 404);
        assert!(gone, "session {i} outlived the grace of the lost child");
    }
    let again = Session::open(&face, "2025-11-25", json!({}));
    let echo = again.answer(&face, &call(json!(3), "echo", json!({})));
    assert_eq!(echo["result"]["content"][0]["text"], "echo", "{echo}");
    let second = face.children();
    assert!(second.len() == 1 && second != first, "one new child: {first:?} then {second:?}");
}

/// "One upstream for every session": 100 initializes at once, each on
/// its own connection, start one child between them, and each session
/// is served.
#[test]
fn attack_an_initialize_storm_starts_one_child() {
    let face = Face::start(&[], &fake_upstream(&[]));
    let face_ref = &face;
    let ids: Vec<Option<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..100)
            .map(|_| {
                scope.spawn(move || {
                    let init = Req::post(&request(json!(0), "initialize", init_params("2025-11-25", json!({}))));
                    let reply = face_ref.send(init);
                    (reply.status == 200).then(|| reply.header("mcp-session-id").unwrap_or_default().to_owned())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(None)).collect()
    });
    let opened = ids.iter().flatten().count();
    assert_eq!(opened, 100, "every initialize of the storm opened a session");
    let children = face.children();
    assert_eq!(children.len(), 1, "one child for the storm: {children:?}");
    let session = Session { id: ids[57].clone().unwrap_or_default(), revision: "2025-11-25".into() };
    assert_accepted(&session.post(&face, &initialized()));
    let echo = session.answer(&face, &call(json!(1), "echo", json!({})));
    assert_eq!(echo["result"]["content"][0]["text"], "echo", "{echo}");
}

/// `--child-per-session` "gives each session its own child again": two
/// sessions, two children; A's child exits and A's call gets
/// upstream_exited, while B's child and B's calls go on.
#[test]
fn attack_child_per_session_still_isolates() {
    let face = Face::start(&["--child-per-session", "--test-shutdown-grace-ms", "200"], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let children = face.children();
    assert_eq!(children.len(), 2, "a child per session: {children:?}");
    let mut b_waits = b.stream(&face, &call(json!(1), "late", json!({"ms": 500})));
    let exit = a.answer(&face, &call(json!(2), "script", json!({"steps": ["exit"]})));
    assert_eq!(exit["error"]["data"]["cause"], "upstream_exited", "{exit}");
    let late = b_waits.any_message();
    assert_eq!(late["result"]["content"][0]["text"], "late", "B's call through A's loss: {late}");
    std::thread::sleep(Duration::from_millis(500));
    let echo = b.answer(&face, &call(json!(3), "echo", json!({})));
    assert_eq!(echo["result"]["content"][0]["text"], "echo", "B after A's loss: {echo}");
    assert_refused(&a.post(&face, &request(json!(4), "ping", json!({}))), "unknown_session");
}

/// The loss of a shared child that closed its stdout but keeps running
/// (`closed`): every session ends after the grace, and the child of the
/// lost connection must not outlive them (with a child per session its
/// session's end gives it the end of its stdin, the grace, then the kill;
/// the shared child's comment: "A child that only closed its stdout
/// still gets the end of its stdin, then the kill"). No new session or
/// probe comes here: nothing else would stop it.
#[test]
fn attack_a_lost_shared_child_that_keeps_running_is_stopped() {
    let record = Record::new("linger");
    let pid_file = record.pid_file();
    let upstream = fake_upstream(&["--linger", "--pid-file", &pid_file]);
    let face = Face::start(&["--test-shutdown-grace-ms", "200"], &upstream);
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let child = record.pid();
    let closed = a.answer(&face, &call(json!(1), "close", json!({"pipes": "stdout"})));
    assert!(closed.get("error").is_some(), "the call that closed the pipe: {closed}");
    let ping = request(json!(2), "ping", json!({}));
    for session in [&a, &b] {
        let gone = eventually(Duration::from_secs(3), || session.post(&face, &ping).status == 404);
        assert!(gone, "a session outlived the grace of the lost child");
    }
    let stopped = eventually(Duration::from_secs(3), || !alive(child));
    assert!(stopped, "the lost shared child {child} still runs after every session of it ended");
}
