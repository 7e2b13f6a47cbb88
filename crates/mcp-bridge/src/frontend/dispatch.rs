//! The table "Message of the client / What the front end does": each line
//! of the client goes to the rule of its kind and its method.

use super::state::{Phase, Shared};
use super::{forward, initialize, subscriptions};
use crate::framing::{self, Decoded, Frame, MAX_DEPTH};
use crate::gate::text;
use crate::input::questions::Answer;
use crate::jsonrpc::{BridgeError, Cause, Id, Message};
use crate::method::Method;
use serde_json::{json, Value};
use std::sync::Arc;

/// The methods that change the subscriptions of the listen stream.
const SUBSCRIPTION_METHODS: [&str; 2] = ["resources/subscribe", "resources/unsubscribe"];

/// Handles one line of the client.
pub(crate) async fn frame(shared: &Arc<Shared>, frame: &Frame) {
    if shared.takes_batches() {
        if let Some(elements) = framing::decode_batch(frame, MAX_DEPTH) {
            return batch(shared, elements).await;
        }
    }
    if let Some(decoded) = framing::decode(frame, shared.config.max_line_bytes, MAX_DEPTH) {
        message(shared, decoded).await;
    }
}

/// One message of the client, or the error of a line that is not one.
pub(crate) async fn message(shared: &Arc<Shared>, decoded: Decoded) {
    match decoded {
        Decoded::Message(Message::Request { id, method, params }) => request(shared, id, &method, params).await,
        Decoded::Message(Message::Notification { method, params }) => {
            notification(shared, &method, params.as_ref()).await;
        }
        Decoded::Message(Message::Response { id, outcome }) => response(shared, &id, outcome),
        Decoded::Message(Message::Unanswerable) => {
            tracing::debug!("dropped a response of the client without a valid id");
        }
        Decoded::Message(Message::Invalid { id }) => bad_line(shared, id, Cause::InvalidRequestShape.into()).await,
        Decoded::Bad { id, error } => bad_line(shared, id, error).await,
    }
}

/// A batch of a client of revision 2025-03-26, which defines batches and
/// requires a receiver to take them: each element is handled as a line of
/// its own would be, with the same limits, and the responses go out as
/// one array in the order of the elements (`Output::batch`). Every place
/// is taken before the first element runs, because some are answered at
/// once.
async fn batch(shared: &Arc<Shared>, elements: Vec<Decoded>) {
    let batch = shared.out.batch();
    for element in &elements {
        match element {
            Decoded::Message(Message::Request { id, .. }) => batch.hold(id),
            Decoded::Bad { id, error } if !id.as_ref().is_some_and(|id| is_bridge_id(shared, id)) => {
                let error = error.to_value_for(&shared.words());
                batch.add(&crate::jsonrpc::error_response(id.as_ref(), error));
            }
            _ => {}
        }
    }
    for element in elements {
        match element {
            // Its error is in the batch already.
            Decoded::Bad { id, .. } if !id.as_ref().is_some_and(|id| is_bridge_id(shared, id)) => {}
            element => Box::pin(message(shared, element)).await,
        }
    }
    batch.seal().await;
}

/// A line that failed a check gets its error with the sniffed id, except
/// when the id is one of the bridge's own: then it is an answer that is not
/// valid, and the client gets nothing.
async fn bad_line(shared: &Shared, id: Option<Id>, error: BridgeError) {
    if let Some(bridge_id) = id.as_ref().filter(|id| is_bridge_id(shared, id)).and_then(Id::as_str) {
        tracing::debug!(cause = error.cause.name(), "an answer of the client to the bridge is not valid");
        shared.asks.deliver(bridge_id, Answer::Invalid);
        return;
    }
    tracing::debug!(cause = error.cause.name(), "a line of the client is not valid");
    shared.reply_error(id.as_ref(), &error).await;
}

fn is_bridge_id(shared: &Shared, id: &Id) -> bool {
    id.as_str().is_some_and(|s| s.starts_with(&shared.config.profile.request_id_prefix))
}

