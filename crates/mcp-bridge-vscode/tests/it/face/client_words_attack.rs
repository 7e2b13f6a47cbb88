//! Attacks on the client's words on the face (docs/decisions.md, "Each
//! client's words"): a session's `clientInfo`, a 2026-07-28 request's
//! `_meta` clientInfo, and the words of a client by URL. The helpers and
//! the stdio attacks are in `crate::client_words_attack`.

use super::passing::Upstream;
use super::*;
use crate::client_words_attack::{
    assert_no_trace_of_hostile_name, initialize_as, message_for, message_of, missing, BY_URL_LOG, HOSTILE, SPEC_LOG,
};
use crate::support::fake::fake_upstream;
use std::time::{Duration, Instant};

/// A Streamable HTTP session initialized as `name`: its id.
#[track_caller]
fn session(face: &Face, name: &str) -> String {
    let reply = face.send(Req::post(&request(json!(0), "initialize", initialize_as(json!(name)))));
    assert_eq!(reply.status, 200, "{reply}");
    let id = reply.header("mcp-session-id").expect("a session id").to_owned();
    let ack = face.send(Req::post(&initialized()).session(&id).header("MCP-Protocol-Version", "2025-11-25"));
    assert_eq!(ack.status, 202, "{ack}");
    id
}

/// The response of a request of a session (its SSE stream or JSON).
#[track_caller]
fn answer(face: &Face, session: &str, message: &Value) -> Value {
    body_of(face.send(Req::post(message).session(session).header("MCP-Protocol-Version", "2025-11-25")))
}

/// A 2026-07-28 request without a session whose `_meta` names
/// `client_info`: its status and body.
#[track_caller]
fn modern_as(face: &Face, id: Value, method: &str, params: Value, client_info: Value) -> (u16, Value) {
    let mut message = super::modern::modern(id, method, params);
    message["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = client_info;
    let reply = face.send(super::modern::post(&message));
    (reply.status, body_of(reply))
}

#[track_caller]
fn body_of(reply: Reply) -> Value {
    match reply.header("content-type") {
        Some(kind) if kind.starts_with("text/event-stream") => reply.events().any_message(),
        _ => reply.json(),
    }
}

fn stall(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "stall", "arguments": {}}})
}

/// "One client's fault never another's": sessions side by side on one
/// upstream (the face's one child), each named by its own initialize. A
/// known client by URL reads the server's log, an unknown or hostile one
/// the spec's words, whatever the order in which they came, and a
/// 2026-07-28 client naming itself in `_meta` between them changes no
/// session's words. The log holds no piece of the hostile name.
#[test]
fn one_sessions_client_name_never_changes_the_words_of_another_session() {
    let face =
        Face::start_env(&["--test-request-timeout-ms", "300"], &fake_upstream(&[]), &[("MCP_BRIDGE_LOG", "trace")]);
    let gemini = session(&face, "gemini-cli-mcp-client");
    let hostile = session(&face, HOSTILE);
    let claude = session(&face, "claude-code");
    let unknown = session(&face, "face-attack");
    for round in 0..2 {
        for (session, log) in [(&unknown, SPEC_LOG), (&gemini, BY_URL_LOG), (&hostile, SPEC_LOG), (&claude, BY_URL_LOG)]
        {
            let response = answer(&face, session, &stall(json!(round)));
            assert_eq!(response["error"]["data"]["cause"], "timeout", "{response}");
            assert_eq!(message_of(&response), message_for("timeout", log), "round {round}");
            assert_no_trace_of_hostile_name("a session's response", &response.to_string());
            // A modern client that names a known client, then a hostile
            // one, between the sessions' requests.
            for name in ["gemini-cli-mcp-client", HOSTILE] {
                let (status, body) = modern_as(
                    &face,
                    json!("m"),
                    "tools/call",
                    json!({"name": "stall", "arguments": {}}),
                    json!({"name": name, "version": "1"}),
                );
                assert_eq!(status, 200, "{body}");
                let log = if name == HOSTILE { SPEC_LOG } else { BY_URL_LOG };
                assert_eq!(message_of(&body), message_for("timeout", log), "{name:?}");
                assert_no_trace_of_hostile_name("a modern response", &body.to_string());
            }
        }
    }
    assert_no_trace_of_hostile_name("the log of the face", &face.stderr_text());
}

