//! The redirect listener of a sign-in, on 127.0.0.1 only: a one-time start
//! URL that sends the browser on to the authorization URL once (M6), and
//! the redirect URI that receives the code.
//!
//! Two GET routes and no bodies: a small reader of the request head is all
//! it needs (`head`), so no HTTP server is linked in for it; `gate` decides
//! what each request gets and when the sign-in ends.
//!
//! Each connection is served by a task of its own: it has [`READ_LIMIT`]
//! to send a head of at most [`HEAD_BYTES`], then gets its page within
//! [`WRITE_LIMIT`] and is closed. So a socket that stays idle or trickles
//! its bytes holds only its own place, never the browser's request. At
//! most [`MAX_CONNECTIONS`] are open at once: a new connection beyond them
//! closes the oldest one that is still sending its head, unanswered. A
//! browser sends its head as soon as it connects, so a local process that
//! keeps opening sockets can neither delay its request nor crowd it out,
//! unless it opens that many in the moment between the browser's connect
//! and its request.

pub(crate) mod gate;
pub(crate) mod head;

pub(crate) use gate::{Redirect, CALLBACK_PATH};

use crate::gate::url::CheckedUrl;
use crate::jsonrpc::{BridgeError, Cause};
use gate::{Gate, Outcome, Page, Route};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{AbortHandle, JoinSet};

/// The most of a request that is read: the request line and headers.
const HEAD_BYTES: usize = 16 * 1024;
/// The time a connection has to send its head. A browser sends it at once.
const READ_LIMIT: Duration = Duration::from_secs(3);
/// The time a page has to go out: a few hundred bytes, which the socket's
/// buffer takes at once unless the peer stopped reading.
const WRITE_LIMIT: Duration = Duration::from_secs(1);
/// The connections served at once.
const MAX_CONNECTIONS: usize = 16;
/// The pause after a failed accept (no file descriptor left, say), so that
/// a lasting failure does not spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Binds the listener on 127.0.0.1:`port`; a port in use is
/// `redirect_port_unavailable` with the port in the message, never a walk
/// to another port.
pub(crate) async fn bind(port: u16) -> Result<TcpListener, BridgeError> {
    TcpListener::bind(("127.0.0.1", port)).await.map_err(|err| {
        tracing::warn!(port, error = %err, "cannot listen on the redirect port");
        let mut error = BridgeError::new(Cause::RedirectPortUnavailable);
        error.message = error.message.replace("{port}", &port.to_string());
        error
    })
}

/// What the tasks of the connections share: the routes and the gate.
struct Shared {
    start_path: String,
    auth_url: String,
    state: String,
    gate: Mutex<Gate>,
}

impl Shared {
    fn route(&self) -> Route<'_> {
        Route { start_path: &self.start_path, auth_url: &self.auth_url, state: &self.state }
    }
}

/// A connection being served. `reading` is true while its head is not
/// read yet: only then may a newer connection close it (whichever of the
/// two takes the flag first wins, so an answer that ends the sign-in is
/// never cut off).
struct Connection {
    task: AbortHandle,
    reading: Arc<AtomicBool>,
}

impl Connection {
    /// Closes the connection when it still sends its head.
    fn evict(&self) -> bool {
        let taken = self.reading.compare_exchange(true, false, Ordering::AcqRel, Ordering::Acquire).is_ok();
        if taken {
            self.task.abort();
        }
        taken
    }
}

/// Serves the start URL (`/start/<nonce>`) and the redirect URI until the
/// redirect with the right `state` comes. A second GET of the start URL
/// before it stops the sign-in with `sign_in_start_reused`. The caller's
/// time limit ends the wait; the connections still open close with it.
pub(crate) async fn serve(
    listener: &TcpListener,
    start_path: &str,
    auth_url: &CheckedUrl,
    state: &str,
) -> Result<Redirect, BridgeError> {
    let shared = Arc::new(Shared {
        start_path: start_path.to_owned(),
        auth_url: auth_url.as_str().to_owned(),
        state: state.to_owned(),
        gate: Mutex::new(Gate::default()),
    });
    let mut tasks = JoinSet::new();
    let mut open: VecDeque<Connection> = VecDeque::new();
    loop {
        tokio::select! {
            accepted = accept(listener) => {
                let Some(stream) = accepted else { continue };
                open.retain(|c| !c.task.is_finished());
                if open.len() >= MAX_CONNECTIONS {
                    match open.iter().position(Connection::evict) {
                        Some(oldest) => drop(open.remove(oldest)),
                        // Every place answers a request that was read: the
                        // new connection waits for none of them.
                        None => continue,
                    }
                    tracing::debug!(limit = MAX_CONNECTIONS, "the redirect listener closed its oldest connection");
                }
                let reading = Arc::new(AtomicBool::new(true));
                let task = tasks.spawn(connection(stream, shared.clone(), reading.clone()));
                open.push_back(Connection { task, reading });
            }
            Some(done) = tasks.join_next() => {
                // A task that was closed (or failed) ends no sign-in.
                if let Ok(Some(outcome)) = done {
                    return outcome;
                }
            }
        }
    }
}

