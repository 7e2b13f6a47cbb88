//! `GET /health` (docs/decisions.md, "Health"): 200 while the shared child
//! answers `server/discover`, 503 with the error table's cause when it
//! cannot; no token, but the door's `Host` and `Origin` rules.

use super::*;
use crate::support::fake::fake_upstream;
use crate::support::http::assert_refused;
use std::time::Duration;

fn health(face: &Face) -> (u16, Value) {
    let reply = face.send(Req::get("/health"));
    (reply.status, reply.json())
}

/// In front of the demo with `--auth-token-env`: the probe needs no token
/// (a POST without it is 401), starts the shared child that the next
/// session uses, and says 200; a foreign `Host` is 403 as on every path;
/// a POST is 405.
#[test]
fn health_is_200_without_a_token_while_the_shared_child_answers() {
    let face = Face::start_env(&["--auth-token-env", "FACE_TEST_TOKEN"], &demo(), &[("FACE_TEST_TOKEN", "t-1")]);
    assert_eq!(health(&face), (200, json!({"status": "ok"})), "health without a token");
    let children = face.children();
    assert_eq!(children.len(), 1, "the probe started the shared child: {children:?}");
    assert_refused(&face.send(Req::post(&request(json!(1), "ping", json!({})))), "unauthorized");
    assert_refused(&face.send(Req::get("/health").header("Host", "evil.example")), "foreign_host");
    let post = face.send(Req::new("POST", "/health").header("Authorization", "Bearer t-1"));
    assert_eq!((post.status, post.header("allow")), (405, Some("GET")), "{post}");
    let init = Req::post(&request(json!(1), "initialize", init_params("2025-11-25", json!({}))));
    let reply = face.send(init.header("Authorization", "Bearer t-1"));
    assert_eq!(reply.status, 200, "{reply}");
    assert_eq!(face.children(), children, "the session uses the child the probe started");
}

/// A command that does not start: 503 with the cause `spawn_failed`; a
/// child that does not answer `server/discover` (an error): 503
/// `discover_failed`.
#[test]
fn health_is_503_with_the_cause_when_the_upstream_is_not_usable() {
    let missing = vec!["/nonexistent/mcp-server".to_string()];
    let face = Face::start(&[], &missing);
    assert_eq!(health(&face), (503, json!({"status": "unavailable", "cause": "spawn_failed"})));
    let face = Face::start(&[], &fake_upstream(&["--discover", "error"]));
    assert_eq!(health(&face), (503, json!({"status": "unavailable", "cause": "discover_failed"})));
}

/// The shared child exits: the next probe (a second later, when the last
/// answer is stale) starts a new child and says 200 again.
#[test]
fn health_starts_a_new_child_after_the_loss_of_the_last() {
    let face = Face::start(&[], &fake_upstream(&[]));
    assert_eq!(health(&face), (200, json!({"status": "ok"})));
    let first = face.children();
    let session = Session::open(&face, "2025-11-25", json!({}));
    let exit = session.answer(&face, &call(json!(2), "script", json!({"steps": ["exit"]})));
    assert_eq!(exit["error"]["data"]["cause"], "upstream_exited", "{exit}");
    let again = eventually(Duration::from_secs(5), || {
        let children = face.children();
        health(&face).0 == 200 && children.len() == 1 && children != first
    });
    assert!(again, "no new child after the loss: {:?}", face.children());
}
