//! The transports of the upstream client, one enum (no boxing, exhaustive
//! matches): `Lines` moves newline-delimited JSON over a pipe (stdio, with
//! a supervisor of the child; the in-memory link of the embedded mode is
//! the same lines over a duplex), `Http` posts each message to a URL
//! (Streamable HTTP).
//!
//! | transport | started by          | far end owned by    | remote |
//! |-----------|---------------------|---------------------|--------|
//! | stdio     | `stdio::spawn`      | the supervisor      | no     |
//! | memory    | `lines::open`       | nobody (`closed`)   | no     |
//! | HTTP      | `http::Http::new`   | the server          | yes    |
//!
//! The seam is what all three do: send an [`Outgoing`] message, send one
//! soon, abandon a request, close. Each gets the message the same way (its
//! method as a type, its text), and each is built with the inbox that its
//! reader hands messages to. What only a URL has (a sign-in, the headers
//! that a `tools/list` teaches) reaches the client and the front end as
//! hooks made at connection time (`connect`), never as no-op methods here.
//!
//! A transport only moves messages. What it receives goes to
//! [`Inbox::receive`] inline, one message at a time; a request that fails
//! on its way (an HTTP status, a broken stream) goes to
//! [`Inbox::fail`]; a connection that is gone goes to
//! [`Inbox::mark_lost`] with its cause.

use super::http::Http;
use super::lines::Lines;
use super::outgoing::Outgoing;
use crate::jsonrpc::BridgeError;
use std::time::Duration;

/// The transport lives once per client, in its `Arc`: the size of the
/// largest variant costs nothing, and a box would cost a hop per message.
#[allow(clippy::large_enum_variant)]
pub(super) enum Transport {
    Lines(Lines),
    Http(Http),
}

impl Transport {
    /// Sends one message and returns the outcome of *that* message: for a
    /// pipe, its place in the write queue (waiting while the queue is full);
    /// over HTTP, the status of its POST.
    pub(super) async fn send(&self, message: Outgoing<'_>) -> Result<(), BridgeError> {
        match self {
            Transport::Lines(lines) => lines.send(message.text).await,
            // Boxed: the POST's future is large, and unboxed it would make
            // the task of every forwarded request that large, a pipe's
            // too, and the task is copied as it moves.
            Transport::Http(http) => Box::pin(http.send(message)).await,
        }
    }

    /// Sends a notification without making the caller wait (cancellations
    /// never hold a request or the reader): a pipe queues it now or from a
    /// task of its own (`Lines::send_soon`), HTTP posts it from one.
    pub(super) fn send_soon(&self, message: Outgoing<'_>) {
        match self {
            Transport::Lines(lines) => lines.send_soon(message.text),
            Transport::Http(http) => http.send_soon(message),
        }
    }

    /// The request is abandoned: over HTTP its stream closes, which is the
    /// cancellation signal of the transport; a pipe has no stream of its
    /// own per request.
    pub(super) fn forget(&self, id: u64) {
        match self {
            Transport::Lines(_) => {}
            Transport::Http(http) => http.forget(id),
        }
    }

    /// Closes the connection within `grace`.
    pub(super) async fn close(&self, grace: Duration) {
        match self {
            Transport::Lines(lines) => lines.close(grace).await,
            Transport::Http(http) => http.close(),
        }
    }

    /// A server at a URL, or a caller's transport over a network, is remote
    /// (behaviour spec, "Icons of a remote upstream server"); a pipe is not.
    pub(super) fn is_remote(&self) -> bool {
        match self {
            Transport::Lines(_) => false,
            Transport::Http(_) => true,
        }
    }
}
