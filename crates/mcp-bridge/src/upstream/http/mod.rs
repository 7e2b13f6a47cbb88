//! The Streamable HTTP transport of 2026-07-28
//! (`basic/transports/streamable-http.md`): one POST per message, a JSON
//! or an SSE response per request, `202` for a notification.
//!
//! `send` returns when the response's status is in: a status that is not a
//! success fails *that* request (`transport_failed` with `HTTP status <n>`,
//! or the JSON-RPC error of its body), never the connection. The body is
//! read by a task of its own that hands each message to the inbox inline;
//! a cancellation drops that task, which closes the request's stream (the
//! cancellation signal of the transport), beside the `notifications/
//! cancelled` that the client posts.
//!
//! No message, detail or log line holds the URL's path or query (they can
//! hold keys): logs name the origin only, and reqwest's errors lose their
//! URL before they are written.

pub(crate) mod body;
pub(crate) mod headers;
pub(crate) mod passed;
pub(crate) mod tools;

use super::auth;
use super::hooks::ResultObserver;
use super::inbox::Inbox;
use super::later_sign_in::ConsentFn;
use super::outgoing::{Outgoing, UpstreamMethod};
use super::request::PROTOCOL_VERSION;
use crate::jsonrpc::{BridgeError, Cause, Id, Message};
use crate::method::Method;
use crate::pipe::KeptBuffer;
use crate::sync::lock;
use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::{StatusCode, Url};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::AbortHandle;

/// Redirects followed within the origin of the server, at most.
const MAX_REDIRECTS: usize = 5;
/// The longest wait for a connection (TCP and TLS) to the server or an
/// authorization server: a host that drops the packets fails its request
/// then, not at the request's own limit (an hour for a tool call).
const CONNECT_LIMIT: Duration = Duration::from_secs(10);
/// The largest JSON body or event of a stream by default.
const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;
/// The most of an error body that is read to find a JSON-RPC error in it.
const ERROR_BODY_BYTES: usize = 64 * 1024;

/// Root certificates that the bridge trusts for the server beside the
/// platform's (a private certificate authority).
#[derive(Clone)]
pub struct CaBundle(Vec<reqwest::Certificate>);

impl CaBundle {
    /// Reads a PEM bundle; `Err` with the reason when it holds no usable
    /// certificate.
    pub fn from_pem(pem: &[u8]) -> Result<CaBundle, String> {
        let certificates = reqwest::Certificate::from_pem_bundle(pem).map_err(|e| e.without_url().to_string())?;
        if certificates.is_empty() {
            return Err("the file holds no PEM certificate".into());
        }
        // The PEM reader only splits the file: a client made with the
        // certificates parses each one, so a certificate that is not valid
        // stops the start here and not later.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .tls_certs_merge(certificates.iter().cloned())
            .build()
            .map_err(|_| "the file holds a certificate that is not valid".to_string())?;
        Ok(CaBundle(certificates))
    }
}

impl std::fmt::Debug for CaBundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CaBundle({} certificates)", self.0.len())
    }
}

/// A header that goes with every request to the server (a key, a
/// token): its value never reaches a log line.
#[derive(Clone)]
pub struct SecretHeader {
    name: HeaderName,
    value: HeaderValue,
}

impl SecretHeader {
    /// A header with this name and value; `Err` names what is not valid,
    /// never the value. A name that is not valid is shown through the gate.
    pub fn new(name: &str, value: &str) -> Result<SecretHeader, String> {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            format!("\"{}\" is not a header name", crate::gate::text::shown(name, crate::gate::text::NAME))
        })?;
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value for the header {name} is not a header value"))?;
        value.set_sensitive(true);
        Ok(SecretHeader { name, value })
    }
}

impl std::fmt::Debug for SecretHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: [hidden]", self.name)
    }
}

/// An upstream server at a URL, over Streamable HTTP
/// ([`HttpOptions::new`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    pub(crate) url: Url,
    /// Headers sent with every request to the server's origin.
    pub headers: Vec<SecretHeader>,
    /// Root certificates to trust beside the platform's.
    pub ca: Option<CaBundle>,
    /// The largest JSON body, or event of a stream, of the server.
    pub max_response_bytes: usize,
    /// How the bridge signs in when the server asks; `None` leaves a 401
    /// to fail its request.
    pub auth: Option<auth::AuthOptions>,
    /// The client's own authorization goes to the server instead of a
    /// sign-in of the bridge (the face with `--pass-authorization`).
    pub(crate) passed: Option<Arc<passed::Passed>>,
}

