//! Fault injection with real processes: the real binary
//! between a counting client driver (`support::driver`) and the scripted
//! fake upstream (tests/fake/upstream.py), which misbehaves on command.
//!
//! Each scenario checks the exact error objects of the behaviour spec's
//! "Error table" with their ids, that every wait is bounded (a hang fails
//! the step), that the bridge's stderr has no panic, the exit code ("0 at
//! the end of stdin, 1 when the upstream command stops"), and, counted per
//! id over everything the bridge wrote until it exited, that every request
//! got exactly one response or, where the spec says so, none.

mod answers;
mod client;
mod process;

use crate::support::driver::*;
use crate::support::fake::{fake_upstream, Record};
use crate::support::{bridge_error, message};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The longest a bridge may take to exit once it should.
const EXIT: Duration = Duration::from_secs(10);

/// The debug line of the bridge for an upstream response it drops.
const DROPPED_UNKNOWN: &str = "dropped an upstream response with an unknown id";

fn text_response(id: Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
}

fn upstream_exited(id: Value) -> Value {
    err(id, bridge_error(-32603, &message("upstream_exited"), "upstream_exited", None))
}

/// The error of `closed`: the same message as `upstream_exited`, another cause.
fn closed(id: Value) -> Value {
    err(id, bridge_error(-32603, &message("closed"), "closed", None))
}

/// Whether the process runs: it exists and is not a zombie (a process
/// that ended and whose parent has not collected it yet).
fn process_runs(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state is the first field after the name, which ends with ")".
    stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
}

/// The responses whose id is `id`.
fn responses_to<'a>(messages: &'a [Value], id: &Value) -> Vec<&'a Value> {
    messages.iter().filter(|m| is_response(m) && &m["id"] == id).collect()
}

/// Every response in `messages` has an id of `ids`: nothing else was answered.
#[track_caller]
fn assert_only_answered(messages: &[Value], ids: &[Value]) {
    let known: std::collections::HashSet<String> = ids.iter().map(Value::to_string).collect();
    for (id, n) in responses_per_id(messages) {
        assert!(known.contains(&id), "a response ({n}) to {id}, which is no request of the client");
    }
}
fn ids(range: std::ops::Range<i64>) -> Vec<Value> {
    range.map(Value::from).collect()
}

/// Closes stdin, waits for the exit and checks the code and the stderr.
#[track_caller]
fn end_of_input(driver: &mut Driver, code: i32) {
    driver.close_stdin();
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(code), "exit code; stderr:\n{}", ended.stderr);
}

/// Waits until `done` holds, at most [`STEP`].
#[track_caller]
fn wait_until(done: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + STEP;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not in {STEP:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}
