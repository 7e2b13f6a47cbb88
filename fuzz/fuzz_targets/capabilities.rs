//! translate::capabilities::client_capabilities against the 2026-07-28 schema.
//! The property is `mcp_bridge::props::handshake::capabilities_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::handshake::capabilities_bytes(data) {
        panic!("broken property: {broken}");
    }
});
