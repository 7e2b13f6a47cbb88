//! The driver of the real `mcp-bridge-vscode` binary: it writes raw lines to
//! the bridge's stdin and reads its stdout line by line.
//!
//! It keeps every message the bridge writes (so that the responses can be
//! counted per id at the end) with its exact text, captures the bridge's
//! stderr (to look for a panic, and to show it when a wait fails), and runs
//! the bridge in its own process group, so that the bridge and its upstream
//! are both killed when the driver drops. Every wait has a deadline, so a
//! hang fails the test instead of stalling the suite.
//!
//! Two ways to read: [`Driver::recv`] and [`Driver::request`] take the next
//! message in order (any other message before the expected one fails the
//! test), while [`Driver::response`], [`Driver::call`] and the waits look
//! for a message among all that came, for the tests that count them.

use super::process::read_lines;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest wait of one step of a scenario.
pub const STEP: Duration = Duration::from_secs(20);

pub struct Driver {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every message the bridge wrote so far, in order.
    pub seen: Vec<Value>,
    /// The exact text of each message of `seen`.
    texts: Vec<String>,
    /// How many messages of `seen` [`Driver::recv`] handed out.
    cursor: usize,
    /// The bridge closed its stdout.
    closed: bool,
    stderr: Arc<Mutex<String>>,
    stderr_thread: Option<JoinHandle<()>>,
}

/// How a run ended: the exit status and the bridge's whole stderr.
pub struct Ended {
    pub status: ExitStatus,
    pub stderr: String,
}

impl Driver {
    /// Starts the bridge with its options and, after `--`, the upstream
    /// (no `--` when `upstream` is empty).
    pub fn start(options: &[&str], upstream: &[String]) -> Driver {
        Driver::start_env(options, upstream, &[])
    }

    /// [`Driver::start`] with environment variables, e.g. `MCP_BRIDGE_LOG`.
    pub fn start_env(options: &[&str], upstream: &[String], env: &[(&str, &str)]) -> Driver {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.args(options);
        if !upstream.is_empty() {
            cmd.arg("--").args(upstream);
        }
        cmd.envs(env.iter().copied());
        Driver::spawn(cmd)
    }

    /// Starts the bridge of `cmd` as it is (for an upstream at a URL, which
    /// has no `--`), with the pipes and the process group of the driver.
    pub fn spawn(mut cmd: Command) -> Driver {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        let mut child = cmd.spawn().expect("the bridge binary starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let lines = read_lines(stdout);
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let stderr_thread = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut text) = sink.lock() {
                    text.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        let stdin = child.stdin.take();
        Driver {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            texts: Vec::new(),
            cursor: 0,
            closed: false,
            stderr,
            stderr_thread: Some(stderr_thread),
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the bridge reads its stdin");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, message: &Value) {
        self.send_raw(&line(message));
    }

    /// Sends many messages in one write, as a burst.
    pub fn send_burst(&mut self, messages: &[Value]) {
        let bytes: Vec<u8> = messages.iter().flat_map(line).collect();
        self.send_raw(&bytes);
    }

    /// Sends a request and reads nothing.
    pub fn send_request(&mut self, id: Value, method: &str, params: Value) {
        self.send(&request(id, method, params));
    }

    pub fn cancel(&mut self, id: &Value) {
        self.send(&cancel(id));
    }

    /// Moves what the reader thread has into `seen`, waiting at most `wait`
    /// for the first message; false when nothing came.
    fn pull(&mut self, wait: Duration) -> bool {
        match self.lines.recv_timeout(wait) {
            Ok(text) => {
                self.keep(text);
                while let Ok(text) = self.lines.try_recv() {
                    self.keep(text);
                }
                true
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                false
            }
        }
    }

    fn keep(&mut self, text: String) {
        let value = serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!("the bridge wrote a line that is not JSON ({e}): {}", text.chars().take(500).collect::<String>())
        });
        self.seen.push(value);
        self.texts.push(text);
    }

