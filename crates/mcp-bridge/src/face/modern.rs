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
//! "Server Validation"): `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`.

use super::http::{self, Body, PROTOCOL_VERSION};
use super::refusal::Refusal;
use super::shared::Face;
use crate::jsonrpc::{self, BridgeError, Cause, Id};
use crate::method::Method;
use crate::output::Event;
use crate::pipe::Line;
use crate::upstream::http::headers::decode_value;
use crate::upstream::{
    Call, CallError, Client, Listen, StreamEnd, StreamEvent, StreamStop, UpstreamMethod, LISTEN_METHOD,
    SUBSCRIPTION_ID_KEY,
};
use hyper::header::HeaderMap;
use hyper::{Response, StatusCode};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The revision of the upstream, the one these clients speak.
const REVISION: &str = "2026-07-28";
/// The `_meta` key of a request's revision.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The queue of one request's stream.
const STREAM_QUEUE: usize = 64;

/// Whether a request without a session is one of a 2026-07-28 client.
pub(super) fn is_modern(method: &str, params: Option<&Value>) -> bool {
    method == "server/discover" || params.and_then(|p| p.get("_meta")).is_some_and(|m| m.get(VERSION_KEY).is_some())
}

/// A request of a 2026-07-28 client.
pub(super) async fn post(
    face: &Arc<Face>,
    headers: &HeaderMap,
    id: Id,
    method: &str,
    params: Option<Value>,
) -> Response<Body> {
    let Some(Value::Object(params)) = params else {
        return error(StatusCode::BAD_REQUEST, &id, Cause::InvalidParams.into(), face);
    };
    if let Err(body) = check_headers(headers, &id, method, &params) {
        return http::json(StatusCode::BAD_REQUEST, body);
    }
    let client = match face.modern.client(&face.config).await {
        Ok(client) => client,
        Err(err) => return error(StatusCode::OK, &id, err, face),
    };
    let upstream_method = match (method, Method::parse(method)) {
        ("server/discover", _) => UpstreamMethod::Discover,
        (LISTEN_METHOD, _) => return listen(face, client, id, params),
        (_, Some(forwarded)) => UpstreamMethod::Forwarded(forwarded),
        // The transport page: an unknown method is 404 with -32601.
        (_, None) => return error(StatusCode::NOT_FOUND, &id, Cause::MethodNotFound.into(), face),
    };
    if upstream_method == UpstreamMethod::Discover {
        let token = CancellationToken::new();
        let _cancel = token.clone().drop_guard();
        let line = call(face, &client, upstream_method, &id, params, &token, None).await;
        return match line {
            Some(line) => http::json(StatusCode::OK, line),
            None => http::empty(StatusCode::NO_CONTENT),
        };
    }
    let (tx, rx) = mpsc::channel(STREAM_QUEUE);
    let token = CancellationToken::new();
    let (face, task_token) = (face.clone(), token.clone());
    tokio::spawn(async move {
        let progress = Some(tx.clone());
        if let Some(line) = call(&face, &client, upstream_method, &id, params, &task_token, progress).await {
            let _ = tx.send(Event::Response(Line::Text(line))).await;
        }
    });
    // The client that closes its stream cancels the request.
    http::sse(Vec::new(), rx, CancellationToken::new(), true, move |_| token.cancel())
}

