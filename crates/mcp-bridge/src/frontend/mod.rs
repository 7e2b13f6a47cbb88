//! The front end: a 2025-11-25 server toward the client, as a state
//! machine that does not know which transport is behind the upstream
//! client (behaviour spec, "Lifecycle and initialize (M1)").
//!
//! The reader loop reads the client's lines and handles each message at
//! once; every forwarded request and the initialize run in their own task
//! with their own cancellation token. Only the writer task writes stdout.

mod asks;
mod consent;
mod dispatch;
mod forward;
mod initialize;
mod level;
mod rounds;
mod state;
mod subscriptions;

pub(crate) use crate::output::Output;
pub(crate) use state::Phase;

use crate::jsonrpc::Cause;
use crate::listener::ListenTimings;
use crate::method::{LimitClass, Method};
use crate::pipe::LineReader;
use crate::profile::Profile;
use crate::translate::note::Note;
pub(crate) use crate::upstream::UpstreamSpec;
use state::Shared;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::task::AbortOnDropHandle;

/// The time limits (behaviour spec, "Forwarded requests (M1)"). Each is a
/// field so that tests can run in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// `server/discover`: `--discover-timeout`.
    pub discover: Duration,
    /// `--sign-in-timeout`: added to the discover limit when a sign-in can
    /// start during initialize.
    pub sign_in: Duration,
    /// The list requests and `completion/complete`.
    pub list: Duration,
    /// The first round of `prompts/get` and `resources/read`.
    pub first_round: Duration,
    /// Each later round of `prompts/get` and `resources/read`.
    pub later_round: Duration,
    /// Each round of `tools/call`.
    pub call: Duration,
    /// How long the end waits for requests, and for the child to exit.
    pub shutdown_grace: Duration,
    /// The answers of the client to the input requests of one round.
    pub input: Duration,
    /// The waits and the time limit of the listen streams.
    pub listen: ListenTimings,
}

impl Timeouts {
    /// The time limit of one round of a forwarded request (the table of
    /// "Forwarded requests (M1)"); `round` is 1 for the first request.
    pub(crate) fn for_round(&self, method: Method, round: usize) -> Duration {
        match method.limit_class(round) {
            LimitClass::List => self.list,
            LimitClass::FirstRound => self.first_round,
            LimitClass::LaterRound => self.later_round,
            LimitClass::Call => self.call,
        }
    }
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            discover: Duration::from_secs(60),
            sign_in: Duration::from_secs(300),
            list: Duration::from_secs(120),
            first_round: Duration::from_secs(120),
            later_round: Duration::from_secs(3600),
            call: Duration::from_secs(3600),
            shutdown_grace: Duration::from_secs(2),
            input: Duration::from_secs(3600),
            listen: ListenTimings::default(),
        }
    }
}

/// Everything a front end needs.
#[derive(Debug, Clone)]
pub struct Config {
    pub profile: Profile,
    pub upstream: UpstreamSpec,
    /// The server name when the upstream server gives none.
    pub fallback_name: String,
    /// `--max-line-bytes`, for the client and for the upstream server.
    pub max_line_bytes: usize,
    pub timeouts: Timeouts,
    /// Also receives each note of the result rules (`check` prints them);
    /// the notes always go to the log.
    pub notes: Option<NoteSink>,
}

/// A function that receives a note of the result rules with its method.
pub type NoteFn = dyn Fn(&str, &Note) + Send + Sync;

/// A receiver of the notes of the result rules.
#[derive(Clone)]
pub struct NoteSink(pub Arc<NoteFn>);

impl std::fmt::Debug for NoteSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NoteSink")
    }
}

