//! The table of upstream requests in flight, and the progress throttle.
//!
//! The reader task resolves entries here without waiting on anyone: the
//! answer goes through a oneshot channel, progress through a callback.

use super::hooks::LogSink;
use crate::jsonrpc::{BridgeError, Cause};
use crate::raw::RawResult;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// At most this many progress notifications per second for one request.
pub(crate) const PROGRESS_PER_SECOND: u32 = 50;

/// Receives the params of each progress notification of a request.
pub(crate) type ProgressSink = Arc<dyn Fn(Value) + Send + Sync>;

/// How one upstream request ended.
#[derive(Debug)]
pub(crate) enum Reply {
    /// A result response.
    Result(Value),
    /// A result response, as its bytes (the raw path); only for a
    /// request that asked for it (`Entry::raw`).
    Raw(RawResult),
    /// An error response of the upstream server: its `error` object, and
    /// the HTTP status that it came with when that was not a success.
    Error(Value, Option<u16>),
    /// The bridge failed the request (timeout, loss of the upstream, ...).
    Failed(BridgeError),
}

impl Reply {
    /// A raw result as a caller of the full path gets it.
    pub(crate) fn parsed(raw: &RawResult) -> Reply {
        match parse_raw(raw) {
            Ok(result) => Reply::Result(result),
            Err(error) => Reply::Failed(error),
        }
    }
}

/// A raw result as the full path gives it: its `Value`, or the error of a
/// response line that does not parse (which `raw::read` lets through
/// only if it failed to check something the parser checks).
pub(crate) fn parse_raw(raw: &RawResult) -> Result<Value, BridgeError> {
    raw.to_value().map_err(|_| BridgeError::new(Cause::InvalidResponse).with_detail(Cause::ParseError.name()))
}

/// One request in flight.
pub(crate) struct Entry {
    pub reply: oneshot::Sender<Reply>,
    pub progress: Option<Throttle>,
    /// The caller takes a result as its bytes ([`Reply::Raw`]).
    pub raw: bool,
    /// Whose log messages come while it is in flight (`Table::sole_log`).
    pub log: Whose,
}

/// Whose a request is, as the log messages of a pipe see it.
#[derive(Clone)]
pub(crate) enum Whose {
    /// No log message can be its: a listen stream (whose messages carry
    /// its subscription id), or a request without a log level, for which
    /// a server "MUST NOT emit notifications/message" (2026-07-28).
    Nobody,
    /// The connection's own: its log messages go to the connection's sink.
    Link,
    /// A request with a log level of a client attached to a shared
    /// connection, and the client's log sink.
    Client(LogSink),
}

/// How long a request that was given up (canceled, timed out, its client
/// gone) keeps its claim on the log messages of a pipe: the server may
/// still be writing them, and they must not reach another client.
const LINGER: Duration = Duration::from_secs(2);
/// The most claims kept after their requests; past it, a log message is
/// nobody's until they expire.
const MAX_LINGERING: usize = 1024;

/// Drops the progress above [`PROGRESS_PER_SECOND`] in each second of a
/// request (behaviour spec, "Progress (M1)"). A dropped notification is
/// gone: none is kept for later, so no second carries more than the limit.
pub(crate) struct Throttle {
    sink: ProgressSink,
    window: Instant,
    sent: u32,
}

impl Throttle {
    pub(crate) fn new(sink: ProgressSink) -> Self {
        Throttle { sink, window: Instant::now(), sent: 0 }
    }

    /// Sends the progress now, or drops it when the second is full.
    pub(crate) fn offer(&mut self, params: Value, now: Instant) {
        if now.duration_since(self.window) >= Duration::from_secs(1) {
            self.window = now;
            self.sent = 0;
        }
        if self.sent < PROGRESS_PER_SECOND {
            self.sent += 1;
            (self.sink)(params);
        }
    }
}

