//! input::checks::check_round and input::questions::question.
//! The property is `mcp_bridge::props::input::round_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::input::round_bytes(data) {
        panic!("broken property: {broken}");
    }
});
