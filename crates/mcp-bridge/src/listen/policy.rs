//! When a lost stream opens again (behaviour spec, "New streams after a
//! loss"): the table of ends, the back-off, and the lost-stream retries of
//! the upstream client. Pure, so that the timing is tested without a clock.

use crate::upstream::StreamEnd;
use std::time::Duration;

/// The upstream client opens a lost stream again at once at most this
/// many times (`max_lost_stream_retries`) before it reports the loss.
pub const MAX_LOST_STREAM_RETRIES: u32 = 3;

/// What follows the end of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Open a new stream after the back-off wait.
    ReopenAfterWait,
    /// Open no new stream; only a change of the subscriptions opens one.
    NoReopen,
}

/// The table of ends: a timeout of the acknowledgment, a loss of the
/// transport and a result of the upstream server (a graceful end, for
/// example at its stop) open a new stream after a wait. A cancellation, a
/// JSON-RPC error, another error and the end of the upstream server do not.
pub fn after(end: &StreamEnd) -> After {
    match end {
        StreamEnd::Timeout | StreamEnd::Lost(_) | StreamEnd::Result(_) => After::ReopenAfterWait,
        StreamEnd::Canceled | StreamEnd::Error(_) | StreamEnd::UpstreamEnded(_) | StreamEnd::Failed(_) => {
            After::NoReopen
        }
    }
}

/// The wait before a new stream: the first is `first` (0.5 s, the
/// `listen_backoff`), each later one twice the one before, up to `max`
/// (30 s, the `listen_max_backoff`).
#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(first: Duration, max: Duration) -> Backoff {
        Backoff { first, max, next: first.min(max) }
    }

    /// The next wait, and the one after it doubles.
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (wait * 2).min(self.max);
        wait
    }

    /// Only a stream that lived long enough after its acknowledgment
    /// resets the wait.
    pub fn reset(&mut self) {
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
            (StreamEnd::Result(json!({})), After::ReopenAfterWait),
            (StreamEnd::Canceled, After::NoReopen),
            (StreamEnd::Error(json!({"code": -32603, "message": "no"})), After::NoReopen),
            (StreamEnd::Failed(BridgeError::new(Cause::InvalidResponse)), After::NoReopen),
            (StreamEnd::UpstreamEnded(BridgeError::new(Cause::UpstreamExited)), After::NoReopen),
        ];
        for (end, expected) in cases {
            assert_eq!(after(&end), expected, "{end:?}");
        }
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
