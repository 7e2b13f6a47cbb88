//! The HTTP vocabulary of the face: the body type, fixed responses, the
//! bounded read of a body, the headers it reads, and the SSE streams it
//! writes (`text/event-stream`: each message an `event: message` whose
//! `data` is its JSON).

use super::refusal::Refusal;
use crate::output::Event;
use crate::pipe::Line;
use bytes::{Bytes, BytesMut};
use http_body_util::{combinators::UnsyncBoxBody, BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper::header::{HeaderMap, HeaderValue, ACCEPT, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use serde_json::Value;
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The body of every response of the face.
pub(crate) type Body = UnsyncBoxBody<Bytes, Infallible>;

/// The header of a session's id.
pub(crate) const SESSION_ID: &str = "mcp-session-id";
/// The header of the revision a client speaks.
pub(crate) const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// How often a long stream says that it is alive (an SSE comment), so that
/// an idle connection is not cut by a proxy, and a client that is gone is
/// found.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A response with a status and no body.
pub(crate) fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()).boxed_unsync());
    *response.status_mut() = status;
    response
}

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The response of a refusal: its status, and its error as the body.
pub(crate) fn refused(refusal: Refusal) -> Response<Body> {
    let status = StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::BAD_REQUEST);
    let mut response = json(status, crate::jsonrpc::json_line(&refusal.body()));
    // A refused client gets no other request on this connection: it
    // cannot keep one for itself with requests it may not make.
    response.headers_mut().insert(hyper::header::CONNECTION, HeaderValue::from_static("close"));
    if refusal == Refusal::Unauthorized {
        response.headers_mut().insert(hyper::header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

/// 405, with the methods the path takes (RFC 9110, 15.5.6).
pub(crate) fn not_allowed(allow: &'static str) -> Response<Body> {
    let mut response = refused(Refusal::MethodNotAllowed);
    response.headers_mut().insert(hyper::header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// A header as text; `None` when absent or not visible ASCII.
pub(crate) fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Whether the `Accept` header lists `media` (or a wildcard for it).
pub(crate) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers.get_all(ACCEPT).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(|range| {
        let range = range.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        range == media || range == "*/*" || range == format!("{kind}/*")
    })
}

/// Whether the body is JSON by its `Content-Type`.
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    header(headers, CONTENT_TYPE.as_str())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// One message as an SSE event. A JSON text that spans lines (a raw
/// result of a server that wrote it so) takes one `data:` line each.
pub(crate) fn event(line: Line) -> Bytes {
    let text: Vec<u8> = match line {
        Line::Text(text) => text,
        Line::Pieces(pieces) => pieces.concat(),
    };
    let mut out = BytesMut::with_capacity(text.len() + 24);
    out.extend_from_slice(b"event: message\n");
    for part in text.split(|b| *b == b'\n') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(part.strip_suffix(b"\r").unwrap_or(part));
        out.extend_from_slice(b"\n");
    }
    out.extend_from_slice(b"\n");
    out.freeze()
}

/// An SSE response whose events are `first` (bytes written as they are),
/// then each event of `rx` until it ends or `stop` fires. `keep_alive`:
/// a long stream (a GET) that writes a comment while it is quiet.
pub(crate) fn sse(
    first: Vec<Bytes>,
    rx: mpsc::Receiver<Event>,
    stop: CancellationToken,
    keep_alive: bool,
    on_end: impl FnOnce(mpsc::Receiver<Event>) + Send + 'static,
) -> Response<Body> {
    sse_resumable(first, rx, stop, (keep_alive, None), on_end)
}

/// [`sse`], with the event ids of a stream that a client may take up
/// again after its connection broke (`resume`): when the body drops
/// before the stream ended, the stream goes to its parking instead of
/// `on_end`.
pub(crate) fn sse_resumable(
    first: Vec<Bytes>,
    rx: mpsc::Receiver<Event>,
    stop: CancellationToken,
    (keep_alive, resume): (bool, Option<Resume>),
    on_end: impl FnOnce(mpsc::Receiver<Event>) + Send + 'static,
) -> Response<Body> {
    let state = Stream {
        first: first.into_iter(),
        rx: Some(rx),
        stop,
        keep_alive,
        on_end: Some(Box::new(on_end)),
        resume,
        finished: false,
    };
    let stream = futures_util::stream::unfold(state, |mut state| async move {
        let bytes = state.next().await?;
        Some((Ok::<_, Infallible>(Frame::data(bytes)), state))
    });
    let mut response = Response::new(BodyExt::boxed_unsync(StreamBody::new(stream)));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies such as nginx would hold the events back otherwise.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

pub(crate) type OnEnd = Box<dyn FnOnce(mpsc::Receiver<Event>) + Send>;

/// The events of a resumable stream that are kept for a resumption: the
/// last of them, which a client whose connection broke may have missed.
const KEPT_EVENTS: usize = 64;

/// What makes a stream resumable: its id in the session, the number of
/// its next event, the last events sent, and where it goes when its
/// connection breaks before it ended.
pub(crate) struct Resume {
    pub stream: String,
    pub next: u64,
    pub sent: std::collections::VecDeque<(u64, Bytes)>,
    /// Fires when a client takes the stream up on another connection: it
    /// parks at once.
    pub detach: CancellationToken,
    pub park: Box<dyn FnOnce(Parked) + Send>,
}

/// A stream whose connection broke: what a GET with `Last-Event-ID`
/// takes up again.
pub(crate) struct Parked {
    pub rx: mpsc::Receiver<Event>,
    pub stream: String,
    pub next: u64,
    pub sent: std::collections::VecDeque<(u64, Bytes)>,
    /// The end handler of the stream, which waits with it (and what it
    /// holds: the session stays open while a stream waits).
    pub on_end: Option<OnEnd>,
}

/// The priming event of a resumable stream (SEP-1699): its first id, with
/// no data, and the wait before a client reconnects.
pub(crate) fn priming(stream: &str) -> Bytes {
    Bytes::from(format!("retry: 1000\nid: {stream}-0\ndata: \n\n"))
}

/// The state of one SSE body. When it ends (the stream is over, or `stop`
/// fired), its receiver goes to `on_end`: a GET gives the session's stream
/// back for the next GET. When it drops before (the client went away), a
/// resumable stream is parked instead.
struct Stream {
    first: std::vec::IntoIter<Bytes>,
    rx: Option<mpsc::Receiver<Event>>,
    stop: CancellationToken,
    keep_alive: bool,
    on_end: Option<OnEnd>,
    resume: Option<Resume>,
    finished: bool,
}

impl Stream {
    async fn next(&mut self) -> Option<Bytes> {
        if let Some(first) = self.first.next() {
            return Some(first);
        }
        let rx = self.rx.as_mut()?;
        let detach = self.resume.as_ref().map(|resume| &resume.detach);
        let quiet = tokio::time::sleep(KEEP_ALIVE);
        let detached = async {
            match detach {
                Some(detach) => detach.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            received = rx.recv() => match received {
                Some(Event::Message(line) | Event::Response(line)) => Some(self.event(line)),
                None => self.end(),
            },
            _ = quiet, if self.keep_alive => Some(Bytes::from_static(b": keep-alive\n\n")),
            _ = self.stop.cancelled() => self.end(),
            _ = detached => self.park(),
        }
    }

    /// Parks a resumable stream: a client takes it up again with a GET.
    fn park(&mut self) -> Option<Bytes> {
        self.finished = true;
        if let (Some(rx), Some(resume)) = (self.rx.take(), self.resume.take()) {
            let Resume { stream, next, sent, park, .. } = resume;
            park(Parked { rx, stream, next, sent, on_end: self.on_end.take() });
        }
        None
    }

    /// An event, with its id on a resumable stream (kept for a resumption).
    fn event(&mut self, line: Line) -> Bytes {
        let Some(resume) = self.resume.as_mut() else { return event(line) };
        let seq = resume.next;
        resume.next += 1;
        let mut bytes = BytesMut::from(format!("id: {}-{seq}\n", resume.stream).as_bytes());
        bytes.extend_from_slice(&event(line));
        let bytes = bytes.freeze();
        if resume.sent.len() == KEPT_EVENTS {
            resume.sent.pop_front();
        }
        resume.sent.push_back((seq, bytes.clone()));
        bytes
    }

    fn end(&mut self) -> Option<Bytes> {
        self.finished = true;
        if let (Some(rx), Some(on_end)) = (self.rx.take(), self.on_end.take()) {
            on_end(rx);
        }
        None
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // Only a resumable stream parks its receiver; any other keeps it
        // for `end`, whose handler cancels or ends what the stream carried.
        if !self.finished && self.resume.is_some() {
            self.park();
        }
        self.end();
    }
}

/// The JSON of a line, for a JSON response.
pub(crate) fn line_bytes(line: Line) -> Vec<u8> {
    match line {
        Line::Text(text) => text,
        Line::Pieces(pieces) => pieces.concat(),
    }
}

/// An error response of JSON-RPC, as the body of a response; without an
/// id when it answers no request that could be told (the transport pages:
/// "a JSON-RPC error response that has no id").
pub(crate) fn error_body(id: Option<&crate::jsonrpc::Id>, error: Value) -> Vec<u8> {
    let mut response = crate::jsonrpc::error_response(id, error);
    if id.is_none() {
        if let Some(object) = response.as_object_mut() {
            object.shift_remove("id");
        }
    }
    crate::jsonrpc::json_line(&response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_one_data_line_per_line_of_its_json() {
        assert_eq!(
            event(Line::Text(b"{\"a\":1}".to_vec())),
            Bytes::from_static(b"event: message\ndata: {\"a\":1}\n\n")
        );
        let pieces = Line::Pieces(vec![Bytes::from_static(b"{\"a\":\r\n"), Bytes::from_static(b"1}")]);
        assert_eq!(event(pieces), Bytes::from_static(b"event: message\ndata: {\"a\":\ndata: 1}\n\n"));
    }

    #[test]
    fn accept_lists_a_media_type_or_its_wildcard() {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_static("application/json, text/event-stream;q=0.9"));
        assert!(accepts(&headers, "application/json") && accepts(&headers, "text/event-stream"));
        assert!(!accepts(&headers, "text/html"));
        headers.insert(ACCEPT, HeaderValue::from_static("text/*"));
        assert!(accepts(&headers, "text/event-stream") && !accepts(&headers, "application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static("*/*"));
        assert!(accepts(&headers, "application/json"));
        headers.clear();
        assert!(!accepts(&headers, "application/json"));
    }
}
