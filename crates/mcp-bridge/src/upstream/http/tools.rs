//! What a `tools/list` result teaches the HTTP transport: the
//! `Mcp-Param-*` headers of each tool's calls (2026-07-28
//! `basic/transports/streamable-http.md`, `x-mcp-header`).

use super::headers::{self, ParamHeader};
use crate::gate::text;
use crate::sync::lock;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The tools whose headers are known, at most: an upstream that lists new
/// names each time must not grow the map without end.
const MAX_TOOLS: usize = 16_384;

/// The `Mcp-Param-*` headers of each tool, from the last `tools/list`.
/// Cheap to clone: the transport reads it for each call, the client's
/// result observer writes it.
#[derive(Clone, Default)]
pub(crate) struct ToolHeaders(Arc<Mutex<HashMap<String, Vec<ParamHeader>>>>);

impl ToolHeaders {
    /// Learns the headers of the tools of a `tools/list` result, and
    /// removes each tool whose `x-mcp-header` annotations break a rule of
    /// the page, with a warning.
    pub(crate) fn observe(&self, result: &mut Value) {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else { return };
        let mut known = lock(&self.0);
        tools.retain(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
            match headers::tool_headers(tool) {
                Ok(params) => {
                    if known.len() < MAX_TOOLS || known.contains_key(&name) {
                        known.insert(name, params);
                    } else {
                        tracing::debug!("a tool's headers are not kept: the upstream listed too many tools");
                    }
                    true
                }
                Err(reason) => {
                    tracing::warn!(
                        tool = %text::shown(&name, text::NAME),
                        reason = %text::shown(&reason, text::DETAIL),
                        "left out a tool with an x-mcp-header that is not valid"
                    );
                    known.remove(&name);
                    false
                }
            }
        });
    }

    /// Whether the tool of this name was in a `tools/list` result.
    pub(crate) fn knows(&self, tool: &str) -> bool {
        lock(&self.0).contains_key(tool)
    }

    /// The headers and their values for a `tools/call` with `params`.
    pub(crate) fn of_call(&self, params: Option<&Map<String, Value>>) -> Vec<(String, String)> {
        let tool = params.and_then(|p| p.get("name")).and_then(Value::as_str).unwrap_or("");
        let known = lock(&self.0);
        match known.get(tool) {
            Some(headers) => headers::param_values(params.and_then(|p| p.get("arguments")), headers),
            None => Vec::new(),
        }
    }
}
