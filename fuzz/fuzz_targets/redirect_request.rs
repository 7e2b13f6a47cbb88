//! The redirect listener's head reader and request line over reads of fuzzed sizes, and the query of the redirect.
//! The property is `mcp_bridge::props::redirect::request_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::redirect::request_bytes(data) {
        panic!("broken property: {broken}");
    }
});
