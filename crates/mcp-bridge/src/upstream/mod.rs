//! The 2026-07-28 client toward the upstream server.
//!
//! One client, interchangeable transports: the client owns the ids, the
//! table of requests in flight, the per-request `_meta`, the time limits
//! and cancellation; a transport only moves lines. Incoming messages are
//! handled inline by the transport's reader task ([`Client::dispatch`]):
//! progress and log messages reach their callbacks before the reader reads
//! the next line, so they keep their order relative to the responses.

mod pending;
mod stdio;
mod stream;

pub use pending::{ProgressSink, Reply, PROGRESS_PER_SECOND};
pub use stdio::StdioCommand;
pub use stream::{
    Listen, SinkFuture, StreamEnd, StreamEvent, StreamSink, StreamStop, ACKNOWLEDGED, LISTEN_METHOD,
    SUBSCRIPTION_ID_KEY,
};

use crate::framing::{self, Decoded, Frame};
use crate::jsonrpc::{self, reason, BridgeError, Cause, Id, Message};
use crate::support::{format_limit, lock};
use pending::{Entry, Table, Throttle};
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

/// The revision the upstream client speaks.
pub const PROTOCOL_VERSION: &str = "2026-07-28";
/// The upstream depth limit. Results can nest deeper than a request of the
/// client (schemas do); this is the recursion limit of `serde_json`.
pub const UPSTREAM_MAX_DEPTH: usize = 128;
/// At most this many requests in flight, as `max_in_flight_requests`.
pub const MAX_IN_FLIGHT: usize = 256;

/// Receives each valid `notifications/message` of the upstream server.
pub type LogSink = Arc<dyn Fn(Value) + Send + Sync>;

/// The log level that the client chose with `logging/setLevel`, shared by
/// the front end (which sets it in every state) and the upstream client
/// (which reads it for each request and stream it sends). One cell, so a
/// level set during `initializing` reaches every later request. Cheap to
/// clone.
#[derive(Clone, Default)]
pub struct LogLevel(Arc<Mutex<Option<&'static str>>>);

impl LogLevel {
    pub fn set(&self, level: &'static str) {
        *lock(&self.0) = Some(level);
    }

    /// The level now; `None` until the client chose one.
    pub fn get(&self) -> Option<&'static str> {
        *lock(&self.0)
    }
}

/// What the upstream client needs from the layer above it, without
/// importing that layer.
#[derive(Clone)]
pub struct Hooks {
    /// Where the log messages of the upstream server go.
    pub on_log: LogSink,
    /// The level each request and listen stream carries in its `_meta`.
    pub log_level: LogLevel,
}

/// Who the client is, as the 2025-11-25 client told the bridge.
#[derive(Debug, Clone)]
pub struct Identity {
    /// The `clientInfo` of the client.
    pub client_info: Value,
    /// The translated `clientCapabilities`.
    pub capabilities: Value,
}

/// How a call failed.
#[derive(Debug)]
pub enum CallError {
    /// The upstream server answered with an error: its `error` object.
    Upstream(Value),
    /// The bridge failed the call.
    Bridge(BridgeError),
    /// An error object that goes to the client without a change: the
    /// client's own error for a sampling or roots question (behaviour spec,
    /// "An error of the client for a sampling or roots request also goes to
    /// the original request without a change"), or the error of the
    /// request-state rule. Never rewritten like an upstream error.
    Verbatim(Value),
    /// The caller canceled the call; nobody gets a response.
    Canceled,
}

impl From<Cause> for CallError {
    fn from(cause: Cause) -> Self {
        CallError::Bridge(BridgeError::new(cause))
    }
}

/// One request to the upstream server.
pub struct Call<'a> {
    pub method: &'a str,
    pub params: Map<String, Value>,
    /// Keys of the client's `_meta` that pass the passthrough rules.
    pub meta: Map<String, Value>,
    pub timeout: Duration,
    /// Where progress goes; `None` when the client gave no token.
    pub progress: Option<ProgressSink>,
    pub cancel: &'a CancellationToken,
    /// The place of the request among those in flight, kept for all its rounds.
    pub slot: &'a Slot,
}

