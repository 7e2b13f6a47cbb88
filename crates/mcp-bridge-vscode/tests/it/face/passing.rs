//! `--pass-authorization` (docs/decisions.md, "The HTTP face",
//! "`--pass-authorization`"; README, "Serve clients over HTTP"): the face
//! in front of a protected server at a URL (tests/fake/auth_upstream.py,
//! whose every /mcp request needs a token of its own authorization
//! server) passes each client's own `Authorization` on and signs in for
//! nobody. The upstream's 401 becomes the client's, with a challenge that
//! names the face's copy of the upstream's protected resource metadata,
//! whose `resource` is the face; the client's own OAuth (played here:
//! registration, authorization code with PKCE S256 for the face's
//! resource, token) then gives a token that works through the face.

use super::modern::{json_answer, modern, post, REVISION};
use super::process::Refused;
use super::*;
use crate::support::fake::Record;
use crate::support::http::{assert_refused, send};
use crate::support::served::Served;
use crate::support::{assert_json, repo_root};
use std::process::Command;

/// The verifier and S256 challenge of RFC 7636, Appendix B.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
/// The redirect URI of the client the test plays (nothing listens there:
/// the fake's authorize answers a 302 that the test reads).
const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// The protected server and the record of every request it got.
pub(super) struct Upstream {
    served: Served,
    pub(super) record: Record,
}

impl Upstream {
    pub(super) fn start(name: &str, options: &[&str]) -> Upstream {
        let record = Record::new(name);
        let mut cmd = Command::new("python3");
        cmd.arg(repo_root().join("tests/fake/auth_upstream.py")).args(["--record", record.arg()]).args(options);
        Upstream { served: Served::start(cmd, false), record }
    }

    pub(super) fn mcp(&self) -> String {
        self.served.url("/mcp")
    }

    /// The /mcp requests it got: their JSON-RPC method, the token they
    /// carried (null without one) and its answer's status.
    pub(super) fn mcp_requests(&self) -> Vec<Value> {
        let requests = self.record.messages().into_iter().filter(|r| r["path"] == "/mcp" && r["method"] == "POST");
        requests.map(|r| json!({"rpc": r["rpc"], "token": r["token"], "status": r["status"]})).collect()
    }
}

/// A face with `options` in front of `upstream`, its token store in the
/// record's folder (it must not need it).
fn face(upstream: &Upstream, options: &[&str], env: &[(&str, &str)]) -> Face {
    let config = std::path::Path::new(upstream.record.arg()).with_extension("config");
    let config = config.display().to_string();
    let mut env = env.to_vec();
    env.push(("XDG_CONFIG_HOME", &config));
    Face::start_url(options, &upstream.mcp(), &env)
}

fn initialize(id: u64) -> Req {
    Req::post(&request(json!(id), "initialize", init_params("2025-11-25", json!({}))))
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// The challenge of the face at `origin` (`http://127.0.0.1:PORT`, or the
/// public URL's), with the upstream's scope.
fn challenge(origin: &str) -> String {
    format!("Bearer resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:read\"")
}

/// The upstream's refusal as the client's: 401, the face's challenge, no
/// body, no session.
#[track_caller]
fn assert_challenged(reply: &Reply, origin: &str) {
    assert_eq!((reply.status, reply.body.as_slice()), (401, &b""[..]), "{reply}");
    assert_eq!(reply.header("www-authenticate"), Some(challenge(origin).as_str()), "{reply}");
    assert_eq!(reply.header("mcp-session-id"), None, "{reply}");
}

/// A GET or POST of `url` on the upstream's port; a POST's body has
/// `content_type`.
pub(super) fn at(url: &str, body: Option<(&str, String)>) -> Reply {
    let url = url::Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
    let port = url.port().unwrap_or(80);
    let target = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    let req = match body {
        Some((content_type, body)) => {
            Req::new("POST", &target).header("Content-Type", content_type).body(body.into_bytes())
        }
        None => Req::new("GET", &target),
    };
    send(port, &req.header("Host", &format!("127.0.0.1:{port}")))
}

fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish()
}

