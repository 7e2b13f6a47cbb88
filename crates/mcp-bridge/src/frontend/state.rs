//! The state shared by the reader loop and the tasks of one connection.

use super::asks::Asks;
use super::config::Config;
use crate::dialect::Dialect;
use crate::input::checks::Declared;
use crate::jsonrpc::{self, BridgeError, Id, IdKey};
use crate::listener::Listener;
use crate::output::Output;
use crate::profile::Words;
use crate::sync::lock;
use crate::translate::note::{Level, Note};
use crate::upstream::{Client, LogLevel, SignIn};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The four states of the front end, with what each state has: one cell,
/// so that no listen stream or upstream client exists without `ready`.
#[derive(Clone)]
pub(crate) enum Phase {
    /// No initialize yet, or the last one failed.
    AwaitingInitialize,
    /// The first initialize runs: the upstream server starts.
    Initializing,
    /// Requests go to the upstream server. In an `Arc`: each request reads
    /// the state, and a copy of `Ready` would copy its capabilities.
    Ready(Arc<Ready>, Listen),
    /// The input ended (`None`), or the upstream server was lost, with the
    /// error of the loss (`closed`, `upstream_exited`, `transport_failed`)
    /// that every later request gets; and what `ready` had, until the end
    /// of the connection closes it (a child that closed its stdout and
    /// lives on still gets the end of its stdin, then the kill).
    Closing(Option<BridgeError>, Option<Kept>),
}

/// What `ready` had, kept in `closing` for the end of the connection.
#[derive(Clone)]
pub(crate) struct Kept {
    pub client: Client,
    pub listen: Listen,
}

/// The listen stream of the connection, in `ready`.
#[derive(Clone)]
pub(crate) enum Listen {
    /// `notifications/initialized` did not come in `ready` yet.
    NotOpened,
    /// The initialize result declares no list change and no subscribe.
    NotWanted,
    Open(Listener),
}

/// What the front end knows in `ready`.
#[derive(Clone)]
pub(crate) struct Ready {
    pub client: Client,
    /// The sign-in of an upstream at a URL with sign-in.
    pub sign_in: Option<SignIn>,
    /// The capabilities of the initialize result.
    pub capabilities: Map<String, Value>,
    /// What the client declared for input requests.
    pub declared: Declared,
    /// What the client reads: the quirks, its revision, the icon rule.
    pub dialect: Dialect,
}

/// The requests of the client in flight, each with its token. A client
/// may reuse an id while a request of it is in flight (a batch that
/// repeats one): each request keeps its own entry, told apart by a
/// sequence number, and each gets its response.
#[derive(Default)]
pub(crate) struct Inflight {
    next: AtomicU64,
    entries: Mutex<HashMap<IdKey, Vec<(u64, CancellationToken)>>>,
}

impl Inflight {
    /// Adds a request; returns its token and its sequence number.
    pub(crate) fn insert(&self, id: &Id) -> (CancellationToken, u64) {
        let seq = self.next.fetch_add(1, Ordering::Relaxed);
        let token = CancellationToken::new();
        lock(&self.entries).entry(id.key()).or_default().push((seq, token.clone()));
        (token, seq)
    }

    /// Removes a request that ended. `false` when it was canceled in the
    /// meantime: then it gets no response.
    pub(crate) fn finish(&self, id: &Id, seq: u64) -> bool {
        let key = id.key();
        let mut entries = lock(&self.entries);
        let Some(requests) = entries.get_mut(&key) else { return false };
        let Some(index) = requests.iter().position(|(s, token)| *s == seq && !token.is_cancelled()) else {
            return false;
        };
        requests.swap_remove(index);
        if requests.is_empty() {
            entries.remove(&key);
        }
        true
    }

    /// Cancels the requests with this id that are in flight; how many.
    pub(crate) fn cancel(&self, id: &Id) -> usize {
        let requests = lock(&self.entries).remove(&id.key()).unwrap_or_default();
        requests.iter().for_each(|(_, token)| token.cancel());
        requests.len()
    }

    /// Cancels every request in flight.
    pub(crate) fn cancel_all(&self) {
        for (_, requests) in lock(&self.entries).drain() {
            requests.iter().for_each(|(_, token)| token.cancel());
        }
    }
}

/// The state of one connection.
pub(crate) struct Shared {
    pub config: Config,
    pub out: Output,
    phase: Mutex<Phase>,
    pub inflight: Inflight,
    pub tracker: TaskTracker,
    /// The level of `logging/setLevel`, shared with the log callback and
    /// the upstream client.
    pub log_level: LogLevel,
    /// Fired once when the upstream server stops in `ready`.
    pub upstream_lost: CancellationToken,
    /// Fired when the connection ends: what watches the upstream for it
    /// stops (a shared upstream outlives the connection).
    pub closed: CancellationToken,
    /// The questions of the bridge to the client.
    pub asks: Asks,
    /// The next `elicitation-<n>`, unique on the connection.
    pub elicitation_ids: AtomicU64,
    /// The client negotiated a revision that has batches (2025-03-26).
    batches: std::sync::atomic::AtomicBool,
    /// The words of the client's messages: the profile's, then those of
    /// the client that `initialize` names.
    words: Mutex<Arc<Words>>,
}

impl Shared {
    pub(crate) fn new(config: Config, out: Output) -> Self {
        let config_prefix = config.profile.request_id_prefix.clone();
        let words = Mutex::new(Arc::new(config.profile.words.clone()));
        Shared {
            config,
            out,
            phase: Mutex::new(Phase::AwaitingInitialize),
            inflight: Inflight::default(),
            tracker: TaskTracker::new(),
            log_level: LogLevel::default(),
            upstream_lost: CancellationToken::new(),
            closed: CancellationToken::new(),
            asks: Asks::new(&config_prefix),
            elicitation_ids: AtomicU64::new(1),
            batches: std::sync::atomic::AtomicBool::new(false),
            words,
        }
    }

