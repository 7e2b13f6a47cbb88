//! When a lost stream opens again (behaviour spec, "New streams after a
//! loss"): the table of ends, the back-off, and the lost-stream retries of
//! the upstream client. Pure, so that the timing is tested without a clock.

use crate::upstream::StreamEnd;
use std::future::Future;
use std::time::Duration;

/// The upstream client opens a lost stream again at once at most this
/// many times (`max_lost_stream_retries`) before it reports the loss.
pub(crate) const MAX_LOST_STREAM_RETRIES: u32 = 3;

/// What follows the end of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// Open a new stream after the back-off wait.
    ReopenAfterWait,
    /// Open a new stream after the next sign-in of another request, never
    /// after a timer (HTTP 401 and 403).
    ReopenAfterSignIn,
    /// Open no new stream; only a change of the subscriptions opens one.
    NoReopen,
}

/// The table of ends: a timeout of the acknowledgment, a loss of the
/// transport and a result of the upstream server (a graceful end, for
/// example at its stop) open a new stream after a wait. A cancellation, a
/// JSON-RPC error, another error and the end of the upstream server do not.
/// Over HTTP, the status of the stream's request decides: 408, 429 and
/// 5xx except 501 after a wait, 401 and 403 after the next sign-in, each
/// other status never.
pub(crate) fn after(end: &StreamEnd) -> After {
    match end {
        StreamEnd::Lost(error) => match error.status {
            None | Some(408 | 429) => After::ReopenAfterWait,
            Some(501) => After::NoReopen,
            Some(500..=599) => After::ReopenAfterWait,
            Some(401 | 403) => After::ReopenAfterSignIn,
            Some(_) => After::NoReopen,
        },
        StreamEnd::Timeout | StreamEnd::Result => After::ReopenAfterWait,
        StreamEnd::Canceled | StreamEnd::Error(_) | StreamEnd::UpstreamEnded(_) | StreamEnd::Failed(_) => {
            After::NoReopen
        }
    }
}

/// Serves one stream as the upstream client does: a stream that the
/// transport lost opens again at once, at most [`MAX_LOST_STREAM_RETRIES`]
/// times; every other end, and the loss after the last retry, is the end.
/// A later acknowledgment of the stream then gives the events of the gap.
pub(crate) async fn retry_lost<F, Fut>(mut open: F) -> StreamEnd
where
    F: FnMut() -> Fut,
    Fut: Future<Output = StreamEnd>,
{
    let mut retries = 0;
    loop {
        match open().await {
            // A transport loss opens again at once; a status goes to the
            // table of ends.
            StreamEnd::Lost(err) if err.status.is_none() && retries < MAX_LOST_STREAM_RETRIES => {
                retries += 1;
                tracing::info!(cause = err.cause.name(), retries, "the listen stream was lost; opening it again");
            }
            end => return end,
        }
    }
}

