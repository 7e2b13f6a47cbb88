//! Properties of the listen stream's events (behaviour spec, "Listen
//! stream (M3)": "The events for the client", "Events after a gap"): what
//! the client gets of one event, and the board that decides which stream
//! speaks to it.

use super::{ensure, text, Checked};
use crate::jsonrpc::Id;
use crate::listener::board::Board;
use crate::listener::events::{for_client, gap_events, Lists, EVENT_METHODS};
use crate::listener::Change;
use crate::props::bytes::Bytes;
use crate::upstream::{StreamEvent, SUBSCRIPTION_ID_KEY};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// What the client gets of an event: nothing for another method or an
/// update without a string `uri`; else the notification of the method
/// with every member of the params in its place, but `_meta` without the
/// subscription id (gone when then empty, or when it is not an object).
pub(crate) fn event(method: &str, params: &Value) -> Checked {
    let got = for_client(method, params.clone());
    let members = params.as_object().cloned().unwrap_or_default();
    let updated = method == EVENT_METHODS[3];
    if !EVENT_METHODS.contains(&method) || (updated && !members.get("uri").is_some_and(Value::is_string)) {
        ensure!(got.is_none(), "{method} {params} reached the client: {got:?}");
        return Ok(());
    }
    let mut expected = Map::new();
    for (key, value) in members {
        match (key.as_str(), value) {
            ("_meta", Value::Object(mut meta)) => {
                meta.shift_remove(SUBSCRIPTION_ID_KEY);
                if !meta.is_empty() {
                    expected.insert(key, Value::Object(meta));
                }
            }
            ("_meta", _) => {}
            (_, value) => drop(expected.insert(key, value)),
        }
    }
    let expected = json!({"jsonrpc": "2.0", "method": method, "params": expected});
    ensure!(got.as_ref().map(text) == Some(text(&expected)), "{method} {params} gave {got:?}, not {expected}");
    Ok(())
}

const METHODS: [&str; 7] = [
    EVENT_METHODS[0],
    EVENT_METHODS[1],
    EVENT_METHODS[2],
    EVENT_METHODS[3],
    "notifications/message",
    "notifications/subscriptions/acknowledged",
    "notifications/cancelled",
];

/// The glue of the fuzz target `listen_events`: the first byte picks the
/// method of an event (its low three bits) and whether the rest is its
/// params (bit 3) or a sequence of steps for the board.
pub fn events_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let pick = bytes.byte();
    if pick & 8 == 0 {
        let method = METHODS[usize::from(pick & 7) % METHODS.len()];
        let params = bytes.json().unwrap_or(Value::Null);
        return event(method, &params);
    }
    let lists = Lists { tools: pick & 16 != 0, prompts: pick & 32 != 0, resources: pick & 64 != 0 };
    board(lists, bytes.rest())
}

/// A change of the model: its request's id, and whether the client still
/// wants its response.
struct ModelChange {
    id: u64,
    wanted: bool,
    canceled: bool,
}

/// One stream as the model knows it.
struct Stream {
    uris: Vec<String>,
    acks: u32,
    change: Option<ModelChange>,
}

const URIS: [&str; 3] = ["file:///a", "file:///b", "mem://c"];

