//! The HTTP face: the bridge as an HTTP server for the clients that cannot
//! start a process (issue "An HTTP face"), in front of the same upstreams
//! as stdio. Streamable HTTP at `/mcp` for clients of 2025-03-26 to
//! 2025-11-25 (`streamable`), HTTP+SSE at `/sse` for those of 2024-11-05
//! (`legacy`). Each session is one client with a front end of its own
//! (`sessions`): the behaviour spec applies to it as to a stdio client. In
//! front of a command the sessions share one child, on which each has its
//! own ids and places, so that one session's fault never reaches another
//! (docs/decisions.md, "One upstream for every session"); `health`
//! answers load balancers.
//!
//! Every request passes the door first (`gate`: Host, Origin, the bearer
//! token); every refusal is a row of `refusal`; every count and size is
//! bounded: connections, sessions, the body (the line limit), the headers,
//! the streams (one GET per session, a queue per stream that closes on a
//! slow reader).

mod body;
mod cors;
mod gate;
mod health;
mod http;
mod legacy;
mod modern;
mod params;
mod passing;
mod pool;
mod refusal;
mod resume;
mod sessions;
mod shared;
mod streamable;

use crate::frontend::Config;
use gate::Door;
use http::Body;
use hyper::header::{AUTHORIZATION, HOST, ORIGIN};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use refusal::Refusal;
use sessions::Sessions;
use shared::Face;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The time a client has to send the headers of a request.
const HEADER_READ: Duration = Duration::from_secs(10);
/// The longest a write to a client may wait for it to read.
const WRITE_LIMIT: Duration = Duration::from_secs(30);
/// The largest head of a request (its line and headers).
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// The most headers of one request.
const MAX_HEADERS: usize = 64;

/// How the face listens, and whom it lets in.
#[derive(Clone)]
#[non_exhaustive]
pub struct FaceOptions {
    /// The URL the clients reach the face at, when it is not the address
    /// it listens on (behind a proxy or a load balancer): its host passes
    /// the `Host` check and its origin the `Origin` check.
    pub public_url: Option<url::Url>,
    /// More origins whose pages may send requests (a web client's).
    pub allow_origins: Vec<String>,
    /// The token every request must bring as `Authorization: Bearer`.
    pub bearer_token: Option<String>,
    /// Each client's `Authorization` goes to the upstream at a URL
    /// unchanged, instead of a sign-in of the bridge; the upstream's
    /// refusals become the client's (`passing`).
    pub pass_authorization: bool,
    /// The most sessions at one time.
    pub max_sessions: usize,
    /// A session that nobody uses for this long ends.
    pub session_idle: Duration,
    /// In front of a command, each session starts its own child instead
    /// of sharing the one (a server that keeps state per client).
    pub child_per_session: bool,
}

impl FaceOptions {
    /// No public URL, no other origin, no token, 256 sessions that end
    /// after 30 min without use.
    pub fn new() -> FaceOptions {
        FaceOptions {
            public_url: None,
            allow_origins: Vec::new(),
            bearer_token: None,
            pass_authorization: false,
            max_sessions: 256,
            session_idle: Duration::from_secs(30 * 60),
            child_per_session: false,
        }
    }
}

impl Default for FaceOptions {
    fn default() -> Self {
        FaceOptions::new()
    }
}

impl std::fmt::Debug for FaceOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a secret: only whether there is one.
        f.debug_struct("FaceOptions")
            .field("public_url", &self.public_url.as_ref().map(|u| u.origin().ascii_serialization()))
            .field("allow_origins", &self.allow_origins)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<set>"))
            .field("pass_authorization", &self.pass_authorization)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle", &self.session_idle)
            .field("child_per_session", &self.child_per_session)
            .finish()
    }
}

