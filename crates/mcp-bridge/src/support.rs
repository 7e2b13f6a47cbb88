//! Small helpers that every layer of the bridge uses; they belong to none
//! of them.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Locks a mutex whose data stays valid even if a holder panicked: each
/// critical section of the bridge leaves its data consistent at every step.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The JSON text of a message, with room for the `\n` that the writer
/// adds. `serde_json::to_writer` into a `Vec` writes the bytes straight
/// into it; `Value::to_string` went through `fmt::Write`, a call per
/// piece, and left no room for the newline (a second copy of a 32 MiB line
/// when its `Vec` was exactly full). The text is the same byte for byte.
pub(crate) fn json_line(message: &serde_json::Value) -> Vec<u8> {
    let mut line = Vec::with_capacity(128);
    append_json(&mut line, message);
    line.reserve_exact(1);
    line
}

/// Appends the JSON text of a value to a line.
pub(crate) fn append_json(line: &mut Vec<u8>, value: &serde_json::Value) {
    let start = line.len();
    if serde_json::to_writer(&mut *line, value).is_err() {
        // Serializing a `Value` into a `Vec` cannot fail (its keys are
        // strings, and a `Vec` takes every write); the `Display` text is
        // the same JSON, should it ever do.
        line.truncate(start);
        line.extend_from_slice(value.to_string().as_bytes());
    }
}

/// A time limit as the error details write it: `120 s`, or `250 ms` below
/// a whole second or between whole seconds.
pub(crate) fn format_limit(limit: Duration) -> String {
    if limit.subsec_millis() == 0 && limit.as_secs() > 0 {
        format!("{} s", limit.as_secs())
    } else {
        format!("{} ms", limit.as_millis())
    }
}
