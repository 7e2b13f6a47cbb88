//! The Streamable HTTP upstream (`mcp-bridge-vscode [OPTIONS] <URL>`) against
//! the scripted upstream tests/fake/http_upstream.py, with the real binary.
//!
//! The rules are those of ../shared/spec/bridge-translation-rules.txt (the
//! behaviour spec: "Icons of a remote upstream server (M4)", "Forwarded
//! requests (M1)" with `--max-response-bytes`, "New streams after a loss",
//! "The order of events and responses", the "Error table" and the paragraphs
//! after it) and of ../shared/spec/2026-07-28/basic/transports/streamable-http.md
//! (the page). The fake records every request it gets with its headers
//! (`--record`), so each test compares what the bridge sent, and the exact
//! JSON it wrote to the client. Every wait is bounded: the driver waits 20 s
//! a step, the record 10 s.
//!
//! The URL of every test has a path and a query that stand for keys
//! (`PATH_SECRET`, `QUERY_SECRET`): no message, detail or log line may hold
//! them.

mod bodies;
mod check;
mod headers;
mod icons;
mod listen;
mod redirects;
mod statuses;
mod time;
mod tls;

use crate::support::driver::*;
use crate::support::process::{run_bounded, Input};
use crate::support::served::Served;
use crate::support::tls::{pki, Pki};
use crate::support::{assert_json, bridge_error, message};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The path and the query of every URL: they stand for keys.
const PATH_SECRET: &str = "path-secret-7f3a";
const QUERY_SECRET: &str = "query-secret-91b2";
/// The value of the `--header-env` variable of the tests.
const HEADER_SECRET: &str = "header-secret-c0ffee";

/// The longest wait for the record of the fake.
const RECORD_WAIT: Duration = Duration::from_secs(10);
/// The longest a bridge may take to exit once it should.
const EXIT: Duration = Duration::from_secs(10);

/// The listen timings of the tests: back-off 20 ms, at most 80 ms, stable
/// after 10 s, acknowledgment within 5 s.
const LISTEN_MS: &str = "20,80,10000,5000";

// --- The fake and the bridge --------------------------------------------------------

/// A fresh folder for the files of one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-bridge-http-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// tests/fake/http_upstream.py, with its record.
struct Fake {
    served: Served,
    record: PathBuf,
    scheme: &'static str,
}

impl Fake {
    fn start(name: &str, options: &[&str]) -> Fake {
        Fake::start_in(&folder(name), options)
    }

    fn start_in(dir: &Path, options: &[&str]) -> Fake {
        let record = dir.join("record.jsonl");
        let mut cmd = Command::new("python3");
        cmd.arg(crate::support::repo_root().join("tests/fake/http_upstream.py"))
            .arg("--record")
            .arg(&record)
            .args(options);
        let scheme = if options.contains(&"--tls-cert") { "https" } else { "http" };
        Fake { served: Served::start(cmd, true), record, scheme }
    }

    /// The URL of the MCP endpoint, with the secret path and query.
    fn url(&self) -> String {
        self.url_at("127.0.0.1")
    }

    fn url_at(&self, host: &str) -> String {
        format!("{}://{host}:{}/mcp/{PATH_SECRET}?key={QUERY_SECRET}", self.scheme, self.served.port)
    }

