//! The door (docs/decisions.md, "The HTTP face", "The door"): every
//! request passes `Host`, `Origin` and the bearer token before its path.
//! `Host` must name the address the request came to (with `localhost` for
//! a loopback one) or the `--public-url`'s host, against DNS rebinding; an
//! `Origin`, when there is one, the face's own or an `--allow-origin`
//! (the transport: "Servers MUST validate the Origin header ... 403").

use super::*;
use crate::support::http::assert_refused;

/// An initialize that opens a session.
fn initialize() -> Req {
    Req::post(&request(json!(1), "initialize", init_params("2025-11-25", json!({}))))
}

/// A request that passes the door and is refused at the path: a request
/// without a session that is not initialize.
fn past_the_door() -> Req {
    Req::post(&request(json!(1), "ping", json!({})))
}

#[track_caller]
fn assert_session(reply: &Reply) {
    assert_eq!(reply.status, 200, "{reply}");
    assert_eq!(reply.json()["result"]["protocolVersion"], "2025-11-25", "{reply}");
    assert_session_id(reply.header("mcp-session-id").unwrap_or_default());
}

/// A `Host` that names another site (DNS rebinding) gets 403 foreign_host,
/// on every path: the door comes before the path, so an unknown path is
/// 403 and not 404. The face's own address and `localhost` with its port
/// pass; its address with another port does not.
#[test]
fn a_foreign_host_gets_403_before_the_path_is_looked_at() {
    let face = Face::start(&[], &demo());
    let port = face.port;
    let evil = format!("evil.example:{port}");
    assert_refused(&face.send(initialize().header("Host", &evil)), "foreign_host");
    assert_refused(&face.send(Req::get("/nope").header("Host", &evil)), "foreign_host");
    assert_refused(&face.send(Req::new("PUT", "/mcp").header("Host", &evil)), "foreign_host");
    assert_refused(&face.send(initialize().header("Host", &format!("127.0.0.1:{}", port ^ 1))), "foreign_host");
    assert_refused(&face.send(Req::get("/nope")), "not_found");
    assert_session(&face.send(initialize().header("Host", &format!("localhost:{port}"))));
    assert_session(&face.send(initialize()));
}

/// An `Origin` that is neither the face's own nor allowed gets 403
/// foreign_origin (also on an unknown path); the face's own origins,
/// `http://127.0.0.1:PORT` and `http://localhost:PORT`, pass.
#[test]
fn a_foreign_origin_gets_403_and_the_faces_own_origins_pass() {
    let face = Face::start(&[], &demo());
    let port = face.port;
    assert_refused(&face.send(initialize().header("Origin", "http://evil.example")), "foreign_origin");
    assert_refused(&face.send(Req::get("/nope").header("Origin", "http://evil.example")), "foreign_origin");
    assert_refused(&face.send(initialize().header("Origin", "null")), "foreign_origin");
    for own in [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")] {
        assert_session(&face.send(initialize().header("Origin", &own)));
    }
}

/// `--allow-origin https://app.example.com` lets that origin in (a web
/// client's page), and no other port of it; the face's own still passes.
#[test]
fn allow_origin_lets_that_origin_in() {
    let face = Face::start(&["--allow-origin", "https://app.example.com"], &demo());
    assert_session(&face.send(initialize().header("Origin", "https://app.example.com")));
    assert_refused(&face.send(past_the_door().header("Origin", "https://app.example.com:8443")), "foreign_origin");
    assert_refused(&face.send(past_the_door().header("Origin", "https://other.example.com")), "foreign_origin");
    assert_refused(
        &face.send(past_the_door().header("Origin", &format!("http://127.0.0.1:{}", face.port))),
        "not_initialize",
    );
}

/// `--public-url https://mcp.example.com/mcp` (behind a proxy) lets its
/// host in, with or without https's port; not another host, nor another
/// port of it.
#[test]
fn public_url_lets_its_host_in() {
    let face = Face::start(&["--public-url", "https://mcp.example.com/mcp"], &demo());
    assert_session(&face.send(initialize().header("Host", "mcp.example.com")));
    assert_refused(&face.send(past_the_door().header("Host", "mcp.example.com:443")), "not_initialize");
    assert_refused(&face.send(past_the_door().header("Host", "MCP.example.com")), "not_initialize");
    assert_refused(&face.send(past_the_door().header("Host", "mcp.example.com:80")), "foreign_host");
    assert_refused(&face.send(past_the_door().header("Host", "other.example.com")), "foreign_host");
    // The face's own address still passes.
    assert_refused(&face.send(past_the_door()), "not_initialize");
}

