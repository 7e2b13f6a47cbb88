//! The client as data (docs/decisions.md, "Each client's words"): a
//! client that the bridge knows by the `clientInfo` of its `initialize`
//! reads its own words in the error table's messages (where its log is);
//! an unknown client and VS Code read the behaviour spec's words exactly;
//! `--client NAME` fixes the words whatever the client says.

use crate::support::driver::Driver;
use crate::support::process::{run_bounded, Input};
use crate::support::{bridge_error, message};
use serde_json::{json, Value};
use std::process::Command;
use std::time::Duration;

const SPEC_LOG: &str = "the Output channel of the server";

fn initialize_as(client: &str) -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": client, "version": "1"}})
}

/// The error of an initialize whose command cannot start, with the log
/// place `log` in its message.
fn spawn_failed(log: &str) -> Value {
    bridge_error(-32603, &message("spawn_failed").replace(SPEC_LOG, log), "spawn_failed", None)
}

fn missing() -> Vec<String> {
    vec!["/nonexistent/mcp-server".to_string()]
}

/// A failed initialize goes back to awaiting_initialize, so one bridge
/// hears several clients in turn; each reads its own words.
#[test]
fn each_known_client_reads_where_its_log_is_and_an_unknown_one_the_specs_words() {
    let mut bridge = Driver::start(&[], &missing());
    for (id, (client, log)) in [
        ("gemini-cli-mcp-client", "the debug console of Gemini CLI (gemini --debug)"),
        ("qwen-cli-mcp-client-demo", "the debug log of Qwen Code (qwen --debug)"),
        ("code-server", SPEC_LOG),
        ("Visual Studio Code", SPEC_LOG),
        ("my-own-client", SPEC_LOG),
        ("codex-mcp-client", "the log of Codex (~/.codex/log/codex-tui.log)"),
    ]
    .into_iter()
    .enumerate()
    {
        let response = bridge.request(json!(id), "initialize", initialize_as(client));
        assert_eq!(response["error"], spawn_failed(log), "{client}");
        let text = response["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(text.contains("Output channel"), log == SPEC_LOG, "{client}: {text}");
    }
    bridge.assert_alive();
}

/// `--client codex`: every client reads Codex's words, VS Code too.
#[test]
fn the_client_option_fixes_the_words_whatever_the_client_says() {
    let mut bridge = Driver::start(&["--client", "codex"], &missing());
    for (id, client) in ["Visual Studio Code", "gemini-cli-mcp-client", "my-own-client"].into_iter().enumerate() {
        let response = bridge.request(json!(id), "initialize", initialize_as(client));
        assert_eq!(response["error"], spawn_failed("the log of Codex (~/.codex/log/codex-tui.log)"), "{client}");
    }
}

/// A name the bridge does not know is a usage error (exit 2) that lists
/// the names it knows.
#[test]
fn an_unknown_client_name_is_a_usage_error_that_lists_the_known_ones() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    cmd.args(["--client", "notepad", "--", "/nonexistent/mcp-server"]);
    let done = run_bounded(cmd, Input::Open, Duration::from_secs(30));
    let (code, stdout, stderr) = (done.status.code(), done.stdout, done.stderr);
    assert_eq!((code, stdout.as_str()), (Some(2), ""), "{stderr}");
    for name in ["vscode", "claude-code", "codex", "gemini"] {
        assert!(stderr.contains(name), "{name} in {stderr}");
    }
}
