//! What the face turns away (docs/decisions.md, "The HTTP face", "Refusals";
//! the transport page of 2025-11-25): each refusal with its status and its
//! exact body, a JSON-RPC error without an id whose cause names the row of
//! the face's table; and the end of a session by DELETE.

use super::*;
use crate::support::http::{assert_refused, Next, STEP};
use crate::support::{bridge_error, message};

fn ping(id: u64) -> Value {
    request(json!(id), "ping", json!({}))
}

/// A POST must accept both JSON and SSE ("The client MUST include an
/// Accept header, listing both"), a GET SSE: else 406.
#[test]
fn a_post_must_accept_json_and_sse_and_a_get_sse() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    for accept in [Some("application/json"), Some("text/event-stream"), Some("text/html"), None] {
        let post = match accept {
            Some(accept) => Req::post(&ping(1)).header("Accept", accept),
            None => Req::post(&ping(1)).without("Accept"),
        };
        assert_refused(&face.send(session.req(post)), "not_acceptable");
    }
    // Before a session too: an initialize that accepts only JSON.
    let init = request(json!(1), "initialize", init_params("2025-11-25", json!({})));
    assert_refused(&face.send(Req::post(&init).header("Accept", "application/json")), "not_acceptable");
    for accept in [Some("application/json"), None] {
        let get = match accept {
            Some(accept) => Req::get("/mcp").header("Accept", accept),
            None => Req::get("/mcp").without("Accept"),
        };
        assert_refused(&face.send(session.req(get)), "not_acceptable");
    }
    // A wildcard lists them.
    let wildcard = session.req(Req::post(&ping(2)).header("Accept", "*/*"));
    let mut events = sse(face.send(wildcard));
    assert_eq!(events.any_message(), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

/// A body that is not `application/json` gets 415.
#[test]
fn a_body_that_is_not_json_by_its_type_gets_415() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let plain = Req::post(&ping(1)).header("Content-Type", "text/plain");
    assert_refused(&face.send(session.req(plain.clone())), "unsupported_media_type");
    assert_refused(&face.send(plain.clone()), "unsupported_media_type");
    assert_refused(&face.send(session.req(plain.without("Content-Type"))), "unsupported_media_type");
    let charset = Req::post(&ping(2)).header("Content-Type", "application/json; charset=utf-8");
    assert_eq!(sse(face.send(session.req(charset))).any_message(), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

/// A method that /mcp does not take gets 405 with `Allow`; a path that is
/// not the face's gets 404 not_found.
#[test]
fn another_method_gets_405_with_allow_and_another_path_404() {
    let face = Face::start(&[], &demo());
    for method in ["PUT", "PATCH"] {
        let reply = face.send(Req::new(method, "/mcp").header("Content-Type", "application/json").body(b"{}".to_vec()));
        assert_refused(&reply, "method_not_allowed");
        assert_eq!(reply.header("allow"), Some("GET, POST, DELETE"), "{method}: {reply}");
    }
    for (method, path) in [("GET", "/nope"), ("POST", "/"), ("GET", "/mcp/x"), ("GET", "/messages/x")] {
        assert_refused(&face.send(Req::new(method, path)), "not_found");
    }
}

/// RFC 9110, 15.5.6: the `Allow` of a 405 lists the methods of the target
/// resource. /sse takes only GET, /messages only POST.
#[test]
fn a_405_of_the_legacy_paths_names_their_own_methods() {
    let face = Face::start(&[], &demo());
    for (method, path, allow) in [("POST", "/sse", "GET"), ("DELETE", "/sse", "GET"), ("GET", "/messages", "POST")] {
        let reply = face.send(Req::new(method, path).header("Accept", "text/event-stream"));
        assert_refused(&reply, "method_not_allowed");
        assert_eq!(reply.header("allow"), Some(allow), "{method} {path}: {reply}");
    }
}

/// A POST without a session id that is not initialize gets 400
/// not_initialize ("Servers that require a session ID SHOULD respond to
/// requests without an MCP-Session-Id header (other than initialization)
/// with HTTP 400"); a GET or DELETE without one, 400 session_required.
#[test]
fn a_request_without_a_session_must_be_initialize() {
    let face = Face::start(&[], &demo());
    assert_refused(&face.send(Req::post(&request(json!(1), "tools/list", json!({})))), "not_initialize");
    assert_refused(&face.send(Req::post(&initialized())), "not_initialize");
    assert_refused(&face.send(Req::get("/mcp")), "session_required");
    assert_refused(&face.send(Req::new("DELETE", "/mcp")), "session_required");
}

/// An `MCP-Protocol-Version` that is not the session's revision gets 400
/// wrong_protocol_version ("If the server receives a request with an
/// invalid or unsupported MCP-Protocol-Version, it MUST respond with 400");
/// the session's own passes, and so does none.
#[test]
fn a_protocol_version_other_than_the_sessions_gets_400() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    for version in ["2025-06-18", "2025-03-26", "2024-11-05", "2099-01-01", "nonsense"] {
        let post = session.req(Req::post(&ping(1))).header("MCP-Protocol-Version", version);
        assert_refused(&face.send(post), "wrong_protocol_version");
        let get = session.req(Req::get("/mcp")).header("MCP-Protocol-Version", version);
        assert_refused(&face.send(get), "wrong_protocol_version");
    }
    assert_eq!(session.answer(&face, &ping(2)), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    let without = Req::post(&ping(3)).session(&session.id);
    assert_eq!(sse(face.send(without)).any_message(), json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
}

/// The session's GET stream has one reader at a time: a second GET gets
/// 409 stream_open while the first is open, and is taken once the first
/// closed.
#[test]
fn a_second_get_gets_409_while_one_is_open() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let first = session.listen(&face);
    assert_refused(&face.send(session.req(Req::get("/mcp"))), "stream_open");
    assert_refused(&face.send(session.req(Req::get("/mcp"))), "stream_open");
    drop(first);
    // While no GET reads it, the session's stream keeps its messages for
    // the next GET.
    let response = session.answer(&face, &call(json!(1), "add_tool", json!({})));
    assert_eq!(response, text_result(json!(1), "added the tool extra"));
    let mut next = None;
    let taken = eventually(STEP, || {
        let reply = face.send(session.req(Req::get("/mcp")));
        let free = reply.status == 200;
        next = free.then(|| reply.events());
        free
    });
    assert!(taken, "the session's stream is not free after its reader closed");
    let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}});
    assert_eq!(next.map(|mut events| events.any_message()), Some(changed));
}

