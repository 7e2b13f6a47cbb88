//! The face after an attack (docs/decisions.md, "The HTTP face", "Bodies
//! and connections, after an attack", "Web pages"): bodies bounded by
//! their `Content-Length` before a byte is read, a stalled body that holds
//! nobody else, one `Host` and one `Origin`, an `Origin` that is not text,
//! an absolute-form target, a refusal that closes its connection, the
//! separate session ids of the two transports, a batch over the bounds of
//! one stream, and the CORS answers to an allowed page.

use super::modern::{modern, post, REVISION};
use super::*;
use crate::support::http::{assert_refused, receive_then_closed, send_only, Next, ACCEPT_BOTH, STEP};
use std::io::Write;
use std::time::Duration;

/// `req` with the face's `Host` unless it names one.
fn hosted(face: &Face, req: Req) -> Req {
    if req.named("host").is_some() {
        req
    } else {
        req.header("Host", &face.host())
    }
}

/// Sends `requests` on one connection: the first must get the refusal
/// `cause` with `Connection: close`, and the face must close the
/// connection after it, answering none of the others.
#[track_caller]
fn assert_refused_then_closed(face: &Face, requests: Vec<Req>, cause: &str) {
    let requests: Vec<Req> = requests.into_iter().map(|r| hosted(face, r)).collect();
    let stream = send_only(face.port, &requests);
    let (reply, closed) = receive_then_closed(stream, &requests[0]);
    assert_refused(&reply, cause);
    assert_eq!(reply.header("connection"), Some("close"), "{cause}: {reply}");
    assert!(closed, "{cause}: the connection stayed open after the refusal");
}

fn initialize(id: u64) -> Req {
    Req::post(&request(json!(id), "initialize", init_params("2025-11-25", json!({}))))
}

/// POSTs a request of `session`: its stream carries exactly its response
/// (after the priming event of a resumable stream), then ends.
#[track_caller]
pub(super) fn answer_of(face: &Face, session: &Session, message: &Value) -> Value {
    let mut events = session.stream(face, message);
    let response = events.any_message();
    assert_eq!(response["id"], message["id"], "the response of {message}: {response}");
    events.assert_end();
    response
}

/// A head whose `Content-Length` is over the line limit
/// (`--max-line-bytes 1000`) gets 413 body_too_long before a byte of the
/// body is sent (only the head goes out; the answer comes within the
/// read's bound), and the connection closes: for a POST without a
/// session, a 2026-07-28 request, a request of a session and a POST of
/// /messages.
#[test]
fn a_content_length_over_the_line_limit_gets_413_before_the_body() {
    let face = Face::start(&["--max-line-bytes", "1000"], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let (_legacy, legacy) = legacy_session(&face);
    let heads = [
        Req::new("POST", "/mcp"),
        Req::new("POST", "/mcp").header("MCP-Protocol-Version", REVISION).header("Mcp-Method", "tools/list"),
        session.req(Req::new("POST", "/mcp")),
        Req::new("POST", &format!("/messages?sessionId={legacy}")),
    ];
    for req in heads {
        let req = head(&face, req, 5000);
        let (reply, closed) = receive_then_closed(send_only(face.port, std::slice::from_ref(&req)), &req);
        assert_refused(&reply, "body_too_long");
        assert!(closed, "{req:?}: the connection stayed open");
    }
    let pong = answer_of(&face, &session, &request(json!(2), "ping", json!({})));
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

/// The head of a POST of JSON to `req`'s path whose body is `length`
/// bytes long; the body is not in it.
fn head(face: &Face, req: Req, length: usize) -> Req {
    let req = req.header("Accept", ACCEPT_BOTH).header("Content-Type", "application/json");
    hosted(face, req.header("Content-Length", &length.to_string()))
}

/// A body that stalls (its head says 100 bytes, 10 came) holds no one
/// else: while it waits, and while a head of 10 MiB waits for its body,
/// the same session answers another request, a new session opens, and a
/// 2026-07-28 request is answered, each at once. Not tested: the 408 that
/// the stalled body gets after 60 s, and the 503 of a big body that waits
/// 60 s for its share of the budget (too slow for a test).
#[test]
fn a_stalled_body_holds_no_other_client() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-11-25", json!({}));
    let mut small = send_only(face.port, &[head(&face, session.req(Req::new("POST", "/mcp")), 100)]);
    small.write_all(br#"{"jsonrpc""#).expect("10 bytes of the body");
    let mut big = send_only(face.port, &[head(&face, Req::new("POST", "/mcp"), 10 << 20)]);
    big.write_all(br#"{"jsonrpc""#).expect("10 bytes of the body");
    let started = std::time::Instant::now();
    let pong = answer_of(&face, &session, &request(json!(3), "ping", json!({})));
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    let other = Session::open(&face, "2025-06-18", json!({}));
    let pong = answer_of(&face, &other, &request(json!(4), "ping", json!({})));
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 4, "result": {}}));
    let discover = face.send(post(&modern(json!(5), "server/discover", json!({}))));
    assert_eq!((discover.status, &discover.json()["id"]), (200, &json!(5)), "{discover}");
    assert!(started.elapsed() < Duration::from_secs(5), "the others waited {:?}", started.elapsed());
    drop((small, big));
}

