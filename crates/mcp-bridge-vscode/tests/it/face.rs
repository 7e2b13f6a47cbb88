//! The HTTP face (`mcp-bridge-vscode --listen HOST:PORT <upstream>`), as
//! its clients see it: process tests of the real binary over real TCP,
//! with the small client of `support::http`, against the bundled demo
//! server and the scripted fakes of tests/fake. The contract is the
//! section "The HTTP face (`--listen`)" of docs/decisions.md and the
//! transport pages of 2025-11-25 (Streamable HTTP) and 2024-11-05
//! (HTTP+SSE); every refusal is a row of the library's
//! `face::refusal` table, read from its source.
//!
//! - `door`: Host, Origin and the bearer token, before the path.
//! - `command_line`: the options, the remote-bind rule, the signals.
//! - `streams`: a session of Streamable HTTP, its streams and messages.
//! - `refusals`: what /mcp turns away, with its status and error.
//! - `legacy`: HTTP+SSE of 2024-11-05 at /sse and /messages.
//! - `sessions`: sessions side by side, faults, bounds, the idle end.
//! - `process`: the face as a process, and what it started.
//! - `modern`: clients of 2026-07-28, relayed; `modern_checks`: the checks
//!   of their requests.
//! - `passing`: `--pass-authorization`, the clients' own sign-in;
//!   `own_sign_in`: the face's sign-in, once for every session.
//! - `hardening`: bodies, headers and connections after an attack; CORS.
//! - `health`: `/health`, for load balancers and supervisors; `faults`:
//!   a URL that goes away and comes back, clients that vanish.
//! - `scale_out`: several faces behind HAProxy, affinity on the session.

mod attack_shared;
mod client_words;
mod client_words_attack;
mod command_line;
mod door;
mod faults;
mod hardening;
mod health;
mod legacy;
mod modern;
mod modern_checks;
mod own_sign_in;
mod passing;
mod process;
mod refusals;
mod scale_out;
mod sessions;
mod streams;

use crate::support::http::{Events, Reply, Req};
use process::{alive, eventually, Face};
use serde_json::{json, Value};

/// The revisions of Streamable HTTP that the face serves.
const STREAMABLE: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// The bundled demo server as the upstream command.
fn demo() -> Vec<String> {
    vec![env!("CARGO_BIN_EXE_mcp-bridge-vscode").to_string(), "demo-server".into()]
}

/// The params of an initialize of `revision` with `capabilities`.
fn init_params(revision: &str, capabilities: Value) -> Value {
    json!({"protocolVersion": revision, "capabilities": capabilities, "clientInfo": {"name": "face-test", "version": "1.0"}})
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: Value, name: &str, arguments: Value) -> Value {
    request(id, "tools/call", json!({"name": name, "arguments": arguments}))
}

fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// A session of Streamable HTTP: its id and the revision it negotiated,
/// which each of its requests names in `MCP-Protocol-Version`.
struct Session {
    id: String,
    revision: String,
}

impl Session {
    /// Initializes a session of `revision` (a POST of initialize without a
    /// session id: 200, JSON, the session id) and sends
    /// notifications/initialized (202).
    #[track_caller]
    fn open(face: &Face, revision: &str, capabilities: Value) -> Session {
        let reply = face.send(Req::post(&request(json!(0), "initialize", init_params(revision, capabilities))));
        assert_eq!(reply.status, 200, "initialize: {reply}");
        assert_eq!(reply.json()["result"]["protocolVersion"], revision, "{reply}");
        let id = reply.header("mcp-session-id").unwrap_or_else(|| panic!("no Mcp-Session-Id: {reply}")).to_owned();
        let session = Session { id, revision: revision.to_owned() };
        let ack = session.post(face, &initialized());
        assert_accepted(&ack);
        session
    }

    /// A request of the session: its id and its revision in the headers.
    fn req(&self, req: Req) -> Req {
        req.session(&self.id).header("MCP-Protocol-Version", &self.revision)
    }

    fn post(&self, face: &Face, message: &Value) -> Reply {
        face.send(self.req(Req::post(message)))
    }

    /// POSTs a request: its answer is an SSE stream, which from 2025-11-25
    /// opens with a priming event (the transport: "an SSE event consisting
    /// of an event ID and an empty `data` field"); older revisions get none.
    #[track_caller]
    fn stream(&self, face: &Face, message: &Value) -> Events {
        let mut events = sse(self.post(face, message));
        if self.revision.as_str() >= "2025-11-25" {
            let priming = events.next();
            let primes = priming.event.is_none() && priming.data.is_empty();
            assert!(primes && priming.id.as_deref().is_some_and(|id| id.ends_with("-0")), "{priming:?}");
        }
        events
    }

    /// POSTs a request whose stream must carry exactly its response, then
    /// end; returns the response.
    #[track_caller]
    fn answer(&self, face: &Face, message: &Value) -> Value {
        let mut events = self.stream(face, message);
        let response = events.any_message();
        assert_eq!(response["id"], message["id"], "the response of {message}: {response}");
        events.assert_end();
        response
    }

    /// Opens the session's GET stream.
    #[track_caller]
    fn listen(&self, face: &Face) -> Events {
        sse(face.send(self.req(Req::get("/mcp"))))
    }
}

/// A response that is an SSE stream (200, `text/event-stream`).
#[track_caller]
fn sse(reply: Reply) -> Events {
    assert_eq!(reply.status, 200, "{reply}");
    assert_eq!(reply.header("content-type"), Some("text/event-stream"), "{reply}");
    reply.events()
}

/// 202 without a body, as the transport asks for a notification or a
/// response of the client.
#[track_caller]
fn assert_accepted(reply: &Reply) {
    assert_eq!((reply.status, reply.body.as_slice()), (202, &b""[..]), "{reply}");
    assert_eq!(reply.header("content-type"), None, "{reply}");
}

/// A session id as the face makes them: 64 hex digits (visible ASCII,
/// 0x21 to 0x7E, as the transport asks).
#[track_caller]
fn assert_session_id(id: &str) {
    assert_eq!(id.len(), 64, "{id}");
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit() && (0x21..=0x7e).contains(&b)), "{id}");
}

/// The success response of a call whose result is one text block, as the
/// bridge gives it to a client (`isError` false).
fn text_result(id: Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}], "isError": false}})
}
