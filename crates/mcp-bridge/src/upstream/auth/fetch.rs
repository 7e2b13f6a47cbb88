//! Every request to an authorization server or for its metadata, bounded
//! and gated. A response is read up to [`MAX_BYTES`] and the whole
//! exchange, from the connection to the last byte, takes at most the time
//! limit of the [`Fetcher`] ([`TIME_LIMIT`] unless a test shortens it): a
//! server that sends an endless body or stalls ends the sign-in step; it
//! never holds the bridge or its memory.
//!
//! Each request goes to an https URL, or to http on a loopback host; to a
//! host on the user's machine only when the MCP server is there too, so
//! that a remote server's metadata cannot aim the bridge at a service of
//! the user's machine. A POST (registration, device authorization, token)
//! follows no redirect: a 307 would post the codes and the verifier again,
//! elsewhere. A GET of metadata follows redirects within its origin.

use super::local::{on_users_machine, RemoteOnly};
use crate::jsonrpc::{fail, no_response, BridgeError, Cause};
use reqwest::redirect::{Attempt, Policy};
use reqwest::{Method, RequestBuilder, Url};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The most bytes of one response. Metadata, registration and token
/// responses are a few KiB; a token response with large JWTs stays far
/// below this.
pub(crate) const MAX_BYTES: usize = 128 * 1024;
/// The longest one request may take, by default.
pub(crate) const TIME_LIMIT: Duration = Duration::from_secs(30);

/// Redirects a GET of metadata follows within its origin, at most.
const MAX_REDIRECTS: usize = 5;

/// Makes an HTTP client with the TLS and proxy settings of the upstream, the
/// given redirect policy, and the given name resolution (else the system's).
pub(crate) type MakeClient = Arc<
    dyn Fn(Policy, Option<Arc<dyn reqwest::dns::Resolve>>) -> Result<reqwest::Client, reqwest::Error> + Send + Sync,
>;

/// The HTTP clients of the sign-in, with the time limit of each request.
#[derive(Clone)]
pub(crate) struct Fetcher {
    make: MakeClient,
    /// The GET and the POST client, made at the first request: a bridge
    /// that has its tokens may never need them.
    clients: Arc<OnceLock<Option<(reqwest::Client, reqwest::Client)>>>,
    limit: Duration,
    /// The MCP server is on the user's machine: then its authorization
    /// server may be too.
    local_server: bool,
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
    /// The URL is not https (nor http on a loopback host), or it is on the
    /// user's machine while the MCP server is not: nothing was sent.
    Refused,
    /// The exchange took longer than its limit.
    TimedOut(Duration),
}

impl Failure {
    /// The text of a detail, after the step (`token request: ...`).
    pub(crate) fn text(self) -> String {
        match self {
            Failure::Unreachable => "the server cannot be reached".into(),
            Failure::TooLarge => format!("the response is larger than {} KiB", MAX_BYTES / 1024),
            Failure::Refused => "the URL is not https, or it is on the user's machine and the MCP server is not".into(),
            Failure::TimedOut(limit) => no_response(None, limit),
        }
    }
}

impl Fetcher {
    /// The fetcher of the sign-in of the MCP server at `server`.
    pub(crate) fn new(make: MakeClient, server: &Url, limit: Duration) -> Fetcher {
        Fetcher { make, clients: Arc::default(), limit, local_server: on_users_machine(server) }
    }

    /// A request to build: a GET on the client that follows redirects
    /// within the origin, anything else on the one that follows none.
    /// `None` when the clients cannot be made (the log says why).
    pub(crate) fn request(&self, method: Method, url: Url) -> Option<RequestBuilder> {
        let clients = self.clients.get_or_init(|| {
            // A remote server's sign-in resolves no name to the user's machine.
            let resolver =
                || (!self.local_server).then(|| Arc::new(RemoteOnly::from_env()) as Arc<dyn reqwest::dns::Resolve>);
            let made = (self.make)(Policy::custom(same_origin), resolver())
                .and_then(|gets| Ok((gets, (self.make)(Policy::none(), resolver())?)));
            made.map_err(
                |err| tracing::error!(error = %err.without_url(), "cannot make the HTTP client of the sign-in"),
            )
            .ok()
        });
        let (gets, posts) = clients.as_ref()?;
        let client = if method == Method::GET { gets } else { posts };
        Some(client.request(method, url))
    }

