//! Listen streams and subscriptions on the shared child: each session's
//! own ("listen streams (per session)"; "its end cancels its requests on
//! the child, which serves on").

use super::super::*;
use crate::support::http::send_only;
use crate::support::repo_root;
use std::time::{Duration, Instant};

/// tests/fake/listen_upstream.py with its record: each message both ways.
struct Upstream(crate::support::fake::Record);

impl Upstream {
    fn command(&self) -> Vec<String> {
        let script = repo_root().join("tests/fake/listen_upstream.py").display().to_string();
        vec!["python3".into(), script, "--record".into(), self.0.arg().into()]
    }

    fn received(&self, method: &str) -> Vec<Value> {
        let text = std::fs::read_to_string(self.0.arg()).unwrap_or_default();
        let records = text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok());
        records.filter(|r| r["dir"] == "in" && r["msg"]["method"] == method).map(|r| r["msg"].clone()).collect()
    }

    /// The `subscriptions/listen` requests, once there are `count`.
    #[track_caller]
    fn listens(&self, count: usize) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let found = self.received("subscriptions/listen");
            if found.len() >= count {
                return found;
            }
            assert!(Instant::now() < deadline, "{} of {count} listen streams opened: {found:?}", found.len());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn cancelled(&self) -> Vec<Value> {
        self.received("notifications/cancelled").iter().map(|m| m["params"]["requestId"].clone()).collect()
    }
}

fn subscriptions(listen: &Value) -> Value {
    listen["params"]["notifications"]["resourceSubscriptions"].clone()
}

/// A POST of `resources/subscribe` in `session`, whose answer is not read
/// here (`attack_a_subscribe_is_answered_on_its_own_stream` holds where it goes).
fn subscribe(face: &Face, session: &Session, id: u64, uri: &str) -> std::net::TcpStream {
    let message = request(json!(id), "resources/subscribe", json!({"uri": uri}));
    send_only(face.port, &[session.req(Req::post(&message)).header("Host", &face.host())])
}

/// A subscribes `file:///a`, B `file:///b`: each new stream's filter has
/// its own session's URI only, and each change cancels only that
/// session's old stream. A's DELETE cancels A's stream on the child and
/// leaves B's, whose events still reach B.
#[test]
fn attack_subscriptions_and_listen_streams_stay_each_sessions_own() {
    let upstream = Upstream(crate::support::fake::Record::new("listen"));
    let face = Face::start(&[], &upstream.command());
    let a = Session::open(&face, "2025-11-25", json!({}));
    let a_first = upstream.listens(1)[0]["id"].clone();
    let b = Session::open(&face, "2025-11-25", json!({}));
    let b_first = upstream.listens(2)[1]["id"].clone();
    let mut b_get = b.listen(&face);
    let _a_sub = subscribe(&face, &a, 1, "file:///a");
    let a_second = upstream.listens(3)[2].clone();
    assert_eq!(subscriptions(&a_second), json!(["file:///a"]), "A's new stream: {a_second}");
    let _b_sub = subscribe(&face, &b, 1, "file:///b");
    let b_second = upstream.listens(4)[3].clone();
    assert_eq!(subscriptions(&b_second), json!(["file:///b"]), "B's stream has A's subscription: {b_second}");
    let settled = eventually(Duration::from_secs(3), || {
        let cancelled = upstream.cancelled();
        cancelled.contains(&a_first) && cancelled.contains(&b_first)
    });
    assert!(settled, "the old streams were not canceled: {:?}", upstream.cancelled());
    assert_eq!(face.send(a.req(Req::new("DELETE", "/mcp"))).status, 200);
    let a_ended = eventually(Duration::from_secs(3), || upstream.cancelled().contains(&a_second["id"]));
    assert!(a_ended, "the ended session's listen stream stays open on the shared child: {:?}", upstream.cancelled());
    std::thread::sleep(Duration::from_millis(200));
    assert!(!upstream.cancelled().contains(&b_second["id"]), "A's end canceled B's stream");
    let update = json!({"method": "notifications/resources/updated", "params": {"uri": "file:///b"}});
    let emitted = b.answer(&face, &call(json!(2), "emit", json!({"events": [update]})));
    assert_eq!(emitted["result"]["content"][0]["text"], "emitted", "{emitted}");
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let message = b_get.any_message();
        if message["method"] == "notifications/resources/updated" && message["params"]["uri"] == "file:///b" {
            break;
        }
        assert!(Instant::now() < deadline, "B's update never came");
    }
}

/// The transport (2025-11-25, "Listening for Messages from the Server"):
/// on the GET stream "the server MUST NOT send a JSON-RPC response ...
/// unless resuming a stream associated with a previous client request";
/// a POSTed request's SSE stream "SHOULD eventually include" its response
/// and then ends (docs/decisions.md: "every other request gets an SSE
/// stream that ... ends with its response"). A `resources/subscribe` that
/// opens a new listen stream is answered `{}` at its acknowledgment: on
/// its POST's stream, never on the session's GET stream.
#[test]
fn attack_a_subscribe_is_answered_on_its_own_stream() {
    let upstream = Upstream(crate::support::fake::Record::new("subscribe"));
    let face = Face::start(&[], &upstream.command());
    let session = Session::open(&face, "2025-11-25", json!({}));
    upstream.listens(1);
    let mut get = session.listen(&face);
    let mut post = session.stream(&face, &request(json!(1), "resources/subscribe", json!({"uri": "file:///a"})));
    let on_get = super::messages_within(&mut get, Duration::from_millis(1500));
    let responses: Vec<&Value> = on_get.iter().filter(|m| m.get("id").is_some()).collect();
    assert!(responses.is_empty(), "a response on the session's GET stream: {responses:?}");
    match post.next_within(Duration::from_millis(1500)) {
        crate::support::http::Next::Event(event) => {
            let response: Value = serde_json::from_str(&event.data).unwrap_or(Value::Null);
            assert_eq!(response, json!({"jsonrpc": "2.0", "id": 1, "result": {}}), "{event:?}");
        }
        other => panic!("the subscribe's own stream got no response: {other:?}"),
    }
    post.assert_end();
}
