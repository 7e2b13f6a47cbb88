//! The stdio transport: a child process, its stdin, stdout and stderr.
//!
//! The command starts without a shell, with its arguments exactly as
//! given. Its stdin and stdout are a [`Lines`] pipe; one task drains its
//! stderr into the log (the child's stderr never reaches a message to the
//! client), and a supervisor owns the child.

use super::inbox::Inbox;
use super::lines::{self, Lines, Pipe, PipeTasks, Stop};
use crate::framing::Frame;
use crate::gate::text;
use crate::jsonrpc::{BridgeError, Cause};
use crate::pipe::LineReader;
use std::ffi::OsString;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long the reader may still read after the child exited by itself.
const EXIT_DRAIN: Duration = Duration::from_secs(1);
/// How long after the end of its pipes the exit of a child that stops is
/// known at the latest (the kernel closes a process's files before it
/// reports its exit).
const EXIT_NOTICE: Duration = Duration::from_millis(250);
/// The longest stderr line kept for the log; the rest is cut.
const STDERR_LINE_BYTES: usize = 16 * 1024;

/// The upstream command: a program and its arguments
/// ([`StdioCommand::new`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioCommand {
    pub program: OsString,
    pub args: Vec<OsString>,
}

impl StdioCommand {
    /// `program` with `args`, started without a shell, each argument as
    /// given.
    pub fn new(program: impl Into<OsString>, args: impl IntoIterator<Item = impl Into<OsString>>) -> StdioCommand {
        StdioCommand { program: program.into(), args: args.into_iter().map(Into::into).collect() }
    }
}

/// The child and its pipes, which need tasks once the client exists.
pub(super) struct Spawned {
    child: Child,
    pipe: Pipe<ChildStdout, ChildStdin>,
    stderr: ChildStderr,
    stop: oneshot::Receiver<Stop>,
}

/// Starts the command: the sending half of its pipe, and the child to
/// start once the client exists.
pub(super) fn spawn(command: &StdioCommand, max_line_bytes: usize) -> Result<(Lines, Spawned), BridgeError> {
    // On Windows, `npx` is found as `npx.cmd` (`super::command`).
    let mut child = Command::new(super::command::spawnable(&command.program))
        .args(&command.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|err| {
            let program = command.program.to_string_lossy();
            tracing::error!(program = %crate::gate::text::shown(&program, crate::gate::text::NAME), error = %err, "cannot start the upstream command");
            BridgeError::new(Cause::SpawnFailed)
        })?;
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(BridgeError::new(Cause::SpawnFailed));
    };
    crate::pipe::widen_pipe(&stdout);
    let (stop_tx, stop) = oneshot::channel();
    let (lines, pipe) = lines::open((stdout, stdin), max_line_bytes, Some(stop_tx));
    Ok((lines, Spawned { child, pipe, stderr, stop }))
}

impl Spawned {
    /// Starts the pipe's tasks, the drain of stderr and the supervisor.
    pub(super) fn start(self, inbox: Arc<Inbox>) {
        let tasks = Tasks { pipe: self.pipe.start(inbox.clone()), stderr: tokio::spawn(drain_stderr(self.stderr)) };
        tokio::spawn(supervise(self.child, self.stop, inbox, tasks));
    }
}

/// The tasks of the child's pipes.
struct Tasks {
    pipe: PipeTasks,
    stderr: JoinHandle<()>,
}

impl Tasks {
    /// Gives the reader a moment to read what the child wrote before it
    /// exited. A process that the child left behind can hold the pipe
    /// open, so then the reader stops all the same.
    async fn drain(&mut self) {
        if !self.pipe.drain(EXIT_DRAIN).await {
            tracing::warn!("the upstream command exited, but a process that it started keeps its stdout open");
        }
    }

    fn abort(&self) {
        self.pipe.abort();
        self.stderr.abort();
    }
}

/// Owns the child, and decides the cause of the loss of the connection
/// (behaviour spec, error table): `upstream_exited` when the child stopped,
/// `closed` when it closed its stdout or stdin and keeps running. When the
/// client stops it, the child gets the grace, then it is killed, and its
/// pipes are no longer read: nothing the child left behind can keep the
/// bridge from ending.
async fn supervise(mut child: Child, mut stop: oneshot::Receiver<Stop>, inbox: Arc<Inbox>, mut tasks: Tasks) {
    let mut exited = false;
    let request = tokio::select! {
        status = child.wait() => {
            log_exit(status);
            exited = true;
            None
        }
        () = tasks.pipe.ended() => {
            // A child that stops closes its pipes a moment before its
            // exit is known: wait that moment before calling it alive.
            if let Ok(status) = tokio::time::timeout(EXIT_NOTICE, child.wait()).await {
                log_exit(status);
                exited = true;
            }
            None
        }
        request = &mut stop => Some(request.ok()),
    };
    let request = match request {
        Some(request) => request,
        None => {
            if exited {
                tasks.drain().await;
                inbox.mark_lost(BridgeError::new(Cause::UpstreamExited));
            } else {
                tracing::warn!("the upstream command closed its connection, but keeps running");
                inbox.mark_lost(BridgeError::new(Cause::Closed));
            }
            // The client holds the sender of `stop`: a client that goes
            // away without a stop ends this task.
            stop.await.ok()
        }
    };
    if let Some((grace, _)) = &request {
        if !exited {
            match tokio::time::timeout(*grace, child.wait()).await {
                Ok(status) => log_exit(status),
                Err(_) => {
                    tracing::warn!("the upstream command did not exit in time; killing it");
                    let _ = child.kill().await;
                }
            }
        }
    }
    tasks.abort();
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
        tracing::info!(target: "upstream::stderr", "{}", text::shown(&text, text::LINE));
    }
}
