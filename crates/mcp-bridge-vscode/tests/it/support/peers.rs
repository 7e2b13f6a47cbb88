//! The pinned third-party peers of tests/peers, and bounded runs of them.
//!
//! `scripts/test` installs the peers (`scripts/install-peers`) and sets
//! `MCP_BRIDGE_PEERS` to the absolute path of `.cache/peers`. Without it, or
//! with a peer missing, every test that needs one FAILS with the command to
//! run: a test that skips in CI checks nothing.
//!

use super::{assert_json, repo_root};
use serde_json::Value;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

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

/// @modelcontextprotocol/server-everything@2026.8.31 over stdio: legacy only.
pub fn everything_server() -> Vec<String> {
    let index = peers().join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    vec![node(), path(index), "stdio".to_string()]
}

pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` to its end, at most `limit`; then kills its whole process
/// group (the bridge and the upstream under a driver) and fails the test.
pub fn run_bounded(mut cmd: Command, limit: Duration) -> Finished {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let shown = format!("{cmd:?}");
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let mut out = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    // Each pipe on its own thread, so that a full one never blocks the other.
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            let _ = child.kill();
            let _ = child.wait();
            let stderr = err_reader.join().unwrap_or_default();
            panic!("{shown} did not end in {limit:?}; its stderr:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // The group may still hold a straggler that keeps a pipe open.
    let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).stderr(Stdio::null()).status();
    Finished { status, stdout: out_reader.join().unwrap_or_default(), stderr: err_reader.join().unwrap_or_default() }
}

/// Runs a scenario of tests/peers/node/client.mjs (the TypeScript SDK 1.32.2
/// client, VS Code's stand-in) against the real bridge with `bridge_args`
/// and `upstream`, and returns its JSON document (described in client.mjs).
pub fn drive(scenario: &str, bridge_args: &[&str], upstream: &[String]) -> Value {
    peers();
    let mut cmd = Command::new(node());
    cmd.arg(repo_root().join("tests/peers/node/client.mjs"))
        .args([scenario, "--timeout-ms", "60000", "--"])
        .arg(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .args(bridge_args)
        .arg("--")
        .args(upstream);
    let done = run_bounded(cmd, DRIVER_LIMIT);
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
    let mut cmd = Command::new(peers().join("py/bin/python"));
    cmd.arg(repo_root().join("tests/peers/python/modern_client.py")).arg("--").args(upstream);
    let done = run_bounded(cmd, DRIVER_LIMIT);
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
