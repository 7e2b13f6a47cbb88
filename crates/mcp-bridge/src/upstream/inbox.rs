//! The inbound half of the upstream client: the requests in flight, the
//! open listen streams, and what happens to each message a transport
//! receives. Each transport's reader holds the inbox and hands it every
//! message inline: the reader goes on only when this one is done, so
//! progress, log messages and listen events keep their order relative to
//! the responses. The client owns the inbox beside its transport; the
//! transports never see the client.

use super::hooks::LogSink;
use super::noise;
use super::pending::{Entry, Reply, Table};
use super::stream::{self, Routes, StreamEvent, StreamSink};
use crate::framing::{self, Decoded, Frame};
use crate::gate::text;
use crate::jsonrpc::{BridgeError, Cause, Id, Message};
use crate::pipe::KeptBuffer;
use crate::raw::{self, RawResult};
use crate::sync::lock;
use serde_json::Value;
use std::sync::Mutex;
use tokio::sync::watch;

/// The upstream depth limit. Results can nest deeper than a request of the
/// client (schemas do); this is the recursion limit of `serde_json`.
pub(crate) const UPSTREAM_MAX_DEPTH: usize = 128;

/// Where the messages of the upstream server go.
pub(super) struct Inbox {
    table: Mutex<Table>,
    /// The open listen streams.
    routes: Mutex<Routes>,
    on_log: LogSink,
    /// `Some` once the connection is lost, with the error for every
    /// later request.
    lost: watch::Sender<Option<BridgeError>>,
}

impl Inbox {
    pub(super) fn new(on_log: LogSink) -> Inbox {
        let (lost, _) = watch::channel(None);
        Inbox { table: Mutex::default(), routes: Mutex::default(), on_log, lost }
    }

    /// Puts a request in flight, before its message goes out so that no
    /// answer can come first; the error of the loss once the connection is
    /// lost. The check and the insert share the table's lock with
    /// [`Inbox::mark_lost`], so no entry comes in after the loss failed
    /// the others.
    pub(super) fn register(&self, id: u64, entry: Entry) -> Result<(), BridgeError> {
        let mut table = lock(&self.table);
        if let Some(err) = self.lost.borrow().clone() {
            return Err(err);
        }
        table.insert(id, entry);
        Ok(())
    }

    /// Forgets a request in flight; `false` when it was not.
    pub(super) fn forget(&self, id: u64) -> bool {
        lock(&self.table).give_up(id).is_some()
    }

    /// Routes the messages of the stream opened by request `id` to `sink`;
    /// the receiver turns `true` at the acknowledgment.
    pub(super) fn open_stream(&self, id: u64, sink: StreamSink) -> watch::Receiver<bool> {
        lock(&self.routes).open(id, sink)
    }

    /// Forgets the stream of request `id` and the request.
    pub(super) fn close_stream(&self, id: u64) {
        lock(&self.routes).close(id);
        lock(&self.table).remove(id);
    }

    /// Whether the connection is lost.
    pub(super) fn is_lost(&self) -> bool {
        self.lost.borrow().is_some()
    }

    /// Resolves when the connection is lost, with its error.
    pub(super) async fn lost(&self) -> BridgeError {
        let mut rx = self.lost.subscribe();
        loop {
            if let Some(err) = rx.borrow_and_update().clone() {
                return err;
            }
            if rx.changed().await.is_err() {
                return BridgeError::new(Cause::Closed);
            }
        }
    }

    /// Marks the connection lost: every request in flight and every later
    /// request gets `error`; the first loss wins.
    pub(super) fn mark_lost(&self, error: BridgeError) {
        let mut table = lock(&self.table);
        table.fail_all(&error);
        self.lost.send_if_modified(|lost| {
            if lost.is_some() {
                return false;
            }
            *lost = Some(error);
            true
        });
    }

    /// Handles one message of the upstream server as its bytes (a line of
    /// a pipe, an HTTP body, the data of an event), at most `max`. A
    /// result response goes as its bytes (`raw`) while a request in
    /// flight takes raw results, unless only the full decode can tell what
    /// it is; small messages too, since the envelope's check allocates
    /// nothing where the full decode builds a tree. The buffer of a big
    /// message serves the next one (`kept`).
    pub(super) async fn receive_bytes(&self, message: Vec<u8>, max: usize, kept: &KeptBuffer) {
        self.receive_message(message, max, kept, false).await;
    }

    /// A line of a stdio server's stdout (or of the in-memory link): as
    /// [`Inbox::receive_bytes`], and a line that is no JSON-RPC message at
    /// all gets the warning that quotes it (`noise`).
    pub(super) async fn receive_line(&self, line: Vec<u8>, max: usize, kept: &KeptBuffer) {
        self.receive_message(line, max, kept, true).await;
    }

