//! `GET /health`: whether this face can serve, for load balancers and
//! supervisors (docs/decisions.md, "Health"). In front of a command it
//! asks the shared child `server/discover` (starting one when there is
//! none, as the next session would): 200 when it answers, 503 with the
//! error table's cause when it does not. A server at a URL is the same
//! for every replica, so the face answers for itself only (200). Probes
//! are at most one a second: those that come meanwhile get the last
//! answer. A probe runs in a task of its own, so a prober that leaves
//! early neither stops it nor skips the limit.

use super::http::{self, Body};
use crate::jsonrpc::{BridgeError, Cause};
use crate::upstream::{Call, CallError, SharedLink, UpstreamMethod};
use hyper::{Response, StatusCode};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How long an answer stands for the probes that follow.
const FRESH: Duration = Duration::from_secs(1);
/// The longest probe: a load balancer's check waits a few seconds.
const PROBE_LIMIT: Duration = Duration::from_secs(5);

/// The last probe: when, and the cause when the upstream did not answer.
type Last = Option<(Instant, Option<Cause>)>;

pub(super) struct Health {
    /// The shared connection (a command's child) that a probe asks.
    link: Arc<SharedLink>,
    last: Arc<tokio::sync::Mutex<Last>>,
}

impl Health {
    pub(super) fn new(link: Arc<SharedLink>) -> Health {
        Health { link, last: Arc::default() }
    }

    /// The answer of `GET /health`; `probes`: the upstream is a command.
    pub(super) async fn answer(&self, probes: bool) -> Response<Body> {
        let failed = match probes {
            true => tokio::spawn(probe(self.link.clone(), self.last.clone())).await.unwrap_or(Some(Cause::Closed)),
            false => None,
        };
        let (status, body) = match failed {
            None => (StatusCode::OK, json!({"status": "ok"})),
            Some(cause) => (StatusCode::SERVICE_UNAVAILABLE, json!({"status": "unavailable", "cause": cause.name()})),
        };
        let mut response = http::json(status, crate::jsonrpc::json_line(&body));
        response
            .headers_mut()
            .insert(hyper::header::CACHE_CONTROL, hyper::header::HeaderValue::from_static("no-store"));
        response
    }
}

/// The cause of a failed `server/discover` of the shared child, or of a
/// child that does not start; `None` when it answered. The last answer
/// stands for [`FRESH`].
async fn probe(link: Arc<SharedLink>, last: Arc<tokio::sync::Mutex<Last>>) -> Option<Cause> {
    let mut last = last.lock().await;
    if let Some((at, cause)) = *last {
        if at.elapsed() < FRESH {
            return cause;
        }
    }
    let cause = discover(&link).await.err().map(|e| e.cause);
    *last = Some((Instant::now(), cause));
    cause
}

async fn discover(link: &SharedLink) -> Result<Value, BridgeError> {
    let client = link.client().await?;
    let slot = client.reserve()?;
    let (empty, cancel) = (Map::new(), CancellationToken::new());
    let call = Call {
        method: UpstreamMethod::Discover,
        params: &empty,
        meta: &empty,
        timeout: PROBE_LIMIT,
        progress: None,
        cancel: &cancel,
        slot: &slot,
        relay: None,
    };
    match client.call(call).await {
        Ok(result) => Ok(result),
        Err(CallError::Bridge(error)) => Err(error),
        // The server answered, and not with what it should: not usable.
        Err(CallError::Upstream { .. } | CallError::Verbatim(_)) => Err(BridgeError::new(Cause::DiscoverFailed)),
        Err(CallError::Canceled) => Err(BridgeError::new(Cause::Canceled)),
    }
}
