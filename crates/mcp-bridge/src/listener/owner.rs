//! The one task that holds the listen streams (behaviour spec, "New
//! streams after a loss", "Steps of a change of the subscriptions").
//!
//! Each stream runs in its own task and reports its end here; its events
//! go to the [`Board`] inline in the upstream reader, which reports each
//! activation here. The owner alone opens and stops streams.

use super::board::{Board, StreamKey};
use super::events::{self, Lists};
use super::policy::{self, After, Backoff};
use super::setup::{Change, ListenTimings, Setup};
use crate::gate::text;
use crate::jsonrpc::format_limit;
use crate::jsonrpc::reason;
use crate::jsonrpc::{self, BridgeError, Cause};
use crate::output::Output;
use crate::profile::Words;
use crate::sync::lock;
use crate::upstream::{Client, Listen, SignIn, StreamEnd, StreamSink, StreamStop, LISTEN_METHOD};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::mpsc;
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// What the streams report to the owner.
enum Signal {
    /// The stream became the active one.
    Activated(StreamKey),
    /// The stream ended.
    Ended(StreamKey, StreamEnd),
}

/// What the owner does next.
enum Next {
    Shutdown,
    Signal(Signal),
    ChangeCanceled,
    Change(Change),
    Reopen,
}

pub(crate) struct Owner {
    board: Arc<Mutex<Board>>,
    client: Client,
    sign_in: Option<SignIn>,
    out: Output,
    timings: ListenTimings,
    /// The client's words, for the messages of errors.
    words: Arc<Words>,
    changes: mpsc::Receiver<Change>,
    shutdown: CancellationToken,
    /// Unbounded on purpose, and bounded all the same: `Activated` is sent
    /// inline in the upstream reader, which must never wait, and each
    /// stream sends at most one `Activated` and one `Ended`, while at most
    /// three streams live at once (the active one, the stream of a change,
    /// and the old one being stopped). So the queue never holds more than
    /// six signals, and a bounded channel could only add a failure mode.
    signals: mpsc::UnboundedSender<Signal>,
    incoming: mpsc::UnboundedReceiver<Signal>,
    /// The streams that run, oldest first.
    stops: BTreeMap<StreamKey, StreamStop>,
    tasks: TaskTracker,
    next_key: StreamKey,
    backoff: Backoff,
    /// The wait before a new stream after a loss.
    reopen: Option<Pin<Box<Sleep>>>,
    /// The wait ended during a change: open a stream if the change fails.
    reopen_due: bool,
    /// The stream was refused with 401 or 403: it opens again after the
    /// next sign-in of another request, never after a timer.
    reopen_after_sign_in: bool,
    /// The change in progress: its stream and the token of its request.
    change: Option<(StreamKey, CancellationToken)>,
}

impl Owner {
    pub(crate) fn new(setup: Setup, changes: mpsc::Receiver<Change>, shutdown: CancellationToken) -> Owner {
        let (signals, incoming) = mpsc::unbounded_channel();
        let timings = setup.timings;
        Owner {
            board: Arc::new(Mutex::new(Board::new(Lists::declared(&setup.capabilities)))),
            client: setup.client,
            sign_in: setup.sign_in,
            out: setup.out,
            timings,
            words: setup.words,
            changes,
            shutdown,
            signals,
            incoming,
            stops: BTreeMap::new(),
            tasks: TaskTracker::new(),
            next_key: 1,
            backoff: Backoff::new(timings.backoff, timings.max_backoff),
            reopen: None,
            reopen_due: false,
            reopen_after_sign_in: false,
            change: None,
        }
    }

    pub(crate) async fn run(mut self) {
        self.open(Vec::new(), None);
        loop {
            match self.next_step().await {
                Next::Shutdown => break,
                Next::Signal(Signal::Activated(key)) => self.activated(key),
                Next::Signal(Signal::Ended(key, end)) => self.ended(key, end).await,
                Next::ChangeCanceled => self.abandon_change(),
                Next::Change(change) => self.change(change).await,
                Next::Reopen => self.reopen_now(),
            }
        }
        // The end of the input: cancel each stream and wait for its task.
        for stop in self.stops.values() {
            stop.stop(reason::INPUT_ENDED);
        }
        self.tasks.close();
        self.tasks.wait().await;
    }