    async fn receive_message(&self, message: Vec<u8>, max: usize, kept: &KeptBuffer, stdout: bool) {
        let message = if self.takes_raw() {
            match raw::read::response(message, kept) {
                Ok((id, raw)) => return self.receive_raw(id, raw),
                Err(message) => message,
            }
        } else {
            message
        };
        let frame = Frame::Line(message);
        let decoded = framing::decode(&frame, max, UPSTREAM_MAX_DEPTH);
        let quote = match (&decoded, &frame) {
            (Some(Decoded::Bad { error, .. }), Frame::Line(line)) if stdout => noise::quote(line, error.cause),
            _ => None,
        };
        if let Frame::Line(message) = frame {
            kept.give_back(message);
        }
        match (decoded, quote) {
            (Some(Decoded::Bad { id, error }), Some(quote)) => self.bad(id, &error, Some(&quote)),
            (Some(decoded), _) => self.receive(decoded).await,
            (None, _) => {}
        }
    }

    /// Handles one decoded message of the upstream server.
    pub(super) async fn receive(&self, decoded: Decoded) {
        match decoded {
            Decoded::Message(Message::Response { id, outcome }) => {
                let reply = match outcome {
                    Ok(result) => Reply::Result(result),
                    Err(error) => Reply::Error(error, None),
                };
                let known = own_id(&id).is_some_and(|n| lock(&self.table).resolve(n, reply));
                if !known {
                    tracing::debug!(id = %id.shown(), "dropped an upstream response with an unknown id");
                }
            }
            Decoded::Message(Message::Notification { method, params }) => {
                if !self.route_stream(&method, params.as_ref()).await {
                    self.notification(&method, params);
                }
            }
            Decoded::Message(Message::Request { method, .. }) => {
                tracing::warn!(method = %text::shown(&method, text::NAME), "dropped a request of the upstream server: revision 2026-07-28 has none");
            }
            Decoded::Message(Message::Unanswerable | Message::Invalid { .. }) => {
                tracing::warn!("dropped an upstream message that is not valid JSON-RPC");
            }
            Decoded::Bad { id, error } => self.bad(id, &error, None),
        }
    }

    /// A message that failed a check: the request whose id it shows gets
    /// `invalid_response`, and the log a warning, which quotes a line that
    /// is no JSON-RPC message at all (`quote`).
    fn bad(&self, id: Option<Id>, error: &BridgeError, quote: Option<&str>) {
        let failed = BridgeError::new(Cause::InvalidResponse).with_detail(error.cause.name());
        let known = id.as_ref().and_then(own_id).is_some_and(|n| self.fail(n, failed));
        match quote {
            Some(quote) => noise::warn(quote, error.cause, known),
            None => tracing::warn!(
                cause = error.cause.name(),
                request = known,
                "the upstream server sent a message that is not valid"
            ),
        }
    }

    /// A result response of the raw path (`raw::read`): the
    /// request gets its bytes when it asked for them, else the `Value`.
    fn receive_raw(&self, id: u64, raw: RawResult) {
        let Some(entry) = lock(&self.table).remove(id) else {
            tracing::debug!(id, "dropped an upstream response with an unknown id");
            return;
        };
        let reply = if entry.raw { Reply::Raw(raw) } else { Reply::parsed(&raw) };
        let _ = entry.reply.send(reply);
    }

    /// Whether a line is worth the raw path: a request in flight takes a
    /// raw result.
    fn takes_raw(&self) -> bool {
        lock(&self.table).takes_raw()
    }

    /// Fails one request in flight, without a response of the server (an
    /// HTTP status, a stream that broke, a message that is not valid);
    /// `false` when the request is not in flight.
    pub(super) fn fail(&self, id: u64, error: BridgeError) -> bool {
        lock(&self.table).resolve(id, Reply::Failed(error))
    }

    /// An error response of the server that came with an HTTP status that
    /// is not a success; `false` when the request is not in flight.
    pub(super) fn fail_with_error(&self, id: u64, error: Value, status: u16) -> bool {
        lock(&self.table).resolve(id, Reply::Error(error, Some(status)))
    }

    /// Whether a request still waits for its response.
    pub(super) fn is_pending(&self, id: u64) -> bool {
        lock(&self.table).contains(id)
    }

    /// Routes a notification of an open stream to its sink; `false` when
    /// it belongs to no open stream.
    async fn route_stream(&self, method: &str, params: Option<&Value>) -> bool {
        let Some(id) = stream::subscription_id(params) else {
            return false;
        };
        let Some(sink) = lock(&self.routes).sink_for(id, method) else {
            tracing::debug!(method = %text::shown(method, text::NAME), subscription = id, "dropped a notification of a stream that is not open");
            return true;
        };
        let params = params.cloned().unwrap_or(Value::Null);
        let event = if method == stream::ACKNOWLEDGED {
            StreamEvent::Acknowledged(params)
        } else {
            StreamEvent::Notification { method: method.to_owned(), params }
        };
        sink(event).await;
        true
    }