/// DELETE ends the session: 200; its GET stream and the stream of its
/// call in flight end (the call without a response); every request with
/// its id gets 404 unknown_session (the transport: "MUST respond to
/// requests containing that session ID with HTTP 404"); the child, which
/// every session shares, serves the other session on.
#[test]
fn delete_ends_the_session_and_its_id_gets_404() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let other = Session::open(&face, "2025-06-18", json!({}));
    let children = face.children();
    assert_eq!(children.len(), 1, "the sessions' demo: {children:?}");
    let mut listen = session.listen(&face);
    let slow = call(json!(9), "slow_count", json!({"steps": 100, "delay_ms": 100}));
    let mut in_flight = session.stream(&face, &slow);
    let reply = face.send(session.req(Req::new("DELETE", "/mcp")));
    assert_eq!((reply.status, reply.body.as_slice()), (200, &b""[..]), "{reply}");
    // Its streams close; the call in flight is canceled, without a response.
    in_flight.assert_end();
    loop {
        match listen.next_within(STEP) {
            Next::End => break,
            Next::Event(event) => assert!(event.data.contains("list_changed"), "{event:?}"),
            Next::Quiet => panic!("the GET stream of a deleted session is still open"),
        }
    }
    assert_refused(&session.post(&face, &ping(1)), "unknown_session");
    assert_refused(&session.post(&face, &initialized()), "unknown_session");
    assert_refused(&face.send(session.req(Req::get("/mcp"))), "unknown_session");
    assert_refused(&face.send(session.req(Req::new("DELETE", "/mcp"))), "unknown_session");
    assert_refused(&face.send(Req::post(&ping(2)).session("not-a-session")), "unknown_session");
    assert_eq!(other.answer(&face, &ping(3)), json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    assert!(alive(children[0]), "the shared child ended with one session");
}

