//! The open-file limit of the face: each client connection and each
//! child's pipes take descriptors, and many systems start a process with a
//! soft limit of 1,024 under a hard limit far above it. The face raises
//! its soft limit to the hard one, as servers do, and says in the log when
//! even that is below what `--max-sessions` may need.

/// The descriptors one session may hold at most: its POSTs and GET (the
/// face's own bound is four connections a session).
const PER_SESSION: u64 = 4;
/// The descriptors of everything else: the log, the listener, the shared
/// child's pipes, the runtime.
const BASE: u64 = 64;

/// Raises the soft limit of open files to the hard limit; a warning when
/// the limit stays below what `max_sessions` sessions may need.
pub fn raise(max_sessions: usize) {
    let needed = wanted(max_sessions);
    match raise_to_hard() {
        Some(limit) if limit < needed => tracing::warn!(
            limit,
            needed,
            "the open-file limit is below what --max-sessions may need: some connections may be refused"
        ),
        Some(limit) => tracing::debug!(limit, "the open-file limit"),
        None => tracing::debug!("the open-file limit is unknown"),
    }
}

/// What `max_sessions` sessions may need at most.
fn wanted(max_sessions: usize) -> u64 {
    u64::try_from(max_sessions).unwrap_or(u64::MAX).saturating_mul(PER_SESSION).saturating_add(BASE)
}

/// The soft limit to ask for: the hard one, but a finite one (macOS
/// refuses an infinite soft limit for files); `None` when it is there.
fn target(soft: u64, hard: u64) -> Option<u64> {
    const FINITE: u64 = 1 << 20;
    let target = hard.min(FINITE);
    (soft < target).then_some(target)
}

/// The soft limit after the raise; `None` when it cannot be read.
#[cfg(unix)]
fn raise_to_hard() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the limit into the struct it is given, which
    // lives on this stack for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return None;
    }
    // rlim_t is u64 on Linux and macOS.
    let (soft, hard) = (limit.rlim_cur, limit.rlim_max);
    let Some(wanted) = target(soft, hard) else { return Some(soft) };
    let raised = libc::rlimit { rlim_cur: wanted, rlim_max: limit.rlim_max };
    // SAFETY: setrlimit reads the struct it is given; a refusal leaves the
    // limit as it was.
    match unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } {
        0 => Some(wanted),
        _ => Some(soft),
    }
}

#[cfg(not(unix))]
fn raise_to_hard() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_goes_up_to_a_finite_hard_limit_and_never_down() {
        assert_eq!(target(1024, 524_288), Some(524_288));
        assert_eq!(target(1024, u64::MAX), Some(1 << 20), "an infinite hard limit");
        assert_eq!(target(20_000, 20_000), None, "already there");
        assert_eq!(target(4096, 1024), None, "never down");
    }

    #[test]
    fn the_need_grows_with_the_sessions() {
        assert_eq!(wanted(256), 256 * 4 + 64);
        assert_eq!(wanted(usize::MAX), u64::MAX);
    }
}