/// Two `Host` or two `Origin` headers are a request that means two things:
/// 400 two_headers, also when both say the same.
#[test]
fn two_host_or_two_origin_headers_get_400() {
    let face = Face::start(&[], &demo());
    let own = face.host();
    let origin = format!("http://{own}");
    for req in [
        initialize(1).header("Host", &own).also("Host", &own),
        initialize(1).header("Host", &own).also("Host", "evil.example"),
        initialize(1).header("Origin", &origin).also("Origin", &origin),
        initialize(1).header("Origin", &origin).also("Origin", "http://evil.example"),
    ] {
        assert_refused_then_closed(&face, vec![req], "two_headers");
    }
}

/// An `Origin` that is not text (bytes that are not visible ASCII) is
/// present and not the face's: 403 foreign_origin.
#[test]
fn an_origin_that_is_not_text_is_foreign() {
    let face = Face::start(&[], &demo());
    for origin in ["http://évil.example".to_owned(), format!("http://{}/é", face.host())] {
        assert_refused_then_closed(&face, vec![initialize(1).header("Origin", &origin)], "foreign_origin");
    }
}

/// An absolute-form target names the host the request is for (RFC 9112,
/// 3.2.2: its authority, not `Host`): `POST http://evil.example/mcp` with
/// the face's `Host` is 403 foreign_host; the face's own authority is
/// served, whatever `Host` says.
#[test]
fn an_absolute_form_target_names_the_host() {
    let face = Face::start(&[], &demo());
    let body = request(json!(1), "initialize", init_params("2025-11-25", json!({})));
    let at = |target: &str| {
        let req = Req::new("POST", target).header("Accept", ACCEPT_BOTH).header("Content-Type", "application/json");
        req.header("Host", &face.host()).body(body.to_string().into_bytes())
    };
    assert_refused_then_closed(&face, vec![at("http://evil.example/mcp")], "foreign_host");
    let own = format!("http://{}/mcp", face.host());
    for host in [face.host(), "evil.example".to_owned()] {
        let reply = face.send(at(&own).header("Host", &host));
        assert_eq!((reply.status, &reply.json()["id"]), (200, &json!(1)), "Host {host}: {reply}");
    }
}

/// A refused client gets no other request on its connection: the answer
/// has `Connection: close`, and a request sent after it on the same
/// connection is never answered (the connection ends).
#[test]
fn a_refusal_closes_its_connection() {
    let face = Face::start(&[], &demo());
    let evil = initialize(1).header("Host", "evil.example");
    let next = initialize(2).header("Host", &face.host());
    assert_refused_then_closed(&face, vec![evil, next.clone()], "foreign_host");
    let no_session = Req::post(&request(json!(3), "tools/list", json!({})));
    assert_refused_then_closed(&face, vec![no_session, next.clone()], "not_initialize");
    let unknown = Req::post(&request(json!(4), "ping", json!({}))).session(&"0".repeat(64));
    assert_refused_then_closed(&face, vec![unknown, next], "unknown_session");
}

