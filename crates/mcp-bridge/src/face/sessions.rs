//! The sessions of the face: each one client, with the front end of the
//! behaviour spec of its own (`frontend::Connection`) and its streams
//! (`output::Routes`). A session id is 32 bytes of the OS's CSPRNG in hex;
//! the table is bounded, and a session that nobody uses for the idle time
//! ends with its upstream work.

use super::resume::Streams;
use crate::framing::Decoded;
use crate::frontend::{Config, Connection, Exit, Output};
use crate::output::Routes;
use crate::profile::Revision;
use crate::sync::lock;
use crate::upstream::http::passed::Passed;
use crate::upstream::UpstreamSpec;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How many messages of a session's stream wait while no GET reads it.
const BACKLOG: usize = 256;
/// A session that has not sent `initialize` this long after it opened
/// (an HTTP+SSE stream that only holds a place) ends.
const INITIALIZE_WITHIN: Duration = Duration::from_secs(60);

/// One client of the face.
pub(crate) struct Session {
    pub id: String,
    /// A session of HTTP+SSE (2024-11-05), whose one stream carries
    /// everything; else of Streamable HTTP.
    pub legacy: bool,
    /// With `--pass-authorization`: the client's authorization for its
    /// upstream, and what the upstream said of it.
    pub passed: Option<Arc<Passed>>,
    connection: Connection,
    pub routes: Arc<Routes>,
    /// The messages of one POST at a time, in the order the POSTs came.
    order: tokio::sync::Mutex<()>,
    /// When a request of the client last came or a stream of it last
    /// ended, and how many of its requests and streams are open now.
    seen: Mutex<Instant>,
    open: AtomicUsize,
    opened: Instant,
    /// Fires when the session ends; its streams end with it.
    pub ended: CancellationToken,
    /// Its request streams, which a client may take up again.
    pub streams: Arc<Streams>,
    /// The revision once negotiated, which stays when the upstream is
    /// lost later.
    negotiated: std::sync::OnceLock<Revision>,
}

impl Session {
    fn new(id: String, config: Config, legacy: bool, passed: Option<Arc<Passed>>) -> Session {
        let routes = Routes::new(BACKLOG, legacy);
        let connection = Connection::open(config, Output::routed(routes.clone()));
        Session {
            id,
            legacy,
            passed,
            connection,
            routes,
            order: tokio::sync::Mutex::const_new(()),
            seen: Mutex::new(Instant::now()),
            open: AtomicUsize::new(0),
            opened: Instant::now(),
            ended: CancellationToken::new(),
            streams: Arc::default(),
            negotiated: std::sync::OnceLock::new(),
        }
    }

    /// Hands the messages of one request of the client to the front end,
    /// in order, one POST after the other.
    pub(crate) async fn deliver(&self, messages: Vec<Decoded>) {
        let _order = self.order.lock().await;
        for message in messages {
            self.connection.receive_decoded(message).await;
        }
    }

    /// The revision the client negotiated, once it is ready.
    pub(crate) fn revision(&self) -> Option<Revision> {
        if let Some(revision) = self.negotiated.get() {
            return Some(*revision);
        }
        let revision = self.connection.revision()?;
        Some(*self.negotiated.get_or_init(|| revision))
    }

    /// Marks a request or a stream of the client open until the guard
    /// drops: an open session does not expire.
    pub(crate) fn busy(self: &Arc<Self>) -> Busy {
        self.open.fetch_add(1, Ordering::AcqRel);
        *lock(&self.seen) = Instant::now();
        Busy(self.clone())
    }

    fn idle_since(&self) -> Option<Instant> {
        (self.open.load(Ordering::Acquire) == 0).then(|| *lock(&self.seen))
    }

    /// Whether it ends now: unused for `idle`, or still without an
    /// `initialize` [`INITIALIZE_WITHIN`] after it opened.
    fn expired(&self, now: Instant, idle: Duration) -> bool {
        let unused = self.idle_since().is_some_and(|since| now.duration_since(since) >= idle);
        let never_initialized =
            now.duration_since(self.opened) >= INITIALIZE_WITHIN && self.connection.awaits_initialize();
        unused || never_initialized
    }

    /// Ends the session: its streams close, its requests in flight are
    /// canceled without a response, its upstream work stops.
    async fn close(&self) {
        self.ended.cancel();
        self.streams.clear();
        self.connection.close(Exit::EndOfInput).await;
        self.routes.close();
    }
}

/// A request or a stream of a session in progress.
pub(crate) struct Busy(Arc<Session>);

