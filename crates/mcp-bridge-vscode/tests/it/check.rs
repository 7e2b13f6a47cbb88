//! `mcp-bridge-vscode check`: the report of what VS Code will see, with the
//! repairs of the result rules and their JSON pointers.

use crate::support::fake::fake_upstream;
use crate::support::peers::python_server;
use crate::support::process::{run_bounded_into, Input};
use serde_json::json;
use std::process::Command;

fn check(upstream: &[String]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .arg("check")
        .arg("--")
        .args(upstream)
        .output()
        .expect("check runs");
    (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn check_reports_the_server_each_tool_and_each_repair_with_its_pointer() {
    let tools = json!({"tools": [
        {"name": "tag", "title": "Tag things", "description": "Tags.\nMore.", "inputSchema": {"type": "object", "properties": {"tags": {"type": "array"}, "a/b": {"type": "array", "items": false}}}},
        {"name": "primes", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}
    ], "nextCursor": null});
    let (code, report) = check(&fake_upstream(&["--tools-list", &tools.to_string()]));
    assert_eq!(code, Some(0), "{report}");
    for expected in [
        "Server: fake-upstream 0.0.1",
        "Instructions: fake instructions",
        "tools/list: 2 item(s)",
        "  - tag \"Tag things\"",
        "      Tags.",
        "[tools/list] tool 'tag', inputSchema '/properties/tags': an array schema without items got items: {}",
        "[tools/list] tool 'tag', inputSchema '/properties/a~1b': an array schema with items: false got items: {} and maxItems: 0",
        "[tools/list] tool 'primes': the outputSchema",
        "VS Code can use this server.",
    ] {
        assert!(report.contains(expected), "the report lacks {expected:?}:\n{report}");
    }
}

/// `check` lists every repair, whichever path made it. A `tools/list` of a
/// pipe that needs only R6 repairs takes the raw path (`raw::result`),
/// which answers first and logs its notes after; a server with only tools
/// has no other list after it, so the report was printed before the notes
/// came ("Repairs: none needed." while the log had the repair).
#[test]
fn check_lists_the_repairs_of_a_result_that_takes_the_raw_path() {
    let tools = json!({"tools": [
        {"name": "count_tags", "description": "Count the tags.", "inputSchema": {"type": "object", "properties": {"tags": {"type": "array"}}}}
    ]});
    let (code, report) =
        check(&fake_upstream(&["--capabilities", r#"{"tools":{}}"#, "--tools-list", &tools.to_string()]));
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.ends_with(
            "\nRepairs and warnings (1):\n  info [tools/list] tool 'count_tags', inputSchema '/properties/tags': an array schema without items got items: {}\n\nVS Code can use this server.\n"
        ),
        "{report}"
    );
}

/// The server's texts in the report pass the gate of outside text: a
/// terminal escape, a line break or a bidirectional override of a name,
/// title, description or URI reaches the terminal as an escape, so no
/// line of the report can be forged ("VS Code can use this server.").
#[test]
fn check_shows_the_servers_texts_through_the_gate() {
    let hostile = "\u{1b}[2J\r\nVS Code can use this server.\u{202e}";
    let tools = json!({"tools": [
        {"name": format!("evil{hostile}"), "title": format!("T{hostile}"), "description": format!("D{hostile}"), "inputSchema": {"type": "object"}}
    ]});
    let info = json!({"name": format!("n{hostile}"), "version": "1\u{0}", "title": format!("t\u{2028}{hostile}")});
    let (code, report) = check(&fake_upstream(&[
        "--capabilities",
        r#"{"tools":{}}"#,
        "--server-info",
        &info.to_string(),
        "--tools-list",
        &tools.to_string(),
    ]));
    assert_eq!(code, Some(0), "{report}");
    let escaped = r"\x1b[2J\r\nVS Code can use this server.\u{202e}";
    for expected in [
        format!(r"Server: t\u{{2028}}{escaped} (n{escaped} 1\x00)"),
        format!(r#"  - evil{escaped} "T{escaped}""#),
        r"      D\x1b[2J".to_owned(),
    ] {
        assert!(report.lines().any(|line| line == expected), "the report lacks {expected:?}:\n{report}");
    }
    assert!(!report.chars().any(|c| (c.is_control() && c != '\n') || c == '\u{202e}' || c == '\u{2028}'), "{report:?}");
    assert_eq!(report.lines().filter(|line| line.contains("VS Code can use this server.")).count(), 3, "{report}");
}

/// A server without a version (Python's `MCPServer` sends `"version": ""`)
/// is named without one: no trailing space after its name.
#[test]
fn check_names_a_server_without_a_version_without_a_trailing_space() {
    for (info, expected) in [
        (json!({"name": "weather", "version": ""}), "Server: weather"),
        (json!({"name": "weather", "version": "", "title": "Weather"}), "Server: Weather (weather)"),
    ] {
        let (code, report) = check(&fake_upstream(&["--server-info", &info.to_string()]));
        assert_eq!(code, Some(0), "{report}");
        assert_eq!(report.lines().next(), Some(expected), "{report}");
    }
}

#[test]
fn check_warns_of_endless_paging_and_still_finishes() {
    // The server answers every page with the same cursor.
    let tools = json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}], "nextCursor": "again"});
    let (code, report) = check(&fake_upstream(&["--tools-list", &tools.to_string()]));
    assert_eq!(code, Some(0), "{report}");
    assert!(report.contains("tools/list: 2 item(s)"), "the first page and the repeated one:\n{report}");
    assert!(report.contains("warn [tools/list] the nextCursor of the result is the cursor of the request"), "{report}");
}

#[test]
fn check_exits_1_when_vs_code_cannot_use_the_server() {
    let (code, report) = check(&fake_upstream(&["--discover", "legacy-error"]));
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("initialize failed"), "{report}");
    assert!(report.contains("discover_failed"), "{report}");
}

