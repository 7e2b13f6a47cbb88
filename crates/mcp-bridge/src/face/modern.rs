//! Clients that speak 2026-07-28 already (Claude Code 2.1 and Copilot CLI
//! 1.0 POST `server/discover` first, then stateless requests): each of
//! their requests is relayed to the upstream as the 2026-07-28 request it
//! is, with the client's own `_meta`, under the same door, limits and time
//! limits as every other request, over one upstream connection that all of
//! them share (the revision is stateless; `Call::relay`). Nothing is
//! translated: the client gets the upstream's result, an input request
//! included, with its own id. A response is JSON for `server/discover`, an
//! SSE stream for every other request (its progress, then its response),
//! whose close cancels the request upstream (the transport's own signal).
//!
//! The headers are checked against the body first (the transport page,
//! "Server Validation"): `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! and a `tools/call`'s `Mcp-Param-*` (`params`).

use super::http::{self, Body, PROTOCOL_VERSION};
use super::passing;
use super::pool::Share;
use super::refusal::Refusal;
use super::shared::Face;
use crate::jsonrpc::{self, BridgeError, Cause, Id};
use crate::method::Method;
use crate::output::Event;
use crate::pipe::Line;
use crate::profile::Words;
use crate::upstream::http::headers::decode_value;
use crate::upstream::http::passed::Refused;
use crate::upstream::{
    Call, CallError, Client, Listen, Relay, StreamEnd, StreamEvent, StreamStop, UpstreamMethod, LISTEN_METHOD,
    SUBSCRIPTION_ID_KEY,
};
use hyper::header::{HeaderMap, AUTHORIZATION};
use hyper::{Response, StatusCode};
use serde_json::{json, Map, Value};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The revision of the upstream, the one these clients speak.
pub(super) const REVISION: &str = "2026-07-28";
/// The `_meta` keys of a request's revision and of the client's
/// capabilities.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the client's `clientInfo`.
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The queue of one request's stream.
const STREAM_QUEUE: usize = 64;

/// Whether a request without a session is one of a 2026-07-28 client:
/// `server/discover`, a request whose `_meta` names its revision, or one
/// whose `MCP-Protocol-Version` is 2026-07-28.
pub(super) fn is_modern(method: &str, params: Option<&Value>, headers: &HeaderMap) -> bool {
    method == "server/discover"
        || params.and_then(|p| p.get("_meta")).is_some_and(|m| m.get(VERSION_KEY).is_some())
        || http::header(headers, PROTOCOL_VERSION) == Some(REVISION)
}

