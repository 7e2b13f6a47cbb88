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
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The pages of a `tools/list` that the face reads to learn a tool's
/// headers, at most.
const MAX_PAGES: usize = 16;
/// The face lists the tools of its own at most this often: a client that
/// calls tools that do not exist must not make each call a listing.
const LEARN_EVERY: Duration = Duration::from_secs(5);

/// What the face knows of the tools' `Mcp-Param-*` headers.
#[derive(Default)]
pub(super) struct Known {
    tools: ToolHeaders,
    /// When the face last listed the tools itself; one listing at a time.
    learnt: tokio::sync::Mutex<Option<Instant>>,
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
    /// `_meta` and authorization, within `limit` for all its pages, at
    /// most every [`LEARN_EVERY`]); a tool still unknown after it is the
    /// upstream's to refuse.
    pub(super) async fn check_call(
        &self,
        (client, relay): (&Client, Relay<'_>),
        headers: &HeaderMap,
        params: &Map<String, Value>,
        limit: Duration,
    ) -> bool {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        if !self.tools.knows(name) {
            let mut learnt = self.learnt.lock().await;
            if !self.tools.knows(name) && learnt.is_none_or(|at| at.elapsed() >= LEARN_EVERY) {
                let learning = self.learn(client, relay, params.get("_meta"), limit);
                match tokio::time::timeout(limit, learning).await {
                    // A listing the upstream refused (another client's
                    // authorization, say) taught nothing.
                    Ok(false) => {}
                    Ok(true) => *learnt = Some(Instant::now()),
                    Err(_) => {
                        tracing::debug!("the tools/list that looks up a tool's headers did not complete in time");
                        *learnt = Some(Instant::now());
                    }
                }
            }
        }
        match_arguments(&self.tools, headers, params)
    }

    /// Reads the upstream's tools, page by page; an error ends it (the call
    /// then meets the upstream with what is known). Whether a page came.
    async fn learn(&self, client: &Client, relay: Relay<'_>, meta: Option<&Value>, limit: Duration) -> bool {
        let (empty, cancel) = (Map::new(), CancellationToken::new());
        let mut cursor: Option<Value> = None;
        for page in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(meta) = meta {
                params.insert("_meta".into(), meta.clone());
            }
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".into(), cursor);
            }
            let Ok(slot) = client.reserve() else { return page > 0 };
            let call = Call {
                method: UpstreamMethod::Forwarded(Method::ToolsList),
                params: &params,
                meta: &empty,
                timeout: limit,
                progress: None,
                cancel: &cancel,
                slot: &slot,
                relay: Some(relay),
            };
            let Ok(mut result) = client.call(call).await else { return page > 0 };
            self.tools.observe(&mut result);
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                break;
            }
        }
        true
    }
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
