//! The bridge's binary as read from disk (Linux). Most of an idle bridge's
//! RSS is the code pages of its binary, and how many of them a process maps
//! at start depends on how the file sits in the page cache: a binary that
//! was just written (a fresh build, a copy) is cached in large folios, and
//! each page fault then maps more of it than after a read from disk. The
//! difference was about 1 MiB of idle RSS for the same binary. So, before
//! the bridge starts, its file is written back and dropped from the cache:
//! every run measures the binary the way a user's machine first loads it.

use std::path::Path;

/// Drops `path` from the page cache. Pages that a running process maps
/// stay; the bench runs this before it starts any bridge.
#[cfg(target_os = "linux")]
pub fn from_disk(path: &Path) -> Result<(), String> {
    use rustix::fs::{fadvise, Advice};
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    // Dirty pages are not dropped: write them back first.
    file.sync_all().map_err(|e| format!("cannot write back {}: {e}", path.display()))?;
    fadvise(&file, 0, None, Advice::DontNeed).map_err(|e| format!("cannot drop {} from the cache: {e}", path.display()))
}

/// Other systems: the binary stays as the cache holds it.
#[cfg(not(target_os = "linux"))]
pub fn from_disk(_path: &Path) -> Result<(), String> {
    Err("dropping a file from the page cache is done on Linux only".into())
}
