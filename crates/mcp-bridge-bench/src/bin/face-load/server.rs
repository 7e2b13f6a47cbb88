//! The server under test, started by the generator so that the time to
//! its first result counts from the spawn: its output read on threads (so
//! that it never blocks on a full pipe; the first `http://…/mcp` it prints
//! is its URL when none was given), and at the end its whole tree ended.

use crate::tree;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The lines of output kept for an error message.
const TAIL_LINES: usize = 20;

pub struct Server {
    child: Child,
    pub pid: u32,
    pub spawned: Instant,
    urls: Receiver<String>,
    tail: Arc<Mutex<VecDeque<String>>>,
}

/// A port that was free a moment ago, for a server that takes its port on
/// its command line (`{port}`).
pub fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot find a free port: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| format!("cannot find a free port: {e}"))
}

impl Server {
    /// Starts `command` in a process group of its own.
    pub fn spawn(command: &[String]) -> Result<Server, String> {
        let (program, args) = command.split_first().ok_or("no server command")?;
        let mut process = Command::new(program);
        process.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        let spawned = Instant::now();
        let mut child = process.spawn().map_err(|e| format!("cannot start {program}: {e}"))?;
        let (sender, urls) = channel();
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(out) = child.stdout.take() {
            read_lines(out, sender.clone(), tail.clone());
        }
        if let Some(err) = child.stderr.take() {
            read_lines(err, sender, tail.clone());
        }
        let pid = child.id();
        Ok(Server { child, pid, spawned, urls, tail })
    }

    /// The first `http://…/mcp` URL the server printed.
    pub fn url(&mut self, within: Duration) -> Result<String, String> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(url) = self.urls.recv_timeout(Duration::from_millis(20)) {
                return Ok(url);
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("the server exited ({status}) before it named its URL{}", self.tail()));
            }
            if Instant::now() > deadline {
                return Err(format!("the server named no http://…/mcp URL in {within:?}{}", self.tail()));
            }
        }
    }

    /// Whether it still runs; its exit, with the end of its output, if not.
    pub fn check(&mut self) -> Result<(), String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Err(format!("the server exited ({status}){}", self.tail())),
            _ => Ok(()),
        }
    }

    /// The last lines it printed, for an error message.
    pub fn tail(&self) -> String {
        let lines = self.tail.lock().map(|t| t.iter().cloned().collect::<Vec<_>>().join("\n  ")).unwrap_or_default();
        if lines.is_empty() {
            String::new()
        } else {
            format!("; its last output:\n  {lines}")
        }
    }

    /// SIGTERM to its group, as a supervisor stops it, then SIGKILL to
    /// whatever of its tree is left after 5 s (a gateway's children may
    /// sit in groups of their own).
    pub fn stop(mut self) {
        let pids = tree::tree(self.pid);
        signal("-TERM", &format!("-{}", self.pid));
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(100));
        let left: Vec<String> = pids
            .iter()
            .filter(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
            .map(u32::to_string)
            .collect();
        if !left.is_empty() {
            signal("-KILL", &left.join(" "));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A run that failed half-way leaves no server behind.
        if matches!(self.child.try_wait(), Ok(None)) {
            signal("-KILL", &format!("-{}", self.pid));
            let _ = self.child.wait();
        }
    }
}

/// `kill SIGNAL TARGETS` (a pid, or a group as `-PGID`).
fn signal(signal: &str, targets: &str) {
    let mut command = Command::new("kill");
    command.arg(signal).arg("--");
    command.args(targets.split_whitespace());
    let _ = command.stdout(Stdio::null()).stderr(Stdio::null()).status();
}

/// Reads `from` line by line until it ends: the first URL goes to `urls`,
/// the last lines into `tail`.
fn read_lines(from: impl Read + Send + 'static, urls: Sender<String>, tail: Arc<Mutex<VecDeque<String>>>) {
    std::thread::spawn(move || {
        let mut reader = BufReader::new(from);
        let mut line = Vec::new();
        let mut named = false;
        while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
            let text = String::from_utf8_lossy(&line).trim_end().to_owned();
            line.clear();
            if !named {
                if let Some(url) = mcp_url(&text) {
                    named = urls.send(url).is_ok();
                }
            }
            if let Ok(mut tail) = tail.lock() {
                if tail.len() == TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(text.chars().take(300).collect());
            }
        }
    });
}

/// The first `http://…` word of a line whose path is `/mcp`.
fn mcp_url(line: &str) -> Option<String> {
    let start = line.find("http://")?;
    let word: String = line[start..].chars().take_while(|c| !c.is_whitespace() && *c != '"' && *c != '\'').collect();
    word.ends_with("/mcp").then_some(word)
}

#[cfg(test)]
mod tests {
    use super::mcp_url;

    #[test]
    fn finds_the_url_of_a_ready_line() {
        assert_eq!(
            mcp_url("mcp-bridge-vscode: listening on http://127.0.0.1:35295/mcp (Streamable HTTP) and http://x/sse"),
            Some("http://127.0.0.1:35295/mcp".into())
        );
        assert_eq!(mcp_url("listening on http://127.0.0.1:1/sse"), None);
    }
}
