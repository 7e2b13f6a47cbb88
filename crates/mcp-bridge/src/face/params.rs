//! The `Mcp-Param-*` headers of a 2026-07-28 client's `tools/call`
//! (SEP-2243, the transport page's "Custom Headers from Tool Parameters"):
//! the upstream behind the face may not see HTTP at all, so the face holds
//! each header to the argument it mirrors, as the tool's `x-mcp-header`
//! annotations (from a `tools/list`) name them.

use crate::method::Method;
use crate::upstream::http::headers::decode_value;
use crate::upstream::http::tools::ToolHeaders;
use crate::upstream::{Call, Client, Relay, UpstreamMethod};
use hyper::header::HeaderMap;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The pages of a `tools/list` that the face reads to learn a tool's
/// headers, at most.
const MAX_PAGES: usize = 16;
/// The face lists the tools of its own at most this often per
/// authorization (a listing that failed or stalled counts too): a client
/// that calls tools that do not exist must not make each call a listing.
const LEARN_EVERY: Duration = Duration::from_secs(5);
/// The authorizations whose last listing is remembered, at most.
const MAX_TRIED: usize = 256;

/// What the face knows of the tools' `Mcp-Param-*` headers.
#[derive(Default)]
pub(super) struct Known {
    tools: ToolHeaders,
    /// When the face last listed the tools itself, by a hash of the
    /// authorization it listed with (`--pass-authorization`: another
    /// client's refused listing says nothing of this one's tools). One
    /// listing at a time.
    tried: tokio::sync::Mutex<HashMap<u64, Instant>>,
}

impl Known {
    /// Learns the headers of the tools of a relayed `tools/list` result.
    /// The client gets the result as it is: a tool whose annotations break
    /// the rules is the client's to drop.
    pub(super) fn observe(&self, method: &UpstreamMethod, result: &Value) {
        if matches!(method, UpstreamMethod::Forwarded(Method::ToolsList)) {
            self.tools.observe(&mut result.clone());
        }
    }

    /// Whether the `Mcp-Param-*` headers of a relayed `tools/call` are
    /// right. A tool that no relayed `tools/list` showed yet is first
    /// looked up with a `tools/list` of the face's own (the client's
    /// `_meta` but its progress token, and its authorization; all pages
    /// within `limit`, at most every [`LEARN_EVERY`]). A caller waits for
    /// a listing in progress at most `limit`; a tool still unknown after
    /// that is the upstream's to refuse.
    pub(super) async fn check_call(
        &self,
        (client, relay): (&Client, Relay<'_>),
        headers: &HeaderMap,
        params: &Map<String, Value>,
        limit: Duration,
    ) -> bool {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        if !self.tools.knows(name) {
            let deadline = tokio::time::Instant::now() + limit;
            if let Ok(mut tried) = tokio::time::timeout_at(deadline, self.tried.lock()).await {
                let key = key_of(relay.authorization);
                let due = tried.get(&key).is_none_or(|at| at.elapsed() >= LEARN_EVERY);
                if due && !self.tools.knows(name) {
                    if tried.len() >= MAX_TRIED {
                        tried.retain(|_, at| at.elapsed() < LEARN_EVERY);
                    }
                    if tried.len() < MAX_TRIED {
                        tried.insert(key, Instant::now());
                    }
                    self.learn(client, relay, params.get("_meta"), deadline).await;
                }
            }
        }
        match_arguments(&self.tools, headers, params)
    }

    /// Reads the upstream's tools, page by page, until `deadline`; an
    /// error ends it (the call then meets the upstream with what is known).
    async fn learn(&self, client: &Client, relay: Relay<'_>, meta: Option<&Value>, deadline: tokio::time::Instant) {
        let (empty, cancel) = (Map::new(), CancellationToken::new());
        // The client's token would tie the listing's progress to a request
        // of another client that has the same token upstream.
        let meta = meta.and_then(Value::as_object).map(|meta| {
            let mut meta = meta.clone();
            meta.remove("progressToken");
            Value::Object(meta)
        });
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(meta) = &meta {
                params.insert("_meta".into(), meta.clone());
            }
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".into(), cursor);
            }
            let timeout = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Ok(slot) = client.reserve() else { return };
            let call = Call {
                method: UpstreamMethod::Forwarded(Method::ToolsList),
                params: &params,
                meta: &empty,
                timeout,
                progress: None,
                cancel: &cancel,
                slot: &slot,
                relay: Some(relay),
            };
            let Ok(mut result) = client.call(call).await else { return };
            self.tools.observe(&mut result);
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                return;
            }
        }
    }
}

/// A hash of an authorization, so that the table does not keep the token.
fn key_of(authorization: Option<&str>) -> u64 {
    use std::hash::{BuildHasher, RandomState};
    static KEYS: std::sync::LazyLock<RandomState> = std::sync::LazyLock::new(RandomState::new);
    KEYS.hash_one(authorization)
}

/// Whether the `Mcp-Param-*` headers of a `tools/call` with `params` are
/// those its arguments call for: each one there, once, with the value of
/// its argument (a Base64 sentinel decoded; one that does not decode is
/// no value). A header the tool does not name is not the face's business.
fn match_arguments(tools: &ToolHeaders, headers: &HeaderMap, params: &Map<String, Value>) -> bool {
    tools.of_call(Some(params)).iter().all(|(name, expected)| {
        let mut given = headers.get_all(name.as_str()).iter();
        let (Some(value), None) = (given.next(), given.next()) else { return false };
        let given = value.to_str().ok().and_then(decode_value);
        given.is_some() && given == decode_value(expected)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;
    use serde_json::json;

    fn tools() -> ToolHeaders {
        let tools = ToolHeaders::default();
        let mut list = json!({"tools": [{"name": "t", "inputSchema": {"type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}}]});
        tools.observe(&mut list);
        tools
    }

    /// The suite's cases of SEP-2243, and a plain mismatch.
    #[test]
    fn each_header_mirrors_its_argument() {
        let params = |region: &str| match json!({"name": "t", "arguments": {"region": region}}) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        for (header, region, ok) in [
            (Some("us-west1"), "us-west1", true),
            (Some("=?base64?SGVsbG8=?="), "Hello", true),
            (Some("=?base64?SGVsbG8?="), "Hello", false),
            (Some("=?base64?SGVs!!!bG8=?="), "Hello", false),
            (None, "test-value", false),
            (Some("eu-west1"), "us-west1", false),
        ] {
            let mut headers = HeaderMap::new();
            if let Some(header) = header {
                headers.insert("mcp-param-region", HeaderValue::from_static(header));
            }
            assert_eq!(match_arguments(&tools(), &headers, &params(region)), ok, "{header:?} {region}");
        }
    }
}
