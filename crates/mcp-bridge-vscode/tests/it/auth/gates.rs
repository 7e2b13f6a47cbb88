//! The gates of what an authorization server sends (issue "One gate for
//! what comes from outside"): a verification URI that fails the URL rule of
//! a sign-in is never opened, written in the sign-in line, nor sent to the
//! client; a user code that is not a short printable text ends the
//! sign-in; an interval of 0 polls no faster than RFC 8628's default; a
//! POST of the sign-in follows no redirect. Each case runs the real binary
//! against tests/fake/auth_upstream.py, which says what it was told to.

use super::device::{device_line, signed_in_with_url_elicitation};
use super::*;
use crate::support::driver::STEP;

/// The environment of an SSH session: the bridge runs on a remote host.
const SSH: (&str, &str) = ("SSH_CONNECTION", "10.0.0.2 50000 10.0.0.1 22");

/// Verification URIs that a hostile authorization server sent, each of
/// which the URL rule of a sign-in refuses: other schemes, plain http to
/// another host, a relative path, user information that reads as a host, a
/// backslash, and a line break that would forge a log line.
const HOSTILE: [&str; 10] = [
    "javascript:alert(document.domain)",
    "file:///etc/passwd",
    "data:text/html,<script>alert(1)</script>",
    "http://evil.example/device",
    "vscode://vscode.git/clone?url=https://evil.example/r.git",
    "../../etc/passwd",
    "https://auth.example.com@evil.example/device",
    "https://evil.example\\@127.0.0.1/device",
    "http://127.0.0.1:1/device\n[mcp-bridge-vscode] WARN sign-in: open https://evil.example/device",
    "HTTPS://EVIL.EXAMPLE/\u{202e}ecived",
];

/// A browser opener for `BROWSER` that appends each URL it gets to
/// `opened` and exits 0.
fn recording_browser(dir: &Path) -> (PathBuf, PathBuf) {
    let opened = dir.join("opened.txt");
    let script = dir.join("browser.sh");
    std::fs::write(&script, format!("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n", opened.display()))
        .expect("the recorder is written");
    let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&script, mode).expect("the recorder is executable");
    (script, opened)
}

