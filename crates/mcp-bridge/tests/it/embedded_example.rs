//! The crate's example, `examples/embedded.rs`, as a newcomer runs it by
//! hand (issue 38, row 8): it says on stderr what it is and how to talk to
//! it, and the README's pipe shows the repair of its legacy path. `cargo
//! test` and nextest build the examples beside the tests, so the binary is
//! in `examples/` next to this test's `deps/`.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The first line on stderr, and the only one.
const HELLO: &str = "embedded-example: an MCP server on stdin and stdout for clients of 2025-11-25 (VS Code) and 2026-07-28; it reads one JSON-RPC message per line, an initialize first, or run it under a client: mcp-bridge-vscode check -- cargo run -q -p mcp-bridge --features embed --example embedded\n";

fn example() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let target = exe.parent().and_then(|deps| deps.parent()).expect("the test runs from target/<profile>/deps");
    let example = target.join("examples").join(format!("embedded{}", std::env::consts::EXE_SUFFIX));
    assert!(
        example.is_file(),
        "{} is missing: cargo test builds it (cargo build -p mcp-bridge --features embed --example embedded)",
        example.display()
    );
    example
}

/// Run with its input at its end, it says what it is, once, and exits 0.
#[test]
fn the_example_says_on_stderr_what_it_is_and_how_to_talk_to_it() {
    let output = Command::new(example()).stdin(Stdio::null()).output().expect("the example runs");
    assert_eq!(
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).as_ref(),
            String::from_utf8_lossy(&output.stderr).as_ref()
        ),
        (Some(0), "", HELLO)
    );
}

/// The README's pipe: initialize as VS Code, then the tool list, whose
/// array schema without `items` the legacy path repairs.
#[test]
fn the_readme_pipe_shows_the_repair_of_the_legacy_path() {
    let mut child = Command::new(example())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example runs");
    let mut stdin = child.stdin.take().expect("a piped stdin");
    let stdout = child.stdout.take().expect("a piped stdout");
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || -> Value {
        let line = lines.recv_timeout(Duration::from_secs(30)).expect("an answer in 30 s");
        serde_json::from_str(&line).expect("a JSON line")
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "me", "version": "1"}}});
    writeln!(stdin, "{initialize}").expect("a line");
    assert_eq!(next()["result"]["serverInfo"]["name"], "embedded-example");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).expect("a line");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).expect("a line");
    assert_eq!(
        next(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "count_tags", "description": "Count the tags.",
            "inputSchema": {"type": "object", "properties": {"tags": {"type": "array", "items": {}}}}}]}})
    );
    drop(stdin);
    assert_eq!(child.wait().expect("the example ends").code(), Some(0));
}
