//! body::EventLimit, the --max-response-bytes bound of one SSE event, over reads of fuzzed sizes.
//! The property is `mcp_bridge::props::http::event_limit_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::http::event_limit_bytes(data) {
        panic!("broken property: {broken}");
    }
});
