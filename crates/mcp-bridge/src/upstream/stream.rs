//! `subscriptions/listen` streams of the upstream client (2026-07-28
//! `basic/patterns/subscriptions.md`).
//!
//! A stream is a request whose response is the end of the stream. Every
//! message of the stream carries `_meta["io.modelcontextprotocol/
//! subscriptionId"]`, the JSON-RPC id of the listen request; the reader of
//! the transport routes each such notification to the stream's sink inline
//! and awaits it before it reads the next line, so that an event written
//! before a result reaches the client before that result
//! (`inline_notifications`). The acknowledgment also stops the time limit
//! of the stream.

use super::pending::{Entry, Reply};
use super::Client;
use crate::jsonrpc::{self, reason, BridgeError, Cause, Id};
use crate::sync::lock;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

/// The method that opens a stream.
pub(crate) const LISTEN_METHOD: &str = "subscriptions/listen";
/// The `_meta` key that ties a message to its stream.
pub(crate) const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
/// The first message of each stream.
pub(crate) const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// One message of a stream, as the sink receives it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StreamEvent {
    /// `notifications/subscriptions/acknowledged`, with its params.
    Acknowledged(Value),
    /// Any other notification of the stream, with its params.
    Notification { method: String, params: Value },
}

/// The future of a sink: the reader awaits it before the next line.
pub(crate) type SinkFuture = Pin<Box<dyn Future<Output = ()> + Send>>;
/// Receives each message of one stream, inline in the reader.
pub(crate) type StreamSink = Arc<dyn Fn(StreamEvent) -> SinkFuture + Send + Sync>;

/// How a stream ended.
#[derive(Debug, Clone)]
pub(crate) enum StreamEnd {
    /// The owner stopped the stream; the upstream server got
    /// `notifications/cancelled`.
    Canceled,
    /// The upstream server ended the stream with a result (graceful
    /// closure, for example at its stop).
    Result,
    /// The upstream server answered with a JSON-RPC error object.
    Error(Value),
    /// No acknowledgment in the time limit (zig-sdk's `Timeout`).
    Timeout,
    /// The transport lost the stream while the connection lives on
    /// (zig-sdk's `Closed` and `TransportFailed`), or, over HTTP, the
    /// request of the stream failed with the HTTP status in
    /// `BridgeError::status`. Only a transport with a connection per stream
    /// reports it; on stdio a stream ends with its connection.
    Lost(BridgeError),
    /// The upstream server ended: the child process stopped.
    UpstreamEnded(BridgeError),
    /// Any other failure, such as a response line that is not valid.
    Failed(BridgeError),
}

/// Stops a stream with a reason for the upstream server. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct StreamStop {
    token: CancellationToken,
    reason: Arc<OnceLock<&'static str>>,
}

impl StreamStop {
    /// Stops the stream; the first reason wins.
    pub(crate) fn stop(&self, reason: &'static str) {
        let _ = self.reason.set(reason);
        self.token.cancel();
    }

    fn reason(&self) -> &'static str {
        self.reason.get().copied().unwrap_or(reason::CLIENT_CANCELED)
    }
}

/// One stream to open.
pub(crate) struct Listen<'a> {
    /// The `notifications` filter of the request.
    pub notifications: Value,
    pub sink: StreamSink,
    /// The time limit of the acknowledgment.
    pub ack_timeout: Duration,
    pub stop: &'a StreamStop,
}

/// The open streams, keyed by the id of their listen request.
#[derive(Default)]
pub(super) struct Routes {
    routes: HashMap<u64, Route>,
}

struct Route {
    sink: StreamSink,
    acknowledged: watch::Sender<bool>,
}

impl Routes {
    /// The sink of the stream a notification belongs to, when it belongs
    /// to an open one. An acknowledgment also marks the stream acknowledged.
    pub(super) fn sink_for(&self, id: u64, method: &str) -> Option<StreamSink> {
        let route = self.routes.get(&id)?;
        if method == ACKNOWLEDGED {
            route.acknowledged.send_replace(true);
        }
        Some(route.sink.clone())
    }
}

/// The subscription id of a notification: the id of the listen request,
/// which is one of ours, so an unsigned integer.
pub(super) fn subscription_id(params: Option<&Value>) -> Option<u64> {
    params?.get("_meta")?.get(SUBSCRIPTION_ID_KEY)?.as_u64()
}