    /// Waits at most `wait` for a message not handed out yet; false when
    /// none came (also when the bridge closed its stdout).
    fn wait_next(&mut self, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        while self.cursor >= self.seen.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.closed {
                return false;
            }
            self.pull(left);
        }
        true
    }

    /// The index of the next message not handed out yet, which it hands
    /// out; at most [`STEP`].
    #[track_caller]
    fn advance(&mut self) -> usize {
        if !self.wait_next(STEP) {
            panic!("no message from the bridge in {STEP:?}; stderr:\n{}", self.stderr_text());
        }
        self.cursor += 1;
        self.cursor - 1
    }

    /// The next message not handed out yet, waiting at most [`STEP`].
    #[track_caller]
    pub fn recv(&mut self) -> Value {
        let at = self.advance();
        self.seen[at].clone()
    }

    /// The next message's exact text, waiting at most [`STEP`].
    #[track_caller]
    pub fn recv_text(&mut self) -> String {
        let at = self.advance();
        self.texts[at].clone()
    }

    /// The next message within `wait`; `None` when there is none (also
    /// when the bridge closed its stdout).
    pub fn try_recv(&mut self, wait: Duration) -> Option<Value> {
        if !self.wait_next(wait) {
            return None;
        }
        self.cursor += 1;
        Some(self.seen[self.cursor - 1].clone())
    }

    /// Asserts that the bridge writes nothing more for `wait` (or closes
    /// its stdout).
    #[track_caller]
    pub fn expect_silence(&mut self, wait: Duration) {
        if self.wait_next(wait) {
            panic!("expected no line, got {}", self.texts[self.cursor]);
        }
    }

    /// The messages that came since the last call of `take_new` or
    /// [`Driver::recv`], waiting at most `wait` when there are none.
    pub fn take_new(&mut self, wait: Duration) -> Vec<Value> {
        if self.cursor >= self.seen.len() && !self.closed {
            self.pull(wait);
        }
        let new = self.seen[self.cursor..].to_vec();
        self.cursor = self.seen.len();
        new
    }

    /// Sends a request and returns the next message, which must be its
    /// response: any other message before it fails the test.
    #[track_caller]
    pub fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send_request(id.clone(), method, params);
        let response = self.recv();
        assert_eq!(response["id"], id, "response to {method}: {response}");
        response
    }

    /// Waits until the response to `id` is in `seen` and returns it (the
    /// first one); the messages before it stay counted, and [`Driver::recv`]
    /// goes on after it. At most [`STEP`].
    #[track_caller]
    pub fn response(&mut self, id: &Value) -> Value {
        self.wait_for(|m| is_response(m) && &m["id"] == id, &format!("the response to {id}"));
        let at = self.seen.iter().position(|m| is_response(m) && &m["id"] == id).unwrap_or(0);
        self.cursor = self.cursor.max(at + 1);
        self.seen[at].clone()
    }

    /// Sends a request and waits for its response, among other messages.
    #[track_caller]
    pub fn call(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send_request(id.clone(), method, params);
        self.response(&id)
    }

    /// Waits until `seen` has a message that matches, at most [`STEP`].
    #[track_caller]
    pub fn wait_for(&mut self, matches: impl Fn(&Value) -> bool, what: &str) {
        let deadline = Instant::now() + STEP;
        while !self.seen.iter().any(&matches) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.closed {
                panic!("{what}: not seen in {STEP:?}; stderr:\n{}", self.stderr_text());
            }
            self.pull(left.min(Duration::from_millis(200)));
        }
    }

    /// Waits until `seen` has a response to each id of `ids`, at most `limit`.
    #[track_caller]
    pub fn wait_responses(&mut self, ids: &[Value], limit: Duration) {
        let wanted: HashSet<String> = ids.iter().map(Value::to_string).collect();
        let deadline = Instant::now() + limit;
        loop {
            let have = responses_per_id(&self.seen).keys().filter(|k| wanted.contains(*k)).count();
            if have == wanted.len() {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.closed {
                panic!("{have} of {} responses in {limit:?}; stderr:\n{}", wanted.len(), self.stderr_text());
            }
            self.pull(left.min(Duration::from_millis(200)));
        }
    }

    /// Keeps reading for `wait` (a bounded window in which nothing more is
    /// expected); what comes is kept in `seen` for the counts.
    pub fn drain_for(&mut self, wait: Duration) {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.closed {
                return;
            }
            self.pull(left);
        }
    }

    /// Sends a ping whose exact answer must be the next message: the reader
    /// still reads, and nothing else was pending.
    #[track_caller]
    pub fn assert_alive(&mut self) {
        let response = self.request(json!("alive"), "ping", json!({}));
        assert_eq!(response, json!({"jsonrpc": "2.0", "id": "alive", "result": {}}));
    }

    /// Sends a ping with `id` and waits for its exact answer among other
    /// messages: the reader still reads.
    #[track_caller]
    pub fn assert_alive_amid(&mut self, id: &str) {
        let response = self.call(json!(id), "ping", json!({}));
        assert_eq!(response, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    }

    /// Initializes with a client that declares `capabilities` (the request
    /// id `"init"`); returns the response, which must be the next message.
    #[track_caller]
    pub fn initialize_with(&mut self, capabilities: Value) -> Value {
        let response = self.request(
            json!("init"),
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "harness", "version": "1.0"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        response
    }

    #[track_caller]
    pub fn initialize(&mut self) -> Value {
        let response = self.initialize_with(json!({}));
        assert!(response.get("result").is_some(), "initialize failed: {response}");
        response
    }

    /// The process id of the bridge.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the bridge has exited.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Waits for the bridge to exit (at most `limit`, else the test fails),
    /// then reads the rest of its stdout into `seen` and its whole stderr.
    #[track_caller]
    pub fn wait_exit(&mut self, limit: Duration) -> Ended {
        let status = self.wait_exit_alone(limit);
        // The upstream may still hold the pipes of the group: end it.
        self.kill_group();
        // Stdout is closed: the reader thread ends after the last line.
        while !self.closed && self.pull(Duration::from_millis(500)) {}
        if let Some(thread) = self.stderr_thread.take() {
            let _ = thread.join();
        }
        Ended { status, stderr: self.stderr_text() }
    }

    /// Waits for the bridge's own exit (at most `limit`, else the test
    /// fails) and leaves the rest of its process group as it is, so that a
    /// test can see what the bridge left running.
    #[track_caller]
    pub fn wait_exit_alone(&mut self, limit: Duration) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if start.elapsed() > limit {
                self.kill_group();
                panic!("the bridge did not exit in {limit:?}; stderr:\n{}", self.stderr_text());
            }
            self.pull(Duration::from_millis(20));
        }
    }

    /// Waits until the bridge's stderr has `count` lines with `text` (a log
    /// line of `MCP_BRIDGE_LOG=debug`, say), at most [`STEP`].
    #[track_caller]
    pub fn wait_stderr(&mut self, text: &str, count: usize) {
        let deadline = Instant::now() + STEP;
        loop {
            let seen = self.stderr_text().matches(text).count();
            if seen >= count {
                return;
            }
            if Instant::now() > deadline {
                panic!("{seen} of {count} log lines {text:?} in {STEP:?}; stderr:\n{}", self.stderr_text());
            }
            self.pull(Duration::from_millis(20));
        }
    }

    pub fn stderr_text(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    fn kill_group(&mut self) {
        let _ =
            Command::new("kill").args(["-KILL", "--", &format!("-{}", self.child.id())]).stderr(Stdio::null()).status();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("the stderr of the bridge:\n{}", self.stderr_text());
        }
        self.kill_group();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn line(message: &Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

pub fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A success response.
pub fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response.
pub fn err(id: Value, error: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

pub fn call_tool(id: Value, name: &str, arguments: Value) -> Value {
    request(id, "tools/call", json!({"name": name, "arguments": arguments}))
}

pub fn cancel(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "stop"}})
}