/// What the recorder got.
fn opened(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// What the recorder got, once it got a line (the opener runs beside the
/// sign-in), waiting at most [`STEP`].
fn opened_once(path: &Path) -> String {
    let deadline = Instant::now() + STEP;
    while !opened(path).ends_with('\n') && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    opened(path)
}

/// `sign_in_invalid_url` as the initialize gets it.
fn invalid_url() -> Value {
    err(json!(INIT), bridge_error(-32603, &message("sign_in_invalid_url"), "sign_in_invalid_url", None))
}

/// Every line of the bridge's stderr is one of its own log lines.
#[track_caller]
fn one_line_per_event(stderr: &str) {
    for line in stderr.lines() {
        assert!(line.starts_with("[mcp-bridge-vscode] "), "a line that is not a log line of the bridge: {line:?}");
    }
    assert!(!stderr.contains("evil.example"), "a hostile text reached the log: {stderr}");
}

/// "A verification URI that fails ends the sign-in with
/// `sign_in_invalid_url`, and nothing is opened or sent": on the user's
/// machine (`--sign-in device`, a browser opener on `BROWSER`), each
/// hostile value, as `verification_uri_complete` and as the only
/// `verification_uri`, fails the initialize; the opener is never called
/// and no sign-in line is written. The control case opens the fake's own
/// URL, so the opener is the one the bridge would call.
#[test]
fn a_hostile_verification_uri_is_never_opened_nor_written_on_the_users_machine() {
    let dir = TempDir::new("gate-device-local");
    let (browser, record) = recording_browser(dir.path());
    let env = [("BROWSER", browser.to_str().unwrap_or(""))];
    let start = |fake_options: &[&str]| {
        let fake = Fake::start(dir.path(), fake_options);
        let command = bridge_command_opening(&[], dir.path(), &fake.url(), &["--sign-in", "device"], &env);
        (fake, Driver::spawn(command))
    };
    let (fake, mut driver) = start(&["--device"]);
    send_initialize(&mut driver);
    let (url, _) = device_line(&mut driver);
    assert_eq!(get(&url).status, 200);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    assert_eq!(opened_once(&record), format!("{url}\n"), "the control: the bridge opens a URL that passes");
    drop((fake, driver));
    std::fs::remove_file(&record).expect("the record of the control goes");

    for hostile in HOSTILE {
        for option in ["--verification-uri-complete", "--verification-uri"] {
            let mut fake_options = vec!["--device", option, hostile];
            if option == "--verification-uri" {
                fake_options.push("--no-verification-complete");
            }
            let (_fake, mut driver) = start(&fake_options);
            send_initialize(&mut driver);
            assert_eq!(driver.response(&json!(INIT)), invalid_url(), "{option} {hostile:?}");
            driver.wait_stderr("a verification URI of the device sign-in failed a check", 1);
            let stderr = driver.stderr_text();
            assert!(!stderr.contains(SIGN_IN_LINE), "{option} {hostile:?}: {stderr}");
            one_line_per_event(&stderr);
            assert_eq!(opened(&record), "", "{option} {hostile:?}: the browser opener was called");
        }
    }
}

/// The same on a remote host, for a later sign-in, which asks the client
/// with a URL elicitation: the step-up's device sign-in gets a hostile
/// verification URI, the call fails with `sign_in_invalid_url`, and the
/// client gets no `elicitation/create` at all.
#[test]
fn a_later_sign_in_sends_no_hostile_url_to_the_client() {
    for hostile in [HOSTILE[0], HOSTILE[1], HOSTILE[3], HOSTILE[4], HOSTILE[8]] {
        let dir = TempDir::new("gate-device-later");
        let options =
            ["--device", "--step-up", "mcp:write", "--overrides-from", "2", "--verification-uri-complete", hostile];
        let fake = Fake::start(dir.path(), &options);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
        signed_in_with_url_elicitation(&mut driver);
        driver.send_request(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
        // The next message is the call's error: no question came before it.
        assert_eq!(
            driver.recv(),
            err(json!(2), bridge_error(-32603, &message("sign_in_invalid_url"), "sign_in_invalid_url", None)),
            "{hostile:?}"
        );
        assert_eq!(fake.requests_to("/device_authorization").len(), 2, "{hostile:?}");
        one_line_per_event(&driver.stderr_text());
    }
}

/// "A device `user_code` longer than a small bound, or with characters
/// outside printable ASCII, ends the sign-in with `sign_in_failed`": a code
/// with a line feed or a carriage return that would write a forged
/// sign-in line, one of 100 KB, one with a letter beyond ASCII, and an
/// empty one. The log holds only the bridge's own lines, never the code.
#[test]
fn a_user_code_that_is_not_a_short_printable_text_ends_the_sign_in() {
    let forged =
        "EVIL-CODE\n[mcp-bridge-vscode] WARN sign-in: open https://evil.example/device and enter the code EVIL";
    let long = "A".repeat(100_000);
    let detail = "device authorization: the user code is not a short printable text";
    for code in [forged, "EVIL\rCODE https://evil.example", &long, "ÄBCD-EFGH", "", "ABCD\u{2028}EFGH"] {
        let dir = TempDir::new("gate-user-code");
        let fake = Fake::start(dir.path(), &["--device", "--no-verification-complete", "--user-code", code]);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
        send_initialize(&mut driver);
        assert_eq!(
            driver.response(&json!(INIT)),
            err(json!(INIT), bridge_error(-32603, &message("sign_in_failed"), "sign_in_failed", Some(detail))),
            "{:?}",
            &code[..code.len().min(40)]
        );
        driver.wait_stderr("the user code of the device sign-in is not a short printable text", 1);
        let stderr = driver.stderr_text();
        assert!(!stderr.contains(SIGN_IN_LINE) && !stderr.contains("EVIL"), "{stderr}");
        assert!(stderr.len() < 4096, "the log grew with the code: {} bytes", stderr.len());
        one_line_per_event(&stderr);
    }
}

/// "A floor for the device poll interval: an `interval` below 1 s counts
/// as 5 s (RFC 8628's default)": with `interval` 0 the polls come at least
/// 5 s apart, so a sign-in approved after the first poll took two polls
/// 5 s apart, not hundreds.
#[test]
fn an_interval_of_0_polls_every_5_s() {
    let dir = TempDir::new("gate-interval");
    let fake = Fake::start(dir.path(), &["--device", "--device-interval", "0"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
    send_initialize(&mut driver);
    let (url, _) = device_line(&mut driver);
    let grant = "urn:ietf:params:oauth:grant-type:device_code";
    let polls = || -> Vec<f64> {
        let requests = fake.requests_to("/token");
        requests.iter().filter(|r| r["grant_type"] == grant).filter_map(|r| r["t"].as_f64()).collect()
    };
    // Approved once the first poll came: the next one gets the tokens.
    let first = Instant::now() + Duration::from_secs(15);
    while polls().is_empty() {
        assert!(Instant::now() < first, "no poll in 15 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(get(&url).status, 200);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    let polls = polls();
    assert_eq!(polls.len(), 2, "the polls: {polls:?}");
    assert!(polls.windows(2).all(|w| w[1] - w[0] >= 4.9), "the polls: {polls:?}");
    assert!(driver.stderr_text().contains("the bridge waits 5 s"), "{}", driver.stderr_text());
}

/// "No redirects on OAuth requests (token, registration, device
/// authorization)": a 307 of each endpoint to the MCP server's origin is
/// not followed, so the body (the code, the verifier, the device code) is
/// never posted again there; the step fails with its own cause and the
/// 307 in the detail.
#[test]
fn a_post_of_the_sign_in_follows_no_redirect() {
    for (path, extra, expected_cause, detail) in [
        ("/register", vec![], "registration_failed", "HTTP status 307, no error code"),
        (
            "/device_authorization",
            vec!["--device"],
            "sign_in_failed",
            "device authorization: the request failed, HTTP status 307",
        ),
        ("/token", vec!["--device"], "sign_in_failed", "token request: the request failed, HTTP status 307"),
    ] {
        let dir = TempDir::new("gate-redirect");
        let mut options = vec!["--redirect-posts", path];
        options.extend(extra);
        let fake = Fake::start(dir.path(), &options);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
        send_initialize(&mut driver);
        if path == "/token" {
            let (url, _) = device_line(&mut driver);
            assert_eq!(get(&url).status, 200);
        }
        let response = driver.response(&json!(INIT));
        assert_eq!(response["error"]["data"], json!({"cause": expected_cause, "detail": detail}), "{path}: {response}");
        assert_eq!(fake.requests_to("/caught"), Vec::<Value>::new(), "{path}: the redirect was followed");
        assert_eq!(fake.requests_to(path).len(), 1, "{path}");
    }
}
