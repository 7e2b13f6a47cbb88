//! `/health` under attack (docs/decisions.md, "Health"): no token, but the
//! door's `Host` and `Origin` rules; a probe of the shared child at most
//! once a second with a 5 s limit, which may start a child.

use super::super::*;
use super::{logs, messages_within};
use crate::support::fake::{fake_upstream, Record};
use crate::support::http::{assert_refused, send_only};
use std::time::{Duration, Instant};

/// A command that appends a line to `log` each time it starts, then lives
/// `life` seconds without reading or answering (a crash loop).
fn counted_command(log: &str, life: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), format!("echo started >> '{log}'; sleep {life}")]
}

fn starts(log: &str) -> usize {
    std::fs::read_to_string(log).map(|t| t.lines().count()).unwrap_or(0)
}

fn health(face: &Face) -> (u16, Value) {
    let reply = face.send(Req::get("/health"));
    (reply.status, reply.json())
}

/// "at most once a second": in front of a command whose child dies
/// 100 ms after its start, probes every 30 ms for 2 s (each waiting for
/// its answer) start at most a few children.
#[test]
fn attack_health_probes_start_at_most_one_child_a_second() {
    let record = Record::new("health-spawns");
    let log = record.pid_file();
    let face = Face::start(&[], &counted_command(&log, "0.1"));
    let started = Instant::now();
    let mut sent = 0;
    while started.elapsed() < Duration::from_secs(2) {
        let _ = face.send(Req::get("/health"));
        std::thread::sleep(Duration::from_millis(30));
        sent += 1;
    }
    std::thread::sleep(Duration::from_millis(300));
    let spawned = starts(&log);
    assert!(spawned <= 4, "\"at most once a second\": {sent} probes in 2 s started {spawned} children");
}

/// "at most once a second" with a prober that leaves early (no token is
/// needed): in front of a child that reads everything and answers nothing
/// (`cat`, which appends each line it gets to a file), 40 probes in 2 s
/// that each close their connection after 50 ms must not each send the
/// child a `server/discover`.
#[test]
fn attack_health_probes_that_leave_early_send_at_most_one_discover_a_second() {
    let record = Record::new("health-discovers");
    let lines = record.pid_file();
    let face = Face::start(&[], &["sh".into(), "-c".into(), format!("cat >> '{lines}'")]);
    let probe = Req::get("/health").header("Host", &face.host());
    let started = Instant::now();
    let mut sent = 0;
    while started.elapsed() < Duration::from_secs(2) {
        let left = send_only(face.port, std::slice::from_ref(&probe));
        std::thread::sleep(Duration::from_millis(50));
        drop(left);
        sent += 1;
    }
    std::thread::sleep(Duration::from_millis(300));
    let discovers = starts(&lines);
    assert!(
        discovers <= 3,
        "\"at most once a second\": {sent} probes that left early sent the shared child {discovers} server/discover"
    );
}

/// A child that answers everything but the probe's `server/discover`
/// (a server busy with that one request), and whose `log` tool writes a
/// log message before its result.
const PROBE_DEAF: &str = r#"
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    meta = m.get("params", {}).get("_meta", {})
    name = meta.get("io.modelcontextprotocol/clientInfo", {}).get("name")
    if m["method"] == "server/discover":
        if name == "mcp-bridge-vscode":
            continue
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"resultType": "complete",
              "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}, "logging": {}}}})
    else:
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "error", "logger": "t", "data": "for " + str(name)}})
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"resultType": "complete", "content": []}})
"#;

/// A log message "reaches a session ... while that session alone has
/// requests in flight": a probe that left (its connection closed before
/// the child answered its discover) runs on until its limit and is then
/// given up, so the session that alone calls gets its log message again,
/// as it does after a probe that timed out; nothing stays in the table.
#[test]
fn attack_a_probe_that_left_does_not_take_a_sessions_log_messages() {
    let face = Face::start(&[], &["python3".into(), "-c".into(), PROBE_DEAF.into()]);
    let session = Session::open(&face, "2025-11-25", json!({}));
    // Its requests carry a log level: a server sends no log message for a
    // request without one (2026-07-28), so only these can be its.
    let level = session.answer(&face, &request(json!(0), "logging/setLevel", json!({"level": "debug"})));
    assert_eq!(level["result"], json!({}), "{level}");
    let mut get = session.listen(&face);
    let own_log = |id: u64, get: &mut crate::support::http::Events| {
        let answer = session.answer(&face, &call(json!(id), "log", json!({})));
        assert!(answer.get("result").is_some(), "{answer}");
        let got = messages_within(get, Duration::from_millis(500));
        logs(&got).len()
    };
    assert_eq!(own_log(1, &mut get), 1, "alone, the session gets its log message");
    let left = send_only(face.port, &[Req::get("/health").header("Host", &face.host())]);
    std::thread::sleep(Duration::from_millis(300));
    drop(left);
    // The probe goes on without its prober, within its 5 s limit; then it
    // is given up, and its claim lingers 2 s more. After that the session
    // that alone waits gets its log messages again: nothing stays behind.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut id = 2;
    while own_log(id, &mut get) != 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "a probe that left holds the shared connection's log messages for good"
        );
        id += 1;
    }
}

