//! The 2026-07-28 client: the ids, the per-request `_meta`, the time
//! limits, the places among the requests in flight, and cancellation.
//! Its link owns the transport, which moves the messages out, and the
//! inbox, which the transport's reader hands the messages in to. Several
//! clients may share one link (`Client::attach`): the ids are the
//! link's, the identity, the log level and the places in flight each
//! client's own.

use super::hooks::{Identity, LogLevel, LogSink, ResultObserver};
use super::inbox::Inbox;
use super::outgoing::{Outgoing, UpstreamMethod};
use super::pending::{self, Entry, ProgressSink, Reply, Throttle, Whose};
use super::request::{self, PROTOCOL_VERSION};
use super::transport::Transport;
use crate::jsonrpc::{self, reason, BridgeError, Cause};
use crate::raw::RawResult;
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// At most this many requests in flight, as `max_in_flight_requests`.
pub(crate) const MAX_IN_FLIGHT: usize = 256;

/// The result of a call that takes results as their bytes
/// ([`Client::call_raw`]).
#[derive(Debug)]
pub(crate) enum Payload {
    Value(Value),
    /// A result as its bytes, for the raw path (`crate::raw`).
    Raw(RawResult),
}

impl Payload {
    /// The result as a `Value`, as [`Client::call`] gives it.
    pub(crate) fn into_value(self) -> Result<Value, CallError> {
        match self {
            Payload::Value(value) => Ok(value),
            Payload::Raw(raw) => pending::parse_raw(&raw).map_err(CallError::Bridge),
        }
    }
}

/// How a call failed.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The upstream server answered with an error: its `error` object, and
    /// the HTTP status that it came with when that was not a success
    /// (`discover_failed` names it).
    Upstream { error: Value, status: Option<u16> },
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
pub(crate) struct Call<'a> {
    pub method: UpstreamMethod,
    /// Borrowed: the caller keeps them for the next round, and the line
    /// needs one copy only.
    pub params: &'a Map<String, Value>,
    /// Keys of the client's `_meta` that pass the passthrough rules.
    pub meta: &'a Map<String, Value>,
    pub timeout: Duration,
    /// Where progress goes; `None` when the client gave no token.
    pub progress: Option<ProgressSink>,
    pub cancel: &'a CancellationToken,
    /// The place of the request among those in flight, kept for all its rounds.
    pub slot: &'a Slot,
    /// The params hold a 2026-07-28 client's own `_meta` (a client of the
    /// face that speaks the upstream's revision): they go as they came,
    /// but the progress token.
    pub relay: Option<Relay<'a>>,
}

/// A request of a 2026-07-28 client, relayed.
#[derive(Clone, Copy)]
pub(crate) struct Relay<'a> {
    /// Its own `Authorization`, when it goes to the upstream (the face
    /// with `--pass-authorization`).
    pub authorization: Option<&'a str>,
}

/// A place among the [`MAX_IN_FLIGHT`] requests in flight. The reader of
/// the client takes it before the request's task starts, so a request over
/// the limit is refused at once and in order; the place is free again when
/// the slot drops.
pub(crate) struct Slot {
    inner: Arc<Inner>,
    /// The place was given back already (a canceled request).
    released: AtomicBool,
}