/// The requests in flight, keyed by the upstream id.
#[derive(Default)]
pub(crate) struct Table {
    entries: HashMap<u64, Entry>,
    /// The entries that take a raw result: while there is none, a line is
    /// not worth the raw path's look at its envelope.
    raw: usize,
    /// The claims of the requests given up, oldest first, for [`LINGER`].
    lingering: VecDeque<(Instant, Whose)>,
}

impl Table {
    pub(crate) fn insert(&mut self, id: u64, entry: Entry) {
        self.raw += usize::from(entry.raw);
        if let Some(old) = self.entries.insert(id, entry) {
            self.raw -= usize::from(old.raw);
        }
    }

    pub(crate) fn remove(&mut self, id: u64) -> Option<Entry> {
        let entry = self.entries.remove(&id)?;
        self.raw -= usize::from(entry.raw);
        Some(entry)
    }

    /// Whether a request in flight takes a raw result.
    pub(crate) fn takes_raw(&self) -> bool {
        self.raw > 0
    }

    pub(crate) fn contains(&self, id: u64) -> bool {
        self.entries.contains_key(&id)
    }

    /// Forgets a request that was given up; its claim on log messages
    /// stays for [`LINGER`].
    pub(crate) fn give_up(&mut self, id: u64) -> Option<Entry> {
        let mut entry = self.remove(id)?;
        let whose = std::mem::replace(&mut entry.log, Whose::Nobody);
        if !matches!(whose, Whose::Nobody) && self.lingering.len() < MAX_LINGERING {
            self.lingering.push_back((Instant::now(), whose));
        }
        Some(entry)
    }

    /// The log sink of the one client whose requests with a log level are
    /// in flight (or were given up within [`LINGER`]); `None` when there is
    /// none, when several clients have such requests, or when the
    /// connection's own may have: a log message of a pipe names no
    /// request, so whose it is can be told only while one client waits.
    pub(crate) fn sole_log(&mut self, now: Instant) -> Option<LogSink> {
        while self.lingering.front().is_some_and(|(at, _)| now.duration_since(*at) >= LINGER) {
            self.lingering.pop_front();
        }
        if self.lingering.len() >= MAX_LINGERING {
            return None;
        }
        let claims = self.entries.values().map(|e| &e.log).chain(self.lingering.iter().map(|(_, w)| w));
        let mut sole: Option<&LogSink> = None;
        for whose in claims {
            match (whose, sole) {
                (Whose::Nobody, _) => {}
                (Whose::Link, _) => return None,
                (Whose::Client(sink), Some(seen)) if !Arc::ptr_eq(sink, seen) => return None,
                (Whose::Client(sink), _) => sole = Some(sink),
            }
        }
        sole.cloned()
    }

    /// Progress for the request with this id; dropped when unknown.
    pub(crate) fn progress(&mut self, id: u64, params: Value) {
        if let Some(throttle) = self.entries.get_mut(&id).and_then(|e| e.progress.as_mut()) {
            throttle.offer(params, Instant::now());
        }
    }

    /// Resolves the request with this id; `false` when it is unknown.
    pub(crate) fn resolve(&mut self, id: u64, reply: Reply) -> bool {
        let Some(entry) = self.remove(id) else {
            return false;
        };
        let _ = entry.reply.send(reply);
        true
    }