/// The client's OAuth at the authorization server of `metadata` (the
/// face's protected resource metadata): dynamic registration, the
/// authorization code with PKCE S256 for its `resource`, the token. The
/// access token.
#[track_caller]
fn sign_in(metadata: &Value) -> String {
    let resource = metadata["resource"].as_str().expect("a resource");
    let issuer = metadata["authorization_servers"][0].as_str().expect("an authorization server");
    let server = at(&format!("{issuer}/.well-known/oauth-authorization-server"), None);
    assert_eq!(server.status, 200, "{server}");
    let server = server.json();
    let endpoint = |name: &str| server[name].as_str().unwrap_or_else(|| panic!("no {name}: {server}")).to_owned();
    let registration = json!({"redirect_uris": [REDIRECT], "client_name": "face-test"}).to_string();
    let registered = at(&endpoint("registration_endpoint"), Some(("application/json", registration)));
    assert_eq!(registered.status, 201, "{registered}");
    let client_id = registered.json()["client_id"].as_str().expect("a client_id").to_owned();
    let query = form(&[
        ("response_type", "code"),
        ("client_id", &client_id),
        ("redirect_uri", REDIRECT),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
        ("state", "face-state"),
        ("resource", resource),
        ("scope", "mcp:read"),
    ]);
    let authorized = at(&format!("{}?{query}", endpoint("authorization_endpoint")), None);
    assert_eq!(authorized.status, 302, "{authorized}");
    let location = url::Url::parse(authorized.header("location").unwrap_or_default()).expect("a Location");
    let value = |key: &str| location.query_pairs().find(|(k, _)| k == key).map(|(_, v)| v.into_owned());
    assert_eq!(value("state").as_deref(), Some("face-state"), "{location}");
    let code = value("code").unwrap_or_else(|| panic!("no code: {location}"));
    let token_form = form(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("redirect_uri", REDIRECT),
        ("client_id", &client_id),
        ("code_verifier", VERIFIER),
        ("resource", resource),
    ]);
    let token = at(&endpoint("token_endpoint"), Some(("application/x-www-form-urlencoded", token_form)));
    assert_eq!(token.status, 200, "{token}");
    token.json()["access_token"].as_str().expect("an access_token").to_owned()
}

/// The face's protected resource metadata, as a client gets it from its
/// challenge: 200, JSON.
#[track_caller]
fn metadata(face: &Face, host: Option<&str>) -> Value {
    let get = Req::new("GET", "/.well-known/oauth-protected-resource/mcp");
    let reply = face.send(match host {
        Some(host) => get.header("Host", host),
        None => get,
    });
    json_answer(&reply, 200)
}

/// An initialize without `Authorization` gets the upstream's 401 with the
/// face's challenge (the upstream's scope), no body and no session: with
/// `--max-sessions 1`, the next initialize is not 503. The challenge's
/// metadata is the upstream's with `resource` the face's own `/mcp`.
#[test]
fn without_authorization_the_client_gets_the_faces_challenge_and_no_session() {
    let upstream = Upstream::start("pass-challenge", &[]);
    let face = face(&upstream, &["--pass-authorization", "--max-sessions", "1"], &[]);
    let own = format!("http://{}", face.host());
    assert_challenged(&face.send(initialize(1)), &own);
    assert_challenged(&face.send(initialize(2)), &own);
    let expected = json!({"resource": format!("{own}/mcp"),
        "authorization_servers": [format!("http://127.0.0.1:{}", upstream.served.port)],
        "scopes_supported": ["mcp:read"]});
    assert_json("the face's metadata", &metadata(&face, None), &expected);
    assert!(upstream.mcp_requests().iter().all(|r| r["token"].is_null()), "{:?}", upstream.mcp_requests());
}

