//! Streamable HTTP at `/mcp`, for clients of 2025-03-26 to 2025-11-25
//! (the transport page of 2025-11-25): a POST carries one message of the
//! client (or, for 2025-03-26, a batch); its requests are answered on the
//! POST's own stream, an SSE stream that also carries what relates to
//! them (progress, questions), or as JSON for `initialize`; a GET opens the
//! session's stream of the rest; a DELETE ends the session.

use super::body::{self, Messages};
use super::http::{self, Body, PROTOCOL_VERSION, SESSION_ID};
use super::modern;
use super::passing;
use super::refusal::Refusal;
use super::sessions::Session;
use super::shared::Face;
use crate::framing::Decoded;
use crate::jsonrpc::{Id, IdKey, Message};
use crate::output::Event;
use crate::profile::Revision;
use crate::upstream::http::passed::{Passed, Refused};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use hyper::{Request, Response, StatusCode};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A POST to `/mcp`.
pub(super) async fn post(
    face: &Arc<Face>,
    (local, peer): (SocketAddr, SocketAddr),
    request: Request<Incoming>,
) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    if !http::accepts(headers, "application/json") || !http::accepts(headers, "text/event-stream") {
        return http::refused(Refusal::NotAcceptable);
    }
    if !http::is_json(headers) {
        return http::refused(Refusal::UnsupportedMediaType);
    }
    let version = http::header(headers, PROTOCOL_VERSION).map(str::to_owned);
    // A client of 2026-07-28 has no session: an `Mcp-Session-Id` of its
    // is ignored (its transport page).
    let session_id = match version.as_deref() {
        Some(modern::REVISION) => None,
        _ => http::header(headers, SESSION_ID).map(str::to_owned),
    };
    let Some(session_id) = session_id else {
        let read =
            match body::read(&face.bodies, headers, body, body::limit(face.max_body, face.passing, headers)).await {
                Ok(Some(read)) => read,
                Ok(None) => return http::empty(StatusCode::BAD_REQUEST),
                Err(refusal) => return http::refused(refusal),
            };
        let messages = body::decode(read, face.max_body, false).await;
        return first(face, (headers, local, peer), messages.all.into_iter().next()).await;
    };
    // A session of this transport only: an id of /sse is unknown here.
    let Some(session) = face.sessions.get(&session_id, false) else {
        return http::refused(Refusal::UnknownSession);
    };
    if let Err(refusal) = version_of(&session, version.as_deref()) {
        return http::refused(refusal);
    }
    let _busy = session.busy();
    let read = match body::read(&face.bodies, headers, body, body::limit(face.max_body, face.passing, headers)).await {
        Ok(Some(read)) => read,
        Ok(None) => return http::empty(StatusCode::BAD_REQUEST),
        Err(refusal) => return http::refused(refusal),
    };
    let passed = pass(&session, headers);
    let takes_batches = session.revision().is_some_and(Revision::takes_batches);
    if body::is_batch(&read.bytes) && !takes_batches {
        return http::refused(Refusal::NoBatches);
    }
    let messages = body::decode(read, face.max_body, takes_batches).await;
    if messages.all.is_empty() {
        // A blank body, which a line could be: no JSON at all.
        return http::json(StatusCode::BAD_REQUEST, blank_body(face));
    }
    match answer(face, &session, messages, passed).await {
        Answer::Response(response) => response,
        Answer::Refused(refused) => passing::refused(&refused, &passing::resource(face.public_url.as_ref(), local)),
    }
}

/// With `--pass-authorization`: the client's `Authorization` goes to the
/// session's upstream from now on; the count of the upstream's refusals so
/// far, to see one that this POST brings.
fn pass(session: &Session, headers: &HeaderMap) -> Option<(Arc<Passed>, u64)> {
    let passed = session.passed.clone()?;
    passed.set(http::header(headers, AUTHORIZATION.as_str()));
    let since = passed.refusals();
    Some((passed, since))
}

/// What a POST gets: its response, or the upstream's refusal of the
/// client's authorization.
enum Answer {
    Response(Response<Body>),
    Refused(Refused),
}

