//! Child processes under a bound: the lines of a pipe on a thread of their
//! own, and a run to the end that fails the test when it takes too long.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// The lines of a child's pipe, read on a thread of their own so that a
/// wait for one can be bounded; the channel ends with the pipe.
pub fn read_lines(pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// The stdin of a run.
pub enum Input {
    /// `/dev/null`: the process reads the end at once.
    Closed,
    /// A pipe that stays open to the end of the run: a process that waits
    /// for its input does not end.
    Open,
}

pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` to its end, at most `limit`; then kills its whole process
/// group (the bridge and the upstream under a driver) and fails the test.
pub fn run_bounded(cmd: Command, input: Input, limit: Duration) -> Finished {
    run_bounded_into(cmd, input, Stdio::piped(), limit)
}

/// [`run_bounded`] with the stdout of `cmd` into `stdout` (a file, say):
/// [`Finished::stdout`] has it only when it is a pipe.
pub fn run_bounded_into(mut cmd: Command, input: Input, stdout: Stdio, limit: Duration) -> Finished {
    let stdin = match input {
        Input::Closed => Stdio::null(),
        Input::Open => Stdio::piped(),
    };
    cmd.stdin(stdin).stdout(stdout).stderr(Stdio::piped()).process_group(0);
    let shown = format!("{cmd:?}");
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    let _stdin = child.stdin.take();
    let out = child.stdout.take();
    let mut err = child.stderr.take().expect("stderr is piped");
    // Each pipe on its own thread, so that a full one never blocks the other.
    let out_reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut out) = out {
            let _ = out.read_to_string(&mut text);
        }
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
