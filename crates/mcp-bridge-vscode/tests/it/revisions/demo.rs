//! The bundled demo server (`mcp-bridge-vscode demo-server`, 2026-07-28)
//! for a client of each revision, two ways: through the bridge in front of
//! it (`mcp-bridge-vscode -- mcp-bridge-vscode demo-server`) and served
//! directly, where the library's embedded mode answers the older client
//! (its legacy path). Each session initializes, lists the tools, calls
//! every tool of the demo (`add`, `tag_items`, `list_primes`,
//! `slow_count`, `ask_name`, `add_tool`, then `extra`), and uses the
//! prompts, the resources and the completions the demo offers. Every line
//! the client gets is checked against its revision's schema
//! (`client::Client`).

use super::client::Client;
use crate::support::driver::Driver;
use crate::support::{assert_json, bridge_error, message};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::process::Command;

#[derive(Clone, Copy, Debug)]
enum Via {
    /// `mcp-bridge-vscode -- mcp-bridge-vscode demo-server`.
    Bridge,
    /// `mcp-bridge-vscode demo-server`.
    Embedded,
}

const INSTRUCTIONS: &str = "A demo server of revision 2026-07-28 that ships with mcp-bridge. \
    Try `add`, `list_primes`, `slow_count`, `ask_name` and `add_tool`; `tag_items` shows the schema repairs.";

const TOOLS: [&str; 6] = ["add", "tag_items", "list_primes", "slow_count", "ask_name", "add_tool"];

/// One session: the response of each request by its id, and the client.
struct Session {
    responses: BTreeMap<i64, Value>,
    client: Client,
    /// The questions the client got.
    questions: Vec<Value>,
}

fn start(via: Via, revision: &'static str) -> (Client, Value) {
    let exe = env!("CARGO_BIN_EXE_mcp-bridge-vscode");
    let mut command = Command::new(exe);
    match via {
        Via::Bridge => command.args(["--", exe, "demo-server"]),
        Via::Embedded => command.arg("demo-server"),
    };
    Client::start(Driver::spawn(command), revision)
}

/// Every request of the session, in order: its id, method and params.
fn requests(completions: bool) -> Vec<(i64, &'static str, Value)> {
    let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    let mut requests = vec![
        (1, "tools/list", json!({})),
        (2, "tools/call", call("add", json!({"a": 2, "b": 3}))),
        (3, "tools/call", call("tag_items", json!({"tags": ["a", "b"]}))),
        (4, "tools/call", call("list_primes", json!({"limit": 10}))),
        (
            5,
            "tools/call",
            json!({"name": "slow_count", "arguments": {"steps": 2, "delay_ms": 1}, "_meta": {"progressToken": "count"}}),
        ),
        (6, "tools/call", call("ask_name", json!({}))),
        (7, "tools/call", call("add_tool", json!({}))),
        (8, "tools/list", json!({})),
        (9, "tools/call", call("extra", json!({}))),
        (10, "prompts/list", json!({})),
        (11, "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})),
        (12, "resources/list", json!({})),
        (13, "resources/templates/list", json!({})),
        (14, "resources/read", json!({"uri": "demo://items/2"})),
        (15, "resources/read", json!({"uri": "demo://readme"})),
    ];
    if completions {
        let complete =
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"}});
        requests.push((16, "completion/complete", complete));
    }
    requests
}

/// A session of a client of `revision` with the demo; the form of
/// `ask_name` is answered with the name Ada.
fn session(via: Via, revision: &'static str) -> Session {
    let (mut client, init) = start(via, revision);
    // The demo declares tools.listChanged: the first listen stream's
    // acknowledgment gives the change of the gap ("Events after a gap").
    assert_eq!(client.next(), list_changed(), "{via:?} {revision}");
    let completions = init["result"]["capabilities"].get("completions").is_some();
    let mut responses = BTreeMap::from([(0, init)]);
    let mut questions = Vec::new();
    for (id, method, params) in requests(completions) {
        let response = client.request(id, method, params, &mut |question| {
            questions.push(question.clone());
            json!({"action": "accept", "content": {"name": "Ada"}})
        });
        responses.insert(id, response);
    }
    Session { responses, client, questions }
}

fn list_changed() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}})
}

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

