//! The client as data on the face (docs/decisions.md, "Each client's
//! words"): a known client that reached the bridge by URL reads that the
//! log is the server's, at its operator (its own logs do not have the
//! bridge's stderr); an unknown client reads the behaviour spec's words.

use super::*;
use crate::support::{bridge_error, message};

/// The initialize of a face in front of a command that does not start,
/// as `client` sends it: its error.
fn failed_initialize(face: &Face, client: &str) -> Value {
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}});
    let reply = face.send(Req::post(&request(json!(1), "initialize", params)));
    let body = match reply.header("content-type") {
        Some(kind) if kind.starts_with("text/event-stream") => reply.events().message(),
        _ => reply.json(),
    };
    body["error"].clone()
}

#[test]
fn a_known_client_by_url_reads_the_servers_log_and_an_unknown_one_the_specs_words() {
    let face = Face::start(&[], &["/nonexistent/mcp-server".to_string()]);
    let spec = message("spawn_failed");
    let by_url = spec.replace("the Output channel of the server", "the log of the server (ask its operator)");
    for (client, expected) in
        [("gemini-cli-mcp-client", &by_url), ("Visual Studio Code", &by_url), ("face-test", &spec)]
    {
        assert_eq!(failed_initialize(&face, client), bridge_error(-32603, expected, "spawn_failed", None), "{client}");
    }
}

/// A 2026-07-28 client names itself in each request's `_meta`: Claude
/// Code by URL reads the server's log too; a request without a name, the
/// spec's words.
#[test]
fn a_modern_client_by_url_reads_its_words_from_the_meta_of_its_request() {
    use super::modern::{modern, post};
    let face = Face::start(&[], &["/nonexistent/mcp-server".to_string()]);
    let spec = message("spawn_failed");
    let by_url = spec.replace("the Output channel of the server", "the log of the server (ask its operator)");
    let claude = json!({"_meta": {"io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1"}}});
    for (params, expected) in [(claude, &by_url), (json!({}), &spec)] {
        let reply = face.send(post(&modern(json!(1), "tools/list", params.clone())));
        let body = reply.json();
        assert_eq!(body["error"], bridge_error(-32603, expected, "spawn_failed", None), "{params}");
    }
}
