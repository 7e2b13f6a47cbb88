//! The rows of the message table about `notifications/initialized`,
//! `resources/subscribe` and `resources/unsubscribe` (behaviour spec,
//! "Listen stream (M3)"). The streams themselves live in [`crate::listener`].

use super::state::{ListenSlot, Phase, Ready, Shared};
use crate::jsonrpc::{BridgeError, Cause, Id};
use crate::listener::{self, events, Change, Listener, Setup};
use crate::sync::lock;
use serde_json::Value;
use std::sync::Arc;

/// `notifications/initialized` in `ready` opens the listen stream one
/// time, when the initialize result declares a list change or
/// `resources.subscribe`. In another state it does nothing.
pub(crate) fn initialized(shared: &Shared) {
    let Phase::Ready(ready) = shared.phase() else {
        tracing::debug!("ignored notifications/initialized outside ready");
        return;
    };
    shared.initialized.store(true, std::sync::atomic::Ordering::Release);
    let mut slot = lock(&shared.listener);
    if !matches!(*slot, ListenSlot::NotOpened) {
        return;
    }
    *slot = if listener::wanted(&ready.capabilities) {
        let setup = Setup {
            client: ready.client.clone(),
            sign_in: ready.sign_in.clone(),
            out: shared.out.clone(),
            capabilities: ready.capabilities.clone(),
            timings: shared.config.timeouts.listen,
            log_place: shared.config.profile.log_place.clone(),
        };
        tracing::debug!("opening the listen stream");
        ListenSlot::Open(Listener::start(setup, &shared.tracker))
    } else {
        ListenSlot::NotWanted
    };
}

/// `resources/subscribe` and `resources/unsubscribe` in `ready`: without
/// `resources.subscribe` in the initialize result, or without a listen
/// stream, `-32601`; params without a string `uri`, `-32602`; else the
/// change goes to the owner of the streams, which answers it.
pub(crate) async fn change(shared: &Arc<Shared>, ready: &Ready, id: Id, method: &str, params: Option<&Value>) {
    let declared = events::declares_subscribe(&ready.capabilities);
    let has_stream = matches!(*lock(&shared.listener), ListenSlot::Open(_));
    if !declared || !has_stream {
        return shared.reply_error(Some(&id), &Cause::MethodNotFound.into()).await;
    }
    let Some(uri) = params.and_then(|p| p.get("uri")).and_then(Value::as_str) else {
        return shared.reply_error(Some(&id), &Cause::InvalidParams.into()).await;
    };
    let (cancel, seq) = shared.inflight.insert(&id);
    let finisher = shared.clone();
    let finish_id = id.clone();
    let change = Change {
        uri: uri.to_owned(),
        subscribe: method == "resources/subscribe",
        id: id.clone(),
        cancel,
        finish: Box::new(move || finisher.inflight.finish(&finish_id, seq)),
    };
    let refused = match &*lock(&shared.listener) {
        ListenSlot::Open(listener) => listener.change(change).err(),
        _ => Some(Box::new(change)),
    };
    if let Some(change) = refused {
        // The queue of changes is full: the reader never waits.
        if (change.finish)() {
            shared.reply_error(Some(&id), &BridgeError::new(Cause::TooManyRequests)).await;
        }
    }
}
