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
//! - `setup` is what the owner starts with (its timings) and is told (the
//!   changes of the subscriptions).
//! - `events` (what the client gets) and `policy` (the table of ends and
//!   the back-off) are pure.

pub(crate) mod board;
pub(crate) mod events;
mod owner;
pub(crate) mod policy;
mod setup;

use events::Lists;
use serde_json::{Map, Value};
pub use setup::ListenTimings;
pub(crate) use setup::{Change, Setup};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Changes of the subscriptions waiting for the owner.
const CHANGE_QUEUE: usize = 256;

/// Whether the initialize result asks for a listen stream: a declared
/// list change or `resources.subscribe`.
pub(crate) fn wanted(capabilities: &Map<String, Value>) -> bool {
    Lists::declared(capabilities).any() || events::declares_subscribe(capabilities)
}

/// The handle of the owner task.
#[derive(Clone)]
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
