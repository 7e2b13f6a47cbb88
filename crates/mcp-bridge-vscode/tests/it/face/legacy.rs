//! HTTP+SSE of 2024-11-05 at /sse and /messages (the transport page of
//! 2024-11-05; docs/decisions.md, "The HTTP face"): a GET of /sse opens a
//! session and its one stream, whose first event, `endpoint`, names the
//! URL of its POSTs; each POST gets 202 and its answer comes on the
//! stream; the session ends with its stream.

use super::*;
use crate::support::driver::Driver;
use crate::support::http::{assert_refused, STEP};

/// Opens /sse: the stream, and the path of the `endpoint` event, which
/// must be its first event, `/messages?sessionId=<64 hex digits>`.
#[track_caller]
fn open(face: &Face) -> (Events, String) {
    let mut events = sse(face.send(Req::get("/sse")));
    let endpoint = events.next();
    assert_eq!((endpoint.event.as_deref(), endpoint.id.as_deref()), (Some("endpoint"), None), "{endpoint:?}");
    let id = endpoint.data.strip_prefix("/messages?sessionId=").unwrap_or_else(|| panic!("{endpoint:?}"));
    assert_session_id(id);
    (events, endpoint.data.clone())
}

/// A POST of `message` to `endpoint`.
fn post(face: &Face, endpoint: &str, message: &Value) -> Reply {
    face.send(
        Req::new("POST", endpoint).header("Content-Type", "application/json").body(message.to_string().into_bytes()),
    )
}

/// The next message on the stream that is the response to `id`; the
/// messages before it must be notifications (the demo's list change).
#[track_caller]
fn response(events: &mut Events, id: &Value) -> Value {
    loop {
        let message = events.message();
        if message.get("method").is_none() {
            assert_eq!(&message["id"], id, "{message}");
            return message;
        }
        assert!(message.get("id").is_none(), "a request of the bridge before the response to {id}: {message}");
    }
}

/// Each POST gets 202 without a body; initialize, tools/list and a call
/// are answered on the stream, each as the stdio bridge answers a client
/// of 2024-11-05.
#[test]
fn the_stream_names_its_endpoint_and_carries_every_answer() {
    let face = Face::start(&[], &demo());
    let (mut events, endpoint) = open(&face);
    let params = init_params("2024-11-05", json!({}));
    let mut stdio = Driver::start(&[], &demo());
    let expected = stdio.request(json!(1), "initialize", params.clone());
    stdio.send(&initialized());
    assert_accepted(&post(&face, &endpoint, &request(json!(1), "initialize", params)));
    let got = events.message();
    crate::support::assert_json("initialize", &got, &expected);
    assert_eq!(got["result"]["protocolVersion"], "2024-11-05");
    assert_accepted(&post(&face, &endpoint, &initialized()));
    for (id, message) in [
        (json!(2), request(json!(2), "tools/list", json!({}))),
        (json!("three"), call(json!("three"), "add", json!({"a": 4, "b": 5}))),
    ] {
        let expected =
            stdio.call(id.clone(), message["method"].as_str().unwrap_or_default(), message["params"].clone());
        assert_accepted(&post(&face, &endpoint, &message));
        crate::support::assert_json(&id.to_string(), &response(&mut events, &id), &expected);
    }
}

/// A POST to /messages with a session id that is no session's, or
/// without one, gets 404 unknown_session; /sse must accept SSE (406), a
/// POST's body must be JSON (415).
#[test]
fn a_post_to_an_unknown_session_gets_404() {
    let face = Face::start(&[], &demo());
    let ping = request(json!(1), "ping", json!({}));
    assert_refused(&post(&face, &format!("/messages?sessionId={}", "0".repeat(64)), &ping), "unknown_session");
    assert_refused(&post(&face, "/messages?sessionId=", &ping), "unknown_session");
    assert_refused(&post(&face, "/messages", &ping), "unknown_session");
    assert_refused(&face.send(Req::get("/sse").header("Accept", "application/json")), "not_acceptable");
    let (_events, endpoint) = open(&face);
    let plain = Req::new("POST", &endpoint).header("Content-Type", "text/plain").body(ping.to_string().into_bytes());
    assert_refused(&face.send(plain), "unsupported_media_type");
}

/// The session ends with its stream: once the client closes the SSE
/// connection, a POST with its id gets 404 (within a bounded wait), and
/// the child it shared serves the next session.
#[test]
fn closing_the_stream_ends_the_session() {
    let face = Face::start(&[], &demo());
    let (mut events, endpoint) = open(&face);
    let init = request(json!(1), "initialize", init_params("2024-11-05", json!({})));
    assert_accepted(&post(&face, &endpoint, &init));
    assert_eq!(events.message()["id"], 1);
    assert_accepted(&post(&face, &endpoint, &initialized()));
    let children = face.children();
    assert_eq!(children.len(), 1, "the session's demo: {children:?}");
    drop(events);
    let ping = request(json!(2), "ping", json!({}));
    let gone = eventually(STEP, || post(&face, &endpoint, &ping).status == 404);
    assert!(gone, "the session outlived its stream");
    assert_refused(&post(&face, &endpoint, &ping), "unknown_session");
    let (mut next, endpoint) = open(&face);
    assert_accepted(&post(&face, &endpoint, &init));
    assert_eq!(next.message()["id"], 1, "the next session is served");
    assert_eq!(face.children(), children, "by the same child");
}

/// A message that is not valid gets 202 like any other, and its error
/// (the error table's) comes on the stream, as every message does.
#[test]
fn a_bad_message_is_answered_on_the_stream() {
    let face = Face::start(&[], &demo());
    let (mut events, endpoint) = open(&face);
    let bad = Req::new("POST", &endpoint).header("Content-Type", "application/json").body(b"{nope".to_vec());
    assert_accepted(&face.send(bad));
    let expected = json!({"jsonrpc": "2.0", "id": null,
        "error": crate::support::bridge_error(-32700, &crate::support::message("parse_error"), "parse_error", None)});
    crate::support::assert_json("parse_error", &events.message(), &expected);
}
