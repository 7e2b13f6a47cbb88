//! The server under test as a tree of processes (Linux `/proc`): the one
//! the generator started and all its descendants (a gateway's children, a
//! face's upstream, npm's shell), their summed RSS and open fds, and a
//! sampler that keeps the peak and stops the run before the tree eats the
//! machine (a child per session of a Python server is about 90 MiB).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The pids of `root` and all its descendants, found by each process's
/// parent in `/proc/<pid>/stat`.
pub fn tree(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            if let Some(parent) = parent_of(pid) {
                children.entry(parent).or_default().push(pid);
            }
        }
    }
    let mut all = vec![root];
    let mut next = 0;
    while let Some(&pid) = all.get(next) {
        if let Some(kids) = children.get(&pid) {
            all.extend(kids);
        }
        next += 1;
    }
    all
}

/// The parent pid: the fourth field of `stat`, after the name in
/// parentheses (which may itself hold spaces and parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// The summed `VmRSS` of `pids`, in KiB (a process that ended counts 0).
pub fn rss_kib(pids: &[u32]) -> u64 {
    pids.iter().filter_map(|pid| status_kib(*pid, "VmRSS")).sum()
}

fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with(field) && line[field.len()..].starts_with(':'))?;
    line[field.len() + 1..].split_whitespace().next()?.parse().ok()
}

/// The open file descriptors of `pids`, summed.
pub fn fds(pids: &[u32]) -> u64 {
    pids.iter().filter_map(|pid| std::fs::read_dir(format!("/proc/{pid}/fd")).ok()).map(|d| d.count() as u64).sum()
}

/// The tree's RSS, fds and process count at one moment.
#[derive(Clone, Copy, Default)]
pub struct Snapshot {
    pub rss_kib: u64,
    pub fds: u64,
    pub processes: u64,
}

pub fn snapshot(root: u32) -> Snapshot {
    let pids = tree(root);
    Snapshot { rss_kib: rss_kib(&pids), fds: fds(&pids), processes: pids.len() as u64 }
}

/// The memory this machine can still give, in KiB (`MemAvailable`).
pub fn available_kib() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|line| line.starts_with("MemAvailable:"))?;
    line["MemAvailable:".len()..].split_whitespace().next()?.parse().ok()
}

/// Samples the tree's RSS on a thread of its own (a walk of `/proc` takes
/// milliseconds with a thousand processes), keeps the highest since the
/// last `reset`, and raises `over` past `cap_kib`.
pub struct Sampler {
    peak: Arc<AtomicU64>,
    pub over: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// How often the sampler looks.
const EVERY: Duration = Duration::from_millis(200);

impl Sampler {
    pub fn start(root: u32, cap_kib: u64) -> Sampler {
        let peak = Arc::new(AtomicU64::new(0));
        let over = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicBool::new(false));
        let thread = {
            let (peak, over, done) = (peak.clone(), over.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    let rss = rss_kib(&tree(root));
                    peak.fetch_max(rss, Ordering::Relaxed);
                    if rss > cap_kib {
                        over.store(true, Ordering::Relaxed);
                    }
                    std::thread::sleep(EVERY);
                }
            })
        };
        Sampler { peak, over, done, thread: Some(thread) }
    }

    /// The highest RSS seen since the start or the last reset, in KiB.
    pub fn peak_kib(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    pub fn reset(&self) {
        self.peak.store(0, Ordering::Relaxed);
    }

    pub fn is_over(&self) -> bool {
        self.over.load(Ordering::Relaxed)
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
