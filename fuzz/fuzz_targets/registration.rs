//! register::registration, the response of a dynamic client registration (RFC 7591 section 3.2).
//! The property is `mcp_bridge::props::auth::registration_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::auth::registration_bytes(data) {
        panic!("broken property: {broken}");
    }
});