/// A response of the client: one to a request of the bridge goes to the
/// table of pending requests (M2); each other one gets no answer.
fn response(shared: &Shared, id: &Id, outcome: Result<Value, Value>) {
    if is_bridge_id(shared, id) {
        let answer = match outcome {
            Ok(result) => Answer::Result(result),
            Err(error) => Answer::Error(error),
        };
        if !id.as_str().is_some_and(|s| shared.asks.deliver(s, answer)) {
            tracing::debug!(id = %id.shown(), "dropped an answer to an unknown or answered request of the bridge");
        }
    } else {
        tracing::debug!(id = %id.shown(), "dropped a response of the client to no request");
    }
}

async fn notification(shared: &Shared, method: &str, params: Option<&Value>) {
    match method {
        "notifications/cancelled" => {
            let request_id = params.and_then(|p| p.get("requestId")).cloned().and_then(Id::from_value);
            let canceled = request_id.as_ref().map_or(0, |id| shared.inflight.cancel(id));
            match request_id {
                Some(id) if canceled > 0 => {
                    tracing::debug!(id = %id.shown(), "the client canceled a request");
                    // It gets no response: a batch that holds it goes on.
                    for _ in 0..canceled {
                        shared.out.unanswered(&id).await;
                    }
                }
                Some(id) => tracing::debug!(id = %id.shown(), "a cancellation for no request in flight"),
                None => tracing::debug!("a cancellation without requestId cancels nothing"),
            }
        }
        "notifications/initialized" => subscriptions::initialized(shared),
        "notifications/roots/list_changed" => {}
        _ => tracing::debug!(method = %text::shown(method, text::NAME), "ignored a notification of the client"),
    }
}

async fn request(shared: &Arc<Shared>, id: Id, method: &str, params: Option<Value>) {
    match method {
        "ping" => shared.reply(&id, json!({})).await,
        "logging/setLevel" => set_level(shared, &id, params.as_ref()).await,
        "server/discover" => shared.reply_error(Some(&id), &Cause::MethodNotFound.into()).await,
        "initialize" => match shared.phase() {
            Phase::AwaitingInitialize => initialize::start(shared, id, params),
            Phase::Closing(lost, _) => closing(shared, &id, lost.as_ref()).await,
            Phase::Initializing | Phase::Ready(..) => {
                shared.reply_error(Some(&id), &Cause::AlreadyInitialized.into()).await;
            }
        },
        _ => match (shared.phase(), Method::parse(method)) {
            (Phase::Ready(ready, _), _) if SUBSCRIPTION_METHODS.contains(&method) => {
                subscriptions::change(shared, &ready, id, method, params.as_ref()).await;
            }
            (Phase::Ready(ready, _), Some(forwarded)) => {
                forward::start(shared, &ready, id, forwarded, params).await;
            }
            (Phase::Ready(..), None) => shared.reply_error(Some(&id), &Cause::MethodNotFound.into()).await,
            (Phase::Closing(lost, _), _) => closing(shared, &id, lost.as_ref()).await,
            (Phase::AwaitingInitialize | Phase::Initializing, _) => {
                let cause =
                    if has_modern_meta(params.as_ref()) { Cause::MethodNotFound } else { Cause::NotInitialized };
                shared.reply_error(Some(&id), &cause.into()).await;
            }
        },
    }
}

/// A request in `closing`: after the loss of the upstream server it gets
/// the error of the loss; after the end of the input there is nobody to
/// answer.
async fn closing(shared: &Shared, id: &Id, lost: Option<&BridgeError>) {
    if let Some(error) = lost {
        shared.reply_error(Some(id), error).await;
    }
}

/// `logging/setLevel` keeps the level in each state and answers `{}`. The
/// upstream client reads the same cell for each request and stream, so the
/// level applies from the next round, whatever the state was.
async fn set_level(shared: &Shared, id: &Id, params: Option<&Value>) {
    let Some(level) = crate::jsonrpc::LoggingLevel::of_set_level(params) else {
        return shared.reply_error(Some(id), &Cause::InvalidParams.into()).await;
    };
    shared.log_level.set(level);
    shared.reply(id, json!({})).await;
}

/// A request of a 2026-07-28 client carries the protocol version in `_meta`.
fn has_modern_meta(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key("io.modelcontextprotocol/protocolVersion"))
}
