//! The face's own sign-in toward a protected server at a URL, without
//! `--pass-authorization` (issue 44, "The bridge's own sign-in runs once
//! for the face and serves every session"; docs/decisions.md, "The HTTP
//! face"): each session has its own upstream connection, but one sign-in
//! runs at a time per server in the face, and a session that waited for
//! it takes its tokens from the store. The test plays the browser of the
//! one sign-in line (`--no-browser`).

use super::passing::{at, Upstream};
use super::*;
use std::time::Duration;

const SIGN_IN_LINE: &str = "sign-in: open ";

/// Two sessions initialize at once in front of a server that needs a
/// token: one sign-in line, one authorization at the server, and both
/// sessions ready with the same token; a third session later needs none.
#[test]
fn two_sessions_at_once_sign_in_once() {
    let upstream = Upstream::start("own-sign-in", &[]);
    let config = std::path::Path::new(upstream.record.arg()).with_extension("config").display().to_string();
    let face = Face::start_url(&["--no-browser"], &upstream.mcp(), &[("XDG_CONFIG_HOME", &config)]);
    let initialize = |id: u64| Req::post(&request(json!(id), "initialize", init_params("2025-11-25", json!({}))));
    std::thread::scope(|scope| {
        let face = &face;
        let sessions: Vec<_> = (1..=2).map(|id| scope.spawn(move || face.send(initialize(id)))).collect();
        assert!(
            eventually(Duration::from_secs(10), || face.stderr_text().contains(SIGN_IN_LINE)),
            "no sign-in line:\n{}",
            face.stderr_text()
        );
        browse(face.stderr_text().split(SIGN_IN_LINE).nth(1).unwrap_or_default());
        for (n, session) in sessions.into_iter().enumerate() {
            let reply = session.join().expect("the session's thread");
            assert_eq!(reply.status, 200, "session {n}: {reply}");
            assert_eq!(reply.json()["result"]["serverInfo"]["name"], "auth-fake", "session {n}: {reply}");
        }
    });
    let third = face.send(initialize(3));
    assert_eq!(third.status, 200, "{third}");
    assert_eq!(face.stderr_text().matches(SIGN_IN_LINE).count(), 1, "{}", face.stderr_text());
    let authorized = upstream.record.messages().iter().filter(|r| r["path"] == "/authorize").count();
    assert_eq!(authorized, 1, "one authorization at the server");
    // Each session's discover: refused without a token at most once, then
    // served with the one token of the sign-in.
    let discovers: Vec<Value> = upstream.mcp_requests().into_iter().filter(|r| r["rpc"] == "server/discover").collect();
    let served: Vec<&Value> = discovers.iter().filter(|r| r["status"] == 200).collect();
    assert_eq!(served.len(), 3, "{discovers:#?}");
    assert!(served.iter().all(|r| r["token"] == served[0]["token"] && r["token"].is_string()), "{discovers:#?}");
}

/// A sign-in outlives the request that started it: a client that goes
/// away during it does not stop it, and the next session joins it rather
/// than starting one of its own (no browser window per request).
#[test]
fn a_sign_in_whose_client_went_away_serves_the_next_session() {
    let upstream = Upstream::start("own-sign-in-left", &[]);
    let config = std::path::Path::new(upstream.record.arg()).with_extension("config").display().to_string();
    let face = Face::start_url(&["--no-browser"], &upstream.mcp(), &[("XDG_CONFIG_HOME", &config)]);
    let initialize = |id: u64| Req::post(&request(json!(id), "initialize", init_params("2025-11-25", json!({}))));
    let gone = crate::support::http::send_only(face.port, &[initialize(1).header("Host", &face.host())]);
    assert!(
        eventually(Duration::from_secs(10), || face.stderr_text().contains(SIGN_IN_LINE)),
        "no sign-in line:\n{}",
        face.stderr_text()
    );
    drop(gone);
    std::thread::scope(|scope| {
        let face = &face;
        let next = scope.spawn(move || face.send(initialize(2)));
        std::thread::sleep(Duration::from_millis(500));
        let stderr = face.stderr_text();
        assert_eq!(stderr.matches(SIGN_IN_LINE).count(), 1, "a second sign-in:\n{stderr}");
        browse(stderr.split(SIGN_IN_LINE).nth(1).unwrap_or_default());
        let reply = next.join().expect("the session's thread");
        assert_eq!(reply.status, 200, "{reply}");
    });
    assert_eq!(face.stderr_text().matches(SIGN_IN_LINE).count(), 1, "{}", face.stderr_text());
}

/// The browser of the sign-in whose line is `line`: the start URL, the
/// server's /authorize, the bridge's callback, which must end with 200.
#[track_caller]
fn browse(line: &str) {
    let mut url = line.split_whitespace().next().unwrap_or_default().to_owned();
    for _ in 0..3 {
        let page = at(&url, None);
        match page.header("location") {
            Some(location) if page.status / 100 == 3 => url = location.to_owned(),
            _ => {
                assert_eq!(page.status, 200, "the last page of the sign-in: {page}");
                return;
            }
        }
    }
    panic!("the sign-in did not end after 3 redirects, at {url}");
}