/// A response: a message with an id and a result or an error, and no method.
pub fn is_response(message: &Value) -> bool {
    message.get("method").is_none() && (message.get("result").is_some() || message.get("error").is_some())
}

/// The number of responses per id (the id's JSON text as the key).
pub fn responses_per_id(messages: &[Value]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for message in messages.iter().filter(|m| is_response(m)) {
        *counts.entry(message["id"].to_string()).or_insert(0) += 1;
    }
    counts
}

/// No panic in the bridge: its stderr has no "panicked".
#[track_caller]
pub fn assert_no_panic(ended: &Ended) {
    assert!(!ended.stderr.contains("panicked"), "the bridge panicked; stderr:\n{}", ended.stderr);
}

/// Each id of `ids` got exactly one response in `messages`.
#[track_caller]
pub fn assert_answered_once(messages: &[Value], ids: &[Value]) {
    let counts = responses_per_id(messages);
    for id in ids {
        let n = counts.get(&id.to_string()).copied().unwrap_or(0);
        assert_eq!(n, 1, "the request {id} got {n} responses, not exactly one");
    }
}

/// No id of `ids` got a response in `messages`.
#[track_caller]
pub fn assert_never_answered(messages: &[Value], ids: &[Value]) {
    let counts = responses_per_id(messages);
    for id in ids {
        let n = counts.get(&id.to_string()).copied().unwrap_or(0);
        assert_eq!(n, 0, "the request {id} got {n} responses, where the spec gives none");
    }
}