/// Opens an /sse session: its stream and its id.
#[track_caller]
fn legacy_session(face: &Face) -> (Events, String) {
    let mut events = sse(face.send(Req::get("/sse")));
    let endpoint = events.next().data;
    let id = endpoint.strip_prefix("/messages?sessionId=").unwrap_or_else(|| panic!("{endpoint}")).to_owned();
    (events, id)
}

/// "The session ids of the two transports are separate": an /sse
/// session's id on a POST of /mcp is unknown (404), and so is an /mcp
/// session's id on /messages.
#[test]
fn a_session_id_of_one_transport_is_unknown_to_the_others_posts() {
    let face = Face::start(&[], &demo());
    let (_events, legacy) = legacy_session(&face);
    let ping = Req::post(&request(json!(1), "ping", json!({})));
    assert_refused(&face.send(ping.clone().session(&legacy)), "unknown_session");
    let session = Session::open(&face, "2025-11-25", json!({}));
    let messages = Req::new("POST", &format!("/messages?sessionId={}", session.id))
        .header("Content-Type", "application/json")
        .body(request(json!(2), "ping", json!({})).to_string().into_bytes());
    assert_refused(&face.send(messages), "unknown_session");
    assert_eq!(
        answer_of(&face, &session, &request(json!(3), "ping", json!({}))),
        json!({"jsonrpc": "2.0", "id": 3, "result": {}})
    );
}

/// The same rule for a GET and a DELETE of /mcp: an /sse session's id is
/// unknown there (404 unknown_session), and the /sse session goes on (a
/// POST of /messages still gets 202).
#[test]
fn a_session_id_of_sse_is_unknown_to_get_and_delete_of_mcp() {
    let face = Face::start(&[], &demo());
    let (_events, legacy) = legacy_session(&face);
    let get = face.send(Req::get("/mcp").session(&legacy));
    let delete = face.send(Req::new("DELETE", "/mcp").session(&legacy));
    let ping = Req::new("POST", &format!("/messages?sessionId={legacy}"))
        .header("Content-Type", "application/json")
        .body(request(json!(1), "ping", json!({})).to_string().into_bytes());
    let still = face.send(ping);
    let cause = |reply: &Reply| reply.json()["error"]["data"]["cause"].as_str().unwrap_or_default().to_owned();
    let got = ((get.status, cause(&get)), delete.status, still.status);
    let expected = ((404, "unknown_session".to_owned()), 404, 202);
    assert_eq!(got, expected, "GET: {get}\nDELETE: {delete}\nthe /sse session's POST: {still}");
}

