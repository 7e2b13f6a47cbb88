//! The front end: a server of the client's revision (2024-11-05 to
//! 2025-11-25) toward the client, as a state machine that does not know
//! which transport is behind the upstream client (behaviour spec,
//! "Lifecycle and initialize (M1)").
//!
//! A [`Connection`] is one client, fed line by line by its link (stdio
//! here, an HTTP session in the face) and writing to the [`Output`] the
//! link gives it. It handles each message at once; every forwarded
//! request and the initialize run in their own task with their own
//! cancellation token.

mod asks;
mod config;
mod consent;
mod dispatch;
mod forward;
mod initialize;
mod rounds;
mod state;
mod subscriptions;

pub(crate) use crate::output::Output;
#[cfg(feature = "embed")]
pub(crate) use config::MAX_LINE_BYTES;
pub use config::{Config, NoteSink, Timeouts};
pub(crate) use state::Phase;

use crate::framing::{Decoded, Frame};
use crate::jsonrpc::Cause;
use crate::pipe::LineReader;
use crate::profile::Revision;
use state::{Kept, Listen, Shared};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::task::AbortOnDropHandle;

/// Why [`serve`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Exit {
    /// The input of the client ended: the connection is over.
    EndOfInput,
    /// The upstream server was lost (it stopped, or its connection closed).
    UpstreamLost,
}

/// Serves one client connection until its input ends or the upstream
/// server is lost.
pub async fn serve<R, W>(config: Config, input: R, output: W) -> Exit
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let _floor = timer_floor();
    let (out, writer) = Output::start(output);
    let connection = Connection::open(config, out);
    let mut reader = LineReader::new(input, connection.shared.config.max_line_bytes);
    let mut linger: Option<std::pin::Pin<Box<tokio::time::Sleep>>> = None;
    let exit = loop {
        tokio::select! {
            frame = reader.next_frame() => match frame {
                Ok(Some(frame)) => connection.receive(&frame).await,
                Ok(None) => break connection.exit_at_end_of_input(),
                Err(err) => {
                    tracing::warn!(error = %err, "cannot read the input of the client");
                    break Exit::EndOfInput;
                }
            },
            _ = connection.upstream_lost(), if linger.is_none() => {
                // Later requests still get their error for a moment, then
                // the bridge exits so that the client sees the stop.
                linger = Some(Box::pin(tokio::time::sleep(connection.shared.config.timeouts.shutdown_grace)));
            }
            _ = async { if let Some(l) = linger.as_mut() { l.await } }, if linger.is_some() => break Exit::UpstreamLost,
        }
    };
    connection.close(exit).await;
    // The writer ends when the last handle of its queue is gone: the
    // connection's (which its tasks shared) goes now.
    drop(connection);
    let _ = writer.await;
    exit
}

/// One client of the front end, whatever link carries its messages: the
/// stdio of [`serve`], or a session of the HTTP face. The link hands it
/// each line of the client and gives it the [`Output`] it writes to; the
/// front end knows nothing else of the link.
pub(crate) struct Connection {
    shared: Arc<Shared>,
}

impl Connection {
    /// A client in `awaiting_initialize`, writing to `out`.
    pub(crate) fn open(config: Config, out: Output) -> Connection {
        Connection { shared: Arc::new(Shared::new(config, out)) }
    }

    /// One line of the client: a message, or a batch where its revision
    /// has them.
    pub(crate) async fn receive(&self, frame: &Frame) {
        dispatch::frame(&self.shared, frame).await;
    }

    /// One message of the client that its link decoded already (an HTTP
    /// body, or one element of its batch).
    pub(crate) async fn receive_decoded(&self, message: Decoded) {
        dispatch::message(&self.shared, message).await;
    }

    /// Resolves when the upstream server is lost in `ready`.
    pub(crate) async fn upstream_lost(&self) {
        self.shared.upstream_lost.cancelled().await;
    }

    /// Whether the client has not sent `initialize` yet (or its last one
    /// failed).
    pub(crate) fn awaits_initialize(&self) -> bool {
        matches!(self.shared.phase(), Phase::AwaitingInitialize)
    }

    /// The revision the client negotiated, once it is `ready`.
    pub(crate) fn revision(&self) -> Option<Revision> {
        match self.shared.phase() {
            Phase::Ready(ready, _) => Some(ready.dialect.revision),
            _ => None,
        }
    }

    /// The exit at the end of the input: 1 when the upstream command
    /// stopped before it, else 0, also after a child that only closed its
    /// connection (its command did not stop).
    pub(crate) fn exit_at_end_of_input(&self) -> Exit {
        match self.shared.phase() {
            Phase::Closing(Some(lost), _) if lost.cause == Cause::UpstreamExited => Exit::UpstreamLost,
            _ => Exit::EndOfInput,
        }
    }

    /// The end: the listener cancels each stream, requests in flight are
    /// canceled without a response, the front end waits for the listener
    /// and the requests at most the grace, then closes the upstream.
    pub(crate) async fn close(&self, exit: Exit) {
        shutdown(&self.shared, exit).await;
    }
}

/// How often the timer of [`timer_floor`] is due.
const TIMER_FLOOR: Duration = Duration::from_secs(30);

/// Keeps a timer of the runtime due within [`TIMER_FLOOR`] while the front
/// end serves. Tokio's time driver wakes its parked thread (an
/// `eventfd` write and one more `epoll_wait`) whenever a new timer is due
/// before every armed one. With no timer armed between two requests, that
/// was each request's time limit: two system calls and a wake-up on every
/// small round trip. With this one armed, a time limit longer than
/// [`TIMER_FLOOR`] is due after it and costs nothing more; a shorter one
/// (tests) still wakes the driver, as before.
fn timer_floor() -> AbortOnDropHandle<()> {
    AbortOnDropHandle::new(tokio::spawn(async {
        let mut ticks = tokio::time::interval(TIMER_FLOOR);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
        }
    }))
}

/// The end: the listener cancels each stream, requests in flight are
/// canceled without a response, the front end waits for the listener and
/// the requests at most the grace, then closes the upstream.
async fn shutdown(shared: &Shared, exit: Exit) {
    // After the loss of the upstream the state is `closing` already, with
    // the error of the loss; the end of the input has none.
    let kept = shared.end(exit == Exit::EndOfInput);
    shared.closed.cancel();
    let client = kept.map(|Kept { client, listen }| {
        if let Listen::Open(listener) = listen {
            listener.stop();
        }
        client
    });
    shared.inflight.cancel_all();
    shared.out.unanswered_all().await;
    shared.tracker.close();
    let grace = shared.config.timeouts.shutdown_grace;
    if tokio::time::timeout(grace, shared.tracker.wait()).await.is_err() {
        tracing::warn!("requests still running at the end of the grace period");
    }
    if let Some(client) = client {
        client.shutdown(grace).await;
    }
}