/// One relayed call: the response line for the client, `None` when it was
/// canceled.
async fn call(
    face: &Face,
    client: &Client,
    method: UpstreamMethod,
    id: &Id,
    params: Map<String, Value>,
    cancel: &CancellationToken,
    stream: Option<mpsc::Sender<Event>>,
) -> Option<Vec<u8>> {
    let slot = match client.reserve() {
        Ok(slot) => slot,
        Err(err) => return Some(error_line(id, &err, face)),
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
    let call = Call { method, params: &params, meta: &empty, timeout, progress, cancel, slot: &slot, relay: true };
    match client.call(call).await {
        Ok(result) => Some(jsonrpc::result_line(id, &result)),
        Err(CallError::Upstream { error, .. } | CallError::Verbatim(error)) => {
            Some(jsonrpc::json_line(&jsonrpc::error_response(Some(id), error)))
        }
        Err(CallError::Bridge(err)) => Some(error_line(id, &err, face)),
        Err(CallError::Canceled) => None,
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
fn listen(face: &Arc<Face>, client: Client, id: Id, params: Map<String, Value>) -> Response<Body> {
    let (tx, rx) = mpsc::channel(STREAM_QUEUE);
    let stop = StreamStop::default();
    let ack_timeout = face.config.timeouts.listen.ack_timeout;
    let (face, task_stop, sink_tx, sink_id) = (face.clone(), stop.clone(), tx.clone(), id.clone());
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
        Box::pin(async move {
            if sent.is_err() {
                tracing::debug!("dropped an event of a listen stream: its reader is too slow or gone");
            }
        })
    });
    tokio::spawn(async move {
        let listen = Listen { notifications: Value::Null, relayed: Some(params), sink, ack_timeout, stop: &task_stop };
        let end = client.listen(listen).await;
        let line = match end {
            StreamEnd::Canceled => return,
            StreamEnd::Result => jsonrpc::result_line(&id, &json!({})),
            StreamEnd::Error(error) => jsonrpc::json_line(&jsonrpc::error_response(Some(&id), error)),
            StreamEnd::Timeout => error_line(&id, &BridgeError::new(Cause::Timeout), &face),
            StreamEnd::Lost(err) | StreamEnd::UpstreamEnded(err) | StreamEnd::Failed(err) => {
                error_line(&id, &err, &face)
            }
        };
        let _ = tx.send(Event::Response(Line::Text(line))).await;
    });
    http::sse(Vec::new(), rx, CancellationToken::new(), true, move |_| stop.stop(jsonrpc::reason::CLIENT_CANCELED))
}

/// The headers against the body: the revision (one the face serves, the
/// same as the body's), `Mcp-Method`, and `Mcp-Name` where the method has
/// one (a Base64 sentinel decoded); `Err` has the body of the 400.
fn check_headers(headers: &HeaderMap, id: &Id, method: &str, params: &Map<String, Value>) -> Result<(), Vec<u8>> {
    let body_version = params.get("_meta").and_then(|m| m.get(VERSION_KEY)).and_then(Value::as_str);
    let header_version = http::header(headers, PROTOCOL_VERSION);
    if body_version.is_some_and(|v| v != REVISION) || header_version.is_some_and(|v| v != REVISION) {
        let error = json!({"code": jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION,
            "message": "The bridge speaks revision 2026-07-28 to a client that does not initialize.",
            "data": {"supported": [REVISION]}});
        return Err(http::error_body(Some(id), error));
    }
    let name = match method {
        "tools/call" | "prompts/get" => params.get("name").and_then(Value::as_str),
        "resources/read" => params.get("uri").and_then(Value::as_str),
        _ => None,
    };
    let name_header = http::header(headers, "mcp-name").map(decode_value);
    let matches = header_version.is_some()
        && body_version.is_some()
        && http::header(headers, "mcp-method") == Some(method)
        && match name {
            Some(name) => name_header.flatten().as_deref() == Some(name),
            None => true,
        };
    if matches {
        return Ok(());
    }
    let refusal = Refusal::HeaderMismatch;
    let error = json!({"code": refusal.code(), "message": refusal.message(), "data": {"cause": refusal.name()}});
    Err(http::error_body(Some(id), error))
}

fn error_line(id: &Id, error: &BridgeError, face: &Face) -> Vec<u8> {
    http::error_body(Some(id), error.to_value_for(&face.log_place))
}

fn error(status: StatusCode, id: &Id, error: BridgeError, face: &Face) -> Response<Body> {
    http::json(status, error_line(id, &error, face))
}