impl Slot {
    /// Gives the place back now. A canceled request frees its place before
    /// its `notifications/cancelled` goes out, so that a client that sees
    /// the cancellation through the upstream server finds the place free,
    /// whenever the request's task gets to its end.
    fn release(&self) {
        if !self.released.swap(true, Ordering::AcqRel) {
            self.inner.in_flight.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.release();
    }
}

/// One connection to the upstream server, which every client attached
/// to it shares: the ids of its requests are unique on it.
struct Link {
    transport: Transport,
    /// Shared with the transport's readers.
    inbox: Arc<Inbox>,
    next_id: AtomicU64,
    /// Sees each result before its caller does.
    observer: Option<ResultObserver>,
}

struct Inner {
    link: Arc<Link>,
    /// The slots taken; at most [`MAX_IN_FLIGHT`].
    in_flight: AtomicUsize,
    /// The keys of the upstream client in every `_meta` but the log level.
    fixed_meta: request::FixedMeta,
    log_level: LogLevel,
    /// The client that made the link closes it; an attached one only
    /// goes (`Client::shutdown`).
    owns_link: bool,
    /// An attached client's log sink, which its requests carry
    /// (`pending::Entry::log`).
    log: Option<LogSink>,
}

/// The 2026-07-28 client. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Client {
    inner: Arc<Inner>,
}

impl Client {
    /// The client over a transport whose readers hand their messages to
    /// `inbox`.
    pub(super) fn new(
        (transport, inbox): (Transport, Arc<Inbox>),
        identity: &Identity,
        log_level: LogLevel,
        observer: Option<ResultObserver>,
    ) -> Client {
        let link = Arc::new(Link { transport, inbox, next_id: AtomicU64::new(1), observer });
        Client::over(link, identity, log_level, None)
    }

    /// A client on `link`; `log` is `Some` for an attached one.
    fn over(link: Arc<Link>, identity: &Identity, log_level: LogLevel, log: Option<LogSink>) -> Client {
        Client {
            inner: Arc::new(Inner {
                link,
                in_flight: AtomicUsize::new(0),
                fixed_meta: request::FixedMeta::new(&identity.client_info, &identity.capabilities),
                log_level,
                owns_link: log.is_none(),
                log,
            }),
        }
    }

    /// Another client on this client's link: its own identity, log level
    /// and [`MAX_IN_FLIGHT`] places; the ids, the responses, the loss and
    /// the transport are the link's. A log message goes to `on_log` while
    /// only this client has requests in flight. Its shutdown leaves the
    /// link open.
    pub(crate) fn attach(&self, identity: &Identity, log_level: LogLevel, on_log: LogSink) -> Client {
        Client::over(self.inner.link.clone(), identity, log_level, Some(on_log))
    }

    pub(super) fn inbox(&self) -> &Arc<Inbox> {
        &self.inner.link.inbox
    }

    pub(super) fn transport(&self) -> &Transport {
        &self.inner.link.transport
    }

