//! The modern path (behaviour spec, "The two paths", "The end of the
//! input"): rmcp's own server serves the client, behind a relay of lines
//! that keeps the rules rmcp's stdio transport does not have.
//!
//! - A request above the limit of requests in flight gets -32603
//!   `too_many_requests` at once, so the reader always reads the
//!   cancellations and the end of the input. Listen streams count too.
//! - A line that rmcp cannot read never reaches it (`readable`): a request
//!   gets its error with its id, anything else is dropped.
//! - A line over the line limit is dropped without a response; a line that
//!   is not valid gets the parse or request error.
//! - At the end of the input the listen streams end first (each gets
//!   `notifications/cancelled`), the other requests get the shutdown
//!   grace (a response in that time still goes out), then the rest are
//!   cancelled, without responses. At the return no listen stream is left.
//!
//! - Before rmcp's lifecycle starts, a notification or a response does not
//!   reach rmcp: rmcp's server ends at such a message before its first
//!   request, and the spec's modern path serves the lines after it.
//!
//! Every other line goes to rmcp and back byte for byte.

use super::options::Options;
use super::readable;
use crate::framing::{self, Decoded, Frame};
use crate::jsonrpc::{self, reason, BridgeError, Cause, IdKey, Message};
use crate::output::Output;
use crate::pipe::LineReader;
use crate::sync::lock;
use crate::upstream::MAX_IN_FLIGHT;
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

/// The key of a request in the table as rmcp reads its id: a number by
/// its value (rmcp answers `-0` as `0`), a string by its JSON text.
fn key_of(id: &jsonrpc::Id) -> IdKey {
    match id.as_value() {
        Value::Number(n) => n.as_str().parse::<i128>().map_or_else(|_| id.key(), |n| n.to_string()),
        _ => id.key(),
    }
}

/// The requests of the client that rmcp has not answered.
#[derive(Default)]
struct Flight {
    /// Each request by id: its id as sent, and whether it is a listen stream.
    requests: Mutex<HashMap<IdKey, (Value, bool)>>,
    /// Fires at each answer.
    answered: Notify,
}

impl Flight {
    fn others(&self) -> usize {
        lock(&self.requests).values().filter(|(_, listen)| !listen).count()
    }
}

pub(crate) async fn serve<S, R, W>(server: S, options: &Options, input: R, output: W) -> std::io::Result<()>
where
    S: ServerHandler,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let mut lifecycle = Lifecycle::of(&server);
    let (out, writer) = Output::start(output);
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (their_read, their_write) = tokio::io::split(theirs);
    let service = tokio::spawn(async move {
        match server.serve((their_read, their_write)).await {
            Ok(service) => {
                let _ = service.waiting().await;
            }
            Err(err) => tracing::debug!(error = %err, "the modern path ended before a request"),
        }
    });
    let (from_server, mut to_server) = tokio::io::split(ours);
    let flight = Arc::new(Flight::default());
    let relay = tokio::spawn(relay_answers(from_server, out.clone(), flight.clone(), options.max_line_bytes));
    let mut reader = LineReader::new(input, options.max_line_bytes);
    while let Some(frame) = reader.next_frame().await? {
        let Frame::Line(line) = &frame else {
            tracing::debug!("dropped a line over the line limit");
            continue;
        };
        match framing::decode(&frame, options.max_line_bytes, options.max_depth) {
            None => continue,
            Some(Decoded::Bad { id, error }) => {
                out.send(&jsonrpc::error_response(id.as_ref(), error.to_value())).await;
                continue;
            }
            Some(Decoded::Message(Message::Request { id, params, .. })) if !readable::by_rmcp(line) => {
                let error = readable::refusal(params.as_ref()).to_value();
                out.send(&jsonrpc::error_response(Some(&id), error)).await;
                continue;
            }
            Some(Decoded::Message(_)) if !readable::by_rmcp(line) => {
                tracing::debug!("dropped a notification or a response that the server cannot read");
                continue;
            }
            Some(Decoded::Message(Message::Request { id, method, params })) => {
                lifecycle.see(&method, params.as_ref());
                let refusal = {
                    let mut requests = lock(&flight.requests);
                    if requests.contains_key(&key_of(&id)) {
                        // An id in flight already (MCP: never reused in a
                        // session) would share its place and its answer.
                        Some(Cause::InvalidRequestShape)
                    } else if requests.len() >= MAX_IN_FLIGHT {
                        // Listen streams too: every entry of the table is bounded.
                        Some(Cause::TooManyRequests)
                    } else {
                        requests.insert(key_of(&id), (id.as_value().clone(), method == "subscriptions/listen"));
                        None
                    }
                };
                if let Some(cause) = refusal {
                    out.send(&jsonrpc::error_response(Some(&id), BridgeError::new(cause).to_value())).await;
                    continue;
                }
            }
            Some(Decoded::Message(_)) if !lifecycle.started => {
                tracing::debug!("dropped a notification or a response before the first request");
                continue;
            }
            Some(Decoded::Message(Message::Notification { method, params })) if method == "notifications/cancelled" => {
                // rmcp drops the answer of a canceled request: its place is
                // free now.
                let canceled = params.and_then(|p| p.get("requestId").cloned()).and_then(jsonrpc::Id::from_value);
                if let Some(id) = canceled {
                    lock(&flight.requests).remove(&key_of(&id));
                }
            }
            Some(Decoded::Message(_)) => {}
        }
        let mut bytes = line.clone();
        bytes.push(b'\n');
        if to_server.write_all(&bytes).await.is_err() {
            break;
        }
    }
    end(&flight, &mut to_server, options).await;
    // The end of rmcp's input. Dropping the write half is not: the relay
    // still holds the read half of the same duplex, so rmcp waited for
    // the whole grace before every exit (`check` against the demo took 2 s
    // and warned that the demo did not exit in time).
    let _ = to_server.shutdown().await;
    drop(to_server);
    let _ = tokio::time::timeout(options.shutdown_grace, service).await;
    relay.abort();
    drop(out);
    let _ = writer.await;
    Ok(())
}