    pub(crate) fn phase(&self) -> Phase {
        lock(&self.phase).clone()
    }

    pub(crate) fn set_phase(&self, phase: Phase) {
        *lock(&self.phase) = phase;
    }

    /// Moves from one state to another only when the state is still the
    /// expected one; returns whether it moved.
    pub(crate) fn transition(&self, from: impl Fn(&Phase) -> bool, to: Phase) -> bool {
        let mut phase = lock(&self.phase);
        if !from(&phase) {
            return false;
        }
        *phase = to;
        true
    }

    /// Whether the negotiated revision has batches.
    pub(crate) fn set_batches(&self, batches: bool) {
        self.batches.store(batches, Ordering::Release);
    }

    /// Whether a line of the client may be a batch.
    pub(crate) fn takes_batches(&self) -> bool {
        self.batches.load(Ordering::Acquire)
    }

    /// The words of the client's messages.
    pub(crate) fn words(&self) -> Arc<Words> {
        lock(&self.words).clone()
    }

    /// The client that `initialize` names, whose words the messages use.
    pub(crate) fn set_client(&self, client_name: &str) {
        let words = self.config.profile.words_for(client_name, self.config.by_url);
        *lock(&self.words) = Arc::new(words);
    }

    /// Step 7 of the first initialize: the state becomes `ready` with the
    /// upstream client.
    pub(crate) fn set_ready(&self, ready: Ready) {
        self.set_phase(Phase::Ready(Arc::new(ready), Listen::NotOpened));
    }

    /// `notifications/initialized` came in `ready`: from then on a later
    /// sign-in can ask the client with a URL elicitation.
    pub(crate) fn initialized(&self) -> bool {
        match &*lock(&self.phase) {
            Phase::Ready(_, listen) | Phase::Closing(_, Some(Kept { listen, .. })) => {
                !matches!(listen, Listen::NotOpened)
            }
            _ => false,
        }
    }

    /// The first `notifications/initialized` in `ready`: the listen stream
    /// becomes what `open` makes of it. Later ones change nothing.
    pub(crate) fn open_listen(&self, open: impl FnOnce(&Ready) -> Listen) {
        if let Phase::Ready(ready, listen @ Listen::NotOpened) = &mut *lock(&self.phase) {
            *listen = open(ready);
        }
    }

    /// The listen stream, when it is open in `ready`.
    pub(crate) fn listener(&self) -> Option<Listener> {
        match &*lock(&self.phase) {
            Phase::Ready(_, Listen::Open(listener)) => Some(listener.clone()),
            _ => None,
        }
    }

    /// The upstream server was lost in `ready`: the state becomes
    /// `closing` with the error of the loss; false in another state.
    pub(crate) fn lose(&self, error: BridgeError) -> bool {
        let mut phase = lock(&self.phase);
        let Phase::Ready(ready, listen) = &*phase else { return false };
        let kept = Kept { client: ready.client.clone(), listen: listen.clone() };
        *phase = Phase::Closing(Some(error), Some(kept));
        true
    }

    /// The end of the connection: the state becomes `closing` (after the
    /// end of the input without an error), and what `ready` had comes
    /// out, once, for the end to close.
    pub(crate) fn end(&self, input_ended: bool) -> Option<Kept> {
        let mut phase = lock(&self.phase);
        let (lost, kept) = match std::mem::replace(&mut *phase, Phase::Closing(None, None)) {
            Phase::Ready(ready, listen) => (None, Some(Kept { client: ready.client.clone(), listen })),
            Phase::Closing(lost, kept) => (lost.filter(|_| !input_ended), kept),
            Phase::AwaitingInitialize | Phase::Initializing => (None, None),
        };
        *phase = Phase::Closing(lost, None);
        kept
    }

    /// Writes the result response of a request.
    pub(crate) async fn reply(&self, id: &Id, result: Value) {
        self.out.respond(id, jsonrpc::result_line(id, &result)).await;
    }

    /// Writes the error response of a request (`None`: the id is unknown).
    pub(crate) async fn reply_error(&self, id: Option<&Id>, error: &BridgeError) {
        let error = error.to_value_for(&self.words());
        self.reply_error_value(id, error).await;
    }

    /// Writes an error response with this error object (an upstream
    /// error, or one of the client's own for an input request).
    pub(crate) async fn reply_error_value(&self, id: Option<&Id>, error: Value) {
        let line = jsonrpc::json_line(&jsonrpc::error_response(id, error));
        match id {
            Some(id) => self.out.respond(id, line).await,
            None => self.out.send_line(line).await,
        }
    }

    /// Logs a note of the result rules, and gives it to the note sink.
    pub(crate) fn report(&self, method: &str, note: &Note) {
        log_note(note);
        self.sink(method, note);
    }

    /// Gives a note of the result rules to the note sink, if there is one.
    /// Before the response goes out: a reader of the sink (`check`) that
    /// has the response then has its notes too.
    pub(crate) fn sink(&self, method: &str, note: &Note) {
        if let Some(sink) = &self.config.notes {
            (sink.0)(method, note);
        }
    }
}

/// Logs a note of the result rules; the span of the request names the
/// method and the id.
pub(crate) fn log_note(note: &Note) {
    match note.level {
        Level::Info => tracing::info!("{note}"),
        Level::Warn => tracing::warn!("{note}"),
    }
}
