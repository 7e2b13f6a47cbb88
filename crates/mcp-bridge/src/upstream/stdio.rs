//! The stdio transport: a child process, its stdin, stdout and stderr.
//!
//! The command starts without a shell, with its arguments exactly as
//! given. One task writes stdin, one reads stdout and hands each line to
//! the client inline, one drains stderr into the log: the child's stderr
//! never reaches a message to the client.

use super::{lock, Client};
use crate::framing::{write_lines, Frame, LineReader};
use crate::jsonrpc::{BridgeError, Cause};
use std::ffi::OsString;
use std::process::Stdio as Pipe;
use std::sync::Mutex;
use std::time::Duration;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

/// Lines waiting for the child's stdin.
const WRITE_QUEUE: usize = 256;
/// The longest stderr line kept for the log; the rest is cut.
const STDERR_LINE_BYTES: usize = 16 * 1024;

/// The upstream command: a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    pub program: OsString,
    pub args: Vec<OsString>,
}

pub(super) struct Stdio {
    /// `None` once stdin is closed.
    writer: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
    child: tokio::sync::Mutex<Child>,
}

/// The pipes that need tasks once the client exists.
pub(super) struct Pipes {
    stdout: ChildStdout,
    stderr: ChildStderr,
    stdin: ChildStdin,
    queue: mpsc::Receiver<Vec<u8>>,
    max_line_bytes: usize,
}

impl Stdio {
    pub(super) fn spawn(command: &StdioCommand, max_line_bytes: usize) -> Result<(Stdio, Pipes), BridgeError> {
        let mut child = Command::new(&command.program)
            .args(&command.args)
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| {
                tracing::error!(program = ?command.program, error = %err, "cannot start the upstream command");
                BridgeError::new(Cause::SpawnFailed)
            })?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(BridgeError::new(Cause::SpawnFailed));
        };
        let (tx, queue) = mpsc::channel(WRITE_QUEUE);
        let stdio = Stdio { writer: Mutex::new(Some(tx)), child: tokio::sync::Mutex::new(child) };
        Ok((stdio, Pipes { stdout, stderr, stdin, queue, max_line_bytes }))
    }

    pub(super) async fn send(&self, line: Vec<u8>) -> Result<(), BridgeError> {
        let writer = lock(&self.writer).clone();
        match writer {
            Some(tx) => tx.send(line).await.map_err(|_| BridgeError::new(Cause::UpstreamExited)),
            None => Err(BridgeError::new(Cause::NotConnected)),
        }
    }

    /// Closes stdin, waits `grace` for the child to exit, then kills it.
    pub(super) async fn shutdown(&self, grace: Duration) {
        lock(&self.writer).take();
        let mut child = self.child.lock().await;
        match tokio::time::timeout(grace, child.wait()).await {
            Ok(Ok(status)) => tracing::info!(%status, "the upstream command exited"),
            Ok(Err(err)) => tracing::warn!(error = %err, "cannot wait for the upstream command"),
            Err(_) => {
                tracing::warn!("the upstream command did not exit in time; killing it");
                let _ = child.kill().await;
            }
        }
    }
}

impl Pipes {
    /// Starts the writer, reader and stderr tasks.
    pub(super) fn start(self, client: Client) {
        tokio::spawn(write_lines(self.stdin, self.queue));
        tokio::spawn(drain_stderr(self.stderr));
        let max = self.max_line_bytes;
        tokio::spawn(async move {
            let mut reader = LineReader::new(self.stdout, max);
            loop {
                match reader.next_frame().await {
                    Ok(Some(frame)) => client.dispatch(&frame).await,
                    Ok(None) => break,
                    Err(err) => {
                        tracing::warn!(error = %err, "cannot read the stdout of the upstream command");
                        break;
                    }
                }
            }
            tracing::info!("the upstream command closed its stdout");
            client.mark_lost(BridgeError::new(Cause::UpstreamExited));
        });
    }
}

async fn drain_stderr(stderr: ChildStderr) {
    let mut reader = LineReader::new(stderr, STDERR_LINE_BYTES);
    while let Ok(Some(frame)) = reader.next_frame().await {
        let text = match &frame {
            Frame::Line(line) => String::from_utf8_lossy(line).into_owned(),
            Frame::TooLong { head, .. } => format!("{} [cut]", String::from_utf8_lossy(head)),
        };
        tracing::info!(target: "upstream::stderr", "{text}");
    }
}