/// A POST without a session: an `initialize` opens one; anything else is
/// refused.
async fn first(
    face: &Arc<Face>,
    (headers, local, peer): (&HeaderMap, SocketAddr, SocketAddr),
    decoded: Option<Decoded>,
) -> Response<Body> {
    let id = match decoded {
        Some(Decoded::Message(Message::Request { id, method, params }))
            if modern::is_modern(&method, params.as_ref(), headers) =>
        {
            return modern::post(face, (headers, local, peer), id, &method, params).await;
        }
        Some(Decoded::Message(Message::Request { ref id, ref method, .. })) if method == "initialize" => id.clone(),
        Some(Decoded::Bad { ref id, ref error }) => {
            let error = error.to_value_for(&face.words);
            return http::json(StatusCode::BAD_REQUEST, http::error_body(id.as_ref(), error));
        }
        None => return http::json(StatusCode::BAD_REQUEST, blank_body(face)),
        _ => return http::refused(Refusal::NotInitialize),
    };
    let Some(session) = face.sessions.open(false) else {
        return http::refused(Refusal::TooManySessions);
    };
    // The client that goes away during initialize leaves no session.
    let mut pending = Pending(Some((face.clone(), session.id.clone())));
    let passed = pass(&session, headers);
    let mut rx = session.routes.open(&[id.key()], false);
    session.deliver(decoded.into_iter().collect()).await;
    let response = loop {
        match rx.recv().await {
            Some(Event::Response(line)) => break Some(http::line_bytes(line)),
            Some(Event::Message(_)) => {}
            None => break None,
        }
    };
    if let Some(refused) = passed.and_then(|(passed, since)| passed.refused_since(since)) {
        return passing::refused(&refused, &passing::resource(face.public_url.as_ref(), local));
    }
    let Some(response) = response else {
        return http::empty(StatusCode::NO_CONTENT);
    };
    let initialized = session.revision().is_some();
    let mut reply = http::json(StatusCode::OK, response);
    if initialized {
        pending.0 = None;
        if let Ok(value) = HeaderValue::from_str(&session.id) {
            reply.headers_mut().insert(SESSION_ID, value);
        }
        tracing::info!("a session began");
    }
    reply
}

/// Ends a session whose initialize did not complete.
struct Pending(Option<(Arc<Face>, String)>);

impl Drop for Pending {
    fn drop(&mut self) {
        // Out of the table at once, so that its place is free for the
        // client's next initialize; its upstream stops in a task.
        if let Some((face, id)) = self.0.take() {
            face.sessions.end_soon(&id);
        }
    }
}

/// The answer of a POST with a session: 202 for notifications and
/// responses only; else an SSE stream of the requests' messages and
/// responses, which ends with the last response.
async fn answer(
    face: &Arc<Face>,
    session: &Arc<Session>,
    messages: Messages,
    passed: Option<(Arc<Passed>, u64)>,
) -> Answer {
    let mut ids: Vec<IdKey> = Vec::new();
    let mut first = Vec::new();
    let mut deliver = Vec::with_capacity(messages.all.len());
    for message in messages.all {
        match message {
            Decoded::Message(Message::Request { ref id, .. }) => {
                ids.push(id.key());
                deliver.push(message);
            }
            // A single message that is not valid gets its error as the
            // answer of the POST; an element of a batch, on its stream.
            Decoded::Bad { id, error } if !is_bridge_id(face, id.as_ref()) => {
                let body = http::error_body(id.as_ref(), error.to_value_for(&face.words));
                if !messages.batch {
                    return Answer::Response(http::json(StatusCode::BAD_REQUEST, body));
                }
                first.push(http::event(crate::pipe::Line::Text(body)));
            }
            other => deliver.push(other),
        }
    }
    if ids.is_empty() && first.is_empty() {
        session.deliver(deliver).await;
        return Answer::Response(http::empty(StatusCode::ACCEPTED));
    }
    // The stream is registered before the front end sees its requests,
    // some of which it answers at once.
    let mut rx = session.routes.open(&ids, true);
    session.deliver(deliver).await;
    if let Some((passed, since)) = passed.filter(|_| !ids.is_empty()) {
        // The status waits for the first event: a response that the
        // upstream's refusal made is that refusal for the client; anything
        // else (progress, a question, a result) means the upstream took
        // the authorization.
        match rx.recv().await {
            Some(Event::Response(line)) => match passed.refused_since(since) {
                Some(refused) if !messages.batch => return Answer::Refused(refused),
                _ => first.push(http::event(line)),
            },
            Some(Event::Message(line)) => first.push(http::event(line)),
            None => {}
        }
    }
    let busy = session.busy();
    // A stream that a client may take up again: ids on its events (since
    // 2025-03-26), and its priming event first from 2025-11-25 (SEP-1699);
    // an older client would read the empty data as a message.
    let primed = session.revision() >= Some(crate::profile::Revision::V2025_11_25);
    Answer::Response(session.streams.open((first, rx), primed, session.ended.clone(), move || drop(busy)))
}

