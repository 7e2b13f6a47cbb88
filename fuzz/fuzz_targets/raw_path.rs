//! The raw path of results against the full path, on one upstream
//! line. The property is `mcp_bridge::props::raw::raw_path_bytes`, shared
//! with the property tests of `crates/mcp-bridge/src/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::raw::raw_path_bytes(data) {
        panic!("broken property: {broken}");
    }
});
