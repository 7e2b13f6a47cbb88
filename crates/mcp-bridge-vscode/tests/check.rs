//! `mcp-bridge-vscode check`: the report of what VS Code will see, with the
//! repairs of the result rules and their JSON pointers.

mod harness;

use harness::fake_upstream;
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
