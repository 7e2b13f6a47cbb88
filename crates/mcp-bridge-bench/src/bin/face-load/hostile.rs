//! One hostile session among the others, over raw connections of its own:
//! `flood` writes pipelined `tools/call` POSTs as fast as the socket takes
//! them and never reads an answer; `slow` pipelines a few and reads their
//! answers 16 bytes every 100 ms. Either holds the server's buffers and
//! upstream work; the other sessions' p99 with and without it says whether
//! one session can stall the rest.

use crate::client::{Call, Lane, Session, Target, REVISION};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::task::JoinSet;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Flood,
    Slow,
}

impl Mode {
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "flood" => Some(Mode::Flood),
            "slow" => Some(Mode::Slow),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Flood => "flood",
            Mode::Slow => "slow",
        }
    }
}

/// Requests a slow reader pipelines on each connection before it reads.
const SLOW_PIPELINE: usize = 8;

/// The running hostile session.
pub struct Hostile {
    stop: watch::Sender<bool>,
    tasks: JoinSet<()>,
    /// Requests written.
    pub written: Arc<AtomicU64>,
    /// Connections the server ended under it.
    pub ended: Arc<AtomicU64>,
}

impl Hostile {
    /// Opens its session and starts its connections.
    pub async fn start(target: &Arc<Target>, call: &Call, mode: Mode, connections: usize) -> Result<Hostile, String> {
        let mut lane = Lane::new(target.clone());
        let session = lane.open().await.map_err(|f| format!("the hostile session did not open: {f}"))?;
        let (stop, stopped) = watch::channel(false);
        let written = Arc::new(AtomicU64::new(0));
        let ended = Arc::new(AtomicU64::new(0));
        let mut tasks = JoinSet::new();
        for _ in 0..connections {
            let request = Arc::new(RequestText::new(target, &session));
            let body_of = call_bodies(call, &session);
            let (target, mut stopped, written, ended) =
                (target.clone(), stopped.clone(), written.clone(), ended.clone());
            tasks.spawn(async move {
                let work = connection_loop(&target, &request, body_of, mode, &written, &ended);
                tokio::select! {
                    () = work => {}
                    _ = stopped.changed() => {}
                }
            });
        }
        Ok(Hostile { stop, tasks, written, ended })
    }

    /// Stops it and drops its connections.
    pub async fn stop(mut self) {
        let _ = self.stop.send(true);
        while self.tasks.join_next().await.is_some() {}
    }
}

/// The head of a POST of this session, before its `Content-Length`.
struct RequestText {
    head: String,
}

impl RequestText {
    fn new(target: &Target, session: &Session) -> RequestText {
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: {REVISION}\r\n",
            target.path, target.host, session.id
        );
        RequestText { head }
    }

    fn with_body(&self, body: &[u8]) -> Vec<u8> {
        let mut bytes = format!("{}Content-Length: {}\r\n\r\n", self.head, body.len()).into_bytes();
        bytes.extend_from_slice(body);
        bytes
    }
}

/// The bodies of its calls, each with the session's next id.
fn call_bodies(call: &Call, session: &Session) -> impl FnMut() -> bytes::Bytes {
    let call = call.clone();
    let session = session.clone();
    move || call.body(session.next_id())
}

/// Connects again whenever the server ends the connection, until stopped.
async fn connection_loop(
    target: &Target,
    request: &RequestText,
    mut body_of: impl FnMut() -> bytes::Bytes,
    mode: Mode,
    written: &AtomicU64,
    ended: &AtomicU64,
) {
    loop {
        let Ok(mut stream) = TcpStream::connect(target.addr).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        match mode {
            Mode::Flood => loop {
                // Blocks once the server stops reading: its answers fill
                // the socket, since nothing here reads them.
                if stream.write_all(&request.with_body(&body_of())).await.is_err() {
                    break;
                }
                written.fetch_add(1, Ordering::Relaxed);
            },
            Mode::Slow => {
                for _ in 0..SLOW_PIPELINE {
                    if stream.write_all(&request.with_body(&body_of())).await.is_err() {
                        break;
                    }
                    written.fetch_add(1, Ordering::Relaxed);
                }
                let mut buffer = [0u8; 16];
                while matches!(stream.read(&mut buffer).await, Ok(n) if n > 0) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        ended.fetch_add(1, Ordering::Relaxed);
    }
}
