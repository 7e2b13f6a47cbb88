//! The embedded mode (`mcp-bridge-vscode demo-server`, a 2026-07-28 server
//! through `mcp_bridge::embed`; decisions.md, "The embedded mode's modern
//! path"): a line that rmcp cannot read as a message of a client gets its
//! error with its request's id, or nothing for a notification, and never
//! takes a place in flight; the listen streams take places like every
//! other request (behaviour spec, "The embedded bridge (M5)": "A request
//! above the limit of requests in flight gets -32603 at once").

use crate::support::assert_json;
use crate::support::driver::{cancel, line, request, Driver};
use crate::support::{error_response, message};
use serde_json::{json, Value};
use std::process::Command;

/// The limit of requests in flight of the modern path.
const IN_FLIGHT: usize = 256;

fn demo() -> Driver {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    command.arg("demo-server");
    Driver::spawn(command)
}

/// A request of a 2026-07-28 client, with its `_meta`.
fn modern(id: Value, method: &str) -> Value {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    request(id, method, json!({"_meta": meta}))
}

/// The error of a request whose params are not an object.
fn invalid_params(id: Value) -> Value {
    error_response(id, -32602, &message("invalid_params"), "invalid_params", None)
}

/// The names of the demo's tools, as a `tools/list` answer of the modern
/// path has them.
#[track_caller]
fn listed(response: &Value, id: &Value) -> Vec<String> {
    assert_eq!(&response["id"], id, "{response}");
    let tools = response["result"]["tools"].as_array().unwrap_or_else(|| panic!("not a list: {response}"));
    tools.iter().map(|tool| tool["name"].as_str().unwrap_or_default().to_owned()).collect()
}

const TOOLS: [&str; 6] = ["add", "tag_items", "list_primes", "slow_count", "ask_name", "add_tool"];

/// Rule: "answers what rmcp cannot read as a client's message ... itself,
/// with the request's id: `invalid_params` for params that are not an
/// object" (decisions.md, "The embedded mode's modern path"), on the first
/// line too: a `server/discover` whose params are an array, or a string,
/// gets -32602 with its id, not rmcp's error without one.
#[test]
fn a_first_line_discover_with_params_that_are_no_object_gets_its_id() {
    for params in [json!([1, 2]), json!("x")] {
        let mut server = demo();
        server.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": params}));
        assert_json(&format!("params {params}"), &server.recv(), &invalid_params(json!(1)));
        // The server reads on: the next line chooses the modern path.
        server.send(&modern(json!(2), "tools/list"));
        assert_eq!(listed(&server.recv(), &json!(2)), TOOLS);
    }
}

/// The demo server on the modern path: its first line was a request of a
/// 2026-07-28 client, answered.
fn modern_path() -> Driver {
    let mut server = demo();
    server.send(&modern(json!("first"), "tools/list"));
    assert_eq!(listed(&server.recv(), &json!("first")), TOOLS);
    server
}

/// Rule: the same on the modern path: "rmcp would answer without an id and
/// keep the request's place in flight for good" (decisions.md, "The
/// embedded mode's modern path"): a request with array params gets -32602
/// with its id, and 300 of them leave a valid `tools/list` its result (not
/// `too_many_requests`).
#[test]
fn on_the_modern_path_params_that_are_no_object_get_their_id_and_take_no_place() {
    let mut server = modern_path();
    let ids: Vec<Value> = (0..300).map(|n| json!(format!("array-{n}"))).collect();
    let burst: Vec<u8> = ids
        .iter()
        .flat_map(|id| line(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": [1]})))
        .collect();
    server.send_raw(&burst);
    for id in &ids {
        assert_json("array params", &server.recv(), &invalid_params(id.clone()));
    }
    server.send(&modern(json!("after"), "tools/list"));
    assert_eq!(listed(&server.recv(), &json!("after")), TOOLS, "after 300 refused requests");
}

/// Rule: "an id beyond 64 bits ...: else `invalid_request_shape`", with the
/// request's id (decisions.md, "The embedded mode's modern path"): an
/// integer id of 18446744073709551615 (which rmcp cannot read) gets -32600
/// with the id exactly as sent.
#[test]
fn on_the_modern_path_an_id_rmcp_cannot_read_comes_back_as_sent() {
    let mut server = modern_path();
    let text = serde_json::to_string(&modern(json!(0), "tools/list")).unwrap_or_default();
    let huge = text.replacen("\"id\":0", "\"id\":18446744073709551615", 1);
    assert!(huge.contains("18446744073709551615"), "{huge}");
    server.send_raw(format!("{huge}\n").as_bytes());
    let text = server.recv_text();
    assert!(text.contains("\"id\":18446744073709551615,"), "the id as sent: {text}");
    let got: Value = serde_json::from_str(&text).unwrap_or_default();
    let id = json!(18446744073709551615u64);
    let want = error_response(id, -32600, &message("invalid_request_shape"), "invalid_request_shape", None);
    assert_json("an id of 64 bits", &got, &want);
    server.send(&modern(json!("after"), "tools/list"));
    assert_eq!(listed(&server.recv(), &json!("after")), TOOLS);
}

/// Rule: "Such a notification or response is dropped" (decisions.md, "The
/// embedded mode's modern path"): a notification with string params gets
/// no line; the next line is the answer of the next request.
#[test]
fn on_the_modern_path_a_notification_rmcp_cannot_read_gets_no_line() {
    let mut server = modern_path();
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}));
    server.send(&modern(json!("after"), "tools/list"));
    assert_eq!(listed(&server.recv(), &json!("after")), TOOLS, "the notification got no line");
}

