//! Sessions side by side (docs/decisions.md, "The HTTP face": "One
//! upstream connection per session", "The end of a session", the bounds):
//! one session's bad line, dead upstream or slow reader never reaches
//! another; a session whose upstream is lost ends after the grace;
//! `--max-sessions` and the idle time bound them.

use super::*;
use crate::support::fake::fake_upstream;
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

/// Two sessions against the fake, each with its own child. Session A
/// sends a body that is not JSON, gets an upstream line that is not JSON,
/// then its child exits (a script step): its call in flight, the call and
/// each later request get upstream_exited, and within the grace its id
/// gets 404. Session B answers throughout without an error; a new
/// initialize works.
#[test]
fn one_sessions_faults_stay_its_own() {
    let face = Face::start(&["--test-shutdown-grace-ms", "200"], &fake_upstream(&[]));
    let a = Session::open(&face, "2025-11-25", json!({}));
    let b = Session::open(&face, "2025-11-25", json!({}));
    assert_eq!(face.children().len(), 2, "a child per session");
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
    let mut stalled = a.stream(&face, &call(json!(11), "stall", json!({})));
    let exit = a.answer(&face, &call(json!(12), "script", json!({"steps": ["exit"]})));
    crate::support::assert_json("the exit", &exit, &error(json!(12), "upstream_exited", None));
    let later = a.answer(&face, &request(json!(13), "tools/list", json!({})));
    crate::support::assert_json("a later request", &later, &error(json!(13), "upstream_exited", None));
    // The session keeps its revision after the loss: another one in
    // MCP-Protocol-Version is still refused.
    let other = Req::post(&request(json!(15), "ping", json!({}))).session(&a.id);
    assert_refused(&face.send(other.header("MCP-Protocol-Version", "2025-06-18")), "wrong_protocol_version");
    crate::support::assert_json(
        "the call in flight",
        &stalled.any_message(),
        &error(json!(11), "upstream_exited", None),
    );
    stalled.assert_end();
    assert_serves(&face, &b, 4);
    let ping = request(json!(14), "ping", json!({}));
    // The grace is 200 ms: 404 well within 3 s.
    let gone = eventually(Duration::from_secs(3), || a.post(&face, &ping).status == 404);
    assert!(gone, "session A outlived the grace of its lost upstream");
    assert_refused(&a.post(&face, &ping), "unknown_session");
    assert_serves(&face, &b, 5);
    let again = Session::open(&face, "2025-11-25", json!({}));
    assert_serves(&face, &again, 6);
    assert_serves(&face, &b, 7);
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
/// the idle time (not before), with its upstream child, and its id gets
/// 404; a session whose GET stream is open is in use and stays.
#[test]
fn an_idle_session_ends_with_its_upstream_child() {
    let face = Face::start(&["--test-session-idle-ms", "300"], &demo());
    // Its last use comes after this instant.
    let opened = Instant::now();
    let idle = Session::open(&face, "2025-11-25", json!({}));
    let idle_child = face.children();
    assert_eq!(idle_child.len(), 1, "{idle_child:?}");
    let busy = Session::open(&face, "2025-11-25", json!({}));
    let mut listen = busy.listen(&face);
    let busy_child: Vec<u32> = face.children().into_iter().filter(|pid| !idle_child.contains(pid)).collect();
    assert_eq!(busy_child.len(), 1, "{busy_child:?}");
    assert!(eventually(Duration::from_secs(5), || !alive(idle_child[0])), "the idle session's child still runs");
    let took = opened.elapsed();
    assert!(took >= Duration::from_millis(300), "the idle session ended after {took:?}, before its idle time");
    assert_refused(&idle.post(&face, &request(json!(1), "ping", json!({}))), "unknown_session");
    assert!(alive(busy_child[0]), "the child of the session with an open stream ended");
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
