//! The log's way to stderr: the bridge's thread appends each line to a
//! buffer, and a thread of its own writes the buffer out. A `tools/list`
//! of 2,000 repaired tools writes 2,000 info lines; one `write(2)` per
//! line cost the bridge's thread about 10 ms of that list (issue 15). The
//! lines still leave at once, in order, and none is dropped: a buffer past
//! [`HIGH_WATER`] is written by the logging thread itself, which then waits
//! for stderr as it did before.
//!
//! Not `tracing-appender`: its guard prints to stdout, the protocol's
//! stream, when the worker does not answer at the exit, and it drops lines
//! unless told to block.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// Above this many buffered bytes a line is written by its own thread.
const HIGH_WATER: usize = 1 << 20;
/// How long the exit waits for stderr to take the last lines.
const EXIT_WAIT: Duration = Duration::from_secs(1);

#[derive(Default)]
struct State {
    buffer: Vec<u8>,
    /// The writer thread writes a batch now.
    writing: bool,
    closed: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Lines are waiting, or the pipe closed.
    wake: Condvar,
    /// The buffer is empty and nothing is being written.
    drained: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The `MakeWriter` of the log: each event's writer appends to the buffer.
#[derive(Clone)]
pub struct Pipe(Arc<Shared>);

/// Writes the rest at the exit; keep it until `main` returns.
pub struct Guard {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Starts the writer thread. Without a thread (the system refused one),
/// each line is written by its own thread, as with a plain stderr.
pub fn start() -> (Pipe, Guard) {
    let shared = Arc::new(Shared::default());
    let worker = shared.clone();
    let thread = std::thread::Builder::new().name("log".into()).spawn(move || write_batches(&worker)).ok();
    if thread.is_none() {
        shared.lock().closed = true;
    }
    (Pipe(shared.clone()), Guard { shared, thread })
}

fn write_batches(shared: &Shared) {
    let mut batch = Vec::new();
    loop {
        {
            let mut state = shared.lock();
            state.writing = false;
            if state.buffer.is_empty() {
                shared.drained.notify_all();
            }
            while state.buffer.is_empty() && !state.closed {
                state = shared.wake.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            if state.buffer.is_empty() {
                return;
            }
            std::mem::swap(&mut batch, &mut state.buffer);
            state.writing = true;
        }
        // A stderr that is gone loses the log, as with a plain stderr.
        let _ = io::stderr().write_all(&batch);
        batch.clear();
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Pipe {
    type Writer = Pipe;

    fn make_writer(&'a self) -> Pipe {
        self.clone()
    }
}

impl Write for Pipe {
    /// One call per event: the formatter writes a whole line at once.
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        let mut state = self.0.lock();
        if state.closed || state.buffer.len() >= HIGH_WATER {
            // Still under the lock, so the lines keep their order.
            let batch = std::mem::take(&mut state.buffer);
            let mut stderr = io::stderr().lock();
            let _ = stderr.write_all(&batch);
            return stderr.write_all(line).map(|()| line.len());
        }
        state.buffer.extend_from_slice(line);
        self.0.wake.notify_one();
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let Some(thread) = self.thread.take() else { return };
        let mut state = self.shared.lock();
        state.closed = true;
        self.shared.wake.notify_one();
        // A stderr that nobody reads must not hold the exit.
        let (state, _) = self
            .shared
            .drained
            .wait_timeout_while(state, EXIT_WAIT, |s| !s.buffer.is_empty() || s.writing)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let done = state.buffer.is_empty() && !state.writing;
        drop(state);
        if done {
            let _ = thread.join();
        }
    }
}
