//! upstream::http::auth::challenge, the WWW-Authenticate challenge of a 401 or 403.
//! The property is `mcp_bridge::props::auth::challenge_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::auth::challenge_bytes(data) {
        panic!("broken property: {broken}");
    }
});
