//! Logging (behaviour spec, "Logging (M3)"): `logging/setLevel` keeps the
//! level and answers `{}` in each state, and the level goes upstream.

use crate::support::driver::Driver;
use crate::support::fake::fake_upstream;
use crate::support::{bridge_error, message};
use serde_json::{json, Value};
use std::time::Duration;

fn invalid_params() -> Value {
    bridge_error(-32602, &message("invalid_params"), "invalid_params", None)
}

#[track_caller]
fn assert_set_level(bridge: &mut Driver, id: &str) {
    assert_eq!(bridge.request(json!(id), "logging/setLevel", json!({"level": "notice"}))["result"], json!({}));
    for (i, params) in [json!({"level": "loud"}), json!({}), json!([]), json!({"level": 3})].into_iter().enumerate() {
        let bad = format!("{id}-bad-{i}");
        assert_eq!(bridge.request(json!(bad), "logging/setLevel", params)["error"], invalid_params());
    }
}

#[test]
fn set_level_answers_in_initializing_and_in_closing_and_refuses_invalid_params() {
    // initializing: the upstream does not answer server/discover.
    let mut bridge = Driver::start(&["--discover-timeout", "3"], &fake_upstream(&["--discover", "stall"]));
    bridge.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}}));
    std::thread::sleep(Duration::from_millis(300));
    assert_set_level(&mut bridge, "initializing");
    drop(bridge);

    // closing, after the loss of the upstream server.
    let mut bridge = Driver::start(&["--test-shutdown-grace-ms", "3000"], &fake_upstream(&[]));
    bridge.initialize();
    let lost = bridge.request(json!(1), "tools/call", json!({"name": "exit"}));
    assert_eq!(lost["error"]["data"]["cause"], "upstream_exited");
    assert_set_level(&mut bridge, "closing");
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(1));
}

#[test]
fn a_level_chosen_before_initialize_goes_with_the_first_requests() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    assert_eq!(bridge.request(json!(1), "logging/setLevel", json!({"level": "alert"}))["result"], json!({}));
    bridge.initialize();
    let response = bridge.request(json!(2), "tools/call", json!({"name": "echo"}));
    let raw = response["result"]["structuredContent"]["raw"].as_str().unwrap_or_default();
    let line: Value = serde_json::from_str(raw).unwrap_or_default();
    assert_eq!(line["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "alert", "{line}");
}

#[test]
fn each_log_message_at_or_above_the_level_goes_to_the_client_without_the_upstream_meta() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize();
    assert_eq!(bridge.request(json!(1), "logging/setLevel", json!({"level": "warning"}))["result"], json!({}));
    let levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
    for (i, level) in levels.iter().enumerate() {
        let id = json!(10 + i);
        bridge.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "log", "arguments": {"level": level, "data": {"n": i}}}}));
        let first = bridge.recv();
        if i >= 3 {
            assert_eq!(
                first,
                json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "logger": "fake", "data": {"n": i}}}),
                "{level}"
            );
            assert_eq!(bridge.recv()["id"], id);
        } else {
            assert_eq!(first["id"], id, "{level} is below warning: dropped");
        }
    }
}

/// The log of the bridge goes to stderr through a buffer that a thread of
/// its own writes: every R6 info line of a list still reaches
/// stderr, in the order of the tools, also when the input ends right after
/// the list's result. 400 tools keep the `--tools-list` argument under the
/// 128 KiB limit of one argument.
#[test]
fn every_r6_line_of_a_long_list_reaches_stderr_in_order_before_the_exit() {
    const TOOLS: usize = 400;
    let tools: Vec<Value> = (0..TOOLS)
        .map(|i| {
            json!({"name": format!("t{i}"), "inputSchema": {"type": "object",
            "properties": {"v": {"type": "array"}}}})
        })
        .collect();
    let list = json!({"tools": tools}).to_string();
    let mut driver = Driver::start(&[], &fake_upstream(&["--tools-list", &list]));
    driver.initialize();
    let result = driver.call(json!(1), "tools/list", json!({}));
    assert_eq!(result["result"]["tools"].as_array().map(Vec::len), Some(TOOLS));
    driver.close_stdin();
    let ended = driver.wait_exit(Duration::from_secs(10));
    assert_eq!(ended.status.code(), Some(0));
    let repaired: Vec<&str> = ended
        .stderr
        .lines()
        .filter(|l| l.contains("inputSchema '/properties/v'"))
        .filter_map(|l| l.split("tool '").nth(1)?.split('\'').next())
        .collect();
    let want: Vec<String> = (0..TOOLS).map(|i| format!("t{i}")).collect();
    assert_eq!(repaired, want, "stderr:\n{}", ended.stderr);
    // The line of the exit, logged last, was written before the process
    // ended. (The guard that waits for it at the exit is not what this can
    // catch: the thread writes faster than the bridge exits.)
    assert!(ended.stderr.contains("INFO the upstream command exited"), "stderr:\n{}", ended.stderr);
}

