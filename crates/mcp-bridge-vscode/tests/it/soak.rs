//! No loss, counted: mixed traffic through the real
//! bridge to the Python `mcp==2.3.0` upstream (tests/peers/python/server.py),
//! with random cancellations and results of about 1 MiB, from a fixed seed.
//!
//! Rules checked, counted per id over everything the bridge wrote until
//! it exited: "Forwarded requests" and "Result rules" (each request the
//! client did not cancel gets exactly one response, with the content the
//! peer gives for its arguments); "Cancellation (M1)" (a canceled request
//! gets no response, but a cancel that races the response may still see
//! it: so at most one, and then with the right content); "Error table"
//! (an upstream error passes unchanged, `-32042` becomes `-32603`); "Progress (M1)"
//! (progress only with a token the client gave, never after the response
//! of its request, and never after a cancellation: each cancel goes out in
//! one write with a `ping` whose id names the canceled request, and since
//! the bridge reads lines in order and its output is FIFO, no progress of
//! that request may come after the ping's response); the exit code 0 at the
//! end of stdin; no panic.
//!
//! `MCP_BRIDGE_SOAK_REQUESTS` and `MCP_BRIDGE_SOAK_SEED` change the run.
//! The seed fixes the requests and the cancellations the client means to
//! send; a cancel is not sent when the response already came, so the count
//! of cancellations can differ by a few from run to run.

use crate::support::driver::*;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// The whole run, start to exit, must fit in this.
const BUDGET: Duration = Duration::from_secs(110);
/// At most this many requests of the client wait for a response at once.
const WINDOW: usize = 48;

/// SplitMix64: a small, fixed generator, so that a seed gives one run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// What the client expects for one request.
enum Expect {
    /// Exactly this result.
    Result(Value),
    /// Exactly this error.
    Error(Value),
    /// A tools/list result with these tool names.
    ToolNames(Vec<&'static str>),
}

impl Expect {
    fn check(&self, response: &Value) -> Result<(), String> {
        let ok = match self {
            Expect::Result(result) => response.get("result") == Some(result),
            Expect::Error(error) => response.get("error") == Some(error),
            Expect::ToolNames(names) => {
                let got: Option<Vec<&str>> = response["result"]["tools"]
                    .as_array()
                    .map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect());
                got.as_deref() == Some(names.as_slice())
            }
        };
        if ok {
            return Ok(());
        }
        let mut shown = response.to_string();
        shown.truncate(600);
        Err(shown)
    }
}

const NAMES: [&str; 3] = ["Ada", "Alan", "Grace"];
const COLORS: [&str; 3] = ["red", "green", "blue"];
const PIECES: [&str; 8] = ["a", "Z", "0", " ", "é", "日本", "🦀", "\"q\" \\ /"];