/// The public URL's origin passes the Origin check too (`FaceOptions::
/// public_url`: "its host passes the Host check and its origin the Origin
/// check"; `--public-url --help`: "its host and origin are let in"): a
/// page served at the public URL may send requests. A port it names
/// passes as well.
#[test]
fn public_url_lets_its_origin_in() {
    let face = Face::start(&["--public-url", "https://mcp.example.com:8443/mcp"], &demo());
    let named_port = past_the_door().header("Host", "mcp.example.com:8443");
    assert_refused(&face.send(named_port.header("Origin", "https://mcp.example.com:8443")), "not_initialize");
    drop(face);
    let face = Face::start(&["--public-url", "https://mcp.example.com/mcp"], &demo());
    assert_refused(&face.send(past_the_door().header("Origin", "https://evil.example")), "foreign_origin");
    for origin in ["https://mcp.example.com", "https://mcp.example.com:443"] {
        let public = past_the_door().header("Host", "mcp.example.com").header("Origin", origin);
        assert_refused(&face.send(public), "not_initialize");
    }
}

/// `--auth-token-env VAR`: every request must bring `Authorization:
/// Bearer <value of VAR>`; without it or with another token, 401
/// unauthorized with `WWW-Authenticate: Bearer`. The Host check comes
/// first: a foreign Host with the right token is still 403.
#[test]
fn auth_token_env_requires_the_bearer_token_on_every_request() {
    let token = "face-test-token-7f3a";
    let face = Face::start_env(&["--auth-token-env", "FACE_TEST_TOKEN"], &demo(), &[("FACE_TEST_TOKEN", token)]);
    let bearer = format!("Bearer {token}");
    for wrong in
        [None, Some("Bearer wrong"), Some(&format!("Bearer {token}x")[..]), Some(&format!("Basic {token}")[..])]
    {
        let req = match wrong {
            Some(value) => initialize().header("Authorization", value),
            None => initialize(),
        };
        let reply = face.send(req);
        assert_refused(&reply, "unauthorized");
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"), "{wrong:?}: {reply}");
    }
    let evil = initialize().header("Authorization", &bearer).header("Host", "evil.example");
    assert_refused(&face.send(evil), "foreign_host");
    let reply = face.send(initialize().header("Authorization", &bearer));
    assert_session(&reply);
    let id = reply.header("mcp-session-id").unwrap_or_default().to_owned();
    // Every request of the session needs it too.
    let ack = Req::post(&initialized()).session(&id);
    assert_refused(&face.send(ack.clone()), "unauthorized");
    assert_accepted(&face.send(ack.header("Authorization", &bearer)));
}

/// `--allow-origin` names "an origin whose pages may send requests": a
/// page of another origin sends a POST of JSON with `Mcp-Session-Id` only
/// after a CORS preflight (OPTIONS) that allows it, and reads the answer
/// and its session id only with `Access-Control-Allow-Origin` and
/// `Access-Control-Expose-Headers` (the Fetch standard, CORS protocol).
#[test]
fn allow_origin_answers_the_cors_preflight_of_its_pages() {
    let face = Face::start(&["--allow-origin", "https://app.example.com"], &demo());
    let preflight = Req::new("OPTIONS", "/mcp")
        .header("Origin", "https://app.example.com")
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "content-type, mcp-protocol-version, mcp-session-id");
    let reply = face.send(preflight);
    assert!((200..300).contains(&reply.status), "the preflight of an allowed origin: {reply}");
    assert_eq!(reply.header("access-control-allow-origin"), Some("https://app.example.com"), "{reply}");
    let listed = |name: &str, value: &str| {
        reply.header(name).is_some_and(|v| v.split(',').any(|m| m.trim().eq_ignore_ascii_case(value)))
    };
    assert!(listed("access-control-allow-methods", "POST"), "{reply}");
    assert!(listed("access-control-allow-headers", "mcp-session-id"), "{reply}");
    let reply = face.send(initialize().header("Origin", "https://app.example.com"));
    assert_session(&reply);
    assert_eq!(reply.header("access-control-allow-origin"), Some("https://app.example.com"), "{reply}");
    let exposed = reply.header("access-control-expose-headers").unwrap_or_default().to_ascii_lowercase();
    assert!(exposed.contains("mcp-session-id"), "{reply}");
}
