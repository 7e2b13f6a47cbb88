//! Every request to an authorization server or for its metadata, bounded:
//! a response is read up to [`MAX_BYTES`] and the whole exchange, from the
//! connection to the last byte, takes at most the time limit of the
//! [`Fetcher`] ([`TIME_LIMIT`] unless a test shortens it). A server that
//! sends an endless body or stalls ends the sign-in step; it never holds
//! the bridge or its memory.

use crate::jsonrpc::no_response;
use std::time::Duration;

/// The most bytes of one response. Metadata, registration and token
/// responses are a few KiB; a token response with large JWTs stays far
/// below this.
pub(crate) const MAX_BYTES: usize = 128 * 1024;
/// The longest one request may take, by default.
pub const TIME_LIMIT: Duration = Duration::from_secs(30);

/// The HTTP client of the sign-in, with the time limit of each request.
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    limit: Duration,
}

/// A response read whole.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

/// Why a request has no response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The connection failed, or the body broke off.
    Unreachable,
    /// The body is longer than [`MAX_BYTES`].
    TooLarge,
    /// The exchange took longer than its limit.
    TimedOut(Duration),
}

impl Failure {
    /// The text of a detail, after the step (`token request: ...`).
    pub(crate) fn text(self) -> String {
        match self {
            Failure::Unreachable => "the server cannot be reached".into(),
            Failure::TooLarge => format!("the response is larger than {} KiB", MAX_BYTES / 1024),
            Failure::TimedOut(limit) => no_response(None, limit),
        }
    }
}

impl Fetcher {
    pub(crate) fn new(client: reqwest::Client, limit: Duration) -> Fetcher {
        Fetcher { client, limit }
    }

    /// The client, to build a request with.
    pub(crate) fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Sends the request and reads its response within the limits.
    pub(crate) async fn send(&self, request: reqwest::RequestBuilder) -> Result<Fetched, Failure> {
        match tokio::time::timeout(self.limit, exchange(request)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Failure::TimedOut(self.limit)),
        }
    }
}

async fn exchange(request: reqwest::RequestBuilder) -> Result<Fetched, Failure> {
    let mut response = request.send().await.map_err(|_| Failure::Unreachable)?;
    if response.content_length().is_some_and(|n| n > MAX_BYTES as u64) {
        return Err(Failure::TooLarge);
    }
    let status = response.status().as_u16();
    let headers = std::mem::take(response.headers_mut());
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|_| Failure::Unreachable)? {
        if body.len() + chunk.len() > MAX_BYTES {
            return Err(Failure::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Fetched { status, headers, body })
}
