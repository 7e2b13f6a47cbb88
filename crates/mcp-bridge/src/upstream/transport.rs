//! The transports of the upstream client, one enum (no boxing, exhaustive
//! matches): `Lines` moves newline-delimited JSON over a pipe (stdio, with
//! a supervisor of the child; the in-memory link of the embedded mode is
//! the same lines over a duplex), `Http` posts each message to a URL
//! (Streamable HTTP).
//!
//! | transport | started by          | far end owned by    | far end ([`FarEnd`]) |
//! |-----------|---------------------|---------------------|----------------------|
//! | stdio     | `stdio::spawn`      | the supervisor      | a pipe               |
//! | memory    | `lines::open`       | nobody (`closed`)   | a pipe               |
//! | HTTP      | `http::Http::new`   | the server          | a URL                |
//!
//! Two questions depend on the far end, and each has one answer, in
//! [`FarEnd`]: whether the server is *remote* (the icon rule of the
//! behaviour spec: a server at a URL is, a pipe's is not), and whether a
//! send that failed *may have arrived* (then the request is canceled
//! upstream: a pipe's line that got no place in the queue never went
//! out, a POST without its status may have reached the server). They
//! agree today; they are not the same question.
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

    /// What its far end is.
    pub(super) fn far_end(&self) -> FarEnd {
        match self {
            Transport::Lines(_) => FarEnd::Pipe,
            Transport::Http(_) => FarEnd::Url,
        }
    }

    /// Whether the server is remote, for the icon rule
    /// ([`FarEnd::is_remote`]).
    pub(super) fn is_remote(&self) -> bool {
        self.far_end().is_remote()
    }

    /// Whether a send of this transport that failed (canceled, or out of
    /// time) may still have reached the server
    /// ([`FarEnd::send_may_have_arrived`]).
    pub(super) fn send_may_have_arrived(&self) -> bool {
        self.far_end().send_may_have_arrived()
    }
}

/// What the far end of an upstream connection is: what the questions that
/// depend on it are answered from, each once, here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FarEnd {
    /// A pipe: a child's stdio, or the in-memory link of the embedded mode.
    Pipe,
    /// A server at a URL, over Streamable HTTP.
    Url,
}

impl FarEnd {
    /// Whether the server is remote (behaviour spec, "Icons of a remote
    /// upstream server"): a server at a URL is, and its icons follow the
    /// rule of a remote server; the server of a pipe runs here.
    pub(super) const fn is_remote(self) -> bool {
        match self {
            FarEnd::Pipe => false,
            FarEnd::Url => true,
        }
    }

    /// Whether a request whose send failed (canceled, or out of time) may
    /// still have reached the server, which then gets a cancellation. A
    /// pipe's send is the line's place in the write queue: one that failed
    /// never went out, and there is nothing to cancel. A POST whose status
    /// did not come may have reached the server.
    pub(super) const fn send_may_have_arrived(self) -> bool {
        match self {
            FarEnd::Pipe => false,
            FarEnd::Url => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::http::HttpOptions;
    use crate::upstream::inbox::Inbox;
    use crate::upstream::later_sign_in::Consent;
    use crate::upstream::lines;
    use std::sync::Arc;

    /// A transport of each kind: over an in-memory pipe, and toward a URL
    /// (nothing goes out).
    fn transports() -> [(Transport, FarEnd); 2] {
        let (lines, _pipe) = lines::open(tokio::io::split(tokio::io::duplex(64).0), 1024, None);
        let options = HttpOptions::new("https://mcp.example.com/mcp").expect("a URL");
        let inbox = Arc::new(Inbox::new(Arc::new(|_| {})));
        let http = Http::new(&options, Arc::new(|_| Box::pin(async { Consent::CannotAsk })), inbox).expect("a client");
        [(Transport::Lines(lines), FarEnd::Pipe), (Transport::Http(http), FarEnd::Url)]
    }

    /// Behaviour spec, "Icons of a remote upstream server": only a server
    /// at a URL is remote.
    #[tokio::test]
    async fn only_a_server_at_a_url_is_remote() {
        assert!(!FarEnd::Pipe.is_remote());
        assert!(FarEnd::Url.is_remote());
        for (transport, far_end) in transports() {
            assert_eq!(transport.far_end(), far_end);
            assert_eq!(transport.is_remote(), far_end == FarEnd::Url, "{far_end:?}");
        }
    }

    /// A failed send of a pipe left nothing to cancel; a failed POST may
    /// have reached the server, which then gets the cancellation.
    #[tokio::test]
    async fn only_a_failed_post_may_have_reached_the_server() {
        assert!(!FarEnd::Pipe.send_may_have_arrived());
        assert!(FarEnd::Url.send_may_have_arrived());
        for (transport, far_end) in transports() {
            assert_eq!(transport.send_may_have_arrived(), far_end == FarEnd::Url, "{far_end:?}");
        }
    }
}
