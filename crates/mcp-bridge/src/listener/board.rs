//! The state of the listen streams that the owner task and the readers of
//! the streams share: the URIs, the active stream, the gap, and each open
//! stream. The reader of the upstream server applies each event here
//! inline, under the lock, so that activation, the response to a change
//! and the events after a gap come out in the order of the wire.
//!
//! No I/O: [`Board::on_event`] returns the messages for the client.

use super::events::{self, Lists};
use super::setup::Change;
use crate::gate::text;
use crate::jsonrpc::Id;
use crate::upstream::StreamEvent;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Instant;

/// The key of a stream of the owner, in the order the streams opened.
pub(crate) type StreamKey = u64;

/// One open stream.
struct Stream {
    /// The URIs of its filter.
    uris: Vec<String>,
    acks: u32,
    /// The time of its last acknowledgment.
    acked_at: Option<Instant>,
    /// The change of the subscriptions that the stream carries out, until
    /// its first acknowledgment.
    change: Option<Change>,
}

/// What an event of a stream gives.
#[derive(Default)]
pub(crate) struct Effect {
    /// The change that the event completed: its response goes first, on
    /// the change's own stream (a POST's), never on the session's.
    pub answered: Option<Id>,
    /// The messages for the client, in order.
    pub messages: Vec<Value>,
    /// The event made the stream active.
    pub activated: bool,
}

/// What the owner learns at the end of a stream.
pub(crate) struct Ended {
    /// The stream was the active one.
    pub was_active: bool,
    /// The time of its last acknowledgment, if any.
    pub acked_at: Option<Instant>,
    /// The change it carried and did not complete.
    pub change: Option<Change>,
}

pub(crate) struct Board {
    lists: Lists,
    /// The URIs of the client: those of the active stream.
    uris: Vec<String>,
    active: Option<StreamKey>,
    /// The client can have missed events: before the first stream, and
    /// after the loss of the active stream.
    gap: bool,
    streams: HashMap<StreamKey, Stream>,
}

impl Board {
    pub(crate) fn new(lists: Lists) -> Board {
        Board { lists, uris: Vec::new(), active: None, gap: true, streams: HashMap::new() }
    }

    pub(crate) fn lists(&self) -> Lists {
        self.lists
    }

    pub(crate) fn uris(&self) -> &[String] {
        &self.uris
    }

    pub(crate) fn active(&self) -> Option<StreamKey> {
        self.active
    }

    /// A stream that is about to open.
    pub(crate) fn open(&mut self, key: StreamKey, uris: Vec<String>, change: Option<Change>) {
        self.streams.insert(key, Stream { uris, acks: 0, acked_at: None, change });
    }

    /// The last unsubscribe without a declared list: no URI, no active
    /// stream, and nothing missed from now on.
    pub(crate) fn clear(&mut self) {
        self.uris.clear();
        self.active = None;
        self.gap = false;
    }

    /// Applies one event of the stream `key`.
    pub(crate) fn on_event(&mut self, key: StreamKey, event: StreamEvent, now: Instant) -> Effect {
        match event {
            StreamEvent::Acknowledged(params) => self.on_ack(key, &params, now),
            StreamEvent::Notification { method, params } if self.active == Some(key) => {
                let messages: Vec<Value> = events::for_client(&method, params).into_iter().collect();
                if messages.is_empty() {
                    tracing::debug!(method = %text::shown(&method, text::NAME), "dropped an event of the listen stream");
                }
                Effect { answered: None, messages, activated: false }
            }
            StreamEvent::Notification { method, .. } => {
                tracing::debug!(method = %text::shown(&method, text::NAME), stream = key, "dropped an event of a stream that is not active");
                Effect::default()
            }
        }
    }

    fn on_ack(&mut self, key: StreamKey, params: &Value, now: Instant) -> Effect {
        let Some(stream) = self.streams.get_mut(&key) else {
            return Effect::default();
        };
        stream.acks += 1;
        let subscription = params.get("_meta").and_then(|m| m.get(crate::upstream::SUBSCRIPTION_ID_KEY));
        tracing::debug!(stream = key, acks = stream.acks, ?subscription, "the upstream server acknowledged a stream");
        if stream.acks > 1 {
            // A later acknowledgment of the same stream: it was lost and
            // opened again, and the events in between are gone.
            if self.active != Some(key) {
                return Effect::default();
            }
            stream.acked_at = Some(now);
            return Effect { answered: None, messages: events::gap_events(self.lists, &self.uris), activated: false };
        }
        if stream.change.as_ref().is_some_and(|c| c.cancel.is_cancelled()) {
            // The client canceled the change: the owner stops this stream.
            return Effect::default();
        }
        if self.active.is_some_and(|active| active > key) {
            // A newer stream is already active.
            return Effect::default();
        }
        stream.acked_at = Some(now);
        self.active = Some(key);
        self.uris = stream.uris.clone();
        let mut messages = Vec::new();
        let answered = stream.change.take().and_then(|change| (change.finish)().then_some(change.id));
        if std::mem::take(&mut self.gap) {
            messages.extend(events::gap_events(self.lists, &self.uris));
        }
        Effect { answered, messages, activated: true }
    }

