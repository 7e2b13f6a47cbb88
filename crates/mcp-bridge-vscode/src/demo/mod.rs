//! The demo server: a small MCP server of revision 2026-07-28, written with
//! the official Rust SDK `rmcp`, that `check` runs when no upstream is
//! given (`mcp-bridge-vscode demo-server`).
//!
//! It is deliberately imperfect for VS Code, so that `check` has repairs to
//! show:
//!
//! - `tag_items` has array schemas without `items` (at the root of a
//!   property and inside `anyOf`) and one with `items: false` after
//!   `prefixItems` (in `$defs`): the items rule, R6;
//! - `list_primes` has an `outputSchema` whose root is an array, and its
//!   `structuredContent` is an array: the bridge removes the schema;
//! - `add` and `list_primes` answer with `structuredContent` and an empty
//!   `content`: the bridge adds the text mirror;
//! - every result has the members of 2026-07-28 (`resultType`, and `ttlMs`
//!   with `cacheScope` on lists and reads), which the bridge removes;
//! - `slow_count` sends progress and can be cancelled;
//! - `ask_name` asks the user's name with a form input request (on the
//!   legacy path the bridge turns it into `elicitation/create`);
//! - `add_tool` adds the tool `extra` and announces the change on the
//!   listen streams (on the legacy path VS Code gets
//!   `notifications/tools/list_changed`).
//!
//! `rmcp` speaks 2026-07-28 on stdio as it is: it answers `server/discover`
//! from [`rmcp::ServerHandler::get_info`], checks the `_meta` of each request,
//! and adds `resultType` and the caching hints itself. The demo serves
//! through the embedded bridge (`mcp_bridge::embed`), so the same binary
//! is a 2025-11-25 server for VS Code (with the bridge's repairs) and a
//! 2026-07-28 server for a modern client.

mod args;
mod server;
mod tools;

use mcp_bridge::embed::Discover;
use server::Demo;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tools::State;

/// Serves one client on stdin and stdout until the input ends, with a
/// discover rule (the hidden `--refuse-discover` of `demo-server` shows
/// `Discover::Refuse`).
pub async fn serve_stdio(discover: Discover) -> std::io::Result<()> {
    let (read, write) = rmcp::transport::stdio_pipes();
    serve_with(read, write, discover).await
}

async fn serve_with<R, W>(read: R, write: W, discover: Discover) -> std::io::Result<()>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let mut options = mcp_bridge::embed::Options::new(mcp_bridge::Profile::vscode(), "mcp-bridge-demo");
    options.discover = discover;
    // One state for the process: the server of each path (and each link of
    // the legacy path) sees the same tool list and the same listen streams.
    let state = Arc::new(State::default());
    mcp_bridge::embed::serve(move |_path| Demo::new(state.clone()), options, read, write).await
}

#[cfg(test)]
mod tests;
