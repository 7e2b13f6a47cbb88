//! HTTP+SSE of 2024-11-05 (its transport page): a GET of `/sse` opens a
//! session and its one stream, whose first event, `endpoint`, names the
//! URL the client POSTs its messages to (`/messages?sessionId=<id>`); every
//! message of the bridge, responses too, comes on that stream. The session
//! ends with its stream.

use super::body;
use super::http::{self, Body};
use super::refusal::Refusal;
use super::shared::Face;
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use std::sync::Arc;

/// A GET of `/sse`.
pub(super) async fn open(face: &Arc<Face>, request: Request<Incoming>) -> Response<Body> {
    if !http::accepts(request.headers(), "text/event-stream") {
        return http::refused(Refusal::NotAcceptable);
    }
    let Some(session) = face.sessions.open(true) else {
        return http::refused(Refusal::TooManySessions);
    };
    let Some((rx, _)) = session.routes.take_session() else {
        return http::refused(Refusal::StreamOpen);
    };
    tracing::info!("a session of HTTP+SSE began");
    let endpoint = Bytes::from(format!("event: endpoint\ndata: /messages?sessionId={}\n\n", session.id));
    let busy = session.busy();
    let (face, id) = (face.clone(), session.id.clone());
    http::sse(vec![endpoint], rx, session.ended.clone(), true, move |_| {
        drop(busy);
        tokio::spawn(async move {
            if face.sessions.end(&id).await {
                tracing::info!("a session of HTTP+SSE ended with its stream");
            }
        });
    })
}

/// A POST of `/messages?sessionId=<id>`: one message of the client; its
/// answer comes on the session's stream.
pub(super) async fn post(face: &Arc<Face>, request: Request<Incoming>) -> Response<Body> {
    let id = request.uri().query().and_then(session_id).map(str::to_owned);
    // A session of this transport only: an id of /mcp is unknown here.
    let Some(session) = id.and_then(|id| face.sessions.get(&id, true)) else {
        return http::refused(Refusal::UnknownSession);
    };
    if !http::is_json(request.headers()) {
        return http::refused(Refusal::UnsupportedMediaType);
    }
    let _busy = session.busy();
    let (parts, body) = request.into_parts();
    let read =
        match body::read(&face.bodies, &parts.headers, body, body::limit(face.max_body, face.passing, &parts.headers))
            .await
        {
            Ok(Some(read)) => read,
            Ok(None) => return http::empty(StatusCode::BAD_REQUEST),
            Err(refusal) => return http::refused(refusal),
        };
    let messages = body::decode(read, face.max_body, false).await;
    session.deliver(messages.all).await;
    http::empty(StatusCode::ACCEPTED)
}

/// The `sessionId` of the query.
fn session_id(query: &str) -> Option<&str> {
    query.split('&').find_map(|pair| pair.strip_prefix("sessionId="))
}

#[cfg(test)]
mod tests {
    use super::session_id;

    #[test]
    fn the_session_id_comes_from_the_query() {
        assert_eq!(session_id("sessionId=ab12"), Some("ab12"));
        assert_eq!(session_id("x=1&sessionId=ab12&y=2"), Some("ab12"));
        assert_eq!(session_id("session=ab12"), None);
    }
}
