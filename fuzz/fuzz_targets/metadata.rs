//! discovery::check_metadata (RFC 8414 section 3.3, PKCE S256) and discovery::covers (RFC 9728 section 3.3).
//! The property is `mcp_bridge::props::auth::metadata_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::auth::metadata_bytes(data) {
        panic!("broken property: {broken}");
    }
});
