//! Small helpers that every layer of the bridge uses; they belong to none
//! of them.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Locks a mutex whose data stays valid even if a holder panicked: each
/// critical section of the bridge leaves its data consistent at every step.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A time limit as the error details write it: `120 s`, or `250 ms` below
/// a whole second or between whole seconds.
pub fn format_limit(limit: Duration) -> String {
    if limit.subsec_millis() == 0 && limit.as_secs() > 0 {
        format!("{} s", limit.as_secs())
    } else {
        format!("{} ms", limit.as_millis())
    }
}