/// A 2026-07-28 request's `_meta` clientInfo of any shape (a hostile name,
/// a number, an object, null, a string in place of the object, a 1 MiB
/// name) is only compared: the face answers the table's error with the
/// spec's words for an unknown one, never a 500, a hang or an echo; only
/// an exact known name reads the server's log.
#[test]
fn a_hostile_meta_client_info_of_a_modern_request_is_only_compared() {
    let face = Face::start_env(&[], &missing(), &[("MCP_BRIDGE_LOG", "trace")]);
    let big = "B".repeat(1 << 20);
    let cases = [
        (json!({"name": HOSTILE, "version": "1"}), SPEC_LOG),
        (json!({"name": 5, "version": "1"}), SPEC_LOG),
        (json!({"name": {"name": "claude-code"}, "version": "1"}), SPEC_LOG),
        (json!({"name": ["claude-code"]}), SPEC_LOG),
        (json!({"name": null}), SPEC_LOG),
        (json!("claude-code"), SPEC_LOG),
        (json!(["claude-code"]), SPEC_LOG),
        (json!({"name": "Claude-Code"}), SPEC_LOG),
        (json!({"name": "claude-code "}), SPEC_LOG),
        (json!({"name": big}), SPEC_LOG),
        (json!({"name": format!("qwen-cli-mcp-client-{big}")}), BY_URL_LOG),
        (json!({"name": "claude-code"}), BY_URL_LOG),
    ];
    for (n, (info, log)) in cases.iter().enumerate() {
        let started = Instant::now();
        let (status, body) = modern_as(&face, json!(n), "tools/list", json!({}), info.clone());
        assert!(started.elapsed() < Duration::from_secs(10), "{n}: {:?}", started.elapsed());
        let label = format!("case {n}");
        assert_eq!(status, 200, "{label}: {body}");
        assert_eq!(body["error"]["data"], json!({"cause": "spawn_failed"}), "{label}");
        assert_eq!(message_of(&body), message_for("spawn_failed", log), "{label}");
        assert!(body.to_string().len() < 1024, "{label}: {} bytes", body.to_string().len());
        assert_no_trace_of_hostile_name(&label, &body.to_string());
    }
    let log = face.stderr_text();
    assert!(log.len() < 256 * 1024, "the log holds {} bytes", log.len());
    assert_no_trace_of_hostile_name("the log of the face", &log);
}

/// A session's hostile or huge `clientInfo.name` at initialize on the
/// face: the table's error with the spec's words, no echo, and a later
/// known client still reads its own words (the face keeps no name
/// across sessions).
#[test]
fn a_sessions_hostile_or_huge_client_name_is_not_echoed_and_sticks_to_no_later_session() {
    let face = Face::start_env(&[], &missing(), &[("MCP_BRIDGE_LOG", "trace")]);
    let big = "C".repeat(1 << 20);
    for (name, log) in [
        (HOSTILE.to_string(), SPEC_LOG),
        (big.clone(), SPEC_LOG),
        ("gemini-cli-mcp-client".to_string(), BY_URL_LOG),
        (format!("{big}gemini-cli-mcp-client"), SPEC_LOG),
        ("face-attack".to_string(), SPEC_LOG),
    ] {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_as(json!(name))});
        let body = body_of(face.send(Req::post(&init)));
        let label = format!("{:?}", &name[..name.len().min(40)]);
        assert_eq!(message_of(&body), message_for("spawn_failed", log), "{label}");
        assert!(body.to_string().len() < 1024, "{label}: {} bytes", body.to_string().len());
        assert_no_trace_of_hostile_name(&label, &body.to_string());
    }
    let log = face.stderr_text();
    assert!(log.len() < 256 * 1024, "the log holds {} bytes", log.len());
    assert_no_trace_of_hostile_name("the log of the face", &log);
}

/// docs/decisions.md, "By URL": a client that reached the bridge by URL
/// did not start it, so the bridge's stderr is not in its logs; by the
/// same token the bridge does not run in *its* sandbox. A face started
/// with `SANDBOX_RUNTIME=1` (say from a sandboxed command of Claude Code)
/// in front of a server that needs a sign-in must not tell a remote
/// Gemini CLI user (legacy session or 2026-07-28 request) that "the bridge
/// runs in the sandbox of Gemini CLI" and to disable the sandbox there:
/// the sandbox is the operator's, on the face's host.
#[test]
fn a_face_never_tells_a_client_by_url_that_the_sandbox_is_its_own() {
    let upstream = Upstream::start("words-sandbox", &[]);
    let config = std::path::Path::new(upstream.record.arg()).with_extension("config").display().to_string();
    let env = [("XDG_CONFIG_HOME", config.as_str()), ("SANDBOX_RUNTIME", "1")];
    let face = Face::start_url(&["--no-browser"], &upstream.mcp(), &env);
    let mut seen = Vec::new();
    for name in ["gemini-cli-mcp-client", "claude-code"] {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_as(json!(name))});
        let body = body_of(face.send(Req::post(&init)));
        assert_eq!(body["error"]["data"]["cause"], "sandbox", "{name}: {body}");
        seen.push((format!("session of {name}"), message_of(&body)));
    }
    let (_, body) =
        modern_as(&face, json!(2), "tools/list", json!({}), json!({"name": "gemini-cli-mcp-client", "version": "1"}));
    assert_eq!(body["error"]["data"]["cause"], "sandbox", "{body}");
    seen.push(("2026-07-28 request of gemini-cli-mcp-client".into(), message_of(&body)));
    let wrong: Vec<_> = seen
        .iter()
        .filter(|(_, message)| {
            message.contains("the sandbox of Gemini CLI") || message.contains("the sandbox of Claude Code")
        })
        .collect();
    assert!(wrong.is_empty(), "a client by URL is told the face runs in its own sandbox: {wrong:#?}");
    for (who, message) in &seen {
        assert!(message.contains("the bridge runs in the sandbox of its host."), "{who}: {message}");
    }
}
