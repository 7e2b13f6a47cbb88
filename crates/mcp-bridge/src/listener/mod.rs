//! The listen stream of the bridge (behaviour spec, "Listen stream (M3)").
//!
//! Revision 2025-11-25 sends list changes on the connection and subscribes
//! to resources with `resources/subscribe`; revision 2026-07-28 sends them
//! on `subscriptions/listen` streams that the client opens. The bridge
//! keeps one stream open for its client:
//!
//! - [`Listener`] is the handle of the front end: it queues the changes
//!   of the subscriptions and stops everything at the end.
//! - `owner` is the one task that holds the streams: it opens them, does
//!   one change at a time, and opens a new stream after a loss.
//! - `board` is the state that the owner and the readers of the streams
//!   share; events are applied to it inline in the upstream reader.
//! - `events` (what the client gets) and `policy` (the table of ends and
//!   the back-off) are pure.

pub(crate) mod board;
pub(crate) mod events;
mod owner;
pub(crate) mod policy;

use crate::jsonrpc::Id;
use crate::output::Output;
use crate::upstream::{Client, SignIn};
use events::Lists;
use serde_json::{Map, Value};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Changes of the subscriptions waiting for the owner.
const CHANGE_QUEUE: usize = 256;

/// The time values of the listen streams. Each is a field so that process
/// tests can run the table of ends in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenTimings {
    /// The first wait before a new stream (`listen_backoff`, 0.5 s).
    pub backoff: Duration,
    /// The longest wait (`listen_max_backoff`, 30 s).
    pub max_backoff: Duration,
    /// A stream that lives this long after its acknowledgment resets the
    /// wait (10 s).
    pub stable: Duration,
    /// The time limit of the acknowledgment (10 s).
    pub ack_timeout: Duration,
}

impl Default for ListenTimings {
    fn default() -> Self {
        ListenTimings {
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            stable: Duration::from_secs(10),
            ack_timeout: Duration::from_secs(10),
        }
    }
}

/// Takes the request of a change out of the table of requests in flight;
/// `false` when the client canceled it, or the input ended: then it gets
/// no response.
pub(crate) type Finish = Box<dyn FnOnce() -> bool + Send>;

/// One `resources/subscribe` or `resources/unsubscribe` of the client.
pub(crate) struct Change {
    pub uri: String,
    /// `true` to add the URI, `false` to remove it.
    pub subscribe: bool,
    /// The id of the request, for its response.
    pub id: Id,
    /// Fires when the client cancels the request.
    pub cancel: CancellationToken,
    pub finish: Finish,
}

/// What the listener needs from the front end.
pub(crate) struct Setup {
    pub client: Client,
    /// A stream refused for its sign-in opens again after the next one.
    pub sign_in: Option<SignIn>,
    pub out: Output,
    /// The capabilities of the initialize result.
    pub capabilities: Map<String, Value>,
    pub timings: ListenTimings,
}

/// Whether the initialize result asks for a listen stream: a declared
/// list change or `resources.subscribe`.
pub(crate) fn wanted(capabilities: &Map<String, Value>) -> bool {
    Lists::declared(capabilities).any() || events::declares_subscribe(capabilities)
}

/// The handle of the owner task.
pub(crate) struct Listener {
    changes: mpsc::Sender<Change>,
    shutdown: CancellationToken,
}

impl Listener {
    /// Starts the owner task on `tracker`; it opens the first stream at
    /// once.
    pub(crate) fn start(setup: Setup, tracker: &TaskTracker) -> Listener {
        let (changes, queue) = mpsc::channel(CHANGE_QUEUE);
        let shutdown = CancellationToken::new();
        let owner = owner::Owner::new(setup, queue, shutdown.clone());
        tracker.spawn(owner.run());
        Listener { changes, shutdown }
    }

    /// Queues a change; the owner does one at a time, in order. Gives the
    /// change back when the queue is full or the owner has stopped.
    pub(crate) fn change(&self, change: Change) -> Result<(), Box<Change>> {
        self.changes.try_send(change).map_err(|err| Box::new(err.into_inner()))
    }

    /// The end of the input: the owner cancels each stream, waits for
    /// their tasks, and ends.
    pub(crate) fn stop(&self) {
        self.shutdown.cancel();
    }
}