/// The wait before a new stream: the first is `first` (0.5 s, the
/// `listen_backoff`), each later one twice the one before, up to `max`
/// (30 s, the `listen_max_backoff`).
#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub(crate) fn new(first: Duration, max: Duration) -> Backoff {
        Backoff { first, max, next: first.min(max) }
    }

    /// The next wait, and the one after it doubles.
    pub(crate) fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (wait * 2).min(self.max);
        wait
    }

    /// Only a stream that lived long enough after its acknowledgment
    /// resets the wait.
    pub(crate) fn reset(&mut self) {
        self.next = self.first.min(self.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{BridgeError, Cause};
    use serde_json::json;

    #[test]
    fn each_end_of_the_table_reopens_or_not() {
        let cases = [
            (StreamEnd::Timeout, After::ReopenAfterWait),
            (StreamEnd::Lost(BridgeError::new(Cause::Closed)), After::ReopenAfterWait),
            (StreamEnd::Lost(BridgeError::new(Cause::TransportFailed)), After::ReopenAfterWait),
            (StreamEnd::Result, After::ReopenAfterWait),
            (StreamEnd::Canceled, After::NoReopen),
            (StreamEnd::Error(json!({"code": -32603, "message": "no"})), After::NoReopen),
            (StreamEnd::Failed(BridgeError::new(Cause::InvalidResponse)), After::NoReopen),
            (StreamEnd::UpstreamEnded(BridgeError::new(Cause::UpstreamExited)), After::NoReopen),
        ];
        for (end, expected) in cases {
            assert_eq!(after(&end), expected, "{end:?}");
        }
    }

    /// The HTTP rows of "New streams after a loss".
    #[test]
    fn each_http_status_of_the_table_reopens_or_not() {
        let status = |n| StreamEnd::Lost(BridgeError::new(Cause::TransportFailed).with_status(n));
        let cases = [
            (408, After::ReopenAfterWait),
            (429, After::ReopenAfterWait),
            (500, After::ReopenAfterWait),
            (502, After::ReopenAfterWait),
            (503, After::ReopenAfterWait),
            (599, After::ReopenAfterWait),
            (501, After::NoReopen),
            (401, After::ReopenAfterSignIn),
            (403, After::ReopenAfterSignIn),
            (400, After::NoReopen),
            (404, After::NoReopen),
            (405, After::NoReopen),
            (410, After::NoReopen),
            (302, After::NoReopen),
        ];
        for (n, expected) in cases {
            assert_eq!(after(&status(n)), expected, "HTTP status {n}");
        }
    }

    #[test]
    fn a_stream_that_failed_with_a_status_is_not_retried_at_once() {
        let end = StreamEnd::Lost(BridgeError::new(Cause::TransportFailed).with_status(503));
        let (end, opened) = serve(vec![end, StreamEnd::Timeout]);
        assert!(matches!(&end, StreamEnd::Lost(e) if e.status == Some(503)), "{end:?}");
        assert_eq!(opened, 1);
    }

    /// Runs `retry_lost` over scripted ends; returns the end and how many
    /// times the stream opened.
    fn serve(script: Vec<StreamEnd>) -> (StreamEnd, usize) {
        let mut ends = script.into_iter();
        let mut opened = 0;
        let end = block_on(retry_lost(|| {
            opened += 1;
            let end = ends.next().unwrap_or(StreamEnd::Canceled);
            async move { end }
        }));
        (end, opened)
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        match tokio::runtime::Builder::new_current_thread().build() {
            Ok(runtime) => runtime.block_on(future),
            Err(err) => panic!("no runtime: {err}"),
        }
    }

    fn lost() -> StreamEnd {
        StreamEnd::Lost(BridgeError::new(Cause::Closed))
    }

    #[test]
    fn a_lost_stream_opens_again_at_once_at_most_three_times() {
        let (end, opened) = serve(vec![lost(), lost(), StreamEnd::Timeout]);
        assert!(matches!(end, StreamEnd::Timeout), "{end:?}");
        assert_eq!(opened, 3);
        let (end, opened) = serve(vec![lost(), lost(), lost(), lost(), StreamEnd::Timeout]);
        assert!(matches!(&end, StreamEnd::Lost(e) if e.cause == Cause::Closed), "the fourth loss is the end: {end:?}");
        assert_eq!(opened, 4);
        assert_eq!(after(&end), After::ReopenAfterWait);
        let (end, opened) = serve(vec![StreamEnd::Error(json!({"code": 1, "message": "m"}))]);
        assert!(matches!(end, StreamEnd::Error(_)));
        assert_eq!(opened, 1);
    }

    #[test]
    fn the_wait_starts_at_half_a_second_doubles_up_to_thirty_and_resets() {
        let mut backoff = Backoff::new(Duration::from_millis(500), Duration::from_secs(30));
        let waits: Vec<u128> = (0..9).map(|_| backoff.next_wait().as_millis()).collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
        backoff.reset();
        assert_eq!(backoff.next_wait(), Duration::from_millis(500));
        assert_eq!(backoff.next_wait(), Duration::from_secs(1));
    }
}
