//! The face's command line and its life (docs/decisions.md, "The door" and
//! "Ready and gone"; ARCHITECTURE.md: exit 2 for options that cannot be
//! used): a non-loopback `--listen` needs `--auth-token-env`, whose
//! variable must be set; an address that is not `HOST:PORT` or cannot be
//! bound exits 2 with the reason on stderr; SIGINT or SIGTERM ends every
//! session and its upstream, then the face exits 0.

use super::process::Refused;
use super::*;
use crate::support::fake::{fake_upstream, Record};
use crate::support::http::{assert_refused, Next, STEP};

/// The words of a face on `listen` in front of the demo, with `options`.
fn words(listen: &str, options: &[&str]) -> Vec<String> {
    let mut words = vec!["--listen".to_string(), listen.to_string()];
    words.extend(options.iter().map(|s| s.to_string()));
    words.push("--".into());
    words.extend(demo());
    words
}

/// The face must not start: exit 2, and one line on stderr, the reason,
/// which begins with `reason` and names each of `names`.
#[track_caller]
fn assert_usage_error(words: &[String], env: &[(&str, &str)], reason: &str, names: &[&str]) {
    let refused: Refused = match Face::launch(words, env) {
        Ok(face) => panic!("the face started on {words:?} (port {})", face.port),
        Err(refused) => refused,
    };
    assert_eq!(refused.status.code(), Some(2), "{words:?}: {refused:?}");
    let line = format!("mcp-bridge-vscode: {reason}");
    assert!(refused.stderr.starts_with(&line), "{words:?}: {refused:?}");
    assert_eq!(refused.stderr.lines().count(), 1, "{words:?}: {refused:?}");
    for name in names {
        assert!(refused.stderr.contains(name), "the reason does not name {name:?}: {refused:?}");
    }
}

/// A non-loopback address without `--auth-token-env` exits 2: anyone who
/// reaches it could use the server. With the token it starts, and asks
/// for the token.
#[test]
fn a_non_loopback_listen_needs_auth_token_env() {
    assert_usage_error(
        &words("0.0.0.0:0", &[]),
        &[],
        "--listen 0.0.0.0:0 is not a loopback address: anyone who reaches it could use the server.",
        &["--auth-token-env VAR", "Authorization: Bearer", "127.0.0.1"],
    );
    let env = [("FACE_REMOTE_TOKEN", "remote-s3cret")];
    let face = Face::launch(&words("0.0.0.0:0", &["--auth-token-env", "FACE_REMOTE_TOKEN"]), &env)
        .unwrap_or_else(|refused| panic!("the face did not start with the token: {refused:?}"));
    let init = Req::post(&request(json!(1), "initialize", init_params("2025-11-25", json!({}))));
    assert_refused(&face.send(init.clone()), "unauthorized");
    let reply = face.send(init.header("Authorization", "Bearer remote-s3cret"));
    assert_eq!(reply.status, 200, "{reply}");
}

/// `--auth-token-env` of a variable that is not set (or empty) exits 2.
#[test]
fn auth_token_env_of_an_unset_or_empty_variable_exits_2() {
    let unset = words("127.0.0.1:0", &["--auth-token-env", "FACE_TEST_UNSET_VAR"]);
    assert_usage_error(&unset, &[], "the variable FACE_TEST_UNSET_VAR of --auth-token-env is not set", &[]);
    let empty = words("127.0.0.1:0", &["--auth-token-env", "FACE_TEST_EMPTY_VAR"]);
    let reason = "the variable FACE_TEST_EMPTY_VAR of --auth-token-env is empty";
    assert_usage_error(&empty, &[("FACE_TEST_EMPTY_VAR", "")], reason, &[]);
}

/// `--listen` of a value that is not `HOST:PORT` exits 2.
#[test]
fn listen_of_nonsense_exits_2() {
    assert_usage_error(
        &words("nonsense", &[]),
        &[],
        "--listen nonsense is not HOST:PORT with an IP address or localhost, for example 127.0.0.1:8931",
        &[],
    );
}

/// An address that cannot be bound (the test holds the port) exits 2.
#[test]
fn a_port_in_use_exits_2() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = held.local_addr().expect("its address").port();
    let reason = format!("cannot listen on 127.0.0.1:{port}: ");
    assert_usage_error(&words(&format!("127.0.0.1:{port}"), &[]), &[], &reason, &[]);
    drop(held);
}

/// A face with an open session: its GET stream open, the call `in_flight`
/// (id 7) not answered yet. At `signal` the face exits 0; its streams end (the call's
/// without a response: it was canceled); the upstream child `pid` of the
/// session is gone by the time the face has exited.
#[track_caller]
fn ends_at(signal: &str, mut face: Face, in_flight: Value, pid: impl Fn(&Face) -> u32) {
    let session = Session::open(&face, "2025-11-25", json!({}));
    let mut listen = session.listen(&face);
    let mut slow = session.stream(&face, &in_flight);
    let child = pid(&face);
    assert!(alive(child), "the upstream child {child} runs");
    face.signal(signal);
    let status = face.wait_exit(STEP);
    assert_eq!(status.code(), Some(0), "SIG{signal}: {status}; stderr:\n{}", face.stderr_text());
    assert!(!alive(child), "SIG{signal}: the upstream child {child} still runs after the face exited");
    assert!(!face.stderr_text().contains("panicked"), "{}", face.stderr_text());
    // Whatever came before (the demo's list change of the gap), each
    // stream ends; the canceled call gets no response.
    for events in [&mut listen, &mut slow] {
        loop {
            match events.next_within(STEP) {
                Next::End => break,
                Next::Event(event) => assert!(!event.data.contains("\"id\":7"), "a response after the stop: {event:?}"),
                Next::Quiet => panic!("SIG{signal}: a stream still open after the face exited"),
            }
        }
    }
}

/// The one child of the face: the session's demo server.
#[track_caller]
fn the_demo(face: &Face) -> u32 {
    let children = face.children();
    assert_eq!(children.len(), 1, "one upstream child: {children:?}");
    children[0]
}

/// A call of the demo that takes 10 s.
fn slow_count() -> Value {
    call(json!(7), "slow_count", json!({"steps": 100, "delay_ms": 100}))
}

#[test]
fn sigterm_ends_every_session_and_its_upstream_then_exits_0() {
    ends_at("TERM", Face::start(&[], &demo()), slow_count(), the_demo);
}

#[test]
fn sigint_ends_every_session_and_its_upstream_then_exits_0() {
    ends_at("INT", Face::start(&[], &demo()), slow_count(), the_demo);
}

/// An upstream that outlives the end of its input (the fake's --linger)
/// is killed after the grace: the face does not leave it behind.
#[test]
fn sigterm_kills_an_upstream_that_outlives_its_input() {
    let record = Record::new("face-linger");
    let pid_file = record.pid_file();
    let upstream = fake_upstream(&["--linger", "--pid-file", &pid_file]);
    let face = Face::start(&["--test-shutdown-grace-ms", "200"], &upstream);
    // The fake wrote its pid at its start, before it answered discover.
    ends_at("TERM", face, call(json!(7), "stall", json!({})), |_| record.pid());
}
