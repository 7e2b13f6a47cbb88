//! framing::decode and jsonrpc::Message::classify: the checks of a line in order, and the envelope.
//! The property is `mcp_bridge::props::framing::decode_bytes`, shared with the
//! property tests of `crates/mcp-bridge/tests/`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = mcp_bridge::props::framing::decode_bytes(data) {
        panic!("broken property: {broken}");
    }
});