impl HttpOptions {
    /// A server at `url`, an http or https URL with a host (`Err` says what
    /// it is not, without the URL, which can hold a key), with the
    /// defaults: no header of its own, the platform's root certificates,
    /// bodies and events of at most 64 MiB, and no sign-in.
    pub fn new(url: &str) -> Result<HttpOptions, String> {
        let url = Url::parse(url).map_err(|e| format!("the URL is not valid: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") || !url.has_host() {
            return Err("the URL is not an http or https URL with a host".into());
        }
        Ok(HttpOptions {
            url,
            headers: Vec::new(),
            ca: None,
            max_response_bytes: MAX_RESPONSE_BYTES,
            auth: None,
            passed: None,
        })
    }

    /// Whether the URL holds a user name or a password (the Basic header
    /// of the server).
    pub fn has_user_info(&self) -> bool {
        !self.url.username().is_empty() || self.url.password().is_some()
    }

    /// The URL of the server (its path and query can hold keys: never for
    /// a log line).
    pub(crate) fn url(&self) -> &Url {
        &self.url
    }

    /// The maker of the HTTP clients of the server's side requests (its
    /// metadata, a sign-in), with `--ca-file`.
    pub(crate) fn make_client(&self) -> auth::MakeClient {
        let ca = self.ca.clone();
        Arc::new(move |redirects, resolver| client(ca.as_ref(), redirects, resolver))
    }
}

/// A message as HTTP posts it: what its headers come from, and its body,
/// shared by each POST of it (a retry after a sign-in sends the same
/// bytes).
struct Post<'a> {
    method: UpstreamMethod,
    params: Option<&'a Map<String, Value>>,
    /// The client's own `Authorization` for this request.
    authorization: Option<&'a str>,
    body: Bytes,
}

impl<'a> From<Outgoing<'a>> for Post<'a> {
    fn from(message: Outgoing<'a>) -> Post<'a> {
        Post {
            method: message.method,
            params: message.params,
            authorization: message.authorization,
            body: Bytes::from(message.text),
        }
    }
}

/// The origin of a URL, the only part of it that logs may name.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

pub(super) struct Http {
    client: reqwest::Client,
    /// The URL without its user information.
    url: Url,
    /// The user name and password of the URL: a Basic header for the
    /// server, sent only when no bearer token is (one `Authorization`).
    basic: Option<(String, Option<String>)>,
    headers: HeaderMap,
    max_response_bytes: usize,
    /// The `Mcp-Param-*` headers of each tool, from the last `tools/list`.
    tools: tools::ToolHeaders,
    /// The task that reads the body of each request in flight; the task
    /// takes itself out when it ends.
    bodies: Arc<Mutex<HashMap<u64, AbortHandle>>>,
    /// The buffer of a big body, for the next one (`framing::KeptBuffer`).
    kept: KeptBuffer,
    auth: Option<Arc<auth::Auth>>,
    /// The client's own authorization, when it goes instead of a sign-in.
    passed: Option<Arc<passed::Passed>>,
    /// Where the body of each response goes.
    inbox: Arc<Inbox>,
}

/// An HTTP client with the settings of every request of the upstream (the
/// connect limit, `--ca-file`, the proxy variables), its redirect policy
/// and its name resolution (the system's unless one is given).
fn client(
    ca: Option<&CaBundle>,
    redirects: reqwest::redirect::Policy,
    resolver: Option<Arc<dyn reqwest::dns::Resolve>>,
) -> Result<reqwest::Client, reqwest::Error> {
    // One process-wide crypto provider for rustls, before any client is
    // made (the face's metadata may be the first); a second install is
    // refused, which is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder().tcp_nodelay(true).connect_timeout(CONNECT_LIMIT).redirect(redirects);
    if let Some(CaBundle(certificates)) = ca {
        builder = builder.tls_certs_merge(certificates.iter().cloned());
    }
    if let Some(resolver) = resolver {
        builder = builder.dns_resolver(resolver);
    }
    builder.build()
}