/// A place among the [`MAX_IN_FLIGHT`] requests in flight. The reader of
/// the client takes it before the request's task starts, so a request over
/// the limit is refused at once and in order; the place is free again when
/// the slot drops.
pub struct Slot {
    inner: Arc<Inner>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.inner.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The line-moving part of a client.
enum Transport {
    Stdio(stdio::Stdio),
}

struct Inner {
    transport: Transport,
    table: Mutex<Table>,
    /// The open listen streams.
    routes: Mutex<stream::Routes>,
    next_id: AtomicU64,
    /// The slots taken; at most [`MAX_IN_FLIGHT`].
    in_flight: AtomicUsize,
    identity: Identity,
    hooks: Hooks,
    max_line_bytes: usize,
    /// `Some` once the connection is lost, with the error for every
    /// later request.
    lost: watch::Sender<Option<BridgeError>>,
}

/// The 2026-07-28 client. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl Client {
    /// Starts the command and connects to it over stdio.
    pub fn spawn_stdio(
        command: &StdioCommand,
        identity: Identity,
        hooks: Hooks,
        max_line_bytes: usize,
    ) -> Result<Client, BridgeError> {
        let (stdio, pipes) = stdio::Stdio::spawn(command, max_line_bytes)?;
        let (lost, _) = watch::channel(None);
        let client = Client {
            inner: Arc::new(Inner {
                transport: Transport::Stdio(stdio),
                table: Mutex::new(Table::default()),
                routes: Mutex::new(stream::Routes::default()),
                next_id: AtomicU64::new(1),
                in_flight: AtomicUsize::new(0),
                identity,
                hooks,
                max_line_bytes,
                lost,
            }),
        };
        pipes.start(client.clone());
        Ok(client)
    }

