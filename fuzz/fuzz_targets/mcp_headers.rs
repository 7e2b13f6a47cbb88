//! headers::tool_headers and param_values, the x-mcp-header walk of a tool's inputSchema and the Mcp-Param-* headers of a call.
//! The property is `mcp_bridge::props::http::mcp_headers_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::http::mcp_headers_bytes(data) {
        panic!("broken property: {broken}");
    }
});
