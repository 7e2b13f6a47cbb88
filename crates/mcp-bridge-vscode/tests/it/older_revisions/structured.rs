//! `structuredContent` as each revision has it (decisions.md, "Revisions
//! of the client", "A structured result is never lost"): 2025-06-18 takes
//! only an object, the revisions before it have none, 2025-11-25 keeps any
//! value (behaviour spec, "structuredContent"); what goes is carried by a
//! text block, with one note.

use super::{answers, client_of, fake_client, initialize_as, lines_with, log_so_far, valid};
use crate::support::assert_json;
use crate::support::driver::Driver;
use serde_json::{json, Value};

/// The note of a `structuredContent` that 2025-06-18 cannot carry.
const NOT_AN_OBJECT: &str = "revision 2025-06-18 of the client takes only an object as structuredContent; \
     the bridge removed it, and a text block carries its value";

/// The note of a `structuredContent` that a revision before 2025-06-18 has not.
fn none_in(revision: &str) -> String {
    let how = "the bridge removed it, and a text block carries its value";
    format!("revision {revision} of the client has no structuredContent; {how}")
}

/// `list_primes` of the demo server with limit 10, as a 2025-06-18
/// client: its `structuredContent` is the array [2,3,5,7], which
/// 2025-06-18 cannot carry; the text mirror has it already.
#[track_caller]
fn primes_for_2025_06_18(mut server: Driver, how: &str) {
    let response = server.call(json!(1), "tools/call", json!({"name": "list_primes", "arguments": {"limit": 10}}));
    let result = &response["result"];
    assert_json(how, result, &json!({"content": [{"type": "text", "text": "[2,3,5,7]"}], "isError": false}));
    valid("2025-06-18", "CallToolResult", result);
}

/// Rule: "2025-06-18 takes only an object as `structuredContent` ... and
/// the demo's `list_primes` returns an array" (decisions.md, "A structured
/// result is never lost"): a 2025-06-18 client of the bridge in front of
/// the demo server gets no array as `structuredContent`; the text mirror
/// carries the value (so no second block), and the whole result is a
/// valid 2025-06-18 `CallToolResult`.
#[test]
fn an_array_structured_content_of_the_demo_server_reaches_a_2025_06_18_client_no_more() {
    let binary = env!("CARGO_BIN_EXE_mcp-bridge-vscode").to_owned();
    let bridged = client_of("2025-06-18", json!({}), &[binary.clone(), "demo-server".into()]);
    primes_for_2025_06_18(bridged, "through the bridge");
}

/// Rule: the same on the embedded mode's legacy path (`mcp-bridge-vscode
/// demo-server` alone, which serves a 2025-06-18 client through
/// `mcp_bridge::embed`).
#[test]
fn nor_on_the_embedded_modes_legacy_path() {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    command.arg("demo-server");
    let mut embedded = Driver::spawn(command);
    initialize_as(&mut embedded, "2025-06-18", json!({}));
    primes_for_2025_06_18(embedded, "on the embedded mode's legacy path");
}

/// A result with a text block of the server's own and a structured value.
fn with_text(structured: Value) -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": "see the structured result"}],
        "structuredContent": structured, "isError": false})
}

/// Rule: "2025-06-18 takes only an object as `structuredContent` ... The
/// member goes; a text block carries its JSON ..., with a note"
/// (decisions.md, "A structured result is never lost"):
/// `[1,2]` goes, a second text block `[1,2]` carries it, one info line
/// says so; a 2025-11-25 client keeps it as it is (behaviour spec,
/// "structuredContent": "whatever its JSON type").
#[test]
fn a_structured_content_that_is_not_an_object_becomes_a_text_block_for_2025_06_18_only() {
    let mut bridge = fake_client("2025-06-18", json!({}), &[]);
    let response = bridge.call(json!(1), "tools/call", answers(with_text(json!([1, 2]))));
    let want = json!({"content": [
        {"type": "text", "text": "see the structured result"},
        {"type": "text", "text": "[1,2]"}
    ], "isError": false});
    assert_json("2025-06-18", &response["result"], &want);
    valid("2025-06-18", "CallToolResult", &response["result"]);
    let stderr = log_so_far(&mut bridge);
    assert_eq!(lines_with(&stderr, NOT_AN_OBJECT), 1, "{stderr}");
    let line = stderr.lines().find(|l| l.contains(NOT_AN_OBJECT)).unwrap_or_default();
    assert!(line.contains(" INFO "), "an info line: {line}");

    let mut latest = fake_client("2025-11-25", json!({}), &[]);
    let response = latest.call(json!(1), "tools/call", answers(with_text(json!([1, 2]))));
    let want = json!({"content": [{"type": "text", "text": "see the structured result"}],
        "structuredContent": [1, 2], "isError": false});
    assert_json("2025-11-25", &response["result"], &want);
    let stderr = log_so_far(&mut latest);
    assert_eq!(lines_with(&stderr, "structuredContent"), 0, "{stderr}");
}

/// Rule: "older revisions have none. The member goes; a text block carries
/// its JSON unless a text block holds the same JSON already" (decisions.md,
/// "A structured result is never lost"): beside a text block of the
/// server's own, 2025-03-26 and 2024-11-05 get a second text block with
/// the JSON of `{"rows":[1,2]}`, and one info line each.
#[test]
fn below_2025_06_18_a_text_block_carries_the_structured_content_beside_the_servers_own() {
    for revision in ["2025-03-26", "2024-11-05"] {
        let mut bridge = fake_client(revision, json!({}), &[]);
        let response = bridge.call(json!(7), "tools/call", answers(with_text(json!({"rows": [1, 2]}))));
        let want = json!({"content": [
            {"type": "text", "text": "see the structured result"},
            {"type": "text", "text": "{\"rows\":[1,2]}"}
        ], "isError": false});
        assert_json(revision, &response["result"], &want);
        valid(revision, "CallToolResult", &response["result"]);
        let note = none_in(revision);
        let stderr = log_so_far(&mut bridge);
        assert_eq!(lines_with(&stderr, &note), 1, "{revision}: {stderr}");
        assert_eq!(lines_with(&stderr, "structuredContent"), 1, "{revision}: {stderr}");
    }
}