/// Rule: "`subscriptions/listen` requests take a place among the 256 like
/// every other request, so their table is bounded too" (decisions.md, "The
/// embedded mode's modern path"): 256 open listen streams fill the places;
/// the 257th request, a listen or a `tools/list`, gets -32603
/// `too_many_requests` with its id; a cancellation frees one.
#[test]
fn listen_streams_take_the_places_in_flight() {
    let mut server = demo();
    let listen = |n: usize| {
        let mut listen = modern(json!(format!("listen-{n}")), "subscriptions/listen");
        listen["params"]["notifications"] = json!({"toolsListChanged": true});
        listen
    };
    let burst: Vec<u8> = (1..=IN_FLIGHT).flat_map(|n| line(&listen(n))).collect();
    server.send_raw(&burst);
    let mut acknowledged: Vec<String> = (1..=IN_FLIGHT)
        .map(|_| {
            let ack = server.recv();
            assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
            let id = ack.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId").and_then(Value::as_str);
            id.unwrap_or_else(|| panic!("no subscription id: {ack}")).to_owned()
        })
        .collect();
    acknowledged.sort();
    let mut opened: Vec<String> = (1..=IN_FLIGHT).map(|n| format!("listen-{n}")).collect();
    opened.sort();
    assert_eq!(acknowledged, opened, "each stream is open");
    let refused =
        |id: &str| error_response(json!(id), -32603, &message("too_many_requests"), "too_many_requests", None);
    server.send(&listen(IN_FLIGHT + 1));
    assert_json("the 257th listen", &server.recv(), &refused("listen-257"));
    server.send(&modern(json!("list"), "tools/list"));
    assert_json("a tools/list beyond", &server.recv(), &refused("list"));
    server.send(&cancel(&json!("listen-1")));
    server.send(&modern(json!("again"), "tools/list"));
    assert_eq!(listed(&server.recv(), &json!("again")), TOOLS);
}

/// Rule: the modern path "refuses a request whose id is in flight already
/// (`invalid_request_shape`, with that id: MCP never reuses one in a
/// session), so each place in flight is one request" (decisions.md): a
/// second `subscriptions/listen` with the id of an open one is refused.
#[test]
fn the_modern_path_refuses_an_id_in_flight() {
    let mut demo = demo();
    let listen = |id: Value| {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
        request(id, "subscriptions/listen", json!({"_meta": meta, "notifications": {"toolsListChanged": true}}))
    };
    demo.send(&listen(json!(5)));
    demo.wait_for(|m| m["method"] == "notifications/subscriptions/acknowledged", "the listen stream's acknowledgment");
    demo.send(&listen(json!(5)));
    let refused = demo.response(&json!(5));
    let want = error_response(json!(5), -32600, &message("invalid_request_shape"), "invalid_request_shape", None);
    assert_json("a request whose id is in flight", &refused, &want);
}

/// Rule: the table "keys a number by its value, as rmcp reads it (`-0` is
/// `0`)" (decisions.md): a ping with the id -0 gets its answer, and a
/// cancellation of -0 frees its place.
#[test]
fn the_modern_path_answers_the_id_minus_zero() {
    let mut demo = demo();
    demo.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":-0,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n");
    let answer = demo.recv();
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    // Its place is free again: 256 more requests all get their answers.
    let ids: Vec<Value> = (1..=IN_FLIGHT).map(|n| json!(n)).collect();
    for id in &ids {
        demo.send(&modern(id.clone(), "tools/list"));
    }
    for id in &ids {
        assert!(demo.response(id)["result"]["tools"].is_array(), "{id}");
    }
}