    fn notification(&self, method: &str, params: Option<Value>) {
        match method {
            "notifications/progress" => {
                let Some(params) = params.filter(is_progress) else {
                    return tracing::debug!("dropped a notifications/progress that is not valid");
                };
                let token = params.get("progressToken").and_then(Value::as_u64);
                if let Some(id) = token {
                    lock(&self.table).progress(id, params);
                }
            }
            "notifications/message" => match params {
                Some(params) if is_log_message(&params) => {
                    // On a shared link, the one client that waits; else
                    // the connection's sink.
                    let owner = lock(&self.table).sole_log(std::time::Instant::now());
                    (owner.as_ref().unwrap_or(&self.on_log))(params)
                }
                _ => tracing::debug!("dropped a notifications/message that is not valid"),
            },
            _ => {
                tracing::debug!(method = %text::shown(method, text::NAME), "dropped an upstream notification that belongs to no request")
            }
        }
    }
}

/// A log message needs a valid `level` and a `data` member, and a
/// `logger` is a string (the members that reach the client).
fn is_log_message(params: &Value) -> bool {
    params.get("level").and_then(Value::as_str).is_some_and(|l| crate::jsonrpc::LoggingLevel::parse(l).is_some())
        && params.get("data").is_some()
        && params.get("logger").is_none_or(Value::is_string)
}

/// Progress needs a number `progress`; a `total` is a number and a
/// `message` a string (the members that reach the client, as the schema of
/// `ProgressNotification` types them).
fn is_progress(params: &Value) -> bool {
    params.get("progress").is_some_and(Value::is_number)
        && params.get("total").is_none_or(Value::is_number)
        && params.get("message").is_none_or(Value::is_string)
}

/// The ids of the upstream client are unsigned integers.
fn own_id(id: &Id) -> Option<u64> {
    id.as_value().as_u64()
}

#[cfg(test)]
mod tests {
    use super::{is_log_message, is_progress, Inbox};
    use crate::jsonrpc::{BridgeError, Cause};
    use crate::upstream::pending::{Entry, Reply};
    use serde_json::json;
    use std::sync::Arc;
    use tokio::sync::oneshot;

    fn entry() -> (Entry, oneshot::Receiver<Reply>) {
        let (reply, rx) = oneshot::channel();
        (Entry { reply, progress: None, raw: false, log: crate::upstream::pending::Whose::Link }, rx)
    }

    /// The loss of the connection fails every request in flight and every
    /// later one, with the first loss's error: no request comes in after
    /// the loss and then waits for its time limit.
    #[test]
    fn after_the_loss_no_request_comes_in_and_the_first_loss_wins() {
        let inbox = Inbox::new(Arc::new(|_| {}));
        let (first, mut in_flight) = entry();
        assert!(inbox.register(1, first).is_ok(), "before the loss a request comes in");
        inbox.mark_lost(BridgeError::new(Cause::Closed));
        match in_flight.try_recv() {
            Ok(Reply::Failed(error)) => assert_eq!(error.cause, Cause::Closed),
            other => panic!("the request in flight is failed by the loss: {other:?}"),
        }
        inbox.mark_lost(BridgeError::new(Cause::UpstreamExited));
        let (later, _rx) = entry();
        match inbox.register(2, later) {
            Err(error) => assert_eq!(error.cause, Cause::Closed, "the first loss wins"),
            Ok(()) => panic!("a request came in after the loss"),
        }
        assert!(!inbox.forget(2), "the refused request is not in the table");
    }

    /// The members of a log message that reach the client have the types
    /// of `LoggingMessageNotification`; one that breaks them is dropped.
    #[test]
    fn log_messages_need_the_shape_of_their_schema() {
        for (params, valid) in [
            (json!({"level": "info", "data": "x"}), true),
            (json!({"level": "info", "data": null, "logger": "l"}), true),
            (json!({"level": "loud", "data": "x"}), false),
            (json!({"level": "info"}), false),
            (json!({"level": "info", "data": "x", "logger": 5}), false),
        ] {
            assert_eq!(is_log_message(&params), valid, "{params}");
        }
    }

    /// The members of progress that reach the client have the types of
    /// `ProgressNotification`; progress that breaks them is dropped.
    #[test]
    fn progress_needs_the_shape_of_its_schema() {
        for (params, valid) in [
            (json!({"progressToken": 1, "progress": 1}), true),
            (json!({"progressToken": 1, "progress": 0.5, "total": 2, "message": "m"}), true),
            (json!({"progressToken": 1}), false),
            (json!({"progressToken": 1, "progress": "1"}), false),
            (json!({"progressToken": 1, "progress": 1, "total": "2"}), false),
            (json!({"progressToken": 1, "progress": 1, "message": 3}), false),
            (json!([1]), false),
        ] {
            assert_eq!(is_progress(&params), valid, "{params}");
        }
    }
}