/// `--public-url https://mcp.example.com/mcp`: the challenge names the
/// metadata at the public origin, and its `resource` is the public URL.
#[test]
fn the_public_url_is_the_resource() {
    let upstream = Upstream::start("pass-public", &[]);
    let face = face(&upstream, &["--pass-authorization", "--public-url", "https://mcp.example.com/mcp"], &[]);
    let reply = face.send(initialize(1).header("Host", "mcp.example.com"));
    assert_challenged(&reply, "https://mcp.example.com");
    let found = metadata(&face, Some("mcp.example.com"));
    assert_eq!(found["resource"], "https://mcp.example.com/mcp", "{found}");
}

/// The client signs in at the upstream's authorization server for the
/// face's resource (the authorize request names it), then initializes and
/// calls with `Authorization: Bearer <token>`: a session, the call's
/// result, and the upstream got that token. A later call with a wrong
/// token gets 401 with the challenge; the right token works again.
#[test]
fn the_clients_own_sign_in_works_through_the_face() {
    let upstream = Upstream::start("pass-flow", &[]);
    let face = face(&upstream, &["--pass-authorization"], &[]);
    let own = format!("http://{}", face.host());
    assert_challenged(&face.send(initialize(1)), &own);
    let token = sign_in(&metadata(&face, None));
    let authorize = upstream.record.messages().into_iter().find(|r| r["path"] == "/authorize");
    let asked = authorize.map(|r| r["values"].clone()).unwrap_or_default();
    assert_eq!((&asked["resource"], &asked["code_challenge_method"]), (&json!(format!("{own}/mcp")), &json!("S256")));
    let reply = face.send(initialize(2).header("Authorization", &bearer(&token)));
    assert_eq!((reply.status, &reply.json()["result"]["protocolVersion"]), (200, &json!("2025-11-25")), "{reply}");
    let session =
        Session { id: reply.header("mcp-session-id").expect("a session").to_owned(), revision: "2025-11-25".into() };
    assert_accepted(&face.send(session.req(Req::post(&initialized())).header("Authorization", &bearer(&token))));
    let whoami = |id: u64| session.req(Req::post(&call(json!(id), "whoami", json!({}))));
    let text = json!([{"type": "text", "text": "scope mcp:read"}]);
    let scope = |id: u64| json!({"jsonrpc": "2.0", "id": id, "result": {"content": text}});
    let mut events = sse(face.send(whoami(3).header("Authorization", &bearer(&token))));
    assert_json("the call", &events.any_message(), &scope(3));
    assert_challenged(&face.send(whoami(4).header("Authorization", "Bearer wrong-token")), &own);
    let mut events = sse(face.send(whoami(5).header("Authorization", &bearer(&token))));
    assert_json("the call after", &events.any_message(), &scope(5));
    let calls: Vec<Value> = upstream.mcp_requests().into_iter().filter(|r| r["rpc"] == "tools/call").collect();
    let expected = [(&token[..], 200), ("wrong-token", 401), (&token[..], 200)]
        .map(|(t, status)| json!({"rpc": "tools/call", "token": t, "status": status}));
    assert_eq!(calls, expected);
}