/// Serves the HTTP face on `listener` until `stop` fires: each session
/// gets a front end with `config`. At the end every session ends (its
/// requests canceled, its upstream closed) and the open connections get
/// the shutdown grace to finish.
pub async fn serve_http(
    listener: TcpListener,
    config: Config,
    options: FaceOptions,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let grace = config.timeouts.shutdown_grace;
    let passing = options.pass_authorization && passing::http_options(&config.upstream).is_some();
    let modern = pool::Upstream::new(&config, passing);
    // In front of a command every session shares the one child, unless
    // each asks for its own; a session of a URL has its own HTTP client
    // (docs/decisions.md, "One upstream for every session").
    let mut session_config = config.clone();
    session_config.by_url = true;
    if matches!(config.upstream, crate::upstream::UpstreamSpec::Stdio(_)) && !options.child_per_session {
        session_config.link = Some(modern.link.clone());
    }
    let health = health::Health::new(modern.link.clone());
    let face = Arc::new(Face {
        door: Door::new(options.public_url.as_ref(), &options.allow_origins, options.bearer_token.as_deref()),
        max_body: config.max_line_bytes,
        bodies: body::Budget::new(config.max_line_bytes),
        words: config.profile.words.clone(),
        request_id_prefix: config.profile.request_id_prefix.clone(),
        sessions: Sessions::new(session_config, options.max_sessions.max(1), options.session_idle, passing),
        modern,
        passing,
        public_url: options.public_url.clone(),
        health,
        config,
    });
    let connections = Arc::new(Semaphore::new(max_connections(options.max_sessions)));
    let tasks = TaskTracker::new();
    tasks.spawn(face.sessions.clone().expire(stop.clone()));
    let mut refused = Refused::default();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // A client that left before its accept, or no descriptor
                    // left for a moment: the face goes on.
                    tracing::debug!(error = %err, "an accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            _ = stop.cancelled() => break,
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            refused.count();
            continue;
        };
        let Ok(local) = stream.local_addr() else { continue };
        // Small events go out at once: Nagle's wait for the client's
        // delayed ACK held each response some 40 ms.
        let _ = stream.set_nodelay(true);
        let (face, stop) = (face.clone(), stop.clone());
        tasks.spawn(async move {
            connection(face, stream, (local, peer), stop).await;
            drop(permit);
            tracing::trace!(%peer, "a connection ended");
        });
    }
    drop(listener);
    face.sessions.end_all().await;
    face.modern.close().await;
    tasks.close();
    if tokio::time::timeout(grace, tasks.wait()).await.is_err() {
        tracing::debug!("connections still open at the end of the grace");
    }
    Ok(())
}

/// The connections refused for want of a place, said at most once a
/// second with their count: a flood of them is no flood of log lines.
#[derive(Default)]
struct Refused {
    count: u64,
    said: Option<std::time::Instant>,
}

impl Refused {
    fn count(&mut self) {
        self.count += 1;
        if self.said.is_some_and(|said| said.elapsed() < Duration::from_secs(1)) {
            return;
        }
        tracing::warn!(count = self.count, "refused connections: the face has the most connections it allows");
        self.said = Some(std::time::Instant::now());
        self.count = 0;
    }
}

/// The connections at one time: a GET and a few POSTs per session.
fn max_connections(max_sessions: usize) -> usize {
    max_sessions.saturating_mul(4).clamp(64, 16_384)
}

