//! translate::discover::initialize_result from a discover result.
//! The property is `mcp_bridge::props::handshake::initialize_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::handshake::initialize_bytes(data) {
        panic!("broken property: {broken}");
    }
});