/// A request of a 2026-07-28 client carries its own `Authorization`
/// upstream: without one, or with another, the client gets 401 with the
/// challenge; with the token it is answered, and the upstream got the
/// token.
#[test]
fn a_2026_request_carries_its_own_authorization() {
    let upstream = Upstream::start("pass-modern", &[]);
    let face = face(&upstream, &["--pass-authorization"], &[]);
    let own = format!("http://{}", face.host());
    let whoami = modern(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_challenged(&face.send(post(&whoami)), &own);
    let token = sign_in(&metadata(&face, None));
    let discover = modern(json!("m-1"), "server/discover", json!({}));
    let reply = face.send(post(&discover).header("Authorization", &bearer(&token)));
    let info = json!({"name": "auth-fake", "version": "1.0"});
    let expected = json!({"jsonrpc": "2.0", "id": "m-1", "result": {"supportedVersions": [REVISION],
        "capabilities": {"tools": {}}, "_meta": {"io.modelcontextprotocol/serverInfo": info}}});
    assert_json("discover with the token", &json_answer(&reply, 200), &expected);
    let reply = face.send(post(&whoami).header("Authorization", &bearer(&token)));
    let scope = json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "scope mcp:read"}]}});
    assert_json("a call with the token", &json_answer(&reply, 200), &scope);
    assert_challenged(&face.send(post(&whoami).header("Authorization", "Bearer wrong-token")), &own);
    // Before a call of a tool new to it, the face lists the tools with the
    // client's own authorization, to learn the tool's `Mcp-Param-*`
    // headers; once it knows the tool, it lists no more.
    let expected = [
        ("tools/list", Value::Null, 401),
        ("tools/call", Value::Null, 401),
        ("server/discover", json!(token), 200),
        ("tools/list", json!(token), 200),
        ("tools/call", json!(token), 200),
        ("tools/call", json!("wrong-token"), 401),
    ]
    .map(|(rpc, token, status)| json!({"rpc": rpc, "token": token, "status": status}));
    assert_eq!(upstream.mcp_requests(), expected);
}

/// The face serves its metadata from its start: a client that reads it
/// before its first request (one that knows the face already, or a
/// second client whose first look is the metadata) gets 200 with the
/// document, as after a request.
#[test]
fn the_metadata_is_served_before_any_request() {
    let upstream = Upstream::start("pass-metadata-first", &[]);
    let face = face(&upstream, &["--pass-authorization"], &[]);
    let found = metadata(&face, None);
    assert_eq!(found["resource"], json!(format!("http://{}/mcp", face.host())), "{found}");
}

/// `--listen 127.0.0.1:0 --pass-authorization <extra>` must not start:
/// exit 2, and `reason` a line of its stderr, which holds none of the
/// operator's secrets.
#[track_caller]
fn assert_refused_start(extra: &[&str], env: &[(&str, &str)], reason: &str) {
    let words = ["--listen", "127.0.0.1:0", "--pass-authorization"].iter().chain(extra);
    let refused: Refused = Face::refuse(&words.map(|s| s.to_string()).collect::<Vec<_>>(), env);
    assert_eq!(refused.status.code(), Some(2), "{extra:?}: {refused:?}");
    let line = format!("mcp-bridge-vscode: --pass-authorization {reason}");
    assert!(refused.stderr.lines().any(|l| l == line), "{extra:?}: not {line:?} in {refused:?}");
    assert!(!refused.stderr.contains("pa55word") && !refused.stderr.contains("operator-key"), "{refused:?}");
}