    /// Sends the request and reads its response within the limits, unless
    /// its URL fails the gate of the module.
    pub(crate) async fn send(&self, request: Option<RequestBuilder>) -> Result<Fetched, Failure> {
        let (client, request) = request.ok_or(Failure::Unreachable)?.build_split();
        let request = request.map_err(|_| Failure::Unreachable)?;
        if let Err(why) = self.allowed(request.url()) {
            tracing::warn!(why, "the sign-in does not send a request to this URL");
            return Err(Failure::Refused);
        }
        match tokio::time::timeout(self.limit, exchange(client.execute(request))).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Failure::TimedOut(self.limit)),
        }
    }

    /// [`allowed`](Fetcher::allowed), and for a remote server a host name
    /// must resolve to an address that is not the user's machine: an
    /// endpoint that the resolver of the requests would refuse is refused
    /// before the sign-in uses it.
    pub(crate) async fn reachable(&self, url: &Url) -> Result<(), &'static str> {
        self.allowed(url)?;
        let Some(url::Host::Domain(name)) = url.host().filter(|_| !self.local_server) else { return Ok(()) };
        match RemoteOnly::from_env().addresses(name).await {
            Ok(kept) if kept.is_empty() => {
                Err("its name resolves to the user's machine, and the MCP server is not there")
            }
            // A name that does not resolve now fails where it is used.
            _ => Ok(()),
        }
    }

    /// Whether the sign-in may send a request to, or open, this URL: https
    /// or http on a loopback host, and on the user's machine only when the
    /// MCP server is there too.
    pub(crate) fn allowed(&self, url: &Url) -> Result<(), &'static str> {
        if secure(url).is_err() {
            return Err("it is not https and not on a loopback host");
        }
        if !self.local_server && on_users_machine(url) {
            return Err("it is on the user's machine, and the MCP server is not");
        }
        Ok(())
    }
}

/// Every authorization endpoint and metadata URL is https, except on the
/// loopback hosts, where http is allowed (local servers, the conformance
/// suite's mocks).
pub(crate) fn secure(url: &Url) -> Result<(), BridgeError> {
    let loopback = matches!(url.host_str(), Some("127.0.0.1" | "[::1]" | "localhost"));
    if url.scheme() == "https" || (url.scheme() == "http" && loopback) {
        Ok(())
    } else {
        Err(fail(Cause::SignInFailed, "discovery: an authorization URL is not https and not on a loopback host"))
    }
}

/// The redirect policy of a GET: within the origin of the first URL.
fn same_origin(attempt: Attempt<'_>) -> reqwest::redirect::Action {
    let first = attempt.previous().first().map(Url::origin);
    if first.as_ref() != Some(&attempt.url().origin()) || attempt.previous().len() > MAX_REDIRECTS {
        attempt.stop()
    } else {
        attempt.follow()
    }
}

async fn exchange(
    request: impl std::future::Future<Output = reqwest::Result<reqwest::Response>>,
) -> Result<Fetched, Failure> {
    let mut response = request.await.map_err(|_| Failure::Unreachable)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http_is_secure() {
        let url = |t: &str| Url::parse(t).unwrap_or_else(|e| panic!("{e}"));
        for ok in ["https://a.example.com/x", "http://127.0.0.1:9/x", "http://localhost/x", "http://[::1]:8/x"] {
            assert!(secure(&url(ok)).is_ok(), "{ok}");
        }
        for bad in ["http://a.example.com/x", "http://127.0.0.2/x", "ftp://localhost/x"] {
            assert!(secure(&url(bad)).is_err(), "{bad}");
        }
    }
}
