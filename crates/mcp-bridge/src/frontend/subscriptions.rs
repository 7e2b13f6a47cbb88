//! The rows of the message table about `notifications/initialized`,
//! `resources/subscribe` and `resources/unsubscribe` (behaviour spec,
//! "Listen stream (M3)"). The streams themselves live in [`crate::listener`].

use super::state::{Listen, Phase, Ready, Shared};
use crate::jsonrpc::{BridgeError, Cause, Id};
use crate::listener::{self, events, Change, Listener, Setup};
use serde_json::Value;
use std::sync::Arc;

/// `notifications/initialized` in `ready` opens the listen stream one
/// time, when the initialize result declares a list change or
/// `resources.subscribe`. In another state it does nothing.
pub(crate) fn initialized(shared: &Shared) {
    if !matches!(shared.phase(), Phase::Ready(..)) {
        tracing::debug!("ignored notifications/initialized outside ready");
        return;
    }
    shared.open_listen(|ready| {
        if !listener::wanted(&ready.capabilities) {
            return Listen::NotWanted;
        }
        let setup = Setup {
            client: ready.client.clone(),
            sign_in: ready.sign_in.clone(),
            out: shared.out.clone(),
            capabilities: ready.capabilities.clone(),
            timings: shared.config.timeouts.listen,
            words: shared.words(),
        };
        tracing::debug!("opening the listen stream");
        Listen::Open(Listener::start(setup, &shared.tracker))
    });
}

/// `resources/subscribe` and `resources/unsubscribe` in `ready`: without
/// `resources.subscribe` in the initialize result, or without a listen
/// stream, `-32601`; params without a string `uri`, `-32602`; else the
/// change goes to the owner of the streams, which answers it.
pub(crate) async fn change(shared: &Arc<Shared>, ready: &Ready, id: Id, method: &str, params: Option<&Value>) {
    let declared = events::declares_subscribe(&ready.capabilities);
    let listener = shared.listener();
    let Some(listener) = listener.filter(|_| declared) else {
        return shared.reply_error(Some(&id), &Cause::MethodNotFound.into()).await;
    };
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
    if let Err(change) = listener.change(change) {
        // The queue of changes is full: the reader never waits.
        if (change.finish)() {
            shared.reply_error(Some(&id), &BridgeError::new(Cause::TooManyRequests)).await;
        }
    }
}