/// The next connection; `None` after a pause when the accept failed.
async fn accept(listener: &TcpListener) -> Option<TcpStream> {
    match listener.accept().await {
        Ok((stream, _)) => Some(stream),
        Err(err) => {
            tracing::debug!(error = %err, "the redirect listener could not accept a connection");
            tokio::time::sleep(ACCEPT_PAUSE).await;
            None
        }
    }
}

/// Reads one request, answers it, closes the connection; gives how the
/// sign-in ends when this request ends it.
async fn connection(mut stream: TcpStream, shared: Arc<Shared>, reading: Arc<AtomicBool>) -> Option<Outcome> {
    let head = tokio::time::timeout(READ_LIMIT, head::read_head(&mut stream, HEAD_BYTES)).await;
    if reading.compare_exchange(true, false, Ordering::AcqRel, Ordering::Acquire).is_err() {
        // A newer connection took this place.
        return None;
    }
    let refused = |(status, text)| (Page { status, location: None, text }, None);
    let (answer, outcome) = match head {
        Err(_) => refused(("408 Request Timeout", "The request did not come in time.")),
        Ok(Err(refusal)) => refused(refusal.answer()),
        Ok(Ok(head)) => match head::parse(&head) {
            Ok(target) => crate::sync::lock(&shared.gate).decide(target, shared.route()),
            Err(refusal) => refused(refusal.answer()),
        },
    };
    if outcome.is_none() && answer.location.is_none() {
        tracing::debug!(status = answer.status, "the redirect listener refused a request");
    }
    respond(&mut stream, answer).await;
    outcome
}

async fn respond(stream: &mut TcpStream, answer: Page<'_>) {
    let location = answer.location.map(|l| format!("Location: {l}\r\n")).unwrap_or_default();
    let page = format!("<!doctype html><meta charset=utf-8><title>mcp-bridge</title><p>{}</p>", answer.text);
    let response = format!(
        "HTTP/1.1 {}\r\n{location}Content-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{page}",
        answer.status,
        page.len()
    );
    let write = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(WRITE_LIMIT, write).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// The listener of a sign-in on a free port, served by a task; gives
    /// the port and the task, whose output is how the sign-in ended.
    async fn start() -> (u16, tokio::task::JoinHandle<Result<Redirect, BridgeError>>) {
        let listener = bind(0).await.unwrap_or_else(|e| panic!("{e:?}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_else(|e| panic!("{e}"));
        let auth_url =
            CheckedUrl::for_sign_in("https://auth.example.com/authorize?state=s1").unwrap_or_else(|e| panic!("{e}"));
        let task = tokio::spawn(async move { serve(&listener, "/start/n", &auth_url, "s1").await });
        (port, task)
    }

    async fn connect(port: u16) -> TcpStream {
        TcpStream::connect(("127.0.0.1", port)).await.unwrap_or_else(|e| panic!("connect: {e}"))
    }

    /// The status line of the answer to `request` on `stream`.
    async fn status(mut stream: TcpStream, request: &str) -> String {
        stream.write_all(request.as_bytes()).await.unwrap_or_else(|e| panic!("write: {e}"));
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer).await;
        answer.lines().next().unwrap_or_default().to_owned()
    }

    /// The cap: a connection beyond [`MAX_CONNECTIONS`] closes the oldest
    /// one that still sends its head, unanswered, and is served itself.
    #[tokio::test]
    async fn a_connection_over_the_cap_closes_the_oldest_idle_one_and_is_served() {
        let (port, task) = start().await;
        let mut idle = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            idle.push(connect(port).await);
        }
        let start = status(connect(port).await, "GET /start/n HTTP/1.1\r\n\r\n").await;
        assert_eq!(start, "HTTP/1.1 302 Found");
        let mut oldest = idle.remove(0);
        let mut closed = Vec::new();
        oldest.read_to_end(&mut closed).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(closed, b"", "the oldest idle connection is closed unanswered");
        let done = status(connect(port).await, "GET /callback?code=c&state=s1 HTTP/1.1\r\n\r\n").await;
        assert_eq!(done, "HTTP/1.1 200 OK", "the second newest closed the next oldest idle one");
        let redirect = task.await.unwrap_or_else(|e| panic!("{e}")).map_err(|e| e.cause);
        assert_eq!(redirect.map(|r| r.code), Ok(Some("c".into())));
    }
}