/// Why the front end stopped; the binary maps it to the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The input of the client ended: exit code 0.
    EndOfInput,
    /// The upstream server stopped: exit code 1.
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
    let shared = Arc::new(Shared::new(config, out));
    let mut reader = LineReader::new(input, shared.config.max_line_bytes);
    let mut linger: Option<std::pin::Pin<Box<tokio::time::Sleep>>> = None;
    let exit = loop {
        tokio::select! {
            frame = reader.next_frame() => match frame {
                Ok(Some(frame)) => dispatch::frame(&shared, &frame).await,
                Ok(None) => break end_of_input(&shared),
                Err(err) => {
                    tracing::warn!(error = %err, "cannot read the input of the client");
                    break Exit::EndOfInput;
                }
            },
            _ = shared.upstream_lost.cancelled(), if linger.is_none() => {
                // Later requests still get their error for a moment, then
                // the bridge exits so that the client sees the stop.
                linger = Some(Box::pin(tokio::time::sleep(shared.config.timeouts.shutdown_grace)));
            }
            _ = async { if let Some(l) = linger.as_mut() { l.await } }, if linger.is_some() => break Exit::UpstreamLost,
        }
    };
    shutdown(&shared, exit).await;
    drop(shared);
    let _ = writer.await;
    exit
}

/// The exit at the end of the input: 1 when the upstream command stopped
/// before it, else 0, also after a child that only closed its connection
/// (its command did not stop).
fn end_of_input(shared: &Shared) -> Exit {
    match shared.phase() {
        Phase::Closing(Some(lost)) if lost.cause == Cause::UpstreamExited => Exit::UpstreamLost,
        _ => Exit::EndOfInput,
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
    let client = shared.take_client();
    if exit == Exit::EndOfInput {
        // After the loss of the upstream the state is `closing` already,
        // with the error of the loss; the end of the input has none.
        shared.set_phase(Phase::Closing(None));
    }
    shared.stop_listener();
    shared.inflight.cancel_all();
    shared.tracker.close();
    let grace = shared.config.timeouts.shutdown_grace;
    if tokio::time::timeout(grace, shared.tracker.wait()).await.is_err() {
        tracing::warn!("requests still running at the end of the grace period");
    }
    if let Some(client) = client {
        client.shutdown(grace).await;
    }
}

#[cfg(test)]
mod tests {
    use super::Timeouts;
    use crate::listener::ListenTimings;
    use crate::method::Method;
    use std::time::Duration;

    const MINUTE: u64 = 60;
    const HOUR: u64 = 3600;

    /// The table "Request / Time limit" of "Forwarded requests (M1)", with
    /// the default values: each method and round gets its own class.
    #[test]
    fn each_method_and_round_gets_the_time_limit_of_the_spec() {
        let t = Timeouts::default();
        for (method, round, secs) in [
            ("tools/list", 1, 120),
            ("prompts/list", 1, 120),
            ("resources/list", 1, 120),
            ("resources/templates/list", 1, 120),
            ("completion/complete", 1, 120),
            ("prompts/get", 1, 120),
            ("resources/read", 1, 120),
            ("prompts/get", 2, HOUR),
            ("resources/read", 2, HOUR),
            ("resources/read", 10, HOUR),
            ("tools/call", 1, HOUR),
            ("tools/call", 2, HOUR),
        ] {
            let Some(forwarded) = Method::parse(method) else { panic!("{method} is forwarded") };
            assert_eq!(t.for_round(forwarded, round), Duration::from_secs(secs), "{method}, round {round}");
        }
    }

    #[test]
    fn the_default_limits_are_the_numbers_of_the_spec() {
        let t = Timeouts::default();
        assert_eq!(t.discover, Duration::from_secs(MINUTE), "server/discover: 60 s");
        assert_eq!(t.input, Duration::from_secs(HOUR), "the answers of one round: 1 h");
        assert_eq!(t.shutdown_grace, Duration::from_secs(2), "shutdown_grace");
        assert_eq!(
            t.listen,
            ListenTimings {
                backoff: Duration::from_millis(500),
                max_backoff: Duration::from_secs(30),
                stable: Duration::from_secs(10),
                ack_timeout: Duration::from_secs(10),
            },
            "listen_backoff 0.5 s, listen_max_backoff 30 s, 10 s to reset, 10 s acknowledgment"
        );
    }
}
