//! The steps of the first initialize (behaviour spec, "Steps of the first
//! initialize").

use super::consent;
use super::state::{Phase, Ready, Shared};
use crate::dialect::Dialect;
use crate::gate::text;
use crate::input::checks::Declared;
use crate::jsonrpc::{self, BridgeError, Cause, Id};
use crate::profile::{Revision, Words};
use crate::translate::capabilities::client_capabilities;
use crate::translate::discover::initialize_result;
use crate::translate::revision;
use crate::upstream::{
    self, Call, CallError, Client, Connection, Hooks, Identity, LogSink, SignIn, UpstreamMethod, UpstreamSpec,
};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Step 1: the state becomes `initializing`, and the rest runs in a task
/// that the client can cancel like any request.
pub(crate) fn start(shared: &Arc<Shared>, id: Id, params: Option<Value>) {
    if !shared.transition(|p| matches!(p, Phase::AwaitingInitialize), Phase::Initializing) {
        return;
    }
    // From here the client may send batches, if its revision has them: its
    // next lines can come before the initialize result, and the reader
    // reads them before this request's task has run.
    if let Some(requested) = valid_params(params.as_ref()).and_then(|p| p.get("protocolVersion")?.as_str()) {
        shared.set_batches(Dialect::negotiate(requested, &shared.config.profile).takes_batches());
    }
    // The messages of this and every later error use the client's words.
    if let Some(name) = valid_params(params.as_ref()).and_then(|p| p.get("clientInfo")?.get("name")?.as_str()) {
        shared.set_client(name);
    }
    let (token, seq) = shared.inflight.insert(&id);
    let shared = shared.clone();
    shared.tracker.clone().spawn(async move {
        // The discover call watches the token: a cancellation comes back
        // as a failure that still holds the client, which then stops.
        let outcome = run(&shared, params, &token).await;
        let respond = shared.inflight.finish(&id, seq);
        match outcome {
            Ok((Connection { client, sign_in }, result, (declared, dialect))) if respond => {
                let capabilities = result.get("capabilities").and_then(Value::as_object).cloned().unwrap_or_default();
                if let Some(sign_in) = &sign_in {
                    sign_in.end_interactive();
                }
                // Step 7: ready before the result goes out, because the next
                // requests of the client can come at once.
                shared.set_ready(Ready { client: client.clone(), sign_in, capabilities, declared, dialect });
                watch_upstream(&shared, client);
                shared.reply(&id, result).await;
            }
            Ok((connection, _, _)) => fail(&shared, Some(connection.client), None, &id).await,
            Err((client, error)) => fail(&shared, client, respond.then_some(error), &id).await,
        }
    });
}

type Failure = (Option<Client>, BridgeError);

/// Steps 1 to 6. A failure carries the client, when one was started, so
/// that it can be stopped.
async fn run(
    shared: &Arc<Shared>,
    params: Option<Value>,
    token: &tokio_util::sync::CancellationToken,
) -> Result<(Connection, Value, (Declared, Dialect)), Failure> {
    let params = valid_params(params.as_ref()).ok_or((None, Cause::InvalidParams.into()))?;
    let requested = params.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
    let revision = Dialect::negotiate(requested, &shared.config.profile);
    // The upstream server learns only what the client's revision can declare.
    let mut capabilities = client_capabilities(params.get("capabilities").unwrap_or(&Value::Null));
    revision::client_capabilities(&mut capabilities, revision);
    let identity = Identity { client_info: params.get("clientInfo").cloned().unwrap_or(Value::Null), capabilities };
    let identity_capabilities = identity.capabilities.clone();
    let connection = connect(shared, identity, revision).await.map_err(|e| (None, e))?;
    let (client, sign_in) = (&connection.client, connection.sign_in.as_ref());
    // A sign-in can start during server/discover: then its limit is the
    // discover limit and the sign-in limit together.
    let limit = if sign_in.is_some_and(SignIn::may_start) {
        shared.config.timeouts.discover + shared.config.timeouts.sign_in
    } else {
        shared.config.timeouts.discover
    };
    let slot = client.reserve().map_err(|e| (Some(client.clone()), e))?;
    let declared = Declared::from_capabilities(&identity_capabilities, revision);
    let empty = Map::new();
    let call = Call {
        method: UpstreamMethod::Discover,
        params: &empty,
        meta: &empty,
        timeout: limit,
        progress: None,
        cancel: token,
        slot: &slot,
        relay: None,
    };
    let discover = match client.call(call).await {
        Ok(result) if result.is_object() => result,
        Ok(_) => return Err((Some(client.clone()), discover_error(None, "the result is not an object".into()))),
        Err(CallError::Upstream { error, status }) => {
            let code = error.get("code").and_then(Value::as_i64);
            let message = text::escape(error.get("message").and_then(Value::as_str).unwrap_or(""), text::DETAIL);
            // "After a failed request to an upstream server at a URL,
            // data.detail also has the HTTP status."
            let error = discover_error(code, message);
            let error = match status {
                Some(status) => error.with_status(status),
                None => error,
            };
            return Err((Some(client.clone()), error));
        }
        Err(CallError::Bridge(error)) if error.cause == Cause::Timeout => {
            // The limit stopped a sign-in: the error names the sign-in.
            if let Some(stopped) = sign_in.and_then(SignIn::stopped_error) {
                return Err((Some(client.clone()), stopped));
            }
            return Err((Some(client.clone()), discover_error(None, jsonrpc::no_response(None, limit))));
        }
        Err(CallError::Bridge(error)) => return Err((Some(client.clone()), error)),
        // The discover call asks the client nothing.
        Err(CallError::Verbatim(error)) => return Err((Some(client.clone()), discover_error(None, error.to_string()))),
        Err(CallError::Canceled) => return Err((Some(client.clone()), Cause::Canceled.into())),
    };
    let dialect = Dialect::new(&shared.config.profile, revision, client.is_remote());
    let (result, note) = initialize_result(&discover, &shared.config.profile, &shared.config.fallback_name, &dialect);
    if let Some(note) = &note {
        shared.report("initialize", note);
    }
    Ok((connection, result, (declared, dialect)))
}

