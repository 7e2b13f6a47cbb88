//! framing::sniff_id*, the id of a line that cannot be parsed.
//! The property is `mcp_bridge::props::framing::sniff_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::framing::sniff_bytes(data) {
        panic!("broken property: {broken}");
    }
});
