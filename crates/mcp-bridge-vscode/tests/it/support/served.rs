//! A server process that listens on a port the system picks and prints
//! `PORT <n>` on stdout once it listens (tests/fake/http_upstream.py, which
//! also prints `OTHER <m>`, and the HTTP peers of tests/peers). The wait for
//! the line is bounded; the server's stdin is a pipe that the test holds, so
//! the server ends when the test drops it (and is killed besides).

use super::process::read_lines;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The longest wait for a server to listen (a cold Python or Node start on a
/// loaded machine).
const LISTEN_WAIT: Duration = Duration::from_secs(30);

pub struct Served {
    child: Child,
    _stdin: Option<ChildStdin>,
    /// The port of `PORT <n>`.
    pub port: u16,
    /// The port of `OTHER <m>`, when the server printed one.
    pub other: Option<u16>,
}

impl Served {
    /// Starts `cmd` and waits for `PORT <n>`; with `other`, also for the
    /// next line `OTHER <m>`. Its stderr goes to the test's.
    pub fn start(mut cmd: Command, other: bool) -> Served {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let shown = format!("{cmd:?}");
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
        let stdout = child.stdout.take().expect("stdout is piped");
        let lines = read_lines(stdout);
        let stdin = child.stdin.take();
        let mut served = Served { child, _stdin: stdin, port: 0, other: None };
        served.port = served.read_port(&lines, "PORT", &shown);
        if other {
            served.other = Some(served.read_port(&lines, "OTHER", &shown));
        }
        served
    }

    fn read_port(&mut self, lines: &mpsc::Receiver<String>, tag: &str, shown: &str) -> u16 {
        let line = match lines.recv_timeout(LISTEN_WAIT) {
            Ok(line) => line,
            Err(e) => {
                let _ = self.child.kill();
                panic!("{shown} printed no {tag} line in {LISTEN_WAIT:?} ({e:?})")
            }
        };
        match line.strip_prefix(tag).map(str::trim).and_then(|n| n.parse().ok()) {
            Some(port) => port,
            None => panic!("{shown} printed {line:?}, not {tag} <port>"),
        }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