/// The answer of a blank body: the parse error of the error table.
fn blank_body(face: &Face) -> Vec<u8> {
    http::error_body(
        None,
        crate::jsonrpc::BridgeError::new(crate::jsonrpc::Cause::ParseError).to_value_for(&face.words),
    )
}

fn is_bridge_id(face: &Face, id: Option<&Id>) -> bool {
    id.and_then(Id::as_str).is_some_and(|s| s.starts_with(&face.request_id_prefix))
}

/// The `MCP-Protocol-Version` of a request of a session: when present, the
/// revision the session negotiated (before it is ready, any it serves).
fn version_of(session: &Session, header: Option<&str>) -> Result<(), Refusal> {
    let Some(header) = header else { return Ok(()) };
    match (Revision::parse(header), session.revision()) {
        (Some(asked), Some(negotiated)) if asked == negotiated => Ok(()),
        (Some(_), None) => Ok(()),
        _ => Err(Refusal::WrongProtocolVersion),
    }
}

/// A GET of `/mcp`: the session's stream, one reader at a time.
pub(super) async fn get(face: &Arc<Face>, request: Request<Incoming>) -> Response<Body> {
    let headers = request.headers();
    if !http::accepts(headers, "text/event-stream") {
        return http::refused(Refusal::NotAcceptable);
    }
    let session = match http::header(headers, SESSION_ID) {
        None => return http::refused(Refusal::SessionRequired),
        Some(id) => match face.sessions.get(id, false) {
            Some(session) => session,
            None => return http::refused(Refusal::UnknownSession),
        },
    };
    if let Err(refusal) = version_of(&session, http::header(headers, PROTOCOL_VERSION)) {
        return http::refused(refusal);
    }
    // A `Last-Event-ID` of a request stream whose connection broke takes
    // that stream up again; any other opens the session's stream.
    let last = http::header(headers, "last-event-id");
    let waiting = session.busy();
    if let Some(resumed) = session.streams.take_up(last, session.ended.clone()).await {
        return resumed;
    }
    drop(waiting);
    let Some((rx, stop)) = session.routes.take_session() else {
        return http::refused(Refusal::StreamOpen);
    };
    let busy = session.busy();
    let routes = session.routes.clone();
    // The GET ends with the session, or when its reader is too slow.
    let stop = either(stop, session.ended.clone());
    let ended = stop.clone();
    http::sse(Vec::new(), rx, stop, true, move |rx| {
        ended.cancel();
        routes.give_back(rx);
        drop(busy);
    })
}

/// A token that fires when either fires.
fn either(a: CancellationToken, b: CancellationToken) -> CancellationToken {
    let both = CancellationToken::new();
    let fire = both.clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = a.cancelled() => {}
            _ = b.cancelled() => {}
            _ = fire.cancelled() => {}
        }
        fire.cancel();
    });
    both
}

/// A DELETE of `/mcp`: the end of the session.
pub(super) async fn delete(face: &Arc<Face>, request: Request<Incoming>) -> Response<Body> {
    let Some(id) = http::header(request.headers(), SESSION_ID) else {
        return http::refused(Refusal::SessionRequired);
    };
    if face.sessions.end_soon(id) {
        tracing::info!("a session ended at the client's request");
        http::empty(StatusCode::OK)
    } else {
        http::refused(Refusal::UnknownSession)
    }
}
