//! The child processes: one connection each, spoken to line by line as a
//! client of its revision, timed from the write of a request to the end of
//! its response line.

use crate::setup::Paths;
use serde_json::{json, Value};
use std::collections::{HashSet, VecDeque};
use std::fmt::Display;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    /// `fast-upstream`, spoken to as a 2026-07-28 client.
    Direct,
    /// `mcp-bridge-vscode -- fast-upstream`, spoken to as a 2025-11-25 client.
    Bridged,
    /// `relay -- fast-upstream` (bytes copied, no JSON work), spoken to as
    /// a 2026-07-28 client: the floor of two more pipe hops.
    Relay,
}

/// A request prepared once: only the id changes between round trips, so
/// that building it costs the client almost nothing inside the timing.
pub struct Request {
    method: String,
    params: String,
}

impl Request {
    /// Directly, `params._meta` carries what a 2026-07-28 client sends on
    /// every request; through the bridge, the bridge adds it.
    pub fn new(side: Side, method: &str, mut params: Value) -> Request {
        if side != Side::Bridged {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        Request { method: Value::from(method).to_string(), params: params.to_string() }
    }

    pub fn line(&self, id: u64) -> Vec<u8> {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":{},\"params\":{}}}\n", self.method, self.params)
            .into_bytes()
    }
}

/// The outcome of one round trip.
pub struct Exchange {
    /// From before the write of the request to the end of the response
    /// line, before its parse: the client's JSON work is not in it.
    pub elapsed: Duration,
    /// The length of the response line.
    pub bytes: usize,
    pub result: Value,
}

/// One connection: a child process spoken to line by line.
pub struct Peer {
    pub side: Side,
    child: Child,
    /// `None` once closed, which is the child's end of input.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// The last lines of the child's stderr, for error messages.
    stderr: Arc<Mutex<VecDeque<String>>>,
    pub next_id: u64,
    line: Vec<u8>,
    /// Notifications read while waiting for responses (none are expected).
    pub notifications: u64,
}

impl Peer {
    /// Starts the side and opens the session: `server/discover` directly,
    /// `initialize` and `notifications/initialized` through the bridge.
    pub fn start(side: Side, paths: &Paths, upstream_args: &[&str]) -> Result<Peer, String> {
        let program = match side {
            Side::Direct => &paths.upstream,
            Side::Bridged => &paths.bridge,
            Side::Relay => &paths.relay,
        };
        let mut command = Command::new(program);
        if side != Side::Direct {
            command.arg("--").arg(&paths.upstream);
        }
        let mut child = command
            .args(upstream_args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the pipes of the child are missing".into());
        };
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(std::result::Result::ok) {
                let mut tail = keep.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if tail.len() == 20 {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        let mut peer = Peer {
            side,
            child,
            stdin: Some(stdin),
            // Large enough that a big result is read in few calls.
            stdout: BufReader::with_capacity(1 << 20, stdout),
            stderr: tail,
            next_id: 0,
            line: Vec::new(),
            notifications: 0,
        };
        peer.open()?;
        Ok(peer)
    }

    fn open(&mut self) -> Result<(), String> {
        match self.side {
            Side::Direct | Side::Relay => {
                let result = self.exchange(&Request::new(self.side, "server/discover", json!({})))?.result;
                if !result["supportedVersions"].as_array().is_some_and(|v| v.iter().any(|v| v == "2026-07-28")) {
                    return Err(self.failure(format!("server/discover does not offer 2026-07-28: {result}")));
                }
            }
            Side::Bridged => {
                let params = json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"}
                });
                let result = self.exchange(&Request::new(self.side, "initialize", params))?.result;
                if result["protocolVersion"] != "2025-11-25" {
                    return Err(self.failure(format!("initialize did not agree on 2025-11-25: {result}")));
                }
                self.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
            }
        }
        Ok(())
    }