    /// A new id for a request, unique on the link.
    pub(super) fn next_id(&self) -> u64 {
        self.inner.link.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Whether the upstream server is remote: it selects the icon rule
    /// (one answer, `transport::FarEnd::is_remote`).
    pub(crate) fn is_remote(&self) -> bool {
        self.transport().is_remote()
    }

    /// Takes a place among the requests in flight, or fails with
    /// `too_many_requests`.
    pub(crate) fn reserve(&self) -> Result<Slot, BridgeError> {
        let taken = self
            .inner
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < MAX_IN_FLIGHT).then_some(n + 1));
        match taken {
            Ok(_) => Ok(Slot { inner: self.inner.clone(), released: AtomicBool::new(false) }),
            Err(_) => Err(BridgeError::new(Cause::TooManyRequests)),
        }
    }

    /// Whether the connection is lost.
    pub(crate) fn is_lost(&self) -> bool {
        self.inbox().is_lost()
    }

    /// Resolves when the connection is lost, with its error.
    pub(crate) async fn lost(&self) -> BridgeError {
        self.inbox().lost().await
    }

    /// Sends one request and waits for its answer, its time limit or its
    /// cancellation. A canceled or timed-out request is canceled upstream.
    /// The time limit and the cancellation also cover the write: an
    /// upstream server that stops reading cannot hold a request forever.
    ///
    /// An `UnsupportedProtocolVersionError` (-32022) whose `supported` list
    /// has our revision is retried once, as 2026-07-28 `basic/versioning`
    /// asks of a client (a server can send it for a version it supports,
    /// as the conformance suite's mock does).
    pub(crate) async fn call(&self, call: Call<'_>) -> Result<Value, CallError> {
        self.call_with(call, false).await?.into_value()
    }

    /// [`Client::call`], but a result comes as its bytes
    /// ([`Payload::Raw`]) when `raw::read` takes its response, for the
    /// raw path of the result rules.
    pub(crate) async fn call_raw(&self, call: Call<'_>) -> Result<Payload, CallError> {
        self.call_with(call, true).await
    }

    async fn call_with(&self, call: Call<'_>, raw: bool) -> Result<Payload, CallError> {
        let deadline = tokio::time::sleep(call.timeout);
        tokio::pin!(deadline);
        let mut retried = false;
        loop {
            match self.call_once(&call, raw, deadline.as_mut()).await {
                Err(CallError::Upstream { error, .. }) if !retried && offers_our_version(&error) => {
                    tracing::info!(
                        "the upstream server asked for a supported protocol version; sending the request again"
                    );
                    retried = true;
                }
                outcome => return outcome,
            }
        }
    }

    async fn call_once(
        &self,
        call: &Call<'_>,
        raw: bool,
        mut deadline: std::pin::Pin<&mut tokio::time::Sleep>,
    ) -> Result<Payload, CallError> {
        let (id, reply) = self.register(call, raw)?;
        let _gone = GivenUp { client: self, id };
        let sent = tokio::select! {
            biased;
            sent = self.send_request(id, call) => sent,
            _ = call.cancel.cancelled() => Err(BridgeError::new(Cause::Canceled)),
            _ = &mut deadline => Err(BridgeError::new(Cause::Timeout)),
        };
        let sent = match sent {
            // The pipe is closed: its owner is deciding why (the child
            // stopped, or only closed a pipe), and the request gets that
            // cause, within its own limits.
            Err(err) if err.cause == Cause::NotConnected => tokio::select! {
                biased;
                lost = self.lost() => Err(lost),
                _ = call.cancel.cancelled() => Err(BridgeError::new(Cause::Canceled)),
                _ = &mut deadline => Err(BridgeError::new(Cause::Timeout)),
            },
            other => other,
        };
        if let Err(err) = sent {
            self.inbox().forget(id);
            // Whether the request may have reached the server, which then
            // gets the cancellation too (a POST's stream closed with the
            // dropped request), is the transport's to say: a pipe's line
            // that did not go out leaves nothing to cancel.
            let reason = match err.cause {
                Cause::Canceled => Some(reason::CLIENT_CANCELED),
                Cause::Timeout => Some(reason::TIMED_OUT),
                _ => None,
            };
            if let Some(reason) = reason.filter(|_| self.transport().send_may_have_arrived()) {
                self.cancel_upstream(id, reason);
            }
            return Err(match err.cause {
                Cause::Canceled => CallError::Canceled,
                Cause::Timeout => timeout_error(call.method, call.timeout),
                _ => CallError::Bridge(err),
            });
        }
        tokio::select! {
            biased;
            reply = reply => match reply {
                Ok(Reply::Result(mut result)) => {
                    if let Some(observe) = &self.inner.link.observer {
                        observe(call.method, &mut result);
                    }
                    Ok(Payload::Value(result))
                }
                // No raw result is one to observe: only an upstream at a
                // URL has an observer, for its `tools/list`, and a remote
                // `tools/list` never stays raw (`Method::may_stay_raw`).
                Ok(Reply::Raw(raw)) => Ok(Payload::Raw(raw)),
                Ok(Reply::Error(error, status)) => Err(CallError::Upstream { error, status }),
                Ok(Reply::Failed(error)) => Err(CallError::Bridge(error)),
                Err(_) => Err(Cause::Closed.into()),
            },
            _ = call.cancel.cancelled() => {
                call.slot.release();
                self.abandon(id, reason::CLIENT_CANCELED);
                Err(CallError::Canceled)
            }
            _ = &mut deadline => {
                self.abandon(id, reason::TIMED_OUT);
                Err(timeout_error(call.method, call.timeout))
            }
        }
    }

    /// Registers the request. The entry goes into the table before the
    /// line goes out, so no answer can come first.
    fn register(&self, call: &Call<'_>, raw: bool) -> Result<(u64, oneshot::Receiver<Reply>), CallError> {
        let id = self.next_id();
        let (tx, rx) = oneshot::channel();
        let progress = call.progress.clone().map(Throttle::new);
        self.inbox().register(id, Entry { reply: tx, progress, raw, log: self.whose() }).map_err(CallError::Bridge)?;
        Ok((id, rx))
    }

    /// Whose this client's requests are, for the log messages of a pipe.
    fn whose(&self) -> Whose {
        // Only an attached client reads its level here: the connection's
        // own request (every stdio one) pays no lock for it.
        let Some(sink) = &self.inner.log else { return Whose::Link };
        match self.inner.log_level.get() {
            Some(_) => Whose::Client(sink.clone()),
            // No level: the server sends it no log message.
            None => Whose::Nobody,
        }
    }

    /// Sends a registered request as its text written from its parts (the
    /// line of a pipe, the body of a POST), else as its message.
    async fn send_request(&self, id: u64, call: &Call<'_>) -> Result<(), BridgeError> {
        let parts = request::Parts {
            id,
            method: call.method,
            params: call.params,
            meta: call.meta,
            progress: call.progress.is_some(),
            level: self.inner.log_level.get(),
        };
        let fixed = &self.inner.fixed_meta;
        let transport = self.transport();
        if let Some(relay) = call.relay {
            let message = request::relayed(&parts);
            let mut outgoing = Outgoing::of(Some(id), call.method, &message);
            outgoing.authorization = relay.authorization;
            return transport.send(outgoing).await;
        }
        if let Some(text) = request::line(&parts, fixed) {
            return transport
                .send(Outgoing {
                    id: Some(id),
                    method: call.method,
                    params: Some(call.params),
                    text,
                    authorization: None,
                })
                .await;
        }
        transport.send(Outgoing::of(Some(id), call.method, &request::message(&parts, fixed))).await
    }

    /// The keys of the upstream client on every request and stream: the
    /// version, the client, its capabilities, and the log level when the
    /// client chose one.
    pub(super) fn base_meta(&self) -> Map<String, Value> {
        self.inner.fixed_meta.base_meta(self.inner.log_level.get())
    }

    /// Forgets a request and tells the upstream server to stop it.
    fn abandon(&self, id: u64, reason: &str) {
        if !self.inbox().forget(id) {
            return;
        }
        self.cancel_upstream(id, reason);
        self.transport().forget(id);
    }

    /// `notifications/cancelled` for one of our requests. The caller never
    /// waits for it (`Transport::send_soon`).
    pub(super) fn cancel_upstream(&self, id: u64, reason: &str) {
        let params = serde_json::json!({ "requestId": id, "reason": reason });
        let cancelled = UpstreamMethod::Cancelled;
        self.transport().send_soon(Outgoing::of(None, cancelled, &jsonrpc::notification(cancelled.name(), params)));
    }

    /// Closes the connection: the child's stdin closes, the child gets
    /// `grace` to exit, then it is killed. An attached client's requests
    /// were canceled by its owner already: the link stays for the others.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        if !self.inner.owns_link {
            return;
        }
        self.transport().close(grace).await;
        // The connection is closed: whatever waits for its loss (the watch of
        // the front end, which holds the client and so the output) ends now.
        // A pipe's supervisor said so already; a URL has no other end that
        // would.
        self.inbox().mark_lost(BridgeError::new(Cause::Closed));
    }
}

