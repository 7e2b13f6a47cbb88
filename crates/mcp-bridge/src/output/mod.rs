//! The writer task: the only code that writes the client's stdout. Each
//! message goes out whole, with its `\n`; a burst is flushed once.

use crate::pipe::{write_lines, Line};
use bytes::Bytes;
use serde_json::Value;
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Messages waiting for stdout.
const QUEUE: usize = 4096;

/// A handle to the writer task. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Output {
    tx: mpsc::Sender<Line>,
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
        (Output { tx }, task)
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