impl Http {
    /// Makes the HTTP client for the URL, whose responses go to `inbox`;
    /// `connect_failed` when it cannot be made (the TLS set-up, the proxy
    /// variables).
    pub(super) fn new(options: &HttpOptions, consent: ConsentFn, inbox: Arc<Inbox>) -> Result<Http, BridgeError> {
        let origin_url = options.url.clone();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            // A redirect to another origin would carry the headers of
            // --header-env there: it is not followed.
            if attempt.url().origin() != origin_url.origin() || attempt.previous().len() > MAX_REDIRECTS {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        let make = options.make_client();
        let client = make(redirects, None).map_err(|err| {
            tracing::error!(error = %err.without_url(), "cannot make the HTTP client for the upstream server");
            BridgeError::new(Cause::ConnectFailed)
        })?;
        let mut headers = HeaderMap::new();
        for header in &options.headers {
            headers.append(header.name.clone(), header.value.clone());
        }
        tracing::info!(origin = %origin(&options.url), "the upstream server is at a URL");
        // The client's authorization, or the bridge's sign-in: never both.
        let passed = options.passed.clone();
        let auth = match passed {
            Some(_) => None,
            None => options.auth.clone().map(|a| Arc::new(auth::Auth::new(a, &options.url, make, consent))),
        };
        let (url, basic) = split_user_info(&options.url);
        Ok(Http {
            auth,
            passed,
            client,
            url,
            basic,
            headers,
            max_response_bytes: options.max_response_bytes,
            tools: tools::ToolHeaders::default(),
            bodies: Arc::default(),
            kept: KeptBuffer::default(),
            inbox,
        })
    }

    /// Posts one message. For a request, returns when the status is in and
    /// leaves the body to a task; for a notification, when the server took
    /// it (`202`).
    pub(super) async fn send(&self, message: Outgoing<'_>) -> Result<(), BridgeError> {
        let id = message.id;
        let response = self.authorized(id.is_some(), &Post::from(message)).await?;
        let status = response.status();
        let Some(id) = id else {
            if status != StatusCode::ACCEPTED {
                tracing::debug!(status = status.as_u16(), "the upstream server did not accept a notification");
            }
            return Ok(());
        };
        if !status.is_success() {
            return self.failed(id, response).await;
        }
        let event_stream = content_type(&response).is_some_and(|t| t.eq_ignore_ascii_case("text/event-stream"));
        let json = content_type(&response).is_some_and(|t| t.eq_ignore_ascii_case("application/json"));
        if !event_stream && !json {
            tracing::warn!(status = status.as_u16(), "an upstream response is neither JSON nor an event stream");
            return Err(BridgeError::new(Cause::InvalidResponse).with_status(status.as_u16()));
        }
        let (max, kept, bodies) = (self.max_response_bytes, self.kept.clone(), self.bodies.clone());
        let reader = self.inbox.clone();
        // The task takes itself out of `bodies` when it ends, and it cannot
        // before it is in: the lock is held from its spawn to its insert.
        let mut running = lock(&self.bodies);
        let task = tokio::spawn(async move {
            if event_stream {
                body::sse(&reader, id, response, (max, &kept)).await;
            } else {
                body::json(&reader, id, response, (max, &kept)).await;
            }
            lock(&bodies).remove(&id);
        });
        running.insert(id, task.abort_handle());
        Ok(())
    }

    /// Posts a message with the bearer token of the sign-in. A 401 of a
    /// request refreshes the token or signs in again and retries once; an
    /// `insufficient_scope` 403 gets one step-up; a second refusal is
    /// `access_refused` with the status.
    async fn authorized(&self, request: bool, message: &Post<'_>) -> Result<reqwest::Response, BridgeError> {
        let (mut renewed, mut stepped_up) = (false, false);
        loop {
            let token = match &self.auth {
                Some(auth) => auth.bearer().await,
                None => None,
            };
            let response = self.post(message, token.as_deref()).send().await.map_err(|err| {
                let err = err.without_url();
                tracing::warn!(error = %chain(&err), "a request to the upstream server failed");
                BridgeError::new(Cause::TransportFailed).with_detail(transport_detail(&err))
            })?;
            let status = response.status().as_u16();
            if let Some(passed) = self.passed.as_ref().filter(|_| request && matches!(status, 401 | 403)) {
                tracing::info!(status, "the upstream server refused the client's authorization");
                passed.refuse(passed::Refused { status, challenge: challenge_of(&response) });
                return Ok(response);
            }
            let Some(auth) = self.auth.as_ref().filter(|_| request && matches!(status, 401 | 403)) else {
                return Ok(response);
            };
            let challenge = challenge_of(&response);
            let step_up = status == 403 && challenge.is_insufficient_scope();
            if status == 403 && !step_up {
                return Ok(response);
            }
            drop(response);
            if (status == 401 && renewed) || (step_up && stepped_up) {
                tracing::warn!(status, "the upstream server refused the access after the sign-in");
                return Err(BridgeError::new(Cause::AccessRefused).with_status(status));
            }
            tracing::info!(status, "the upstream server asks for a sign-in");
            auth.challenged(&challenge, token.as_deref()).await?;
            renewed |= status == 401;
            stepped_up |= step_up;
        }
    }

    /// Posts a notification from a task of its own, without waiting for it.
    pub(super) fn send_soon(&self, message: Outgoing<'_>) {
        let token = self.auth.as_ref().and_then(|a| a.current());
        let request = self.post(&Post::from(message), token.as_deref());
        tokio::spawn(async move {
            if let Err(err) = request.send().await {
                tracing::debug!(error = %err.without_url(), "a notification to the upstream server failed");
            }
        });
    }

    /// Drops the body of a request: its stream closes.
    pub(super) fn forget(&self, id: u64) {
        if let Some(task) = lock(&self.bodies).remove(&id) {
            task.abort();
        }
    }

    /// The handle of the sign-in, when the server has one.
    pub(super) fn sign_in(&self) -> Option<auth::SignIn> {
        self.auth.clone().map(auth::SignIn::new)
    }

    /// The observer of the client's results: a `tools/list` result teaches
    /// the transport the headers of each tool's calls.
    pub(super) fn result_observer(&self) -> ResultObserver {
        let tools = self.tools.clone();
        Arc::new(move |method, result| {
            if method == UpstreamMethod::Forwarded(Method::ToolsList) {
                tools.observe(result);
            }
        })
    }

    /// Drops every stream.
    pub(super) fn close(&self) {
        for (_, task) in lock(&self.bodies).drain() {
            task.abort();
        }
    }

    /// The POST of one message, with the headers of the page and those of
    /// `--header-env`.
    fn post(&self, message: &Post<'_>, token: Option<&str>) -> reqwest::RequestBuilder {
        let (method, params) = (message.method, message.params);
        let mut request = self
            .client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .header("MCP-Protocol-Version", PROTOCOL_VERSION)
            .header("Mcp-Method", method.name());
        let passed = message.authorization.and_then(|a| HeaderValue::from_str(a).ok());
        let passed = passed.or_else(|| self.passed.as_ref().and_then(|p| p.header()));
        match (passed, token, &self.basic) {
            (Some(mut authorization), _, _) => {
                authorization.set_sensitive(true);
                request = request.header(reqwest::header::AUTHORIZATION, authorization);
            }
            (None, Some(token), _) => request = request.bearer_auth(token),
            // The client's authorization goes in its place: never the
            // operator's.
            (None, None, Some(_)) if self.passed.is_some() => {}
            (None, None, Some((user, password))) => request = request.basic_auth(user, password.as_ref()),
            (None, None, None) => {}
        }
        if let Some(name) = headers::name_of(method, params) {
            request = request.header("Mcp-Name", name);
        }
        if method == UpstreamMethod::Forwarded(Method::ToolsCall) {
            for (name, value) in self.tools.of_call(params) {
                request = request.header(name, value);
            }
        }
        request.body(message.body.clone())
    }

    /// A status that is not a success: the JSON-RPC error of the body goes
    /// to the request as the server's answer; without one, the request
    /// fails with the status.
    async fn failed(&self, id: u64, mut response: reqwest::Response) -> Result<(), BridgeError> {
        let status = response.status().as_u16();
        tracing::warn!(status, "the upstream server answered a request with an error status");
        let mut body = Vec::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            body.extend_from_slice(&chunk);
            if body.len() > ERROR_BODY_BYTES {
                body.clear();
                break;
            }
        }
        let error = serde_json::from_slice::<Value>(&body).ok().map(Message::classify);
        if let Some(Message::Response { id: answered, outcome: Err(error) }) = error {
            if answered == Id::number(id) {
                self.inbox.fail_with_error(id, error, status);
                return Ok(());
            }
        }
        Err(BridgeError::new(Cause::TransportFailed).with_status(status))
    }
}

