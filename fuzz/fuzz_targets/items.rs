//! translate::items, R6, on one inputSchema.
//! The property is `mcp_bridge::props::translate::items_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::translate::items_bytes(data) {
        panic!("broken property: {broken}");
    }
});
