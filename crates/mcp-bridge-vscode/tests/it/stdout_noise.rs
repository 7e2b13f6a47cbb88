//! A stdio server that writes to stdout what is no JSON-RPC message (a
//! banner, a log line): the rules of the line stay those of "Lines that
//! are not valid" (the client gets nothing of it), and the warning quotes
//! the line and says where such text goes; `check` says so as soon as such
//! a line comes, instead of after the discover limit, and only in its
//! report (the bridge's own run logs it: the Output channel is where it
//! shows).

use crate::support::driver::Driver;
use crate::support::fake::fake_upstream;
use crate::support::process::{run_bounded, Finished, Input};
use std::process::Command;
use std::time::{Duration, Instant};

const BANNER: &str = "Starting my server v1.0 ...";

/// The warning of the log for a line, after the tag and the level.
fn warning(quote: &str, cause: &str) -> String {
    format!(
        "WARN the upstream server wrote a line to stdout that is not a JSON-RPC message: \"{quote}\"; a stdio server must write only JSON-RPC messages to stdout; logs go to stderr cause=\"{cause}\" request=false\n"
    )
}

/// How often the output of `check` says that the server wrote a line that
/// is no JSON-RPC message: the report says it once, and the log not again.
fn said(done: &Finished) -> usize {
    let what = "wrote a line to stdout that is not a JSON-RPC message";
    done.stdout.matches(what).count() + done.stderr.matches(what).count()
}

/// `sh -c` that writes `lines` on stdout, then runs `then`.
fn after_lines(lines: &[&str], then: &str) -> Vec<String> {
    let mut script: String = lines.iter().map(|l| format!("printf '%s\\n' '{l}'; ")).collect();
    script.push_str(then);
    vec!["sh".into(), "-c".into(), script]
}

/// The bridge drops the lines (the client gets the initialize result and
/// nothing else) and logs each with its start quoted, escaped and bounded.
#[test]
fn the_bridge_quotes_a_line_that_is_no_json_rpc_message_and_says_where_logs_go() {
    let fake = fake_upstream(&[]).join(" ");
    let control = "tab\there";
    let upstream = after_lines(&[BANNER, r#"{"level":"info"}"#, control], &format!("exec {fake}"));
    let mut bridge = Driver::start(&[], &upstream);
    bridge.initialize();
    bridge.expect_silence(Duration::from_millis(300));
    for expected in [
        warning(BANNER, "parse_error"),
        warning(r#"{"level":"info"}"#, "invalid_request_shape"),
        warning("tab\\there", "parse_error"),
    ] {
        bridge.wait_stderr(&format!("[mcp-bridge-vscode] {expected}"), 1);
    }
}

/// A server that writes a banner and then never answers: `check` stops 5 s
/// after the line, not after the discover limit of 60 s, and names it once.
#[test]
fn check_stops_soon_after_a_banner_that_no_answer_follows_and_names_the_line() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    cmd.arg("check").args(after_lines(&[BANNER], "exec sleep 120"));
    let start = Instant::now();
    let done = run_bounded(cmd, Input::Closed, Duration::from_secs(40));
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
    assert_eq!(done.status.code(), Some(1), "{}\n{}", done.stdout, done.stderr);
    assert_eq!(
        done.stdout,
        format!(
            "VS Code cannot use this server: the upstream server wrote a line to stdout that is not a JSON-RPC message: \"{BANNER}\"; a stdio server must write only JSON-RPC messages to stdout; logs go to stderr\n  No answer came in 5 s after that line, so check stopped waiting.\n\nThe server wrote nothing to stderr.\n"
        )
    );
    assert_eq!(said(&done), 1, "{}\n{}", done.stdout, done.stderr);
}

/// A server that writes a banner and then serves: `check` reports it
/// usable, with the lines the bridge dropped, and its log does not repeat
/// them.
#[test]
fn check_of_a_server_that_serves_after_its_banner_reports_the_dropped_lines() {
    let fake = fake_upstream(&["--capabilities", "{}"]).join(" ");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    cmd.arg("check").args(after_lines(&[BANNER, "Ready."], &format!("exec {fake}")));
    let done = run_bounded(cmd, Input::Closed, Duration::from_secs(60));
    assert_eq!(done.status.code(), Some(0), "{}\n{}", done.stdout, done.stderr);
    assert!(
        done.stdout.ends_with(&format!(
            "\nRepairs: none needed.\n\nThe server wrote 2 line(s) to stdout that the bridge dropped. The first:\n  the upstream server wrote a line to stdout that is not a JSON-RPC message: \"{BANNER}\"; a stdio server must write only JSON-RPC messages to stdout; logs go to stderr\n\nVS Code can use this server.\n"
        )),
        "{}",
        done.stdout
    );
    assert_eq!(said(&done), 1, "{}\n{}", done.stdout, done.stderr);
}
