//! The scripted fake upstream, tests/fake/upstream.py: its command, the
//! steps of its `script` tool, and the record of what it received.

use super::driver::{Driver, STEP};
use super::repo_root;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The scripted fake upstream, with its options.
pub fn fake_upstream(options: &[&str]) -> Vec<String> {
    let mut cmd = vec!["python3".to_string(), repo_root().join("tests/fake/upstream.py").display().to_string()];
    cmd.extend(options.iter().map(|s| s.to_string()));
    cmd
}

/// The bridge with `options` in front of the fake, initialized.
#[track_caller]
pub fn ready_bridge(options: &[&str]) -> Driver {
    let mut bridge = Driver::start(options, &fake_upstream(&[]));
    bridge.initialize();
    bridge
}

// --- The steps of its `script` tool: input requests of a 2026-07-28 server.

/// A result that asks for the input of `requests`.
pub fn input_required(requests: Value) -> Value {
    json!({"resultType": "input_required", "inputRequests": requests})
}

/// A form that asks for a name.
pub fn form(message: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}})
}

/// A URL step.
pub fn url(address: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": address}})
}

// --- Its record.

/// A file the fake upstream appends every line it receives to (`--record`),
/// in a folder of its own that goes with it.
pub struct Record(PathBuf);

impl Record {
    pub fn new(name: &str) -> Record {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("mcp-bridge-fake-{}-{}", std::process::id(), nanos.unwrap_or(0)));
        let _ = std::fs::create_dir_all(&dir);
        Record(dir.join(format!("{name}.jsonl")))
    }

    pub fn arg(&self) -> &str {
        self.0.to_str().unwrap_or_default()
    }

    /// A path beside the record, for the fake's `--pid-file`.
    pub fn pid_file(&self) -> String {
        self.0.with_extension("pid").display().to_string()
    }

    /// The process id the fake wrote to its `--pid-file`.
    #[track_caller]
    pub fn pid(&self) -> u32 {
        let text = std::fs::read_to_string(self.pid_file()).unwrap_or_default();
        text.trim().parse().unwrap_or_else(|_| panic!("no pid in {}", self.pid_file()))
    }

    /// The messages the upstream received so far.
    pub fn messages(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.0).unwrap_or_default();
        text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }

    /// The requests of `method` that reached the upstream.
    pub fn count(&self, method: &str) -> usize {
        self.messages().iter().filter(|m| m["method"] == method).count()
    }

    /// The upstream cancellations received so far.
    pub fn cancels(&self) -> Vec<Value> {
        self.messages().into_iter().filter(|m| m["method"] == "notifications/cancelled").collect()
    }

    /// Waits until `count` messages that match arrived upstream, at most
    /// [`STEP`], and returns them.
    #[track_caller]
    pub fn wait(&self, count: usize, what: &str, matches: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + STEP;
        loop {
            let found: Vec<Value> = self.messages().into_iter().filter(&matches).collect();
            if found.len() >= count {
                return found;
            }
            assert!(Instant::now() < deadline, "{} of {count} {what} reached the upstream: {:?}", found.len(), found);
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until `count` tools/call arrived upstream, at most [`STEP`].
    #[track_caller]
    pub fn wait_calls(&self, count: usize) {
        self.wait(count, "calls", |m| m["method"] == "tools/call");
    }

    /// Waits until `count` cancellations arrived upstream, at most [`STEP`].
    #[track_caller]
    pub fn wait_cancels(&self, count: usize) -> Vec<Value> {
        self.wait(count, "cancellations", |m| m["method"] == "notifications/cancelled")
    }

    /// The upstream request of `method` whose params match.
    #[track_caller]
    pub fn request(&self, method: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let found = self.wait(1, method, |m| m["method"] == method && m.get("id").is_some() && matches(&m["params"]));
        assert_eq!(found.len(), 1, "one {method} request upstream: {found:?}");
        found[0].clone()
    }

    /// Waits for the `notifications/cancelled` of the upstream request
    /// `upstream_id` and returns its params.
    #[track_caller]
    pub fn cancel_of(&self, upstream_id: &Value) -> Value {
        let found = self.wait(1, "cancellations", |m| {
            m["method"] == "notifications/cancelled" && &m["params"]["requestId"] == upstream_id
        });
        found[0]["params"].clone()
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
