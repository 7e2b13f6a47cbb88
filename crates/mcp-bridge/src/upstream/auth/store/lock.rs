//! The advisory lock of one record, held by a read-modify-write so that
//! two bridges never undo each other's save.
//!
//! The lock is on a file of its own beside the record (`.<digest>.lock`):
//! a record is replaced by rename, and a lock on it would stay with the old
//! file. It is `File::try_lock` (`flock` on Unix, `LockFileEx` on
//! Windows), advisory: only bridges take it. A wait polls it every
//! [`POLL`] up to its limit, so it never hangs, and the async wait sleeps
//! on the runtime's timer: it never blocks a worker of the runtime.
//!
//! On Unix the holder removes the lock file before it lets go, so that a
//! folder at rest holds records only. A waiter that then gets the lock of
//! the removed file sees that the path names another file, or none, and
//! opens it again. On Windows an open file cannot be removed safely, so
//! the (empty) lock file stays.

use super::disk;
use super::error::StoreError;
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The pause between two tries of a lock that another bridge holds.
const POLL: Duration = Duration::from_millis(10);

/// A held lock; released on drop.
#[derive(Debug)]
pub(crate) struct RecordLock {
    path: PathBuf,
    file: File,
}

impl RecordLock {
    /// Waits at most `wait` for the lock at `path`, sleeping the thread.
    pub(crate) fn blocking(path: &Path, wait: Duration) -> Result<RecordLock, StoreError> {
        let (deadline, mut attempt) = (Instant::now() + wait, Attempt::new(path));
        loop {
            if let Some(lock) = attempt.until(deadline, wait)? {
                return Ok(lock);
            }
            std::thread::sleep(POLL);
        }
    }

    /// Waits at most `wait` for the lock at `path`, sleeping the task.
    pub(crate) async fn waiting(path: &Path, wait: Duration) -> Result<RecordLock, StoreError> {
        let (deadline, mut attempt) = (Instant::now() + wait, Attempt::new(path));
        loop {
            if let Some(lock) = attempt.until(deadline, wait)? {
                return Ok(lock);
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

impl Drop for RecordLock {
    fn drop(&mut self) {
        // Removed while still held: no waiter can then take the lock of a
        // file that is no longer at the path.
        #[cfg(unix)]
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// The tries of one wait; keeps the open file between them.
struct Attempt {
    path: PathBuf,
    file: Option<File>,
}

impl Attempt {
    fn new(path: &Path) -> Attempt {
        Attempt { path: path.to_owned(), file: None }
    }

    /// One try of a wait of `wait` that ends at `deadline`: `Some` when the
    /// lock is taken, `Busy` when the wait is over, else `None` (try again
    /// after [`POLL`]).
    fn until(&mut self, deadline: Instant, wait: Duration) -> Result<Option<RecordLock>, StoreError> {
        match self.take()? {
            Some(lock) => Ok(Some(lock)),
            None if Instant::now() >= deadline => Err(StoreError::Busy(wait)),
            None => Ok(None),
        }
    }

    /// One try: `Some` when the lock is taken.
    fn take(&mut self) -> Result<Option<RecordLock>, StoreError> {
        let file = match self.file.take() {
            Some(file) => file,
            None => disk::open_lock(&self.path).map_err(|e| StoreError::io("open the lock of", e))?,
        };
        match file.try_lock() {
            // The holder removed the file meanwhile: the next try opens the
            // one the path names now.
            Ok(()) if !is_at(&file, &self.path) => Ok(None),
            Ok(()) => Ok(Some(RecordLock { path: self.path.clone(), file })),
            Err(TryLockError::WouldBlock) => {
                self.file = Some(file);
                Ok(None)
            }
            Err(TryLockError::Error(e)) => Err(StoreError::io("lock", e)),
        }
    }
}

/// Whether `path` still names `file`.
#[cfg(unix)]
fn is_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

/// A lock file is never removed here, so the path always names it.
#[cfg(not(unix))]
fn is_at(_: &File, _: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("mcp-bridge-lock-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    #[test]
    fn a_lock_that_another_holds_fails_with_busy_after_the_wait_and_not_before() {
        let dir = temp_dir("busy");
        let path = dir.join(".r.lock");
        let held = RecordLock::blocking(&path, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        let start = Instant::now();
        let refused = RecordLock::blocking(&path, Duration::from_millis(300));
        let waited = start.elapsed();
        assert_eq!(
            refused.map(|_| ()).map_err(|e| e.to_string()),
            Err("another bridge holds the lock of the server's record for more than 300ms".to_owned())
        );
        assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(3), "{waited:?}");
        drop(held);
        assert!(RecordLock::blocking(&path, Duration::ZERO).is_ok(), "the lock is free after the drop");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_async_wait_leaves_the_runtime_free() {
        let dir = temp_dir("async");
        let path = dir.join(".r.lock");
        let held = RecordLock::blocking(&path, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build();
        let runtime = runtime.unwrap_or_else(|e| panic!("{e}"));
        let ticks = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let refused = runtime.block_on(async {
            // On a runtime of one thread, the ticker runs only while the
            // wait yields.
            let counter = ticks.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
            RecordLock::waiting(&path, Duration::from_millis(400)).await.map(|_| ()).map_err(|e| e.to_string())
        });
        let ticks = ticks.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!(refused, Err("another bridge holds the lock of the server's record for more than 400ms".to_owned()));
        assert!(ticks >= 5, "another task ran only {ticks} times during a wait of 400 ms");
        drop(held);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_waiter_takes_the_lock_at_the_path_after_the_holder_removed_its_file() {
        let dir = temp_dir("handover");
        let path = dir.join(".r.lock");
        let first = RecordLock::blocking(&path, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || RecordLock::blocking(&path, Duration::from_secs(5)))
        };
        // The waiter has opened the file of the first holder by now, or
        // opens the next one: either way it must end up holding the file
        // that the path names.
        std::thread::sleep(Duration::from_millis(100));
        drop(first);
        let second = waiter.join().unwrap_or_else(|_| panic!("the waiter panicked"));
        let second = second.unwrap_or_else(|e| panic!("{e}"));
        assert!(is_at(&second.file, &path), "the waiter holds the file at the path");
        let third = RecordLock::blocking(&path, Duration::from_millis(50));
        assert!(matches!(third, Err(StoreError::Busy(_))), "{third:?}");
        drop(second);
        assert!(!path.exists(), "the last holder removed the lock file");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