/// A request whose caller went away before its end (the caller's future
/// dropped: a client of the face that left during a probe or a lookup)
/// is given up as a cancellation would: no entry stays in the table, and
/// the server is told. After every other end it was forgotten already,
/// and this does nothing.
struct GivenUp<'a> {
    client: &'a Client,
    id: u64,
}

impl Drop for GivenUp<'_> {
    fn drop(&mut self) {
        self.client.abandon(self.id, reason::CLIENT_CANCELED);
    }
}

/// An `UnsupportedProtocolVersionError` that lists the revision of this
/// client among the supported ones.
fn offers_our_version(error: &Value) -> bool {
    error.get("code").and_then(Value::as_i64) == Some(jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION)
        && error
            .get("data")
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|versions| versions.iter().any(|v| v.as_str() == Some(PROTOCOL_VERSION)))
}

/// The error of a request without a response in its time limit.
fn timeout_error(method: UpstreamMethod, limit: Duration) -> CallError {
    CallError::Bridge(BridgeError::no_response(Cause::Timeout, Some(method.name()), limit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::connect::{connect, MemoryLink, UpstreamSpec};
    use crate::upstream::hooks::Hooks;
    use crate::upstream::later_sign_in::Consent;
    use serde_json::json;
    use std::sync::Mutex;
    use tokio::io::{AsyncBufReadExt, BufReader};

    /// A caller that goes away (its future dropped) leaves no request in
    /// the table, and the server gets `notifications/cancelled` for it, as
    /// for a cancellation (the attack on the shared child: a prober that
    /// left kept its request in the table for good).
    #[tokio::test]
    async fn a_call_whose_caller_went_away_is_given_up_and_canceled() {
        let far: Arc<Mutex<Option<tokio::io::DuplexStream>>> = Arc::default();
        let keep = far.clone();
        let link = MemoryLink::new(move || {
            let (ours, theirs) = tokio::io::duplex(1 << 16);
            *keep.lock().unwrap_or_else(|e| e.into_inner()) = Some(theirs);
            ours
        });
        let hooks = Hooks {
            on_log: Arc::new(|_| {}),
            log_level: LogLevel::default(),
            consent: Arc::new(|_| Box::pin(async { Consent::CannotAsk })),
        };
        let identity = Identity { client_info: json!({"name": "t"}), capabilities: json!({}) };
        let client = match connect(&UpstreamSpec::Memory(link), identity, hooks, 1 << 20) {
            Ok(connection) => connection.client,
            Err(err) => panic!("no client over the memory link: {err}"),
        };
        let server = far.lock().unwrap_or_else(|e| e.into_inner()).take().expect("the far end");
        let mut lines = BufReader::new(server).lines();
        let (empty, cancel) = (Map::new(), CancellationToken::new());
        let slot = client.reserve().expect("a place");
        let call = Call {
            method: UpstreamMethod::Forwarded(crate::method::Method::ToolsList),
            params: &empty,
            meta: &empty,
            timeout: Duration::from_secs(60),
            progress: None,
            cancel: &cancel,
            slot: &slot,
            relay: None,
        };
        let mut pending = Box::pin(client.call(call));
        let first = tokio::select! {
            line = lines.next_line() => line.ok().flatten().expect("the request"),
            _ = &mut pending => panic!("answered without a server"),
        };
        let request: Value = serde_json::from_str(&first).expect("JSON");
        let id = request["id"].as_u64().expect("an id");
        drop(pending);
        let next = tokio::time::timeout(Duration::from_secs(5), lines.next_line()).await;
        let cancelled: Value =
            serde_json::from_str(&next.ok().and_then(|l| l.ok().flatten()).expect("a line")).expect("JSON");
        assert_eq!(cancelled["method"], "notifications/cancelled", "{cancelled}");
        assert_eq!(cancelled["params"]["requestId"], json!(id), "{cancelled}");
        assert!(!client.inbox().forget(id), "the request stayed in the table");
    }
}