    /// Fails every request in flight with the same error.
    pub(crate) fn fail_all(&mut self, error: &BridgeError) {
        self.raw = 0;
        for (_, entry) in self.entries.drain() {
            let _ = entry.reply.send(Reply::Failed(error.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn entry(raw: bool) -> (Entry, oneshot::Receiver<Reply>) {
        let (reply, rx) = oneshot::channel();
        (Entry { reply, progress: None, raw, log: Whose::Link }, rx)
    }

    /// The raw path looks at a line only while a request in flight
    /// takes a raw result: the count follows each way an entry leaves.
    #[test]
    fn the_table_knows_whether_a_request_in_flight_takes_a_raw_result() {
        let mut table = Table::default();
        let (plain, _a) = entry(false);
        table.insert(1, plain);
        assert!(!table.takes_raw());
        let (raw, _b) = entry(true);
        table.insert(2, raw);
        assert!(table.takes_raw());
        assert!(table.resolve(2, Reply::Result(Value::Null)));
        assert!(!table.takes_raw());
        let (raw, _c) = entry(true);
        table.insert(3, raw);
        assert!(table.remove(3).is_some());
        assert!(!table.takes_raw());
        let (raw, _d) = entry(true);
        table.insert(4, raw);
        let (plain, _e) = entry(false);
        table.insert(4, plain);
        assert!(!table.takes_raw(), "an entry replaced under its id leaves the count");
        let (raw, _f) = entry(true);
        table.insert(5, raw);
        table.fail_all(&BridgeError::new(Cause::Closed));
        assert!(!table.takes_raw());
    }

    fn of(log: Whose) -> Entry {
        let (reply, _rx) = oneshot::channel();
        Entry { reply, progress: None, raw: false, log }
    }

    /// A log message of a shared pipe goes to a client only while that
    /// client alone has requests with a log level in flight (docs/decisions.md,
    /// "One upstream for every session"); listen streams and requests
    /// without a level claim nothing; a request given up keeps its claim
    /// for `LINGER`, so its late log messages reach no other client.
    #[test]
    fn a_log_message_is_a_clients_only_while_it_alone_waits() {
        let a: LogSink = Arc::new(|_| {});
        let b: LogSink = Arc::new(|_| {});
        let now = Instant::now();
        let mut table = Table::default();
        assert!(table.sole_log(now).is_none(), "nobody waits");
        table.insert(1, of(Whose::Nobody));
        assert!(table.sole_log(now).is_none(), "a listen stream or a request without a level claims nothing");
        table.insert(2, of(Whose::Client(a.clone())));
        table.insert(3, of(Whose::Client(a.clone())));
        assert!(table.sole_log(now).is_some_and(|s| Arc::ptr_eq(&s, &a)), "one client waits");
        table.insert(4, of(Whose::Client(b.clone())));
        assert!(table.sole_log(now).is_none(), "two clients wait");
        table.remove(4);
        table.insert(5, of(Whose::Link));
        assert!(table.sole_log(now).is_none(), "the connection's own request waits too");
        table.remove(5);
        assert!(table.sole_log(now).is_some_and(|s| Arc::ptr_eq(&s, &a)));
        table.insert(6, of(Whose::Client(b.clone())));
        assert!(table.give_up(6).is_some());
        assert!(table.sole_log(Instant::now()).is_none(), "a request of b given up still claims");
        assert!(table.sole_log(Instant::now() + LINGER).is_some_and(|s| Arc::ptr_eq(&s, &a)), "until LINGER");
        assert!(table.resolve(2, Reply::Result(Value::Null)) && table.resolve(3, Reply::Result(Value::Null)));
        assert!(table.sole_log(Instant::now() + LINGER).is_none(), "an answered request claims nothing");
    }

    #[test]
    fn the_throttle_sends_fifty_a_second_and_drops_the_rest() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = seen.clone();
        let sink: ProgressSink = Arc::new(move |v| sink_seen.lock().map(|mut s| s.push(v)).unwrap_or(()));
        let mut throttle = Throttle::new(sink);
        let start = Instant::now();
        for i in 0..80 {
            throttle.offer(Value::from(i), start + Duration::from_millis(i));
        }
        let got: Vec<Value> = seen.lock().map(|s| s.clone()).unwrap_or_default();
        let expected: Vec<Value> = (0..50).map(Value::from).collect();
        assert_eq!(got, expected);
        throttle.offer(Value::from(100), start + Duration::from_millis(1001));
        assert_eq!(seen.lock().map(|s| s.last().cloned()).ok().flatten(), Some(Value::from(100)));
    }
}