/// The URL without its user information, and the decoded user name and
/// password when it had them.
fn split_user_info(url: &Url) -> (Url, Option<(String, Option<String>)>) {
    let decode = |text: &str| percent_encoding::percent_decode_str(text).decode_utf8_lossy().into_owned();
    let basic = (!url.username().is_empty() || url.password().is_some())
        .then(|| (decode(url.username()), url.password().map(decode)));
    let mut bare = url.clone();
    // Both fail only for a URL that cannot have user information.
    let _ = bare.set_username("");
    let _ = bare.set_password(None);
    (bare, basic)
}

/// An error with its sources, for the log: reqwest's own text says little
/// ("error sending request"); the sources say why (refused, TLS, DNS). The
/// URL is gone before this is called.
fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The Bearer challenge of a 401 or 403.
fn challenge_of(response: &reqwest::Response) -> auth::challenge::Challenge {
    let values: Vec<&str> =
        response.headers().get_all(reqwest::header::WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()).collect();
    auth::challenge::Challenge::parse(values)
}

fn content_type(response: &reqwest::Response) -> Option<&str> {
    let value = response.headers().get(CONTENT_TYPE)?.to_str().ok()?;
    Some(value.split(';').next().unwrap_or("").trim())
}

/// The detail of a request that did not get a status, without the URL.
fn transport_detail(err: &reqwest::Error) -> String {
    if err.is_connect() {
        "cannot connect to the upstream server".into()
    } else if err.is_timeout() {
        "the connection timed out".into()
    } else {
        "the request did not complete".into()
    }
}
