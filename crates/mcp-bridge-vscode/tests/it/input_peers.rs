//! Input requests with real peers: the TypeScript SDK 1.32.2 client, whose
//! handlers answer elicitation, sampling and roots, drives the bridge to a
//! Python `mcp==2.3.0` server (`Resolve` with `Elicit`, `Sample`,
//! `ListRoots`) and to a `@modelcontextprotocol/server@2.4.0` server
//! (`inputRequired.elicit`).

use crate::support::repo_root;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

fn peers() -> PathBuf {
    let dir =
        std::env::var_os("MCP_BRIDGE_PEERS").map(PathBuf::from).unwrap_or_else(|| repo_root().join(".cache/peers"));
    assert!(
        dir.join("py/bin/python").exists(),
        "the test peers are missing in {}: run scripts/install-peers",
        dir.display()
    );
    dir
}

fn python_server() -> Vec<String> {
    vec![
        peers().join("py/bin/python").display().to_string(),
        repo_root().join("tests/peers/python/input_server.py").display().to_string(),
    ]
}

fn ts_v2_server() -> Vec<String> {
    vec!["node".into(), repo_root().join("tests/peers/node/input-server-v2.mjs").display().to_string()]
}

fn client(scenario: &str, upstream: &[String]) -> Value {
    let output = Command::new("node")
        .arg(repo_root().join("tests/peers/node/client-input.mjs"))
        .arg(scenario)
        .arg(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .arg("--")
        .args(upstream)
        .output()
        .expect("node runs the client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the client failed: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("the client printed no JSON ({e}): {stdout}"))
}

fn text(result: &Value) -> &str {
    result["ok"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {result}"))
}

#[test]
fn a_python_form_sampling_and_roots_reach_the_typescript_handlers() {
    let out = client("all", &python_server());
    assert_eq!(text(&out["register"]), "registered Ada", "{out}");
    assert_eq!(text(&out["summarize"]), "model said: hi from the model", "{out}");
    // Only the file:// roots reach the server.
    assert_eq!(text(&out["roots"]), "file:///work/project", "{out}");
    assert_eq!(
        out["received"],
        json!([
            {"method": "elicitation/create", "params": {"mode": "form", "message": "What is your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}}},
            {"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}], "maxTokens": 20}},
            {"method": "roots/list"}
        ])
    );
}

#[test]
fn a_python_form_declined_or_canceled_reaches_the_server_as_such() {
    assert_eq!(text(&client("decline", &python_server())["register"]), "declined");
    assert_eq!(text(&client("cancel", &python_server())["register"]), "cancelled");
}

#[test]
fn a_typescript_v2_form_accepted_declined_and_canceled() {
    for (scenario, expected) in [("accept", "registered Ada"), ("decline", "declined"), ("cancel", "cancelled")] {
        let out = client(scenario, &ts_v2_server());
        assert_eq!(text(&out["register"]), expected, "{out}");
        assert_eq!(out["received"][0]["method"], "elicitation/create");
        assert_eq!(out["received"][0]["params"]["message"], "What is your name?");
    }
}
