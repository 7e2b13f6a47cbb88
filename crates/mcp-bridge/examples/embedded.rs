//! A 2026-07-28 `rmcp` server that also serves VS Code (2025-11-25), from
//! one binary, through the embedded bridge.
//!
//! ```text
//! cargo run -p mcp-bridge --features embed --example embedded
//! ```
//!
//! The server is written once, in the 2026-07-28 style. The only change
//! from a plain rmcp server is its `main`: `mcp_bridge::embed::serve_stdio`
//! in place of `server.serve(rmcp::transport::stdio())`. VS Code's
//! `initialize` then takes the legacy path (with the bridge's repairs: the
//! array schema of `tags` gets an `items`), and a 2026-07-28 client takes
//! the modern path, rmcp's own server.

use mcp_bridge::embed::{Options, Route};
use mcp_bridge::Profile;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use std::sync::Arc;

/// The server of one connection; it knows which path it serves.
struct Tags {
    path: Route,
}

impl ServerHandler for Tags {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("embedded-example", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // An array without `items`: VS Code refuses it; the legacy path repairs it.
        let schema = json!({"type": "object", "properties": {"tags": {"type": "array"}}});
        let schema: JsonObject = serde_json::from_value(schema).unwrap_or_default();
        Ok(ListToolsResult::with_all_items(vec![Tool::new("count_tags", "Count the tags.", Arc::new(schema))]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tags =
            request.arguments.as_ref().and_then(|a| a.get("tags")).and_then(|t| t.as_array()).map_or(0, Vec::len);
        let text = format!("{tags} tags, on the {:?} path", self.path);
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// Said on stderr at the start: run by hand, the example otherwise waits
/// on stdin in silence. Stdout is the protocol's.
const HELLO: &str = "embedded-example: an MCP server on stdin and stdout for clients of 2025-11-25 (VS Code) \
                     and 2026-07-28; it reads one JSON-RPC message per line, an initialize first, or run it under \
                     a client: mcp-bridge-vscode check -- cargo run -q -p mcp-bridge --features embed --example embedded";

#[tokio::main]
async fn main() -> std::io::Result<()> {
    eprintln!("{HELLO}");
    // Before: `Tags { .. }.serve(rmcp::transport::stdio()).await?.waiting().await`.
    mcp_bridge::embed::serve_stdio(|path| Tags { path }, Options::new(Profile::vscode(), "embedded-example")).await
}