/// One connection of a client, until it closes or the face stops.
async fn connection(
    face: Arc<Face>,
    stream: tokio::net::TcpStream,
    (local, peer): (SocketAddr, SocketAddr),
    stop: CancellationToken,
) {
    let service = service_fn(move |request| {
        let face = face.clone();
        async move { Ok::<_, Infallible>(route(&face, (local, peer), request).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ)
        .max_buf_size(MAX_HEAD_BYTES)
        .max_headers(MAX_HEADERS);
    // A client that stops reading its answer holds no connection: a write
    // that makes no progress for this long ends it (a long SSE stream
    // writes a comment every 15 s).
    let mut stream = tokio_io_timeout::TimeoutStream::new(stream);
    stream.set_write_timeout(Some(WRITE_LIMIT));
    let served = builder.serve_connection(TokioIo::new(Box::pin(stream)), service);
    tokio::pin!(served);
    tokio::select! {
        result = served.as_mut() => {
            if let Err(err) = result {
                tracing::debug!(error = %err, "a connection of a client failed");
            }
        }
        _ = stop.cancelled() => {
            served.as_mut().graceful_shutdown();
            let _ = served.await;
        }
    }
}

/// The door, then the path. A page that the door lets in (its `Origin`
/// the face's own or allowed) gets the answers of CORS (`cors`).
async fn route(
    face: &Arc<Face>,
    (local, peer): (SocketAddr, SocketAddr),
    request: Request<hyper::body::Incoming>,
) -> Response<Body> {
    let headers = request.headers();
    // One Host and one Origin: two are a request that means two things.
    if headers.get_all(HOST).iter().count() > 1 || headers.get_all(ORIGIN).iter().count() > 1 {
        return http::refused(Refusal::TwoHeaders);
    }
    // An absolute-form target names the host the request is for.
    let authority = request.uri().authority().map(|a| a.as_str().to_owned());
    let host = authority.as_deref().or_else(|| http::header(headers, HOST.as_str()));
    let origin = match headers.get(ORIGIN).map(|v| v.to_str()) {
        None => None,
        Some(Ok(origin)) => Some(origin.to_owned()),
        // Present but not text: present and not the face's.
        Some(Err(_)) => return http::refused(Refusal::ForeignOrigin),
    };
    let path = request.uri().path().to_owned();
    let allow = allowed_methods(face, &path);
    if request.method() == Method::OPTIONS {
        // A browser's preflight carries no credentials: only its place.
        if let Err(refusal) = face.door.check_place(local, host, origin.as_deref()) {
            return http::refused(refusal);
        }
        let requested = http::header(headers, "access-control-request-headers");
        return match (origin.as_deref(), allow) {
            (Some(origin), Some(allow)) => cors::preflight(origin, allow, requested),
            (_, Some(allow)) => http::not_allowed(allow),
            (_, None) => http::refused(Refusal::NotFound),
        };
    }
    if path == "/health" && request.method() == Method::GET {
        // A load balancer's probe brings no token: it learns only whether
        // the face can serve.
        if let Err(refusal) = face.door.check_place(local, host, origin.as_deref()) {
            return http::refused(refusal);
        }
        let probes = matches!(face.config.upstream, crate::upstream::UpstreamSpec::Stdio(_));
        return face.health.answer(probes).await;
    }
    let mut response =
        match face.door.check(local, host, origin.as_deref(), http::header(headers, AUTHORIZATION.as_str())) {
            // A page of the face's place may read every answer, a 401 too:
            // its `WWW-Authenticate` is what the page signs in with.
            Err(Refusal::Unauthorized) => http::refused(Refusal::Unauthorized),
            Err(refusal) => return http::refused(refusal),
            Ok(()) => serve_path(face, (local, peer), request, allow).await,
        };
    if let Some(origin) = origin {
        cors::allow_origin(&mut response, &origin);
    }
    response
}

/// The methods a path takes; `None` for a path the face does not serve.
fn allowed_methods(face: &Face, path: &str) -> Option<&'static str> {
    match path {
        "/mcp" => Some("GET, POST, DELETE"),
        "/sse" => Some("GET"),
        "/messages" => Some("POST"),
        "/health" => Some("GET"),
        path if face.passing && passing::METADATA_PATHS.contains(&path) => Some("GET"),
        _ => None,
    }
}

async fn serve_path(
    face: &Arc<Face>,
    (local, peer): (SocketAddr, SocketAddr),
    request: Request<hyper::body::Incoming>,
    allow: Option<&'static str>,
) -> Response<Body> {
    match (request.method(), request.uri().path()) {
        (&Method::POST, "/mcp") => streamable::post(face, (local, peer), request).await,
        (&Method::GET, "/mcp") => streamable::get(face, request).await,
        (&Method::DELETE, "/mcp") => streamable::delete(face, request).await,
        (&Method::GET, "/sse") => legacy::open(face, request).await,
        (&Method::POST, "/messages") => legacy::post(face, request).await,
        (&Method::GET, path) if face.passing && passing::METADATA_PATHS.contains(&path) => {
            let resource = passing::resource(face.public_url.as_ref(), local);
            let from_challenge = face.modern.last_challenge();
            match passing::http_options(&face.config.upstream) {
                Some(upstream) => passing::metadata(upstream, from_challenge.as_deref(), &resource).await,
                None => http::refused(Refusal::NotFound),
            }
        }
        _ => match allow {
            Some(allow) => http::not_allowed(allow),
            None => http::refused(Refusal::NotFound),
        },
    }
}