    /// Waits for the next thing to do. A new change waits while one is in
    /// progress.
    async fn next_step(&mut self) -> Next {
        let change = &self.change;
        let reopen = &mut self.reopen;
        let change_canceled = async {
            match change {
                Some((_, token)) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let sign_in = self.sign_in.as_ref().filter(|_| self.reopen_after_sign_in);
        let reopen = async {
            match (reopen.as_mut(), sign_in) {
                (Some(sleep), _) => sleep.await,
                (None, Some(sign_in)) => sign_in.completed().await,
                (None, None) => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            _ = self.shutdown.cancelled() => Next::Shutdown,
            Some(signal) = self.incoming.recv() => Next::Signal(signal),
            _ = change_canceled => Next::ChangeCanceled,
            Some(change) = self.changes.recv(), if change.is_none() => Next::Change(change),
            _ = reopen => Next::Reopen,
        }
    }

    /// Opens a stream with `uris`, for a change or not, and returns its key.
    fn open(&mut self, uris: Vec<String>, change: Option<Change>) -> StreamKey {
        let key = self.next_key;
        self.next_key += 1;
        let lists = {
            let mut board = lock(&self.board);
            board.open(key, uris.clone(), change);
            board.lists()
        };
        let stop = StreamStop::default();
        self.stops.insert(key, stop.clone());
        let notifications = events::filter(lists, &uris);
        tracing::debug!(stream = key, %notifications, "opening a listen stream");
        let sink = self.sink(key);
        let client = self.client.clone();
        let signals = self.signals.clone();
        let ack_timeout = self.timings.ack_timeout;
        self.tasks.spawn(async move {
            let end = policy::retry_lost(|| {
                client.listen(Listen {
                    notifications: notifications.clone(),
                    relayed: None,
                    authorization: None,
                    sink: sink.clone(),
                    ack_timeout,
                    stop: &stop,
                })
            })
            .await;
            let _ = signals.send(Signal::Ended(key, end));
        });
        key
    }

    /// The sink of stream `key`: each event is applied to the board inline,
    /// and its messages go out before the reader reads the next line.
    fn sink(&self, key: StreamKey) -> StreamSink {
        let board = self.board.clone();
        let out = self.out.clone();
        let signals = self.signals.clone();
        Arc::new(move |event| {
            let effect = lock(&board).on_event(key, event, Instant::now());
            if effect.activated {
                let _ = signals.send(Signal::Activated(key));
            }
            let out = out.clone();
            Box::pin(async move {
                if let Some(id) = &effect.answered {
                    out.respond(id, jsonrpc::result_line(id, &json!({}))).await;
                }
                for message in &effect.messages {
                    out.send(message).await;
                }
            })
        })
    }

    /// A stream became active: the older streams stop, and a change that
    /// it carried is complete.
    fn activated(&mut self, key: StreamKey) {
        for (_, stop) in self.stops.range(..key) {
            stop.stop(reason::SUBSCRIPTIONS_CHANGED);
        }
        if self.change.as_ref().is_some_and(|(k, _)| *k == key) {
            self.change = None;
        }
        self.reopen = None;
        self.reopen_due = false;
    }

    async fn ended(&mut self, key: StreamKey, end: StreamEnd) {
        self.stops.remove(&key);
        let ended = lock(&self.board).on_end(key, matches!(end, StreamEnd::Canceled));
        if let Some(change) = ended.change {
            // The change failed before its acknowledgment: the old stream
            // and the old URIs stay.
            if self.change.as_ref().is_some_and(|(k, _)| *k == key) {
                self.change = None;
            }
            match change_error(&end, self.timings, &self.words) {
                Some(error) if (change.finish)() => {
                    tracing::warn!(uri = %text::shown(&change.uri, text::NAME), "a change of the subscriptions failed");
                    let response = jsonrpc::json_line(&jsonrpc::error_response(Some(&change.id), error));
                    self.out.respond(&change.id, response).await;
                }
                _ => {}
            }
            if std::mem::take(&mut self.reopen_due) {
                self.reopen_now();
            }
            return;
        }
        let current = lock(&self.board).active().is_none() && self.stops.keys().all(|k| *k < key);
        if matches!(end, StreamEnd::Canceled) || !(ended.was_active || current) {
            return;
        }
        match policy::after(&end) {
            After::ReopenAfterWait => {
                if ended.acked_at.is_some_and(|at| at.elapsed() >= self.timings.stable) {
                    self.backoff.reset();
                }
                let wait = self.backoff.next_wait();
                tracing::warn!(end = describe(&end), wait = %format_limit(wait), "the listen stream ended; opening a new one after a wait");
                self.reopen = Some(Box::pin(tokio::time::sleep(wait)));
            }
            After::NoReopen => {
                tracing::warn!(
                    end = describe(&end),
                    "the listen stream ended; only a change of the subscriptions opens a new one"
                );
            }
            After::ReopenAfterSignIn => {
                tracing::warn!(
                    end = describe(&end),
                    "the listen stream needs a sign-in; it opens again after the next one"
                );
                self.reopen_after_sign_in = true;
            }
        }
    }

    /// The wait after a loss is over: a new stream with the URIs of the
    /// client, unless a change is under way.
    fn reopen_now(&mut self) {
        self.reopen = None;
        self.reopen_after_sign_in = false;
        if self.change.is_some() {
            self.reopen_due = true;
            return;
        }
        let uris = {
            let board = lock(&self.board);
            if board.active().is_some() {
                return;
            }
            board.uris().to_vec()
        };
        self.open(uris, None);
    }

    /// The five steps of a change of the subscriptions.
    async fn change(&mut self, change: Change) {
        let (mut uris, lists) = {
            let board = lock(&self.board);
            (board.uris().to_vec(), board.lists())
        };
        let held = uris.contains(&change.uri);
        if change.subscribe == held {
            // A URI that the bridge has, or a removal of one it does not.
            return self.respond(change).await;
        }
        if change.subscribe {
            uris.push(change.uri.clone());
        } else {
            uris.retain(|uri| *uri != change.uri);
        }
        if uris.is_empty() && !lists.any() {
            // The last unsubscribe, and the client knows no list: the
            // stream stops, and no new one opens.
            lock(&self.board).clear();
            for stop in self.stops.values() {
                stop.stop(reason::SUBSCRIPTIONS_CHANGED);
            }
            self.reopen = None;
            self.reopen_due = false;
            return self.respond(change).await;
        }
        let token = change.cancel.clone();
        let key = self.open(uris, Some(change));
        self.change = Some((key, token));
    }

    /// The client canceled the change in progress: its stream stops, and
    /// the old one stays.
    fn abandon_change(&mut self) {
        if let Some((key, _)) = self.change.take() {
            if let Some(stop) = self.stops.get(&key) {
                stop.stop(reason::CLIENT_CANCELED);
            }
        }
    }

    async fn respond(&self, change: Change) {
        if (change.finish)() {
            self.out.respond(&change.id, jsonrpc::result_line(&change.id, &json!({}))).await;
        }
    }
}

/// The error of a change whose stream ended before its acknowledgment;
/// `None` when the change was canceled.
fn change_error(end: &StreamEnd, timings: ListenTimings, words: &Words) -> Option<Value> {
    let error = match end {
        StreamEnd::Canceled => return None,
        StreamEnd::Error(error) => return Some(jsonrpc::upstream_error_for_client(error.clone())),
        StreamEnd::Result => {
            BridgeError::new(Cause::InvalidResponse).with_detail("the stream ended before its acknowledgment")
        }
        StreamEnd::Timeout => BridgeError::no_response(Cause::Timeout, Some(LISTEN_METHOD), timings.ack_timeout),
        StreamEnd::Lost(error) | StreamEnd::UpstreamEnded(error) | StreamEnd::Failed(error) => error.clone(),
    };
    Some(error.to_value_for(words))
}

fn describe(end: &StreamEnd) -> &'static str {
    match end {
        StreamEnd::Canceled => "canceled",
        StreamEnd::Result => "result",
        StreamEnd::Error(_) => "upstream error",
        StreamEnd::Timeout => "no acknowledgment in time",
        StreamEnd::Lost(_) => "lost",
        StreamEnd::UpstreamEnded(_) => "the upstream server ended",
        StreamEnd::Failed(err) => err.cause.name(),
    }
}