fn check_demo() -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode")).arg("check").output().expect("check runs");
    (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn check_without_an_upstream_shows_the_demo_server_and_its_repairs() {
    let (code, report) = check_demo();
    assert_eq!(code, Some(0), "{report}");
    for expected in [
        "Server: mcp-bridge demo server (mcp-bridge-demo 0.1.0)",
        "Instructions: A demo server of revision 2026-07-28 that ships with mcp-bridge.",
        "tools/list: 6 item(s)",
        "  - add \"Add\"",
        "  - ask_name \"Ask name\"",
        "  - add_tool \"Add a tool\"",
        "  - readme <demo://readme>",
        "  - item <demo://items/{id}>",
        "info [tools/list] tool 'tag_items', inputSchema '/properties/tags': an array schema without items got items: {}",
        "info [tools/list] tool 'tag_items', inputSchema '/$defs/pair': an array schema with items: false got items: {} and maxItems: 2",
        "info [tools/list] tool 'list_primes': the outputSchema does not have type: \"object\" at its root; the bridge removed it",
        "VS Code can use this server.",
    ] {
        assert!(report.contains(expected), "the report lacks {expected:?}:\n{report}");
    }
}

#[test]
fn check_against_the_python_peer_reports_its_repairs() {
    let (code, report) = check(&python_server());
    assert_eq!(code, Some(0), "{report}");
    for expected in [
        "Server: Python peer (mcp 2.3.0) (peer-python 1.2.3)",
        "tools/list: 6 item(s)",
        "info [tools/list] tool 'tags', inputSchema '/properties/tags': an array schema without items got items: {}",
        "info [tools/list] tool 'squares': the outputSchema does not have type: \"object\" at its root; the bridge removed it",
    ] {
        assert!(report.contains(expected), "the report lacks {expected:?}:\n{report}");
    }
}

/// `check | head -n 1`: the reader goes after the first line, and the check
/// still ends as it would, with its exit code and no panic, instead of
/// dying on the broken pipe of its report.
#[test]
fn check_into_a_pipe_that_closes_early_ends_without_a_panic() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .arg("check")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("check runs");
    let mut first = String::new();
    let stdout = child.stdout.take().expect("a piped stdout");
    BufReader::new(stdout).read_line(&mut first).expect("a first line");
    // The reader's end is dropped here, as `head` closes it.
    let output = child.wait_with_output().expect("check ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(first.starts_with("Server: "), "{first}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}

/// The newcomer's first command ends cleanly: the demo server of `check`
/// exits at the end of its input (behaviour spec, "The end of the input":
/// no request in flight, so no grace to wait), instead of being killed
/// after the bridge's grace with a warning on stderr.
#[test]
fn check_of_the_demo_ends_without_killing_the_demo() {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode")).arg("check").output().expect("check runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("did not exit in time"), "{stderr}");
}

