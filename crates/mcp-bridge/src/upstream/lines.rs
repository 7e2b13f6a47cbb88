//! Newline-delimited JSON over a pipe, the transport of stdio and of the
//! in-memory link: a bounded write queue with its writer task, and a
//! reader task that decodes each line and hands it to the inbox inline.
//! Both start the same way ([`open`], then [`Pipe::start`]); they differ
//! only in who owns the far end and so names the cause of its end.

use super::inbox::{Inbox, UPSTREAM_MAX_DEPTH};
use crate::framing::{self, Frame};
use crate::jsonrpc::{BridgeError, Cause};
use crate::pipe::{write_lines, KeptBuffer, Line, LineReader};
use crate::sync::lock;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// Lines waiting for the pipe.
const WRITE_QUEUE: usize = 256;
/// The longest a line of [`Lines::send_soon`] waits for room in the queue.
const LATE_LINE_WAIT: Duration = Duration::from_secs(5);

/// A request to end what owns the pipe: the grace, and where to say it is
/// done.
pub(super) type Stop = (Duration, oneshot::Sender<()>);

/// The sending half of a pipe.
pub(super) struct Lines {
    /// `None` once the pipe is closed.
    writer: Mutex<Option<mpsc::Sender<Line>>>,
    /// Asks the owner of the far end (the supervisor of a child) to stop;
    /// `None` once asked, or when nothing owns the far end.
    stop: Mutex<Option<oneshot::Sender<Stop>>>,
}

impl Lines {
    /// Queues a line, waiting while the queue is full. `not_connected`
    /// when the pipe is closed, by us or because its writer failed: the
    /// owner of the pipe then marks the connection lost with the cause it
    /// knows (`Client::call` waits for it).
    pub(super) async fn send(&self, line: Vec<u8>) -> Result<(), BridgeError> {
        let writer = lock(&self.writer).clone();
        match writer {
            Some(tx) => tx.send(Line::Text(line)).await.map_err(|_| BridgeError::new(Cause::NotConnected)),
            None => Err(BridgeError::new(Cause::NotConnected)),
        }
    }

    /// Queues a line without making the caller wait: at once when the
    /// queue has room, else from a task of its own that waits for room at
    /// most [`LATE_LINE_WAIT`]. For cancellations: each request sends at
    /// most one, so at most one task per request in flight waits; a queue
    /// that a busy server drains late still gets them, in order after the
    /// lines of their requests, and one that never drains drops them.
    pub(super) fn send_soon(&self, line: Vec<u8>) {
        let Some(tx) = lock(&self.writer).clone() else { return };
        let line = match tx.try_send(Line::Text(line)) {
            Err(mpsc::error::TrySendError::Full(line)) => line,
            _ => return,
        };
        tokio::spawn(async move {
            if tokio::time::timeout(LATE_LINE_WAIT, tx.send(line)).await.is_err() {
                tracing::debug!("dropped a line: the upstream server does not read");
            }
        });
    }

    /// Closes the pipe (for a child, the end of its stdin), then asks the
    /// owner of the far end to stop within `grace` and waits until it did.
    pub(super) async fn close(&self, grace: Duration) {
        lock(&self.writer).take();
        let Some(stop) = lock(&self.stop).take() else {
            return;
        };
        let (done, gone) = oneshot::channel();
        if stop.send((grace, done)).is_ok() {
            let _ = gone.await;
        }
    }
}

/// The far end of a pipe and the queue of its writer, ready to start once
/// the client exists. One shape for every pipe: a child's stdin and
/// stdout, the in-memory link's duplex.
pub(super) struct Pipe<R, W> {
    read: R,
    write: W,
    queue: mpsc::Receiver<Line>,
    max_line_bytes: usize,
}

/// Opens a pipe over `read` and `write`: its sending half, for the
/// transport, and the pipe to [`Pipe::start`]. `stop` asks the owner of
/// the far end to stop (the supervisor of a child); `None` when nothing
/// owns it.
pub(super) fn open<R, W>(
    (read, write): (R, W),
    max_line_bytes: usize,
    stop: Option<oneshot::Sender<Stop>>,
) -> (Lines, Pipe<R, W>) {
    let (tx, queue) = mpsc::channel(WRITE_QUEUE);
    let lines = Lines { writer: Mutex::new(Some(tx)), stop: Mutex::new(stop) };
    (lines, Pipe { read, write, queue, max_line_bytes })
}

impl<R, W> Pipe<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Starts the writer task and the reader task, which hands each line
    /// to `inbox`.
    pub(super) fn start(self, inbox: Arc<Inbox>) -> PipeTasks {
        PipeTasks {
            writer: Some(tokio::spawn(write_lines(self.write, self.queue))),
            reader: Some(tokio::spawn(read_lines(inbox, self.read, self.max_line_bytes))),
        }
    }
}

/// The tasks of a pipe; `None` once a task ended.
pub(super) struct PipeTasks {
    writer: Option<JoinHandle<std::io::Result<()>>>,
    reader: Option<JoinHandle<()>>,
}

impl PipeTasks {
    /// Resolves when the connection ended on our side of the pipe: the
    /// reader reached the end, or a write failed (the far end stopped
    /// reading for good). The writer's own end (we closed the pipe) is no
    /// loss; then only the reader counts.
    pub(super) async fn ended(&mut self) {
        loop {
            let (reading, writing) = (self.reader.is_some(), self.writer.is_some());
            let (reader, writer) = (&mut self.reader, &mut self.writer);
            let failed = tokio::select! {
                _ = async { reader.as_mut()?.await.ok() }, if reading => {
                    self.reader = None;
                    true
                }
                written = async { writer.as_mut()?.await.ok() }, if writing => {
                    self.writer = None;
                    matches!(written, Some(Err(_)))
                }
                else => false,
            };
            if failed {
                return;
            }
            if self.reader.is_none() && self.writer.is_none() {
                return std::future::pending().await;
            }
        }
    }

    /// Gives the reader `limit` to read what is left; `false` when it did
    /// not end in time.
    pub(super) async fn drain(&mut self, limit: Duration) -> bool {
        match self.reader.as_mut() {
            Some(reader) => tokio::time::timeout(limit, reader).await.is_ok(),
            None => true,
        }
    }

    pub(super) fn abort(&self) {
        self.writer.iter().for_each(JoinHandle::abort);
        self.reader.iter().for_each(JoinHandle::abort);
    }
}

/// Reads the pipe and hands each decoded line to the inbox inline: the
/// next line is read only when the inbox is done with this one. It
/// returns at the end of the pipe; the owner of the pipe knows what that
/// end means (a child that stopped, or only closed its output) and marks
/// the connection lost with that cause.
async fn read_lines<R: AsyncRead + Unpin>(inbox: Arc<Inbox>, input: R, max_line_bytes: usize) {
    // The buffer of a big line serves the next one (`pipe::KeptBuffer`).
    let kept = KeptBuffer::default();
    let mut reader = LineReader::new(input, max_line_bytes).with_kept(kept.clone());
    loop {
        match reader.next_frame().await {
            Ok(Some(Frame::Line(line))) => inbox.receive_line(line, max_line_bytes, &kept).await,
            Ok(Some(frame)) => {
                if let Some(decoded) = framing::decode(&frame, max_line_bytes, UPSTREAM_MAX_DEPTH) {
                    inbox.receive(decoded).await;
                }
            }
            Ok(None) => break,
            Err(err) => {
                tracing::warn!(error = %err, "cannot read the upstream connection");
                break;
            }
        }
    }
    tracing::info!("the upstream connection closed");
}
