//! The stdio transport: a child process, its stdin, stdout and stderr.
//!
//! The command starts without a shell, with its arguments exactly as
//! given. Its stdin and stdout are a [`Lines`] pipe; one task drains its
//! stderr into the log (the child's stderr never reaches a message to the
//! client), and a supervisor owns the child.

use super::lines::{self, Lines, Stop};
use super::transport::Transport;
use super::Client;
use crate::framing::{Frame, LineReader};
use crate::jsonrpc::{BridgeError, Cause};
use std::ffi::OsString;
use std::process::Stdio as Pipe;
use std::time::Duration;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinHandle};

/// How long the reader may still read after the child exited by itself.
const EXIT_DRAIN: Duration = Duration::from_secs(1);
/// The longest stderr line kept for the log; the rest is cut.
const STDERR_LINE_BYTES: usize = 16 * 1024;

/// The upstream command: a program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    pub program: OsString,
    pub args: Vec<OsString>,
}

/// The child and its pipes, which need tasks once the client exists.
pub(super) struct Pipes {
    child: Child,
    stdout: ChildStdout,
    stderr: ChildStderr,
    stdin: ChildStdin,
    queue: mpsc::Receiver<crate::framing::Line>,
    stop: oneshot::Receiver<Stop>,
    max_line_bytes: usize,
}

/// Starts the command: the transport, and the pipes to start once the
/// client exists.
pub(super) fn spawn(command: &StdioCommand, max_line_bytes: usize) -> Result<(Transport, Pipes), BridgeError> {
    // On Windows, `npx` is found as `npx.cmd` (`super::command`).
    let mut child = Command::new(super::command::spawnable(&command.program))
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
    crate::framing::widen_pipe(&stdout);
    let (stop_tx, stop) = oneshot::channel();
    let (lines, queue) = Lines::new(Cause::UpstreamExited, Some(stop_tx));
    Ok((Transport::Lines(lines), Pipes { child, stdout, stderr, stdin, queue, stop, max_line_bytes }))
}

impl Pipes {
    /// Starts the writer, reader, stderr and supervisor tasks.
    pub(super) fn start(self, client: Client) {
        let writer = lines::start_writer(self.stdin, self.queue);
        let stderr = tokio::spawn(drain_stderr(self.stderr));
        // The end of stdout is the loss of the upstream server.
        let reader =
            tokio::spawn(lines::read_lines(client.clone(), self.stdout, self.max_line_bytes, Cause::UpstreamExited));
        let others = [writer.abort_handle(), stderr.abort_handle()];
        tokio::spawn(supervise(self.child, self.stop, client, reader, others));
    }
}

/// Owns the child. When it exits by itself, the reader gets a moment to
/// read what is left in the pipe; a process that the child left behind can
/// hold the pipe open, so then the reader stops and the connection is lost
/// all the same. When the client stops it, the child gets the grace, then
/// it is killed, and its pipes are no longer read: nothing the child left
/// behind can keep the bridge from ending.
async fn supervise(
    mut child: Child,
    mut stop: oneshot::Receiver<Stop>,
    client: Client,
    mut reader: JoinHandle<()>,
    others: [AbortHandle; 2],
) {
    let mut client = Some(client);
    let request = tokio::select! {
        status = child.wait() => {
            log_exit(status);
            if tokio::time::timeout(EXIT_DRAIN, &mut reader).await.is_err() {
                tracing::warn!("the upstream command exited, but a process that it started keeps its stdout open");
                reader.abort();
                if let Some(client) = &client {
                    client.mark_lost(BridgeError::new(Cause::UpstreamExited));
                }
            }
            // The client holds the sender of `stop`: release it, so that a
            // client that goes away without a stop ends this task.
            client = None;
            stop.await.ok()
        }
        request = &mut stop => {
            if let Ok((grace, _)) = &request {
                match tokio::time::timeout(*grace, child.wait()).await {
                    Ok(status) => log_exit(status),
                    Err(_) => {
                        tracing::warn!("the upstream command did not exit in time; killing it");
                        let _ = child.kill().await;
                    }
                }
            }
            request.ok()
        }
    };
    reader.abort();
    for task in others {
        task.abort();
    }
    // The connection is closed: whatever still waits on it (the watch of the
    // front end) learns it now, not at an end of stdout that may never come.
    if let Some(client) = client {
        client.mark_lost(BridgeError::new(Cause::NotConnected));
    }
    if request.is_none() {
        // The client went away without a stop: the child goes too.
        let _ = child.kill().await;
    }
    if let Some((_, done)) = request {
        let _ = done.send(());
    }
}

fn log_exit(status: std::io::Result<std::process::ExitStatus>) {
    match status {
        Ok(status) => tracing::info!(%status, "the upstream command exited"),
        Err(err) => tracing::warn!(error = %err, "cannot wait for the upstream command"),
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