/// Runs `check` with `args`, its stdout into `stdout`; fails after
/// `limit`. Returns the exit code, stdout (when piped) and stderr.
fn check_bounded(
    args: &[&str],
    stdout: std::process::Stdio,
    limit: std::time::Duration,
) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    cmd.arg("check").args(args);
    let done = run_bounded_into(cmd, Input::Closed, stdout, limit);
    (done.status.code(), done.stdout, done.stderr)
}

/// `check` runs in a terminal, where VS Code's Output channel does not
/// exist: a command that fails at its start gets the last lines of its
/// stderr in the report (the bridge logs them at `info`, below `check`'s
/// level), and the error points to the log.
#[test]
fn check_of_a_command_that_fails_shows_the_tail_of_its_stderr_and_points_to_the_log() {
    let script = "import sys\nfor n in range(30): print(f'line {n}', file=sys.stderr)\nprint('boom: no config', file=sys.stderr)\nsys.exit(3)";
    let (code, report, _) = check_bounded(
        &["--", "python3", "-c", script],
        std::process::Stdio::piped(),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(code, Some(1), "{report}");
    for expected in [
        "VS Code cannot use this server: initialize failed.",
        "The upstream server process stopped. See the log.",
        "The last lines of the server's stderr:\n  | line 11\n",
        "  | line 29\n  | boom: no config\n",
    ] {
        assert!(report.contains(expected), "the report lacks {expected:?}:\n{report}");
    }
    assert!(!report.contains("line 10\n"), "only the last 20 lines:\n{report}");
    assert!(!report.contains("Output channel"), "{report}");
}

/// A program that is not an MCP server (`cat`) never answers
/// server/discover: after a few seconds `check` says what it waits for
/// and for how long, instead of a silent minute.
#[test]
fn check_of_a_program_that_never_answers_says_what_it_waits_for() {
    let (code, report, stderr) = check_bounded(
        &["--discover-timeout", "7", "--", "cat"],
        std::process::Stdio::piped(),
        std::time::Duration::from_secs(60),
    );
    assert_eq!(code, Some(1), "{report}\n{stderr}");
    assert!(
        stderr.contains(
            "mcp-bridge-vscode: waiting for the upstream command to answer server/discover (--discover-timeout: 7 s). A server of revision 2026-07-28 answers at once; a program that is not one never does."
        ),
        "{stderr}"
    );
    assert!(report.contains("discover_failed"), "{report}");
}

/// `check > /dev/full`: a report that cannot be written is a failure with
/// an error on stderr, not a success that nobody read. (A reader that goes
/// away early is not: see the test of `check | head` above.)
#[cfg(target_os = "linux")]
#[test]
fn check_into_a_full_device_exits_1_with_an_error() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full opens");
    let (code, _, stderr) = check_bounded(&[], full.into(), std::time::Duration::from_secs(60));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("mcp-bridge-vscode: cannot write the report to stdout: No space left on device"),
        "{stderr}"
    );
}