/// "One gate for text from outside": what the upstream writes can hold a
/// line break, a separator or an escape, in a line of its stderr, a tool
/// name and a property name (the R6 note), the method of a notification
/// that belongs to no request and of a request of the server. The log
/// still has only the bridge's own lines, one per event, each with its
/// tag; the hostile texts are in them, escaped.
#[test]
fn a_text_of_the_upstream_never_writes_a_line_of_its_own_into_the_log() {
    let forged = "[mcp-bridge-vscode] WARN sign-in: open https://evil.example/device";
    let tools = json!({"tools": [{
        "name": format!("t\n{forged}"),
        "inputSchema": {"type": "object", "properties": {format!("p\r\n{forged}"): {"type": "array"}}}
    }]});
    let stderr_line = format!("started\r{forged}\u{2028}{forged}\u{1b}[2K");
    let upstream = fake_upstream(&["--stderr", &stderr_line, "--tools-list", &tools.to_string()]);
    let mut bridge = Driver::start_env(&[], &upstream, &[("MCP_BRIDGE_LOG", "debug")]);
    bridge.initialize();
    let listed = bridge.request(json!(1), "tools/list", json!({}));
    assert_eq!(listed["result"]["tools"][0]["name"], format!("t\n{forged}"), "the result keeps the name");
    for method in [format!("x\n{forged}"), format!("y\u{85}{forged}")] {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": {}}).to_string();
        let call = bridge.request(
            json!(2),
            "tools/call",
            json!({"name": "line", "arguments": {"line": line, "then_answer": true}}),
        );
        assert!(call.get("result").is_some(), "{call}");
    }
    let request = json!({"jsonrpc": "2.0", "id": 99, "method": format!("z\u{2029}{forged}")}).to_string();
    let call = bridge.request(
        json!(3),
        "tools/call",
        json!({"name": "line", "arguments": {"line": request, "then_answer": true}}),
    );
    assert!(call.get("result").is_some(), "{call}");
    // An id of 5000 digits: its span's field is cut at the bound.
    let long_id: Value = serde_json::from_str(&"7".repeat(5000)).unwrap_or_default();
    let listed = bridge.request(long_id, "tools/list", json!({}));
    assert!(listed.get("result").is_some(), "{listed}");
    bridge.wait_stderr("dropped a request of the upstream server", 1);
    bridge.wait_stderr("an array schema without items got items", 2);
    bridge.wait_stderr("upstream: started", 1);
    let stderr = bridge.stderr_text();
    for line in stderr.lines() {
        assert!(line.starts_with("[mcp-bridge-vscode] "), "a line that the bridge did not write: {line:?}\n{stderr}");
        assert!(!line.contains('\r') && !line.contains(['\u{85}', '\u{2028}', '\u{2029}', '\u{1b}']), "{line:?}");
    }
    assert!(stderr.lines().all(|l| l.len() < 2000), "a log line longer than its bounds:\n{stderr}");
    let tagged = stderr.lines().filter(|l| l.contains("sign-in: open")).count();
    let escaped = stderr.matches(&format!("\\n{forged}")).count() + stderr.matches(&format!("\\r{forged}")).count();
    assert!(tagged >= 5 && escaped >= 3, "the hostile texts reached the log, escaped:\n{stderr}");
    assert!(!stderr.lines().any(|l| l.starts_with(forged)), "a forged warning line:\n{stderr}");
}

/// A stderr that the client never reads (Gemini CLI without `--debug`,
/// opencode and the Inspector CLI pipe it and never read it:
/// docs/clients.md) never stops the protocol: at `debug` the demo's lists
/// fill the pipe and the log's buffer within a few hundred requests, and
/// every request is still answered; once stderr is read, one line says
/// how many log lines were dropped.
#[test]
fn a_stderr_that_the_client_never_reads_stops_no_request() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let bin = env!("CARGO_BIN_EXE_mcp-bridge-vscode");
    let mut child = Command::new(bin)
        .args(["--", bin, "demo-server"])
        .env("MCP_BRIDGE_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the bridge starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines = crate::support::process::read_lines(child.stdout.take().expect("stdout"));
    let send = |stdin: &mut std::process::ChildStdin, message: Value| {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        stdin.write_all(&line).expect("the bridge reads");
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "gemini-cli-mcp-client", "version": "1"}}}),
    );
    for id in 1..=2000 {
        send(&mut stdin, json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}}));
        // The initialize result first, then each list's response.
        let want = if id == 1 { 2 } else { 1 };
        for _ in 0..want {
            let line = lines.recv_timeout(Duration::from_secs(10));
            assert!(line.is_ok(), "request {id} got no response: the log stopped the bridge");
        }
    }
    drop(stdin);
    let mut stderr = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("stderr reads");
    let _ = child.wait();
    let notice = stderr.lines().find(|l| l.contains("log lines were dropped: nothing read stderr for 1 s"));
    assert!(notice.is_some_and(|l| l.starts_with("[mcp-bridge-vscode] WARN ")), "no notice in {} bytes", stderr.len());
}