/// The result of each request that does not depend on the revision.
fn same_in_every_revision() -> BTreeMap<i64, Value> {
    BTreeMap::from([
        (3, text("tagged with [\"a\",\"b\"]")),
        (5, text("counted to 2")),
        (7, text("added the tool extra")),
        (9, text("the extra tool ran")),
        (
            11,
            json!({"description": "Greet Ada", "messages": [
                {"role": "user", "content": {"type": "text", "text": "Say hello to Ada, in one friendly sentence."}}]}),
        ),
        (
            13,
            json!({"resourceTemplates": [{"uriTemplate": "demo://items/{id}", "name": "item",
                "description": "One item by its id (the id completes)", "mimeType": "text/plain"}]}),
        ),
        (14, json!({"contents": [{"uri": "demo://items/2", "mimeType": "text/plain", "text": "The second item."}]})),
    ])
}

/// Whether `revision` has what `since` added.
fn has(revision: &str, since: &str) -> bool {
    revision >= since
}

/// The initialize result: `completions` from 2025-03-26, the `title` of
/// the server information from 2025-06-18.
fn initialized(revision: &str) -> Value {
    let mut capabilities = json!({"tools": {"listChanged": true}, "prompts": {}, "resources": {}});
    if has(revision, "2025-03-26") {
        capabilities["completions"] = json!({});
    }
    let mut info = json!({"name": "mcp-bridge-demo", "version": env!("CARGO_PKG_VERSION")});
    if has(revision, "2025-06-18") {
        info["title"] = json!("mcp-bridge demo server");
    }
    json!({"protocolVersion": revision, "capabilities": capabilities, "serverInfo": info, "instructions": INSTRUCTIONS})
}

/// The members of each tool in the list: `annotations` from 2025-03-26,
/// `title` and `outputSchema` from 2025-06-18 (and no `outputSchema`
/// whose root is not an object, in any revision).
fn members(revision: &str, tool: &str) -> Vec<&'static str> {
    let mut members = vec!["name"];
    if has(revision, "2025-06-18") {
        members.push("title");
    }
    members.extend(["description", "inputSchema"]);
    if tool == "add" && has(revision, "2025-06-18") {
        members.push("outputSchema");
    }
    if has(revision, "2025-03-26") && ["add", "tag_items", "list_primes", "slow_count"].contains(&tool) {
        members.push("annotations");
    }
    members
}

