//! The transports of the upstream client, one enum (no boxing, exhaustive
//! matches): `Lines` moves newline-delimited JSON over a pipe (stdio, with
//! a supervisor of the child; the in-memory link of the embedded mode is
//! the same lines over a duplex).
//!
//! A transport only moves messages. What it receives goes to
//! [`Client::receive`] inline, one message at a time; a request that fails
//! on its way (an HTTP status, a broken stream) goes to
//! [`Client::fail`]; a connection that is gone goes to
//! [`Client::mark_lost`] with its cause.

use super::lines::Lines;
use super::Client;
use crate::jsonrpc::BridgeError;
use serde_json::Value;
use std::time::Duration;

pub(super) enum Transport {
    Lines(Lines),
}

impl Transport {
    /// Sends one message and returns the outcome of *that* message: for a
    /// pipe, its place in the write queue (waiting while the queue is full).
    /// `id` is the id of a request, `None` for a notification.
    pub(super) async fn send(&self, client: &Client, id: Option<u64>, message: &Value) -> Result<(), BridgeError> {
        let _ = (client, id);
        match self {
            Transport::Lines(lines) => lines.send(message.to_string().into_bytes()).await,
        }
    }

    /// Sends a notification without waiting (cancellations never wait);
    /// fails when it cannot go out now.
    pub(super) fn try_send(&self, client: &Client, message: &Value) -> Result<(), BridgeError> {
        let _ = client;
        match self {
            Transport::Lines(lines) => lines.try_send(message.to_string().into_bytes()),
        }
    }

    /// Closes the connection within `grace`.
    pub(super) async fn close(&self, grace: Duration) {
        match self {
            Transport::Lines(lines) => lines.close(grace).await,
        }
    }

    /// A server at a URL, or a caller's transport over a network, is remote
    /// (behaviour spec, "Icons of a remote upstream server"); a pipe is not.
    pub(super) fn is_remote(&self) -> bool {
        match self {
            Transport::Lines(_) => false,
        }
    }
}
