//! translate::result::translate_result, the result rules, for every method and quirk.
//! The property is `mcp_bridge::props::translate::result_rules_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::translate::result_rules_bytes(data) {
        panic!("broken property: {broken}");
    }
});
