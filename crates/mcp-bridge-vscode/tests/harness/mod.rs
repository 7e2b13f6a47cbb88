//! A line-level driver of the real `mcp-bridge-vscode` binary: it writes
//! raw lines to the bridge's stdin and reads its stdout line by line. Every
//! wait is bounded, so a hang fails the test instead of stalling the suite.
#![allow(dead_code)]

pub mod driver;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The longest wait for one expected line.
pub const WAIT: Duration = Duration::from_secs(15);

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The scripted fake upstream, with its options.
pub fn fake_upstream(options: &[&str]) -> Vec<String> {
    let mut cmd = vec!["python3".to_string(), repo_root().join("tests/fake/upstream.py").display().to_string()];
    cmd.extend(options.iter().map(|s| s.to_string()));
    cmd
}

pub struct Bridge {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Bridge {
    /// Starts the bridge with its options and, after `--`, the upstream.
    pub fn start(options: &[&str], upstream: &[String]) -> Bridge {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.args(options);
        if !upstream.is_empty() {
            cmd.arg("--").args(upstream);
        }
        Bridge::spawn(cmd)
    }

    pub fn spawn(mut cmd: Command) -> Bridge {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("the bridge binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Bridge { child, stdin, lines }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the bridge reads its stdin");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, message: &Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// The next line of the bridge, parsed.
    pub fn recv(&mut self) -> Value {
        match self.lines.recv_timeout(WAIT) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("the bridge wrote a line that is not JSON ({e}): {line}")),
            Err(e) => panic!("no line from the bridge in {WAIT:?}: {e:?}"),
        }
    }

    /// The next line of the bridge within `wait`, parsed; `None` when
    /// there is none (also when the bridge closed its stdout).
    pub fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(wait).ok()?;
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("the bridge wrote a line that is not JSON ({e}): {line}")),
        )
    }

    /// Whether the process has exited.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// The next line's exact text.
    pub fn recv_text(&mut self) -> String {
        self.lines.recv_timeout(WAIT).unwrap_or_else(|e| panic!("no line from the bridge in {WAIT:?}: {e:?}"))
    }

    /// Asserts that the bridge writes nothing for `wait`.
    pub fn expect_silence(&mut self, wait: Duration) {
        match self.lines.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(line) => panic!("expected no line, got {line}"),
            Err(RecvTimeoutError::Disconnected) => {}
        }
    }

    /// Sends a request and returns the response with that id; any other
    /// line before it fails the test.
    pub fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let response = self.recv();
        assert_eq!(response["id"], id, "response to {method}: {response}");
        response
    }

    /// Initializes with a client that declares `capabilities`.
    pub fn initialize_with(&mut self, capabilities: Value) -> Value {
        let response = self.request(
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "harness", "version": "1.0"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        response
    }

    pub fn initialize(&mut self) -> Value {
        let response = self.initialize_with(json!({}));
        assert!(response.get("result").is_some(), "initialize failed: {response}");
        response
    }

    /// Asserts that the bridge still answers a ping.
    pub fn assert_alive(&mut self) {
        let response = self.request(json!("alive"), "ping", json!({}));
        assert_eq!(response, json!({"jsonrpc": "2.0", "id": "alive", "result": {}}));
    }

    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Waits for the process to exit, at most `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                panic!("the bridge did not exit in {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The error object the error table gives for a cause.
pub fn bridge_error(code: i64, message: &str, cause: &str, detail: Option<&str>) -> Value {
    let mut data = json!({"cause": cause});
    if let Some(detail) = detail {
        data["detail"] = json!(detail);
    }
    json!({"code": code, "message": message, "data": data})
}

pub const NOT_VALID_JSON: &str = "The request is not valid JSON.";
pub const NOT_JSONRPC: &str = "The message is not a valid JSON-RPC 2.0 request.";
pub const NO_METHOD: &str = "The server does not have this method.";
pub const UPSTREAM_STOPPED: &str = "The upstream server process stopped. See the Output channel of the server.";