/// Removes the stream's entries when the stream ends in any way, also when
/// its future is dropped.
struct Registration<'a> {
    client: &'a Client,
    id: u64,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        lock(&self.client.inner.routes).routes.remove(&self.id);
        lock(&self.client.inner.table).remove(self.id);
        self.client.inner.transport.forget(self.id);
    }
}

impl Client {
    /// Opens a stream and serves it until it ends. Listen streams do not
    /// take a place among the requests in flight: they live as long as the
    /// connection.
    pub(crate) async fn listen(&self, listen: Listen<'_>) -> StreamEnd {
        if let Some(err) = self.inner.lost.borrow().clone() {
            return StreamEnd::UpstreamEnded(err);
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply_tx, reply) = oneshot::channel();
        let (acknowledged, mut acked) = watch::channel(false);
        // Both entries go in before the line goes out.
        lock(&self.inner.table).insert(id, Entry { reply: reply_tx, progress: None, raw: false });
        lock(&self.inner.routes).routes.insert(id, Route { sink: listen.sink, acknowledged });
        let registration = Registration { client: self, id };
        let mut params = Map::new();
        params.insert("_meta".into(), Value::Object(self.base_meta()));
        params.insert("notifications".into(), listen.notifications);
        let line = jsonrpc::request(&Id::number(id), LISTEN_METHOD, Value::Object(params));
        let deadline = tokio::time::sleep(listen.ack_timeout);
        tokio::pin!(deadline);
        // The stop and the time limit also cover the write.
        tokio::select! {
            biased;
            sent = self.inner.transport.send(self, Some(id), &line) => if let Err(err) = sent {
                return ended(Reply::Failed(err));
            },
            _ = listen.stop.token.cancelled() => return StreamEnd::Canceled,
            _ = &mut deadline => return StreamEnd::Timeout,
        }
        let mut waiting_for_ack = true;
        let mut reply = reply;
        loop {
            tokio::select! {
                biased;
                outcome = &mut reply => {
                    return match outcome {
                        Ok(outcome) => ended(outcome),
                        Err(_) => StreamEnd::Failed(BridgeError::new(Cause::Closed)),
                    };
                }
                _ = listen.stop.token.cancelled() => {
                    drop(registration);
                    self.cancel_upstream(id, listen.stop.reason());
                    return StreamEnd::Canceled;
                }
                changed = acked.changed(), if waiting_for_ack => {
                    waiting_for_ack = changed.is_ok() && !*acked.borrow_and_update();
                }
                _ = &mut deadline, if waiting_for_ack => {
                    drop(registration);
                    self.cancel_upstream(id, reason::TIMED_OUT);
                    return StreamEnd::Timeout;
                }
            }
        }
    }

    /// Routes a notification of an open stream to its sink; `false` when
    /// it belongs to no open stream.
    pub(super) async fn route_stream(&self, method: &str, params: Option<&Value>) -> bool {
        let Some(id) = subscription_id(params) else {
            return false;
        };
        let Some(sink) = lock(&self.inner.routes).sink_for(id, method) else {
            tracing::debug!(%method, subscription = id, "dropped a notification of a stream that is not open");
            return true;
        };
        let params = params.cloned().unwrap_or(Value::Null);
        let event = if method == ACKNOWLEDGED {
            StreamEvent::Acknowledged(params)
        } else {
            StreamEvent::Notification { method: method.to_owned(), params }
        };
        sink(event).await;
        true
    }
}

fn ended(reply: Reply) -> StreamEnd {
    match reply {
        Reply::Result(_) => StreamEnd::Result,
        Reply::Raw(raw) => ended(Reply::parsed(&raw)),
        Reply::Error(error, _) => StreamEnd::Error(error),
        Reply::Failed(error) if error.cause == Cause::UpstreamExited => StreamEnd::UpstreamEnded(error),
        Reply::Failed(error)
            if error.status.is_some() || matches!(error.cause, Cause::Closed | Cause::TransportFailed) =>
        {
            StreamEnd::Lost(error)
        }
        Reply::Failed(error) => StreamEnd::Failed(error),
    }
}