fn discover_error(code: Option<i64>, detail: String) -> BridgeError {
    tracing::warn!(%detail, "server/discover failed");
    jsonrpc::discover_failed(code, detail)
}

/// Steps 3 and 4: start the upstream command, or make the client for the
/// URL; or attach to the connection the client shares with others (the
/// face's sessions in front of a command), whose log messages reach the
/// client while only it has requests in flight.
async fn connect(shared: &Arc<Shared>, identity: Identity, revision: Revision) -> Result<Connection, BridgeError> {
    if let Some(link) = &shared.config.link {
        return link.attach(&identity, shared.log_level.clone(), log_sink(shared)).await;
    }
    let hooks = Hooks {
        on_log: log_sink(shared),
        log_level: shared.log_level.clone(),
        consent: consent::ask_fn(shared, Declared::from_capabilities(&identity.capabilities, revision).url),
    };
    let spec = with_words(&shared.config.upstream, &shared.words());
    upstream::connect(spec.as_ref().unwrap_or(&shared.config.upstream), identity, hooks, shared.config.max_line_bytes)
}

/// The spec of an upstream with a sign-in, whose advice on a remote host
/// names the client's own way to carry a port (VS Code's Ports view only
/// for VS Code); `None` when it needs no change.
fn with_words(spec: &UpstreamSpec, words: &Words) -> Option<UpstreamSpec> {
    let UpstreamSpec::Http(http) = spec else { return None };
    let auth = http.auth.as_ref()?;
    if auth.port_forwarding == words.port_forwarding {
        return None;
    }
    let mut http = http.clone();
    if let Some(auth) = http.auth.as_mut() {
        auth.port_forwarding.clone_from(&words.port_forwarding);
    }
    Some(UpstreamSpec::Http(http))
}

/// Each upstream log message goes to the client as `level`, `logger` and
/// `data`, without the upstream `_meta`, unless it is below the level that
/// the client chose.
fn log_sink(shared: &Shared) -> LogSink {
    let out = shared.out.clone();
    let chosen = shared.log_level.clone();
    Arc::new(move |params: Value| {
        let level = params.get("level").and_then(Value::as_str).unwrap_or("");
        if !crate::jsonrpc::LoggingLevel::passes(level, chosen.get()) {
            return;
        }
        let mut message = Map::new();
        for key in ["level", "logger", "data"] {
            if let Some(value) = params.get(key) {
                message.insert(key.into(), value.clone());
            }
        }
        out.offer(&jsonrpc::notification(jsonrpc::ClientNotification::Message.as_str(), Value::Object(message)));
    })
}

/// The params of initialize must have the 2025-11-25 shape.
fn valid_params(params: Option<&Value>) -> Option<&Map<String, Value>> {
    let params = params?.as_object()?;
    params.get("protocolVersion")?.as_str()?;
    params.get("capabilities")?.as_object()?;
    let info = params.get("clientInfo")?.as_object()?;
    info.get("name")?.as_str()?;
    info.get("version")?.as_str()?;
    Some(params)
}

/// A failed or canceled initialize: the upstream server stops, the state
/// goes back to `awaiting_initialize`, then the error goes out (none for
/// a cancellation). The bridge stays open for another initialize.
async fn fail(shared: &Shared, client: Option<Client>, error: Option<BridgeError>, id: &Id) {
    if let Some(client) = client {
        client.shutdown(shared.config.timeouts.shutdown_grace).await;
    }
    // In this client's words: once the state is back, the next initialize
    // may name another client.
    let error = error.filter(|e| e.cause != Cause::Canceled).map(|e| e.to_value_for(&shared.words()));
    shared.transition(|p| matches!(p, Phase::Initializing), Phase::AwaitingInitialize);
    match error {
        Some(error) => shared.reply_error_value(Some(id), error).await,
        None => tracing::info!("the initialize ended without a response"),
    }
}

/// When the upstream server stops in `ready`, the state becomes `closing`
/// and the reader loop ends the bridge with exit code 1. The watch ends
/// with the connection too: a shared upstream outlives it, and the watch
/// must not keep the connection's state.
fn watch_upstream(shared: &Arc<Shared>, client: Client) {
    let (closed, shared) = (shared.closed.clone(), Arc::downgrade(shared));
    tokio::spawn(async move {
        let error = tokio::select! {
            error = client.lost() => error,
            _ = closed.cancelled() => return,
        };
        let Some(shared) = shared.upgrade() else { return };
        let cause = error.cause.name();
        if shared.lose(error) {
            tracing::warn!(cause, "the upstream server stopped");
            shared.upstream_lost.cancel();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::valid_params;
    use serde_json::json;

    #[test]
    fn initialize_params_need_the_shape_of_the_schema() {
        let good =
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
        assert!(valid_params(Some(&good)).is_some());
        for bad in [
            json!([]),
            json!({}),
            json!({"protocolVersion": 1, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
            json!({"protocolVersion": "x", "capabilities": [], "clientInfo": {"name": "c", "version": "1"}}),
            json!({"protocolVersion": "x", "capabilities": {}, "clientInfo": {"name": "c"}}),
        ] {
            assert!(valid_params(Some(&bad)).is_none(), "{bad}");
        }
    }
}
