//! The log's way to stderr: the bridge's thread appends each line to a
//! buffer, and a thread of its own writes the buffer out. A `tools/list`
//! of 2,000 repaired tools writes 2,000 info lines, and a `write(2)` per
//! line on the bridge's thread would cost it a large share of that list.
//! The lines still leave at once, in order: past [`HIGH_WATER`] buffered
//! bytes, a logging thread waits until the writer thread took the buffer,
//! so it waits for a slow stderr as it did before. A stderr that takes
//! nothing for [`STALL_WAIT`] is not read at all (Gemini CLI without
//! `--debug`, opencode and the Inspector CLI pipe it and never read it):
//! the lines are then dropped and counted, never the protocol stopped, and
//! a line says how many when stderr takes lines again.
//!
//! Not `tracing-appender`: its guard prints to stdout, the protocol's
//! stream, when the worker does not answer at the exit, and it drops lines
//! unless told to block.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// Above this many buffered bytes a line waits for the writer thread.
const HIGH_WATER: usize = 1 << 20;
/// How long a line waits for a full buffer to drain before stderr counts
/// as not read.
const STALL_WAIT: Duration = Duration::from_secs(1);
/// How long the exit waits for stderr to take the last lines.
const EXIT_WAIT: Duration = Duration::from_secs(1);

#[derive(Default)]
struct State {
    buffer: Vec<u8>,
    /// The writer thread writes a batch now.
    writing: bool,
    closed: bool,
    /// Stderr took nothing for [`STALL_WAIT`]: lines are dropped without a
    /// wait until the writer thread finishes its batch.
    stalled: bool,
    /// The lines dropped since the last notice.
    dropped: u64,
}

