//! The lifecycle: the steps of the first initialize and their failures,
//! the end of the input, the loss of the upstream server, and the exit
//! codes (behaviour spec, "Lifecycle and initialize (M1)", "Error table").

use crate::support::driver::Driver;
use crate::support::fake::*;
use crate::support::*;
use serde_json::json;
use std::process::Command;
use std::time::Duration;

fn initialize_params() -> serde_json::Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}})
}

#[test]
fn a_command_that_cannot_start_gets_spawn_failed_and_the_bridge_stays_open() {
    let mut bridge = Driver::start(&[], &["/nonexistent/mcp-server".to_string()]);
    let response = bridge.request(json!(1), "initialize", initialize_params());
    assert_eq!(response["error"], bridge_error(-32603, &message("spawn_failed"), "spawn_failed", None));
    bridge.assert_alive();
    let again = bridge.request(json!(2), "initialize", initialize_params());
    assert_eq!(again["error"]["data"]["cause"], "spawn_failed", "a failed initialize returns to awaiting_initialize");
    let early = bridge.request(json!(3), "tools/list", json!({}));
    assert_eq!(early["error"]["data"]["cause"], "not_initialized");
}

#[test]
fn a_discover_error_gives_discover_failed_with_the_upstream_code_and_message() {
    let mut bridge = Driver::start(&[], &fake_upstream(&["--discover", "legacy-error"]));
    let response = bridge.request(json!(1), "initialize", initialize_params());
    assert_eq!(
        response["error"],
        bridge_error(-32601, &message("discover_failed"), "discover_failed", Some("Method not found"))
    );
    bridge.assert_alive();
    let again = bridge.request(json!(2), "initialize", initialize_params());
    assert_eq!(again["error"]["data"]["cause"], "discover_failed");
}

#[test]
fn a_discover_error_minus_32042_becomes_minus_32603() {
    let mut bridge = Driver::start(&[], &fake_upstream(&["--discover", "error"]));
    let response = bridge.request(json!(1), "initialize", initialize_params());
    assert_eq!(response["error"], bridge_error(-32603, &message("discover_failed"), "discover_failed", Some("sealed")));
}

#[test]
fn no_discover_answer_in_the_limit_gives_discover_failed_with_the_limit() {
    let mut bridge = Driver::start(&["--discover-timeout", "1"], &fake_upstream(&["--discover", "stall"]));
    let response = bridge.request(json!(1), "initialize", initialize_params());
    assert_eq!(
        response["error"],
        bridge_error(-32603, &message("discover_failed"), "discover_failed", Some("no response in 1 s"))
    );
    bridge.assert_alive();
}

#[test]
fn an_upstream_that_exits_before_discover_gives_upstream_exited_and_the_bridge_stays_open() {
    let mut bridge = Driver::start(&[], &fake_upstream(&["--discover", "exit"]));
    let response = bridge.request(json!(1), "initialize", initialize_params());
    assert_eq!(response["error"], bridge_error(-32603, &message("upstream_exited"), "upstream_exited", None));
    bridge.assert_alive();
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(0));
}

#[test]
fn a_canceled_initialize_gets_no_response_and_returns_to_awaiting_initialize() {
    let mut bridge = Driver::start(&[], &fake_upstream(&["--discover", "stall"]));
    bridge.send(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": initialize_params()}));
    std::thread::sleep(Duration::from_millis(300));
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "init"}}));
    bridge.expect_silence(Duration::from_millis(500));
    let early = bridge.request(json!(2), "tools/list", json!({}));
    assert_eq!(early["error"]["data"]["cause"], "not_initialized");
    bridge.assert_alive();
}

#[test]
fn a_child_that_exits_during_a_request_gives_upstream_exited_and_exit_code_1() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize();
    bridge.send(&json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "stall"}}));
    bridge.send(&json!({"jsonrpc": "2.0", "id": "dies", "method": "tools/call", "params": {"name": "exit"}}));
    let mut responses = vec![bridge.recv(), bridge.recv()];
    responses.sort_by_key(|r| r["id"].to_string());
    assert_eq!(responses.iter().map(|r| r["id"].clone()).collect::<Vec<_>>(), vec![json!("dies"), json!("slow")]);
    for response in &responses {
        assert_eq!(
            response["error"],
            bridge_error(-32603, &message("upstream_exited"), "upstream_exited", None),
            "{response}"
        );
    }
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(1));
}

#[test]
fn a_request_after_the_loss_of_the_upstream_gets_upstream_exited() {
    let mut bridge = Driver::start(&["--test-shutdown-grace-ms", "3000"], &fake_upstream(&[]));
    bridge.initialize();
    let response = bridge.request(json!(1), "tools/call", json!({"name": "exit"}));
    assert_eq!(response["error"]["data"]["cause"], "upstream_exited");
    let later = bridge.request(json!(2), "tools/list", json!({}));
    assert_eq!(later["error"], bridge_error(-32603, &message("upstream_exited"), "upstream_exited", None));
    bridge.assert_alive();
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(1));
}

