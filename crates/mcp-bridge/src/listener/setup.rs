//! What the owner task starts with and is told: the front end's setup,
//! the time values of the streams, and the changes of the subscriptions.

use crate::jsonrpc::Id;
use crate::output::Output;
use crate::upstream::{Client, SignIn};
use serde_json::{Map, Value};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The time values of the listen streams that carry the server's changes
/// to the client; [`ListenTimings::default`] gives the spec's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListenTimings {
    /// The first wait before a new stream (`listen_backoff`, 0.5 s).
    pub backoff: Duration,
    /// The longest wait (`listen_max_backoff`, 30 s).
    pub max_backoff: Duration,
    /// A stream that lives this long after its acknowledgment resets the
    /// wait (10 s).
    pub stable: Duration,
    /// The time limit of the acknowledgment (10 s).
    pub ack_timeout: Duration,
}

impl Default for ListenTimings {
    fn default() -> Self {
        ListenTimings {
            backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            stable: Duration::from_secs(10),
            ack_timeout: Duration::from_secs(10),
        }
    }
}

/// Takes the request of a change out of the table of requests in flight;
/// `false` when the client canceled it, or the input ended: then it gets
/// no response.
pub(crate) type Finish = Box<dyn FnOnce() -> bool + Send>;

/// One `resources/subscribe` or `resources/unsubscribe` of the client.
pub(crate) struct Change {
    pub uri: String,
    /// `true` to add the URI, `false` to remove it.
    pub subscribe: bool,
    /// The id of the request, for its response.
    pub id: Id,
    /// Fires when the client cancels the request.
    pub cancel: CancellationToken,
    pub finish: Finish,
}

/// What the listener needs from the front end.
pub(crate) struct Setup {
    pub client: Client,
    /// A stream refused for its sign-in opens again after the next one.
    pub sign_in: Option<SignIn>,
    pub out: Output,
    /// The capabilities of the initialize result.
    pub capabilities: Map<String, Value>,
    pub timings: ListenTimings,
    /// The client's words, for the messages of errors.
    pub words: std::sync::Arc<crate::profile::Words>,
}
