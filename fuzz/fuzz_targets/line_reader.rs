//! framing::LineReader over an in-memory reader with a small limit and reads of fuzzed sizes.
//! The property is `mcp_bridge::props::framing::line_reader_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::framing::line_reader_bytes(data) {
        panic!("broken property: {broken}");
    }
});
