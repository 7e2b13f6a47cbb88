//! listener::events::for_client and listener::board, what the client gets of the listen streams.
//! The property is `mcp_bridge::props::listen::events_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::listen::events_bytes(data) {
        panic!("broken property: {broken}");
    }
});
