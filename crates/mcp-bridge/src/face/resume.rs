//! The request streams of a session that a client may take up again (the
//! transport's "Resumability and Redelivery"): each has an id in the
//! session (`s<n>`) and ids on its events (`s<n>-<seq>`). When its
//! connection breaks before the response, the stream is parked; a GET
//! with `Last-Event-ID` takes it up again from the event after that id.
//!
//! A client may reconnect before the face has seen its old connection
//! break (no FIN yet, or not yet read): the GET then detaches the stream
//! from the old connection, which parks it at once, and waits for it at
//! most [`TAKE_OVER`].

use super::http::{self, Body, OnEnd, Parked, Resume};
use crate::output::Event;
use crate::sync::lock;
use bytes::Bytes;
use hyper::Response;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Notify};
use tokio_util::sync::CancellationToken;

/// The parked streams of a session, at most, and for how long each waits.
const PARKED: usize = 64;
const PARKED_FOR: Duration = Duration::from_secs(300);
/// How long a GET waits for a stream still on its old connection to park.
/// A connection that cannot be written to ends within the face's write
/// limit; a client that waits longer gets the session's stream.
const TAKE_OVER: Duration = Duration::from_secs(5);

/// The resumable streams of one session.
#[derive(Default)]
pub(crate) struct Streams {
    next: AtomicUsize,
    table: Mutex<HashMap<String, State>>,
    parked: Notify,
}

enum State {
    /// On a connection; the token detaches it from that connection.
    Live(CancellationToken),
    /// Its connection broke, since then.
    Parked(Parked, Instant),
}

impl Streams {
    /// A new stream of a request: its SSE response, `first` after its
    /// priming event when `primed` (SEP-1699, from 2025-11-25), then the
    /// events of `rx`, each with its id. `on_end` runs when it ended (and
    /// is kept while it waits to be taken up again).
    pub(crate) fn open(
        self: &Arc<Self>,
        (first, rx): (Vec<Bytes>, mpsc::Receiver<Event>),
        primed: bool,
        ended: CancellationToken,
        on_end: impl FnOnce() + Send + 'static,
    ) -> Response<Body> {
        let id = format!("s{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let mut first = first;
        if primed {
            first.insert(0, http::priming(&id));
        }
        let (ending, forget) = (Arc::downgrade(self), id.clone());
        let on_end: OnEnd = Box::new(move |_| {
            if let Some(streams) = ending.upgrade() {
                lock(&streams.table).remove(&forget);
            }
            on_end();
        });
        let parked = Parked { rx, stream: id, next: 1, sent: Default::default(), on_end: Some(on_end) };
        self.respond(first, parked, ended)
    }

    /// The stream that `last` (a `Last-Event-ID`) names, again, from the
    /// event after it; `None` when no stream of that id waits or comes
    /// free within [`TAKE_OVER`] (then the GET is the session's stream:
    /// no other stream's messages are replayed).
    pub(crate) async fn take_up(
        self: &Arc<Self>,
        last: Option<&str>,
        ended: CancellationToken,
    ) -> Option<Response<Body>> {
        let (stream, seq) = last?.rsplit_once('-')?;
        let seq: u64 = seq.parse().ok()?;
        let deadline = tokio::time::Instant::now() + TAKE_OVER;
        let parked = loop {
            let notified = self.parked.notified();
            match self.take(stream)? {
                Some(parked) => break parked,
                None => {
                    if tokio::time::timeout_at(deadline, notified).await.is_err() {
                        return None;
                    }
                }
            }
        };
        tracing::debug!("a client took up a request stream again");
        let first = parked.sent.iter().filter(|(n, _)| *n > seq).map(|(_, bytes)| bytes.clone()).collect();
        Some(self.respond(first, parked, ended))
    }

    /// Ends every stream's wait (the session ends).
    pub(crate) fn clear(&self) {
        lock(&self.table).clear();
    }

    /// The stream's SSE response, live under its id.
    fn respond(self: &Arc<Self>, first: Vec<Bytes>, parked: Parked, ended: CancellationToken) -> Response<Body> {
        let detach = CancellationToken::new();
        lock(&self.table).insert(parked.stream.clone(), State::Live(detach.clone()));
        let parking = Arc::downgrade(self);
        let resume = Resume {
            stream: parked.stream,
            next: parked.next,
            sent: parked.sent,
            detach,
            park: Box::new(move |parked| park(&parking, parked)),
        };
        let on_end = parked.on_end;
        http::sse_resumable(first, parked.rx, ended, (false, Some(resume)), move |rx| {
            if let Some(on_end) = on_end {
                on_end(rx);
            }
        })
    }

    /// `None` for an id the session does not know; `Some(None)` for a
    /// stream still on a connection, which is told to park.
    fn take(&self, stream: &str) -> Option<Option<Parked>> {
        let mut table = lock(&self.table);
        expire(&mut table);
        if let State::Live(detach) = table.get(stream)? {
            detach.cancel();
            return Some(None);
        }
        match table.remove(stream) {
            Some(State::Parked(parked, _)) => Some(Some(parked)),
            _ => None,
        }
    }
}

/// Parks a stream whose connection broke or was detached: at most
/// [`PARKED`] wait, for [`PARKED_FOR`]; the oldest goes, and its request's
/// messages with it.
fn park(streams: &Weak<Streams>, parked: Parked) {
    let Some(streams) = streams.upgrade() else { return };
    let mut table = lock(&streams.table);
    expire(&mut table);
    if count(&table) >= PARKED {
        let waiting = table.iter().filter_map(|(id, state)| match state {
            State::Parked(_, since) => Some((*since, id.clone())),
            State::Live(_) => None,
        });
        if let Some((_, oldest)) = waiting.min() {
            table.remove(&oldest);
        }
    }
    let id = parked.stream.clone();
    table.insert(id.clone(), State::Parked(parked, Instant::now()));
    drop(table);
    streams.parked.notify_waiters();
    // The wait ends on time even when no other stream parks or is taken
    // up: the stream holds its session open while it waits.
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        let streams = Arc::downgrade(&streams);
        runtime.spawn(async move {
            tokio::time::sleep(PARKED_FOR).await;
            if let Some(streams) = streams.upgrade() {
                let mut table = lock(&streams.table);
                if matches!(table.get(&id), Some(State::Parked(_, since)) if since.elapsed() >= PARKED_FOR) {
                    table.remove(&id);
                }
            }
        });
    }
}

fn count(table: &HashMap<String, State>) -> usize {
    table.values().filter(|state| matches!(state, State::Parked(..))).count()
}

fn expire(table: &mut HashMap<String, State>) {
    table.retain(|_, state| !matches!(state, State::Parked(_, since) if since.elapsed() >= PARKED_FOR));
}
