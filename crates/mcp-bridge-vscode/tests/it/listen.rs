//! The listen stream (behaviour spec, "Listen stream (M3)") against the
//! scripted upstream tests/fake/listen_upstream.py, with the real binary.
//! The waits of the table of ends are scaled down with the hidden option
//! `--test-listen-ms BACKOFF,MAX,STABLE,ACK`.

use crate::support::driver::Driver;
use crate::support::{bridge_error, message, repo_root};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const LIST_CHANGED: &str = "notifications/tools/list_changed";
const UPDATED: &str = "notifications/resources/updated";

/// The scripted upstream, recording both ways into a fresh file.
struct Upstream {
    record: PathBuf,
}

impl Upstream {
    fn new(name: &str) -> Upstream {
        let dir = std::env::temp_dir().join(format!("mcp-bridge-listen-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Upstream { record: dir.join("record.jsonl") }
    }

    fn command(&self, options: &[&str]) -> Vec<String> {
        let mut cmd = vec![
            "python3".to_string(),
            repo_root().join("tests/fake/listen_upstream.py").display().to_string(),
            "--record".to_string(),
            self.record.display().to_string(),
        ];
        cmd.extend(options.iter().map(|s| s.to_string()));
        cmd
    }

    /// Every recorded message: (time in s, "in" or "out", message).
    fn messages(&self) -> Vec<(f64, String, Value)> {
        let text = std::fs::read_to_string(&self.record).unwrap_or_default();
        text.lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .map(|r| (r["t"].as_f64().unwrap_or(0.0), r["dir"].as_str().unwrap_or("").to_string(), r["msg"].clone()))
            .collect()
    }

    /// The `subscriptions/listen` requests the upstream received.
    fn listens(&self) -> Vec<Value> {
        self.messages()
            .into_iter()
            .filter(|(_, dir, m)| dir == "in" && m["method"] == "subscriptions/listen")
            .map(|(_, _, m)| m)
            .collect()
    }

    /// The cancellations the upstream received, as (requestId, reason).
    fn cancellations(&self) -> Vec<(Value, Value)> {
        self.messages()
            .into_iter()
            .filter(|(_, dir, m)| dir == "in" && m["method"] == "notifications/cancelled")
            .map(|(_, _, m)| (m["params"]["requestId"].clone(), m["params"]["reason"].clone()))
            .collect()
    }

    /// Waits until the upstream received the cancellation of stream `id`
    /// with `reason`, at most 10 s: the bridge writes it beside its answer
    /// to the client, so the client can see the answer first.
    #[track_caller]
    fn wait_cancellation(&self, id: &Value, reason: &str) {
        let start = Instant::now();
        let wanted = (id.clone(), json!(reason));
        while !self.cancellations().contains(&wanted) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no cancellation {wanted:?}: {:?}",
                self.cancellations()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until `count` listen requests came, at most 10 s.
    fn wait_listens(&self, count: usize) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let listens = self.listens();
            if listens.len() >= count {
                return listens;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "only {} listen requests: {listens:#?}", listens.len());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn start(upstream: &Upstream, options: &[&str], bridge_options: &[&str]) -> Driver {
    let mut bridge = Driver::start(bridge_options, &upstream.command(options));
    bridge.initialize();
    bridge
}

fn list_changed() -> Value {
    json!({"jsonrpc": "2.0", "method": LIST_CHANGED, "params": {}})
}

fn updated(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": UPDATED, "params": {"uri": uri}})
}

/// Sends a request and returns the lines before its response, and the response.
fn exchange(bridge: &mut Driver, id: Value, method: &str, params: Value) -> (Vec<Value>, Value) {
    bridge.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    let mut before = Vec::new();
    loop {
        let line = bridge.recv();
        if line.get("id") == Some(&id) && line.get("method").is_none() {
            return (before, line);
        }
        before.push(line);
    }
}

fn emit(bridge: &mut Driver, id: u64, events: Value) -> Vec<Value> {
    let (before, response) =
        exchange(bridge, json!(id), "tools/call", json!({"name": "emit", "arguments": {"events": events}}));
    assert_eq!(response["result"]["content"][0]["text"], "emitted", "{response}");
    before
}

#[test]
fn initialized_opens_one_stream_with_the_declared_lists_and_the_first_ack_gives_a_gap() {
    // "The start of the stream", "Events after a gap": the acknowledgment of the first stream.
    let upstream = Upstream::new("start");
    let caps = r#"{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"listChanged":false,"subscribe":true}}"#;
    let mut bridge = start(&upstream, &["--capabilities", caps], &[]);
    assert_eq!(bridge.recv(), list_changed());
    assert_eq!(bridge.recv(), json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {}}));
    let listens = upstream.wait_listens(1);
    assert_eq!(listens[0]["params"]["notifications"], json!({"toolsListChanged": true, "promptsListChanged": true}));
    let meta = &listens[0]["params"]["_meta"];
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    assert_eq!(meta["io.modelcontextprotocol/clientInfo"], json!({"name": "harness", "version": "1.0"}));
    assert!(meta.get("io.modelcontextprotocol/logLevel").is_none(), "no level without logging/setLevel: {meta}");
    // notifications/initialized opens the stream one time only.
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    bridge.assert_alive();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(upstream.listens().len(), 1);
}

#[test]
fn without_a_declared_list_or_subscribe_no_stream_opens_and_subscribe_gets_method_not_found() {
    let upstream = Upstream::new("none");
    let mut bridge = start(&upstream, &["--capabilities", r#"{"tools":{},"resources":{}}"#], &[]);
    let response = bridge.request(json!(1), "resources/subscribe", json!({"uri": "file:///a"}));
    assert_eq!(response["error"], bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    let response = bridge.request(json!(2), "resources/unsubscribe", json!({"uri": "file:///a"}));
    assert_eq!(response["error"], bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    assert!(upstream.listens().is_empty());
}

#[test]
fn subscribe_without_resources_subscribe_gets_method_not_found_and_bad_params_invalid_params() {
    let upstream = Upstream::new("nosub");
    let mut bridge = start(&upstream, &["--capabilities", r#"{"tools":{"listChanged":true}}"#], &[]);
    assert_eq!(bridge.recv(), list_changed());
    let response = bridge.request(json!(1), "resources/subscribe", json!({"uri": "file:///a"}));
    assert_eq!(response["error"], bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    drop(bridge);

    let upstream = Upstream::new("badparams");
    let mut bridge = start(&upstream, &[], &[]);
    assert_eq!(bridge.recv(), list_changed());
    let invalid = bridge_error(-32602, &message("invalid_params"), "invalid_params", None);
    for (id, params) in [(2, json!({})), (3, json!({"uri": 5})), (4, json!([]))] {
        let response = bridge.request(json!(id), "resources/subscribe", params);
        assert_eq!(response["error"], invalid, "{response}");
    }
    let response = bridge.request(json!(5), "resources/unsubscribe", json!({"uri": null}));
    assert_eq!(response["error"], invalid);
    bridge.assert_alive();
}

#[test]
fn only_the_four_event_methods_reach_the_client_without_the_subscription_id() {
    // "The events for the client". (A second acknowledgment is a later acknowledgment of the
    // active stream: a_later_acknowledgment_of_the_active_stream_gives_the_events_of_a_gap.)
    let upstream = Upstream::new("events");
    let mut bridge = start(&upstream, &[], &[]);
    assert_eq!(bridge.recv(), list_changed());
    let got = emit(
        &mut bridge,
        1,
        json!([
            {"method": LIST_CHANGED, "params": {}},
            {"method": "notifications/prompts/list_changed", "params": {"_meta": {"com.example/k": 1}}},
            {"method": "notifications/resources/list_changed"},
            {"method": UPDATED, "params": {"uri": "file:///a", "title": "A"}},
            {"method": UPDATED, "params": {"uri": 7}},
            {"method": UPDATED, "params": {}},
            {"method": "notifications/cancelled", "params": {"requestId": 1}},
            {"method": "notifications/message", "params": {"level": "error", "data": "on a stream"}},
            {"method": "notifications/other", "params": {}},
            {"raw": true, "method": LIST_CHANGED, "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 999}}},
            {"raw": true, "method": LIST_CHANGED, "params": {}}
        ]),
    );
    let expected = [
        list_changed(),
        json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {"_meta": {"com.example/k": 1}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}}),
        json!({"jsonrpc": "2.0", "method": UPDATED, "params": {"uri": "file:///a", "title": "A"}}),
    ];
    assert_eq!(got, expected);
    bridge.assert_alive();
}

#[test]
fn a_subscribe_opens_a_new_stream_answers_at_its_ack_before_its_updates_then_cancels_the_old() {
    // "Steps of a change of the subscriptions" 3 to 5, and the order of the response.
    let upstream = Upstream::new("change");
    let mut bridge = start(&upstream, &["--streams", r#"["ack", "ack-update", "ack-update"]"#], &[]);
    assert_eq!(bridge.recv(), list_changed());
    let first = upstream.wait_listens(1)[0]["id"].clone();
    let (before, response) = exchange(&mut bridge, json!("s1"), "resources/subscribe", json!({"uri": "file:///a"}));
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(response, json!({"jsonrpc": "2.0", "id": "s1", "result": {}}));
    // The update that the upstream wrote right after the acknowledgment comes after the response.
    assert_eq!(bridge.recv(), updated("file:///a"));
    let listens = upstream.wait_listens(2);
    assert_eq!(
        listens[1]["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"]})
    );
    // Only the active stream writes: one copy of each event, from the new stream.
    assert_eq!(
        emit(&mut bridge, 2, json!([{"method": UPDATED, "params": {"uri": "file:///a"}}])),
        [updated("file:///a")]
    );
    upstream.wait_cancellation(&first, "the subscriptions changed");
    // Step 2: a URI that the bridge has, or a removal of one it does not have: {} at once.
    assert_eq!(bridge.request(json!(3), "resources/subscribe", json!({"uri": "file:///a"}))["result"], json!({}));
    assert_eq!(bridge.request(json!(4), "resources/unsubscribe", json!({"uri": "file:///b"}))["result"], json!({}));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(upstream.listens().len(), 2, "no stream for a change that changes nothing");
    // A second URI: the new stream has all URIs.
    let (_, response) = exchange(&mut bridge, json!(5), "resources/subscribe", json!({"uri": "file:///b"}));
    assert_eq!(response["result"], json!({}));
    assert_eq!(bridge.recv(), updated("file:///a"));
    assert_eq!(bridge.recv(), updated("file:///b"));
    let listens = upstream.wait_listens(3);
    assert_eq!(listens[2]["params"]["notifications"]["resourceSubscriptions"], json!(["file:///a", "file:///b"]));
}

#[test]
fn a_change_that_fails_before_its_ack_keeps_the_old_stream_and_gives_the_error() {
    // "When the new stream fails before its acknowledgment, the old stream and the old URIs stay."
    let upstream = Upstream::new("fail");
    let mut bridge = start(
        &upstream,
        &["--streams", r#"["ack", "error", "result", "silent", "ack"]"#],
        &["--test-listen-ms", "200,800,100000,300"],
    );
    assert_eq!(bridge.recv(), list_changed());
    let subscribe =
        |bridge: &mut Driver, id: u64| exchange(bridge, json!(id), "resources/subscribe", json!({"uri": "file:///a"}));
    // A JSON-RPC error of the upstream server goes to the client unchanged.
    let (_, response) = subscribe(&mut bridge, 1);
    assert_eq!(response["error"], json!({"code": -32603, "message": "listen refused"}));
    // A stream that ends with a result before its acknowledgment: invalid_response.
    let (_, response) = subscribe(&mut bridge, 2);
    assert_eq!(
        response["error"],
        bridge_error(
            -32603,
            &message("invalid_response"),
            "invalid_response",
            Some("the stream ended before its acknowledgment")
        )
    );
    // No acknowledgment in its time limit: timeout, and the stream is canceled upstream.
    let (_, response) = subscribe(&mut bridge, 3);
    assert_eq!(
        response["error"],
        bridge_error(-32603, &message("timeout"), "timeout", Some("subscriptions/listen: no response in 300 ms"))
    );
    let listens = upstream.wait_listens(4);
    upstream.wait_cancellation(&listens[3]["id"], "the request timed out");
    // The old stream still writes, and the URI is still not held: the next subscribe opens a stream.
    assert_eq!(emit(&mut bridge, 4, json!([{"method": LIST_CHANGED, "params": {}}])), [list_changed()]);
    let (_, response) = subscribe(&mut bridge, 5);
    assert_eq!(response["result"], json!({}));
    assert_eq!(upstream.wait_listens(5).len(), 5);
    bridge.assert_alive();
}

#[test]
fn after_the_last_unsubscribe_without_a_declared_list_the_stream_stops() {
    let upstream = Upstream::new("last");
    let mut bridge = start(&upstream, &["--capabilities", r#"{"resources":{"subscribe":true}}"#], &[]);
    // With only resources.subscribe, the first stream has an empty filter, and no event of a gap.
    assert_eq!(upstream.wait_listens(1)[0]["params"]["notifications"], json!({}));
    assert_eq!(bridge.request(json!(1), "resources/subscribe", json!({"uri": "file:///a"}))["result"], json!({}));
    let second = upstream.wait_listens(2)[1]["id"].clone();
    assert_eq!(bridge.request(json!(2), "resources/unsubscribe", json!({"uri": "file:///a"}))["result"], json!({}));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(upstream.listens().len(), 2, "no new stream after the last unsubscribe");
    upstream.wait_cancellation(&second, "the subscriptions changed");
    // A later subscribe opens a stream again, without the events of a gap.
    assert_eq!(bridge.request(json!(3), "resources/subscribe", json!({"uri": "file:///b"}))["result"], json!({}));
    assert_eq!(upstream.wait_listens(3)[2]["params"]["notifications"], json!({"resourceSubscriptions": ["file:///b"]}));
    bridge.expect_silence(Duration::from_millis(300));
}

/// The waits between the end of each stream (its response, or its
/// cancellation by the bridge) and the next listen request.
fn waits(upstream: &Upstream) -> Vec<f64> {
    let mut waits = Vec::new();
    let mut streams: Vec<Value> = Vec::new();
    let mut ended: Option<f64> = None;
    for (t, dir, m) in upstream.messages() {
        let response = dir == "out" && m.get("method").is_none() && streams.contains(&m["id"]);
        let canceled =
            dir == "in" && m["method"] == "notifications/cancelled" && streams.contains(&m["params"]["requestId"]);
        if dir == "in" && m["method"] == "subscriptions/listen" {
            if let Some(end) = ended.take() {
                waits.push(t - end);
            }
            streams.push(m["id"].clone());
        } else if response || canceled {
            ended = Some(t);
        }
    }
    waits
}

#[track_caller]
fn assert_waits(got: &[f64], expected_ms: &[u64]) {
    assert!(got.len() >= expected_ms.len(), "waits {got:?}, expected {expected_ms:?}");
    for (got, expected) in got.iter().zip(expected_ms) {
        let expected = *expected as f64 / 1000.0;
        // The wait is never shorter; a loaded machine can make it longer.
        assert!(*got >= expected - 0.02 && *got < expected + 0.5, "waits {got:?} s, expected {expected_ms:?} ms");
    }
}

#[test]
fn lost_streams_reopen_after_a_doubling_wait_and_each_ack_after_a_loss_gives_a_gap() {
    // "New streams after a loss": a result and a timeout reopen after a wait; 0.5 s doubling to
    // 30 s, scaled here to 200 ms doubling to 800 ms, with a 300 ms acknowledgment limit.
    let upstream = Upstream::new("backoff");
    let mut bridge = start(
        &upstream,
        &["--streams", r#"["ack-result:50", "silent", "result", "silent", "ack"]"#],
        &["--test-listen-ms", "200,800,100000,300"],
    );
    assert_eq!(bridge.recv(), list_changed(), "the first acknowledgment");
    // The fifth stream acknowledges after four losses: the events of the gap again.
    assert_eq!(bridge.recv(), list_changed(), "the acknowledgment after the losses");
    assert_eq!(upstream.wait_listens(5).len(), 5);
    assert_waits(&waits(&upstream), &[200, 400, 800, 800]);
    // And it is the active stream.
    assert_eq!(emit(&mut bridge, 1, json!([{"method": LIST_CHANGED, "params": {}}])), [list_changed()]);
}

#[test]
fn only_a_stream_that_lived_long_enough_after_its_ack_resets_the_wait() {
    let upstream = Upstream::new("reset");
    let _bridge = start(
        &upstream,
        &["--streams", r#"["silent", "silent", "ack-result:700", "ack-result:50", "ack"]"#],
        &["--test-listen-ms", "200,5000,400,300"],
    );
    upstream.wait_listens(5);
    // 200, 400; the third stream lived 700 ms > 400 ms: back to 200; the fourth did not: 400.
    assert_waits(&waits(&upstream), &[200, 400, 200, 400]);
}

#[test]
fn an_error_ends_the_stream_for_good_until_a_change_of_the_subscriptions() {
    let upstream = Upstream::new("noretry");
    let mut bridge =
        start(&upstream, &["--streams", r#"["ack-error:50", "ack"]"#], &["--test-listen-ms", "100,100,100000,300"]);
    assert_eq!(bridge.recv(), list_changed());
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(upstream.listens().len(), 1, "no new stream after a JSON-RPC error");
    // A change opens a stream again; its acknowledgment follows a loss: the response, then the gap.
    let (_, response) = exchange(&mut bridge, json!(1), "resources/subscribe", json!({"uri": "file:///a"}));
    assert_eq!(response["result"], json!({}));
    assert_eq!(bridge.recv(), list_changed());
    assert_eq!(bridge.recv(), updated("file:///a"));
}

#[test]
fn a_later_acknowledgment_of_the_active_stream_gives_the_events_of_a_gap() {
    let upstream = Upstream::new("twice");
    let mut bridge = start(&upstream, &["--streams", r#"["ack-twice"]"#], &[]);
    assert_eq!(bridge.recv(), list_changed());
    assert_eq!(bridge.recv(), list_changed());
    bridge.expect_silence(Duration::from_millis(300));
}

#[test]
fn at_the_end_of_the_input_the_listener_cancels_its_stream_and_the_bridge_exits_0() {
    let upstream = Upstream::new("end");
    let mut bridge = start(&upstream, &[], &[]);
    assert_eq!(bridge.recv(), list_changed());
    let id = upstream.wait_listens(1)[0]["id"].clone();
    bridge.close_stdin();
    assert_eq!(bridge.wait_exit(Duration::from_secs(10)).status.code(), Some(0));
    assert_eq!(upstream.cancellations(), [(id, json!("the client closed the connection"))]);
}

#[test]
fn the_stream_carries_the_log_level_of_the_client() {
    // "Logging (M3)": each upstream request and each listen stream has the level in its _meta.
    let upstream = Upstream::new("level");
    let mut bridge = Driver::start(&[], &upstream.command(&[]));
    assert_eq!(bridge.request(json!("l"), "logging/setLevel", json!({"level": "notice"}))["result"], json!({}));
    bridge.initialize();
    assert_eq!(bridge.recv(), list_changed());
    let listens = upstream.wait_listens(1);
    assert_eq!(listens[0]["params"]["_meta"]["io.modelcontextprotocol/logLevel"], "notice");
}

#[test]
fn a_list_change_written_before_each_result_reaches_the_client_before_it_in_1000_calls() {
    // "The order of events and responses": inline notifications on a stdio upstream.
    let upstream = Upstream::new("order");
    let mut bridge = start(&upstream, &[], &[]);
    assert_eq!(bridge.recv(), list_changed());
    for i in 0..1000u64 {
        let before = emit(&mut bridge, i + 1, json!([{"method": LIST_CHANGED, "params": {}}]));
        assert_eq!(before, [list_changed()], "call {i}");
    }
}

#[test]
fn subscribe_before_ready_follows_the_rule_of_requests_before_ready() {
    // The message table: a request before ready gets -32601 with the modern _meta, else -32600.
    let upstream = Upstream::new("early");
    let mut bridge = Driver::start(&[], &upstream.command(&[]));
    let plain = bridge.request(json!(1), "resources/subscribe", json!({"uri": "file:///a"}));
    assert_eq!(plain["error"], bridge_error(-32600, &message("not_initialized"), "not_initialized", None));
    let modern = bridge.request(
        json!(2),
        "resources/unsubscribe",
        json!({"uri": "file:///a", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
    );
    assert_eq!(modern["error"], bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    // In ready but before notifications/initialized there is no listen stream yet: -32601.
    let init = bridge.request(
        json!(0),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    let response = bridge.request(json!(3), "resources/subscribe", json!({"uri": "file:///a"}));
    assert_eq!(response["error"], bridge_error(-32601, &message("method_not_found"), "method_not_found", None));
    assert!(upstream.listens().is_empty());
}

#[test]
fn changes_beyond_the_queue_of_the_owner_get_too_many_requests_at_once() {
    // The reader never waits: while the owner waits for the acknowledgment of one change, 256
    // changes wait in its queue, and one more is refused at once.
    let upstream = Upstream::new("queue");
    let mut bridge =
        start(&upstream, &["--streams", r#"["ack", "silent", "ack"]"#], &["--test-listen-ms", "200,800,100000,1500"]);
    assert_eq!(bridge.recv(), list_changed());
    let count = 258;
    let mut lines = Vec::new();
    for i in 0..count {
        let request = json!({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe", "params": {"uri": format!("file:///{i}")}});
        lines.extend(request.to_string().into_bytes());
        lines.push(b'\n');
    }
    bridge.send_raw(&lines);
    let too_many = bridge_error(-32603, &message("too_many_requests"), "too_many_requests", None);
    let mut refused = Vec::new();
    let mut answered = 0;
    while answered < count {
        let line = bridge.recv();
        let Some(id) = line.get("id").and_then(Value::as_u64) else { continue };
        answered += 1;
        if id == 0 {
            let timeout = bridge_error(
                -32603,
                &message("timeout"),
                "timeout",
                Some("subscriptions/listen: no response in 1500 ms"),
            );
            assert_eq!(line["error"], timeout, "the first change: {line}");
        } else if line.get("error").is_some() {
            assert_eq!(line["error"], too_many, "{line}");
            refused.push(id);
        }
    }
    // The first change times out (its stream never acknowledges); of the rest, the last is refused,
    // and at most one more if the owner had not taken the first change yet.
    assert!(refused.contains(&(count - 1)) && refused.len() <= 2, "refused {refused:?}");
    bridge.assert_alive();
}
