//! What every request of the face reads.

use super::body::Budget;
use super::gate::Door;
use super::pool::Upstream;
use super::sessions::Sessions;
use crate::frontend::Config;
use std::sync::Arc;

pub(crate) struct Face {
    pub config: Config,
    /// The upstream connection of the clients of 2026-07-28.
    pub modern: Upstream,
    pub sessions: Arc<Sessions>,
    pub door: Door,
    /// The longest body: the line limit.
    pub max_body: usize,
    /// The bytes of big bodies read and decoded at one time.
    pub bodies: Budget,
    /// The words of the error table's messages for a client that is not
    /// known yet (the profile's).
    pub words: crate::profile::Words,
    /// The prefix of the ids of the bridge's own requests to a client.
    pub request_id_prefix: String,
    /// Each client's `Authorization` goes upstream (`passing`).
    pub passing: bool,
    pub public_url: Option<url::Url>,
    /// The answers of `GET /health`.
    pub health: super::health::Health,
}
