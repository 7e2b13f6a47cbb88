//! The embedded bridge with real clients (issue 14, behaviour spec "The
//! embedded bridge (M5)"): the same demo binary (`mcp-bridge-vscode
//! demo-server`, no bridge in front) serves the TypeScript SDK 1.32.2
//! client on the legacy path, with the bridge's rules, and the Python
//! `mcp==2.3.0` client in 2026-07-28 mode on the modern path, rmcp's own
//! server, with none of them.

mod common;
mod harness;

use common::{assert_json, node, peers, run_bounded, step, DRIVER_LIMIT};
use harness::repo_root;
use serde_json::{json, Value};
use std::process::Command;

fn demo() -> [String; 2] {
    [env!("CARGO_BIN_EXE_mcp-bridge-vscode").to_string(), "demo-server".to_string()]
}

/// Runs a driver to its end and returns its JSON document.
fn run(mut cmd: Command, name: &str) -> Value {
    cmd.current_dir(repo_root().join("tests/peers"));
    let done = run_bounded(cmd, DRIVER_LIMIT);
    assert!(done.status.success(), "{name} failed, {}:\n{}\nstderr:\n{}", done.status, done.stdout, done.stderr);
    serde_json::from_str(done.stdout.trim())
        .unwrap_or_else(|e| panic!("{name} printed no JSON ({e}):\n{}\nstderr:\n{}", done.stdout, done.stderr))
}

fn legacy_doc() -> Value {
    peers();
    let mut cmd = Command::new(node());
    cmd.arg(repo_root().join("tests/peers/node/client-embed.mjs")).args(demo());
    run(cmd, "client-embed.mjs")
}

fn modern_doc() -> Value {
    let mut cmd = Command::new(peers().join("py/bin/python"));
    cmd.arg(repo_root().join("tests/peers/python/embed_client.py")).arg("--").args(demo());
    run(cmd, "embed_client.py")
}

#[track_caller]
fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    let tools = list["tools"].as_array().unwrap_or_else(|| panic!("no tools in {list:#}"));
    tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no tool {name} in {list:#}"))
}

fn names(list: &Value) -> Vec<&str> {
    list["tools"].as_array().map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect()).unwrap_or_default()
}

/// The form of `ask_name`, as each client's handler received it.
fn name_form() -> Value {
    json!({"mode": "form", "message": "What is your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}})
}

#[test]
fn the_ts_client_on_the_legacy_path_gets_every_rule_of_the_bridge() {
    let doc = legacy_doc();
    assert_eq!(doc["serverInfo"]["name"], "mcp-bridge-demo", "{doc:#}");
    let list = step(&doc, "tools/list");
    // R6: each array schema gets an items schema.
    let tags = &tool(list, "tag_items")["inputSchema"]["properties"]["tags"];
    assert_json(
        "R6 on tag_items.tags",
        tags,
        &json!({"type": "array", "description": "Tags, without an items schema", "items": {}}),
    );
    // An outputSchema whose root is not an object is removed.
    assert_eq!(tool(list, "list_primes").get("outputSchema"), None, "{list:#}");
    assert_eq!(list.get("ttlMs"), None, "the 2026-07-28 members are removed: {list:#}");
    // The text mirror of a structured result.
    assert_json(
        "add",
        step(&doc, "add"),
        &json!({"content": [{"type": "text", "text": "{\"sum\":5.0}"}], "structuredContent": {"sum": 5}, "isError": false}),
    );
    // The input request became elicitation/create, answered by the client.
    assert_json("the elicitations", &doc["asked"], &json!([name_form()]));
    assert_json(
        "ask_name",
        step(&doc, "ask_name"),
        &json!({"content": [{"type": "text", "text": "Hello, Ada!"}], "isError": false}),
    );
    assert_json(
        "progress",
        &doc["progress"],
        &json!([{"progress": 1, "total": 2, "message": "step 1 of 2"}, {"progress": 2, "total": 2, "message": "step 2 of 2"}]),
    );
    assert_eq!(step(&doc, "slow_count")["content"], json!([{"type": "text", "text": "counted to 2"}]));
    // The SDK gives up the cancelled call itself; the server keeps serving.
    assert_eq!(step(&doc, "cancelled")["error"]["code"], -32001, "{doc:#}");
    assert_json("ping after the cancel", step(&doc, "ping after the cancel"), &json!({}));
    // Live updates: the list change of add_tool reaches the client before its result.
    assert_json("order", &doc["order"], &json!(["notifications/tools/list_changed", "result add_tool"]));
    assert!(names(step(&doc, "tools/list after add_tool")).contains(&"extra"), "{doc:#}");
    assert!(!names(list).contains(&"extra"), "{list:#}");
}

#[test]
fn the_python_client_on_the_modern_path_gets_rmcp_unrepaired() {
    let doc = modern_doc();
    assert_eq!(doc["protocolVersion"], "2026-07-28", "{doc:#}");
    let list = step(&doc, "tools/list");
    // No rule of the bridge on this path: the schemas stay as the server wrote them.
    let tags = &tool(list, "tag_items")["inputSchema"]["properties"]["tags"];
    assert_json(
        "tag_items.tags as written",
        tags,
        &json!({"type": "array", "description": "Tags, without an items schema"}),
    );
    assert_eq!(tool(list, "list_primes")["outputSchema"]["type"], "array", "{list:#}");
    assert_json(
        "add",
        step(&doc, "add"),
        &json!({"content": [], "structuredContent": {"sum": 5.0}, "isError": false, "resultType": "complete"}),
    );
    assert_json("the input requests", &doc["asked"], &json!([name_form()]));
    assert_json(
        "ask_name",
        step(&doc, "ask_name"),
        &json!({"content": [{"type": "text", "text": "Hello, Ada!"}], "isError": false, "resultType": "complete"}),
    );
    assert_json("progress", &doc["progress"], &json!([[1.0, 2.0, "step 1 of 2"], [2.0, 2.0, "step 2 of 2"]]));
    assert_eq!(doc["cancelled"], true, "{doc:#}");
    assert_eq!(step(&doc, "add after the cancel")["structuredContent"], json!({"sum": 2.0}), "{doc:#}");
    assert_json("order", &doc["order"], &json!(["event ToolsListChanged", "result add_tool"]));
    assert!(names(step(&doc, "tools/list after add_tool")).contains(&"extra"), "{doc:#}");
}