    /// Removes a stream that ended. The loss of the active stream by any
    /// end but a cancellation of the owner opens a gap.
    pub(crate) fn on_end(&mut self, key: StreamKey, canceled: bool) -> Ended {
        let stream = self.streams.remove(&key);
        let was_active = self.active == Some(key);
        if was_active {
            self.active = None;
            if !canceled {
                self.gap = true;
            }
        }
        let (acked_at, change) = stream.map(|s| (s.acked_at, s.change)).unwrap_or((None, None));
        Ended { was_active, acked_at, change }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    const ALL: Lists = Lists { tools: true, prompts: false, resources: false };

    fn ack() -> StreamEvent {
        StreamEvent::Acknowledged(json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 1}}))
    }

    fn event(method: &str, params: Value) -> StreamEvent {
        StreamEvent::Notification { method: method.into(), params }
    }

    /// The response of a completed change first, then the messages.
    fn methods(effect: &Effect) -> Vec<String> {
        let answered = effect.answered.iter().map(|id| format!("response {}", id.as_value()));
        answered
            .chain(effect.messages.iter().map(|m| match (m.get("method"), m.get("id")) {
                (Some(method), _) => format!(
                    "{}{}",
                    method.as_str().unwrap_or(""),
                    m["params"].get("uri").map(|u| format!(" {u}")).unwrap_or_default()
                ),
                (None, Some(id)) => format!("response {id}"),
                _ => "?".into(),
            }))
            .collect()
    }

    fn change(id: u64, uri: &str, still_wanted: bool) -> (Change, Arc<AtomicBool>) {
        let finished = Arc::new(AtomicBool::new(false));
        let flag = finished.clone();
        let change = Change {
            uri: uri.into(),
            subscribe: true,
            id: Id::number(id),
            cancel: CancellationToken::new(),
            finish: Box::new(move || {
                flag.store(true, Ordering::SeqCst);
                still_wanted
            }),
        };
        (change, finished)
    }

    #[test]
    fn the_first_acknowledgment_activates_and_gives_the_events_of_a_gap() {
        let mut board = Board::new(ALL);
        board.open(1, vec![], None);
        let now = Instant::now();
        assert!(methods(&board.on_event(1, event("notifications/tools/list_changed", json!({})), now)).is_empty());
        let first = board.on_event(1, ack(), now);
        assert!(first.activated);
        assert_eq!(methods(&first), ["notifications/tools/list_changed"]);
        let second = board.on_event(1, ack(), now);
        assert!(!second.activated);
        assert_eq!(
            methods(&second),
            ["notifications/tools/list_changed"],
            "a later acknowledgment of the active stream"
        );
    }

    #[test]
    fn a_change_responds_at_the_first_acknowledgment_before_any_update_without_gap_events() {
        let mut board = Board::new(ALL);
        let now = Instant::now();
        board.open(1, vec![], None);
        board.on_event(1, ack(), now);
        let (change, finished) = change(7, "file:///a", true);
        board.open(2, vec!["file:///a".into()], Some(change));
        let before = board.on_event(2, event("notifications/resources/updated", json!({"uri": "file:///a"})), now);
        assert!(before.messages.is_empty(), "no event before the acknowledgment");
        let old = board.on_event(1, event("notifications/tools/list_changed", json!({})), now);
        assert_eq!(methods(&old), ["notifications/tools/list_changed"], "the old stream is active until then");
        let acked = board.on_event(2, ack(), now);
        assert!(finished.load(Ordering::SeqCst));
        assert_eq!(methods(&acked), ["response 7"]);
        assert_eq!(board.uris(), ["file:///a"]);
        assert!(board.on_event(1, event("notifications/tools/list_changed", json!({})), now).messages.is_empty());
        let update = board.on_event(2, event("notifications/resources/updated", json!({"uri": "file:///a"})), now);
        assert_eq!(methods(&update), ["notifications/resources/updated \"file:///a\""]);
    }

    #[test]
    fn a_change_that_the_client_no_longer_wants_gets_no_response() {
        let mut board = Board::new(ALL);
        let (change, finished) = change(7, "file:///a", false);
        board.open(1, vec!["file:///a".into()], Some(change));
        let acked = board.on_event(1, ack(), Instant::now());
        assert!(finished.load(Ordering::SeqCst));
        assert_eq!(
            methods(&acked),
            ["notifications/tools/list_changed", "notifications/resources/updated \"file:///a\""]
        );
    }

    #[test]
    fn after_the_loss_of_the_active_stream_the_next_acknowledgment_gives_a_gap() {
        let mut board = Board::new(ALL);
        let now = Instant::now();
        board.open(1, vec![], None);
        board.on_event(1, ack(), now);
        let ended = board.on_end(1, false);
        assert!(ended.was_active);
        assert_eq!(board.active(), None);
        board.open(2, vec![], None);
        assert_eq!(methods(&board.on_event(2, ack(), now)), ["notifications/tools/list_changed"]);
        // A stream the owner canceled leaves no gap.
        board.on_end(2, true);
        board.open(3, vec![], None);
        assert!(board.on_event(3, ack(), now).messages.is_empty());
    }

    #[test]
    fn an_older_stream_never_takes_the_place_of_a_newer_active_one() {
        let mut board = Board::new(ALL);
        let now = Instant::now();
        board.open(1, vec![], None);
        board.open(2, vec![], None);
        assert!(board.on_event(2, ack(), now).activated);
        assert!(!board.on_event(1, ack(), now).activated);
        assert_eq!(board.active(), Some(2));
    }

    #[test]
    fn a_canceled_change_does_not_activate_its_stream() {
        let mut board = Board::new(ALL);
        let (change, finished) = change(7, "file:///a", true);
        change.cancel.cancel();
        board.open(1, vec!["file:///a".into()], Some(change));
        assert!(!board.on_event(1, ack(), Instant::now()).activated);
        assert!(!finished.load(Ordering::SeqCst));
        let ended = board.on_end(1, true);
        assert!(ended.change.is_some());
        assert!(board.uris().is_empty());
    }
}