/// A request of a 2026-07-28 client.
pub(super) async fn post(
    face: &Arc<Face>,
    (headers, local, peer): (&HeaderMap, SocketAddr, SocketAddr),
    id: Id,
    method: &str,
    params: Option<Value>,
) -> Response<Body> {
    let Some(Value::Object(params)) = params else {
        return error(StatusCode::BAD_REQUEST, &id, Cause::InvalidParams.into(), &face.words);
    };
    if let Err(body) = check(headers, &id, method, &params) {
        return http::json(StatusCode::BAD_REQUEST, body);
    }
    // Each client's address gets its share of the shared connection's
    // places, so that one cannot take them all.
    let Some(share) = face.modern.share(peer.ip()) else {
        return error(StatusCode::OK, &id, Cause::TooManyRequests.into(), &words_of(face, &params));
    };
    let client = match face.modern.client().await {
        Ok(client) => client,
        Err(err) => return error(StatusCode::OK, &id, err, &words_of(face, &params)),
    };
    // The client's own authorization goes upstream only when the face
    // passes it: else it is the face's token, which stays here.
    let authorization =
        face.passing.then(|| http::header(headers, AUTHORIZATION.as_str()).map(str::to_owned)).flatten();
    if method == "tools/call" {
        let relay = Relay { authorization: authorization.as_deref() };
        let limit = face.config.timeouts.for_round(Method::ToolsList, 1);
        if !face.modern.params.check_call((&client, relay), headers, &params, limit).await {
            return http::json(StatusCode::BAD_REQUEST, mismatch(&id));
        }
    }
    let upstream_method = match (method, Method::parse(method)) {
        ("server/discover", _) => UpstreamMethod::Discover,
        (LISTEN_METHOD, _) => return listen(face, client, (id, share), (params, authorization)),
        (_, Some(forwarded)) => UpstreamMethod::Forwarded(forwarded),
        // The transport page: an unknown method, or one of the earlier
        // revisions (initialize, ping, ...), is 404 with -32601.
        (_, None) => return error(StatusCode::NOT_FOUND, &id, Cause::MethodNotFound.into(), &face.words),
    };
    let (tx, mut rx) = mpsc::channel(STREAM_QUEUE);
    let token = CancellationToken::new();
    let refusal: Arc<std::sync::Mutex<Option<u16>>> = Arc::default();
    let (task_face, task_token, task_refusal) = (face.clone(), token.clone(), refusal.clone());
    tokio::spawn(async move {
        let _share = share;
        let progress = Some(tx.clone());
        let relay = Relay { authorization: authorization.as_deref() };
        let outcome = call(&task_face, &client, (upstream_method, relay), &id, params, &task_token, progress).await;
        let line = match outcome {
            Outcome::Line(line) => line,
            Outcome::Refused(status) => {
                *crate::sync::lock(&task_refusal) = Some(status);
                Vec::new()
            }
            Outcome::Canceled => return,
        };
        let _ = tx.send(Event::Response(Line::Text(line))).await;
    });
    // A client that goes away before the first event cancels the request.
    let cancel_on_drop = token.clone().drop_guard();
    // The status waits for the first event: a response first is the whole
    // answer, as JSON with the status its error calls for (and the
    // upstream's refusal of the client's authorization is the client's);
    // progress first opens an SSE stream.
    let first = match rx.recv().await {
        Some(Event::Response(line)) => {
            let _ = cancel_on_drop.disarm();
            if let Some(status) = *crate::sync::lock(&refusal) {
                return refused(face, status, &passing::resource(face.public_url.as_ref(), local));
            }
            let line = http::line_bytes(line);
            return http::json(status_of(&line), line);
        }
        Some(Event::Message(line)) => vec![http::event(line)],
        None => return http::empty(StatusCode::NO_CONTENT),
    };
    let _ = cancel_on_drop.disarm();
    // The client that closes its stream cancels the request.
    http::sse(first, rx, CancellationToken::new(), true, move |_| token.cancel())
}

