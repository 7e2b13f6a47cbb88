//! The files of the token store, which other processes share and may
//! have changed: every open refuses a symbolic link (never follows one),
//! a read takes at most [`MAX_RECORD_BYTES`], and a write goes to a new
//! temporary file of its own, created exclusively, synced, then renamed
//! over the record, so a reader sees the old record or the new one, whole.

use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The largest record read: a record holds a few grants of a few hundred
/// bytes; a bigger file is not one of ours.
pub(crate) const MAX_RECORD_BYTES: u64 = 1 << 20;
/// The most entries of the folder looked at by one walk of it.
pub(crate) const MAX_ENTRIES: usize = 4096;
/// A temporary file older than this was left by a crash: a write lives
/// for milliseconds between the creation of its file and the rename.
const STALE: Duration = Duration::from_secs(10 * 60);
/// The end of the name of a temporary file (which starts with a dot).
const TEMPORARY: &str = ".tmp";
/// Tries of a new temporary name when one is taken.
const ATTEMPTS: usize = 16;

/// The contents of a record file; `None` when there is none, or when it
/// is a symbolic link, not a regular file, or larger than
/// [`MAX_RECORD_BYTES`] (each logged: the file is ignored, never followed).
pub(crate) fn read(path: &Path) -> Option<Vec<u8>> {
    let mut options = OpenOptions::new();
    options.read(true);
    no_follow(&mut options);
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                tracing::warn!(path = %path.display(), "a file of the token store is a symbolic link; it is ignored, not followed");
            } else {
                tracing::warn!(path = %path.display(), error = %e, "a file of the token store cannot be opened; it is ignored");
            }
            return None;
        }
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        tracing::warn!(path = %path.display(), "a file of the token store is not a regular file; it is ignored");
        return None;
    }
    let mut bytes = Vec::new();
    if let Err(e) = file.take(MAX_RECORD_BYTES + 1).read_to_end(&mut bytes) {
        tracing::warn!(path = %path.display(), error = %e, "a file of the token store cannot be read; it is ignored");
        return None;
    }
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        tracing::warn!(path = %path.display(), "a file of the token store is larger than a record can be; it is ignored");
        return None;
    }
    Some(bytes)
}

/// Replaces `path` with `bytes`, atomically: through a temporary file of
/// this write alone in the same folder, mode 0600, synced before the
/// rename, and the folder synced after it. A symbolic link at `path` is
/// replaced, never followed.
pub(crate) fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("record");
    let (temporary, mut file) = create_temporary(dir, stem)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    let result = written.and_then(|()| std::fs::rename(&temporary, path)).and_then(|()| sync_dir(dir));
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

/// Whether the folder takes a new file: makes a temporary one and
/// removes it.
pub(crate) fn probe(dir: &Path) -> std::io::Result<()> {
    let (temporary, file) = create_temporary(dir, "probe")?;
    drop(file);
    std::fs::remove_file(temporary)
}

