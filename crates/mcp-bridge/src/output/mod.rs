//! Where the front end writes: the one writer task of a client's stream
//! (stdio: each message whole, with its `\n`; a burst is flushed once), or
//! the streams of an HTTP session (`routes`: one per request, and one for
//! the session). A response goes out through [`Output::respond`], which
//! holds it when it belongs to a batch of the client (`held`) or sends it
//! on its request's stream; a handle made by [`Output::for_request`] sends
//! what relates to that request (progress, questions) on its stream.

mod held;
mod routes;

use crate::jsonrpc::{Id, IdKey};
use crate::pipe::{write_lines, Line};
use bytes::Bytes;
use held::{Gathered, Held};
pub(crate) use routes::{Event, Routes};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Messages waiting for stdout.
const QUEUE: usize = 4096;

/// A handle to where the client's messages go. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Output {
    sink: Sink,
    held: Arc<Held>,
    /// The request this handle writes for, on a link with a stream per
    /// request.
    scope: Option<Arc<IdKey>>,
}

#[derive(Clone)]
enum Sink {
    /// One stream for everything (stdio), which waits while its queue is
    /// full: the client's pipe sets the pace.
    Stream(mpsc::Sender<Line>),
    /// A stream per request and one for the session (an HTTP session);
    /// nothing waits.
    Routed(Arc<Routes>),
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
        (Output { sink: Sink::Stream(tx), held: Arc::default(), scope: None }, task)
    }

    /// The output of a client with a stream per request (an HTTP session).
    pub(crate) fn routed(routes: Arc<Routes>) -> Output {
        Output { sink: Sink::Routed(routes), held: Arc::default(), scope: None }
    }

    /// A handle that writes for request `id`: what relates to it goes on
    /// its stream where it has one.
    pub(crate) fn for_request(&self, id: &Id) -> Output {
        let scope = match self.sink {
            Sink::Routed(_) => Some(Arc::new(id.key())),
            Sink::Stream(_) => None,
        };
        Output { scope, ..self.clone() }
    }

    /// Queues a message, waiting while the queue is full.
    pub(crate) async fn send(&self, message: &Value) {
        self.send_line(crate::jsonrpc::json_line(message)).await;
    }

    /// Queues a line that is JSON already (the embedded mode relays the
    /// lines of rmcp's server byte for byte; a result response is written
    /// as its line), waiting while the queue is full.
    pub(crate) async fn send_line(&self, line: Vec<u8>) {
        match &self.sink {
            Sink::Stream(tx) => {
                let _ = tx.send(Line::Text(line)).await;
            }
            Sink::Routed(routes) => routes.send(self.scope.as_deref(), Line::Text(line)),
        }
    }

    /// Queues a message without waiting; drops it when the queue is full.
    /// For progress and log messages, which the reader of the upstream
    /// server sends inline and which must never stall it.
    pub(crate) fn offer(&self, message: &Value) {
        let line = Line::Text(crate::jsonrpc::json_line(message));
        match &self.sink {
            Sink::Stream(tx) => {
                if tx.try_send(line).is_err() {
                    tracing::debug!("dropped a notification: the output queue is full");
                }
            }
            Sink::Routed(routes) => routes.send(self.scope.as_deref(), line),
        }
    }
}

impl Output {
    /// Queues the response of the request `id` (its JSON text): on its own
    /// line or its request's stream, or into the batch that holds it.
    pub(crate) async fn respond(&self, id: &Id, response: Vec<u8>) {
        self.respond_line(id, Line::Text(response)).await;
    }

    /// [`Output::respond`] for a response in pieces (the raw path).
    pub(crate) async fn respond_pieces(&self, id: &Id, pieces: Vec<Bytes>) {
        self.respond_line(id, Line::Pieces(pieces)).await;
    }

    async fn respond_line(&self, id: &Id, line: Line) {
        let tx = match &self.sink {
            Sink::Routed(routes) => {
                if routes.respond(&id.key(), line).is_err() {
                    // No stream waits for it (its POST went away): a session's
                    // stream takes no response.
                    tracing::debug!(id = %id.shown(), "dropped a response whose request has no stream");
                }
                return;
            }
            Sink::Stream(tx) => tx,
        };
        if !self.held.any() {
            let _ = tx.send(line).await;
            return;
        }
        let text = match line {
            Line::Text(text) => text,
            Line::Pieces(pieces) => pieces.concat(),
        };
        match self.held.fill(|| id.key(), Some(text)) {
            Err(Some(line)) | Ok(Some(line)) => self.send_line(line).await,
            Err(None) | Ok(None) => {}
        }
    }

    /// The request `id` ends without a response (the client canceled it):
    /// a batch or a stream that waits for it waits no more.
    pub(crate) async fn unanswered(&self, id: &Id) {
        if let Sink::Routed(routes) = &self.sink {
            return routes.forget(&id.key());
        }
        if let Ok(Some(array)) = self.held.fill(|| id.key(), None) {
            self.send_line(array).await;
        }
    }

    /// The input ended and every request in flight was canceled: each
    /// batch goes out with the responses it has.
    pub(crate) async fn unanswered_all(&self) {
        if let Sink::Stream(_) = self.sink {
            for array in self.held.abandon_all() {
                self.send_line(array).await;
            }
        }
    }

    /// A batch of the client: the responses of the requests it holds go
    /// out as one array, once it is sealed and the last one came. Only a
    /// link of one stream gathers them; another link answers each on the
    /// stream of its request.
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
