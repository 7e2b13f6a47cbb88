//! The pinned third-party peers of tests/peers, and bounded runs of them.
//!
//! `scripts/test` installs the peers (`scripts/install-peers`) and sets
//! `MCP_BRIDGE_PEERS` to the absolute path of `.cache/peers`. Without it, or
//! with a peer missing, every test that needs one FAILS with the command to
//! run: a test that skips in CI checks nothing.
//!

use super::process::{run_bounded, Input};
use super::{assert_json, repo_root};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// The longest run of one driver: its own watchdog is 60 s.
pub const DRIVER_LIMIT: Duration = Duration::from_secs(90);

/// The folder of the installed peers, checked.
pub fn peers() -> PathBuf {
    let Some(dir) = std::env::var_os("MCP_BRIDGE_PEERS") else {
        panic!(
            "MCP_BRIDGE_PEERS is not set. Run the tests with scripts/test: it installs the pinned peers \
             with scripts/install-peers and sets MCP_BRIDGE_PEERS=<repo>/.cache/peers."
        )
    };
    let dir = PathBuf::from(dir);
    for needed in [
        "py/bin/python",
        "node/node_modules/@modelcontextprotocol/sdk/package.json",
        "node/node_modules/@modelcontextprotocol/server/package.json",
        "node/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    ] {
        assert!(
            dir.join(needed).exists(),
            "the peer file {needed} is missing in MCP_BRIDGE_PEERS={}: run scripts/install-peers",
            dir.display()
        );
    }
    assert!(
        repo_root().join("tests/peers/node_modules/@modelcontextprotocol/sdk").exists(),
        "tests/peers/node_modules does not lead to the npm peers: run scripts/install-peers"
    );
    dir
}

/// The Node.js of the peers: `MCP_BRIDGE_NODE`, else `node` on PATH.
pub fn node() -> String {
    std::env::var("MCP_BRIDGE_NODE").unwrap_or_else(|_| "node".to_string())
}

fn path(p: PathBuf) -> String {
    p.display().to_string()
}

/// tests/peers/python/server.py on PyPI mcp==2.3.0.
pub fn python_server() -> Vec<String> {
    vec![path(peers().join("py/bin/python")), path(repo_root().join("tests/peers/python/server.py"))]
}

/// tests/peers/node/server-v2.mjs on @modelcontextprotocol/server@2.4.0.
pub fn ts_v2_server() -> Vec<String> {
    peers();
    vec![node(), path(repo_root().join("tests/peers/node/server-v2.mjs"))]
}

/// Runs a scenario of tests/peers/node/client.mjs (the TypeScript SDK 1.32.2
/// client, VS Code's stand-in) against the real bridge with `bridge_args`
/// and `upstream`, and returns its JSON document (described in client.mjs).
pub fn drive(scenario: &str, bridge_args: &[&str], upstream: &[String]) -> Value {
    let mut cmd = driver_command(scenario, bridge_args);
    cmd.arg("--").args(upstream);
    run_driver(cmd)
}

/// The command of a scenario of client.mjs, up to the options of the
/// bridge: the upstream comes next.
pub fn driver_command(scenario: &str, bridge_args: &[&str]) -> Command {
    peers();
    let mut cmd = Command::new(node());
    cmd.arg(repo_root().join("tests/peers/node/client.mjs"))
        .args([scenario, "--timeout-ms", "60000", "--"])
        .arg(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .args(bridge_args);
    cmd
}

/// Runs the command of [`driver_command`] to its end and returns its
/// document, which must say that the driver did not break.
pub fn run_driver(cmd: Command) -> Value {
    let done = run_bounded(cmd, Input::Closed, DRIVER_LIMIT);
    let doc: Value = serde_json::from_str(done.stdout.trim()).unwrap_or_else(|e| {
        panic!("client.mjs printed no JSON ({e}), {}:\n{}\nstderr:\n{}", done.status, done.stdout, done.stderr)
    });
    assert!(done.status.success(), "client.mjs failed, {}:\n{doc:#}\nstderr:\n{}", done.status, done.stderr);
    assert_eq!(doc["driverError"], Value::Null, "the driver broke:\n{doc:#}\nstderr:\n{}", done.stderr);
    doc
}

/// Runs tests/peers/python/modern_client.py (the 2026-07-28 client of PyPI
/// mcp==2.3.0) against `upstream` directly, without the bridge.
pub fn modern_check(upstream: &[String]) -> Value {
    let mut args = vec!["--".to_string()];
    args.extend_from_slice(upstream);
    modern_client(&args)
}

/// [`modern_check`] of the server at `url`, over Streamable HTTP.
pub fn modern_check_url(url: &str) -> Value {
    modern_client(&["--url".to_string(), url.to_string()])
}

fn modern_client(args: &[String]) -> Value {
    let mut cmd = Command::new(peers().join("py/bin/python"));
    cmd.arg(repo_root().join("tests/peers/python/modern_client.py")).args(args);
    let done = run_bounded(cmd, Input::Closed, DRIVER_LIMIT);
    assert!(
        done.status.success(),
        "modern_client.py failed, {}:\n{}\nstderr:\n{}",
        done.status,
        done.stdout,
        done.stderr
    );
    serde_json::from_str(done.stdout.trim()).unwrap_or_else(|e| {
        panic!("modern_client.py printed no JSON ({e}):\n{}\nstderr:\n{}", done.stdout, done.stderr)
    })
}

/// The step `name` of a driver document; it must exist.
#[track_caller]
pub fn step<'a>(doc: &'a Value, name: &str) -> &'a Value {
    match doc["steps"].get(name) {
        Some(step) => step,
        None => panic!("the document has no step {name:?}:\n{doc:#}"),
    }
}

/// The raw result the bridge wrote for a step that the SDK client accepted.
#[track_caller]
pub fn accepted<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let s = step(doc, name);
    assert_eq!(s["ok"], true, "the SDK client did not accept the step {name:?}: {s:#}");
    assert_eq!(s["answered"], true, "the bridge did not answer the step {name:?}: {s:#}");
    &s["wire"]
}

/// The text of the first block of an accepted tools/call step.
#[track_caller]
pub fn accepted_text(doc: &Value, name: &str) -> Value {
    accepted(doc, name)["content"][0]["text"].clone()
}

/// The raw error object the bridge wrote for a step.
#[track_caller]
pub fn refused<'a>(doc: &'a Value, name: &str) -> &'a Value {
    let s = step(doc, name);
    assert_eq!(s["ok"], false, "the step {name:?} did not fail: {s:#}");
    assert_eq!(s["answered"], true, "the bridge did not answer the step {name:?}: {s:#}");
    &s["error"]
}

/// A 2025-11-25 bridge exits 0 at the end of its stdin.
#[track_caller]
pub fn assert_clean_exit(doc: &Value) {
    assert_json("the exit of the bridge", &doc["bridgeExit"], &serde_json::json!({"code": 0, "signal": null}));
}