/// The HTTP status of a response that is the whole answer: the transport
/// page's for the errors it names (404 for -32601; 400 for the request's
/// own faults: its params, headers, revision, a capability it lacks), else
/// 200.
fn status_of(line: &[u8]) -> StatusCode {
    let code = serde_json::from_slice::<Value>(line).ok().and_then(|v| v.get("error")?.get("code")?.as_i64());
    match code {
        Some(jsonrpc::code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            jsonrpc::code::INVALID_PARAMS
            | jsonrpc::code::HEADER_MISMATCH
            | jsonrpc::code::MISSING_CAPABILITY
            | jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// How a relayed call ended.
enum Outcome {
    /// The response line for the client.
    Line(Vec<u8>),
    /// The upstream refused the client's authorization (`--pass-authorization`).
    Refused(u16),
    Canceled,
}

/// The client's refusal after the upstream's, with the upstream's last
/// challenge.
fn refused(face: &Face, status: u16, resource: &str) -> Response<Body> {
    let mut refused = face.modern.last_refusal().unwrap_or(Refused { status, challenge: Default::default() });
    refused.status = status;
    passing::refused(&refused, resource)
}

/// One relayed call: the response line for the client, `None` when it was
/// canceled.
async fn call(
    face: &Face,
    client: &Client,
    (method, relay): (UpstreamMethod, Relay<'_>),
    id: &Id,
    params: Map<String, Value>,
    cancel: &CancellationToken,
    stream: Option<mpsc::Sender<Event>>,
) -> Outcome {
    let slot = match client.reserve() {
        Ok(slot) => slot,
        Err(err) => return Outcome::Line(error_line(id, &err, &words_of(face, &params))),
    };
    let token = params.get("_meta").and_then(|m| m.get("progressToken")).cloned();
    let progress = token.zip(stream).map(|(token, stream)| progress_sink(token, stream));
    let timeout = match method {
        UpstreamMethod::Forwarded(method) => {
            let round = if params.contains_key("inputResponses") { 2 } else { 1 };
            face.config.timeouts.for_round(method, round)
        }
        _ => face.config.timeouts.discover,
    };
    let empty = Map::new();
    let call =
        Call { method, params: &params, meta: &empty, timeout, progress, cancel, slot: &slot, relay: Some(relay) };
    let refusal = |status: Option<u16>| status.filter(|s| face.passing && matches!(s, 401 | 403));
    match client.call(call).await {
        Ok(result) => {
            face.modern.params.observe(&method, &result);
            Outcome::Line(jsonrpc::result_line(id, &result))
        }
        Err(CallError::Upstream { status, .. }) if refusal(status).is_some() => {
            Outcome::Refused(refusal(status).unwrap_or(401))
        }
        Err(CallError::Bridge(err)) if refusal(err.status).is_some() => {
            Outcome::Refused(refusal(err.status).unwrap_or(401))
        }
        Err(CallError::Upstream { error, .. } | CallError::Verbatim(error)) => {
            Outcome::Line(jsonrpc::json_line(&jsonrpc::error_response(Some(id), error)))
        }
        Err(CallError::Bridge(err)) => Outcome::Line(error_line(id, &err, &words_of(face, &params))),
        Err(CallError::Canceled) => Outcome::Canceled,
    }
}

/// The client's progress: the upstream's, with the client's own token.
fn progress_sink(token: Value, stream: mpsc::Sender<Event>) -> crate::upstream::ProgressSink {
    Arc::new(move |upstream: Value| {
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        for key in ["progress", "total", "message"] {
            if let Some(value) = upstream.get(key) {
                params.insert(key.into(), value.clone());
            }
        }
        let line = jsonrpc::json_line(&jsonrpc::notification("notifications/progress", Value::Object(params)));
        if stream.try_send(Event::Message(Line::Text(line))).is_err() {
            tracing::debug!("dropped a progress notification: its stream is full or closed");
        }
    })
}

/// `subscriptions/listen`: the upstream's stream, relayed event by event
/// with the client's id as the subscription id, until either side ends it.
fn listen(
    face: &Arc<Face>,
    client: Client,
    (id, share): (Id, Share),
    (params, authorization): (Map<String, Value>, Option<String>),
) -> Response<Body> {
    let (tx, rx) = mpsc::channel(STREAM_QUEUE);
    let stop = StreamStop::default();
    let ack_timeout = face.config.timeouts.listen.ack_timeout;
    let (face, task_stop, sink_tx, sink_id) = (face.clone(), stop.clone(), tx.clone(), id.clone());
    let sink_stop = stop.clone();
    let sink: crate::upstream::StreamSink = Arc::new(move |event: StreamEvent| {
        let (method, mut params) = match event {
            StreamEvent::Acknowledged(params) => ("notifications/subscriptions/acknowledged".to_owned(), params),
            StreamEvent::Notification { method, params } => (method, params),
        };
        if let Some(Value::Object(meta)) = params.get_mut("_meta") {
            meta.insert(SUBSCRIPTION_ID_KEY.into(), sink_id.as_value().clone());
        }
        let line = jsonrpc::json_line(&jsonrpc::notification(&method, params));
        let sent = sink_tx.try_send(Event::Message(Line::Text(line)));
        if sent.is_err() {
            // A reader that does not keep up loses its stream, never an
            // event silently: the client opens a new one and lists anew.
            tracing::warn!("closed a listen stream of a client: its reader is too slow");
            sink_stop.stop(jsonrpc::reason::CLIENT_CANCELED);
        }
        Box::pin(async {})
    });
    let words = words_of(&face, &params);
    tokio::spawn(async move {
        let _share = share;
        let listen = Listen {
            notifications: Value::Null,
            relayed: Some(params),
            authorization: authorization.as_deref(),
            sink,
            ack_timeout,
            stop: &task_stop,
        };
        let end = client.listen(listen).await;
        let line = match end {
            StreamEnd::Canceled => return,
            StreamEnd::Result => jsonrpc::result_line(&id, &json!({})),
            StreamEnd::Error(error) => jsonrpc::json_line(&jsonrpc::error_response(Some(&id), error)),
            StreamEnd::Timeout => error_line(&id, &BridgeError::new(Cause::Timeout), &words),
            StreamEnd::Lost(err) | StreamEnd::UpstreamEnded(err) | StreamEnd::Failed(err) => {
                error_line(&id, &err, &words)
            }
        };
        let _ = tx.send(Event::Response(Line::Text(line))).await;
    });
    http::sse(Vec::new(), rx, CancellationToken::new(), true, move |_| stop.stop(jsonrpc::reason::CLIENT_CANCELED))
}

/// The request against the 2026-07-28 rules, in the order of the
/// conformance suite's probes: the `_meta` of the body (its revision and
/// the client's capabilities: else -32602), the `MCP-Protocol-Version`
/// header against it (-32020), the revision (one the face serves: else
/// -32022 with the supported ones and the requested one), then `Mcp-Method`
/// and `Mcp-Name` (a Base64 sentinel decoded; -32020). `Err` has the body
/// of the 400.
fn check(headers: &HeaderMap, id: &Id, method: &str, params: &Map<String, Value>) -> Result<(), Vec<u8>> {
    let meta = params.get("_meta").and_then(Value::as_object);
    let body_version = meta.and_then(|m| m.get(VERSION_KEY)).and_then(Value::as_str);
    let capabilities = meta.and_then(|m| m.get(CAPABILITIES_KEY)).is_some_and(Value::is_object);
    let Some(body_version) = body_version.filter(|_| capabilities) else {
        return Err(error_body_of(id, BridgeError::new(Cause::InvalidParams)));
    };
    if http::header(headers, PROTOCOL_VERSION) != Some(body_version) {
        return Err(mismatch(id));
    }
    if body_version != REVISION {
        let error = json!({"code": jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION,
            "message": "The bridge speaks revision 2026-07-28 to a client that does not initialize.",
            "data": {"supported": [REVISION], "requested": body_version}});
        return Err(http::error_body(Some(id), error));
    }
    let name = match method {
        "tools/call" | "prompts/get" => Some(params.get("name").and_then(Value::as_str)),
        "resources/read" => Some(params.get("uri").and_then(Value::as_str)),
        _ => None,
    };
    // A method that names its target needs the name in the body.
    let name = match name {
        Some(None) => return Err(error_body_of(id, BridgeError::new(Cause::InvalidParams))),
        Some(Some(name)) => Some(name),
        None => None,
    };
    // One of each: two would be a request that means two things.
    let once = ["mcp-method", "mcp-name", PROTOCOL_VERSION].iter().all(|h| headers.get_all(*h).iter().count() <= 1);
    let name_header = http::header(headers, "mcp-name").map(decode_value);
    let matches = once
        && http::header(headers, "mcp-method") == Some(method)
        && match name {
            Some(name) => name_header.flatten().as_deref() == Some(name),
            None => true,
        };
    if matches {
        Ok(())
    } else {
        Err(mismatch(id))
    }
}

/// The body of a 400 for headers that do not say what the body says
/// (-32020).
fn mismatch(id: &Id) -> Vec<u8> {
    let refusal = Refusal::HeaderMismatch;
    let error = json!({"code": refusal.code(), "message": refusal.message(), "data": {"cause": refusal.name()}});
    http::error_body(Some(id), error)
}

fn error_body_of(id: &Id, error: BridgeError) -> Vec<u8> {
    http::error_body(Some(id), error.to_value())
}

fn error_line(id: &Id, error: &BridgeError, words: &Words) -> Vec<u8> {
    http::error_body(Some(id), error.to_value_for(words))
}

fn error(status: StatusCode, id: &Id, error: BridgeError, words: &Words) -> Response<Body> {
    http::json(status, error_line(id, &error, words))
}

/// The words of the client of a request: each request of 2026-07-28 names
/// its client in `_meta`; one that does not gets the profile's.
fn words_of(face: &Face, params: &Map<String, Value>) -> Words {
    let meta = params.get("_meta");
    match meta.and_then(|m| m.get(CLIENT_INFO_KEY)?.get("name")?.as_str()) {
        Some(name) => face.config.profile.words_for(name, true),
        None => face.words.clone(),
    }
}
