//! `subscriptions/listen` streams of the upstream client (2026-07-28
//! `basic/patterns/subscriptions.md`).
//!
//! A stream is a request whose response is the end of the stream. Every
//! message of the stream carries `_meta["io.modelcontextprotocol/
//! subscriptionId"]`, the JSON-RPC id of the listen request; the inbox
//! routes each such notification to the stream's sink inline in the
//! transport's reader, which awaits it before it reads the next line, so that an event written
//! before a result reaches the client before that result
//! (`inline_notifications`). The acknowledgment also stops the time limit
//! of the stream.

use crate::jsonrpc::{reason, BridgeError};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// The method that opens a stream.
pub(crate) const LISTEN_METHOD: &str = "subscriptions/listen";
/// The `_meta` key that ties a message to its stream.
pub(crate) const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";
/// The first message of each stream.
pub(super) const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

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

    /// Resolves when the stream is stopped.
    pub(super) async fn stopped(&self) {
        self.token.cancelled().await;
    }

    /// The reason for the upstream server.
    pub(super) fn reason(&self) -> &'static str {
        self.reason.get().copied().unwrap_or(reason::CLIENT_CANCELED)
    }
}

/// One stream to open.
pub(crate) struct Listen<'a> {
    /// The `notifications` filter of the request.
    pub notifications: Value,
    /// The whole params of a 2026-07-28 client's own request, relayed as
    /// they came (its `_meta` and filter), in place of the client's `_meta`
    /// and `notifications`.
    pub relayed: Option<Map<String, Value>>,
    /// The relayed client's own `Authorization` (`--pass-authorization`).
    pub authorization: Option<&'a str>,
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
    /// Opens the route of stream `id`; the receiver turns `true` at the
    /// acknowledgment.
    pub(super) fn open(&mut self, id: u64, sink: StreamSink) -> watch::Receiver<bool> {
        let (acknowledged, acked) = watch::channel(false);
        self.routes.insert(id, Route { sink, acknowledged });
        acked
    }

    pub(super) fn close(&mut self, id: u64) {
        self.routes.remove(&id);
    }

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
