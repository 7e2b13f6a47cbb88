//! Newline-delimited JSON over a pipe: a bounded write queue with its
//! writer task, and a reader task that decodes each line and hands it to
//! the client inline. stdio uses it with a child process; the in-memory
//! link of the embedded mode can use it over a duplex.

use super::Client;
use crate::framing::{self, Frame};
use crate::jsonrpc::{BridgeError, Cause};
use crate::pipe::{write_lines, KeptBuffer, Line, LineReader};
use crate::sync::lock;
use std::sync::Mutex;
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
    /// The sending half and the queue its writer task drains.
    pub(super) fn new(stop: Option<oneshot::Sender<Stop>>) -> (Lines, mpsc::Receiver<Line>) {
        let (tx, queue) = mpsc::channel(WRITE_QUEUE);
        (Lines { writer: Mutex::new(Some(tx)), stop: Mutex::new(stop) }, queue)
    }

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

/// Starts the writer task of a pipe. It ends with an error when a write
/// failed: the far end stopped reading for good.
pub(super) fn start_writer<W>(out: W, queue: mpsc::Receiver<Line>) -> JoinHandle<std::io::Result<()>>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    tokio::spawn(write_lines(out, queue))
}

/// Reads the pipe and hands each decoded line to the client inline: the
/// next line is read only when the client is done with this one. It
/// returns at the end of the pipe; the owner of the pipe knows what that
/// end means (a child that stopped, or only closed its output) and marks
/// the connection lost with that cause.
pub(super) async fn read_lines<R: AsyncRead + Unpin>(client: Client, input: R, max_line_bytes: usize) {
    // The buffer of a big line serves the next one (`framing::KeptBuffer`).
    let spare = KeptBuffer::default();
    let mut reader = LineReader::new(input, max_line_bytes).with_spare(spare.clone());
    loop {
        match reader.next_frame().await {
            Ok(Some(Frame::Line(line))) => client.receive_bytes(line, max_line_bytes, &spare).await,
            Ok(Some(frame)) => {
                if let Some(decoded) = framing::decode(&frame, max_line_bytes, super::UPSTREAM_MAX_DEPTH) {
                    client.receive(decoded).await;
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

/// Starts both halves of a pipe whose far end no process of ours owns
/// (the in-memory link): the end of either half is the loss of the
/// connection, with the cause `closed`.
pub(super) fn start_link<R, W>(
    client: Client,
    (read, write): (R, W),
    queue: mpsc::Receiver<Line>,
    max_line_bytes: usize,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let writer = start_writer(write, queue);
    tokio::spawn(async move {
        let reader = read_lines(client.clone(), read, max_line_bytes);
        tokio::pin!(reader);
        tokio::select! {
            () = &mut reader => {}
            Ok(Err(_)) = writer => {}
        }
        client.mark_lost(BridgeError::new(Cause::Closed));
    });
}