/// Whether rmcp's server has left its first loop, by rmcp's own test
/// (`serve_server`): an `initialize`, or a request other than `ping` and
/// `server/discover` whose `_meta` has the protocol version, one the
/// server supports, and the client capabilities. Until then rmcp answers
/// each request and ends at the first other message.
struct Lifecycle {
    started: bool,
    versions: Vec<String>,
}

impl Lifecycle {
    fn of<S: ServerHandler>(server: &S) -> Lifecycle {
        let versions = server.supported_protocol_versions().iter().map(|v| v.as_str().to_string()).collect();
        Lifecycle { started: false, versions }
    }

    fn see(&mut self, method: &str, params: Option<&Value>) {
        if self.started {
            return;
        }
        self.started = match method {
            "initialize" => true,
            "ping" | "server/discover" => false,
            _ => {
                let meta = params.and_then(|p| p.get("_meta"));
                let version =
                    meta.and_then(|m| m.get("io.modelcontextprotocol/protocolVersion")).and_then(Value::as_str);
                let capabilities = meta.and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"));
                version.is_some_and(|v| self.versions.iter().any(|known| known == v))
                    && capabilities.is_some_and(Value::is_object)
            }
        };
    }
}

/// The end of the input: the listen streams first, then the grace for the
/// other requests, then the cancellation of the rest.
async fn end<W: AsyncWrite + Unpin>(flight: &Flight, to_server: &mut W, options: &Options) {
    let listens: Vec<Value> =
        lock(&flight.requests).values().filter(|(_, listen)| *listen).map(|(id, _)| id.clone()).collect();
    for id in listens {
        cancel(to_server, &id, reason::INPUT_ENDED).await;
    }
    lock(&flight.requests).retain(|_, (_, listen)| !*listen);
    let grace = tokio::time::sleep(options.shutdown_grace);
    tokio::pin!(grace);
    loop {
        // Registered before the count is read, so that no answer slips by.
        let answered = flight.answered.notified();
        if flight.others() == 0 {
            break;
        }
        tokio::select! {
            _ = answered => {}
            _ = &mut grace => break,
        }
    }
    let rest: Vec<Value> = lock(&flight.requests).drain().map(|(_, (id, _))| id).collect();
    for id in rest {
        cancel(to_server, &id, reason::INPUT_ENDED).await;
    }
}

async fn cancel<W: AsyncWrite + Unpin>(to_server: &mut W, id: &Value, why: &str) {
    let message = jsonrpc::notification("notifications/cancelled", json!({"requestId": id, "reason": why}));
    let mut bytes = message.to_string().into_bytes();
    bytes.push(b'\n');
    let _ = to_server.write_all(&bytes).await;
}

/// Relays each line of rmcp to the client; a response frees its request,
/// and a response to a request that is no longer in flight (canceled, or
/// cut at the end) is dropped.
async fn relay_answers<R: AsyncRead + Unpin>(from_server: R, out: Output, flight: Arc<Flight>, max: usize) {
    let mut reader = LineReader::new(from_server, max);
    while let Ok(Some(frame)) = reader.next_frame().await {
        let Frame::Line(line) = frame else { continue };
        let response = serde_json::from_slice::<Value>(&line).ok().map(Message::classify);
        if let Some(Message::Unanswerable) = response {
            // No request of the client is without an id: nobody to answer.
            tracing::debug!("dropped an answer of the server without a valid id");
            continue;
        }
        if let Some(Message::Response { id, .. }) = response {
            let known = lock(&flight.requests).remove(&key_of(&id)).is_some();
            flight.answered.notify_waiters();
            if !known {
                tracing::debug!(id = %id.shown(), "dropped an answer of the server to a request no longer in flight");
                continue;
            }
        }
        out.send_line(line).await;
    }
}
