//! What a front end is given: the profile, the upstream, the limits, and
//! where the notes of the result rules go.

use crate::listener::ListenTimings;
use crate::method::{LimitClass, Method};
use crate::profile::Profile;
use crate::translate::note::Note;
use crate::upstream::{SharedLink, UpstreamSpec};
use std::sync::Arc;
use std::time::Duration;

/// The time limits of the bridge (behaviour spec, "Forwarded requests
/// (M1)"); [`Timeouts::default`] gives the spec's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// `server/discover` (60 s).
    pub discover: Duration,
    /// A sign-in during initialize (300 s): added to the discover limit
    /// when a sign-in can start then.
    pub sign_in: Duration,
    /// The list requests and `completion/complete` (120 s).
    pub list: Duration,
    /// The first round of `prompts/get` and `resources/read` (120 s).
    pub first_round: Duration,
    /// Each later round of `prompts/get` and `resources/read` (1 h).
    pub later_round: Duration,
    /// Each round of `tools/call` (1 h).
    pub call: Duration,
    /// How long the end of the input waits for the requests in flight, and
    /// for a child process to exit (2 s).
    pub shutdown_grace: Duration,
    /// The answers of the client to the input requests of one round (1 h).
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

/// The longest line of the client or the upstream server by default.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// What [`serve`](crate::serve) needs for one connection;
/// [`Config::new`] gives the defaults.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// How the bridge serves its client.
    pub profile: Profile,
    /// Where the upstream server is.
    pub upstream: UpstreamSpec,
    /// The server name when the upstream server gives none.
    pub fallback_name: String,
    /// The longest line of the client and of the upstream server.
    pub max_line_bytes: usize,
    pub timeouts: Timeouts,
    /// Also receives each note of the result rules (a report can show
    /// them); the notes always go to the log.
    pub notes: Option<NoteSink>,
    /// A connection to the upstream that this client shares with others
    /// (the face's sessions in front of a command), instead of one of its
    /// own.
    pub(crate) link: Option<Arc<SharedLink>>,
    /// The client reached the bridge by URL (the face): the bridge's log
    /// is then its operator's, not the client's.
    pub(crate) by_url: bool,
}

impl Config {
    /// A bridge with `profile` toward its client and `upstream` behind it,
    /// and the defaults: lines of at most 64 MiB, the time limits of
    /// [`Timeouts::default`], the profile's name as the server name when the
    /// upstream server gives none, and the notes in the log only.
    pub fn new(profile: Profile, upstream: UpstreamSpec) -> Config {
        Config {
            fallback_name: profile.name.clone(),
            profile,
            upstream,
            max_line_bytes: MAX_LINE_BYTES,
            timeouts: Timeouts::default(),
            notes: None,
            link: None,
            by_url: false,
        }
    }
}

/// A function that receives a note of the result rules with its method.
pub(crate) type NoteFn = dyn Fn(&str, &Note) + Send + Sync;

/// A receiver of the notes of the result rules ([`NoteSink::new`]). It gets the notes of a
/// result before the response goes to the client, on either path of
/// results, so a client that has a response has its notes too.
#[derive(Clone)]
pub struct NoteSink(pub(crate) Arc<NoteFn>);

impl NoteSink {
    /// A sink that calls `receive` with the method of the request and each
    /// note of its result.
    pub fn new(receive: impl Fn(&str, &Note) + Send + Sync + 'static) -> NoteSink {
        NoteSink(Arc::new(receive))
    }
}

impl std::fmt::Debug for NoteSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NoteSink")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: u64 = 60;
    const HOUR: u64 = 3600;

    /// The table "Request / Time limit" of "Forwarded requests (M1)", with
    /// the default values: each method and round gets its own class.
    #[test]
    fn each_method_and_round_gets_the_time_limit_of_the_spec() {
        let t = Timeouts::default();
        for (method, round, secs) in [
            (Method::ToolsList, 1, 120),
            (Method::PromptsList, 1, 120),
            (Method::ResourcesList, 1, 120),
            (Method::ResourcesTemplatesList, 1, 120),
            (Method::CompletionComplete, 1, 120),
            (Method::PromptsGet, 1, 120),
            (Method::ResourcesRead, 1, 120),
            (Method::PromptsGet, 2, HOUR),
            (Method::ResourcesRead, 2, HOUR),
            (Method::ResourcesRead, 10, HOUR),
            (Method::ToolsCall, 1, HOUR),
            (Method::ToolsCall, 2, HOUR),
        ] {
            assert_eq!(t.for_round(method, round), Duration::from_secs(secs), "{method:?}, round {round}");
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
