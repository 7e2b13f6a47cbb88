//! Memory back to the system once the client goes quiet. glibc's allocator
//! keeps the pages that a burst of requests freed (a few hundred KiB after
//! the first calls), and VS Code keeps a server running, idle, for hours:
//! those pages should not stay with it. The client's input is wrapped: each
//! read marks activity, and one task, woken by it, gives the free pages
//! back (`malloc_trim`) after a second without input. While the bridge is
//! idle nothing runs; elsewhere than Linux with glibc the input is left as
//! it is.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::Notify;

/// How long the input must be quiet before the pages go back.
const QUIET: Duration = Duration::from_secs(1);

/// The client's input, which marks each read.
pub struct Watched<R> {
    inner: R,
    activity: Arc<Notify>,
}

/// Wraps the input and starts the task that trims after a quiet second.
/// Needs a tokio runtime.
pub fn when_quiet<R: AsyncRead + Unpin>(input: R) -> Watched<R> {
    let activity = Arc::new(Notify::new());
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        let woken = activity.clone();
        tokio::spawn(async move {
            loop {
                woken.notified().await;
                // Each read starts the quiet second again.
                while tokio::time::timeout(QUIET, woken.notified()).await.is_ok() {}
                give_back();
            }
        });
    }
    Watched { inner: input, activity }
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.notify_one();
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
    /// some: the task's next wait ends at once.
    #[tokio::test]
    async fn a_read_passes_the_bytes_and_marks_activity() {
        let (mut tx, rx) = tokio::io::duplex(64);
        let mut watched = Watched { inner: rx, activity: Arc::new(Notify::new()) };
        tokio::io::AsyncWriteExt::write_all(&mut tx, b"line\n").await.unwrap_or_else(|e| panic!("{e}"));
        let mut got = [0u8; 5];
        watched.read_exact(&mut got).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&got, b"line\n");
        let marked = tokio::time::timeout(Duration::from_millis(100), watched.activity.notified()).await;
        assert!(marked.is_ok(), "the read was not marked");
    }
}