    fn send(&mut self, line: &[u8]) -> Result<(), String> {
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(line).and_then(|()| stdin.flush()),
            None => return Err(self.failure("its stdin is closed")),
        };
        written.map_err(|e| self.failure(format!("cannot write to its stdin: {e}")))
    }

    /// Reads one line into `self.line`; returns its length.
    fn read_line(&mut self) -> Result<usize, String> {
        self.line.clear();
        match self.stdout.read_until(b'\n', &mut self.line) {
            Ok(0) => Err(self.failure("it closed its stdout")),
            Ok(n) => Ok(n),
            Err(e) => Err(self.failure(format!("cannot read its stdout: {e}"))),
        }
    }

    /// Sends the request and waits for its response.
    pub fn exchange(&mut self, request: &Request) -> Result<Exchange, String> {
        self.next_id += 1;
        let id = self.next_id;
        let line = request.line(id);
        let start = Instant::now();
        self.send(&line)?;
        loop {
            let bytes = self.read_line()?;
            let elapsed = start.elapsed();
            if let Some(result) = self.response(id)? {
                return Ok(Exchange { elapsed, bytes, result });
            }
        }
    }

    /// The result in `self.line` if it is the response to `id`, `None` for
    /// a notification, an error for anything else.
    fn response(&mut self, id: u64) -> Result<Option<Value>, String> {
        let message: Value = match serde_json::from_slice(&self.line) {
            Ok(message) => message,
            Err(e) => {
                let excerpt = excerpt(&self.line);
                return Err(self.failure(format!("it wrote a line that is not JSON ({e}): {excerpt}")));
            }
        };
        let Value::Object(mut message) = message else {
            let excerpt = excerpt(&self.line);
            return Err(self.failure(format!("it wrote a message that is not an object: {excerpt}")));
        };
        match (message.get("id"), message.get("method")) {
            (None, Some(_)) => {
                self.notifications += 1;
                return Ok(None);
            }
            (Some(got), None) if got.as_u64() == Some(id) => {}
            _ => {
                let excerpt = excerpt(&self.line);
                return Err(self.failure(format!("waiting for the response to id {id}, it wrote: {excerpt}")));
            }
        }
        if let Some(error) = message.get("error") {
            return Err(self.failure(format!("request {id} failed: {error}")));
        }
        match message.remove("result") {
            Some(result) => Ok(Some(result)),
            None => {
                let excerpt = excerpt(&self.line);
                Err(self.failure(format!("a response without result or error: {excerpt}")))
            }
        }
    }

    /// `message`, with the side, the exit status if the child ended, and
    /// the end of its stderr.
    pub fn failure(&mut self, message: impl Display) -> String {
        let mut text = format!("{:?} side: {message}", self.side);
        // A child that fails is often about to exit, and its last words
        // still on their way through the stderr thread: give both a moment.
        let deadline = Instant::now() + Duration::from_millis(200);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if let Ok(Some(status)) = self.child.try_wait() {
            text.push_str(&format!("\n  the process ended: {status}"));
        }
        let tail = self.stderr.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !tail.is_empty() {
            text.push_str("\n  the end of its stderr:");
            for line in tail.iter() {
                text.push_str("\n    ");
                text.push_str(line);
            }
        }
        text
    }

    /// A field of `/proc/<pid>/status` in KiB, such as `VmRSS` or `VmHWM`.
    pub fn status_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|line| line.strip_prefix(field).is_some_and(|rest| rest.starts_with(':')))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    pub fn threads(&self) -> Option<u64> {
        self.status_kib("Threads")
    }

    /// The CPU time of all the process's threads so far, from
    /// `/proc/<pid>/task/*/schedstat` (ns, unlike the 10 ms ticks of `stat`).
    pub fn cpu(&self) -> Option<Duration> {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.child.id())).ok()?;
        let mut total = 0u64;
        for task in tasks {
            let schedstat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            total += schedstat.split_whitespace().next()?.parse::<u64>().ok()?;
        }
        Some(Duration::from_nanos(total))
    }

    /// Closes its stdin and waits for it to end, as a client that leaves
    /// would; reports a process that does not end or ends with an error.
    fn close(mut self) -> Option<String> {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(status)) if status.success() => return None,
                Ok(Some(status)) => {
                    return Some(format!("{:?} side ended with {status} at the end of its input", self.side))
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Some(format!("{:?} side: cannot wait for it: {e}", self.side)),
            }
        }
        Some(format!("{:?} side did not end within 3 s of the end of its input", self.side))
    }

    /// Writes `lines` at once and reads the response to each, in any order
    /// (ids from `first` on). A thread writes while this one reads, as a
    /// client with requests in flight does, so that no pipe fills.
    pub fn burst(&mut self, lines: &[Vec<u8>], first: u64) -> Result<(), String> {
        let Some(stdin) = self.stdin.as_mut() else { return Err(self.failure("its stdin is closed")) };
        let mut waiting: HashSet<u64> = (first..first + lines.len() as u64).collect();
        let written = std::thread::scope(|scope| {
            let writer =
                scope.spawn(|| lines.iter().try_for_each(|line| stdin.write_all(line).and_then(|()| stdin.flush())));
            let mut read = || -> Result<(), String> {
                while !waiting.is_empty() {
                    self.line.clear();
                    match self.stdout.read_until(b'\n', &mut self.line) {
                        Ok(0) => return Err("it closed its stdout".into()),
                        Ok(_) => {}
                        Err(e) => return Err(format!("cannot read its stdout: {e}")),
                    }
                    let message: Value = serde_json::from_slice(&self.line)
                        .map_err(|e| format!("it wrote a line that is not JSON ({e}): {}", excerpt(&self.line)))?;
                    let Some(id) = message.get("id").and_then(Value::as_u64) else { continue };
                    if message.get("result").is_none() || !waiting.remove(&id) {
                        return Err(format!("an unexpected response: {}", excerpt(&self.line)));
                    }
                }
                Ok(())
            };
            let read = read();
            let write = writer.join().unwrap_or_else(|_| Err(std::io::Error::other("the writer thread panicked")));
            read.and(write.map_err(|e| format!("cannot write to its stdin: {e}")))
        });
        written.map_err(|e| self.failure(e))
    }
}

impl Drop for Peer {
    /// No child outlives the bench, whatever path it leaves by.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Closes the peer, printing a warning if it did not end cleanly.
pub fn drop_peer(peer: Peer) {
    if let Some(warning) = peer.close() {
        println!("warning: {warning}");
    }
}

/// The first 300 bytes of a line, for error messages.
pub fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(300)]);
    let text = text.trim_end();
    if line.len() > 300 {
        format!("{text}… ({} bytes)", line.len())
    } else {
        text.to_owned()
    }
}