fn text(rng: &mut Rng, len: usize) -> String {
    let mut s = String::with_capacity(len + 8);
    while s.len() < len {
        let piece: &&str = rng.pick(&PIECES[..]);
        s.push_str(piece);
    }
    s
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

/// One request of the mix: (method, params, expectation, large?, progress?).
fn make_request(rng: &mut Rng, id: u64) -> (String, Value, Expect, bool, bool) {
    let roll = rng.below(100);
    match roll {
        0..=27 => {
            let len = 1 + rng.below(300) as usize;
            let t = text(rng, len);
            (
                "tools/call".into(),
                json!({"name": "echo", "arguments": {"text": t}}),
                Expect::Result(text_result(&t)),
                false,
                false,
            )
        }
        28..=31 => {
            // About 1 MiB each way.
            let len = (1 << 20) - rng.below(4096) as usize;
            let t = text(rng, len);
            (
                "tools/call".into(),
                json!({"name": "echo", "arguments": {"text": t}}),
                Expect::Result(text_result(&t)),
                true,
                false,
            )
        }
        32..=45 => {
            let (a, b) = (rng.below(1 << 40) as i64 - (1 << 39), rng.below(1000) as i64);
            let sum = a + b;
            let result = json!({"content": [{"type": "text", "text": format!("{{\n  \"sum\": {sum}\n}}")}], "isError": false, "structuredContent": {"sum": sum}});
            (
                "tools/call".into(),
                json!({"name": "add", "arguments": {"a": a, "b": b}}),
                Expect::Result(result),
                false,
                false,
            )
        }
        46..=55 => {
            let seconds = *rng.pick(&[0.02, 0.05, 0.1, 0.2]);
            let steps = 1 + rng.below(3);
            let params = json!({"name": "slow", "arguments": {"seconds": seconds, "steps": steps}, "_meta": {"progressToken": format!("p-{id}")}});
            ("tools/call".into(), params, Expect::Result(text_result(&format!("slept {seconds} s"))), false, true)
        }
        56..=62 => {
            let code = -32001 - rng.below(50) as i64;
            let message = format!("failure {id}");
            // Error table: the upstream error goes to the client unchanged,
            // except -32042, which becomes -32603 without data.
            let error = if code == -32042 {
                json!({"code": -32603, "message": message})
            } else {
                json!({"code": code, "message": message, "data": {"peer": "python"}})
            };
            (
                "tools/call".into(),
                json!({"name": "fail", "arguments": {"code": code, "message": message}}),
                Expect::Error(error),
                false,
                false,
            )
        }
        63..=66 => (
            "tools/list".into(),
            json!({}),
            Expect::ToolNames(vec!["echo", "add", "squares", "tags", "slow", "fail"]),
            false,
            false,
        ),
        67..=76 => {
            let name = *rng.pick(&NAMES);
            let result = json!({"description": "Greet someone by name.", "messages": [{"role": "user", "content": {"type": "text", "text": format!("Hello, {name}!")}}]});
            (
                "prompts/get".into(),
                json!({"name": "greet", "arguments": {"name": name}}),
                Expect::Result(result),
                false,
                false,
            )
        }
        77..=86 => {
            let color = *rng.pick(&COLORS);
            let uri = format!("peer://colors/{color}");
            let result =
                json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": format!("The color is {color}.")}]});
            ("resources/read".into(), json!({"uri": uri}), Expect::Result(result), false, false)
        }
        87..=92 => {
            let prefix = *rng.pick(&["A", "G", "", "x"]);
            let values: Vec<&str> = NAMES.iter().copied().filter(|n| n.starts_with(prefix)).collect();
            let result = json!({"completion": {"values": values, "total": values.len(), "hasMore": false}});
            let params =
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": prefix}});
            ("completion/complete".into(), params, Expect::Result(result), false, false)
        }
        _ => ("ping".into(), json!({}), Expect::Result(json!({})), false, false),
    }
}

/// The id of the ping that goes out right after the cancel of `id`.
fn fence_id(id: u64) -> String {
    format!("fence-{id}")
}

/// The request whose cancel a ping's id names.
fn fenced_request(message: &Value) -> Option<u64> {
    message["id"].as_str()?.strip_prefix("fence-")?.parse().ok()
}

/// Cancels `id` and sends, in the same write, the ping that fences it.
fn cancel_with_fence(driver: &mut Driver, id: u64) {
    driver.send_burst(&[cancel(&json!(id)), request(json!(fence_id(id)), "ping", json!({}))]);
}

/// The requests sent that are neither answered nor canceled.
fn waiting(expected: &HashMap<u64, Expect>, answered: &HashSet<u64>, canceled: &HashSet<u64>) -> usize {
    expected.keys().filter(|id| !answered.contains(id) && !canceled.contains(id)).count()
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn soak_mixed_traffic_with_cancellations_and_large_results_loses_nothing_and_answers_nothing_twice() {
    let total = env_u64("MCP_BRIDGE_SOAK_REQUESTS", 1500);
    let seed = env_u64("MCP_BRIDGE_SOAK_SEED", 0x6d63_702d_6272_6964);
    let mut rng = Rng(seed);
    let start = Instant::now();
    let mut driver = Driver::start(&[], &crate::support::peers::python_server());
    driver.initialize();

    let mut expected: HashMap<u64, Expect> = HashMap::new();
    let mut canceled: HashSet<u64> = HashSet::new();
    let mut answered: HashSet<u64> = HashSet::new();
    let mut with_progress: HashSet<u64> = HashSet::new();
    // Cancellations due: (after this many more sends, id).
    let mut due: Vec<(u64, u64)> = Vec::new();
    let mut large = 0;
    let mut bytes_sent = 0usize;
    let mut sent = 0u64;
    let mut progress_seen = 0usize;
    // The canceled requests whose fence ping got its response.
    let mut fenced: HashSet<u64> = HashSet::new();

    loop {
        assert!(
            start.elapsed() < BUDGET,
            "the soak did not end in {BUDGET:?}: {sent} sent, {} answered",
            answered.len()
        );
        // Send while the window has room.
        while sent < total && waiting(&expected, &answered, &canceled) < WINDOW {
            let id = sent;
            let (method, params, expect, is_large, progress) = make_request(&mut rng, id);
            let message = request(json!(id), &method, params);
            let bytes = line(&message);
            bytes_sent += bytes.len();
            driver.send_raw(&bytes);
            expected.insert(id, expect);
            large += usize::from(is_large);
            if progress {
                with_progress.insert(id);
            }
            // About one request in eight is canceled: at once, or a few sends later.
            if rng.below(8) == 0 {
                due.push((sent + rng.below(6), id));
            }
            sent += 1;
            let now: Vec<u64> = due.iter().filter(|(at, _)| *at <= sent).map(|(_, id)| *id).collect();
            due.retain(|(at, _)| *at > sent);
            for id in now {
                if !answered.contains(&id) {
                    cancel_with_fence(&mut driver, id);
                    canceled.insert(id);
                }
            }
        }
        if sent >= total {
            for (_, id) in due.drain(..) {
                if !answered.contains(&id) {
                    cancel_with_fence(&mut driver, id);
                    canceled.insert(id);
                }
            }
        }
        for message in driver.take_new(Duration::from_millis(50)) {
            if is_response(&message) {
                let id = message["id"].as_u64();
                if let Some(id) = id.filter(|id| expected.contains_key(id)) {
                    answered.insert(id);
                }
                if let Some(id) = fenced_request(&message) {
                    fenced.insert(id);
                }
            } else if message["method"] == "notifications/progress" {
                progress_seen += 1;
                let token = message["params"]["progressToken"].as_str().unwrap_or_default();
                let id: Option<u64> = token.strip_prefix("p-").and_then(|n| n.parse().ok());
                let id = id.unwrap_or_else(|| panic!("progress with a token the client never gave: {message}"));
                assert!(with_progress.contains(&id), "progress for a request without a token: {message}");
                assert!(!answered.contains(&id), "progress after the response of its request: {message}");
                assert!(!fenced.contains(&id), "progress after the cancellation of its request: {message}");
            }
        }
        if sent >= total && waiting(&expected, &answered, &canceled) == 0 {
            break;
        }
    }
    // A response to a canceled request could still be on its way: wait a
    // moment, then end the input (exit code 0) and read everything.
    driver.drain_for(Duration::from_millis(500));
    driver.close_stdin();
    let ended = driver.wait_exit(Duration::from_secs(15));
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "stderr:\n{}", ended.stderr);
    let elapsed = start.elapsed();

    let mut by_id: HashMap<String, Vec<&Value>> = HashMap::new();
    for message in driver.seen.iter().filter(|m| is_response(m)) {
        by_id.entry(message["id"].to_string()).or_default().push(message);
    }
    let mut failures = Vec::new();
    let mut canceled_answered = 0;
    for (id, expect) in &expected {
        let responses = by_id.remove(&json!(id).to_string()).unwrap_or_default();
        let allowed = if canceled.contains(id) { 0..=1 } else { 1..=1 };
        if !allowed.contains(&responses.len()) {
            failures.push(format!("request {id} (canceled: {}): {} responses", canceled.contains(id), responses.len()));
        }
        if canceled.contains(id) && !responses.is_empty() {
            canceled_answered += 1;
        }
        for response in responses {
            if let Err(shown) = expect.check(response) {
                failures.push(format!("request {id}: wrong content: {shown}"));
            }
        }
    }
    by_id.remove(&json!("init").to_string());
    // Each fence ping got exactly `{}`, and no progress of a canceled
    // request came after its fence, over everything the bridge wrote.
    for id in &canceled {
        let fence = json!(fence_id(*id));
        let responses = by_id.remove(&fence.to_string()).unwrap_or_default();
        if responses != [&json!({"jsonrpc": "2.0", "id": fence, "result": {}})] {
            failures.push(format!("the fence of {id}: {responses:?}"));
        }
    }
    let mut fenced_in_order: HashSet<u64> = HashSet::new();
    for message in &driver.seen {
        if is_response(message) {
            fenced_in_order.extend(fenced_request(message));
        } else if message["method"] == "notifications/progress" {
            let token = message["params"]["progressToken"].as_str().unwrap_or_default();
            let id: Option<u64> = token.strip_prefix("p-").and_then(|n| n.parse().ok());
            if id.is_some_and(|id| fenced_in_order.contains(&id)) {
                failures.push(format!("progress after the cancellation of its request: {message}"));
            }
        }
    }
    for (id, responses) in &by_id {
        failures.push(format!("{} responses to {id}, which is no request of the client", responses.len()));
    }
    let figures = format!(
        "soak: seed {seed:#x}, {sent} requests ({large} of ~1 MiB, {} MiB sent), {} canceled ({canceled_answered} of them answered before the cancel), {progress_seen} progress, {:.1} s",
        bytes_sent >> 20,
        canceled.len(),
        elapsed.as_secs_f64()
    );
    println!("{figures}");
    assert!(
        failures.is_empty(),
        "{figures}\n{} failures, the first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    assert!(!canceled.is_empty() && large > 0, "the mix has cancellations and large results: {figures}");
}