struct Shared {
    /// The tag of the notice of dropped lines.
    tag: &'static str,
    stall_wait: Duration,
    state: Mutex<State>,
    /// Where the lines go: stderr, or a recorder in the tests.
    sink: Mutex<Box<dyn Write + Send>>,
    /// Lines are waiting, or the pipe closed.
    wake: Condvar,
    /// The writer thread finished a batch.
    drained: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes to the sink; a sink that is gone loses the log, as a plain
    /// stderr would.
    fn write_out(&self, parts: &[&[u8]]) {
        let mut sink = self.sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for part in parts {
            let _ = sink.write_all(part);
        }
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
pub fn start(tag: &'static str) -> (Pipe, Guard) {
    start_with(tag, Box::new(io::stderr()), STALL_WAIT)
}

fn start_with(tag: &'static str, sink: Box<dyn Write + Send>, stall_wait: Duration) -> (Pipe, Guard) {
    let shared = Arc::new(Shared {
        tag,
        stall_wait,
        state: Mutex::default(),
        sink: Mutex::new(sink),
        wake: Condvar::new(),
        drained: Condvar::new(),
    });
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
            // Stderr took a batch: it is read again.
            state.stalled = false;
            if state.dropped > 0 {
                let notice = format!(
                    "[{}] WARN {} log lines were dropped: nothing read stderr for {} s\n",
                    shared.tag,
                    state.dropped,
                    shared.stall_wait.as_secs_f32()
                );
                state.buffer.extend_from_slice(notice.as_bytes());
                state.dropped = 0;
            }
            shared.drained.notify_all();
            while state.buffer.is_empty() && !state.closed {
                state = shared.wake.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            if state.buffer.is_empty() {
                return;
            }
            std::mem::swap(&mut batch, &mut state.buffer);
            state.writing = true;
        }
        shared.write_out(&[&batch]);
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
        let full = |s: &State| !s.closed && s.buffer.len() >= HIGH_WATER;
        if full(&state) && !state.stalled {
            let waited = self.0.drained.wait_timeout_while(state, self.0.stall_wait, |s| full(s));
            let timed_out;
            (state, timed_out) = match waited {
                Ok((state, result)) => (state, result.timed_out()),
                Err(poisoned) => {
                    let (state, result) = poisoned.into_inner();
                    (state, result.timed_out())
                }
            };
            state.stalled = timed_out && full(&state);
        }
        if full(&state) {
            state.dropped += 1;
            return Ok(line.len());
        }
        if state.closed {
            // No writer thread any more (the exit, or none could start):
            // the line goes out here, after the batch in writing and the
            // rest of the buffer, still under the lock, so in order.
            while state.writing {
                state = self.0.drained.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            let batch = std::mem::take(&mut state.buffer);
            self.0.write_out(&[&batch, line]);
            return Ok(line.len());
        }
        // The writer thread sleeps only on an empty buffer while it is not
        // writing, so only the first line after that needs to wake it: a
        // wake-up is a system call, and a list of 2,000 repaired tools
        // would otherwise make 2,000 of them.
        let asleep = state.buffer.is_empty() && !state.writing;
        state.buffer.extend_from_slice(line);
        if asleep {
            self.0.wake.notify_one();
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A sink slower than the lines: each write takes 10 ms.
    struct Slow(Arc<Mutex<Vec<u8>>>);

    impl Write for Slow {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            std::thread::sleep(Duration::from_millis(10));
            self.0.lock().map_err(|_| io::Error::other("poisoned"))?.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A sink that takes nothing until `open` is set, as a stderr that
    /// nobody reads, then everything.
    struct Stuck {
        open: Arc<std::sync::atomic::AtomicBool>,
        seen: Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Stuck {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            while !self.open.load(std::sync::atomic::Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(5));
            }
            self.seen.lock().map_err(|_| io::Error::other("poisoned"))?.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A stderr that nobody reads never stops the bridge: past the high
    /// water mark one line waits the stall limit, the next ones are
    /// dropped at once and counted; when stderr takes lines again, the
    /// buffered lines come out in order, then one line with the count,
    /// then the new lines.
    #[test]
    fn a_stderr_that_nobody_reads_drops_lines_after_the_stall_limit_and_says_how_many() {
        let (open, seen) = (Arc::new(std::sync::atomic::AtomicBool::new(false)), Arc::new(Mutex::new(Vec::new())));
        let sink = Stuck { open: open.clone(), seen: seen.clone() };
        let (mut pipe, guard) = start_with("tag", Box::new(sink), Duration::from_millis(200));
        let line = |i: usize| format!("{i:06} {}\n", "x".repeat(1016)).into_bytes();
        let started = std::time::Instant::now();
        for i in 0..3000 {
            assert_eq!(pipe.write(&line(i)).ok(), Some(1024));
        }
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_secs(2), "the lines waited {elapsed:?} for a stderr that nobody reads");
        assert!(elapsed >= Duration::from_millis(200), "no line waited the stall limit: {elapsed:?}");
        let (kept, dropped) = {
            let state = pipe.0.lock();
            assert!(state.stalled, "stderr counts as not read");
            (state.buffer.len() / 1024, state.dropped)
        };
        assert!(dropped > 0 && kept > 0, "kept {kept}, dropped {dropped}");
        open.store(true, std::sync::atomic::Ordering::Release);
        let arrived = (0..400).any(|_| {
            std::thread::sleep(Duration::from_millis(5));
            !pipe.0.lock().stalled && pipe.0.lock().buffer.is_empty() && !pipe.0.lock().writing
        });
        assert!(arrived, "the buffer did not drain once stderr took lines");
        assert_eq!(pipe.write(&line(999_999)).ok(), Some(1024));
        drop(guard);
        let got = seen.lock().map(|s| s.clone()).unwrap_or_default();
        let notice = format!("[tag] WARN {dropped} log lines were dropped: nothing read stderr for 0.2 s\n");
        // The lines before the stall, in order, the notice, the new line.
        let written = usize::try_from(3000 - dropped).unwrap_or_default();
        let before: Vec<u8> = (0..written).flat_map(line).collect();
        assert_eq!(got.len(), before.len() + notice.len() + 1024, "{} bytes", got.len());
        assert!(got.starts_with(&before), "the kept lines came out of order");
        assert_eq!(&got[before.len()..before.len() + notice.len()], notice.as_bytes());
        assert!(got.ends_with(&line(999_999)));
    }

    /// 4 MiB of lines into a sink that takes each write slowly: the buffer
    /// passes the high water mark, the lines wait, and every line comes
    /// out once, in order, also the lines written after the guard dropped.
    #[test]
    fn every_line_comes_out_in_order_past_the_high_water_mark_and_after_the_exit() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (mut pipe, guard) = start_with("tag", Box::new(Slow(seen.clone())), STALL_WAIT);
        let lines: Vec<Vec<u8>> = (0..4096).map(|i| format!("{i:04} {}\n", "x".repeat(1019)).into_bytes()).collect();
        let mut most = 0;
        for line in &lines[..4000] {
            assert_eq!(pipe.write(line).ok(), Some(line.len()));
            most = most.max(pipe.0.lock().buffer.len());
        }
        // A line goes in while the buffer is below the mark: at most one
        // line above it.
        let line = lines[0].len();
        assert!(most >= HIGH_WATER - line, "the test never reached the high water mark ({most} bytes)");
        assert!(most < HIGH_WATER + line, "the buffer grew to {most} bytes");
        drop(guard);
        for line in &lines[4000..] {
            assert_eq!(pipe.write(line).ok(), Some(line.len()));
        }
        let got = seen.lock().map(|s| s.clone()).unwrap_or_default();
        assert_eq!(got.len(), lines.iter().map(Vec::len).sum::<usize>());
        assert!(got == lines.concat(), "the lines came out of order");
    }

    /// The writer sleeps on an empty buffer and only the first line after
    /// that wakes it: each line, written after the writer went idle, still
    /// leaves at once, without the exit, while the guard is alive.
    #[test]
    fn a_line_after_an_idle_spell_leaves_without_the_exit() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (mut pipe, guard) = start_with("tag", Box::new(Slow(seen.clone())), STALL_WAIT);
        let mut want = Vec::new();
        for i in 0..5 {
            let line = format!("line {i}\n").into_bytes();
            assert_eq!(pipe.write(&line).ok(), Some(line.len()));
            want.extend_from_slice(&line);
            let arrived = (0..200).any(|_| {
                std::thread::sleep(Duration::from_millis(5));
                seen.lock().is_ok_and(|s| *s == want)
            });
            assert!(arrived, "line {i} did not leave within 1 s");
        }
        drop(guard);
    }
}