impl Drop for Busy {
    fn drop(&mut self) {
        *lock(&self.0.seen) = Instant::now();
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The table of sessions.
pub(crate) struct Sessions {
    config: Config,
    max: usize,
    idle: Duration,
    passing: bool,
    table: Mutex<HashMap<String, Arc<Session>>>,
    /// The sessions that end in a task of their own (`end_soon`).
    closing: TaskTracker,
}

impl Sessions {
    /// `passing`: each session's upstream at a URL takes its client's own
    /// authorization.
    pub(crate) fn new(config: Config, max: usize, idle: Duration, passing: bool) -> Arc<Sessions> {
        Arc::new(Sessions { config, max, idle, passing, table: Mutex::default(), closing: TaskTracker::new() })
    }

    /// A new session, in the table, unless the table is full. `legacy`:
    /// a session of the HTTP+SSE transport, whose responses go on its one
    /// stream.
    pub(crate) fn open(self: &Arc<Self>, legacy: bool) -> Option<Arc<Session>> {
        let id = new_id()?;
        let mut table = lock(&self.table);
        if table.len() >= self.max {
            return None;
        }
        let mut config = self.config.clone();
        let mut passed = None;
        if let (true, UpstreamSpec::Http(options)) = (self.passing, &mut config.upstream) {
            let cell = Arc::new(Passed::default());
            options.passed = Some(cell.clone());
            passed = Some(cell);
        }
        let session = Arc::new(Session::new(id.clone(), config, legacy, passed));
        table.insert(id, session.clone());
        drop(table);
        self.watch_upstream(&session);
        Some(session)
    }

    /// The session of this id and transport: an `/sse` session's id is
    /// unknown to `/mcp`, and the other way round.
    pub(crate) fn get(&self, id: &str, legacy: bool) -> Option<Arc<Session>> {
        lock(&self.table).get(id).filter(|s| s.legacy == legacy).cloned()
    }

    /// Ends a session and takes it out of the table; `false` when there
    /// was none of that id.
    pub(crate) async fn end(&self, id: &str) -> bool {
        let session = lock(&self.table).remove(id);
        match session {
            Some(session) => {
                session.close().await;
                true
            }
            None => false,
        }
    }

    /// Takes a session out of the table now, and ends it in a task of its
    /// own: the client that asked (a DELETE) need not wait for the
    /// upstream to stop. `false` when there was no `/mcp` session of
    /// that id.
    pub(crate) fn end_soon(self: &Arc<Self>, id: &str) -> bool {
        let session = {
            let mut table = lock(&self.table);
            match table.get(id) {
                Some(s) if !s.legacy => table.remove(id),
                _ => None,
            }
        };
        let Some(session) = session else { return false };
        self.closing.spawn(async move { session.close().await });
        true
    }

    /// Ends every session (the face stops).
    pub(crate) async fn end_all(&self) {
        let all: Vec<Arc<Session>> = lock(&self.table).drain().map(|(_, s)| s).collect();
        futures_util::future::join_all(all.iter().map(|s| s.close())).await;
        self.closing.close();
        self.closing.wait().await;
    }

    /// Ends each session idle for longer than the idle time, every
    /// fraction of it, until `stop`.
    pub(crate) async fn expire(self: Arc<Self>, stop: CancellationToken) {
        let every = (self.idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(30));
        let mut ticks = tokio::time::interval(every);
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                _ = stop.cancelled() => return,
            }
            let now = Instant::now();
            let idle: Vec<String> =
                lock(&self.table).values().filter(|s| s.expired(now, self.idle)).map(|s| s.id.clone()).collect();
            for id in idle {
                tracing::info!("a session ended after the idle time");
                self.end(&id).await;
            }
        }
    }

    /// A session whose upstream is lost ends after the grace, so that its
    /// client gets 404 and initializes a new one.
    fn watch_upstream(self: &Arc<Self>, session: &Arc<Session>) {
        let (sessions, session) = (Arc::downgrade(self), Arc::downgrade(session));
        let grace = self.config.timeouts.shutdown_grace;
        tokio::spawn(async move {
            let Some(watched) = session.upgrade() else { return };
            let ended = watched.ended.clone();
            tokio::select! {
                _ = watched.connection.upstream_lost() => {}
                _ = ended.cancelled() => return,
            }
            drop(watched);
            tokio::time::sleep(grace).await;
            if let (Some(sessions), Some(session)) = (sessions.upgrade(), session.upgrade()) {
                sessions.end(&session.id).await;
            }
        });
    }
}

/// A new session id: 32 bytes of the OS's CSPRNG, in hex (visible ASCII,
/// as the transport asks); `None` when the OS gives no random bytes.
fn new_id() -> Option<String> {
    let mut bytes = [0u8; 32];
    if let Err(err) = getrandom::fill(&mut bytes) {
        tracing::error!(error = %err, "the OS gave no random bytes for a session id");
        return None;
    }
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_is_64_hex_digits_and_new_each_time() {
        let (a, b) = (new_id(), new_id());
        assert_eq!(a.as_ref().map(String::len), Some(64));
        assert!(a.as_ref().is_some_and(|id| id.bytes().all(|c| c.is_ascii_hexdigit())));
        assert_ne!(a, b);
    }
}