#[test]
fn a_partial_line_before_the_exit_of_the_child_fails_the_request_once() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.initialize();
    let response = bridge.request(json!(1), "tools/call", json!({"name": "partial"}));
    let cause = response["error"]["data"]["cause"].as_str().unwrap_or_default().to_owned();
    assert!(cause == "invalid_response" || cause == "upstream_exited", "{response}");
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(1));
}

#[test]
fn at_the_end_of_the_input_requests_in_flight_get_no_response_and_the_exit_code_is_0() {
    let mut bridge = Driver::start(&["--test-shutdown-grace-ms", "500"], &fake_upstream(&[]));
    bridge.initialize();
    for i in 0..256 {
        bridge.send(&json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "stall"}}));
    }
    bridge.assert_alive();
    bridge.close_stdin();
    bridge.expect_silence(Duration::from_millis(1500));
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(0));
}

#[test]
fn the_end_of_the_input_before_initialize_exits_with_0() {
    let mut bridge = Driver::start(&[], &fake_upstream(&[]));
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(5)).status.code(), Some(0));
}

#[test]
fn invalid_arguments_exit_with_2() {
    let bin = env!("CARGO_BIN_EXE_mcp-bridge-vscode");
    let cases: &[&[&str]] = &[
        &[],
        &["--discover-timeout", "x", "--", "a"],
        &["--max-line-bytes", "0", "--", "a"],
        &["--no-such-flag", "--", "a"],
    ];
    for args in cases {
        let status = Command::new(bin).args(*args).stdin(std::process::Stdio::null()).output().map(|o| o.status.code());
        assert_eq!(status.ok().flatten(), Some(2), "{args:?}");
    }
}

#[test]
fn a_child_that_ignores_the_end_of_its_stdin_is_killed_after_the_grace() {
    let mut bridge = Driver::start(&["--test-shutdown-grace-ms", "300"], &fake_upstream(&["--linger"]));
    bridge.initialize();
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(5)).status.code(), Some(0));
}

#[test]
fn the_stderr_of_the_child_never_reaches_a_message_to_the_client() {
    let secret = "SECRET-TOKEN-0123456789";
    let mut bridge = Driver::start(&[], &fake_upstream(&["--stderr", secret]));
    let init = bridge.initialize();
    assert!(!init.to_string().contains(secret));
    let response = bridge.request(json!(1), "tools/call", json!({"name": "exit"}));
    assert_eq!(response["error"]["data"], json!({"cause": "upstream_exited"}));
    assert!(!response.to_string().contains(secret));
}

/// A command that starts the server and exits itself (a wrapper), while
/// the server it started keeps the stdout pipe open. `marker` names the
/// server on its command line, for [`kill_lingering_server`].
fn wrapper_of_a_lingering_server(exit_after_s: f64, marker: &str) -> Vec<String> {
    let fake = fake_upstream(&["--linger", "--stderr", marker]);
    let script = format!(
        "import subprocess, sys, time; server = subprocess.Popen({fake:?}); time.sleep({exit_after_s}); sys.exit(3)"
    );
    vec!["python3".to_string(), "-c".to_string(), script]
}

/// Kills what a wrapper left behind, found by its marker.
fn kill_lingering_server(marker: &str) {
    let _ = Command::new("pkill").args(["-f", marker]).status();
}

#[test]
fn a_child_that_exits_while_a_process_it_started_holds_its_stdout_is_lost_all_the_same() {
    // upstream_exited: "The child process stopped. Each request in flight ... gets this error",
    // and the exit code 1, also when the pipe does not close with the child.
    let marker = format!("lingering-{}-lost", std::process::id());
    let mut bridge = Driver::start(&["--test-shutdown-grace-ms", "300"], &wrapper_of_a_lingering_server(2.0, &marker));
    bridge.initialize();
    let response = bridge.request(json!(1), "tools/call", json!({"name": "stall"}));
    assert_eq!(response["error"], bridge_error(-32603, &message("upstream_exited"), "upstream_exited", None));
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(1));
    kill_lingering_server(&marker);
}

#[test]
fn the_end_of_the_input_exits_0_when_a_process_the_child_started_holds_its_stdout() {
    // Exit code 0 at the end of stdin: the child is killed after the grace, and the bridge does
    // not wait for a pipe that something else holds open.
    let marker = format!("lingering-{}-end", std::process::id());
    let mut bridge = Driver::start(&["--test-shutdown-grace-ms", "300"], &wrapper_of_a_lingering_server(60.0, &marker));
    bridge.initialize();
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(0));
    kill_lingering_server(&marker);
}