/// A body longer than the line limit (`--max-line-bytes 1000`) gets 413
/// body_too_long, before a session and in one; a body of exactly the limit
/// passes.
#[test]
fn a_body_over_the_line_limit_gets_413() {
    let face = Face::start(&["--max-line-bytes", "1000"], &demo());
    let padded = |len: usize, id: u64| -> Vec<u8> {
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}},"pad":""#
        );
        let mut body = head.into_bytes();
        body.resize(len - 3, b'x');
        body.extend_from_slice(br#""}}"#);
        assert_eq!(body.len(), len);
        body
    };
    let post = |body: Vec<u8>| Req::post(&json!(null)).body(body);
    assert_refused(&face.send(post(padded(1001, 1))), "body_too_long");
    let reply = face.send(post(padded(1000, 2)));
    assert_eq!((reply.status, &reply.json()["id"]), (200, &json!(2)), "{reply}");
    let session =
        Session { id: reply.header("mcp-session-id").unwrap_or_default().to_owned(), revision: "2025-11-25".into() };
    assert_accepted(&session.post(&face, &initialized()));
    let mut long = ping(3).to_string().into_bytes();
    long.splice(1..1, format!(r#""pad":"{}","#, "y".repeat(1000)).into_bytes());
    assert_refused(&face.send(session.req(post(long.clone()))), "body_too_long");
    // And on /messages, for a session of HTTP+SSE.
    let mut legacy = sse(face.send(Req::get("/sse")));
    let endpoint = legacy.next().data;
    let over = Req::new("POST", &endpoint).header("Content-Type", "application/json").body(long);
    assert_refused(&face.send(over), "body_too_long");
    assert_eq!(session.answer(&face, &ping(4)), json!({"jsonrpc": "2.0", "id": 4, "result": {}}));
}

/// A body that is not JSON gets 400 with the parse_error of the error
/// table (-32700), without an id, before a session and in one.
#[test]
fn a_body_that_is_not_json_gets_400_parse_error() {
    let face = Face::start(&[], &demo());
    let expected = json!({"jsonrpc": "2.0",
        "error": bridge_error(-32700, &message("parse_error"), "parse_error", None)});
    let session = Session::open(&face, "2025-11-25", json!({}));
    for (label, req) in [
        ("no session", Req::post(&json!(null)).body(b"{nope".to_vec())),
        ("a session", session.req(Req::post(&json!(null)).body(b"{nope".to_vec()))),
    ] {
        let reply = face.send(req);
        assert_eq!((reply.status, reply.header("content-type")), (400, Some("application/json")), "{label}: {reply}");
        crate::support::assert_json(label, &reply.json(), &expected);
    }
    assert_eq!(session.answer(&face, &ping(1)), json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
}

/// A body that is empty (or blanks) is no message at all: 400 with the
/// parse_error of the error table (JSON-RPC: an empty text is not valid
/// JSON), not the refusal of a batch, which it is not, in a session of
/// 2025-03-26, which takes batches.
#[test]
fn an_empty_body_gets_400_parse_error_not_no_batches() {
    let face = Face::start(&[], &demo());
    let expected = json!({"jsonrpc": "2.0",
        "error": bridge_error(-32700, &message("parse_error"), "parse_error", None)});
    let session = Session::open(&face, "2025-03-26", json!({}));
    for body in [&b""[..], b" \r\n"] {
        let reply = face.send(session.req(Req::post(&json!(null)).body(body.to_vec())));
        assert_eq!(reply.status, 400, "{body:?}: {reply}");
        crate::support::assert_json(&format!("{body:?}"), &reply.json(), &expected);
    }
}

/// A batch from a session of a revision without batches (2025-06-18 and
/// later) gets 400 no_batches, and none of its requests runs.
#[test]
fn a_batch_of_a_revision_without_batches_gets_400() {
    let face = Face::start(&[], &demo());
    for revision in ["2025-11-25", "2025-06-18"] {
        let session = Session::open(&face, revision, json!({}));
        let reply = session.post(&face, &json!([ping(1), call(json!(2), "add_tool", json!({}))]));
        assert_refused(&reply, "no_batches");
        let tools = session.answer(&face, &request(json!(3), "tools/list", json!({})));
        let extra = tools["result"]["tools"].as_array().into_iter().flatten().any(|t| t["name"] == "extra");
        assert!(!extra, "{revision}: a call of the refused batch ran: {tools}");
    }
}

/// An unknown session id gets 404, also on a POST of initialize, which
/// must come without one.
#[test]
fn an_unknown_session_id_gets_404() {
    let face = Face::start(&[], &demo());
    let init = request(json!(1), "initialize", init_params("2025-11-25", json!({})));
    assert_refused(&face.send(Req::post(&init).session(&"0".repeat(64))), "unknown_session");
    assert_refused(&face.send(Req::get("/mcp").session(&"0".repeat(64))), "unknown_session");
}
