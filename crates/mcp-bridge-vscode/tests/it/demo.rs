//! The bundled demo server (`mcp-bridge-vscode demo-server`, written with
//! `rmcp`) through the bridge: structured results, the text mirror and
//! progress, as VS Code gets them.

use crate::support::driver::Driver;
use serde_json::json;

fn demo_bridge() -> Driver {
    let exe = env!("CARGO_BIN_EXE_mcp-bridge-vscode").to_string();
    let mut bridge = Driver::start(&[], &[exe, "demo-server".into()]);
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
    // 2 + 3 is 5, as a person writes it, not 5.0.
    assert_eq!(add["result"]["structuredContent"], json!({"sum": 5}));
    // The demo sends an empty content: the text mirror is the bridge's.
    assert_eq!(add["result"]["content"], json!([{"type": "text", "text": "{\"sum\":5}"}]));
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

/// The modern path at the end of the input (behaviour spec, "The end of the
/// input"): with nothing in flight, the demo exits at once, well before its
/// 2 s of grace; rmcp's own server must see the end of its input too.
#[test]
fn the_demo_exits_at_the_end_of_the_input_without_waiting_for_the_grace() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .arg("demo-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the demo starts");
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}});
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    let mut stdin = child.stdin.take().expect("a piped stdin");
    writeln!(stdin, "{request}").expect("the request goes");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("a piped stdout")).read_line(&mut line).expect("an answer");
    assert!(line.contains("\"tools\""), "{line}");
    let closed = Instant::now();
    drop(stdin);
    let status = child.wait().expect("the demo ends");
    let took = closed.elapsed();
    assert_eq!(status.code(), Some(0));
    assert!(took < Duration::from_secs(1), "the demo took {took:?} after the end of its input");
}