/// A batch of 300 pings of a session of 2025-03-26, more than the 256
/// places in flight and the 256 messages a stream may lag: one stream with
/// the 300 responses, each once, then its end.
#[test]
fn a_batch_of_300_pings_gets_300_responses() {
    let face = Face::start(&[], &demo());
    let session = Session::open(&face, "2025-03-26", json!({}));
    let batch: Vec<Value> = (0..300).map(|id| request(json!(id), "ping", json!({}))).collect();
    let mut events = session.stream(&face, &Value::Array(batch));
    let mut seen = vec![false; 300];
    for _ in 0..300 {
        let response = events.any_message();
        let id = response["id"].as_u64().unwrap_or(u64::MAX) as usize;
        assert_eq!(response, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
        assert!(!std::mem::replace(&mut seen[id], true), "a second response to {id}");
    }
    events.assert_end();
}

/// A page of an `--allow-origin` origin: its preflight (OPTIONS, without
/// the token the face asks of every other request) gets 204 with its
/// origin, the methods of the path, and of the request headers only the
/// transports' (`Mcp-Param-*` too; `X-Evil` and an `Mcp-Param-` without a
/// name are left out), for 10 minutes. A foreign origin's preflight is
/// 403, an unknown path's 404. A real answer to the page names its origin
/// and exposes `Mcp-Session-Id` and `WWW-Authenticate`, an SSE answer too.
#[test]
fn an_allowed_pages_preflight_and_answers_get_cors() {
    let page = "https://app.example.com";
    let token = "face-cors-token";
    let face = Face::start_env(
        &["--allow-origin", page, "--auth-token-env", "FACE_CORS_TOKEN"],
        &demo(),
        &[("FACE_CORS_TOKEN", token)],
    );
    let asked = "Content-Type, X-Evil, Mcp-Param-Region, mcp-session-id, Authorization, MCP-Protocol-Version, \
                 Mcp-Method, Mcp-Name, Mcp-Param-, Last-Event-ID";
    let preflight = |path: &str, origin: &str| {
        Req::new("OPTIONS", path)
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", asked)
    };
    let allowed = "content-type, mcp-param-region, mcp-session-id, authorization, mcp-protocol-version, \
                   mcp-method, mcp-name, last-event-id";
    for (path, methods) in [("/mcp", "GET, POST, DELETE"), ("/sse", "GET"), ("/messages", "POST")] {
        let reply = face.send(preflight(path, page));
        assert_eq!((reply.status, reply.body.as_slice()), (204, &b""[..]), "{path}: {reply}");
        let cors: Vec<Option<&str>> = [
            "access-control-allow-origin",
            "access-control-allow-methods",
            "access-control-allow-headers",
            "access-control-max-age",
            "access-control-expose-headers",
            "vary",
        ]
        .iter()
        .map(|name| reply.header(name))
        .collect();
        let expected = [
            Some(page),
            Some(methods),
            Some(allowed),
            Some("600"),
            Some("mcp-session-id, www-authenticate"),
            Some("origin"),
        ];
        assert_eq!(cors, expected, "{path}: {reply}");
    }
    assert_refused(&face.send(preflight("/mcp", "https://evil.example")), "foreign_origin");
    assert_refused(&face.send(preflight("/nope", page)), "not_found");
    let bearer = format!("Bearer {token}");
    let reply = face.send(initialize(1).header("Origin", page).header("Authorization", &bearer));
    assert_eq!(reply.status, 200, "{reply}");
    let exposed = |reply: &Reply| {
        (
            reply.header("access-control-allow-origin").map(str::to_owned),
            reply.header("access-control-expose-headers").map(str::to_owned),
        )
    };
    let named = (Some(page.to_owned()), Some("mcp-session-id, www-authenticate".to_owned()));
    assert_eq!(exposed(&reply), named, "{reply}");
    // The page may read a 401 too (its WWW-Authenticate); a foreign page
    // gets its 403 without CORS.
    let unauthorized = face.send(initialize(3).header("Origin", page));
    assert_refused(&unauthorized, "unauthorized");
    assert_eq!(exposed(&unauthorized), named, "{unauthorized}");
    let foreign = face.send(initialize(4).header("Origin", "https://evil.example").header("Authorization", &bearer));
    assert_refused(&foreign, "foreign_origin");
    assert_eq!(exposed(&foreign), (None, None), "{foreign}");
    let session =
        Session { id: reply.header("mcp-session-id").unwrap_or_default().to_owned(), revision: "2025-11-25".into() };
    let with = |req: Req| session.req(req).header("Origin", page).header("Authorization", &bearer);
    assert_accepted(&face.send(with(Req::post(&initialized()))));
    let reply = face.send(with(Req::post(&request(json!(2), "ping", json!({})))));
    assert_eq!(exposed(&reply), named, "{reply}");
    let mut events = sse(reply);
    assert_eq!(events.any_message(), json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    match events.next_within(STEP) {
        Next::End => {}
        other => panic!("the ping's stream did not end: {other:?}"),
    }
}