/// The board over a sequence of steps (a stream opens, is acknowledged,
/// sends an event, ends; the last unsubscribe clears): only the active
/// stream's events reach the client, each as `for_client` gives it; the
/// first acknowledgment of a stream makes it active unless its change was
/// canceled or a newer stream is active, and then gives the response of
/// its change (when still wanted), then the events after a gap when the
/// client can have missed some (before the first stream, after the loss of
/// the active one); a later acknowledgment of the active stream gives
/// those events again; an older stream never takes the place of a newer.
pub(crate) fn board(lists: Lists, steps: &[u8]) -> Checked {
    let mut board = Board::new(lists);
    let now = Instant::now();
    let mut streams: HashMap<u64, Stream> = HashMap::new();
    let (mut next, mut active, mut gap, mut uris): (u64, Option<u64>, bool, Vec<String>) = (1, None, true, Vec::new());
    for &step in steps {
        let key = if next > 1 { 1 + u64::from(step >> 3) % (next - 1) } else { 0 };
        match step & 7 {
            0 | 1 => {
                let stream_uris: Vec<String> =
                    URIS.iter().take(usize::from(step >> 3) % 4).map(|u| u.to_string()).collect();
                let (change, model) = if step & 1 == 1 {
                    let (wanted, canceled) = (step & 16 != 0, step & 32 != 0);
                    let cancel = CancellationToken::new();
                    if canceled {
                        cancel.cancel();
                    }
                    let change = Change {
                        uri: URIS[0].into(),
                        subscribe: true,
                        id: Id::number(next),
                        cancel,
                        finish: Box::new(move || wanted),
                    };
                    (Some(change), Some(ModelChange { id: next, wanted, canceled }))
                } else {
                    (None, None)
                };
                board.open(next, stream_uris.clone(), change);
                streams.insert(next, Stream { uris: stream_uris, acks: 0, change: model });
                next += 1;
            }
            2 | 3 => {
                let Some(stream) = streams.get_mut(&key) else { continue };
                let ack = json!({"_meta": {SUBSCRIPTION_ID_KEY: key}});
                let effect = board.on_event(key, StreamEvent::Acknowledged(ack), now);
                stream.acks += 1;
                let canceled = stream.change.as_ref().is_some_and(|c| c.canceled);
                let activates = stream.acks == 1 && !canceled && active.is_none_or(|a| a <= key);
                let mut expected = Vec::new();
                let mut answered = None;
                if activates {
                    if let Some(change) = stream.change.take().filter(|c| c.wanted) {
                        answered = Some(Id::number(change.id));
                    }
                    uris.clone_from(&stream.uris);
                    if std::mem::take(&mut gap) {
                        expected.extend(gap_events(lists, &uris));
                    }
                    active = Some(key);
                } else if stream.acks > 1 && active == Some(key) {
                    expected.extend(gap_events(lists, &uris));
                }
                ensure!(effect.activated == activates, "step {step}: stream {key} activated: {}", effect.activated);
                ensure!(effect.answered == answered, "step {step}: stream {key} answered {:?}", effect.answered);
                ensure!(
                    effect.messages.iter().map(text).eq(expected.iter().map(text)),
                    "step {step}: the acknowledgment of {key} gave {:?}, not {expected:?}",
                    effect.messages
                );
                ensure!(board.active() == active && board.uris() == uris.as_slice(), "step {step}: the board");
            }
            4 | 5 => {
                let method = METHODS[usize::from(step >> 3) % METHODS.len()];
                let params = json!({"uri": URIS[usize::from(step >> 5) % 3], "_meta": {SUBSCRIPTION_ID_KEY: key}});
                let event = StreamEvent::Notification { method: method.into(), params: params.clone() };
                let effect = board.on_event(key, event, now);
                let expected: Vec<Value> =
                    if active == Some(key) { for_client(method, params).into_iter().collect() } else { Vec::new() };
                ensure!(
                    effect.messages == expected && !effect.activated,
                    "step {step}: an event of {key} (active {active:?}) gave {:?}",
                    effect.messages
                );
            }
            6 => {
                let canceled = step & 8 != 0;
                let Some(stream) = streams.remove(&key) else { continue };
                let ended = board.on_end(key, canceled);
                let was_active = active == Some(key);
                ensure!(
                    ended.was_active == was_active,
                    "step {step}: the end of {key}: was active {}",
                    ended.was_active
                );
                ensure!(
                    ended.change.map(|c| c.id) == stream.change.map(|c| Id::number(c.id)),
                    "step {step}: the change of {key} that did not complete"
                );
                if was_active {
                    active = None;
                    gap |= !canceled;
                }
            }
            _ => {
                board.clear();
                (active, gap) = (None, false);
                uris.clear();
            }
        }
    }
    Ok(())
}