/// The list of tools in `revision`: the names in order, the members of
/// each, the whole `add`, and the `tag_items` schema that R6 repaired.
#[track_caller]
fn check_tools(revision: &str, list: &Value, names: &[&str]) {
    let tools = list["result"]["tools"].as_array().cloned().unwrap_or_default();
    let got: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(got, names, "{revision}");
    for tool in &tools {
        let name = tool["name"].as_str().unwrap_or_default();
        let mut keys: Vec<&str> = tool.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
        let mut want = members(revision, name);
        keys.sort_unstable();
        want.sort_unstable();
        assert_eq!(keys, want, "{revision}: {tool}");
    }
    let mut add = json!({"name": "add", "description": "Add two numbers; the result is structured ({\"sum\": ...}).",
        "inputSchema": {"type": "object", "properties": {
            "a": {"type": "number", "description": "The first number"},
            "b": {"type": "number", "description": "The second number"}}, "required": ["a", "b"]}});
    if has(revision, "2025-03-26") {
        add["annotations"] = json!({"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false});
    }
    if has(revision, "2025-06-18") {
        add["title"] = json!("Add");
        add["outputSchema"] = json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
    }
    assert_json(&format!("{revision}: add"), &tools[0], &add);
    let tags = json!({"type": "object", "properties": {
        "tags": {"type": "array", "description": "Tags, without an items schema", "items": {}},
        "labels": {"description": "Labels: a list (without an items schema) or one string", "anyOf": [{"type": "array", "items": {}}, {"type": "string"}]},
        "pair": {"$ref": "#/$defs/pair"}},
        "$defs": {"pair": {"type": "array", "description": "A name and a weight, and nothing after them",
            "prefixItems": [{"type": "string"}, {"type": "number"}], "items": {}, "maxItems": 2}}});
    assert_json(&format!("{revision}: tag_items"), &tools[1]["inputSchema"], &tags);
}

/// Every value of the session that matters, for `revision`.
#[track_caller]
fn check_session(via: Via, revision: &str, session: &Session) {
    let label = |what: &str| format!("{via:?} {revision}: {what}");
    let result = |id: i64| session.responses[&id]["result"].clone();
    assert_json(&label("initialize"), &result(0), &initialized(revision));
    check_tools(revision, &session.responses[&1], &TOOLS);
    let mut extended = TOOLS.to_vec();
    extended.push("extra");
    check_tools(revision, &session.responses[&8], &extended);
    for (id, want) in same_in_every_revision() {
        assert_json(&label(&format!("the response to {id}")), &result(id), &want);
    }
    // add: {"sum":5} in the text mirror, and as structuredContent from
    // 2025-06-18.
    let mut sum = text("{\"sum\":5}");
    if has(revision, "2025-06-18") {
        sum["structuredContent"] = json!({"sum": 5});
    }
    assert_json(&label("add"), &result(2), &sum);
    // list_primes: the text carries the array; an array is no
    // structuredContent before 2025-11-25 (2025-06-18 takes only an
    // object); the spec keeps it for 2025-11-25 ("structuredContent").
    let mut primes = text("[2,3,5,7]");
    if revision == "2025-11-25" {
        primes["structuredContent"] = json!([2, 3, 5, 7]);
    }
    assert_json(&label("list_primes"), &result(4), &primes);
    // slow_count: its progress, without `message` before 2025-03-26.
    let progress: Vec<Value> = session
        .client
        .got
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"].clone())
        .collect();
    let step = |n: f64| {
        let mut params = json!({"progressToken": "count", "progress": n, "total": 2.0});
        if has(revision, "2025-03-26") {
            params["message"] = json!(format!("step {n} of 2"));
        }
        params
    };
    assert_json(&label("progress"), &Value::from(progress), &json!([step(1.0), step(2.0)]));
    check_ask_name(revision, session, &label("ask_name"));
    // prompts and resources.
    let mut greet = json!({"name": "greet", "description": "Greet someone by name",
        "arguments": [{"name": "name", "description": "Who to greet (completes)", "required": true}]});
    if has(revision, "2025-06-18") {
        greet["title"] = json!("Greet");
    }
    assert_json(&label("prompts/list"), &result(10), &json!({"prompts": [greet]}));
    let readme = result(15)["contents"][0].clone();
    let readme_text = readme["text"].as_str().unwrap_or_default();
    assert!(readme_text.starts_with("mcp-bridge demo server\n"), "{readme}");
    assert_json(
        &label("resources/read readme"),
        &readme,
        &json!({"uri": "demo://readme", "mimeType": "text/plain", "text": readme_text}),
    );
    let resources = json!({"resources": [{"uri": "demo://readme", "name": "readme",
        "description": "What this demo server is for", "mimeType": "text/plain", "size": readme_text.len()}]});
    assert_json(&label("resources/list"), &result(12), &resources);
    if has(revision, "2025-03-26") {
        let completion = json!({"completion": {"values": ["Ada", "Alan"], "total": 2, "hasMore": false}});
        assert_json(&label("completion/complete"), &result(16), &completion);
    } else {
        assert!(!session.responses.contains_key(&16), "{revision}: no completions were offered");
    }
}

/// `ask_name`: the form in the revision's terms (no `mode` before
/// 2025-11-25) and the greeting with the answer; before 2025-06-18 the
/// client cannot declare elicitation, so the form is undeclared
/// (`undeclared_input_request`, -32603) and the client gets no question.
#[track_caller]
fn check_ask_name(revision: &str, session: &Session, label: &str) {
    let response = &session.responses[&6];
    if !has(revision, "2025-06-18") {
        assert!(session.questions.is_empty(), "{label}: {:?}", session.questions);
        let detail = "input request 'name': the client did not declare elicitation.form";
        let error =
            bridge_error(-32603, &message("undeclared_input_request"), "undeclared_input_request", Some(detail));
        assert_json(label, response, &json!({"jsonrpc": "2.0", "id": 6, "error": error}));
        return;
    }
    let mut params = json!({"message": "What is your name?", "requestedSchema": {"type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}});
    if revision == "2025-11-25" {
        params = json!({"mode": "form", "message": params["message"], "requestedSchema": params["requestedSchema"]});
    }
    let asked: Vec<Value> = session.questions.iter().map(|q| json!([q["method"], q["params"]])).collect();
    assert_json(label, &Value::from(asked), &json!([["elicitation/create", params]]));
    assert_json(label, &response["result"], &text("Hello, Ada!"));
}

/// The order of the session's lines: the progress of `slow_count` before
/// its response, and the list change of `add_tool` before its response
/// ("the change is announced ... before the result").
#[track_caller]
fn check_order(via: Via, revision: &str, session: &Session) {
    let order = session.client.order(0);
    let at = |id: i64| order.iter().position(|o| *o == id).unwrap_or(usize::MAX);
    let progress = json!("notifications/progress");
    assert_eq!(order[at(5) - 2..=at(5)], [progress.clone(), progress, json!(5)], "{via:?} {revision}: {order:?}");
    let change = json!("notifications/tools/list_changed");
    assert_eq!(order[at(7) - 1..=at(7)], [change.clone(), json!(7)], "{via:?} {revision}: {order:?}");
    // The change of the gap, and the one of add_tool: no other.
    assert_eq!(order.iter().filter(|o| **o == change).count(), 2, "{via:?} {revision}: {order:?}");
}

/// The demo through the bridge and served directly, for a client of
/// `revision`: each way passes the checks, and both give the same
/// responses ("The same in the embedded mode").
fn every_tool_both_ways(revision: &'static str) {
    let bridge = session(Via::Bridge, revision);
    let embedded = session(Via::Embedded, revision);
    for (via, session) in [(Via::Bridge, &bridge), (Via::Embedded, &embedded)] {
        check_session(via, revision, session);
        check_order(via, revision, session);
    }
    for (id, response) in &bridge.responses {
        assert_json(&format!("{revision}: the response to {id}, embedded"), &embedded.responses[id], response);
    }
}

/// "Answer each client in its revision", "Send only what that revision
/// defines" (docs/decisions.md, "Revisions of the client"), for the demo
/// and a 2024-11-05 client: every line is valid under 2024-11-05; no
/// title, annotation, output schema, structuredContent, completions or
/// progress message; `ask_name` is an undeclared input request
/// (behaviour spec, "Checks before the client gets a question"). Also, for
/// each revision: the list change of the gap first ("Events after a
/// gap"), the list change of `add_tool` before its result, R6's repair of
/// `tag_items`, and the same responses both ways (behaviour spec, "The
/// embedded bridge": on the legacy path "the rules of this page apply").
#[test]
fn the_demo_serves_every_tool_to_a_2024_11_05_client_both_ways() {
    every_tool_both_ways("2024-11-05");
}

/// The same rules for a 2025-03-26 client: annotations, completions and
/// the progress message, still no title, output schema, structuredContent
/// or form.
#[test]
fn the_demo_serves_every_tool_to_a_2025_03_26_client_both_ways() {
    every_tool_both_ways("2025-03-26");
}

/// The same rules for a 2025-06-18 client: titles, the output schema of
/// `add` and its object structuredContent, not the array of `list_primes`
/// (2025-06-18 takes only an object: its text carries `[2,3,5,7]`); the
/// form of `ask_name` without `mode`, answered.
#[test]
fn the_demo_serves_every_tool_to_a_2025_06_18_client_both_ways() {
    every_tool_both_ways("2025-06-18");
}

/// The same rules for a 2025-11-25 client, which gets what the behaviour
/// spec gives VS Code: the array structuredContent of `list_primes` kept
/// ("structuredContent": "whatever its JSON type"), the form with `mode`.
#[test]
fn the_demo_serves_every_tool_to_a_2025_11_25_client_both_ways() {
    every_tool_both_ways("2025-11-25");
}
