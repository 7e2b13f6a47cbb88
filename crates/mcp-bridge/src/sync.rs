//! Locks that outlive a panic of a holder.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex whose data stays valid even if a holder panicked: each
/// critical section of the bridge leaves its data consistent at every step.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
