//! The client's own authorization, passed to the upstream unchanged (the
//! face with `--pass-authorization`: an operator's front for that same
//! server). The bridge signs in for nobody then: each request carries the
//! `Authorization` its client sent, and a refusal of the upstream (401, or
//! 403) is remembered with its challenge, so that the face turns it into
//! the same refusal for its client, whose own OAuth then runs against the
//! upstream's authorization server. The face also serves the upstream's
//! protected resource metadata under its own resource.

use super::super::auth::challenge::Challenge;
use super::super::auth::discovery::{get_json, resource_metadata_urls};
use super::super::auth::{Fetcher, MakeClient};
use crate::sync::lock;
use reqwest::header::HeaderValue;
use reqwest::Url;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The time limit of a request for the metadata.
const METADATA_LIMIT: Duration = Duration::from_secs(10);

/// A refusal of the upstream server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    /// 401 or 403.
    pub status: u16,
    /// The challenge of its `WWW-Authenticate`.
    pub challenge: Challenge,
}

/// The client's authorization for the upstream, and what the upstream
/// said of it last.
#[derive(Debug, Default)]
pub(crate) struct Passed {
    /// The latest `Authorization` of the client (a session's).
    header: Mutex<Option<HeaderValue>>,
    refused: Mutex<Option<Refused>>,
    /// How many refusals came so far: a caller notes it before a request
    /// and knows after it whether the upstream refused in between.
    refusals: AtomicU64,
}

impl Passed {
    /// The client's `Authorization` for the next requests; `None` when it
    /// sent none.
    pub(crate) fn set(&self, authorization: Option<&str>) {
        let value = authorization.and_then(|a| HeaderValue::from_str(a).ok()).map(|mut value| {
            value.set_sensitive(true);
            value
        });
        *lock(&self.header) = value;
    }

    pub(super) fn header(&self) -> Option<HeaderValue> {
        lock(&self.header).clone()
    }

    /// Remembers a refusal of the upstream.
    pub(super) fn refuse(&self, refused: Refused) {
        *lock(&self.refused) = Some(refused);
        self.refusals.fetch_add(1, Ordering::AcqRel);
    }

    /// The count of refusals so far.
    pub(crate) fn refusals(&self) -> u64 {
        self.refusals.load(Ordering::Acquire)
    }

    /// The last refusal, when one came after `since` refusals.
    pub(crate) fn refused_since(&self, since: u64) -> Option<Refused> {
        (self.refusals() > since).then(|| lock(&self.refused).clone()).flatten()
    }
}

/// The upstream's protected resource metadata (RFC 9728), its `resource`
/// made `resource`: from the URL of its last challenge, else from its
/// well-known URLs in the page's order. `None` when none has a document
/// that names an authorization server.
pub(crate) async fn resource_metadata(
    make: MakeClient,
    server: &Url,
    from_challenge: Option<&str>,
    resource: &str,
) -> Option<Value> {
    let fetcher = Fetcher::new(make, server, METADATA_LIMIT);
    let mut urls: Vec<Url> = from_challenge.and_then(|u| Url::parse(u).ok()).into_iter().collect();
    urls.extend(resource_metadata_urls(server));
    for url in urls {
        let Ok(Some(mut document)) = get_json(&fetcher, &url).await else { continue };
        let names_a_server =
            document.get("authorization_servers").and_then(Value::as_array).is_some_and(|a| !a.is_empty());
        if !names_a_server {
            continue;
        }
        if let Some(object) = document.as_object_mut() {
            object.insert("resource".into(), Value::from(resource));
        }
        return Some(document);
    }
    None
}
