//! Forwarded requests (behaviour spec, "Forwarded requests (M1)", "Result
//! rules (M1)", "Progress (M1)", "Cancellation (M1)").

use super::rounds::{self, Request};
use super::state::{log_note, Ready, Shared};
use crate::dialect::Dialect;
use crate::input::checks::check_object;
use crate::jsonrpc::{self, ClientNotification, Id};
use crate::method::Method;
use crate::output::Output;
use crate::profile::Revision;
use crate::raw;
use crate::translate;
use crate::translate::icons::{filter_icons, removal_note};
use crate::translate::params::forwarded;
use crate::translate::result::{is_input_required, translate_result};
use crate::upstream::{Call, CallError, Client, Payload, ProgressSink, UpstreamMethod};
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// Starts a forwarded request in its own task. The place among the
/// requests in flight is taken here, in the reader, so that a request over
/// the limit gets its error at once.
pub(crate) async fn start(shared: &Arc<Shared>, ready: &Ready, id: Id, method: Method, params: Option<Value>) {
    let (client, declared, dialect) = (ready.client.clone(), ready.declared, ready.dialect);
    let slot = match client.reserve() {
        Ok(slot) => slot,
        Err(error) => return shared.reply_error(Some(&id), &error).await,
    };
    let (token, seq) = shared.inflight.insert(&id);
    let shared = shared.clone();
    let span = tracing::info_span!("request", id = %id.shown(), method = %method.name());
    let tracker = shared.tracker.clone();
    let task = async move {
        let out = shared.out.for_request(&id);
        let request = forwarded(params, &shared.config.profile);
        let cursor = request.params.get("cursor").cloned();
        let progress = request.progress_token.map(|t| progress_sink(&out, t, token.clone(), dialect.revision));
        let call = Call {
            method: UpstreamMethod::Forwarded(method),
            params: &request.params,
            meta: &request.meta,
            timeout: shared.config.timeouts.for_round(method, 1),
            progress: progress.clone(),
            cancel: &token,
            slot: &slot,
            relay: None,
        };
        let Some(first) = first_round(&shared, &client, (&id, seq), (method, cursor.as_ref()), call, &dialect).await
        else {
            return;
        };
        let outcome = match first {
            Ok(result) if is_input_required(&result) => {
                let rounds = Request {
                    shared: &shared,
                    out: &out,
                    client: &client,
                    method,
                    params: request.params,
                    meta: request.meta,
                    progress,
                    cancel: &token,
                    slot: &slot,
                    declared,
                };
                // Boxed: only an input request takes the rounds, and their
                // state would make every request's task 1 KiB larger.
                Box::pin(rounds::run(rounds, result)).await
            }
            other => other,
        };
        let outcome = outcome.and_then(|result| match check_object(&result) {
            Ok(_) => Ok(result),
            Err(error) => Err(CallError::Bridge(error)),
        });
        if !shared.inflight.finish(&id, seq) {
            return;
        }
        match outcome {
            Ok(result) => {
                let (mut result, mut notes) = translate_result(method, cursor.as_ref(), result, &dialect);
                notes.extend(removal_note(filter_icons(method, &mut result, &dialect)));
                for note in &notes {
                    shared.report(method.name(), note);
                }
                shared.reply(&id, result).await;
            }
            Err(CallError::Upstream { error, .. }) => {
                shared.reply_error_value(Some(&id), jsonrpc::upstream_error_for_client(error)).await;
            }
            Err(CallError::Verbatim(error)) => shared.reply_error_value(Some(&id), error).await,
            Err(CallError::Bridge(error)) => shared.reply_error(Some(&id), &error).await,
            Err(CallError::Canceled) => {}
        }
    };
    // Boxed: each move of the task's state (into the span, the tracker,
    // tokio's task cell, and tokio's stage at its end) would copy all of
    // it, a visible part of a small call's CPU. The HTTP send and the
    // rounds are boxed where they are awaited, to keep that state small.
    tracker.spawn(Box::pin(task).instrument(span));
}

/// The first round. A result that can take the raw path (`crate::raw`)
/// is answered here, its notes logged, and `None` comes back; anything
/// else comes back as a `Value`.
async fn first_round(
    shared: &Shared,
    client: &Client,
    (id, seq): (&Id, u64),
    (method, cursor): (Method, Option<&Value>),
    call: Call<'_>,
    dialect: &Dialect,
) -> Option<Result<Value, CallError>> {
    if !dialect.raw_result(method) {
        return Some(client.call(call).await);
    }
    let raw = match client.call_raw(call).await {
        Ok(Payload::Raw(raw)) => raw,
        other => return Some(other.and_then(Payload::into_value)),
    };
    let Some((line, notes)) = raw::rules::apply(id, (method, cursor), &raw, dialect) else {
        return Some(Payload::Raw(raw).into_value());
    };
    if shared.inflight.finish(id, seq) {
        // The sink gets the notes before the response goes, as on the full
        // path: `check` reads them once it has the last response.
        for note in &notes {
            shared.sink(method.name(), note);
        }
        shared.out.respond_pieces(id, line).await;
        // The notes of a big list (one per R6 repair: 2,000 for 2,000
        // repaired tools) are logged once the writer has had its turn, so
        // that their formatting does not delay the response.
        if !notes.is_empty() {
            tokio::task::yield_now().await;
        }
        for note in &notes {
            log_note(note);
        }
    }
    None
}

/// Progress of the upstream server goes to the client with the client's
/// token, keyed by this request: never by token, because a client can send
/// the same token (the Copilot harness sends 0) on every request.
fn progress_sink(out: &Output, client_token: Value, cancel: CancellationToken, revision: Revision) -> ProgressSink {
    let out = out.clone();
    Arc::new(move |upstream: Value| {
        if cancel.is_cancelled() {
            return;
        }
        let mut params = Map::new();
        params.insert("progressToken".into(), client_token.clone());
        for key in ["progress", "total", "message"] {
            if let Some(value) = upstream.get(key) {
                params.insert(key.into(), value.clone());
            }
        }
        translate::revision::progress(&mut params, revision);
        out.offer(&jsonrpc::notification(ClientNotification::Progress.as_str(), Value::Object(params)));
    })
}
