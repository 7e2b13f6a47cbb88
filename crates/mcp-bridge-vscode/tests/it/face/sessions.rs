//! Sessions side by side (docs/decisions.md, "The HTTP face": "One
//! upstream for every session", "The end of a session", the bounds): one
//! session's bad line, bad answer or slow reader never reaches another;
//! the loss of the shared child ends every session after the grace and the
//! next session gets a new child; `--max-sessions` and the idle time bound
//! them.

use super::*;
use crate::support::fake::{fake_upstream, Record};
use crate::support::http::{assert_refused, send_only, send_pipelined, STEP};
use crate::support::{bridge_error, message, repo_root};
use std::time::{Duration, Instant};

/// A call of the fake whose result is one text block, as it is.
fn fake_text(id: Value, text: &str) -> (Value, Value) {
    let result = json!({"content": [{"type": "text", "text": text}]});
    let mut upstream = result.clone();
    upstream["resultType"] = json!("complete");
    (call(id.clone(), "result", json!({"result": upstream})), json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Session `b` still answers at once and exactly: a fault of another
/// session did not reach it.
#[track_caller]
fn assert_serves(face: &Face, session: &Session, id: u64) {
    let (call, expected) = fake_text(json!(id), &format!("b{id}"));
    let started = Instant::now();
    crate::support::assert_json("the other session", &session.answer(face, &call), &expected);
    assert!(started.elapsed() < Duration::from_secs(5), "the other session waited {:?}", started.elapsed());
}

fn error(id: Value, cause: &str, detail: Option<&str>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": bridge_error(-32603, &message(cause), cause, detail)})
}

/// Two sessions against the fake, which share one child. Session A sends
/// a body that is not JSON and gets an upstream line that is not JSON;
/// session B answers throughout without an error.
#[test]
fn one_sessions_faults_stay_its_own() {
    let face = Face::start(&["--test-shutdown-grace-ms", "200"], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    assert_eq!(face.children().len(), 1, "one child for every session");
    assert_serves(&face, &b, 1);
    let bad = face.send(a.req(Req::post(&json!(null)).body(b"{\"jsonrpc\":\"2.0\",".to_vec())));
    let parse_error = json!({"jsonrpc": "2.0",
        "error": {"code": -32700, "message": message("parse_error"), "data": {"cause": "parse_error"}}});
    assert_eq!(bad.status, 400, "{bad}");
    crate::support::assert_json("a body that is not JSON", &bad.json(), &parse_error);
    assert_serves(&face, &b, 2);
    let unreadable = a.answer(&face, &call(json!(10), "invalid-json", json!({})));
    crate::support::assert_json(
        "a line that is not JSON",
        &unreadable,
        &error(json!(10), "invalid_response", Some("parse_error")),
    );
    assert_serves(&face, &b, 3);
}

/// The shared child exits (a script step of session A) while session B
/// has a call in flight: A's call, B's call in flight and each later
/// request of either get upstream_exited; within the grace both ids get
/// 404 (the transport's word for "initialize again"); the next session
/// gets a new child and is served (docs/decisions.md, "The loss of the
/// shared child").
#[test]
fn the_loss_of_the_shared_child_ends_every_session_and_a_new_child_serves_the_next() {
    let face = Face::start(&["--test-shutdown-grace-ms", "200"], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let first = face.children();
    assert_eq!(first.len(), 1, "one child for every session: {first:?}");
    let mut stalled = b.stream(&face, &call(json!(11), "stall", json!({})));
    let exit = a.answer(&face, &call(json!(12), "script", json!({"steps": ["exit"]})));
    crate::support::assert_json("the exit", &exit, &error(json!(12), "upstream_exited", None));
    crate::support::assert_json(
        "the other session's call in flight",
        &stalled.any_message(),
        &error(json!(11), "upstream_exited", None),
    );
    stalled.assert_end();
    for session in [&a, &b] {
        let later = session.answer(&face, &request(json!(13), "tools/list", json!({})));
        crate::support::assert_json("a later request", &later, &error(json!(13), "upstream_exited", None));
    }
    // A session keeps its revision after the loss: another one in
    // MCP-Protocol-Version is still refused.
    let other = Req::post(&request(json!(15), "ping", json!({}))).session(&a.id);
    assert_refused(&face.send(other.header("MCP-Protocol-Version", "2025-06-18")), "wrong_protocol_version");
    let ping = request(json!(14), "ping", json!({}));
    for session in [&a, &b] {
        // The grace is 200 ms: 404 well within 3 s.
        let gone = eventually(Duration::from_secs(3), || session.post(&face, &ping).status == 404);
        assert!(gone, "a session outlived the grace of the lost child");
        assert_refused(&session.post(&face, &ping), "unknown_session");
    }
    let again = Session::open(&face, "2025-11-25", json!({}));
    assert_serves(&face, &again, 6);
    let second = face.children();
    assert!(second.len() == 1 && second != first, "a new child for the next session: {first:?} then {second:?}");
}

/// The end of a session (a DELETE) cancels its call in flight on the
/// shared child (its `notifications/cancelled` reaches the child), and
/// the child serves the other session on.
#[test]
fn the_end_of_a_session_cancels_its_work_on_the_shared_child() {
    let record = Record::new("end");
    let face = Face::start(&[], &fake_upstream(&["--record", record.arg()]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let mut waiting = a.stream(&face, &call(json!(5), "after-cancel", json!({})));
    let called = || record.messages().iter().any(|m| m["params"]["name"] == "after-cancel");
    assert!(eventually(STEP, called), "the call never reached the child");
    assert_eq!(face.send(a.req(Req::new("DELETE", "/mcp"))).status, 200);
    waiting.assert_end();
    let cancelled = || record.count("notifications/cancelled") == 1;
    assert!(eventually(STEP, cancelled), "the call of the ended session was not canceled on the shared child");
    assert_serves(&face, &b, 1);
}

/// An initialize that fails (its params are not valid) gets its error as
/// JSON, without a session id, and leaves no session ("a failed one
/// leaves no session"): with `--max-sessions 1`, the next initialize
/// opens one at once, each of ten times (the second initialize comes on
/// the same connection, right after the first's response).
#[test]
fn a_failed_initialize_leaves_no_session() {
    let face = Face::start(&["--max-sessions", "1"], &demo());
    let expected = json!({"jsonrpc": "2.0", "id": 1,
        "error": {"code": -32602, "message": message("invalid_params"), "data": {"cause": "invalid_params"}}});
    for round in 0..10 {
        // Both on one connection, the second right after the first.
        let fails =
            Req::post(&request(json!(1), "initialize", json!({"capabilities": {}}))).header("Host", &face.host());
        let init = Req::post(&request(json!(2), "initialize", init_params("2025-11-25", json!({}))));
        let [failed, reply] =
            <[Reply; 2]>::try_from(send_pipelined(face.port, &[fails, init.header("Host", &face.host())]))
                .unwrap_or_else(|replies| panic!("two replies: {replies:?}"));
        assert_eq!((failed.status, failed.header("mcp-session-id")), (200, None), "{failed}");
        crate::support::assert_json("a failed initialize", &failed.json(), &expected);
        assert_eq!(reply.status, 200, "round {round}: the initialize after a failed one: {reply}");
        let id = reply.header("mcp-session-id").unwrap_or_default();
        assert_eq!(face.send(Req::new("DELETE", "/mcp").session(id)).status, 200);
    }
}

/// A client that goes away during its initialize leaves no session:
/// with `--max-sessions 1` and an upstream whose discover takes 1 s, a
/// client closes its connection once the session's upstream runs; the
/// initialize of another client then opens a session (polled, bounded).
#[test]
fn a_client_that_leaves_during_initialize_leaves_no_session() {
    let face = Face::start(&["--max-sessions", "1"], &fake_upstream(&["--discover-delay-ms", "1000"]));
    let init =
        Req::post(&request(json!(1), "initialize", init_params("2025-11-25", json!({})))).header("Host", &face.host());
    let left = send_only(face.port, std::slice::from_ref(&init));
    assert!(eventually(STEP, || face.children().len() == 1), "the upstream of the initialize never started");
    drop(left);
    let mut last = None;
    let opened = eventually(Duration::from_secs(5), || {
        let reply = face.send(init.clone());
        let ok = reply.status == 200;
        last = Some(reply);
        ok
    });
    assert!(opened, "no session opened after the first client left: {last:?}");
}

/// `--max-sessions 2`: a third initialize gets 503 too_many_sessions, so
/// does a GET of /sse (a session of HTTP+SSE); after a DELETE, a new
/// session opens.
#[test]
fn max_sessions_refuses_the_next_session_with_503() {
    let face = Face::start(&["--max-sessions", "2"], &demo());
    let first = Session::open(&face, "2025-11-25", json!({}));
    let second = Session::open(&face, "2025-06-18", json!({}));
    let init = Req::post(&request(json!(1), "initialize", init_params("2025-11-25", json!({}))));
    assert_refused(&face.send(init.clone()), "too_many_sessions");
    assert_refused(&face.send(Req::get("/sse")), "too_many_sessions");
    let deleted = face.send(first.req(Req::new("DELETE", "/mcp")));
    assert_eq!(deleted.status, 200, "{deleted}");
    let third = Session::open(&face, "2025-03-26", json!({}));
    assert_refused(&face.send(init), "too_many_sessions");
    for session in [&second, &third] {
        let pong = session.answer(&face, &request(json!(2), "ping", json!({})));
        assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    }
}

/// `--test-session-idle-ms 300`: a session that nobody uses ends after
/// the idle time (not before), and its id gets 404; a session whose GET
/// stream is open is in use and stays, and so does the child they share.
#[test]
fn an_idle_session_ends_and_a_busy_one_stays() {
    let face = Face::start(&["--test-session-idle-ms", "300"], &demo());
    // Its last use comes after this instant.
    let opened = Instant::now();
    let idle = Session::open(&face, "2025-11-25", json!({}));
    let busy = Session::open(&face, "2025-11-25", json!({}));
    let mut listen = busy.listen(&face);
    let child = face.children();
    assert_eq!(child.len(), 1, "one child for both sessions: {child:?}");
    let ping = request(json!(1), "ping", json!({}));
    // Asking would be a use: the face's log says when it ended.
    let ended =
        eventually(Duration::from_secs(5), || face.stderr_text().contains("a session ended after the idle time"));
    assert!(ended, "the idle session did not end");
    let took = opened.elapsed();
    assert!(took >= Duration::from_millis(300), "the idle session ended after {took:?}, before its idle time");
    assert_refused(&idle.post(&face, &ping), "unknown_session");
    assert!(alive(child[0]), "the child that the session with an open stream uses ended");
    let pong = busy.answer(&face, &request(json!(2), "ping", json!({})));
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    // Its stream still carries its messages: the change of the gap.
    assert_eq!(listen.any_message()["method"], "notifications/tools/list_changed");
}

/// A slow reader: session A's GET stream is open and never read while its
/// upstream (tests/fake/listen_upstream.py) sends 3000 list changes, more
/// than the connection and the stream's queue hold (the face drops the
/// rest, as its debug log says). Meanwhile A's own call and session B's
/// calls are answered at once.
#[test]
fn a_slow_reader_holds_neither_its_session_nor_another() {
    let upstream = vec!["python3".to_string(), repo_root().join("tests/fake/listen_upstream.py").display().to_string()];
    let face = Face::start_env(&[], &upstream, &[("MCP_BRIDGE_LOG", "mcp_bridge::output=debug")]);
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    let _unread = a.listen(&face);
    let changes = vec![json!({"method": "notifications/tools/list_changed", "params": {}}); 3000];
    let started = Instant::now();
    let emitted = a.answer(&face, &call(json!(1), "emit", json!({"events": changes})));
    assert_eq!(emitted["result"]["content"][0]["text"], "emitted", "{emitted}");
    let dropped = "dropped a message of the session";
    assert!(eventually(STEP, || face.stderr_text().contains(dropped)), "the unread stream never filled up");
    for id in 2..5 {
        let asked = Instant::now();
        let answer = b.answer(&face, &call(json!(id), "hello", json!({})));
        let expected = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "hello"}]}});
        crate::support::assert_json("session B", &answer, &expected);
        assert!(asked.elapsed() < Duration::from_secs(2), "session B waited {:?}", asked.elapsed());
    }
    let own = a.answer(&face, &call(json!(5), "again", json!({})));
    assert_eq!(own["result"]["content"][0]["text"], "again", "{own}");
    assert!(started.elapsed() < Duration::from_secs(15), "the flood took {:?}", started.elapsed());
}