/// The command line refuses `--pass-authorization` (exit 2, the reason on
/// stderr) with a command upstream (it gets no `Authorization`), with a
/// URL that holds a user name and password or with `--header-env` (the
/// operator's credentials would reach the server for every client), and
/// with `--auth-token-env` (the face accepts no token of its own then).
/// The password is in no message.
#[test]
fn the_command_line_refuses_what_pass_authorization_cannot_keep() {
    let bin = env!("CARGO_BIN_EXE_mcp-bridge-vscode");
    assert_refused_start(
        &["--", bin, "demo-server"],
        &[],
        "is for a server at a URL: a command gets no Authorization header",
    );
    let own = "sends each client's own Authorization:";
    assert_refused_start(
        &["http://operator:pa55word@127.0.0.1:9/mcp"],
        &[],
        &format!(
            "{own} the URL must not hold a user name or password, which would reach the server for clients that \
             send none"
        ),
    );
    assert_refused_start(
        &["--header-env", "X-Api-Key=FACE_PASS_KEY", "http://127.0.0.1:9/mcp"],
        &[("FACE_PASS_KEY", "operator-key")],
        &format!("{own} --header-env would send the operator's header for every client, signed in or not"),
    );
    let both = ["--listen", "127.0.0.1:0", "--pass-authorization", "--auth-token-env", "FACE_PASS_TOKEN"];
    let mut both: Vec<String> = both.iter().map(|s| s.to_string()).collect();
    both.push("http://127.0.0.1:9/mcp".into());
    let refused = Face::refuse(&both, &[("FACE_PASS_TOKEN", "t")]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    for name in ["--pass-authorization", "--auth-token-env"] {
        assert!(refused.stderr.contains(name), "{name}: {refused:?}");
    }
}

/// "A request without `Authorization` takes a body of at most 64 KiB": one
/// byte more is 413 before a session or the upstream sees it (also for a
/// 2026-07-28 request); 64 KiB passes (to the upstream's 401), and so does
/// a longer body with `Authorization`.
#[test]
fn a_body_over_64_kib_without_authorization_gets_413() {
    let upstream = Upstream::start("pass-body", &[]);
    let face = face(&upstream, &["--pass-authorization"], &[]);
    let own = format!("http://{}", face.host());
    // The message with a member `pad` in its params, `len` bytes long.
    let padded = |mut message: Value, len: usize| -> Req {
        message["params"]["pad"] = json!("");
        let filler = "x".repeat(len - message.to_string().len());
        message["params"]["pad"] = json!(filler);
        assert_eq!(message.to_string().len(), len);
        match message["method"].as_str() {
            Some("initialize") => Req::post(&message),
            _ => post(&message),
        }
    };
    let init = request(json!(1), "initialize", init_params("2025-11-25", json!({})));
    assert_refused(&face.send(padded(init.clone(), 64 * 1024 + 1)), "body_too_long");
    let list = modern(json!(2), "tools/list", json!({}));
    assert_refused(&face.send(padded(list.clone(), 64 * 1024 + 1)), "body_too_long");
    assert!(upstream.mcp_requests().is_empty(), "{:?}", upstream.mcp_requests());
    assert_challenged(&face.send(padded(init.clone(), 64 * 1024)), &own);
    assert_challenged(&face.send(padded(list, 64 * 1024)), &own);
    let with = padded(init, 100 * 1024).header("Authorization", "Bearer wrong-token");
    assert_challenged(&face.send(with), &own);
}

/// The face's own token (`--auth-token-env`, without passing) is the
/// face's: it never reaches the upstream (an open one, that needs no
/// token), neither from a session nor from a 2026-07-28 request.
#[test]
fn the_faces_own_token_never_reaches_the_upstream() {
    let upstream = Upstream::start("face-token", &["--open"]);
    let secret = "face-own-token-5e1f";
    let face = face(&upstream, &["--auth-token-env", "FACE_OWN_TOKEN"], &[("FACE_OWN_TOKEN", secret)]);
    let reply = face.send(initialize(1).header("Authorization", &bearer(secret)));
    assert_eq!(reply.status, 200, "{reply}");
    let session =
        Session { id: reply.header("mcp-session-id").expect("a session").to_owned(), revision: "2025-11-25".into() };
    let with = |req: Req| session.req(req).header("Authorization", &bearer(secret));
    assert_accepted(&face.send(with(Req::post(&initialized()))));
    let mut events = sse(face.send(with(Req::post(&call(json!(2), "whoami", json!({}))))));
    assert_eq!(events.any_message()["result"]["content"][0]["text"], "scope ");
    let whoami = modern(json!(3), "tools/call", json!({"name": "whoami", "arguments": {}}));
    let reply = face.send(post(&whoami).header("Authorization", &bearer(secret)));
    assert_eq!(json_answer(&reply, 200)["result"]["content"][0]["text"], "scope ", "{reply}");
    let requests = upstream.mcp_requests();
    assert!(requests.iter().filter(|r| r["rpc"] == "tools/call").count() == 2, "{requests:?}");
    assert!(requests.iter().all(|r| r["token"].is_null()), "{requests:?}");
    let text = std::fs::read_to_string(upstream.record.arg()).unwrap_or_default();
    assert!(!text.contains(secret), "the face's token reached the upstream: {text}");
}
