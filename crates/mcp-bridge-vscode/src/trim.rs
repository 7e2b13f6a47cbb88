//! Memory back to the system once the client goes quiet. glibc's allocator
//! keeps the pages that a burst of requests freed (a few hundred KiB after
//! the first calls), and VS Code keeps a server running, idle, for hours:
//! those pages should not stay with it. The client's input is wrapped: each
//! read marks activity, and one task gives the free pages back
//! (`malloc_trim`) after a second without input. A read only sets a flag;
//! it wakes the task only when the task waits for the first read after a
//! quiet spell, so a busy client costs a look each second, not a wake-up
//! per line. While the bridge is idle nothing runs; elsewhere than Linux
//! with glibc the input is left as it is.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::Notify;

/// How long the input must be quiet before the pages go back.
const QUIET: Duration = Duration::from_secs(1);

/// What the reads tell the task.
#[derive(Default)]
struct Activity {
    /// A read brought bytes since the task last looked.
    read: AtomicBool,
    /// The task waits for the first read after a quiet spell.
    idle: AtomicBool,
    wake: Notify,
}

impl Activity {
    fn new() -> Self {
        Activity { idle: AtomicBool::new(true), ..Activity::default() }
    }

    fn mark(&self) {
        self.read.store(true, SeqCst);
        if self.idle.swap(false, SeqCst) {
            self.wake.notify_one();
        }
    }

    /// Waits for reads, then for a quiet second after them; again after
    /// each trim.
    async fn trim_when_quiet(&self) {
        loop {
            self.wake.notified().await;
            // Each second with a read starts the quiet second again.
            loop {
                tokio::time::sleep(QUIET).await;
                if !self.read.swap(false, SeqCst) {
                    break;
                }
            }
            give_back();
            self.idle.store(true, SeqCst);
            // A read between the last look and `idle` woke no one: wake
            // the task here for it.
            if self.read.load(SeqCst) && self.idle.swap(false, SeqCst) {
                self.wake.notify_one();
            }
        }
    }
}

/// The client's input, which marks each read.
pub struct Watched<R> {
    inner: R,
    activity: Arc<Activity>,
}

/// Wraps the input and starts the task that trims after a quiet second.
/// Needs a tokio runtime.
pub fn when_quiet<R: AsyncRead + Unpin>(input: R) -> Watched<R> {
    let activity = Arc::new(Activity::new());
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        let task = activity.clone();
        tokio::spawn(async move { task.trim_when_quiet().await });
    }
    Watched { inner: input, activity }
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.mark();
        }
        polled
    }
}

/// The free pages of every arena back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back() {
    // SAFETY: malloc_trim takes no pointer and only returns free memory of
    // the allocator to the system; it is safe to call at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() {}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// The wrapper passes the bytes through and marks a read that brought
    /// some; only the first read after a quiet spell wakes the task.
    #[tokio::test]
    async fn a_read_passes_the_bytes_and_marks_activity() {
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut watched = Watched { inner: rx, activity: Arc::new(Activity::new()) };
        tokio::io::AsyncWriteExt::write_all(&mut tx, b"line\nmore\n").await.unwrap_or_else(|e| panic!("{e}"));
        let mut got = [0u8; 5];
        watched.read_exact(&mut got).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&got, b"line\n");
        let woken = tokio::time::timeout(Duration::from_millis(100), watched.activity.wake.notified()).await;
        assert!(woken.is_ok(), "the first read did not wake the task");
        assert!(watched.activity.read.swap(false, SeqCst), "the read was not marked");
        watched.read_exact(&mut got).await.unwrap_or_else(|e| panic!("{e}"));
        assert!(watched.activity.read.load(SeqCst), "the second read was not marked");
        let woken = tokio::time::timeout(Duration::from_millis(100), watched.activity.wake.notified()).await;
        assert!(woken.is_err(), "a read while the task is awake woke it again");
    }

    /// The task trims after a quiet second and waits again; a read while
    /// it looks keeps it awake, and a read after the trim wakes it.
    #[tokio::test(start_paused = true)]
    async fn the_task_trims_after_a_quiet_second_and_sleeps_until_the_next_read() {
        let activity = Arc::new(Activity::new());
        let task = tokio::spawn({
            let activity = activity.clone();
            async move { activity.trim_when_quiet().await }
        });
        tokio::task::yield_now().await;
        assert!(activity.idle.load(SeqCst), "the task waits for the first read");
        activity.mark();
        assert!(!activity.idle.load(SeqCst));
        tokio::time::sleep(QUIET / 2).await;
        activity.mark();
        tokio::time::sleep(QUIET).await;
        assert!(!activity.idle.load(SeqCst), "a read within the second keeps the task awake");
        tokio::time::sleep(QUIET * 2).await;
        assert!(activity.idle.load(SeqCst), "after a quiet second the task trimmed and waits");
        activity.mark();
        tokio::time::sleep(QUIET * 3).await;
        assert!(activity.idle.load(SeqCst), "the next read woke it, and it trimmed again");
        assert!(!activity.read.load(SeqCst));
        task.abort();
    }
}