/// Removes the temporary files that crashes left (older than [`STALE`]);
/// a younger one can be the write of another bridge, and stays.
pub(crate) fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.take(MAX_ENTRIES).filter_map(Result::ok) {
        let name = entry.file_name();
        if !name.to_str().is_some_and(|n| n.starts_with('.') && n.ends_with(TEMPORARY)) {
            continue;
        }
        // `DirEntry::metadata` does not follow a link: the age of the link.
        let old = entry.metadata().ok().and_then(|m| m.modified().ok()).and_then(|t| t.elapsed().ok());
        if old.is_some_and(|age| age > STALE) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Opens a lock file, made when missing, never through a link.
pub(crate) fn open_lock(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    no_follow(&mut options);
    private(&mut options);
    options.open(path)
}

/// A new file `.<stem>.<unique>.tmp` in `dir`, created exclusively (an
/// existing file or link of that name is an error, never opened), 0600.
fn create_temporary(dir: &Path, stem: &str) -> std::io::Result<(PathBuf, File)> {
    for _ in 0..ATTEMPTS {
        let path = dir.join(format!(".{stem}.{}{TEMPORARY}", unique()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        no_follow(&mut options);
        private(&mut options);
        match options.open(&path) {
            Ok(file) => {
                // The mode of the creation is cut by the umask; set it whole.
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
                }
                return Ok((path, file));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free name for a temporary file"))
}

/// A name part that no other write of this or another process uses: the
/// process id, a counter, and a random number (the exclusive creation
/// makes a collision an error, not a shared file).
fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(n);
    format!("{}-{n}-{:016x}", std::process::id(), hasher.finish())
}

#[cfg(unix)]
fn no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: a FIFO put in the place of a record must not stall the
    // open; it has no effect on a regular file.
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
}

#[cfg(windows)]
fn no_follow(options: &mut OpenOptions) {
    use std::os::windows::fs::OpenOptionsExt;
    // FILE_FLAG_OPEN_REPARSE_POINT: a link is opened itself, not its
    // target, and the regular-file check of `read` refuses it.
    options.custom_flags(0x0020_0000);
}

#[cfg(not(any(unix, windows)))]
fn no_follow(_: &mut OpenOptions) {}

fn private(options: &mut OpenOptions) {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
    #[cfg(not(unix))]
    let _ = options;
}

/// Makes a rename in `dir` durable.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mcp-bridge-disk-{name}-{}", unique()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn each_write_has_a_temporary_file_of_its_own_created_exclusively() {
        let dir = temp_dir("unique");
        let (a, file_a) = create_temporary(&dir, "r").unwrap_or_else(|e| panic!("{e}"));
        let (b, file_b) = create_temporary(&dir, "r").unwrap_or_else(|e| panic!("{e}"));
        assert_ne!(a, b, "two writes at once never share a temporary file");
        drop((file_a, file_b));
        for path in [&a, &b] {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            assert!(name.starts_with(".r.") && name.ends_with(".tmp"), "{name}");
        }
        // An existing file or link of the name is never opened.
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        no_follow(&mut options);
        assert_eq!(options.open(&a).map(|_| ()).map_err(|e| e.kind()), Err(std::io::ErrorKind::AlreadyExists));
        #[cfg(unix)]
        {
            let link = dir.join(".r.link.tmp");
            std::os::unix::fs::symlink(dir.join("target"), &link).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(options.open(&link).map(|_| ()).map_err(|e| e.kind()), Err(std::io::ErrorKind::AlreadyExists));
            assert!(!dir.join("target").exists(), "the exclusive open made the target of a link");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = temp_dir("write");
        let path = dir.join("abc.json");
        write(&path, b"{\"a\":1}").unwrap_or_else(|e| panic!("{e}"));
        write(&path, b"{\"b\":2}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&path), Some(b"{\"b\":2}".to_vec()));
        assert_eq!(names(&dir), vec!["abc.json".to_owned()]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
            assert_eq!(mode, 0o600);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_never_followed_by_a_read_or_a_write() {
        let dir = temp_dir("link");
        let target = dir.join("elsewhere");
        std::fs::write(&target, b"{\"secret\":\"of another file\"}").unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join("abc.json");
        std::os::unix::fs::symlink(&target, &path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&path), None, "a record that is a link reads as absent");
        write(&path, b"{}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read(&target).ok(), Some(b"{\"secret\":\"of another file\"}".to_vec()));
        assert!(std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()), "the write replaced the link");
        let lock = dir.join(".abc.lock");
        std::os::unix::fs::symlink(&target, &lock).unwrap_or_else(|e| panic!("{e}"));
        assert!(open_lock(&lock).is_err(), "a lock file that is a link is refused");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_huge_file_in_place_of_a_record_reads_as_absent_at_once() {
        let dir = temp_dir("odd");
        let fifo = dir.join("fifo.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        assert!(made, "mkfifo makes a FIFO");
        let start = std::time::Instant::now();
        assert_eq!(read(&fifo), None);
        assert!(start.elapsed() < Duration::from_secs(2), "the read of a FIFO waited");
        let huge = dir.join("huge.json");
        let file = File::create(&huge).unwrap_or_else(|e| panic!("{e}"));
        file.set_len(MAX_RECORD_BYTES + 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&huge), None);
        file.set_len(MAX_RECORD_BYTES).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&huge).map(|b| b.len() as u64), Some(MAX_RECORD_BYTES));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_a_stale_temporary_file_is_swept() {
        let dir = temp_dir("sweep");
        let (young, file) = create_temporary(&dir, "r").unwrap_or_else(|e| panic!("{e}"));
        drop(file);
        let (old, file) = create_temporary(&dir, "r").unwrap_or_else(|e| panic!("{e}"));
        let long_ago = std::time::SystemTime::now() - STALE - Duration::from_secs(60);
        file.set_modified(long_ago).unwrap_or_else(|e| panic!("{e}"));
        drop(file);
        std::fs::write(dir.join("abc.json"), b"{}").unwrap_or_else(|e| panic!("{e}"));
        sweep(&dir);
        assert!(young.exists(), "the temporary file of a write under way stays");
        assert!(!old.exists(), "the temporary file of a crash is removed");
        assert!(dir.join("abc.json").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
