//! The reasons of every `notifications/cancelled` the bridge sends, to the
//! client (its questions, behaviour spec "Pending requests of the bridge")
//! and to the upstream server (requests and listen streams): one table, so
//! that the same event always reads the same.

/// The client canceled the original request.
pub(crate) const CLIENT_CANCELED: &str = "the client canceled the request";
/// The input of the client ended.
pub(crate) const INPUT_ENDED: &str = "the client closed the connection";
/// The upstream server stopped (a question of the bridge is withdrawn).
pub(crate) const UPSTREAM_STOPPED: &str = "the upstream server stopped";
/// The client did not answer the questions of a round in time.
pub(crate) const NO_ANSWER: &str = "no answer in time";
/// A request, or the acknowledgment of a listen stream, had no response
/// in its time limit.
pub(crate) const TIMED_OUT: &str = "the request timed out";
/// A newer listen stream took the place of this one, or the last
/// unsubscribe stopped it.
pub(crate) const SUBSCRIPTIONS_CHANGED: &str = "the subscriptions changed";
