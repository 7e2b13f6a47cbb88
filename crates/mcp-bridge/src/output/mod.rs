//! The writer task: the only code that writes the client's stdout. Each
//! message goes out whole, with its `\n`; a burst is flushed once. A
//! response goes out through [`Output::respond`], which holds it when it
//! belongs to a batch of the client (`held`).

mod held;

use crate::jsonrpc::Id;
use crate::pipe::{write_lines, Line};
use bytes::Bytes;
use held::{Gathered, Held};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Messages waiting for stdout.
const QUEUE: usize = 4096;

/// A handle to the writer task. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Output {
    tx: mpsc::Sender<Line>,
    held: Arc<Held>,
}

impl Output {
    /// Starts the writer task on `out`.
    pub(crate) fn start<W: AsyncWrite + Unpin + Send + 'static>(out: W) -> (Output, JoinHandle<()>) {
        let (tx, rx) = mpsc::channel::<Line>(QUEUE);
        let task = tokio::spawn(async move {
            // The client's stdout is gone: nobody is left to tell.
            if let Err(err) = write_lines(out, rx).await {
                tracing::debug!(error = %err, "cannot write the output of the client");
            }
        });
        (Output { tx, held: Arc::default() }, task)
    }

    /// Queues a message, waiting while the queue is full.
    pub(crate) async fn send(&self, message: &Value) {
        let _ = self.tx.send(Line::Text(crate::jsonrpc::json_line(message))).await;
    }

    /// Queues a line that is JSON already (the embedded mode relays the
    /// lines of rmcp's server byte for byte; a result response is written
    /// as its line), waiting while the queue is full.
    pub(crate) async fn send_line(&self, line: Vec<u8>) {
        let _ = self.tx.send(Line::Text(line)).await;
    }

    /// Queues a message given as its JSON text in pieces (the raw path of
    /// results), waiting while the queue is full.
    pub(crate) async fn send_pieces(&self, pieces: Vec<Bytes>) {
        let _ = self.tx.send(Line::Pieces(pieces)).await;
    }

    /// Queues a message without waiting; drops it when the queue is full.
    /// For progress and log messages, which the reader of the upstream
    /// server sends inline and which must never stall it.
    pub(crate) fn offer(&self, message: &Value) {
        if self.tx.try_send(Line::Text(crate::jsonrpc::json_line(message))).is_err() {
            tracing::debug!("dropped a notification: the output queue is full");
        }
    }
}

impl Output {
    /// Queues the response of the request `id` (its JSON text): on its own
    /// line, or into the batch that holds it.
    pub(crate) async fn respond(&self, id: &Id, response: Vec<u8>) {
        match self.held.fill(|| id.key(), Some(response)) {
            Err(Some(line)) | Ok(Some(line)) => self.send_line(line).await,
            Err(None) | Ok(None) => {}
        }
    }

    /// [`Output::respond`] for a response in pieces (the raw path).
    pub(crate) async fn respond_pieces(&self, id: &Id, pieces: Vec<Bytes>) {
        if !self.held.any() {
            return self.send_pieces(pieces).await;
        }
        self.respond(id, pieces.concat()).await;
    }

    /// The request `id` ends without a response (the client canceled it):
    /// a batch that holds it waits for it no more.
    pub(crate) async fn unanswered(&self, id: &Id) {
        if let Ok(Some(array)) = self.held.fill(|| id.key(), None) {
            self.send_line(array).await;
        }
    }

    /// A batch of the client: the responses of the requests it holds go
    /// out as one array, once it is sealed and the last one came.
    pub(crate) fn batch(&self) -> Batch {
        Batch { gathered: Held::open(), out: self.clone() }
    }
}

/// A batch of the client, while its elements are read.
pub(crate) struct Batch {
    gathered: Arc<Mutex<Gathered>>,
    out: Output,
}

impl Batch {
    /// Holds the response of the request `id`, an element of the batch.
    pub(crate) fn hold(&self, id: &Id) {
        self.out.held.hold(&self.gathered, id.key());
    }

    /// The response of an element that is not valid, known at once.
    pub(crate) fn add(&self, response: &Value) {
        Held::add(&self.gathered, crate::jsonrpc::json_line(response));
    }

    /// Every element was read: the array goes when nothing else waits.
    pub(crate) async fn seal(self) {
        if let Some(array) = Held::seal(&self.gathered) {
            self.out.send_line(array).await;
        }
    }
}