/// The door before the probe: a foreign or non-loopback `Host`, a foreign
/// `Origin`, or a method other than GET is refused, and none of them
/// starts a child; with `--auth-token-env`, HEAD and POST without the
/// token are 401 (the token rule of every other request).
#[test]
fn attack_health_refusals_start_no_child() {
    let face = Face::start_env(&["--auth-token-env", "FACE_TEST_TOKEN"], &demo(), &[("FACE_TEST_TOKEN", "t-1")]);
    let port = face.port;
    for host in ["evil.example".to_string(), format!("10.0.0.1:{port}"), format!("127.0.0.1.nip.io:{port}")] {
        assert_refused(&face.send(Req::get("/health").header("Host", &host)), "foreign_host");
    }
    let foreign = Req::get("/health").header("Origin", "http://evil.example");
    assert_refused(&face.send(foreign), "foreign_origin");
    let null_origin = Req::get("/health").header("Origin", "null");
    assert_refused(&face.send(null_origin), "foreign_origin");
    for method in ["HEAD", "POST", "PUT", "DELETE"] {
        let reply = face.send(Req::new(method, "/health"));
        assert_eq!(reply.status, 401, "{method} /health without the token: {reply}");
    }
    let options = face.send(Req::new("OPTIONS", "/health"));
    assert_eq!(options.status, 405, "{options}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(face.children().is_empty(), "a refused probe started a child: {:?}", face.children());
    assert_eq!(health(&face), (200, json!({"status": "ok"})));
    assert_eq!(face.children().len(), 1, "the one probe that passed started the child");
}

/// A hung child (it stops reading after its first discover answer):
/// "5 s limit": the next probe says 503 `timeout` within the limit and a
/// little, and a probe that comes meanwhile waits no longer than that.
#[test]
fn attack_health_of_a_hung_child_answers_within_its_limit() {
    let face = Face::start(&[], &fake_upstream(&["--deaf"]));
    assert_eq!(health(&face), (200, json!({"status": "ok"})), "the first discover is answered");
    std::thread::sleep(Duration::from_millis(1100));
    let face_ref = &face;
    let started = Instant::now();
    let (first, second) = std::thread::scope(|scope| {
        let first = scope.spawn(move || (health(face_ref), started.elapsed()));
        std::thread::sleep(Duration::from_millis(1000));
        let second = scope.spawn(move || (health(face_ref), started.elapsed()));
        (first.join().ok(), second.join().ok())
    });
    let unavailable = json!({"status": "unavailable", "cause": "timeout"});
    for (name, outcome) in [("first", first), ("second", second)] {
        let Some((answer, took)) = outcome else { panic!("the {name} probe failed") };
        assert_eq!(answer, (503, unavailable.clone()), "the {name} probe of a hung child");
        assert!(took < Duration::from_millis(6500), "the {name} probe took {took:?}: the 5 s limit");
    }
}

/// /health races with the loss: a session's call makes the child exit
/// while probes come every 50 ms; the probes settle on 200 with one new
/// child, and the old session ends (404).
#[test]
fn attack_health_racing_with_the_loss_settles_on_one_new_child() {
    let face = Face::start(&["--test-shutdown-grace-ms", "200"], &fake_upstream(&[]));
    let session = Session::open(&face, "2025-11-25", json!({}));
    let first = face.children();
    let face_ref = &face;
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for _ in 0..40 {
                let _ = health(face_ref);
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let exit = session.answer(face_ref, &call(json!(1), "script", json!({"steps": ["exit"]})));
        assert_eq!(exit["error"]["data"]["cause"], "upstream_exited", "{exit}");
    });
    let settled = eventually(Duration::from_secs(3), || health(&face).0 == 200 && face.children().len() == 1);
    let children = face.children();
    assert!(settled && children != first, "after the loss, one new child: {first:?} then {children:?}");
    let ping = request(json!(2), "ping", json!({}));
    assert!(eventually(Duration::from_secs(3), || session.post(&face, &ping).status == 404), "the old session stayed");
    let again = Session::open(&face, "2025-11-25", json!({}));
    assert_eq!(again.answer(&face, &call(json!(3), "echo", json!({})))["result"]["content"][0]["text"], "echo");
    assert_eq!(face.children(), children, "the session uses the child the probe started");
}