    /// Takes a place among the requests in flight, or fails with
    /// `too_many_requests`.
    pub fn reserve(&self) -> Result<Slot, BridgeError> {
        let taken = self
            .inner
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < MAX_IN_FLIGHT).then_some(n + 1));
        match taken {
            Ok(_) => Ok(Slot { inner: self.inner.clone() }),
            Err(_) => Err(BridgeError::new(Cause::TooManyRequests)),
        }
    }

    /// Resolves when the connection is lost, with its error.
    pub async fn lost(&self) -> BridgeError {
        let mut rx = self.inner.lost.subscribe();
        loop {
            if let Some(err) = rx.borrow_and_update().clone() {
                return err;
            }
            if rx.changed().await.is_err() {
                return BridgeError::new(Cause::Closed);
            }
        }
    }

    /// Sends one request and waits for its answer, its time limit or its
    /// cancellation. A canceled or timed-out request is canceled upstream.
    /// The time limit and the cancellation also cover the write: an
    /// upstream server that stops reading cannot hold a request forever.
    pub async fn call(&self, call: Call<'_>) -> Result<Value, CallError> {
        let deadline = tokio::time::sleep(call.timeout);
        tokio::pin!(deadline);
        let (id, line, reply) = self.register(&call)?;
        let sent = tokio::select! {
            biased;
            sent = self.send(&line) => sent,
            _ = call.cancel.cancelled() => Err(BridgeError::new(Cause::Canceled)),
            _ = &mut deadline => Err(BridgeError::new(Cause::Timeout)),
        };
        if let Err(err) = sent {
            // The line did not go out: there is nothing to cancel upstream.
            lock(&self.inner.table).remove(id);
            return Err(match err.cause {
                Cause::Canceled => CallError::Canceled,
                Cause::Timeout => timeout_error(call.method, call.timeout),
                _ => CallError::Bridge(err),
            });
        }
        tokio::select! {
            biased;
            reply = reply => match reply {
                Ok(Reply::Result(result)) => Ok(result),
                Ok(Reply::Error(error)) => Err(CallError::Upstream(error)),
                Ok(Reply::Failed(error)) => Err(CallError::Bridge(error)),
                Err(_) => Err(Cause::Closed.into()),
            },
            _ = call.cancel.cancelled() => {
                self.abandon(id, reason::CLIENT_CANCELED);
                Err(CallError::Canceled)
            }
            _ = &mut deadline => {
                self.abandon(id, reason::TIMED_OUT);
                Err(timeout_error(call.method, call.timeout))
            }
        }
    }

    /// Registers the request and makes its line. The entry goes into the
    /// table before the line goes out, so no answer can come first.
    fn register(&self, call: &Call<'_>) -> Result<(u64, Value, oneshot::Receiver<Reply>), CallError> {
        if let Some(err) = self.inner.lost.borrow().clone() {
            return Err(CallError::Bridge(err));
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut table = lock(&self.inner.table);
            let progress = call.progress.clone().map(Throttle::new);
            table.insert(id, Entry { reply: tx, progress });
        }
        let mut params = call.params.clone();
        params.insert("_meta".into(), Value::Object(self.request_meta(id, call)));
        Ok((id, jsonrpc::request(&Id::number(id), call.method, Value::Object(params)), rx))
    }

    /// The `_meta` of a request: the passthrough keys of the client, then
    /// the keys of the upstream client, which win.
    fn request_meta(&self, id: u64, call: &Call<'_>) -> Map<String, Value> {
        let mut meta = call.meta.clone();
        if call.progress.is_some() {
            // Each round has its own id, and the upstream server sends the
            // progress of the round with that id as the token.
            meta.insert("progressToken".into(), Value::from(id));
        }
        meta.extend(self.base_meta());
        meta
    }

    /// The keys of the upstream client on every request and stream: the
    /// version, the client, its capabilities, and the log level when the
    /// client chose one.
    fn base_meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert("io.modelcontextprotocol/protocolVersion".into(), Value::from(PROTOCOL_VERSION));
        meta.insert("io.modelcontextprotocol/clientInfo".into(), self.inner.identity.client_info.clone());
        meta.insert("io.modelcontextprotocol/clientCapabilities".into(), self.inner.identity.capabilities.clone());
        if let Some(level) = self.inner.hooks.log_level.get() {
            meta.insert("io.modelcontextprotocol/logLevel".into(), Value::from(level));
        }
        meta
    }

    /// Forgets a request and tells the upstream server to stop it.
    fn abandon(&self, id: u64, reason: &str) {
        if lock(&self.inner.table).remove(id).is_none() {
            return;
        }
        self.cancel_upstream(id, reason);
    }

    /// `notifications/cancelled` for one of our requests. It never waits:
    /// when the queue toward the upstream server is full (a server that
    /// stopped reading), the notification is dropped.
    fn cancel_upstream(&self, id: u64, reason: &str) {
        let params = serde_json::json!({ "requestId": id, "reason": reason });
        let line = jsonrpc::notification("notifications/cancelled", params).to_string().into_bytes();
        let sent = match &self.inner.transport {
            Transport::Stdio(stdio) => stdio.try_send(line),
        };
        if sent.is_err() {
            tracing::debug!(id, "dropped a cancellation: the upstream server does not read");
        }
    }

    async fn send(&self, message: &Value) -> Result<(), BridgeError> {
        let line = message.to_string().into_bytes();
        match &self.inner.transport {
            Transport::Stdio(stdio) => stdio.send(line).await,
        }
    }

    /// Handles one frame of the upstream server, inline in the reader: the
    /// reader reads the next frame only when this returns.
    async fn dispatch(&self, frame: &Frame) {
        let Some(decoded) = framing::decode(frame, self.inner.max_line_bytes, UPSTREAM_MAX_DEPTH) else {
            return;
        };
        match decoded {
            Decoded::Message(Message::Response { id, outcome }) => {
                let reply = match outcome {
                    Ok(result) => Reply::Result(result),
                    Err(error) => Reply::Error(error),
                };
                let known = own_id(&id).is_some_and(|n| lock(&self.inner.table).resolve(n, reply));
                if !known {
                    tracing::debug!(id = %id.key(), "dropped an upstream response with an unknown id");
                }
            }
            Decoded::Message(Message::Notification { method, params }) => {
                if !self.route_stream(&method, params.as_ref()).await {
                    self.notification(&method, params);
                }
            }
            Decoded::Message(Message::Request { method, .. }) => {
                tracing::warn!(%method, "dropped a request of the upstream server: revision 2026-07-28 has none");
            }
            Decoded::Message(Message::Unanswerable | Message::Invalid { .. }) => {
                tracing::warn!("dropped an upstream message that is not valid JSON-RPC");
            }
            Decoded::Bad { id, error } => {
                let own = id.as_ref().and_then(own_id);
                let failed = BridgeError::new(Cause::InvalidResponse).with_detail(error.cause.name());
                let known = own.is_some_and(|n| lock(&self.inner.table).resolve(n, Reply::Failed(failed)));
                tracing::warn!(
                    cause = error.cause.name(),
                    request = known,
                    "the upstream server sent a line that is not valid"
                );
            }
        }
    }

    fn notification(&self, method: &str, params: Option<Value>) {
        match method {
            "notifications/progress" => {
                let Some(params) = params.filter(Value::is_object) else { return };
                let token = params.get("progressToken").and_then(Value::as_u64);
                if let Some(id) = token {
                    lock(&self.inner.table).progress(id, params);
                }
            }
            "notifications/message" => match params {
                Some(params) if is_log_message(&params) => (self.inner.hooks.on_log)(params),
                _ => tracing::debug!("dropped a notifications/message that is not valid"),
            },
            _ => tracing::debug!(%method, "dropped an upstream notification that belongs to no request"),
        }
    }

    /// Marks the connection lost: every request in flight and every later
    /// request gets `error`.
    fn mark_lost(&self, error: BridgeError) {
        lock(&self.inner.table).fail_all(&error);
        self.inner.lost.send_if_modified(|lost| {
            if lost.is_some() {
                return false;
            }
            *lost = Some(error);
            true
        });
    }

    /// Closes the connection: the child's stdin closes, the child gets
    /// `grace` to exit, then it is killed.
    pub async fn shutdown(&self, grace: Duration) {
        match &self.inner.transport {
            Transport::Stdio(stdio) => stdio.shutdown(grace).await,
        }
    }
}

/// The error of a request without a response in its time limit.
fn timeout_error(method: &str, limit: Duration) -> CallError {
    let detail = format!("{method}: no response in {}", format_limit(limit));
    CallError::Bridge(BridgeError::new(Cause::Timeout).with_detail(detail))
}

/// A log message needs a valid `level` and a `data` member.
fn is_log_message(params: &Value) -> bool {
    const LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
    params.get("level").and_then(Value::as_str).is_some_and(|l| LEVELS.contains(&l)) && params.get("data").is_some()
}

fn own_id(id: &Id) -> Option<u64> {
    id.as_value().as_u64()
}
