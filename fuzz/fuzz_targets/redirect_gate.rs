//! The redirect listener's gate: the one-time start URL and the state of the redirect over a sequence of requests.
//! The property is `mcp_bridge::props::redirect::gate_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::redirect::gate_bytes(data) {
        panic!("broken property: {broken}");
    }
});
