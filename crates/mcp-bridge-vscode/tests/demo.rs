//! The bundled demo server (`mcp-bridge-vscode demo-server`, written with
//! `rmcp`) through the bridge: structured results, the text mirror and
//! progress, as VS Code gets them.

mod harness;

use harness::Bridge;
use serde_json::json;

fn demo_bridge() -> Bridge {
    let exe = env!("CARGO_BIN_EXE_mcp-bridge-vscode").to_string();
    let mut bridge = Bridge::start(&[], &[exe, "demo-server".into()]);
    bridge.initialize();
    // The demo declares tools.listChanged: the first listen stream's
    // acknowledgment gives the list change of the gap ("Events after a gap").
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}));
    bridge
}

#[test]
fn the_demo_structured_results_get_a_text_mirror_and_keep_their_type() {
    let mut bridge = demo_bridge();
    let add = bridge.request(json!(1), "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
    assert_eq!(add["result"]["structuredContent"], json!({"sum": 5.0}));
    // The demo sends an empty content: the text mirror is the bridge's.
    assert_eq!(add["result"]["content"], json!([{"type": "text", "text": "{\"sum\":5.0}"}]));
    let primes = bridge.request(json!(2), "tools/call", json!({"name": "list_primes", "arguments": {"limit": 12}}));
    assert_eq!(primes["result"]["structuredContent"], json!([2, 3, 5, 7, 11]));
    assert_eq!(primes["result"]["content"], json!([{"type": "text", "text": "[2,3,5,7,11]"}]));
    assert_eq!(primes["result"].get("resultType"), None);
}

#[test]
fn the_demo_slow_tool_sends_progress_with_the_clients_token() {
    let mut bridge = demo_bridge();
    bridge.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "slow_count", "arguments": {"steps": 2, "delay_ms": 10}, "_meta": {"progressToken": 0}}}));
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 1.0, "total": 2.0, "message": "step 1 of 2"}})
    );
    assert_eq!(
        bridge.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 2.0, "total": 2.0, "message": "step 2 of 2"}})
    );
    let done = bridge.recv();
    assert_eq!(done["id"], 3);
    assert_eq!(done["result"]["content"], json!([{"type": "text", "text": "counted to 2"}]));
}