    /// Every line of the record.
    fn entries(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.record).unwrap_or_default();
        text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
    }

    /// The POSTs that reached the MCP endpoint, in order.
    fn posts(&self) -> Vec<Value> {
        self.entries().into_iter().filter(|e| e["listener"] == "main" && e["method"] == "POST").collect()
    }

    /// Every request that reached the other origin.
    fn other_requests(&self) -> Vec<Value> {
        self.entries().into_iter().filter(|e| e["listener"] == "other").collect()
    }

    /// The POSTs whose JSON-RPC method is `method`.
    fn posts_of(&self, method: &str) -> Vec<Value> {
        self.posts().into_iter().filter(|p| p["body"]["method"] == method).collect()
    }

    /// Waits until the record satisfies `done`, at most [`RECORD_WAIT`].
    #[track_caller]
    fn wait(&self, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let entries = self.entries();
            if done(&entries) {
                return entries;
            }
            assert!(start.elapsed() < RECORD_WAIT, "{what}: not in the record in {RECORD_WAIT:?}:\n{entries:#?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The POST of the call of `tool` (the last one).
    #[track_caller]
    fn call_of(&self, tool: &str) -> Value {
        let calls: Vec<Value> =
            self.posts_of("tools/call").into_iter().filter(|p| p["body"]["params"]["name"] == tool).collect();
        calls.last().cloned().unwrap_or_else(|| panic!("no POST of tools/call {tool}: {:#?}", self.posts()))
    }

    /// Waits for the record of the fake's side of a closed stream of `id`.
    #[track_caller]
    fn wait_disconnect(&self, id: &Value) {
        self.wait(&format!("the disconnect of the request {id}"), |entries| {
            entries.iter().any(|e| e["event"] == "disconnect" && &e["id"] == id)
        });
    }

    /// The POST of `notifications/cancelled` for `id`, waiting for it at most
    /// [`RECORD_WAIT`]; `None` when none came.
    fn find_cancel(&self, id: &Value) -> Option<Value> {
        let start = Instant::now();
        loop {
            let cancel = self
                .posts()
                .into_iter()
                .find(|p| p["body"]["method"] == "notifications/cancelled" && &p["body"]["params"]["requestId"] == id);
            if cancel.is_some() || start.elapsed() > RECORD_WAIT {
                return cancel;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the POST of `notifications/cancelled` for `id` and returns it.
    #[track_caller]
    fn wait_cancel(&self, id: &Value) -> Value {
        let is_cancel =
            |e: &Value| e["body"]["method"] == "notifications/cancelled" && &e["body"]["params"]["requestId"] == id;
        let entries = self.wait(&format!("notifications/cancelled of {id}"), |entries| entries.iter().any(is_cancel));
        entries.into_iter().find(is_cancel).unwrap_or_default()
    }
}

/// The environment of every bridge of these tests: a token store of its own
/// (a fresh `XDG_CONFIG_HOME`, never the user's) and no VS Code sandbox.
fn isolated(cmd: &mut Command) -> &mut Command {
    let config = std::env::temp_dir().join(format!("mcp-bridge-http-{}-config", std::process::id()));
    std::fs::create_dir_all(&config).expect("a config folder");
    // A proxy of the machine would stand between the bridge and the fakes;
    // the proxy test sets its own.
    for var in
        ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"]
    {
        cmd.env_remove(var);
    }
    cmd.env("XDG_CONFIG_HOME", config).env("SANDBOX_RUNTIME", "0")
}

/// Starts the bridge for `url` with `options` and `env`.
fn bridge_env(url: &str, options: &[&str], env: &[(&str, &str)]) -> Driver {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    isolated(&mut cmd).args(options).arg(url).envs(env.iter().copied());
    Driver::spawn(cmd)
}

fn bridge(url: &str, options: &[&str]) -> Driver {
    bridge_env(url, options, &[])
}

/// A fake with `fake_options`, and an initialized bridge in front of it.
fn session(name: &str, fake_options: &[&str], options: &[&str]) -> (Fake, Driver) {
    let fake = Fake::start(name, fake_options);
    let mut driver = bridge(&fake.url(), options);
    driver.initialize();
    (fake, driver)
}

/// Closes the input and checks the end: exit 0, no panic.
#[track_caller]
fn finish(mut driver: Driver) -> Ended {
    driver.close_stdin();
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "the exit at the end of stdin; stderr:\n{}", ended.stderr);
    ended
}

fn call(id: Value, tool: &str, arguments: Value) -> Value {
    call_tool(id, tool, arguments)
}

fn text(id: Value, text: &str) -> Value {
    ok(id, json!({"content": [{"type": "text", "text": text}]}))
}

fn transport_failed(detail: &str) -> Value {
    bridge_error(-32603, &message("transport_failed"), "transport_failed", Some(detail))
}

fn invalid_response(detail: &str) -> Value {
    bridge_error(-32603, &message("invalid_response"), "invalid_response", Some(detail))
}

/// The JSON-RPC error that the fake's `jsonrpc` bodies hold.
fn refused(status: u16) -> Value {
    json!({"code": -32001, "message": format!("refused with HTTP status {status}"), "data": {"status": status}})
}

/// Sends `message` and asserts the whole response to its id.
#[track_caller]
fn exchange(driver: &mut Driver, message: Value, expected: Value) {
    let id = message["id"].clone();
    driver.send(&message);
    let response = driver.response(&id);
    assert_json(&format!("the response to {message}"), &response, &expected);
}

/// The headers of the page ("Request Metadata", "Sending Messages") of a
/// recorded POST: lower-case names, in a JSON object. A header sent twice
/// fails the test.
fn page_headers(post: &Value) -> Value {
    let mut out = Map::new();
    for pair in post["headers"].as_array().into_iter().flatten() {
        let name = pair[0].as_str().unwrap_or_default().to_ascii_lowercase();
        let of_the_page = ["content-type", "accept", "mcp-protocol-version", "mcp-method", "mcp-name"];
        if of_the_page.contains(&name.as_str()) || name.starts_with("mcp-param-") {
            assert!(out.insert(name.clone(), pair[1].clone()).is_none(), "the header {name} twice: {post:#}");
        }
    }
    Value::Object(out)
}

/// The headers of the page for `method`, with `Mcp-Name` when given.
fn expected_headers(method: &str, name: Option<&str>) -> Value {
    let mut headers = json!({
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    });
    if let Some(name) = name {
        headers["mcp-name"] = json!(name);
    }
    headers
}

/// The value of the header `name` (any case) of a recorded request, if any.
fn header(request: &Value, name: &str) -> Option<String> {
    request["headers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|pair| pair[0].as_str().is_some_and(|n| n.eq_ignore_ascii_case(name)))
        .and_then(|pair| pair[1].as_str().map(str::to_owned))
}

/// Asserts that `text` holds none of the secrets of the tests.
#[track_caller]
fn assert_no_secret(what: &str, text: &str) {
    for secret in [PATH_SECRET, QUERY_SECRET, HEADER_SECRET] {
        assert!(!text.contains(secret), "{what} holds the secret {secret:?}:\n{text}");
    }
}
