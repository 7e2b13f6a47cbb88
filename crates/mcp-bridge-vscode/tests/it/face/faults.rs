//! Faults at scale (issue "The HTTP face at scale", "Health and faults";
//! docs/decisions.md, "The loss of the shared child"): a server at a URL
//! that goes away and comes back, and clients that vanish mid-stream.

use super::*;
use crate::support::fake::fake_upstream;
use crate::support::repo_root;
use crate::support::served::Served;
use std::process::Command;
use std::time::Duration;

/// tests/fake/http_upstream.py on `port` (0: one the system picks).
fn fake_http(port: u16) -> Served {
    let mut cmd = Command::new("python3");
    cmd.arg(repo_root().join("tests/fake/http_upstream.py")).args([
        "--port",
        &port.to_string(),
        "--result",
        r#"tools/list={"tools":[]}"#,
    ]);
    Served::start(cmd, true)
}

fn tools_list(id: u64) -> Value {
    request(json!(id), "tools/list", json!({}))
}

/// The server at the URL goes away: a request of the session gets the
/// error table's `transport_failed` ("cannot connect to the upstream
/// server") and the session stays; the server comes back on its port and
/// the same session's next request is answered.
#[test]
fn a_url_that_goes_away_and_comes_back_costs_the_session_only_the_requests_meanwhile() {
    let first = fake_http(0);
    let port = first.port;
    let face = Face::start_url(&[], &first.url("/mcp"), &[]);
    let session = Session::open(&face, "2025-11-25", json!({}));
    let listed = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}});
    assert_eq!(session.answer(&face, &tools_list(1)), listed);
    drop(first);
    let failed = session.answer(&face, &tools_list(2));
    let detail = Some("cannot connect to the upstream server");
    let error =
        crate::support::bridge_error(-32603, &crate::support::message("transport_failed"), "transport_failed", detail);
    crate::support::assert_json(
        "a request while it is gone",
        &failed,
        &json!({"jsonrpc": "2.0", "id": 2, "error": error}),
    );
    let _back = fake_http(port);
    let again = session.answer(&face, &tools_list(3));
    assert_eq!(again, json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}), "the same session after the return");
}

/// The open descriptors of a process.
fn fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0)
}

/// Thirty clients each open a session, start a slow call and vanish
/// mid-stream (their connection closes after the first event): the face's
/// descriptors come back to what they were (no connection or stream
/// leaks), and a new session is served.
#[test]
fn clients_that_vanish_mid_stream_leave_no_connection_behind() {
    let face = Face::start(&[], &demo());
    let warm = Session::open(&face, "2025-11-25", json!({}));
    assert_eq!(warm.answer(&face, &request(json!(1), "ping", json!({})))["result"], json!({}));
    let before = fds(face.pid());
    for round in 0..30 {
        let session = Session::open(&face, "2025-11-25", json!({}));
        let slow = call(json!(round), "slow_count", json!({"steps": 10, "delay_ms": 20}));
        let mut events = session.stream(&face, &slow);
        let _first = events.next();
        drop(events);
    }
    let settled = eventually(Duration::from_secs(10), || fds(face.pid()) <= before);
    assert!(settled, "descriptors: {before} before, {} after the clients vanished", fds(face.pid()));
    let next = Session::open(&face, "2025-11-25", json!({}));
    assert_eq!(next.answer(&face, &request(json!(2), "ping", json!({})))["result"], json!({}));
}

/// A face started with a soft open-file limit of 512 raises it to the hard
/// limit, so that `--max-sessions` clients find descriptors
/// (`src/files.rs`).
#[test]
fn the_face_raises_its_soft_open_file_limit_to_the_hard_one() {
    use std::io::BufRead;
    let bin = env!("CARGO_BIN_EXE_mcp-bridge-vscode");
    let script = r#"ulimit -Sn 512 && exec "$0" --listen 127.0.0.1:0 -- "$0" demo-server"#;
    let mut child = Command::new("sh")
        .args(["-c", script, bin])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the face starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let ready = std::io::BufReader::new(stderr).lines().map_while(Result::ok).any(|l| l.contains("listening on"));
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", child.id())).unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    assert!(ready, "no ready line");
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap_or_default();
    let numbers: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers.len(), 2, "{limits}");
    assert_ne!(numbers[0], "512", "the soft limit stayed: {line}");
    assert_eq!(numbers[0], numbers[1], "the soft limit is the hard one: {line}");
}

/// The resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or_default();
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// Sessions that come and go leave nothing behind (issue "The HTTP face
/// at scale": a soak with flat RSS): after 300 sessions warm the face up,
/// 800 more that open, call and end grow its memory by less than 2 MiB.
/// A session's watch of the shared child once outlived it with its whole
/// state (6.6 KiB each: 5 MiB here).
#[test]
fn sessions_that_come_and_go_leave_nothing_behind() {
    let face = Face::start(&[], &fake_upstream(&[]));
    let round = |n: u64| {
        let session = Session::open(&face, "2025-11-25", json!({}));
        let listed = session.answer(&face, &request(json!(n), "tools/list", json!({})));
        assert!(listed.get("result").is_some(), "{listed}");
        assert_eq!(face.send(session.req(Req::new("DELETE", "/mcp"))).status, 200);
    };
    (0..300).for_each(round);
    let warm = rss_kib(face.pid());
    (300..1100).for_each(round);
    let after = rss_kib(face.pid());
    assert!(after < warm + 2048, "RSS {warm} KiB after the warm-up, {after} KiB after 800 more sessions");
}
