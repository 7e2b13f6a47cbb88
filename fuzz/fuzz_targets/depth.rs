//! framing::exceeds_depth, the nesting pre-scan, against the parse of serde_json.
//! The property is `mcp_bridge::props::framing::depth_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::framing::depth_bytes(data) {
        panic!("broken property: {broken}");
    }
});
